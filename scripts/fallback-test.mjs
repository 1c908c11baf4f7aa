// The fallback, as a user on a platform with no prebuilt package meets it:
// packs the main package, installs the tarball into a new consumer project
// with install scripts on and optional dependencies omitted (so no platform
// package), and checks that the install script built the binary from source
// with progress a person can see, left only the binary behind (no target/
// in node_modules/seamguard, nothing in the temporary folder), and that the
// package then works.
//
//   node scripts/fallback-test.mjs [--show]   (needs Rust; a full release build, a minute or more;
//                                             --show prints what the terminal showed)
//
// The install runs under `script`, a pseudo-terminal, when that is there:
// npm hides an install script's output, so the progress must reach the
// terminal itself, and this checks that it does.
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
  const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, env: cleanEnv, encoding: 'utf8' }));
  const tarball = join(work, packed.filename);
  const consumer = join(work, 'consumer');
  const temp = join(work, 'tmp');
  mkdirSync(consumer);
  mkdirSync(temp);
  writeFileSync(join(consumer, 'package.json'), `${JSON.stringify({ name: 'seamguard-fallback-consumer', version: '1.0.0', private: true }, null, 2)}\n`);

  const env = { ...cleanEnv, TMPDIR: temp, TMP: temp, TEMP: temp };
  const npmArgs = ['install', '--omit=optional', '--no-audit', '--no-fund', tarball];
  const pty = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
  const started = Date.now();
  const install = pty
    ? spawnSync('script', ['-qec', ['npm', ...npmArgs].map((arg) => `'${arg}'`).join(' '), '/dev/null'], { cwd: consumer, env, encoding: 'utf8' })
    : spawnSync('npm', npmArgs, { cwd: consumer, env, encoding: 'utf8' });
  const seconds = Math.round((Date.now() - started) / 1000);
  const shown = `${install.stdout}${install.stderr}`;
  assert.equal(install.status, 0, shown);
  console.log(`fallback-test: npm install --omit=optional built from source in ${seconds} s${pty ? ', in a pseudo-terminal' : ''}`);
  if (process.argv.includes('--show')) console.log(shown.replace(/\r/g, ''));

  const seamguard = join(consumer, 'node_modules', 'seamguard');
  const suffix = readdirSync(seamguard).filter((file) => file.endsWith('.node'));
  assert.equal(suffix.length, 1, `binaries in node_modules/seamguard: ${suffix}`);
  assert.ok(!existsSync(join(seamguard, 'target')), 'node_modules/seamguard has a target/');
  assert.deepEqual(readdirSync(temp).filter((name) => name.startsWith('seamguard-build-')), [], 'the temporary build folder was left behind');
  if (pty) {
    // What the person at the terminal saw while npm ran the script.
    assert.match(shown, /seamguard: no prebuilt binary for \S+; building it from source/);
    assert.match(shown, /Compiling seamguard/);
    assert.match(shown, /seamguard: built .*\.node in \d+ s/);
  }

  writeFileSync(join(consumer, 'main.mjs'), `
    import { ScaffoldingFilter } from 'seamguard';
    import { createGuard } from 'seamguard/ai-sdk';
    const shown = ScaffoldingFilter.strip('ok<|tool_call_start|>[f(x=1)]<|tool_call_end|>');
    if (shown !== 'ok' || typeof createGuard().middleware.wrapGenerate !== 'function') process.exit(1);
    console.log('ok');
  `);
  const run = spawnSync(process.execPath, ['main.mjs'], { cwd: consumer, env, encoding: 'utf8' });
  assert.equal(run.status, 0, `${run.stdout}${run.stderr}`);
  console.log(`fallback-test: ${suffix[0]} alone left in node_modules/seamguard, no target/, no temporary folder; the package works`);
  console.log('fallback-test: 1 passed, 0 failed');
} finally {
  rmSync(work, { recursive: true, force: true });
}
