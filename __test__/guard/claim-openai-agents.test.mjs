// The claim seam in the OpenAI Agents SDK guard: the field cases of
// __test__/support/claim-cases.mjs through `run`, whole and streamed, with a
// fake `Model` answering from its input and function tools that really run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/openai-agents';

import { CASES, CONCURRENT, PRIOR_TURNS, assertStands, flaggedValues, rowOf } from '../support/claim-cases.mjs';
import { claimAgents } from '../support/openai-agents.mjs';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const skip = NODE_MAJOR < 22 ? `@openai/agents needs Node 22 or later (its openai 7 does); this is Node ${process.versions.node}` : false;

const sdk = skip ? undefined : await import('@openai/agents');
sdk?.setTracingDisabled(true);

const { ClaimModel, turn } = skip ? {} : claimAgents(sdk);

for (const mode of ['run', 'stream']) {
  describe(`OpenAI Agents SDK, ${mode}: the claim seam's field cases`, { skip }, () => {
    it('a fabricated port number: one unsupported-claim finding names it', async () => {
      const model = new ClaimModel();
      const guard = createGuard({ evidence: true });
      const { text } = await turn(mode, guard, model, [], CASES.fabricated.question);
      assert.equal(text, CASES.fabricated.first);
      assert.deepEqual(flaggedValues(guard.findings), ['9443']);
      assert.deepEqual([rowOf(guard, 'unsupported-claim').checked, rowOf(guard, 'unsupported-claim').findings], [1, 1]);
    });

    for (const name of ['grounded', 'userSupplied', 'escaped']) {
      it(`${name}: no finding, one checked-pass`, async () => {
        const model = new ClaimModel();
        const guard = createGuard({ evidence: true });
        const { text } = await turn(mode, guard, model, [], CASES[name].question);
        assertStands(guard, text, name);
      });
    }

    for (const notice of [true, false]) {
      it(`an answer built only from a result four turns old: ${notice ? 'prior-turn-evidence' : 'nothing'}`, async () => {
        const model = new ClaimModel();
        const guard = createGuard({ evidence: true, noticePriorTurnEvidence: notice });
        let history = [];
        for (const question of PRIOR_TURNS) ({ history } = await turn(mode, guard, model, history, question));
        assert.deepEqual(guard.findings.map((finding) => finding.kind), notice ? ['prior-turn-evidence'] : []);
      });
    }

    it("'guard': one revision grounds the answer; the history and the reader see only the revision", async () => {
      const model = new ClaimModel();
      const guard = createGuard({ evidence: { posture: 'guard' } });
      const { text, streamed, history } = await turn(mode, guard, model, [], CASES.revision.question);
      assert.equal(text, CASES.revision.revised);
      if (mode === 'stream') assert.equal(streamed, CASES.revision.revised);
      assert.equal(model.prompts.length, 3);
      assert.deepEqual(model.prompts[2].slice(-2).map((message) => message.role), ['assistant', 'user']);
      assert.match(model.prompts[2].at(-1).text, /^\[evidence check/);
      assert.ok(!JSON.stringify(history).includes('9443'));
      assert.deepEqual(guard.findings, []);
    });

    it("'guard': a revision that still invents is filed, never revised again", async () => {
      const model = new ClaimModel();
      const guard = createGuard({ evidence: { posture: 'guard' } });
      const { text } = await turn(mode, guard, model, [], CASES.stubborn.question);
      assert.equal(text, CASES.stubborn.revised);
      assert.equal(model.prompts.length, 3);
      assert.deepEqual(flaggedValues(guard.findings), ['9444']);
    });

    it("'guard': a model that fails on the revision leaves the first answer, filed, said once", async () => {
      const errors = [];
      const model = new ClaimModel({ fail: (prompt) => prompt.some((message) => message.text.startsWith('[evidence check')) });
      const guard = createGuard({ evidence: { posture: 'guard' }, onError: (error) => errors.push(error) });
      const { text } = await turn(mode, guard, model, [], CASES.revision.question);
      assert.equal(text, CASES.revision.first);
      assert.deepEqual(flaggedValues(guard.findings), ['9443']);
      assert.equal(errors.length, 1);
    });
  });
}

describe('OpenAI Agents SDK: eight conversations at once on one guard, half streaming', { skip }, () => {
  for (const posture of ['assist', 'guard']) {
    it(`posture '${posture}': each run files its own values, no turn revised twice`, async () => {
      const model = new ClaimModel();
      const guard = createGuard({ evidence: { posture } });
      const answers = await Promise.all(CONCURRENT.map((c, i) => turn(i % 2 === 0 ? 'run' : 'stream', guard, model, [], c.question)));
      const flagged = [];
      for (const id of guard.runIds()) {
        const values = flaggedValues(guard.run(id).findings);
        if (values.length > 0) flagged.push(values);
      }
      for (const [i, c] of CONCURRENT.entries()) {
        const invented = c.unsupported.length > 0;
        assert.equal(answers[i].text, posture === 'guard' && invented ? c.revised : c.first);
        const asked = model.prompts.filter((prompt) => prompt.some((message) => message.text === c.question));
        assert.equal(asked.length, posture === 'guard' && invented ? 3 : 2);
      }
      assert.deepEqual(flagged.sort(), posture === 'assist' ? CONCURRENT.filter((c) => c.unsupported.length > 0).map((c) => c.unsupported).sort() : []);
    });
  }
});
