// FilterPlan: options compiled once, to open filters from. A filter opened
// from a plan must be indistinguishable from one made from the same
// options (outputs feed by feed, flush, spans, counters, onStrip events,
// startUnits), filters sharing a plan must stay independent, and a plan
// must stay as it was made, whatever its filters do.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';

import {
  FilterPlan, SCAFFOLD_PRESETS, SCAFFOLD_SPECIAL_TOKENS, ScaffoldingFilter, ScaffoldRegistry,
} from 'seamguard';
import { rng } from '../support/helpers.mjs';

const require = createRequire(import.meta.url);
const native = require('../../index.js').__scaffoldingFilter;

const TOOLS = ['get_weather', { name: 'search', parameters: ['query', 'limit'] }, 'read_file'];

/** Answers that leak in the formats the registries below know, and clean ones. */
const TEXTS = [
  'Plain prose, nothing to strip, with < and > and { "a": 1 } in it.',
  'Let me check. <|tool_call_start|>[get_weather(city="Paris")]<|tool_call_end|> It is sunny.',
  'Sure.<tool_call>\n{"name": "search", "arguments": {"query": "node", "limit": 3}}\n</tool_call> Done.',
  '<function=read_file><parameter=path>/etc/hosts</parameter></function> and then <|tool_call|> text',
  '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Oslo"}}] after',
  '{"name": "search", "arguments": {"query": "x"}}\nThat was the call.',
  'An unclosed span: <|tool_call_start|>[search(query="never closes"',
  'Several: <|tool_calls|> a <tool_call>{"name":"get_weather","arguments":{}}</tool_call>  b  <|tool_call|>\n\n\nc',
  'Surrogates \ud83d\ude00 and a lone \ud800 around <tool_call>{"name":"read_file","arguments":{"path":"\u00e9"}}</tool_call>.',
];

/** The option sets compared: each a function, so that every run gets fresh callbacks. */
const OPTION_SETS = {
  defaults: () => ({}),
  'special tokens + tools': () => ({ patterns: SCAFFOLD_SPECIAL_TOKENS, tools: TOOLS }),
  'special tokens as a registry + tools, drop': () => ({
    patterns: new ScaffoldRegistry(SCAFFOLD_SPECIAL_TOKENS), tools: TOOLS, openSpanAtEnd: 'drop',
  }),
  hermes: () => ({ patterns: SCAFFOLD_PRESETS.hermes }),
  'every preset, tidy': () => ({ patterns: Object.values(SCAFFOLD_PRESETS).flat(), tidyWhitespace: true }),
  'json-call + mistral, maxHeld': () => ({
    patterns: [...SCAFFOLD_PRESETS['json-call'], ...SCAFFOLD_PRESETS.mistral], maxHeld: 12, openSpanAtEnd: 'drop',
  }),
  'tools only, tidy': () => ({ tools: TOOLS, tidyWhitespace: true }),
};

/** `text` cut into pieces of 1 to `most` units, from seed `seed`. */
function chunked(text, most, seed) {
  const random = rng(seed);
  const chunks = [];
  for (let at = 0; at < text.length;) {
    const size = 1 + random.below(most);
    chunks.push(text.slice(at, at + size));
    at += size;
  }
  return chunks;
}

/** Everything a filter shows for `rounds` (arrays of chunks, a flush after each). */
function record(filter, rounds) {
  const seen = { startUnits: filter.startUnits, outputs: [] };
  for (const chunks of rounds) {
    for (const chunk of chunks) seen.outputs.push(filter.feed(chunk), filter.idle);
    seen.outputs.push(filter.flush(), filter.strippedChars);
  }
  seen.spans = filter.strippedSpans;
  return seen;
}

/** The options of `name`, with an `onStrip` that records into `events`. */
function withEvents(name, events) {
  return { ...OPTION_SETS[name](), onStrip: (event) => events.push(event) };
}

describe('a filter opened from a plan is the filter its options make', () => {
  for (const name of Object.keys(OPTION_SETS)) {
    it(`${name}: the same outputs, spans, counters and events for every chunking`, () => {
      const fromOptions = [];
      const fromPlan = [];
      const plan = new FilterPlan(withEvents(name, fromPlan));
      for (let seed = 1; seed <= 12; seed++) {
        const most = [1, 3, 8, 64, 1 << 20][seed % 5];
        const rounds = TEXTS.map((text, i) => chunked(text, most, seed * 31 + i));
        assert.deepEqual(
          record(new ScaffoldingFilter(plan), rounds),
          record(new ScaffoldingFilter(withEvents(name, fromOptions)), rounds),
          `${name}, seed ${seed}`,
        );
        assert.deepEqual(fromPlan, fromOptions, `${name}, seed ${seed}: onStrip events`);
      }
      assert.ok(fromPlan.length > 0 || name === 'defaults', `${name} stripped something`);
    });

    it(`${name}: ScaffoldingFilter.strip gives the same text and events from the plan`, () => {
      const fromOptions = [];
      const fromPlan = [];
      const plan = new FilterPlan(withEvents(name, fromPlan));
      const options = withEvents(name, fromOptions);
      for (const text of TEXTS) {
        assert.equal(ScaffoldingFilter.strip(text, plan), ScaffoldingFilter.strip(text, options), `${name}: ${text}`);
      }
      assert.deepEqual(fromPlan, fromOptions);
    });
  }

  it('a plan has the startUnits of its filters', () => {
    for (const name of Object.keys(OPTION_SETS)) {
      const plan = new FilterPlan(OPTION_SETS[name]());
      assert.equal(plan.startUnits, new ScaffoldingFilter(OPTION_SETS[name]()).startUnits, name);
      assert.equal(new ScaffoldingFilter(plan).startUnits, plan.startUnits, name);
    }
    assert.equal(new FilterPlan().startUnits, '<');
  });
});

describe('filters sharing a plan are independent', () => {
  const options = () => ({ patterns: SCAFFOLD_SPECIAL_TOKENS, tools: TOOLS, openSpanAtEnd: 'drop' });
  /** What a filter of its own makes of `chunks`. (The order of spans that the two stages strip can depend on the chunking.) */
  const alone = (chunks) => {
    const filter = new ScaffoldingFilter(options());
    let text = '';
    for (const chunk of chunks) text += filter.feed(chunk);
    return { text: text + filter.flush(), spans: filter.strippedSpans };
  };
  const expected = TEXTS.map((text) => alone([text]));

  it('interleaved feeds, chunk by chunk, across every text at once', () => {
    const plan = new FilterPlan(options());
    for (let seed = 1; seed <= 8; seed++) {
      const streams = TEXTS.map((text, i) => {
        const chunks = chunked(text, 1 + seed, seed + i);
        return { filter: new ScaffoldingFilter(plan), chunks: [...chunks], want: alone(chunks), out: '' };
      });
      const random = rng(seed);
      let left = streams.filter((s) => s.chunks.length > 0);
      while (left.length > 0) {
        const stream = random.pick(left);
        stream.out += stream.filter.feed(stream.chunks.shift());
        left = left.filter((s) => s.chunks.length > 0);
      }
      streams.forEach((stream, i) => {
        stream.out += stream.filter.flush();
        assert.equal(stream.out, stream.want.text, `seed ${seed}, text ${i}`);
        assert.deepEqual(stream.filter.strippedSpans, stream.want.spans, `seed ${seed}, text ${i}`);
      });
    }
  });

  it('async streams that yield between chunks, each with the events it caused', async () => {
    let current;
    const events = new Map();
    const plan = new FilterPlan({ ...options(), onStrip: (event) => events.get(current).push(event.span) });
    const run = async (text, i) => {
      const filter = new ScaffoldingFilter(plan);
      events.set(filter, []);
      const chunks = chunked(text, 5, 100 + i);
      let out = '';
      for (const chunk of chunks) {
        await new Promise((resolve) => setImmediate(resolve));
        current = filter;
        out += filter.feed(chunk);
      }
      current = filter;
      out += filter.flush();
      return { out, spans: filter.strippedSpans, events: events.get(filter), want: alone(chunks) };
    };
    const results = await Promise.all([...TEXTS, ...TEXTS].map((text, i) => run(text, i)));
    results.forEach((result, i) => {
      assert.equal(result.out, result.want.text, `stream ${i}`);
      assert.deepEqual(result.spans, result.want.spans, `stream ${i}`);
      assert.deepEqual(result.events, result.want.spans, `stream ${i}: its own onStrip events`);
    });
  });

  it('a filter that is disposed, throws from onStrip or is dropped open leaves the others as they were', () => {
    let fail = false;
    const plan = new FilterPlan({
      ...options(),
      onStrip() {
        if (fail) throw new Error('callback failed');
      },
    });
    const text = TEXTS[2];
    const a = new ScaffoldingFilter(plan);
    const b = new ScaffoldingFilter(plan);
    const dropped = new ScaffoldingFilter(plan);
    dropped.feed(text.slice(0, 20));
    a.feed(text.slice(0, 20));
    a[Symbol.dispose]();
    fail = true;
    assert.throws(() => b.feed(text), /callback failed/);
    fail = false;
    assert.equal(b.flush(), expected[2].text);
    const c = new ScaffoldingFilter(plan);
    assert.equal(c.feed(text) + c.flush(), expected[2].text);
  });
});

describe('a plan is immutable', () => {
  it('keeps no own property, and using it changes neither it nor its options', () => {
    const options = { patterns: SCAFFOLD_SPECIAL_TOKENS, tools: [...TOOLS], maxHeld: 40, onStrip() {} };
    const copy = { ...options, tools: [...options.tools] };
    const plan = new FilterPlan(options);
    assert.deepEqual(Reflect.ownKeys(plan), []);
    const before = plan.startUnits;
    for (const text of TEXTS) {
      const filter = new ScaffoldingFilter(plan);
      filter.feed(text);
      filter.flush();
      ScaffoldingFilter.strip(text, plan);
    }
    assert.equal(plan.startUnits, before);
    assert.deepEqual(Reflect.ownKeys(plan), []);
    assert.deepEqual(options, copy);
    // The options were read once, when the plan was made: changing them
    // afterwards changes nothing a plan's filter does.
    options.tools.length = 0;
    options.openSpanAtEnd = 'drop';
    for (const text of TEXTS) {
      const filter = new ScaffoldingFilter(plan);
      assert.equal(filter.feed(text) + filter.flush(), ScaffoldingFilter.strip(text, copy));
    }
  });

  it('reads each option once, when it is made', () => {
    const reads = new Map();
    const options = new Proxy({ tools: TOOLS, patterns: SCAFFOLD_SPECIAL_TOKENS, onStrip() {} }, {
      get(target, key) {
        reads.set(key, (reads.get(key) ?? 0) + 1);
        return target[key];
      },
    });
    const plan = new FilterPlan(options);
    for (const text of TEXTS) {
      const filter = new ScaffoldingFilter(plan);
      filter.feed(text);
      filter.flush();
    }
    for (const [key, count] of reads) assert.equal(count, 1, `options.${String(key)} read ${count} times`);
  });
});

describe('bad plan arguments', () => {
  const cases = [
    ['an array', [], TypeError, /^FilterPlan: options must be an object \(got an array\)$/],
    ['a string', 'hermes', TypeError, /^FilterPlan: options must be an object \(got string\)$/],
    ['null', null, TypeError, /^FilterPlan: options must be an object \(got null\)$/],
    ['a ScaffoldRegistry', new ScaffoldRegistry(SCAFFOLD_PRESETS.hermes), TypeError,
      /^FilterPlan: options must be an object \(got a ScaffoldRegistry, which goes in options\.patterns\)$/],
    ['a misspelt option', { tool: [] }, TypeError, /^FilterPlan: options\.tool is not an option/],
    ['a pattern with no end', { patterns: [{ token: 'a' }, { token: 'b' }, { start: '<x>' }] }, TypeError,
      /^FilterPlan: options\.patterns\[2\] has a start but no end/],
    ['a bad end', { patterns: [{ token: 'a' }, { token: 'b' }, { start: '<x>', end: 5 }] }, TypeError,
      /^FilterPlan: options\.patterns\[2\]\.end must be a string or a RegExp \(got number\)$/],
    ['an empty tool name', { tools: ['get_weather', ''] }, TypeError, /^FilterPlan: options\.tools\[1\]: /],
    ['a tool that is a number', { tools: [7] }, TypeError, /^FilterPlan: options\.tools\[0\] must be a tool name/],
    ['a bad policy', { openSpanAtEnd: 'keep' }, TypeError, /^FilterPlan: options\.openSpanAtEnd must be 'emit' or 'drop' \(got 'keep'\)$/],
    ['onStrip not a function', { onStrip: 'log' }, TypeError, /^FilterPlan: options\.onStrip must be a function \(got string\)$/],
    ['maxHeld 0', { maxHeld: 0 }, RangeError, /^FilterPlan: options\.maxHeld must be a positive integer \(got 0\)$/],
    ['a plan as the patterns', { patterns: new FilterPlan() }, TypeError,
      /^FilterPlan: options\.patterns must be an array of pattern entries \(got object\)$/],
  ];
  for (const [name, options, type, message] of cases) {
    it(`${name}: a ${type.name} naming it, from FilterPlan and, as ScaffoldingFilter, from the filter`, () => {
      assert.throws(() => new FilterPlan(options), (error) => error instanceof type && message.test(error.message));
      const asFilter = new RegExp(message.source.replace('^FilterPlan', '^ScaffoldingFilter'));
      assert.throws(() => new ScaffoldingFilter(options), (error) => error instanceof type && asFilter.test(error.message));
    });
  }

  it('FilterPlan is a class: calling it without new is a TypeError', () => {
    assert.throws(() => FilterPlan({}), TypeError);
  });
});

describe('misuse', () => {
  const impostor = Object.create(FilterPlan.prototype);

  it('an object that claims to be a plan is refused by the filter and by strip', () => {
    assert.throws(() => new ScaffoldingFilter(impostor),
      { name: 'TypeError', message: 'ScaffoldingFilter: options claims to be a FilterPlan but was not made by its constructor' });
    assert.throws(() => ScaffoldingFilter.strip('text', impostor),
      { name: 'TypeError', message: 'ScaffoldingFilter: options claims to be a FilterPlan but was not made by its constructor' });
  });

  it('startUnits read off anything but a plan is a TypeError', () => {
    const getter = Object.getOwnPropertyDescriptor(FilterPlan.prototype, 'startUnits').get;
    for (const value of [impostor, {}, null, undefined, new ScaffoldingFilter()]) {
      assert.throws(() => getter.call(value), /^TypeError: FilterPlan\.startUnits: called on something that is not a FilterPlan/);
    }
  });

  it('the native half takes nothing but a plan it made', () => {
    for (const value of [undefined, null, {}, [], 'plan', new ArrayBuffer(8), new ScaffoldRegistry(SCAFFOLD_PRESETS.hermes)]) {
      assert.throws(() => native.open(value), { name: 'TypeError', message: 'ScaffoldingFilter: the plan is not a plan of this addon' });
    }
    // A stream handle is an addon value too, but no plan.
    const [plan] = native.compile(undefined, 'ScaffoldingFilter');
    const handle = native.open(plan);
    assert.throws(() => native.open(handle), TypeError);
    native.close(handle);
    assert.throws(() => native.feed(plan, 'text'), TypeError);
  });
});
