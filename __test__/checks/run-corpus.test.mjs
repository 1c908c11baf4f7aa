// RunCorpus against its rules (docs/checks.md, "One run, one corpus"): one
// run's messages, pushed once, evicted as the window drops them, and judged
// by the three checks.
// Each method must answer exactly what the stateless function answers for
// the entries in the window (built here by the model corpus in
// support/check-model.mjs), plus the disposition to note.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';
import { NOT_STRINGS, rng } from '../support/helpers.mjs';
import { ModelRunCorpus, NOWHERE, SELF_REFERENCED, choiceDisposition, composeDisposition, modelChoiceVerdicts, verdictsOfAnswer, visibleVerdicts } from '../support/check-model.mjs';

const require = createRequire(import.meta.url);
const { ProducedCorpus, RunCorpus, danglingReferencesOf, emptyLookupOf, readLookupResult, unsupportedArgumentsOf } = require('seamguard');

const EMPTY = readLookupResult([], false);
const backup = (machine) => ({ toolName: 'backup_status', toolCallId: 'c1', args: { machine }, argumentsFrom: ['fleet_report'] });
const BACKUP_TOOL = [{ name: 'backup_status', argumentsFrom: ['fleet_report'] }];

/** A corpus holding the user, tool and assistant entries of the spec's example. */
function exampleCorpus() {
  const corpus = new RunCorpus();
  corpus.push({ role: 'user', text: 'status of ganymede-01 please' });
  corpus.push({ toolName: 'fleet_report', text: 'FLEET: callisto-02, europa-03' });
  corpus.push({ role: 'assistant', text: 'I looked at io-77 earlier.' });
  return corpus;
}

/** The states of an unsupportedArgumentsOf answer, with its disposition. */
const statesOf = (answer) => [answer.findings.map((f) => [f.predicate, f.witnesses[1].value]), answer.disposition];

describe('the eviction example, step by step', () => {
  it('grounds, then stops grounding, as the window drops each entry', () => {
    const c = new RunCorpus();
    assert.equal(c.push({ role: 'user', text: 'status of ganymede-01 please' }), 0);
    assert.equal(c.push({ toolName: 'fleet_report', text: 'FLEET: callisto-02, europa-03' }), 1);
    assert.equal(c.push({ role: 'assistant', text: 'I looked at io-77 earlier.' }), 2);
    assert.deepEqual([c.length, c.windowLength], [3, 3]);
    const call = backup('ganymede-01');

    const first = c.unsupportedArgumentsOf([call], {}, 3);
    assert.deepEqual(first, { findings: [], externalGroundings: [], disposition: 'checked-pass' });
    assert.deepEqual(Object.keys(first), ['findings', 'externalGroundings', 'disposition']);

    assert.equal(c.evict([0]), undefined);
    assert.deepEqual([c.length, c.windowLength], [3, 2]);
    const nowhere = c.unsupportedArgumentsOf([call], {}, 3);
    assert.deepEqual(statesOf(nowhere), [[['machine', NOWHERE]], 'checked-fail']);
    assert.deepEqual(nowhere.findings[0].subjects, [{ kind: 'tool', id: 'backup_status' }]);
    assert.equal(nowhere.findings[0].epoch, 3);
    assert.match(nowhere.findings[0].message, /nowhere/i);

    const self = c.unsupportedArgumentsOf([{ ...call, args: { machine: 'io-77' } }], {}, 3);
    assert.deepEqual(statesOf(self), [[['machine', SELF_REFERENCED]], 'checked-fail']);
    assert.match(self.findings[0].message, /own earlier answer|own earlier prose/i);

    c.evict([2]);
    assert.deepEqual([c.length, c.windowLength], [3, 1]);
    assert.deepEqual(statesOf(c.unsupportedArgumentsOf([{ ...call, args: { machine: 'io-77' } }], {}, 3)), [[['machine', NOWHERE]], 'checked-fail']);

    const notYet = c.danglingReferencesOf(BACKUP_TOOL, 4);
    assert.deepEqual(notYet, { findings: [], disposition: 'not-applicable' });
    assert.deepEqual(Object.keys(notYet), ['findings', 'disposition']);

    c.evict([1]);
    assert.deepEqual([c.length, c.windowLength], [3, 0]);
    const dangling = c.danglingReferencesOf(BACKUP_TOOL, 4);
    assert.equal(dangling.disposition, 'checked-fail');
    assert.equal(dangling.findings.length, 1);
    assert.deepEqual(dangling.findings[0].subjects, [{ kind: 'tool', id: 'backup_status' }, { kind: 'tool', id: 'fleet_report' }]);
    assert.equal(dangling.findings[0].witnesses[0].value, "results of 'fleet_report' evicted, not re-established");
    assert.equal(dangling.findings[0].epoch, 4);
    assert.deepEqual(dangling, { findings: danglingReferencesOf(BACKUP_TOOL, new Set(['fleet_report']), new Set(), 4), disposition: 'checked-fail' });

    assert.equal(c.push({ toolName: 'fleet_report', text: 'FLEET: callisto-02' }), 3);
    assert.deepEqual([c.length, c.windowLength], [4, 1]);
    assert.deepEqual(c.danglingReferencesOf(BACKUP_TOOL, 5), { findings: [], disposition: 'checked-pass' });
  });
});

describe('ids and lengths', () => {
  it('counts ids up from 0 over the whole life of the corpus; clear does not restart them', () => {
    const c = new RunCorpus();
    const ids = [];
    ids.push(c.push({ role: 'system', text: 'sys' }));
    ids.push(c.push({ role: 'user', text: 'u' }));
    ids.push(c.push({ toolName: 't', text: 'r' }));
    ids.push(c.push({ role: 'tool', text: 'r', toolName: 't' }));
    ids.push(c.push({ role: 'assistant', text: 'a' }));
    assert.deepEqual(ids, [0, 1, 2, 3, 4]);
    c.clear();
    assert.deepEqual([c.length, c.windowLength], [0, 0]);
    assert.equal(c.push({ role: 'user', text: 'again' }), 5);
    c.clear();
    c.clear();
    assert.equal(c.push({ role: 'user', text: 'and again' }), 6);
    assert.equal(typeof new RunCorpus().push({ role: 'user', text: 'x' }), 'number');
    assert.equal(new RunCorpus().push({ role: 'user', text: 'x' }), 0, 'each corpus counts its own');
  });

  it('never reuses an id: evicting an id from before clear touches none of the new entries', () => {
    const c = new RunCorpus();
    c.push({ toolName: 'inventory', text: 'host-a' }); // 0
    c.push({ toolName: 'inventory', text: 'host-b' }); // 1
    c.clear();
    assert.equal(c.push({ toolName: 'inventory', text: 'host-a' }), 2);
    c.evict([0, 1]);
    assert.deepEqual([c.length, c.windowLength], [1, 1]);
    const call = { toolName: 'lookup', toolCallId: 'k', args: { h: 'host-a' }, argumentsFrom: ['inventory'], reading: EMPTY };
    assert.equal(c.emptyLookupOf(call, 1).disposition, 'checked-fail');
    assert.equal(c.danglingReferencesOf([{ name: 'lookup', argumentsFrom: ['inventory'] }], 1).disposition, 'not-applicable');
  });

  it('length counts every entry since clear, windowLength those not evicted', () => {
    const c = new RunCorpus();
    for (let i = 0; i < 10; i++) c.push({ role: i % 2 ? 'user' : 'tool', text: `t${i}`, toolName: 'x' });
    assert.deepEqual([c.length, c.windowLength], [10, 10]);
    c.evict([1, 3, 5]);
    assert.deepEqual([c.length, c.windowLength], [10, 7]);
    c.evict([3, 5, 7, 7, 7]);
    assert.deepEqual([c.length, c.windowLength], [10, 6]);
    c.evict([]);
    assert.deepEqual([c.length, c.windowLength], [10, 6]);
    c.evict([9, 8, 0, 2, 4, 6]);
    assert.deepEqual([c.length, c.windowLength], [10, 0]);
    c.push({ role: 'user', text: 'late' });
    assert.deepEqual([c.length, c.windowLength], [11, 1]);
    c.clear();
    assert.deepEqual([c.length, c.windowLength], [0, 0]);
  });

  it('lengths are getters that cannot be assigned', () => {
    const c = new RunCorpus();
    c.push({ role: 'user', text: 'x' });
    assert.equal(Reflect.set(c, 'length', 9), false);
    assert.equal(Reflect.set(c, 'windowLength', 9), false);
    assert.deepEqual([c.length, c.windowLength], [1, 1]);
  });
});

describe('evict', () => {
  it('refuses anything but an array, naming ids, and evicts nothing', () => {
    const c = exampleCorpus();
    for (const [kind, ids] of [...NOT_STRINGS.filter(([, value]) => !Array.isArray(value)), ['string', '0'], ['object', { 0: 0, length: 1 }], ['object', new Set([0])]]) {
      assert.throws(() => c.evict(ids), (error) => error instanceof TypeError && /ids/.test(error.message) || error.message === 'trap must not run', kind);
    }
    assert.throws(() => c.evict(), { name: 'TypeError', message: /ids/ });
    assert.equal(c.windowLength, 3);
  });

  const BAD_IDS = [
    ['a string', '1'],
    ['a boxed number', new Number(1)],
    ['null', null],
    ['undefined', undefined],
    ['a bigint', 1n],
    ['an object', {}],
    ['an array', [1]],
    ['a fraction', 1.5],
    ['NaN', NaN],
    ['Infinity', Infinity],
    ['-Infinity', -Infinity],
    ['a negative integer', -1],
    ['the next id, not handed out yet', 3],
    ['an id far ahead', 2 ** 53],
    ['the largest number', Number.MAX_VALUE],
  ];
  const refused = (index) => (error) => (error instanceof TypeError || error instanceof RangeError) && new RegExp(`ids\\[${index}\\]`).test(error.message);
  for (const [name, bad] of BAD_IDS) {
    it(`refuses ${name}, naming its index, and then evicts nothing at all`, () => {
      const c = exampleCorpus();
      assert.throws(() => c.evict([0, 1, 2, bad, 0]), refused(3));
      assert.deepEqual([c.length, c.windowLength], [3, 3]);
      // The answers say the same: the user's value still grounds, the model's own is self-referenced, nothing dropped.
      assert.deepEqual(statesOf(c.unsupportedArgumentsOf([backup('ganymede-01')], {}, 1)), [[], 'checked-pass']);
      assert.deepEqual(statesOf(c.unsupportedArgumentsOf([backup('io-77')], {}, 1)), [[['machine', SELF_REFERENCED]], 'checked-fail']);
      assert.deepEqual(c.danglingReferencesOf(BACKUP_TOOL, 1), { findings: [], disposition: 'not-applicable' });
      // The first element is checked too.
      assert.throws(() => c.evict([bad]), refused(0));
      assert.equal(c.windowLength, 3);
    });
  }

  it('refuses a hole, naming it', () => {
    const c = exampleCorpus();
    assert.throws(() => c.evict([0, , 1]), refused(1)); // eslint-disable-line no-sparse-arrays
    assert.equal(c.windowLength, 3);
  });

  it('takes -0 as the id 0, since it is an integer with 0 <= id', () => {
    const c = exampleCorpus();
    c.evict([-0]);
    assert.equal(c.windowLength, 2);
    assert.deepEqual(statesOf(c.unsupportedArgumentsOf([backup('ganymede-01')], {}, 1)), [[['machine', NOWHERE]], 'checked-fail']);
  });

  it('does nothing for an id already evicted or forgotten by clear; repeats and order do not matter', () => {
    const c = exampleCorpus();
    c.evict([2, 1, 2, 1]);
    const before = [c.length, c.windowLength, c.danglingReferencesOf(BACKUP_TOOL, 1)];
    c.evict([1, 2, 2]);
    assert.deepEqual([c.length, c.windowLength, c.danglingReferencesOf(BACKUP_TOOL, 1)], before);
    c.clear();
    c.evict([0, 1, 2]);
    assert.deepEqual([c.length, c.windowLength], [0, 0]);
    // The forgotten tool entry does not join the dropped names again.
    assert.deepEqual(c.danglingReferencesOf(BACKUP_TOOL, 1), { findings: [], disposition: 'not-applicable' });
  });

  it('reads an array given as a Proxy as an array', () => {
    const c = exampleCorpus();
    c.evict(new Proxy([0, 2], {}));
    assert.equal(c.windowLength, 1);
  });
});

describe('push', () => {
  it('takes the four roles and the ProducedResult form', () => {
    const c = new RunCorpus();
    for (const role of ['system', 'user', 'assistant', 'tool']) c.push({ role, text: `${role} text` });
    c.push({ toolName: 'inventory', text: 'result' });
    c.push({ role: undefined, toolName: 'inventory', text: 'result' });
    assert.equal(c.length, 6);
  });

  it('refuses any other role with a TypeError naming entry.role, and pushes nothing', () => {
    const c = new RunCorpus();
    c.push({ role: 'user', text: 'first' });
    const bad = ['System', 'USER', 'model', 'function', 'developer', '', ' user', 'user ', null, 0, true, new String('user'), ['user'], {}, Symbol('user')];
    for (const role of bad) {
      assert.throws(() => c.push({ role, text: 'x', toolName: 't' }), { name: 'TypeError', message: /entry\.role/ }, String(typeof role === 'symbol' ? 'symbol' : role));
    }
    assert.equal(c.length, 1);
    assert.equal(c.push({ role: 'user', text: 'next' }), 1, 'a refused push hands out no id');
  });

  it('refuses a text that is not a string, on every role, naming entry.text', () => {
    const c = new RunCorpus();
    for (const [kind, text] of NOT_STRINGS) {
      if (kind === 'object' && text !== null && (() => { try { Reflect.get(text, 'x'); return false; } catch { return true; } })()) continue;
      for (const entry of [{ role: 'user', text }, { role: 'assistant', text }, { role: 'system', text }, { role: 'tool', text, toolName: 't' }, { toolName: 't', text }]) {
        assert.throws(() => c.push(entry), { name: 'TypeError', message: /entry\.text/ }, kind);
      }
    }
    assert.equal(c.length, 0);
  });

  it('refuses an entry that is not an object, naming entry', () => {
    const c = new RunCorpus();
    for (const entry of [undefined, null, 'text', 42, true, 1n, Symbol('e'), () => {}]) {
      assert.throws(() => c.push(entry), { name: 'TypeError', message: /entry/ });
    }
    assert.throws(() => c.push(), { name: 'TypeError', message: /entry/ });
    assert.equal(c.length, 0);
  });

  it('wants a string toolName on a tool entry when it is given, and on a ProducedResult always', () => {
    const c = new RunCorpus();
    for (const toolName of [null, 0, false, {}, ['t'], new String('t'), 1n]) {
      assert.throws(() => c.push({ role: 'tool', text: 'x', toolName }), { name: 'TypeError', message: /entry\.toolName/ });
      assert.throws(() => c.push({ text: 'x', toolName }), { name: 'TypeError', message: /entry\.toolName/ });
    }
    assert.throws(() => c.push({ text: 'x' }), { name: 'TypeError', message: /entry\.toolName/ });
    assert.equal(c.length, 0);
    // Absent on a tool entry: an entry with no name.
    assert.equal(c.push({ role: 'tool', text: 'x' }), 0);
    assert.equal(c.push({ role: 'tool', text: 'x', toolName: undefined }), 1);
    assert.equal(c.push({ role: 'tool', text: 'x', toolName: '' }), 2);
  });

  it('ignores toolName on every other role, and never reads it there', () => {
    const c = new RunCorpus();
    let reads = 0;
    for (const role of ['system', 'user', 'assistant']) {
      c.push({ role, text: 'host-a', toolName: 42 });
      c.push({ role, text: 'host-a', get toolName() { reads++; throw new Error('read'); } });
      c.push({ role, text: 'host-a', toolName: 'inventory' });
    }
    assert.equal(reads, 0);
    assert.equal(c.length, 9);
    // None of them is a producer, or a tool result that can be dropped or present.
    const call = { toolName: 'lookup', toolCallId: 'k', args: { h: 'host-a' }, argumentsFrom: ['inventory'], reading: EMPTY };
    assert.equal(c.emptyLookupOf(call, 1).disposition, 'unreachable');
    c.evict([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(c.danglingReferencesOf([{ name: 'lookup', argumentsFrom: ['inventory'] }], 1).disposition, 'not-applicable');
  });

  it('ignores other properties', () => {
    const c = new RunCorpus();
    assert.equal(c.push({ role: 'user', text: 'host-a', id: 99, evicted: true, extra: { deep: 1 } }), 0);
    assert.equal(c.windowLength, 1);
    assert.deepEqual(statesOf(c.unsupportedArgumentsOf([{ ...backup('host-a') }], {}, 1)), [[], 'checked-pass']);
  });

  it('takes the text as it is at the push', () => {
    const c = new RunCorpus();
    const entry = { role: 'user', text: 'ganymede-01' };
    c.push(entry);
    entry.text = 'something else entirely';
    assert.deepEqual(statesOf(c.unsupportedArgumentsOf([backup('ganymede-01')], {}, 1)), [[], 'checked-pass']);
  });

  it('a tool entry with no name grounds text but is no producer and is never dropped or present', () => {
    const c = new RunCorpus();
    c.push({ role: 'tool', text: 'FLEET: callisto-02' });
    assert.deepEqual(statesOf(c.unsupportedArgumentsOf([backup('callisto-02')], {}, 1)), [[], 'checked-pass']);
    const call = { toolName: 'backup_status', toolCallId: 'k', args: { m: 'callisto-02' }, argumentsFrom: ['fleet_report'], reading: EMPTY };
    assert.equal(c.emptyLookupOf(call, 1).disposition, 'unreachable');
    c.evict([0]);
    assert.deepEqual(c.danglingReferencesOf(BACKUP_TOOL, 1), { findings: [], disposition: 'not-applicable' });
  });

  it('the empty toolName is a name, exactly', () => {
    const c = new RunCorpus();
    c.push({ role: 'tool', text: 'host-a', toolName: '' });
    const call = (argumentsFrom) => ({ toolName: 'lookup', toolCallId: 'k', args: { h: 'host-a' }, argumentsFrom, reading: EMPTY });
    assert.equal(c.emptyLookupOf(call(['']), 1).disposition, 'checked-fail');
    assert.equal(c.emptyLookupOf(call(['inventory']), 1).disposition, 'unreachable');
    c.evict([0]);
    const dangling = c.danglingReferencesOf([{ name: 'lookup', argumentsFrom: [''] }], 1);
    assert.equal(dangling.disposition, 'checked-fail');
    assert.deepEqual(dangling.findings[0].subjects, [{ kind: 'tool', id: 'lookup' }, { kind: 'tool', id: '' }]);
  });

  it('a ProducedResult is a tool entry', () => {
    const c = new RunCorpus();
    c.push({ toolName: 'inventory', text: 'host-a' });
    const call = { toolName: 'lookup', toolCallId: 'k', args: { h: 'HOST-A' }, argumentsFrom: ['inventory'], reading: EMPTY };
    assert.equal(c.emptyLookupOf(call, 1).disposition, 'checked-fail');
    c.evict([0]);
    assert.equal(c.emptyLookupOf(call, 1).disposition, 'unreachable');
    assert.equal(c.danglingReferencesOf([{ name: 'lookup', argumentsFrom: ['inventory'] }], 1).disposition, 'checked-fail');
  });
});

describe('dispositions', () => {
  it('no calls is not-applicable, and the request is not read', () => {
    const c = exampleCorpus();
    const untouchable = new Proxy({}, {
      get() { throw new Error('the request was read'); },
      has() { throw new Error('the request was read'); },
      ownKeys() { throw new Error('the request was read'); },
      getOwnPropertyDescriptor() { throw new Error('the request was read'); },
    });
    const answer = c.unsupportedArgumentsOf([], untouchable, 1);
    assert.deepEqual(answer, { findings: [], externalGroundings: [], disposition: 'not-applicable' });
    assert.deepEqual(Object.keys(answer), ['findings', 'externalGroundings', 'disposition']);
    assert.deepEqual(c.unsupportedArgumentsOf([], { get systemPrompt() { throw new Error('read'); } }, 1).disposition, 'not-applicable');
  });

  it('excusals alone are a pass', () => {
    const c = exampleCorpus();
    const answer = c.unsupportedArgumentsOf([backup('srv-4471')], { external: [{ value: 'srv-4471', source: 'viewer-selection' }] }, 1);
    assert.deepEqual(answer, {
      findings: [],
      externalGroundings: [{ toolName: 'backup_status', toolCallId: 'c1', path: 'machine', value: 'srv-4471', source: 'viewer-selection' }],
      disposition: 'checked-pass',
    });
  });

  it('any finding is a fail, whatever else was excused', () => {
    const c = exampleCorpus();
    const call = { ...backup('srv-4471'), args: { a: 'srv-4471', b: 'invented-1' } };
    const answer = c.unsupportedArgumentsOf([call], { external: [{ value: 'srv-4471', source: 'app' }] }, 1);
    assert.equal(answer.disposition, 'checked-fail');
    assert.equal(answer.externalGroundings.length, 1);
    assert.equal(answer.findings.length, 1);
  });

  it('a call with nothing to judge is still a pass: it was checked', () => {
    const c = new RunCorpus();
    assert.equal(c.unsupportedArgumentsOf([backup('abc')], {}, 1).disposition, 'checked-pass');
    assert.equal(c.unsupportedArgumentsOf([{ ...backup('x'), args: {} }], {}, 1).disposition, 'checked-pass');
  });

  it('dangling is not-applicable while nothing is dropped, even for grounds never fetched', () => {
    const c = new RunCorpus();
    assert.deepEqual(c.danglingReferencesOf(BACKUP_TOOL, 1), { findings: [], disposition: 'not-applicable' });
    c.push({ role: 'user', text: 'u' });
    c.push({ role: 'assistant', text: 'a' });
    c.push({ role: 'system', text: 's' });
    c.evict([0, 1, 2]);
    assert.deepEqual(c.danglingReferencesOf(BACKUP_TOOL, 1), { findings: [], disposition: 'not-applicable' });
  });

  it('dangling is not-applicable when no grounded tool is served, though something was dropped', () => {
    const c = exampleCorpus();
    c.evict([1]);
    assert.deepEqual(c.danglingReferencesOf([], 1), { findings: [], disposition: 'not-applicable' });
    assert.deepEqual(c.danglingReferencesOf([{ name: 'a', argumentsFrom: [] }, { name: 'b', argumentsFrom: [] }], 1), { findings: [], disposition: 'not-applicable' });
    assert.equal(c.danglingReferencesOf([{ name: 'a', argumentsFrom: [] }, ...BACKUP_TOOL], 1).disposition, 'checked-fail');
  });

  it('dangling is a pass when something was dropped and every served ground is back or never left', () => {
    const c = exampleCorpus();
    c.push({ toolName: 'other_tool', text: 'x' }); // 3
    c.evict([3]);
    assert.deepEqual(c.danglingReferencesOf(BACKUP_TOOL, 1), { findings: [], disposition: 'checked-pass' });
  });

  it('dropped names stay dropped until clear; a re-fetch makes them present, evicting it drops again', () => {
    const c = new RunCorpus();
    c.push({ toolName: 'fleet_report', text: 'v1' }); // 0
    c.evict([0]);
    assert.equal(c.danglingReferencesOf(BACKUP_TOOL, 1).disposition, 'checked-fail');
    c.push({ toolName: 'fleet_report', text: 'v2' }); // 1
    c.push({ toolName: 'fleet_report', text: 'v3' }); // 2
    assert.equal(c.danglingReferencesOf(BACKUP_TOOL, 1).disposition, 'checked-pass');
    c.evict([1]);
    assert.equal(c.danglingReferencesOf(BACKUP_TOOL, 1).disposition, 'checked-pass', 'one result of it is still in the window');
    c.evict([2]);
    assert.equal(c.danglingReferencesOf(BACKUP_TOOL, 1).disposition, 'checked-fail');
    c.clear();
    assert.deepEqual(c.danglingReferencesOf(BACKUP_TOOL, 1), { findings: [], disposition: 'not-applicable' });
  });
});

describe('the request', () => {
  it('puts the system prompt first among the served strings when it is given', () => {
    const c = new RunCorpus();
    c.push({ role: 'assistant', text: 'prompt-secret was mentioned' });
    assert.deepEqual(statesOf(c.unsupportedArgumentsOf([backup('prompt-secret')], {}, 1)), [[['machine', SELF_REFERENCED]], 'checked-fail']);
    assert.deepEqual(statesOf(c.unsupportedArgumentsOf([backup('prompt-secret')], { systemPrompt: 'Use PROMPT-SECRET.' }, 1)), [[], 'checked-pass']);
    assert.deepEqual(statesOf(c.unsupportedArgumentsOf([backup('prompt-secret')], { systemPrompt: undefined }, 1)), [[['machine', SELF_REFERENCED]], 'checked-fail']);
    const model = new ModelRunCorpus();
    model.push({ role: 'assistant', text: 'prompt-secret was mentioned' });
    for (const request of [{}, { systemPrompt: '' }, { systemPrompt: 'Use PROMPT-SECRET.' }, { systemPrompt: undefined }]) {
      const answer = c.unsupportedArgumentsOf([backup('other-value')], request, 1);
      const stateless = unsupportedArgumentsOf([backup('other-value')], model.frame(request), 1);
      assert.deepEqual(answer, { ...stateless, disposition: 'checked-fail' }, JSON.stringify(request));
    }
  });

  it('refuses a system prompt that is not a string, naming it', () => {
    const c = exampleCorpus();
    for (const [kind, systemPrompt] of NOT_STRINGS) {
      if (systemPrompt === undefined) continue;
      assert.throws(() => c.unsupportedArgumentsOf([backup('ganymede-01')], { systemPrompt }, 1), (error) => error instanceof TypeError && /systemPrompt/.test(error.message), kind);
    }
  });

  it('cleans external exactly as the stateless function does', () => {
    const c = exampleCorpus();
    const model = new ModelRunCorpus();
    model.push({ role: 'user', text: 'status of ganymede-01 please' });
    model.push({ toolName: 'fleet_report', text: 'FLEET: callisto-02, europa-03' });
    model.push({ role: 'assistant', text: 'I looked at io-77 earlier.' });
    const externals = [
      undefined, null, 'not-an-array', [], [null, 42, {}, { value: ' ', source: 's' }, { value: 'srv-4471', source: '' }],
      [{ value: '  SRV-4471  ', source: '  padded ' }], [{ value: 'io-77', source: 'wins-over-self' }], [{ value: 'ganymede-01', source: 'served-wins' }],
      new Set([{ value: 'srv-4471', source: 'set' }]), [Object.create({ value: 'srv-4471', source: 'proto' })],
    ];
    const calls = [{ ...backup('x'), args: { a: 'srv-4471', b: 'io-77', c: 'ganymede-01', d: 'invented' } }];
    for (const external of externals) {
      const answer = c.unsupportedArgumentsOf(calls, { external }, 7);
      const stateless = unsupportedArgumentsOf(calls, model.frame({ external }), 7);
      assert.deepEqual(answer, { ...stateless, disposition: choiceDisposition(calls, stateless) });
      assert.equal(JSON.stringify(answer), JSON.stringify({ ...stateless, disposition: choiceDisposition(calls, stateless) }));
    }
  });

  it('describes the frame it searched: the counts are the in-window counts', () => {
    const c = new RunCorpus();
    const model = new ModelRunCorpus();
    for (const entry of [{ role: 'user', text: 'a' }, { role: 'assistant', text: 'b' }, { toolName: 't', text: 'c' }, { role: 'assistant', text: 'd' }, { role: 'system', text: 'e' }]) {
      c.push(entry);
      model.push(entry);
    }
    c.evict([1, 2]);
    model.evict([1, 2]);
    const answer = c.unsupportedArgumentsOf([backup('invented-1')], { systemPrompt: 'sys' }, 1);
    const stateless = unsupportedArgumentsOf([backup('invented-1')], model.frame({ systemPrompt: 'sys' }), 1);
    assert.deepEqual(model.frame({ systemPrompt: 'sys' }), { grounded: ['sys', 'a', 'e'], assistant: ['d'] });
    assert.equal(answer.findings[0].witnesses[1].provenance, stateless.findings[0].witnesses[1].provenance);
    assert.equal(answer.findings[0].message, stateless.findings[0].message);
  });
});

describe('the three methods answer what the stateless functions answer for the window', () => {
  it('over hundreds of random runs of pushes, evictions and clears', () => {
    const r = rng(31337);
    const atoms = ['host', 'HOST', 'gany', 'MEDE', '-0', '1', 'Σ', 'ς', 'İ', 'ß', '\u212A', ' ', '\u00a0', '😀', '\ud800'];
    const names = ['fleet_report', 'inventory', 'Inventory', '', 'cmdb'];
    const seen = {};
    const tally = (key) => {
      seen[key] = (seen[key] ?? 0) + 1;
    };
    for (let run = 0; run < 300; run++) {
      const pool = Array.from({ length: 6 }, () => Array.from({ length: 2 + r.below(4) }, () => r.pick(atoms)).join(''));
      const text = () => Array.from({ length: r.below(4) }, () => r.pick(pool)).join(r.pick([' ', '', ', ']));
      const leaf = () => {
        let v = r.chance(0.85) ? r.pick(pool) : `${r.pick(atoms)}${r.pick(atoms)}${r.pick(atoms)}`;
        if (r.chance(0.3)) v = v.toUpperCase();
        if (r.chance(0.15)) v = ` ${v}`;
        return v;
      };
      const args = () => Object.fromEntries(Array.from({ length: 1 + r.below(3) }, (_, k) => [`a${k}`, r.chance(0.2) ? [leaf(), { n: leaf() }] : leaf()]));
      const corpus = new RunCorpus();
      const model = new ModelRunCorpus();
      for (let step = 0; step < 24; step++) {
        const roll = r.below(100);
        if (roll < 55) {
          const kind = r.below(6);
          let entry;
          if (kind === 0) entry = { role: 'system', text: text() };
          else if (kind === 1) entry = { role: 'user', text: text(), ...(r.chance(0.2) && { toolName: r.pick(names) }) };
          else if (kind === 2) entry = { role: 'assistant', text: text(), ...(r.chance(0.2) && { toolName: 42 }) };
          else if (kind === 3) entry = { role: 'tool', text: text(), ...(r.chance(0.8) && { toolName: r.pick(names) }) };
          else entry = { toolName: r.pick(names), text: text() };
          assert.equal(corpus.push(entry), model.push(entry));
        } else if (roll < 85) {
          const ids = Array.from({ length: r.below(4) }, () => r.below(model.nextId + 1)).filter((id) => id < model.nextId);
          corpus.evict(ids);
          model.evict(ids);
        } else if (roll < 88) {
          corpus.clear();
          model.clear();
        }
        assert.deepEqual([corpus.length, corpus.windowLength], [model.length, model.windowLength], `run ${run} step ${step}`);
        const epoch = r.pick([step, -0, 1.5, 2 ** 40]);
        const label = `run ${run} step ${step}`;

        const call = { toolName: 'lookup', toolCallId: `c${step}`, args: args(), argumentsFrom: names.filter(() => r.chance(0.4)), reading: r.pick([EMPTY, EMPTY, readLookupResult([1], false), undefined]) };
        const lookedUp = emptyLookupOf(call, model.produced(), epoch);
        const lookup = corpus.emptyLookupOf(call, epoch);
        assert.deepEqual(lookup, lookedUp, label);
        assert.equal(JSON.stringify(lookup), JSON.stringify(lookedUp), label);
        tally(`lookup ${lookedUp.disposition}`);

        const calls = Array.from({ length: r.pick([0, 1, 1, 2]) }, (_, k) => ({
          toolName: r.pick(['backup_status', 'lookup']), toolCallId: `u${step}.${k}`, args: args(), argumentsFrom: names.filter(() => r.chance(0.3)),
          ...(r.chance(0.2) && { declaredEnums: new Set([r.pick(pool)]) }),
        }));
        const request = {};
        if (r.chance(0.4)) request.systemPrompt = text();
        if (r.chance(0.3)) request.external = r.chance(0.8) ? [{ value: text(), source: r.pick(['viewer', ' app ']) }, r.pick([null, {}, { value: '' }])] : 'junk';
        const stateless = unsupportedArgumentsOf(calls, model.frame(request), epoch);
        const expectedChoice = { ...stateless, disposition: choiceDisposition(calls, stateless) };
        const choice = corpus.unsupportedArgumentsOf(calls, request, epoch);
        assert.deepEqual(choice, expectedChoice, label);
        assert.equal(JSON.stringify(choice), JSON.stringify(expectedChoice), label);
        assert.deepEqual(verdictsOfAnswer(choice), visibleVerdicts(modelChoiceVerdicts(calls, model.frame(request))), label);
        tally(`choice ${expectedChoice.disposition}`);
        for (const finding of choice.findings) tally(`choice ${finding.witnesses[1].value === NOWHERE ? 'nowhere' : 'self'}`);
        if (choice.externalGroundings.length > 0) tally('choice excused');

        const tools = Array.from({ length: r.below(3) }, (_, k) => ({ name: `tool_${k}`, argumentsFrom: names.filter(() => r.chance(0.35)) }));
        const findings = danglingReferencesOf(tools, model.dropped(), model.present(), epoch);
        const expectedCompose = { findings, disposition: composeDisposition(tools, model.dropped(), findings) };
        const compose = corpus.danglingReferencesOf(tools, epoch);
        assert.deepEqual(compose, expectedCompose, label);
        assert.equal(JSON.stringify(compose), JSON.stringify(expectedCompose), label);
        tally(`compose ${expectedCompose.disposition}`);
      }
    }
    const wanted = ['lookup checked-fail', 'lookup checked-pass', 'lookup not-applicable', 'lookup unreachable', 'choice checked-fail', 'choice checked-pass',
      'choice not-applicable', 'choice nowhere', 'choice self', 'choice excused', 'compose checked-fail', 'compose checked-pass', 'compose not-applicable'];
    for (const key of wanted) assert.ok((seen[key] ?? 0) > 100, `${key}: ${JSON.stringify(seen)}`);
  });

  it('none of the methods changes the corpus', () => {
    const c = exampleCorpus();
    c.evict([1]);
    const snapshot = () => JSON.stringify([
      c.length, c.windowLength,
      c.unsupportedArgumentsOf([backup('ganymede-01'), backup('io-77'), backup('europa-03')], { systemPrompt: 'sys' }, 1),
      c.danglingReferencesOf(BACKUP_TOOL, 1),
      c.emptyLookupOf({ toolName: 'backup_status', toolCallId: 'x', args: { m: 'europa-03' }, argumentsFrom: ['fleet_report'], reading: EMPTY }, 1),
    ]);
    const first = snapshot();
    for (let i = 0; i < 5; i++) assert.equal(snapshot(), first);
  });
});

describe('ProducedCorpus still works as it did', () => {
  it('constructs, pushes, counts, clears and judges as the stateless check does', () => {
    const corpus = new ProducedCorpus();
    assert.equal(corpus.length, 0);
    const produced = [
      { toolName: 'undeclared', text: 'host-a' },
      { toolName: 'cmdb', text: 'HOST-A in rack 4' },
      { toolName: 'inventory', text: 'host-a and host-b' },
    ];
    for (const [index, result] of produced.entries()) {
      const id = corpus.push(result);
      assert.ok(id === undefined || id === index, `push gave ${id}`);
      assert.equal(corpus.length, index + 1);
    }
    const call = { toolName: 'port_for_device', toolCallId: 'call-9', args: { h: 'host-a', g: 'HOST-B' }, argumentsFrom: ['inventory', 'cmdb'], reading: EMPTY };
    const answer = corpus.emptyLookupOf(call, 3);
    assert.deepEqual(answer, emptyLookupOf(call, produced, 3));
    assert.equal(answer.disposition, 'checked-fail');
    assert.deepEqual(answer.findings.map((f) => [f.predicate, f.subjects[1].id]), [['h', 'cmdb'], ['g', 'inventory']]);
    corpus.clear();
    assert.equal(corpus.length, 0);
    assert.equal(corpus.emptyLookupOf(call, 3).disposition, 'unreachable');
    corpus.push({ toolName: 'inventory', text: 'host-b' });
    assert.deepEqual(corpus.emptyLookupOf(call, 4), emptyLookupOf(call, [{ toolName: 'inventory', text: 'host-b' }], 4));
  });

  it('still refuses a result without a string toolName or text', () => {
    const corpus = new ProducedCorpus();
    assert.throws(() => corpus.push({ text: 'x' }), { name: 'TypeError', message: /toolName/ });
    assert.throws(() => corpus.push({ toolName: 'x', text: 7 }), { name: 'TypeError', message: /text/ });
    assert.throws(() => corpus.push(null), TypeError);
    assert.equal(corpus.length, 0);
  });

  it('judges a long run the same as RunCorpus with nothing evicted', () => {
    const old = new ProducedCorpus();
    const run = new RunCorpus();
    const produced = [];
    for (let i = 0; i < 500; i++) {
      const result = { toolName: i % 3 ? 'inventory' : 'cmdb', text: `id-${i} Łódź-${i % 17}` };
      old.push(result);
      run.push(result);
      produced.push(result);
    }
    const call = { toolName: 't', toolCallId: 'c', args: { a: 'id-499', b: 'ŁÓDŹ-16', c: 'id-9999' }, argumentsFrom: ['inventory'], reading: EMPTY };
    assert.deepEqual(old.emptyLookupOf(call, 1), run.emptyLookupOf(call, 1));
    assert.deepEqual(old.emptyLookupOf(call, 1), emptyLookupOf(call, produced, 1));
  });
});
