// Shared by the node:test files.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ScaffoldingFilter, ScaffoldRegistry } from 'seamguard';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Runs `body` (an ES module, with `m` bound to the addon) in a fresh Node
 * process, so a crash, an abort or a stack overflow fails one test instead
 * of ending the runner. Returns the exit status, signal and output.
 */
export function inChild(body, { timeout = 60_000, env = {} } = {}) {
  const source = `import { createRequire } from 'node:module';\nconst m = createRequire(${JSON.stringify(join(root, 'package.json'))})('seamguard');\n${body}`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
    encoding: 'utf8', timeout, env: { ...process.env, ...env },
  });
  return { status: child.status, signal: child.signal, stdout: child.stdout, stderr: child.stderr };
}

/** A small seeded generator, so a failing random case can be replayed. */
export function rng(seed) {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  return {
    below: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (p) => next() < p,
  };
}

/**
 * What a bare ScaffoldingFilter emits for `chunks`, fed one by one and then
 * flushed, leaving out empty outputs: the reference for every adapter.
 */
export function bareOutputs(chunks, options) {
  const filter = new ScaffoldingFilter(options);
  return [...chunks.map((chunk) => filter.feed(chunk)), filter.flush()].filter((out) => out !== '');
}

/** The chunkings of the golden vectors (their first round), as inputs. */
export function goldenChunkings() {
  const fixture = JSON.parse(readFileSync(join(root, '__test__/fixtures/scaffolding.json'), 'utf8'));
  return fixture.cases.map(({ name, rounds }) => ({ name, chunks: rounds[0].chunks }));
}

/**
 * Whether a pattern list runs exactly as the reference does (the native
 * `ScaffoldRegistry.runsAsReference`), to pick the registries the reference
 * port can judge; a list that is no registry at all is not one.
 */
export function isLiteralRegistry(patterns) {
  if (patterns === undefined) return true;
  try {
    return new ScaffoldRegistry(patterns).runsAsReference;
  } catch {
    return false;
  }
}

/** Chunkings of `text`: whole, a unit at a time, and seeded random cuts of 1 to `widest` units. */
export function chunkings(text, seed, widest = 12) {
  const r = rng(seed);
  const random = [];
  for (let at = 0; at < text.length; ) {
    const end = Math.min(text.length, at + 1 + r.below(widest));
    random.push(text.slice(at, end));
    at = end;
  }
  return [[text], Array.from(text.split(''), (unit) => unit), random];
}

/**
 * Values of every kind that is not a string, with what `typeof` says: the
 * hostile values for a field that wants a string, an array or an object.
 * Shared by every hostile-input test.
 */
export const NOT_STRINGS = [
  ['undefined', undefined],
  ['null', null],
  ['number', 0],
  ['number', NaN],
  ['boolean', false],
  ['bigint', 10n],
  ['symbol', Symbol('hostile')],
  ['function', () => 'text'],
  ['object', {}],
  ['object', []],
  ['object', new String('boxed')],
  ['object', new Uint16Array([0x61])],
  ['object', Object.create(null)],
  ['object', Object.freeze({ frozen: true })],
  ['object', { toString: () => 'text', [Symbol.toPrimitive]: () => 'text' }],
  ['object', new Proxy({}, { get() { throw new Error('trap must not run'); } })],
];

/** Whether reading a property of `value` runs a trap that throws (the last NOT_STRINGS entry). */
export function isTrapped(value) {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  try {
    Reflect.get(value, 'probe');
    return false;
  } catch {
    return true;
  }
}
