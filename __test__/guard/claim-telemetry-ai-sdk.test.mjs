// The claim seam's signals in the AI SDK's own traces: a revision is a
// `seamguard.revision` event naming the values it named back, and the
// revised answer's finding a `seamguard.finding` event, both on the model
// call's span, with the run and the model call.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/ai-sdk';

import { sdkMajors, toolsByName } from '../support/agents.mjs';
import { CASES, CLAIM_TOOLS, aiSdkClaimModel } from '../support/claim-cases.mjs';
import { registerOtel, seamguardEvents } from '../support/otel.mjs';

const otel = registerOtel();

/** The telemetry setting that turns the AI SDK's spans on, per major. */
async function telemetryOf(sdk) {
  if (sdk.major === 6) return { isEnabled: true };
  const { OpenTelemetry } = await import('@ai-sdk/otel');
  return { isEnabled: true, integrations: new OpenTelemetry() };
}

for (const sdk of await sdkMajors()) {
  describe(`ai ${sdk.major}: the claim seam in the trace`, () => {
    for (const mode of ['generate', 'stream']) {
      for (const [name, values, findings] of [['revision', ['9443'], []], ['stubborn', ['9443'], ['unsupported-claim']]]) {
        it(`${mode}, ${name}: one revision event, then the revised answer's findings`, async () => {
          otel.exporter.reset();
          const guard = createGuard({ evidence: { posture: 'guard' } });
          const { model } = aiSdkClaimModel(sdk);
          const settings = { model: sdk.ai.wrapLanguageModel({ model, middleware: guard.middleware }), tools: toolsByName(sdk.ai, CLAIM_TOOLS), stopWhen: sdk.ai.stepCountIs(6), prompt: CASES[name].question, experimental_telemetry: await telemetryOf(sdk) };
          if (mode === 'generate') await sdk.ai.generateText(settings);
          else for await (const delta of sdk.ai.streamText(settings).textStream) void delta;
          const events = await seamguardEvents(otel);
          const [runId] = guard.runIds();
          assert.deepEqual(events.map((event) => event.name), ['seamguard.revision', ...findings.map(() => 'seamguard.finding')]);
          const revision = events[0].attributes;
          assert.deepEqual([revision['seamguard.signal'], revision['seamguard.kind'], revision['seamguard.seam'], revision['seamguard.run_id']], ['revision', 'unsupported-claim', 'claim', runId]);
          assert.deepEqual(revision['seamguard.values'], values);
          for (const event of events.slice(1)) assert.deepEqual([event.attributes['seamguard.kind'], event.attributes['seamguard.seam'], event.attributes['seamguard.values']], ['unsupported-claim', 'claim', CASES[name].unsupported]);
        });
      }
    }
  });
}
