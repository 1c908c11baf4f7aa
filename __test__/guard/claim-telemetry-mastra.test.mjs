// The claim seam's signals in Mastra's own traces: with Mastra's
// observability set up (a TestExporter keeping what it is handed), a
// revision is a `seamguard.revision` event span naming the values it named
// back, and a filed answer's finding a `seamguard.finding` event span
// naming its unsupported values, each under the span of the output step
// hook that judged the answer, in the agent run's trace, with the run (the
// memory thread). The model is the AI SDK's mock (ai 6, and ai 7 on Node 22
// and later) answering from its prompt, the tools really run
// (support/mastra.mjs). Mastra 1.63 retries a whole turn for the revision,
// later versions the answering step only: nothing here counts model calls.
//
// `@mastra/core` needs Node 22.13 or later: under Node 20 these tests are
// skipped, and say so.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/mastra';

import { sdkMajors } from '../support/agents.mjs';
import { CASES, CONCURRENT, aiSdkClaimModel, claimSignalOf, expectedClaimSignals } from '../support/claim-cases.mjs';
import { ask, claimAgent, mastraModules, observe, signalsOf } from '../support/mastra.mjs';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const skip = NODE_MAJOR < 22 ? `@mastra/core needs Node 22.13 or later; this is Node ${process.versions.node}` : false;

const mastra = skip ? undefined : await mastraModules();
const majors = skip ? [{ major: '6 and 7' }] : await sdkMajors();

/** The three turns whose signals are checked: posture, case. */
const TURNS = [
  ['guard', 'revision'],
  ['guard', 'stubborn'],
  ['assist', 'fabricated'],
];

const summaryOf = (signal) => claimSignalOf(signal.name, signal.data);

/** The agent run each trace is of, by trace id: its root span's input. */
const runInputs = (exporter) => new Map(exporter.getAllSpans().filter((span) => span.type === 'agent_run').map((span) => [span.traceId, JSON.stringify(span.input)]));

for (const sdk of majors) {
  describe(`Mastra, with an AI SDK ${sdk.major} model: the claim seam's signals are event spans in Mastra's trace`, { skip }, () => {
    if (skip) return;
    for (const mode of ['generate', 'stream']) {
      for (const [posture, name] of TURNS) {
        it(`${mode}, '${posture}', ${name}: ${expectedClaimSignals(posture, CASES[name]).map((signal) => signal.name).join(', then ')}, under the output step hook`, async () => {
          const { model } = aiSdkClaimModel(sdk);
          const guard = createGuard({ evidence: { posture }, maxProcessorRetries: 1 });
          const { agent, exporter } = observe(mastra, claimAgent(mastra, model, guard));
          await ask(agent, mode, CASES[name].question, `${name}-${mode}`);
          const signals = signalsOf(exporter);
          assert.deepEqual(signals.map(summaryOf), expectedClaimSignals(posture, CASES[name], `${name}-${mode}`));
          assert.ok(signals.every((signal) => signal.type === 'generic' && signal.hook === 'output step processor: seamguard'), JSON.stringify(signals.map((signal) => [signal.type, signal.hook])));
          assert.equal(new Set(signals.map((signal) => signal.traceId)).size, 1);
        });
      }
    }

    for (const posture of ['assist', 'guard']) {
      it(`posture '${posture}', eight conversations at once on one guard, half streaming: each conversation's signals in its own trace`, async () => {
        const { model } = aiSdkClaimModel(sdk);
        const guard = createGuard({ evidence: { posture }, maxProcessorRetries: 1 });
        const { agent, exporter } = observe(mastra, claimAgent(mastra, model, guard));
        await Promise.all(CONCURRENT.map((c, i) => ask(agent, i % 2 === 0 ? 'generate' : 'stream', c.question, `thread-${i}`)));
        const inputs = runInputs(exporter);
        const traces = new Map();
        for (const signal of signalsOf(exporter)) traces.set(signal.traceId, [...(traces.get(signal.traceId) ?? []), signal]);
        for (const [i, c] of CONCURRENT.entries()) {
          // The trace of the run that was asked this conversation's question.
          const ids = [...inputs].filter(([, input]) => input.includes(c.question)).map(([traceId]) => traceId);
          assert.equal(ids.length, 1, `conversation ${i}: one agent run`);
          assert.deepEqual((traces.get(ids[0]) ?? []).map(summaryOf), expectedClaimSignals(posture, c, `thread-${i}`), `thread-${i}`);
        }
        assert.equal(traces.size, CONCURRENT.length / 2);
      });
    }
  });
}
