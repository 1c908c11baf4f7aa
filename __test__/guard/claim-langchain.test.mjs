// The claim seam in the LangChain.js guard: the field cases of
// __test__/support/claim-cases.mjs through `createAgent`, invoked and
// streamed, with LangChain's own fake chat model answering from its prompt,
// a checkpointer keeping each thread, and tools that really run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/langchain';

import { CASES, CONCURRENT, PRIOR_TURNS, assertStands, flaggedValues, rowOf } from '../support/claim-cases.mjs';
import { claimAgent as agentOf, claimModel } from '../support/langchain.mjs';

for (const mode of ['invoke', 'stream']) {
  describe(`LangChain.js, ${mode}: the claim seam's field cases`, () => {
    it('a fabricated port number: one unsupported-claim finding names it, in the agent state too', async () => {
      const { model } = claimModel();
      const guard = createGuard({ evidence: true });
      const { text, state } = await agentOf(guard, model)(mode, CASES.fabricated.question);
      assert.equal(text, CASES.fabricated.first);
      assert.deepEqual(flaggedValues(guard.findings), ['9443']);
      assert.deepEqual(state.seamguardFindings.map((finding) => finding.kind), ['unsupported-claim']);
      const row = rowOf(guard, 'unsupported-claim');
      assert.deepEqual([row.checked, row.findings], [1, 1]);
    });

    for (const name of ['grounded', 'userSupplied', 'escaped']) {
      it(`${name}: no finding, one checked-pass`, async () => {
        const { model } = claimModel();
        const guard = createGuard({ evidence: true });
        const { text } = await agentOf(guard, model)(mode, CASES[name].question);
        assertStands(guard, text, name);
      });
    }

    for (const notice of [true, false]) {
      it(`an answer built only from a result four turns old: ${notice ? 'prior-turn-evidence' : 'nothing'}`, async () => {
        const { model } = claimModel();
        const guard = createGuard({ evidence: true, noticePriorTurnEvidence: notice });
        const converse = agentOf(guard, model);
        for (const question of PRIOR_TURNS) await converse(mode, question);
        assert.deepEqual(guard.findings.map((finding) => finding.kind), notice ? ['prior-turn-evidence'] : []);
      });
    }

    it("'guard': one revision grounds the answer; the state holds only the revision", async () => {
      const { model, prompts } = claimModel();
      const guard = createGuard({ evidence: { posture: 'guard' } });
      const { text, state } = await agentOf(guard, model)(mode, CASES.revision.question);
      assert.equal(text, CASES.revision.revised);
      assert.equal(prompts.length, 3);
      assert.deepEqual(prompts[2].slice(-2).map((message) => message.role), ['assistant', 'user']);
      assert.match(prompts[2].at(-1).text, /^\[evidence check/);
      assert.ok(!JSON.stringify(state.messages.map((message) => message.content)).includes('9443'));
      assert.deepEqual(guard.findings, []);
    });

    it("'guard': a revision that still invents is filed, never revised again", async () => {
      const { model, prompts } = claimModel();
      const guard = createGuard({ evidence: { posture: 'guard' } });
      const { text } = await agentOf(guard, model)(mode, CASES.stubborn.question);
      assert.equal(text, CASES.stubborn.revised);
      assert.equal(prompts.length, 3);
      assert.deepEqual(flaggedValues(guard.findings), ['9444']);
    });

    it("'guard': a model that fails on the revision leaves the first answer, filed, said once", async () => {
      const errors = [];
      const { model } = claimModel({ fail: (prompt) => prompt.some((message) => message.text.startsWith('[evidence check')) });
      const guard = createGuard({ evidence: { posture: 'guard' }, onError: (error) => errors.push(error) });
      const { text } = await agentOf(guard, model)(mode, CASES.revision.question);
      assert.equal(text, CASES.revision.first);
      assert.deepEqual(flaggedValues(guard.findings), ['9443']);
      assert.equal(errors.length, 1);
    });
  });
}

describe('LangChain.js: eight conversations at once on one guard, half streaming', () => {
  for (const posture of ['assist', 'guard']) {
    it(`posture '${posture}': each thread files its own values, no turn revised twice`, async () => {
      const { model, prompts } = claimModel();
      const guard = createGuard({ evidence: { posture } });
      const converse = agentOf(guard, model);
      const answers = await Promise.all(CONCURRENT.map((c, i) => converse(i % 2 === 0 ? 'invoke' : 'stream', c.question, `thread-${i}`)));
      for (const [i, c] of CONCURRENT.entries()) {
        const invented = c.unsupported.length > 0;
        assert.equal(answers[i].text, posture === 'guard' && invented ? c.revised : c.first);
        const asked = prompts.filter((prompt) => prompt.some((message) => message.text === c.question));
        assert.equal(asked.length, posture === 'guard' && invented ? 3 : 2);
        assert.deepEqual(flaggedValues(guard.run(`thread-${i}`)?.findings ?? []), posture === 'assist' ? c.unsupported : []);
      }
    });
  }
});
