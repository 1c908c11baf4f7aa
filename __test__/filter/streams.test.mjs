import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { scaffoldingTransform, stripScaffolding } from 'seamguard/streams';

import { bareOutputs, goldenChunkings } from '../support/helpers.mjs';

const S = '<|tool_call_start|>';
const E = '<|tool_call_end|>';
const CALL = '<|tool_call|>';

/** A pull source: it hands out one chunk per read, so nothing is queued ahead. */
function readableOf(chunks) {
  let next = 0;
  return new ReadableStream(
    {
      pull(controller) {
        if (next < chunks.length) controller.enqueue(chunks[next++]);
        else controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}

async function collect(iterable) {
  const out = [];
  for await (const chunk of iterable) out.push(chunk);
  return out;
}

const viaTransform = (chunks) => collect(readableOf(chunks).pipeThrough(scaffoldingTransform()));
const viaIterator = (chunks) => collect(stripScaffolding(readableOf(chunks)));

// name, chunks in, chunks out (both adapters skip empty outputs).
const CASES = [
  ['markup cut across chunks', ['Hi <|tool_', `call_start|>[x()]<|tool`, '_call_end|> there'], ['Hi ', ' there']],
  ['a standalone token cut in three', ['a<|', 'tool_ca', 'lls|>b'], ['a', 'b']],
  ['a surrogate pair split across chunks', ['a\uD83D', '\uDE00b'], ['a\uD83D', '\uDE00b']],
  ['empty chunks', ['', 'a', '', '', `b${CALL}`, ''], ['a', 'b']],
  ['a partial marker at the end is text', ['x <|tool_call'], ['x ', '<|tool_call']],
  ['an unclosed span at the end is text', [`x${S}[read(`], ['x', `${S}[read(`]],
  ['nothing but markup', [`${S}[a()]${E}`, CALL], []],
  ['no chunks at all', [], []],
];

for (const [adapter, run] of [
  ['scaffoldingTransform', viaTransform],
  ['stripScaffolding', viaIterator],
]) {
  describe(`${adapter}: the table`, () => {
    for (const [name, chunks, expected] of CASES) {
      it(name, async () => {
        const out = await run(chunks);
        assert.deepEqual(out, expected);
        assert.deepEqual(out, bareOutputs(chunks), 'same as a bare filter');
      });
    }
  });

  it(`${adapter}: emits what a bare filter emits, for every golden chunking`, async () => {
    for (const { name, chunks } of goldenChunkings()) {
      assert.deepEqual(await run(chunks), bareOutputs(chunks), name);
    }
  });
}

describe('scaffoldingTransform', () => {
  it('gives the same output whatever pace the far end reads at', async () => {
    const chunks = ['one <|tool', '_call|> two ', S, '[x()]', E, ' three \uD83D', '\uDE00', ' <|tool_'];
    const written = [];
    const slowSink = new WritableStream(
      {
        async write(chunk) {
          await new Promise((resolve) => setImmediate(resolve));
          written.push(chunk);
        },
      },
      new CountQueuingStrategy({ highWaterMark: 1 }),
    );
    // A source that queues everything up front, against a sink that is slow.
    const eager = new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk);
        controller.close();
      },
    });
    await eager.pipeThrough(scaffoldingTransform()).pipeTo(slowSink);
    assert.deepEqual(written, bareOutputs(chunks));
    assert.deepEqual(await viaTransform(chunks), written);
  });

  it('errors the stream with a TypeError on a chunk that is not a string', async () => {
    const transform = scaffoldingTransform();
    const writer = transform.writable.getWriter();
    const reading = collect(transform.readable);
    await writer.write('fine ');
    await assert.rejects(writer.write(42), TypeError);
    await assert.rejects(reading, (error) => error instanceof TypeError && /chunk/.test(error.message));
  });

  it('never enqueues the held tail when its reader cancels', async () => {
    const transform = scaffoldingTransform();
    const writer = transform.writable.getWriter();
    const reader = transform.readable.getReader();
    writer.write('shown <|tool_').catch(() => {});
    assert.deepEqual(await reader.read(), { value: 'shown ', done: false });
    await reader.cancel();
    await assert.rejects(writer.close());
    assert.equal(transform.filter.flush(), '<|tool_', 'the tail was held, never sent');
  });

  it('exposes its filter for the counters', async () => {
    const transform = scaffoldingTransform();
    assert.deepEqual(await collect(readableOf([`a${CALL}b${S}x`, `y${E}c`]).pipeThrough(transform)), ['ab', 'c']);
    assert.deepEqual(transform.filter.strippedSpans, [CALL, `${S}xy${E}`]);
    assert.equal(transform.filter.strippedChars, CALL.length + S.length + 2 + E.length);
    assert.throws(() => (transform.filter = null), TypeError, 'filter is read-only');
  });
});

describe('stripScaffolding', () => {
  /** An async source that records whether it was closed. */
  function source(chunks, { failAfter } = {}) {
    const state = { closed: false };
    state.iterable = (async function* () {
      try {
        yield* chunks;
        if (failAfter) throw failAfter;
      } finally {
        state.closed = true;
      }
    })();
    return state;
  }

  it('closes the source and drops the held tail when the consumer breaks', async () => {
    const src = source(['shown <|tool_', `call_start|>[never(`, 'shown)]', E, ' nor this']);
    const clean = stripScaffolding(src.iterable);
    const seen = [];
    for await (const chunk of clean) {
      seen.push(chunk);
      break;
    }
    assert.deepEqual(seen, ['shown ']);
    assert.ok(src.closed, 'the source was closed');
    assert.equal(clean.filter.flush(), '', 'the held tail was flushed out and dropped');
    assert.deepEqual(await clean.next(), { value: undefined, done: true });
  });

  it('passes a source error on and drops the held tail', async () => {
    const failure = new Error('provider hung up');
    const src = source(['ok <|tool', '_call_start|>[x('], { failAfter: failure });
    const clean = stripScaffolding(src.iterable);
    const seen = [];
    await assert.rejects(async () => {
      for await (const chunk of clean) seen.push(chunk);
    }, failure);
    assert.deepEqual(seen, ['ok ']);
    assert.equal(clean.filter.flush(), '', 'the held tail was flushed out and dropped');
  });

  it('throws a TypeError on a chunk that is not a string, and closes the source', async () => {
    const src = source(['a', 7, 'b']);
    const clean = stripScaffolding(src.iterable);
    assert.deepEqual(await clean.next(), { value: 'a', done: false });
    await assert.rejects(clean.next(), (error) => error instanceof TypeError && /chunk/.test(error.message));
    assert.ok(src.closed);
  });

  it('reads sync iterables too', async () => {
    assert.deepEqual(await collect(stripScaffolding(['a<|tool', '_call|>b'])), ['a', 'b']);
  });

  it('exposes its filter for the counters', async () => {
    const clean = stripScaffolding([`a${CALL}b`]);
    assert.deepEqual(await collect(clean), ['ab']);
    assert.deepEqual(clean.filter.strippedSpans, [CALL]);
  });
});

// These need ScaffoldingFilter's options, which land in a parallel change.
describe('passes options through', () => {
  const chunks = [`a${CALL}b<|tool_call`, `_start|>x${E}c`];

  it('scaffoldingTransform hands its options to its filter (onStrip)', async () => {
    const events = [];
    const transform = scaffoldingTransform({ onStrip: (event) => events.push(event) });
    assert.deepEqual(await collect(readableOf(chunks).pipeThrough(transform)), ['ab', 'c']);
    assert.equal(events.length, 2);
    assert.equal(transform.filter.strippedSpans.length, 2);
  });

  it('stripScaffolding hands its options to its filter (onStrip)', async () => {
    const events = [];
    const clean = stripScaffolding(chunks, { onStrip: (event) => events.push(event) });
    assert.deepEqual(await collect(clean), ['ab', 'c']);
    assert.equal(events.length, 2);
  });
});
