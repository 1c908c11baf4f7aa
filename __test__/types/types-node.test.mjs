// The README's TypeScript table, with the newest @types/node (26, the
// `@types/node-26` dev dependency) in place of the repository's 20.
//
// A project's `@types/node` is whatever its node_modules/@types/node is:
// every `/// <reference types="node" />` in a library's declarations
// resolves there first. So each check runs in a project of its own in the
// system's temporary directory, whose node_modules/@types/node is a link to
// @types/node 26 and whose tsconfig.json extends one of the repository's
// test projects (__test__/types/tsconfig*.json) and checks that project's
// files as they are.
//
// - Every test project that uses Node's types compiles against 26 as it
//   does against 20, but the one with the OpenAI Agents SDK in it; a
//   consumer of `seamguard/langchain` alone needs nothing more.
// - `seamguard/openai-agents` needs `skipLibCheck` with 26 (the table's
//   line): without it the Agents SDK's own declarations fail, three TS2416
//   errors where its classes' `eventEmitter` (Node's EventEmitter) no longer
//   fits the SDK's own EventEmitter interface, and nothing else does.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const work = mkdtempSync(join(tmpdir(), 'seamguard-types-node-'));
after(() => rmSync(work, { recursive: true, force: true }));

const typesNode = join(root, 'node_modules', '@types', 'node-26');
const NODE_TYPES_MAJOR = JSON.parse(readFileSync(join(typesNode, 'package.json'), 'utf8')).version.split('.')[0];

/**
 * Type-checks `files` (of __test__/types/; by default the project's own)
 * under the repository's test project `project`, with @types/node 26 and
 * the options `options`, by TypeScript 7 (the native compiler, several
 * times faster) unless `typescript` names 5.9's package. Resolves to what
 * tsc printed and whether it passed.
 */
async function check(name, { project, files, options = {}, typescript = 'typescript-7' }) {
  const dir = join(work, `${name}-${typescript}`);
  mkdirSync(join(dir, 'node_modules', '@types'), { recursive: true });
  symlinkSync(typesNode, join(dir, 'node_modules', '@types', 'node'), 'dir');
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    extends: join(here, project),
    compilerOptions: options,
    ...(files === undefined ? {} : { files: files.map((file) => join(here, file)) }),
  }));
  const tsc = join(dirname(require.resolve(`${typescript}/package.json`)), 'bin', 'tsc');
  try {
    const { stdout } = await run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: dir, encoding: 'utf8', maxBuffer: 16 << 20 });
    return { passed: true, output: stdout };
  } catch (error) {
    return { passed: false, output: `${error.stdout}${error.stderr}` };
  }
}

/** The errors tsc printed: file, code, each once per place. */
const errorsIn = (output) => [...output.matchAll(/^(\S+?)\(\d+,\d+\): error (TS\d+)/gm)].map(([, file, code]) => ({ file, code }));

describe(`the TypeScript table with @types/node ${NODE_TYPES_MAJOR}`, { concurrency: 3 }, () => {
  it('the @types/node-26 dev dependency is @types/node 26', () => {
    assert.equal(NODE_TYPES_MAJOR, '26');
  });

  for (const project of ['tsconfig.ai-sdk.json', 'tsconfig.ai-sdk7.json', 'tsconfig.mastra.json', 'tsconfig.mastra7.json']) {
    it(`${project} compiles as it is`, async () => {
      const { passed, output } = await check(project, { project });
      assert.ok(passed, output);
    });
  }

  it('seamguard/langchain compiles as it is', async () => {
    const { passed, output } = await check('langchain', { project: 'tsconfig.frameworks.json', files: ['langchain-consumer.ts'] });
    assert.ok(passed, output);
  });

  // The table's line, under both compilers.
  for (const typescript of ['typescript', 'typescript-7']) {
    describe(`seamguard/openai-agents, ${typescript}`, () => {
      it("fails without skipLibCheck, in the Agents SDK's own declarations only: three TS2416", async () => {
        const { passed, output } = await check('agents-strict', { project: 'tsconfig.frameworks.json', files: ['openai-agents-consumer.ts'], typescript });
        assert.equal(passed, false, 'it compiled: the table says skipLibCheck is needed');
        const errors = errorsIn(output);
        assert.equal(errors.length, 3, output);
        for (const { file, code } of errors) {
          assert.equal(code, 'TS2416', output);
          assert.match(file, /node_modules\/@openai\/agents-[\w-]+\/dist\//, output);
        }
      });

      it('compiles with skipLibCheck', async () => {
        const { passed, output } = await check('agents-skip', {
          project: 'tsconfig.frameworks.json',
          files: ['openai-agents-consumer.ts'],
          options: { skipLibCheck: true },
          typescript,
        });
        assert.ok(passed, output);
      });
    });
  }
});
