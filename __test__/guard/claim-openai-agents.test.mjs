// The claim seam in the OpenAI Agents SDK guard: the field cases of
// __test__/support/claim-cases.mjs through `run`, whole and streamed, with a
// fake `Model` answering from its input and function tools that really run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { createGuard } from 'seamguard/openai-agents';

import { CASES, CLAIM_TOOLS, CONCURRENT, PRIOR_TURNS, flaggedValues, stepOf } from '../support/claim-cases.mjs';

const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const skip = NODE_MAJOR < 22 ? `@openai/agents needs Node 22 or later (its openai 7 does); this is Node ${process.versions.node}` : false;

const sdk = skip ? undefined : await import('@openai/agents');
sdk?.setTracingDisabled(true);

const USAGE = { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 };

const tools = () =>
  CLAIM_TOOLS.map(({ name, description, properties, execute }) =>
    sdk.tool({ name, description, parameters: { type: 'object', properties, required: Object.keys(properties), additionalProperties: false }, strict: false, execute: async (input) => {
      const value = await execute(input);
      return typeof value === 'string' ? value : JSON.stringify(value);
    } }),
  );

/** A model input as `[{ role, text }]`. */
function plainInput(request) {
  const items = typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : request.input;
  return items.map((item) => {
    if (item.type === 'function_call_result') return { role: 'tool', text: JSON.stringify(item.output) };
    if (item.type === 'function_call') return { role: 'assistant', text: item.arguments };
    const text = typeof item.content === 'string' ? item.content : (item.content ?? []).map((part) => part.text ?? '').join('');
    return { role: item.role ?? 'assistant', text };
  });
}

/** A fake Agents SDK `Model` answering each request with `stepOf` its input. */
class ClaimModel {
  constructor({ fail } = {}) {
    this.prompts = [];
    this.fail = fail;
  }

  outputOf(request) {
    const plain = plainInput(request);
    const n = this.prompts.push(plain) - 1;
    if (this.fail?.(plain)) throw new Error('the provider is down');
    const step = stepOf(plain);
    if (step.text !== undefined) return [{ type: 'message', role: 'assistant', status: 'completed', id: `msg_${n}`, content: [{ type: 'output_text', text: step.text }] }];
    return step.calls.map((call, i) => ({ type: 'function_call', callId: `call-${n}-${i}`, name: call.toolName, arguments: JSON.stringify(call.input), status: 'completed' }));
  }

  async getResponse(request) {
    return { usage: new sdk.Usage(USAGE), output: this.outputOf(request), responseId: `resp_${this.prompts.length}` };
  }

  async *getStreamedResponse(request) {
    const output = this.outputOf(request);
    yield { type: 'response_started' };
    for (const item of output) {
      if (item.type !== 'message') continue;
      const { text } = item.content[0];
      for (let i = 0; i < text.length; i += 5) yield { type: 'output_text_delta', itemId: item.id, delta: text.slice(i, i + 5) };
    }
    yield { type: 'response_done', response: { id: `resp_${this.prompts.length}`, usage: USAGE, output } };
  }
}

/** One turn: `history` so far and the user's question; the final output, the streamed text and the history after. */
async function turn(mode, guard, model, history, question) {
  const agent = new sdk.Agent({ name: 'assistant', model: guard.model(model), tools: tools() });
  const input = [...history, { role: 'user', content: question }];
  if (mode === 'run') {
    const result = await sdk.run(agent, input);
    return { text: result.finalOutput, history: result.history };
  }
  const result = await sdk.run(agent, input, { stream: true });
  let streamed = '';
  for await (const delta of result.toTextStream()) streamed += delta;
  await result.completed;
  return { text: result.finalOutput, streamed, history: result.history };
}

const rowOf = (guard, check) => guard.ledger.report().find((row) => row.check === check);

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
        assert.equal(text, CASES[name].first);
        assert.deepEqual(guard.findings, []);
        const row = rowOf(guard, 'unsupported-claim');
        assert.deepEqual([row.checked + row.notApplicable, row.findings], [1, 0]);
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
