// TypeScript projects still on `moduleResolution: "node"` (node10) do not
// read the package's `exports`, so the subpath typings reach them through
// `typesVersions`. This compiles a small consumer under that setting against
// the package as it would sit in node_modules.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

test('a node10-resolution TypeScript project finds the root and subpath typings', (t) => {
  const project = mkdtempSync(join(tmpdir(), 'seamguard-node10-'));
  // (The link into the package is removed, not followed.)
  t.after(() => rmSync(project, { recursive: true, force: true }));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(root, join(project, 'node_modules', 'seamguard'), 'dir');
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, module: 'commonjs', moduleResolution: 'node', target: 'es2022', types: [],
    },
    files: ['use.ts'],
  }));
  writeFileSync(join(project, 'use.ts'), `
import { ProducedCorpus, ScaffoldingFilter, type EmptyLookupEncounter } from 'seamguard';
import { stripScaffolding, type StrippedText } from 'seamguard/streams';
const corpus: ProducedCorpus = new ProducedCorpus();
const encounter: EmptyLookupEncounter = corpus.emptyLookupOf(
  { toolName: 't', toolCallId: 'c', args: {}, argumentsFrom: [], reading: undefined }, 1);
const held: number = new ScaffoldingFilter().strippedChars;
const stripped: StrippedText | undefined = undefined;
void encounter; void held; void stripped; void stripScaffolding;
// @ts-expect-error: a subpath the package does not have
import type { Nothing } from 'seamguard/nothing';
`);
  const tsc = require.resolve('typescript/bin/tsc');
  const run = spawnSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stdout + run.stderr);
});
