// The filter's options: custom registries, SCAFFOLD_PRESETS, openSpanAtEnd,
// onStrip and maxHeld.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { SCAFFOLD_PATTERNS, SCAFFOLD_PRESETS, ScaffoldingFilter, ScaffoldRegistry } from 'seamguard';
import { isLiteralRegistry, rng } from '../support/helpers.mjs';

const S = '<|tool_call_start|>';
const E = '<|tool_call_end|>';
const CALL = '<|tool_call|>';
const CALLS = '<|tool_calls|>';

const readFixture = (name) => JSON.parse(readFileSync(new URL(`../fixtures/${name}`, import.meta.url), 'utf8'));
const registries = readFixture('scaffolding-registries.json');

/** Feeds every round of a golden case and checks it, feed by feed. */
function replay(filter, { name, rounds, spans, strippedChars }) {
  for (const { chunks, outputs, flush } of rounds) {
    chunks.forEach((chunk, index) => {
      assert.equal(filter.feed(chunk), outputs[index], `${name}: feed ${index} ${JSON.stringify(chunk)}`);
    });
    assert.equal(filter.flush(), flush, `${name}: flush`);
  }
  assert.deepEqual(filter.strippedSpans, spans, `${name}: spans`);
  assert.equal(filter.strippedChars, strippedChars, `${name}: strippedChars`);
}

/** Runs `chunks` through `filter`, collecting outputs and events. */
function stream(options, chunks) {
  const events = [];
  const filter = new ScaffoldingFilter({ ...options, onStrip: (event) => events.push(event) });
  const outputs = chunks.map((chunk) => filter.feed(chunk));
  return { filter, outputs, flush: filter.flush(), events };
}

test('SCAFFOLD_PRESETS: the sixteen presets, frozen plain data', () => {
  assert.deepEqual(Object.keys(SCAFFOLD_PRESETS), [
    'lfm2', 'hermes', 'glm', 'qwen3-coder', 'llama3', 'llama4', 'mistral', 'deepseek-v3',
    'deepseek-dsml', 'kimi-k2', 'gemma4', 'minimax', 'anthropic-xml', 'harmony', 'granite', 'json-call',
  ]);
  assert.ok(Object.isFrozen(SCAFFOLD_PRESETS));
  const part = (value) => typeof value === 'string' || value instanceof RegExp;
  for (const [name, patterns] of Object.entries(SCAFFOLD_PRESETS)) {
    assert.ok(Array.isArray(patterns) && Object.isFrozen(patterns) && patterns.length > 0, name);
    for (const entry of patterns) {
      assert.ok(Object.isFrozen(entry), name);
      assert.equal(Object.getPrototypeOf(entry), Object.prototype, name);
      const keys = Object.keys(entry).join();
      if (keys === 'start,end') assert.ok(part(entry.start) && part(entry.end), name);
      else if (keys === 'token') assert.equal(typeof entry.token, 'string', name);
      else if (keys === 'regex') assert.ok(entry.regex instanceof RegExp, name);
      else if (keys === 'start,json') assert.ok(part(entry.start) && entry.json === true, name);
      else assert.deepEqual(entry, { jsonCall: {} }, `${name}: ${keys}`);
    }
    // Every preset is a registry on its own.
    assert.doesNotThrow(() => new ScaffoldingFilter({ patterns }), name);
  }
  assert.throws(() => {
    SCAFFOLD_PRESETS.hermes.push({ token: 'x' });
  }, TypeError);
  assert.deepEqual(SCAFFOLD_PRESETS.hermes, [{ start: '<tool_call>', end: '</tool_call>' }, { token: '</tool_call>' }]);
  assert.deepEqual(SCAFFOLD_PRESETS.gemma4, [{ start: '<|tool_call>', end: '<tool_call|>' }]);
  assert.deepEqual(SCAFFOLD_PRESETS['json-call'], [{ jsonCall: {} }]);
  assert.deepEqual(SCAFFOLD_PRESETS.mistral.at(-1), { token: '[TOOL_CALLS]' });
  const { start, end } = SCAFFOLD_PRESETS['deepseek-v3'][0];
  assert.equal(start, '<\uFF5Ctool\u2581calls\u2581begin\uFF5C>');
  assert.equal(end, '<\uFF5Ctool\u2581calls\u2581end\uFF5C>');
  // lfm2 is the default registry: the same patterns, as RegExp sources.
  const escape = (literal) => literal.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  const sources = SCAFFOLD_PRESETS.lfm2.map((p) => ('token' in p ? escape(p.token) : `${escape(p.start)}[\\s\\S]*?${escape(p.end)}`));
  assert.deepEqual(sources, SCAFFOLD_PATTERNS);
  // Every union of presets is a registry: the "catch everything" one too.
  const all = Object.values(SCAFFOLD_PRESETS).flat();
  const filter = new ScaffoldingFilter({ patterns: all });
  assert.equal(filter.feed('a <tool_call>x</tool_call> b [TOOL_CALLS][{"name":"f","arguments":{}}] c') + filter.flush(), 'a  b  c');
  assert.equal(filter.startUnits, null, 'a JSON call depends on where lines start');
});

test('every preset and custom registry agrees with the reference, feed by feed', () => {
  // The reference runs one span at most; presets with two are held to its
  // transcription by the Rust property tests instead.
  // Presets that are not literal registries run on the general engine,
  // which tests/general_properties.rs checks.
  const oneSpan = Object.values(SCAFFOLD_PRESETS).filter((patterns) => isLiteralRegistry(patterns) && patterns.filter((p) => 'start' in p).length <= 1);
  assert.equal(registries.registries.filter((r) => r.preset).length, oneSpan.length);
  const patternsOf = new Map();
  for (const { name, preset, patterns } of registries.registries) {
    if (preset) {
      // The fixture was made from these presets; a change needs a new fixture.
      assert.deepEqual(SCAFFOLD_PRESETS[preset], patterns, `${preset} changed: regenerate the fixture`);
      patternsOf.set(name, SCAFFOLD_PRESETS[preset]);
    } else {
      patternsOf.set(name, patterns);
    }
  }
  assert.ok(registries.cases.length > 1000);
  for (const testCase of registries.cases) {
    replay(new ScaffoldingFilter({ patterns: patternsOf.get(testCase.registry) }), testCase);
  }
});

test('the lfm2 preset, given as patterns, behaves as the default filter on every golden vector', () => {
  for (const testCase of readFixture('scaffolding.json').cases) {
    replay(new ScaffoldingFilter({ patterns: SCAFFOLD_PRESETS.lfm2 }), testCase);
  }
});

test('options left out, or undefined, give the default filter', () => {
  for (const options of [undefined, {}, { patterns: undefined, openSpanAtEnd: undefined, onStrip: undefined, maxHeld: undefined }]) {
    const filter = new ScaffoldingFilter(options);
    assert.equal(filter.feed(`a${S}x${E}b${CALL}c${S}open`), 'abc');
    assert.equal(filter.flush(), `${S}open`);
  }
});

// Each row: the options, the error class, and what its message must say.
const BAD_OPTIONS = [
  [null, TypeError, /^ScaffoldingFilter: options must be an object \(got null\)$/],
  [42, TypeError, /options must be an object \(got number\)/],
  ['drop', TypeError, /options must be an object \(got string\)/],
  [[], TypeError, /options must be an object \(got an array\)/],
  [() => {}, TypeError, /options must be an object \(got function\)/],
  [{ maxHold: 3 }, TypeError, /options\.maxHold is not an option \(the options are patterns, tools, openSpanAtEnd, onStrip, maxHeld, tidyWhitespace\)/],
  [{ tidyWhitespace: 'yes' }, TypeError, /options\.tidyWhitespace must be a boolean \(got string\)/],
  [{ tools: 'get_weather' }, TypeError, /options\.tools must be an array of tool names or \{ name, parameters\? \} objects \(got string\)/],
  [{ tools: [''] }, TypeError, /options\.tools\[0\]: a tool's name must not be empty/],
  [{ tools: ['a', 'a'] }, TypeError, /options\.tools\[1\]: this name is given twice/],
  [{ tools: ['a', 'x'.repeat(257)] }, TypeError, /options\.tools\[1\]: a tool's name must be at most 256 characters/],
  [{ tools: ['a\r\nb'] }, TypeError, /options\.tools\[0\]: a tool's name must not hold a line break/],
  [{ tools: [{ name: 'a', parameters: ['city', ''] }] }, TypeError, /options\.tools\[0\]: a parameter's name must not be empty/],
  [{ tools: [{ name: 'a', parameters: 'city' }] }, TypeError, /options\.tools\[0\]\.parameters must be an array of parameter names/],
  [{ tools: [{ name: 'a', params: [] }] }, TypeError, /options\.tools\[0\]\.params is not a tool field/],
  [{ tools: [42] }, TypeError, /options\.tools\[0\] must be a tool name or a \{ name, parameters\? \} object \(got number\)/],
  [{ onstrip() {} }, TypeError, /options\.onstrip is not an option/],
  [{ patterns: 'hermes' }, TypeError, /options\.patterns must be an array of pattern entries \(got string\)/],
  [{ patterns: null }, TypeError, /options\.patterns must be an array .* \(got null\)/],
  [{ patterns: [] }, TypeError, /options\.patterns is empty, so the filter would strip nothing/],
  [{ patterns: [{ token: 'a' }, 7] }, TypeError, /options\.patterns\[1\] must be a pattern entry \(\{ token \}, \{ regex \}, \{ start, end \}, \{ start, json: true \} or \{ jsonCall \}\) \(got number\)/],
  [{ patterns: [/<x>/] }, TypeError, /options\.patterns\[0\] must be a pattern entry .* \(got object\)/],
  [{ patterns: [null] }, TypeError, /options\.patterns\[0\] must be a .* \(got null\)/],
  [{ patterns: [{}] }, TypeError, /options\.patterns\[0\] must be one of .* \(it has none of their fields\)/],
  [{ patterns: [{ token: '<a>', start: '<b>' }] }, TypeError, /options\.patterns\[0\] must be one of .* \(it has token, start\)/],
  [{ patterns: [{ start: '<a>' }] }, TypeError, /options\.patterns\[0\] has a start but no end \(or json: true\)/],
  [{ patterns: [{ end: '</a>' }] }, TypeError, /options\.patterns\[0\] has an end but no start/],
  [{ patterns: [{ token: 'x' }, { token: 'y' }, { start: '<a>', end: 5 }] }, TypeError, /options\.patterns\[2\]\.end must be a string or a RegExp \(got number\)/],
  [{ patterns: [{ token: Symbol('t') }] }, TypeError, /options\.patterns\[0\]\.token must be a string or a RegExp \(got symbol\)/],
  [{ patterns: [{ tokens: 'x' }] }, TypeError, /options\.patterns\[0\]\.tokens is not a pattern field \(the fields are token, regex, start, end, json, jsonCall\)/],
  [{ patterns: [{ start: 'x', json: 'yes' }] }, TypeError, /options\.patterns\[0\]\.json must be true \(got string\)/],
  [{ patterns: [{ jsonCall: [] }] }, TypeError, /options\.patterns\[0\]\.jsonCall must be an object/],
  [{ patterns: [{ jsonCall: { names: ['f'] } }] }, TypeError, /options\.patterns\[0\]\.jsonCall\.names is not an option/],
  [{ patterns: [{ jsonCall: { toolNames: 'f' } }] }, TypeError, /options\.patterns\[0\]\.jsonCall\.toolNames must be an array of strings \(got string\)/],
  [{ patterns: [{ jsonCall: { toolNames: ['f', 1] } }] }, TypeError, /options\.patterns\[0\]\.jsonCall\.toolNames\[1\] must be a string \(got number\)/],
  [{ patterns: [{ jsonCall: { toolNames: [] } }] }, TypeError, /options\.patterns\[0\] cannot be used: its toolNames is empty/],
  [{ patterns: [{ token: 'x' }, { regex: /a(?=b)/ }] }, TypeError, /options\.patterns\[1\] cannot be used: its regex: .*look-around/],
  [{ patterns: [{ regex: '(a)\\1' }] }, TypeError, /options\.patterns\[0\] cannot be used: its regex: .*backreference/],
  [{ patterns: [{ token: /x*/ }] }, TypeError, /options\.patterns\[0\] cannot be used: .*can match the empty string/],
  [{ patterns: [{ start: /</, end: '>' , json: true }] }, TypeError, /options\.patterns\[0\] must be one of .* \(it has start, end, json\)/],
  [{ patterns: [{ token: '' }] }, TypeError, /options\.patterns\[0\] cannot be used: its token is empty/],
  [{ patterns: [{ start: '', end: '>' }] }, TypeError, /options\.patterns\[0\] cannot be used: its start is empty/],
  [{ openSpanAtEnd: 'keep' }, TypeError, /options\.openSpanAtEnd must be 'emit' or 'drop' \(got 'keep'\)/],
  [{ openSpanAtEnd: true }, TypeError, /options\.openSpanAtEnd must be 'emit' or 'drop' \(got boolean\)/],
  [{ onStrip: 'log' }, TypeError, /options\.onStrip must be a function \(got string\)/],
  [{ onStrip: null }, TypeError, /options\.onStrip must be a function \(got null\)/],
  [{ maxHeld: '64' }, TypeError, /options\.maxHeld must be a positive integer \(got string\)/],
  [{ maxHeld: 10n }, TypeError, /options\.maxHeld must be a positive integer \(got bigint\)/],
  [{ maxHeld: 0 }, RangeError, /options\.maxHeld must be a positive integer \(got 0\)/],
  [{ maxHeld: -5 }, RangeError, /\(got -5\)/],
  [{ maxHeld: 2.5 }, RangeError, /\(got 2\.5\)/],
  [{ maxHeld: NaN }, RangeError, /\(got NaN\)/],
  [{ maxHeld: Infinity }, RangeError, /\(got Infinity\)/],
];

test('bad options are errors that name the option, and the entry', () => {
  for (const [options, ErrorClass, message] of BAD_OPTIONS) {
    assert.throws(
      () => new ScaffoldingFilter(options),
      (error) => error instanceof ErrorClass && message.test(error.message),
      `${String(options?.constructor?.name)} ${JSON.stringify(options, (_, v) => (typeof v === 'bigint' ? `${v}n` : v))}`,
    );
  }
});

test('a getter or Proxy trap that throws while options are read reaches the caller', () => {
  const boom = new Error('from a getter');
  assert.throws(() => new ScaffoldingFilter({ get patterns() { throw boom; } }), (error) => error === boom);
  const trap = new Error('from ownKeys');
  assert.throws(() => new ScaffoldingFilter(new Proxy({}, { ownKeys() { throw trap; } })), (error) => error === trap);
  const entries = new Proxy([{ token: 'x' }], { get(target, key) { if (key === '0') throw boom; return target[key]; } });
  assert.throws(() => new ScaffoldingFilter({ patterns: entries }), (error) => error === boom);
});

test('options from a prototype, a frozen object, and a Proxy of an array are read like any other', () => {
  const inherited = Object.create({ openSpanAtEnd: 'drop' });
  const dropping = new ScaffoldingFilter(inherited);
  dropping.feed(`${S}x`);
  assert.equal(dropping.flush(), '');
  const frozen = Object.freeze({ patterns: Object.freeze([Object.freeze({ token: '<x>' })]) });
  assert.equal(new ScaffoldingFilter(frozen).feed('a<x>b'), 'ab');
  const proxied = new Proxy([{ start: '<a>', end: '</a>' }], {});
  assert.equal(new ScaffoldingFilter({ patterns: proxied }).feed('1<a>2</a>3'), '13');
});

test('a custom registry strips its own markup and leaves the default markup alone', () => {
  const filter = new ScaffoldingFilter({ patterns: [{ token: '[TOOL_CALLS]' }, { start: '<tool_call>', end: '</tool_call>' }] });
  assert.equal(filter.feed(`a[TOOL_CALLS]b<tool_call>{"name":"x"}</tool_call>c${CALL}d<tool_`), `abc${CALL}d`);
  assert.equal(filter.feed('call>e'), '');
  assert.equal(filter.flush(), '<tool_call>e');
  assert.deepEqual(filter.strippedSpans, ['[TOOL_CALLS]', '<tool_call>{"name":"x"}</tool_call>']);
});

test("openSpanAtEnd 'drop': the flush strips an unclosed span, counts it and reports it", () => {
  const { filter, outputs, flush, events } = stream({ openSpanAtEnd: 'drop' }, [`a${S}xyz`, `${CALL}w`]);
  assert.deepEqual(outputs, ['a', '']);
  assert.equal(flush, '');
  assert.deepEqual(events, [
    { span: CALL, reason: 'match', pattern: 2 },
    { span: `${S}xyzw`, reason: 'unclosed-at-end', pattern: 0 },
  ]);
  assert.deepEqual(filter.strippedSpans, [CALL, `${S}xyzw`]);
  assert.equal(filter.strippedChars, CALL.length + S.length + 4);
  // The filter is usable again, and nothing is left open.
  assert.equal(filter.feed(`q${E}r`), `q${E}r`);
});

test("openSpanAtEnd 'drop': a partial marker at the end is still text", () => {
  const { outputs, flush, events } = stream({ openSpanAtEnd: 'drop' }, ['ab<|tool_ca']);
  assert.deepEqual([outputs, flush, events], [['ab'], '<|tool_ca', []]);
});

test("openSpanAtEnd 'emit' (the default): the unclosed span comes back as text, with no event", () => {
  const { outputs, flush, events } = stream({ openSpanAtEnd: 'emit' }, [`a${S}xyz`]);
  assert.deepEqual([outputs, flush, events], [['a'], `${S}xyz`, []]);
});

test("maxHeld with 'emit': past the bound the span is released as text; its end is then content", () => {
  const { filter, outputs, flush, events } = stream({ maxHeld: 24 }, [`a${S}`, '01234', '5', `x${E}y${CALLS}z`]);
  assert.deepEqual(outputs, ['a', '', `${S}012345`, `x${E}yz`]);
  assert.equal(flush, '');
  assert.deepEqual(events, [{ span: CALLS, reason: 'match', pattern: 1 }]);
  assert.deepEqual(filter.strippedSpans, [CALLS]);
});

test("maxHeld with 'drop': past the bound the span is stripped at once, reason 'max-held'", () => {
  const { filter, outputs, flush, events } = stream({ maxHeld: 24, openSpanAtEnd: 'drop' }, [`a${S}`, '01234', '5', `x${E}y`]);
  assert.deepEqual(outputs, ['a', '', '', `x${E}y`]);
  assert.equal(flush, '');
  assert.deepEqual(events, [{ span: `${S}012345`, reason: 'max-held', pattern: 0 }]);
  assert.equal(filter.strippedChars, S.length + 6);
});

test('maxHeld: a span that opens and closes within one chunk is stripped whatever its length', () => {
  const { outputs, events } = stream({ maxHeld: 1 }, [`a${S}${'x'.repeat(1000)}${E}b`]);
  assert.deepEqual(outputs, ['ab']);
  assert.equal(events[0].reason, 'match');
});

test('maxHeld bounds what a runaway span holds, so memory stays flat', () => {
  const filter = new ScaffoldingFilter({ maxHeld: 4096, openSpanAtEnd: 'drop' });
  filter.feed(S);
  const piece = 'x'.repeat(1000);
  let emitted = 0;
  for (let i = 0; i < 10_000; i++) emitted += filter.feed(piece).length;
  // Dropped once (at 4,000+ units held), then the rest of the span is text.
  assert.equal(filter.strippedSpans.length, 1);
  assert.equal(filter.strippedChars + emitted, S.length + 10_000 * 1000);
  assert.ok(filter.strippedChars <= 4096 + piece.length);
});

test('onStrip: once per strip, in strip order, synchronously, with the pattern index of the list given', () => {
  const patterns = [{ token: '<t/>' }, { start: '<a>', end: '</a>' }, { start: '<b>', end: '</b>' }];
  const seen = [];
  let feeding = false;
  const filter = new ScaffoldingFilter({
    patterns,
    onStrip(event) {
      assert.ok(feeding, 'called inside feed or flush');
      assert.equal(this, undefined);
      assert.deepEqual(Object.keys(event), ['span', 'reason', 'pattern']);
      // The strip is already counted when the callback runs.
      assert.ok(filter.strippedSpans.includes(event.span));
      seen.push({ ...event, total: filter.strippedChars });
    },
  });
  const call = (f) => {
    feeding = true;
    try {
      return f();
    } finally {
      feeding = false;
    }
  };
  assert.equal(call(() => filter.feed('1<b>x</b>2<t/>3<a>y')), '123');
  assert.equal(call(() => filter.feed('</a>4')), '4');
  assert.deepEqual(
    seen.map(({ span, reason, pattern }) => [span, reason, pattern]),
    [
      ['<b>x</b>', 'match', 2],
      ['<t/>', 'match', 0],
      ['<a>y</a>', 'match', 1],
    ],
  );
  assert.equal(seen.length, filter.strippedSpans.length);
});

test('onStrip: the warning-per-strip example logs the span clipped to 200 characters', () => {
  const warnings = [];
  const filter = new ScaffoldingFilter({
    onStrip: ({ span, reason }) => warnings.push(`stripped ${reason} scaffolding: ${span.slice(0, 200)}`),
  });
  filter.feed(`${S}${'z'.repeat(500)}${E}`);
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0].length, 'stripped match scaffolding: '.length + 200);
});

test('onStrip throwing: the exception propagates after the strip; the next call pays what is owed', () => {
  const boom = new Error('onStrip failed');
  const events = [];
  let throwNext = true;
  const filter = new ScaffoldingFilter({
    onStrip(event) {
      events.push(event.span);
      if (throwNext) {
        throwNext = false;
        throw boom;
      }
    },
  });
  assert.throws(() => filter.feed(`a${CALL}b${CALLS}c<|tool_`), (error) => error === boom);
  // Both strips happened; only the first was announced.
  assert.deepEqual(filter.strippedSpans, [CALL, CALLS]);
  assert.deepEqual(events, [CALL]);
  // The next call announces the second strip, then returns the text the
  // failed call owed in front of its own.
  assert.equal(filter.feed('call|>d'), 'abcd');
  assert.deepEqual(events, [CALL, CALLS, '<|tool_call|>']);
  assert.equal(filter.flush(), '');
});

test('onStrip throwing inside flush: the strip stands, and the owed text comes out of the next call', () => {
  const boom = new Error('at the end');
  const filter = new ScaffoldingFilter({
    openSpanAtEnd: 'drop',
    onStrip() {
      throw boom;
    },
  });
  assert.equal(filter.feed('ab<|tool'), 'ab');
  assert.equal(filter.flush(), '<|tool'); // nothing stripped, nothing called
  filter.feed(`x${S}y`);
  assert.throws(() => filter.flush(), (error) => error === boom);
  assert.deepEqual(filter.strippedSpans, [`${S}y`]);
  assert.equal(filter.feed('z'), 'z');
});

test('onStrip cannot feed or flush its own filter, but may read it and use another', () => {
  const other = new ScaffoldingFilter();
  const reads = [];
  const filter = new ScaffoldingFilter({
    onStrip() {
      reads.push(filter.strippedChars, filter.strippedSpans.length, other.feed(`o${CALL}k`));
      assert.throws(() => filter.feed('x'), /ScaffoldingFilter\.feed cannot be called from inside this filter's onStrip callback/);
      assert.throws(() => filter.flush(), /ScaffoldingFilter\.flush cannot be called from inside/);
    },
  });
  assert.equal(filter.feed(`a${CALL}b`), 'ab');
  assert.deepEqual(reads, [CALL.length, 1, 'ok']);
  assert.equal(filter.flush(), '');
});

test('conservation with every option: emitted plus stripped is the input, and every strip is announced once', () => {
  const random = rng(0x5ca1ab1e);
  const fragments = ['<|', 'tool_call', '_start', '_end', 's|>', '|>', '<', 'a', ' ', S, E, CALL, CALLS, '😀', '\uD83D', '\uDE00'];
  for (let round = 0; round < 400; round++) {
    let text = '';
    for (let i = random.below(60); i > 0; i--) text += random.pick(fragments);
    const options = {
      openSpanAtEnd: random.pick(['emit', 'drop']),
      ...(random.chance(0.5) ? { maxHeld: 1 + random.below(60) } : {}),
    };
    const announced = [];
    const boom = new Error('sometimes');
    const filter = new ScaffoldingFilter({
      ...options,
      onStrip(event) {
        announced.push(event);
        if (random.chance(0.3)) throw boom;
      },
    });
    let emitted = '';
    const call = (f) => {
      try {
        emitted += f();
        return true;
      } catch (error) {
        assert.equal(error, boom);
        return false;
      }
    };
    for (let at = 0; at < text.length; ) {
      const end = Math.min(text.length, at + random.below(12));
      call(() => filter.feed(text.slice(at, end)));
      at = end;
    }
    // Flush until a call goes through: a throw leaves the debt to the next.
    while (!call(() => filter.flush()));
    const context = `${JSON.stringify(options)} ${JSON.stringify(text)}`;
    assert.equal(emitted.length + filter.strippedChars, text.length, context);
    assert.deepEqual(
      announced.map((event) => event.span),
      filter.strippedSpans,
      context,
    );
  }
});

test('a ScaffoldRegistry compiles once and serves many filters, as the same list would', () => {
  const all = Object.values(SCAFFOLD_PRESETS).flat();
  const registry = new ScaffoldRegistry(all);
  assert.equal(registry.size, all.length);
  const texts = [
    'a <tool_call>{"name": "f"}</tool_call> b </tool_call> c',
    'Sure.\n{"name": "web_search", "parameters": {"q": "x"}}\nDone.',
    '[TOOL_CALLS][{"name":"f","arguments":{}}] and <|python_tag|>{"name":"g","parameters":{}}',
  ];
  for (const [index, text] of texts.entries()) {
    const r = rng(500 + index);
    const chunks = [];
    for (let at = 0; at < text.length; ) {
      const end = Math.min(text.length, at + 1 + r.below(9));
      chunks.push(text.slice(at, end));
      at = end;
    }
    const fromList = stream({ patterns: all }, chunks);
    const fromRegistry = stream({ patterns: registry }, chunks);
    assert.deepEqual(fromRegistry.outputs, fromList.outputs, text);
    assert.equal(fromRegistry.flush, fromList.flush);
    assert.deepEqual(fromRegistry.events, fromList.events);
    assert.deepEqual(fromRegistry.filter.strippedSpans, fromList.filter.strippedSpans);
  }
  // Which lists run exactly as the reference: literal ones that cannot overlap.
  assert.equal(registry.runsAsReference, false);
  for (const name of ['lfm2', 'gemma4']) assert.equal(new ScaffoldRegistry(SCAFFOLD_PRESETS[name]).runsAsReference, true, name);
  for (const patterns of [SCAFFOLD_PRESETS.hermes, [{ token: 'ab' }, { token: 'b' }], [{ token: /x/ }], [{ jsonCall: {} }]]) {
    assert.equal(new ScaffoldRegistry(patterns).runsAsReference, false, JSON.stringify(patterns));
  }
  // Filters built from one registry share nothing but it.
  const one = new ScaffoldingFilter({ patterns: registry });
  const two = new ScaffoldingFilter({ patterns: registry });
  assert.equal(one.feed('x <tool_call>open'), 'x ');
  assert.equal(two.feed('y. '), 'y. ');
  assert.equal(two.flush(), '');
  assert.equal(one.flush(), '<tool_call>open');
});

test('ScaffoldRegistry refuses what the filter refuses, naming it, and cannot be forged', () => {
  assert.throws(() => new ScaffoldRegistry(), { name: 'TypeError', message: /^ScaffoldRegistry: patterns must be an array of pattern entries \(got undefined\)$/ });
  assert.throws(() => new ScaffoldRegistry([]), { name: 'TypeError', message: /^ScaffoldRegistry: patterns is empty, so the filter would strip nothing$/ });
  assert.throws(() => new ScaffoldRegistry([{ token: 'x' }, { regex: /a(?=b)/ }]), { name: 'TypeError', message: /^ScaffoldRegistry: patterns\[1\] cannot be used: its regex: .*look-around/ });
  assert.throws(() => ScaffoldRegistry([{ token: 'x' }]), TypeError);
  const forged = Object.create(ScaffoldRegistry.prototype);
  assert.throws(() => new ScaffoldingFilter({ patterns: forged }), { name: 'TypeError', message: /options\.patterns claims to be a ScaffoldRegistry but was not made by its constructor/ });
  assert.throws(() => new ScaffoldingFilter({ patterns: new ScaffoldingFilter() }), { name: 'TypeError', message: /options\.patterns must be an array of pattern entries \(got object\)/ });
});

test('regular expressions read JavaScript spellings as JavaScript does', () => {
  const strip = (patterns, text) => {
    const filter = new ScaffoldingFilter({ patterns });
    return filter.feed(text) + filter.flush();
  };
  // An astral character written as a pair of escapes, as a RegExp without u writes it.
  assert.equal(strip([{ token: /\uD83D\uDE00!/ }], 'a😀!b'), 'ab');
  // \< and \> are angle brackets, \/ a slash, \w and \b ASCII.
  assert.equal(strip([{ regex: /\<call\/\w+\>/ }], 'x<call/f_1>y<call/é>z'), 'xy<call/é>z');
  assert.equal(strip([{ regex: /\bto=\w+/ }], 'go to=f, auto=g'), 'go , auto=g');
  // Flags: i, m and s change what matches; g and y change nothing.
  assert.equal(strip([{ regex: /<CALL>/i }], 'a<call>b'), 'ab');
  assert.equal(strip([{ regex: /^fn:\d+/m }], 'fn:1 x\nfn:2 y fn:3'), ' x\n y fn:3');
  assert.equal(strip([{ start: /<a>/gy, end: /<\/a>/s }], '1<a>\n</a>2'), '12');
  assert.throws(() => new ScaffoldingFilter({ patterns: [{ regex: /\uD800/ }] }), /patterns\[0\] cannot be used: its regex: .*Unicode scalar value/);
});
