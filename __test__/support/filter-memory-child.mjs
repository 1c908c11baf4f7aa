// One of filter/filter-memory.test.mjs's loops, in a process of its own:
// prints, as JSON, how much resident memory the loop grew by, and what it
// returned.
//
//   node filter-memory-child.mjs <loop> [count]
//
// Run without --expose-gc: the loops are measured as a batch job runs them,
// inside one synchronous loop, with V8's default settings. Only the
// 'never flushed' loop then forces collections, after it was measured, to
// show that what it left is freed once the event loop turns.
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const require = createRequire(import.meta.url);
const { FilterPlan, ScaffoldingFilter } = require('seamguard');
const { openStreams } = require('../../index.js').__scaffoldingFilter;

const [loop, count = '300000'] = process.argv.slice(2);
const COUNT = Number(count);

/** Stored texts, one in four with markup (which opens a native stream). */
const texts = Array.from({ length: 1000 }, (_, i) => (i % 4 === 0
  ? `Answer ${i}: sure.<|tool_call|>[f(x=${i})]<|tool_call_start|>[read(path='${i}')]<|tool_call_end|> done`
  : `Answer ${i}: plain prose with nothing to strip, number ${i * 7}.`));
/** Tools the texts never call, so that the answers stay the default patterns'. */
const TOOLS = ['get_weather', 'search', 'send_email'];
const PLAN = new FilterPlan({ tools: TOOLS });
/** The default patterns as one regular expression: the same answers, in plain JavaScript. */
const replace = (text) => text.replace(/<\|tool_call_start\|>[\s\S]*?<\|tool_call_end\|>|<\|tool_calls\|>|<\|tool_call\|>/g, '');

/** `using`, where this Node has it (24 and later). */
let using = null;
try {
  using = (0, eval)('(Filter) => (text) => { using filter = new Filter(); return filter.feed(text) + filter.flush(); }')(ScaffoldingFilter);
} catch {
  // An older Node: the syntax is not there.
}

const loops = {
  'feed and flush': (text) => {
    const filter = new ScaffoldingFilter();
    return filter.feed(text) + filter.flush();
  },
  dispose: (text) => {
    const filter = new ScaffoldingFilter();
    try {
      return filter.feed(text) + filter.flush();
    } finally {
      filter[Symbol.dispose]();
    }
  },
  'dispose without flush': (text) => {
    const filter = new ScaffoldingFilter();
    try {
      return filter.feed(text);
    } finally {
      filter[Symbol.dispose]();
    }
  },
  using,
  'never flushed': (text) => new ScaffoldingFilter().feed(text),
  // Options with tools, which compile to a tool list of some kilobytes:
  // made for each filter, it must go with the filter's stream.
  'options with tools': (text) => {
    const filter = new ScaffoldingFilter({ tools: TOOLS });
    return filter.feed(text) + filter.flush();
  },
  'a plan with tools': (text) => {
    const filter = new ScaffoldingFilter(PLAN);
    return filter.feed(text) + filter.flush();
  },
  strip: (text) => ScaffoldingFilter.strip(text),
  javascript: replace,
};

function run(body, times) {
  let total = 0;
  for (let i = 0; i < times; i++) total += body(texts[i % texts.length]).length;
  return total;
}

const body = loops[loop];
if (body === undefined) throw new Error(`no loop ${loop}`);
if (body === null) {
  console.log(JSON.stringify({ skipped: `this Node (${process.version}) has no using declarations` }));
  process.exit(0);
}

// V8 sizes its young generation over the first 100,000 or so iterations of
// any loop that allocates (a plain JavaScript loop grows resident memory by
// 6 to 9 MB there): that happens first, in plain JavaScript, so that what is
// measured is what the filter keeps.
run(replace, 100_000);
const expected = run(replace, COUNT);
const before = process.memoryUsage.rss();
const total = run(body, COUNT);
const grown = process.memoryUsage.rss() - before;
const result = { node: process.version, loop, count: COUNT, grownMB: +(grown / 1e6).toFixed(1), total, expected, openAfter: openStreams() };

if (loop === 'never flushed') {
  // Collected once the loop yields: each stream left open is freed by the
  // FinalizationRegistry. gc() makes the collection happen now.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  for (let i = 0; i < 50 && openStreams() > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
    gc();
  }
  result.openAfterYield = openStreams();
  result.rssAfterFreeMB = +((process.memoryUsage.rss() - before) / 1e6).toFixed(1);
  // The same loop again reuses what was freed.
  const again = process.memoryUsage.rss();
  run(body, COUNT);
  result.grownAgainMB = +((process.memoryUsage.rss() - again) / 1e6).toFixed(1);
}
console.log(JSON.stringify(result));
