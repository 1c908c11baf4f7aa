// What `napi build` generates, finished for this package. build-native.mjs
// runs it after every `napi build`, so the next build cannot undo it:
//
// - index.d.ts: the generated loader's `__napiBindingTarget` declaration is
//   removed. napi-rs declares it because the loader (index.js) stamps that
//   property on the binding; it is loader metadata, and the package entry
//   (lib/index.cjs) is what users import, so it stays out of the typings.
// - index.js: the message for a binary that is missing or will not load.
//   The generated one blames an npm bug and says to delete
//   package-lock.json and node_modules, which is the wrong advice here;
//   this one names the platform package to install and the command that
//   builds from source instead.
//
//   node scripts/finish-binding.mjs           finishes index.d.ts and index.js
//   node scripts/finish-binding.mjs --check   fails if either is unfinished
//
// Both edits are idempotent. If napi-rs changes what it generates so that an
// edit no longer finds its place, this fails loudly instead of shipping the
// generated text.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const MARKER = '// seamguard: the message for a native binary that is missing or will not load';

/** The platform suffixes napi-rs names packages and binaries by, for the configured targets. */
export function publishedPlatforms(packageJson) {
  return packageJson.napi.targets.map((triple) => {
    const [arch, , os, abi] = triple.split('-');
    const cpu = { x86_64: 'x64', aarch64: 'arm64', i686: 'ia32', armv7: 'arm' }[arch] ?? arch;
    if (os === 'darwin') return `darwin-${cpu}`;
    if (os === 'windows') return `win32-${cpu}-${abi}`;
    return `${os}-${cpu}-${abi}`;
  });
}

/** index.d.ts without the generated loader's own export. */
export function finishTypings(text) {
  const finished = text.replace(
    /(?:\/\*\*(?:(?!\*\/)[\s\S])*\*\/\n)?export declare const __napiBindingTarget\b[^\n]*\n(?:\n(?=\n|\/|export))?/,
    '',
  );
  if (finished.includes('__napiBindingTarget')) {
    throw new Error('finish-binding: index.d.ts still names __napiBindingTarget after the edit; the generated shape changed');
  }
  return finished;
}

function messageFunction(platforms) {
  return `${MARKER},
// put here by scripts/finish-binding.mjs after \`napi build\` in place of the
// generated one. Each place the loader tried is in \`error.cause\`.
function seamguardLoadErrorMessage() {
  const published = [${platforms.map((platform) => `'${platform}'`).join(', ')}]
  const platform =
    process.platform === 'linux'
      ? 'linux-' + process.arch + '-' + (isMusl() ? 'musl' : 'gnu')
      : process.platform === 'win32'
        ? 'win32-' + process.arch + '-msvc'
        : process.platform + '-' + process.arch
  const name = 'seamguard-' + platform
  let version = ''
  try {
    version = require('./package.json').version
  } catch {}
  let installed = false
  try {
    require.resolve(name + '/package.json')
    installed = true
  } catch {}
  const lines = ['seamguard: no native binary for ' + platform + ' could be loaded (what each attempt hit is in error.cause).']
  if (!published.includes(platform)) {
    lines.push('seamguard publishes no prebuilt binary for ' + platform + ' (it does for ' + published.join(', ') + ').')
    lines.push('Build one from source: install Rust (https://rustup.rs), then run: npm rebuild seamguard')
  } else if (!installed) {
    lines.push('The binary comes in the package ' + name + ', which npm installs with seamguard as an optional dependency; it is not installed (optional dependencies omitted, or a lockfile made on another platform).')
    lines.push('Install it: npm install ' + name + (version ? '@' + version : ''))
    lines.push('Or build one from source: install Rust (https://rustup.rs), then run: npm rebuild seamguard')
  } else {
    lines.push(name + ' is installed but its binary did not load on this machine (see error.cause).')
    lines.push('Build one from source instead: install Rust (https://rustup.rs), then run: SEAMGUARD_BUILD_FROM_SOURCE=1 npm rebuild seamguard')
  }
  lines.push('In a clone of the seamguard repository, run: npm run build')
  return lines.join('\\n')
}

`;
}

/** index.js with seamguard's message for a missing binary. */
export function finishLoader(text, platforms) {
  let finished = text;
  const start = finished.indexOf(MARKER);
  if (start !== -1) {
    // Finished before: replace the function, so a new target list lands.
    const end = finished.indexOf('\n}\n\n', start);
    if (end === -1) throw new Error('finish-binding: index.js has the marker but not the function after it');
    finished = finished.slice(0, start) + messageFunction(platforms) + finished.slice(end + 4);
  } else {
    const generated =
      /new Error\(\s*`Cannot find native binding\. ` \+\s*`npm has a bug related to optional dependencies[^`]*` \+\s*'Please try `npm i` again[^']*',?\s*\)/;
    if (!generated.test(finished)) {
      throw new Error('finish-binding: index.js has no generated "Cannot find native binding" error to replace; the generated shape changed');
    }
    finished = finished.replace(generated, 'new Error(seamguardLoadErrorMessage())');
    const block = '\nif (!nativeBinding) {\n  if (loadErrors.length > 0) {';
    const at = finished.indexOf(block);
    if (at === -1) throw new Error('finish-binding: index.js has no load-failure block to put the message before');
    finished = finished.slice(0, at + 1) + messageFunction(platforms) + finished.slice(at + 1);
  }
  if (finished.includes('npm has a bug') || !finished.includes('new Error(seamguardLoadErrorMessage())')) {
    throw new Error('finish-binding: index.js still carries the generated message after the edit');
  }
  return finished;
}

export function finishBinding({ check = false } = {}) {
  const packageJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const platforms = publishedPlatforms(packageJson);
  const stale = [];
  for (const [file, finish] of [
    ['index.d.ts', finishTypings],
    ['index.js', (text) => finishLoader(text, platforms)],
  ]) {
    const path = join(root, file);
    const text = readFileSync(path, 'utf8');
    const finished = finish(text);
    if (finished === text) continue;
    if (check) stale.push(file);
    else writeFileSync(path, finished);
  }
  if (stale.length > 0) {
    throw new Error(`finish-binding: ${stale.join(' and ')} ${stale.length > 1 ? 'are' : 'is'} as napi generated ${stale.length > 1 ? 'them' : 'it'}; run: node scripts/finish-binding.mjs`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  finishBinding({ check: process.argv.includes('--check') });
}
