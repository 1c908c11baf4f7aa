// `npm test`: every test of the project, in order, stopping at the first
// that fails.
//
// 0. the lint gates (lint.mjs): rustfmt, clippy and rustdoc with warnings
//    denied, and oxlint over the JavaScript;
// 1. cargo test: the Rust core's own tests;
// 2. the Node tests (a line per file, failures in full: reporter.mjs)
//    under the Node running this script, then under Node 22
//    and 24 (installed from the npm registry into .runtimes/ the first time,
//    see runtimes.mjs); the AI SDK 7 tests run only where `ai` 7 does, on
//    Node 22 and later, and so do the OpenAI Agents SDK's and Mastra's;
// 3. the type tests: the package's own typings under `strict`, a consumer
//    of `seamguard/ai-sdk` against `ai` 6 and `ai` 7, and consumers of
//    `seamguard/langchain`, `seamguard/openai-agents` and `seamguard/mastra`
//    against those frameworks' own types (Mastra with an ai 6 and an ai 7
//    model); each project under TypeScript 5.9
//    (`typescript`) and TypeScript 7 (`typescript-7`, the native compiler,
//    whose `tsc` runs a Go binary from its platform package); and an ES
//    module consumer of every entry (the `import` condition, lib/esm/*.d.mts)
//    under `moduleResolution` node16, nodenext and bundler;
// 4. the typings against the specification's surfaces;
// 5. the package as a user gets it: the main and linux-x64-gnu tarballs
//    installed with no Rust and no install scripts (pack-test.mjs); then
//    from a registry on 127.0.0.1, named as a release names them, into a
//    project outside the repository on Node 24, with npm (install and ci),
//    pnpm, yarn 1, yarn 4 and bun, each running a guarded agent
//    (consumer-test.mjs). The build from source a platform with no prebuilt
//    package uses is `npm run test:fallback` (fallback-test.mjs), apart for
//    its minutes;
// 6. the peer ranges at both ends: the guard tests against the oldest and
//    the newest version of each framework the peerDependencies admit, each
//    set installed as a user installs seamguard (compat-test.mjs, also
//    `npm run test:compat`).
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIMES, ensureRuntime } from './runtimes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const run = (command, args) => execFileSync(command, args, { cwd: root, stdio: 'inherit' });
const step = (title) => console.log(`\n== ${title}`);

// Every *.test.mjs under __test__/, in its folders (checks/, filter/,
// guard/, package/, types/), sorted by path.
const nodeTests = readdirSync(join(root, '__test__'), { recursive: true })
  .map(String)
  .filter((name) => name.endsWith('.test.mjs'))
  .map((name) => join('__test__', name))
  .sort();

run(process.execPath, ['scripts/lint.mjs']);

step('cargo test');
run('cargo', ['test', '--quiet']);

// A line per file, each failure in full, a summary (reporter.mjs).
const nodeTest = ['--test', '--test-reporter=./scripts/reporter.mjs', ...nodeTests];
step(`node --test, Node ${process.versions.node}`);
run(process.execPath, nodeTest);
for (const runtime of RUNTIMES) {
  const node = ensureRuntime(runtime);
  step(`node --test, Node ${runtime.version}`);
  run(node, nodeTest);
}

for (const typescript of ['typescript', 'typescript-7']) {
  const tsc = join(dirname(require.resolve(`${typescript}/package.json`)), 'bin', 'tsc');
  const version = execFileSync(process.execPath, [tsc, '--version'], { cwd: root, encoding: 'utf8' }).trim();
  step(`type tests, TypeScript ${version.replace(/^Version /, '')} (${typescript})`);
  for (const project of ['tsconfig.json', 'tsconfig.ai-sdk.json', 'tsconfig.ai-sdk7.json', 'tsconfig.frameworks.json', 'tsconfig.mastra.json', 'tsconfig.mastra7.json',
    'tsconfig.esm-node16.json', 'tsconfig.esm-nodenext.json', 'tsconfig.esm-bundler.json']) {
    console.log(`tsc -p __test__/types/${project}`);
    run(process.execPath, [tsc, '-p', join('__test__', 'types', project)]);
  }
}

step('surfaces');
run('bash', ['scripts/check-surface.sh', 'empty-lookup', 'filter', 'unsupported-argument', 'dangling-reference', 'ledger', 'run-corpus']);

step('the packed package, installed as a user installs it');
run(process.execPath, ['scripts/pack-test.mjs']);

step('the packed package from a registry, with npm, pnpm, yarn and bun');
run(process.execPath, ['scripts/consumer-test.mjs']);

step('the peer ranges: the oldest and the newest set of frameworks');
run(process.execPath, ['scripts/compat-test.mjs']);

// The build from source (scripts/fallback-test.mjs, 1 to 2
// minutes of cargo) runs on its own: `npm run test:fallback`.
