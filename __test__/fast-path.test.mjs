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

  it('give the same answer for a Proxy list of results and an array-like length', () => {
    const call = { toolName: 't', toolCallId: 'c', args: { v: 'host-a' }, argumentsFrom: new Proxy(['p'], {}), reading: { shape: 'absence', empty: true } };
    const produced = new Proxy([{ toolName: 'p', text: 'HOST-A' }], { get: (t, k) => (k === 'length' ? '1.5' : t[k]) });
    bothAgree([call, produced, 1], 'proxies');
  });
});
