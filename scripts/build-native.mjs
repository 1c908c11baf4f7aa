// Leaves a native addon where the loader (index.js) finds it.
//
// Runs as the package's `install` script, and as `npm run build` (with
// --force, which rebuilds even when a binary exists). Three cases:
//
// 1. A development checkout (this folder is not inside a node_modules, and
//    the napi CLI is installed in it): `napi build --platform --release`,
//    which also regenerates index.js and index.d.ts, then finish-binding.mjs
//    finishes index.d.ts. The build cache stays in target/, as for any
//    crate.
// 2. A user's install on a platform seamguard publishes a binary for: npm
//    has installed the platform package `seamguard-<platform>` (an optional
//    dependency) and the loader takes the binary from there. Nothing to do.
// 3. The fallback, for a platform with no prebuilt package (or optional
//    dependencies omitted, or SEAMGUARD_BUILD_FROM_SOURCE=1): build from
//    source with the machine's Rust, `cargo build --release --lib` into a
//    temporary target directory, copy the binary next to index.js as
//    seamguard.<platform>.node and remove the temporary directory, so only
//    the binary stays. npm hides an install script's output, so the
//    progress goes to the terminal itself (/dev/tty) when there is one, and
//    to stderr in any case.
import { spawn, spawnSync, execFileSync } from 'node:child_process';
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { finishBinding } from './finish-binding.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

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
const force = process.argv.includes('--force');
const fromSource = force || process.env.SEAMGUARD_BUILD_FROM_SOURCE === '1';

// Progress: to the terminal itself when npm has taken stderr (it shows an
// install script's output only when the script fails), and to stderr always.
let tty = null;
if (!process.stderr.isTTY && process.platform !== 'win32') {
  try {
    tty = openSync('/dev/tty', 'w');
  } catch {
    // No terminal (CI, a pipe): stderr alone.
  }
}
function say(line) {
  const text = `${line}\n`;
  process.stderr.write(text);
  if (tty !== null) {
    try {
      // From the start of a cleared line: npm may be drawing its spinner there.
      writeSync(tty, `\r\x1b[K${text}`);
    } catch {
      tty = null;
    }
  }
}

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

/** Runs cargo with its output passed on line by line, and a heartbeat while it is quiet. */
function cargo(args, env) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn('cargo', args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let last = Date.now();
    const forward = (stream) => {
      let pending = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => {
        pending += chunk;
        const lines = pending.split('\n');
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
      if (Date.now() - last >= 10_000) {
        say(`seamguard: still building (${Math.round((Date.now() - started) / 1000)} s; the last step, the optimised link, is the longest)`);
        last = Date.now();
      }
    }, 1000);
    child.on('error', (error) => {
      clearInterval(heartbeat);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearInterval(heartbeat);
      if (code === 0) resolve(Math.round((Date.now() - started) / 1000));
      else reject(new Error(`cargo ${args.join(' ')} failed (${signal ?? `exit code ${code}`})`));
    });
  });
}

async function buildFromSource() {
  const probe = spawnSync('cargo', ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    say(
      [
        `seamguard: no prebuilt binary for ${suffix} is installed, and there is no Rust toolchain (cargo) to build one.`,
        `seamguard publishes binaries as the packages seamguard-<platform>, which npm installs as optional dependencies;`,
        `if your platform is one of them, install again without --omit=optional (or run: npm install seamguard-${suffix}).`,
        `Otherwise install Rust (https://rustup.rs) and run: npm rebuild seamguard`,
      ].join('\n'),
    );
    process.exit(1);
  }
  const targetDir = mkdtempSync(join(tmpdir(), 'seamguard-build-'));
  say(`seamguard: no prebuilt binary for ${suffix}; building it from source with ${probe.stdout.trim()}.`);
  say('seamguard: a release build takes a minute or two; the build directory is temporary and removed afterwards.');
  try {
    const args = ['build', '--release', '--lib'];
    if (existsSync(join(root, 'Cargo.lock'))) args.push('--locked');
    const seconds = await cargo(args, { ...process.env, CARGO_TARGET_DIR: targetDir, CARGO_TERM_COLOR: 'never' });
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
  if (cli) {
    if (!existsSync(binary) || force) {
      execFileSync(process.execPath, [cli, 'build', '--platform', '--release'], { cwd: root, stdio: 'inherit' });
      finishBinding();
    }
  } else if (fromSource) {
    await buildFromSource();
  } else if (existsSync(binary)) {
    // A binary built here before.
  } else if (platformPackage()) {
    // npm installed seamguard-<platform>; the loader takes the binary from there.
  } else {
    await buildFromSource();
  }
  if (cli && !existsSync(binary)) {
    say(`seamguard: the build finished but ${binary} is missing`);
    process.exitCode = 1;
  }
} catch (error) {
  say(`seamguard: ${error.message}`);
  process.exitCode = 1;
} finally {
  if (tty !== null) closeSync(tty);
}
