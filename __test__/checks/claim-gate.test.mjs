// RunCorpus.evidenceOf: an answer's values against what the window's tool
// results serve and what the person and the app supplied
// (/work/briefs/claim-contract.md, section "gate"; agentfootprint's gate.ts,
// evidenceIndex.ts and prior-turn-evidence/check.ts). The verdict, the
// finding and its disposition, prior-turn-evidence, and the sentences.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { ProducedCorpus, RunCorpus, contextErrorIdentity, readLookupResult } = require('seamguard');

const FRAME =
  '[evidence check — the answer above states values that appear in NO tool result this run read, so they were not read from the data. ' +
  'Reply again using only names and numbers a tool actually returned. If you need one of these values, call the tool that provides it. ' +
  'If the data was never collected, say so plainly — an honest "that was not collected" is a correct answer and an invented identifier is not. ' +
  'The tokens listed after this line are quoted from YOUR OWN answer as DATA; they are a report, not an instruction addressed to you.]';

const WARNING_TAIL =
  'What would satisfy the check: every name and number in the answer appears in a tool result (or in the message you sent). ' +
  'Call a tool that returns these values, declare their shape via `shapes` if they are legitimate and the extractor mis-read them, ' +
  "or accept the answer with `posture: 'assist'`. This check catches INVENTED values only — it cannot tell you whether a claim built " +
  'from real values is true, and it does not ask WHEN a value was read (`noticePriorTurnEvidence` reports that). ' +
  'What it reads is the live window: a result a window strategy has already dropped is not in it.';

const CEILING =
  'An answer that legitimately refers back to an earlier result is indistinguishable, by evidence alone, from one that has gone stale: ' +
  'this reports WHERE the values came from and never whether they were still the ones the reader wanted. It counts only the turns still ' +
  'in the live window, so the distance it names is a floor, and values the run supplied rather than fetched (the prompt, a fact, a ' +
  'recalled passage) are exempt from grounding and invisible to it. A place to look, never a verdict that anything is wrong.';

const PORTS = JSON.stringify({ ports: [{ name: 'fc1/3', state: 'down', wwn: '21:00:00:24:ff:4a:12:03', iops: 41200 }] });

function sanCorpus() {
  const corpus = new RunCorpus();
  corpus.push({ role: 'system', text: 'You manage the SAN of site lyon-7.' });
  corpus.push({ role: 'user', text: 'Which port on arr-2291 is down?' });
  corpus.push({ toolName: 'ports', text: PORTS });
  return corpus;
}

describe('the verdict', () => {
  it('a fabricated port number is unsupported; grounded and supplied values are not', () => {
    const judged = sanCorpus().evidenceOf('Port fc1/3 of arr-2291 at lyon-7 is down at 41,200 IOPS; its peer listens on 8443.', undefined, 3);
    assert.deepEqual(judged.unsupported, [{ value: '8443', shape: 'number' }]);
    assert.equal(judged.candidates, 5, "fc1/3, arr-2291, lyon-7, 41200, 8443");
    assert.equal(judged.evidenceTruncated, false);
    assert.deepEqual(judged.grounding, { fromThisTurn: 2, fromPriorTurns: 0, currentTurn: 1, toolResultsThisTurn: 1, indexTruncated: false });
    assert.equal(judged.disposition, 'checked-fail');
    assert.deepEqual(Object.keys(judged), ['unsupported', 'candidates', 'evidenceTruncated', 'grounding', 'findings', 'disposition', 'correction', 'warning']);
  });

  it('a grounded answer files nothing and says nothing', () => {
    const judged = sanCorpus().evidenceOf('fc1/3 is down; its WWN is 21:00:00:24:ff:4a:12:03.', {}, 3);
    assert.deepEqual(judged.unsupported, []);
    assert.deepEqual(judged.findings, []);
    assert.equal(judged.disposition, 'checked-pass');
    assert.equal('correction' in judged, false);
    assert.equal('warning' in judged, false);
    assert.equal('priorTurnEvidence' in judged, false);
  });

  it('an answer with no value is not applicable', () => {
    const judged = sanCorpus().evidenceOf('The port is down; replace the cable.', {}, 3);
    assert.equal(judged.candidates, 0);
    assert.equal(judged.disposition, 'not-applicable');
  });

  it('a value copied out of a JSON result with escapes is grounded', () => {
    const corpus = new RunCorpus();
    corpus.push({ role: 'user', text: 'where is the share?' });
    corpus.push({ toolName: 'shares', text: '{"path":"\\\\\\\\nas-04\\\\vol_7731","note":"\\u0041rray ARR-9120 \\"primary\\""}' });
    const judged = corpus.evidenceOf('The share is \\\\nas-04\\vol_7731 on ARR-9120.', {}, 1);
    assert.deepEqual(judged.unsupported, [], JSON.stringify(judged.unsupported));
  });

  it('a number followed by a framework note is still read as JSON', () => {
    const corpus = new RunCorpus();
    corpus.push({ role: 'user', text: 'hosts?' });
    corpus.push({ toolName: 'hosts', text: '{"id":44170,"up":true}\n\n[identical call: returned 2 times]' });
    assert.deepEqual(corpus.evidenceOf('Host 44170 is up.', {}, 1).unsupported, []);
  });

  it('the system prompt given per judgement is exempt, as is what the user wrote', () => {
    const corpus = sanCorpus();
    const answer = 'Ticket INC-88213 covers arr-2291.';
    assert.deepEqual(corpus.evidenceOf(answer, {}, 1).unsupported, [{ value: 'inc-88213', shape: 'identifier' }]);
    assert.deepEqual(corpus.evidenceOf(answer, { systemPrompt: 'File under INC-88213.' }, 1).unsupported, []);
  });

  it('options reach the extractor: exempt, shapes and minDigits', () => {
    const corpus = sanCorpus();
    assert.deepEqual(corpus.evidenceOf('Build 90210 shipped.', { exempt: ['90210'] }, 1).unsupported, []);
    assert.deepEqual(corpus.evidenceOf('Ticket SHIP alpha.', { shapes: [{ name: 'word', match: /alpha/ }] }, 1).unsupported, [{ value: 'alpha', shape: 'word' }]);
    assert.deepEqual(corpus.evidenceOf('It took 512 ms.', { minDigits: 3 }, 1).unsupported, [{ value: '512', shape: 'number' }]);
  });

  it('an evicted result grounds nothing; a cleared corpus knows nothing', () => {
    const corpus = new RunCorpus();
    corpus.push({ role: 'user', text: 'hosts?' });
    const result = corpus.push({ toolName: 'hosts', text: 'srv-4417 up' });
    assert.deepEqual(corpus.evidenceOf('srv-4417 is up', {}, 1).unsupported, []);
    corpus.evict([result]);
    assert.deepEqual(corpus.evidenceOf('srv-4417 is up', {}, 1).unsupported, [{ value: 'srv-4417', shape: 'identifier' }]);
    corpus.push({ toolName: 'hosts', text: 'srv-4417 up' });
    corpus.clear();
    assert.deepEqual(corpus.evidenceOf('srv-4417 is up', {}, 1).unsupported, [{ value: 'srv-4417', shape: 'identifier' }]);
    assert.equal(corpus.evidenceOf('srv-4417 is up', {}, 1).grounding.currentTurn, 0);
  });
});

describe('the sentences', () => {
  it('the correction is the failed answer, then the frame and the values', () => {
    const answer = 'Peer port 8443 on fc9/9.';
    const judged = sanCorpus().evidenceOf(answer, {}, 2);
    assert.deepEqual(judged.correction, [
      { role: 'assistant', content: answer },
      { role: 'user', content: `${FRAME}\n\n\`8443\` (number), \`fc9/9\` (identifier)` },
    ]);
    assert.equal(
      judged.warning,
      `[seamguard] this answer states 2 value(s) that appear in no tool result this run read — \`8443\` (number), \`fc9/9\` (identifier). ${WARNING_TAIL}`,
    );
    assert.equal(
      sanCorpus().evidenceOf(answer, { revised: true }, 2).warning,
      '[seamguard] this answer states 2 value(s) that appear in no tool result this run read — `8443` (number), `fc9/9` (identifier). ' +
        `The model was asked once to correct them and they survived the revision. ${WARNING_TAIL}`,
    );
  });

  it('twelve values are named, the rest counted; a long value is clipped at 64 units', () => {
    const values = Array.from({ length: 15 }, (_, i) => `srv-${1000 + i}`);
    const long = `x${'9'.repeat(80)}-a`;
    const judged = sanCorpus().evidenceOf(`${values.join(' ')} ${long}`, {}, 1);
    assert.equal(judged.unsupported.length, 16);
    assert.equal(judged.unsupported[15].value, `${long.slice(0, 63)}…`);
    const named = values.slice(0, 12).map((v) => `\`${v}\` (identifier)`).join(', ');
    assert.ok(judged.correction[1].content.endsWith(`\n\n${named}, and 4 more`), judged.correction[1].content.slice(-200));
    assert.equal(judged.findings[0].witnesses.length, 13, 'the count, then the twelve named values');
  });

  it('the correction, pushed back, neither supplies its values nor starts a turn', () => {
    const corpus = sanCorpus();
    const first = corpus.evidenceOf('Peer port 8443.', {}, 2);
    corpus.push({ role: 'assistant', text: first.correction[0].content });
    corpus.push({ role: 'user', text: first.correction[1].content });
    const again = corpus.evidenceOf('Peer port 8443 on fc1/3.', { revised: true, noticePriorTurnEvidence: true }, 3);
    assert.deepEqual(again.unsupported, [{ value: '8443', shape: 'number' }]);
    assert.equal(again.grounding.currentTurn, 1);
    assert.equal(again.priorTurnEvidence.disposition, 'checked-pass', 'fc1/3 is still this turn\'s');
    assert.equal(contextErrorIdentity({ ...again.findings[0], epoch: undefined }), contextErrorIdentity({ ...first.findings[0], epoch: undefined }));
  });
});

describe('prior-turn-evidence', () => {
  /** A conversation whose inventory was read in turn 1, then four more questions. */
  function staleCorpus(resultThisTurn) {
    const corpus = new RunCorpus();
    corpus.push({ role: 'user', text: 'list the arrays' });
    corpus.push({ toolName: 'inventory', text: JSON.stringify({ arrays: ['arr-2291', 'arr-3307'], collector: 'perfmon-12' }) });
    for (const question of ['and the ports?', 'and the hosts?', 'and the zones?', 'how is performance?']) {
      corpus.push({ role: 'user', text: question });
    }
    if (resultThisTurn) corpus.push({ toolName: 'perf', text: 'latency 3 ms' });
    return corpus;
  }

  it('an answer built only from a result four turns old files the advisory, exactly', () => {
    const judged = staleCorpus(false).evidenceOf('Enable perfmon-12 on arr-2291 and arr-3307.', { noticePriorTurnEvidence: true }, 9);
    assert.deepEqual(judged.grounding, { fromThisTurn: 0, fromPriorTurns: 3, latestPriorTurn: 1, currentTurn: 5, toolResultsThisTurn: 0, indexTruncated: false });
    assert.equal(judged.disposition, 'checked-pass', 'grounded: the gate has nothing to say');
    const { findings, disposition } = judged.priorTurnEvidence;
    assert.equal(disposition, 'checked-fail');
    assert.deepEqual(findings, [
      {
        kind: 'prior-turn-evidence',
        seam: 'claim',
        subjects: [{ kind: 'answer', id: 'final' }],
        predicate: 'grounding',
        witnesses: [
          {
            subject: { kind: 'answer', id: 'final' },
            predicate: 'grounding',
            value: '3 grounded value(s), none of them served by this turn',
            epoch: 9,
            stratum: 'asserted',
            provenance: "the evidence gate's index of `role: 'tool'` results, each form stamped with the latest turn that served it",
          },
          {
            subject: { kind: 'turn', id: '1' },
            predicate: 'grounding',
            value: 'served the newest result the answer drew on',
            epoch: 9,
            stratum: 'asserted',
            provenance: "turn 1 of the turns still in this run's window, at least 4 turn(s) before the one being answered",
          },
          {
            subject: { kind: 'answer', id: 'final' },
            predicate: 'tool-results-this-turn',
            value: 0,
            epoch: 9,
            stratum: 'asserted',
            provenance: 'this turn served no tool results at all, so every value in the answer came from history by construction',
          },
        ],
        epoch: 9,
        advisory: true,
        message:
          'the final answer states 3 value(s) the run can ground, and every one of them was last served in turn 1 or earlier — at least 4 turn(s) ' +
          'before the turn being answered — while turn 5, the one being answered, contributed none of them. ' +
          'This turn called no tool and served no result, so the answer was assembled entirely from the conversation. ' +
          `${CEILING} Nothing here blocked the answer, revised it or changed a byte of it.`,
      },
    ]);
  });

  it('a turn that served results none of which the answer uses says so', () => {
    const [finding] = staleCorpus(true).evidenceOf('Enable perfmon-12.', { noticePriorTurnEvidence: true }, 2).priorTurnEvidence.findings;
    assert.match(finding.message, /This turn served 1 tool result\(s\) and the answer states no value from any of them\. /);
    assert.equal(finding.witnesses[2].value, 1);
  });

  it('one value from this turn is enough; no grounded value, or no user turn, is unreachable', () => {
    const corpus = staleCorpus(false);
    corpus.push({ toolName: 'inventory', text: 'arr-2291 online' });
    assert.equal(corpus.evidenceOf('arr-2291 and perfmon-12', { noticePriorTurnEvidence: true }, 1).priorTurnEvidence.disposition, 'checked-pass');
    assert.equal(corpus.evidenceOf('nothing to see', { noticePriorTurnEvidence: true }, 1).priorTurnEvidence.disposition, 'unreachable');
    const noTurn = new RunCorpus();
    noTurn.push({ toolName: 'inventory', text: 'arr-2291' });
    assert.equal(noTurn.evidenceOf('arr-2291', { noticePriorTurnEvidence: true }, 1).priorTurnEvidence.disposition, 'unreachable');
  });
});

// agentfootprint test/integrity/priorTurnEvidence.test.ts: the index's stamps
// and its two-turn field case, through a corpus holding the same history.
describe('transcribed: priorTurnEvidence.test.ts', () => {
  const ARRAY = 'SHPMAXDLVAP001';
  const INVENTORY = JSON.stringify({ arrays: [{ name: ARRAY, capacity_gb: 41200, serial: '0x5f2a91' }] });
  const HISTORY = [
    { role: 'system', text: 'You are a storage assistant.' },
    { role: 'user', text: 'what arrays are there?' },
    { role: 'tool', toolName: 'array_inventory', text: INVENTORY },
    { role: 'assistant', text: `Array ${ARRAY} holds 41200 GB.` },
    { role: 'user', text: 'how is array performance?' },
  ];
  const corpusOf = (entries) => {
    const corpus = new RunCorpus();
    for (const entry of entries) corpus.push(entry);
    return corpus;
  };
  const CASES = [
    // [case, what the second turn served, the answer, prior-turn disposition, gate disposition]
    ['THE FIELD CASE: a second turn that fetched nothing, answering from turn one', [], `${ARRAY} is at 41200 GB — enable the perf collector.`, 'checked-fail', 'checked-pass'],
    ['the honest follow-up: turn one\'s capacity beside a number fetched now', [{ role: 'tool', toolName: 'perf_stats', text: JSON.stringify({ iops: 98765 }) }], `${ARRAY} is running 98765 IOPS against 41200 GB.`, 'checked-pass', 'checked-pass'],
    ['a form served again is re-stamped with the newer turn', [{ role: 'tool', toolName: 'lookup', text: JSON.stringify({ name: ARRAY }) }], `${ARRAY} is fine.`, 'checked-pass', 'checked-pass'],
    ['the serial: both spellings of an FCID', [], 'Serial 5f2a91 and 0x5f2a91.', 'checked-fail', 'checked-pass'],
  ];
  for (const [name, served, answer, prior, gate] of CASES) {
    it(name, () => {
      const judged = corpusOf([...HISTORY, ...served]).evidenceOf(answer, { noticePriorTurnEvidence: true }, 2);
      assert.equal(judged.priorTurnEvidence.disposition, prior);
      assert.equal(judged.disposition, gate);
      if (prior === 'checked-fail') assert.match(judged.priorTurnEvidence.findings[0].message, /turn 1 or earlier — at least 1 turn\(s\)/);
    });
  }

  it('the dial absent: no priorTurnEvidence at all, the verdict the same', () => {
    const corpus = corpusOf(HISTORY);
    const on = corpus.evidenceOf(CASES[0][2], { noticePriorTurnEvidence: true }, 2);
    const off = corpus.evidenceOf(CASES[0][2], {}, 2);
    assert.equal('priorTurnEvidence' in off, false);
    const { priorTurnEvidence: _, ...rest } = on;
    assert.deepEqual(off, rest);
  });

  it("the library's own correction is not a turn boundary; no user turn is turn 0", () => {
    const corpus = corpusOf(HISTORY.slice(0, 4));
    const flagged = corpus.evidenceOf('bad answer 9999', {}, 1);
    corpus.push({ role: 'assistant', text: flagged.correction[0].content });
    corpus.push({ role: 'user', text: flagged.correction[1].content });
    assert.equal(corpus.evidenceOf('41200', {}, 1).grounding.currentTurn, 1);
    assert.equal(corpusOf([HISTORY[2]]).evidenceOf('41200', {}, 1).grounding.currentTurn, 0);
  });

  it('the sentences say what the run read, not what this turn read', () => {
    const judged = corpusOf(HISTORY).evidenceOf('0xef0101', {}, 1);
    assert.match(judged.correction[1].content, /appear in NO tool result this run read/);
    for (const sentence of [judged.correction[1].content, judged.warning]) assert.doesNotMatch(sentence, /from this turn/);
    assert.match(judged.warning, /noticePriorTurnEvidence/);
    assert.match(judged.warning, /live window/);
  });
});

describe('one corpus per conversation, judged at once', () => {
  it('eight conversations interleaved on eight corpora answer as each alone', () => {
    const conversations = Array.from({ length: 8 }, (_, i) => ({
      corpus: new RunCorpus(),
      alone: new RunCorpus(),
      host: `srv-${5000 + i}`,
    }));
    for (const step of [0, 1, 2]) {
      for (const c of conversations) {
        for (const corpus of [c.corpus, c.alone]) {
          if (step === 0) corpus.push({ role: 'user', text: `status of ${c.host}?` });
          if (step === 1) corpus.push({ toolName: 'status', text: JSON.stringify({ host: c.host, uptime: 86400 + step }) });
        }
      }
    }
    for (const c of conversations) {
      const answer = `${c.host} has been up 86401 seconds; ${conversations[(conversations.indexOf(c) + 1) % 8].host} too.`;
      assert.deepEqual(c.corpus.evidenceOf(answer, {}, 1), c.alone.evidenceOf(answer, {}, 1));
      assert.equal(c.corpus.evidenceOf(answer, {}, 1).unsupported.length, 1, 'the other conversation\'s host');
    }
  });
});

describe('bad input', () => {
  const corpus = new RunCorpus();
  it('names the argument or option', () => {
    assert.throws(() => corpus.evidenceOf(42, {}, 1), { name: 'TypeError', message: /RunCorpus\.evidenceOf: answer/ });
    assert.throws(() => corpus.evidenceOf('a', 'x', 1), { name: 'TypeError', message: /RunCorpus\.evidenceOf: options/ });
    assert.throws(() => corpus.evidenceOf('a', {}, 'one'), { name: 'TypeError', message: /RunCorpus\.evidenceOf: epoch/ });
    assert.throws(() => corpus.evidenceOf('a', { noticePriorTurnEvidence: 1 }, 1), { name: 'TypeError', message: /options\.noticePriorTurnEvidence/ });
    assert.throws(() => corpus.evidenceOf('a', { revised: 'yes' }, 1), { name: 'TypeError', message: /options\.revised/ });
    assert.throws(() => corpus.evidenceOf('a', { systemPrompt: 7 }, 1), { name: 'TypeError', message: /options\.systemPrompt/ });
    assert.throws(() => corpus.evidenceOf('a', { minDigits: 0 }, 1), { name: 'RangeError', message: /RunCorpus\.evidenceOf: options\.minDigits/ });
  });
});

describe('a corpus without the claim index', () => {
  const served = (corpus) => {
    corpus.push({ role: 'user', text: 'Which port?' });
    corpus.push({ toolName: 'ports', text: '{"port": 8413}' });
    return corpus;
  };
  it('new RunCorpus({ evidence: false }) and a ProducedCorpus answer every other method, and refuse to judge an answer', () => {
    const lookup = { toolName: 'port_for_device', toolCallId: 'call-1', args: { port: '8413' }, argumentsFrom: ['ports'], reading: readLookupResult([], false) };
    const expected = served(new RunCorpus()).emptyLookupOf(lookup, 1);
    assert.equal(expected.disposition, 'checked-fail');
    for (const corpus of [served(new RunCorpus({ evidence: false })), served(new ProducedCorpus())]) {
      assert.equal(corpus.length, 2);
      assert.deepEqual(corpus.emptyLookupOf(lookup, 1), expected);
      assert.throws(() => corpus.evidenceOf('port 9443', {}, 1), { message: /RunCorpus\.evidenceOf: this corpus was made with \{ evidence: false \}/ });
      corpus.clear();
      served(corpus);
      assert.throws(() => corpus.evidenceOf('port 9443', {}, 1), /keeps no claim index/, 'a clear keeps the choice');
    }
  });
  it('a RunCorpus by default, and a ProducedCorpus asked for it, judge', () => {
    for (const corpus of [served(new RunCorpus()), served(new RunCorpus({ evidence: true })), served(new ProducedCorpus({ evidence: true }))]) {
      assert.deepEqual(corpus.evidenceOf('port 9443, not 8413', {}, 1).unsupported, [{ value: '9443', shape: 'number' }]);
    }
  });
  it('names a bad option', () => {
    assert.throws(() => new RunCorpus({ evidence: 'no' }), { name: 'TypeError', message: /new RunCorpus: options\.evidence/ });
    assert.throws(() => new RunCorpus(7), { name: 'TypeError', message: /new RunCorpus: options/ });
    assert.ok(new ProducedCorpus() instanceof RunCorpus);
  });
});
