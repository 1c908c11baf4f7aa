'use strict';
// What to tell a user whose native binary did not load (lib/native.cjs
// throws it in place of the generated loader's error, whose advice, to
// delete package-lock.json and node_modules, is wrong here). Four cases,
// told apart from facts gathered once (loadFacts) and written out by a
// function of those facts alone (loadErrorMessage), which the tests call
// with each case's facts:
//
// - Deno without --allow-ffi: the binary is there, but Deno may not open it;
// - a platform seamguard publishes no binary for: build one from source;
// - a published platform whose package is not installed: install it, with
//   the command of each package manager;
// - a platform package that is installed but whose binary did not load.

const { readFileSync } = require('node:fs');

/** The platform as napi-rs names binaries and packages: linux-x64-gnu, darwin-arm64, win32-x64-msvc, … */
function platformSuffix() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    let musl = false;
    try {
      musl = readFileSync('/usr/bin/ldd', 'utf8').includes('musl');
    } catch {
      musl = !process.report?.getReport?.()?.header?.glibcVersionRuntime;
    }
    return `linux-${arch}-${musl ? 'musl' : 'gnu'}`;
  }
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

/**
 * The platforms a release publishes a binary package for, as napi-rs
 * names them, from the Rust target triples in `napi.targets` (the release's
 * `napi prepublish` names each platform package in the released
 * package.json's optionalDependencies; a clone names none).
 */
function publishedPlatforms(pkg) {
  const cpus = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm' };
  return (pkg.napi?.targets ?? []).map((triple) => {
    const [arch, , os, abi] = triple.split('-');
    const cpu = cpus[arch] ?? arch;
    if (os === 'darwin') return `darwin-${cpu}`;
    if (os === 'windows') return `win32-${cpu}-${abi}`;
    return `${os}-${cpu}-${abi}`;
  });
}

/** Every message in an error, its causes and, for an AggregateError or the loader's list, its errors. */
function messagesOf(error, seen = new Set()) {
  if (error === null || error === undefined || seen.has(error)) return [];
  seen.add(error);
  if (typeof error !== 'object') return [String(error)];
  const own = typeof error.message === 'string' ? [error.message] : [];
  const nested = Array.isArray(error.errors) ? error.errors : [];
  return [...own, ...messagesOf(error.cause, seen), ...nested.flatMap((inner) => messagesOf(inner, seen))];
}

/** Whether this runs in Deno without the permission to open a native library. */
function denoWithoutFfi(messages) {
  const deno = globalThis.Deno;
  if (!deno || typeof deno !== 'object') return false;
  if (messages.some((message) => /--allow-ffi|ffi access|NotCapable|PermissionDenied/i.test(message))) return true;
  try {
    return deno.permissions?.querySync?.({ name: 'ffi' })?.state !== 'granted';
  } catch {
    return false;
  }
}

/** The facts the message is written from, for the loader's error. */
function loadFacts(error, pkg = require('../package.json')) {
  const platform = platformSuffix();
  const messages = messagesOf(error);
  let installed = false;
  try {
    require.resolve(`seamguard-${platform}/package.json`);
    installed = true;
  } catch {
    // Not installed.
  }
  return {
    platform,
    published: publishedPlatforms(pkg),
    version: pkg.version,
    installed,
    deno: denoWithoutFfi(messages),
  };
}

/** The message for a binary that did not load, from loadFacts' facts. */
function loadErrorMessage({ platform, published, version, installed, deno }) {
  const name = `seamguard-${platform}`;
  const lines = [];
  if (deno) {
    lines.push('seamguard: Deno did not let the native binary load: it needs the permission to open native libraries.');
    lines.push('Run with --allow-ffi (deno run --allow-ffi main.ts, or -A for every permission); the binary itself is installed.');
    return lines.join('\n');
  }
  lines.push(`seamguard: no native binary for ${platform} could be loaded (what each attempt hit is in error.cause).`);
  if (!published.includes(platform)) {
    lines.push(`seamguard publishes no prebuilt binary for ${platform} (it does for ${published.join(', ')}).`);
    lines.push('Build one from source: install Rust (https://rustup.rs), then run in your project: npx seamguard-build');
  } else if (!installed) {
    lines.push(`The binary comes in the package ${name}, an optional dependency of seamguard, and it is not installed`);
    lines.push('(optional dependencies omitted, or a lockfile or node_modules made on another platform). Install it with your package manager:');
    lines.push(`  npm install ${name}@${version}`);
    lines.push(`  pnpm add ${name}@${version}`);
    lines.push(`  yarn add ${name}@${version}`);
    lines.push(`  bun add ${name}@${version}`);
    lines.push('Or build one from source: install Rust (https://rustup.rs), then run in your project: npx seamguard-build');
  } else {
    lines.push(`${name} is installed but its binary did not load on this machine (see error.cause).`);
    lines.push('Build one from source instead: install Rust (https://rustup.rs), then run in your project: npx seamguard-build --from-source');
  }
  lines.push('In a clone of the seamguard repository, run: npm run build');
  return lines.join('\n');
}

module.exports = { loadFacts, loadErrorMessage, publishedPlatforms, platformSuffix };
