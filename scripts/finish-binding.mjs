// What `napi build` generates, finished for this package. build-native.mjs
// runs it after every `napi build`, so the next build cannot undo it:
//
// - index.d.ts: the generated loader's `__napiBindingTarget` declaration is
//   removed. napi-rs declares it because the loader (index.js) stamps that
//   property on the binding; it is loader metadata, and the package entry
//   (lib/index.cjs) is what users import, so it stays out of the typings.
//   It is an edit of the generated file because index.d.ts is the root
//   entry's typings as napi-rs writes them, doc comments and all: the
//   alternative, a hand-written file re-exporting every generated name but
//   that one, would be a second list of the binding to keep in step.
//
// index.js, the generated loader, is left as napi-rs writes it. The message
// for a binary that is missing or will not load, which this script used to
// patch into it, is lib/native.cjs's: the one module that requires the
// loader catches its error and throws that message in its place.
//
//   node scripts/finish-binding.mjs           finishes index.d.ts
//   node scripts/finish-binding.mjs --check   fails if it is unfinished
//
// The edit is idempotent. If napi-rs changes what it generates so that the
// edit no longer finds its place, this fails loudly instead of shipping the
// generated text.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** index.d.ts without the generated loader's own export. */
export function finishTypings(text) {
  const finished = text.replace(
    /(?:\/\*\*(?:(?!\*\/)[\s\S])*\*\/\n)?export declare const __napiBindingTarget\b[^\n]*\n(?:\n(?=\n|\/|export))?/,
    '',
  );
  if (finished.includes('__napiBindingTarget')) {
    throw new Error('finish-binding: index.d.ts still names __napiBindingTarget after the edit; the generated shape changed');
  }
  return finished;
}

export function finishBinding({ check = false } = {}) {
  const path = join(root, 'index.d.ts');
  const text = readFileSync(path, 'utf8');
  const finished = finishTypings(text);
  if (finished === text) return;
  if (check) throw new Error('finish-binding: index.d.ts is as napi generated it; run: node scripts/finish-binding.mjs');
  writeFileSync(path, finished);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  finishBinding({ check: process.argv.includes('--check') });
}
