// agentfootprint's own tests of its evidence gate, transcribed as data
// (__test__/fixtures/claim-gate.json) and run against RunCorpus.evidenceOf.
// Each case names the agentfootprint test it came from. The agent run of the
// original becomes corpus pushes: the system prompt, the user's message, the
// tool results with their names; a guard revision is the draft judged first,
// then its `correction` pushed back (the failed answer as 'assistant', the
// `[evidence check` frame as 'user') and the revision judged with
// `revised: true`. `lookedUp` is agentfootprint's count of the values it
// looked up (grounded + unsupported): here fromThisTurn + fromPriorTurns +
// unsupported.length.
//
// Not transcribed, with the reason:
//
// names-and-numbers-from-evidence.test.ts (transcribed 12, skipped 12)
//   - "never loops — assist mounts no branch", "is ONE more ordinary turn",
//     "the guard branch loops in the GROUPED chart too" (its routing part),
//     "spends the revision AT MOST once per turn", "keeps the rejected draft
//     and internal correction out of the conversation": the routes, iteration
//     brackets, revision budget and history of agentfootprint's agent loop;
//     the verdicts those runs reach are the guard/draft cases transcribed.
//   - "raises UnsupportedValuesError naming the values": rails' error class
//     is agentfootprint's; its sentence is transcribed as the warning.
//   - "does not judge an answer that exhausted its schema retries": the
//     output-schema branch is agentfootprint's.
//   - "maxIterations cutting the turn short suppresses the revision": the
//     wrap-up call and iteration limit are agentfootprint's loop.
//   - the three "regression: an agent without the gate is byte-identical"
//     tests and "refuses a second gate on one agent": builder and chart
//     machinery; seamguard's gate runs only when evidenceOf is called.
// evidence-looked-up.test.ts (transcribed 6, skipped 1)
//   - "BYTE LAW — no gate, no evidence_checked": agentfootprint's event stream.
// evidence-carried-by.test.ts (transcribed 5, skipped 5)
//   - "counts per result, and how many only that result carried", "a result
//     that carried none of the values is not listed": the carriedBy list is
//     not part of seamguard's judgement (the verdicts of the same corpus are
//     transcribed from the SCENARIO tests).
//   - "a truncated corpus gives no list at all", "BOUNDARY — more carriers
//     than the index keeps": seamguard's index has no ceiling
//     (evidenceTruncated is always false).
//   - "no gate → no evidence_checked at all": the event stream.
// evidence/summary-exemption.test.ts (transcribed 3, skipped 11)
//   - "the audit probe", "an answer that repeats an invented summary value is
//     flagged", "a frame without lineage exempts nothing", the three lineage
//     tests, "the lineage never reaches a provider", and the folding-agent
//     SCENARIO: agentfootprint's compaction summary message and its
//     `foldedExempt` lineage; seamguard has neither (a summary a framework
//     writes as a user message is pushed as one, and is exempt).
//   - the three contingent-check tests: agentfootprint's findings ledger.
//   - "a summarized tool value keeps its tool source" is transcribed without
//     the summary frame: the folded result is an evicted entry.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { RunCorpus } = require('seamguard');

const fixture = JSON.parse(readFileSync(new URL('../fixtures/claim-gate.json', import.meta.url), 'utf8'));

const lookedUp = (judged) => judged.grounding.fromThisTurn + judged.grounding.fromPriorTurns + judged.unsupported.length;

// Checks the parts of a judgement a case states; every case states at
// least its unsupported values.
function expectJudgement(judged, expected, from) {
  assert.deepEqual(judged.unsupported.map((u) => u.value), expected.unsupported, from);
  if ('candidates' in expected) assert.equal(judged.candidates, expected.candidates, `${from}: candidates`);
  if ('lookedUp' in expected) assert.equal(lookedUp(judged), expected.lookedUp, `${from}: looked up`);
  if ('fromThisTurn' in expected) assert.equal(judged.grounding.fromThisTurn, expected.fromThisTurn, `${from}: fromThisTurn`);
  if ('toolResultsThisTurn' in expected) {
    assert.equal(judged.grounding.toolResultsThisTurn, expected.toolResultsThisTurn, `${from}: toolResultsThisTurn`);
  }
  if ('disposition' in expected) assert.equal(judged.disposition, expected.disposition, `${from}: disposition`);
  const flagged = expected.unsupported.length > 0;
  assert.equal('correction' in judged, flagged, `${from}: a correction exactly when something is unsupported`);
  assert.equal('warning' in judged, flagged, `${from}: a warning exactly when something is unsupported`);
  assert.equal(judged.findings.length, flagged ? 1 : 0, `${from}: findings`);
  if (flagged) {
    assert.equal(judged.findings[0].kind, 'unsupported-claim');
    for (const value of expected.unsupported) assert.ok(judged.correction[1].content.includes(`\`${value}\``), `${from}: the correction names ${value}`);
  }
  for (const text of expected.warningIncludes ?? []) assert.ok(judged.warning.includes(text), `${from}: warning has ${text}`);
  for (const text of expected.warningExcludes ?? []) assert.ok(!judged.warning.includes(text), `${from}: warning lacks ${text}`);
}

function run(c) {
  const corpus = new RunCorpus();
  const handles = c.history.map((entry) => corpus.push(entry));
  const options = { ...c.options };
  if (c.draft) {
    const draft = corpus.evidenceOf(c.draft.answer, options, 1);
    expectJudgement(draft, { unsupported: c.draft.unsupported, ...('lookedUp' in c.draft ? { lookedUp: c.draft.lookedUp } : {}) }, `${c.from} (draft)`);
    assert.equal(draft.correction[0].content, c.draft.answer);
    corpus.push({ role: 'assistant', text: draft.correction[0].content });
    corpus.push({ role: 'user', text: draft.correction[1].content });
    options.revised = true;
  }
  if (c.evict) {
    expectJudgement(corpus.evidenceOf(c.answer, options, 1), c.beforeEvict, `${c.from} (in the window)`);
    corpus.evict(c.evict.map((i) => handles[i]));
  }
  return corpus.evidenceOf(c.answer, options, 1);
}

const byFile = new Map();
for (const c of fixture.cases) {
  const file = c.from.split(' › ')[0];
  if (!byFile.has(file)) byFile.set(file, []);
  byFile.get(file).push(c);
}

for (const [file, cases] of byFile) {
  describe(`transcribed: ${file}`, () => {
    for (const c of cases) {
      it(c.from.slice(file.length + 3), () => {
        expectJudgement(run(c), c.expected, c.from);
      });
    }
  });
}

describe('the fixture', () => {
  it('covers the four files, every case naming its source and stating its unsupported values', () => {
    assert.deepEqual([...byFile.keys()].sort(), [
      'evidence-carried-by.test.ts',
      'evidence-looked-up.test.ts',
      'evidence/summary-exemption.test.ts',
      'names-and-numbers-from-evidence.test.ts',
    ]);
    assert.equal(fixture.cases.length, 26);
    for (const c of fixture.cases) {
      assert.ok(Array.isArray(c.expected.unsupported), c.from);
      assert.ok(c.history.length > 0, c.from);
    }
  });

  it('a revision judged without its draft would pass or fail the same: the correction exempts nothing', () => {
    for (const c of fixture.cases.filter((x) => x.draft)) {
      const corpus = new RunCorpus();
      for (const entry of c.history) corpus.push(entry);
      const direct = corpus.evidenceOf(c.answer, { ...c.options, revised: true }, 1);
      assert.deepEqual(direct.unsupported.map((u) => u.value), c.expected.unsupported, c.from);
    }
  });
});
