// Acting on findings in Mastra (`@mastra/core`): with `stopOn`, the guard's
// processOutputStep calls Mastra's own `abort` (a tripwire) when the step's
// findings trip, and `agent.generate` and `agent.stream` end with Mastra's
// `tripwire`, the findings in its metadata. The AI SDK's mock models (ai 6
// and 7), tools that really run, the guard as input and output processor.
//
// `@mastra/core` needs Node 22.13 or later: under Node 20 these tests are
// skipped, and say so.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/mastra';

import { routedModel, scriptedModel, sdkMajors } from '../support/agents.mjs';
import { RUNS } from '../support/field-cases.mjs';
import { CONVERSATIONS, Router, SERVER } from '../support/server-cases.mjs';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const skip = NODE_MAJOR < 22 ? `@mastra/core needs Node 22.13 or later; this is Node ${process.versions.node}` : false;

const mastra = skip
  ? undefined
  : {
      ...(await import('@mastra/core')),
      ...(await import('@mastra/core/agent')),
      ...(await import('@mastra/core/tools')),
      ...(await import('@mastra/core/logger')),
      z: (await import('zod')).z,
    };
const majors = skip ? [] : await sdkMajors();

/** Tools as Mastra tools; `ran` hears each one that runs. */
const toolsOf = (tools, ran = []) =>
  Object.fromEntries(
    tools.map(({ name, description, properties, execute }) => [
      name,
      mastra.createTool({
        id: name,
        description,
        inputSchema: mastra.z.object(Object.fromEntries(Object.keys(properties).map((key) => [key, mastra.z.string()]))).strict(),
        execute: (input) => {
          ran.push(name);
          return execute(input);
        },
      }),
    ]),
  );

/** An agent with `model`, the tools and the guard (none when undefined). */
function agentOf({ model, tools, system }, guard) {
  const agent = new mastra.Agent({
    id: 'fabric',
    name: 'fabric',
    instructions: system ?? '',
    model,
    tools,
    inputProcessors: guard ? [guard] : [],
    outputProcessors: guard ? [guard] : [],
  });
  // Mastra logs a processor's tripwire as a failed workflow step (that is the
  // tripwire working), through the Mastra instance's logger: a silent one here.
  new mastra.Mastra({ agents: { fabric: agent }, logger: mastra.noopLogger });
  return agent;
}

/** Plays `prompt` on `agent` in `mode`; resolves to `{ steps, finishReason, tripwire, text }` as Mastra reports them. */
async function play(agent, mode, prompt) {
  if (mode === 'generate') {
    const result = await agent.generate(prompt, { maxSteps: 8 });
    return { steps: result.steps.length, finishReason: result.finishReason, tripwire: result.tripwire, text: result.text };
  }
  const result = await agent.stream(prompt, { maxSteps: 8 });
  let text = '';
  for await (const delta of result.textStream) text += delta;
  return { steps: (await result.steps).length, finishReason: await result.finishReason, tripwire: await result.tripwire, text };
}

const caseOf = (sdk, name, ran) => {
  const run = RUNS[name];
  return { model: scriptedModel(sdk, run.script).model, tools: toolsOf(run.tools(), ran), system: run.system, prompt: run.prompt };
};

const MODES = ['generate', 'stream'];

for (const sdk of skip ? [{ major: '6 and 7' }] : majors) {
  describe(`Mastra, with an AI SDK ${sdk.major} model: stopOn trips Mastra's tripwire`, { skip }, () => {
    if (skip) return;
    for (const mode of MODES) {
      it(`${mode}: a step whose findings trip ends the run with the tripwire, the findings in its metadata`, async () => {
        const guard = createGuard({ argumentsFrom: RUNS.backup.argumentsFrom, stopOn: ['unsupported-argument'] });
        const run = caseOf(sdk, 'backup');
        const result = await play(agentOf(run, guard), mode, run.prompt);
        assert.equal(result.finishReason, 'tripwire');
        assert.equal(result.steps, 2, 'the answer step never ran');
        assert.notEqual(result.text, 'Done.');
        assert.equal(result.tripwire.processorId, 'seamguard');
        assert.match(result.tripwire.reason, /^seamguard: stopOn tripped on unsupported-argument \(backup_status\); unsupported-argument \(restore_job\)$/);
        const { metadata } = result.tripwire;
        assert.equal(metadata.runId, guard.runIds()[0]);
        assert.equal(metadata.stop, true);
        assert.deepEqual(
          metadata.findings.map((finding) => [finding.kind, finding.tools, finding.value, finding.toolCallId, finding.trips]),
          [
            ['unsupported-argument', ['backup_status'], '4417-ganymede', 'call-1-0', true],
            ['unsupported-argument', ['restore_job'], 'titan-99', 'call-1-1', true],
          ],
        );
        assert.deepEqual(metadata.findings.map((finding) => finding.message), guard.findings.map((finding) => finding.message));
      });

      it(`${mode}: with no stopOn, or a finding of another kind, the run goes on as it would bare`, async () => {
        const bare = caseOf(sdk, 'backup');
        const expected = await play(agentOf(bare), mode, bare.prompt);
        assert.equal(expected.steps, 3);
        for (const options of [{}, { stopOn: ['empty-lookup', 'dangling-reference'] }]) {
          const guard = createGuard({ argumentsFrom: RUNS.backup.argumentsFrom, ...options });
          const run = caseOf(sdk, 'backup');
          const result = await play(agentOf(run, guard), mode, run.prompt);
          assert.deepEqual(result, expected);
          assert.equal(guard.findings.length, 2);
        }
      });
    }

    it('a throwing onFinding does not stop the trip', async () => {
      const errors = [];
      const guard = createGuard({
        argumentsFrom: RUNS.triage.argumentsFrom,
        stopOn: true,
        onFinding: () => {
          throw new Error('the app failed');
        },
        onError: (error) => errors.push(error.message),
      });
      const run = caseOf(sdk, 'triage');
      const result = await play(agentOf(run, guard), 'stream', run.prompt);
      assert.equal(result.finishReason, 'tripwire');
      assert.deepEqual(result.tripwire.metadata.findings.map((finding) => finding.kind), ['empty-lookup']);
      assert.deepEqual(errors, ['the app failed']);
    });

    it('eight conversations at once on one agent and guard, half streaming: each trips where a guard of its own trips it', async () => {
      const options = { argumentsFrom: SERVER.argumentsFrom, stopOn: ['unsupported-argument'] };
      const shape = (result) => ({
        steps: result.steps,
        finishReason: result.finishReason,
        tripped: result.tripwire?.metadata?.findings.map((finding) => [finding.tools[0], finding.value]) ?? null,
      });
      const serve = (guard, router) => {
        const agent = agentOf({ model: routedModel(sdk, router), tools: toolsOf(SERVER.tools()), system: SERVER.system }, guard);
        return async (conversation) => shape(await play(agent, conversation.stream ? 'stream' : 'generate', conversation.prompt));
      };
      const alone = await Promise.all(CONVERSATIONS.map((conversation) => serve(createGuard(options), new Router([conversation]))(conversation)));
      const errors = [];
      const converse = serve(createGuard({ ...options, onError: (error) => errors.push(error) }), new Router(CONVERSATIONS));
      const together = await Promise.all(CONVERSATIONS.map(converse));
      assert.deepEqual(errors, []);
      // Conversations that open alike get their scripts in the order they ask: compared as sets.
      const sorted = (all) => all.map((result) => JSON.stringify(result)).sort();
      assert.deepEqual(sorted(together), sorted(alone));
      const tripped = alone.filter((result) => result.finishReason === 'tripwire').length;
      assert.ok(tripped >= 2 && tripped < CONVERSATIONS.length, `some conversations trip, some run on (${tripped})`);
    });
  });
}
