// Telemetry in the AI SDK: with OpenTelemetry set up as the AI SDK's docs
// say (a global tracer provider, here with the SDK's in-memory exporter,
// and the async-hooks context manager; `experimental_telemetry` on ai 6,
// the `@ai-sdk/otel` integration on ai 7), each finding of the guard and
// each strip, heal and refused heal of `scaffoldingMiddleware` is an event
// on the span of the model call it came from, with structured attributes.
// ai 7 runs on Node 22 and later only (support/agents.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard, scaffoldingMiddleware } from 'seamguard/ai-sdk';

import { routedModel, scriptedModel, sdkMajors, toolsByName } from '../support/agents.mjs';
import { RUNS, WWPN } from '../support/field-cases.mjs';
import { CITIES, INVENTED, LEAKS, MISFIT, cityPrompt, cityRouter, healScript, healTools } from '../support/heal-cases.mjs';
import { byTrace, registerOtel, seamguardEvents } from '../support/otel.mjs';

const otel = registerOtel();
const majors = await sdkMajors();

/** The telemetry setting that turns the AI SDK's spans on, per major. */
async function telemetryOf(sdk) {
  if (sdk.major === 6) return { isEnabled: true };
  const { OpenTelemetry } = await import('@ai-sdk/otel');
  return { isEnabled: true, integrations: new OpenTelemetry() };
}

/** The span a model call runs in: ai 6's doGenerate/doStream span, ai 7's GenAI `chat <model>` span. */
const MODEL_CALL_SPAN = { 6: { generate: 'ai.generateText.doGenerate', stream: 'ai.streamText.doStream' }, 7: { generate: 'chat mock-model-id', stream: 'chat mock-model-id' } };

/** Plays a prompt through generateText or streamText; resolves to the result's steps. */
async function play(sdk, mode, { model, middleware, tools, prompt, telemetry }) {
  const settings = {
    model: sdk.ai.wrapLanguageModel({ model, middleware }),
    tools,
    stopWhen: sdk.ai.stepCountIs(8),
    prompt,
    ...(telemetry === undefined ? {} : { experimental_telemetry: telemetry }),
  };
  if (mode === 'generate') return (await sdk.ai.generateText(settings)).steps;
  const result = sdk.ai.streamText(settings);
  for await (const delta of result.textStream) void delta;
  return result.steps;
}

/** A field case's run on one guard: `{ guard, steps }`. */
async function playRun(sdk, mode, name, { guard, telemetry } = {}) {
  const run = RUNS[name];
  guard ??= createGuard({ argumentsFrom: run.argumentsFrom });
  const { model } = scriptedModel(sdk, run.script);
  const steps = await play(sdk, mode, { model, middleware: guard.middleware, tools: toolsByName(sdk.ai, run.tools()), prompt: run.prompt, telemetry });
  return { guard, steps };
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
const pick = (attributes, keys) => Object.fromEntries(keys.map((key) => [key, attributes[key]]));

for (const sdk of majors) {
  describe(`ai ${sdk.major}: the guard's findings are events on the model call's span`, () => {
    for (const mode of ['generate', 'stream']) {
      it(`${mode}: each finding once, on its model call's span, with kind, seam, tool, path, value, call id, run and model call`, async () => {
        otel.exporter.reset();
        const { guard } = await playRun(sdk, mode, 'recall', { telemetry: await telemetryOf(sdk) });
        const events = await seamguardEvents(otel);
        const [runId] = guard.runIds();
        assert.equal(guard.findings.length, 2);
        assert.deepEqual(
          events.map((event) => [event.name, event.span]),
          guard.findings.map(() => ['seamguard.finding', MODEL_CALL_SPAN[sdk.major][mode]]),
        );
        for (const [i, finding] of guard.findings.entries()) {
          const { attributes } = events[i];
          assert.deepEqual(pick(attributes, Object.keys(expectedOf(finding, runId))), expectedOf(finding, runId));
          // The tools the finding is about: the one called, and for an empty lookup the one that served the value.
          assert.deepEqual(attributes['seamguard.tools'], finding.kind === 'empty-lookup' ? ['port_for_device', 'fabric_inventory'] : ['port_for_device']);
          assert.equal(attributes['gen_ai.tool.name'], 'port_for_device');
          assert.equal(attributes['seamguard.message'], finding.message);
        }
        // The values the model chose: one from its own earlier text, one the inventory served.
        assert.deepEqual(
          events.map((event) => [event.attributes['seamguard.kind'], event.attributes['seamguard.value'], event.attributes['gen_ai.tool.call.id']]),
          [
            ['unsupported-argument', '20:00:00:25:b5:ff:00:99', 'call-1-0'],
            ['empty-lookup', WWPN, 'call-1-1'],
          ],
        );
        // Every attribute is one OpenTelemetry accepts: a string, number or boolean, or an array of strings.
        for (const { attributes } of events) {
          for (const value of Object.values(attributes)) {
            assert.ok(['string', 'number', 'boolean'].includes(typeof value) || (Array.isArray(value) && value.every((item) => typeof item === 'string')), `attribute ${value}`);
          }
        }
      });
    }

    it('with telemetry off, no event is recorded and the findings are the same', async () => {
      otel.exporter.reset();
      const traced = await playRun(sdk, 'generate', 'recall', { telemetry: await telemetryOf(sdk) });
      otel.exporter.reset();
      const quiet = await playRun(sdk, 'generate', 'recall', { telemetry: { isEnabled: false } });
      assert.deepEqual(await seamguardEvents(otel), []);
      assert.deepEqual(
        quiet.guard.findings.map(({ kind, predicate, toolCallId, epoch }) => ({ kind, predicate, toolCallId, epoch })),
        traced.guard.findings.map(({ kind, predicate, toolCallId, epoch }) => ({ kind, predicate, toolCallId, epoch })),
      );
    });

    it('several conversations at once on one guard, streaming and not: each finding lands on its own conversation\'s trace', async () => {
      otel.exporter.reset();
      const guard = createGuard({ argumentsFrom: RUNS.recall.argumentsFrom });
      const telemetry = await telemetryOf(sdk);
      await Promise.all(Array.from({ length: 6 }, (_, i) => playRun(sdk, i % 2 === 0 ? 'generate' : 'stream', 'recall', { guard, telemetry })));
      const traces = byTrace(await seamguardEvents(otel));
      assert.equal(traces.size, 6);
      const runIds = new Set();
      for (const events of traces.values()) {
        const ids = new Set(events.map((event) => event.attributes['seamguard.run_id']));
        assert.equal(ids.size, 1, 'one run per trace');
        const [runId] = ids;
        runIds.add(runId);
        const findings = guard.run(runId).findings;
        assert.deepEqual(
          events.map((event) => pick(event.attributes, Object.keys(expectedOf(findings[0], runId)))),
          findings.map((finding) => expectedOf(finding, runId)),
        );
      }
      assert.equal(runIds.size, 6, 'six runs, one per conversation');
    });
  });

  describe(`ai ${sdk.major}: scaffoldingMiddleware's strips and heals are events on the model call's span`, () => {
    const tools = (runs) => toolsByName(sdk.ai, healTools(runs));

    for (const mode of ['generate', 'stream']) {
      for (const leak of LEAKS) {
        it(`${mode}, ${leak.format}: a strip naming the tools, then a heal per call with the id the tool ran under`, async () => {
          otel.exporter.reset();
          const runs = [];
          const { model } = scriptedModel(sdk, healScript(leak.leaked));
          const steps = await play(sdk, mode, { model, middleware: scaffoldingMiddleware({ heal: true }), tools: tools(runs), prompt: 'Go.', telemetry: await telemetryOf(sdk) });
          const events = await seamguardEvents(otel);
          const strips = events.filter((event) => event.name === 'seamguard.strip');
          const heals = events.filter((event) => event.name === 'seamguard.heal');
          assert.ok(strips.length >= 1);
          assert.deepEqual([...new Set(strips.flatMap((event) => event.attributes['seamguard.tools']))], [...new Set(leak.calls.map((call) => call.toolName))]);
          assert.ok(strips.every((event) => event.span === MODEL_CALL_SPAN[sdk.major][mode] && event.attributes['seamguard.reason'] === 'match'));
          const called = (await steps)[0].toolCalls.map((call) => ({ id: call.toolCallId, name: call.toolName, input: call.input }));
          assert.deepEqual(
            heals.map((event) => ({ id: event.attributes['gen_ai.tool.call.id'], name: event.attributes['gen_ai.tool.name'], input: JSON.parse(event.attributes['seamguard.value']) })),
            called,
          );
          assert.deepEqual(runs, leak.calls);
          assert.ok(heals.every((event) => event.span === MODEL_CALL_SPAN[sdk.major][mode] && event.attributes['seamguard.signal'] === 'heal'));
        });
      }

      for (const [what, text, tool, reason] of [
        ['a call to a tool nobody offers', INVENTED, 'delete_records', /not on offer/],
        ['a call whose arguments the schema refuses', MISFIT, 'get_weather', /./],
      ]) {
        it(`${mode}, ${what}: stripped and refused, with the reason`, async () => {
          otel.exporter.reset();
          const runs = [];
          const { model } = scriptedModel(sdk, healScript(text));
          await play(sdk, mode, { model, middleware: scaffoldingMiddleware({ heal: true }), tools: tools(runs), prompt: 'Go.', telemetry: await telemetryOf(sdk) });
          const events = await seamguardEvents(otel);
          assert.deepEqual(runs, []);
          assert.deepEqual(
            events.map((event) => [event.name, event.attributes['seamguard.tools']]),
            [
              ['seamguard.strip', [tool]],
              ['seamguard.heal_refused', [tool]],
            ],
          );
          assert.match(events[1].attributes['seamguard.reason'], reason);
          assert.ok(events[0].attributes['seamguard.span'].includes(tool));
        });
      }
    }

    it('several conversations at once, streaming and not: each heal lands on its own conversation\'s trace', async () => {
      otel.exporter.reset();
      const runs = [];
      const model = routedModel(sdk, cityRouter());
      const middleware = [createGuard({ argumentsFrom: { get_weather: ['note'] } }).middleware, scaffoldingMiddleware({ heal: true })];
      const telemetry = await telemetryOf(sdk);
      const cities = CITIES.slice(0, 6);
      await Promise.all(cities.map((city, i) => play(sdk, i % 2 === 0 ? 'generate' : 'stream', { model, middleware, tools: tools(runs), prompt: cityPrompt(city), telemetry })));
      const traces = byTrace(await seamguardEvents(otel));
      assert.equal(traces.size, cities.length);
      const healed = [];
      for (const events of traces.values()) {
        const heals = events.filter((event) => event.name === 'seamguard.heal');
        assert.equal(heals.length, 1);
        const { city } = JSON.parse(heals[0].attributes['seamguard.value']);
        const strip = events.find((event) => event.name === 'seamguard.strip');
        assert.ok(strip.attributes['seamguard.span'].includes(city), 'the strip and the heal of one trace are of the same conversation');
        healed.push(city);
      }
      assert.deepEqual(healed.sort(), [...cities].sort());
      assert.equal(runs.length, cities.length);
    });
  });
}

