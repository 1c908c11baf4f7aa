// How the package installs (issue 31): no install script for a package
// manager to refuse, the clone's build in `prepare`, a user's build from
// source through the bin with progress a CI log shows, a quiet install
// whose real problems still print, a load error that says what is wrong,
// and an ES module entry beside each CommonJS one. The tarballs themselves
// are installed with npm, pnpm, yarn and bun by scripts/consumer-test.mjs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

import { esmEntries } from '../../scripts/gen-esm.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { loadErrorMessage, publishedPlatforms } = require('../../lib/load-error.cjs');
const linuxX64 = process.platform === 'linux' && process.arch === 'x64';

describe('scripts', () => {
  it('has no install script, which pnpm refuses and bun and yarn 4 skip; the clone builds in prepare', () => {
    for (const hook of ['preinstall', 'install', 'postinstall']) assert.equal(pkg.scripts[hook], undefined, hook);
    assert.equal(pkg.scripts.prepare, 'node scripts/build-native.mjs --prepare && node scripts/install-check.mjs');
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
    assert.equal(lock.packages[''].hasInstallScript, undefined);
  });

  it('builds from source through the bin seamguard-build, a file the tarball carries', () => {
    assert.deepEqual(pkg.bin, { 'seamguard-build': 'scripts/build-native.mjs' });
    assert.match(readFileSync(join(root, pkg.bin['seamguard-build']), 'utf8'), /^#!\/usr\/bin\/env node\n/);
    assert.ok(pkg.files.includes('scripts/build-native.mjs'));
  });

  it('seamguard-build refuses an argument it does not know, naming it', () => {
    const run = spawnSync(process.execPath, ['scripts/build-native.mjs', '--frm-source'], { cwd: root, encoding: 'utf8' });
    assert.equal(run.status, 2);
    assert.equal(run.stderr, 'seamguard-build: unknown argument --frm-source; usage: npx seamguard-build [--from-source]\n');
  });

  it('keeps npm quiet in a clone: warnings off, the install check prints the real problems', () => {
    const npmrc = readFileSync(join(root, '.npmrc'), 'utf8');
    assert.match(npmrc, /^loglevel=error$/m);
  });

  it('as prepare, builds nothing for npm pack and npm publish, and nothing when the binary is there', () => {
    for (const command of ['pack', 'publish']) {
      const run = spawnSync(process.execPath, ['scripts/build-native.mjs', '--prepare'], {
        cwd: root, env: { ...process.env, npm_command: command, PATH: '' }, encoding: 'utf8',
      });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout + run.stderr, '');
    }
    assert.ok(readdirSync(root).some((file) => /^seamguard\..+\.node$/.test(file)), 'the checkout has its binary');
    const again = spawnSync(process.execPath, ['scripts/build-native.mjs', '--prepare'], { cwd: root, env: { ...process.env, npm_command: 'install' }, encoding: 'utf8' });
    assert.equal(again.status, 0, again.stderr);
    assert.equal(again.stdout + again.stderr, '');
  });
});

describe('npx seamguard-build from source, in a user\'s node_modules', { skip: !linuxX64 }, () => {
  // A stand-in for cargo that says what a build says, is silent for a while
  // as the optimised link is, and leaves a library where cargo would.
  const CARGO = `#!/bin/sh
if [ "$1" = "--version" ]; then echo "cargo 1.99.0 (a stand-in)"; exit 0; fi
echo "$@" > "$SEAMGUARD_TEST_ARGS"
echo "   Compiling seamguard v${pkg.version}" >&2
sleep 2
mkdir -p "$CARGO_TARGET_DIR/release"
printf 'a stand-in library' > "$CARGO_TARGET_DIR/release/libseamguard.so"
echo "    Finished \\\`release\\\` profile [optimized] target(s)" >&2
`;

  it('prints each step on stderr with no terminal, a line while the build is quiet, and leaves the binary alone', () => {
    const project = mkdtempSync(join(tmpdir(), 'seamguard-source-'));
    try {
      const seamguard = join(project, 'node_modules', 'seamguard');
      mkdirSync(join(seamguard, 'scripts'), { recursive: true });
      for (const file of ['package.json', 'index.js', 'scripts/build-native.mjs', 'scripts/finish-binding.mjs', 'Cargo.toml', 'Cargo.lock']) {
        copyFileSync(join(root, file), join(seamguard, file));
      }
      const bin = join(project, 'bin');
      const temp = join(project, 'tmp');
      mkdirSync(bin);
      mkdirSync(temp);
      writeFileSync(join(bin, 'cargo'), CARGO);
      chmodSync(join(bin, 'cargo'), 0o755);
      const env = {
        ...process.env, PATH: `${bin}${delimiter}${process.env.PATH}`, TMPDIR: temp, SEAMGUARD_BUILD_QUIET_SECONDS: '0.2',
        SEAMGUARD_TEST_ARGS: join(project, 'args'), SEAMGUARD_BUILD_FROM_SOURCE: '',
      };
      const run = spawnSync(process.execPath, [join(seamguard, 'scripts', 'build-native.mjs')], { cwd: project, env, encoding: 'utf8', detached: true });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout, '');
      const lines = run.stderr.trim().split('\n');
      assert.match(lines[0], /^seamguard: building the addon for linux-x64-(gnu|musl) from source with cargo 1\.99\.0 \(a stand-in\)\.$/);
      assert.ok(lines.includes(`     Compiling seamguard v${pkg.version}`), run.stderr);
      assert.ok(lines.some((line) => /^seamguard: still building \(\d+ s; /.test(line)), run.stderr);
      assert.match(lines.at(-1), /^seamguard: built \S+\/node_modules\/seamguard\/seamguard\.linux-x64-(gnu|musl)\.node in \d+ s\.$/);
      assert.equal(readFileSync(join(project, 'args'), 'utf8').trim(), 'build --release --lib --locked');
      const binaries = readdirSync(seamguard).filter((file) => file.endsWith('.node'));
      assert.equal(binaries.length, 1);
      assert.equal(readFileSync(join(seamguard, binaries[0]), 'utf8'), 'a stand-in library');
      assert.deepEqual(readdirSync(temp), [], 'the temporary build folder is removed');
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});

describe('the install check', () => {
  it('prints one line for the packages that want another Node, and one per npm ls problem', () => {
    const project = mkdtempSync(join(tmpdir(), 'seamguard-check-'));
    try {
      mkdirSync(join(project, 'scripts'));
      copyFileSync(join(root, 'scripts', 'install-check.mjs'), join(project, 'scripts', 'install-check.mjs'));
      // `absent` is not installed: npm ls reports it missing.
      writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'check', version: '1.0.0', dependencies: { future: '1.0.0', present: '1.0.0', absent: '1.0.0' } }));
      const modules = join(project, 'node_modules');
      const hidden = { packages: {} };
      for (const [name, node] of [['future', '>=99'], ['present', `>=${process.versions.node}`]]) {
        mkdirSync(join(modules, name), { recursive: true });
        const dependencies = name === 'future' ? { inner: '1.0.0' } : {};
        writeFileSync(join(modules, name, 'package.json'), JSON.stringify({ name, version: '1.0.0', engines: { node }, dependencies }));
        hidden.packages[`node_modules/${name}`] = { version: '1.0.0', engines: { node }, dependencies };
      }
      // A package under `future` that wants another Node too: counted, under `future`.
      mkdirSync(join(modules, 'future', 'node_modules', 'inner'), { recursive: true });
      writeFileSync(join(modules, 'future', 'node_modules', 'inner', 'package.json'), JSON.stringify({ name: 'inner', version: '1.0.0', engines: { node: '^98' } }));
      hidden.packages['node_modules/future/node_modules/inner'] = { version: '1.0.0', engines: { node: '^98' } };
      // Two packages nothing requires: npm ls calls both extraneous; the
      // one package-lock.json lists npm put there itself, and is not printed.
      for (const name of ['stray', 'locked']) {
        mkdirSync(join(modules, name));
        writeFileSync(join(modules, name, 'package.json'), JSON.stringify({ name, version: '1.0.0' }));
        hidden.packages[`node_modules/${name}`] = { version: '1.0.0' };
      }
      writeFileSync(join(project, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: { 'node_modules/locked': { version: '1.0.0', optional: true } } }));
      writeFileSync(join(modules, '.package-lock.json'), JSON.stringify(hidden));
      // semver, which the check reads ranges with, from this checkout.
      const NODE_PATH = dirname(dirname(require.resolve('semver/package.json')));
      const run = spawnSync(process.execPath, ['scripts/install-check.mjs'], { cwd: project, env: { ...process.env, NODE_PATH }, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout, '');
      const lines = run.stderr.trim().split('\n');
      assert.equal(lines[0], `seamguard: 2 installed packages need another Node than ${process.versions.node}, under future (>=99); npm test runs what uses them on Node 22 and 24`);
      assert.deepEqual(lines.slice(1).map((line) => line.replace(project, '<project>')), [
        'seamguard: npm ls: missing: absent@1.0.0, required by check@1.0.0',
        'seamguard: npm ls: extraneous: stray@1.0.0 <project>/node_modules/stray',
      ]);
      // Not under npm pack and npm publish, which run prepare too.
      for (const command of ['pack', 'publish']) {
        const packing = spawnSync(process.execPath, ['scripts/install-check.mjs'], { cwd: project, env: { ...process.env, NODE_PATH, npm_command: command }, encoding: 'utf8' });
        assert.equal(packing.status, 0);
        assert.equal(packing.stdout + packing.stderr, '');
      }
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});

describe('the load error', () => {
  const facts = { platform: 'linux-x64-gnu', published: publishedPlatforms(pkg), version: pkg.version, installed: false, deno: false };

  it('names the missing platform package and the install command of each package manager', () => {
    const message = loadErrorMessage(facts);
    assert.match(message, /^seamguard: no native binary for linux-x64-gnu could be loaded/);
    assert.match(message, /The binary comes in the package seamguard-linux-x64-gnu, an optional dependency of seamguard, and it is not installed/);
    for (const command of ['npm install', 'pnpm add', 'yarn add', 'bun add']) {
      assert.ok(message.includes(`\n  ${command} seamguard-linux-x64-gnu@${pkg.version}\n`), command);
    }
    assert.match(message, /npx seamguard-build$/m);
    assert.doesNotMatch(message, /Deno|npm rebuild/);
  });

  it('says a platform has no prebuilt binary, names the ones that have, and how to build from source', () => {
    const message = loadErrorMessage({ ...facts, platform: 'freebsd-x64' });
    assert.match(message, /seamguard publishes no prebuilt binary for freebsd-x64 \(it does for linux-x64-gnu, .*win32-x64-msvc\)\./);
    assert.match(message, /install Rust \(https:\/\/rustup\.rs\), then run in your project: npx seamguard-build$/m);
    assert.doesNotMatch(message, /pnpm add|seamguard-freebsd-x64@/);
  });

  it('tells an installed platform package whose binary failed to load from one that is missing', () => {
    const message = loadErrorMessage({ ...facts, installed: true });
    assert.match(message, /seamguard-linux-x64-gnu is installed but its binary did not load on this machine/);
    assert.match(message, /npx seamguard-build --from-source/);
    assert.doesNotMatch(message, /pnpm add/);
  });

  it('tells Deno without --allow-ffi to allow it, not to install anything', () => {
    const message = loadErrorMessage({ ...facts, deno: true });
    assert.match(message, /^seamguard: Deno did not let the native binary load/);
    assert.match(message, /--allow-ffi/);
    assert.doesNotMatch(message, /npm install|npx|not installed/);
  });

  // loadFacts, with a Deno global as Deno's Node compatibility has it and
  // the errors each runtime gives, in a child so the global stays there.
  const factsIn = (prelude, error) => {
    const run = spawnSync(process.execPath, ['-e', `${prelude}
      const { loadFacts } = require(${JSON.stringify(join(root, 'lib', 'load-error.cjs'))});
      console.log(JSON.stringify(loadFacts(${error})));`], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout);
  };
  const chain = (message) => `Object.assign(new Error('Cannot find native binding.'), { cause: Object.assign(new Error('Cannot find module'), { cause: new Error(${JSON.stringify(message)}) }) })`;

  it('reads Deno\'s permission error anywhere in the loader\'s chain of causes', () => {
    const denied = 'NotCapable: Requires ffi access to "/x/seamguard.linux-x64-gnu.node", run again with the --allow-ffi flag';
    const granted = 'globalThis.Deno = { permissions: { querySync: () => ({ state: \'granted\' }) } };';
    assert.equal(factsIn(granted, chain(denied)).deno, true);
    assert.equal(factsIn('', chain(denied)).deno, false, 'no Deno global: not Deno');
    assert.equal(factsIn(granted, chain('libfoo.so: cannot open shared object file')).deno, false);
    assert.equal(factsIn('globalThis.Deno = { permissions: { querySync: () => ({ state: \'prompt\' }) } };', chain('other')).deno, true);
    const { platform, published, version, installed } = factsIn('', chain('other'));
    assert.deepEqual(published, publishedPlatforms(pkg));
    assert.equal(version, pkg.version);
    assert.equal(typeof platform, 'string');
    assert.equal(typeof installed, 'boolean');
  });

  it('never throws while it is written, whatever the loader threw', () => {
    for (const thrown of ['undefined', 'null', '"a string"', '{ message: 7, cause: {} }', '(() => { const e = new Error("loop"); e.cause = e; return e; })()',
      'new AggregateError([new Error("a"), "b"])']) {
      const { deno } = factsIn('globalThis.Deno = { permissions: { querySync: () => { throw new Error("no"); } } };', thrown);
      assert.equal(deno, false, thrown);
    }
  });
});

describe('ES module entries', () => {
  const entries = esmEntries(pkg);

  it('are as scripts/gen-esm.mjs writes them', () => {
    const run = spawnSync(process.execPath, ['scripts/gen-esm.mjs', '--check'], { cwd: root, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    // A subpath added in the CommonJS shape alone is named, with what to do.
    assert.throws(() => esmEntries({ exports: { ...pkg.exports, './extra': { types: './lib/types/extra.d.ts', default: './lib/extra.cjs' } } }),
      { message: /^gen-esm: package\.json exports\["\.\/extra"\] is not \{ import: \{ types, default \}, default: \{ types, default \} \}; .*run node scripts\/gen-esm\.mjs$/ });
  });

  it('every subpath has an import condition beside its CommonJS default, each with its typings', () => {
    assert.deepEqual(entries.map((entry) => entry.subpath), ['.', './streams', './ai-sdk', './langchain', './openai-agents', './mastra']);
    for (const [subpath, conditions] of Object.entries(pkg.exports)) {
      if (subpath === './package.json') continue;
      assert.deepEqual(Object.keys(conditions), ['import', 'default'], subpath);
      assert.deepEqual(Object.keys(conditions.import), ['types', 'default'], subpath);
      assert.deepEqual(Object.keys(conditions.default), ['types', 'default'], subpath);
      assert.match(conditions.import.default, /^\.\/lib\/esm\/[a-z-]+\.mjs$/);
      assert.match(conditions.import.types, /^\.\/lib\/esm\/[a-z-]+\.d\.mts$/);
      for (const file of [...Object.values(conditions.import), ...Object.values(conditions.default)]) assert.ok(existsSync(join(root, file)), file);
    }
  });

  for (const entry of entries) {
    const specifier = `seamguard${entry.subpath.slice(1)}`;
    it(`${specifier}: import gives ${entry.esm}, every name require gives, the very same values`, () => {
      const run = spawnSync(process.execPath, ['--input-type=module', '-e', `
        import * as esm from ${JSON.stringify(specifier)};
        import { createRequire } from 'node:module';
        const cjs = createRequire(import.meta.url)(${JSON.stringify(specifier)});
        const names = Object.keys(esm).filter((name) => name !== 'default');
        console.log(JSON.stringify({
          resolved: import.meta.resolve(${JSON.stringify(specifier)}),
          names, cjs: Object.keys(cjs),
          same: names.every((name) => esm[name] === cjs[name]),
          default: esm.default === cjs,
        }));`], { cwd: root, encoding: 'utf8' });
      assert.equal(run.status, 0, run.stderr);
      const result = JSON.parse(run.stdout);
      assert.ok(result.resolved.endsWith(`/${entry.esm}`), result.resolved);
      assert.deepEqual([...result.names].sort(), [...result.cjs].sort());
      assert.ok(result.names.length > 0);
      assert.ok(result.same, 'one copy of each value, whichever way it is loaded');
      assert.ok(result.default, 'the default export is the CommonJS exports');
    });
  }

  it('TypeScript reads lib/esm/*.d.mts for an ES module under node16, nodenext and bundler resolution', () => {
    const tsc = require.resolve('typescript/bin/tsc');
    for (const resolution of ['node16', 'nodenext', 'bundler']) {
      const run = spawnSync(process.execPath, [tsc, '-p', join('__test__', 'types', `tsconfig.esm-${resolution}.json`), '--explainFiles'], { cwd: root, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
      assert.equal(run.status, 0, run.stdout);
      const read = [...run.stdout.matchAll(/^(lib\/esm\/[a-z-]+\.d\.mts)$/gm)].map((match) => match[1]).sort();
      assert.deepEqual(read, entries.map((entry) => entry.esmTypes).sort(), resolution);
    }
  });
});
