// The package as a user installs it from the registry, with each package
// manager: packs seamguard and its seven platform packages, with the
// platform packages named in the packed seamguard's optionalDependencies as
// the release's `napi prepublish` names them (in the packed copy only: a
// clone names none), serves them from a registry on 127.0.0.1 that passes
// every other request on to the npm registry (local-registry.mjs), and in a
// consumer project outside the repository, on Node 24 with no Rust on PATH,
// installs `seamguard`, `ai` 6 and zod with
//
//   npm (npm install, then npm ci from the lockfile it wrote), pnpm, yarn 1,
//   yarn 4 (nodeLinker node-modules, then pnp) and bun,
//
// each with its default settings (install scripts on), then runs a guarded
// agent by `import` and by `require`: three conversations at once on one
// AI SDK guard, each model a scripted MockLanguageModelV3 whose lookup comes
// back empty, and asserts one empty-lookup finding per conversation, from
// the binary of the platform package. Then Deno runs the package npm
// installed with --allow-ffi, and without it is told that is what is
// missing.
//
//   node scripts/consumer-test.mjs [npm|pnpm|yarn1|yarn4|bun|deno ...]   (default: all; needs seamguard.linux-x64-gnu.node)
//
// The package managers and Deno come from the npm registry, pinned, into
// .runtimes/package-managers/ the first time (as runtimes.mjs does for Node).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIMES, ensureRuntime } from './runtimes.mjs';
import { startRegistry } from './local-registry.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PLATFORM = 'linux-x64-gnu';
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const binaryName = `seamguard.${PLATFORM}.node`;
const say = (line) => console.log(`consumer-test: ${line}`);

/** The package managers, pinned, each in a prefix of its own under .runtimes/package-managers/. */
const MANAGERS = {
  pnpm: { spec: 'pnpm@12.23.0', bin: ['node_modules', '.bin', 'pnpm'] },
  yarn1: { spec: 'yarn@1.22.22', bin: ['node_modules', 'yarn', 'bin', 'yarn.js'], node: true },
  yarn4: { spec: '@yarnpkg/cli-dist@4.18.1', bin: ['node_modules', '@yarnpkg', 'cli-dist', 'bin', 'yarn.js'], node: true },
  bun: { spec: 'bun@1.4.5', bin: ['node_modules', '.bin', 'bun'] },
  deno: { spec: 'deno@2.9.6', bin: ['node_modules', '.bin', 'deno'] },
};
// What `ai` 6 the consumer installs: the one this checkout tests against,
// with its peer zod (yarn installs no peer dependency by itself).
const versionHere = (name) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
const DEPENDENCIES = { ai: versionHere('ai'), zod: versionHere('zod'), seamguard: pkg.version };

if (process.platform !== 'linux' || process.arch !== 'x64') {
  say(`skipped, the ${PLATFORM} package is tested on linux x64 only`);
  process.exit(0);
}
if (!existsSync(join(root, binaryName))) {
  console.error(`consumer-test: ${binaryName} is missing; run npm install (or npm run build) first`);
  process.exit(1);
}
const chosen = process.argv.slice(2);
for (const name of chosen) assert.ok(['npm', ...Object.keys(MANAGERS)].includes(name), `consumer-test: no package manager ${name}`);
const wanted = (name) => chosen.length === 0 || chosen.includes(name);

// npm's own variables (set under `npm test`) would steer the installs
// below into this project: every command gets a clean environment.
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|yarn_|pnpm_|bun_)/i.test(name)));

/** The path of one package manager, installed from the npm registry the first time. */
function ensureManager({ spec, bin }) {
  const prefix = join(root, '.runtimes', 'package-managers', spec.replace(/[@/]/g, '_').replace(/^_/, ''));
  const path = join(prefix, ...bin);
  if (existsSync(path)) return path;
  say(`installing ${spec} into .runtimes/package-managers/ …`);
  execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error', spec], {
    env: cleanEnv, stdio: ['ignore', 'inherit', 'inherit'],
  });
  assert.ok(existsSync(path), `installing ${spec} left no ${path}`);
  return path;
}

/** Runs a command to its end, its output kept; fails with the output when it fails. */
function run(command, args, { cwd, env, timeout = 300_000 }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${[command, ...args].join(' ')} in ${cwd} failed (${signal ?? `exit code ${code}`}):\n${output}`));
    });
  });
}

/** `npm pack` of one folder into `into`; returns the tarball's path. */
function pack(folder, into) {
  const [result] = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', into], { cwd: folder, env: cleanEnv, encoding: 'utf8' }));
  return join(into, result.filename);
}

// The agent each consumer runs, by import (main.mjs) and by require
// (main.cjs): three conversations at once on one guard.
const AGENT = `
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const step = (content, reason) => ({ content, finishReason: { unified: reason, raw: reason }, usage, warnings: [] });
const call = (id, toolName, input) => ({ type: 'tool-call', toolCallId: id, toolName, input: JSON.stringify(input) });
const tools = {
  fabric_inventory: tool({ description: 'Lists the devices on the fabric', inputSchema: jsonSchema({ type: 'object', properties: {} }),
    execute: async () => [{ wwpn: '20:00:00:25:b5:aa:00:1f', host: 'host-a' }] }),
  port_for_device: tool({ description: 'Finds the switch port a device is logged in to',
    inputSchema: jsonSchema({ type: 'object', properties: { wwpn: { type: 'string' } } }), execute: async () => [] }),
};
const seen = [];
const guard = createGuard({
  argumentsFrom: { port_for_device: ['fabric_inventory'] },
  onFinding: (finding, run) => seen.push({ kind: finding.kind, run: run.id }),
});
const conversation = (n) => generateText({
  model: wrapLanguageModel({ model: new MockLanguageModelV3({ doGenerate: [
    step([call('c' + n + 'a', 'fabric_inventory', {})], 'tool-calls'),
    step([call('c' + n + 'b', 'port_for_device', { wwpn: '20:00:00:25:b5:aa:00:1f' })], 'tool-calls'),
    step([{ type: 'text', text: 'host-a is not logged in anywhere (' + n + ').' }], 'stop'),
  ] }), middleware: guard.middleware }),
  tools, stopWhen: stepCountIs(5), prompt: 'Which port is host-a on?',
});
const answers = (await Promise.all([1, 2, 3].map(conversation))).map((result) => result.text);
if (answers.join('|') !== 'host-a is not logged in anywhere (1).|host-a is not logged in anywhere (2).|host-a is not logged in anywhere (3).') throw new Error('answers ' + JSON.stringify(answers));
if (seen.length !== 3 || seen.some((finding) => finding.kind !== 'empty-lookup') || new Set(seen.map((finding) => finding.run)).size !== 3) {
  throw new Error('findings ' + JSON.stringify(seen));
}
const shown = ScaffoldingFilter.strip('Port 7 is free.<|tool_call_start|>[port_for_device(device="sw-17")]<|tool_call_end|>');
if (shown !== 'Port 7 is free.') throw new Error('strip gave ' + JSON.stringify(shown));
const binaries = Object.keys(require.cache).filter((file) => file.endsWith('.node'));
if (binaries.length !== 1 || !binaries[0].endsWith('/seamguard-${PLATFORM}/${binaryName}')) throw new Error('binary not from the platform package: ' + JSON.stringify(binaries));
console.log('3 conversations at once, 3 empty-lookup findings (one per run), strip, binary from seamguard-${PLATFORM}');
`;
const PROGRAM_ESM = `import { createRequire } from 'node:module';
import { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { ScaffoldingFilter } from 'seamguard';
import { createGuard } from 'seamguard/ai-sdk';
const require = createRequire(import.meta.url);
${AGENT}`;
const PROGRAM_CJS = `'use strict';
const { generateText, jsonSchema, stepCountIs, tool, wrapLanguageModel } = require('ai');
const { MockLanguageModelV3 } = require('ai/test');
const { ScaffoldingFilter } = require('seamguard');
const { createGuard } = require('seamguard/ai-sdk');
(async () => {
${AGENT}
})().catch((error) => { console.error(error); process.exit(1); });`;

const work = mkdtempSync(join(tmpdir(), 'seamguard-consumer-'));
let registry;
let failed = 0;
try {
  const node24 = ensureRuntime(RUNTIMES.find((runtime) => runtime.line === 24));
  const managers = Object.fromEntries(Object.entries(MANAGERS).filter(([name]) => wanted(name)).map(([name, manager]) => [name, { ...manager, path: ensureManager(manager) }]));

  // The platform packages, as the release lays them out, the binary in
  // linux-x64-gnu's; then seamguard, named with them as napi prepublish does.
  const tarballs = [];
  const platforms = readdirSync(join(root, 'npm')).sort();
  for (const platform of platforms) {
    const staged = join(work, 'stage', platform);
    mkdirSync(dirname(staged), { recursive: true });
    cpSync(join(root, 'npm', platform), staged, { recursive: true });
    copyFileSync(join(root, 'LICENSE'), join(staged, 'LICENSE'));
    if (platform === PLATFORM) copyFileSync(join(root, binaryName), join(staged, binaryName));
    tarballs.push(pack(staged, work));
  }
  const packed = pack(root, join(work, 'stage'));
  execFileSync('tar', ['xzf', packed, '-C', join(work, 'stage')]);
  const manifestPath = join(work, 'stage', 'package', 'package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  assert.equal(manifest.optionalDependencies, undefined, 'the clone names no platform package');
  manifest.optionalDependencies = Object.fromEntries(platforms.map((platform) => [`seamguard-${platform}`, pkg.version]));
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  tarballs.push(pack(join(work, 'stage', 'package'), work));
  registry = await startRegistry(tarballs);
  say(`${tarballs.length} packed packages served at ${registry.url}, everything else from the npm registry`);

  // Node 24 first on PATH, every folder with cargo, rustc or rustup left out.
  const rustless = (cleanEnv.PATH ?? '').split(delimiter)
    .filter((dir) => dir && !['cargo', 'rustc', 'rustup'].some((tool) => existsSync(join(dir, tool))));
  const env = {
    ...cleanEnv,
    PATH: [dirname(node24), ...rustless].join(delimiter),
    CARGO_HOME: '/nonexistent',
    RUSTUP_HOME: '/nonexistent',
    // Caches of this run alone: bun keys its cache by name and version, and
    // every run packs a new seamguard 0.1.0.
    npm_config_cache: join(work, 'cache', 'npm'),
    npm_config_registry: registry.url,
    npm_config_loglevel: 'error',
    BUN_INSTALL_CACHE_DIR: join(work, 'cache', 'bun'),
    // yarn 4 in CI refuses to write a lockfile unless told it may.
    YARN_ENABLE_IMMUTABLE_INSTALLS: 'false',
    YARN_ENABLE_TELEMETRY: '0',
  };
  assert.equal(execFileSync(node24, ['--version'], { encoding: 'utf8' }).trim().split('.')[0], 'v24');

  const consumer = (name, extra = {}) => {
    const dir = join(work, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify({
      name: `seamguard-consumer-${name}`, version: '1.0.0', private: true,
      dependencies: DEPENDENCIES,
    }, null, 2)}\n`);
    writeFileSync(join(dir, '.npmrc'), `registry=${registry.url}\n`);
    for (const [file, text] of Object.entries(extra)) writeFileSync(join(dir, file), text);
    writeFileSync(join(dir, 'main.mjs'), PROGRAM_ESM);
    writeFileSync(join(dir, 'main.cjs'), PROGRAM_CJS);
    return dir;
  };
  const runAgent = async (name, dir, platformsInstalled = [PLATFORM]) => {
    // The platform package for this machine and no other (yarn 1 fetches
    // them all; it reads `os` and `cpu` but not `libc`, so it installs the
    // musl package beside the gnu one, and the loader takes the gnu one).
    const platformPackages = new Set(readdirSync(join(dir, 'node_modules'), { recursive: true }).map(String)
      .filter((path) => /(^|\/)seamguard-[a-z0-9-]+\/package\.json$/.test(path))
      .map((path) => path.split('/').at(-2)));
    assert.deepEqual([...platformPackages].sort(), platformsInstalled.map((platform) => `seamguard-${platform}`).sort(), `${name} installed these platform packages`);
    for (const program of ['main.mjs', 'main.cjs']) {
      const output = await run(node24, [program], { cwd: dir, env });
      say(`${name}, ${program === 'main.mjs' ? 'import' : 'require'}, Node 24: ${output.trim()}`);
    }
  };
  const noBuildStep = (name, output) => {
    // What each manager says of a dependency's install script it did not run or wants approved.
    assert.doesNotMatch(output, /ERR_PNPM_IGNORED_BUILDS|Ignored build scripts|must be built|Blocked \d+ postinstall|install script/i, `${name} said:\n${output}`);
  };

  const cases = {
    npm: async () => {
      const dir = consumer('npm');
      const output = await run('npm', ['install'], { cwd: dir, env });
      noBuildStep('npm install', output);
      const lock = JSON.parse(readFileSync(join(dir, 'package-lock.json'), 'utf8'));
      assert.equal(lock.packages[`node_modules/seamguard-${PLATFORM}`]?.optional, true, 'the lockfile names the platform package, optional');
      assert.equal(lock.packages['node_modules/seamguard'].hasInstallScript, undefined);
      say(`npm install: ${output.trim().split('\n').pop()}`);
      await runAgent('npm install', dir);
      rmSync(join(dir, 'node_modules'), { recursive: true });
      const ci = await run('npm', ['ci'], { cwd: dir, env });
      say(`npm ci: ${ci.trim().split('\n').pop()}`);
      await runAgent('npm ci', dir);
    },
    pnpm: async () => {
      const dir = consumer('pnpm');
      const output = await run(managers.pnpm.path, ['install', '--store-dir', join(work, 'cache', 'pnpm')], { cwd: dir, env });
      noBuildStep('pnpm install', output);
      assert.ok(existsSync(join(dir, 'pnpm-lock.yaml')));
      say(`pnpm install: ${output.trim().split('\n').filter((line) => /^(\+|Done|Packages:)/.test(line.trim())).pop() ?? 'done'}`);
      await runAgent('pnpm', dir);
    },
    yarn1: async () => {
      const dir = consumer('yarn1');
      const output = await run(node24, [managers.yarn1.path, 'install', '--non-interactive', '--no-progress', '--registry', registry.url, '--cache-folder', join(work, 'cache', 'yarn1')], { cwd: dir, env });
      noBuildStep('yarn 1 install', output);
      assert.ok(existsSync(join(dir, 'yarn.lock')));
      say(`yarn 1 install: ${output.trim().split('\n').pop()}`);
      await runAgent('yarn 1', dir, [PLATFORM, 'linux-x64-musl']);
    },
    yarn4: async () => {
      // Both linkers: node_modules, and Plug'n'Play, where the programs run
      // under `yarn node` (which loads .pnp.cjs and its ESM loader).
      for (const linker of ['node-modules', 'pnp']) {
        const dir = consumer(`yarn4-${linker}`, {
          '.yarnrc.yml': [
            `npmRegistryServer: "${registry.url.replace(/\/$/, '')}"`,
            'unsafeHttpWhitelist: ["127.0.0.1"]',
            `nodeLinker: ${linker}`,
            // Nothing from ~/.yarn (its metadata cache would give an earlier
            // run's address): every run packs a new seamguard 0.1.0.
            `globalFolder: "${join(work, 'cache', 'yarn4-global')}"`,
            'enableGlobalCache: false',
            'enableMirror: false',
            `cacheFolder: "${join(work, 'cache', `yarn4-${linker}`)}"`,
            '',
          ].join('\n'),
        });
        const output = await run(node24, [managers.yarn4.path, 'install'], { cwd: dir, env });
        noBuildStep(`yarn 4 install (${linker})`, output);
        assert.ok(existsSync(join(dir, 'yarn.lock')));
        say(`yarn 4 install, nodeLinker ${linker}: ${output.trim().split('\n').pop()}`);
        if (linker === 'node-modules') {
          await runAgent('yarn 4', dir);
          continue;
        }
        assert.ok(existsSync(join(dir, '.pnp.cjs')) && !existsSync(join(dir, 'node_modules', 'seamguard')));
        for (const program of ['main.mjs', 'main.cjs']) {
          const ran = await run(node24, [managers.yarn4.path, 'node', program], { cwd: dir, env });
          say(`yarn 4 pnp, ${program === 'main.mjs' ? 'import' : 'require'}, Node 24: ${ran.trim()}`);
        }
      }
    },
    // Deno, in a project npm installed: with --allow-ffi it runs; without,
    // the error says that is what is missing.
    deno: async () => {
      const dir = consumer('deno');
      await run('npm', ['install'], { cwd: dir, env: { ...env, npm_config_cache: join(work, 'cache', 'npm-deno') } });
      writeFileSync(join(dir, 'deno.mjs'), `import { RunCorpus, ScaffoldingFilter, readLookupResult } from 'seamguard';
const shown = ScaffoldingFilter.strip('Port 7 is free.<|tool_call_start|>[port_for_device(device="sw-17")]<|tool_call_end|>');
const corpus = new RunCorpus();
corpus.push({ toolName: 'fabric_inventory', text: 'switch sw-17 has ports 1-48' });
const call = { toolName: 'port_for_device', toolCallId: 'c1', args: { device: 'sw-17' }, argumentsFrom: ['fabric_inventory'], reading: readLookupResult([], false) };
console.log(JSON.stringify({ shown, findings: corpus.emptyLookupOf(call, 1).findings.map((finding) => finding.kind) }));
`);
      const denoEnv = { ...env, NO_COLOR: '1', DENO_DIR: join(work, 'cache', 'deno') };
      const allowed = await run(managers.deno.path, ['run', '--allow-read', '--allow-env', '--allow-ffi', 'deno.mjs'], { cwd: dir, env: denoEnv });
      assert.deepEqual(JSON.parse(allowed.trim().split('\n').pop()), { shown: 'Port 7 is free.', findings: ['empty-lookup'] });
      say(`deno run --allow-ffi: ${allowed.trim().split('\n').pop()}`);
      const refused = await run(managers.deno.path, ['run', '--allow-read', '--allow-env', 'deno.mjs'], { cwd: dir, env: denoEnv }).then(
        () => assert.fail('deno ran without --allow-ffi'),
        (error) => error.message,
      );
      assert.match(refused, /seamguard: Deno did not let the native binary load: it needs the permission to open native libraries\.\nRun with --allow-ffi/);
      assert.doesNotMatch(refused, /npm install|not installed \(/);
      say('deno run without --allow-ffi: the error says to allow it');
    },
    bun: async () => {
      const dir = consumer('bun', { 'bunfig.toml': `[install]\nregistry = "${registry.url}"\n` });
      const output = await run(managers.bun.path, ['install'], { cwd: dir, env });
      noBuildStep('bun install', output);
      say(`bun install: ${output.trim().split('\n').pop()}`);
      await runAgent('bun', dir);
    },
  };
  let passed = 0;
  for (const [name, check] of Object.entries(cases)) {
    if (!wanted(name)) continue;
    try {
      const before = registry.served.length;
      await check();
      // This run's packages, fetched from here, not a cache of an earlier run.
      const fetched = registry.served.slice(before);
      for (const ours of ['seamguard', `seamguard-${PLATFORM}`]) assert.ok(fetched.includes(`tarball ${ours}`), `${ours} was not fetched from the local registry: ${fetched}`);
      passed += 1;
    } catch (error) {
      failed += 1;
      console.error(`consumer-test: ${name} FAILED\n${error.stack}`);
    }
  }
  say(`${passed} passed, ${failed} failed`);
} finally {
  await registry?.close();
  rmSync(work, { recursive: true, force: true });
}
process.exitCode = failed > 0 ? 1 : 0;
