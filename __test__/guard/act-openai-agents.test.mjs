// Acting on findings in the OpenAI Agents SDK (`@openai/agents`):
// `guard.outputGuardrail` is an output guardrail whose `outputInfo` holds the
// run's findings and whose tripwire fires when one trips `stopOn`, so the
// SDK's own Runner throws OutputGuardrailTripwireTriggered; otherwise the run
// passes. The SDK's ScriptedModel under `guard.model(...)`, function tools
// that really run, `run` and `run(..., { stream: true })`.
//
// `@openai/agents` needs Node 22 or later (its openai 7 does): under Node 20
// these tests are skipped, and say so.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/openai-agents';

import { RUNS, stepsOf } from '../support/field-cases.mjs';
import { CONVERSATIONS, Router, SERVER } from '../support/server-cases.mjs';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const skip = NODE_MAJOR < 22 ? `@openai/agents needs Node 22 or later (its openai 7 does); this is Node ${process.versions.node}` : false;

const sdk = skip ? undefined : { ...(await import('@openai/agents')), testing: await import('@openai/agents/testing') };
sdk?.setTracingDisabled(true);

const toolsOf = (tools) =>
  tools.map(({ name, description, properties, execute }) =>
    sdk.tool({ name, description, parameters: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false }, strict: false, execute }),
  );

/** One scripted step as the SDK's output items. */
function itemsOf(step) {
  const { assistantMessage, functionCall } = sdk.testing;
  return [...(step.text === undefined ? [] : [assistantMessage(step.text)]), ...step.calls.map((call) => functionCall(call.toolName, call.input, { callId: call.toolCallId }))];
}

const scripted = (script) => new sdk.testing.ScriptedModel(stepsOf(script).map(itemsOf));

/**
 * Runs `input` on `agent` in `mode` ('run' or 'stream'): `{ passed: result }`,
 * or `{ tripped: error }` when the run threw the output guardrail's tripwire.
 */
async function play(agent, input, mode) {
  try {
    if (mode === 'run') return { passed: await sdk.run(agent, input) };
    const result = await sdk.run(agent, input, { stream: true });
    for await (const delta of result.toTextStream()) void delta;
    await result.completed;
    return { passed: result };
  } catch (error) {
    if (error instanceof sdk.OutputGuardrailTripwireTriggered) return { tripped: error };
    throw error;
  }
}

const agentOf = (guard, model, run) =>
  new sdk.Agent({ name: 'fabric', instructions: run.system, model: guard.model(model), tools: toolsOf(run.tools()), outputGuardrails: [guard.outputGuardrail] });

const MODES = ['run', 'stream'];

describe('OpenAI Agents SDK: guard.outputGuardrail', { skip }, () => {
  for (const mode of MODES) {
    it(`${mode}: a finding that trips stopOn fires the guardrail's tripwire, the findings in its outputInfo`, async () => {
      const guard = createGuard({ argumentsFrom: RUNS.backup.argumentsFrom, stopOn: ['unsupported-argument'] });
      const { tripped } = await play(agentOf(guard, scripted(RUNS.backup.script), RUNS.backup), RUNS.backup.prompt, mode);
      assert.ok(tripped, 'the run threw OutputGuardrailTripwireTriggered');
      const { guardrail, output } = tripped.result;
      assert.equal(guardrail.name, 'seamguard');
      assert.equal(output.tripwireTriggered, true);
      assert.equal(output.outputInfo.runId, guard.runIds()[0]);
      assert.deepEqual(
        output.outputInfo.findings.map((finding) => [finding.kind, finding.tools, finding.value, finding.toolCallId, finding.trips]),
        [
          ['unsupported-argument', ['backup_status'], '4417-ganymede', 'call-1-0', true],
          ['unsupported-argument', ['restore_job'], 'titan-99', 'call-1-1', true],
        ],
      );
    });

    it(`${mode}: with no stopOn, or findings of another kind, the run passes, its findings in the guardrail's outputInfo`, async () => {
      for (const options of [{}, { stopOn: ['dangling-reference'] }]) {
        const guard = createGuard({ argumentsFrom: RUNS.triage.argumentsFrom, ...options });
        const { passed } = await play(agentOf(guard, scripted(RUNS.triage.script), RUNS.triage), RUNS.triage.prompt, mode);
        assert.ok(passed, 'the run passed');
        assert.equal(passed.finalOutput, 'The device is not logged in anywhere.');
        const [result] = passed.outputGuardrailResults;
        assert.equal(result.output.tripwireTriggered, false);
        assert.deepEqual(result.output.outputInfo.findings.map((finding) => [finding.kind, finding.toolCallId, finding.trips]), [['empty-lookup', 'call-1-0', false]]);
      }
    });
  }

  it('a finding is handed on once: the next turn of the same conversation carries only its own', async () => {
    const script = [...RUNS.triage.script, { text: 'Nothing more to look up.' }];
    const guard = createGuard({ argumentsFrom: RUNS.triage.argumentsFrom });
    const agent = agentOf(guard, scripted(script), RUNS.triage);
    const first = (await play(agent, RUNS.triage.prompt, 'run')).passed;
    assert.equal(first.outputGuardrailResults[0].output.outputInfo.findings.length, 1);
    const second = (await play(agent, [...first.history, { role: 'user', content: 'Anything else?' }], 'stream')).passed;
    assert.equal(second.finalOutput, 'Nothing more to look up.');
    assert.equal(guard.runIds().length, 1, 'the same conversation, the same run');
    assert.deepEqual(second.outputGuardrailResults[0].output, { tripwireTriggered: false, outputInfo: { runId: guard.runIds()[0], findings: [] } });
  });

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
    const { tripped } = await play(agentOf(guard, scripted(RUNS.triage.script), RUNS.triage), RUNS.triage.prompt, 'stream');
    assert.ok(tripped);
    assert.deepEqual(errors, ['the app failed']);
  });

  it('handed nothing it can read, the guardrail passes and never throws', async () => {
    const errors = [];
    const guard = createGuard({ argumentsFrom: RUNS.triage.argumentsFrom, stopOn: true, onError: (error) => errors.push(error) });
    for (const args of [undefined, {}, { details: null }, { details: { output: 'x', modelResponse: { output: [null, 7] } } }]) {
      assert.deepEqual(await guard.outputGuardrail.execute(args), { tripwireTriggered: false, outputInfo: { runId: undefined, findings: [] } });
    }
    assert.deepEqual(errors, []);
  });

  it('eight conversations at once on one agent and guard, half streaming: each trips where a guard of its own trips it', async () => {
    const options = { argumentsFrom: SERVER.argumentsFrom, stopOn: ['unsupported-argument'] };
    const { ScriptedModel, modelResponder } = sdk.testing;
    const serve = (guard, router) => {
      const model = new ScriptedModel(Array.from({ length: 200 }, () => modelResponder((call) => itemsOf(router.answer(JSON.stringify(call.request.input))))));
      const agent = agentOf(guard, model, { system: SERVER.system, tools: SERVER.tools });
      return async (conversation) => {
        const { passed, tripped } = await play(agent, conversation.prompt, conversation.stream ? 'stream' : 'run');
        const output = passed ? passed.outputGuardrailResults[0].output : tripped.result.output;
        return { tripped: output.tripwireTriggered, findings: output.outputInfo.findings.map((finding) => [finding.kind, finding.tools[0], finding.value, finding.toolCallId]) };
      };
    };
    const alone = await Promise.all(CONVERSATIONS.map((conversation) => serve(createGuard(options), new Router([conversation]))(conversation)));
    const errors = [];
    const converse = serve(createGuard({ ...options, onError: (error) => errors.push(error) }), new Router(CONVERSATIONS));
    const together = await Promise.all(CONVERSATIONS.map(converse));
    assert.deepEqual(errors, []);
    // Conversations that open alike get their scripts in the order they ask: compared as sets.
    const sorted = (all) => all.map((result) => JSON.stringify(result)).sort();
    assert.deepEqual(sorted(together), sorted(alone));
    const tripped = alone.filter((result) => result.tripped).length;
    assert.ok(tripped >= 2 && tripped < CONVERSATIONS.length, `some conversations trip, some pass (${tripped})`);
    assert.ok(alone.some((result) => !result.tripped && result.findings.length > 0), 'a conversation passes with findings');
  });
});
