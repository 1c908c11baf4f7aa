#!/usr/bin/env node
// Leaves a native addon where the loader (index.js) finds it.
//
//   node scripts/build-native.mjs --prepare   the `prepare` script: a clone's `npm install` and `npm ci`
//   node scripts/build-native.mjs --force     `npm run build`: rebuild even when a binary exists
//   npx seamguard-build [--from-source]       a user's build from source (the package's bin)
//
// The package has no `install` script: pnpm refuses one until it is
// approved (ERR_PNPM_IGNORED_BUILDS), bun and yarn 4 skip it, and npm warns
// about it. A user's install needs none, since the binary comes in a
// platform package. Three cases:
//
// 1. A development checkout (this folder is not inside a node_modules, and
//    the napi CLI is installed in it): `napi build --platform --release`,
//    which also regenerates index.js and index.d.ts, then finish-binding.mjs
//    finishes index.d.ts. The build cache stays in target/, as for any
//    crate. As `prepare` it builds only when no binary is there, and not at
//    all for `npm pack` or `npm publish` (which run `prepare` too).
// 2. A user's install on a platform seamguard publishes a binary for: the
//    package manager has installed the platform package
//    `seamguard-<platform>` (an optional dependency) and the loader takes
//    the binary from there. Nothing to do.
// 3. A build from source, for a platform with no prebuilt package (or
//    optional dependencies omitted, or --from-source, or
//    SEAMGUARD_BUILD_FROM_SOURCE=1): `cargo build --release --lib` with the
//    machine's Rust into a temporary target directory, the binary copied
//    next to index.js as seamguard.<platform>.node and the temporary
//    directory removed, so only the binary stays.
//
// A build prints its progress on stderr line by line, cargo's own lines and,
// while cargo is quiet (seamguard itself, optimised, takes the longest), a line every
// 10 seconds, so a CI log with no terminal shows that it is alive.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { finishBinding } from './finish-binding.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
// After how many silent seconds a progress line of its own is printed
// (SEAMGUARD_BUILD_QUIET_SECONDS, for a test that cannot wait 10).
const QUIET_SECONDS = Number(process.env.SEAMGUARD_BUILD_QUIET_SECONDS) > 0 ? Number(process.env.SEAMGUARD_BUILD_QUIET_SECONDS) : 10;

/** The platform as napi-rs names binaries and packages: linux-x64-gnu, darwin-arm64, win32-x64-msvc, … */
function platformSuffix() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    if (arch === 'arm') return 'linux-arm-gnueabihf';
    let musl = false;
    try {
      musl = readFileSync('/usr/bin/ldd', 'utf8').includes('musl');
    } catch {
      const report = process.report?.getReport?.();
      musl = !report?.header?.glibcVersionRuntime;
    }
    return `linux-${arch}-${musl ? 'musl' : 'gnu'}`;
  }
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

const suffix = platformSuffix();
const binary = join(root, `seamguard.${suffix}.node`);
const args = process.argv.slice(2);
const unknown = args.filter((arg) => !['--prepare', '--force', '--from-source'].includes(arg));
if (unknown.length > 0) {
  process.stderr.write(`seamguard-build: unknown argument ${unknown[0]}; usage: npx seamguard-build [--from-source]\n`);
  process.exit(2);
}
const prepare = args.includes('--prepare');
const force = args.includes('--force');
const fromSource = args.includes('--from-source') || process.env.SEAMGUARD_BUILD_FROM_SOURCE === '1';

const say = (line) => process.stderr.write(`${line}\n`);

function napiCli() {
  if (root.split(sep).includes('node_modules')) return null;
  try {
    const cli = require.resolve('@napi-rs/cli/package.json');
    return cli.startsWith(join(root, 'node_modules') + sep) ? join(dirname(cli), 'dist', 'cli.js') : null;
  } catch {
    return null;
  }
}

function platformPackage() {
  try {
    const manifest = require.resolve(`seamguard-${suffix}/package.json`);
    return existsSync(join(dirname(manifest), `seamguard.${suffix}.node`)) ? dirname(manifest) : null;
  } catch {
    return null;
  }
}

/**
 * Runs a build command with its output passed on line by line, and a line
 * of its own after every QUIET_SECONDS the command is silent. Resolves to
 * the seconds it took.
 */
function withProgress(command, commandArgs, env) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(command, commandArgs, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let last = Date.now();
    const forward = (stream) => {
      let pending = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => {
        pending += chunk;
        const lines = pending.split(/\r?\n|\r/);
        pending = lines.pop();
        for (const line of lines) {
          if (line.trim()) say(`  ${line.trimEnd()}`);
        }
        last = Date.now();
      });
      stream.on('end', () => {
        if (pending.trim()) say(`  ${pending.trimEnd()}`);
      });
    };
    forward(child.stdout);
    forward(child.stderr);
    const heartbeat = setInterval(() => {
      if (Date.now() - last >= QUIET_SECONDS * 1000) {
        say(`seamguard: still building (${Math.round((Date.now() - started) / 1000)} s; seamguard itself, optimised, takes the longest)`);
        last = Date.now();
      }
    }, Math.min(1000, QUIET_SECONDS * 500));
    child.on('error', (error) => {
      clearInterval(heartbeat);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearInterval(heartbeat);
      if (code === 0) resolve(Math.round((Date.now() - started) / 1000));
      else reject(new Error(`${[command === process.execPath ? 'node' : command, ...commandArgs].join(' ')} failed (${signal ?? `exit code ${code}`})`));
    });
  });
}

async function buildInCheckout(cli) {
  say(`seamguard: building the addon for ${suffix} with napi build --platform --release (a minute or two the first time; target/ keeps the cache)`);
  const seconds = await withProgress(process.execPath, [cli, 'build', '--platform', '--release'], { ...process.env, CARGO_TERM_COLOR: 'never' });
  finishBinding();
  say(`seamguard: built ${binary} in ${seconds} s.`);
}

async function buildFromSource() {
  const probe = spawnSync('cargo', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    say(
      [
        `seamguard: no prebuilt binary for ${suffix} is installed, and there is no Rust toolchain (cargo) to build one.`,
        'seamguard publishes binaries as the packages seamguard-<platform>, which the package manager installs as optional dependencies;',
        `if your platform is one of them, install again without omitting optional dependencies (or add seamguard-${suffix} yourself).`,
        'Otherwise install Rust (https://rustup.rs) and run: npx seamguard-build',
      ].join('\n'),
    );
    process.exit(1);
  }
  const targetDir = mkdtempSync(join(tmpdir(), 'seamguard-build-'));
  say(`seamguard: building the addon for ${suffix} from source with ${probe.stdout.trim()}.`);
  say('seamguard: a release build takes a few minutes; the build directory is temporary and removed afterwards.');
  try {
    const cargoArgs = ['build', '--release', '--lib'];
    if (existsSync(join(root, 'Cargo.lock'))) cargoArgs.push('--locked');
    const seconds = await withProgress('cargo', cargoArgs, { ...process.env, CARGO_TARGET_DIR: targetDir, CARGO_TERM_COLOR: 'never' });
    const built = {
      darwin: 'libseamguard.dylib',
      win32: 'seamguard.dll',
    }[process.platform] ?? 'libseamguard.so';
    copyFileSync(join(targetDir, 'release', built), binary);
    say(`seamguard: built ${binary} in ${seconds} s.`);
  } finally {
    rmSync(targetDir, { recursive: true, force: true });
  }
}

try {
  const cli = napiCli();
  if (prepare && ['pack', 'publish'].includes(process.env.npm_command)) {
    // `npm pack` and `npm publish` run `prepare` too; the package they make
    // carries no binary.
  } else if (cli) {
    if (!existsSync(binary) || force) await buildInCheckout(cli);
  } else if (fromSource || force) {
    await buildFromSource();
  } else if (existsSync(binary)) {
    if (!prepare) say(`seamguard: ${binary} is there already; --from-source builds it again.`);
  } else if (platformPackage()) {
    if (!prepare) say(`seamguard: the binary comes from ${platformPackage()}; nothing to build (--from-source builds one anyway).`);
  } else {
    await buildFromSource();
  }
  if (cli && !existsSync(binary) && process.exitCode === undefined && !['pack', 'publish'].includes(process.env.npm_command)) {
    say(`seamguard: the build finished but ${binary} is missing`);
    process.exitCode = 1;
  }
} catch (error) {
  say(`seamguard: ${error.message}`);
  process.exitCode = 1;
}
