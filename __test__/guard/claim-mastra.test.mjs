// The claim seam in the Mastra guard: the field cases of
// __test__/support/claim-cases.mjs through an Agent's generate and stream,
// with an AI SDK mock model (each major this Node runs) answering from its
// prompt, Mastra's MockMemory keeping a thread, and tools that really run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/mastra';

import { sdkMajors } from '../support/agents.mjs';
import { CASES, CONCURRENT, PRIOR_TURNS, aiSdkClaimModel, assertStands, flaggedValues, plainAiSdkPrompt, rowOf } from '../support/claim-cases.mjs';
import { ask, claimAgent, mastraModules, retriesOf } from '../support/mastra.mjs';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const skip = NODE_MAJOR < 22 ? `@mastra/core needs Node 22.13 or later; this is Node ${process.versions.node}` : false;

const mastra = skip ? undefined : await mastraModules();
const majors = skip ? [{ major: '6 and 7' }] : await sdkMajors();

for (const sdk of majors) {
  for (const mode of ['generate', 'stream']) {
    describe(`Mastra, AI SDK ${sdk.major} model, ${mode}: the claim seam's field cases`, { skip }, () => {
      if (skip) return;
      it('a fabricated port number: one unsupported-claim finding names it', async () => {
        const { model } = aiSdkClaimModel(sdk);
        const guard = createGuard({ evidence: true });
        const { text } = await ask(claimAgent(mastra, model, guard), mode, CASES.fabricated.question, 't1');
        assert.equal(text, CASES.fabricated.first);
        assert.deepEqual(flaggedValues(guard.findings), ['9443']);
        assert.deepEqual([rowOf(guard, 'unsupported-claim').checked, rowOf(guard, 'unsupported-claim').findings], [1, 1]);
      });

      for (const name of ['grounded', 'userSupplied', 'escaped']) {
        it(`${name}: no finding`, async () => {
          const { model } = aiSdkClaimModel(sdk);
          const guard = createGuard({ evidence: true });
          const { text } = await ask(claimAgent(mastra, model, guard), mode, CASES[name].question, 't1');
          assertStands(guard, text, name);
        });
      }

      for (const notice of [true, false]) {
        it(`an answer built only from a result four turns old: ${notice ? 'prior-turn-evidence' : 'nothing'}`, async () => {
          const { model } = aiSdkClaimModel(sdk);
          const guard = createGuard({ evidence: true, noticePriorTurnEvidence: notice });
          const agent = claimAgent(mastra, model, guard);
          for (const question of PRIOR_TURNS) await ask(agent, mode, question, 'thread-prior');
          assert.deepEqual(guard.findings.map((finding) => finding.kind), notice ? ['prior-turn-evidence'] : []);
        });
      }

      it("'guard': Mastra's processor retry asks once; the revision grounds the answer", async () => {
        const { model, prompts } = aiSdkClaimModel(sdk);
        const guard = createGuard({ evidence: { posture: 'guard' }, maxProcessorRetries: 1 });
        const { text } = await ask(claimAgent(mastra, model, guard), mode, CASES.revision.question, 't1');
        assert.equal(text, CASES.revision.revised);
        const retries = retriesOf(prompts);
        assert.equal(retries.before, 2);
        assert.ok(retries.after >= 1 && retries.after <= 2 && retries.once && retries.corrected, JSON.stringify(retries));
        assert.deepEqual(guard.findings, []);
      });

      it("'guard' with the agent's retries told as 0: no retry is asked, the first answer stands, filed, and the run ends as usual", async () => {
        const { model, prompts } = aiSdkClaimModel(sdk);
        const guard = createGuard({ evidence: { posture: 'guard' }, maxProcessorRetries: 0 });
        const { text, result } = await ask(claimAgent(mastra, model, guard, 0), mode, CASES.fabricated.question, 't1');
        assert.equal(text, CASES.fabricated.first);
        assert.equal(prompts.length, 2);
        assert.ok(!result.tripwire, 'no tripwire');
        assert.deepEqual(flaggedValues(guard.findings), ['9443']);
      });

      it("'guard': a revision that still invents is filed, never revised again", async () => {
        const { model, prompts } = aiSdkClaimModel(sdk);
        const guard = createGuard({ evidence: { posture: 'guard' }, maxProcessorRetries: 1 });
        const { text } = await ask(claimAgent(mastra, model, guard), mode, CASES.stubborn.question, 't1');
        assert.equal(text, CASES.stubborn.revised);
        const retries = retriesOf(prompts);
        assert.equal(retries.before, 2);
        assert.ok(retries.after >= 1 && retries.after <= 2 && retries.once && retries.corrected, JSON.stringify(retries));
        assert.deepEqual(flaggedValues(guard.findings), ['9444']);
      });
    });
  }

  describe("Mastra: 'guard' needs the agent's retry budget", { skip }, () => {
    if (skip) return;
    it("a guard with posture 'guard' and no maxProcessorRetries is refused, naming the option", () => {
      assert.throws(() => createGuard({ evidence: { posture: 'guard' } }), (error) => error instanceof TypeError && /maxProcessorRetries/.test(error.message));
      assert.throws(() => createGuard({ evidence: { posture: 'guard' }, maxProcessorRetries: -1 }), /options\.maxProcessorRetries must be a whole number/);
      assert.throws(() => createGuard({ evidence: { posture: 'guard' }, maxProcessorRetries: '1' }), /options\.maxProcessorRetries must be a whole number/);
      assert.doesNotThrow(() => createGuard({ evidence: true }));
      assert.doesNotThrow(() => createGuard({ evidence: { posture: 'guard' }, maxProcessorRetries: 2 }));
    });
  });

  describe(`Mastra, AI SDK ${sdk.major} model: eight conversations at once on one guard, half streaming`, { skip }, () => {
    if (skip) return;
    for (const posture of ['assist', 'guard']) {
      it(`posture '${posture}': each thread files its own values, no turn revised twice`, async () => {
        const { model, prompts } = aiSdkClaimModel(sdk);
        const guard = createGuard({ evidence: { posture }, maxProcessorRetries: 1 });
        const agent = claimAgent(mastra, model, guard);
        const answers = await Promise.all(CONCURRENT.map((c, i) => ask(agent, i % 2 === 0 ? 'generate' : 'stream', c.question, `thread-${i}`)));
        for (const [i, c] of CONCURRENT.entries()) {
          const invented = c.unsupported.length > 0;
          assert.equal(answers[i].text, posture === 'guard' && invented ? c.revised : c.first);
          const asked = retriesOf(prompts.filter((prompt) => plainAiSdkPrompt(prompt).some((message) => message.role === 'user' && message.text.includes(c.question))));
          assert.equal(asked.before, 2);
          if (posture === 'guard' && invented) assert.ok(asked.after >= 1 && asked.after <= 2 && asked.once && asked.corrected, JSON.stringify(asked));
          else assert.equal(asked.after, 0);
          assert.deepEqual(flaggedValues(guard.run(`thread-${i}`)?.findings ?? []), posture === 'assist' ? c.unsupported : []);
        }
      });
    }
  });
}
