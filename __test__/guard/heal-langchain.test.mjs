// Heal in LangChain.js (issue 30): a leaked call to a tool the agent offers
// becomes a real tool call in the model's AIMessage, so `createAgent` runs
// it, and, streamed through `guard.messages`, a tool call chunk with the
// same id. Each case plays through the agent's own loop, `invoke` and
// `stream(..., { streamMode: 'messages' })`, with a chat model that answers
// from a script and tools whose functions really run.
import assert from 'node:assert/strict';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, it } from 'node:test';

import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk } from '@langchain/core/messages';
import { ChatGenerationChunk } from '@langchain/core/outputs';
import { createAgent, createMiddleware, tool } from 'langchain';
import { createGuard } from 'seamguard/langchain';

import { RUNS } from '../support/field-cases.mjs';

// streamMode 'messages' is fed by callbacks, which LangChain runs in the
// background by default: the agent's stream can end before the callbacks of
// its last chunks ran. These cases want every chunk.
process.env.LANGCHAIN_CALLBACKS_BACKGROUND = 'false';

/** How many characters a streamed chunk carries: markup is split across chunks. */
const CHUNK = 5;

/**
 * A chat model that answers each turn with `answer(messages)` (a text),
 * streaming it CHUNK characters at a time, as a provider's model does, or
 * whole when `streaming` is false. (LangChain's FakeListChatModel starts
 * its list again whenever the agent binds the tools, so it cannot play the
 * turn after a tool ran; `fakeModel` never streams.)
 */
class ScriptedChat extends BaseChatModel {
  constructor(answer, { streaming = true, pause = false } = {}) {
    super({});
    this.disableStreaming = !streaming;
    this.answer = answer;
    this.pause = pause;
    this.prompts = [];
  }

  _llmType() {
    return 'scripted';
  }

  bindTools() {
    return this;
  }

  async _generate(messages) {
    this.prompts.push(messages);
    const text = this.answer(messages);
    return { generations: [{ text, message: new AIMessage(text) }] };
  }

  async *_streamResponseChunks(messages, _options, runManager) {
    this.prompts.push(messages);
    const text = this.answer(messages);
    for (let at = 0; at < text.length; at += CHUNK) {
      const piece = text.slice(at, at + CHUNK);
      const chunk = new ChatGenerationChunk({ text: piece, message: new AIMessageChunk({ content: piece }) });
      yield chunk;
      await runManager?.handleLLMNewToken(piece, undefined, undefined, undefined, undefined, { chunk });
      // Lets other conversations' chunks in between.
      if (this.pause) await tick();
    }
  }
}

/** The model's turns: the leak first; once a tool answered, `final` of that tool message's text. */
const leakThen = (leak, final) => (messages) => (messages.at(-1).type === 'tool' ? final(messages.at(-1).text) : leak);

/** A tool with a JSON Schema input whose function records each input it ran with. */
function recordingTool(name, properties, required, answer, ran) {
  const schema = { type: 'object', properties, required, additionalProperties: false };
  return tool(
    async (input) => {
      ran.push({ name, input });
      return answer(input);
    },
    { name, description: `The ${name} tool`, schema },
  );
}

const string = { type: 'string' };

/**
 * Real leaks (from __test__/fixtures/real-leaks.json, each with its source),
 * each with the tool it calls, the input it spells, and the text the reader
 * keeps.
 */
const FORMATS = [
  {
    // NousResearch/Hermes-2-Pro-Llama-3-8B, vllm-project/vllm#5649 (PR comment by K-Mistele).
    format: 'Hermes <tool_call> JSON',
    leak: '<tool_call>\n{"arguments": {"city": "Dallas", "state": "TX", "unit": "fahrenheit"}, "name": "get_current_weather"}\n</tool_call>',
    clean: '',
    tool: ['get_current_weather', { city: string, state: string, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } }, ['city']],
    input: { city: 'Dallas', state: 'TX', unit: 'fahrenheit' },
  },
  {
    // Qwen3-Coder-480B-A35B-Instruct-FP8 under vLLM, vllm-project/vllm#22975 (issue body).
    format: 'Qwen3-Coder <function=…><parameter=…>',
    leak: "Let me check if there might be a base.py file that's not showing up. Since we know it's being imported, let me try to grep for the implementation of BaseService.\n\n<tool_call>\n<function=GrepTool>\n<parameter=pattern>\nclass BaseService\\(\n</parameter>\n<parameter=path>\n.\n</parameter>\n</function>\n</tool_call>",
    clean: "Let me check if there might be a base.py file that's not showing up. Since we know it's being imported, let me try to grep for the implementation of BaseService.\n\n",
    tool: ['GrepTool', { pattern: string, path: string }, ['pattern']],
    input: { pattern: 'class BaseService\\(', path: '.' },
  },
  {
    // DeepSeek-V4 under SGLang with tool_choice none, sgl-project/sglang#35736 (issue body).
    format: 'DeepSeek V4 DSML special tokens',
    leak: '<\uff5cDSML\uff5ctool_calls>\n<\uff5cDSML\uff5cinvoke name="Bash">\n<\uff5cDSML\uff5cparameter name="command" string="true">pwd</\uff5cDSML\uff5cparameter>\n</\uff5cDSML\uff5cinvoke>\n</\uff5cDSML\uff5ctool_calls>',
    clean: '',
    tool: ['Bash', { command: string }, ['command']],
    input: { command: 'pwd' },
  },
  {
    // gpt-oss-120b in LM Studio 0.3.22, lmstudio-ai/lmstudio-bug-tracker#873 (issue body).
    format: 'gpt-oss harmony special tokens',
    leak: '<|channel|>commentary to=functions.run_javascript <|constrain|>json<|message|>{\n"javascript": "console.log(\'Hello, world!\');",\n"timeout_seconds": 5\n}',
    clean: '',
    tool: ['run_javascript', { javascript: string, timeout_seconds: { type: 'number' } }, ['javascript']],
    input: { javascript: "console.log('Hello, world!');", timeout_seconds: 5 },
  },
];

/** Tool-call markup of any of the formats above, as a reader would see it. */
const MARKUP = /<\/?(tool_call|function|parameter)\b|<\||\|>|\uff5c|"arguments"|"name":/;

const input = (prompt) => ({ messages: [{ role: 'user', content: prompt }] });

/** Plays `prompt` through `agent.invoke`: the final state. */
async function invoked(agent, _guard, prompt, config = {}) {
  return { state: await agent.invoke(input(prompt), config) };
}

/**
 * Plays `prompt` through `agent.stream`: the final state (streamMode
 * 'values') and what the reader sees of the 'messages' stream, read
 * through the guard: every AI item, and each AI message as the reader
 * puts it together from its chunks, by id.
 */
async function streamed(agent, guard, prompt, config = {}) {
  const both = await agent.stream(input(prompt), { ...config, streamMode: ['messages', 'values'] });
  let state;
  async function* messagesOf() {
    for await (const [mode, payload] of both) {
      if (mode === 'messages') yield payload;
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

const MODES = { invoke: invoked, stream: streamed };

const aiOf = (state) => state.messages.filter((message) => message.type === 'ai');
const callsOf = (message) => message.tool_calls.map(({ id, name, args }) => ({ id, name, args }));

/** No AI message the state holds, or the stream showed, has markup in its text. */
function assertNoMarkup({ state, shown }) {
  for (const message of [...aiOf(state), ...(shown ?? [])]) assert.doesNotMatch(message.text, MARKUP, `markup shown: ${JSON.stringify(message.text)}`);
}

/**
 * The stream showed each AI message of the state once, with the same text
 * and the same tool calls (ids too); the healed call's chunk came once.
 */
function assertStreamAgrees({ state, items, shown }) {
  if (shown === undefined) return;
  assert.deepEqual(
    shown.map((message) => ({ id: message.id, text: message.text, calls: callsOf(message) })),
    aiOf(state).map((message) => ({ id: message.id, text: message.text, calls: callsOf(message) })),
  );
  for (const call of aiOf(state).flatMap(callsOf)) {
    const carrying = items.filter((item) => (item.tool_call_chunks ?? []).some((chunk) => chunk.id === call.id) || (item.tool_call_chunks === undefined && item.tool_calls.some((c) => c.id === call.id)));
    assert.equal(carrying.length, 1, `the call ${call.id} was shown once`);
  }
}

for (const [mode, play] of Object.entries(MODES)) {
  describe(`LangChain.js heal, ${mode}`, () => {
    for (const { format, leak, clean, tool: [name, properties, required], input: spelt } of FORMATS) {
      it(`${format}: the leaked call runs once, with its arguments, and the answer goes on`, async () => {
        const ran = [];
        const model = new ScriptedChat(leakThen(leak, (result) => `Done: ${result}.`));
        const guard = createGuard();
        const tools = [recordingTool(name, properties, required, () => 'tool output', ran)];
        const agent = createAgent({ model, tools, middleware: [guard] });
        const played = await play(agent, guard, 'Go ahead.');
        assert.deepEqual(ran, [{ name, input: spelt }]);
        const [human, healed, result, final] = played.state.messages;
        assert.equal(played.state.messages.length, 4);
        assert.equal(human.type, 'human');
        assert.equal(healed.text, clean);
        assert.equal(healed.tool_calls.length, 1);
        assert.deepEqual({ name: healed.tool_calls[0].name, args: healed.tool_calls[0].args }, { name, args: spelt });
        assert.match(healed.tool_calls[0].id, /^healed_/);
        assert.deepEqual([result.type, result.tool_call_id, result.text], ['tool', healed.tool_calls[0].id, 'tool output']);
        assert.equal(final.text, 'Done: tool output.');
        // The model's second turn read the tool's result, under the healed call's id.
        assert.equal(model.prompts.length, 2);
        assert.equal(model.prompts[1].at(-1).tool_call_id, healed.tool_calls[0].id);
        assertNoMarkup(played);
        assertStreamAgrees(played);
      });
    }

    it('a call to a tool the agent does not offer is stripped and never run', async () => {
      // The DSML case's markup and a Hermes wrapper, each calling a tool no one offers.
      const leaks = [
        'Cleaning up first. <\uff5cDSML\uff5ctool_calls>\n<\uff5cDSML\uff5cinvoke name="drop_table">\n<\uff5cDSML\uff5cparameter name="table" string="true">users</\uff5cDSML\uff5cparameter>\n</\uff5cDSML\uff5cinvoke>\n</\uff5cDSML\uff5ctool_calls>',
        'Cleaning up first. <tool_call>\n{"arguments": {"table": "users"}, "name": "drop_table"}\n</tool_call>',
      ];
      for (const leak of leaks) {
        const ran = [];
        const model = new ScriptedChat(leakThen(leak, () => 'never'));
        const guard = createGuard();
        const agent = createAgent({ model, tools: [recordingTool('get_current_weather', { city: string }, ['city'], () => 'sunny', ran)], middleware: [guard] });
        const played = await play(agent, guard, 'Tidy up.');
        assert.deepEqual(ran, []);
        assert.equal(model.prompts.length, 1);
        assert.deepEqual(aiOf(played.state).map((message) => [message.text, message.tool_calls.length]), [['Cleaning up first. ', 0]]);
        assertNoMarkup(played);
        assertStreamAgrees(played);
      }
    });

    it('a call to a tool that toolChoice withdrew is stripped and never run', async () => {
      const ran = [];
      const { leak } = FORMATS[0];
      const model = new ScriptedChat(leakThen(leak, () => 'never'));
      const guard = createGuard();
      // The app withdraws every tool for this call, in a middleware outside the guard's.
      const none = createMiddleware({ name: 'no-tools', wrapModelCall: (request, handler) => handler({ ...request, toolChoice: 'none' }) });
      const tools = [recordingTool('get_current_weather', { city: string, state: string, unit: string }, ['city'], () => 'sunny', ran)];
      const played = await play(createAgent({ model, tools, middleware: [none, guard] }), guard, 'Weather?');
      assert.deepEqual(ran, []);
      assert.equal(model.prompts.length, 1);
      assert.deepEqual(aiOf(played.state).map((message) => [message.text, message.tool_calls.length]), [['', 0]]);
      assertNoMarkup(played);
      assertStreamAgrees(played);
    });

    it('arguments the tool schema does not admit: stripped, not run', async () => {
      const ran = [];
      const leak = 'Checking. <tool_call>\n{"arguments": {"town": "Dallas"}, "name": "get_current_weather"}\n</tool_call>';
      const model = new ScriptedChat(leakThen(leak, () => 'never'));
      const guard = createGuard();
      const tools = [recordingTool('get_current_weather', { city: string }, ['city'], () => 'sunny', ran)];
      const played = await play(createAgent({ model, tools, middleware: [guard] }), guard, 'Weather?');
      assert.deepEqual(ran, []);
      assert.equal(model.prompts.length, 1);
      assert.deepEqual(aiOf(played.state).map((message) => [message.text, message.tool_calls.length]), [['Checking. ', 0]]);
      assertNoMarkup(played);
      assertStreamAgrees(played);
    });

    it('heal: false strips the leaked call and runs nothing', async () => {
      const ran = [];
      const { leak, clean, tool: [name, properties, required] } = FORMATS[1];
      const model = new ScriptedChat(leakThen(leak, () => 'never'));
      const guard = createGuard({ heal: false });
      const played = await play(createAgent({ model, tools: [recordingTool(name, properties, required, () => 'x', ran)], middleware: [guard] }), guard, 'Grep.');
      assert.deepEqual(ran, []);
      assert.equal(model.prompts.length, 1);
      assert.deepEqual(aiOf(played.state).map((message) => [message.text, message.tool_calls.length]), [[clean, 0]]);
      assertNoMarkup(played);
      assertStreamAgrees(played);
    });

    it('strip: false changes nothing: the markup stays, nothing runs', async () => {
      const ran = [];
      const { leak, tool: [name, properties, required] } = FORMATS[1];
      const model = new ScriptedChat(leakThen(leak, () => 'never'));
      const guard = createGuard({ strip: false });
      const played = await play(createAgent({ model, tools: [recordingTool(name, properties, required, () => 'x', ran)], middleware: [guard] }), guard, 'Grep.');
      assert.deepEqual(ran, []);
      assert.equal(model.prompts.length, 1);
      assert.deepEqual(aiOf(played.state).map((message) => [message.text, message.tool_calls.length]), [[leak, 0]]);
      assertStreamAgrees(played);
    });

    it('findings about a healed call are judged on the call as healed', async () => {
      const seen = [];
      const ran = [];
      // The model never listed the fabric, yet looks a device up: the wwpn is served by nothing.
      const leak = 'Looking it up. <tool_call>\n{"arguments": {"wwpn": "20:00:00:25:b5:ff:00:99"}, "name": "port_for_device"}\n</tool_call>';
      const model = new ScriptedChat(leakThen(leak, () => 'It is not logged in.'));
      const tools = RUNS.triage.tools().map(({ name, properties, execute }) =>
        recordingTool(name, properties, [], async (args) => execute(args), ran),
      );
      for (const heal of [true, false]) {
        ran.length = 0;
        seen.length = 0;
        model.prompts.length = 0;
        const guard = createGuard({ heal, argumentsFrom: RUNS.triage.argumentsFrom, onFinding: (finding, run) => seen.push({ kind: finding.kind, predicate: finding.predicate, toolCallId: run.toolCallId }) });
        const played = await play(createAgent({ model, tools, middleware: [guard] }), guard, 'Which port?');
        if (!heal) {
          assert.deepEqual([ran, seen, guard.findings], [[], [], []]);
          assert.equal(guard.ledger.report().find((row) => row.check === 'unsupported-argument').checked, 0);
          continue;
        }
        const healedId = aiOf(played.state)[0].tool_calls[0].id;
        assert.deepEqual(ran.map((call) => call.name), ['port_for_device']);
        assert.ok(
          seen.some((finding) => finding.kind === 'unsupported-argument' && finding.predicate === 'wwpn' && finding.toolCallId === healedId),
          `an unsupported-argument finding about ${healedId}: ${JSON.stringify(seen)}`,
        );
        assertStreamAgrees(played);
      }
    });
  });
}

describe('LangChain.js heal: the stream of a model that does not stream', () => {
  it('shows the whole answer once, as the middleware healed it', async () => {
    const ran = [];
    const { leak, tool: [name, properties, required], input: spelt } = FORMATS[0];
    const model = new ScriptedChat(leakThen(leak, () => 'Sunny.'), { streaming: false });
    const guard = createGuard();
    const agent = createAgent({ model, tools: [recordingTool(name, properties, required, () => 'sunny', ran)], middleware: [guard] });
    const played = await streamed(agent, guard, 'Weather?');
    assert.deepEqual(ran, [{ name, input: spelt }]);
    assert.ok(played.items.every((item) => typeof item.concat !== 'function'), `the model sent whole messages: ${played.items.map((item) => item.constructor.name)}`);
    assertNoMarkup(played);
    assertStreamAgrees(played);
  });
});

describe('LangChain.js heal: one guard for many conversations at once', () => {
  it("heals each conversation's own calls, half of them streaming", async () => {
    const CITIES = ['Dallas', 'Austin', 'Houston', 'El Paso', 'Waco', 'Tyler'];
    // Each conversation leaks a call for its own city, in one of two formats.
    const leakFor = (city, n) =>
      n % 2 === 0
        ? `On it. <tool_call>\n{"arguments": {"city": "${city}"}, "name": "get_current_weather"}\n</tool_call>`
        : `On it.\n<tool_call>\n<function=get_current_weather>\n<parameter=city>\n${city}\n</parameter>\n</function>\n</tool_call>`;
    const model = new ScriptedChat(
      (messages) => {
        const city = CITIES.find((name) => messages[0].content === `Weather in ${name}?`);
        const n = CITIES.indexOf(city);
        return messages.at(-1).type === 'tool' ? `It is ${messages.at(-1).text}.` : leakFor(city, n);
      },
      { pause: true },
    );
    const ran = [];
    const guard = createGuard();
    const tools = [recordingTool('get_current_weather', { city: string }, ['city'], ({ city }) => `sunny in ${city}`, ran)];
    // Built once, serving every conversation.
    const agent = createAgent({ model, tools, middleware: [guard] });
    const played = await Promise.all(
      CITIES.map((city, n) => {
        const config = n % 3 === 0 ? { configurable: { thread_id: `thread-${n}` } } : {};
        return (n % 2 === 1 ? streamed : invoked)(agent, guard, `Weather in ${city}?`, config);
      }),
    );
    assert.deepEqual(ran.map((call) => call.input.city).sort(), [...CITIES].sort());
    CITIES.forEach((city, n) => {
      const conversation = played[n];
      const [healed, final] = aiOf(conversation.state);
      assert.deepEqual(healed.tool_calls.map((call) => call.args), [{ city }]);
      assert.equal(final.text, `It is sunny in ${city}.`);
      assertNoMarkup(conversation);
      assertStreamAgrees(conversation);
    });
  });
});
