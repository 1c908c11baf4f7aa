// Writes __test__/fixtures/js-semantics.json: what this Node's own
// String.prototype.trim and toLowerCase do, so the Rust core's tests can
// compare against JavaScript itself without running it.
//
//   node scripts/gen-js-semantics-fixture.mjs
//
// Recorded: every UTF-16 unit that trim removes; every code point whose
// toLowerCase differs from itself, with the units it becomes; and a seeded
// set of short strings over Final_Sigma's context alphabet (cased letters,
// case-ignorable marks, lone surrogates) with their lower-case forms.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const out = join(dirname(fileURLToPath(import.meta.url)), '..', '__test__', 'fixtures', 'js-semantics.json');
const units = (s) => Array.from({ length: s.length }, (_, i) => s.charCodeAt(i));

const whitespace = [];
for (let u = 0; u <= 0xffff; u++) if (String.fromCharCode(u).trim() === '') whitespace.push(u);

const lowerCase = [];
for (let cp = 0; cp <= 0x10ffff; cp++) {
  if (cp >= 0xd800 && cp <= 0xdfff) continue;
  const s = String.fromCodePoint(cp);
  const lowered = s.toLowerCase();
  if (lowered !== s) lowerCase.push([cp, units(lowered)]);
}

// A small linear congruential generator: the same strings on every run.
let seed = 0x5eed;
const next = (n) => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed % n;
};
const alphabet = [
  'Σ', 'σ', 'Α', 'a', 'Z', ' ', '.', "'", ':', '\u0301', '\u00ad', '\u02b0', '\u200d',
  '\ud800', '\udc00', '😀', 'İ', '\u{10400}', '\u1e9e', '\u0345',
];
const contexts = [];
for (let i = 0; i < 3000; i++) {
  let s = '';
  const length = 1 + next(7);
  for (let j = 0; j < length; j++) s += alphabet[next(alphabet.length)];
  contexts.push([units(s), units(s.toLowerCase())]);
}

const fixture = {
  generatedBy: 'scripts/gen-js-semantics-fixture.mjs',
  node: process.version,
  unicode: process.versions.unicode,
  whitespace,
  lowerCase,
  contexts,
};
writeFileSync(out, JSON.stringify(fixture) + '\n');
console.log(`wrote ${out}: ${whitespace.length} whitespace units, ${lowerCase.length} lower-case mappings, ${contexts.length} contexts`);
