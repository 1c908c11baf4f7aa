// The AI SDK middlewares say the specification version of the `ai` the
// user's project installed: 'v4' under ai 7, 'v3' under ai 6 (and 'v3' with
// no `ai` at all). In this repository `ai` is ai 6 and ai 7 is only the
// `ai-v7` alias, so each case builds a project of its own in the system's
// temporary directory, outside the repository (whose package.json and
// node_modules would otherwise be found first): node_modules/seamguard a
// copy of the package (lib/, the loader and package.json copied, the binary
// linked), node_modules/ai a link to the major under test. A module
// resolves a peer from where its file really is, so the copy finds that
// `ai` and not the repository's.
//
// Each case prints what the middlewares say. Where the major runs (ai 7
// needs Node 22), a project also plays the whole-server cases (eight
// conversations at once on one guard, half of them streaming, each with
// the findings a guard of its own gives) and strips a leak, with that
// major's own mock model, through the middlewares as they are.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const work = mkdtempSync(join(tmpdir(), 'seamguard-ai-major-'));
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);

after(() => rmSync(work, { recursive: true, force: true }));

/** A project whose `ai` is `aiPackage` (a folder of node_modules/, or none), with seamguard installed in it. */
function project(name, aiPackage) {
  const dir = join(work, name);
  const seamguard = join(dir, 'node_modules', 'seamguard');
  mkdirSync(seamguard, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: `ai-major-${name}`, private: true, type: 'module' }));
  for (const file of ['package.json', 'index.js', 'index.d.ts']) cpSync(join(root, file), join(seamguard, file));
  cpSync(join(root, 'lib'), join(seamguard, 'lib'), { recursive: true });
  for (const binary of readdirSync(root).filter((file) => file.endsWith('.node'))) symlinkSync(join(root, binary), join(seamguard, binary));
  if (aiPackage !== undefined) symlinkSync(join(root, 'node_modules', aiPackage), join(dir, 'node_modules', 'ai'), 'dir');
  return dir;
}

const SAYS = `
import { createGuard, scaffoldingMiddleware } from 'seamguard/ai-sdk';
const guard = createGuard();
console.log(JSON.stringify([guard.middleware.specificationVersion, guard.specificationVersion, scaffoldingMiddleware().specificationVersion]));
`;

/** What the guard's middleware, the guard and the scaffolding middleware say in that project. */
async function versionsIn(dir) {
  writeFileSync(join(dir, 'says.mjs'), SAYS);
  const { stdout } = await run(process.execPath, ['says.mjs'], { cwd: dir, encoding: 'utf8' });
  return JSON.parse(stdout);
}

const support = (file) => pathToFileURL(join(root, '__test__', 'support', file)).href;

/**
 * A test file that plays the server cases and a stripped leak through the
 * middlewares of the project's own seamguard, with its own `ai`.
 */
const plays = (major, mock, version) => `
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as ai from 'ai';
import { ${mock} as Mock } from 'ai/test';
import { createGuard, scaffoldingMiddleware } from 'seamguard/ai-sdk';
import { routedModel, runAgent, scriptedModel, toolsByName } from '${support('agents.mjs')}';
import { SERVER, serverCases } from '${support('server-cases.mjs')}';

const sdk = { major: ${major}, ai, Mock };
assert.equal((await import('ai/package.json', { with: { type: 'json' } })).default.version.split('.')[0], '${major}');

describe('ai ${major}, the middleware saying ${version}: one guard for a whole server', () => {
  serverCases({
    createGuard(options) {
      const guard = createGuard(options);
      assert.equal(guard.middleware.specificationVersion, '${version}');
      return guard;
    },
    agentFor(guard, router) {
      const model = ai.wrapLanguageModel({ model: routedModel(sdk, router), middleware: guard.middleware });
      const tools = toolsByName(ai, SERVER.tools());
      return (conversation) => runAgent(sdk, conversation.stream ? 'stream' : 'generate', { model, tools, system: SERVER.system, prompt: conversation.prompt });
    },
  });
});

describe('ai ${major}: the scaffolding middleware saying ${version} strips a leak', () => {
  for (const mode of ['generate', 'stream']) {
    it(mode, async () => {
      const leak = 'It is sunny. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';
      const { model } = scriptedModel(sdk, [{ text: leak }]);
      const middleware = scaffoldingMiddleware();
      assert.equal(middleware.specificationVersion, '${version}');
      const tools = toolsByName(ai, [{ name: 'get_weather', description: 'The forecast', properties: { city: { type: 'string' } }, execute: async () => 'sunny' }]);
      const text = await runAgent(sdk, mode, { model: ai.wrapLanguageModel({ model, middleware }), tools, prompt: 'Weather in Paris?' });
      assert.equal(text, 'It is sunny. ');
    });
  }
});
`;

/**
 * Runs the play file in that project; its node:test output on failure. The
 * child is a run of its own: with the NODE_TEST_CONTEXT this runner sets, it
 * would report to this process in the runner's own protocol and exit 0.
 */
async function play(dir, source) {
  writeFileSync(join(dir, 'plays.test.mjs'), source);
  const { NODE_TEST_CONTEXT, ...env } = process.env;
  try {
    await run(process.execPath, ['--test', '--test-reporter=spec', 'plays.test.mjs'], { cwd: dir, env, encoding: 'utf8', timeout: 300_000, maxBuffer: 16 << 20 });
  } catch (error) {
    assert.fail(`the play under ${dir} failed:\n${error.stdout}${error.stderr}`);
  }
}

describe('the AI SDK middlewares say the installed ai major', () => {
  it("ai 7: 'v4'", async () => {
    assert.deepEqual(await versionsIn(project('ai-7', 'ai-v7')), ['v4', 'v4', 'v4']);
  });

  it("ai 6: 'v3'", async () => {
    assert.deepEqual(await versionsIn(project('ai-6', 'ai')), ['v3', 'v3', 'v3']);
  });

  it("no ai installed: 'v3', and building the middlewares does not throw", async () => {
    assert.deepEqual(await versionsIn(project('no-ai', undefined)), ['v3', 'v3', 'v3']);
  });
});

describe('each major runs the middlewares as they say', () => {
  it("ai 7 with MockLanguageModelV4, 'v4'", { skip: NODE_MAJOR < 22 ? `ai 7 needs Node 22 or later; this is Node ${process.versions.node}` : false }, async () => {
    await play(project('ai-7-plays', 'ai-v7'), plays(7, 'MockLanguageModelV4', 'v4'));
  });

  it("ai 6 with MockLanguageModelV3, 'v3'", async () => {
    await play(project('ai-6-plays', 'ai'), plays(6, 'MockLanguageModelV3', 'v3'));
  });
});
