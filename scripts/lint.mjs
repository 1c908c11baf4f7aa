// `npm run lint`, and the first step of `npm test`: the gates every change
// passes before any test runs.
//
// - rustfmt: the crate, its tests and the fuzz targets are formatted
//   (rustfmt.toml);
// - clippy over every target, warnings denied, with the `[lints]` table of
//   Cargo.toml (every `unsafe` block says why it is sound);
// - rustdoc, warnings denied: the docs build and their links resolve;
// - the layout (layout.mjs): no crate source over 1,200 lines, no import
//   circle in the crate or the package's JavaScript;
// - oxlint over the JavaScript (.oxlintrc.json), when it is installed (it is
//   a dev dependency; a user's install never runs this).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = (command, args, env = {}) =>
  execFileSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
const step = (title) => console.log(`\n== lint: ${title}`);

step('cargo fmt --check');
run('cargo', ['fmt', '--check']);
// The fuzz targets are their own workspace (whose dependencies a plain
// checkout need not fetch), so rustfmt reads their files directly.
const fuzzTargets = readdirSync(join(root, 'fuzz', 'fuzz_targets')).filter((name) => name.endsWith('.rs'));
run('rustfmt', ['--check', '--edition', '2021', ...fuzzTargets.map((name) => join('fuzz', 'fuzz_targets', name))]);

step('cargo clippy --all-targets -- -D warnings');
run('cargo', ['clippy', '--quiet', '--all-targets', '--', '-D', 'warnings']);

step('cargo doc --no-deps (RUSTDOCFLAGS=-D warnings)');
run('cargo', ['doc', '--quiet', '--no-deps'], { RUSTDOCFLAGS: '-D warnings' });

step('layout: no crate source over 1,200 lines, no import circle');
run(process.execPath, ['scripts/layout.mjs']);

const oxlint = join(root, 'node_modules', 'oxlint', 'bin', 'oxlint');
if (existsSync(join(root, '.oxlintrc.json'))) {
  step('oxlint');
  if (!existsSync(oxlint)) throw new Error('oxlint is not installed: run `npm install` first');
  run(process.execPath, [oxlint, '--deny-warnings', 'lib', 'scripts', 'examples', 'benchmark']);
}
