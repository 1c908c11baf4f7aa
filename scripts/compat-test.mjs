// The peer ranges, tested at both ends: the guards' tests
// (__test__/guard/*.test.mjs) run against the oldest version of each
// framework that package.json's peerDependencies admit, and against the
// newest, each set installed as a user's project installs seamguard.
//
//   node scripts/compat-test.mjs                      both sets (npm run test:compat)
//   node scripts/compat-test.mjs @mastra/core@1.40.0  the newest set with these versions instead
//
// The sets are read from peerDependencies, so moving a range moves what is
// tested: the oldest set is each range's lowest version (`^1.40.0` is
// 1.40.0; `>=0.16.0 <1.0.0` is 0.16.0), the newest set the range itself,
// which npm resolves to its newest release. `ai`'s range has one
// alternative per major: ai 6 is installed as `ai` and ai 7 as `ai-v7`,
// the name the tests import it by.
//
// For each set: a project in the system's temporary directory depends on
// the frameworks at those versions and on seamguard as `npm pack` packs it
// (install scripts off, so nothing is built; the binary this checkout built
// is copied in, where the platform package would put it). npm checks
// seamguard's peer ranges against the frameworks as it installs, so a range
// that leaves a version out fails here with npm's own ERESOLVE. The guard
// tests, their support files and fixtures are copied into the project, which then
// runs them under the Node running this script and under Node 22 (from
// runtimes.mjs), which the OpenAI Agents SDK, Mastra and ai 7 need; on
// Node 20 their tests skip themselves.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RUNTIMES, ensureRuntime } from './runtimes.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** The folders of __test__/ each project gets. */
const TEST_FOLDERS = ['guard', 'support', 'fixtures'];

/** The package a bare import specifier names: `@scope/name` or `name`. */
const packageOf = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

/**
 * What the guard tests import besides seamguard and the frameworks (zod,
 * the tracing libraries, …), at the versions this checkout tests with.
 */
function testDependencies(frameworks) {
  const imported = new Set();
  for (const folder of ['guard', 'support']) {
    for (const file of readdirSync(join(root, '__test__', folder)).filter((name) => name.endsWith('.mjs'))) {
      const text = readFileSync(join(root, '__test__', folder, file), 'utf8');
      for (const [, specifier] of text.matchAll(/(?:\bfrom\s*|\bimport\(\s*)['"]([^'".][^'"]*)['"]/g)) imported.add(packageOf(specifier));
    }
  }
  return Object.fromEntries([...imported].filter((name) => !(name in frameworks) && name in pkg.devDependencies).sort().map((name) => [name, pkg.devDependencies[name]]));
}

/** The lowest version a range alternative admits: `^1.2.3`, `~1.2.3`, `>=1.2.3 <2`, `1.2.3`. */
function lowest(alternative) {
  const match = /^\s*(?:\^|~|>=)?\s*v?(\d+\.\d+\.\d+)/.exec(alternative);
  if (match === null) throw new Error(`compat-test: cannot read a lowest version from the range '${alternative}'`);
  return match[1];
}

/** The name a range alternative is installed as: ai 7 is `ai-v7`, every other the package's own name. */
const installedAs = (name, alternative) => (name === 'ai' && lowest(alternative).startsWith('7.') ? 'ai-v7' : name);

/** A dependency entry for `name`, installed as `as`, at `spec` (a version or a range). */
const entry = (name, as, spec) => [as, as === name ? spec : `npm:${name}@${spec}`];

/** The oldest and the newest set, each as package.json dependencies. */
function setsFromPeers(peers) {
  const oldest = [];
  const newest = [];
  for (const [name, range] of Object.entries(peers)) {
    for (const alternative of range.split('||').map((part) => part.trim())) {
      const as = installedAs(name, alternative);
      oldest.push(entry(name, as, lowest(alternative)));
      newest.push(entry(name, as, alternative));
    }
  }
  return { oldest: Object.fromEntries(oldest), newest: Object.fromEntries(newest) };
}

// npm's own variables (set when this runs under `npm test`) would steer the
// installs below into this checkout: each project gets a clean environment.
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
const npm = (args, cwd) => execFileSync('npm', args, { cwd, env: cleanEnv, stdio: ['ignore', 'ignore', 'inherit'] });

/** The packed package, once for every set. */
function packed(into) {
  const output = execFileSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', into], { cwd: root, env: cleanEnv, encoding: 'utf8' });
  return join(into, JSON.parse(output)[0].filename);
}

/** Builds a project with this set and seamguard installed, and the guard tests in it. */
function projectFor(name, dependencies, tarball, work) {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({
    name: `seamguard-compat-${name}`,
    private: true,
    type: 'module',
    dependencies: { seamguard: `file:${tarball}`, ...dependencies },
  }, null, 2)}\n`);
  npm(['install', '--ignore-scripts', '--no-package-lock', '--no-audit', '--no-fund', '--loglevel=error'], dir);
  const installed = join(dir, 'node_modules', 'seamguard');
  for (const binary of readdirSync(root).filter((file) => /^seamguard\..+\.node$/.test(file))) cpSync(join(root, binary), join(installed, binary));
  for (const folder of TEST_FOLDERS) cpSync(join(root, '__test__', folder), join(dir, '__test__', folder), { recursive: true });
  // A guard test reaches one internal module by its path in a checkout (../../lib/).
  symlinkSync(join(installed, 'lib'), join(dir, 'lib'), 'dir');
  return dir;
}

/** The version of each framework a project got, as npm resolved it. */
function versionsIn(dir, dependencies) {
  return Object.keys(dependencies).map((as) => `${as}@${JSON.parse(readFileSync(join(dir, 'node_modules', as, 'package.json'), 'utf8')).version}`).join(', ');
}

/** The Nodes the tests run under: this one, and Node 22 when this one is older. */
function nodes() {
  const list = [{ version: process.versions.node, path: process.execPath }];
  const line = RUNTIMES.find((runtime) => runtime.line === 22);
  if (Number(process.versions.node.split('.')[0]) < line.line) list.push({ version: line.version, path: ensureRuntime(line) });
  return list;
}

function main() {
  if (!readdirSync(root).some((file) => /^seamguard\..+\.node$/.test(file))) {
    console.error('compat-test: no seamguard.*.node in this checkout; run npm install (or npm run build) first');
    process.exit(1);
  }
  const { oldest, newest } = setsFromPeers(pkg.peerDependencies);
  const test = testDependencies(newest);
  const overrides = process.argv.slice(2);
  const sets = overrides.length === 0
    ? { oldest, newest }
    : {
        chosen: {
          ...newest,
          ...Object.fromEntries(overrides.map((spec) => {
            const at = spec.lastIndexOf('@');
            const name = spec.slice(0, at);
            return entry(name === 'ai-v7' ? 'ai' : name, name, spec.slice(at + 1));
          })),
        },
      };
  const work = mkdtempSync(join(tmpdir(), 'seamguard-compat-'));
  try {
    const tarball = packed(work);
    const runtimes = nodes();
    const reporter = pathToFileURL(join(root, 'scripts', 'reporter.mjs')).href;
    for (const [name, frameworks] of Object.entries(sets)) {
      console.log(`\n== the ${name} set: installing ${Object.entries(frameworks).map(([as, spec]) => `${as} ${spec}`).join(', ')}`);
      const dir = projectFor(name, { ...frameworks, ...test }, tarball, work);
      console.log(`installed: ${versionsIn(dir, frameworks)} (and for the tests: ${Object.keys(test).join(', ')})`);
      const files = readdirSync(join(dir, '__test__', 'guard')).filter((file) => file.endsWith('.test.mjs')).sort().map((file) => join('__test__', 'guard', file));
      for (const node of runtimes) {
        console.log(`\n== the ${name} set, guard tests, Node ${node.version}`);
        execFileSync(node.path, ['--test', `--test-reporter=${reporter}`, ...files], { cwd: dir, env: cleanEnv, stdio: 'inherit' });
      }
    }
  } finally {
    if (existsSync(work)) rmSync(work, { recursive: true, force: true });
  }
}

try {
  main();
} catch (error) {
  // A failed install or test run has printed its own account above.
  if (error?.status === undefined) throw error;
  console.error(`\ncompat-test: failed: ${error.message.split('\n')[0]}`);
  process.exit(1);
}
