import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';
import { inChild, rng } from '../support/helpers.mjs';
import { joinsOf, modelEmptyLookup } from '../support/model.mjs';

const require = createRequire(import.meta.url);
const { EMPTY_LOOKUP_CEILING, emptyLookupOf, readLookupResult } = require('seamguard');

const WWPN = '20:00:00:25:b5:aa:00:1f';
const INVENTORY = [
  { toolName: 'fabric_inventory', text: `devices: ${WWPN} (host-a), 20:00:00:25:b5:aa:00:2c (host-b)` },
];

function fieldCall(overrides = {}) {
  return {
    toolName: 'port_for_device',
    toolCallId: 'call-2',
    args: { wwpn: WWPN },
    argumentsFrom: ['fabric_inventory'],
    reading: readLookupResult([], false),
    ...overrides,
  };
}

/** Checks `args` against one declared ground holding `text`. */
function judge(args, text, reading = readLookupResult([], false)) {
  return emptyLookupOf(fieldCall({ args, reading }), [{ toolName: 'fabric_inventory', text }], 1);
}

describe('the worked example (the field case)', () => {
  it('files one advisory finding with the whole agentfootprint shape', () => {
    const encounter = emptyLookupOf(fieldCall(), INVENTORY, 2);
    assert.equal(encounter.disposition, 'checked-fail');
    assert.equal(encounter.findings.length, 1);
    const [finding] = encounter.findings;
    const port = { kind: 'tool', id: 'port_for_device' };
    const inventory = { kind: 'tool', id: 'fabric_inventory' };
    assert.deepEqual(Object.keys(finding), ['kind', 'seam', 'subjects', 'predicate', 'witnesses', 'epoch', 'advisory', 'message']);
    assert.equal(finding.kind, 'empty-lookup');
    assert.equal(finding.seam, 'write');
    assert.deepEqual(finding.subjects, [port, inventory]);
    assert.equal(finding.predicate, 'wwpn');
    assert.equal(finding.epoch, 2);
    assert.equal(finding.advisory, true);
    assert.equal('synthetic' in finding, false);

    assert.equal(finding.witnesses.length, 3);
    for (const witness of finding.witnesses) {
      assert.deepEqual(Object.keys(witness), ['subject', 'predicate', 'value', 'epoch', 'stratum', 'provenance']);
      assert.equal(witness.predicate, 'wwpn');
      assert.equal(witness.epoch, 2);
      assert.equal(witness.stratum, 'asserted');
    }
    const [chosen, served, empty] = finding.witnesses;
    assert.deepEqual(chosen.subject, port);
    assert.equal(chosen.value, WWPN);
    assert.match(chosen.provenance, /call-2/);
    assert.match(chosen.provenance, /'wwpn'/);
    assert.deepEqual(served.subject, inventory);
    assert.match(served.value, /served this value earlier in this run/);
    assert.match(served.provenance, /declared ground/);
    assert.match(served.provenance, /argumentsFrom/);
    assert.deepEqual(empty.subject, port);
    assert.match(empty.value, /found nothing/);
    assert.match(empty.value, /a rowset with zero rows/);
    assert.match(empty.provenance, /call-2/);

    for (const fact of ['port_for_device', 'fabric_inventory', 'wwpn', `"${WWPN}"`, 'call-2', 'a rowset with zero rows', EMPTY_LOOKUP_CEILING, 'Nothing here blocked the call']) {
      assert.ok(finding.message.includes(fact), `message lacks ${JSON.stringify(fact)}`);
    }
    assert.ok(!finding.message.includes('\n'), 'one paragraph');
  });

  const rows = [
    ['a producer that is not declared', { produced: [{ toolName: 'some_other_tool', text: INVENTORY[0].text }] }, 'unreachable'],
    ['a one-row reading', { call: { reading: readLookupResult([{ port: 7 }], false) } }, 'checked-pass'],
    ['a bespoke result', { call: { reading: readLookupResult('no logins', false) } }, 'not-applicable'],
    ['a value under the fence', { call: { args: { id: 'a1' } } }, 'checked-pass'],
    ['a value that is not a string', { call: { args: { port: 4471 } } }, 'checked-pass'],
    ['a declared absence', { call: { reading: readLookupResult({ af_absent: true }, true) } }, 'checked-fail'],
    ['no results served', { produced: [] }, 'unreachable'],
    ['a declared producer that served empty text', { produced: [{ toolName: 'fabric_inventory', text: '' }] }, 'unreachable'],
  ];
  for (const [name, change, disposition] of rows) {
    it(`${name} → ${disposition}`, () => {
      const encounter = emptyLookupOf(fieldCall(change.call), change.produced ?? INVENTORY, 2);
      assert.equal(encounter.disposition, disposition);
      assert.equal(encounter.findings.length, disposition === 'checked-fail' ? 1 : 0);
    });
  }

  it('names a declared absence as such', () => {
    const encounter = emptyLookupOf(fieldCall({ reading: readLookupResult(null, true) }), INVENTORY, 2);
    assert.match(encounter.findings[0].message, /a declared absence/);
    assert.match(encounter.findings[0].witnesses[2].value, /a declared absence/);
  });
});

describe('EMPTY_LOOKUP_CEILING', () => {
  it('says an empty result can be true and that a finding is never a verdict', () => {
    assert.equal(typeof EMPTY_LOOKUP_CEILING, 'string');
    assert.match(EMPTY_LOOKUP_CEILING, /can be perfectly true/);
    assert.match(EMPTY_LOOKUP_CEILING, /never a verdict/);
  });
});

describe('readLookupResult', () => {
  const cases = [
    ['declared absence, any value', 'anything', true, { shape: 'absence', empty: true }],
    ['declared absence of an array', [1, 2], true, { shape: 'absence', empty: true }],
    ['an empty array', [], false, { shape: 'rowset', empty: true, rows: 0 }],
    ['a two-row array', [{}, {}], false, { shape: 'rowset', empty: false, rows: 2 }],
    ['a sparse array counts its length', [, , ,], false, { shape: 'rowset', empty: false, rows: 3 }],
    ['a Proxy over an array', new Proxy([1], {}), false, { shape: 'rowset', empty: false, rows: 1 }],
    ['a Proxy over an empty array', new Proxy([], {}), false, { shape: 'rowset', empty: true, rows: 0 }],
    ['a string', 'no logins', false, undefined],
    ['null', null, false, undefined],
    ['undefined', undefined, false, undefined],
    ['a number', 0, false, undefined],
    ['a rows wrapper', { rows: [] }, false, undefined],
    ['a typed array', new Uint8Array(0), false, undefined],
    ['an array-like object', { length: 0 }, false, undefined],
  ];
  for (const [name, value, absence, expected] of cases) {
    it(name, () => {
      const reading = readLookupResult(value, absence);
      assert.deepEqual(reading, expected);
      if (expected === undefined) assert.equal(reading, undefined);
    });
  }

  it('has no rows key for an absence', () => {
    assert.equal('rows' in readLookupResult([], true), false);
    assert.deepEqual(Object.keys(readLookupResult([], false)), ['shape', 'empty', 'rows']);
  });

  it('rejects a declaredAbsence that is not a boolean, naming it', () => {
    for (const bad of [undefined, null, 1, 'true', {}]) {
      assert.throws(() => readLookupResult([], bad), { name: 'TypeError', message: /declaredAbsence/ });
    }
  });
});

describe('the leaf walk', () => {
  const everywhere = 'alpha bravo charlie delta echo foxtrot golf hotel india';
  const paths = (args) => judge(args, everywhere).findings.map((f) => f.predicate);

  it('gives dot-paths through records and arrays', () => {
    assert.deepEqual(paths({ filter: { devices: ['alpha', 'bravo'] } }), ['filter.devices.0', 'filter.devices.1']);
  });

  it('follows JavaScript property order: integer keys ascending, then insertion order', () => {
    assert.deepEqual(paths({ zulu: 'alpha', 10: 'bravo', 2: 'charlie', able: 'delta' }), ['2', '10', 'zulu', 'able']);
  });

  it('reads own enumerable string keys only', () => {
    const proto = { inherited: 'alpha' };
    const args = Object.create(proto);
    args.own = 'bravo';
    Object.defineProperty(args, 'hidden', { value: 'charlie', enumerable: false });
    args[Symbol('s')] = 'delta';
    assert.deepEqual(paths(args), ['own']);
  });

  it('invokes getters, in order', () => {
    const seen = [];
    const args = {
      get first() {
        seen.push('first');
        return 'alpha';
      },
      get second() {
        seen.push('second');
        return 'bravo';
      },
    };
    assert.deepEqual(paths(args), ['first', 'second']);
    assert.deepEqual(seen, ['first', 'second']);
  });

  it('walks a Proxy as Object.entries sees it', () => {
    const args = new Proxy({}, {
      ownKeys: () => ['b', 'a'],
      getOwnPropertyDescriptor: () => ({ enumerable: true, configurable: true }),
      get: (_, key) => (key === 'a' ? 'alpha' : 'bravo'),
    });
    assert.deepEqual(paths(args), ['b', 'a']);
    assert.deepEqual(paths({ list: new Proxy(['alpha', 'bravo'], {}) }), ['list.0', 'list.1']);
  });

  it('skips exotic values and does not walk functions', () => {
    const fn = () => {};
    fn.inner = 'alpha';
    const args = {
      n: 42, b: true, nil: null, u: undefined, big: 10n, sym: Symbol('bravo'), fn,
      typed: new Uint16Array([65, 66, 67, 68]), date: new Date(0), re: /charlie/, map: new Map([['k', 'delta']]),
      boxed: new String('echo'), frozen: Object.freeze({ f: 'foxtrot' }), bare: Object.assign(Object.create(null), { g: 'golf' }),
    };
    // A boxed string's entries are its one-character strings, under the fence.
    assert.deepEqual(paths(args), ['frozen.f', 'bare.g']);
  });

  it('counts holes as undefined and judges every element', () => {
    assert.deepEqual(paths({ list: ['alpha', , 'bravo'] }), ['list.0', 'list.2']);
  });

  it('does not re-enter a container on the current path, and judges every real leaf', () => {
    const args = { id: 'alpha' };
    args.self = args;
    args.list = ['bravo'];
    args.list.push(args.list, args);
    args.last = 'charlie';
    assert.deepEqual(paths(args), ['id', 'list.0', 'last']);
  });

  it('walks a container shared by two paths on each of them', () => {
    const shared = { v: 'alpha' };
    assert.deepEqual(paths({ a: shared, b: [shared] }), ['a.v', 'b.0.v']);
  });
});

describe('JavaScript string semantics', () => {
  const grounded = (leaf, text) => judge({ v: leaf }, text).findings.length === 1;
  const cases = [
    ['four units are judged', 'abcd', 'x abcd x', true],
    ['three are not', 'abc', 'x abc x', false],
    ['trim removes no-break space and BOM', '\u00a0abc\ufeff', 'x abc x', false],
    ['trim removes U+2028 and U+2029', '\u2028abcd\u2029', 'abcd', true],
    ['trim keeps U+0085', '\u0085abcd', 'abcd', false],
    ['two emoji are four units', '😀😀', 'a😀😀b', true],
    ['case-insensitive', 'HOST-A', 'host-a', true],
    ['İ lowers to i + U+0307', 'İSTANBUL', 'i̇stanbul', true],
    ['final sigma depends on context', 'ΟΔΟΣ', 'οδοσα', false],
    ['final sigma matches a final sigma', 'ΟΔΟΣ', 'η οδος', true],
    ['a lone surrogate is kept', '\ud800abc', 'x\ud800abc', true],
    ['a lone surrogate is not replaced', '\ud800abc', 'x\ufffdabc', false],
  ];
  for (const [name, leaf, text, expected] of cases) {
    it(name, () => assert.equal(grounded(leaf, text), expected));
  }

  it('keeps the chosen value exactly and clips the quoted one at 80 units without splitting a pair', () => {
    const leaf = `  ${'a'.repeat(78)}😀tail  `;
    const [finding] = judge({ v: leaf }, leaf.trim()).findings;
    assert.equal(finding.witnesses[0].value, leaf);
    assert.ok(finding.message.includes(`"${'a'.repeat(78)}…"`));
    assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(finding.message), 'no lone high surrogate');
  });

  it('stamps epoch verbatim', () => {
    for (const epoch of [1.5, -1, 2 ** 40, 0, -0, Number.MAX_SAFE_INTEGER]) {
      const [finding] = emptyLookupOf(fieldCall(), INVENTORY, epoch).findings;
      assert.ok(Object.is(finding.epoch, epoch));
      for (const witness of finding.witnesses) assert.ok(Object.is(witness.epoch, epoch));
    }
  });
});

describe('grounding', () => {
  it('takes the first declared ground in produced order', () => {
    const produced = [
      { toolName: 'undeclared', text: 'host-a' },
      { toolName: 'cmdb', text: 'HOST-A in rack 4' },
      { toolName: 'fabric_inventory', text: 'host-a' },
    ];
    const call = fieldCall({ args: { h: 'host-a' }, argumentsFrom: ['fabric_inventory', 'cmdb'] });
    assert.deepEqual(emptyLookupOf(call, produced, 1).findings[0].subjects[1], { kind: 'tool', id: 'cmdb' });
  });

  it('files one finding per grounded leaf', () => {
    const encounter = judge({ a: 'host-a', b: ['HOST-B', 'zz'], c: 'nowhere' }, 'host-a and host-b');
    assert.deepEqual(encounter.findings.map((f) => f.predicate), ['a', 'b.0']);
  });

  it('agrees with a plain JavaScript model of the rules on random calls', () => {
    const r = rng(20261129);
    const atoms = ['host', 'HOST', 'Σ', 'σ', 'ς', 'İ', 'i', '\u0307', ' ', '\u00a0', '\ufeff', '\u0085', '\u2028', '😀', '\ud800', '\udc00', 'a', 'b', '-', '.', '1'];
    const word = () => Array.from({ length: 1 + r.below(6) }, () => r.pick(atoms)).join('');
    let pool = [];
    // Leaves are mostly drawn from the words the results are made of, with
    // their case and padding changed, so that joins are common.
    const leaf = () => {
      let w = r.chance(0.8) ? r.pick(pool) : word();
      if (r.chance(0.3)) w = w.toUpperCase();
      if (r.chance(0.2)) w = r.pick([' ', '\u00a0', '\u0085', '\ufeff']) + w;
      return w;
    };
    const value = (depth) => {
      const roll = r.below(10);
      if (depth > 2 || roll < 5) return leaf();
      if (roll === 5) return r.below(100);
      if (roll === 6) return null;
      if (roll < 9) return Array.from({ length: r.below(3) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: r.below(3) }, () => [r.pick(['k', '1', 'Σ', 'x.y', '0']), value(depth + 1)]));
    };
    const tools = ['inventory', 'cmdb', 'other'];
    const dispositions = {};
    for (let i = 0; i < 400; i++) {
      pool = Array.from({ length: 4 }, () => word() + word());
      const produced = Array.from({ length: r.below(4) }, () => ({ toolName: r.pick(tools), text: Array.from({ length: 1 + r.below(3) }, () => r.pick(pool)).join(r.pick([' ', ''])) }));
      const call = {
        toolName: 'lookup',
        toolCallId: `c${i}`,
        args: Object.fromEntries(Array.from({ length: 1 + r.below(3) }, (_, k) => [`a${k}`, value(0)])),
        argumentsFrom: tools.filter(() => r.chance(0.75)),
        reading: r.pick([readLookupResult([], false), readLookupResult([], false), readLookupResult(null, true), readLookupResult([1], false), undefined]),
      };
      const expected = modelEmptyLookup(call, produced);
      assert.deepEqual(joinsOf(emptyLookupOf(call, produced, i)), expected, `case ${i}: ${JSON.stringify({ call, produced })}`);
      dispositions[expected.disposition] = (dispositions[expected.disposition] ?? 0) + 1;
    }
    // The cases must exercise every outcome, joins above all.
    assert.ok(dispositions['checked-fail'] > 50, JSON.stringify(dispositions));
    for (const d of ['checked-pass', 'not-applicable', 'unreachable']) assert.ok(dispositions[d] > 10, JSON.stringify(dispositions));
  });
});

describe('bad input', () => {
  const typeError = (pattern) => ({ name: 'TypeError', message: pattern });
  const cases = [
    ['call is not an object', () => emptyLookupOf(null, INVENTORY, 1), /call/],
    ['call is a string', () => emptyLookupOf('call', INVENTORY, 1), /call/],
    ['produced is not an array', () => emptyLookupOf(fieldCall(), { 0: INVENTORY[0] }, 1), /produced/],
    ['produced is missing', () => emptyLookupOf(fieldCall()), /produced/],
    ['epoch is a string', () => emptyLookupOf(fieldCall(), INVENTORY, '2'), /epoch/],
    ['epoch is a bigint', () => emptyLookupOf(fieldCall(), INVENTORY, 2n), /epoch/],
    ['toolName is not a string', () => emptyLookupOf(fieldCall({ toolName: 7 }), INVENTORY, 1), /call\.toolName/],
    ['toolCallId is missing', () => emptyLookupOf(fieldCall({ toolCallId: undefined }), INVENTORY, 1), /call\.toolCallId/],
    ['args is null', () => emptyLookupOf(fieldCall({ args: null }), INVENTORY, 1), /call\.args/],
    ['argumentsFrom is a string', () => emptyLookupOf(fieldCall({ argumentsFrom: 'fabric_inventory' }), INVENTORY, 1), /call\.argumentsFrom/],
    ['argumentsFrom holds a number', () => emptyLookupOf(fieldCall({ argumentsFrom: [1] }), INVENTORY, 1), /call\.argumentsFrom\[0\]/],
    ['reading is null', () => emptyLookupOf(fieldCall({ reading: null }), INVENTORY, 1), /call\.reading/],
    ['reading.empty is not a boolean', () => emptyLookupOf(fieldCall({ reading: { shape: 'rowset', empty: 0 } }), INVENTORY, 1), /call\.reading\.empty/],
    ['reading.shape is unknown', () => emptyLookupOf(fieldCall({ reading: { shape: 'table', empty: true } }), INVENTORY, 1), /call\.reading\.shape/],
    ['a produced entry is a string', () => emptyLookupOf(fieldCall(), ['text'], 1), /produced\[0\]/],
    ['a produced toolName is not a string', () => emptyLookupOf(fieldCall(), [INVENTORY[0], { toolName: null, text: 'x' }], 1), /produced\[1\]\.toolName/],
    ['a produced text is not a string', () => emptyLookupOf(fieldCall(), [{ toolName: 'fabric_inventory', text: 42 }], 1), /produced\[0\]\.text/],
  ];
  for (const [name, run, pattern] of cases) {
    it(`${name}: TypeError naming it`, () => assert.throws(run, typeError(pattern)));
  }

  it('lets the exception of a throwing getter through unchanged', () => {
    const boom = new RangeError('getter says no');
    const args = { ok: 'host-a', get bad() { throw boom; } };
    assert.throws(() => judge(args, 'host-a'), (e) => e === boom);
  });

  it('lets the exception of a throwing Proxy trap through unchanged', () => {
    const boom = { not: 'even an Error' };
    const trap = () => { throw boom; };
    for (const handler of [{ ownKeys: trap }, { get: trap }, { getOwnPropertyDescriptor: trap }]) {
      const args = { nested: new Proxy({ x: 'host-a' }, handler) };
      assert.throws(() => judge(args, 'host-a'), (e) => e === boom);
    }
    const revocable = Proxy.revocable([], {});
    revocable.revoke();
    assert.throws(() => judge({ list: revocable.proxy }, 'host-a'), TypeError);
  });

  it('reads nothing past a reading that decides', () => {
    const call = { get toolName() { throw new Error('read'); }, reading: undefined };
    assert.equal(emptyLookupOf(call, [], 1).disposition, 'not-applicable');
    call.reading = { shape: 'rowset', empty: false, rows: 1 };
    assert.equal(emptyLookupOf(call, [], 1).disposition, 'checked-pass');
  });
});

describe('hostile sizes, each in its own process', () => {
  it('survives args nested 100,000 levels deep and still judges the leaf at the bottom', () => {
    const child = inChild(`
      let args = 'host-a-deep';
      for (let i = 0; i < 100000; i++) args = i % 2 ? { k: args } : [args];
      const r = m.emptyLookupOf({ toolName: 't', toolCallId: 'c', args: { root: args }, argumentsFrom: ['p'], reading: m.readLookupResult([], false) },
        [{ toolName: 'p', text: 'HOST-A-DEEP' }], 1);
      console.log(r.disposition, r.findings.length, r.findings[0].predicate.length);
    `);
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), `checked-fail 1 ${'root'.length + 100000 * 2}`);
  });

  it('survives a deep cycle', () => {
    const child = inChild(`
      const top = { v: 'host-a' };
      let node = top;
      for (let i = 0; i < 50000; i++) { node.next = { back: top, v: 'zz' }; node = node.next; }
      node.loop = top;
      const r = m.emptyLookupOf({ toolName: 't', toolCallId: 'c', args: top, argumentsFrom: ['p'], reading: m.readLookupResult([], false) },
        [{ toolName: 'p', text: 'host-a' }], 1);
      console.log(r.disposition, r.findings.length);
    `);
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'checked-fail 1');
  });

  it('handles strings of tens of megabytes', () => {
    const child = inChild(`
      const big = 'x'.repeat(32 * 1024 * 1024);
      const text = big + 'NEEDLE-AT-THE-END';
      const r = m.emptyLookupOf({ toolName: 't', toolCallId: 'c', args: { v: 'needle-at-the-end', w: big + 'Q' }, argumentsFrom: ['p'], reading: m.readLookupResult([], false) },
        [{ toolName: 'p', text }], 1);
      console.log(r.disposition, r.findings.map((f) => f.predicate).join(','), r.findings.length);
    `, { timeout: 120_000 });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'checked-fail v 1');
  });

  it('turns every kind of bad argument into an exception, never a crash', () => {
    const child = inChild(`
      const values = [undefined, null, 0, NaN, '', 'x', true, 1n, Symbol('s'), () => {}, [], {}, new Proxy({}, {}), Object.create(null)];
      let thrown = 0, returned = 0;
      for (const a of values) for (const b of values) for (const c of values) {
        try { m.emptyLookupOf(a, b, c); returned++; } catch (e) { thrown++; }
        try { m.readLookupResult(a, b); returned++; } catch (e) { thrown++; }
      }
      console.log(thrown > 0 && returned > 0 ? 'survived' : 'odd');
    `);
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stdout.trim(), 'survived');
  });
});
