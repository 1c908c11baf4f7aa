// Telemetry in the OpenAI Agents SDK (`@openai/agents`): each finding,
// strip and heal of `guard.model(...)` is a custom span in the run's own
// trace, under the span the model call ran in, with the attributes as its
// data. What sees them is a real TracingProcessor, registered with
// `setTraceProcessors` as the SDK's tracing docs say; the runner is the
// SDK's, the model a fake that plays a script, the tools really run.
//
// `@openai/agents` needs `openai` 7, which needs Node 22 or later: under
// Node 20 these tests are skipped, and say so.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/openai-agents';

import { RUNS, WWPN } from '../support/field-cases.mjs';
import { CITIES, INVENTED, LEAKS, MISFIT, cityPrompt, cityRouter, healScript, healTools } from '../support/heal-cases.mjs';
import { tracedAgentsSdk } from '../support/openai-agents.mjs';

const { skip, sdk, kept } = await tracedAgentsSdk();

const USAGE = { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 };

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

/** A fake `Model` whose n-th request is answered with `respond(request, n)`, whole or streamed in five-character deltas. */
class FakeModel {
  constructor(respond) {
    this.respond = respond;
    this.n = 0;
  }

  outputOf(request) {
    const n = this.n++;
    const step = this.respond(request, n);
    const output = [];
    if (step.text !== undefined) output.push({ type: 'message', role: 'assistant', status: 'completed', id: `msg_${n}`, content: [{ type: 'output_text', text: step.text }] });
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

const scripted = (script) => new FakeModel((_request, n) => script[n] ?? { text: '(the script has ended)' });

/** Runs `prompt` through an agent on `model` wrapped by `guard`, in `mode` ('run' or 'stream'); resolves to the result. */
async function play(mode, { model, guard, tools, prompt = 'Go.' }) {
  const agent = new sdk.Agent({ name: 'assistant', model: guard.model(model), tools: toolsOf(tools) });
  if (mode === 'run') return sdk.run(agent, prompt);
  const result = await sdk.run(agent, prompt, { stream: true });
  for await (const delta of result.toTextStream()) void delta;
  await result.completed;
  return result;
}

/** What a finding's span data must say, read from the finding the guard kept. */
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
const healCalls = (history) => history.filter((item) => item.type === 'function_call').map((item) => ({ id: item.callId, name: item.name, input: JSON.parse(item.arguments) }));

describe('OpenAI Agents SDK: findings, strips and heals are custom spans in the run\'s trace', { skip }, () => {
  for (const mode of ['run', 'stream']) {
    it(`${mode}: each finding once, under the turn's span, with kind, seam, tools, path, value, call id, run and model call`, async () => {
      kept.spans.length = 0;
      const guard = createGuard({ argumentsFrom: RUNS.recall.argumentsFrom });
      await play(mode, { model: scripted(RUNS.recall.script), guard, tools: RUNS.recall.tools(), prompt: RUNS.recall.prompt });
      const signals = kept.signals();
      const [runId] = guard.runIds();
      assert.equal(guard.findings.length, 2);
      assert.deepEqual(
        signals.map((signal) => [signal.name, signal.parent, pick(signal.data, Object.keys(expectedOf(guard.findings[0], runId)))]),
        guard.findings.map((finding) => ['seamguard.finding', 'turn', expectedOf(finding, runId)]),
      );
      assert.deepEqual(
        signals.map((signal) => [signal.data['seamguard.value'], signal.data['seamguard.tools']]),
        [
          ['20:00:00:25:b5:ff:00:99', ['port_for_device']],
          [WWPN, ['port_for_device', 'fabric_inventory']],
        ],
      );
      assert.equal(new Set(signals.map((signal) => signal.traceId)).size, 1);
    });

    for (const leak of LEAKS) {
      it(`${mode}, ${leak.format}: each strip once, naming the tools, and a heal per call with the id the runner ran it under`, async () => {
        kept.spans.length = 0;
        const runs = [];
        const result = await play(mode, { model: scripted(healScript(leak.leaked)), guard: createGuard(), tools: healTools(runs) });
        assert.deepEqual(runs, leak.calls);
        const signals = kept.signals();
        const strips = signals.filter((signal) => signal.name === 'seamguard.strip');
        const heals = signals.filter((signal) => signal.name === 'seamguard.heal');
        assert.deepEqual([...new Set(strips.flatMap((signal) => signal.data['seamguard.tools']))], [...new Set(leak.calls.map((call) => call.toolName))]);
        // Streaming, the text is read by the stream's filters and read again for the runner: recorded once.
        assert.equal(strips.length, new Set(strips.map((signal) => signal.data['seamguard.span'])).size, 'each strip once');
        assert.deepEqual(
          heals.map((signal) => ({ id: signal.data['gen_ai.tool.call.id'], name: signal.data['gen_ai.tool.name'], input: JSON.parse(signal.data['seamguard.value']) })),
          healCalls(result.history),
        );
        assert.ok(signals.every((signal) => signal.parent === 'turn'));
      });
    }

    for (const [what, text, toolName] of [
      ['a call to a tool nobody offers', INVENTED, 'delete_records'],
      ['a call whose arguments the schema refuses', MISFIT, 'get_weather'],
    ]) {
      it(`${mode}, ${what}: stripped and refused, with the reason`, async () => {
        kept.spans.length = 0;
        const runs = [];
        await play(mode, { model: scripted(healScript(text)), guard: createGuard(), tools: healTools(runs) });
        assert.deepEqual(runs, []);
        const signals = kept.signals();
        assert.deepEqual(
          signals.map((signal) => [signal.name, signal.data['seamguard.tools']]),
          [
            ['seamguard.strip', [toolName]],
            ['seamguard.heal_refused', [toolName]],
          ],
        );
        assert.equal(typeof signals[1].data['seamguard.reason'], 'string');
      });
    }
  }

  it('several conversations at once on one guard, run and streamed: each heal lands in its own conversation\'s trace', async () => {
    kept.spans.length = 0;
    const runs = [];
    const router = cityRouter();
    const guard = createGuard({ argumentsFrom: { get_weather: ['note'] } });
    const model = new FakeModel((request) => router.answer(JSON.stringify(request.input)));
    const cities = CITIES.slice(0, 6);
    await Promise.all(cities.map((city, n) => play(n % 2 === 0 ? 'run' : 'stream', { model, guard, tools: healTools(runs), prompt: cityPrompt(city) })));
    assert.equal(runs.length, cities.length);
    const traces = new Map();
    for (const signal of kept.signals()) traces.set(signal.traceId, [...(traces.get(signal.traceId) ?? []), signal]);
    assert.equal(traces.size, cities.length);
    const healed = [];
    for (const signals of traces.values()) {
      const heals = signals.filter((signal) => signal.name === 'seamguard.heal');
      assert.equal(heals.length, 1);
      const { city } = JSON.parse(heals[0].data['seamguard.value']);
      assert.ok(signals.filter((signal) => signal.name === 'seamguard.strip').every((signal) => signal.data['seamguard.span'].includes(city)));
      assert.equal(new Set(signals.map((signal) => signal.data['seamguard.run_id'])).size, 1, 'one run per trace');
      healed.push(city);
    }
    assert.deepEqual(healed.sort(), [...cities].sort());
  });

  it('a processor that throws never reaches the run, and the findings are filed', async () => {
    const down = () => {
      throw new Error('the trace store is down');
    };
    const throwing = { onTraceStart: async () => {}, onTraceEnd: async () => {}, onSpanStart: down, onSpanEnd: down, shutdown: async () => {}, forceFlush: async () => {} };
    sdk.setTraceProcessors([throwing]);
    try {
      const guard = createGuard({ argumentsFrom: RUNS.recall.argumentsFrom, onError: () => {} });
      const result = await play('run', { model: scripted(RUNS.recall.script), guard, tools: RUNS.recall.tools(), prompt: RUNS.recall.prompt });
      assert.equal(result.finalOutput, 'Done.');
      assert.equal(guard.findings.length, 2);
    } finally {
      sdk.setTraceProcessors([kept]);
    }
  });

  it('with tracing disabled, no span is made and the findings are the same', async () => {
    kept.spans.length = 0;
    sdk.setTracingDisabled(true);
    try {
      const guard = createGuard({ argumentsFrom: RUNS.recall.argumentsFrom });
      await play('run', { model: scripted(RUNS.recall.script), guard, tools: RUNS.recall.tools(), prompt: RUNS.recall.prompt });
      assert.deepEqual(kept.signals(), []);
      assert.deepEqual(
        guard.findings.map((finding) => [finding.kind, finding.toolCallId]),
        [
          ['unsupported-argument', 'call-1-0'],
          ['empty-lookup', 'call-1-1'],
        ],
      );
    } finally {
      sdk.setTracingDisabled(false);
    }
  });
});
