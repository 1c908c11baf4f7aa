'use strict';
// The native binding: the one module of lib/ that requires ../index.js,
// the loader napi-rs generates. The loader finds the binary for this
// platform, next to it (a build from source) or in the platform package
// `seamguard-<platform>`, which npm installs as an optional dependency.
//
// When no binary loads, the loader's own error blames an npm bug and says
// to delete package-lock.json and node_modules, which is the wrong advice
// here. This module throws in its place an error that names the platform
// package to install and the command that builds from source, with what
// each attempt hit (the loader's error's own `cause`) as its `cause`, so
// that the wrong advice is not printed under it either. Kept here rather
// than patched into the generated loader, the message needs no step after
// `napi build`, and the published platforms are read from package.json's
// `napi.targets`, the list the release builds and publishes (its
// `napi prepublish` step names each platform package in the released
// package.json's optionalDependencies; a clone names none, since a lockfile
// cannot name packages that are not published yet).

const { readFileSync } = require('node:fs');

/** The loader's exports; its load error, made clear. */
function load() {
  try {
    return require('../index.js');
  } catch (error) {
    throw loadError(error);
  }
}

/**
 * The error for a binding that did not load, given the loader's. Its cause
 * is the loader's own cause, what each attempt hit; an error with no cause
 * (the loader tried nothing, or failed some other way) is the cause whole.
 */
function loadError(error) {
  return new Error(loadErrorMessage(), { cause: error?.cause ?? error });
}

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
 * names them, from the Rust target triples in `napi.targets`.
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

function loadErrorMessage() {
  const pkg = require('../package.json');
  const published = publishedPlatforms(pkg);
  const platform = platformSuffix();
  const name = `seamguard-${platform}`;
  let installed = false;
  try {
    require.resolve(`${name}/package.json`);
    installed = true;
  } catch {
    // Not installed.
  }
  const lines = [`seamguard: no native binary for ${platform} could be loaded (what each attempt hit is in error.cause).`];
  if (!published.includes(platform)) {
    lines.push(`seamguard publishes no prebuilt binary for ${platform} (it does for ${published.join(', ')}).`);
    lines.push('Build one from source: install Rust (https://rustup.rs), then run: npm rebuild seamguard');
  } else if (!installed) {
    lines.push(`The binary comes in the package ${name}, which npm installs with seamguard as an optional dependency; it is not installed (optional dependencies omitted, or a lockfile made on another platform).`);
    lines.push(`Install it: npm install ${name}@${pkg.version}`);
    lines.push('Or build one from source: install Rust (https://rustup.rs), then run: npm rebuild seamguard');
  } else {
    lines.push(`${name} is installed but its binary did not load on this machine (see error.cause).`);
    lines.push('Build one from source instead: install Rust (https://rustup.rs), then run: SEAMGUARD_BUILD_FROM_SOURCE=1 npm rebuild seamguard');
  }
  lines.push('In a clone of the seamguard repository, run: npm run build');
  return lines.join('\n');
}

module.exports = load();
