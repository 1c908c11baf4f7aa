// Telemetry in Mastra (`@mastra/core`): with Mastra's observability set up
// as its docs say (`new Mastra({ observability: new Observability(...) })`,
// here with `@mastra/observability`'s TestExporter, an exporter that keeps
// what it is handed), each finding, strip and heal of the guard's
// processor is an event span (type 'generic') under the span Mastra opened
// for the processor hook that saw it, the attributes as its metadata.
// Mastra's own exporters, its OpenTelemetry export among them, carry these
// spans like any other. The model is the AI SDK's mock (ai 6, and ai 7 on
// Node 22 and later); the tools really run.
//
// `@mastra/core` needs Node 22.13 or later: under Node 20 these tests are
// skipped, and say so.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/mastra';

import { routedModel, scriptedModel, sdkMajors } from '../support/agents.mjs';
import { RUNS, WWPN } from '../support/field-cases.mjs';
import { CITIES, INVENTED, LEAKS, MISFIT, cityPrompt, cityRouter, healScript, healTools } from '../support/heal-cases.mjs';
import { mastraModules, observe, signalsOf } from '../support/mastra.mjs';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const skip = NODE_MAJOR < 22 ? `@mastra/core needs Node 22.13 or later; this is Node ${process.versions.node}` : false;

const mastra = skip ? undefined : await mastraModules();
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

/**
 * An agent on `model` guarded by `guard`, registered with a Mastra whose
 * observability exports to a TestExporter (support/mastra.mjs `observe`),
 * or, when `observed` is false, with a Mastra without observability and an
 * exporter nothing reaches: `{ agent, exporter }`.
 */
function observedAgent({ model, guard, tools, observed = true }) {
  const agent = new mastra.Agent({ id: 'assistant', name: 'assistant', instructions: '', model, tools: toolsOf(tools), inputProcessors: [guard], outputProcessors: [guard] });
  if (observed) return observe(mastra, agent);
  return { agent: new mastra.Mastra({ agents: { assistant: agent }, logger: false }).getAgent('assistant'), exporter: new mastra.TestExporter() };
}

/** Runs `prompt` through `agent` in `mode` ('generate' or 'stream'); resolves to the steps. */
async function ask(agent, mode, prompt) {
  if (mode === 'generate') return (await agent.generate(prompt, { maxSteps: 8 })).steps;
  const result = await agent.stream(prompt, { maxSteps: 8 });
  for await (const delta of result.textStream) void delta;
  return result.steps;
}

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

for (const sdk of majors) {
  describe(`Mastra, with an AI SDK ${sdk.major} model: findings, strips and heals are event spans in Mastra's trace`, { skip }, () => {
    if (skip) return;
    for (const mode of ['generate', 'stream']) {
      it(`${mode}: each finding once, under the hook that judged it, with kind, seam, tools, path, value, call id, run and model call`, async () => {
        const guard = createGuard({ argumentsFrom: RUNS.recall.argumentsFrom });
        const { model } = scriptedModel(sdk, RUNS.recall.script);
        const { agent, exporter } = observedAgent({ model, guard, tools: RUNS.recall.tools() });
        await ask(agent, mode, RUNS.recall.prompt);
        const signals = signalsOf(exporter);
        const [runId] = guard.runIds();
        assert.equal(guard.findings.length, 2);
        assert.deepEqual(
          signals.map((signal) => [signal.name, signal.type, pick(signal.data, Object.keys(expectedOf(guard.findings[0], runId)))]),
          guard.findings.map((finding) => ['seamguard.finding', 'generic', expectedOf(finding, runId)]),
        );
        // The choice is judged when the step's answer is in; the written result when the next prompt holds it.
        assert.deepEqual(
          signals.map((signal) => [signal.hook, signal.data['seamguard.value'], signal.data['seamguard.tools']]),
          [
            ['output step processor: seamguard', '20:00:00:25:b5:ff:00:99', ['port_for_device']],
            ['llm request processor: seamguard', WWPN, ['port_for_device', 'fabric_inventory']],
          ],
        );
        assert.equal(new Set(signals.map((signal) => signal.traceId)).size, 1);
      });

      for (const leak of LEAKS) {
        it(`${mode}, ${leak.format}: a strip naming the tools, and a heal per call with the id the loop ran it under`, async () => {
          const runs = [];
          const { model, prompts } = scriptedModel(sdk, healScript(leak.leaked));
          const { agent, exporter } = observedAgent({ model, guard: createGuard(), tools: healTools(runs) });
          await ask(agent, mode, 'Go.');
          assert.deepEqual(runs, leak.calls);
          const signals = signalsOf(exporter);
          const strips = signals.filter((signal) => signal.name === 'seamguard.strip');
          const heals = signals.filter((signal) => signal.name === 'seamguard.heal');
          assert.deepEqual([...new Set(strips.flatMap((signal) => signal.data['seamguard.tools']))], [...new Set(leak.calls.map((call) => call.toolName))]);
          // The calls the model's next prompt holds are the healed ones, with the ids the events name.
          const called = prompts[1].flatMap((message) => (Array.isArray(message.content) ? message.content : [])).filter((part) => part.type === 'tool-call');
          assert.deepEqual(
            heals.map((signal) => ({ id: signal.data['gen_ai.tool.call.id'], name: signal.data['gen_ai.tool.name'], input: JSON.parse(signal.data['seamguard.value']) })),
            called.map((part) => ({ id: part.toolCallId, name: part.toolName, input: part.input })),
          );
          assert.ok(signals.every((signal) => signal.hook === 'output stream processor: seamguard'));
        });
      }

      for (const [what, text, toolName] of [
        ['a call to a tool nobody offers', INVENTED, 'delete_records'],
        ['a call whose arguments the schema refuses', MISFIT, 'get_weather'],
      ]) {
        it(`${mode}, ${what}: stripped and refused, with the reason`, async () => {
          const runs = [];
          const { model } = scriptedModel(sdk, healScript(text));
          const { agent, exporter } = observedAgent({ model, guard: createGuard(), tools: healTools(runs) });
          await ask(agent, mode, 'Go.');
          assert.deepEqual(runs, []);
          const signals = signalsOf(exporter);
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

    it('without observability, no span is made and the findings are the same', async () => {
      const guard = createGuard({ argumentsFrom: RUNS.recall.argumentsFrom });
      const { model } = scriptedModel(sdk, RUNS.recall.script);
      const { agent, exporter } = observedAgent({ model, guard, tools: RUNS.recall.tools(), observed: false });
      await ask(agent, 'generate', RUNS.recall.prompt);
      assert.deepEqual(exporter.getAllSpans(), []);
      assert.deepEqual(
        guard.findings.map((finding) => [finding.kind, finding.toolCallId]),
        [
          ['unsupported-argument', 'call-1-0'],
          ['empty-lookup', 'call-1-1'],
        ],
      );
    });

    it('several conversations at once on one guard, generated and streamed: each heal lands in its own conversation\'s trace', async () => {
      const runs = [];
      const guard = createGuard({ argumentsFrom: { get_weather: ['note'] } });
      const { agent, exporter } = observedAgent({ model: routedModel(sdk, cityRouter()), guard, tools: healTools(runs) });
      const cities = CITIES.slice(0, 6);
      await Promise.all(cities.map((city, n) => ask(agent, n % 2 === 0 ? 'generate' : 'stream', cityPrompt(city))));
      assert.equal(runs.length, cities.length);
      const traces = new Map();
      for (const signal of signalsOf(exporter)) traces.set(signal.traceId, [...(traces.get(signal.traceId) ?? []), signal]);
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
  });
}
