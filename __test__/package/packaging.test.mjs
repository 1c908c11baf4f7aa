// The package as napi-rs lays one out: a platform package per target under
// npm/, each an optional dependency of the main package at exactly its
// version; the generated typings finished (no loader internals in them),
// a load error that says what to run (lib/native.cjs); a licence; and the
// choices of the build script (the package's bin, seamguard-build): nothing
// to do when the platform package is there, a clear failure when there is
// neither a platform package nor Rust. The
// tarballs themselves are packed and installed by scripts/pack-test.mjs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { finishBinding } from '../../scripts/finish-binding.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The platform suffixes napi-rs names packages and binaries by, for the configured targets. */
function publishedPlatforms(packageJson) {
  return packageJson.napi.targets.map((triple) => {
    const [arch, , os, abi] = triple.split('-');
    const cpu = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm' }[arch] ?? arch;
    if (os === 'darwin') return `darwin-${cpu}`;
    if (os === 'windows') return `win32-${cpu}-${abi}`;
    return `${os}-${cpu}-${abi}`;
  });
}

const platforms = publishedPlatforms(pkg);

describe('platform packages', () => {
  it('cover linux x64 and arm64 (gnu and musl), darwin x64 and arm64, win32 x64', () => {
    assert.deepEqual([...platforms].sort(), ['darwin-arm64', 'darwin-x64', 'linux-arm64-gnu', 'linux-arm64-musl', 'linux-x64-gnu',
      'linux-x64-musl', 'win32-x64-msvc']);
    assert.deepEqual(readdirSync(join(root, 'npm')).sort(), [...platforms].sort());
  });

  it('are named by no file of a clone: the release names them, at exactly its version', () => {
    // A lockfile cannot name a package that is not published, so a clone
    // whose package.json named them would fail `npm ci`, and its `npm
    // install` would ask the registry for names anyone could register.
    assert.equal(pkg.optionalDependencies, undefined);
    const lock = readFileSync(join(root, 'package-lock.json'), 'utf8');
    for (const platform of platforms) assert.ok(!lock.includes(`seamguard-${platform}`), `package-lock.json names seamguard-${platform}`);
    // The release adds them (napi prepublish, as napi-rs's template does)
    // right before the main package is published, after the platform packages.
    const release = readFileSync(join(root, '.github', 'workflows', 'release.yml'), 'utf8');
    const prepublish = release.indexOf('npx napi prepublish -t npm');
    assert.ok(prepublish > 0, 'the release workflow runs napi prepublish');
    assert.ok(release.indexOf('npm publish --access public', prepublish) > prepublish, 'and publishes the main package after it');
  });

  for (const platform of platforms) {
    it(`npm/${platform} is seamguard-${platform}, the binary alone, for its platform`, () => {
      const manifest = JSON.parse(readFileSync(join(root, 'npm', platform, 'package.json'), 'utf8'));
      const binary = `seamguard.${platform}.node`;
      assert.equal(manifest.name, `seamguard-${platform}`);
      assert.equal(manifest.version, pkg.version);
      assert.equal(manifest.main, binary);
      assert.deepEqual(manifest.files, [binary]);
      assert.equal(manifest.license, pkg.license);
      assert.deepEqual(manifest.engines, pkg.engines);
      const [os, cpu, abi] = platform.split('-');
      assert.deepEqual(manifest.os, [os]);
      assert.deepEqual(manifest.cpu, [cpu]);
      if (os === 'linux') assert.deepEqual(manifest.libc, [abi === 'musl' ? 'musl' : 'glibc']);
      assert.ok(existsSync(join(root, 'npm', platform, 'README.md')));
    });
  }
});

describe('the generated files, finished', () => {
  it('index.d.ts is as finish-binding.mjs leaves it', () => {
    assert.doesNotThrow(() => finishBinding({ check: true }));
  });

  it('no public typings name the loader\'s __napiBindingTarget', () => {
    const typings = ['index.d.ts', ...readdirSync(join(root, 'lib'), { recursive: true })
      .map(String).filter((file) => file.endsWith('.d.ts')).map((file) => join('lib', file))];
    assert.ok(typings.length > 5);
    for (const file of typings) assert.ok(!readFileSync(join(root, file), 'utf8').includes('__napiBindingTarget'), file);
  });

  it('a missing binary is an error that says what to run, not the generated advice', () => {
    // lib/native.cjs, the one module that requires the loader, and
    // lib/load-error.cjs, with the loader and package.json beside them as the package lays them out, and
    // no binary anywhere.
    const dir = mkdtempSync(join(tmpdir(), 'seamguard-loader-'));
    try {
      mkdirSync(join(dir, 'lib'));
      copyFileSync(join(root, 'index.js'), join(dir, 'index.js'));
      copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
      for (const file of ['native.cjs', 'load-error.cjs']) copyFileSync(join(root, 'lib', file), join(dir, 'lib', file));
      const env = { ...process.env };
      delete env.NAPI_RS_NATIVE_LIBRARY_PATH;
      delete env.NAPI_RS_FORCE_WASI;
      const run = spawnSync(process.execPath, ['-e', `
        try { require('./lib/native.cjs'); console.log('loaded'); }
        catch (error) { console.log(JSON.stringify({ message: error.message, cause: !!error.cause, generated: /npm has a bug|package-lock/.test(String(error.cause?.message)) })); }
      `], { cwd: dir, env, encoding: 'utf8' });
      const { message, cause, generated } = JSON.parse(run.stdout);
      assert.ok(cause);
      assert.ok(!generated, 'the cause is what each attempt hit, not the loader\'s own message');
      assert.doesNotMatch(message, /npm has a bug|package-lock/);
      assert.match(message, /^seamguard: no native binary for \S+ could be loaded/);
      assert.match(message, /npx seamguard-build/);
      assert.match(message, /npm run build/);
      if (process.platform === 'linux' && process.arch === 'x64') {
        assert.match(message, new RegExp(`npm install seamguard-linux-x64-(gnu|musl)@${pkg.version.replace(/\./g, '\\.')}`));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lib/ requires the loader in one place, lib/native.cjs', () => {
    const requiring = readdirSync(join(root, 'lib'), { recursive: true }).map(String)
      .filter((file) => file.endsWith('.cjs'))
      .filter((file) => /require\((['"])(\.\.\/)+index\.js\1\)/.test(readFileSync(join(root, 'lib', file), 'utf8')));
    assert.deepEqual(requiring, ['native.cjs']);
  });
});

describe('LICENSE', () => {
  it('is the MIT licence package.json names, for the seamguard authors', () => {
    const text = readFileSync(join(root, 'LICENSE'), 'utf8');
    assert.equal(pkg.license, 'MIT');
    assert.match(text, /^MIT License\n\nCopyright \(c\) 2026 the seamguard authors\n/);
    assert.match(text, /Permission is hereby granted, free of charge/);
  });
});

describe('the build script (npx seamguard-build) in a user\'s node_modules', { skip: process.platform !== 'linux' || process.arch !== 'x64' }, () => {
  // A consumer's node_modules with seamguard in it as npm lays it out, and
  // a PATH with no Rust. `detached` runs the script with no controlling
  // terminal, as in CI, so its progress goes to stderr only.
  const suffix = readFileSync('/usr/bin/ldd', 'utf8').includes('musl') ? 'linux-x64-musl' : 'linux-x64-gnu';
  const rustless = (process.env.PATH ?? '').split(delimiter)
    .filter((dir) => dir && !['cargo', 'rustc'].some((tool) => existsSync(join(dir, tool)))).join(delimiter);
  const layout = (withPlatformPackage) => {
    const project = mkdtempSync(join(tmpdir(), 'seamguard-install-'));
    const seamguard = join(project, 'node_modules', 'seamguard');
    mkdirSync(join(seamguard, 'scripts'), { recursive: true });
    for (const file of ['package.json', 'index.js', 'scripts/build-native.mjs', 'scripts/finish-binding.mjs', 'Cargo.toml', 'Cargo.lock']) {
      copyFileSync(join(root, file), join(seamguard, file));
    }
    if (withPlatformPackage) {
      const platformDir = join(project, 'node_modules', `seamguard-${suffix}`);
      mkdirSync(platformDir);
      copyFileSync(join(root, 'npm', suffix, 'package.json'), join(platformDir, 'package.json'));
      writeFileSync(join(platformDir, `seamguard.${suffix}.node`), 'a stand-in: the script only looks for it');
    }
    return { project, seamguard };
  };
  const install = (seamguard) => spawnSync(process.execPath, ['scripts/build-native.mjs'], {
    cwd: seamguard, env: { ...process.env, PATH: rustless, SEAMGUARD_BUILD_FROM_SOURCE: '' }, encoding: 'utf8', detached: true,
  });

  it('does nothing when the platform package is there, and says so', () => {
    const { project, seamguard } = layout(true);
    try {
      const run = install(seamguard);
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stderr, new RegExp(`^seamguard: the binary comes from \\S+/node_modules/seamguard-${suffix}; nothing to build`));
      assert.equal(run.stderr.trim().split('\n').length, 1);
      assert.deepEqual(readdirSync(seamguard).filter((file) => file.endsWith('.node') || file === 'target'), []);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it('with no platform package and no Rust, fails saying what to install or run', () => {
    const { project, seamguard } = layout(false);
    try {
      const run = install(seamguard);
      assert.equal(run.status, 1);
      assert.match(run.stderr, /no prebuilt binary for linux-x64-(gnu|musl) is installed, and there is no Rust toolchain/);
      assert.match(run.stderr, new RegExp(`add seamguard-${suffix} yourself`));
      assert.match(run.stderr, /npx seamguard-build/);
      assert.deepEqual(readdirSync(seamguard).filter((file) => file.endsWith('.node') || file === 'target'), []);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });
});
