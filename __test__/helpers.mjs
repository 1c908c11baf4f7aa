// Shared by the node:test files.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ScaffoldingFilter } from 'seamguard';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

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
export function bareOutputs(chunks) {
  const filter = new ScaffoldingFilter();
  return [...chunks.map((chunk) => filter.feed(chunk)), filter.flush()].filter((out) => out !== '');
}

/** The chunkings of the golden vectors (their first round), as inputs. */
export function goldenChunkings() {
  const fixture = JSON.parse(readFileSync(join(root, '__test__/fixtures/scaffolding.json'), 'utf8'));
  return fixture.cases.map(({ name, rounds }) => ({ name, chunks: rounds[0].chunks }));
}

/**
 * Whether a pattern list runs on the one-pass engine, as the reference
 * does: literal spans and tokens only, no two literals able to overlap (one
 * inside another, or a proper suffix of one a proper prefix of another).
 * The tests' own model of the rule in src/scaffolding/registry.rs, to pick
 * the registries the reference port judges.
 */
export function isLiteralRegistry(patterns) {
  if (patterns === undefined) return true;
  const literals = [];
  for (const p of patterns) {
    const keys = Object.keys(p).sort().join();
    if (keys === 'token' && typeof p.token === 'string') literals.push(p.token);
    else if (keys === 'end,start' && typeof p.start === 'string' && typeof p.end === 'string') literals.push(p.start, p.end);
    else return false;
  }
  const overlap = (a, b) => {
    for (let k = 1; k < Math.min(a.length, b.length); k++) if (a.slice(a.length - k) === b.slice(0, k)) return true;
    return false;
  };
  for (let i = 0; i < literals.length; i++) {
    for (let j = i; j < literals.length; j++) {
      const [a, b] = [literals[i], literals[j]];
      if (i !== j && (a.includes(b) || b.includes(a))) return false;
      if (overlap(a, b) || overlap(b, a)) return false;
    }
  }
  return true;
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
