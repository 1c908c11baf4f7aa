// Acting on findings in the AI SDK (6, and 7 on Node 22+): each model call
// that filed findings carries them in `providerMetadata.seamguard`, on
// generate's result and on the stream's finish part, and `guard.stopWhen`
// ends the loop after a step whose findings trip `stopOn`. The SDK's own mock
// models, tools that really run, and generateText, streamText and
// ToolLoopAgent.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/ai-sdk';

import { routedModel, scriptedModel, sdkMajors, toolsByName } from '../support/agents.mjs';
import { RUNS } from '../support/field-cases.mjs';
import { CONVERSATIONS, Router, SERVER } from '../support/server-cases.mjs';

const MODES = ['generate', 'stream', 'agent', 'agent-stream'];

/**
 * Plays `run` in `mode` with `guard` in the model (none when undefined) and
 * `stopWhen` beside a step limit; resolves to the run's steps as
 * `{ text, seamguard }` (the step's `providerMetadata.seamguard`, if any).
 */
async function play(sdk, mode, { model, tools, prompt, system }, guard, { stopWhen = [] } = {}) {
  const { ai } = sdk;
  const settings = {
    model: guard === undefined ? model : ai.wrapLanguageModel({ model, middleware: guard.middleware }),
    tools,
    stopWhen: [ai.stepCountIs(8), ...stopWhen],
  };
  let steps;
  if (mode === 'generate') steps = (await ai.generateText({ ...settings, system, prompt })).steps;
  else if (mode === 'stream') {
    const result = ai.streamText({ ...settings, system, prompt });
    await result.consumeStream();
    steps = await result.steps;
  } else {
    const agent = new ai.ToolLoopAgent({ ...settings, instructions: system });
    if (mode === 'agent') steps = (await agent.generate({ prompt })).steps;
    else {
      const result = await agent.stream({ prompt });
      await result.consumeStream();
      steps = await result.steps;
    }
  }
  return steps.map((step) => ({ text: step.text, seamguard: step.providerMetadata?.seamguard }));
}

/** A field case's agent: the scripted model, its tools, its prompt. */
function caseOf(sdk, name) {
  const run = RUNS[name];
  return { model: scriptedModel(sdk, run.script).model, tools: toolsByName(sdk.ai, run.tools()), prompt: run.prompt, system: run.system };
}

/** Findings as the metadata carries them, less their long messages. */
const brief = (seamguard) => seamguard && { ...seamguard, runId: typeof seamguard.runId, findings: seamguard.findings.map(({ message, ...rest }) => ({ ...rest, message: typeof message })) };

for (const sdk of await sdkMajors()) {
  describe(`ai ${sdk.major}: providerMetadata.seamguard`, () => {
    for (const mode of MODES) {
      it(`${mode}: the step that filed a finding carries it; every other step is unchanged`, async () => {
        const guard = createGuard({ argumentsFrom: RUNS.triage.argumentsFrom });
        const steps = await play(sdk, mode, caseOf(sdk, 'triage'), guard);
        const bare = await play(sdk, mode, caseOf(sdk, 'triage'));
        assert.deepEqual(steps.map((step) => step.text), bare.map((step) => step.text));
        assert.deepEqual(bare.map((step) => step.seamguard), [undefined, undefined, undefined]);
        assert.deepEqual(steps.slice(0, 2).map((step) => step.seamguard), [undefined, undefined]);
        const { seamguard } = steps[2];
        assert.equal(seamguard.runId, guard.runIds()[0]);
        assert.deepEqual(brief(seamguard), {
          runId: 'string',
          stop: false,
          findings: [
            { kind: 'empty-lookup', seam: 'write', tools: ['port_for_device', 'fabric_inventory'], path: 'wwpn', value: RUNS.triage.script[1].calls[0].input.wwpn, toolCallId: 'call-1-0', message: 'string', trips: false },
          ],
        });
        assert.equal(seamguard.findings[0].message, guard.findings[0].message);
        // Plain JSON: what a provider's metadata may hold.
        assert.deepEqual(JSON.parse(JSON.stringify(seamguard)), seamguard);
      });
    }

    it('a choice finding is on the step whose answer made the call, with the call it is about', async () => {
      const guard = createGuard({ argumentsFrom: RUNS.backup.argumentsFrom });
      const steps = await play(sdk, 'generate', caseOf(sdk, 'backup'), guard);
      assert.deepEqual(steps.map((step) => step.seamguard?.findings.map((finding) => [finding.kind, finding.toolCallId, finding.value, finding.trips])), [
        undefined,
        [
          ['unsupported-argument', 'call-1-0', '4417-ganymede', false],
          ['unsupported-argument', 'call-1-1', 'titan-99', false],
        ],
        undefined,
      ]);
    });
  });

  describe(`ai ${sdk.major}: stopOn and guard.stopWhen`, () => {
    for (const mode of MODES) {
      it(`${mode}: a step whose finding trips stopOn ends the loop there`, async () => {
        const guard = createGuard({ argumentsFrom: RUNS.backup.argumentsFrom, stopOn: ['unsupported-argument'] });
        const steps = await play(sdk, mode, caseOf(sdk, 'backup'), guard, { stopWhen: [guard.stopWhen] });
        assert.equal(steps.length, 2, 'the third step (the answer) never ran');
        assert.equal(steps[1].seamguard.stop, true);
        assert.deepEqual(steps[1].seamguard.findings.map((finding) => finding.trips), [true, true]);
        // Without the stop condition the metadata says stop, and the loop goes on.
        const on = createGuard({ argumentsFrom: RUNS.backup.argumentsFrom, stopOn: ['unsupported-argument'] });
        assert.equal((await play(sdk, mode, caseOf(sdk, 'backup'), on)).length, 3);
      });
    }

    it('a finding of a kind stopOn does not name never stops the loop; stopOn: true names every kind', async () => {
      const other = createGuard({ argumentsFrom: RUNS.triage.argumentsFrom, stopOn: ['unsupported-argument', 'dangling-reference'] });
      const steps = await play(sdk, 'generate', caseOf(sdk, 'triage'), other, { stopWhen: [other.stopWhen] });
      assert.equal(steps.length, 3);
      assert.equal(steps[2].seamguard.stop, false);
      const every = createGuard({ argumentsFrom: RUNS.triage.argumentsFrom, stopOn: true });
      const tripped = await play(sdk, 'generate', caseOf(sdk, 'triage'), every, { stopWhen: [every.stopWhen] });
      assert.equal(tripped[2].seamguard.stop, true);
    });

    it('with no stopOn nothing stops: the loop runs as it would bare', async () => {
      const guard = createGuard({ argumentsFrom: RUNS.backup.argumentsFrom });
      const steps = await play(sdk, 'stream', caseOf(sdk, 'backup'), guard, { stopWhen: [guard.stopWhen] });
      assert.equal(steps.length, 3);
      assert.ok(steps.every((step) => step.seamguard === undefined || step.seamguard.stop === false));
    });

    it('a throwing onFinding does not stop the trip', async () => {
      const errors = [];
      const guard = createGuard({
        argumentsFrom: RUNS.backup.argumentsFrom,
        stopOn: ['unsupported-argument'],
        onFinding: () => {
          throw new Error('the app failed');
        },
        onError: (error) => errors.push(error.message),
      });
      const steps = await play(sdk, 'agent-stream', caseOf(sdk, 'backup'), guard, { stopWhen: [guard.stopWhen] });
      assert.equal(steps.length, 2);
      assert.equal(steps[1].seamguard.stop, true);
      assert.deepEqual(errors, ['the app failed', 'the app failed']);
    });

    it('the stop condition reads nothing but the steps, and never throws', () => {
      const guard = createGuard();
      assert.equal(guard.stopWhen({ steps: [] }), false);
      assert.equal(guard.stopWhen({ steps: [{ providerMetadata: { seamguard: { stop: true } } }] }), true);
      assert.equal(guard.stopWhen({ steps: [{ providerMetadata: { seamguard: { stop: true } } }, {}] }), false);
      assert.equal(guard.stopWhen({}), false);
      assert.equal(guard.stopWhen(), false);
      const hostile = { get providerMetadata() {
        throw new Error('no');
      } };
      assert.equal(guard.stopWhen({ steps: [hostile] }), false);
    });

    it('eight conversations at once on one guard, half streaming: each stops where a guard of its own stops it', async () => {
      const options = { argumentsFrom: SERVER.argumentsFrom, stopOn: ['unsupported-argument'] };
      const agentOf = (guard, router) => {
        const model = routedModel(sdk, router);
        return (conversation) =>
          play(sdk, conversation.stream ? 'stream' : 'generate', { model, tools: toolsByName(sdk.ai, SERVER.tools()), prompt: conversation.prompt, system: SERVER.system }, guard, {
            stopWhen: [guard.stopWhen],
          });
      };
      const shape = (steps) => steps.map((step) => brief(step.seamguard) ?? null);
      const alone = await Promise.all(
        CONVERSATIONS.map(async (conversation) => {
          const guard = createGuard(options);
          return shape(await agentOf(guard, new Router([conversation]))(conversation));
        }),
      );
      const errors = [];
      const guard = createGuard({ ...options, onError: (error) => errors.push(error) });
      const converse = agentOf(guard, new Router(CONVERSATIONS));
      const together = await Promise.all(CONVERSATIONS.map(async (conversation) => shape(await converse(conversation))));
      assert.deepEqual(errors, []);
      // Conversations that open alike get their scripts in the order they ask: compared as sets.
      const sorted = (all) => all.map((steps) => JSON.stringify(steps)).sort();
      assert.deepEqual(sorted(together), sorted(alone));
      const stopped = alone.filter((steps) => steps.at(-1)?.stop === true).length;
      assert.ok(stopped >= 2 && stopped < CONVERSATIONS.length, `some conversations stop, some run on (${stopped})`);
    });
  });
}
