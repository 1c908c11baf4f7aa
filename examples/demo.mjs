// npm run demo: the field case, replayed through seamguard.
//
// A triage agent lists the devices on a fabric, then asks a reverse-lookup
// tool which port one of them is logged in to. The lookup's filter is
// broken and answers every identifier with an empty list. The write seam
// notices that the identifier came from this run and the lookup found
// nothing, and files an advisory. Then the model streams its answer, and
// leaks its own tool-call markup into it; the stream seam strips the markup
// as the text flows. Next, a second conversation under a sliding window:
// the model takes a machine name out of its own earlier prose (the choice
// seam), and is offered a tool whose grounds the window dropped (the
// compose seam), all judged on one RunCorpus, with every disposition in
// the ledger. Last, a round that was nothing but markup is asked again,
// once, through the AI SDK middleware.
import { createRequire } from 'node:module';
import { wrap } from './wrap.mjs';

const require = createRequire(import.meta.url);
const {
  ProducedCorpus, RunCorpus, readLookupResult, EMPTY_LOOKUP_CEILING, ScaffoldingFilter, SCAFFOLD_PRESETS,
  beginIntegrityRun, contextErrorIdentity,
} = require('seamguard');


// Scripted tools. The reverse lookup filters a column before it exists,
// so it matches nothing, for every identifier, always.
const tools = {
  fabric_inventory: () => [
    { wwpn: '20:00:00:25:b5:aa:00:1f', host: 'host-a' },
    { wwpn: '20:00:00:25:b5:aa:00:2c', host: 'host-b' },
  ],
  port_for_device: () => [],
};
// What the tools' authors declared: where port_for_device's arguments come from.
const argumentsFrom = { port_for_device: ['fabric_inventory'] };

// A scripted model: each turn sees the last tool result and either calls a
// tool or answers (its answer is streamed later, through the stream seam).
const model = [
  () => ({ tool: 'fabric_inventory', args: {} }),
  (devices) => ({ tool: 'port_for_device', args: { wwpn: devices[0].wwpn } }),
  () => ({ tool: 'port_for_device', args: { wwpn: 'ff:ff:ff:ff:ff:ff:ff:ff' } }),
  () => ({ answer: true }),
];

console.log('seamguard demo: the write seam\n');
// One corpus per run: every result is pushed once, as it is served.
const corpus = new ProducedCorpus();
let last;
for (const [turn, decide] of model.entries()) {
  const step = decide(last);
  if (step.answer) break;
  const epoch = turn + 1;
  const toolCallId = `call-${epoch}`;
  last = tools[step.tool](step.args);
  console.log(`[${epoch}] model calls ${step.tool}(${JSON.stringify(step.args)}) → ${JSON.stringify(last)}`);
  const declared = argumentsFrom[step.tool];
  if (declared) {
    const call = { toolName: step.tool, toolCallId, args: step.args, argumentsFrom: declared, reading: readLookupResult(last, false) };
    const { disposition, findings } = corpus.emptyLookupOf(call, epoch);
    console.log(`    write seam: ${disposition}`);
    for (const finding of findings) {
      console.log(`    advisory ${finding.kind} on ${finding.predicate} (${finding.subjects.map((s) => s.id).join(' ← ')}):`);
      console.log(wrap(finding.message, '      '));
    }
  }
  corpus.push({ toolName: step.tool, text: JSON.stringify(last) });
}
// The run is over: its results can go (the corpus's memory is native, and a
// garbage collection may come late).
corpus.clear();
console.log('\nWhat the check cannot know:');
console.log(wrap(EMPTY_LOOKUP_CEILING, '  '));

// The choice and compose seams. A window of three messages slides over the
// conversation; the system prompt is passed with each request.
console.log('\nseamguard demo: the choice and compose seams (a window of three messages)\n');
const system = 'You are a fleet triage assistant.';
const backupStatus = { name: 'backup_status', argumentsFrom: ['fleet_report'] };
const run = new RunCorpus();
const ledger = beginIntegrityRun({ posture: 'dev', armed: { 'empty-lookup': false } });
const filed = new Set();
const window = [];
const enter = (entry) => {
  window.push(run.push(entry));
  if (window.length > 3) run.evict([window.shift()]);
};
const report = (seam, check, { disposition, findings }, epoch) => {
  ledger.note(check, seam, disposition, epoch);
  console.log(`    ${seam} seam: ${disposition}`);
  for (const finding of findings) {
    const key = contextErrorIdentity({ ...finding, epoch: undefined });
    if (filed.has(key)) continue;
    filed.add(key);
    console.log(`    ${finding.kind}${finding.predicate ? ` on ${finding.predicate}` : ''}:`);
    console.log(wrap(finding.message, '      '));
  }
};
const script = [
  { role: 'user', text: 'Is ganymede-4417-prod backed up?' },
  { role: 'tool', toolName: 'fleet_report', text: 'FLEET: ganymede-4417-prod (tier 2), callisto-02 (tier 1)' },
  { role: 'assistant', text: 'ganymede-4417-prod is tier 2; its nightly job bkp-4417-ganymede-tier2 finished at 02:14.' },
  { role: 'user', text: 'And what is the backup status of that machine now?' },
];
for (const [epoch, entry] of script.entries()) {
  console.log(`[${epoch + 1}] ${entry.role}: ${entry.text}`);
  enter(entry);
}
// The window now holds the tool result, the assistant's answer and the
// question; the first user message has gone, with the real machine name.
// A request offering backup_status is assembled: no tool result has left
// the window yet.
report('compose', 'dangling-reference', run.danglingReferencesOf([backupStatus], 5), 5);
const call = { toolName: 'backup_status', toolCallId: 'call-5', args: { machine: '4417-ganymede' }, argumentsFrom: ['fleet_report'] };
console.log(`[5] model calls backup_status(${JSON.stringify(call.args)})`);
report('choice', 'unsupported-argument', run.unsupportedArgumentsOf([call], { systemPrompt: system }, 5), 5);
enter({ role: 'assistant', text: 'Checking the backups of 4417-ganymede.' });
enter({ role: 'tool', toolName: 'backup_status', text: 'no record for 4417-ganymede' });
console.log('[6] backup_status answers "no record"; the window drops the fleet report; backup_status is offered again');
// The window has now dropped the fleet report, while backup_status is
// still on offer.
report('compose', 'dangling-reference', run.danglingReferencesOf([backupStatus], 6), 6);
console.log(`\nThe ledger at the end of the run (dev posture: one canary per check):`);
for (const row of ledger.report()) {
  console.log(`    ${row.check} @${row.seam}: checked ${row.checked}, findings ${row.findings}, ` +
    `not applicable ${row.notApplicable}, canaries ${row.synthetic}`);
}
ledger.assertAlive({ workExisted: true });
run.clear();

// Streams `answer` through a filter in uneven deltas, printing what the
// user sees as it flows (| marks a feed boundary) and each strip event at
// the moment it happens.
function streamThrough(title, answer, options) {
  const deltas = [];
  for (let at = 0, size = 1; at < answer.length; at += size, size = 1 + ((size * 7) % 9)) {
    deltas.push(answer.slice(at, at + size));
  }
  console.log(`\n${title} (${deltas.length} deltas)`);
  let line = '  ';
  const onStrip = ({ span, reason, pattern }) => {
    if (line.trim()) console.log(line);
    const shown = span.length > 60 ? `${span.slice(0, 60)}…` : span;
    console.log(`    ✂ stripped (${reason}, pattern ${pattern}): ${JSON.stringify(shown)}`);
    line = '  ';
  };
  const filter = new ScaffoldingFilter({ ...options, onStrip });
  const show = (visible) => {
    if (!visible) return;
    if (line.length + visible.length > 90) {
      console.log(line);
      line = '  ';
    }
    line += `${visible}|`;
  };
  for (const delta of deltas) show(filter.feed(delta));
  show(filter.flush());
  if (line.trim()) console.log(line);
  console.log(`  → ${filter.strippedSpans.length} spans stripped, ${filter.strippedChars} UTF-16 units`);
}

console.log('\nseamguard demo: the stream seam (the model now streams its answer)');
streamThrough(
  'An LFM2-style model answers, leaking its tool-call markup',
  'host-a (20:00:00:25:b5:aa:00:1f) is not logged in to any port on the collected switches. ' +
    '<|tool_call_start|>[port_for_device(wwpn="20:00:00:25:b5:aa:00:1f")]<|tool_call_end|>' +
    'Check the physical cabling <|tool_call|>first.',
);
streamThrough(
  'A Qwen-style model (the hermes preset) cuts off inside a call; openSpanAtEnd: drop',
  'The lookup came back empty for host-a. <tool_call>{"name": "port_for_device", "arguments": {"wwpn": ' +
    '"20:00:00:25:b5:aa:00:1f"}}</tool_call> I will retry. <tool_call>{"name": "fabric_inv',
  { patterns: SCAFFOLD_PRESETS.hermes, openSpanAtEnd: 'drop' },
);

// The one bounded recovery: a model offered no tools "deflects" and streams
// nothing but its tool-call markup. Stripping it would leave the user an
// empty answer, so the middleware asks the model again, once.
const { streamText, wrapLanguageModel, simulateReadableStream } = await import('ai');
const { MockLanguageModelV3 } = await import('ai/test');
const { scaffoldingMiddleware } = require('seamguard/ai-sdk');

const roundOf = (text) => ({
  stream: simulateReadableStream({
    chunks: [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't' },
      ...text.match(/.{1,7}/gs).map((delta) => ({ type: 'text-delta', id: 't', delta })),
      { type: 'text-end', id: 't' },
      {
        type: 'finish',
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: { inputTokens: { total: 40, noCache: 40 }, outputTokens: { total: 30, text: 30 } },
      },
    ],
    initialDelayInMs: null,
    chunkDelayInMs: null,
  }),
});
const answers = [
  '<tool_call>{"name": "port_for_device", "arguments": {"wwpn": "20:00:00:25:b5:aa:00:1f"}}</tool_call>\n',
  'host-a is not logged in to any port: check its cabling and the zoning of fabric A.',
];
let calls = 0;
const base = new MockLanguageModelV3({ doStream: async () => roundOf(answers[Math.min(calls++, answers.length - 1)]) });
const recovering = wrapLanguageModel({
  model: base,
  middleware: scaffoldingMiddleware({
    patterns: SCAFFOLD_PRESETS.hermes,
    recover: true,
    onRecover: ({ round, stripped, recovered }) =>
      console.log(`    ↻ round ${round} was only markup (${JSON.stringify(stripped[0].slice(0, 48))}…); asked again: ${recovered ? 'recovered' : 'still empty'}`),
  }),
});
console.log('\nseamguard demo: one bounded recovery (AI SDK middleware, recover: true)');
const streamed = streamText({ model: recovering, prompt: 'Which port is host-a on?' });
console.log(`  answer: ${JSON.stringify(await streamed.text)}`);
console.log(`  → the model was called ${calls} times; the reader never saw the first round`);
