// The claim seam's field cases, shared by every framework's test file
// (__test__/guard/claim-<framework>.test.mjs). A case is a user question,
// the tool that answers it and the model's answers: the mock model of each
// framework reads its prompt as a list of `{ role, text }` (user, assistant,
// tool, system) and asks `stepOf` what to say next, so one case runs the
// same way in every loop, streaming or not, and many at once.

import assert from 'node:assert/strict';

/** The guard's ledger row for `check`. */
export const rowOf = (guard, check) => guard.ledger.report().find((row) => row.check === check);

/**
 * A case the guard lets stand: the answer is the model's first, as it
 * wrote it, no finding is filed, and the answer was judged once
 * (checked-pass, or not-applicable when every value was exempt).
 */
export function assertStands(guard, text, name) {
  assert.equal(text, CASES[name].first);
  assert.deepEqual(guard.findings, []);
  const row = rowOf(guard, 'unsupported-claim');
  assert.deepEqual([row.checked + row.notApplicable, row.findings], [1, 0]);
}

/** What a switch's port table serves: `sw-core-0N` has its management UI on 84N3. */
export function portsOf(name) {
  const n = Number(String(name).match(/(\d)$/)?.[1] ?? 1);
  return { switch: name, ports: [{ port: 8400 + n * 10 + 3, service: 'mgmt-https' }, { port: 2222, service: 'ssh' }] };
}

/**
 * A ticket as its tool returns it: JSON text whose values are escaped, so
 * the identifier appears in the text only as `INC\u002d20931`.
 */
export const TICKET_TEXT = '{"id":"INC\\u002d20931","summary":"fan \\"FAN-7\\" replaced on rack R12"}';

/** The tools every case may call, framework-neutral: `{ name, description, properties, execute }`. */
export const CLAIM_TOOLS = [
  {
    name: 'switch_ports',
    description: 'Lists the ports of a switch and the service on each',
    properties: { switch: { type: 'string' } },
    execute: async (input) => portsOf(input?.switch ?? 'sw-core-01'),
  },
  {
    name: 'ticket',
    description: 'Reads the open hardware ticket',
    properties: {},
    execute: async () => TICKET_TEXT,
  },
];

const portQuestion = (n) => `Which port serves the management UI on sw-core-0${n}?`;
const grounded = (n) => `The management UI of sw-core-0${n} is on port ${8400 + n * 10 + 3}.`;
const fabricated = (n, port = 9443) => `The management UI of sw-core-0${n} is on port ${port}.`;

/**
 * The cases: `question` (the user's message), `call` (the tool call the
 * model makes first), `first` (its answer once the result is in),
 * `revised` (its answer after a correction named a value of `first`), and
 * what the guard files for the final answer (`unsupported`, the values an
 * unsupported-claim finding names).
 */
export const CASES = {
  fabricated: { question: portQuestion(1), call: { toolName: 'switch_ports', input: { switch: 'sw-core-01' } }, first: fabricated(1), unsupported: ['9443'] },
  grounded: { question: portQuestion(2), call: { toolName: 'switch_ports', input: { switch: 'sw-core-02' } }, first: grounded(2), unsupported: [] },
  userSupplied: {
    question: 'Is port 7001 free on sw-core-03? Answer for port 7001 only.',
    call: { toolName: 'switch_ports', input: { switch: 'sw-core-03' } },
    first: 'Yes: port 7001 is not in use on sw-core-03.',
    unsupported: [],
  },
  escaped: { question: 'Which ticket covers the fan?', call: { toolName: 'ticket', input: {} }, first: 'Ticket INC-20931 covers it: FAN-7 was replaced on rack R12.', unsupported: [] },
  // Under 'guard': the first answer is named back, the revision grounds it.
  revision: { question: portQuestion(4), call: { toolName: 'switch_ports', input: { switch: 'sw-core-04' } }, first: fabricated(4), revised: grounded(4), unsupported: [] },
  // Under 'guard': the revision still invents; it is filed, never revised again.
  stubborn: { question: portQuestion(5), call: { toolName: 'switch_ports', input: { switch: 'sw-core-05' } }, first: fabricated(5), revised: fabricated(5, 9444), unsupported: ['9444'] },
};

/**
 * The prior-turn case: turn one looks the port up and answers; three turns
 * of small talk follow; the fifth asks again and the model answers from
 * memory, with no tool call: every value it states was served four turns
 * ago, none in this one.
 */
export const PRIOR_TURNS = [portQuestion(6), 'Thanks.', 'Noted, talk soon.', 'One more thing.', 'Remind me: which port was it?'];
const PRIOR_ANSWERS = { 'Thanks.': 'You are welcome.', 'Noted, talk soon.': 'Sure.', 'One more thing.': 'Go ahead.', 'Remind me: which port was it?': grounded(6) };

/** Eight conversations at once on one guard: even ones grounded, odd ones invented. */
export const CONCURRENT = Array.from({ length: 8 }, (_, i) => {
  const n = (i % 9) + 1;
  const question = `${portQuestion(n)} (conversation ${i})`;
  return { question, call: { toolName: 'switch_ports', input: { switch: `sw-core-0${n}` } }, first: i % 2 === 0 ? grounded(n) : fabricated(n, 9500 + i), revised: grounded(n), unsupported: i % 2 === 0 ? [] : [String(9500 + i)] };
});

// The prior-turn case's first turn: the lookup, and a grounded answer.
const PRIOR_FIRST = { question: PRIOR_TURNS[0], call: { toolName: 'switch_ports', input: { switch: 'sw-core-06' } }, first: grounded(6), unsupported: [] };

const ALL = [...Object.values(CASES), ...CONCURRENT, PRIOR_FIRST];

/**
 * The model's next step for a prompt read as `[{ role, text }]`:
 * `{ calls: [{ toolName, input }] }` or `{ text }`. The case is found by
 * the latest user question; within its turn, the model calls the tool
 * first, answers once the result is in, and answers `revised` once a
 * correction (any later message naming a value of its first answer) came.
 */
export function stepOf(prompt) {
  let lastUser = -1;
  for (let i = 0; i < prompt.length; i++) {
    const { role, text } = prompt[i];
    if (role === 'user' && (ALL.some((c) => text.includes(c.question)) || PRIOR_ANSWERS[text.trim()] !== undefined)) lastUser = i;
  }
  if (lastUser === -1) return { text: '(no case matches this prompt)' };
  const question = prompt[lastUser].text.trim();
  if (PRIOR_ANSWERS[question] !== undefined) return { text: PRIOR_ANSWERS[question] };
  const found = ALL.filter((c) => question.includes(c.question)).sort((a, b) => b.question.length - a.question.length)[0];
  const turn = prompt.slice(lastUser + 1);
  if (!turn.some((message) => message.role === 'tool')) return { calls: [found.call] };
  const invented = found.first.match(/port (9\d{3})/)?.[1];
  // A correction may come as a user message after the answer, or (Mastra's
  // processor retry) as a system message wherever the framework puts it.
  const corrected =
    found.revised !== undefined &&
    invented !== undefined &&
    prompt.some((message, i) => (message.role === 'system' || (message.role === 'user' && i > lastUser)) && message.text.includes('[evidence check') && message.text.includes(invented));
  return { text: corrected ? found.revised : found.first };
}

/** The values the filed unsupported-claim findings name, in order. */
export function flaggedValues(findings) {
  const values = [];
  for (const finding of findings) {
    if (finding.kind !== 'unsupported-claim') continue;
    // One witness per value the answer states; the first says how many.
    for (const witness of finding.witnesses ?? []) {
      if (witness.predicate === 'states' && !values.includes(witness.value)) values.push(witness.value);
    }
  }
  return values;
}

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** An AI SDK prompt as `[{ role, text }]`, tool results as their JSON. */
export function plainAiSdkPrompt(prompt) {
  return prompt.map((message) => {
    if (typeof message.content === 'string') return { role: message.role, text: message.content };
    const text = message.content.map((part) => part.text ?? JSON.stringify(part.output?.value ?? part.input ?? '')).join('\n');
    return { role: message.role, text };
  });
}

/** The AI SDK's mock model (for the AI SDK and Mastra) answering each call with `stepOf` its prompt; `prompts` records them. */
export function aiSdkClaimModel({ ai, Mock }, { fail } = {}) {
  const prompts = [];
  const contentOf = (options) => {
    prompts.push(options.prompt);
    if (fail?.(options.prompt)) throw new Error('the provider is down');
    const step = stepOf(plainAiSdkPrompt(options.prompt));
    if (step.text !== undefined) return [{ type: 'text', text: step.text }];
    return step.calls.map((call, n) => ({ type: 'tool-call', toolCallId: `call-${prompts.length}-${n}`, toolName: call.toolName, input: JSON.stringify(call.input) }));
  };
  const finishOf = (content) => (content[0].type === 'tool-call' ? { unified: 'tool-calls', raw: 'tool-calls' } : { unified: 'stop', raw: 'stop' });
  const model = new Mock({
    doGenerate: async (options) => {
      const content = contentOf(options);
      return { content, finishReason: finishOf(content), usage: USAGE, warnings: [] };
    },
    doStream: async (options) => {
      const content = contentOf(options);
      const chunks = [{ type: 'stream-start', warnings: [] }];
      for (const part of content) {
        if (part.type === 'text') {
          chunks.push({ type: 'text-start', id: 't' });
          for (let i = 0; i < part.text.length; i += 9) chunks.push({ type: 'text-delta', id: 't', delta: part.text.slice(i, i + 9) });
          chunks.push({ type: 'text-end', id: 't' });
        } else chunks.push(part);
      }
      chunks.push({ type: 'finish', usage: USAGE, finishReason: finishOf(content) });
      return { stream: ai.simulateReadableStream({ chunks, initialDelayInMs: null, chunkDelayInMs: 1 }) };
    },
  });
  return { model, prompts };
}

const inventedIn = (text) => text?.match(/port (9\d{3})/)?.[1];

/**
 * The claim seam's signals a case's turn records in its framework's trace,
 * in order, as `{ name, signal, kind, seam, runId, values }`, read off the
 * case's answers: under 'guard', a revision naming the value the first
 * answer invented, then a finding when the revision invents one too; under
 * 'assist', a finding naming the first answer's.
 */
export function expectedClaimSignals(posture, c, runId) {
  const signal = (name, value) => ({ name: `seamguard.${name}`, signal: name, kind: 'unsupported-claim', seam: 'claim', runId, values: [value] });
  const first = inventedIn(c.first);
  if (first === undefined) return [];
  if (posture === 'assist') return [signal('finding', first)];
  const revised = inventedIn(c.revised);
  return [signal('revision', first), ...(revised === undefined ? [] : [signal('finding', revised)])];
}

/** A recorded signal (its name and attributes) in the shape `expectedClaimSignals` gives. */
export const claimSignalOf = (name, attributes) => ({
  name,
  signal: attributes['seamguard.signal'],
  kind: attributes['seamguard.kind'],
  seam: attributes['seamguard.seam'],
  runId: attributes['seamguard.run_id'],
  values: attributes['seamguard.values'],
});
