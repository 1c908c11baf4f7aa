// The claim seam's signals in LangChain.js's own traces: a revision is a
// `seamguard.revision` custom event of the run naming the values it named
// back, and a filed answer's finding a `seamguard.finding` event naming
// its unsupported values, each with the run (the thread). A callback
// handler's `handleCustomEvent` gets them, and `streamEvents` shows them as
// `on_custom_event`. The model is LangChain's fake chat model, the tools
// really run (support/langchain.mjs).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/langchain';

import { CASES, CONCURRENT, claimSignalOf, expectedClaimSignals } from '../support/claim-cases.mjs';
import { SignalHandler, claimAgent, claimModel } from '../support/langchain.mjs';

// The handler must have every event before the run resolves.
process.env.LANGCHAIN_CALLBACKS_BACKGROUND = 'false';

/** The three turns whose signals are checked: posture, case. */
const TURNS = [
  ['guard', 'revision'],
  ['guard', 'stubborn'],
  ['assist', 'fabricated'],
];

const signalsOf = (handler) => handler.events.map((event) => claimSignalOf(event.name, event.data));

describe('LangChain.js: the claim seam\'s signals are custom events of the run', () => {
  for (const mode of ['invoke', 'stream']) {
    for (const [posture, name] of TURNS) {
      it(`${mode}, '${posture}', ${name}: ${expectedClaimSignals(posture, CASES[name]).map((signal) => signal.name).join(', then ')}`, async () => {
        const { model } = claimModel();
        const guard = createGuard({ evidence: { posture } });
        const handler = new SignalHandler();
        await claimAgent(guard, model)(mode, CASES[name].question, `${name}-${mode}`, { callbacks: [handler] });
        assert.deepEqual(signalsOf(handler), expectedClaimSignals(posture, CASES[name], `${name}-${mode}`));
        // The signals of one model call: the one the answer came from.
        assert.equal(new Set(handler.events.map((event) => event.data['seamguard.model_call'])).size, 1);
      });
    }
  }

  it("streamEvents shows the revision and the revised answer's finding as on_custom_event", async () => {
    const { model } = claimModel();
    const guard = createGuard({ evidence: { posture: 'guard' } });
    const { agent } = claimAgent(guard, model);
    const shown = [];
    const input = { messages: [{ role: 'user', content: CASES.stubborn.question }] };
    for await (const event of agent.streamEvents(input, { version: 'v2', configurable: { thread_id: 'stubborn-events' } })) {
      if (event.event === 'on_custom_event' && event.name.startsWith('seamguard.')) shown.push(claimSignalOf(event.name, event.data));
    }
    assert.deepEqual(shown, expectedClaimSignals('guard', CASES.stubborn, 'stubborn-events'));
  });

  for (const posture of ['assist', 'guard']) {
    it(`posture '${posture}', eight conversations at once on one guard, half streaming: each handler gets its own thread's signals`, async () => {
      const { model } = claimModel();
      const guard = createGuard({ evidence: { posture } });
      const converse = claimAgent(guard, model);
      const handlers = CONCURRENT.map(() => new SignalHandler());
      await Promise.all(CONCURRENT.map((c, i) => converse(i % 2 === 0 ? 'invoke' : 'stream', c.question, `thread-${i}`, { callbacks: [handlers[i]] })));
      for (const [i, c] of CONCURRENT.entries()) assert.deepEqual(signalsOf(handlers[i]), expectedClaimSignals(posture, c, `thread-${i}`), `thread-${i}`);
      assert.equal(handlers.filter((handler) => handler.events.length > 0).length, CONCURRENT.length / 2);
    });
  }
});
