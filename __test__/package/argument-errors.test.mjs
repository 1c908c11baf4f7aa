// The smaller errors: a source that cannot be iterated is a TypeError from
// stripScaffolding at the call, naming the function and the argument; a
// misspelled disposition given to the ledger counts as unreachable, as
// agentfootprint's own ledger counts it, and throws nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dispositionLedger } from 'seamguard';
import { stripScaffolding } from 'seamguard/streams';

describe('stripScaffolding checks its source at the call', () => {
  for (const [source, got] of [[42, 'number'], [null, 'null'], [undefined, 'undefined'], [{}, 'object'], [{ next() {} }, 'object'], [true, 'boolean']]) {
    it(`${String(source)} is a TypeError naming stripScaffolding and source`, () => {
      assert.throws(() => stripScaffolding(source), (error) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, /^stripScaffolding: source must be an async iterable or an iterable of strings/);
        assert.match(error.message, new RegExp(`\\(got ${got}\\)$`));
        return true;
      });
    });
  }

  it('the check comes before the options are read', () => {
    assert.throws(() => stripScaffolding(42, { maxHeld: -1 }), /^TypeError: stripScaffolding: source/);
  });

  it('any iterable still passes: an array, a generator, an async generator, a ReadableStream', async () => {
    const collect = async (iterable) => {
      const out = [];
      for await (const chunk of iterable) out.push(chunk);
      return out.join('');
    };
    const markup = '<|tool_call_start|>[f(x=1)]<|tool_call_end|>';
    assert.equal(await collect(stripScaffolding(['a', markup, 'b'])), 'ab');
    assert.equal(await collect(stripScaffolding((function* () { yield 'a'; yield markup; })())), 'a');
    assert.equal(await collect(stripScaffolding((async function* () { yield markup; yield 'b'; })())), 'b');
    const stream = new ReadableStream({ start(controller) { controller.enqueue('a'); controller.enqueue(markup); controller.close(); } });
    assert.equal(await collect(stripScaffolding(stream)), 'a');
  });

  it('a non-string chunk is still a TypeError, when it arrives', async () => {
    const stripped = stripScaffolding([42]);
    await assert.rejects(async () => {
      for await (const chunk of stripped) void chunk;
    }, TypeError);
  });
});

describe('a misspelled disposition, as agentfootprint counts it', () => {
  it('counts as unreachable and throws nothing', () => {
    const ledger = dispositionLedger();
    ledger.register('empty-lookup', 'write');
    assert.doesNotThrow(() => ledger.note('empty-lookup', 'write', 'checked-fial'));
    assert.doesNotThrow(() => ledger.note('empty-lookup', 'write', 'Checked-Pass'));
    ledger.note('empty-lookup', 'write', 'checked-pass');
    const [row] = ledger.report();
    assert.equal(row.unreachable, 2);
    assert.equal(row.checked, 1);
    assert.equal(row.findings, 0);
  });

  it('shows in the ledger, so the wiring rule still sees the row as touched', () => {
    const ledger = dispositionLedger();
    ledger.register('empty-lookup', 'write');
    ledger.note('empty-lookup', 'write', 'not-aplicable');
    assert.doesNotThrow(() => ledger.assertAlive({ workExisted: true }));
    assert.equal(ledger.report()[0].notApplicable, 0);
    assert.equal(ledger.report()[0].unreachable, 1);
  });
});
