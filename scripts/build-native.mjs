// Leaves a working native addon in the package folder.
//
// Runs as the package's `install` script. A packed tarball ships the binary
// for the machine it was packed on, and then there is nothing to do. A fresh
// clone, or a platform with no binary, builds from source with the
// machine's Rust: through the napi CLI when it is installed (a development
// checkout, which also regenerates index.d.ts and index.js), else through
// cargo directly (a consumer, who has no dev dependencies).
//
// `node scripts/build-native.mjs --force` rebuilds even when a binary exists.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));

function platformSuffix() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    const musl = existsSync('/usr/bin/ldd') && readFileSync('/usr/bin/ldd', 'utf8').includes('musl');
    return `linux-${arch}-${musl ? 'musl' : 'gnu'}`;
  }
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

const binary = join(root, `seamguard.${platformSuffix()}.node`);
const force = process.argv.includes('--force');
if (existsSync(binary) && !force) process.exit(0);

const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

let cli = null;
try {
  cli = require.resolve('@napi-rs/cli/package.json');
} catch {
  // A consumer install: no dev dependencies, build with cargo alone.
}

if (cli) {
  run(process.execPath, [join(dirname(cli), 'dist', 'cli.js'), 'build', '--platform', '--release']);
} else {
  run('cargo', ['build', '--release', '--lib']);
  const built = {
    linux: 'libseamguard.so',
    darwin: 'libseamguard.dylib',
    win32: 'seamguard.dll',
  }[process.platform] ?? 'libseamguard.so';
  copyFileSync(join(root, 'target', 'release', built), binary);
}
if (!existsSync(binary)) {
  console.error(`seamguard: the build finished but ${binary} is missing`);
  process.exit(1);
}
