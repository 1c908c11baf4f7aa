// Tool-aware detection against four kinds of leak that issue 30 found still
// escaping the guards' default options, each generated from its grammar
// (src/filter/tool_aware/mod.rs) with random delimiters, heads and argument
// shapes for offered tools, and run in every chunking `chunkings()` makes,
// under tool-aware detection alone and under the guards' default options
// (the offered tools and SCAFFOLD_SPECIAL_TOKENS):
//
// 1. attribute heads between special tokens no preset names (Kimi K3's XTML
//    and its garbled forms): `<|open|>call tool="NAME" index="1"<|sep|>` with
//    typed argument entries;
// 2. narrated calls: `Assistant called tool NAME (id) with arguments: {…}`,
//    `: NAME Args :{…}`, often closed by stray special tokens;
// 3. a bare pythonic call alone on its line: `NAME(k="v")`;
// 5. harmony channel headers around a call: `<|channel|>analysis<|message|>`,
//    `commentary to=NAME` without `functions.`.
//
// Each leak must be stripped to the prose around it, and its calls read out
// (name and arguments) in the onStrip event. The other half is precision:
// generated texts that come closest to each rule without being a leak (prose
// naming the tools, Python in fences and REPLs, indented code, shell
// transcripts, documentation of these very formats in code, JSX, JSON tool
// definitions) must come out unchanged, with nothing stripped.
//
// A failing case prints its seed; TOOL_AWARE_SEED=<n> replays the run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScaffoldingFilter, SCAFFOLD_SPECIAL_TOKENS } from 'seamguard';
import { chunkings, rng } from '../support/helpers.mjs';

const SEED = Number(process.env.TOOL_AWARE_SEED ?? 20261202);
const LEAK_CASES = 120;
const CLEAN_CASES = 150;

/** The option sets a leak and a clean text are run under. */
const OPTION_SETS = {
  'tools alone': (tools) => ({ tools }),
  'tools alone, drop at the end': (tools) => ({ tools, openSpanAtEnd: 'drop' }),
  "the guards' default": (tools) => ({ tools, patterns: SCAFFOLD_SPECIAL_TOKENS }),
};

function filtered(chunks, options) {
  const strips = [];
  const filter = new ScaffoldingFilter({ ...options, onStrip: (event) => strips.push(event) });
  const out = chunks.map((chunk) => filter.feed(chunk)).join('') + filter.flush();
  return { out, strips };
}

/** Runs `check(n)` `count` times; fails once with the first few failures. */
function allCases(count, check) {
  const failures = [];
  for (let n = 0; n < count; n += 1) {
    try {
      check(n);
    } catch (error) {
      failures.push(error.message);
      if (failures.length >= 5) break;
    }
  }
  assert.deepEqual(failures, [], failures.join('\n\n'));
}

// ---------------------------------------------------------------------------
// The vocabulary.

const VERBS = ['get', 'search', 'read', 'run', 'fetch', 'list', 'create', 'send', 'query', 'open'];
const NOUNS = ['weather', 'file', 'web', 'shell', 'docs', 'issue', 'mail', 'calendar', 'stock', 'notes'];
const KEYS = ['city', 'query', 'path', 'limit', 'unit', 'recursive', 'days', 'command', 'q_text', 'maxResults'];
const PROSE = ['Let me check that for you.', 'Sure, one moment.', 'Working on it.', 'OK.', 'Der Bericht folgt.',
  '好的，我来查一下。', 'Checking the latest data now.'];
const AFTER = ['Done.', 'The result follows.', 'Anything else?', 'Voilà.', 'I will report back shortly.'];
const cap = (word) => word[0].toUpperCase() + word.slice(1);

/** A tool name; `identifier`: one Python could call (no dot, dash or space). */
function toolName(r, { identifier = false } = {}) {
  const verb = r.pick(VERBS);
  const noun = r.pick(NOUNS);
  switch (r.below(identifier ? 3 : 6)) {
    case 0: return `${verb}_${noun}`;
    case 1: return `${verb}${cap(noun)}`;
    case 2: return `${cap(verb)}${cap(noun)}`;
    case 3: return `${verb}-${noun}`;
    case 4: return `${noun}.${verb}`;
    default: return `${verb} ${noun}`;
  }
}

function toolList(r, options) {
  const names = new Set();
  const count = 1 + r.below(4);
  while (names.size < count) names.add(toolName(r, options));
  return [...names];
}

function distinctKeys(r, count) {
  const keys = new Set();
  while (keys.size < count) keys.add(r.pick(KEYS));
  return [...keys];
}

/** A JSON object of arguments, written compact or pretty. */
function jsonArguments(r) {
  const input = {};
  for (const key of distinctKeys(r, 1 + r.below(3))) {
    input[key] = r.pick([r.below(1000), r.chance(0.5), null, r.pick(['Paris', 'ls -la', 'a "quoted" word', '東京', 'x < y']),
      [r.pick(NOUNS), r.below(9)], { nested: r.pick(NOUNS) }]);
  }
  const text = r.chance(0.6) ? JSON.stringify(input) : JSON.stringify(input, null, r.pick([1, 2]));
  return { text, input };
}

/** The prose around a leak, and how the leak sits in it. */
function surround(r, leak, { lineStart = false, endsLine = false } = {}) {
  const before = r.chance(0.2) ? '' : r.pick(PROSE);
  const after = r.chance(0.2) ? '' : r.pick(AFTER);
  const open = before === '' ? '' : lineStart || r.chance(0.5) ? '\n' : ' ';
  const close = after === '' ? '' : endsLine || r.chance(0.5) ? '\n' : ' ';
  return { text: `${before}${open}${leak}${close}${after}`, clean: `${before}${open}${close}${after}` };
}

// ---------------------------------------------------------------------------
// Kind 1: attribute heads between special tokens.

/** A family's delimiter tokens: open, separator, close. */
function delimiters(r) {
  const sets = [['open', 'sep', 'close'], ['begin', 'mid', 'end'], ['o', 's', 'c'], ['start', 'split', 'stop'],
    ['tag_open', 'tag_sep', 'tag_close'], ['xo', 'xs', 'xc']];
  const [o, s, c] = r.pick(sets);
  return r.chance(0.2)
    ? { O: `<｜${o}｜>`, S: `<｜${s}｜>`, C: `<｜${c}｜>` }
    : { O: `<|${o}|>`, S: `<|${s}|>`, C: `<|${c}|>` };
}

/** One argument entry with a `type`, and the value it reads as. */
function typedEntry(r, key) {
  switch (r.below(8)) {
    case 0: { const n = r.below(10000) - 20; return { type: 'number', text: String(n), value: n }; }
    case 1: { const b = r.chance(0.5); return { type: 'boolean', text: String(b), value: b }; }
    case 2: return { type: 'null', text: 'null', value: null };
    case 3: { const v = { [key]: r.pick(NOUNS), n: r.below(9) }; return { type: 'object', text: JSON.stringify(v), value: v }; }
    case 4: { const v = [r.pick(NOUNS), r.below(9)]; return { type: 'array', text: JSON.stringify(v), value: v }; }
    // A number typed as a string stays a string.
    case 5: { const n = String(r.below(999)); return { type: 'string', text: n, value: n }; }
    case 6: { const w = r.pick(['Paris', 'src/main.rs', 'ls -la /tmp', 'a "quoted" word', 'x > y', 'line one\nline two']); return { type: 'string', text: w, value: w }; }
    // No type: a word reads as a string.
    default: { const w = r.pick(['Paris', 'notes', 'Zürich']); return { type: null, text: w, value: w }; }
  }
}

function attributeLeak(r, tools) {
  const { O, S, C } = delimiters(r);
  const section = r.pick(['tools', 'calls', 'tool_calls', 'actions']);
  const head = r.pick(['call', 'invoke', 'tool_call', 'fn', 'use']);
  const entryWord = r.pick(['argument', 'arg', 'param', 'parameter']);
  const nl = () => (r.chance(0.3) ? '\n' : '');
  const garbled = r.chance(0.25);
  const count = 1 + (r.chance(0.3) ? r.below(2) + 1 : 0);
  const calls = [];
  const parts = [];
  for (let index = 1; index <= count; index += 1) {
    const name = r.pick(tools);
    const naming = `${r.pick(['tool', 'tool', 'name', 'function'])}="${name.replaceAll('&', '&amp;')}"`;
    const extras = [`index="${index}"`, `id="call_${r.below(99)}"`, 'type="function"'].filter(() => r.chance(0.4));
    const attributes = r.chance(0.5) ? [naming, ...extras] : [...extras, naming];
    // A garbled stream glues the section's word to the call's.
    const word = garbled && index === 1 ? `${section}${head}` : head;
    let body = '';
    const input = {};
    const shape = r.below(5);
    if (shape === 0) {
      // The arguments as one JSON block.
      const { text, input: object } = jsonArguments(r);
      Object.assign(input, object);
      body = `${O}json type="object"${S}${text}${C}json${S}${nl()}`;
    } else if (shape !== 1) {
      for (const key of distinctKeys(r, 1 + r.below(3))) {
        const entry = typedEntry(r, key);
        input[key] = entry.value;
        const type = entry.type === null ? '' : ` type="${entry.type}"`;
        // A garbled stream loses the entry's closing token and glues its word to the value.
        const close = garbled && r.chance(0.5) ? `${entryWord}${S}` : `${C}${entryWord}${S}`;
        body += `${O}${entryWord} key="${key}"${type}${S}${entry.text}${close}${nl()}`;
      }
    }
    calls.push({ name, input });
    parts.push(`${O}${word} ${attributes.join(' ')}${S}${nl()}${body}${C}${head}${S}${nl()}`);
  }
  const opener = garbled ? '' : `${O}${section}${S}${nl()}`;
  const closer = r.chance(0.8) ? `${C}${section}${garbled ? `${section}message` : ''}${S}` : '';
  // (A line break after the leak's last token is the prose's, not the leak's.)
  return { leak: `${opener}${parts.join('')}${closer}`.replace(/\n+$/, ''), calls };
}

// ---------------------------------------------------------------------------
// Kind 2: narrated calls.

/** Stray special tokens a narration may close with. */
function strays(r) {
  if (r.chance(0.5)) return '';
  const { S, C } = delimiters(r);
  return r.pick([`${C}argument${S}${C}call${S}${C}tools${S}`, '<|im_end|>', `${C}call${S}`, '<|eot_id|>']);
}

function narratedLeak(r, tools) {
  const name = r.pick(tools);
  const { text: json, input } = jsonArguments(r);
  if (r.chance(0.3)) {
    const leak = `:${r.pick([' ', ''])}${name} ${r.pick(['Args', 'Arguments'])}${r.pick([' ', ''])}:${r.pick(['', ' '])}${json}${strays(r)}`;
    return { leak, calls: [{ name, input }], lineStart: false };
  }
  // The transcript's own line (`Assistant called tool …`), or its verb alone at a line's start.
  const role = r.pick(['', 'Assistant ', 'assistant ']);
  const verb = role ? 'called' : r.pick(['called', 'Called', 'calling', 'Calling']);
  const id = r.chance(0.5) ? ` (call_${r.pick(['resync_', 'abc', ''])}${r.below(99)})` : '';
  const what = r.pick(['arguments', 'args', 'input', 'parameters']);
  const leak = `${role}${verb} tool ${name}${id} with ${what}:${r.pick([' ', ''])}${json}${strays(r)}`;
  // Opened by the role word it may follow prose on its line; else it begins its line.
  return { leak, calls: [{ name, input }], lineStart: role === '' };
}

// ---------------------------------------------------------------------------
// Kind 3: a bare pythonic call alone on its line.

function pythonLiteral(r) {
  switch (r.below(6)) {
    case 0: { const n = r.below(500); return { text: String(n), value: n }; }
    case 1: { const b = r.chance(0.5); return { text: b ? 'True' : 'False', value: b }; }
    case 2: return { text: 'None', value: null };
    case 3: { const w = r.pick(['Paris', 'San Francisco', 'src/x.py', '東京']); return { text: `'${w}'`, value: w }; }
    case 4: { const list = [r.pick(NOUNS), r.pick(NOUNS)]; return { text: `["${list[0]}", "${list[1]}"]`, value: list }; }
    default: { const w = r.pick(['New York', 'ls -la', 'it is (fine)', 'a, b']); return { text: `"${w}"`, value: w }; }
  }
}

function pythonLines(r, tools) {
  const count = 1 + (r.chance(0.3) ? 1 + r.below(2) : 0);
  const calls = [];
  const lines = [];
  for (let i = 0; i < count; i += 1) {
    const name = r.pick(tools);
    const input = {};
    const parts = distinctKeys(r, 1 + r.below(3)).map((key) => {
      const { text, value } = pythonLiteral(r);
      input[key] = value;
      return `${key}=${text}`;
    });
    calls.push({ name, input });
    lines.push({ indent: ' '.repeat(r.below(4)), call: `${name}(${parts.join(r.pick([', ', ',']))})`, trail: r.pick(['', '', ' ', '\t']) });
  }
  return { lines, calls };
}

// ---------------------------------------------------------------------------
// Kind 5: harmony channel headers.

function harmonyLeak(r, tools) {
  const name = r.pick(tools);
  const { text: json, input } = jsonArguments(r);
  const reasoning = r.pick(['User wants the weather. Use the tool.', 'Need to look this up.', 'We should call the tool.']);
  const answer = r.pick(['', 'It is sunny.', 'Here you go.']);
  switch (r.below(4)) {
    case 0: {
      // The analysis header, the reasoning, and the call's header with `to=NAME`.
      const call = r.chance(0.5)
        ? `<|start|>assistant<|channel|>commentary to=${name} ${r.pick(['<|constrain|>json', 'json', ''])}<|message|>${json}<|call|>`
        : `<|start|>assistant to=${name}<|channel|>commentary json<|message|>${json}<|call|>`;
      const final = answer ? `<|start|>assistant<|channel|>final<|message|>${answer}` : '';
      return { text: `<|channel|>analysis<|message|>${reasoning}<|end|>${call}${final}`, clean: `${reasoning}${answer}`, calls: [{ name, input }] };
    }
    case 1: {
      // The header's tokens removed; the channel word and `to=NAME` left.
      const channel = r.pick(['commentary', 'assistantcommentary', 'analysis', 'assistant']);
      const before = r.pick(['', 'Let me check.\n']);
      return { text: `${before}${channel} to=${name} ${r.pick(['json', 'commentary json', ''])}${json}`, clean: before, calls: [{ name, input }] };
    }
    case 2: {
      // A call with its tokens, after prose on the same line.
      const before = r.pick(PROSE);
      return { text: `${before}<|channel|>commentary to=${name} <|constrain|>json<|message|>${json}<|call|>`, clean: before, calls: [{ name, input }] };
    }
    default: {
      // A final header after a call: it goes with the call, as its other strays do.
      const { text: other, input: otherInput } = jsonArguments(r);
      return {
        text: `<|channel|>commentary to=${name} json<|message|>${other}<|call|>\n<|channel|>final<|message|>${answer || 'Done.'}`,
        clean: answer || 'Done.',
        calls: [{ name, input: otherInput }],
      };
    }
  }
}

// ---------------------------------------------------------------------------
// The checks.

/** Strips `text` to `clean` under every option set and chunking, reading `calls`. */
function checkLeak(tools, text, clean, calls, seed, where) {
  for (const [setName, options] of Object.entries(OPTION_SETS)) {
    for (const chunks of chunkings(text, seed)) {
      const { out, strips } = filtered(chunks, options(tools));
      const label = `${where} under ${setName}, ${chunks.length} chunks: ${JSON.stringify(text)} tools ${JSON.stringify(tools)}`;
      assert.equal(out, clean, label);
      const read = strips.filter((s) => s.pattern === -1).flatMap((s) => s.calls);
      assert.deepEqual(read.map((c) => c.name), calls.map((c) => c.name), `${label}: the calls' names`);
      assert.deepEqual(read.map((c) => c.input), calls.map((c) => c.input), `${label}: the calls' arguments`);
    }
  }
}

describe('kind 1: attribute heads between special tokens no preset names', () => {
  it(`${LEAK_CASES} generated leaks, stripped and read in every chunking (seed ${SEED})`, () => {
    const r = rng(SEED ^ 0x1a77);
    allCases(LEAK_CASES, (n) => {
      const tools = toolList(r);
      const { leak, calls } = attributeLeak(r, tools);
      const { text, clean } = surround(r, leak);
      checkLeak(tools, text, clean, calls, SEED + n, `attribute leak ${n} (seed ${SEED})`);
    });
  });
});

describe('kind 2: narrated calls', () => {
  it(`${LEAK_CASES} generated narrations, stripped and read in every chunking (seed ${SEED})`, () => {
    const r = rng(SEED ^ 0x2a77);
    allCases(LEAK_CASES, (n) => {
      const tools = toolList(r);
      const { leak, calls, lineStart } = narratedLeak(r, tools);
      const { text, clean } = surround(r, leak, { lineStart, endsLine: true });
      checkLeak(tools, text, clean, calls, SEED + 10_000 + n, `narration ${n} (seed ${SEED})`);
    });
  });
});

describe('kind 3: a bare pythonic call alone on its line', () => {
  it(`${LEAK_CASES} generated answers, stripped and read in every chunking (seed ${SEED})`, () => {
    const r = rng(SEED ^ 0x3a77);
    allCases(LEAK_CASES, (n) => {
      const tools = toolList(r, { identifier: true });
      const { lines, calls } = pythonLines(r, tools);
      const before = r.chance(0.4) ? '' : `${r.pick(PROSE)}\n${r.chance(0.5) ? '\n' : ''}`;
      const after = r.chance(0.4) ? '' : `\n${r.chance(0.5) ? '\n' : ''}${r.pick(AFTER)}`;
      const eol = r.pick(['\n', '\r\n']);
      const text = before + lines.map(({ indent, call, trail }) => `${indent}${call}${trail}`).join(eol) + after;
      const clean = before + lines.map(({ indent, trail }) => `${indent}${trail}`).join(eol) + after;
      checkLeak(tools, text, clean, calls, SEED + 20_000 + n, `python lines ${n} (seed ${SEED})`);
    });
  });
});

describe('kind 5: harmony channel headers around a call', () => {
  it(`${LEAK_CASES} generated answers, stripped and read in every chunking (seed ${SEED})`, () => {
    const r = rng(SEED ^ 0x5a77);
    allCases(LEAK_CASES, (n) => {
      const tools = toolList(r);
      const { text, clean, calls } = harmonyLeak(r, tools);
      checkLeak(tools, text, clean, calls, SEED + 30_000 + n, `harmony ${n} (seed ${SEED})`);
    });
  });
});

// ---------------------------------------------------------------------------
// Precision: the texts closest to each rule that are no leak.

const ident = (name) => name.replace(/[^A-Za-z0-9_]/g, '_');

/** Texts that come close to a rule, for offered `name`; each must pass unchanged. */
const NEAR_MISSES = [
  // Prose that names the tool, or narrates a call in a sentence that goes on.
  (r, name) => `I called ${name} and it said it was sunny.`,
  (r, name) => `I called tool ${name} with arguments: ${jsonArguments(r).text} and it returned 20°C.`,
  (r, name) => `Called tool ${name} with arguments: none, so nothing ran.`,
  (r, name) => `Yesterday the agent called tool ${name} with arguments: {"city": "Paris"}.\nToday it did not.`,
  (r, name) => `The log says: ${name} Args: see below.`,
  (r, name) => `Use ${name} when asked; its args: {"city": "Paris"} are optional, as the docs say.`,
  // Python: fenced, in a REPL, indented, positional, with variables, commented, in a sentence, assigned.
  (r, name) => `\`\`\`python\n${ident(name)}(city="Paris")\nprint(${ident(name)}(days=3))\n\`\`\``,
  (r, name) => `>>> ${ident(name)}(city="Paris")\n{'temp': 20}\n>>> ${ident(name)}(city="Rome", days=2)`,
  (r, name) => `Example:\n\n    ${ident(name)}(city="Paris")\n    ${ident(name)}(days=3)\n\nThat is all.`,
  (r, name) => `${ident(name)}("Paris")`,
  (r, name) => `${ident(name)}(city=city, days=n)`,
  (r, name) => `${ident(name)}(city="Paris")  # returns a dict`,
  (r, name) => `Run ${ident(name)}(city="Paris") to see it.`,
  (r, name) => `result = ${ident(name)}(city="Paris")`,
  (r, name) => `if ready: ${ident(name)}(city="Paris")`,
  (r, name) => `${ident(name)}(city="Paris"); ${ident(name)}(city="Rome")`,
  (r, name) => `- ${ident(name)}(city="Paris")\n> ${ident(name)}(city="Rome")`,
  (r, name) => `${ident(name)}(\n    city="Paris",\n)`,
  // Shell transcripts.
  (r, name) => `$ ${ident(name)} --city Paris\n{"temp": 20}\n$ python -c 'print(${ident(name)}(city="x"))'`,
  // Documentation of these formats in code.
  (r, name) => `\`\`\`text\n<|open|>tools<|sep|><|open|>call tool="${name}" index="1"<|sep|><|open|>argument key="city" type="string"<|sep|>Paris<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>\n\`\`\``,
  (r, name) => `Kimi K3 writes \`<|open|>call tool="${name}" index="1"<|sep|>\` then one \`argument key="K" type="T"\` entry an argument.`,
  (r, name) => `\`\`\`\nAssistant called tool ${name} (call_1) with arguments: {"city": "Paris"}\n\`\`\``,
  (r, name) => `The transcript line is \`Assistant called tool ${name} with arguments: {"city": "Paris"}\`.`,
  (r, name) => `\`\`\`\n<|channel|>analysis<|message|>thinking<|end|><|start|>assistant<|channel|>commentary to=${name} json<|message|>{}\n\`\`\``,
  (r, name) => 'gpt-oss writes `<|channel|>analysis<|message|>` before its reasoning, and <|channel|>final<|message|> before the answer.',
  (r, name) => `The argument key="city" type="string" goes between <|open|> and <|sep|>, then ${name} runs.`,
  (r, name) => `Send it to=${name} later, or to ${name}. The commentary to=${name} json{} line is harmony's.`,
  // JSX and JSON tool definitions.
  (r, name) => `<ToolCall tool="${name}" index="1" />\n<Tool name="${name}" onCall={() => ${ident(name)}({ city: "x" })} />`,
  (r, name) => `{"type": "function", "function": {"name": "${name}", "description": "Gets the weather", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}`,
  // (Alone: a special token before a call on a later line makes that call a leak's, a rule older than
  // these kinds, so this one is not joined to the others.)
  (r, name) => `<|im_start|>user tool="${name}" asked<|im_end|>`,
];
const ALONE = 1;

describe('texts nearest each rule that are no leak pass unchanged', () => {
  it(`${CLEAN_CASES} generated texts, in every chunking and under every option set (seed ${SEED})`, () => {
    const r = rng(SEED ^ 0xc1ea);
    allCases(CLEAN_CASES, (n) => {
      const tools = toolList(r, { identifier: r.chance(0.5) });
      const count = 1 + r.below(2);
      const parts = Array.from({ length: count }, () => r.pick(NEAR_MISSES.slice(0, -ALONE))(r, r.pick(tools)));
      const text = parts.join(r.pick(['\n\n', '\n']));
      for (const [setName, options] of Object.entries(OPTION_SETS)) {
        for (const chunks of chunkings(text, SEED + 50_000 + n)) {
          const { out, strips } = filtered(chunks, options(tools));
          const label = `clean case ${n} (seed ${SEED}) under ${setName}, ${chunks.length} chunks: ${JSON.stringify(text)} tools ${JSON.stringify(tools)}`;
          assert.deepEqual(strips.map((s) => s.span), [], label);
          assert.equal(out, text, label);
        }
      }
    });
  });

  for (const [index, make] of NEAR_MISSES.entries()) {
    it(`near miss ${index}, with each of several names`, () => {
      const r = rng(SEED + index);
      for (const name of ['get_weather', 'getWeather', 'weather.get', 'get weather']) {
        const text = make(r, name);
        for (const chunks of chunkings(text, SEED + 60_000 + index)) {
          const { out, strips } = filtered(chunks, OPTION_SETS["the guards' default"]([name]));
          assert.deepEqual(strips.map((s) => s.span), [], `${JSON.stringify(text)}, ${chunks.length} chunks`);
          assert.equal(out, text);
        }
      }
    });
  }
});

describe('soup of the new heads\' pieces: nothing lost, and the same in every chunking', () => {
  // Random runs of the pieces these heads are made of, in any order: the
  // filter must neither lose nor invent a unit, nor answer by where the
  // chunks were cut (a held `:` before a name, a narration's lead cut in
  // two, an entry's value that runs to the end).
  const PIECES = ['<|open|>', '<|sep|>', '<|close|>', '<｜o｜>', 'call', 'tools', 'argument', ' tool="get_weather"',
    ' index="1"', ' key="city"', ' type="number"', ' type="string"', 'json', '{"city": "Paris"}', '{', '}', '3',
    'Assistant ', 'called tool ', 'Calling tool ', 'get_weather', 'search', ' (call_1)', ' with arguments:', ' with args: ',
    ': ', ':', ' Args ', 'Args :', '(', ')', 'city="x"', ', ', 'days=3', '\n', '    ', ' ', '>>> ', '```\n',
    '<|channel|>', 'analysis', 'commentary', 'final', '<|message|>', '<|end|>', '<|start|>', 'assistant', ' to=',
    '<|constrain|>', '<|call|>', 'Paris', 'é', '\ud800'];
  const ALONE = [{ token: '\u0007never\u0007' }];
  it(`${CLEAN_CASES} soups (seed ${SEED})`, () => {
    const r = rng(SEED ^ 0x50a9);
    allCases(CLEAN_CASES, (n) => {
      const text = Array.from({ length: 5 + r.below(50) }, () => r.pick(PIECES)).join('');
      const tools = r.chance(0.5) ? ['get_weather', 'search'] : toolList(r);
      for (const openSpanAtEnd of ['emit', 'drop']) {
        const results = chunkings(text, SEED + 90_000 + n).map((chunks) => filtered(chunks, { tools, openSpanAtEnd, patterns: ALONE }));
        const where = `soup ${n} (seed ${SEED}, ${openSpanAtEnd}): ${JSON.stringify(text)}`;
        for (const { out, strips } of results) {
          assert.equal(out.length + strips.reduce((sum, s) => sum + s.span.length, 0), text.length, `nothing lost: ${where}`);
          assert.deepEqual([out, strips.map((s) => s.span)], [results[0].out, results[0].strips.map((s) => s.span)], `every chunking: ${where}`);
        }
      }
    });
  });
});
