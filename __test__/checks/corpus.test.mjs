// ProducedCorpus: a run's results pushed as they are served, each read and
// lower-cased once. corpus.emptyLookupOf(call, epoch) must be
// emptyLookupOf(call, <every result pushed, in order>, epoch), always.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';
import { inChild, rng } from '../support/helpers.mjs';

const require = createRequire(import.meta.url);
const { ProducedCorpus, emptyLookupOf, readLookupResult } = require('seamguard');

const EMPTY = readLookupResult([], false);
const call = (args, argumentsFrom = ['inventory', 'cmdb'], ...reading) => ({
  toolName: 'port_for_device', toolCallId: 'call-9', args, argumentsFrom, reading: reading.length ? reading[0] : EMPTY,
});

describe('ProducedCorpus', () => {
  it('judges every call as the stateless check does over what was pushed', () => {
    const r = rng(77);
    const atoms = ['host', 'HOST', 'Σ', 'ς', 'İ', ' ', '\u00a0', '😀', '\ud800', 'a', '-', '1', 'Ł', '20:00:', 'B5'];
    const tools = ['inventory', 'cmdb', 'other'];
    const seen = {};
    for (let run = 0; run < 60; run++) {
      const pool = Array.from({ length: 5 }, () => Array.from({ length: 2 + r.below(4) }, () => r.pick(atoms)).join(''));
      const corpus = new ProducedCorpus();
      const produced = [];
      for (let step = 0; step < 8; step++) {
        const result = { toolName: r.pick(tools), text: Array.from({ length: r.below(4) }, () => r.pick(pool)).join(r.pick([' ', ''])) };
        corpus.push(result);
        produced.push(result);
        assert.equal(corpus.length, produced.length);
        const leaf = () => (r.below(3) ? r.pick(pool) : r.pick(atoms)) + (r.below(4) ? '' : ' ');
        const c = call(
          { a: leaf(), nested: { list: [leaf(), r.below(9)] }, b: r.below(2) ? leaf().toUpperCase() : null },
          tools.filter(() => r.below(4) > 0),
          r.pick([EMPTY, EMPTY, readLookupResult(null, true), readLookupResult([1], false), undefined]),
        );
        const expected = emptyLookupOf(c, produced, step);
        assert.deepEqual(corpus.emptyLookupOf(c, step), expected, `run ${run} step ${step}`);
        assert.equal(JSON.stringify(corpus.emptyLookupOf(c, step)), JSON.stringify(expected));
        seen[expected.disposition] = (seen[expected.disposition] ?? 0) + 1;
      }
    }
    for (const d of ['checked-fail', 'checked-pass', 'not-applicable', 'unreachable']) assert.ok(seen[d] > 10, JSON.stringify(seen));
  });

  it('keeps the first declared producer in push order, and counts what was pushed', () => {
    const corpus = new ProducedCorpus();
    assert.equal(corpus.length, 0);
    assert.equal(corpus.emptyLookupOf(call({ h: 'host-a' }), 1).disposition, 'unreachable');
    corpus.push({ toolName: 'undeclared', text: 'host-a' });
    corpus.push({ toolName: 'cmdb', text: 'HOST-A in rack 4' });
    corpus.push({ toolName: 'inventory', text: 'host-a' });
    assert.equal(corpus.length, 3);
    const { findings, disposition } = corpus.emptyLookupOf(call({ h: 'host-a' }), 1);
    assert.equal(disposition, 'checked-fail');
    assert.deepEqual(findings[0].subjects[1], { kind: 'tool', id: 'cmdb' });
    assert.deepEqual(Object.keys(findings[0]), ['kind', 'seam', 'subjects', 'predicate', 'witnesses', 'epoch', 'advisory', 'message']);
  });

  it('holds many results, long and short, ASCII and not', () => {
    const corpus = new ProducedCorpus();
    const produced = [];
    for (let i = 0; i < 3000; i++) {
      const result = { toolName: i % 2 ? 'inventory' : 'other', text: i % 7 ? `id-${i} ${'x'.repeat(i % 50)}` : `Łódź-${i}` };
      corpus.push(result);
      produced.push(result);
    }
    corpus.push({ toolName: 'cmdb', text: 'y'.repeat(1 << 20) + 'NEEDLE' });
    produced.push({ toolName: 'cmdb', text: 'y'.repeat(1 << 20) + 'NEEDLE' });
    for (const args of [{ a: 'id-2999', b: 'łÓDŹ-7', c: 'needle', d: 'absent!' }, { a: 'id-2998' }]) {
      assert.deepEqual(corpus.emptyLookupOf(call(args), 5), emptyLookupOf(call(args), produced, 5));
    }
    const { findings } = corpus.emptyLookupOf(call({ a: 'id-2999', b: 'łÓDŹ-7', c: 'needle', d: 'id-2998' }), 5);
    assert.deepEqual(findings.map((f) => [f.predicate, f.subjects[1].id]), [['a', 'inventory'], ['b', 'inventory'], ['c', 'cmdb']]);
  });

  it('rejects a bad result with a TypeError naming the field, and stays as it was', () => {
    const corpus = new ProducedCorpus();
    corpus.push({ toolName: 'inventory', text: 'host-a' });
    const cases = [
      [null, /entry/], ['text', /entry/], [42, /entry/], [undefined, /entry/],
      [{ text: 'x' }, /entry\.toolName/], [{ toolName: 7, text: 'x' }, /entry\.toolName/],
      [{ toolName: 'inventory' }, /entry\.text/], [{ toolName: 'inventory', text: ['x'] }, /entry\.text/],
    ];
    for (const [bad, pattern] of cases) {
      assert.throws(() => corpus.push(bad), { name: 'TypeError', message: pattern }, JSON.stringify(bad));
    }
    assert.throws(() => corpus.push(), { name: 'TypeError', message: /entry/ });
    assert.equal(corpus.length, 1);
    assert.equal(corpus.emptyLookupOf(call({ h: 'HOST-A' }), 1).findings.length, 1);
  });

  it('rejects a bad call as emptyLookupOf does, naming the argument', () => {
    const corpus = new ProducedCorpus();
    corpus.push({ toolName: 'inventory', text: 'host-a' });
    const cases = [
      [() => corpus.emptyLookupOf(null, 1), /call/],
      [() => corpus.emptyLookupOf(call({ h: 'host-a' }), '1'), /epoch/],
      [() => corpus.emptyLookupOf({ ...call({}), toolName: 1 }, 1), /call\.toolName/],
      [() => corpus.emptyLookupOf({ ...call({}), args: null }, 1), /call\.args/],
      [() => corpus.emptyLookupOf({ ...call({}), argumentsFrom: [3] }, 1), /call\.argumentsFrom\[0\]/],
      [() => corpus.emptyLookupOf({ ...call({}), reading: { shape: 'table', empty: true } }, 1), /call\.reading\.shape/],
    ];
    for (const [run, pattern] of cases) assert.throws(run, { name: 'TypeError', message: pattern });
  });

  it('lets a throwing getter in the arguments through unchanged', () => {
    const corpus = new ProducedCorpus();
    corpus.push({ toolName: 'inventory', text: 'host-a' });
    const boom = new RangeError('getter says no');
    assert.throws(() => corpus.emptyLookupOf(call({ ok: 'host-a', get bad() { throw boom; } }), 1), (e) => e === boom);
  });

  it('clear() empties it for another run, whose answers are a fresh corpus\'s', () => {
    // Long ASCII results (sketched, in the arena's blocks) and a wide one,
    // so the second run writes into blocks the first one left behind.
    const text = (run, i) => Array.from({ length: 400 }, (_, k) => `{"wwpn":"20:00:00:25:b5:${run}${i}:${k % 10}a:${k}"}`).join('\n');
    const runOf = (run) => Array.from({ length: 12 }, (_, i) => ({ toolName: i % 3 ? 'inventory' : 'other', text: i === 5 ? `Łódź ${text(run, i)}` : text(run, i) }));
    const corpus = new ProducedCorpus();
    for (const result of runOf(1)) corpus.push(result);
    assert.equal(corpus.emptyLookupOf(call({ w: '20:00:00:25:B5:14:3a:33' }), 1).findings.length, 1);
    corpus.clear();
    assert.equal(corpus.length, 0);
    assert.equal(corpus.emptyLookupOf(call({ w: '20:00:00:25:b5:14:3a:33' }), 1).disposition, 'unreachable');
    const produced = runOf(2);
    const fresh = new ProducedCorpus();
    for (const [i, result] of produced.entries()) {
      corpus.push(result);
      fresh.push(result);
      // An id of the first run, one of this run's, one from a wide result.
      const args = { old: '20:00:00:25:b5:14:3a:33', now: `20:00:00:25:b5:2${i}:3a:33`, wide: `Łódź {"wwpn":"20:00:00:25:b5:25` };
      const expected = emptyLookupOf(call(args), produced.slice(0, i + 1), i);
      assert.deepEqual(corpus.emptyLookupOf(call(args), i), expected);
      assert.deepEqual(fresh.emptyLookupOf(call(args), i), expected);
    }
    assert.equal(corpus.length, 12);
    assert.deepEqual(corpus.emptyLookupOf(call({ now: '20:00:00:25:B5:211:3A:33' }), 0).findings.map((f) => f.predicate), ['now']);
    assert.throws(() => ProducedCorpus.prototype.clear.call({}), TypeError);
  });

  it('works on the caller\'s thread: no thread is started, and clear() at any time changes no answer', { skip: process.platform !== 'linux' && 'reads /proc' }, () => {
    // Each child counts its threads, pushes long (sketched) results, judges
    // a call after every push against the stateless check, clears its
    // corpus at once, and counts its threads again.
    const body = `
      import { readdirSync } from 'node:fs';
      const EMPTY = m.readLookupResult([], false);
      const call = (args) => ({ toolName: 't', toolCallId: 'c', args, argumentsFrom: ['inventory'], reading: EMPTY });
      const text = (run, i) => Array.from({ length: 600 }, (_, k) => '{"wwpn":"20:00:00:25:b5:' + run + i + ':' + (k % 10) + 'a:' + k + '"}').join('\\n');
      const before = readdirSync('/proc/self/task').length;
      let joins = 0;
      for (let run = 0; run < 30; run++) {
        const corpus = new m.ProducedCorpus();
        const produced = [];
        for (let i = 0; i < 8; i++) {
          const result = { toolName: 'inventory', text: text(run, i) };
          corpus.push(result);
          produced.push(result);
          const c = call({ now: '20:00:00:25:B5:' + run + i + ':3A:33', old: '20:00:00:25:b5:' + run + '0:1a:41', none: 'c0:ff:ee:0001:missing' });
          const got = JSON.stringify(corpus.emptyLookupOf(c, i));
          if (got !== JSON.stringify(m.emptyLookupOf(c, produced, i))) throw new Error('run ' + run + ' step ' + i + ': ' + got);
          joins += JSON.parse(got).findings.length;
        }
        corpus.clear();
      }
      console.log(joins, readdirSync('/proc/self/task').length - before);
    `;
    const child = inChild(body);
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), '480 0');
  });

  it('is a RunCorpus without the claim index, an ES class over the generated one', () => {
    const generated = require('../../index.js').RunCorpus;
    assert.equal(Object.getPrototypeOf(ProducedCorpus), require('seamguard').RunCorpus);
    assert.ok(new ProducedCorpus() instanceof generated);
    assert.throws(() => ProducedCorpus(), TypeError);
  });
});
