// Heal in Mastra (`@mastra/core`): a model that writes its tool call as
// text, in the markup of one family or another, gets it made real by the
// guard's processor: a `tool-call` part the agent's loop executes, through
// `agent.generate` and `agent.stream`, with the AI SDK's mock model playing
// the script (ai 6's MockLanguageModelV3 and, on Node 22 and later, ai 7's
// MockLanguageModelV4, streaming its text seven characters a delta) and
// tools whose `execute` really runs. The leaks are real ones
// (support/heal-cases.mjs).
//
// `@mastra/core` needs Node 22.13 or later: under Node 20 these tests are
// skipped, and say so.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/mastra';

import { routedModel, scriptedModel, sdkMajors } from '../support/agents.mjs';
import { RUNS, WWPN } from '../support/field-cases.mjs';
import { CITIES, FINAL, INVENTED, LEAKS, MISFIT, PROSE, cityPrompt, cityRouter, healScript, healTools } from '../support/heal-cases.mjs';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const skip = NODE_MAJOR < 22 ? `@mastra/core needs Node 22.13 or later; this is Node ${process.versions.node}` : false;

const mastra = skip
  ? undefined
  : { ...(await import('@mastra/core/agent')), ...(await import('@mastra/core/tools')), MockMemory: (await import('@mastra/core/memory')).MockMemory, z: (await import('zod')).z };
const majors = skip ? [{ major: '6 and 7' }] : await sdkMajors();

/** Tools (`{ name, description, properties, execute }`) as Mastra tools, every property a required string. */
const toolsOf = (tools) =>
  Object.fromEntries(
    tools.map(({ name, description, properties, execute }) => [
      name,
      mastra.createTool({
        id: name,
        description,
        inputSchema: mastra.z.object(Object.fromEntries(Object.keys(properties).map((key) => [key, mastra.z.string()]))).strict(),
        execute: (input) => execute(input),
      }),
    ]),
  );

/** An agent on `model`, guarded by `guard` when given, with `memory` when given. */
const agentOf = ({ model, guard, tools, memory }) =>
  new mastra.Agent({
    id: 'assistant',
    name: 'assistant',
    instructions: '',
    model,
    tools: toolsOf(tools),
    inputProcessors: guard ? [guard] : [],
    outputProcessors: guard ? [guard] : [],
    ...(memory ? { memory } : {}),
  });

/**
 * Runs `prompt` through `agent` in `mode` ('generate' or 'stream'): each
 * step's text, all of them as one `text`, and, streaming, the text the
 * reader got.
 */
async function ask(agent, mode, prompt, options = {}) {
  if (mode === 'generate') {
    const texts = (await agent.generate(prompt, { maxSteps: 8, ...options })).steps.map((step) => step.text);
    return { texts, text: texts.join('') };
  }
  const result = await agent.stream(prompt, { maxSteps: 8, ...options });
  let streamed = '';
  for await (const delta of result.textStream) streamed += delta;
  const texts = (await result.steps).map((step) => step.text);
  return { texts, text: texts.join(''), streamed };
}

/** The tool calls in a prompt's assistant messages, and the ids of the results in its tool messages. */
function callsIn(prompt) {
  const calls = [];
  const results = [];
  for (const message of prompt) {
    for (const part of Array.isArray(message.content) ? message.content : []) {
      if (part.type === 'tool-call') calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
      if (part.type === 'tool-result') results.push(part.toolCallId);
    }
  }
  return { calls, results };
}

const MODES = ['generate', 'stream'];

for (const sdk of majors) {
  describe(`Mastra, with an AI SDK ${sdk.major} model: a leaked call is healed into a tool call the loop executes`, { skip }, () => {
    if (skip) return;
    for (const mode of MODES) {
      for (const leak of LEAKS) {
        it(`${mode}: ${leak.format} (${leak.source})`, async () => {
          const runs = [];
          const { model, prompts } = scriptedModel(sdk, healScript(leak.leaked));
          const { texts, streamed } = await ask(agentOf({ model, guard: createGuard(), tools: healTools(runs) }), mode, 'Go.');
          // Each leaked call ran once, with its arguments.
          assert.deepEqual(runs, leak.calls);
          // The answer went on: the model was asked again, with the calls and their results.
          assert.equal(prompts.length, 2);
          const { calls, results } = callsIn(prompts[1]);
          assert.deepEqual(calls.map(({ toolName, input }) => ({ toolName, input })), leak.calls);
          for (const call of calls) assert.match(call.toolCallId, /^healed_/);
          assert.deepEqual(results, calls.map((call) => call.toolCallId));
          // No markup anywhere the user or the model looks.
          assert.deepEqual(texts, [PROSE + leak.clean, FINAL]);
          if (mode === 'stream') assert.equal(streamed, PROSE + leak.clean + FINAL);
          // The model's next prompt holds none of the leak (its opening, as JSON text writes it).
          assert.ok(!JSON.stringify(prompts[1]).includes(JSON.stringify(leak.leaked.trim().slice(0, 12)).slice(1, -1)), 'the history holds no markup');
        });
      }

      it(`${mode}: behind a processor that copies every part, each healed call still runs once, and the step ends`, async () => {
        const runs = [];
        const leak = LEAKS.find((entry) => entry.calls.length > 1);
        const { model, prompts } = scriptedModel(sdk, healScript(leak.leaked));
        // Listed before the guard, it sees the guard's queued parts first, and drops all but their fields.
        const copier = { id: 'copier', processOutputStream: ({ part }) => ({ type: part.type, runId: part.runId, from: part.from, payload: part.payload }) };
        const guard = createGuard();
        const agent = new mastra.Agent({ id: 'assistant', name: 'assistant', instructions: '', model, tools: toolsOf(healTools(runs)), inputProcessors: [guard], outputProcessors: [copier, guard] });
        const { texts } = await ask(agent, mode, 'Go.');
        assert.deepEqual(runs, leak.calls);
        assert.equal(prompts.length, 2);
        assert.deepEqual(texts, [PROSE + leak.clean, FINAL]);
      });

      it(`${mode}: with memory, the thread keeps the healed call and its result, and no markup`, async () => {
        const runs = [];
        const leak = LEAKS[0];
        const { model, prompts } = scriptedModel(sdk, [...healScript(leak.leaked), { text: 'Still sunny.' }]);
        const agent = agentOf({ model, guard: createGuard(), tools: healTools(runs), memory: new mastra.MockMemory() });
        const memory = { thread: 'thread-1', resource: 'user-1' };
        await ask(agent, mode, 'Weather?', { memory });
        await ask(agent, mode, 'And now?', { memory });
        assert.deepEqual(runs, leak.calls);
        // The next request's prompt comes from the thread's memory.
        assert.equal(prompts.length, 3);
        const { calls, results } = callsIn(prompts[2]);
        assert.deepEqual(calls.map(({ toolName, input }) => ({ toolName, input })), leak.calls);
        assert.deepEqual(results, calls.map((call) => call.toolCallId));
        assert.ok(!JSON.stringify(prompts[2]).includes(JSON.stringify(leak.leaked.trim().slice(0, 12)).slice(1, -1)), 'the thread holds no markup');
      });

      it(`${mode}: an answer that made a real call heals nothing (its leak is stripped)`, async () => {
        const runs = [];
        const { model, prompts } = scriptedModel(sdk, [{ text: PROSE + LEAKS[0].leaked, calls: [{ toolName: 'note', input: { text: 'hi' } }] }, { text: FINAL }]);
        const { texts } = await ask(agentOf({ model, guard: createGuard(), tools: healTools(runs) }), mode, 'Go.');
        assert.deepEqual(runs, [{ toolName: 'note', input: { text: 'hi' } }]);
        assert.deepEqual(texts, [PROSE, FINAL]);
        assert.deepEqual(callsIn(prompts[1]).calls.map((call) => call.toolName), ['note']);
      });
    }
  });

  describe(`Mastra, with an AI SDK ${sdk.major} model: what is not healed`, { skip }, () => {
    if (skip) return;
    for (const mode of MODES) {
      it(`${mode}: a call to a tool the step withdrew (tool choice) is stripped and never run`, async () => {
        const runs = [];
        const { model, prompts } = scriptedModel(sdk, healScript(LEAKS[0].leaked));
        const { text } = await ask(agentOf({ model, guard: createGuard(), tools: healTools(runs) }), mode, 'Go.', { toolChoice: 'none' });
        assert.deepEqual(runs, []);
        assert.equal(prompts.length, 1);
        assert.equal(text, PROSE);
      });

      it(`${mode}: a call to a tool nobody offers is never run`, async () => {
        const runs = [];
        const { model, prompts } = scriptedModel(sdk, healScript(INVENTED));
        await ask(agentOf({ model, guard: createGuard(), tools: healTools(runs) }), mode, 'Go.');
        assert.deepEqual(runs, []);
        assert.equal(prompts.length, 1);
      });

      it(`${mode}: a call to a tool nobody offers is stripped`, async () => {
        const { model } = scriptedModel(sdk, healScript(INVENTED));
        const { text } = await ask(agentOf({ model, guard: createGuard(), tools: healTools([]) }), mode, 'Go.');
        assert.equal(text, PROSE);
      });

      it(`${mode}: arguments the tool's schema refuses are stripped and never run`, async () => {
        const runs = [];
        const { model, prompts } = scriptedModel(sdk, healScript(MISFIT));
        const { text } = await ask(agentOf({ model, guard: createGuard(), tools: healTools(runs) }), mode, 'Go.');
        assert.deepEqual(runs, []);
        assert.equal(prompts.length, 1);
        assert.equal(text, PROSE);
      });

      it(`${mode}: heal: false strips the leak and runs nothing`, async () => {
        const runs = [];
        const { model, prompts } = scriptedModel(sdk, healScript(LEAKS[0].leaked));
        const { text, streamed } = await ask(agentOf({ model, guard: createGuard({ heal: false }), tools: healTools(runs) }), mode, 'Go.');
        assert.deepEqual(runs, []);
        assert.equal(prompts.length, 1);
        assert.equal(text, PROSE);
        if (mode === 'stream') assert.equal(streamed, PROSE);
      });

      it(`${mode}: strip: false changes no text and heals nothing`, async () => {
        const runs = [];
        const leaked = PROSE + LEAKS[0].leaked;
        const { model, prompts } = scriptedModel(sdk, healScript(LEAKS[0].leaked));
        const { texts, streamed } = await ask(agentOf({ model, guard: createGuard({ strip: false }), tools: healTools(runs) }), mode, 'Go.');
        assert.deepEqual(runs, []);
        assert.equal(prompts.length, 1);
        assert.deepEqual(texts, [leaked]);
        if (mode === 'stream') assert.equal(streamed, leaked);
      });

      it(`${mode}: strip: false still finds`, async () => {
        const leaked = PROSE + LEAKS[0].leaked;
        // Beside its leak, the model looks up a device it never listed.
        const { model } = scriptedModel(sdk, [{ text: leaked, calls: [{ toolName: 'port_for_device', input: { wwpn: WWPN } }] }, { text: FINAL }]);
        const guard = createGuard({ argumentsFrom: RUNS.triage.argumentsFrom, strip: false });
        const { texts } = await ask(agentOf({ model, guard, tools: RUNS.triage.tools() }), mode, 'Go.');
        assert.deepEqual(texts, [leaked, FINAL]);
        assert.deepEqual(guard.findings.map((finding) => finding.kind), ['unsupported-argument']);
      });
    }
  });

  describe(`Mastra, with an AI SDK ${sdk.major} model: findings are judged on the call as healed`, { skip }, () => {
    if (skip) return;
    // The model leaks a lookup of a device it never listed: the healed call's
    // argument was produced by nothing, which argumentsFrom forbids.
    const LOOKUP = `<tool_call>\n{"name": "port_for_device", "arguments": {"wwpn": "${WWPN}"}}\n</tool_call>`;
    for (const mode of MODES) {
      it(`${mode}: a healed call whose argument nothing produced is unsupported-argument`, async () => {
        const found = [];
        const guard = createGuard({ argumentsFrom: RUNS.triage.argumentsFrom, onFinding: (finding, run) => found.push({ finding, run }) });
        const { model, prompts } = scriptedModel(sdk, [{ text: LOOKUP }, { text: 'It is not logged in.' }]);
        await ask(agentOf({ model, guard, tools: RUNS.triage.tools() }), mode, 'Which port?');
        const [healed] = callsIn(prompts[1]).calls;
        assert.equal(healed.toolName, 'port_for_device');
        assert.deepEqual(
          found.map(({ finding, run }) => ({ kind: finding.kind, subjects: finding.subjects.map((s) => s.id), predicate: finding.predicate, toolCallId: run.toolCallId })),
          [{ kind: 'unsupported-argument', subjects: ['port_for_device'], predicate: 'wwpn', toolCallId: healed.toolCallId }],
        );
      });

      it(`${mode}: with heal off the call never happened, and nothing is found`, async () => {
        const guard = createGuard({ argumentsFrom: RUNS.triage.argumentsFrom, heal: false });
        const { model } = scriptedModel(sdk, [{ text: LOOKUP }]);
        await ask(agentOf({ model, guard, tools: RUNS.triage.tools() }), mode, 'Which port?');
        assert.deepEqual(guard.findings, []);
      });
    }
  });

  describe(`Mastra, with an AI SDK ${sdk.major} model: one guard heals each of many conversations at once`, { skip }, () => {
    if (skip) return;
    it('six conversations on one agent, half streaming: each runs its own call once and gets its own answer', async () => {
      const runs = [];
      const guard = createGuard();
      // Built once, as an agent registered with new Mastra(...) is.
      const agent = agentOf({ model: routedModel(sdk, cityRouter()), guard, tools: healTools(runs) });
      const answers = await Promise.all(
        CITIES.map(async (city, n) => {
          const { text, streamed } = await ask(agent, n % 2 === 0 ? 'generate' : 'stream', cityPrompt(city));
          if (streamed !== undefined) assert.equal(streamed, text);
          return text;
        }),
      );
      assert.deepEqual(answers, CITIES.map((city) => `Checking ${city}.\nSunny in ${city}.`));
      assert.deepEqual(runs.map((run) => run.input.city).sort(), [...CITIES].sort());
    });
  });
}
