// Telemetry in LangChain.js (`createAgent`, langchain 1): each finding,
// strip and heal of the guard's middleware is a custom event of the run
// (`dispatchCustomEvent`), which a callback handler's `handleCustomEvent`
// gets, and `streamEvents` shows as an `on_custom_event`. The handler is a
// real BaseCallbackHandler; the model a chat model that plays a script and
// streams its text in small chunks; the tools really run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { BaseCallbackHandler } from '@langchain/core/callbacks/base';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk } from '@langchain/core/messages';
import { ChatGenerationChunk } from '@langchain/core/outputs';
import { createAgent, tool } from 'langchain';
import { createGuard } from 'seamguard/langchain';

import { RUNS, WWPN } from '../support/field-cases.mjs';
import { CITIES, INVENTED, LEAKS, MISFIT, cityPrompt, cityRouter, healScript, healTools } from '../support/heal-cases.mjs';
import { SignalHandler } from '../support/langchain.mjs';

// The handler must have every event before the run resolves.
process.env.LANGCHAIN_CALLBACKS_BACKGROUND = 'false';

/** Tools (`{ name, description, properties, execute }`) as LangChain tools, every property required. */
const toolsOf = (tools) =>
  tools.map(({ name, description, properties, execute }) =>
    tool((input) => execute(input), { name, description, schema: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false } }),
  );

/**
 * A chat model whose n-th call is answered with `respond(messages, n)`
 * (`{ text?, calls? }`), whole, or streamed five characters a chunk.
 */
class ScriptedChat extends BaseChatModel {
  constructor(respond) {
    super({});
    this.respond = respond;
    this.calls = 0;
  }

  _llmType() {
    return 'scripted';
  }

  bindTools() {
    return this;
  }

  stepOf(messages) {
    const n = this.calls++;
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
    for (let at = 0; at < text.length; at += 5) chunks.push(new AIMessageChunk({ content: text.slice(at, at + 5) }));
    if (calls.length > 0) {
      chunks.push(new AIMessageChunk({ content: '', tool_call_chunks: calls.map(({ id, name, args }, index) => ({ id, name, args: JSON.stringify(args), index, type: 'tool_call_chunk' })) }));
    }
    for (const message of chunks) {
      const chunk = new ChatGenerationChunk({ text: message.content, message });
      yield chunk;
      await runManager?.handleLLMNewToken(message.content, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}

const scripted = (script) => new ScriptedChat((_messages, n) => script[n] ?? { text: '(the script has ended)' });
const input = (prompt) => ({ messages: [{ role: 'user', content: prompt }] });

/**
 * Plays `prompt` through `agent` with `handler` as a callback: `invoke`, or
 * `stream` in streamMode 'messages' read through `guard.messages`. Resolves
 * to the agent's final state.
 */
async function play(mode, agent, guard, prompt, handler, config = {}) {
  if (mode === 'invoke') return agent.invoke(input(prompt), { ...config, callbacks: [handler] });
  const stream = await agent.stream(input(prompt), { ...config, callbacks: [handler], streamMode: ['messages', 'values'] });
  let state;
  async function* messagesOf() {
    for await (const [streamMode, payload] of stream) {
      if (streamMode === 'messages') yield payload;
      else state = payload;
    }
  }
  for await (const item of guard.messages(messagesOf())) void item;
  return state;
}

const fieldAgent = (name, guard) => createAgent({ model: scripted(RUNS[name].script), tools: toolsOf(RUNS[name].tools().map((spec) => ({ ...spec }))), middleware: [guard] });

/** What a finding's event must say, read from the finding the guard kept. */
const expectedOf = (finding, runId) => ({
  'seamguard.signal': 'finding',
  'seamguard.kind': finding.kind,
  'seamguard.seam': finding.seam,
  'seamguard.path': finding.predicate,
  'gen_ai.tool.call.id': finding.toolCallId,
  'seamguard.run_id': runId,
  'seamguard.model_call': finding.epoch,
});
const pick = (data, keys) => Object.fromEntries(keys.map((key) => [key, data[key]]));

describe('LangChain.js: findings are custom events of the run', () => {
  for (const mode of ['invoke', 'stream']) {
    it(`${mode}: a callback handler gets each finding once, with kind, seam, tools, path, value, call id, run and model call`, async () => {
      const guard = createGuard({ argumentsFrom: RUNS.recall.argumentsFrom });
      const handler = new SignalHandler();
      await play(mode, fieldAgent('recall', guard), guard, RUNS.recall.prompt, handler, { configurable: { thread_id: `recall-${mode}` } });
      const { findings } = guard.run(`recall-${mode}`);
      assert.equal(findings.length, 2);
      assert.deepEqual(
        handler.events.map((event) => [event.name, pick(event.data, Object.keys(expectedOf(findings[0], '')))]),
        findings.map((finding) => ['seamguard.finding', expectedOf(finding, `recall-${mode}`)]),
      );
      assert.deepEqual(
        handler.events.map((event) => [event.data['seamguard.value'], event.data['seamguard.tools'], event.data['gen_ai.tool.name']]),
        [
          ['20:00:00:25:b5:ff:00:99', ['port_for_device'], 'port_for_device'],
          [WWPN, ['port_for_device', 'fabric_inventory'], 'port_for_device'],
        ],
      );
    });
  }

  it('streamEvents shows each finding as an on_custom_event', async () => {
    const guard = createGuard({ argumentsFrom: RUNS.recall.argumentsFrom });
    const shown = [];
    for await (const event of fieldAgent('recall', guard).streamEvents(input(RUNS.recall.prompt), { version: 'v2' })) {
      if (event.event === 'on_custom_event' && event.name.startsWith('seamguard.')) shown.push([event.name, event.data['seamguard.kind'], event.data['gen_ai.tool.call.id']]);
    }
    assert.deepEqual(
      shown,
      guard.findings.map((finding) => ['seamguard.finding', finding.kind, finding.toolCallId]),
    );
    assert.equal(shown.length, 2);
  });

  it('a handler that throws never reaches the run: its error goes to onError, and the findings are filed', async () => {
    const errors = [];
    const guard = createGuard({ argumentsFrom: RUNS.recall.argumentsFrom, onError: (error) => errors.push(error) });
    class Throwing extends BaseCallbackHandler {
      name = 'throwing';

      raiseError = true;

      handleCustomEvent() {
        throw new Error('the trace store is down');
      }
    }
    const { messages } = await fieldAgent('recall', guard).invoke(input(RUNS.recall.prompt), { callbacks: [new Throwing()] });
    assert.equal(messages.at(-1).text, 'Done.');
    assert.equal(guard.findings.length, 2);
    assert.deepEqual(errors.map((error) => error.message), ['the trace store is down', 'the trace store is down']);
  });

  it('a run with no callbacks dispatches nothing and finds the same', async () => {
    const guard = createGuard({ argumentsFrom: RUNS.recall.argumentsFrom });
    await fieldAgent('recall', guard).invoke(input(RUNS.recall.prompt));
    assert.deepEqual(
      guard.findings.map((finding) => [finding.kind, finding.toolCallId]),
      [
        ['unsupported-argument', 'call-1-0'],
        ['empty-lookup', 'call-1-1'],
      ],
    );
  });
});

describe('LangChain.js: strips and heals are custom events of the run', () => {
  for (const mode of ['invoke', 'stream']) {
    for (const leak of LEAKS) {
      it(`${mode}, ${leak.format}: one strip naming the tools, a heal per call with the id the agent ran it under`, async () => {
        const runs = [];
        const guard = createGuard();
        const handler = new SignalHandler();
        const state = await play(mode, createAgent({ model: scripted(healScript(leak.leaked)), tools: toolsOf(healTools(runs)), middleware: [guard] }), guard, 'Go.', handler);
        assert.deepEqual(runs, leak.calls);
        const strips = handler.events.filter((event) => event.name === 'seamguard.strip');
        const heals = handler.events.filter((event) => event.name === 'seamguard.heal');
        // The middleware strips the answer once; the stream's own filter shows the same strip and records none.
        assert.deepEqual([...new Set(strips.flatMap((event) => event.data['seamguard.tools']))], [...new Set(leak.calls.map((call) => call.toolName))]);
        assert.equal(strips.length, new Set(strips.map((event) => event.data['seamguard.span'])).size, 'each strip once');
        const healed = state.messages.find((message) => message.type === 'ai').tool_calls;
        assert.deepEqual(
          heals.map((event) => ({ id: event.data['gen_ai.tool.call.id'], name: event.data['gen_ai.tool.name'], args: JSON.parse(event.data['seamguard.value']) })),
          healed.map(({ id, name, args }) => ({ id, name, args })),
        );
        assert.deepEqual(handler.events.map((event) => event.name), [...strips.map(() => 'seamguard.strip'), ...heals.map(() => 'seamguard.heal')]);
      });
    }

    for (const [what, text, toolName] of [
      ['a call to a tool nobody offers', INVENTED, 'delete_records'],
      ['a call whose arguments the schema refuses', MISFIT, 'get_weather'],
    ]) {
      it(`${mode}, ${what}: stripped and refused, with the reason`, async () => {
        const runs = [];
        const guard = createGuard();
        const handler = new SignalHandler();
        await play(mode, createAgent({ model: scripted(healScript(text)), tools: toolsOf(healTools(runs)), middleware: [guard] }), guard, 'Go.', handler);
        assert.deepEqual(runs, []);
        assert.deepEqual(
          handler.events.map((event) => [event.name, event.data['seamguard.tools']]),
          [
            ['seamguard.strip', [toolName]],
            ['seamguard.heal_refused', [toolName]],
          ],
        );
        assert.equal(typeof handler.events[1].data['seamguard.reason'], 'string');
      });
    }
  }

  it('several conversations at once on one guard, invoked and streamed: each handler gets its own conversation\'s events', async () => {
    const runs = [];
    const router = cityRouter();
    const guard = createGuard({ argumentsFrom: { get_weather: ['note'] } });
    const agent = createAgent({ model: new ScriptedChat((messages) => router.answer(JSON.stringify(messages.map((message) => message.content)))), tools: toolsOf(healTools(runs)), middleware: [guard] });
    const cities = CITIES.slice(0, 6);
    const handlers = cities.map(() => new SignalHandler());
    await Promise.all(cities.map((city, n) => play(n % 2 === 0 ? 'invoke' : 'stream', agent, guard, cityPrompt(city), handlers[n], { configurable: { thread_id: `thread-${city}` } })));
    assert.equal(runs.length, cities.length);
    for (const [n, city] of cities.entries()) {
      const heals = handlers[n].events.filter((event) => event.name === 'seamguard.heal');
      assert.deepEqual(
        heals.map((event) => [JSON.parse(event.data['seamguard.value']).city, event.data['seamguard.run_id']]),
        [[city, `thread-${city}`]],
      );
      assert.ok(handlers[n].events.every((event) => event.data['seamguard.run_id'] === `thread-${city}`));
    }
  });
});
