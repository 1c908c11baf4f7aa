// declaredEnumValuesOf (lib/guard/enums.cjs): the rules in docs/checks.md
// ("unsupported-argument"), and the step budget seamguard adds.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { declaredEnumValuesOf } = require('../../lib/guard/enums.cjs');

/** The values, in the set's own order. */
const list = (schema) => [...declaredEnumValuesOf(schema)];

/** `leaf` under `levels` single-property objects, so it sits at depth `levels`. */
function underObjects(levels, leaf) {
  let node = leaf;
  for (let i = 0; i < levels; i += 1) node = { next: node };
  return node;
}

/** `leaf` under `levels` one-element arrays. */
function underArrays(levels, leaf) {
  let node = leaf;
  for (let i = 0; i < levels; i += 1) node = [node];
  return node;
}

describe('declaredEnumValuesOf: the examples', () => {
  it('collects every enum of a JSON Schema, in walk order', () => {
    const schema = {
      type: 'object',
      properties: {
        window: { type: 'string', enum: ['nightly', 'weekly'] },
        filter: { properties: { tier: { enum: ['gold', 'silver'] } } },
        hosts: { items: { enum: ['a-host'] } },
      },
    };
    assert.deepEqual(list(schema), ['nightly', 'weekly', 'gold', 'silver', 'a-host']);
  });

  it('keeps only the strings of an enum', () => {
    assert.deepEqual(list({ enum: [1, true, 'keep'] }), ['keep']);
  });

  it('an enum key counts wherever it sits, schema keyword or not', () => {
    const schema = {
      anyOf: [{ enum: ['first'] }, { const: 'x', enum: ['second'] }],
      'x-vendor': { anything: { enum: ['third'] } },
      description: 'prose is not walked into, it is a string',
    };
    assert.deepEqual(list(schema), ['first', 'second', 'third']);
  });
});

describe('declaredEnumValuesOf: the depth fence', () => {
  it('an enum on an object at depth 8 is collected, at depth 9 it is not', () => {
    assert.deepEqual(list(underObjects(8, { enum: ['eight'] })), ['eight']);
    assert.deepEqual(list(underObjects(9, { enum: ['nine'] })), []);
  });

  it('array elements are one level deeper too', () => {
    assert.deepEqual(list(underArrays(8, { enum: ['eight'] })), ['eight']);
    assert.deepEqual(list(underArrays(9, { enum: ['nine'] })), []);
    assert.deepEqual(list(underObjects(4, underArrays(4, { enum: ['mixed'] }))), ['mixed']);
    assert.deepEqual(list(underObjects(4, underArrays(5, { enum: ['mixed'] }))), []);
  });

  it('the root itself is depth 0', () => {
    assert.deepEqual(list({ enum: ['root'] }), ['root']);
    assert.deepEqual(list([{ enum: ['one down'] }]), ['one down']);
  });

  it('an object inside an enum array is walked one level below the array', () => {
    // The enum array of the root is depth 1, its object members depth 2.
    assert.deepEqual(list({ enum: ['outer', { enum: ['inner'] }] }), ['outer', 'inner']);
    // At depth 7 the enum array is depth 8 and its object depth 9: the
    // outer strings are read, the object is not visited.
    assert.deepEqual(list(underObjects(7, { enum: ['outer', { enum: ['inner'] }] })), ['outer']);
  });

  it('a cyclic schema terminates at the fence', () => {
    const loop = { enum: ['loop'] };
    loop.self = loop;
    loop.items = [loop];
    assert.deepEqual(list(loop), ['loop']);
    const a = { enum: ['a'] };
    const b = { enum: ['b'], back: a };
    a.forth = b;
    assert.deepEqual(list(a), ['a', 'b']);
  });
});

describe('declaredEnumValuesOf: how the schema is read', () => {
  it('an inherited enum counts', () => {
    assert.deepEqual(list(Object.create({ enum: ['x'] })), ['x']);
  });

  it('other inherited properties are not walked', () => {
    assert.deepEqual(list(Object.create({ nested: { enum: ['hidden'] } })), []);
  });

  it('a non-enumerable own enum is read, a non-enumerable own object is not walked', () => {
    const schema = {};
    Object.defineProperty(schema, 'enum', { value: ['own'], enumerable: false });
    Object.defineProperty(schema, 'nested', { value: { enum: ['hidden'] }, enumerable: false });
    assert.deepEqual(list(schema), ['own']);
  });

  it('symbol-keyed values are not walked', () => {
    assert.deepEqual(list({ [Symbol('s')]: { enum: ['hidden'] } }), []);
  });

  it('getters are invoked', () => {
    let calls = 0;
    const schema = {
      get properties() {
        calls += 1;
        return { mode: { enum: ['from-getter'] } };
      },
    };
    assert.deepEqual(list(schema), ['from-getter']);
    assert.ok(calls >= 1);
  });

  it('a getter for enum itself is read', () => {
    const schema = {
      get enum() {
        return ['got'];
      },
    };
    assert.deepEqual(list(schema), ['got']);
  });

  it('an enum that is not an array declares nothing', () => {
    assert.deepEqual(list({ enum: 'nightly' }), []);
    assert.deepEqual(list({ enum: { 0: 'like', length: 1 } }), []);
    assert.deepEqual(list({ enum: new Set(['set']) }), []);
  });

  it('non-string members are skipped, nested arrays inside an enum declare nothing', () => {
    const schema = { enum: [1, 0n, true, null, undefined, ['nested'], Object('boxed'), Symbol('s'), 'keep'] };
    assert.deepEqual(list(schema), ['keep']);
  });

  it('duplicates collapse and the first sighting fixes the order', () => {
    const schema = { enum: ['b', 'a', 'b'], more: { enum: ['a', 'c'] }, last: [{ enum: ['c', 'b', 'd'] }] };
    assert.deepEqual(list(schema), ['b', 'a', 'c', 'd']);
  });

  it('values are kept exactly as declared', () => {
    const schema = { enum: [' Nightly ', 'NIGHTLY', 'nightly', '', 'İstanbul'] };
    assert.deepEqual(list(schema), [' Nightly ', 'NIGHTLY', 'nightly', '', 'İstanbul']);
  });

  it('a schema that is not an object gives an empty set', () => {
    const fn = () => {};
    fn.enum = ['on a function'];
    for (const schema of [undefined, null, 'a string', 42, true, 0n, Symbol('s'), fn]) {
      const found = declaredEnumValuesOf(schema);
      assert.ok(found instanceof Set);
      assert.equal(found.size, 0);
    }
  });

  it('a function inside a schema is not walked', () => {
    const fn = () => {};
    fn.enum = ['on a function'];
    assert.deepEqual(list({ validate: fn, enum: ['ok'] }), ['ok']);
  });

  it('the answer is a real, new Set', () => {
    const schema = { enum: ['x', 'y'] };
    const first = declaredEnumValuesOf(schema);
    assert.ok(first instanceof Set);
    assert.equal(first.size, 2);
    assert.ok(first.has('x'));
    assert.deepEqual([...first], ['x', 'y']);
    assert.notEqual(declaredEnumValuesOf(schema), first);
  });
});

describe('declaredEnumValuesOf: hostile schemas', () => {
  it('an exception from a getter propagates unchanged', () => {
    const boom = new Error('getter refused');
    const schema = {
      properties: {
        get bad() {
          throw boom;
        },
      },
    };
    assert.throws(() => declaredEnumValuesOf(schema), (e) => e === boom);
  });

  it('a Proxy schema is read through its traps', () => {
    const seen = [];
    const target = { enum: ['p'], nested: { enum: ['q'] } };
    const schema = new Proxy(target, {
      get(t, key, receiver) {
        seen.push(key);
        return Reflect.get(t, key, receiver);
      },
    });
    assert.deepEqual(list(schema), ['p', 'q']);
    assert.ok(seen.includes('enum'));
  });

  it('a Proxy of an array is walked as an array', () => {
    assert.deepEqual(list(new Proxy([{ enum: ['in proxy'] }], {})), ['in proxy']);
  });

  it('an exception from a Proxy trap propagates unchanged', () => {
    const boom = new Error('ownKeys refused');
    const schema = new Proxy({}, {
      ownKeys() {
        throw boom;
      },
    });
    assert.throws(() => declaredEnumValuesOf(schema), (e) => e === boom);
  });

  it('a schema shared along exponentially many paths throws a RangeError instead of hanging', () => {
    // The shared leaf is reached along 10^7 paths; count how often it is read.
    let reads = 0;
    let node = { get enum() { reads += 1; return ['shared']; } };
    for (let level = 0; level < 7; level += 1) {
      const next = {};
      for (let k = 0; k < 10; k += 1) next[`k${k}`] = node;
      node = next;
    }
    assert.throws(() => declaredEnumValuesOf(node), (e) => e instanceof RangeError && /not walked/.test(e.message));
    assert.ok(reads > 0 && reads < 1_000_000, `the walk stopped at its budget (${reads} of 10,000,000 reads)`);
  });

  it('modest sharing stays under the budget', () => {
    let node = { enum: ['shared'] };
    for (let level = 0; level < 8; level += 1) node = { a: node, b: node, c: node };
    assert.deepEqual(list(node), ['shared']);
  });
});
