// Heal in LangChain.js (`createAgent`, langchain 1): a model that writes its
// tool call as text, in the markup of one family or another, gets it made
// real by the guard's middleware: one of the AIMessage's `tool_calls`, which
// the agent runs, through `invoke` and through `stream(..., { streamMode:
// 'messages' })` read with `guard.messages`, where the call comes as tool
// call chunks with the id the agent's state holds. The model is a chat
// model that plays a script and streams its text in small chunks; the
// tools' functions really run. The leaks are real ones
// (support/heal-cases.mjs).
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, it } from 'node:test';

import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk } from '@langchain/core/messages';
import { ChatGenerationChunk } from '@langchain/core/outputs';
import { createAgent, createMiddleware, tool } from 'langchain';
import { createGuard } from 'seamguard/langchain';

import { RUNS, WWPN } from '../support/field-cases.mjs';
import { CITIES, FINAL, INVENTED, LEAKS, MISFIT, PROSE, cityPrompt, cityRouter, healScript, healTools } from '../support/heal-cases.mjs';

// streamMode 'messages' is fed by callbacks, which LangChain runs in the
// background by default: the agent's stream can end before the callbacks of
// its last chunks ran. These cases want every chunk.
process.env.LANGCHAIN_CALLBACKS_BACKGROUND = 'false';

/** Tools (`{ name, description, properties, execute }`) as LangChain tools, every property required. */
const toolsOf = (tools) =>
  tools.map(({ name, description, properties, execute }) =>
    tool((input) => execute(input), { name, description, schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false } }),
  );

/** How many characters a streamed chunk carries: markup is split across chunks. */
const CHUNK = 5;

/**
 * A chat model whose n-th call is answered with `respond(messages, n)`
 * (`{ text?, calls?: [{ toolName, input }] }`): whole, or, when LangGraph
 * streams it, as chunks of CHUNK characters and then its calls as tool call
 * chunks, as a provider's model streams (with `streaming: false` it never
 * streams). `prompts` records each call's messages. (LangChain's
 * FakeListChatModel starts its list again whenever the agent binds the
 * tools, so it cannot play the turn after a tool ran; `fakeModel` never
 * streams.)
 */
class ScriptedChat extends BaseChatModel {
  constructor(respond, { streaming = true, pause = false } = {}) {
    super({});
    this.disableStreaming = !streaming;
    this.respond = respond;
    this.pause = pause;
    this.prompts = [];
  }

  _llmType() {
    return 'scripted';
  }

  bindTools() {
    return this;
  }

  stepOf(messages) {
    const n = this.prompts.push(messages) - 1;
    const { text = '', calls = [] } = this.respond(messages, n);
    return { text, calls: calls.map((call, i) => ({ id: `call-${n}-${i}`, name: call.toolName, args: call.input })) };
  }

  async _generate(messages) {
    const { text, calls } = this.stepOf(messages);
    return { generations: [{ text, message: new AIMessage({ content: text, tool_calls: calls.map((call) => ({ ...call, type: 'tool_call' })) }) }] };
  }

  async *_streamResponseChunks(messages, _options, runManager) {
    const { text, calls } = this.stepOf(messages);
    const chunks = [];
    for (let at = 0; at < text.length; at += CHUNK) chunks.push(new AIMessageChunk({ content: text.slice(at, at + CHUNK) }));
    if (calls.length > 0) {
      const tool_call_chunks = calls.map(({ id, name, args }, index) => ({ id, name, args: JSON.stringify(args), index, type: 'tool_call_chunk' }));
      chunks.push(new AIMessageChunk({ content: '', tool_call_chunks }));
    }
    for (const message of chunks) {
      const chunk = new ChatGenerationChunk({ text: message.content, message });
      yield chunk;
      await runManager?.handleLLMNewToken(message.content, undefined, undefined, undefined, undefined, { chunk });
      // Lets other conversations' chunks in between.
      if (this.pause) await tick();
    }
  }
}

/** A model that plays `script`, step by step. */
const scripted = (script, options) => new ScriptedChat((_messages, n) => script[n] ?? { text: '(the script has ended)' }, options);

const input = (prompt) => ({ messages: [{ role: 'user', content: prompt }] });

/**
 * Plays `prompt` through the agent in `mode`: the final state, and, for
 * 'stream' (streamMode 'messages' read through `guard.messages`, 'values'
 * for the state), every AI item the reader got and each AI message as the
 * reader puts it together from its chunks.
 */
async function play(mode, agent, guard, prompt, config = {}) {
  if (mode === 'invoke') return { state: await agent.invoke(input(prompt), config) };
  const both = await agent.stream(input(prompt), { ...config, streamMode: ['messages', 'values'] });
  let state;
  async function* messagesOf() {
    for await (const [streamMode, payload] of both) {
      if (streamMode === 'messages') yield payload;
      else state = payload;
    }
  }
  const items = [];
  const shown = new Map();
  for await (const [message] of guard.messages(messagesOf())) {
    if (message.type !== 'ai') continue;
    items.push(message);
    const before = shown.get(message.id);
    shown.set(message.id, before === undefined ? message : before.concat(message));
  }
  return { state, items, shown: [...shown.values()] };
}

const MODES = ['invoke', 'stream'];

const aiOf = (state) => state.messages.filter((message) => message.type === 'ai');
const callsOf = (message) => message.tool_calls.map(({ id, name, args }) => ({ id, name, args }));
/** Each AI message of the state: its text and its calls, `{ toolName, input }`. */
const answersOf = (state) => aiOf(state).map((message) => ({ text: message.text, calls: message.tool_calls.map((call) => ({ toolName: call.name, input: call.args })) }));

/**
 * What the reader of a stream saw agrees with the agent's state: each AI
 * message once, with the same text and the same tool calls (ids too), each
 * call carried by one item.
 */
function assertStreamAgrees({ state, items, shown }) {
  if (shown === undefined) return;
  const seen = (messages) => messages.map((message) => ({ id: message.id, text: message.text, calls: callsOf(message) }));
  assert.deepEqual(seen(shown), seen(aiOf(state)));
  for (const call of aiOf(state).flatMap(callsOf)) {
    const carriers = items.filter((item) => (item.tool_call_chunks ?? item.tool_calls).some((carried) => carried.id === call.id));
    assert.equal(carriers.length, 1, `the call ${call.id} came once`);
  }
}

describe('LangChain.js: a leaked call is healed into a tool call the agent runs', () => {
  for (const mode of MODES) {
    for (const leak of LEAKS) {
      it(`${mode}: ${leak.format} (${leak.source})`, async () => {
        const runs = [];
        const model = scripted(healScript(leak.leaked));
        const guard = createGuard();
        const played = await play(mode, createAgent({ model, tools: toolsOf(healTools(runs)), middleware: [guard] }), guard, 'Go.');
        // Each leaked call ran once, with its arguments.
        assert.deepEqual(runs, leak.calls);
        // The agent's state: the answer as healed, each call's result, the final answer; no markup.
        assert.deepEqual(answersOf(played.state), [{ text: PROSE + leak.clean, calls: leak.calls }, { text: FINAL, calls: [] }]);
        const [healed] = aiOf(played.state);
        for (const call of healed.tool_calls) {
          assert.match(call.id, /^healed_/);
          assert.ok(played.state.messages.some((message) => message.type === 'tool' && message.tool_call_id === call.id), 'the call has its result');
        }
        // The answer went on: the model was asked again, with the calls' results.
        assert.equal(model.prompts.length, 2);
        assert.deepEqual(
          model.prompts[1].filter((message) => message.type === 'tool').map((message) => message.tool_call_id),
          healed.tool_calls.map((call) => call.id),
        );
        // The stream showed what the state holds: no markup, each healed call once, with its id.
        assertStreamAgrees(played);
      });
    }

    it(`${mode}: an answer that made a real call heals nothing (its leak is stripped)`, async () => {
      const runs = [];
      const model = scripted([{ text: PROSE + LEAKS[0].leaked, calls: [{ toolName: 'note', input: { text: 'hi' } }] }, { text: FINAL }]);
      const guard = createGuard();
      const played = await play(mode, createAgent({ model, tools: toolsOf(healTools(runs)), middleware: [guard] }), guard, 'Go.');
      assert.deepEqual(runs, [{ toolName: 'note', input: { text: 'hi' } }]);
      assert.deepEqual(answersOf(played.state), [{ text: PROSE, calls: [{ toolName: 'note', input: { text: 'hi' } }] }, { text: FINAL, calls: [] }]);
      assertStreamAgrees(played);
    });

    it(`${mode}: a model that does not stream is shown whole, as healed`, async () => {
      const runs = [];
      const model = scripted(healScript(LEAKS[0].leaked), { streaming: false });
      const guard = createGuard();
      const played = await play(mode, createAgent({ model, tools: toolsOf(healTools(runs)), middleware: [guard] }), guard, 'Go.');
      assert.deepEqual(runs, LEAKS[0].calls);
      assert.deepEqual(answersOf(played.state), [{ text: PROSE + LEAKS[0].clean, calls: LEAKS[0].calls }, { text: FINAL, calls: [] }]);
      if (mode === 'stream') assert.ok(played.items.every((item) => typeof item.concat !== 'function'), 'the stream carried whole messages');
      assertStreamAgrees(played);
    });
  }
});

/** Plays `script` and returns the runs, the model, and what was played; the model is asked once. */
async function playNotHealed(mode, script, { guard = createGuard(), middleware = [] } = {}) {
  const runs = [];
  const model = scripted(script);
  const played = await play(mode, createAgent({ model, tools: toolsOf(healTools(runs)), middleware: [...middleware, guard] }), guard, 'Go.');
  assert.deepEqual(runs, []);
  assert.equal(model.prompts.length, 1);
  assertStreamAgrees(played);
  return answersOf(played.state);
}

describe('LangChain.js: what is not healed', () => {
  for (const mode of MODES) {
    it(`${mode}: a call to a tool the app withdrew (toolChoice) is stripped and never run`, async () => {
      // The app withdraws every tool for this call, in a middleware outside the guard's.
      const none = createMiddleware({ name: 'no-tools', wrapModelCall: (request, handler) => handler({ ...request, toolChoice: 'none' }) });
      assert.deepEqual(await playNotHealed(mode, healScript(LEAKS[0].leaked), { middleware: [none] }), [{ text: PROSE, calls: [] }]);
    });

    it(`${mode}: a call to a tool nobody offers is never run`, async () => {
      await playNotHealed(mode, healScript(INVENTED));
    });

    it(`${mode}: a call to a tool nobody offers is stripped`, async () => {
      assert.deepEqual(await playNotHealed(mode, healScript(INVENTED)), [{ text: PROSE, calls: [] }]);
    });

    it(`${mode}: a call to a tool nobody offers, in special tokens, is stripped and never run`, async () => {
      // The DSML case's markup (sgl-project/sglang#35736), calling a tool no one offers.
      const invented = LEAKS.find((leak) => leak.id === 'dsml-sglang-v4-tool-choice-none').leaked.replaceAll('"Bash"', '"drop_table"');
      assert.deepEqual(await playNotHealed(mode, healScript(invented)), [{ text: PROSE, calls: [] }]);
    });

    it(`${mode}: arguments the tool's schema refuses are stripped and never run`, async () => {
      assert.deepEqual(await playNotHealed(mode, healScript(MISFIT)), [{ text: PROSE, calls: [] }]);
    });

    it(`${mode}: heal: false strips the leak and runs nothing`, async () => {
      assert.deepEqual(await playNotHealed(mode, healScript(LEAKS[1].leaked), { guard: createGuard({ heal: false }) }), [{ text: PROSE + LEAKS[1].clean, calls: [] }]);
    });

    it(`${mode}: strip: false changes no text and heals nothing`, async () => {
      assert.deepEqual(await playNotHealed(mode, healScript(LEAKS[1].leaked), { guard: createGuard({ strip: false }) }), [{ text: PROSE + LEAKS[1].leaked, calls: [] }]);
    });
  }
});

describe('LangChain.js: findings are judged on the call as healed', () => {
  // The model leaks a lookup of a device it never listed: the healed call's
  // argument was produced by nothing, which argumentsFrom forbids.
  const LOOKUP = `<tool_call>\n{"name": "port_for_device", "arguments": {"wwpn": "${WWPN}"}}\n</tool_call>`;
  for (const mode of MODES) {
    it(`${mode}: a healed call whose argument nothing produced is unsupported-argument`, async () => {
      const found = [];
      const guard = createGuard({ argumentsFrom: RUNS.triage.argumentsFrom, onFinding: (finding, run) => found.push({ finding, run }) });
      const model = scripted([{ text: LOOKUP }, { text: 'It is not logged in.' }]);
      const played = await play(mode, createAgent({ model, tools: toolsOf(RUNS.triage.tools()), middleware: [guard] }), guard, 'Which port?');
      const [healed] = aiOf(played.state)[0].tool_calls;
      assert.equal(healed.name, 'port_for_device');
      assert.deepEqual(
        found
          .filter(({ finding }) => finding.kind === 'unsupported-argument')
          .map(({ finding, run }) => ({ subjects: finding.subjects.map((s) => s.id), predicate: finding.predicate, toolCallId: run.toolCallId })),
        [{ subjects: ['port_for_device'], predicate: 'wwpn', toolCallId: healed.id }],
      );
      assertStreamAgrees(played);
    });

    it(`${mode}: with heal off the call never happened, and nothing is found`, async () => {
      const guard = createGuard({ argumentsFrom: RUNS.triage.argumentsFrom, heal: false });
      const model = scripted([{ text: LOOKUP }]);
      await play(mode, createAgent({ model, tools: toolsOf(RUNS.triage.tools()), middleware: [guard] }), guard, 'Which port?');
      assert.deepEqual(guard.findings, []);
      assert.equal(model.prompts.length, 1);
    });
  }
});

describe('LangChain.js: one guard heals each of many conversations at once', () => {
  it('six conversations on one agent, half streaming: each runs its own call once and gets its own answer', async () => {
    const runs = [];
    const router = cityRouter();
    const model = new ScriptedChat((messages) => router.answer(JSON.stringify(messages.map((message) => message.content))), { pause: true });
    const guard = createGuard();
    // Built once, at startup, and serving every conversation; some of them name their thread.
    const agent = createAgent({ model, tools: toolsOf(healTools(runs)), middleware: [guard] });
    const played = await Promise.all(
      CITIES.map((city, n) => play(n % 2 === 0 ? 'invoke' : 'stream', agent, guard, cityPrompt(city), n % 3 === 0 ? { configurable: { thread_id: `thread-${n}` } } : {})),
    );
    assert.deepEqual(runs.map((run) => run.input.city).sort(), [...CITIES].sort());
    CITIES.forEach((city, n) => {
      assert.deepEqual(answersOf(played[n].state), [
        { text: `Checking ${city}.\n`, calls: [{ toolName: 'get_weather', input: { city } }] },
        { text: `Sunny in ${city}.`, calls: [] },
      ]);
      assertStreamAgrees(played[n]);
    });
  });
});
