// Heal in the OpenAI Agents SDK (`@openai/agents`): a model that writes its
// tool call as text, in the markup of one family or another, gets it made
// real by `guard.model(...)`: a `function_call` item the runner executes,
// through `run` and `run(..., { stream: true })`, with function tools whose
// `execute` really runs and a fake `Model` that streams its text in small
// deltas. The leaks are real ones (support/heal-cases.mjs).
//
// `@openai/agents` needs `openai` 7, which needs Node 22 or later: under
// Node 20 these tests are skipped, and say so.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/openai-agents';

import { RUNS, WWPN } from '../support/field-cases.mjs';
import { CITIES, FINAL, INVENTED, LEAKS, MISFIT, PROSE, cityPrompt, cityRouter, healScript, healTools } from '../support/heal-cases.mjs';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const skip = NODE_MAJOR < 22 ? `@openai/agents needs Node 22 or later (its openai 7 does); this is Node ${process.versions.node}` : false;

const sdk = skip ? undefined : await import('@openai/agents');
sdk?.setTracingDisabled(true);

/** Tools (`{ name, description, properties, execute }`) as function tools, every property required. */
const toolsOf = (tools) =>
  tools.map(({ name, description, properties, execute }) =>
    sdk.tool({
      name,
      description,
      parameters: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false },
      strict: false,
      execute: (input) => execute(input),
    }),
  );

const USAGE = { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/**
 * A fake Agents SDK `Model`: its n-th request is answered with
 * `respond(request, n)` (`{ text?, calls? }`), whole, or streamed with the
 * text in five-character deltas. `requests` records every request.
 */
class FakeModel {
  constructor(respond) {
    this.respond = respond;
    this.requests = [];
  }

  outputOf(request) {
    const n = this.requests.push(request) - 1;
    const step = this.respond(request, n);
    const output = [];
    if (step.text !== undefined) {
      output.push({ type: 'message', role: 'assistant', status: 'completed', id: `msg_${n}`, content: [{ type: 'output_text', text: step.text }] });
    }
    for (const [i, call] of (step.calls ?? []).entries()) {
      output.push({ type: 'function_call', callId: `call-${n}-${i}`, name: call.toolName, arguments: JSON.stringify(call.input), status: 'completed' });
    }
    return { output, responseId: `resp_${n}` };
  }

  async getResponse(request) {
    const { output, responseId } = this.outputOf(request);
    return { usage: new sdk.Usage(USAGE), output, responseId };
  }

  async *getStreamedResponse(request) {
    const { output, responseId } = this.outputOf(request);
    yield { type: 'response_started' };
    for (const item of output) {
      if (item.type !== 'message') continue;
      const { text } = item.content[0];
      for (let i = 0; i < text.length; i += 5) yield { type: 'output_text_delta', itemId: item.id, delta: text.slice(i, i + 5) };
    }
    yield { type: 'response_done', response: { id: responseId, usage: USAGE, output } };
  }
}

/** A fake model that plays `script`, step by step. */
const scripted = (script) => new FakeModel((request, n) => script[n] ?? { text: '(the script has ended)' });

/**
 * Runs `prompt` through an agent on `model` (wrapped by `guard` when given)
 * in `mode` ('run' or 'stream'): the final output, the assistant's texts in
 * the history, and the text the reader was streamed.
 */
async function play(mode, { model, guard, tools, prompt = 'Go.', modelSettings }) {
  const agent = new sdk.Agent({ name: 'assistant', model: guard ? guard.model(model) : model, tools: toolsOf(tools), ...(modelSettings ? { modelSettings } : {}) });
  let result;
  let streamed;
  if (mode === 'run') {
    result = await sdk.run(agent, prompt);
  } else {
    result = await sdk.run(agent, prompt, { stream: true });
    streamed = '';
    for await (const delta of result.toTextStream()) streamed += delta;
    await result.completed;
  }
  const texts = result.history.filter((item) => item.type === 'message' && item.role === 'assistant').map((item) => item.content.map((part) => part.text).join(''));
  return { result, finalOutput: result.finalOutput, texts, streamed, history: result.history };
}

/** The function calls in a history (or a model input). */
const callsIn = (items) => items.filter((item) => item.type === 'function_call').map((item) => ({ callId: item.callId, name: item.name, input: JSON.parse(item.arguments) }));

const MODES = ['run', 'stream'];

describe('OpenAI Agents SDK: a leaked call is healed into a function call the runner executes', { skip }, () => {
  for (const mode of MODES) {
    for (const leak of LEAKS) {
      it(`${mode}: ${leak.format} (${leak.source})`, async () => {
        const runs = [];
        const model = scripted(healScript(leak.leaked));
        const guard = createGuard();
        const { finalOutput, texts, streamed, history } = await play(mode, { model, guard, tools: healTools(runs) });
        // Each leaked call ran once, with its arguments.
        assert.deepEqual(runs, leak.calls);
        // The answer went on: the model was asked again, with the calls and their results.
        assert.equal(model.requests.length, 2);
        const second = model.requests[1].input;
        const healed = callsIn(second);
        assert.deepEqual(healed.map(({ name, input }) => ({ toolName: name, input })), leak.calls);
        for (const call of healed) {
          assert.match(call.callId, /^healed_/);
          assert.ok(second.some((item) => item.type === 'function_call_result' && item.callId === call.callId), 'the result went back to the model');
        }
        // No markup anywhere the user or the model looks.
        assert.equal(finalOutput, FINAL);
        assert.deepEqual(texts, [PROSE + leak.clean, FINAL]);
        if (mode === 'stream') assert.equal(streamed, PROSE + leak.clean + FINAL);
        assert.deepEqual(callsIn(history), healed);
        // The model's next input holds none of the leak (its opening, as JSON text writes it).
        assert.ok(!JSON.stringify(second).includes(JSON.stringify(leak.leaked.trim().slice(0, 12)).slice(1, -1)), 'the history holds no markup');
      });
    }

    it(`${mode}: a leak that is all the message leaves no empty message behind`, async () => {
      const runs = [];
      const model = scripted([{ text: LEAKS[0].leaked }, { text: FINAL }]);
      const { texts, history } = await play(mode, { model, guard: createGuard(), tools: healTools(runs) });
      assert.equal(runs.length, 1);
      assert.deepEqual(texts, [FINAL]);
      assert.equal(callsIn(history).length, 1);
    });

    it(`${mode}: a leaked handoff is healed too: the runner hands off`, async () => {
      // A handoff is a tool the model is offered (`transfer_to_<agent>`).
      const billing = new sdk.Agent({ name: 'billing', handoffDescription: 'Billing questions', model: scripted([{ text: 'Your invoice is paid.' }]) });
      const leaked = '<tool_call>\n{"name": "transfer_to_billing", "arguments": {}}\n</tool_call>';
      const triage = new sdk.Agent({ name: 'triage', model: createGuard().model(scripted([{ text: PROSE + leaked }])), handoffs: [billing] });
      const result = mode === 'run' ? await sdk.run(triage, 'Is my invoice paid?') : await sdk.run(triage, 'Is my invoice paid?', { stream: true });
      if (mode === 'stream') {
        for await (const delta of result.toTextStream()) void delta;
        await result.completed;
      }
      assert.equal(result.lastAgent.name, 'billing');
      assert.equal(result.finalOutput, 'Your invoice is paid.');
      assert.deepEqual(callsIn(result.history).map((call) => call.name), ['transfer_to_billing']);
    });

    it(`${mode}: an answer that made a real call heals nothing (its leak is stripped)`, async () => {
      const runs = [];
      const model = scripted([{ text: PROSE + LEAKS[0].leaked, calls: [{ toolName: 'note', input: { text: 'hi' } }] }, { text: FINAL }]);
      const { texts, history } = await play(mode, { model, guard: createGuard(), tools: healTools(runs) });
      assert.deepEqual(runs, [{ toolName: 'note', input: { text: 'hi' } }]);
      assert.deepEqual(texts, [PROSE, FINAL]);
      assert.deepEqual(callsIn(history).map((call) => call.name), ['note']);
    });
  }
});

describe('OpenAI Agents SDK: what is not healed', { skip }, () => {
  for (const mode of MODES) {
    it(`${mode}: a call to a tool the turn withdrew (tool choice) is stripped and never run`, async () => {
      const runs = [];
      const model = scripted(healScript(LEAKS[0].leaked));
      // The model may call only `note` now: get_weather is told of, not offered.
      const { finalOutput } = await play(mode, { model, guard: createGuard(), tools: healTools(runs), modelSettings: { toolChoice: 'note' } });
      assert.deepEqual(runs, []);
      assert.equal(model.requests.length, 1);
      assert.equal(finalOutput, PROSE);
    });

    it(`${mode}: where the provider keeps the conversation (previousResponseId), nothing heals: the leak is stripped`, async () => {
      const runs = [];
      const model = scripted(healScript(LEAKS[0].leaked));
      const agent = new sdk.Agent({ name: 'assistant', model: createGuard().model(model), tools: toolsOf(healTools(runs)) });
      const options = { previousResponseId: 'resp_earlier' };
      const result = mode === 'run' ? await sdk.run(agent, 'Go.', options) : await sdk.run(agent, 'Go.', { ...options, stream: true });
      if (mode === 'stream') {
        for await (const delta of result.toTextStream()) void delta;
        await result.completed;
      }
      assert.equal(model.requests[0].previousResponseId, 'resp_earlier');
      assert.deepEqual(runs, []);
      assert.equal(model.requests.length, 1);
      assert.equal(result.finalOutput, PROSE);
    });

    it(`${mode}: a call to a tool nobody offers is never run`, async () => {
      const runs = [];
      const model = scripted(healScript(INVENTED));
      await play(mode, { model, guard: createGuard(), tools: healTools(runs) });
      assert.deepEqual(runs, []);
      assert.equal(model.requests.length, 1);
    });

    it(`${mode}: a call to a tool nobody offers is stripped`, async () => {
      const { finalOutput } = await play(mode, { model: scripted(healScript(INVENTED)), guard: createGuard(), tools: healTools([]) });
      assert.equal(finalOutput, PROSE);
    });

    it(`${mode}: arguments the tool's schema refuses are stripped and never run`, async () => {
      const runs = [];
      const model = scripted(healScript(MISFIT));
      const { finalOutput } = await play(mode, { model, guard: createGuard(), tools: healTools(runs) });
      assert.deepEqual(runs, []);
      assert.equal(model.requests.length, 1);
      assert.equal(finalOutput, PROSE);
    });

    it(`${mode}: heal: false strips the leak and runs nothing`, async () => {
      const runs = [];
      const model = scripted(healScript(LEAKS[0].leaked));
      const { finalOutput, streamed } = await play(mode, { model, guard: createGuard({ heal: false }), tools: healTools(runs) });
      assert.deepEqual(runs, []);
      assert.equal(model.requests.length, 1);
      assert.equal(finalOutput, PROSE);
      if (mode === 'stream') assert.equal(streamed, PROSE);
    });

    it(`${mode}: strip: false changes no text and heals nothing`, async () => {
      const runs = [];
      const leaked = PROSE + LEAKS[0].leaked;
      const model = scripted(healScript(LEAKS[0].leaked));
      const { finalOutput, streamed } = await play(mode, { model, guard: createGuard({ strip: false }), tools: healTools(runs) });
      assert.deepEqual(runs, []);
      assert.equal(model.requests.length, 1);
      assert.equal(finalOutput, leaked);
      if (mode === 'stream') assert.equal(streamed, leaked);
    });

    it(`${mode}: strip: false still finds`, async () => {
      const leaked = PROSE + LEAKS[0].leaked;
      // Beside its leak, the model looks up a device it never listed.
      const model = scripted([{ text: leaked, calls: [{ toolName: 'port_for_device', input: { wwpn: WWPN } }] }, { text: FINAL }]);
      const guard = createGuard({ argumentsFrom: RUNS.triage.argumentsFrom, strip: false });
      const { texts } = await play(mode, { model, guard, tools: RUNS.triage.tools() });
      assert.deepEqual(texts, [leaked, FINAL]);
      assert.deepEqual(guard.findings.map((finding) => finding.kind), ['unsupported-argument']);
    });
  }
});

describe('OpenAI Agents SDK: findings are judged on the call as healed', { skip }, () => {
  // The model leaks a lookup of a device it never listed: the healed call's
  // argument was produced by nothing, which argumentsFrom forbids.
  const LOOKUP = `<tool_call>\n{"name": "port_for_device", "arguments": {"wwpn": "${WWPN}"}}\n</tool_call>`;
  for (const mode of MODES) {
    it(`${mode}: a healed call whose argument nothing produced is unsupported-argument`, async () => {
      const found = [];
      const guard = createGuard({ argumentsFrom: RUNS.triage.argumentsFrom, onFinding: (finding, run) => found.push({ finding, run }) });
      const model = scripted([{ text: LOOKUP }, { text: 'It is not logged in.' }]);
      const { history } = await play(mode, { model, guard, tools: RUNS.triage.tools() });
      const [healed] = callsIn(history);
      assert.equal(healed.name, 'port_for_device');
      assert.deepEqual(
        found.map(({ finding, run }) => ({ kind: finding.kind, subjects: finding.subjects.map((s) => s.id), predicate: finding.predicate, toolCallId: run.toolCallId })),
        [{ kind: 'unsupported-argument', subjects: ['port_for_device'], predicate: 'wwpn', toolCallId: healed.callId }],
      );
    });

    it(`${mode}: with heal off the call never happened, and nothing is found`, async () => {
      const guard = createGuard({ argumentsFrom: RUNS.triage.argumentsFrom, heal: false });
      await play(mode, { model: scripted([{ text: LOOKUP }]), guard, tools: RUNS.triage.tools() });
      assert.deepEqual(guard.findings, []);
    });
  }
});

describe('OpenAI Agents SDK: one guard heals each of many conversations at once', { skip }, () => {
  it('six conversations on one agent, half streaming: each runs its own call once and gets its own answer', async () => {
    const runs = [];
    const router = cityRouter();
    const model = new FakeModel((request) => router.answer(JSON.stringify(request.input)));
    const guard = createGuard();
    // Built once, at startup, and serving every conversation.
    const agent = new sdk.Agent({ name: 'weather', model: guard.model(model), tools: toolsOf(healTools(runs)) });
    const outputs = await Promise.all(
      CITIES.map(async (city, n) => {
        if (n % 2 === 0) return (await sdk.run(agent, cityPrompt(city))).finalOutput;
        const result = await sdk.run(agent, cityPrompt(city), { stream: true });
        let streamed = '';
        for await (const delta of result.toTextStream()) streamed += delta;
        await result.completed;
        assert.equal(streamed, `Checking ${city}.\nSunny in ${city}.`);
        return result.finalOutput;
      }),
    );
    assert.deepEqual(outputs, CITIES.map((city) => `Sunny in ${city}.`));
    assert.deepEqual(runs.map((run) => run.input.city).sort(), [...CITIES].sort());
    assert.equal(model.requests.length, 2 * CITIES.length);
  });
});
