// The second half of the `prepare` script in a clone: what the install
// left wrong, one line per problem, after an install whose own warnings
// .npmrc turns off (`loglevel=error`). Without that, npm on Node 20 prints
// a three-line EBADENGINE warning for each of some thirty packages of the
// dev dependencies that need Node 22 (ai 7, the Agents SDK's openai,
// Mastra), for an install that is fine: their tests run on Node 22 and 24
// only.
//
//   node scripts/install-check.mjs     prints nothing when all is well; never fails the install
//                                      (nor prints anything under `npm pack` and `npm publish`)
//
// It prints:
// - one line, if any installed package wants another Node than this one:
//   how many, and the top-level packages they come with;
// - one line per problem `npm ls --all` finds (missing, invalid or
//   extraneous packages, a peer dependency out of range), but for
//   extraneous packages the lockfile lists.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(join(root, 'package.json'));
const say = (line) => console.error(`seamguard: ${line}`);

/** The installed packages whose `engines.node` this Node does not satisfy, by the top-level package each sits under. */
function engineMismatches() {
  // npm's record of what is in node_modules (the "hidden lockfile").
  const hidden = join(root, 'node_modules', '.package-lock.json');
  if (!existsSync(hidden)) return null;
  let semver;
  try {
    semver = require('semver');
  } catch {
    return null;
  }
  const packages = JSON.parse(readFileSync(hidden, 'utf8')).packages ?? {};
  const byTop = new Map();
  let count = 0;
  for (const [path, entry] of Object.entries(packages)) {
    const wanted = entry.engines?.node;
    if (!path || typeof wanted !== 'string' || !existsSync(join(root, path))) continue;
    if (semver.validRange(wanted) === null || semver.satisfies(process.versions.node, wanted, { includePrerelease: true })) continue;
    count += 1;
    const top = path.split('node_modules/')[1].replace(/\/$/, '');
    const name = top.startsWith('@') ? top.split('/').slice(0, 2).join('/') : top.split('/')[0];
    byTop.set(name, byTop.get(name) ?? wanted);
  }
  return { count, byTop };
}

/**
 * What `npm ls --all` finds wrong, less the packages it calls extraneous
 * that package-lock.json itself lists: npm installed those from the
 * lockfile (the optional peers of @napi-rs/cli, which the lockfile holds as
 * dependencies of WebAssembly packages skipped on this platform), and no
 * install of ours can make them go away.
 */
function npmProblems() {
  const npm = process.env.npm_execpath;
  const [command, args] = npm && /\.(c|m)?js$/.test(npm) ? [process.execPath, [npm]] : ['npm', []];
  const ls = spawnSync(command, [...args, 'ls', '--all', '--json'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  let locked = {};
  try {
    locked = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')).packages ?? {};
  } catch {
    // No lockfile: every problem is printed.
  }
  try {
    return (JSON.parse(ls.stdout).problems ?? []).filter((problem) => {
      const extraneous = /^extraneous: \S+ (.+)$/.exec(problem);
      return !extraneous || !Object.hasOwn(locked, relative(root, extraneous[1]).split(sep).join('/'));
    });
  } catch {
    return [`npm ls did not run (${ls.error?.message ?? `exit code ${ls.status}`})`];
  }
}

// `npm pack` and `npm publish` run `prepare` too: nothing was installed.
if (['pack', 'publish'].includes(process.env.npm_command)) process.exit(0);

try {
  const engines = engineMismatches();
  if (engines && engines.count > 0) {
    const listed = [...engines.byTop].map(([name, wanted]) => `${name} (${wanted})`);
    const shown = listed.length > 6 ? `${listed.slice(0, 6).join(', ')} and ${listed.length - 6} more` : listed.join(', ');
    say(`${engines.count} installed packages need another Node than ${process.versions.node}, under ${shown}; npm test runs what uses them on Node 22 and 24`);
  }
  for (const problem of npmProblems()) say(`npm ls: ${problem}`);
} catch (error) {
  say(`install check: ${error.message}`);
}
