// The package entry answers emptyLookupOf through a thin JavaScript layer
// over compact native helpers (lib/index.cjs). The generated binding still
// carries the all-native emptyLookupOf its typings come from; here the two
// are held to the same answers, the same errors and the same reads of the
// caller's objects.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';
import { rng } from './helpers.mjs';

const require = createRequire(import.meta.url);
const layer = require('seamguard');
const native = require('../index.js');

/** What a call gives back (as JSON, which keeps key order) or throws. */
function outcome(run) {
  try {
    return { value: JSON.stringify(run()) };
  } catch (error) {
    return { threw: error.constructor.name, message: error.message };
  }
}

const bothAgree = (args, label) => assert.deepEqual(
  outcome(() => layer.emptyLookupOf(...args)),
  outcome(() => native.emptyLookupOf(...args)),
  label,
);

/** Random calls and runs over text that is ASCII, not ASCII, or neither quite. */
function randomCase(r, i) {
  const atoms = ['host', 'HOST', 'Σ', 'ς', 'İ', 'i\u0307', ' ', '\u00a0', '😀', '\ud800', 'a', '-', '1', 'Ł', 'ł', 'A', 'K', '\u212a', 'x'.repeat(90)];
  const word = () => Array.from({ length: 1 + r.below(4) }, () => r.pick(atoms)).join('');
  const pool = Array.from({ length: 4 }, () => word() + word());
  const leaf = () => {
    let w = r.chance(0.8) ? r.pick(pool) : word();
    if (r.chance(0.3)) w = w.toUpperCase();
    if (r.chance(0.2)) w = ` ${w}\u00a0`;
    return w;
  };
  const value = (depth) => {
    const roll = r.below(10);
    if (depth > 2 || roll < 5) return leaf();
    if (roll === 5) return r.below(100);
    if (roll < 8) return Array.from({ length: r.below(3) }, () => value(depth + 1));
    return Object.fromEntries(Array.from({ length: r.below(3) }, () => [r.pick(['k', '1', 'Σ', 'x.y']), value(depth + 1)]));
  };
  const tools = ['inventory', 'cmdb', 'other'];
  const produced = Array.from({ length: r.below(5) }, () => ({
    toolName: r.pick(tools),
    text: Array.from({ length: r.below(4) }, () => r.pick(pool)).join(r.pick([' ', ''])),
  }));
  const call = {
    toolName: 'lookup',
    toolCallId: `c${i}`,
    args: Object.fromEntries(Array.from({ length: 1 + r.below(3) }, (_, k) => [`a${k}`, value(0)])),
    argumentsFrom: tools.filter(() => r.chance(0.7)),
    reading: r.pick([{ shape: 'rowset', empty: true, rows: 0 }, { shape: 'absence', empty: true }, { shape: 'rowset', empty: false, rows: 2 }, undefined]),
  };
  return { call, produced };
}

describe('the JavaScript layer and the native emptyLookupOf', () => {
  it('give the same encounter, key order and prose included, on random calls', () => {
    const r = rng(4242);
    const seen = {};
    for (let i = 0; i < 600; i++) {
      const { call, produced } = randomCase(r, i);
      bothAgree([call, produced, i * 1.5], `case ${i}: ${JSON.stringify({ call, produced })}`);
      const { disposition } = layer.emptyLookupOf(call, produced, i);
      seen[disposition] = (seen[disposition] ?? 0) + 1;
    }
    for (const d of ['checked-fail', 'checked-pass', 'not-applicable', 'unreachable']) assert.ok(seen[d] > 20, JSON.stringify(seen));
  });

  it('ground ASCII and other text alike, whatever its low bytes', () => {
    // 'Ł' is U+0141: cut to one byte it would read as 'A'.
    const cases = [['aaaa', 'ŁŁŁŁ', 0], ['ŁŁŁŁ', 'łłłł', 1], ['AAAA', 'xaaaax', 1], ['\u212aelvin', 'kelvin', 1], ['KELVIN', '\u212aelvin', 1], ['kelvin', '\u212a', 0]];
    for (const [leaf, text, findings] of cases) {
      const call = { toolName: 't', toolCallId: 'c', args: { v: leaf }, argumentsFrom: ['p'], reading: { shape: 'rowset', empty: true, rows: 0 } };
      assert.equal(layer.emptyLookupOf(call, [{ toolName: 'p', text }], 1).findings.length, findings, `${leaf} in ${text}`);
      bothAgree([call, [{ toolName: 'p', text }], 1], `${leaf} in ${text}`);
    }
  });

  it('throw the same TypeError for every kind of bad argument', () => {
    const good = { toolName: 't', toolCallId: 'c', args: { v: 'host-a' }, argumentsFrom: ['p'], reading: { shape: 'rowset', empty: true, rows: 0 } };
    const values = [undefined, null, 0, NaN, '', 'x', true, 1n, Symbol('s'), () => {}, [], {}, new Proxy([], {}), ['p', 1]];
    for (const bad of values) {
      bothAgree([bad, [], 1], 'call');
      bothAgree([good, bad, 1], 'produced');
      bothAgree([good, [], bad], 'epoch');
      for (const field of ['toolName', 'toolCallId', 'args', 'argumentsFrom', 'reading']) {
        bothAgree([{ ...good, [field]: bad }, [{ toolName: 'p', text: 'host-a' }], 1], field);
      }
      bothAgree([{ ...good, reading: { shape: 'rowset', empty: bad } }, [], 1], 'reading.empty');
      bothAgree([{ ...good, reading: { shape: bad, empty: true } }, [], 1], 'reading.shape');
      bothAgree([good, [bad], 1], 'produced[0]');
      bothAgree([good, [{ toolName: bad, text: 'x' }], 1], 'produced[0].toolName');
      bothAgree([good, [{ toolName: 'p', text: bad }], 1], 'produced[0].text');
    }
  });

  it('read the caller\'s objects the same way, in the same order', () => {
    const reads = (emptyLookupOf) => {
      const log = [];
      const watched = (name, target) => new Proxy(target, {
        get(object, key, receiver) {
          if (typeof key === 'string') log.push(`${name}.${key}`);
          return Reflect.get(object, key, receiver);
        },
        ownKeys(object) {
          log.push(`${name} keys`);
          return Reflect.ownKeys(object);
        },
      });
      const call = watched('call', {
        toolName: 't', toolCallId: 'c',
        args: watched('args', { a: 'host-a', list: watched('list', ['zz', 'HOST-B']) }),
        argumentsFrom: watched('from', ['p', 'q']),
        reading: watched('reading', { shape: 'rowset', empty: true, rows: 0 }),
      });
      const produced = watched('produced', [watched('r0', { toolName: 'p', text: 'host-a host-b' }), watched('r1', { toolName: 'q', text: 'x' })]);
      const encounter = emptyLookupOf(call, produced, 3);
      return { log, encounter: JSON.stringify(encounter) };
    };
    const ours = reads(layer.emptyLookupOf);
    assert.deepEqual(ours, reads(native.emptyLookupOf));
    assert.ok(ours.log.length > 20, ours.log.join());
  });

  it('agree on a run long enough that its strings cross as one array', () => {
    const produced = Array.from({ length: 5000 }, (_, i) => ({ toolName: i % 3 ? 'inventory' : 'other', text: `device-${i} ${i % 11 ? 'online' : 'Łódź'}` }));
    const call = { toolName: 't', toolCallId: 'c', args: { a: 'DEVICE-4999', b: ['device-12 ', 'łódź'], c: 'device-99999' }, argumentsFrom: ['inventory'], reading: { shape: 'rowset', empty: true, rows: 0 } };
    bothAgree([call, produced, 1], 'long run');
    assert.deepEqual(layer.emptyLookupOf(call, produced, 1).findings.map((f) => f.predicate), ['a', 'b.0', 'b.1']);
    bothAgree([call, produced.slice(0, 2000), 1], 'spread run');
  });

  it('do not read the arguments of a call no result grounds', () => {
    const log = [];
    const args = new Proxy({ a: 'host-a' }, {
      ownKeys(object) {
        log.push('args keys');
        return Reflect.ownKeys(object);
      },
    });
    const call = { toolName: 't', toolCallId: 'c', args, argumentsFrom: ['p'], reading: { shape: 'rowset', empty: true, rows: 0 } };
    for (const produced of [[], [{ toolName: 'q', text: 'host-a' }], [{ toolName: 'p', text: '' }]]) {
      assert.equal(layer.emptyLookupOf(call, produced, 1).disposition, 'unreachable');
    }
    assert.deepEqual(log, []);
    // The same numbers, a ground this time: now the arguments are read.
    assert.equal(layer.emptyLookupOf(call, [{ toolName: 'p', text: 'host-a' }], 1).disposition, 'checked-fail');
    assert.deepEqual(log, ['args keys']);
  });

  it('agree past the number of tool names the layer keeps by id, and for names too long to keep', () => {
    // Each call names tools never seen before, so the ids run out and
    // start again several times; every answer must still be the native one.
    // The first result keeps its name throughout, as a run's first tool
    // would, while the ids are handed out again under it.
    const reading = { shape: 'rowset', empty: true, rows: 0 };
    const inventory = { toolName: 'inventory', text: 'host-a' };
    for (let i = 0; i < 9000; i++) {
      const fresh = `tool-${i}`;
      const call = { toolName: 't', toolCallId: `c${i}`, args: { v: 'host-a', w: 'host-b' }, argumentsFrom: i % 2 ? ['inventory', fresh] : [fresh], reading };
      const produced = [inventory, { toolName: fresh, text: 'host-b' }];
      if (i % 97 === 0 || i % 4096 < 3) bothAgree([call, produced, i], `call ${i}`);
      const joins = layer.emptyLookupOf(call, produced, i).findings.map((f) => `${f.predicate}@${f.subjects[1].id}`);
      assert.deepEqual(joins, i % 2 ? ['v@inventory', `w@${fresh}`] : [`w@${fresh}`], `call ${i}`);
    }
    const long = 'p'.repeat(300);
    const call = { toolName: 't', toolCallId: 'c', args: { v: 'host-a' }, argumentsFrom: [long], reading };
    bothAgree([call, [{ toolName: long, text: 'HOST-A' }], 1], 'a long name');
    bothAgree([call, [{ toolName: long.slice(1), text: 'HOST-A' }], 1], 'a long name, not declared');
  });

  it('agree when the arguments have too many entries to spread', () => {
    const args = Object.fromEntries(Array.from({ length: 6000 }, (_, i) => [`k${i}`, i % 1000 === 7 ? `host-${i}` : i]));
    const produced = [{ toolName: 'p', text: 'host-1007 host-5007' }, { toolName: 'q', text: 'HOST-3007' }];
    const call = { toolName: 't', toolCallId: 'c', args, argumentsFrom: ['p', 'q'], reading: { shape: 'rowset', empty: true, rows: 0 } };
    bothAgree([call, produced, 1], 'many entries');
    assert.deepEqual(layer.emptyLookupOf(call, produced, 1).findings.map((f) => f.predicate), ['k1007', 'k3007', 'k5007']);
  });

  it('agree when a getter of the arguments runs a check of its own', () => {
    const reading = { shape: 'rowset', empty: true, rows: 0 };
    let inner;
    const args = {
      a: 'host-a',
      get b() {
        // Another check, with other names and results, while the outer
        // call is reading its arguments.
        inner = layer.emptyLookupOf(
          { toolName: 'u', toolCallId: 'inner', args: { x: 'zone-9', y: 'host-a' }, argumentsFrom: ['z', 'y'], reading },
          [{ toolName: 'y', text: 'ZONE-9' }, { toolName: 'z', text: 'nothing' }, { toolName: 'y', text: 'host-a' }],
          7,
        );
        return 'port-4';
      },
    };
    const call = { toolName: 't', toolCallId: 'outer', args, argumentsFrom: ['p'], reading };
    const produced = [{ toolName: 'q', text: 'zone-9' }, { toolName: 'p', text: 'HOST-A PORT-4' }];
    const ours = layer.emptyLookupOf(call, produced, 1);
    assert.deepEqual(inner.findings.map((f) => [f.predicate, f.subjects[1].id]), [['x', 'y'], ['y', 'y']]);
    assert.deepEqual(ours.findings.map((f) => [f.predicate, f.subjects[1].id]), [['a', 'p'], ['b', 'p']]);
    bothAgree([call, produced, 1], 'nested');
  });

  it('give the same answer for a Proxy list of results and an array-like length', () => {
    const call = { toolName: 't', toolCallId: 'c', args: { v: 'host-a' }, argumentsFrom: new Proxy(['p'], {}), reading: { shape: 'absence', empty: true } };
    const produced = new Proxy([{ toolName: 'p', text: 'HOST-A' }], { get: (t, k) => (k === 'length' ? '1.5' : t[k]) });
    bothAgree([call, produced, 1], 'proxies');
  });
});
