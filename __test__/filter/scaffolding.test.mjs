import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { SCAFFOLD_PATTERNS, ScaffoldingFilter } from 'seamguard';

const S = '<|tool_call_start|>';
const E = '<|tool_call_end|>';
const CALL = '<|tool_call|>';
const CALLS = '<|tool_calls|>';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/scaffolding.json', import.meta.url), 'utf8'));

test('every golden vector, feed by feed', () => {
  assert.ok(fixture.cases.length > 1000);
  for (const { name, rounds, spans, strippedChars } of fixture.cases) {
    const filter = new ScaffoldingFilter();
    for (const { chunks, outputs, flush } of rounds) {
      chunks.forEach((chunk, index) => {
        const out = filter.feed(chunk);
        assert.equal(out, outputs[index], `${name}: feed ${index} ${JSON.stringify(chunk)}`);
        assert.ok(!out.includes('\uFFFD'), `${name}: U+FFFD in output`);
      });
      assert.equal(filter.flush(), flush, `${name}: flush`);
    }
    assert.deepEqual(filter.strippedSpans, spans, `${name}: spans`);
    assert.equal(filter.strippedChars, strippedChars, `${name}: strippedChars`);
  }
});

/** mulberry32: a seeded generator, so a failure replays. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FRAGMENTS = ['<|', 'tool_call', '_start', '_end', 's|>', '|>', '<', 'a', ' ', S, E, CALL, CALLS, '😀', '\uD83D', '\uDE00'];

test('conservation: emitted plus stripped is the input, for every chunking', () => {
  const next = random(7);
  const pick = (n) => Math.floor(next() * n);
  for (let round = 0; round < 500; round++) {
    let text = '';
    for (let i = pick(40); i > 0; i--) text += FRAGMENTS[pick(FRAGMENTS.length)];
    for (let cut = 0; cut < 4; cut++) {
      const filter = new ScaffoldingFilter();
      let emitted = '';
      for (let at = 0; at < text.length; ) {
        const end = Math.min(text.length, at + pick(12));
        emitted += filter.feed(text.slice(at, end));
        at = end;
      }
      emitted += filter.flush();
      const stripped = filter.strippedSpans;
      assert.equal(emitted.length + filter.strippedChars, text.length, JSON.stringify(text));
      assert.equal(stripped.reduce((sum, span) => sum + span.length, 0), filter.strippedChars);
      assert.ok(!emitted.includes('\uFFFD'));
    }
  }
});

test('a surrogate pair split across chunks comes out whole', () => {
  const filter = new ScaffoldingFilter();
  const out = filter.feed('a\uD83D') + filter.feed('\uDE00b') + filter.flush();
  assert.equal(out, 'a😀b');
});

test('lone surrogates pass through unchanged', () => {
  const filter = new ScaffoldingFilter();
  const lone = '\uDC00x\uD800';
  assert.equal(filter.feed(lone) + filter.flush(), lone);
  assert.equal(filter.feed(`\uD800${CALL}\uDFFF`), '\uD800\uDFFF');
  assert.equal(filter.feed(`${S}\uDFFF${E}`), '');
  assert.deepEqual(filter.strippedSpans, [CALL, `${S}\uDFFF${E}`]);
  assert.equal(filter.strippedChars, CALL.length + S.length + 1 + E.length);
});

test('an empty chunk returns nothing and changes nothing', () => {
  const filter = new ScaffoldingFilter();
  assert.equal(filter.feed('ab<|tool'), 'ab');
  assert.equal(filter.feed(''), '');
  assert.equal(filter.feed('_call|>c'), 'c');
  assert.deepEqual(filter.strippedSpans, [CALL]);
});

test('a long open span fed in small pieces', () => {
  const filter = new ScaffoldingFilter();
  assert.equal(filter.feed(`before${S}`), 'before');
  const piece = "[call(x='<|tool_ a|> b>')] ".repeat(200).slice(0, 4096);
  const pieces = (4 * 1024 * 1024) / piece.length;
  for (let i = 0; i < pieces; i++) assert.equal(filter.feed(piece), '');
  assert.equal(filter.feed(`${E}after`), 'after');
  assert.equal(filter.strippedChars, S.length + pieces * piece.length + E.length);
  assert.equal(filter.strippedSpans.length, 1);
});

test('the filter is usable again after a flush', () => {
  const filter = new ScaffoldingFilter();
  assert.equal(filter.feed(`a${S}b`), 'a');
  assert.equal(filter.flush(), `${S}b`);
  assert.equal(filter.feed(`c${E}${CALL}d`), `c${E}d`);
  assert.equal(filter.flush(), '');
  assert.deepEqual(filter.strippedSpans, [CALL]);
  assert.equal(filter.strippedChars, CALL.length);
});

test('strippedSpans is a fresh copy on every read', () => {
  const filter = new ScaffoldingFilter();
  filter.feed(`x${CALL}y`);
  const first = filter.strippedSpans;
  first.push('mutated');
  first[0] = 'changed';
  assert.notEqual(filter.strippedSpans, first);
  assert.deepEqual(filter.strippedSpans, [CALL]);
});

test('a chunk that is not a string is a TypeError naming chunk', () => {
  const filter = new ScaffoldingFilter();
  for (const call of [() => filter.feed(42), () => filter.feed(), () => filter.feed(null), () => filter.feed({})]) {
    assert.throws(call, (error) => error instanceof TypeError && /chunk/.test(error.message));
  }
  assert.equal(filter.feed('still fine'), 'still fine');
});

test('SCAFFOLD_PATTERNS are RegExp sources for the default markers', () => {
  assert.equal(SCAFFOLD_PATTERNS.length, 3);
  const [span, calls, call] = SCAFFOLD_PATTERNS.map((source) => new RegExp(source));
  assert.equal(`a${S}x${E}b${E}`.match(span)?.[0], `${S}x${E}`);
  assert.equal(`${S}\nmulti\nline${E}`.match(span)?.[0], `${S}\nmulti\nline${E}`);
  assert.equal(`a${CALLS}b`.match(calls)?.[0], CALLS);
  assert.equal(`a${CALL}b`.match(call)?.[0], CALL);
  assert.ok(!call.test(CALLS) && !calls.test(CALL) && !span.test(S));
});
