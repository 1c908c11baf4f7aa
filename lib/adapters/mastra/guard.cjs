'use strict';
// The guard as a Mastra processor (`@mastra/core` 1), for both an agent's
// `inputProcessors` and its `outputProcessors`. Mastra runs AI SDK models
// and hands `processLLMRequest` the AI SDK prompt the model is about to get,
// so this file translates Mastra's hooks into the AI SDK guard's middleware
// calls (../ai-sdk/guard.cjs), which translates them into the guard core:
//
// - processInputStep: the step's tools (less those `activeTools` leaves
//   out) and tool choice, as the AI SDK's call parameters;
// - processLLMRequest: the prompt, with those tools: the model call;
// - processOutputStep: the answer's tool calls, healed ones included,
//   before any tool runs;
// - processOutputStream: the stream seam (Mastra runs `generate` through
//   the same stream, and keeps the text it streamed as the answer). A
//   leaked call to a tool the step told of is stripped from each text; at
//   the step's `finish`, when the model made no real tool call, a leaked
//   call to a tool the step offers, with arguments its schema admits, is
//   healed: sent on as a `tool-call` part, before the finish (whose reason
//   becomes 'tool-calls').
//
// Why `processOutputStream` heals: the loop takes the step's tool calls
// from the parts the output processors let through (in @mastra/core 1.71,
// MastraModelOutput collects `tool-call` parts after them, and the
// llm-execution step executes what `_getImmediateToolCalls()` returns and
// writes it into the response message beside the text), so a part sent
// here runs exactly as the model's own call would, in `generate` and
// `stream` alike. `processOutputStep` comes too late (the step's calls are
// read before it runs, and a call it adds is never executed), and
// `processLLMResponse` only observes. (A finish whose reason is already
// 'tool-calls' skips the output processors; such a step made real calls,
// and heals nothing.) A processor
// returns one part for each part it gets; what else it sends waits in the
// step's queue, each part handed to Mastra's reprocessing slot
// (`REPROCESS_PART_KEY`) when the one before it has come back through the
// processors.
//
// `heal: false` strips only; `strip: false` changes no part.
//
// What one request knows lives in Mastra's per-request processor `state`:
// the run its steps belong to, and what the current step offered. The
// request's first model call finds its run by the memory thread when the
// agent has one (a thread is a conversation), else from the prompt (a
// conversation whose history the app passes back continues its run); the
// request's later steps keep that run.
//
// With Mastra's observability on, each finding, strip and heal is an event
// span (type 'generic', named as telemetry.cjs names the signal, the
// attributes as its metadata) under the span Mastra opened for the hook
// that saw it, so Mastra's exporters (its OpenTelemetry export among them)
// carry it; and an event on the active OpenTelemetry span, when one
// records.

const { Guard, withRunMembers } = require('../../guard/core.cjs');
const { modelCalls } = require('../ai-sdk/guard.cjs');
const { functionTools, offeredTools } = require('../../guard/tools.cjs');
const { ScaffoldingFilter } = require('../../index.cjs');

/** The key of this processor's step in Mastra's processor state. */
const STEP = 'seamguard';
/** The key of the request's run in Mastra's processor state. */
const RUN = 'seamguard.run';
/** The key of the claim seam's revision asked for in this request, until its step answers. */
const REVISION = 'seamguard.revision';
// How Mastra begins the system message that carries a retry's reason to
// the model (processor-retry-feedback, in its llm-execution step).
const RETRY_FEEDBACK = '[Processor Feedback]';
// The state key a stream processor sets to have Mastra send one more part
// through the output processors after the one it returns (Mastra's
// `REPROCESS_PART_KEY`, documented in processors/stream-reprocess.d.ts).
const REPROCESS_PART_KEY = '__mastraReprocessPart';
// Marks a part this processor queued, when it comes back through the
// processors (an enumerable symbol, so a processor that copies the part
// with a spread keeps it).
const QUEUED = Symbol('seamguard.queued');

/** A tool's input schema as JSON Schema: Mastra's tools carry an AI SDK schema. */
function jsonSchemaOf(tool) {
  const schema = tool?.parameters ?? tool?.inputSchema;
  return schema?.jsonSchema ?? schema;
}

/** The step's tools and tool choice as the AI SDK's call parameters. */
function callParameters({ tools = {}, activeTools, toolChoice }) {
  const active = Array.isArray(activeTools) ? new Set(activeTools) : undefined;
  const functions = [];
  for (const [name, tool] of Object.entries(tools ?? {})) {
    if (active !== undefined && !active.has(name)) continue;
    // Provider tools run on the provider's side and are never the model's to leak.
    if (tool?.type === 'provider-defined' || tool?.type === 'provider') continue;
    functions.push({ type: 'function', name, inputSchema: jsonSchemaOf(tool) });
  }
  const choice =
    toolChoice === 'none' || toolChoice === 'required' ? { type: toolChoice } : toolChoice?.type === 'tool' ? toolChoice : { type: 'auto' };
  return { tools: functions, toolChoice: choice };
}

/** The memory thread's id, when the agent runs with memory. */
function threadOf(requestContext) {
  try {
    const id = requestContext?.get?.('MastraMemory')?.thread?.id;
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The step's event spans, as a trace sink: each signal an event span
 * under `step.span`, the span of the hook that saw it.
 */
const eventSpans = (step) => (name, attributes) => {
  step.span?.createEventSpan({ type: 'generic', name, metadata: attributes });
};

/** Keeps the span Mastra opened for the hook running now, where it gave one. */
function inHook(step, tracingContext) {
  const span = tracingContext?.currentSpan;
  if (step !== undefined && span !== undefined) step.span = span;
}

/** A text's held tail, as the text-delta that sends it beside `part` (none when empty). */
function tailOf(id, filter, part) {
  const tail = filter.flush();
  return tail ? [{ type: 'text-delta', runId: part.runId, from: part.from, payload: { id, text: tail } }] : [];
}

/**
 * Returns the first of `parts` and queues the rest, marked, in the step's
 * queue: the first of them goes to Mastra's reprocessing slot now, each
 * next one when the one before it comes back (see processOutputStream).
 */
function send(state, parts) {
  const [first, ...rest] = parts;
  if (rest.length > 0) {
    const queue = state[STEP].queue;
    queue.push(...rest.map((part) => ({ ...part, [QUEUED]: true })));
    state[REPROCESS_PART_KEY] = queue.shift();
  }
  return first;
}

/** Whether a prompt message is the system message Mastra's processor retry adds. */
function isRetryFeedback(message) {
  if (message?.role !== 'system') return false;
  const text = typeof message.content === 'string' ? message.content : Array.isArray(message.content) ? message.content.map((part) => part?.text ?? '').join('') : '';
  return text.startsWith(RETRY_FEEDBACK);
}

/** The tripwire's reason: the kinds and tools of the findings that trip. */
function tripReason(acted) {
  const tripped = acted.findings.filter((finding) => finding.trips).map((finding) => `${finding.kind} (${finding.tools.join(', ')})`);
  return `seamguard: stopOn tripped on ${[...new Set(tripped)].join('; ')}`;
}

/**
 * A guard: a processor for a Mastra agent's `inputProcessors` and
 * `outputProcessors` (both), made once and shared by every request the agent
 * serves. `findings` and `ledger` are the latest run's, `run(id)` any live
 * run's.
 */
/**
 * Takes this adapter's own option, `maxProcessorRetries`: the agent's
 * processor retry budget, which the claim seam's `'guard'` posture spends
 * (at most one a turn). The rest goes to the guard core.
 */
function readRetries(options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options) || !('maxProcessorRetries' in options)) return { retries: undefined, rest: options };
  const { maxProcessorRetries, ...rest } = options;
  if (maxProcessorRetries !== undefined && (!Number.isSafeInteger(maxProcessorRetries) || maxProcessorRetries < 0)) {
    throw new TypeError(`createGuard: options.maxProcessorRetries must be a whole number of at least 0, the Agent's own (got ${JSON.stringify(maxProcessorRetries) ?? typeof maxProcessorRetries})`);
  }
  return { retries: maxProcessorRetries, rest };
}

function createGuard(options) {
  const { retries, rest } = readRetries(options);
  const guard = new Guard(rest, 'createGuard', ['maxProcessorRetries']);
  if (guard.claim?.posture === 'guard' && retries === undefined) {
    // Mastra turns a processor's retry into an abort, ending the run with a
    // tripwire, unless the agent allows retries; the processor cannot read
    // the agent's setting, so it is told.
    throw new TypeError(
      "createGuard: options.evidence.posture 'guard' asks Mastra for one processor retry a turn, which Mastra turns into an abort unless the agent allows it: " +
        "set maxProcessorRetries on the Agent (at least 1) and pass the same number here as options.maxProcessorRetries, or use posture 'assist'",
    );
  }
  const calls = modelCalls(guard);

  return withRunMembers(guard, {
    id: 'seamguard',
    name: 'seamguard',

    processInputStep({ state, tools, activeTools, toolChoice, requestContext, tracingContext }) {
      const step = { params: callParameters({ tools, activeTools, toolChoice }), texts: new Map(), realCalls: 0, queue: [], span: tracingContext?.currentSpan };
      state[STEP] = step;
      state[RUN] ??= threadOf(requestContext);
      step.trace = guard.attempt(() => guard.trace(step.span === undefined ? undefined : eventSpans(step)));
    },

    processLLMRequest({ prompt, state, tracingContext }) {
      const step = state[STEP];
      if (step === undefined) return;
      inHook(step, tracingContext);
      // The model call, as the AI SDK middleware sees it: its answer is
      // handed over in processOutputStep. A revision's step carries the
      // correction in Mastra's retry feedback: it quotes the values the
      // correction names, so it is no part of the conversation the guard
      // keeps (the corpus holds the correction as the revision's exchange).
      const asked = state[REVISION] !== undefined && Array.isArray(prompt) ? prompt.filter((message) => !isRetryFeedback(message)) : prompt;
      step.call = calls.begin({ ...step.params, prompt: asked }, state[RUN], step.trace);
    },

    async processOutputStep({ state, toolCalls, text, messageList, abort, retryCount, tracingContext }) {
      const step = state[STEP];
      inHook(step, tracingContext);
      let acted;
      if (step?.call !== undefined) {
        const call = await step.call;
        step.call = undefined;
        if (call !== undefined) {
          state[RUN] = call.run;
          const content = [
            { type: 'text', text: typeof text === 'string' ? text : '' },
            ...(toolCalls ?? []).map((toolCall) => ({ type: 'tool-call', toolCallId: toolCall.toolCallId, toolName: toolCall.toolName, input: toolCall.args })),
          ];
          const revision = state[REVISION];
          state[REVISION] = undefined;
          const asked = calls.answered(call, content, revision);
          // Only while the agent's retries are not spent (other processors
          // may have spent them this step): past them Mastra would end the
          // run, so the first answer stands and is filed.
          const mayRetry = typeof abort === 'function' && (Number.isSafeInteger(retryCount) ? retryCount : 0) < (retries ?? 0);
          if (asked !== undefined && mayRetry) {
            // The claim seam's one revision, by Mastra's own processor retry:
            // the step's answer is rolled back and the model asked again with
            // the correction as the retry's reason.
            state[REVISION] = asked;
            guard.failed(call);
            abort(asked.correction[1].content, { retry: true, metadata: { seamguard: { revision: asked.unsupported } } });
          } else if (asked !== undefined) {
            calls.answered(call, content, {});
          }
          if (guard.stops) acted = calls.actOn(call);
        }
      }
      // Mastra's own tripwire: the run ends after this step (whose tool
      // calls Mastra has already run) with `tripwire` set, the findings in
      // its metadata.
      if (acted?.stop && typeof abort === 'function') abort(tripReason(acted), { metadata: acted });
      return messageList;
    },

    processOutputStream({ part, state, tracingContext }) {
      const step = state[STEP];
      inHook(step, tracingContext);
      // While parts this processor sent wait, the part here is the last one
      // sent, back through the processors (Mastra sends nothing new before
      // its reprocessing slot is empty): the next one's turn.
      if (step?.queue.length > 0 && state[REPROCESS_PART_KEY] === undefined) state[REPROCESS_PART_KEY] = step.queue.shift();
      if (part[QUEUED] === true || step === undefined) return part;
      switch (part.type) {
        case 'tool-call':
          step.realCalls += 1;
          return part;
        case 'text-delta': {
          step.seam ??= guard.streamSeam(functionTools(step.params), offeredTools(step.params), step.trace);
          if (step.seam.plan === undefined) return part;
          let filter = step.texts.get(part.payload.id);
          if (filter === undefined) {
            filter = new ScaffoldingFilter(step.seam.plan);
            step.texts.set(part.payload.id, filter);
          }
          const text = filter.feed(part.payload.text);
          return text ? { ...part, payload: { ...part.payload, text } } : null;
        }
        case 'text-end': {
          const filter = step.texts.get(part.payload.id);
          if (filter === undefined) return part;
          step.texts.delete(part.payload.id);
          return send(state, [...tailOf(part.payload.id, filter, part), part]);
        }
        case 'finish': {
          if (step.seam === undefined) return part;
          // Texts the model never ended give their tails first.
          const parts = [...step.texts].flatMap(([id, filter]) => tailOf(id, filter, part));
          step.texts.clear();
          const healed = step.seam.heal(step.realCalls);
          if (healed.length === 0) return send(state, [...parts, part]);
          const toolCalls = healed.map(({ toolCallId, toolName, input }) => ({ type: 'tool-call', runId: part.runId, from: part.from, payload: { toolCallId, toolName, args: input } }));
          const finish = { ...part, payload: { ...part.payload, stepResult: { ...part.payload?.stepResult, reason: 'tool-calls' } } };
          return send(state, [...parts, ...toolCalls, finish]);
        }
        default:
          return part;
      }
    },
  });
}

exports.createGuard = createGuard;
