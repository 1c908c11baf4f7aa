// A filter's native stream: opened by the first feed that needs it, ended by
// flush(), freed at once by [Symbol.dispose](), and freed by the registry
// when a filter is dropped with its stream open. The addon's stream
// functions refuse every handle they did not make, or that is closed. The
// count of open streams is the addon's test-only `openStreams()`, which the
// package does not export.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { ScaffoldingFilter } from 'seamguard';
import { inChild } from '../support/helpers.mjs';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');
const require = createRequire(import.meta.url);
const native = require('../../index.js').__scaffoldingFilter;
const { openStreams } = native;

const CALL = '<|tool_call|>';
const S = '<|tool_call_start|>';
const E = '<|tool_call_end|>';

/** Collects, and lets the registry's callbacks run, until `done()` or a few rounds. */
async function settle(done = () => false) {
  for (let i = 0; i < 20 && !done(); i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('[Symbol.dispose]()', () => {
  it('frees the open stream at once, keeps the counters readable, and ends the filter', () => {
    const before = openStreams();
    const filter = new ScaffoldingFilter();
    assert.equal(typeof filter[Symbol.dispose], 'function');
    assert.equal(filter.feed(`a${CALL}b${S}held`), 'ab');
    assert.equal(openStreams(), before + 1);
    filter[Symbol.dispose]();
    assert.equal(openStreams(), before);
    // What was held is gone with the stream; what was stripped stays counted.
    assert.equal(filter.strippedChars, CALL.length);
    assert.deepEqual(filter.strippedSpans, [CALL]);
    assert.equal(filter.idle, true);
    assert.equal(filter.startUnits, '<');
    assert.throws(() => filter.feed('x'), { name: 'TypeError', message: 'ScaffoldingFilter.feed: this filter was disposed' });
    assert.throws(() => filter.flush(), { name: 'TypeError', message: 'ScaffoldingFilter.flush: this filter was disposed' });
    // Whatever the chunk: the disposal is named first.
    assert.throws(() => filter.feed(42), { name: 'TypeError', message: 'ScaffoldingFilter.feed: this filter was disposed' });
  });

  it('twice, or on a filter that never opened a stream or already flushed, does nothing more', () => {
    const before = openStreams();
    for (const prepare of [() => {}, (f) => f.feed('prose'), (f) => { f.feed(`x${CALL}`); f.flush(); }]) {
      const filter = new ScaffoldingFilter();
      prepare(filter);
      assert.equal(filter[Symbol.dispose](), undefined);
      assert.equal(filter[Symbol.dispose](), undefined);
      assert.equal(openStreams(), before);
      assert.throws(() => filter.feed(''), /this filter was disposed/);
    }
  });

  it('discards text and strips a throwing onStrip left owed, without calling onStrip again', () => {
    const seen = [];
    const filter = new ScaffoldingFilter({ onStrip(event) { seen.push(event.span); throw new Error('no'); } });
    assert.throws(() => filter.feed(`a${CALL}b${CALL}c`), /no/);
    assert.deepEqual(seen, [CALL]);
    assert.equal(filter.idle, false);
    filter[Symbol.dispose]();
    assert.deepEqual(seen, [CALL]);
    assert.equal(filter.idle, true);
    assert.deepEqual(filter.strippedSpans, [CALL, CALL]);
  });

  it('from inside onStrip, takes effect when the announcing call returns: its strips are all announced, its text returned', () => {
    const before = openStreams();
    const seen = [];
    const inside = [];
    const filter = new ScaffoldingFilter({
      onStrip(event) {
        seen.push(event.span);
        if (seen.length === 1) {
          filter[Symbol.dispose]();
          // Disposed: no more calls, but the stream is still whole.
          try { filter.feed('x'); } catch (error) { inside.push(error.message); }
          inside.push(openStreams() - before, filter.strippedSpans.length);
        }
      },
    });
    assert.equal(filter.feed(`a${CALL}b${CALLS()}c<|tool`), 'abc');
    assert.deepEqual(seen, [CALL, CALLS()]);
    assert.deepEqual(inside, ['ScaffoldingFilter.feed: this filter was disposed', 1, 2]);
    assert.equal(openStreams(), before);
    assert.deepEqual(filter.strippedSpans, [CALL, CALLS()]);
    assert.throws(() => filter.flush(), /this filter was disposed/);
  });

  it('from inside onStrip during flush, and when onStrip then throws, the stream is freed all the same', () => {
    const before = openStreams();
    const seen = [];
    const flushing = new ScaffoldingFilter({ openSpanAtEnd: 'drop', onStrip(event) { seen.push(event.reason); flushing[Symbol.dispose](); } });
    assert.equal(flushing.feed(`ab${S}open`), 'ab');
    assert.equal(flushing.flush(), '');
    assert.deepEqual(seen, ['unclosed-at-end']);
    assert.deepEqual(flushing.strippedSpans, [`${S}open`]);
    assert.equal(openStreams(), before);
    assert.throws(() => flushing.flush(), /this filter was disposed/);

    const boom = new Error('after dispose');
    const throwing = new ScaffoldingFilter({ onStrip() { throwing[Symbol.dispose](); throw boom; } });
    assert.throws(() => throwing.feed(`a${CALL}b${CALL}`), (error) => error === boom);
    assert.equal(openStreams(), before);
    assert.equal(throwing.idle, true);
    assert.throws(() => throwing.feed('c'), /this filter was disposed/);
  });

  it('works with using, where Node has it', { skip: !supportsUsing() && 'this Node has no using declarations' }, () => {
    const before = openStreams();
    const text = (0, eval)(`(Filter, check) => {
      using filter = new Filter();
      const out = filter.feed('a<|tool_call|>b<|tool');
      check();
      return out;
    }`)(ScaffoldingFilter, () => assert.equal(openStreams(), before + 1));
    assert.equal(text, 'ab');
    assert.equal(openStreams(), before);
  });

  it('refuses what is not a filter, naming itself', () => {
    const dispose = ScaffoldingFilter.prototype[Symbol.dispose];
    for (const stranger of [{}, undefined, null, Object.create(ScaffoldingFilter.prototype), new Proxy(new ScaffoldingFilter(), {})]) {
      assert.throws(() => dispose.call(stranger), { name: 'TypeError', message: /^ScaffoldingFilter\[Symbol\.dispose\]: called on something that is not a ScaffoldingFilter/ });
    }
  });
});

/** The token `<|tool_calls|>`. */
function CALLS() {
  return '<|tool_calls|>';
}

function supportsUsing() {
  try {
    (0, eval)('{ using nothing = null; }');
    return true;
  } catch {
    return false;
  }
}

describe('the stream of a filter that is never flushed', () => {
  it('is freed by the registry once the filter is collected, with or without onStrip referring to the filter', async () => {
    const before = openStreams();
    const events = [];
    (() => {
      for (let i = 0; i < 200; i++) {
        const filter = new ScaffoldingFilter(i % 2 ? { onStrip: (event) => events.push(filter.strippedChars, event.span) } : undefined);
        filter.feed(`a${CALL}b${S}open`);
      }
    })();
    assert.equal(openStreams(), before + 200);
    assert.equal(events.length, 200);
    await settle(() => openStreams() === before);
    assert.equal(openStreams(), before);
  });

  it('stays open while its filter lives, across turns of the event loop, and ends at the flush', async () => {
    const before = openStreams();
    const filter = new ScaffoldingFilter({ openSpanAtEnd: 'drop' });
    assert.equal(filter.feed(`a${S}held`), 'a');
    await settle();
    assert.equal(openStreams(), before + 1);
    assert.equal(filter.feed(` more${E}b`), 'b');
    assert.equal(filter.flush(), '');
    assert.equal(openStreams(), before);
    await settle();
    assert.equal(openStreams(), before);
    // Fed again: a new stream, and the counters run on.
    assert.equal(filter.feed(`${S}x`), '');
    assert.equal(openStreams(), before + 1);
    assert.equal(filter.flush(), '');
    assert.deepEqual(filter.strippedSpans, [`${S}held more${E}`, `${S}x`]);
    assert.equal(filter.strippedChars, S.length * 2 + 'held more'.length + E.length + 1);
    assert.equal(openStreams(), before);
  });
});

describe('the addon\'s stream functions', () => {
  it('refuse every handle they did not make, or that is closed, with a TypeError, in any order of calls', () => {
    const child = inChild(`
      const native = createRequire(${JSON.stringify(new URL('../../package.json', import.meta.url).pathname)})('./index.js').__scaffoldingFilter;
      const outcomes = [];
      const attempt = (name, fn) => {
        try { fn(); outcomes.push(name + ': returned'); }
        catch (error) { outcomes.push(name + ': ' + error.constructor.name + ': ' + error.message); }
      };
      const [plan] = native.compile(undefined, 'ScaffoldingFilter');
      const handle = native.open(plan);
      native.feed(handle, 'a<|tool_call|>b<|tool');
      // A copy of a live handle's bytes is not a handle; nor is anything else.
      const copy = handle.slice(0);
      for (const [name, value] of [['copy', copy], ['plain buffer', new ArrayBuffer(8)], ['view', new Uint8Array(handle)],
                                   ['object', {}], ['number', 1], ['undefined', undefined]]) {
        attempt(name, () => native.feed(value, 'x'));
        attempt(name + ' close', () => native.close(value));
      }
      attempt('live', () => native.strippedChars(handle));
      // A handle whose bytes were overwritten holds no open stream.
      const bytes = new Uint8Array(handle);
      const saved = bytes.slice();
      bytes.fill(7);
      attempt('overwritten', () => native.idle(handle));
      bytes.fill(0);
      attempt('zeroed', () => native.idle(handle));
      bytes.set(saved);
      attempt('restored', () => native.strippedSpans(handle).length);
      attempt('finish', () => native.finish(handle));
      attempt('after finish', () => native.feed(handle, 'x'));
      attempt('finish again', () => native.finish(handle));
      attempt('close after finish', () => native.close(handle));
      // A detached handle holds nothing.
      const other = native.open(plan);
      structuredClone(other, { transfer: [other] });
      attempt('detached', () => native.feed(other, 'x'));
      attempt('chunk first', () => native.feed(undefined, 42));
      console.log(JSON.stringify(outcomes));
    `);
    assert.equal(child.signal, null, child.stderr);
    assert.equal(child.status, 0, child.stderr);
    const outcomes = JSON.parse(child.stdout);
    const notHandle = 'TypeError: ScaffoldingFilter.feed: the handle is not a filter stream of this addon';
    const notHandleClose = 'TypeError: ScaffoldingFilter.close: the handle is not a filter stream of this addon';
    assert.deepEqual(outcomes, [
      `copy: ${notHandle}`, `copy close: ${notHandleClose}`,
      `plain buffer: ${notHandle}`, `plain buffer close: ${notHandleClose}`,
      `view: ${notHandle}`, `view close: ${notHandleClose}`,
      `object: ${notHandle}`, `object close: ${notHandleClose}`,
      `number: ${notHandle}`, `number close: ${notHandleClose}`,
      `undefined: ${notHandle}`, `undefined close: ${notHandleClose}`,
      'live: returned',
      'overwritten: TypeError: ScaffoldingFilter.idle: the handle does not hold an open stream of this thread',
      'zeroed: TypeError: ScaffoldingFilter.idle: the stream is closed',
      'restored: returned',
      'finish: returned',
      'after finish: TypeError: ScaffoldingFilter.feed: the stream is closed',
      'finish again: TypeError: ScaffoldingFilter.flush: the stream is closed',
      'close after finish: returned',
      'detached: TypeError: ScaffoldingFilter.feed: the handle is not a filter stream of this addon',
      'chunk first: TypeError: ScaffoldingFilter.feed: chunk must be a string (got number)',
    ]);
  });
});
