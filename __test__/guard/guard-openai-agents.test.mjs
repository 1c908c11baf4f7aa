// The guard inside the OpenAI Agents SDK's own loop (`@openai/agents`): the
// six field cases through `run` and `run(..., { stream: true })`, with the
// SDK's own `ScriptedModel` playing each case's script under
// `guard.model(...)`, and function tools whose `execute` really runs.
//
// `@openai/agents` needs `openai` 7, which needs Node 22 or later: under
// Node 20 these tests are skipped, and say so.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/openai-agents';

import { RUNS, fieldCases, playsFor, sameInEveryMode, stepsOf } from '../support/field-cases.mjs';
import { SERVER, serverCases } from '../support/server-cases.mjs';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const skip = NODE_MAJOR < 22 ? `@openai/agents needs Node 22 or later (its openai 7 does); this is Node ${process.versions.node}` : false;

const sdk = skip ? undefined : { ...(await import('@openai/agents')), testing: await import('@openai/agents/testing') };
sdk?.setTracingDisabled(true);

/** The run's tools as function tools, with a JSON Schema input. */
const toolsOf = (run) =>
  run.tools().map(({ name, description, properties, execute }) =>
    sdk.tool({
      name,
      description,
      parameters: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
      strict: false,
      execute,
    }),
  );

/** The SDK's ScriptedModel, answering its n-th call with the script's n-th step. */
function scripted(script) {
  const { ScriptedModel, assistantMessage, functionCall } = sdk.testing;
  return new ScriptedModel(
    stepsOf(script).map((step) => [
      ...(step.text === undefined ? [] : [assistantMessage(step.text)]),
      ...step.calls.map((call) => functionCall(call.toolName, call.input, { callId: call.toolCallId })),
    ]),
  );
}

/** The app's window: from turn `from` on, the calls to `tool` and their results leave the model input. */
function windowFilter({ tool: dropped, from }) {
  let turns = 0;
  return ({ modelData }) => {
    if (turns++ < from) return modelData;
    return { ...modelData, input: modelData.input.filter((item) => item.name !== dropped) };
  };
}

/** Plays a run in `mode` ('run' or 'stream'); `guard` may be undefined. */
async function playIn(mode, run, guard) {
  const base = scripted(run.script);
  const agent = new sdk.Agent({ name: 'triage', instructions: run.system, model: guard ? guard.model(base) : base, tools: toolsOf(run) });
  const options = run.window ? { callModelInputFilter: windowFilter(run.window) } : {};
  let text;
  if (mode === 'run') {
    text = (await sdk.run(agent, run.prompt, options)).finalOutput;
  } else {
    const result = await sdk.run(agent, run.prompt, { ...options, stream: true });
    for await (const delta of result.toTextStream()) void delta;
    await result.completed;
    text = result.finalOutput;
  }
  return { text, prompts: base.calls.map((call) => JSON.stringify(call.request.input)) };
}

const MODES = ['run', 'stream'];
const plays = playsFor(MODES, createGuard, playIn);

describe("OpenAI Agents SDK: the guard's field cases", { skip }, () => {
  for (const mode of MODES) {
    describe(mode, () => fieldCases({ play: plays[mode], bare: async (run) => (await playIn(mode, run)).text }));
  }
  sameInEveryMode(plays);
});

describe('OpenAI Agents SDK: the stream seam', { skip }, () => {
  const LEAK = 'Sure. <tool_call>{"name":"port_for_device","arguments":{"wwpn":"20:00:00:25:b5:aa:00:1f"}}</tool_call> Done.';
  // A call to a tool the agent does not offer is left alone.
  const NOT_OFFERED = ' [weather(city="Paris")]';
  const ANSWER = LEAK + NOT_OFFERED;
  // Heal off: these cases are about the strip (heal-openai-agents.test.mjs heals).

  it('a leaked call to an offered tool is stripped from the streamed text, the final output and the history', async () => {
    const { ScriptedModel, assistantMessage, modelStream } = sdk.testing;
    const message = { ...assistantMessage(ANSWER), id: 'msg_1' };
    const deltas = [];
    for (let i = 0; i < ANSWER.length; i += 5) deltas.push({ type: 'output_text_delta', itemId: 'msg_1', delta: ANSWER.slice(i, i + 5) });
    const usage = { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 };
    const base = new ScriptedModel([
      modelStream([{ type: 'response_started' }, ...deltas, { type: 'response_done', response: { id: 'r1', usage, output: [message] } }]),
    ]);
    const guard = createGuard({ argumentsFrom: { port_for_device: ['fabric_inventory'] }, heal: false });
    const agent = new sdk.Agent({ name: 'triage', model: guard.model(base), tools: toolsOf(RUNS.triage) });
    const result = await sdk.run(agent, 'Which port?', { stream: true });
    const streamed = [];
    for await (const delta of result.toTextStream()) streamed.push(delta);
    await result.completed;
    assert.ok(streamed.length > 1, 'the answer came in more than one delta');
    assert.equal(streamed.join(''), `Sure.  Done.${NOT_OFFERED}`);
    assert.equal(result.finalOutput, `Sure.  Done.${NOT_OFFERED}`);
    assert.equal(result.history.at(-1).content[0].text, `Sure.  Done.${NOT_OFFERED}`);
  });

  it('generated whole, the answer is stripped the same way', async () => {
    const { ScriptedModel, assistantMessage } = sdk.testing;
    const guard = createGuard({ heal: false });
    const agent = new sdk.Agent({ name: 'triage', model: guard.model(new ScriptedModel([[assistantMessage(ANSWER)]])), tools: toolsOf(RUNS.triage) });
    assert.equal((await sdk.run(agent, 'Which port?')).finalOutput, `Sure.  Done.${NOT_OFFERED}`);
  });

  it('modelProvider wraps the models a provider gives', async () => {
    const { ScriptedModel, assistantMessage } = sdk.testing;
    const guard = createGuard({ heal: false });
    const provider = guard.modelProvider({ getModel: async () => new ScriptedModel([[assistantMessage(ANSWER)]]) });
    const runner = new sdk.Runner({ modelProvider: provider });
    const agent = new sdk.Agent({ name: 'triage', model: 'any-model', tools: toolsOf(RUNS.triage) });
    assert.equal((await runner.run(agent, 'Which port?')).finalOutput, `Sure.  Done.${NOT_OFFERED}`);
  });
});

describe('OpenAI Agents SDK: options and arguments', () => {
  it('a bad option is a TypeError naming it', () => {
    assert.throws(() => createGuard({ argumentsFrom: { port_for_device: 'fabric_inventory' } }), {
      name: 'TypeError',
      message: /options\.argumentsFrom\["port_for_device"\] must be an array/,
    });
    assert.throws(() => createGuard({ readResult: { port_for_device: 1 } }), { name: 'TypeError', message: /options\.readResult\["port_for_device"\] must be a function/ });
    assert.throws(() => createGuard({ onError: 'log' }), { name: 'TypeError', message: /options\.onError must be a function/ });
  });

  it('model and modelProvider name their argument', () => {
    const guard = createGuard();
    assert.throws(() => guard.model('gpt-5'), { name: 'TypeError', message: /guard\.model: model must be an Agents SDK Model.*\(got string\)/ });
    assert.throws(() => guard.modelProvider(null), { name: 'TypeError', message: /guard\.modelProvider: provider must be .*\(got null\)/ });
  });
});

/** The SDK's ScriptedModel serving many conversations: each call answered by the router. */
function routed(router) {
  const { ScriptedModel, assistantMessage, functionCall, modelResponder } = sdk.testing;
  const respond = (call) => {
    const step = router.answer(JSON.stringify(call.request.input));
    return [
      ...(step.text === undefined ? [] : [assistantMessage(step.text)]),
      ...step.calls.map((toolCall) => functionCall(toolCall.toolName, toolCall.input, { callId: toolCall.toolCallId })),
    ];
  };
  return new ScriptedModel(Array.from({ length: 400 }, () => modelResponder(respond)));
}

describe('OpenAI Agents SDK: one guard for a whole server', { skip }, () => {
  serverCases({
    createGuard,
    agentFor(guard, router) {
      // Built once, at startup, and serving every conversation.
      const agent = new sdk.Agent({ name: 'fabric', instructions: SERVER.system, model: guard.model(routed(router)), tools: toolsOf({ tools: SERVER.tools }) });
      return async (conversation) => {
        if (!conversation.stream) return sdk.run(agent, conversation.prompt);
        const result = await sdk.run(agent, conversation.prompt, { stream: true });
        for await (const delta of result.toTextStream()) void delta;
        await result.completed;
        return undefined;
      };
    },
  });
});
