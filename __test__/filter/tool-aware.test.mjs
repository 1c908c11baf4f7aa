// Tool-aware detection (`new ScaffoldingFilter({ tools })`) against markup
// grammars it has never seen. A seeded generator invents them the way new
// model families do: wrapper tags with made-up names, special tokens in
// ASCII and full-width bars, bracket markers, tool fences, attribute order
// and quoting, separators, every argument shape (JSON, parameter tags,
// key/value pairs, pythonic, `functions.NAME:0`, `NAME[ARGS]`), several
// calls in one wrapper, and tool names with dots, dashes and a space. Each
// generated call sits in prose and must be stripped whole, the prose before
// and after it left, in every chunking `chunkings()` makes, with its `calls`
// read right. Each form runs again with names in other scripts (accented
// Latin, Cyrillic, CJK, right to left, combining marks, emoji, lone
// surrogates) and names near 256 units, its JSON also spelt with escapes.
//
// The other half is precision: generated and hand-written texts that
// mention the offered tools (in prose, inline code, code blocks, HTML, JSON
// and XML documents, markdown links, math), in English and in the
// languages of those names, must come out unchanged, with nothing
// stripped, in every chunking.
//
// The grammar is stated in src/filter/tool_aware/mod.rs, its precision
// rules in docs/design.md (tool-aware detection: precision).
// A failing case prints its seed; TOOL_AWARE_SEED=<n> replays the run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ScaffoldingFilter, SCAFFOLD_SPECIAL_TOKENS } from 'seamguard';
import { chunkings, rng } from '../support/helpers.mjs';

const SEED = Number(process.env.TOOL_AWARE_SEED ?? 20260611);
const LEAK_CASES = 600;
const CLEAN_CASES = 400;

/** Runs `chunks` through a tool-aware filter: the output and every strip. */
function filtered(tools, chunks, options = {}) {
  const strips = [];
  const filter = new ScaffoldingFilter({ tools, onStrip: (event) => strips.push(event), ...options });
  const out = chunks.map((chunk) => filter.feed(chunk)).join('') + filter.flush();
  return { out, strips };
}

// ---------------------------------------------------------------------------
// The vocabulary new families draw on.

const VERBS = ['get', 'search', 'read', 'run', 'fetch', 'list', 'create', 'send', 'lookup', 'query', 'open', 'book'];
const NOUNS = ['weather', 'file', 'web', 'shell', 'docs', 'issue', 'ticket', 'mail', 'calendar', 'stock', 'flight', 'notes'];
const KEYS = ['city', 'query', 'path', 'limit', 'unit', 'recursive', 'lang', 'days', 'command', 'q_text', 'maxResults', 'to'];
const WORDS = ['Paris', 'New York', 'src/main.rs', 'rust borrow checker', 'ls -la /tmp', 'Zürich', '東京', 'a "quoted" word',
  'x < y', 'tabs\tand spaces', 'C:\\Users\\me', 'semi; colon', 'price: $5', 'emoji 🙂', 'it\'s'];
const TOKEN_WORDS = ['call', 'calls', 'fn', 'invoke', 'section', 'action', 'plugin', 'args', 'req', 'act', 'func', 'tool', 'use', 'begin', 'start'];
const TAG_STEMS = ['zq', 'fn', 'act', 'use', 'cmd', 'agent', 'skill', 'op', 'task', 'step', 'job', 'req'];
const TAG_TAILS = ['_call', '_tool', 'Call', '-call', '_exec', '_run', 'Req', 'Invoke', '_use', ':call', ':tool_call', 'Tool'];
const MARKER_WORDS = ['TOOL', 'CALL', 'CALLS', 'FN', 'REQ', 'ACT', 'EXEC', 'RUN', 'SKILL', 'OP'];
const FENCE_INFOS = ['tool_call', 'tool_code', 'function_call', 'tool', 'calls', 'tool-use'];
const PROSE = ['Let me check that for you.', 'Sure, one moment.', 'I will look it up now:', 'Working on it.',
  'Here is what I found so far.', 'Checking the latest data.', 'OK.', 'Der Bericht folgt.', '好的，我来查一下。',
  'Running the tool first, then I will summarise.'];
const AFTER = ['Done.', 'I will report back shortly.', 'The result follows.', 'Thanks for waiting!', 'Anything else?',
  'Next I will summarise the findings.', 'Voilà.'];

// The HTML elements (a tag named so is never a wrapper): the generator avoids them.
const HTML = new Set(('a abbr address area article aside audio b base bdi bdo blockquote body br button canvas caption cite code '
  + 'col colgroup data datalist dd del details dfn dialog div dl dt em embed fieldset figcaption figure footer form h1 h2 h3 '
  + 'h4 h5 h6 head header hgroup hr html i iframe img input ins kbd label legend li link main map mark menu meta meter nav '
  + 'noscript object ol optgroup option output p param picture pre progress q rp rt ruby s samp script search section '
  + 'select slot small source span strong style sub summary sup svg table tbody td template textarea tfoot th thead time '
  + 'title tr track u ul var video wbr').split(' '));

/** Every grammar dimension the generator has drawn, to show what a run covered. */
const SEEN = new Set();
const COUNTS = new Map();
const note = (...kinds) => kinds.forEach((kind) => { SEEN.add(kind); COUNTS.set(kind, (COUNTS.get(kind) ?? 0) + 1); });

/** What the tool-aware stage calls a tool-ish name: one that says it wraps calls. */
const toolish = (name) => /tool|call/i.test(name);
const cap = (word) => word[0].toUpperCase() + word.slice(1);

/** A tool name: `get_weather`, `get-weather`, `weather.get`, `getWeather`, `GetWeather` or `get weather`. */
function toolName(r, { tagSafe = false } = {}) {
  const verb = r.pick(VERBS);
  const noun = r.pick(NOUNS);
  const style = r.below(tagSafe ? 5 : 6);
  note(`name:${['underscore', 'dash', 'dot', 'camel', 'pascal', 'space'][style]}`);
  switch (style) {
    case 0: return `${verb}_${noun}`;
    case 1: return `${verb}-${noun}`;
    case 2: return `${noun}.${verb}`;
    case 3: return `${verb}${cap(noun)}`;
    case 4: return `${cap(verb)}${cap(noun)}`;
    default: return `${verb} ${noun}`;
  }
}

/** Several distinct tool names, some of them prefixes of others. */
function toolList(r) {
  const names = new Set();
  const count = 2 + r.below(4);
  while (names.size < count) {
    const name = toolName(r);
    names.add(name);
    if (r.chance(0.2)) {
      note('name:prefix-of-another');
      names.add(`${name}_v2`);
    }
  }
  return [...names];
}

// ---------------------------------------------------------------------------
// Arguments: each shape with the input tool-aware detection must read from it.

/** A value for a parameter tag: the text written, and what it reads as. */
function tagValue(r) {
  switch (r.below(4)) {
    case 0: { const n = r.below(1000); return { text: String(n), value: n }; }
    case 1: { const w = r.pick(WORDS.filter((w) => !w.includes('<'))); return { text: w, value: w }; }
    case 2: { const w = `${r.pick(NOUNS)} ${r.pick(VERBS)} ${r.below(90) + 10}`; return { text: w, value: w }; }
    default: { const w = r.pick(['/tmp/a b.txt', 'SELECT * FROM t', 'line one\nline two', 'x=1&y=2']); return { text: w, value: w }; }
  }
}

/** A JSON value of any kind. */
function jsonValue(r, depth = 0) {
  switch (r.below(depth > 1 ? 4 : 6)) {
    case 0: return r.below(10000) - 50;
    case 1: return r.chance(0.5);
    case 2: return null;
    case 3: return r.pick(WORDS) + (r.chance(0.3) ? ' {braces} [brackets]' : '');
    case 4: return Array.from({ length: r.below(3) }, () => jsonValue(r, depth + 1));
    default: return jsonObject(r, depth + 1);
  }
}

function jsonObject(r, depth = 0) {
  const object = {};
  const count = (depth === 0 ? 1 : 0) + r.below(3);
  for (let i = 0; i < count; i += 1) object[r.pick(KEYS)] = jsonValue(r, depth);
  return object;
}

function distinctKeys(r, count) {
  const keys = new Set();
  while (keys.size < count) keys.add(r.pick(KEYS));
  return [...keys];
}

function json(r, value) {
  return r.chance(0.5) ? JSON.stringify(value) : JSON.stringify(value, null, r.chance(0.5) ? 2 : 1);
}

/**
 * Arguments in one shape: `{ text, input }`. `kind` picks the shape:
 * 'json', 'tags' (parameter tags of some family), 'pythonic', 'loose'.
 */
function args(r, kind) {
  note(`args:${kind}`);
  if (kind === 'json') {
    const input = jsonObject(r);
    return { text: json(r, input), input };
  }
  if (kind === 'pythonic') {
    const keys = distinctKeys(r, r.below(3));
    const input = {};
    const parts = keys.map((key) => {
      switch (r.below(5)) {
        case 0: { const n = r.below(500); input[key] = n; return `${key}=${n}`; }
        case 1: { const b = r.chance(0.5); input[key] = b; return `${key}=${b ? 'True' : 'False'}`; }
        case 2: { const w = r.pick(['Paris', 'a b c', 'src/x.py', '東京']); input[key] = w; return `${key}='${w}'`; }
        case 3: { const list = [r.pick(NOUNS), r.pick(NOUNS)]; input[key] = list; return `${key}=["${list[0]}", "${list[1]}"]`; }
        default: { const w = r.pick(['New York', 'ls -la', 'it is (fine)']); input[key] = w; return `${key}="${w}"`; }
      }
    });
    return { text: `(${parts.join(r.pick([', ', ',']))})`, input };
  }
  if (kind === 'loose') {
    const keys = distinctKeys(r, 1 + r.below(2));
    const input = {};
    const parts = keys.map((key) => {
      if (r.chance(0.5)) { const n = r.below(99); input[key] = n; return `${key}:${n}`; }
      const w = r.pick(['Paris', 'ls -la', 'a, b']);
      input[key] = w;
      return r.chance(0.5) ? `${key}:<|"|>${w}<|"|>` : `${key}:<escape>${w}<escape>`;
    });
    return { text: `{${parts.join(',')}}`, input };
  }
  // Parameter tags, in one family's dialect.
  const keys = distinctKeys(r, 1 + r.below(3));
  const input = {};
  const nl = r.chance(0.5) ? '\n' : '';
  const dialect = r.below(6);
  note(`tags:${['element', 'parameter=k', 'parameter name', 'string attribute', 'arg_key/arg_value', 'prefixed pairs'][dialect]}`);
  const param = r.pick(['parameter', 'param', 'argument', 'arg']);
  const prefix = r.pick(['longcat', 'zx', 'm']);
  const items = keys.map((key) => {
    const { text, value } = tagValue(r);
    input[key] = value;
    switch (dialect) {
      case 0: return `<${key}>${text}</${key}>`;
      case 1: return `<${param}=${key}>\n${text}\n</${param}>`;
      case 2: return `<${param} name="${key}">${text}</${param}>`;
      case 3: {
        // DeepSeek's DSML and Seed: string="true" keeps even a number a string.
        const string = r.chance(0.5);
        if (string) input[key] = text;
        return `<${param} name="${key}" string="${string}">${text}</${param}>`;
      }
      case 4: return `<arg_key>${key}</arg_key>${nl}<arg_value>${text}</arg_value>`;
      // LongCat's prefixed pairs.
      default: return `<${prefix}_arg_key>${key}</${prefix}_arg_key> <${prefix}_arg_value>${text}</${prefix}_arg_value>`;
    }
  });
  return { text: items.join(nl), input };
}

// ---------------------------------------------------------------------------
// Wrappers: what opens a leak and what closes it, and how strong each is
// (the tool-aware stage's levels: 0 none, 1 bracket, 2 weak, 3 strong).

function tokenWord(r, avoid = []) {
  let word;
  do word = `${r.pick(TOKEN_WORDS)}_${r.pick(TOKEN_WORDS)}`; while (avoid.includes(word) || ['tool_call', 'tool_calls'].includes(word));
  return word;
}

function tagName(r) {
  let name;
  do name = `${r.pick(TAG_STEMS)}${r.pick(TAG_TAILS)}`; while (HTML.has(name));
  return r.chance(0.15) ? `${r.pick(['ns', 'x', 'seed', 'mm'])}:${name}` : name;
}

/** The outer wrapper: `{ open, close, level, lineStart, word }`. */
function outerWrapper(r) {
  // No wrapper at all three times as often: its heads are the most varied.
  const drawn = r.below(11);
  const kind = drawn >= 9 ? 0 : drawn;
  note(`wrapper:${['none', 'special token', 'full-width token', 'tag', 'tag', 'marker', 'tool fence', 'half tokens', 'token around tag'][kind]}`);
  switch (kind) {
    case 0: return { open: '', close: '', level: 0 };
    case 1: {
      const a = tokenWord(r);
      return { open: `<|${a}|>`, close: r.chance(0.8) ? `<|${tokenWord(r, [a])}|>` : '', level: 3 };
    }
    case 2: {
      const a = `${r.pick(TOKEN_WORDS)}▁${r.pick(TOKEN_WORDS)}`;
      return { open: `<｜${a}｜>`, close: r.chance(0.8) ? `<｜${r.pick(TOKEN_WORDS)}▁end｜>` : '', level: 3 };
    }
    case 3: case 4: {
      const name = tagName(r);
      note(`wrapper tag:${toolish(name) ? 'strong' : 'weak'}`, ...(name.includes(':') ? ['wrapper tag:namespaced'] : []));
      const attrs = r.chance(0.2) ? ` id="${r.below(99)}"` : '';
      return { open: `<${name}${attrs}>`, close: r.chance(0.85) ? `</${name}>` : '', level: toolish(name) ? 3 : 2 };
    }
    case 5: {
      const marker = `${r.pick(MARKER_WORDS)}_${r.pick(MARKER_WORDS)}`;
      const close = r.pick([`[/${marker}]`, `[END_${marker}]`, '']);
      note(`marker:${toolish(marker) ? 'tool' : 'other'}`, `marker closer:${close ? close.slice(0, 2) : 'none'}`);
      // A marker that names no tool or call only counts at a line's start.
      return { open: `[${marker}]`, close, level: toolish(marker) ? 3 : 2, lineStart: !toolish(marker) };
    }
    case 6: return { open: `\`\`\`${r.pick(FENCE_INFOS)}\n`, close: '\n```', level: 3, lineStart: true };
    case 7: {
      // Gemma 4's half tokens, with its `call:` word.
      const name = r.pick(['tool_call', 'fn_call', 'call']);
      return { open: `<|${name}>`, close: `<${name}|>`, level: 3, word: 'call:' };
    }
    default: {
      // A special token, then a tag wrapper inside it.
      const outer = tokenWord(r);
      const name = tagName(r);
      return { open: `<|${outer}|>\n<${name}>`, close: `</${name}>\n<|${tokenWord(r, [outer])}|>`, level: 3 };
    }
  }
}

// ---------------------------------------------------------------------------
// Heads: one call in one of the forms a family writes, allowed at `level`.

/** A JSON call object naming `name`, in one of the shapes families use. */
function jsonCall(r, name, input) {
  const shape = r.below(6);
  note(`json call:${['name,arguments', 'arguments,name', 'name,parameters', 'openai function', 'id,type,input', 'tool,args'][shape]}`);
  switch (shape) {
    case 0: return { name, arguments: input };
    case 1: return { arguments: input, name };
    case 2: return { name, parameters: input };
    case 3: return { type: 'function', function: { name, arguments: JSON.stringify(input) } };
    case 4: return { id: `call_${r.below(999)}`, type: 'function', name, input };
    default: return { tool: name, args: input };
  }
}

/**
 * Whether `name` can be a tag's own name (`<NAME>…</NAME>`): letters, digits,
 * `_`, `.`, `-`, or any unit beyond ASCII, not starting with a digit, `.`
 * or `-`.
 */
const isTagSafe = (name) => /^[A-Za-z_\u0080-\uffff][\w.\-\u0080-\uffff]*$/.test(name);

/**
 * One call at wrapping `level`: `{ text, calls, lineStart }`. `form` forces
 * the head's form and its tool (the first of `tools`); `spell` rewrites the
 * text of a JSON call (its escapes). `lineStart`:
 * the head must begin its line (a bare JSON call, a harmony channel word).
 */
function oneCall(r, tools, level, { multi = false, closedByTag = false, form: forced, spell = (json) => json } = {}) {
  const name = forced ? tools[0] : r.pick(tools);
  const tagSafe = isTagSafe(name);
  const forms = ['attr', 'tagEq', 'functions', 'ARGS'];
  if (tagSafe) forms.push('named');
  if (level === 0 && !multi) forms.push('jsonLine', 'harmony', 'kimiTail', 'court', 'curly', 'strayCloser');
  if (level >= 2) forms.push('json', 'bareJson');
  // Parameter tags after a bare name run to the next closing tag: one call, or each closed by its own tag.
  if (level >= 2 && (!multi || closedByTag)) forms.push('bareTags');
  if (level >= 1) forms.push('pythonic');
  if (level >= 3) forms.push('loose', 'bareFence', 'arrow', 'sepWord', 'dotCall');
  // A name alone is a call only right before its strong wrapper's closing tag.
  if (level >= 3 && closedByTag) forms.push('noArgs');
  const form = forced ?? r.pick(forms);
  note(`head:${form}`);
  const body = () => (r.chance(0.5) ? args(r, 'json') : args(r, 'tags'));
  const sp = () => r.pick(['', '\n', ' ', '\n  ']);
  switch (form) {
    case 'named': {
      const a = body();
      return { text: `<${name}>${sp()}${a.text}${sp()}</${name}>`, calls: [{ name, input: a.input }] };
    }
    case 'attr': {
      const a = body();
      const tag = r.pick(['invoke', 'function', 'tool', 'call', 'use_tool', tagName(r), '｜DSML｜invoke', 'fn']);
      const key = r.pick(['name', 'name', 'tool', 'tool_name', 'function']);
      const q = tagSafe && r.chance(0.2) ? '' : r.pick(['"', "'"]);
      const extra = r.pick(['', ` id=${q}c${r.below(99)}${q}`, ` type="function"`, ` index="0"`]);
      const named = `${key}=${q}${name}${q}`;
      note(`attribute:${key}`, `quote:${q || 'none'}`, `extra attribute:${extra ? extra.trim().split('=')[0] : 'none'}`);
      const attrs = r.chance(0.5) ? `${named}${extra}` : `${extra.trim()} ${named}`.trim();
      return { text: `<${tag} ${attrs}>${sp()}${a.text}${sp()}</${tag}>`, calls: [{ name, input: a.input }] };
    }
    case 'tagEq': {
      const a = body();
      const tag = r.pick(['function', 'tool', 'invoke', 'fn']);
      return { text: `<${tag}=${name}>${sp()}${a.text}${sp()}</${tag}>`, calls: [{ name, input: a.input }] };
    }
    case 'functions': {
      const a = args(r, 'json');
      const gap = r.pick([' ', '', '\n', ` <|${tokenWord(r)}|> `, `<|${tokenWord(r)}|>`]);
      return { text: `functions.${name}:${r.below(4)}${gap}${a.text}`, calls: [{ name, input: a.input }] };
    }
    case 'ARGS': {
      const a = args(r, 'json');
      return { text: `${name}[ARGS]${a.text}`, calls: [{ name, input: a.input }] };
    }
    case 'jsonLine': case 'json': {
      const count = form === 'json' && r.chance(0.3) ? 2 : 1;
      const calls = [];
      const objects = Array.from({ length: count }, (_, index) => {
        const callName = forced && index === 0 ? name : r.pick(tools);
        const input = jsonObject(r);
        calls.push({ name: callName, input });
        return jsonCall(r, callName, input);
      });
      const value = count > 1 || r.chance(0.3) ? (r.chance(0.5) ? objects : { tool_calls: objects }) : objects[0];
      return { text: spell(json(r, value)), calls, lineStart: form === 'jsonLine' };
    }
    case 'harmony': {
      const a = args(r, 'json');
      const channel = r.pick(['commentary', 'assistantcommentary', 'analysis']);
      const gap = r.pick([' json', ' commentary json\n', ' ', ' <|constrain|>json<|message|>']);
      return { text: `${channel} to=functions.${name}${gap}${a.text}`, calls: [{ name, input: a.input }], lineStart: true };
    }
    case 'kimiTail': {
      // A section whose opener was lost: `NAME:0<|…|>{…}<|…|>`.
      const a = args(r, 'json');
      return { text: `${name}:${r.below(3)}<|${tokenWord(r)}|>${a.text}<|${tokenWord(r)}|>`, calls: [{ name, input: a.input }] };
    }
    case 'bareJson': {
      const a = args(r, 'json');
      return { text: `${name}${r.pick(['', '\n', ' ', ':0 '])}${a.text}`, calls: [{ name, input: a.input }] };
    }
    case 'bareTags': {
      const a = args(r, 'tags');
      return { text: `${name}${r.pick(['\n', ' ', ''])}${a.text}`, calls: [{ name, input: a.input }] };
    }
    case 'pythonic': {
      const a = args(r, 'pythonic');
      return { text: `${name}${a.text}`, calls: [{ name, input: a.input }], pythonic: true };
    }
    case 'noArgs': return { text: name, calls: [{ name, input: {} }], bare: true };
    case 'court': {
      // A mangled opener left as a lone word on the line before the call.
      const a = args(r, 'tags');
      const word = r.pick(['court', 'count', 'call']);
      return { text: `${word}\n<invoke name="${name}">\n${a.text}\n</invoke>`, calls: [{ name, input: a.input }], lineStart: true };
    }
    case 'curly': {
      // Typographic quotes, as some chat front ends render a JSON call.
      const input = { [r.pick(KEYS)]: r.pick(['Paris', 'ls', 'notes']) };
      const [key] = Object.keys(input);
      return { text: `{“name”: “${name}”, “arguments”: {“${key}”: “${input[key]}”}}`, calls: [{ name, input }], lineStart: true };
    }
    case 'strayCloser': {
      // Qwen3-Coder's call with its wrapper's opener lost and its closer left.
      const a = args(r, 'tags');
      return { text: `<function=${name}>\n${a.text}\n</function>\n</${r.pick(['tool_call', 'TOOLCALL', 'function_calls'])}>`, calls: [{ name, input: a.input }] };
    }
    case 'sepWord': {
      // DeepSeek's `function<｜tool▁sep｜>NAME`.
      const a = args(r, 'json');
      const sep = r.chance(0.5) ? '<｜tool▁sep｜>' : `<|${tokenWord(r)}|>`;
      return { text: `${r.pick(['function', 'call', 'fn'])}${sep}${name}\n${a.text}`, calls: [{ name, input: a.input }] };
    }
    case 'dotCall': {
      // Llama's built-in tools: `NAME.call(query="…")`.
      const a = args(r, 'pythonic');
      return { text: `${name}.call${a.text}`, calls: [{ name, input: a.input }] };
    }
    case 'loose': {
      const a = args(r, 'loose');
      return { text: `${name}${a.text}`, calls: [{ name, input: a.input }] };
    }
    case 'bareFence': {
      // DeepSeek V3: the name, then its arguments in a ```json fence.
      const a = args(r, 'json');
      return { text: `${name}\n\`\`\`json\n${a.text}\n\`\`\``, calls: [{ name, input: a.input }] };
    }
    default: {
      // MiniMax's bracketed `{tool => "NAME", args => {…}}`.
      const input = jsonObject(r);
      return { text: `{tool => "${name}", args => ${JSON.stringify(input)}}`, calls: [{ name, input }] };
    }
  }
}

/**
 * The wrapping each head form needs: the least level, or `'none'` for a
 * form that stands without a wrapper, or `'closed'` for one that needs a
 * strong wrapper's closing tag. The keys are every form `oneCall` writes,
 * and the two lists `generatedLeak` writes.
 */
const FORM_LEVELS = {
  named: 0, attr: 0, tagEq: 0, functions: 0, ARGS: 0,
  jsonLine: 'none', harmony: 'none', kimiTail: 'none', court: 'none', curly: 'none', strayCloser: 'none',
  pythonic: 1, json: 2, bareJson: 2, bareTags: 2,
  loose: 3, bareFence: 3, arrow: 3, sepWord: 3, dotCall: 3, noArgs: 'closed',
  'pythonic list': 1, 'pythonic list alone': 'none',
};

/** An outer wrapper that `form` can stand in. */
function wrapperFor(r, form) {
  const need = FORM_LEVELS[form];
  if (need === 'none') return { open: '', close: '', level: 0 };
  for (;;) {
    const wrapper = outerWrapper(r);
    if (need === 'closed' ? wrapper.level === 3 && wrapper.close.startsWith('</') : wrapper.level >= need) return wrapper;
  }
}

/**
 * One generated leak: `{ tools, leak, calls, lineStart }`. Given `form`
 * (a key of `FORM_LEVELS`), one call in that form to `tools[0]`, its JSON
 * spelt by `spell`.
 */
function generatedLeak(r, { tools = toolList(r), form, spell } = {}) {
  const wrapper = form ? wrapperFor(r, form) : outerWrapper(r);
  const inner = !form && wrapper.level > 0 && r.chance(0.35)
    ? r.pick([
      () => { const t = tokenWord(r); return { open: `<|${t}|>`, close: r.chance(0.7) ? `<|${tokenWord(r, [t])}|>` : '', level: 3 }; },
      () => { const name = tagName(r); return { open: `<${name}>`, close: `</${name}>`, level: toolish(name) ? 3 : 2 }; },
    ])()
    : { open: '', close: '', level: 0 };
  const level = Math.max(wrapper.level, inner.level);
  const count = !form && wrapper.level > 0 && r.chance(0.35) ? 2 + r.below(2) : 1;
  const pythonicList = form ? form.startsWith('pythonic list') : r.chance(level >= 1 ? 0.15 : 0.1);
  const parts = [];
  const calls = [];
  // A bare list of calls (Llama 3.2's pythonic output) begins its line.
  let lineStart = Boolean(wrapper.lineStart) || (pythonicList && level === 0);
  if (pythonicList) {
    // A list of pythonic calls: `[a(x=1), b(y="z")]`, in its wrapper or alone.
    for (let i = 0; i < count; i += 1) {
      const name = form ? tools[0] : r.pick(tools);
      const a = args(r, 'pythonic');
      parts.push(`${name}${a.text}`);
      calls.push({ name, input: a.input });
    }
    const list = `[${parts.join(r.pick([', ', ',']))}]`;
    note(`head:pythonic list${level === 0 ? ' alone' : ''}`);
    return { tools, leak: `${wrapper.open}${list}${wrapper.close}`, calls, lineStart };
  }
  for (let i = 0; i < count; i += 1) {
    const closer = inner.open ? inner.close : wrapper.close;
    const closedByTag = closer.startsWith('</') && (inner.open ? inner.level : wrapper.level) === 3;
    const call = oneCall(r, tools, level, {
      multi: count > 1, closedByTag: closedByTag && (count === 1 || Boolean(inner.open)), form, spell,
    });
    if (call.lineStart) lineStart = true;
    const word = wrapper.word && !call.text.startsWith('<') && !call.text.startsWith('{') && !call.text.startsWith('[') && !call.text.startsWith('functions.') ? wrapper.word : '';
    parts.push(`${inner.open}${word}${call.text}${inner.close}`);
    calls.push(...call.calls);
  }
  const separator = r.pick(['\n', ' ', '\n\n', ', ']);
  note(`calls in one leak:${count}`, ...(count > 1 ? [`separator:${JSON.stringify(separator)}`] : []), ...(inner.open ? ['inner wrapper'] : []));
  // An end-of-turn token the template writes after a call.
  const end = r.chance(0.15) ? r.pick(['<|eom_id|>', '<|call|>', '<|im_end|>', '<｜end▁of▁sentence｜>', '<end_of_turn|>']) : '';
  if (end) note('end token after the leak');
  const leak = `${wrapper.open}${wrapper.open && r.chance(0.5) ? '\n' : ''}${parts.join(separator)}${wrapper.close}${end}`;
  return { tools, leak, calls, lineStart };
}

/** Compares a strip's calls with the generated ones. */
function sameCalls(actual, expected) {
  assert.equal(actual.length, expected.length, 'number of calls');
  expected.forEach(({ name, input }, index) => {
    assert.equal(actual[index].name, name, `call ${index}'s name`);
    assert.deepEqual(actual[index].input, input, `call ${index}'s input`);
  });
}

/**
 * Runs `check` on each case, and fails once with the first few failures
 * (each naming its case and the seed), so one run shows every kind of miss.
 */
function allCases(count, check) {
  const failures = [];
  let failed = 0;
  for (let n = 0; n < count; n += 1) {
    try {
      check(n);
    } catch (error) {
      failed += 1;
      if (failures.length < 6) failures.push(`${error.message.split('\n').slice(0, 12).join('\n')}`);
    }
  }
  assert.equal(failed, 0, `${failed} of ${count} cases failed (seed ${SEED}; TOOL_AWARE_SEED=${SEED} replays):\n\n${failures.join('\n\n')}`);
}

/**
 * Puts a generated leak in prose (drawn from `r`) and checks that it is
 * stripped whole, the prose around it left and its calls read right, in
 * every chunking; `label` names the case in a failure. The leak's text.
 */
function strippedInProse(r, { tools, leak, calls, lineStart }, seed, label) {
  const before = r.pick(PROSE) + (lineStart || r.chance(0.5) ? r.pick(['\n', '\n\n']) : ' ');
  const after = r.pick([' ', '\n', '\n\n']) + r.pick(AFTER);
  const text = before + leak + after;
  for (const chunks of chunkings(text, seed)) {
    const { out, strips } = filtered(tools, chunks);
    const where = `${label} (${chunks.length} chunks): ${JSON.stringify(text)} tools ${JSON.stringify(tools)}`;
    assert.deepEqual(strips.map((s) => s.span), [leak], `the leak, whole: ${where}`);
    assert.equal(out, before + after, `the prose around it: ${where}`);
    assert.equal(strips[0].pattern, -1, where);
    assert.equal(strips[0].reason, 'match', where);
    try {
      sameCalls(strips[0].calls, calls);
    } catch (error) {
      error.message = `${error.message}: ${where}\n${JSON.stringify(strips[0].calls)}`;
      throw error;
    }
  }
  return leak;
}

describe('generated grammars: a leaked call to an offered tool is stripped whole', () => {
  it(`${LEAK_CASES} generated leaks in prose, in every chunking (seed ${SEED})`, () => {
    const r = rng(SEED);
    const seen = new Set();
    allCases(LEAK_CASES, (n) => {
      const leak = strippedInProse(r, generatedLeak(r), SEED + n, `case ${n} (seed ${SEED})`);
      seen.add(leak.slice(0, 12));
    });
    assert.ok(seen.size > LEAK_CASES / 2, 'the leaks vary');
  });

  it('drew every grammar dimension', (t) => {
    const expected = [
      ...['underscore', 'dash', 'dot', 'camel', 'pascal', 'space', 'prefix-of-another'].map((k) => `name:${k}`),
      ...['none', 'special token', 'full-width token', 'tag', 'marker', 'tool fence', 'half tokens', 'token around tag'].map((k) => `wrapper:${k}`),
      'wrapper tag:strong', 'wrapper tag:weak', 'wrapper tag:namespaced', 'marker:tool', 'marker:other',
      'marker closer:[/', 'marker closer:[E', 'marker closer:none',
      ...['named', 'attr', 'tagEq', 'functions', 'ARGS', 'jsonLine', 'json', 'harmony', 'kimiTail', 'court', 'curly',
        'strayCloser', 'bareJson', 'bareTags', 'pythonic', 'noArgs', 'loose', 'bareFence', 'arrow', 'sepWord', 'dotCall',
        'pythonic list', 'pythonic list alone'].map((k) => `head:${k}`),
      ...['json', 'tags', 'pythonic', 'loose'].map((k) => `args:${k}`),
      ...['element', 'parameter=k', 'parameter name', 'string attribute', 'arg_key/arg_value', 'prefixed pairs'].map((k) => `tags:${k}`),
      ...['name,arguments', 'arguments,name', 'name,parameters', 'openai function', 'id,type,input', 'tool,args'].map((k) => `json call:${k}`),
      'attribute:name', 'attribute:tool', 'attribute:tool_name', 'attribute:function',
      'quote:"', "quote:'", 'quote:none', 'extra attribute:id', 'extra attribute:type', 'extra attribute:index',
      'calls in one leak:1', 'calls in one leak:2', 'calls in one leak:3', 'inner wrapper', 'end token after the leak',
      'separator:"\\n"', 'separator:" "', 'separator:", "',
    ];
    for (const kind of expected) assert.ok(SEEN.has(kind), `the generator drew ${kind}`);
    t.diagnostic(`${SEEN.size} grammar dimensions drawn: ${[...COUNTS].sort().map(([kind, count]) => `${kind} ×${count}`).join('; ')}`);
  });
});

// ---------------------------------------------------------------------------
// Names in any script: each head form above, with each name of each script,
// in every chunking. JSON calls are also spelt as an ASCII-only encoder
// writes them (`\u00e9`) and with their lone surrogates raw.

/** Tool names by script (and two long ones); in some, one is a prefix of another. */
const SCRIPTS = {
  'Latin with accents': ['météo', 'météo_v2', 'créer_événement', 'Straße-suchen', 'prévisions météo'],
  Cyrillic: ['погода', 'найти_файл'],
  Greek: ['καιρός'],
  CJK: ['天气', '天气预报', '查询_天气', '天気予報', '날씨'],
  'right to left': ['طقس', 'מזג_אוויר'],
  'combining marks': ['मौसम', 'cafe\u0301'],
  emoji: ['🌤️', 'weather🔥', '🔍search', '👩‍💻'],
  'lone surrogates': ['a\ud800b', '\udc00tool', 'x\udbff'],
  // As an MCP server names a tool: near the 256 units a name may have.
  'long ASCII': [`mcp__filesystem__${'read_'.repeat(47)}`, `mcp__${'x'.repeat(251)}`],
};

/** The spellings of a JSON call's text. */
const SPELLINGS = {
  'as JSON.stringify writes it': (json) => json,
  'escaped to ASCII': (json) => json.replace(/[\u0080-\uffff]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`),
  'lone surrogates raw': (json) => json.replace(/\\u(d[89a-f][0-9a-f]{2})/g, (_, hex) => String.fromCharCode(parseInt(hex, 16))),
};

/** A number from a string, to seed each script's run apart. */
const hashOf = (text) => [...text].reduce((hash, c) => (Math.imul(hash, 31) + c.codePointAt(0)) >>> 0, 7);

describe('names in any script: a leak is stripped in every form an ASCII name is', () => {
  for (const [script, names] of Object.entries(SCRIPTS)) {
    it(`${script}: every head form, in every chunking`, () => {
      const r = rng(SEED ^ hashOf(script));
      const cases = [];
      for (const name of names) {
        for (const form of Object.keys(FORM_LEVELS)) {
          if (form === 'named' && !isTagSafe(name)) continue;
          const spellings = form === 'json' || form === 'jsonLine' ? Object.entries(SPELLINGS) : [['', undefined]];
          for (const [spelling, spell] of spellings) cases.push({ name, form, spelling, spell });
        }
      }
      allCases(cases.length, (n) => {
        const { name, form, spelling, spell } = cases[n];
        const tools = [name, ...names.filter((other) => other !== name), 'get_weather'];
        const label = `${script} case ${n}, ${JSON.stringify(name)} ${form}${spelling ? `, ${spelling}` : ''} (seed ${SEED})`;
        strippedInProse(r, generatedLeak(r, { tools, form, spell }), SEED + n, label);
      });
    });
  }
});

// ---------------------------------------------------------------------------
// Precision: texts that mention the offered tools without calling them.

const REALISTIC = ['get_weather', 'search', 'read_file', 'run_shell'];

/** A Python identifier for a tool (its name where it is one), in any script. */
const ident = (name) => name.replace(/[^\p{L}\p{M}\p{N}_]/gu, '_');

/** One paragraph that mentions `name` in a way that is no call. */
const MENTIONS = [
  (r, name) => `You can call ${name} to fetch the data; ${name} takes a city and returns JSON.`,
  (r, name) => `The function ${ident(name)}(city) returns a dict, and ${ident(name)}(city="Paris", days=3) works too.`,
  (r, name) => `Run \`${ident(name)}(city="Paris")\` in the REPL, or \`${name}\` from the menu.`,
  (r, name) => `The model wrote \`<tool_call>{"name": "${name}", "arguments": {"city": "Paris"}}</tool_call>\` instead of calling the tool.`,
  (r, name) => `A Qwen3-Coder call looks like \`<function=${name}><parameter=city>Paris</parameter></function>\`, and Mistral's like \`${name}[ARGS]{"city": "Paris"}\`.`,
  (r, name) => `Kimi writes \`functions.${name}:0\` before the arguments; in prose, functions.${name} is just a path.`,
  (r, name) => `\`\`\`python\nfrom tools import registry\n\nresult = registry["${name}"]("x")\n${ident(name)}_result = ${ident(name)}("Paris")\nprint(result, ${ident(name)}_result)\n\`\`\``,
  (r, name) => `\`\`\`js\nconst call = { name: '${name}', arguments: { city: 'Paris' } };\nawait tools['${name}']({ city: 'Paris' });\n\`\`\``,
  (r, name) => `\`\`\`sh\n$ ${name} --city Paris --days 3\n$ echo '{"name": "${name}"}' | jq .name\n\`\`\``,
  (r, name) => `\`\`\`xml\n<invoke name="${name}">\n  <parameter name="city">Paris</parameter>\n</invoke>\n<!-- what a leaked call looks like -->\n\`\`\``,
  (r, name) => `\`\`\`json\n{\n  "name": "${name}",\n  "description": "Gets the forecast for a city",\n  "parameters": {\n    "type": "object",\n    "properties": { "city": { "type": "string" } },\n    "required": ["city"]\n  }\n}\n\`\`\``,
  (r, name) => `\`\`\`\n${name}(city="Paris")\n\`\`\``,
  (r, name) => `<!DOCTYPE html>\n<html><body>\n<h1>${name}</h1>\n<p>Call <code>${ident(name)}()</code> with a city.</p>\n<select name="${name}"><option>Paris</option></select>\n<button onclick="${ident(name)}()">Go</button>\n<a href="#${ident(name)}">${name}</a>\n</body></html>`,
  (r, name) => `{"model": "gpt-4o", "messages": [{"role": "user", "content": "weather?"}], "tools": [{"type": "function", "function": {"name": "${name}", "description": "Weather", "parameters": {"type": "object", "properties": {}}}}]}`,
  (r, name) => `{\n  "name": "${name}",\n  "version": "1.0.0",\n  "private": true,\n  "scripts": { "test": "node --test" }\n}`,
  (r, name) => `{"name": "${name}", "description": "Reads a file", "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}`,
  (r, name) => `{"tool": "${name}", "enabled": true, "timeout_ms": 3000}`,
  (r, name) => `<invoke name="other_tool"><parameter name="city">Paris</parameter></invoke> is what the other agent sends; ours sends <invoke name="${name}" partnerLink="weather" operation="get"/>.`,
  (r, name) => /^[A-Za-z_][\w.-]*$/.test(name)
    ? `<funcsynopsis><funcdef>int <function>${name}</function></funcdef><paramdef>int <parameter>${name}</parameter></paramdef></funcsynopsis>`
    : `<para>The <function>open</function> call takes <parameter>flags</parameter>.</para>`,
  (r, name) => `<function name="${name}"><description>Gets the weather for a city</description></function>`,
  (r, name) => `See [${name}](https://example.com/tools/${encodeURIComponent(name.toWellFormed())}) and [${ident(name)}(city="Paris")](https://example.com/#call), or [${name}] below.`,
  (r, name) => `If x < y and y > z, then {x, y} ⊂ S and f: {a} → [b]; for ${name}, $\\{ n \\mid n < 3 \\}$ holds.`,
  (r, name) => `It prints {"name": "${name}", "arguments": {"city": "Paris"}} and waits for your code to notice.`,
  (r, name) => `### ${name}\n{"city": "Paris", "days": 3}`,
  (r, name) => `| tool | input |\n|---|---|\n| ${name} | {"city": "Paris"} |\n| [${name}] | [${ident(name)}(city)] |`,
  (r, name) => `tools:\n  - name: ${name}\n    description: Gets the weather\n    input: {city: string}`,
  (r, name) => `- ${name}: fetches weather (call: ${name}{city})\n- [NOTE] ${ident(name)}(city="Paris") is cached.`,
  (r, name) => `Map<String, List<Item>> items = new HashMap<>(); // ${name} fills it`,
  (r, name) => `Send it to=${name} later, or to ${name}.`,
];

function generatedClean(r, offered) {
  const tools = offered ?? [...new Set([...REALISTIC, ...toolList(r)])];
  const count = 1 + r.below(3);
  const parts = Array.from({ length: count }, () => r.pick(MENTIONS)(r, r.pick(tools)));
  // A fence stands on lines of its own.
  const joiner = parts.some((part) => part.includes('```')) ? r.pick(['\n\n', '\n']) : r.pick(['\n\n', '\n', ' ']);
  return { tools, text: parts.join(joiner) };
}

/** Texts written by hand: each must pass through untouched with these tools offered. */
const HAND_WRITTEN = [
  '```python\nresult = get_weather("x")\nprint(result)\n```',
  'Here is the client:\n\n```python\nimport requests\n\ndef get_weather(city):\n    return requests.get(f"https://wttr.in/{city}?format=j1").json()\n\nresult = get_weather("x")\n```\n\nCall it with any city.',
  '```javascript\nconst result = await get_weather({ city: "Paris" });\nconsole.log(search("rust"), read_file("a.txt"));\n```',
  '```bash\nrun_shell() { bash -c "$1"; }\nrun_shell "ls -la"\nread_file=/etc/hosts\n```',
  '<html>\n<head><title>search</title></head>\n<body>\n<form action="/search"><input name="search" type="text"/></form>\n<select name="get_weather"><option value="paris">Paris</option></select>\n<div id="read_file">read_file</div>\n</body>\n</html>',
  '{\n  "model": "llama3.2",\n  "messages": [{"role": "user", "content": "what is the weather in tokyo?"}],\n  "tools": [{"type": "function", "function": {"name": "get_weather", "description": "Get the weather in a given city", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]\n}',
  '{\n  "name": "search",\n  "version": "2.1.0",\n  "main": "index.js",\n  "scripts": {"test": "node --test", "build": "tsc"},\n  "dependencies": {"read_file": "^1.0.0"}\n}',
  '[{"name": "get_weather", "description": "Gets the weather", "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "City"}}}}, {"name": "run_shell", "description": "Runs a command", "parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}]',
  '<project>\n  <function name="other">\n    <parameter name="city">Paris</parameter>\n  </function>\n  <invoke name="lookup" partnerLink="svc" operation="search"/>\n  <parameter>read_file</parameter>\n  <function>run_shell</function>\n</project>',
  '<bpel:invoke name="search" partnerLink="client" operation="get_weather" portType="tns:Weather" inputVariable="in"/>',
  'Read the [search docs](https://example.com/search) and the [get_weather(city)](https://example.com/weather) page; [read_file] is linked below.\n\n[read_file]: https://example.com/read_file',
  'For n > 0, {x | x < n} has n elements, and a<b<c means {a<b} ∧ {b<c}; get_weather is unrelated.',
  'Use `search` for the web and `<tool_call>{"name": "search", "arguments": {"q": "x"}}</tool_call>` is what a leak looks like.',
  'The harmony format writes `commentary to=functions.get_weather json{"city":"Paris"}` on a channel.',
  'Logged: {"name": "search", "arguments": {"query": "rust"}} was sent at 10:02, and {"name": "read_file", "arguments": {}} at 10:03.',
  'Why does run_shell(cmd="ls") fail? Because run_shell expects a list: run_shell(["ls"]).',
  'Call get_weather(city="Paris") to see it, or [get_weather(city="Paris")](https://example.com).',
  'To call a tool, write:\n\n```xml\n<tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>\n</tool_call>\n```\n\nand then wait for the result.\n\n```text\nExample output: <tool_call>{"name": "search"}</tool_call> was parsed.\n```',
  '<?xml version="1.0"?>\n<tools>\n  <tool name="get_weather" version="2">\n    <description>Weather</description>\n  </tool>\n  <tool name="search" enabled="true"/>\n</tools>',
  'Vec<Result<String, Error>> results; // search() fills this\nif a<b && c>d { read_file() }',
];

/**
 * Texts in other languages that mention tools named in them, in prose,
 * code and documents: each must pass untouched with those tools offered.
 */
const HAND_WRITTEN_IN_SCRIPTS = [
  [['météo', 'créer_événement'], 'La météo de demain : pluie sur Paris. Appelez météo(ville="Paris") pour la mise à jour, ou `météo` depuis le menu ; créer_événement(date) renvoie un identifiant.'],
  [['météo'], 'Voici le client :\n\n```python\ndef météo(ville):\n    return requêtes.get(f"https://wttr.in/{ville}").json()\n\nrésultat = météo("Paris")\n```\n\nAppelez-le avec une ville.'],
  [['météo'], '{\n  "name": "météo",\n  "version": "1.0.0",\n  "description": "Prévisions pour une ville"\n}'],
  [['天气', '天气预报'], '今天天气很好，明天有雨。你可以调用天气工具：天气(城市="北京")，它会返回 JSON，比如 {"城市": "北京", "天气": "晴"}。天气预报也一样。'],
  [['天气'], '```js\nconst 结果 = await tools["天气"]({ 城市: "上海" });\nconsole.log(结果);\n```\n\n<p>天气</p> 和 <天气>晴</天气> 都只是文字。'],
  [['天气'], '<select name="天气"><option>晴</option></select>\n<div id="天气">天气</div>\n<天气 城市="北京"/>'],
  [['天気予報'], '天気予報によると、明日は雨です。[天気予報](https://example.com/天気予報) を参照してください。`天気予報(都市)` は関数です。'],
  [['погода', 'найти_файл'], 'Погода сегодня хорошая. Функция погода(город) возвращает прогноз, а `погода("Москва")` и [найти_файл] — примеры.'],
  [['날씨'], '오늘 날씨는 맑습니다. 날씨 도구의 정의:\n{"name": "날씨", "description": "날씨를 조회합니다", "parameters": {"type": "object", "properties": {"도시": {"type": "string"}}}}'],
  [['طقس'], 'الطقس اليوم مشمس. استخدم طقس(المدينة="القاهرة") لمعرفة التفاصيل، أو اكتب <طقس> في البحث.'],
  [['मौसम'], 'आज का मौसम अच्छा है। मौसम(शहर="दिल्ली") एक फ़ंक्शन है।'],
  [['🌤️', '🔍search'], '🌤️ Sunny today! The 🌤️ tool gives the forecast; call 🌤️(city) when you need it, or 🔍search for the rest.'],
  [['a\ud800b'], 'A name with a lone surrogate, a\ud800b, is still just text here: a\ud800b(x=1), and {"a\ud800b": 1} is data.'],
];

describe('texts in other languages that mention tools named in them pass unchanged', () => {
  const names = [...new Set(Object.values(SCRIPTS).flat())];
  it(`${CLEAN_CASES} generated texts with names in every script, in every chunking and either openSpanAtEnd (seed ${SEED})`, () => {
    const r = rng(SEED ^ 0x5c417);
    allCases(CLEAN_CASES, (n) => {
      const script = r.pick(Object.values(SCRIPTS));
      const { tools, text } = generatedClean(r, [...new Set([...script, r.pick(names)])]);
      for (const chunks of chunkings(text, SEED + 70_000 + n)) {
        for (const openSpanAtEnd of ['emit', 'drop']) {
          const { out, strips } = filtered(tools, chunks, { openSpanAtEnd });
          const where = `clean case ${n} (seed ${SEED}, ${chunks.length} chunks, ${openSpanAtEnd}): ${JSON.stringify(text)} tools ${JSON.stringify(tools)}`;
          assert.deepEqual(strips.map((s) => s.span), [], where);
          assert.equal(out, text, where);
        }
      }
    });
  });

  for (const [index, [tools, text]] of HAND_WRITTEN_IN_SCRIPTS.entries()) {
    it(`hand-written ${index}: ${JSON.stringify(text.slice(0, 40))}…`, () => {
      for (const chunks of chunkings(text, 80_000 + index)) {
        for (const openSpanAtEnd of ['emit', 'drop']) {
          const { out, strips } = filtered(tools, chunks, { openSpanAtEnd });
          assert.deepEqual(strips.map((s) => s.span), [], `${chunks.length} chunks, ${openSpanAtEnd}`);
          assert.equal(out, text, `${chunks.length} chunks, ${openSpanAtEnd}`);
        }
      }
    });
  }
});

describe('texts that mention the tools without calling them pass unchanged', () => {
  it(`${CLEAN_CASES} generated texts, in every chunking and either openSpanAtEnd (seed ${SEED})`, () => {
    const r = rng(SEED ^ 0x9e3779b9);
    allCases(CLEAN_CASES, (n) => {
      const { tools, text } = generatedClean(r);
      for (const chunks of chunkings(text, SEED + 50_000 + n)) {
        for (const openSpanAtEnd of ['emit', 'drop']) {
          const { out, strips } = filtered(tools, chunks, { openSpanAtEnd });
          const where = `clean case ${n} (seed ${SEED}, ${chunks.length} chunks, ${openSpanAtEnd}): ${JSON.stringify(text)} tools ${JSON.stringify(tools)}`;
          assert.deepEqual(strips.map((s) => s.span), [], where);
          assert.equal(out, text, where);
        }
      }
    });
  });

  for (const [index, text] of HAND_WRITTEN.entries()) {
    it(`hand-written ${index}: ${JSON.stringify(text.slice(0, 50))}…`, () => {
      for (const chunks of chunkings(text, 60_000 + index)) {
        for (const openSpanAtEnd of ['emit', 'drop']) {
          const { out, strips } = filtered(REALISTIC, chunks, { openSpanAtEnd });
          assert.deepEqual(strips.map((s) => s.span), [], `${chunks.length} chunks, ${openSpanAtEnd}`);
          assert.equal(out, text, `${chunks.length} chunks, ${openSpanAtEnd}`);
        }
      }
    });
  }
});

describe('the output the same in every chunking, and nothing lost, on texts built against the reader (their cost: benchmark rows)', () => {
  // Each makes many tries read far and fail: elements that never close,
  // wrappers with no call, JSON that never ends, fences, inline code.
  const SHAPES = {
    'elements that never close': (n) => '<invoke name="get_weather"><city>'.repeat(n),
    'wrappers with no call': (n) => '<tool_call>'.repeat(n),
    'names with no arguments': (n) => '<tool_call>get_weather '.repeat(n),
    'call objects that never close': (n) => '{"name": "get_weather", "arguments": {"a": '.repeat(n),
    'lists that never close': (n) => '[get_weather('.repeat(n),
    'parameter tags that never close': (n) => '<function=get_weather><parameter=a>'.repeat(n),
    'fences': (n) => '```\n'.repeat(n),
    'inline code': (n) => '`<tool_call>get_weather{}`'.repeat(n),
    'arrow heads that never close': (n) => '[TOOL_CALL]{tool => "get_weather", args => {'.repeat(n),
  };
  const tools = ['get_weather', 'search'];
  const run = (text, chunk, openSpanAtEnd) => {
    const filter = new ScaffoldingFilter({ tools, openSpanAtEnd });
    let out = '';
    for (let at = 0; at < text.length; at += chunk) out += filter.feed(text.slice(at, at + chunk));
    out += filter.flush();
    return { out, spans: filter.strippedSpans };
  };
  // How their cost grows is a bench row (benchmark/bench.mjs, 'tool-aware
  // shapes'): a test never asserts a time.
  for (const [name, make] of Object.entries(SHAPES)) {
    it(name, () => {
      for (const openSpanAtEnd of ['emit', 'drop']) {
        const big = make(16_000);
        const whole = run(big, big.length, openSpanAtEnd);
        const cut = run(big, 7, openSpanAtEnd);
        assert.equal(cut.out, whole.out, `${openSpanAtEnd}: the same output in chunks of 7`);
        assert.deepEqual(cut.spans, whole.spans, `${openSpanAtEnd}: the same strips in chunks of 7`);
        assert.equal(whole.out.length + whole.spans.join('').length, big.length, 'nothing lost');
      }
    });
  }
});

describe('markup soup: nothing lost, and the same in every chunking', () => {
  // Random runs of the pieces leaks are made of, wrong order and all: the
  // filter must neither lose nor invent a unit, nor answer by where the
  // chunks were cut.
  const PIECES = ['<', '>', '</', '/>', '<|', '|>', '<｜', '｜>', '[', ']', '{', '}', '(', ')', '"', "'", '`', '```', '```json\n',
    ':', ',', '=', '=>', '\n', ' ', 'get_weather', 'search', 'functions.', 'to=functions.', 'default_api:', '[ARGS]', 'tool_call',
    'invoke name=', 'parameter', 'arg_key', 'arg_value', '"name": ', '"arguments": ', 'commentary', 'court', 'call:', '<escape>',
    '\u201c', '\u201d', 'é', '🙂', '\ud800', 'x', 'Paris', '1', 'true'];
  // The registry behind tool-aware detection is one token no soup holds, so
  // what is checked is the tool-aware stage's own (the default registry's
  // literal engine may, as the reference does, join text across a cut).
  const ALONE = [{ token: '\u0007never\u0007' }];
  it(`${CLEAN_CASES} soups (seed ${SEED})`, () => {
    const r = rng(SEED ^ 0x51ed);
    allCases(CLEAN_CASES, (n) => {
      const text = Array.from({ length: 5 + r.below(60) }, () => r.pick(PIECES)).join('');
      const tools = r.chance(0.5) ? ['get_weather', 'search'] : toolList(r);
      for (const openSpanAtEnd of ['emit', 'drop']) {
        const results = chunkings(text, SEED + 90_000 + n).map((chunks) => filtered(tools, chunks, { openSpanAtEnd, patterns: ALONE }));
        const where = `soup ${n} (seed ${SEED}, ${openSpanAtEnd}): ${JSON.stringify(text)}`;
        for (const { out, strips } of results) {
          assert.equal(out.length + strips.reduce((sum, s) => sum + s.span.length, 0), text.length, `nothing lost: ${where}`);
          assert.deepEqual([out, strips.map((s) => s.span)], [results[0].out, results[0].strips.map((s) => s.span)], `every chunking: ${where}`);
        }
      }
    });
  });
});

// ---------------------------------------------------------------------------
// Issue 30, kinds 4, 6 and 7: what a call leaves around itself (residue), the
// end of the stream, and calls to a tool that is not on offer. Each kind is
// generated and run in every chunking under the guards' default options
// (the offered tools and SCAFFOLD_SPECIAL_TOKENS, `openSpanAtEnd: 'emit'`)
// and under tool-aware detection alone with either end policy; each has
// generated counter-examples that must pass unchanged.

const KIND_CASES = 300;
/** A registry that matches nothing any case holds: tool-aware detection alone. */
const NOTHING = [{ token: '\u0007never\u0007' }];
/** The option sets a kind's case runs under. */
const OPTION_SETS = [
  { label: 'the guards\' defaults', options: { patterns: SCAFFOLD_SPECIAL_TOKENS } },
  { label: 'tools alone, emit', options: { patterns: NOTHING } },
  { label: 'tools alone, drop', options: { patterns: NOTHING, openSpanAtEnd: 'drop' } },
];

/**
 * Checks that `before + leak + after` comes out as `before + after` with
 * `leak` stripped whole, under every option set in every chunking, its
 * calls as `calls` (each `{ name, input }` or `{ name, rawInput }`, with
 * `offered: false` for a tool not on offer); `reasons` the strip reasons
 * allowed.
 */
function strippedWhole({ tools, before, leak, after, calls, reasons = ['match'] }, seed, label) {
  const text = before + leak + after;
  for (const { label: set, options } of OPTION_SETS) {
    for (const chunks of chunkings(text, seed)) {
      const { out, strips } = filtered(tools, chunks, options);
      const where = `${label}, ${set} (${chunks.length} chunks): ${JSON.stringify(text)} tools ${JSON.stringify(tools)}`;
      assert.deepEqual(strips.map((s) => s.span), [leak], `the leak, whole: ${where}`);
      assert.equal(out, before + after, `the prose around it: ${where}`);
      assert.equal(strips[0].pattern, -1, where);
      assert.ok(reasons.includes(strips[0].reason), `${strips[0].reason}: ${where}`);
      if (calls !== undefined) assert.deepEqual(strips[0].calls, calls, `its calls: ${where}`);
    }
  }
}

/** Checks that `text` passes unchanged, nothing stripped, under every option set in every chunking. */
function unchanged(tools, text, seed, label, sets = OPTION_SETS) {
  for (const { label: set, options } of sets) {
    for (const chunks of chunkings(text, seed)) {
      const { out, strips } = filtered(tools, chunks, options);
      const where = `${label}, ${set} (${chunks.length} chunks): ${JSON.stringify(text)} tools ${JSON.stringify(tools)}`;
      assert.deepEqual(strips.map((s) => s.span), [], where);
      assert.equal(out, text, where);
    }
  }
}

/** A strong wrapper (level 3) from the generator's: `{ open, close, lineStart }`. */
function strongWrapper(r) {
  for (;;) {
    const wrapper = outerWrapper(r);
    if (wrapper.level === 3) return wrapper;
  }
}

/** A name for a tool not on offer: an identifier that names no offered tool. */
function unofferedName(r, offered) {
  for (;;) {
    const name = toolName(r, { tagSafe: true });
    if (!offered.includes(name)) return name;
  }
}

/** Argument tags in Qwen3-Coder's dialect (`<parameter=KEY>`): `{ text, input, pairs }`. */
function keyedTags(r) {
  const keys = distinctKeys(r, 1 + r.below(3));
  const input = {};
  const pairs = keys.map((key) => {
    const { text, value } = tagValue(r);
    input[key] = value;
    return { key, text };
  });
  const text = pairs.map(({ key, text: value }) => `<parameter=${key}>\n${value}\n</parameter>`).join('\n');
  return { text, input, pairs };
}

/** A generated call to a tool not on offer: `{ leak, calls, lineStart }`. */
function unofferedLeak(r, offered) {
  const name = unofferedName(r, offered);
  const form = r.pick(['json', 'json', 'attr', 'equals', 'functions', 'ARGS']);
  note(`unoffered:${form}`);
  const called = (input) => [{ name, offered: false, input }];
  switch (form) {
    case 'json': {
      const wrapper = strongWrapper(r);
      const input = jsonObject(r);
      const value = jsonCall(r, name, input);
      const body = json(r, r.chance(0.2) ? { tool_calls: [value] } : value);
      return { leak: `${wrapper.open}${body}${wrapper.close}`, calls: called(input), lineStart: wrapper.lineStart };
    }
    case 'attr': {
      const wrapper = strongWrapper(r);
      const a = r.chance(0.5) ? args(r, 'json') : args(r, 'tags');
      const tag = r.pick(['invoke', 'function', 'tool', 'call', 'use_tool', '｜DSML｜invoke', 'fn']);
      const key = r.pick(['name', 'tool', 'tool_name', 'function']);
      const sp = r.pick(['', '\n']);
      const head = `<${tag} ${key}="${name}"${r.pick(['', ' id="c1"', ' index="0"'])}>`;
      return { leak: `${wrapper.open}${head}${sp}${a.text}${sp}</${tag}>${wrapper.close}`, calls: called(a.input), lineStart: wrapper.lineStart };
    }
    case 'equals': {
      // Needs no wrapper: `<tag=value>` is no well-formed XML or HTML.
      const wrapper = r.chance(0.5) ? strongWrapper(r) : { open: '', close: '' };
      const a = keyedTags(r);
      return { leak: `${wrapper.open}<function=${name}>\n${a.text}\n</function>${wrapper.close}`, calls: called(a.input), lineStart: wrapper.lineStart };
    }
    case 'functions': {
      const a = args(r, 'json');
      const gap = r.pick([' ', '', `<|${tokenWord(r)}|>`, ` <|${tokenWord(r)}|> `]);
      const open = `<|${tokenWord(r)}|>`;
      return { leak: `${open}functions.${name}:${r.below(4)}${gap}${a.text}<|${tokenWord(r)}|>`, calls: called(a.input) };
    }
    default: {
      const a = args(r, 'json');
      return { leak: `[TOOL_CALLS]${name}[ARGS]${a.text}`, calls: called(a.input) };
    }
  }
}

/** The same call's body where nothing says "a call" strongly enough, or where it is code or a definition. */
function unofferedClean(r, offered) {
  const name = unofferedName(r, offered);
  const input = jsonObject(r);
  const call = JSON.stringify({ name, arguments: input });
  const fenced = (info, body) => `\`\`\`${info}\n${body}\n\`\`\``;
  const shape = r.below(10);
  note(`unoffered clean:${shape}`);
  switch (shape) {
    case 0: return `Here is the call:\n${call}`;
    case 1: return `<invoke name="${name}"><parameter name="city">Paris</parameter></invoke>`;
    case 2: return `functions.${name}:0 ${JSON.stringify(input)} is how Kimi writes it.`;
    case 3: return `${name}[ARGS]${JSON.stringify(input)}`;
    case 4: return fenced(r.pick(['xml', 'json', '', 'text', 'python']), `<tool_call>\n${call}\n</tool_call>`);
    case 5: return `A leak looks like \`<tool_call>${call}</tool_call>\` in the answer.`;
    case 6: return `<tool_call>{"name": "${name}", "description": "Does a thing", "parameters": {"type": "object", "properties": {}}}</tool_call>`;
    case 7: return `{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function", "function": {"name": "${name}", "description": "d", "parameters": {"type": "object", "properties": {}}}}]}`;
    case 8: return `<tool_call>{"name": "${name}"}</tool_call> names a tool and calls nothing.`;
    default: return `<tool_call><${r.pick(['item', 'entry', 'note'])}>${name}</${r.pick(['item'])}></tool_call>`;
  }
}

describe('kind 7: a call to a tool not on offer is stripped, marked offered: false, in every chunking', () => {
  it(`${KIND_CASES} generated calls to made-up tools in prose (seed ${SEED})`, () => {
    const r = rng(SEED ^ 0x7007);
    allCases(KIND_CASES, (n) => {
      const tools = toolList(r);
      const { leak, calls, lineStart } = unofferedLeak(r, tools);
      const before = r.pick(PROSE) + (lineStart || r.chance(0.5) ? r.pick(['\n', '\n\n']) : ' ');
      const after = r.pick([' ', '\n', '\n\n']) + r.pick(AFTER);
      strippedWhole({ tools, before, leak, after, calls }, SEED + 110_000 + n, `unoffered case ${n} (seed ${SEED})`);
    });
  });

  it(`${KIND_CASES} generated texts that show such a call's body without calling are unchanged (seed ${SEED})`, () => {
    const r = rng(SEED ^ 0x7c1e);
    allCases(KIND_CASES, (n) => {
      const tools = toolList(r);
      const text = unofferedClean(r, tools);
      // (The guards' defaults also strip special tokens quoted as they
      // stand; these texts quote none.)
      unchanged(tools, text, SEED + 120_000 + n, `unoffered clean case ${n} (seed ${SEED})`);
    });
  });
});

/** Closers a call leaves, and empty wrappers: the residue a stripped call may have around it. */
const RESIDUE = ['</parameter>', '</function>', '</tool_call>', '</invoke>', '</｜DSML｜invoke>', '</arg_value>', '</TOOLCALL>',
  '<tool_calls>\n</tool_calls>', '<function_calls></function_calls>', '<｜DSML｜tool_calls></｜DSML｜tool_calls>'];

function residue(r) {
  const parts = Array.from({ length: 1 + r.below(3) }, () => r.pick(RESIDUE));
  return parts.join(r.pick(['\n', '', ' ']));
}

describe('kind 4: the residue of a call goes with it, in every chunking', () => {
  it(`${KIND_CASES} generated leaks with closers and empty wrappers before or after them (seed ${SEED})`, () => {
    const r = rng(SEED ^ 0x4004);
    allCases(KIND_CASES, (n) => {
      const generated = generatedLeak(r);
      const { tools, calls } = generated;
      let { leak } = generated;
      // Before a leak, residue goes only when a tag or token opens the leak.
      const where = leak.startsWith('<') && !generated.lineStart && r.chance(0.5) ? 'before' : 'after';
      note(`residue:${where}`);
      const sep = r.pick(['\n', '', ' ']);
      leak = where === 'before' ? `${residue(r)}${sep}${leak}` : `${leak}${sep}${residue(r)}`;
      const before = r.pick(PROSE) + (generated.lineStart || r.chance(0.5) ? r.pick(['\n', '\n\n']) : ' ');
      const after = r.pick([' ', '\n', '\n\n']) + r.pick(AFTER);
      strippedWhole({ tools, before, leak, after, calls: calls.map(({ name, input }) => ({ name, input })) }, SEED + 130_000 + n,
        `residue case ${n} (seed ${SEED})`);
    });
  });

  it(`${KIND_CASES} generated parameter tags whose head was lost, and calls whose closers never came (seed ${SEED})`, () => {
    const r = rng(SEED ^ 0x4d0d);
    allCases(KIND_CASES, (n) => {
      const tools = toolList(r);
      const before = r.pick(PROSE) + r.pick(['\n', '\n\n']);
      const a = keyedTags(r);
      const shape = r.pick(['orphan', 'blank line', 'wrapper closer', 'end']);
      note(`broken call:${shape}`);
      if (shape === 'orphan') {
        const leak = `${a.text}\n</function>${r.chance(0.6) ? '\n</tool_call>' : ''}`;
        strippedWhole({ tools, before, leak, after: `\n${r.pick(AFTER)}`, calls: [] }, SEED + 140_000 + n, `orphan case ${n} (seed ${SEED})`);
        return;
      }
      const name = r.pick(tools);
      const equals = r.chance(0.6);
      const head = equals ? `<function=${name}>` : `<invoke name="${name}">`;
      // Each pair loses its closer at random; the last always does.
      const pairs = a.pairs.map(({ key, text }, index) => {
        const open = equals ? `<parameter=${key}>` : `<parameter name="${key}">`;
        const closed = index < a.pairs.length - 1 && r.chance(0.5);
        return `${open}\n${text}${closed ? '\n</parameter>' : ''}`;
      });
      const body = `${head}\n${pairs.join('\n')}`;
      if (shape === 'end') {
        strippedWhole({ tools, before, leak: body, after: '', calls: [{ name, rawInput: body.slice(head.length) }] },
          SEED + 150_000 + n, `unclosed case ${n} at the end (seed ${SEED})`);
      } else if (shape === 'blank line') {
        strippedWhole({ tools, before, leak: body, after: `\n\n${r.pick(AFTER)}`, calls: [{ name, input: a.input }] },
          SEED + 160_000 + n, `unclosed case ${n} before a blank line (seed ${SEED})`);
      } else {
        const wrapper = r.pick(['tool_call', 'function_calls', 'minimax:tool_call']);
        strippedWhole({ tools, before, leak: `<${wrapper}>\n${body}\n</${wrapper}>`, after: `\n${r.pick(AFTER)}`, calls: [{ name, input: a.input }] },
          SEED + 170_000 + n, `unclosed case ${n} in a wrapper (seed ${SEED})`);
      }
    });
  });

  it(`${KIND_CASES} generated documents with a call's closers and parameter tags of their own are unchanged (seed ${SEED})`, () => {
    const r = rng(SEED ^ 0x4c1e);
    const DOCS = [
      (name) => `<config>\n  <parameter name="${r.pick(KEYS)}">${r.below(99)}</parameter>\n  <parameter name="mode">fast</parameter>\n</config>`,
      (name) => `<funcsynopsis><funcdef>int <function>${name}</function></funcdef><paramdef>int <parameter>fd</parameter></paramdef></funcsynopsis>`,
      (name) => `<process>\n  <invoke name="${name}" partnerLink="svc" operation="op">\n    <parameter name="a">v</parameter>\n  </invoke>\n</process>`,
      () => `Close each argument with </parameter> and the call with </function>, then </tool_call>.`,
      () => `<tool_calls>\n</tool_calls>\nis an empty list of calls.`,
      () => `<Route path="/tools" element={<ToolCalls calls={[]} />} />\n<Parameter name="city" value="Paris" />`,
      () => `<parameter name="city">Paris</parameter>\n</function>\n</tool_call>`,
      () => `<div class="tool_call">\n<p>Nothing here</p>\n</div>`,
      (name) => `\`\`\`xml\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>\n<function=${name}>\n<parameter=x>\n1\n\`\`\``,
      () => `Qwen3-Coder writes \`<parameter=city>Paris</parameter></function>\` inside a call.`,
    ];
    allCases(KIND_CASES, (n) => {
      const tools = toolList(r);
      const text = r.pick(DOCS)(r.pick(tools));
      unchanged(tools, text, SEED + 180_000 + n, `residue clean case ${n} (seed ${SEED})`);
    });
  });
});

/** A special token as a family writes it, ASCII or full-width. */
function specialToken(r) {
  if (r.chance(0.3)) return `<｜${r.pick(TOKEN_WORDS)}▁${r.pick(TOKEN_WORDS)}▁${r.pick(['begin', 'end'])}｜>`;
  return `<|${tokenWord(r)}|>`;
}

describe('kind 6: the end of the stream, the same under either openSpanAtEnd and in every chunking', () => {
  it(`${KIND_CASES} generated answers that end in a special token or a call to an offered tool the end cut off (seed ${SEED})`, () => {
    const r = rng(SEED ^ 0x6006);
    allCases(KIND_CASES, (n) => {
      const tools = toolList(r);
      const before = r.pick(PROSE) + r.pick([' ', '\n', '\n\n']);
      const shape = r.pick(['token', 'token', 'opener', 'tag call', 'json call', 'functions call']);
      note(`cut off:${shape}`);
      if (shape === 'opener') {
        // A call's opening tag alone at a line's start, whole or cut to four units or more.
        const opener = r.pick(['tool_call', 'tool_calls', 'function_calls', 'function', 'TOOLCALL', 'tool_use', 'minimax:tool_call', 'seed:tool_call']);
        const tag = r.chance(0.5) ? `<${opener}>${r.pick(['', '\n', ' \n'])}` : `<${opener.slice(0, 4 + r.below(opener.length - 3))}`;
        const lead = r.pick(PROSE) + r.pick(['\n', '\n\n']) + r.pick(['', ' ', '  ']);
        strippedWhole({ tools, before: lead, leak: tag, after: '', calls: [], reasons: ['unclosed-at-end'] }, SEED + 195_000 + n,
          `cut-off opener case ${n} (seed ${SEED})`);
        return;
      }
      if (shape === 'token') {
        const token = specialToken(r);
        // `<|` or `<｜`, then at least two units of its word; never the closing `>`.
        const leak = token.slice(0, 4 + r.below(token.length - 4));
        strippedWhole({ tools, before, leak, after: '', calls: [], reasons: ['unclosed-at-end'] }, SEED + 190_000 + n,
          `cut-off token case ${n} (seed ${SEED})`);
        return;
      }
      const name = r.pick(tools);
      let whole;
      let named;
      let lineStart = false;
      if (shape === 'tag call') {
        const wrapper = r.chance(0.5) ? strongWrapper(r) : { open: '', close: '' };
        lineStart = Boolean(wrapper.lineStart);
        const head = `${wrapper.open}<invoke name="${name}">`;
        whole = `${head}\n<parameter name="${r.pick(KEYS)}">${r.pick(['Paris', '42', 'ls -la'])}</parameter>\n</invoke>${wrapper.close}`;
        named = head.length;
      } else if (shape === 'json call') {
        const wrapper = r.pick([{ open: '<tool_call>\n', close: '\n</tool_call>' }, { open: '<|python_tag|>', close: '<|eom_id|>' }, { open: '[TOOL_CALLS][', close: ']' }]);
        const head = `${wrapper.open}{"name": ${JSON.stringify(name)}`;
        whole = `${head}, "arguments": ${JSON.stringify(jsonObject(r))}}${wrapper.close}`;
        named = head.length;
      } else {
        const head = `<|tool_call_begin|>functions.${name}`;
        whole = `${head}:0<|tool_call_argument_begin|>${JSON.stringify(jsonObject(r))}<|tool_call_end|>`;
        named = head.length;
      }
      // (Space the end left after the call is the answer's.)
      const leak = whole.slice(0, named + r.below(whole.length - named)).trimEnd();
      const prose = lineStart ? `${r.pick(PROSE)}\n` : before;
      // (A cut right after a whole call is the call, and a strip like any other.)
      strippedWhole({ tools, before: prose, leak, after: '', reasons: ['unclosed-at-end', 'match'] }, SEED + 200_000 + n,
        `cut-off call case ${n} (seed ${SEED})`);
      for (const { label, options } of OPTION_SETS) {
        const { strips } = filtered(tools, [prose + leak], options);
        for (const call of strips[0].calls) assert.equal(call.name, name, `${label}: ${JSON.stringify(before + leak)}`);
      }
    });
  });

  it(`${KIND_CASES} generated answers cut at any point that hold no call are unchanged (seed ${SEED})`, () => {
    const r = rng(SEED ^ 0x6c1e);
    const ENDINGS = ['', ' <', ' <|', ' a <| b', ' $a <| b$', ' x <|y', ' <div', ' <div class="', ' `<|tool_call', ' <3', ' |<', ' <=', ' <!--',
      // A call's opening tag that does not begin its line, is code, is no call's wrapper, or has more after it.
      ' <tool_call>', '\n    <tool_call>', '\n`<tool_call>`', '\n<toolbar>', '\n<fun', '\n<function_name>', '\n<tool_call/>', '\n<tool_call> then'];
    allCases(KIND_CASES, (n) => {
      const tools = toolList(r);
      const name = r.pick(tools);
      const prose = [
        `${r.pick(PROSE)} ${r.pick(AFTER)}`,
        `You can call ${name} to fetch the data; ${name} takes a city.`,
        `The function ${ident(name)}(city) returns a dict.`,
        `Ask ${name} for the forecast, or use ${name}`,
        `{"enabled": true, "tool": "${name}", "timeout_ms": 3000}`,
      ][r.below(5)];
      // Cut anywhere in the prose (mid-word included), then perhaps an ending that reads like a token's start but is none.
      const text = prose.slice(0, 1 + r.below(prose.length)) + r.pick(ENDINGS);
      unchanged(tools, text, SEED + 210_000 + n, `cut clean case ${n} (seed ${SEED})`);
    });
  });
});
