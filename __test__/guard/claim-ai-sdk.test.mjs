// The claim seam in the AI SDK guard: the field cases of
// __test__/support/claim-cases.mjs through generateText and streamText,
// under every AI SDK major this Node runs, with the SDK's own mock model
// answering from its prompt and tools whose `execute` really runs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/ai-sdk';

import { sdkMajors, toolsByName } from '../support/agents.mjs';
import { CASES, CLAIM_TOOLS, CONCURRENT, PRIOR_TURNS, aiSdkClaimModel as claimModel, assertStands, flaggedValues, plainAiSdkPrompt as plainPrompt, rowOf } from '../support/claim-cases.mjs';

/** One turn of a conversation: `messages` so far and the user's `question`; returns the answer text and the messages after. */
async function turn({ ai }, mode, model, messages, question) {
  const settings = { model, tools: toolsByName(ai, CLAIM_TOOLS), stopWhen: ai.stepCountIs(6), messages: [...messages, { role: 'user', content: question }] };
  if (mode === 'generate') {
    const result = await ai.generateText(settings);
    // ai 7 keeps every step's messages in `responseMessages`; ai 6 in `response.messages`.
    return { text: result.text, messages: [...settings.messages, ...(result.responseMessages ?? result.response.messages)] };
  }
  const result = ai.streamText(settings);
  let text = '';
  for await (const delta of result.textStream) text += delta;
  // ai 7 keeps every step's messages in `responseMessages`; ai 6 in `response.messages`.
  const kept = result.responseMessages === undefined ? (await result.response).messages : await result.responseMessages;
  return { text, messages: [...settings.messages, ...kept] };
}

for (const sdk of await sdkMajors()) {
  const { ai } = sdk;
  for (const mode of ['generate', 'stream']) {
    describe(`AI SDK ${sdk.major}, ${mode}: the claim seam's field cases`, () => {
      const guarded = (options, model) => {
        const guard = createGuard(options);
        return { guard, wrapped: ai.wrapLanguageModel({ model, middleware: guard.middleware }) };
      };

      it('a fabricated port number: one unsupported-claim finding names it, the answer unchanged', async () => {
        const seen = [];
        const { model } = claimModel(sdk);
        const { guard, wrapped } = guarded({ evidence: true, onFinding: (finding, run) => seen.push([finding.kind, run.id]) }, model);
        const { text } = await turn(sdk, mode, wrapped, [], CASES.fabricated.question);
        assert.equal(text, CASES.fabricated.first);
        assert.deepEqual(flaggedValues(guard.findings), ['9443']);
        assert.equal(guard.findings[0].seam, 'claim');
        assert.match(guard.findings[0].message, /9443/);
        assert.deepEqual(seen, [['unsupported-claim', guard.runIds()[0]]]);
        const row = rowOf(guard, 'unsupported-claim');
        assert.deepEqual([row.seam, row.checked, row.findings], ['claim', 1, 1]);
      });

      for (const name of ['grounded', 'userSupplied', 'escaped']) {
        it(`${name}: no finding, one checked-pass`, async () => {
          const { model } = claimModel(sdk);
          const { guard, wrapped } = guarded({ evidence: {} }, model);
          const { text } = await turn(sdk, mode, wrapped, [], CASES[name].question);
          assertStands(guard, text, name);
        });
      }

      for (const notice of [true, false]) {
        it(`an answer built only from a result four turns old: ${notice ? 'prior-turn-evidence' : 'nothing'} (noticePriorTurnEvidence: ${notice})`, async () => {
          const { model } = claimModel(sdk);
          const { guard, wrapped } = guarded({ evidence: true, noticePriorTurnEvidence: notice }, model);
          let messages = [];
          for (const question of PRIOR_TURNS) ({ messages } = await turn(sdk, mode, wrapped, messages, question));
          assert.deepEqual(flaggedValues(guard.findings), []);
          assert.deepEqual(guard.findings.map((finding) => finding.kind), notice ? ['prior-turn-evidence'] : []);
          if (notice) assert.equal(guard.findings[0].advisory, true);
          assert.equal(guard.runIds().length, 1);
          assert.equal(rowOf(guard, 'prior-turn-evidence') !== undefined, notice);
        });
      }

      it("'guard': the first answer is named back once, the revision grounds it, and only the revision reaches the caller", async () => {
        const { model, prompts } = claimModel(sdk);
        const { guard, wrapped } = guarded({ evidence: { posture: 'guard' } }, model);
        const { text, messages } = await turn(sdk, mode, wrapped, [], CASES.revision.question);
        assert.equal(text, CASES.revision.revised);
        assert.equal(prompts.length, 3);
        const asked = plainPrompt(prompts[2]).slice(-2);
        assert.deepEqual(asked.map((message) => message.role), ['assistant', 'user']);
        assert.equal(asked[0].text, CASES.revision.first);
        assert.match(asked[1].text, /^\[evidence check/);
        assert.match(asked[1].text, /9443/);
        // The history the SDK keeps holds the revision, not the failed answer.
        assert.ok(!JSON.stringify(messages).includes('9443'));
        assert.deepEqual(guard.findings, []);
        const row = rowOf(guard, 'unsupported-claim');
        assert.deepEqual([row.checked, row.findings], [1, 0]);
      });

      it("'guard': a revision that still invents is filed, and never revised again", async () => {
        const { model, prompts } = claimModel(sdk);
        const { guard, wrapped } = guarded({ evidence: { posture: 'guard' } }, model);
        const { text } = await turn(sdk, mode, wrapped, [], CASES.stubborn.question);
        assert.equal(text, CASES.stubborn.revised);
        assert.equal(prompts.length, 3);
        assert.deepEqual(flaggedValues(guard.findings), ['9444']);
        assert.match(guard.findings[0].message, /9444/);
      });

      it("'guard': a model that fails on the revision leaves the first answer, filed, and says so once", async () => {
        const errors = [];
        const { model, prompts } = claimModel(sdk, { fail: (prompt) => JSON.stringify(prompt).includes('[evidence check') });
        const { guard, wrapped } = guarded({ evidence: { posture: 'guard' }, onError: (error) => errors.push(error) }, model);
        const { text } = await turn(sdk, mode, wrapped, [], CASES.revision.question);
        assert.equal(text, CASES.revision.first);
        assert.equal(prompts.length, 3);
        assert.deepEqual(flaggedValues(guard.findings), ['9443']);
        assert.equal(errors.length, 1);
        assert.match(errors[0].message, /revision/);
      });

      it("stopOn: ['unsupported-claim'] marks the step, and guard.stopWhen reads it", async () => {
        const { model } = claimModel(sdk);
        const { guard, wrapped } = guarded({ evidence: true, stopOn: ['unsupported-claim'] }, model);
        const settings = { model: wrapped, tools: toolsByName(ai, CLAIM_TOOLS), stopWhen: [ai.stepCountIs(6), guard.stopWhen], prompt: CASES.fabricated.question };
        const result = mode === 'generate' ? await ai.generateText(settings) : ai.streamText(settings);
        const steps = await result.steps;
        const acted = steps.at(-1).providerMetadata?.seamguard;
        assert.equal(acted.stop, true);
        assert.deepEqual(acted.findings.map((finding) => [finding.kind, finding.seam, finding.tools, finding.values, finding.trips]), [['unsupported-claim', 'claim', [], ['9443'], true]]);
        assert.equal(acted.findings[0].value, undefined);
      });

      it('a throwing onFinding never reaches the run', async () => {
        const { model } = claimModel(sdk);
        const { guard, wrapped } = guarded({ evidence: true, onFinding: () => { throw new Error('listener bug'); }, onError: () => {} }, model);
        const { text } = await turn(sdk, mode, wrapped, [], CASES.fabricated.question);
        assert.equal(text, CASES.fabricated.first);
        assert.equal(guard.findings.length, 1);
      });
    });
  }

  describe(`AI SDK ${sdk.major}: odd answers never reach the run`, () => {
    const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
    const odd = [
      ['empty', [{ type: 'text', text: '' }]],
      ['a text part that is no string', [{ type: 'text', text: 42 }, null, { type: 'text' }]],
      ['no content at all', []],
      ['huge', [{ type: 'text', text: `port 9443 ${'and so on, '.repeat(20_000)}` }]],
    ];
    for (const [name, content] of odd) {
      for (const posture of ['assist', 'guard']) {
        it(`${name}, posture '${posture}'`, async () => {
          const errors = [];
          const guard = createGuard({ evidence: { posture }, onError: (error) => errors.push(error) });
          const model = new sdk.Mock({ doGenerate: async () => ({ content, finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE, warnings: [] }) });
          const wrapped = ai.wrapLanguageModel({ model, middleware: guard.middleware });
          const result = await wrapped.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'Which port?' }] }] });
          assert.ok(Array.isArray(result.content));
          assert.ok(guard.findings.every((finding) => finding.kind === 'unsupported-claim'));
          assert.equal(guard.findings.length, name === 'huge' ? 1 : 0);
        });
      }
    }
  });

  describe(`AI SDK ${sdk.major}: eight conversations at once on one guard, half streaming`, () => {
    for (const posture of ['assist', 'guard']) {
      it(`posture '${posture}': each run files its own values, and no turn is revised twice`, async () => {
        const { model, prompts } = claimModel(sdk);
        const guard = createGuard({ evidence: { posture } });
        const wrapped = ai.wrapLanguageModel({ model, middleware: guard.middleware });
        const texts = await Promise.all(CONCURRENT.map((c, i) => turn(sdk, i % 2 === 0 ? 'generate' : 'stream', wrapped, [], c.question)));
        const runs = guard.runIds().map((id) => guard.run(id));
        assert.equal(runs.length, 8);
        for (const [i, c] of CONCURRENT.entries()) {
          const run = runs.find((r) => JSON.stringify(r.findings).includes(`conversation ${i}`) || r.findings.length === 0);
          assert.ok(run !== undefined);
          const mine = prompts.filter((prompt) => JSON.stringify(prompt).includes(c.question));
          if (posture === 'assist') {
            assert.equal(texts[i].text, c.first);
            assert.equal(mine.length, 2);
          } else {
            assert.equal(texts[i].text, c.unsupported.length > 0 ? c.revised : c.first);
            assert.equal(mine.length, c.unsupported.length > 0 ? 3 : 2);
          }
        }
        const flagged = runs.map((run) => flaggedValues(run.findings)).filter((values) => values.length > 0);
        assert.deepEqual(flagged.sort(), posture === 'assist' ? CONCURRENT.filter((c) => c.unsupported.length > 0).map((c) => c.unsupported).sort() : []);
      });
    }
  });
}
