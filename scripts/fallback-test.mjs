// The build from source, as a user on a platform with no prebuilt package
// meets it: packs the main package, installs the tarball into a new
// consumer project with optional dependencies omitted (so no platform
// package), checks that the package then says what to do, runs
// `npx seamguard-build` (the package's bin) with no terminal, as in CI,
// and checks that the build printed its progress as it went, left only the
// binary behind (no target/ in node_modules/seamguard, nothing in the
// temporary folder), and that the package then works.
//
//   node scripts/fallback-test.mjs [--show]   (needs Rust; a full release build, a minute or more;
//                                             --show prints what the build printed)
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));

const work = mkdtempSync(join(tmpdir(), 'seamguard-fallback-'));
try {
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', work], { cwd: root, env: cleanEnv, encoding: 'utf8' }));
  const tarball = join(work, packed.filename);
  const consumer = join(work, 'consumer');
  const temp = join(work, 'tmp');
  mkdirSync(consumer);
  mkdirSync(temp);
  writeFileSync(join(consumer, 'package.json'), `${JSON.stringify({ name: 'seamguard-fallback-consumer', version: '1.0.0', private: true }, null, 2)}\n`);
  const env = { ...cleanEnv, TMPDIR: temp, TMP: temp, TEMP: temp };

  // The install itself runs nothing: the package has no install script.
  const install = spawnSync('npm', ['install', '--omit=optional', '--no-audit', '--no-fund', tarball], { cwd: consumer, env, encoding: 'utf8' });
  assert.equal(install.status, 0, `${install.stdout}${install.stderr}`);
  const seamguard = join(consumer, 'node_modules', 'seamguard');
  assert.deepEqual(readdirSync(seamguard).filter((file) => file.endsWith('.node')), []);

  writeFileSync(join(consumer, 'main.mjs'), `
    import { ScaffoldingFilter } from 'seamguard';
    import { createGuard } from 'seamguard/ai-sdk';
    const shown = ScaffoldingFilter.strip('ok<|tool_call_start|>[f(x=1)]<|tool_call_end|>');
    if (shown !== 'ok' || typeof createGuard().middleware.wrapGenerate !== 'function') process.exit(1);
    console.log('ok');
  `);
  // Before the build, the error says what to run.
  const before = spawnSync(process.execPath, ['main.mjs'], { cwd: consumer, env, encoding: 'utf8' });
  assert.notEqual(before.status, 0);
  assert.match(before.stderr, /npx seamguard-build/);

  // The build, with stdout and stderr pipes, as in a CI log.
  const build = spawnSync('npx', ['seamguard-build'], { cwd: consumer, env, encoding: 'utf8' });
  const shown = `${build.stdout}${build.stderr}`;
  assert.equal(build.status, 0, shown);
  if (process.argv.includes('--show')) console.log(shown);
  assert.match(build.stderr, /^seamguard: building the addon for \S+ from source with cargo /m);
  assert.match(build.stderr, /^ {2}\s*Compiling seamguard v/m);
  assert.match(build.stderr, /^seamguard: built .*\.node in (\d+) s\.$/m);
  const seconds = Number(/in (\d+) s\.$/m.exec(build.stderr)[1]);
  console.log(`fallback-test: npx seamguard-build built from source in ${seconds} s, printing ${build.stderr.trim().split('\n').length} lines of progress`);

  const binaries = readdirSync(seamguard).filter((file) => file.endsWith('.node'));
  assert.equal(binaries.length, 1, `binaries in node_modules/seamguard: ${binaries}`);
  assert.ok(!existsSync(join(seamguard, 'target')), 'node_modules/seamguard has a target/');
  assert.deepEqual(readdirSync(temp).filter((name) => name.startsWith('seamguard-build-')), [], 'the temporary build folder was left behind');

  const run = spawnSync(process.execPath, ['main.mjs'], { cwd: consumer, env, encoding: 'utf8' });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  console.log(`fallback-test: ${binaries[0]} alone left in node_modules/seamguard, no target/, no temporary folder; the package works`);
  console.log('fallback-test: 1 passed, 0 failed');
} finally {
  rmSync(work, { recursive: true, force: true });
}
