// Writes __test__/fixtures/claim-differential.json: random answers built
// from the vocabulary of agentfootprint's SAN fixtures, each with the
// values agentfootprint's own extractor finds in it, and random raw tokens
// with its normalizer's spelling. __test__/checks/claim-values-differential.test.mjs
// asks answerValuesOf and normalizeValue for the same and allows no
// disagreement.
//
//   node scripts/gen-claim-differential.mjs [reference dir]
//
// The reference is agentfootprint's src/core/agent/evidence/extract.ts,
// normalize.ts and figures.ts (rule 1), kept locally under
// /work/ref/agentfootprint/ (the default; not part of this repository).
// They are TypeScript with relative imports, so this script is their
// smallest loader: it strips the types (node:module stripTypeScriptTypes,
// Node 22.13 and later), drops type-only imports, rewrites `./x.js` to the
// stripped `./x.mjs` in a temporary directory, and imports extract.mjs.
// The gate object extract.ts reads (`ResolvedEvidenceGate`) is built here
// as agentfootprint's resolveEvidenceGate builds it: shapes anchored as
// `^(?:source)$` without g/y, exempt strings normalized with both FCID
// forms, exempt RegExps anchored likewise. gate.ts itself is not loaded
// (it imports most of agentfootprint).
//
// The answers stay far under agentfootprint's 20,000-token cap, so its
// extractor sees every token ours does. Seeded: the same reference gives
// the same file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const reference = process.argv[2] ?? '/work/ref/agentfootprint';
const evidence = join(reference, 'src/core/agent/evidence');

const scratch = mkdtempSync(join(tmpdir(), 'claim-reference-'));
for (const name of ['normalize', 'figures', 'extract']) {
  const source = readFileSync(join(evidence, `${name}.ts`), 'utf8')
    .replace(/^import type .*$/gm, '')
    .replace(/from '\.\/(\w+)\.js'/g, "from './$1.mjs'");
  writeFileSync(join(scratch, `${name}.mjs`), stripTypeScriptTypes(source));
}
const { extractCandidates } = await import(pathToFileURL(join(scratch, 'extract.mjs')).href);
const { normalizeToken, lookupForms } = await import(pathToFileURL(join(scratch, 'normalize.mjs')).href);
const { figureNumbersOf } = await import(pathToFileURL(join(scratch, 'figures.mjs')).href);
rmSync(scratch, { recursive: true, force: true });

/** resolveEvidenceGate's reading of the options, posture aside. */
function gateOf(options) {
  const anchor = (re) => new RegExp(`^(?:${re.source})$`, re.flags.replace(/[gy]/g, ''));
  const exemptValues = new Set();
  const exemptPatterns = [];
  for (const ex of options.exempt ?? []) {
    if (ex instanceof RegExp) exemptPatterns.push(anchor(ex));
    else for (const form of lookupForms(normalizeToken(ex))) if (form !== '') exemptValues.add(form);
  }
  const shapes = (options.shapes ?? []).map((s) => ({ name: s.name.trim(), match: anchor(s.match) }));
  return { posture: 'assist', shapes, exemptValues, exemptPatterns, minDigits: options.minDigits ?? 4 };
}

// mulberry32: a small seeded generator.
let seed = 0x32c1a1;
function random() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (list) => list[Math.floor(random() * list.length)];
const digits = (n) => Array.from({ length: n }, () => String(Math.floor(random() * 10))).join('');

// The vocabulary of agentfootprint's SAN fixtures (sanEvidence.ts): its
// identifiers, readings and prose, and the spellings its answers use.
const IDENTIFIERS = [
  'fc1/1', 'fc1/3', 'fc1/5', 'lva1-mds01', 'stor-array05-ct0-fc0', 'stor-array05-ct1-fc0', 'esxi-host10-hba0',
  '0x650000', '0x650400', '0xef0101', 'ef0101', '21:00:00:24:ff:4a:12:01', '21:00:00:24:ff:4a:12:03',
  '50:00:09:72:08:60:2a:00', '2026-04-12T08:15:00Z', 'esxi-host10.lvn.example.com', 'LVN-PROD', 'UCSB-B200-M5',
  'FCH1234V5K6', '7.0.3', 'app-sql-01', 'app-sql-01/app-sql-01_1.vmdk', '[ds_epic_prod_01]',
  '02003700006000097000019760183353303031313753594d4d4554', 'SHPMAXDLVAP001-FA0', 'Q-4471-OPS', 'build-8841',
  'ops-open', 'link_failure', '09:00', '10:00', 'po1', 'a1', 'ARR-2291', 'CLUSTER-A01', 'f710_pool', '1/2', '24/7',
];
const NUMBERS = [
  '48', '47', '892', '1204', '18450', '18,450', '41200', '41,200', '612', '78', '786432', '2048.0', '-14.8', '-3.1',
  '-15', '58', '22', '3', '24', '2026', '1,234,567', '90071992547409931234', '007', '0.0000001', '1526.3', '1,526.3',
  '53.2', '6.3', '24.8', '61.1', '435.5', '1,090.8', '3672', '3,672',
];
const TAILS = [
  'IOPS', 'iops', 'MBps', 'GB', 'TB', 'TiB', 'ms', 'us', '%', 'percent', 'dBm', 'C', 'h', 'th', 'st', '-port',
  'G', 'MB', 'GB/s', '/month', 'x', 'hours', 'kbps', 'mbps', 'KiB', 'Gbps',
];
const WORDS = [
  'port', 'is', 'down', 'up', 'the', 'with', 'reason', 'device', 'on', 'WWPN', 'FCID', 'peaks', 'at', 'an',
  'average', 'of', 'and', 'reads', 'are', 'host', 'cluster', 'serial', 'running', 'VMware', 'ESXi', 'has',
  'memory', 'VMs', 'threshold', 'Rx', 'power', 'Tx', 'three', 'first', 'healthy', 'I', 'checked', 'things',
  'CRC', 'errors', 'link', 'failures', 'over', 'last', 'window', 'negotiated', 'before', 'it', 'dropped',
  'esxi-host-alpha', 'naa', 'used', 'free', 'usable', 'total',
];
const GLUE = [' ', ' ', ' ', ' ', ', ', '. ', '; ', ' — ', '\n', ' | ', '\u00a0', '\u2009', ' (', ') ', ': ', ' **', '** ', ' `', '` ', '\t', ',', '/'];
const ODD = ['\u{1F600}', '\ud800', '\udfff', '٤١٢٠٠', 'naïve', 'İ', 'ẞ', '\ufeff', '\u0085', '"', "'", '$', '#', '@', '+', '<', '>', '[', ']', '{', '}', '*', '…', '=', '~', '\u212a'];

function piece() {
  const r = random();
  if (r < 0.28) return pick(IDENTIFIERS);
  if (r < 0.48) return pick(NUMBERS);
  if (r < 0.62) return pick(NUMBERS) + (random() < 0.5 ? '' : ' ') + pick(TAILS);
  if (r < 0.68) return digits(1 + Math.floor(random() * 8)) + pick(TAILS).toLowerCase();
  if (r < 0.74) return `${pick(['', '-', '$', '+'])}${digits(1 + Math.floor(random() * 20))}${random() < 0.3 ? `.${digits(1 + Math.floor(random() * 4))}` : ''}`;
  if (r < 0.78) return pick(ODD) + (random() < 0.5 ? pick(IDENTIFIERS) : pick(NUMBERS)) + (random() < 0.5 ? pick(ODD) : '');
  if (r < 0.81) return `${digits(1 + Math.floor(random() * 3))},${digits(3)}${random() < 0.5 ? `,${digits(random() < 0.7 ? 3 : 2)}` : ''}`;
  return pick(WORDS);
}

function answer() {
  const n = 3 + Math.floor(random() * 24);
  let text = '';
  for (let i = 0; i < n; i++) text += (i === 0 ? '' : pick(GLUE)) + piece();
  return random() < 0.5 ? text + '.' : text;
}

// Shapes and exempt patterns a DFA can run (no look-around, no
// back-references), as a domain would declare them.
const SHAPES = [
  { name: 'ticket', match: /[a-z]{3}-[a-z]{4}/ },
  { name: 'four', match: /\d{4}/ },
  { name: 'hex', match: /0x[0-9a-f]+/g },
  { name: 'wwn', match: /(?:[0-9a-f]{2}:){7}[0-9a-f]{2}/ },
  { name: 'host', match: /esxi-host[\w.-]*/i },
  { name: 'port', match: /fc\d+\/\d+/ },
  { name: 'word', match: /\w+/ },
  { name: 'alpha', match: /[a-z]+(?:-[a-z]+)+/ },
];
const EXEMPTS = ['0xef0101', 'FC1/3', '41,200', 'Q-4471-OPS', /build-\d+/, /^lva1-.*$/, /\d{4,}/, 'esxi-host10.lvn.example.com', '2048.0', '$1,204'];

function randomOptions() {
  const o = {};
  if (random() < 0.3) o.shapes = SHAPES.filter(() => random() < 0.3);
  if (random() < 0.3) o.exempt = EXEMPTS.filter(() => random() < 0.3);
  if (random() < 0.3) o.minDigits = 1 + Math.floor(random() * 6);
  if (random() < 0.4) o.figures = true;
  return o;
}

/** A RegExp as JSON: its source and flags. */
const plainOptions = (o) => ({
  ...o,
  ...(o.shapes && { shapes: o.shapes.map((s) => ({ name: s.name, source: s.match.source, flags: s.match.flags })) }),
  ...(o.exempt && { exempt: o.exempt.map((e) => (e instanceof RegExp ? { source: e.source, flags: e.flags } : e)) }),
});

const answers = [];
for (let i = 0; i < 3000; i++) {
  const text = answer();
  const o = randomOptions();
  const found = extractCandidates(text, gateOf(o), o.figures ? figureNumbersOf(text) : undefined);
  answers.push({ answer: text, options: plainOptions(o), values: found.map((c) => ({ ...c })) });
}
const tokens = [];
for (let i = 0; i < 1500; i++) {
  const raw = Array.from({ length: 1 + Math.floor(random() * 3) }, () => (random() < 0.2 ? pick(ODD) : piece())).join(random() < 0.3 ? pick(GLUE) : '');
  tokens.push({ raw, normalized: normalizeToken(raw) });
}
const out = join(root, '__test__/fixtures/claim-differential.json');
writeFileSync(out, `${JSON.stringify({ generatedBy: 'scripts/gen-claim-differential.mjs', answers, tokens })}\n`);
console.log(`wrote ${answers.length} answers and ${tokens.length} tokens to ${out}`);
