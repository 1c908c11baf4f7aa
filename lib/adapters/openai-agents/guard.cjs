'use strict';
// The guard for the OpenAI Agents SDK (`@openai/agents`), as a `Model` that
// wraps the agent's model: the one place in the SDK that sees, per turn, the
// model input (after `callModelInputFilter`), the tools on offer and the
// answer with its function calls, and, streaming, the answer's text. It only
// translates those into the guard core's terms (../guard/core.cjs).
//
// The stream seam: a leaked call to a tool the model was told of is
// stripped from the answer's text, the streamed `output_text_delta` events
// and the response's message text alike, so the reader, the final output
// and the history agree. When the answer made no real tool call, a leaked
// call to a tool the model may call now, with arguments its schema admits,
// is healed: it joins the response's output as a `function_call` item,
// which the runner executes as it executes the model's own (it reads a
// turn's calls from `getResponse`'s output, and, streaming, from the
// `response_done` event's). An emptied message item is left out then. The
// guard judges the answer as the runner gets it, healed calls and all.
// Where the provider keeps the conversation, nothing heals (see
// keepsConversation). `heal: false` strips only; `strip: false` changes
// nothing.
//
// Each finding, strip and heal is a custom span in the Agents SDK's own
// trace, under the span the model call began in (its name as telemetry.cjs
// names the signal, the attributes as its data), so every trace processor
// sees it; and an event on the active OpenTelemetry span, when one records.

const { Guard, MESSAGE_KINDS, withRunMembers } = require('../../guard/core.cjs');
const { valueOfText } = require('../../guard/text.cjs');
const { ScaffoldingFilter } = require('../../index.cjs');

/** The text of a message's content: a string, or its text parts. */
function textOf(content) {
  if (typeof content === 'string') return content;
  let text = '';
  for (const part of content ?? []) {
    if (typeof part?.text === 'string') text = text === '' ? part.text : `${text}\n${part.text}`;
  }
  return text;
}

/** What a function call's result reads as: its text as the JSON it spells. */
function valueOf(output) {
  if (typeof output === 'string') return valueOfText(output);
  if (output?.type === 'text') return valueOfText(output.text);
  // Structured outputs (text, images, files): the model reads the text.
  return Array.isArray(output) ? textOf(output) : output;
}

// The kinds of input, as the guard tells them apart. One model response is
// several items (its text a message item, each call a function_call item),
// so the assistant's items in a row are read as one turn, as the AI SDK's
// prompt holds them: named by its first call's id, or by its first
// message's id or text. A call's result is named by the call's id.
const { SYSTEM, USER, ASSISTANT: TURN, CALLS, RESULTS: RESULT } = MESSAGE_KINDS;
const OTHER = 5;

const isCall = (item) => item.type === 'function_call';
const isAssistantMessage = (item) => (item.type === undefined || item.type === 'message') && item.role === 'assistant';
const isResult = (item) => item.type === 'function_call_result';

/** The model input as messages: the assistant's items in a row grouped as `{ turn: items }`. */
function turnsOf(items) {
  const out = [];
  let turn;
  for (const item of items) {
    if (isCall(item) || isAssistantMessage(item) || item.type === 'reasoning') {
      if (turn === undefined) {
        turn = { turn: [] };
        out.push(turn);
      }
      turn.turn.push(item);
    } else {
      turn = undefined;
      out.push(item);
    }
  }
  return out;
}

/** Reads the model input, grouped by `turnsOf`, for the guard. */
const inputItems = {
  kindOf(message) {
    if (message.turn !== undefined) return message.turn.some(isCall) ? CALLS : TURN;
    if (isResult(message)) return RESULT;
    if (message.type !== undefined && message.type !== 'message') return OTHER;
    return message.role === 'system' || message.role === 'developer' ? SYSTEM : USER;
  },
  keyOf(message, kind) {
    switch (kind) {
      case CALLS:
        return message.turn.find(isCall).callId;
      case TURN: {
        const first = message.turn.find(isAssistantMessage) ?? message.turn[0];
        return first.id ?? textOf(first.content);
      }
      case RESULT:
        return message.callId;
      case OTHER:
        return message.id ?? message.callId ?? message.type;
      default:
        return message.id ?? textOf(message.content);
    }
  },
  entriesOf(message) {
    switch (inputItems.kindOf(message)) {
      case SYSTEM:
        return [{ role: 'system', text: textOf(message.content) }];
      case USER:
        return [{ role: 'user', text: textOf(message.content) }];
      case TURN:
      case CALLS: {
        const text = message.turn.filter(isAssistantMessage).map((item) => textOf(item.content)).join('\n');
        const calls = message.turn.filter(isCall).map((item) => ({ toolCallId: item.callId, toolName: item.name, input: callInput(item) }));
        return [{ role: 'assistant', text, calls }];
      }
      case RESULT:
        return [{ role: 'tool', toolName: message.name, toolCallId: message.callId, value: valueOf(message.output), error: message.status === 'incomplete' }];
      default:
        // Hosted tools' calls and the rest: nothing a check reads.
        return [];
    }
  },
};

/** A function call's arguments, decoded when they are JSON (as the model meant them). */
const callInput = (item) => (typeof item.arguments === 'string' ? valueOfText(item.arguments) : item.arguments);

/** The request's instructions and input as one list of messages. */
function promptOf(request) {
  const input = typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : turnsOf(request.input ?? []);
  const instructions = request.systemInstructions;
  return typeof instructions === 'string' && instructions !== '' ? [{ role: 'system', content: instructions }, ...input] : input;
}

/**
 * The function tools and handoffs the request tells the model about, as
 * `{ name, inputSchema }`, and of those, the ones it may call, as
 * `modelSettings.toolChoice` allows.
 */
function toolsOf(request) {
  const told = [];
  for (const tool of request.tools ?? []) {
    if (tool?.type === 'function' && typeof tool.name === 'string') told.push({ name: tool.name, inputSchema: tool.parameters });
  }
  for (const handoff of request.handoffs ?? []) {
    if (typeof handoff?.toolName === 'string') told.push({ name: handoff.toolName, inputSchema: handoff.inputJsonSchema });
  }
  const choice = request.modelSettings?.toolChoice;
  const offered = choice === 'none' ? [] : typeof choice === 'string' && choice !== 'auto' && choice !== 'required' ? told.filter((tool) => tool.name === choice) : told;
  return { told, offered };
}

/** The text of a response's message items, for the claim seam. */
function outputText(output) {
  let text = '';
  for (const item of Array.isArray(output) ? output : []) {
    if (item?.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content) if (part?.type === 'output_text' && typeof part.text === 'string') text += part.text;
  }
  return text;
}

/** A request's input as a list of items. */
const inputOf = (request) => (typeof request.input === 'string' ? [{ type: 'message', role: 'user', content: request.input }] : [...(request.input ?? [])]);

/** One message of the claim seam's correction as a model input item. */
const correctionItem = ({ role, content }) =>
  role === 'assistant'
    ? { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: String(content) }] }
    : { type: 'message', role: 'user', content: String(content) };

/** The response's function calls, for `answered`. */
const callsOf = (output) =>
  (output ?? []).filter((item) => item?.type === 'function_call').map((item) => ({ toolCallId: item.callId, toolName: item.name, input: item.arguments }));

/** The response's answer as the next model input holds it: its items, one turn. */
function answerOf(output) {
  const items = Array.isArray(output) ? output.filter((item) => item !== null && typeof item === 'object' && (isCall(item) || isAssistantMessage(item) || item.type === 'reasoning')) : [];
  return items.length === 0 ? undefined : { turn: items };
}

/** The response's output with leaked calls stripped from its messages' text. */
function stripOutput(output, plan) {
  return output.map((item) => {
    if (item?.type !== 'message' || !Array.isArray(item.content)) return item;
    let changed = false;
    const content = item.content.map((part) => {
      if (part?.type !== 'output_text' || typeof part.text !== 'string') return part;
      const text = ScaffoldingFilter.strip(part.text, plan);
      if (text === part.text) return part;
      changed = true;
      return { ...part, text };
    });
    return changed ? { ...item, content } : item;
  });
}

/** A tool call the model really made: a function call, or a hosted, computer, shell or patch call. */
const isToolCall = (item) => typeof item?.type === 'string' && item.type.endsWith('_call');

/** A message item whose every part is text the filter emptied. */
const isEmptied = (item) => item?.type === 'message' && Array.isArray(item.content) && item.content.every((part) => part?.type === 'output_text' && part.text === '');

/** A healed call as the output item the runner executes. */
const functionCallItem = ({ toolCallId, toolName, input }) => ({ type: 'function_call', callId: toolCallId, name: toolName, arguments: JSON.stringify(input), status: 'completed' });

/**
 * The response's output as the runner gets it: its messages' text
 * stripped and, when it made no real tool call, its healed calls added
 * (emptied messages left out then); as it came when the seam strips
 * nothing. `streamed`: the answer's text already went through the seam's
 * filters as deltas, which read its leaks; the whole text is stripped
 * again for the runner, so its leaks are healed before that (the seam
 * heals a leak once, and the second reading adds none to heal).
 */
function seamOutput(output, seam, streamed) {
  if (seam.plan === undefined || !Array.isArray(output)) return output;
  const realCalls = output.filter(isToolCall).length;
  const early = streamed ? seam.heal(realCalls) : undefined;
  // Text the stream's filters read already is read again quietly: each strip is recorded once.
  const stripped = streamed ? seam.quietly(() => stripOutput(output, seam.plan)) : stripOutput(output, seam.plan);
  const healed = early ?? seam.heal(realCalls);
  if (healed.length === 0) return stripped;
  return [...stripped.filter((item) => !isEmptied(item)), ...healed.map(functionCallItem)];
}

/**
 * The guard's run of an agent run that ended, from what an output guardrail
 * is handed: by the function calls the agent run made (their ids are the
 * model's, one per call), else by its final answer, which the guard saw as
 * the last model call's (message ids, or the text, which a provider that
 * gives every message the same id leaves to tell runs apart).
 */
function runOfOutput(guard, details) {
  const output = Array.isArray(details?.output) ? details.output : [];
  const callIds = output.map((item) => item?.rawItem ?? item).filter((item) => item?.type === 'function_call').map((item) => item.callId);
  const byCalls = callIds.length > 0 ? guard.runOfCalls(callIds) : undefined;
  if (byCalls !== undefined) return byCalls;
  const answer = answerOf(details?.modelResponse?.output);
  return answer === undefined ? undefined : guard.runOfAnswer(answer, inputItems);
}

/**
 * Whether the provider keeps the conversation (`previousResponseId`,
 * `conversationId`): then it holds the model's output as the model wrote
 * it, and the runner sends it only the turn's new items, so a healed call
 * would be one the provider never saw, and its result one it refuses.
 * Nothing is healed there; leaks are still stripped.
 */
const keepsConversation = (request) => Boolean(request.previousResponseId || request.conversationId);

// The Agents SDK keeps one trace provider for every copy of it loaded (its
// CommonJS and its ES module build alike), under this global symbol. The
// guard finds it there rather than loading the SDK: loading its entry point
// registers the SDK's default trace processor again, beside the app's.
const TRACE_PROVIDER = Symbol.for('openai.agents.core.traceProvider');

/**
 * The trace's custom spans, as a trace sink: each signal a span of its
 * own, started and ended at once, under the span current where the signal
 * arises (the runner calls the model inside its turn's span). The SDK's
 * provider makes a no-op span outside a trace or with tracing disabled.
 * `undefined` when no Agents SDK has set up its tracing.
 */
function customSpans() {
  const provider = globalThis[TRACE_PROVIDER];
  if (typeof provider?.createSpan !== 'function') return undefined;
  return (name, attributes) => {
    const span = provider.createSpan({ data: { type: 'custom', name, data: attributes } });
    span.start();
    span.end();
  };
}

const isModel = (model) => model !== null && typeof model === 'object' && typeof model.getResponse === 'function' && typeof model.getStreamedResponse === 'function';

/**
 * A guard, made once for every run: `model(base)` wraps an Agents SDK
 * `Model`, `modelProvider(base)` a `ModelProvider`; `findings` and `ledger`
 * are the run's.
 */
function createGuard(options) {
  const guard = new Guard(options, 'createGuard');

  /**
   * The guard's side of a model call: its stream seam, and a promise of the
   * call, found from the prompt (a model hands the guard no run identity);
   * its failure never reaches the run.
   */
  const begin = (request) => {
    const tools = toolsOf(request);
    const trace = guard.attempt(() => guard.trace(customSpans()));
    const seam = guard.streamSeam(tools.told, keepsConversation(request) ? [] : tools.offered, trace);
    return { seam, call: guard.attempt(() => guard.modelCall(promptOf(request), inputItems, tools.offered, tools.told, undefined, trace)) };
  };
  /**
   * The answer arrived: judged; `{ correction }` returned when the claim
   * seam asks for its one revision. `revision`: the revision this answer
   * gave (`{ correction }`), or stands in for when it failed (`{}`).
   */
  const answered = (output, call, revision = undefined) => {
    if (call === undefined) return undefined;
    const said = { text: outputText(output), revised: revision !== undefined, revision: revision?.correction };
    return guard.attempt(() => guard.answered(call, callsOf(output), answerOf(output), inputItems, said));
  };
  /** The request asked again with the claim seam's correction after its input. */
  const revisedRequest = (request, revision) => ({ ...request, input: [...inputOf(request), ...revision.correction.map(correctionItem)] });
  /** A revision that failed (see Guard.revisionFailed): the request's signal says whether the run was aborted. */
  const revisionFailed = (request, error) => guard.revisionFailed(error, request?.signal?.aborted === true);

  function model(base) {
    if (!isModel(base)) {
      throw new TypeError(`guard.model: model must be an Agents SDK Model, with getResponse and getStreamedResponse (got ${base === null ? 'null' : typeof base})`);
    }
    const wrapped = {
      async getResponse(request) {
        const { seam, call: pending } = begin(request);
        const call = await pending;
        let response;
        try {
          response = await base.getResponse(request);
        } catch (error) {
          guard.failed(call);
          throw error;
        }
        const output = seamOutput(response?.output, seam);
        const revision = answered(output, call);
        if (revision === undefined) return { ...response, output };
        // The claim seam's one revision: the runner gets only its answer.
        let second;
        try {
          second = await base.getResponse(revisedRequest(request, revision));
        } catch (error) {
          revisionFailed(request, error);
          answered(output, call, {});
          return { ...response, output };
        }
        const revisedOutput = seamOutput(second?.output, seam);
        answered(revisedOutput, call, revision);
        return { ...second, output: revisedOutput };
      },
      async *getStreamedResponse(request) {
        const { seam, call: pending } = begin(request);
        const call = await pending;
        try {
          if (guard.claim?.posture === 'guard') yield* held(base, request, seam, call);
          else yield* streamed(base.getStreamedResponse(request), seam, call);
        } catch (error) {
          guard.failed(call);
          throw error;
        }
      },
    };
    if (base.supportsPromptModelSelection !== undefined) wrapped.supportsPromptModelSelection = base.supportsPromptModelSelection;
    if (typeof base.getRetryAdvice === 'function') wrapped.getRetryAdvice = (args) => base.getRetryAdvice(args);
    return wrapped;
  }

  /**
   * A streamed response under the claim seam's 'guard' posture: its events
   * are held until `response_done` (a final answer is judged whole before
   * the reader sees it), then sent; or, when the seam asks for its
   * revision, dropped, and the revision's events sent instead.
   */
  async function* held(base, request, seam, call) {
    const events = [];
    let revision;
    for await (const event of streamed(base.getStreamedResponse(request), seam, call, (asked) => (revision = asked))) events.push(event);
    if (revision === undefined) {
      yield* events;
      return;
    }
    const second = [];
    try {
      for await (const event of streamed(base.getStreamedResponse(revisedRequest(request, revision)), seam, call, undefined, revision)) second.push(event);
    } catch (error) {
      revisionFailed(request, error);
      const done = events.find((event) => event?.type === 'response_done');
      answered(done?.response?.output, call, {});
      yield* events;
      return;
    }
    yield* second;
  }

  /**
   * A streamed response's events, its text stripped; at `response_done`,
   * its output made what the runner gets (stripped, healed) and judged.
   * `onRevision` gets the revision the claim seam asks for, if it does;
   * `revision`: the one this response answers.
   */
  async function* streamed(events, seam, call, onRevision = undefined, revision = undefined) {
    // One filter per message item the text streams into.
    const open = new Map();
    let fed = false;
    for await (const event of events) {
      if (event?.type === 'output_text_delta' && seam.plan !== undefined) {
        let filter = open.get(event.itemId);
        if (filter === undefined) {
          filter = new ScaffoldingFilter(seam.plan);
          open.set(event.itemId, filter);
          fed = true;
        }
        const delta = filter.feed(event.delta);
        if (delta) yield { ...event, delta };
      } else if (event?.type === 'response_done') {
        // Each text's held tail, then the whole answer, its text stripped alike.
        for (const [itemId, filter] of open) {
          const tail = filter.flush();
          if (tail) yield itemId === undefined ? { type: 'output_text_delta', delta: tail } : { type: 'output_text_delta', itemId, delta: tail };
        }
        open.clear();
        const output = seamOutput(event.response?.output, seam, fed);
        const asked = answered(output, call, revision);
        if (asked !== undefined) onRevision?.(asked);
        yield { ...event, response: { ...event.response, output } };
      } else {
        yield event;
      }
    }
  }

  function modelProvider(base) {
    if (base === null || typeof base?.getModel !== 'function') {
      throw new TypeError(`guard.modelProvider: provider must be an Agents SDK ModelProvider, with getModel (got ${base === null ? 'null' : typeof base})`);
    }
    return { getModel: async (name) => model(await base.getModel(name)) };
  }

  /**
   * An output guardrail for `Agent({ outputGuardrails })` or
   * `Runner({ outputGuardrails })`: at the run's final output, the findings
   * of its conversation that nothing acted on yet, in `outputInfo`; its
   * tripwire fires when one trips `stopOn`.
   */
  const outputGuardrail = {
    name: 'seamguard',
    async execute({ details } = {}) {
      const run = guard.attempt(() => runOfOutput(guard, details));
      const acted = guard.attempt(() => guard.actOnRun(run));
      return { tripwireTriggered: acted?.stop === true, outputInfo: { runId: run?.id, findings: acted?.findings ?? [] } };
    },
  };

  return withRunMembers(guard, {
    model,
    modelProvider,
    outputGuardrail,
  });
}

exports.createGuard = createGuard;
