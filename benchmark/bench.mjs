// `npm run bench`: the addon against plain JavaScript baselines, in one
// process. Each workload runs the baseline and the addon alternately (the
// order flips every round, so drift on a shared machine hits both), at
// least five times each, and reports the medians and baseline/addon (above
// 1: the addon is faster). Before timing, each workload checks once that
// both sides give the same answer, so the two cannot be measuring different
// work. Usage: node benchmark/bench.mjs [--rounds N] [name-filter...]
import { createRequire } from 'node:module';
import { ReferenceFilter } from './baseline-filter.mjs';
import * as baseline from './baseline-empty-lookup.mjs';
import * as checks from './baseline-checks.mjs';
import * as claims from './baseline-evidence.mjs';
import {
  absent, answerText, choiceFrame, choiceRun, chunked, emptyCall, idFrom, producedRun, rng, toolResult, evidenceRun,
} from './workloads.mjs';

const require = createRequire(import.meta.url);
const addon = require('seamguard');

const argv = process.argv.slice(2);
const roundsAt = argv.indexOf('--rounds');
const ROUNDS = roundsAt >= 0 ? Math.max(5, Number(argv.splice(roundsAt, 2)[1])) : 7;
const only = argv;

// ---- the stream seam --------------------------------------------------------

function streamWith(Filter, chunks, options) {
  const filter = new Filter(options);
  let out = '';
  for (const chunk of chunks) out += filter.feed(chunk);
  return out + filter.flush();
}

function filterWorkload(name, target, chunks, { repeat = 1 } = {}) {
  const run = (Filter) => () => {
    let out;
    for (let i = 0; i < repeat; i++) out = streamWith(Filter, chunks);
    return out;
  };
  return {
    name, target,
    baseline: run(ReferenceFilter),
    addon: run(addon.ScaffoldingFilter),
    same: (a, b) => a === b,
  };
}

const ANSWER = answerText(200 * 1024, 11);
// A model that leaks one large tool call: its JSON payload is the open span.
const SPAN = `Saving it now. <|tool_call_start|>[write_file(path='devices.jsonl', content='${toolResult(12, 100 * 1024).text}')]<|tool_call_end|> Done.`;
const SPAN_8X = `Saving it now. <|tool_call_start|>[write_file(path='devices.jsonl', content='${toolResult(12, 800 * 1024).text}')]<|tool_call_end|> Done.`;

/**
 * Linear growth: the addon on 8× the input must take under 16× the time of
 * the 1× input. Both sides here are the addon: the "baseline" runs the
 * small text 16 times, the other side the large text once, so a ratio of 1
 * or more means 8× the input took at most 16× the time.
 */
function growth(name, small, large, options, expected) {
  const smallChunks = chunked(small, 1, 8, 3);
  const largeChunks = chunked(large, 1, 8, 3);
  return {
    name,
    target: 1,
    baseline: () => {
      let out;
      for (let i = 0; i < 16; i++) out = streamWith(addon.ScaffoldingFilter, smallChunks, options);
      return out;
    },
    addon: () => streamWith(addon.ScaffoldingFilter, largeChunks, options),
    same: (a, b) => a === expected && b === a,
  };
}

const payload = (size) => toolResult(12, size).text;
const growthRows = () => [
  growth('filter: open span growth, 16 x 100 KB against 1 x 800 KB (addon both sides)',
    SPAN, SPAN_8X, undefined, 'Saving it now.  Done.'),
  // A Mistral call cut off inside its JSON value: held whole, then dropped.
  growth('filter: unclosed JSON value growth, mistral, 16 x 100 KB against 1 x 800 KB (addon both sides)',
    `Calling it. [TOOL_CALLS][{"name":"write_file","arguments":{"content":${JSON.stringify(payload(100 * 1024))}`,
    `Calling it. [TOOL_CALLS][{"name":"write_file","arguments":{"content":${JSON.stringify(payload(800 * 1024))}`,
    { patterns: addon.SCAFFOLD_PRESETS.mistral, openSpanAtEnd: 'drop' }, 'Calling it. '),
  // A naked Qwen3-Coder block, whose end is a regular expression: one long
  // match through a DFA.
  growth('filter: long regular-expression match growth, qwen3-coder, 16 x 100 KB against 1 x 800 KB (addon both sides)',
    `Writing. <function=write_file><parameter=content>${payload(100 * 1024)}</parameter></function> Done.`,
    `Writing. <function=write_file><parameter=content>${payload(800 * 1024)}</parameter></function> Done.`,
    { patterns: addon.SCAFFOLD_PRESETS['qwen3-coder'] }, 'Writing.  Done.'),
];

// Tool-aware detection reads what the model was offered: twenty tools, as a
// real agent's list, with names as varied as real ones.
const TOOLS = [
  'get_weather', 'search', 'read_file', 'write_file', 'run_shell', 'list_dir', 'get_time', 'send_email',
  'create_issue', 'fetch_url', 'query_db', 'translate', 'summarize', 'calculate', 'lookup_user', 'book_flight',
  'get_stock_price', 'set_reminder', 'play_music', 'open_app',
];
/** The 200 KB answer with its markup gone: what a clean answer costs. */
const CLEAN = addon.ScaffoldingFilter.strip(ANSWER, { patterns: Object.values(addon.SCAFFOLD_PRESETS).flat() });
const toolAwareRows = () => {
  const chunks = chunked(CLEAN, 64 * 1024, 64 * 1024, 2);
  const patterns = new addon.ScaffoldRegistry(addon.SCAFFOLD_SPECIAL_TOKENS);
  const repeat = (options) => () => {
    let out;
    for (let i = 0; i < 20; i++) out = streamWith(addon.ScaffoldingFilter, chunks, options);
    return out;
  };
  const call = (size) =>
    `Saving it. <tool_call>{"name": "write_file", "arguments": {"path": "devices.jsonl", "content": ${JSON.stringify(payload(size))}}}</tool_call> Done.`;
  return [
    {
      // The target is the issue's: at most 5 times the default filter.
      name: 'filter: clean 200 KB answer, 64 KB chunks, 20 tools + special tokens (baseline: the default filter, addon both sides)',
      target: 0.2,
      baseline: repeat(undefined),
      addon: repeat({ tools: TOOLS, patterns }),
      same: (a, b) => a === CLEAN && b === CLEAN,
    },
    (() => {
      // A server's stream seam: a model call offers 20 tools, and each text
      // part of the answer opens a filter. The baseline passes the same
      // options object to every filter (each compiles them, the tool list
      // included); the addon side compiles them once into a FilterPlan, as
      // the adapters do, and opens every filter from it. Each stream is fed
      // one short clean sentence and flushed. 1,000 streams, so a side's ms
      // is its µs a stream.
      const options = { tools: TOOLS, patterns };
      const plan = new addon.FilterPlan(options);
      const text = 'Sure, the weather in Paris is sunny today.';
      const streams = (from) => () => {
        let out = '';
        for (let i = 0; i < 1000; i++) {
          const filter = new addon.ScaffoldingFilter(from);
          out = filter.feed(text) + filter.flush();
        }
        return out;
      };
      return {
        name: 'filter: stream setup with 20 tools through JavaScript, 1,000 streams (ms = µs a stream; baseline: the options each time, addon: one FilterPlan)',
        target: 5,
        baseline: streams(options),
        addon: streams(plan),
        same: (a, b) => a === text && b === a,
      };
    })(),
    growth('filter: tool-aware leaked call growth, 16 x 100 KB against 1 x 800 KB (addon both sides)',
      call(100 * 1024), call(800 * 1024), { tools: TOOLS, patterns }, 'Saving it.  Done.'),
    (() => {
      // A clean answer passes whole: 8 times the text, at most 16 times the time.
      const small = CLEAN.slice(0, 25 * 1024);
      const row = growth('filter: tool-aware clean answer growth, 16 x 25 KB against 1 x 200 KB (addon both sides)',
        small, small.repeat(8), { tools: TOOLS, patterns }, small);
      return { ...row, same: (a, b) => a === small && b === small.repeat(8) };
    })(),
  ];
};

// Texts shaped to make tool-aware detection read far and fail (elements,
// wrappers, calls and fences that never close): 8 times the text in at most
// 16 times the time, the whole text in one feed.
const TOOL_AWARE_SHAPES = {
  'elements that never close': (n) => '<invoke name="get_weather"><city>'.repeat(n),
  'names with no arguments': (n) => '<tool_call>get_weather '.repeat(n),
  'call objects that never close': (n) => '{"name": "get_weather", "arguments": {"a": '.repeat(n),
  'lists that never close': (n) => '[get_weather('.repeat(n),
  'fences': (n) => '```\n'.repeat(n),
};
const toolAwareShapeRows = () => Object.entries(TOOL_AWARE_SHAPES).map(([shape, make]) => {
  const options = { tools: ['get_weather', 'search'], openSpanAtEnd: 'drop' };
  const whole = (text) => addon.ScaffoldingFilter.strip(text, options);
  const small = make(2000);
  const large = make(16_000);
  return {
    name: `filter: tool-aware shapes, ${shape}, 16 x ${small.length} against 1 x ${large.length} units (addon both sides)`,
    target: 1,
    baseline: () => {
      let out;
      for (let i = 0; i < 16; i++) out = whole(small);
      return out;
    },
    addon: () => whole(large),
    same: (a, b) => a === whole(small) && b === whole(large),
  };
});

// Linear growth on the shapes of issue 28, which once made the general
// engine's work grow with the square or the cube of the text: a span left
// open while other patterns complete inside it, openers that keep threads
// alive, closers a regular expression keeps extending, JSON calls nested
// line by line. Each shape is repeated n times for the three registries
// the issue names, at 1x, 4x and 16x, fed in 64-unit pieces; each row runs
// the smaller text 5 times against the text 4 times as long once, so a
// ratio of 1 or more means 4x the input took at most 5x the time.
// src/scaffolding/growth.rs counts the work on the same shapes.
const SHAPE_REGISTRIES = {
  'special tokens + 1 tool': { patterns: addon.SCAFFOLD_SPECIAL_TOKENS, tools: ['get_weather'] },
  'every preset': { patterns: Object.values(addon.SCAFFOLD_PRESETS).flat() },
  'two spans + the second end': {
    patterns: [{ start: '<a>', end: '</a>' }, { start: '<b>', end: '</b>' }, { token: '</b>' }],
  },
};
// The reported shape: LFM2's span left open, a Hermes closer after it.
const reported = (n) => '<|tool_call_start|></tool_call>'.repeat(n);
// [shape, its text for n, n at 1x]; the unclosed openers reach a million
// at 16x.
const GROWTH_SHAPES = {
  'special tokens + 1 tool': [
    ['the reported shape', reported, 4000],
    ["an opener and another span's closer", (n) => '<|tool_call_start|><|python_end|>'.repeat(n), 4000],
    ["two spans' openers alternating", (n) => '<|tool_call_start|><|python_start|>'.repeat(n), 4000],
    ['nested openers', (n) => '<|python_tag|>[TOOL_CALLS]['.repeat(n) + ']'.repeat(n), 4000],
    ['call objects that never close', (n) => '{"name": "get_weather", "arguments": {"a": '.repeat(n), 2000],
    ['a million unclosed openers', (n) => '<|tool_call>'.repeat(n), 62_500],
  ],
  'every preset': [
    ['the reported shape', reported, 2000],
    ["an opener and another span's closer", (n) => '<tool_call><|python_end|>'.repeat(n), 2000],
    ["two spans' openers alternating", (n) => '<tool_call><|tool_call_start|>'.repeat(n), 2000],
    ['nested openers', (n) => '<tool_call><|python_start|>'.repeat(n) + '</tool_call><|python_end|>'.repeat(n), 2000],
    ['closers a regular expression keeps extending', (n) => '</｜DSML｜invoke> '.repeat(n), 2000],
    ['JSON calls nested line by line, then closed', (n) => '[\n'.repeat(n) + ']\n'.repeat(n), 8000],
    ['a million unclosed openers', (n) => '<tool_call>'.repeat(n), 62_500],
  ],
  'two spans + the second end': [
    ['the reported shape', reported, 4000],
    ["an opener and another span's closer", (n) => '<a></b>'.repeat(n), 8000],
    ["two spans' openers alternating", (n) => '<a><b>'.repeat(n), 8000],
    ['nested openers', (n) => '<a><b>'.repeat(n) + '</b></a>'.repeat(n), 8000],
    ['a million unclosed openers', (n) => '<a>'.repeat(n), 62_500],
  ],
};
const inPieces = (text) => Array.from({ length: Math.ceil(text.length / 64) }, (_, i) => text.slice(64 * i, 64 * i + 64));
const shapeGrowthRows = () => Object.entries(GROWTH_SHAPES).flatMap(([registry, shapes]) => {
  const options = { ...SHAPE_REGISTRIES[registry], patterns: new addon.ScaffoldRegistry(SHAPE_REGISTRIES[registry].patterns) };
  const run = (pieces) => streamWith(addon.ScaffoldingFilter, pieces, options);
  return shapes.flatMap(([shape, make, n]) => [[1, 4], [4, 16]].map(([from, to]) => {
    // The texts run to millions of units: made when the row first runs,
    // with what each side gave then, which it must give again.
    let texts;
    const made = () => {
      if (texts === undefined) {
        const [small, large] = [inPieces(make(n * from)), inPieces(make(n * to))];
        texts = { small, large, expected: [run(small), run(large)] };
      }
      return texts;
    };
    const units = (scale) => (make(1).length * n * scale).toLocaleString('en-US');
    return {
      name: `filter growth, ${registry}, ${shape}: 5 × ${units(from)} against 1 × ${units(to)} units (${from}x, ${to}x; addon both sides)`,
      target: 1,
      baseline: () => {
        let out;
        for (let i = 0; i < 5; i++) out = run(made().small);
        return out;
      },
      addon: () => run(made().large),
      same: (a, b) => a === made().expected[0] && b === made().expected[1],
    };
  }));
});

const ANGLES = Array.from({ length: 25 * 1024 }, (_, i) => `ab${'cdefgh'[i % 6]}<`).join('');

const filterWorkloads = [
  filterWorkload('filter: 200 KB answer, 1-6 unit chunks', 1.0, chunked(ANSWER, 1, 6, 1)),
  filterWorkload('filter: 200 KB answer, 64 KB chunks', 3, chunked(ANSWER, 64 * 1024, 64 * 1024, 2), { repeat: 20 }),
  filterWorkload('filter: 100 KB open span, 1-8 unit chunks', 20, chunked(SPAN, 1, 8, 3)),
  filterWorkload("filter: '<' every 4th unit, 1-4 unit chunks", 0.33, chunked(ANGLES, 1, 4, 4)),
  // A batch job over stored texts: a filter per text, made, fed the text
  // whole and flushed.
  (() => {
    const texts = Array.from({ length: 1000 }, (_, i) => (i % 4 === 0
      ? `Answer ${i}: sure.<|tool_call|>[f(x=${i})]<|tool_call_start|>[read(path='${i}')]<|tool_call_end|> done`
      : `Answer ${i}: plain prose with nothing to strip, number ${i * 7}.`));
    const run = (Filter) => () => {
      const out = [];
      for (let i = 0; i < 20_000; i++) {
        const filter = new Filter();
        out.push(filter.feed(texts[i % 1000]) + filter.flush());
      }
      return out.join('\n');
    };
    return {
      name: 'filter: a filter per stored text, 20,000 short texts (1 in 4 with markup), new + feed + flush',
      target: 1,
      baseline: run(ReferenceFilter),
      addon: run(addon.ScaffoldingFilter),
      same: (a, b) => a === b,
    };
  })(),
  // What catching every known format costs a clean answer: the addon with
  // every preset at once against the reference's three patterns in
  // JavaScript.
  {
    ...filterWorkload('filter: 200 KB answer, 64 KB chunks, every preset at once (baseline: the reference, 3 patterns)', 1,
      chunked(ANSWER, 64 * 1024, 64 * 1024, 2), { repeat: 4 }),
    // Compiled once, as a server would (a ScaffoldRegistry), outside the
    // timed part; each stream still builds its own filter.
    addon: (() => {
      const patterns = new addon.ScaffoldRegistry(Object.values(addon.SCAFFOLD_PRESETS).flat());
      const chunks = chunked(ANSWER, 64 * 1024, 64 * 1024, 2);
      return () => {
        let out;
        for (let i = 0; i < 4; i++) out = streamWith(addon.ScaffoldingFilter, chunks, { patterns });
        return out;
      };
    })(),
  },
];

// ---- the write seam ---------------------------------------------------------

/** What must agree between the two sides: disposition and every join. */
const summary = (encounters) => encounters.map((e) => [
  e.disposition, e.findings.length,
  ...e.findings.map((f) => `${f.predicate}=${f.witnesses[0].value}@${f.subjects[1].id}`),
]);
const sameSummary = (a, b) => JSON.stringify(summary(a)) === JSON.stringify(summary(b));

function statelessWorkload(name, target, produced, calls, { repeat = 1 } = {}) {
  const results = produced.map(({ toolName, text }) => ({ toolName, text }));
  const run = (emptyLookupOf) => () => {
    const encounters = [];
    for (let r = 0; r < repeat; r++) {
      for (let i = 0; i < calls.length; i++) encounters[i] = emptyLookupOf(calls[i], results, i);
    }
    return encounters;
  };
  return { name, target, baseline: run(baseline.emptyLookupOf), addon: run(addon.emptyLookupOf), same: sameSummary };
}

/** Armed calls with `args(i)` over `produced`, cycling through a few shapes. */
const callsOf = (count, args) => Array.from({ length: count }, (_, i) => emptyCall(i, args(i)));

const SMALL = producedRun(4, 2 * 1024, 100);
const MEDIUM = producedRun(10, 8 * 1024, 200);
const LARGE = producedRun(50, 200 * 1024, 300);

const emptyLookupWorkloads = [
  statelessWorkload('empty-lookup: 4 results x 2 KB, 2 args, 2,000 calls', 1.0, SMALL,
    callsOf(2000, (i) => ({ wwpn: idFrom(SMALL, 3 - (i % 2) * 2, i), note: absent(i) }))),
  statelessWorkload('empty-lookup: 10 results x 8 KB, 3 args, 300 calls', 2.5, MEDIUM,
    callsOf(300, (i) => ({ wwpn: idFrom(MEDIUM, 9 - (i % 3), i), filter: { host: idFrom(MEDIUM, i % 10, i + 1) }, query: absent(i) }))),
  statelessWorkload('empty-lookup: 50 results x 200 KB, 5 args', 4, LARGE,
    callsOf(3, (i) => ({
      wwpn: idFrom(LARGE, 49 - i, i), hosts: [idFrom(LARGE, 10 * i, i + 1), absent(i)], query: absent(i + 100), limit: '25',
    }))),
  statelessWorkload('empty-lookup: non-empty reading (early return), 20,000 calls', 0.5, SMALL,
    Array.from({ length: 20000 }, (_, i) => ({ ...emptyCall(i, { wwpn: idFrom(SMALL, 0, i) }), reading: { shape: 'rowset', empty: false, rows: 3 } }))),
];

// A run: results are served one at a time, and after each one an armed call
// looks up an id from the result just served, an id from an earlier result
// and a value no result carries.
const RUN = producedRun(40, 100 * 1024, 400);
const runCalls = RUN.map((_, i) => {
  const r = rng(500 + i);
  return emptyCall(i, { wwpn: idFrom(RUN, i, i), host: idFrom(RUN, r.below(i + 1), i + 1), query: absent(i) });
});

function runBaseline() {
  const produced = [];
  return RUN.map(({ toolName, text }, i) => {
    produced.push({ toolName, text });
    return baseline.emptyLookupOf(runCalls[i], produced, i);
  });
}

function runAddon() {
  if (addon.ProducedCorpus === undefined) {
    const produced = [];
    return RUN.map(({ toolName, text }, i) => {
      produced.push({ toolName, text });
      return addon.emptyLookupOf(runCalls[i], produced, i);
    });
  }
  const corpus = new addon.ProducedCorpus();
  const encounters = RUN.map(({ toolName, text }, i) => {
    corpus.push({ toolName, text });
    return corpus.emptyLookupOf(runCalls[i], i);
  });
  // The run is over: its owner clears the corpus, as docs/checks.md asks.
  if (typeof corpus.clear === 'function') corpus.clear();
  return encounters;
}

const runWorkload = {
  name: 'run: 40 results x 100 KB served one by one, a 3-arg call after each (ProducedCorpus)',
  target: 8, baseline: runBaseline, addon: runAddon, same: sameSummary,
};

// ---- the choice seam --------------------------------------------------------

/**
 * What must agree between the two sides, answer by answer: the disposition
 * (when there is one), the number of findings, each finding's tool, path,
 * value and state (witness 2 is fixed data), and every excusal.
 */
const verdicts = (answers) => answers.map((answer) => [
  answer.disposition ?? null, answer.findings.length,
  ...answer.findings.map((f) => [f.subjects[0].id, f.predicate, f.witnesses[0].value, f.witnesses[1].value]),
  answer.externalGroundings.map((g) => [g.toolName, g.toolCallId, g.path, g.value, g.source]),
]);
const sameVerdicts = (a, b) => a.length === b.length && JSON.stringify(verdicts(a)) === JSON.stringify(verdicts(b));

/** Why a row of the choice seam cannot run against this build, if it cannot. */
const missing = (...names) => {
  const gone = names.filter((name) => typeof addon[name] !== 'function');
  return gone.length > 0 ? `the addon has no ${gone.join(' or ')} yet` : undefined;
};

// A run of 200 messages under a window of 40: after every tool result the
// model answers with one armed call. The baseline is the framework's loop,
// which rebuilds (and lowers) the frame from its window for every response;
// the addon pushes each message once into a RunCorpus and evicts as the
// window slides.
const RUN_200 = choiceRun();

function runCorpusLoop({ systemPrompt, messages, calls, window }) {
  const run = new addon.RunCorpus();
  const inWindow = [];
  const answers = [];
  for (let i = 0; i < messages.length; i++) {
    const { role, content, toolName } = messages[i];
    inWindow.push(run.push(role === 'tool' ? { role, text: content, toolName } : { role, text: content }));
    if (inWindow.length > window) run.evict([inWindow.shift()]);
    const call = calls[i];
    if (call !== undefined) answers.push(run.unsupportedArgumentsOf([call], { systemPrompt }, i));
  }
  run.clear();
  return answers;
}

const runCorpusWorkload = {
  name: 'run, 200 messages, window 40, RunCorpus',
  target: 10,
  skip: missing('RunCorpus') ?? (typeof addon.RunCorpus.prototype.unsupportedArgumentsOf === 'function'
    ? undefined : 'the addon\'s RunCorpus has no unsupportedArgumentsOf yet'),
  baseline: () => checks.frameworkRun(RUN_200),
  addon: () => runCorpusLoop(RUN_200),
  same: sameVerdicts,
};

// One request's frame (a system prompt and 19 messages) and the five armed
// calls of one response to it, through the stateless function.
const FRAME_20 = choiceFrame();
const FRAME_REPEAT = 50;
const statelessChoice = (unsupportedArgumentsOf) => () => {
  let answer;
  for (let i = 0; i < FRAME_REPEAT; i++) answer = unsupportedArgumentsOf(FRAME_20.calls, FRAME_20.corpus, i);
  return [answer];
};

const frameWorkload = {
  name: 'unsupportedArgumentsOf, 20-message frame',
  target: 1.0,
  skip: missing('unsupportedArgumentsOf'),
  baseline: statelessChoice(checks.unsupportedArgumentsOf),
  addon: statelessChoice((...args) => addon.unsupportedArgumentsOf(...args)),
  same: sameVerdicts,
};

const choiceWorkloads = [runCorpusWorkload, frameWorkload];

// ---- measuring --------------------------------------------------------------

/** Wall time of `fn`, in ms. */
function time(fn) {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (samples) => {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

function measure({ name, baseline: base, addon: ours, same }) {
  if (!same(base(), ours())) throw new Error(`${name}: the baseline and the addon disagree`);
  const samples = { baseline: [], addon: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? ['addon', 'baseline'] : ['baseline', 'addon'];
    for (const side of order) samples[side].push(time(side === 'addon' ? ours : base));
  }
  return { baseline: median(samples.baseline), addon: median(samples.addon) };
}

// ---- the claim seam ------------------------------------------------------------

// A 200 KB answer judged at step 30 and at step 300 of a run whose tool
// results are 2-20 KB of JSON. The baseline does at each judgement what
// agentfootprint's gate does: walk the history's results, build the index,
// read the answer, look its values up. The addon's corpus was pushed each
// message once, as the run went (outside the timing); a judgement reads
// the answer and asks the index.
const EVIDENCE_RUN = evidenceRun();
const historyAt = (step) => EVIDENCE_RUN.messages.slice(0, 2 + 2 * step);
const corpusAt = (step) => {
  const run = new addon.RunCorpus();
  for (const { role, content, toolName } of historyAt(step)) {
    run.push(role === 'tool' ? { role, text: content, toolName } : { role, text: content });
  }
  return run;
};
const unsupportedOf = (judgement) => judgement.unsupported.map((v) => v.value);
const sameUnsupported = (a, b) => JSON.stringify(unsupportedOf(a)) === JSON.stringify(unsupportedOf(b));
const noEvidenceOf = missing('RunCorpus') ?? (typeof addon.RunCorpus.prototype.evidenceOf === 'function'
  ? undefined : 'the addon\'s RunCorpus has no evidenceOf yet');
const evidenceRows = () => {
  if (noEvidenceOf !== undefined) {
    return ['at step 30', 'at step 300', 'growth'].map((at) => ({ name: `evidence: 200 KB answer, ${at}`, target: 10, skip: noEvidenceOf }));
  }
  const [at30, at300] = [corpusAt(30), corpusAt(300)];
  const judge = (run, step) => () => run.evidenceOf(EVIDENCE_RUN.answer, undefined, step);
  return [
    { name: 'evidence: 200 KB answer at step 30, 2-20 KB JSON results (baseline: the index rebuilt each judgement)', target: 10,
      baseline: () => claims.evidenceOf(historyAt(30), EVIDENCE_RUN.answer), addon: judge(at30, 30), same: sameUnsupported },
    { name: 'evidence: 200 KB answer at step 300, 2-20 KB JSON results (baseline: the index rebuilt each judgement)', target: 10,
      baseline: () => claims.evidenceOf(historyAt(300), EVIDENCE_RUN.answer), addon: judge(at300, 300), same: sameUnsupported },
    // Both sides the addon: a ratio of 0.67 or more means step 300 took at most 1.5 times step 30.
    { name: 'evidence: judging at step 300 against step 30 (addon both sides; 0.67 = 1.5x)', target: 0.67,
      baseline: judge(at30, 30), addon: judge(at300, 300), same: sameUnsupported },
  ];
};

// The growth rows go last, so that their 800 KB inputs do not change the
// heap the other rows run in.
const workloads = [...filterWorkloads, ...toolAwareRows(), ...toolAwareShapeRows(), ...emptyLookupWorkloads, runWorkload, ...choiceWorkloads, ...evidenceRows(), ...growthRows(), ...shapeGrowthRows()]
  .filter((w) => only.length === 0 || only.some((word) => w.name.includes(word)));

const ms = (value) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));
console.log(`Medians of ${ROUNDS} alternating rounds each; ratio = baseline / addon (above 1: the addon is faster).\n`);
console.log('| workload | baseline ms | addon ms | ratio | target | |');
console.log('| --- | ---: | ---: | ---: | ---: | --- |');
let missed = 0;
let skipped = 0;
for (const workload of workloads) {
  if (workload.skip !== undefined) {
    skipped++;
    console.log(`| ${workload.name} | — | — | — | ≥ ${workload.target} | skipped: ${workload.skip} |`);
    continue;
  }
  const { baseline: b, addon: a } = measure(workload);
  const ratio = b / a;
  const met = ratio >= workload.target;
  if (!met) missed++;
  console.log(`| ${workload.name} | ${ms(b)} | ${ms(a)} | ${ratio.toFixed(ratio >= 100 ? 0 : 2)} | ≥ ${workload.target} | ${met ? 'met' : 'MISSED'} |`);
}
const measured = workloads.length - skipped;
console.log(`\n${measured - missed} of ${measured} targets met${skipped > 0 ? `; ${skipped} row(s) skipped` : ''}.`);

// ---- the guard in the AI SDK's loop ------------------------------------------

if (only.length === 0 || only.some((word) => 'guard run'.includes(word))) {
  const { guardRows, STEPS } = await import('./guard-run.mjs');
  const GUARD_ROUNDS = Math.max(3, Math.ceil(ROUNDS / 2));
  console.log(`\nThe guard in an AI SDK agent run of ${STEPS} steps (generateText, scripted mock model, one armed call of 3 arguments a step,`);
  console.log(`tool results of 2-20 KB, no window): medians of ${GUARD_ROUNDS} alternating rounds; each guard's own time, the model's and the tools' left out.\n`);
  const rows = await guardRows(GUARD_ROUNDS);
  console.log('| guard | ms a step at 30 | at 300 | 300 / 30 | share of a step at 30 | at 300 | whole run ms | replayed: at 30 | at 300 | 300 / 30 |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  const label = { seamguard: 'seamguard', javascript: 'the same checks in JavaScript', probe: 'fixed work (one 9 KB read a call)' };
  const pct = (x) => `${(x * 100).toFixed(x < 0.01 ? 2 : 1)}%`;
  for (const [name, row] of Object.entries(rows)) {
    console.log(`| ${label[name]} | ${row.at30.toFixed(3)} | ${row.at300.toFixed(3)} | ${(row.at300 / row.at30).toFixed(2)} | ${pct(row.share30)} | ${pct(row.share300)} | ${ms(row.total)} | ${row.replay30.toFixed(3)} | ${row.replay300.toFixed(3)} | ${(row.replay300 / row.replay30).toFixed(2)} |`);
  }
  const whole = rows.javascript.total / rows.seamguard.total;
  const grew = rows.seamguard.at300 / rows.seamguard.at30;
  const replayed = rows.seamguard.replay300 / rows.seamguard.replay30;
  const floor = rows.probe.at300 / rows.probe.at30;
  console.log(`\nwhole run, JavaScript guard / seamguard: ${whole.toFixed(1)} (target ≥ 10: ${whole >= 10 ? 'met' : 'MISSED'})`);
  console.log(`seamguard a step at 300 / at 30, through the SDK: ${grew.toFixed(2)} (target ≤ 1.5: ${grew <= 1.5 ? 'met' : 'MISSED'}); ` +
    `replayed with no SDK around it: ${replayed.toFixed(2)} (${replayed <= 1.5 ? 'met' : 'MISSED'}); fixed work through the SDK: ${floor.toFixed(2)}`);
}
