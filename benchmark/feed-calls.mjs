// What one `feed()` of a short chunk costs, and what a filter per short text
// costs, for this checkout's ScaffoldingFilter and, when given, another
// build of the package, in one process: the two alternate round by round
// (the order flipping every round), and each row reports the medians per
// call in nanoseconds.
//
//   node benchmark/feed-calls.mjs                          # this checkout alone
//   node benchmark/feed-calls.mjs --against /tmp/before    # a copy of another build
//
// `--against` names a folder holding another build's package.json, lib/,
// index.js and binary (a copy of the package folder at another commit,
// after `npm run build`).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { answerText, chunked } from './workloads.mjs';

const argv = process.argv.slice(2);
const at = argv.indexOf('--against');
const against = at >= 0 ? argv[at + 1] : undefined;
const roundsAt = argv.indexOf('--rounds');
const ROUNDS = roundsAt >= 0 ? Number(argv[roundsAt + 1]) : 11;

const here = createRequire(import.meta.url)('seamguard');
const builds = [['this checkout', here.ScaffoldingFilter]];
if (against) builds.push([against, createRequire(join(against, 'package.json'))(join(against, 'lib', 'index.cjs')).ScaffoldingFilter]);

const PROSE = answerText(200 * 1024, 11).replace(/[<]/g, '(');
// Every chunk of four holds a '<', so every feed crosses into Rust.
const ANGLES = Array.from({ length: 50 * 1024 }, (_, i) => `ab${'cdefgh'[i % 6]}<`).join('');
const MARKUP = answerText(200 * 1024, 11);
const TEXTS = Array.from({ length: 1000 }, (_, i) => (i % 4 === 0
  ? `Answer ${i}: sure.<|tool_call|>[f(x=${i})]<|tool_call_start|>[read(path='${i}')]<|tool_call_end|> done`
  : `Answer ${i}: plain prose with nothing to strip, number ${i * 7}.`));

/** Feeds `chunks` to one filter, flushes it; returns the output. */
const stream = (Filter, chunks, options) => () => {
  const filter = new Filter(options);
  let out = '';
  for (const chunk of chunks) out += filter.feed(chunk);
  return out + filter.flush();
};

const rows = [
  { name: 'feed, 4-unit chunks of prose (no start unit)', calls: 0, run: (F) => stream(F, chunked(PROSE, 4, 4, 1)) },
  { name: "feed, 4-unit chunks each holding a '<'", calls: 0, run: (F) => stream(F, chunked(ANGLES, 4, 4, 1)) },
  { name: 'feed, 4-unit chunks of an answer with markup', calls: 0, run: (F) => stream(F, chunked(MARKUP, 4, 4, 1)) },
  {
    name: 'feed, 4-unit chunks of an answer with markup, with onStrip',
    calls: 0,
    run: (F) => stream(F, chunked(MARKUP, 4, 4, 1), { onStrip() {} }),
  },
  {
    name: 'a filter per text: new, feed the text, flush (1 in 4 with markup)',
    calls: 0,
    run: (F) => () => {
      let out = 0;
      for (let i = 0; i < 20_000; i++) {
        const filter = new F();
        out += (filter.feed(TEXTS[i % 1000]) + filter.flush()).length;
      }
      return out;
    },
  },
];
for (const row of rows) {
  const name = row.name;
  row.calls = name.startsWith('a filter') ? 20_000 : chunked(name.includes('prose') ? PROSE : name.includes("'<'") ? ANGLES : MARKUP, 4, 4, 1).length;
}

const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

for (const row of rows) {
  const runs = builds.map(([, Filter]) => row.run(Filter));
  const answers = runs.map((run) => run());
  if (answers.some((answer) => answer !== answers[0])) throw new Error(`${row.name}: the builds disagree`);
  for (const run of runs) for (let i = 0; i < 2; i++) run(); // warm-up
  const times = runs.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...runs.keys()].reverse() : [...runs.keys()];
    for (const index of order) {
      const start = process.hrtime.bigint();
      runs[index]();
      times[index].push(Number(process.hrtime.bigint() - start) / row.calls);
    }
  }
  const cells = builds.map(([label], index) => `${label}: ${median(times[index]).toFixed(0)} ns`);
  const ratio = builds.length > 1 ? `  (this / other: ${(median(times[0]) / median(times[1])).toFixed(2)})` : '';
  console.log(`${row.name.padEnd(70)} ${cells.join('   ')}${ratio}`);
}
