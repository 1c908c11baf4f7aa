// The guard inside LangChain.js's own agent loop (`createAgent`, langchain 1):
// the six field cases through `invoke` and through `stream` (streamMode
// 'messages', read through `guard.messages`), with LangChain's own fake chat
// models (`fakeModel` playing each case's script, `FakeListChatModel`
// streaming a leak) and tools whose functions really run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { AIMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { FakeListChatModel } from '@langchain/core/utils/testing';
import { createAgent, createMiddleware, tool } from 'langchain';
import { createGuard } from 'seamguard/langchain';

import { RUNS, fieldCases, playsFor, sameInEveryMode, stepsOf } from '../support/field-cases.mjs';
import { SERVER, serverCases } from '../support/server-cases.mjs';

/** The run's tools as LangChain tools, with a JSON Schema input. */
const toolsOf = (run) =>
  run.tools().map(({ name, description, properties, execute }) =>
    tool(execute, { name, description, schema: { type: 'object', properties, additionalProperties: false } }),
  );

/** LangChain's fake chat model, answering its n-th call with the script's n-th step. */
function scripted(script) {
  const model = fakeModel();
  for (const step of stepsOf(script)) {
    const tool_calls = step.calls.map((call) => ({ id: call.toolCallId, name: call.toolName, args: call.input, type: 'tool_call' }));
    model.respond(new AIMessage({ content: step.text ?? '', tool_calls }));
  }
  return model;
}

/** The app's window: from model call `from` on, the calls to `tool` and their results leave the prompt. */
function windowMiddleware({ tool: dropped, from }) {
  let calls = 0;
  return createMiddleware({
    name: 'window',
    wrapModelCall(request, handler) {
      if (calls++ < from) return handler(request);
      const keep = (message) =>
        !(message.type === 'tool' && message.name === dropped) && !(message.tool_calls ?? []).some((call) => call.name === dropped);
      return handler({ ...request, messages: request.messages.filter(keep) });
    },
  });
}

/** Plays a run in `mode` ('invoke' or 'stream'); `guard` may be undefined. */
async function playIn(mode, run, guard) {
  const model = scripted(run.script);
  const middleware = [...(run.window ? [windowMiddleware(run.window)] : []), ...(guard ? [guard.middleware] : [])];
  const agent = createAgent({ model, tools: toolsOf(run), systemPrompt: run.system, middleware });
  const input = { messages: [{ role: 'user', content: run.prompt }] };
  let text;
  if (mode === 'invoke') {
    text = (await agent.invoke(input)).messages.at(-1).text;
  } else {
    // The answer is the text of the last AI message the stream carried.
    const texts = new Map();
    const stream = await agent.stream(input, { streamMode: 'messages' });
    for await (const [message] of guard ? guard.messages(stream) : stream) {
      if (message.type === 'ai') texts.set(message.id, (texts.get(message.id) ?? '') + message.text);
    }
    text = [...texts.values()].at(-1);
  }
  return { text, prompts: model.calls.map((call) => JSON.stringify(call.messages.map((message) => message.content))) };
}

const MODES = ['invoke', 'stream'];
const plays = playsFor(MODES, createGuard, playIn);

describe("LangChain.js: the guard's field cases", () => {
  for (const mode of MODES) {
    describe(mode, () => fieldCases({ play: plays[mode], bare: async (run) => (await playIn(mode, run)).text }));
  }
  sameInEveryMode(plays);
});

// LangChain runs callbacks, and so streamMode 'messages', in the background
// by default: a fake model that streams a long answer with no pause can end
// the agent's stream before the callbacks of its last chunks have run. The
// stream seam's tests want every chunk, so they wait for each callback.
process.env.LANGCHAIN_CALLBACKS_BACKGROUND = 'false';

describe('LangChain.js: the stream seam', () => {
  const LEAK = 'Sure. <tool_call>{"name":"port_for_device","arguments":{"wwpn":"20:00:00:25:b5:aa:00:1f"}}</tool_call> Done.';
  // A call to a tool the agent does not offer is left alone.
  const NOT_OFFERED = ' [weather(city="Paris")]';

  // FakeListChatModel answers every turn with the same leak, so these cases
  // strip only (`heal: false`): healed, the call would run and the model
  // leak it again, turn after turn. heal-langchain.test.mjs heals.
  it('a leaked call to an offered tool is stripped from the streamed chunks and from the state', async () => {
    const guard = createGuard({ heal: false, argumentsFrom: { port_for_device: ['fabric_inventory'] } });
    // FakeListChatModel streams its answer one character a chunk.
    const model = new FakeListChatModel({ responses: [LEAK + NOT_OFFERED] });
    const agent = createAgent({ model, tools: toolsOf(RUNS.triage), middleware: [guard.middleware] });
    // 'values' gives the state; 'messages' the chunks, read through the guard.
    const both = await agent.stream({ messages: [{ role: 'user', content: 'Which port?' }] }, { streamMode: ['messages', 'values'] });
    let state;
    async function* chunksOf() {
      for await (const [streamMode, payload] of both) {
        if (streamMode === 'messages') yield payload;
        else state = payload;
      }
    }
    const chunks = [];
    for await (const [message] of guard.messages(chunksOf())) chunks.push(message);
    const streamed = chunks.filter((message) => message.type === 'ai').map((message) => message.text);
    assert.ok(streamed.length > 10, 'the answer came in many chunks');
    assert.equal(streamed.join(''), `Sure.  Done.${NOT_OFFERED}`);
    assert.equal(state.messages.at(-1).text, `Sure.  Done.${NOT_OFFERED}`);
  });

  it('the same answer generated whole is stripped the same way', async () => {
    const guard = createGuard({ heal: false });
    const agent = createAgent({ model: new FakeListChatModel({ responses: [LEAK] }), tools: toolsOf(RUNS.triage), middleware: [guard] });
    const { messages } = await agent.invoke({ messages: [{ role: 'user', content: 'Which port?' }] });
    assert.equal(messages.at(-1).text, 'Sure.  Done.');
  });

  it('guard.messages names its argument when it is not a stream', () => {
    const guard = createGuard();
    assert.throws(() => guard.messages([]), { name: 'TypeError', message: /guard\.messages: stream must be .* \(got an array\)/ });
  });
});

describe('LangChain.js: options', () => {
  it('a bad option is a TypeError naming it', () => {
    assert.throws(() => createGuard({ argumentsFrom: { port_for_device: 'fabric_inventory' } }), {
      name: 'TypeError',
      message: /options\.argumentsFrom\["port_for_device"\] must be an array/,
    });
    assert.throws(() => createGuard({ posture: 'staging' }), { name: 'TypeError', message: /options\.posture/ });
    assert.throws(() => createGuard({ onFinding: 1 }), { name: 'TypeError', message: /options\.onFinding must be a function/ });
    assert.throws(() => createGuard({ model: 'x' }), { name: 'TypeError', message: /unknown option "model"/ });
    assert.throws(() => createGuard(null), { name: 'TypeError', message: /options must be an object/ });
  });

  it('newRun starts a new run with a new ledger', async () => {
    const { guard } = await plays.invoke(RUNS.triage);
    assert.equal(guard.findings.length, 1);
    const ledger = guard.ledger;
    guard.newRun();
    assert.deepEqual(guard.findings, []);
    assert.notEqual(guard.ledger, ledger);
  });
});

/** LangChain's fake chat model serving many conversations: each call answered by the router. */
function routed(router) {
  const model = fakeModel();
  for (let n = 0; n < 400; n++) {
    model.respond((messages) => {
      const step = router.answer(JSON.stringify(messages));
      const tool_calls = step.calls.map((call) => ({ id: call.toolCallId, name: call.toolName, args: call.input, type: 'tool_call' }));
      return new AIMessage({ content: step.text ?? '', tool_calls });
    });
  }
  return model;
}

describe('LangChain.js: one guard for a whole server', () => {
  serverCases({
    createGuard,
    threads: true,
    agentFor(guard, router) {
      // Built once, at startup, and serving every conversation.
      const agent = createAgent({ model: routed(router), tools: toolsOf({ tools: SERVER.tools }), systemPrompt: SERVER.system, middleware: [guard.middleware] });
      return async (conversation, { thread } = {}) => {
        const input = { messages: [{ role: 'user', content: conversation.prompt }] };
        const config = thread === undefined ? {} : { configurable: { thread_id: thread } };
        if (!conversation.stream) return agent.invoke(input, config);
        const stream = await agent.stream(input, { ...config, streamMode: 'messages' });
        for await (const item of guard.messages(stream)) void item;
        return undefined;
      };
    },
  });
});
