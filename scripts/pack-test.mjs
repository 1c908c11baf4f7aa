// The package as a user gets it: packs the main package and the
// linux-x64-gnu platform package with `npm pack`, installs both tarballs
// into a new consumer project with no Rust on PATH and --ignore-scripts,
// and runs a small program there that imports `seamguard` and
// `seamguard/ai-sdk` (ESM and CommonJS), under the Node running this script
// and Node 22 and 24 (runtimes.mjs).
//
//   node scripts/pack-test.mjs      (needs seamguard.linux-x64-gnu.node: npm install or npm run build)
//
// It checks on the way that each tarball holds what it needs and nothing
// else, that the binary comes from the platform package, and that nothing
// but the binary package carries a binary.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIMES, ensureRuntime } from './runtimes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PLATFORM = 'linux-x64-gnu';
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const binaryName = `seamguard.${PLATFORM}.node`;
const binary = join(root, binaryName);

if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.log(`pack-test: skipped, the ${PLATFORM} package is tested on linux x64 only`);
  process.exit(0);
}
if (!existsSync(binary)) {
  console.error(`pack-test: ${binaryName} is missing; run npm install (or npm run build) first`);
  process.exit(1);
}

// npm's own variables (set when this runs under `npm test`) would steer the
// npm run below into this project: the consumer gets a clean environment.
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
// PATH with every folder that holds cargo, rustc or rustup left out.
const rustless = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => dir && !['cargo', 'rustc', 'rustup'].some((tool) => existsSync(join(dir, tool))))
  .join(delimiter);
const consumerEnv = { ...cleanEnv, PATH: rustless, CARGO_HOME: '/nonexistent', RUSTUP_HOME: '/nonexistent' };

const npm = (args, cwd, env = cleanEnv) => execFileSync('npm', args, { cwd, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/** `npm pack` of one folder into `into`; returns the tarball's path and file list. */
function pack(folder, into) {
  const [result] = JSON.parse(npm(['pack', '--json', '--pack-destination', into], folder));
  return { tarball: join(into, result.filename), files: result.files.map((file) => file.path).sort(), size: result.size, unpackedSize: result.unpackedSize };
}

// The consumer's programs. Each checks that the binary was loaded from the
// platform package, and uses the root entry and seamguard/ai-sdk once.
const CHECKS = `
const binaries = Object.keys(require.cache).filter((file) => file.endsWith('.node'));
if (binaries.length !== 1 || !binaries[0].endsWith('/node_modules/seamguard-${PLATFORM}/${binaryName}')) {
  throw new Error('binary not from the platform package: ' + JSON.stringify(binaries));
}
const shown = ScaffoldingFilter.strip('Port 7 is free.<|tool_call_start|>[port_for_device(device="sw-17")]<|tool_call_end|>');
if (shown !== 'Port 7 is free.') throw new Error('strip gave ' + JSON.stringify(shown));
const corpus = new RunCorpus();
corpus.push({ toolName: 'fabric_inventory', text: 'switch sw-17 has ports 1-48' });
const call = { toolName: 'port_for_device', toolCallId: 'c1', args: { device: 'sw-17' }, argumentsFrom: ['fabric_inventory'], reading: readLookupResult([], false) };
const findings = corpus.emptyLookupOf(call, 1).findings.length;
if (findings !== 1) throw new Error('empty-lookup gave ' + findings + ' findings');
const guard = createGuard({ argumentsFrom: { port_for_device: ['fabric_inventory'] } });
if (typeof guard.middleware.wrapGenerate !== 'function' || guard.ledger.report().length !== 3) throw new Error('createGuard');
if (typeof scaffoldingMiddleware().wrapStream !== 'function') throw new Error('scaffoldingMiddleware');
console.log('ok: strip, empty-lookup (' + findings + ' finding), createGuard, scaffoldingMiddleware');
`;

const CONSUMER_ESM = `import { createRequire } from 'node:module';
import { RunCorpus, ScaffoldingFilter, readLookupResult } from 'seamguard';
import { createGuard, scaffoldingMiddleware } from 'seamguard/ai-sdk';
const require = createRequire(import.meta.url);
${CHECKS}`;

const CONSUMER_CJS = `'use strict';
const { RunCorpus, ScaffoldingFilter, readLookupResult } = require('seamguard');
const { createGuard, scaffoldingMiddleware } = require('seamguard/ai-sdk');
${CHECKS}`;

const work = mkdtempSync(join(tmpdir(), 'seamguard-pack-'));
try {
  // The platform package as `napi create-npm-dirs` laid it out (npm/<platform>),
  // with the binary and the licence the release workflow also puts in it.
  const staged = join(work, 'stage', PLATFORM);
  mkdirSync(dirname(staged), { recursive: true });
  cpSync(join(root, 'npm', PLATFORM), staged, { recursive: true });
  copyFileSync(join(root, 'LICENSE'), join(staged, 'LICENSE'));
  copyFileSync(binary, join(staged, binaryName));

  const main = pack(root, work);
  const platform = pack(staged, work);
  console.log(`pack-test: ${main.tarball.slice(work.length + 1)}: ${main.files.length} files, ${main.size} bytes packed, ${main.unpackedSize} unpacked`);
  console.log(`pack-test: ${platform.tarball.slice(work.length + 1)}: ${platform.files.join(', ')}, ${platform.size} bytes packed`);

  // What each tarball holds.
  assert.deepEqual(platform.files, ['LICENSE', 'README.md', 'package.json', binaryName].sort());
  // The README links its reference pages, so they travel with it.
  for (const required of ['LICENSE', 'README.md', 'docs/scaffolding-filter.md', 'package.json', 'index.js', 'index.d.ts', 'lib/index.cjs', 'lib/native.cjs', 'lib/adapters/ai-sdk/index.cjs', 'lib/types/ai-sdk.d.ts',
    'scripts/build-native.mjs', 'scripts/finish-binding.mjs', 'Cargo.toml', 'Cargo.lock', 'build.rs', 'src/lib.rs']) {
    assert.ok(main.files.includes(required), `the main tarball lacks ${required}`);
  }
  const allowed = /^(LICENSE|README\.md|docs\/[a-z-]+\.md|package\.json|index\.js|index\.d\.ts|Cargo\.toml|Cargo\.lock|build\.rs|scripts\/(build-native|finish-binding)\.mjs|lib\/.+\.(cjs|d\.ts)|lib\/esm\/[a-z-]+\.(mjs|d\.mts)|src\/.+\.rs)$/;
  const strays = main.files.filter((file) => !allowed.test(file) || /(^|\/)tests\.rs$/.test(file));
  assert.deepEqual(strays, [], 'files the main tarball should not carry');
  const targets = (exported) => (typeof exported === 'string' ? [exported] : Object.values(exported).flatMap(targets));
  for (const exported of Object.values(pkg.exports)) {
    for (const target of targets(exported)) {
      assert.ok(main.files.includes(target.replace(/^\.\//, '')), `the main tarball lacks ${target}, which package.json exports`);
    }
  }
  // Version-locked: the platform package is exactly the main package's
  // version (the release's napi prepublish names it so in the main
  // package's optionalDependencies; a clone names none).
  const platformManifest = JSON.parse(readFileSync(join(staged, 'package.json'), 'utf8'));
  assert.equal(platformManifest.version, pkg.version);

  // The consumer: no Rust on PATH, no install scripts.
  assert.equal(spawnSync('cargo', ['--version'], { env: consumerEnv }).error?.code, 'ENOENT', 'cargo is still on the consumer PATH');
  const consumer = join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(join(consumer, 'package.json'), `${JSON.stringify({ name: 'seamguard-consumer', version: '1.0.0', private: true }, null, 2)}\n`);
  const installed = npm(['install', '--ignore-scripts', '--no-audit', '--no-fund', main.tarball, platform.tarball], consumer, consumerEnv);
  console.log(`pack-test: npm install --ignore-scripts (no Rust on PATH): ${installed.trim().split('\n').pop()}`);

  const modules = join(consumer, 'node_modules');
  const installedMain = join(modules, 'seamguard');
  assert.ok(existsSync(join(modules, `seamguard-${PLATFORM}`, binaryName)), 'the platform package brought no binary');
  const binariesInMain = readdirSync(installedMain, { recursive: true }).filter((file) => String(file).endsWith('.node'));
  assert.deepEqual(binariesInMain, [], 'the main package carries a binary');
  assert.ok(!existsSync(join(installedMain, 'target')), 'the main package has a target/');

  writeFileSync(join(consumer, 'main.mjs'), CONSUMER_ESM);
  writeFileSync(join(consumer, 'main.cjs'), CONSUMER_CJS);
  const nodes = [process.execPath, ...RUNTIMES.map((runtime) => ensureRuntime(runtime))];
  for (const node of nodes) {
    for (const program of ['main.mjs', 'main.cjs']) {
      const run = spawnSync(node, [program], { cwd: consumer, env: consumerEnv, encoding: 'utf8' });
      assert.equal(run.status, 0, `${program} under ${node}:\n${run.stdout}${run.stderr}`);
      const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
      console.log(`pack-test: ${program}, Node ${version}: ${run.stdout.trim()}`);
    }
  }

  // With the platform package gone, the error says what to run.
  rmSync(join(modules, `seamguard-${PLATFORM}`), { recursive: true });
  const missing = spawnSync(process.execPath, ['main.mjs'], { cwd: consumer, env: consumerEnv, encoding: 'utf8' });
  assert.notEqual(missing.status, 0);
  assert.match(missing.stderr, new RegExp(`npm install seamguard-${PLATFORM}@${pkg.version.replace(/\./g, '\\.')}`));
  assert.match(missing.stderr, /npx seamguard-build/);
  assert.doesNotMatch(missing.stderr, /npm has a bug/);
  console.log('pack-test: without the platform package, the error names it and the command that builds from source');
  console.log('pack-test: 1 passed, 0 failed');
} finally {
  rmSync(work, { recursive: true, force: true });
}
