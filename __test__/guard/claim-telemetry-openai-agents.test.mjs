// The claim seam's signals in the OpenAI Agents SDK's own traces: a
// revision is a `seamguard.revision` custom span naming the values it named
// back, and a filed answer's finding a `seamguard.finding` custom span
// naming its unsupported values, each under the turn's span of the run's
// trace, with the run. A real TracingProcessor, registered with
// `setTraceProcessors`, keeps them; the runner is the SDK's, the model a
// fake answering from its input, the tools really run
// (support/openai-agents.mjs).
//
// `@openai/agents` needs Node 22 or later: under Node 20 these tests are
// skipped, and say so.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/openai-agents';

import { CASES, CONCURRENT, claimSignalOf, expectedClaimSignals } from '../support/claim-cases.mjs';
import { claimAgents, tracedAgentsSdk } from '../support/openai-agents.mjs';

const { skip, sdk, kept } = await tracedAgentsSdk();

const { ClaimModel, turn } = skip ? {} : claimAgents(sdk);

/** The three turns whose signals are checked: posture, case. */
const TURNS = [
  ['guard', 'revision'],
  ['guard', 'stubborn'],
  ['assist', 'fabricated'],
];

const summaryOf = (signal) => claimSignalOf(signal.name, signal.data);

describe("OpenAI Agents SDK: the claim seam's signals are custom spans in the run's trace", { skip }, () => {
  for (const mode of ['run', 'stream']) {
    for (const [posture, name] of TURNS) {
      it(`${mode}, '${posture}', ${name}: ${expectedClaimSignals(posture, CASES[name]).map((signal) => signal.name).join(', then ')}, under the turn's span`, async () => {
        kept.spans.length = 0;
        const guard = createGuard({ evidence: { posture } });
        await turn(mode, guard, new ClaimModel(), [], CASES[name].question);
        const signals = kept.signals();
        const [runId] = guard.runIds();
        assert.deepEqual(signals.map(summaryOf), expectedClaimSignals(posture, CASES[name], runId));
        assert.ok(signals.every((signal) => signal.parent === 'turn'));
        assert.equal(new Set(signals.map((signal) => signal.traceId)).size, 1);
        assert.equal(new Set(signals.map((signal) => signal.data['seamguard.model_call'])).size, 1);
      });
    }
  }

  for (const posture of ['assist', 'guard']) {
    it(`posture '${posture}', eight conversations at once on one guard, half streaming: each conversation's signals in its own trace`, async () => {
      kept.spans.length = 0;
      const guard = createGuard({ evidence: { posture } });
      const model = new ClaimModel();
      await Promise.all(CONCURRENT.map((c, i) => turn(i % 2 === 0 ? 'run' : 'stream', guard, model, [], c.question, { groupId: `conversation-${i}` })));
      const traces = new Map();
      for (const signal of kept.signals()) traces.set(kept.groups.get(signal.traceId), [...(traces.get(kept.groups.get(signal.traceId)) ?? []), signal]);
      for (const [i, c] of CONCURRENT.entries()) {
        const signals = traces.get(`conversation-${i}`) ?? [];
        // A run is found from its prompt: its id is whatever the guard gave it, one per trace.
        const runId = signals[0]?.data['seamguard.run_id'];
        assert.deepEqual(signals.map(summaryOf), expectedClaimSignals(posture, c, runId), `conversation-${i}`);
      }
      assert.equal(traces.size, CONCURRENT.length / 2);
      const runIds = [...traces.values()].map((signals) => signals[0].data['seamguard.run_id']);
      assert.equal(new Set(runIds).size, runIds.length, 'one run per trace');
      assert.ok(runIds.every((id) => guard.runIds().includes(id)));
    });
  }
});
