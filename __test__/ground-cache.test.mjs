// The stateless emptyLookupOf keeps the lowered texts of results it has seen
// (by their string value) between calls. These properties drive long
// sequences of calls that reuse, rebuild, mutate and evict those texts, with
// the cache bound made tiny through its hidden knob so that entries come and
// go all the time, and hold every answer to the all-native emptyLookupOf of
// the generated binding, which keeps nothing between calls.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import fc from 'fast-check';

// The knob is read when the package loads: a bound of a few texts.
process.env.SEAMGUARD_GROUND_CACHE_UNITS = '2000';
const require = createRequire(import.meta.url);
const { emptyLookupOf } = require('seamguard');
const generated = require('../index.js');

const SEED = Number(process.env.FC_SEED ?? 20261201);
const SCALE = Number(process.env.FC_RUNS_SCALE ?? 1);
const run = (property, numRuns) => fc.assert(property, { seed: SEED, numRuns: Math.ceil(numRuns * SCALE) });

/** Pieces of tool output: ids in mixed case, filler, and units past ASCII. */
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('20:00:00:25:B5:AA:00:1F', 'Host-Rack7', 'host-rack7', 'fc0/12', 'ONLINE', 'Zone_B7', ' ', '\n', '{"wwpn":"') },
  { weight: 2, arbitrary: fc.constantFrom('İstanbul', 'STRASSE', 'Straße', 'ΣΟΦΟΣ', '😀', '\uD83D', 'Ǆ', '\u00A0') },
  { weight: 3, arbitrary: fc.string({ minLength: 1, maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
);
/** A result text: short ones (never named) and long ones (named and kept). */
const text = fc.array(piece, { minLength: 1, maxLength: 80 }).map((pieces) => pieces.join(''));
const TOOLS = ['fabric_inventory', 'cmdb', 'ticket_search'];

/** A string equal by value to `value` but built anew (another string object). */
const rebuilt = (value) => (value.length === 0 ? '' : value.slice(0, 1) + value.slice(1));

/** One step: which pool texts make up `produced`, how each is passed, and what the call looks up. */
const step = fc.record({
  picks: fc.array(fc.record({ at: fc.nat(), tool: fc.nat({ max: 2 }), how: fc.nat({ max: 5 }) }), { maxLength: 8 }),
  mutate: fc.option(fc.record({ at: fc.nat(), offset: fc.nat(), unit: fc.string({ minLength: 1, maxLength: 2 }) })),
  leaves: fc.array(fc.record({ at: fc.nat(), from: fc.nat(), length: fc.integer({ min: 3, max: 30 }), upper: fc.boolean() }), { minLength: 1, maxLength: 4 }),
  from: fc.subarray(TOOLS, { minLength: 1 }),
  shape: fc.constantFrom('rowset', 'absence'),
});

function judgeSequence(pool, steps) {
  pool = [...pool];
  for (const [n, { picks, mutate, leaves, from, shape }] of steps.entries()) {
    if (mutate !== null) {
      // Replace a pool text by a changed copy: the old value may stay cached.
      const at = mutate.at % pool.length;
      const old = pool[at];
      const offset = old.length === 0 ? 0 : mutate.offset % old.length;
      pool[at] = old.slice(0, offset) + mutate.unit + old.slice(offset + 1);
    }
    const produced = picks.map(({ at, tool, how }) => {
      const value = pool[at % pool.length];
      return { toolName: TOOLS[tool], text: how === 0 ? rebuilt(value) : value };
    });
    const args = {};
    for (const [k, { at, from: start, length, upper }] of leaves.entries()) {
      const source = pool[at % pool.length];
      const begin = source.length === 0 ? 0 : start % source.length;
      const value = source.slice(begin, begin + length);
      args[`leaf${k}`] = upper ? value.toUpperCase() : value;
    }
    args.absent = `c0:ff:ee:${n}:missing`;
    const call = {
      toolName: 'port_for_device', toolCallId: `call-${n}`, args, argumentsFrom: from,
      reading: { shape, empty: true, rows: 0 },
    };
    assert.deepEqual(emptyLookupOf(call, produced, n), generated.emptyLookupOf(call, produced, n), `step ${n}`);
  }
}

describe('emptyLookupOf with kept grounds', () => {
  it('the knob set the bound', () => {
    assert.equal(generated.groundCacheBound(), 2000);
  });

  it('answers every call of a long sequence as the stateless binding does', () => {
    run(fc.property(fc.array(text, { minLength: 1, maxLength: 12 }), fc.array(step, { minLength: 1, maxLength: 30 }), judgeSequence), 150);
  });

  it('keeps answering right when the bound changes under it', () => {
    run(fc.property(
      fc.array(text, { minLength: 1, maxLength: 8 }),
      fc.array(step, { minLength: 1, maxLength: 10 }),
      fc.constantFrom(0, 200, 700, 2000),
      (pool, steps, bound) => {
        generated.groundCacheBound(bound);
        try {
          judgeSequence(pool, steps);
        } finally {
          generated.groundCacheBound(2000);
        }
      },
    ), 60);
  });

  it('a text kept under one value is never used for another of the same length', () => {
    const base = `{"wwpn":"20:00:00:25:B5:AA:00:1F","host":"Host-Rack7"} `.repeat(8);
    const other = base.replaceAll('AA:00:1F', 'AA:00:2C');
    assert.equal(base.length, other.length);
    const call = (value, n) => ({
      toolName: 'port_for_device', toolCallId: `call-${n}`, args: { wwpn: value }, argumentsFrom: ['cmdb'],
      reading: { shape: 'rowset', empty: true, rows: 0 },
    });
    for (let n = 0; n < 20; n++) {
      const produced = [{ toolName: 'cmdb', text: n % 2 ? other : base }];
      const wanted = n % 2 ? 'checked-pass' : 'checked-fail';
      assert.equal(emptyLookupOf(call('20:00:00:25:b5:aa:00:1f', n), produced, n).disposition, wanted, `call ${n}`);
    }
  });
});
