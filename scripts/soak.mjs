// npm run soak: a million feeds, a million checks, two thousand corpus
// runs and one guard serving a hundred thousand conversations, then
// resident memory.
//
// Not part of npm test. The goal is that resident memory (rss) grows by
// less than 10 MB between the end of a warm-up and the end of the run, with
// a garbage collection forced at both points, so that what is left is what
// the addon keeps and not what the collector has yet to take. Exits 1 when
// the growth is over the goal.
//
// The warm-up runs twice, with a collection after each: V8 grows its young
// generation under the allocation rate of half a million findings, and the
// first collection after the warm-up hands pages back that the next phase
// takes again (about 17 MB that is V8's, with its used heap flat at 3 MB).
// Measured from the second settle, the figure is what the run keeps.
// Run with --max-semi-space-size=1 to see V8's share shrink further.
//
// The feeds go to short streams (a fresh filter every 100 feeds, as a server
// would make one per response) and to one filter that lives for the whole
// run and never strips, so that its held buffer is all it keeps; the checks
// alternate between findings, passes and unreachable calls, with readings
// read from arrays and absences.
//
// Corpus runs push twenty results of 20 KB one by one, with a check after
// each push, and end with clear() (every fifth run is dropped instead, for
// the collector to find): their texts and sketches must all come back.
//
// A session is one RunCorpus that lives for the whole soak under a sliding
// window of 40 messages: user turns, 2 KB tool results and assistant turns,
// with the compose seam checked per request and the choice seam after each
// tool result. It is never cleared, so what it keeps must stay bounded by
// the window, however long the session runs.
//
// The run yields to the event loop every thousand calls, as a server does
// between requests. That matters: Node runs the finalizer that frees a
// dropped filter's native memory only once the event loop turns, so a
// synchronous loop that makes filters by the thousand keeps every one of
// them until it ends (SOAK_YIELD_EVERY=0 shows it).
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { ProducedCorpus, RunCorpus, ScaffoldingFilter, emptyLookupOf, readLookupResult } = require('seamguard');
const { createGuard } = require('seamguard/ai-sdk');

const FEEDS = Number(process.env.SOAK_FEEDS ?? 1_000_000);
const CHECKS = Number(process.env.SOAK_CHECKS ?? 1_000_000);
const YIELD_EVERY = Number(process.env.SOAK_YIELD_EVERY ?? 1000);
const WARM_UP = Number(process.env.SOAK_WARM_UP ?? 500_000);
const CORPUS_RUNS = Number(process.env.SOAK_CORPUS_RUNS ?? 2_000);
const SESSION_MESSAGES = Number(process.env.SOAK_SESSION_MESSAGES ?? 300_000);
const CONVERSATIONS = Number(process.env.SOAK_CONVERSATIONS ?? 100_000);
const GOAL_MB = 10;

if (typeof globalThis.gc !== 'function') {
  console.error('soak: run with node --expose-gc (npm run soak does)');
  process.exit(2);
}

const CHUNKS = [
  'Plain answer text, ',
  'more of it <|tool_',
  'call|> and a token, ',
  '<|tool_call_start|>[read(path=',
  "'x')]<|tool_call_end|> then text ",
  'with 😀 and \uD83D',
  '\uDE00 a pair split across chunks, ',
  '<|tool_calls|><|tool_call|> done. ',
];
const PLAIN = 'ordinary prose with no markup at all, and a trailing <|too';

const longLived = new ScaffoldingFilter();
let stream = new ScaffoldingFilter();
let emitted = 0;
let feeds = 0;

const turn = () => new Promise((resolve) => setImmediate(resolve));
const yieldNow = (i) => YIELD_EVERY > 0 && i % YIELD_EVERY === YIELD_EVERY - 1;

async function feedSome(count) {
  for (let i = 0; i < count; i++) {
    if (yieldNow(i)) await turn();
    if (feeds % 100 === 99) {
      emitted += stream.flush().length;
      stream = new ScaffoldingFilter();
    }
    if (feeds % 10 === 0) emitted += longLived.feed(PLAIN).length;
    else emitted += stream.feed(CHUNKS[feeds % CHUNKS.length]).length;
    feeds++;
  }
}

const WWPN = '20:00:00:25:b5:aa:00:1f';
const PRODUCED = [
  { toolName: 'other_tool', text: 'nothing relevant here' },
  { toolName: 'fabric_inventory', text: `devices: ${WWPN} (host-a), 20:00:00:25:b5:aa:00:2c (host-b)` },
];
let checks = 0;
let findings = 0;

async function checkSome(count) {
  for (let i = 0; i < count; i++) {
    if (yieldNow(i)) await turn();
    const kind = checks % 4;
    const call = {
      toolName: 'port_for_device',
      toolCallId: `call-${checks}`,
      args: { wwpn: kind === 1 ? 'not-in-any-result' : WWPN, filter: { ports: [checks % 7, 'edge-1'] } },
      argumentsFrom: kind === 2 ? ['undeclared'] : ['fabric_inventory'],
      reading: kind === 3 ? readLookupResult(null, true) : readLookupResult([], false),
    };
    findings += emptyLookupOf(call, PRODUCED, checks).findings.length;
    checks++;
  }
}

const deviceLines = (run, i) => Array.from({ length: 300 }, (_, k) => `{"wwpn":"20:00:00:25:b5:${(run + i) % 100}:${i}:${k % 100}","host":"Host-${run}-${k}"}`).join('\n');
let corpusRuns = 0;
let corpusFindings = 0;

async function corpusSome(count) {
  for (let run = 0; run < count; run++) {
    await turn();
    const corpus = new ProducedCorpus();
    for (let i = 0; i < 20; i++) {
      corpus.push({ toolName: i % 3 ? 'fabric_inventory' : 'other_tool', text: deviceLines(corpusRuns, i) });
      const call = {
        toolName: 'port_for_device',
        toolCallId: `run-${corpusRuns}-${i}`,
        args: { wwpn: `20:00:00:25:B5:${(corpusRuns + i) % 100}:${i}:7`, host: `host-${corpusRuns}-12`, query: 'c0:ff:ee:missing' },
        argumentsFrom: ['fabric_inventory'],
        reading: readLookupResult([], false),
      };
      corpusFindings += corpus.emptyLookupOf(call, i).findings.length;
    }
    if (corpusRuns % 5 !== 4) corpus.clear();
    corpusRuns++;
  }
}

const session = new RunCorpus();
const sessionWindow = [];
const served = [{ name: 'backup_status', argumentsFrom: ['fleet_report'] }];
let sessionMessages = 0;
let sessionFindings = 0;

async function sessionSome(count) {
  for (let i = 0; i < count; i++) {
    if (i % YIELD_EVERY === 0) await turn();
    const n = sessionMessages++;
    const kind = n % 3;
    const text = kind === 1
      ? Array.from({ length: 40 }, (_, k) => `srv-${(n + k) % 9973}-ganymede tier-${k % 3} ok`).join('\n')
      : `turn ${n}: what about srv-${n % 9973}-ganymede?`;
    sessionWindow.push(session.push(kind === 1 ? { role: 'tool', toolName: n % 7 ? 'fleet_report' : 'other', text } : { role: kind ? 'assistant' : 'user', text }));
    if (sessionWindow.length > 40) session.evict([sessionWindow.shift()]);
    if (kind === 0) sessionFindings += session.danglingReferencesOf(served, n).findings.length;
    if (kind === 1) {
      const call = { toolName: 'backup_status', toolCallId: `s-${n}`, argumentsFrom: ['fleet_report'],
        args: { machine: `srv-${(n + 5) % 9973}-ganymede`, other: `srv-${n}-nowhere` } };
      sessionFindings += session.unsupportedArgumentsOf([call], { systemPrompt: 'You are a fleet assistant.' }, n).findings.length;
    }
  }
}

// One guard for a whole server: its AI SDK middleware, made once, serves
// conversations eight at a time, each three model calls (the triage case:
// one empty-lookup finding each), found from their prompts. It holds at most
// maxRuns (1000) live runs, so what it keeps must stop growing once the
// warm-up has filled them, however many conversations follow.
let conversations = 0;
let heard = 0;
const guard = createGuard({ argumentsFrom: { port_for_device: ['fabric_inventory'] }, onFinding: () => { heard += 1; } });
const GUARD_TOOLS = [
  { type: 'function', name: 'fabric_inventory', inputSchema: { type: 'object', properties: {} } },
  { type: 'function', name: 'port_for_device', inputSchema: { type: 'object', properties: { wwpn: { type: 'string' } } } },
];
const INVENTORY = { devices: [{ wwpn: WWPN, host: 'host-a' }, { wwpn: '20:00:00:25:b5:aa:00:2c', host: 'host-b' }] };
const answer = (content) => async () => ({ content, finishReason: { unified: 'stop', raw: 'stop' }, usage: {}, warnings: [] });

async function conversation(k) {
  const user = { role: 'user', content: [{ type: 'text', text: 'Which port is my host on?' }] };
  const list = { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${k}-0`, toolName: 'fabric_inventory', input: {} }] };
  const listed = { role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${k}-0`, toolName: 'fabric_inventory', output: { type: 'json', value: INVENTORY } }] };
  const look = { role: 'assistant', content: [{ type: 'tool-call', toolCallId: `c${k}-1`, toolName: 'port_for_device', input: { wwpn: WWPN } }] };
  const looked = { role: 'tool', content: [{ type: 'tool-result', toolCallId: `c${k}-1`, toolName: 'port_for_device', output: { type: 'json', value: [] } }] };
  const { middleware } = guard;
  await middleware.wrapGenerate({ params: { prompt: [user], tools: GUARD_TOOLS }, doGenerate: answer(list.content) });
  await middleware.wrapGenerate({ params: { prompt: [user, list, listed], tools: GUARD_TOOLS }, doGenerate: answer(look.content) });
  await middleware.wrapGenerate({ params: { prompt: [user, list, listed, look, looked], tools: GUARD_TOOLS }, doGenerate: answer([{ type: 'text', text: 'Not logged in.' }]) });
}

async function serveSome(count) {
  for (let i = 0; i < count; i += 8) {
    if (i % YIELD_EVERY < 8) await turn();
    await Promise.all(Array.from({ length: 8 }, (_, j) => conversation(conversations + j)));
    conversations += 8;
  }
}

/** Collects garbage and lets the finalizers that follow it run. */
async function settle() {
  for (let i = 0; i < 5; i++) {
    globalThis.gc();
    await turn();
  }
  return process.memoryUsage();
}

const mb = (bytes) => (bytes / 2 ** 20).toFixed(1);

for (let round = 0; round < 2; round++) {
  await feedSome(WARM_UP);
  await checkSome(WARM_UP);
  await corpusSome(CORPUS_RUNS / 2);
  await sessionSome(SESSION_MESSAGES / 3);
  await serveSome(CONVERSATIONS / 10);
  await settle();
}
const warm = await settle();

const started = process.hrtime.bigint();
await feedSome(FEEDS);
await checkSome(CHECKS);
await corpusSome(CORPUS_RUNS);
await sessionSome(SESSION_MESSAGES);
const heardBefore = heard;
const servedBefore = conversations;
await serveSome(CONVERSATIONS);
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
const end = await settle();

const growth = end.rss - warm.rss;
const count = (n) => n.toLocaleString('en');
console.log(`soak: ${count(FEEDS)} feeds and ${count(CHECKS)} checks after a warm-up of twice ${count(WARM_UP)} of each, in ${seconds.toFixed(1)} s (${count(findings)} findings filed, ${count(emitted)} units emitted, all told)`);
console.log(`soak: rss after warm-up ${mb(warm.rss)} MB, at the end ${mb(end.rss)} MB, growth ${mb(growth)} MB (goal < ${GOAL_MB} MB)`);
console.log(`soak: V8 heap used ${mb(warm.heapUsed)} -> ${mb(end.heapUsed)} MB of ${mb(warm.heapTotal)} -> ${mb(end.heapTotal)} MB, external ${mb(warm.external)} -> ${mb(end.external)} MB`);
console.log(`soak: ${count(CORPUS_RUNS)} corpus runs of 20 results of ${count(deviceLines(0, 0).length)} units, ${count(corpusFindings)} findings all told`);
console.log(`soak: one session of ${count(sessionMessages)} messages under a window of 40, never cleared: ${count(session.length)} pushed, ${session.windowLength} in the window, ${count(sessionFindings)} findings all told`);
console.log(`soak: one guard served ${count(conversations)} conversations, eight at a time, and holds ${guard.runIds().length} live runs; onFinding heard ${count(heard)} findings (one per conversation)`);
console.log(`soak: the long-lived filter holds ${longLived.flush().length} units and stripped ${longLived.strippedChars}`);
if (heard !== conversations || heard - heardBefore !== conversations - servedBefore) {
  console.log('soak: FAILED, the guard did not hear one finding per conversation');
  process.exit(1);
}
if (growth >= GOAL_MB * 2 ** 20) {
  console.log('soak: FAILED, resident memory grew past the goal');
  process.exit(1);
}
console.log('soak: ok');
