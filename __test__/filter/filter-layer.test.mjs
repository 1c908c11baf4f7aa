// The root entry's ScaffoldingFilter answers a chunk with no start unit fed
// to an idle filter without a native call (lib/filter/scaffolding-filter.cjs).
// These tests hold that one predicate to a filter that takes every chunk
// across (as the generated class did before the filter became a JavaScript
// class), which the other tests hold to the reference filter: feed by feed,
// the same output, the same flush, the same strips and onStrip events in
// the same order, the same errors, for every registry and option. Then the
// cases where the layer must cross although the chunk has nothing that
// could complete a literal.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createRequire } from 'node:module';
import fc from 'fast-check';

import { ScaffoldingFilter, SCAFFOLD_PRESETS } from 'seamguard';
import { ReferenceFilter } from '../support/reference-filter.mjs';

const require = createRequire(import.meta.url);
const { crossEveryChunk } = require('../../lib/filter/scaffolding-filter.cjs');
const { openStreams } = require('../../index.js').__scaffoldingFilter;
/** A filter that takes every chunk across, as if any could begin a match. */
function Crossing(options) {
  return crossEveryChunk(new ScaffoldingFilter(options));
}

const SEED = Number(process.env.FC_SEED ?? 20261201);
const SCALE = Number(process.env.FC_RUNS_SCALE ?? 1);
const run = (property, numRuns) => fc.assert(property, { seed: SEED, numRuns: Math.ceil(numRuns * SCALE) });

const S = '<|tool_call_start|>';
const E = '<|tool_call_end|>';
const CALL = '<|tool_call|>';

/** Custom registries whose literals do not begin with '<' or end with '>'. */
const CUSTOM = {
  brackets: [{ token: '[TOOL_CALLS]' }, { start: '{{call', end: 'done}}' }],
  astral: [{ start: '\u{1F527}(', end: ')!' }, { token: 'x\u{1F6E0}' }],
  lone: [{ token: '\uDC00q\uD800' }],
};
const REGISTRIES = { default: undefined, ...SCAFFOLD_PRESETS, ...CUSTOM };

/** Text pieces that hit a registry: its literals, and for the other kinds a sample match. */
function literalsOf(patterns) {
  if (patterns === undefined) return [S, E, CALL, '<|tool_calls|>'];
  const JSON_CALL = '{"name": "f", "arguments": {"q": "<x>"}}';
  const pieces = patterns.flatMap((entry) => {
    if ('jsonCall' in entry) return ['\n', JSON_CALL, '```json\n'];
    const parts = 'token' in entry ? [entry.token] : 'regex' in entry ? [] : [entry.start, entry.end];
    const strings = parts.filter((part) => typeof part === 'string');
    return entry.json ? [...strings, '[{"a": 1}]', ' {"b": [2]}'] : strings;
  });
  return pieces.length > 0 ? pieces : ['<'];
}

/** Every operation on a filter, with what it returned or threw, and the events it caused. */
function replay(Filter, options, ops) {
  const events = [];
  let throwAt = new Set(options.throwAt ?? []);
  const made = {};
  if (options.patterns !== undefined) made.patterns = options.patterns;
  if (options.openSpanAtEnd !== undefined) made.openSpanAtEnd = options.openSpanAtEnd;
  if (options.maxHeld !== undefined) made.maxHeld = options.maxHeld;
  if (options.onStrip) {
    made.onStrip = (event) => {
      events.push(['event', event.span, event.reason, event.pattern]);
      if (throwAt.has(events.length)) throw new Error(`thrown at ${events.length}`);
    };
  }
  const filter = new Filter(made);
  const log = [];
  for (const op of ops) {
    try {
      const out = op === null ? filter.flush() : filter.feed(op);
      log.push([op === null ? 'flush' : 'feed', out]);
    } catch (error) {
      log.push(['threw', error.constructor.name, error.message]);
    }
    log.push(['counters', filter.strippedChars, filter.strippedSpans.join('\u0000')]);
    log.push(...events.splice(0));
  }
  return log;
}

const registryName = fc.constantFrom(...Object.keys(REGISTRIES));

/** A registry, options and a list of feeds (strings) and flushes (null). */
const scenario = registryName.chain((name) => {
  const patterns = REGISTRIES[name];
  const literals = literalsOf(patterns);
  const pieces = literals.flatMap((literal) =>
    Array.from({ length: literal.length }, (_, i) => [literal.slice(0, i + 1), literal.slice(i + 1)]).flat(),
  ).filter((piece) => piece !== '');
  const fragment = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...literals) },
    { weight: 4, arbitrary: fc.constantFrom(...pieces) },
    { weight: 6, arbitrary: fc.constantFrom('a', ' ', 'ok', '\n', '\u{1F600}', '\uD83D', '\uDE00', '<', '>', '[', ']', '|') },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 3 }) },
  );
  const op = fc.oneof(
    { weight: 12, arbitrary: fc.array(fragment, { maxLength: 4 }).map((parts) => parts.join('')) },
    { weight: 1, arbitrary: fc.constant(null) },
  );
  return fc.record({
    options: fc.record({
      patterns: fc.constant(patterns),
      openSpanAtEnd: fc.constantFrom(undefined, 'emit', 'drop'),
      maxHeld: fc.constantFrom(undefined, 1, 5, 40),
      onStrip: fc.boolean(),
      throwAt: fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 2 }),
    }),
    ops: fc.array(op, { maxLength: 40 }),
  });
});

describe('ScaffoldingFilter through the JavaScript layer', () => {
  it('answers every call as a filter that always crosses does, for every registry and option', () => {
    run(fc.property(scenario, ({ options, ops }) => {
      // Cut every feed in two as well, so that partial literals are held by the layer.
      const split = ops.flatMap((op) => (op === null || op.length < 2 ? [op] : [op.slice(0, 1), op.slice(1)]));
      assert.deepEqual(replay(ScaffoldingFilter, options, ops), replay(Crossing, options, ops));
      assert.deepEqual(replay(ScaffoldingFilter, options, split), replay(Crossing, options, split));
    }), 1500);
  });

  it('gives the reference filter\'s answers for prose cut into single units and into pieces', () => {
    const text = `a < b -> c <|tool_ x${CALL}y ${S}[f(x='1')]${E} z <|tool_calls|><|tool_call_start| tail <`;
    for (const size of [1, 2, 3, 5, 7]) {
      const ours = new ScaffoldingFilter();
      const theirs = new ReferenceFilter();
      for (let at = 0; at < text.length; at += size) {
        const chunk = text.slice(at, at + size);
        assert.equal(ours.feed(chunk), theirs.feed(chunk), `size ${size} at ${at}`);
      }
      assert.equal(ours.flush(), theirs.flush());
      assert.deepEqual(ours.strippedSpans, theirs.strippedSpans);
    }
  });

  it('returns a chunk that cannot matter unchanged, and holds a partial marker it can see', () => {
    const filter = new ScaffoldingFilter();
    assert.equal(filter.feed('plain words'), 'plain words');
    assert.equal(filter.feed('x <|tool'), 'x ');
    assert.equal(filter.feed('_ca'), '');
    assert.equal(filter.feed('t'), '<|tool_cat');
    assert.equal(filter.feed('<'), '');
    assert.equal(filter.flush(), '<');
    assert.equal(filter.feed(''), '');
    assert.equal(filter.feed('<|tool_call'), '');
    assert.equal(filter.feed('|>after'), 'after');
    assert.deepEqual(filter.strippedSpans, [CALL]);
  });

  it('crosses for a chunk with nothing to complete while the native side holds a partial marker', () => {
    const filter = new ScaffoldingFilter();
    // The '>' sends this feed across; the native side is left holding '<|to'.
    assert.equal(filter.feed(`a${CALL}b<|to`), 'ab');
    assert.equal(filter.feed('ol_c'), '');
    assert.equal(filter.feed('all'), '');
    assert.equal(filter.feed('|>c'), 'c');
    assert.deepEqual(filter.strippedSpans, [CALL, CALL]);
  });

  it('crosses for a chunk with nothing to complete while a span is open', () => {
    for (const openSpanAtEnd of ['emit', 'drop']) {
      const filter = new ScaffoldingFilter({ openSpanAtEnd });
      assert.equal(filter.feed(`a${S}[f(`), 'a');
      assert.equal(filter.feed('x=1'), '');
      assert.equal(filter.feed(')] '), '');
      if (openSpanAtEnd === 'emit') {
        assert.equal(filter.feed(`${E}b`), 'b');
        assert.deepEqual(filter.strippedSpans, [`${S}[f(x=1)] ${E}`]);
        assert.equal(filter.feed(`${S}open`), '');
        assert.equal(filter.flush(), `${S}open`);
      } else {
        assert.equal(filter.flush(), '');
        assert.deepEqual(filter.strippedSpans, [`${S}[f(x=1)] `]);
        assert.equal(filter.feed('after'), 'after');
      }
    }
  });

  it('a span bounded by maxHeld is settled by the native side, then the layer answers again', () => {
    const events = [];
    const filter = new ScaffoldingFilter({ maxHeld: 30, openSpanAtEnd: 'drop', onStrip: (event) => events.push(event) });
    assert.equal(filter.feed(`${S}ab`), '');
    assert.equal(filter.feed('cdefghijk'), '');
    assert.deepEqual(events, []);
    assert.equal(filter.feed('l'), '');
    assert.deepEqual(events, [{ span: `${S}abcdefghijkl`, reason: 'max-held', pattern: 0 }]);
    assert.equal(filter.feed('plain'), 'plain');
  });

  it('after a throwing onStrip, the next feed delivers the backlog, even of a chunk with nothing to complete', () => {
    const seen = [];
    let fail = true;
    const filter = new ScaffoldingFilter({
      onStrip(event) {
        seen.push(event.span);
        if (fail) { fail = false; throw new Error('listener failed'); }
      },
    });
    assert.throws(() => filter.feed(`a${CALL}b${CALL}c`), /listener failed/);
    assert.deepEqual(seen, [CALL]);
    // 'plain' alone could be answered by the layer; the backlog makes it cross.
    assert.equal(filter.feed('plain'), 'abcplain');
    assert.deepEqual(seen, [CALL, CALL]);
    assert.equal(filter.feed('more'), 'more');
  });

  it('after a throwing onStrip, the flush delivers the backlog too', () => {
    const seen = [];
    const filter = new ScaffoldingFilter({ onStrip(event) { seen.push(event.span); throw new Error('no'); } });
    assert.throws(() => filter.feed(`a${CALL}b`), /no/);
    assert.equal(filter.flush(), 'ab');
    assert.equal(filter.flush(), '');
    assert.deepEqual(seen, [CALL]);
  });

  it('calls from inside onStrip are refused, whatever the chunk', () => {
    const errors = [];
    let filter;
    filter = new ScaffoldingFilter({
      onStrip() {
        for (const call of [() => filter.feed('plain'), () => filter.feed(''), () => filter.flush()]) {
          try { call(); } catch (error) { errors.push(error.message); }
        }
      },
    });
    assert.equal(filter.feed(`a${CALL}b`), 'ab');
    assert.equal(errors.length, 3);
    for (const message of errors) assert.match(message, /cannot be called from inside this filter's onStrip/);
  });

  it('uses each registry\'s own literals: mistral, deepseek, and literals made of surrogates', () => {
    const mistral = new ScaffoldingFilter({ patterns: [{ token: '[TOOL_CALLS]' }] });
    assert.equal(mistral.feed('see <|tool_call|> [TOOL'), 'see <|tool_call|> ');
    assert.equal(mistral.feed('_CALLS'), '');
    assert.equal(mistral.feed(']x'), 'x');
    assert.equal(mistral.feed('[TOOLS'), '[TOOLS');

    const [{ start, end }] = SCAFFOLD_PRESETS['deepseek-v3'];
    const deepseek = new ScaffoldingFilter({ patterns: SCAFFOLD_PRESETS['deepseek-v3'] });
    let out = '';
    for (const unit of `a${start}call${end}b`) out += deepseek.feed(unit);
    assert.equal(out + deepseek.flush(), 'ab');
    assert.equal(deepseek.feed(start.slice(0, 3)), '');
    assert.equal(deepseek.feed('z'), `${start.slice(0, 3)}z`);

    const astral = new ScaffoldingFilter({ patterns: CUSTOM.astral });
    const text = `1\u{1F527}(hidden)!2x\u{1F6E0}3\u{1F527}`;
    out = '';
    for (let at = 0; at < text.length; at++) out += astral.feed(text[at]);
    assert.equal(out, '123');
    assert.equal(astral.flush(), '\u{1F527}');

    const lone = new ScaffoldingFilter({ patterns: CUSTOM.lone });
    assert.equal(lone.feed('a\uDC00'), 'a');
    assert.equal(lone.feed('q'), '');
    assert.equal(lone.feed('\uD800\uDC00'), '');
    assert.equal(lone.feed('b'), '\uDC00b');
    assert.deepEqual(lone.strippedSpans, ['\uDC00q\uD800']);
  });

  it('with tidyWhitespace, takes every chunk across: plain whitespace beside a cut changes, or is held', () => {
    const cases = [['  ', `${CALL}x`], [`a ${CALL}`, 'x ', 'y'], ['Hi ', CALL, ' there'], [`a ${CALL}`, ' b  ', 'c']];
    for (const chunks of cases) {
      const ours = new ScaffoldingFilter({ tidyWhitespace: true });
      const crossing = new Crossing({ tidyWhitespace: true });
      assert.equal(ours.startUnits, null);
      const outputs = [...chunks.map((chunk) => ours.feed(chunk)), ours.flush()];
      assert.deepEqual(outputs, [...chunks.map((chunk) => crossing.feed(chunk)), crossing.flush()], JSON.stringify(chunks));
      assert.equal(outputs.join(''), ScaffoldingFilter.strip(chunks.join(''), { tidyWhitespace: true }), JSON.stringify(chunks));
    }
  });

  it('opens no native stream for chunks it answers, and ends the one it opened at the flush', () => {
    const before = openStreams();
    const filter = new ScaffoldingFilter();
    assert.equal(filter.feed('plain words, '), 'plain words, ');
    assert.equal(filter.flush(), '');
    assert.equal(openStreams(), before);
    assert.equal(filter.feed(`a${CALL}b<|to`), 'ab');
    assert.equal(openStreams(), before + 1);
    assert.equal(filter.feed('x'), '<|tox');
    assert.equal(filter.feed('more prose'), 'more prose');
    assert.equal(filter.flush(), '');
    assert.equal(openStreams(), before);
    assert.deepEqual(filter.strippedSpans, [CALL]);
  });
});
