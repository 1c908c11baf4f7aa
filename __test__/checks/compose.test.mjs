// dangling-reference at the compose seam: danglingReferencesOf against its
// rules (docs/checks.md, "dangling-reference"). agentfootprint's unit laws (the
// field case, the two fences, one finding per tool naming every missing
// ground, no declaration no subject) in our words, the parity traps the
// spec adds (no predicate key, repeats and order kept, the sets only asked
// `has`), and a comparison with the plain model over random inputs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';
import { rng } from '../support/helpers.mjs';
import { missingOf, modelDangling } from '../support/check-model.mjs';

const require = createRequire(import.meta.url);
const { danglingReferencesOf } = require('seamguard');

const served = (name, ...argumentsFrom) => ({ name, argumentsFrom });
const ground = (name) => `results of '${name}' evicted, not re-established`;

/** A set-like object that has only `has`, and logs every question it is asked. */
function askingSet(label, names, log) {
  return {
    has(name) {
      log.push([label, name]);
      return names.includes(name);
    },
  };
}

describe('the worked example (the field case)', () => {
  it('a served tool whose ground was dropped and is not back files one finding with the whole shape', () => {
    const found = danglingReferencesOf([served('screen_fire', 'whats_here')], new Set(['whats_here']), new Set(), 4);
    assert.ok(Array.isArray(found));
    assert.equal(found.length, 1);
    const [finding] = found;
    assert.deepEqual(Object.keys(finding), ['kind', 'seam', 'subjects', 'witnesses', 'epoch', 'message']);
    assert.equal('predicate' in finding, false);
    assert.equal('advisory' in finding, false);
    assert.equal('synthetic' in finding, false);
    assert.equal(finding.kind, 'dangling-reference');
    assert.equal(finding.seam, 'compose');
    assert.deepEqual(finding.subjects, [{ kind: 'tool', id: 'screen_fire' }, { kind: 'tool', id: 'whats_here' }]);
    assert.equal(finding.epoch, 4);
    assert.equal(finding.witnesses.length, 1);
    const [witness] = finding.witnesses;
    assert.deepEqual(Object.keys(witness), ['subject', 'predicate', 'value', 'epoch', 'stratum', 'provenance']);
    assert.deepEqual(witness.subject, { kind: 'tool', id: 'screen_fire' });
    assert.equal(witness.predicate, 'argument-ground');
    assert.equal(witness.value, "results of 'whats_here' evicted, not re-established");
    assert.equal(witness.epoch, 4);
    assert.equal(witness.stratum, 'asserted');
    assert.equal(typeof witness.provenance, 'string');
    assert.ok(witness.provenance.length > 0);
    for (const name of ['screen_fire', 'whats_here']) assert.ok(finding.message.includes(name), `${name} in ${finding.message}`);
    assert.match(finding.message, /fetch/i); // re-fetching, in whatever words
    assert.match(finding.message, /withh[oe]ld/i);
    assert.ok(!finding.message.includes('\n'), 'one paragraph');
  });

  it('a ground never dropped is silent, even with no result of it in the window', () => {
    assert.deepEqual(danglingReferencesOf([served('screen_fire', 'whats_here')], new Set(), new Set(), 4), []);
  });

  it('a re-fetched ground is silent, however often it was dropped', () => {
    assert.deepEqual(danglingReferencesOf([served('screen_fire', 'whats_here')], new Set(['whats_here']), new Set(['whats_here']), 4), []);
  });

  it('one finding per served tool, the first naming both of its missing grounds', () => {
    const found = danglingReferencesOf(
      [served('screen_fire', 'whats_here', 'pan_view'), served('other', 'whats_here')],
      new Set(['whats_here', 'pan_view']),
      new Set(),
      4,
    );
    assert.equal(found.length, 2);
    assert.deepEqual(found[0].subjects.map((s) => s.id), ['screen_fire', 'whats_here', 'pan_view']);
    assert.deepEqual(found[0].witnesses.map((w) => w.value), [ground('whats_here'), ground('pan_view')]);
    for (const name of ['screen_fire', 'whats_here', 'pan_view']) assert.ok(found[0].message.includes(name), name);
    assert.deepEqual(found[1].subjects.map((s) => s.id), ['other', 'whats_here']);
    for (const name of ['other', 'whats_here']) assert.ok(found[1].message.includes(name), name);
  });

  it('a tool that declares no ground is never a subject', () => {
    assert.deepEqual(danglingReferencesOf([{ name: 'plain', argumentsFrom: [] }], new Set(['x', 'plain']), new Set(), 4), []);
  });
});

describe('the two fences, ground by ground', () => {
  it('files only the grounds that were dropped and are not present', () => {
    const found = danglingReferencesOf(
      [served('act', 'never_dropped', 'refetched', 'gone', 'also_gone')],
      new Set(['refetched', 'gone', 'also_gone', 'unrelated']),
      new Set(['refetched', 'never_dropped']),
      1,
    );
    assert.deepEqual(missingOf(found), [{ tool: 'act', missing: ['gone', 'also_gone'] }]);
    assert.deepEqual(found[0].witnesses.map((w) => w.value), [ground('gone'), ground('also_gone')]);
    assert.ok(!found[0].message.includes('never_dropped'));
  });

  it('a present ground that was never dropped, and a dropped name no tool declares, file nothing', () => {
    assert.deepEqual(danglingReferencesOf([served('act', 'inventory')], new Set(['something_else']), new Set(['inventory']), 1), []);
  });

  it('files nothing for no tools at all', () => {
    assert.deepEqual(danglingReferencesOf([], new Set(['x']), new Set(), 1), []);
  });
});

describe('order, repeats and shape', () => {
  it('keeps argumentsFrom order and repeats in subjects and witnesses', () => {
    const [finding] = danglingReferencesOf([served('act', 'g', 'h', 'g', 'kept', 'g')], new Set(['g', 'h']), new Set(['kept']), 1);
    assert.deepEqual(finding.subjects, ['act', 'g', 'h', 'g', 'g'].map((id) => ({ kind: 'tool', id })));
    assert.deepEqual(finding.witnesses.map((w) => w.value), [ground('g'), ground('h'), ground('g'), ground('g')]);
    for (const witness of finding.witnesses) assert.deepEqual(witness.subject, { kind: 'tool', id: 'act' });
  });

  it('follows argumentsFrom, not the order of the dropped set', () => {
    const [finding] = danglingReferencesOf([served('act', 'a', 'b', 'c')], new Set(['c', 'b', 'a']), new Set(), 1);
    assert.deepEqual(finding.subjects.slice(1).map((s) => s.id), ['a', 'b', 'c']);
  });

  it('follows servedTools order, skipping the tools that are grounded', () => {
    const tools = [served('z_last', 'g1'), served('fine', 'g2'), served('a_first', 'g1'), served('m_mid', 'g3', 'g1')];
    const found = danglingReferencesOf(tools, new Set(['g1', 'g3']), new Set(['g2']), 1);
    assert.deepEqual(missingOf(found), [{ tool: 'z_last', missing: ['g1'] }, { tool: 'a_first', missing: ['g1'] }, { tool: 'm_mid', missing: ['g3', 'g1'] }]);
  });

  it('files the same tool twice when it is served twice', () => {
    const found = danglingReferencesOf([served('act', 'g'), served('act', 'g')], new Set(['g']), new Set(), 1);
    assert.equal(found.length, 2);
    assert.notEqual(found[0], found[1]);
  });

  it('stamps the epoch verbatim on the finding and every witness', () => {
    for (const epoch of [0, -0, 1.5, -1, 2 ** 40, NaN, Infinity, Number.MIN_VALUE]) {
      const [finding] = danglingReferencesOf([served('act', 'g', 'h')], new Set(['g', 'h']), new Set(), epoch);
      assert.ok(Object.is(finding.epoch, epoch), String(epoch));
      for (const witness of finding.witnesses) assert.ok(Object.is(witness.epoch, epoch), String(epoch));
    }
  });

  it('writes the fixed witness value around any name, quotes and all', () => {
    for (const name of ["o'brien", '', ' padded ', 'Σ-tool', '😀', '\ud800', "it's 'quoted'", 'a'.repeat(500)]) {
      const [finding] = danglingReferencesOf([served('act', name)], new Set([name]), new Set(), 1);
      assert.equal(finding.witnesses[0].value, `results of '${name}' evicted, not re-established`, JSON.stringify(name));
      assert.deepEqual(finding.subjects[1], { kind: 'tool', id: name });
      if (name !== '') assert.ok(finding.message.includes(name), JSON.stringify(name));
    }
  });

  it('names every missing ground in the message, and the tool', () => {
    const grounds = ['inventory', 'floor_map', 'rack_list', 'sensor_feed'];
    const [finding] = danglingReferencesOf([served('screen_fire', ...grounds)], new Set(grounds), new Set(), 1);
    for (const name of ['screen_fire', ...grounds]) assert.ok(finding.message.includes(name), name);
  });

  it('returns a fresh plain array each time', () => {
    const a = danglingReferencesOf([served('act', 'g')], new Set(['g']), new Set(), 1);
    const b = danglingReferencesOf([served('act', 'g')], new Set(['g']), new Set(), 1);
    assert.equal(Object.getPrototypeOf(a), Array.prototype);
    assert.notEqual(a, b);
    assert.deepEqual(a, b);
    assert.equal(Object.getPrototypeOf(danglingReferencesOf([], new Set(), new Set(), 1)), Array.prototype);
  });
});

describe('the sets are only asked has', () => {
  it('works with objects that have nothing but has', () => {
    const log = [];
    const found = danglingReferencesOf([served('act', 'g', 'h')], askingSet('dropped', ['g', 'h'], log), askingSet('present', ['h'], log), 1);
    assert.deepEqual(missingOf(found), [{ tool: 'act', missing: ['g'] }]);
  });

  it('asks present only about the names dropped said yes to', () => {
    const log = [];
    const tools = [served('a', 'g1', 'g2', 'g1'), served('b', 'g3'), served('c'), served('d', 'g2', 'g4')];
    danglingReferencesOf(tools, askingSet('dropped', ['g1', 'g4'], log), askingSet('present', ['g4'], log), 1);
    const askedDropped = log.filter(([label]) => label === 'dropped').map(([, name]) => name);
    const askedPresent = log.filter(([label]) => label === 'present').map(([, name]) => name);
    for (const name of askedPresent) assert.ok(['g1', 'g4'].includes(name), `present was asked about ${name}`);
    assert.ok(askedPresent.includes('g1') && askedPresent.includes('g4'));
    // Every declared ground is asked about in dropped, and nothing else is.
    assert.deepEqual([...new Set(askedDropped)].sort(), ['g1', 'g2', 'g3', 'g4']);
  });

  it('asks as agentfootprint does: dropped then present, ground by ground, repeats included', () => {
    const log = [];
    const tools = [served('a', 'g1', 'g2', 'g1'), served('b', 'g3'), served('c'), served('d', 'g2', 'g4')];
    danglingReferencesOf(tools, askingSet('dropped', ['g1', 'g4'], log), askingSet('present', ['g4'], log), 1);
    assert.deepEqual(log, [
      ['dropped', 'g1'], ['present', 'g1'], ['dropped', 'g2'], ['dropped', 'g1'], ['present', 'g1'],
      ['dropped', 'g3'],
      ['dropped', 'g2'], ['dropped', 'g4'], ['present', 'g4'],
    ]);
  });

  it('reads no other property of either set', () => {
    const touched = [];
    const watched = (names) => new Proxy({ has: (name) => names.includes(name) }, {
      get(target, key, receiver) {
        touched.push(key);
        return Reflect.get(target, key, receiver);
      },
      has(target, key) {
        touched.push(`in:${String(key)}`);
        return Reflect.has(target, key);
      },
      ownKeys(target) {
        touched.push('ownKeys');
        return Reflect.ownKeys(target);
      },
    });
    danglingReferencesOf([served('act', 'g', 'h'), served('other', 'h')], watched(['g', 'h']), watched(['h']), 1);
    assert.ok(touched.length > 0);
    assert.deepEqual([...new Set(touched)], ['has']);
  });

  it('never iterates: sets whose iterator, size and keys throw still work', () => {
    class Sealed extends Set {
      [Symbol.iterator]() {
        throw new Error('iterated');
      }
      get size() {
        throw new Error('sized');
      }
      keys() {
        throw new Error('keys');
      }
      values() {
        throw new Error('values');
      }
      forEach() {
        throw new Error('forEach');
      }
    }
    const found = danglingReferencesOf([served('act', 'g', 'h')], new Sealed(['g', 'h']), new Sealed(['h']), 1);
    assert.deepEqual(missingOf(found), [{ tool: 'act', missing: ['g'] }]);
  });

  it('takes a Map or any object with has in place of a Set', () => {
    const found = danglingReferencesOf([served('act', 'g')], new Map([['g', 1]]), new Map(), 1);
    assert.deepEqual(missingOf(found), [{ tool: 'act', missing: ['g'] }]);
  });

  it('asks nothing for a tool with an empty argumentsFrom, or for no tools', () => {
    const log = [];
    assert.deepEqual(danglingReferencesOf([served('plain'), served('also_plain')], askingSet('dropped', ['plain'], log), askingSet('present', [], log), 1), []);
    assert.deepEqual(danglingReferencesOf([], askingSet('dropped', ['x'], log), askingSet('present', [], log), 1), []);
    assert.deepEqual(log, []);
  });

  it('lets an error thrown by has through', () => {
    const boom = new Error('has says no');
    const throwing = { has() { throw boom; } };
    assert.throws(() => danglingReferencesOf([served('act', 'g')], throwing, new Set(), 1), (error) => error === boom);
    assert.throws(() => danglingReferencesOf([served('act', 'g')], new Set(['g']), throwing, 1), (error) => error === boom);
    // present is not asked when dropped says no.
    assert.deepEqual(danglingReferencesOf([served('act', 'g')], new Set(), throwing, 1), []);
  });
});

describe('names are compared exactly', () => {
  const cases = [
    ['a different case is a different name', 'whats_here', ['Whats_Here'], [], false],
    ['a different case does not re-fetch', 'whats_here', ['whats_here'], ['WHATS_HERE'], true],
    ['padding is part of the name', 'whats_here', [' whats_here'], [], false],
    ['padding does not re-fetch', 'whats_here', ['whats_here'], ['whats_here '], true],
    ['the Kelvin sign is not k', 'kelvin', ['\u212Aelvin'], [], false],
    ['a composed é is not a decomposed one', 'caf\u00e9', ['cafe\u0301'], [], false],
    ['the empty name is a name', '', [''], [], true],
    ['the same name matches', 'whats_here', ['whats_here'], [], true],
  ];
  for (const [name, declared, dropped, present, files] of cases) {
    it(name, () => {
      const found = danglingReferencesOf([served('act', declared)], new Set(dropped), new Set(present), 1);
      assert.equal(found.length, files ? 1 : 0);
    });
  }
});

describe('agreement with the model', () => {
  it('names the same missing grounds as the model on random inputs', () => {
    const r = rng(9001);
    const names = ['whats_here', 'Whats_Here', 'pan_view', 'inventory', 'inv', '', ' inventory', 'Σ', 'ς', '😀', 'g\ud800'];
    let filed = 0;
    let quiet = 0;
    for (let i = 0; i < 2000; i++) {
      const tools = Array.from({ length: r.below(5) }, (_, k) => ({
        name: r.chance(0.1) ? r.pick(names) : `tool_${k}`,
        argumentsFrom: Array.from({ length: r.below(4) }, () => r.pick(names)),
      }));
      const dropped = new Set(names.filter(() => r.chance(0.4)));
      const present = new Set(names.filter(() => r.chance(0.3)));
      const epoch = r.pick([i, -0, 1.5, NaN]);
      const found = danglingReferencesOf(tools, dropped, present, epoch);
      const expected = modelDangling(tools, dropped, present);
      assert.deepEqual(missingOf(found), expected, `case ${i}: ${JSON.stringify({ tools, dropped: [...dropped], present: [...present] })}`);
      for (const [index, finding] of found.entries()) {
        assert.equal('predicate' in finding, false);
        assert.ok(Object.is(finding.epoch, epoch));
        assert.deepEqual(
          finding.witnesses.map((w) => [w.subject.id, w.predicate, w.value, w.stratum]),
          expected[index].missing.map((g) => [expected[index].tool, 'argument-ground', ground(g), 'asserted']),
        );
      }
      if (found.length > 0) filed++;
      else quiet++;
    }
    assert.ok(filed > 400 && quiet > 400, `${filed} filed, ${quiet} quiet`);
  });
});
