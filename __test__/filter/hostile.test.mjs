// Hostile JavaScript values at every entry point: the filter's constructor,
// feed, flush and getters, and the remaining combinations for
// readLookupResult and emptyLookupOf (checks/empty-lookup.test.mjs already covers
// one wrong type per field, a throwing getter in args, Proxy traps in args,
// 100,000-deep and cyclic args, 32M-unit strings and a cross product of bad
// arguments). Every call either returns the specification's answer or
// throws a JavaScript error that says what was wrong; the large and the
// crash-prone cases run in a child process, so that a crash fails one test.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';
import { NOT_STRINGS, inChild } from '../support/helpers.mjs';

const require = createRequire(import.meta.url);
const { ScaffoldingFilter, emptyLookupOf, readLookupResult } = require('seamguard');

const CALL = '<|tool_call|>';
const S = '<|tool_call_start|>';
const E = '<|tool_call_end|>';


const passThrough = (thrown) => (error) => error === thrown;

/** Runs `body` in a child process, which must exit cleanly having printed `expected`. */
function childPrints(body, expected) {
  const child = inChild(body, { timeout: 120_000 });
  assert.equal(child.signal, null, child.stderr);
  assert.equal(child.status, 0, child.stderr);
  assert.equal(child.stdout.trim(), expected);
}

describe('ScaffoldingFilter construction and receivers', () => {
  it('options of every wrong kind are a TypeError naming options; a throwing trap passes through', () => {
    for (const [index, [kind, value]] of NOT_STRINGS.entries()) {
      const label = `NOT_STRINGS[${index}] (${kind})`;
      const trapped = kind === 'object' && value !== null && (() => { try { Reflect.get(value, 'x'); return false; } catch { return true; } })();
      let filter;
      try {
        filter = new ScaffoldingFilter(value);
      } catch (error) {
        if (trapped) assert.equal(error.message, 'trap must not run', label);
        else assert.ok(error instanceof TypeError && /options/.test(error.message), `${label}: ${error}`);
        continue;
      }
      // Only the empty options (undefined, {}, a null-prototype object) construct.
      assert.ok(value === undefined || (typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0), label);
      assert.equal(filter.feed(`a${CALL}b`), 'ab', label);
    }
  });

  it('methods called on something that is not a filter throw instead of reading memory', () => {
    const proto = ScaffoldingFilter.prototype;
    const getter = (name) => Object.getOwnPropertyDescriptor(proto, name).get;
    const strangers = [{}, undefined, null, Object.create(proto), new Proxy(new ScaffoldingFilter(), {}), globalThis];
    for (const stranger of strangers) {
      assert.throws(() => proto.feed.call(stranger, 'x'), Error);
      assert.throws(() => proto.flush.call(stranger), Error);
      assert.throws(() => getter('strippedChars').call(stranger), Error);
      assert.throws(() => getter('strippedSpans').call(stranger), Error);
    }
    assert.throws(() => proto.strippedChars, /ScaffoldingFilter/);
  });

  it('a subclass, a frozen filter and a filter with own properties still work', () => {
    class Shouting extends ScaffoldingFilter {
      feed(chunk) {
        return super.feed(chunk).toUpperCase();
      }
    }
    assert.equal(new Shouting().feed(`a${CALL}b`), 'AB');
    const frozen = Object.freeze(new ScaffoldingFilter());
    assert.equal(frozen.feed(`x${CALL}y`), 'xy');
    assert.equal(frozen.strippedChars, CALL.length);
    const decorated = new ScaffoldingFilter();
    Object.defineProperty(decorated, 'feed', { value: 'shadowed' });
    Object.defineProperty(decorated, 'strippedChars', { value: 'shadowed' });
    assert.equal(ScaffoldingFilter.prototype.feed.call(decorated, `p${CALL}q`), 'pq');
  });

  it('assigning to a getter does nothing to the filter', () => {
    const filter = new ScaffoldingFilter();
    filter.feed(`a${CALL}`);
    assert.throws(() => {
      filter.strippedChars = 0;
    }, TypeError);
    assert.equal(Reflect.set(filter, 'strippedSpans', []), false);
    assert.equal(filter.strippedChars, CALL.length);
    assert.deepEqual(filter.strippedSpans, [CALL]);
  });

  it('called without new, it throws a TypeError', () => {
    childPrints(`
      try { const made = m.ScaffoldingFilter(); console.log(made === m ? 'the receiver' : typeof made); }
      catch (error) { console.log(error.constructor.name); }
    `, 'TypeError');
  });

  it('called without new, the process survives every way of doing it', () => {
    childPrints(`
      const { ScaffoldingFilter } = m;
      for (const call of [() => ScaffoldingFilter(), () => ScaffoldingFilter.call({}), () => Reflect.apply(ScaffoldingFilter, undefined, []),
                          () => ScaffoldingFilter.call(new ScaffoldingFilter()), () => ScaffoldingFilter()]) {
        try { call(); } catch {}
      }
      try { ScaffoldingFilter.prototype.feed.call(globalThis, 'x'); } catch {}
      console.log(new ScaffoldingFilter().feed('still <|tool_call|>fine'));
    `, 'still fine');
  });
});

describe('ScaffoldingFilter.feed with hostile chunks', () => {
  it('every value that is not a string is a TypeError naming chunk and what it got; no coercion runs', () => {
    const filter = new ScaffoldingFilter();
    for (const [kind, value] of NOT_STRINGS) {
      assert.throws(() => filter.feed(value), {
        name: 'TypeError',
        message: `ScaffoldingFilter.feed: chunk must be a string (got ${kind})`,
      });
    }
    assert.throws(() => filter.feed(), { name: 'TypeError', message: /chunk.*got undefined/ });
  });

  it('a rejected chunk leaves the held tail and the counters as they were', () => {
    const filter = new ScaffoldingFilter();
    assert.equal(filter.feed(`ab${S}held`), 'ab');
    for (const [, value] of NOT_STRINGS) assert.throws(() => filter.feed(value), TypeError);
    assert.equal(filter.feed(`${E}<|tool_`), '');
    for (const [, value] of NOT_STRINGS) assert.throws(() => filter.feed(value), TypeError);
    assert.equal(filter.feed('call|>c'), 'c');
    assert.deepEqual(filter.strippedSpans, [`${S}held${E}`, CALL]);
  });

  it('extra arguments to feed and flush are ignored', () => {
    const filter = new ScaffoldingFilter();
    assert.equal(filter.feed(`a${CALL}`, 42, null), 'a');
    assert.equal(filter.feed('<|tool', Symbol('x')), '');
    assert.equal(filter.flush({ drop: true }), '<|tool');
  });

  it('only lone surrogates, in every position a marker can have', () => {
    const filter = new ScaffoldingFilter();
    const lone = ['\uD800', '\uDBFF', '\uDC00', '\uDFFF'];
    let input = '';
    let out = '';
    for (const unit of lone) {
      for (const chunk of [unit, `<|${unit}`, `${S}${unit}`, `${unit}${E}`, `${CALL.slice(0, 5)}${unit}`]) {
        input += chunk;
        out += filter.feed(chunk);
      }
    }
    out += filter.flush();
    assert.equal(out.length + filter.strippedChars, input.length);
    assert.ok(!out.includes('\uFFFD'));
    assert.ok(filter.strippedSpans.every((span) => span.startsWith(S) && span.endsWith(E)));
  });
});

describe('ScaffoldingFilter with 64 MB strings, each in its own process', () => {
  it('passes a 64M-unit chunk of plain text through whole', () => {
    childPrints(`
      const f = new m.ScaffoldingFilter();
      const big = 'a'.repeat(64 * 1024 * 1024);
      const out = f.feed(big);
      console.log(out.length === big.length, out === big, f.flush(), f.strippedChars);
    `, 'true true  0');
  });

  it('strips a 64 MB span fed whole, and one fed in 1 MB pieces', () => {
    childPrints(`
      const body = 'é'.repeat(32 * 1024 * 1024); // two-byte string: 64 MB of UTF-16
      const whole = new m.ScaffoldingFilter();
      const a = whole.feed('x' + '${S}' + body + '${E}' + 'y');
      const pieces = new m.ScaffoldingFilter();
      let b = pieces.feed('x' + '${S}');
      for (let at = 0; at < body.length; at += 1 << 20) b += pieces.feed(body.slice(at, at + (1 << 20)));
      b += pieces.feed('${E}y') + pieces.flush();
      const span = ${S.length} + body.length + ${E.length};
      console.log(a, b, whole.strippedChars === span, pieces.strippedChars === span, pieces.strippedSpans[0].length === span);
    `, 'xy xy true true true');
  });

  it('strips five million tokens from one 65M-unit chunk', () => {
    childPrints(`
      const f = new m.ScaffoldingFilter();
      const count = 5_000_000;
      const out = f.feed('${CALL}'.repeat(count) + 'end');
      console.log(out, f.strippedChars === count * ${CALL.length}, f.strippedSpans.length === count);
    `, 'end true true');
  });

  it('flushes an unclosed 64 MB span back as text', () => {
    childPrints(`
      const f = new m.ScaffoldingFilter();
      const body = '<|'.repeat(16 * 1024 * 1024);
      const out = f.feed('${S}' + body);
      const tail = f.flush();
      console.log(JSON.stringify(out), tail.length === ${S.length} + body.length, f.strippedChars);
    `, '"" true 0');
  });
});

describe('readLookupResult: the remaining combinations', () => {
  it('rejects a declaredAbsence of every other kind, boxed booleans included, naming it', () => {
    const others = [...NOT_STRINGS.filter(([kind]) => kind !== 'boolean'), ['object', new Boolean(true)], ['string', 'true'], ['number', 1]];
    for (const [kind, value] of others) {
      assert.throws(() => readLookupResult([], value), {
        name: 'TypeError',
        message: `readLookupResult: declaredAbsence must be a boolean (got ${kind})`,
      });
    }
  });

  it('reads every kind of value without touching it when the absence is declared', () => {
    const untouchable = new Proxy([], {
      get() {
        throw new Error('read');
      },
      getPrototypeOf() {
        throw new Error('read');
      },
    });
    const revoked = Proxy.revocable([], {});
    revoked.revoke();
    for (const [, value] of [...NOT_STRINGS, ['', untouchable], ['', revoked.proxy]]) {
      assert.deepEqual(readLookupResult(value, true), { shape: 'absence', empty: true });
    }
  });

  it('gives undefined for every non-array, frozen and null-prototype objects included', () => {
    for (const [, value] of NOT_STRINGS) {
      if (Array.isArray(value)) continue;
      assert.equal(readLookupResult(value, false), undefined);
    }
    assert.deepEqual(readLookupResult(Object.freeze([1, 2]), false), { shape: 'rowset', empty: false, rows: 2 });
  });

  it('lets Array.isArray and a length trap throw through', () => {
    const revoked = Proxy.revocable([], {});
    revoked.revoke();
    assert.throws(() => readLookupResult(revoked.proxy, false), { name: 'TypeError', message: /revoked/ });
    const boom = new Error('length trap');
    const trapped = new Proxy([], { get: (target, key) => (key === 'length' ? (() => { throw boom; })() : target[key]) });
    assert.throws(() => readLookupResult(trapped, false), passThrough(boom));
  });

  it('reads a Proxy whose length lies as agentfootprint does: empty is length === 0, rows is length verbatim', () => {
    for (const length of [0, -0, 2.5, -1, 'abc', '0', NaN, Infinity, 2 ** 40, null, {}, Symbol('n'), 1n]) {
      let reads = 0;
      const liar = new Proxy([], { get: (target, key) => (key === 'length' ? (reads++, length) : target[key]) });
      const reading = readLookupResult(liar, false);
      assert.deepEqual(Object.keys(reading), ['shape', 'empty', 'rows']);
      assert.equal(reading.shape, 'rowset');
      assert.equal(reading.empty, length === 0, String(typeof length));
      assert.ok(Object.is(reading.rows, length), String(typeof length));
      assert.equal(reads, 2, 'length is read twice, as the reference reads it');
    }
  });
});

describe('emptyLookupOf: the remaining combinations', () => {
  const inventory = () => [{ toolName: 'inventory', text: 'host-a and host-b' }];
  const base = () => ({
    toolName: 'lookup',
    toolCallId: 'call-1',
    args: { host: 'host-a' },
    argumentsFrom: ['inventory'],
    reading: readLookupResult([], false),
  });
  /** `base()` with `field` read through a getter that throws `thrown`. */
  const throwingAt = (field, thrown) => {
    const call = base();
    delete call[field];
    Object.defineProperty(call, field, { enumerable: true, get: () => { throw thrown; } });
    return call;
  };

  it('lets a throwing getter on any call field through, whatever it throws', () => {
    for (const thrown of [new RangeError('no'), undefined, null, 42, Symbol('s'), { custom: true }]) {
      for (const field of ['toolName', 'toolCallId', 'args', 'argumentsFrom', 'reading']) {
        assert.throws(() => emptyLookupOf(throwingAt(field, thrown), inventory(), 1), passThrough(thrown), field);
      }
    }
  });

  it('lets Proxy traps on the call, its reading, argumentsFrom and produced through', () => {
    const boom = new Error('trap');
    const trap = () => {
      throw boom;
    };
    const cases = [
      [new Proxy(base(), { get: trap }), inventory()],
      [{ ...base(), reading: new Proxy({ shape: 'rowset', empty: true }, { get: trap }) }, inventory()],
      [{ ...base(), argumentsFrom: new Proxy(['inventory'], { get: trap }) }, inventory()],
      [base(), new Proxy(inventory(), { get: trap })],
      [base(), [new Proxy(inventory()[0], { get: trap })]],
      [base(), [{ toolName: 'inventory', get text() { throw boom; } }]],
    ];
    for (const [call, produced] of cases) assert.throws(() => emptyLookupOf(call, produced, 1), passThrough(boom));
  });

  it('names a produced entry that is a hole, null, a number or an array', () => {
    const holes = [, inventory()[0]]; // eslint-disable-line no-sparse-arrays
    for (const [produced, got] of [[holes, 'undefined'], [[null], 'null'], [[7], 'number'], [[['inventory', 'host-a']], null]]) {
      assert.throws(() => emptyLookupOf(base(), produced, 1), { name: 'TypeError', message: /produced\[0\]/ });
      if (got) assert.throws(() => emptyLookupOf(base(), produced, 1), { message: new RegExp(`got ${got}`) });
    }
  });

  it('rejects boxed primitives where primitives belong', () => {
    const cases = [
      [{ ...base(), toolName: new String('lookup') }, 1, /call\.toolName/],
      [{ ...base(), reading: { shape: 'rowset', empty: new Boolean(true) } }, 1, /call\.reading\.empty/],
      [{ ...base(), reading: { shape: new String('rowset'), empty: true } }, 1, /call\.reading\.shape/],
      [{ ...base(), argumentsFrom: [new String('inventory')] }, 1, /call\.argumentsFrom\[0\]/],
      [base(), new Number(1), /epoch/],
    ];
    for (const [call, epoch, message] of cases) {
      assert.throws(() => emptyLookupOf(call, inventory(), epoch), { name: 'TypeError', message });
    }
  });

  it('accepts frozen, null-prototype and Proxy-wrapped calls and results', () => {
    const bare = (object) => Object.assign(Object.create(null), object);
    const shapes = [
      (call, produced) => [Object.freeze(call), Object.freeze(produced.map(Object.freeze))],
      (call, produced) => [bare(call), produced.map(bare)],
      (call, produced) => [new Proxy(call, {}), new Proxy(produced, {})],
      (call, produced) => [{ ...call, args: Object.freeze(bare(call.args)) }, produced],
    ];
    for (const shape of shapes) {
      const [call, produced] = shape(base(), inventory());
      const encounter = emptyLookupOf(call, produced, 1);
      assert.equal(encounter.disposition, 'checked-fail');
      assert.equal(encounter.findings[0].predicate, 'host');
    }
  });

  it('stamps every number as the epoch, NaN and infinities included', () => {
    for (const epoch of [NaN, Infinity, -Infinity, Number.MIN_VALUE, -Number.MAX_VALUE]) {
      const [finding] = emptyLookupOf(base(), inventory(), epoch).findings;
      assert.ok(Object.is(finding.epoch, epoch));
      assert.ok(finding.witnesses.every((witness) => Object.is(witness.epoch, epoch)));
    }
  });

  it('carries lone surrogates in names, ids and values into the finding unchanged', () => {
    const call = { ...base(), toolName: 'look\uD800up', toolCallId: 'call-\uDFFF', args: { '\uDC00key': '\uD83Dhost-a' }, argumentsFrom: ['inv\uDBFF'] };
    const produced = [{ toolName: 'inv\uDBFF', text: 'x \uD83DHOST-A y' }];
    const [finding] = emptyLookupOf(call, produced, 1).findings;
    assert.deepEqual(finding.subjects, [{ kind: 'tool', id: 'look\uD800up' }, { kind: 'tool', id: 'inv\uDBFF' }]);
    assert.equal(finding.predicate, '\uDC00key');
    assert.equal(finding.witnesses[0].value, '\uD83Dhost-a');
    for (const fact of ['look\uD800up', 'call-\uDFFF', '\uDC00key', '\uD83Dhost-a', 'inv\uDBFF']) {
      assert.ok(finding.message.includes(fact), JSON.stringify(fact));
    }
    assert.ok(!finding.message.includes('\uFFFD'));
  });

  it('survives getters that change the arguments while they are walked', () => {
    const list = ['zzzz'];
    const args = {
      get first() {
        // Object.entries runs this getter, so the list has grown by the time
        // the walk reaches it; a key added now is not in the entries read.
        if (list.length < 50) list.push('host-a');
        args.late = 'host-b';
        return 'host-a';
      },
      list,
    };
    const encounter = emptyLookupOf({ ...base(), args }, inventory(), 1);
    assert.deepEqual(encounter.findings.map((f) => f.predicate), ['first', 'list.1']);
    // The walk reads an array's length again before each element.
    const shrinking = [
      'host-a',
      { get v() { shrinking.length = 0; return 'host-b'; } },
      'host-a',
    ];
    const after = emptyLookupOf({ ...base(), args: { shrinking } }, inventory(), 1);
    assert.deepEqual(after.findings.map((f) => f.predicate), ['shrinking.0', 'shrinking.1.v']);
  });

  it('survives a getter that calls back into the addon', () => {
    const filter = new ScaffoldingFilter();
    const args = {
      get nested() {
        const inner = emptyLookupOf({ ...base(), args: { again: 'host-b' } }, inventory(), 2);
        return `${inner.findings[0].predicate}:${filter.feed(`host-a${CALL}`)}`;
      },
    };
    const encounter = emptyLookupOf({ ...base(), args }, [{ toolName: 'inventory', text: 'again:host-a' }], 1);
    assert.deepEqual(encounter.findings.map((f) => [f.predicate, f.witnesses[0].value]), [['nested', 'again:host-a']]);
  });

  it('judges a 64 MB two-byte result and a 1M-unit leaf, in its own process', () => {
    childPrints(`
      const filler = 'ж'.repeat(16 * 1024 * 1024);
      const leaf = 'Ж'.repeat(1 << 20) + 'host-a';
      const text = filler + leaf.toLowerCase() + filler;
      const call = { toolName: 't', toolCallId: 'c', args: { leaf, miss: 'host-z' }, argumentsFrom: ['p'], reading: m.readLookupResult([], false) };
      const r = m.emptyLookupOf(call, [{ toolName: 'p', text }], 1);
      const [f] = r.findings;
      console.log(r.disposition, r.findings.length, f.predicate, f.witnesses[0].value === leaf, f.message.includes('Ж'.repeat(79) + '…'));
    `, 'checked-fail 1 leaf true true');
  });
});

// Arguments that demand unbounded work without being deep or cyclic. The
// walk gives up past its budget of values with a RangeError naming
// call.args, where it would otherwise run until memory ran out.
describe('unbounded work from hostile arguments', () => {
  const armed = (args) => `{ toolName: 't', toolCallId: 'c', args: ${args}, argumentsFrom: ['p'], reading: m.readLookupResult([], false) }`;
  const cases = [
    ['a getter that returns a fresh object forever', 'const deeper = () => ({ get next() { return deeper(); } });', 'deeper()'],
    ['one object shared 2^21 ways', "let shared = { v: 'host-a' }; for (let i = 0; i < 21; i++) shared = [shared, shared];", '{ shared }'],
    ['an array that claims four billion holes', 'const holes = []; holes.length = 2 ** 32 - 1;', '{ holes }'],
  ];
  for (const [name, setup, args] of cases) {
    it(`${name}: a RangeError naming call.args, and the process lives`, () => {
      childPrints(`
        ${setup}
        try { m.emptyLookupOf(${armed(args)}, [{ toolName: 'p', text: 'host-a' }], 1); console.log('answered'); }
        catch (error) { console.log(error.constructor.name, /call\.args/.test(error.message)); }
        const corpus = new m.ProducedCorpus();
        corpus.push({ toolName: 'p', text: 'host-a' });
        try { corpus.emptyLookupOf(${armed(args)}, 1); console.log('answered'); }
        catch (error) { console.log(error.constructor.name, /call\.args/.test(error.message)); }
      `, 'RangeError true\nRangeError true');
    });
  }
});

describe('every entry point with every hostile value, in its own process', () => {
  it('throws or answers, never crashes', () => {
    const child = inChild(`
      const boom = () => { throw new Error('boom'); };
      const revoked = Proxy.revocable({}, {}); revoked.revoke();
      const values = [undefined, null, 0, -0, NaN, '', 'x', '\\uD800', true, 1n, Symbol('s'), () => {}, [], {}, [[]],
        new Proxy({}, { get: boom, ownKeys: boom, getOwnPropertyDescriptor: boom, has: boom, getPrototypeOf: boom }),
        new Proxy([], { get: boom }), revoked.proxy, Object.create(null), Object.freeze({ a: 'b' }), new Uint8Array(4),
        new String('s'), new Number(1), new Boolean(false), { get toolName() { return boom(); } }];
      let thrown = 0, returned = 0;
      const attempt = (fn) => { try { fn(); returned++; } catch { thrown++; } };
      for (const a of values) {
        attempt(() => new m.ScaffoldingFilter(a));
        const f = new m.ScaffoldingFilter();
        attempt(() => f.feed(a));
        attempt(() => f.flush(a));
        for (const b of values) {
          attempt(() => new m.ScaffoldingFilter(a, b).feed(b));
          attempt(() => m.readLookupResult(a, b));
          attempt(() => m.emptyLookupOf({ toolName: 't', toolCallId: 'c', args: a, argumentsFrom: b, reading: { shape: 'rowset', empty: true } }, [{ toolName: 't', text: 'x' }], 1));
          attempt(() => m.emptyLookupOf({ toolName: a, toolCallId: b, args: {}, argumentsFrom: [], reading: m.readLookupResult([], true) }, [a], b));
          attempt(() => m.emptyLookupOf({ toolName: 't', toolCallId: 'c', args: { a, b }, argumentsFrom: ['p'], reading: a }, [{ toolName: 'p', text: 'xxxx' }, b], 0));
        }
      }
      console.log(thrown > 0 && returned > 0 ? 'survived' : 'odd', new m.ScaffoldingFilter().feed('ok'));
    `, 'survived ok');
  });
});
