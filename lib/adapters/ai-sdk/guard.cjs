'use strict';
// The guard as an AI SDK language-model middleware (6 and 7). It only
// translates: the prompt's messages, the tools on offer and the answer's tool
// calls into the guard core's terms (../guard/core.cjs). It hands the model
// and the caller everything exactly as it came, and needs nothing from `ai`
// at run time but its version (version.cjs).

const { Guard, MESSAGE_KINDS, withRunMembers } = require('../../guard/core.cjs');
const { offeredTools, functionTools } = require('../../guard/tools.cjs');
const { valueOfText } = require('../../guard/text.cjs');
const { readableOf } = require('./readable.cjs');
const { specificationVersion } = require('./version.cjs');

/**
 * The text parts (and reasoning) of a message's content, one per line; an
 * empty part adds no line (a response message leaves empty parts out).
 */
function textOf(content) {
  if (typeof content === 'string') return content;
  let text = '';
  for (const part of content) {
    if ((part?.type === 'text' || part?.type === 'reasoning') && typeof part.text === 'string' && part.text !== '') {
      text = text === '' ? part.text : `${text}\n${part.text}`;
    }
  }
  return text;
}

/** What a tool-result part's output reads as, to the model. */
function readOutput(output) {
  switch (output?.type) {
    case 'json':
    case 'text':
      return { value: output.value, error: false };
    case 'error-json':
    case 'error-text':
      return { value: output.value, error: true };
    case 'execution-denied':
      return { value: output.reason ?? '', error: true };
    case 'content':
      // Text and media parts: the model reads the text; it is no rowset.
      return { value: textOf(output.value), error: false };
    default:
      return { value: output?.value, error: false };
  }
}

/** The call id of the first part of this type, if any. */
function firstCallId(content, type) {
  if (!Array.isArray(content)) return undefined;
  for (const part of content) {
    if (part?.type === type) return part.toolCallId;
  }
  return undefined;
}

const resultEntry = (part) => ({ role: 'tool', toolName: part.toolName, toolCallId: part.toolCallId, ...readOutput(part.output) });

// The kinds of prompt message, as the guard tells them apart. An assistant
// message that calls tools is named by its first call's id, and so is the
// tool message that answers it: two kinds, so the two names never meet.
const { SYSTEM, USER, ASSISTANT, CALLS, RESULTS } = MESSAGE_KINDS;
const KINDS = { system: SYSTEM, user: USER, assistant: ASSISTANT, tool: RESULTS };

/** Reads the AI SDK's prompt messages (`LanguageModelV3Prompt` and V4) for the guard. */
const promptMessages = {
  kindOf(message) {
    const kind = KINDS[message.role] ?? USER;
    return kind === ASSISTANT && firstCallId(message.content, 'tool-call') !== undefined ? CALLS : kind;
  },
  keyOf(message, kind) {
    switch (kind) {
      case SYSTEM:
        return message.content;
      case CALLS:
        return firstCallId(message.content, 'tool-call');
      case RESULTS:
        return firstCallId(message.content, 'tool-result') ?? '';
      default:
        return textOf(message.content);
    }
  },
  entriesOf(message) {
    switch (message.role) {
      case 'system':
        return [{ role: 'system', text: message.content }];
      case 'user':
        return [{ role: 'user', text: textOf(message.content) }];
      case 'assistant': {
        const calls = [];
        const results = [];
        for (const part of message.content) {
          if (part === null || typeof part !== 'object') continue;
          // The prompt holds a call's input decoded; an app that wrote the
          // prompt itself may have left it as JSON text.
          if (part.type === 'tool-call') calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: typeof part.input === 'string' ? valueOfText(part.input) : part.input });
          // A provider-executed tool's result sits in the assistant message.
          else if (part.type === 'tool-result') results.push(resultEntry(part));
        }
        return [{ role: 'assistant', text: textOf(message.content), calls }, ...results];
      }
      case 'tool':
        return message.content.filter((part) => part?.type === 'tool-result').map(resultEntry);
      default:
        return [];
    }
  },
};

/**
 * The guard's side of one AI SDK model call, for this middleware and for
 * the adapters that run AI SDK models (Mastra): `begin(params)` before the
 * call (a promise of the call, `undefined` when nothing is judged), then
 * `answered(call, content)` with the answer's content parts, or
 * `failed(call)` when the model call threw. `scope` is the conversation's
 * identity where the caller has one (see Guard.modelCall); `trace` where
 * the call's findings are recorded (the active OpenTelemetry span, the
 * AI SDK's own with `experimental_telemetry`, unless the caller gives one).
 */
function modelCalls(guard) {
  return {
    begin: (params, scope, trace) =>
      guard.attempt(() =>
        guard.modelCall(params?.prompt ?? [], promptMessages, offeredTools(params), functionTools(params), scope ?? runIdOf(params), trace ?? guard.trace()),
      ),
    /**
     * The answer arrived: judged, and `{ correction }` returned when the
     * claim seam asks for its one revision (the answer is then not the
     * call's yet). `revision`, when given, is the revision this answer
     * gave (`{ correction }`), or stands in for, when it failed (`{}`):
     * such an answer is never revised again.
     */
    answered: (call, content, revision = undefined) =>
      guard.attempt(() => {
        const parts = Array.isArray(content) ? content : [];
        const calls = parts.filter((part) => part?.type === 'tool-call');
        return guard.answered(call, calls, { role: 'assistant', content: parts }, promptMessages, { text: answerTextOf(parts), revised: revision !== undefined, revision: revision?.correction });
      }),
    /**
     * Asks the model once more for the claim seam's revision: `ask(prompt)`
     * with the correction appended to `params.prompt`. A revision that
     * fails is said through onError and `undefined` returned: the first
     * answer stands, judged as final.
     */
    async revise(call, revision, params, ask) {
      try {
        return await ask([...(params?.prompt ?? []), ...revision.correction.map(correctionMessage)]);
      } catch (error) {
        guard.revisionFailed(error, params?.abortSignal?.aborted === true);
        return undefined;
      }
    },
    failed: (call) => guard.attempt(() => guard.failed(call)),
    /** What the call filed and nothing acted on yet, as `providerMetadata.seamguard` carries it. */
    actOn: (call) => guard.attempt(() => guard.actOn(call)),
    /** The model's own call, `make()`; when it throws, the run waits for its retry. */
    async made(call, make) {
      try {
        return await make();
      } catch (error) {
        if (call !== undefined) guard.attempt(() => guard.failed(call));
        throw error;
      }
    },
  };
}

/** The text an answer's content shows the reader: its text parts, one after another. */
function answerTextOf(parts) {
  let text = '';
  for (const part of parts) {
    if (part?.type === 'text' && typeof part.text === 'string') text += part.text;
  }
  return text;
}

/** One message of the claim seam's correction (`{ role, content }`, text) as a prompt message. */
const correctionMessage = ({ role, content }) => ({ role: role === 'assistant' ? 'assistant' : 'user', content: [{ type: 'text', text: String(content) }] });

/** The usage of an answer and its revision, added up. */
function addUsage(first, second) {
  if (first === undefined || second === undefined) return second ?? first;
  const add = (key) => {
    const a = first[key];
    const b = second[key];
    if (typeof a === 'number' && typeof b === 'number') return a + b;
    if (a !== null && typeof a === 'object' && b !== null && typeof b === 'object' && typeof a.total === 'number' && typeof b.total === 'number') return { ...b, total: a.total + b.total };
    return b;
  };
  return { ...second, inputTokens: add('inputTokens'), outputTokens: add('outputTokens') };
}

/**
 * The run id a caller names in `providerOptions: { seamguard: { runId } }`
 * (the AI SDK hands a call's provider options to every middleware, and each
 * provider reads only its own key): a conversation's own id, where the app
 * has one, instead of the run the guard finds from the prompt.
 */
function runIdOf(params) {
  const runId = params?.providerOptions?.seamguard?.runId;
  return typeof runId === 'string' && runId !== '' ? runId : undefined;
}

/**
 * `result` (a generate result or a stream's finish part) with the call's
 * findings in `providerMetadata.seamguard` (`{ runId, findings, stop }`,
 * plain JSON), the provider's own metadata kept; as it came when the call
 * filed none.
 */
function withFindings(result, acted) {
  if (acted === undefined || result === null || typeof result !== 'object') return result;
  return { ...result, providerMetadata: { ...result.providerMetadata, seamguard: acted } };
}

/**
 * Whether the latest step's model call filed a finding that trips
 * `stopOn`: a stop condition for `stopWhen`, read from the step's
 * `providerMetadata`, so it serves every conversation at once.
 */
function stoppedByFindings({ steps } = {}) {
  try {
    return Array.isArray(steps) && steps.at(-1)?.providerMetadata?.seamguard?.stop === true;
  } catch {
    return false;
  }
}

/**
 * A streamed answer's content as the response message will hold it: its
 * texts and reasonings (by id, in the order they began) and its tool calls.
 */
function streamedContent() {
  const content = [];
  const open = new Map();
  const add = (type, id, delta) => {
    const key = `${type}\u0000${id}`;
    let part = open.get(key);
    if (part === undefined) {
      part = { type, text: '' };
      open.set(key, part);
      content.push(part);
    }
    if (typeof delta === 'string') part.text += delta;
  };
  return {
    content,
    read(part) {
      switch (part?.type) {
        case 'text-delta':
          add('text', part.id, part.delta ?? part.text);
          break;
        case 'reasoning-delta':
          add('reasoning', part.id, part.delta ?? part.text);
          break;
        case 'tool-call':
          content.push(part);
          break;
        default:
      }
    },
  };
}

/**
 * A streamed answer under the claim seam's `'guard'` posture. An answer
 * that calls tools is not final and streams as it comes, from its first
 * tool call on; until then its parts are held, for a final answer must be
 * judged whole before the reader sees it. At the finish: a grounded answer
 * is sent as it came; one the seam asks to revise is dropped, and the
 * revision's stream is sent instead, its finish carrying both usages.
 */
function heldStream(calls, call, first, params, model, guard) {
  async function* parts() {
    const answer = streamedContent();
    const held = [];
    let passing = false;
    let finish;
    for await (const part of first) {
      if (passing) {
        if (part?.type === 'finish') {
          calls.answered(call, answer.content);
          yield withFindings(part, calls.actOn(call));
          finish = part;
          continue;
        }
        answer.read(part);
        yield part;
        continue;
      }
      if (part?.type === 'error') {
        calls.failed(call);
        yield* held.splice(0);
        yield part;
        passing = undefined;
        break;
      }
      if (part?.type === 'tool-call') {
        // Not a final answer: what was held goes, and the rest streams.
        passing = true;
        answer.read(part);
        yield* held.splice(0);
        yield part;
        continue;
      }
      if (part?.type === 'finish') {
        finish = part;
        break;
      }
      answer.read(part);
      held.push(part);
    }
    if (passing !== false) {
      if (passing === true && finish === undefined) calls.answered(call, answer.content);
      return;
    }
    const revision = calls.answered(call, answer.content);
    if (revision === undefined) {
      yield* held;
      if (finish !== undefined) yield withFindings(finish, calls.actOn(call));
      return;
    }
    const revised = await calls.revise(call, revision, params, (prompt) => model.doStream({ ...params, prompt }));
    if (revised === undefined) {
      calls.answered(call, answer.content, {});
      yield* held;
      if (finish !== undefined) yield withFindings(finish, calls.actOn(call));
      return;
    }
    const second = streamedContent();
    let judged = false;
    for await (const part of revised.stream) {
      if (part?.type === 'finish') {
        judged = true;
        calls.answered(call, second.content, revision);
        yield withFindings({ ...part, usage: addUsage(finish?.usage, part.usage) }, calls.actOn(call));
        continue;
      }
      // The reader's stream started with the first answer's stream-start.
      if (part?.type === 'stream-start') continue;
      second.read(part);
      yield part;
    }
    if (!judged) calls.answered(call, second.content, revision);
  }
  return readableOf(parts(), (error) => guard.report(error));
}

/**
 * A guard: `middleware` for `wrapLanguageModel`, made once and shared by
 * every conversation the model serves; each conversation's run is found
 * from its prompt. `findings` and `ledger` are the latest run's,
 * `run(id)` any live run's.
 */
function createGuard(options) {
  const guard = new Guard(options, 'createGuard');
  const calls = modelCalls(guard);

  const middleware = {
    specificationVersion: specificationVersion(),
    async wrapGenerate({ doGenerate, params, model }) {
      const call = await calls.begin(params);
      const result = await calls.made(call, doGenerate);
      if (call === undefined) return result;
      const revision = calls.answered(call, result?.content);
      if (revision === undefined) return withFindings(result, calls.actOn(call));
      // The claim seam asked for its one revision: the caller gets only the
      // revised answer (or the first, when the revision failed).
      const revised = await calls.revise(call, revision, params, (prompt) => model.doGenerate({ ...params, prompt }));
      const final = revised === undefined ? result : { ...revised, usage: addUsage(result?.usage, revised?.usage) };
      calls.answered(call, final?.content, revised === undefined ? {} : revision);
      return withFindings(final, calls.actOn(call));
    },
    async wrapStream({ doStream, params, model }) {
      const call = await calls.begin(params);
      const response = await calls.made(call, doStream);
      if (call === undefined) return response;
      if (guard.claim?.posture === 'guard') return { ...response, stream: heldStream(calls, call, response.stream, params, model, guard) };
      // The answer is judged whole: at its finish part, or when the stream
      // ends without one. A stream that errors fails the call.
      const answer = streamedContent();
      let judged = false;
      const judge = () => {
        if (judged) return;
        judged = true;
        calls.answered(call, answer.content);
      };
      const watch = new TransformStream({
        transform(part, controller) {
          try {
            if (part?.type === 'error') {
              judged = true;
              calls.failed(call);
            } else if (part?.type === 'finish') {
              judge();
              part = withFindings(part, calls.actOn(call));
            } else answer.read(part);
          } catch (error) {
            guard.report(error);
          }
          controller.enqueue(part);
        },
        flush: judge,
      });
      return { ...response, stream: response.stream.pipeThrough(watch) };
    },
  };

  return withRunMembers(guard, {
    middleware,
    // A StopCondition: `stopWhen: [stepCountIs(n), guard.stopWhen]`.
    stopWhen: stoppedByFindings,
    // The guard is a middleware itself too, so `middleware: guard` (an easy
    // slip for `guard.middleware`) guards rather than silently passing through.
    ...middleware,
  });
}

exports.createGuard = createGuard;
exports.modelCalls = modelCalls;
exports.promptMessages = promptMessages;
