'use strict';
// The guard for the OpenAI Agents SDK (`@openai/agents`), as a `Model` that
// wraps the agent's model: the one place in the SDK that sees, per turn, the
// model input (after `callModelInputFilter`), the tools on offer and the
// answer with its function calls, and, streaming, the answer's text. It only
// translates those into the guard core's terms (../guard/core.cjs), and
// strips a leaked call to an offered tool from the answer's text (the stream
// seam): the streamed `output_text_delta` events and the response's message
// text alike, so the reader, the final output and the history agree.

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
  if (!Array.isArray(output)) return output;
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

const isModel = (model) => model !== null && typeof model === 'object' && typeof model.getResponse === 'function' && typeof model.getStreamedResponse === 'function';

/**
 * A guard, made once for every run: `model(base)` wraps an Agents SDK
 * `Model`, `modelProvider(base)` a `ModelProvider`; `findings` and `ledger`
 * are the run's.
 */
function createGuard(options) {
  const guard = new Guard(options, 'createGuard');

  /**
   * The guard's side of a model call: the stream seam's filter plan, and
   * a promise of the call, found from the prompt (a model hands the guard
   * no run identity); its failure never reaches the run.
   */
  const begin = (request) => {
    const tools = toolsOf(request);
    const plan = guard.filterPlan(tools.told);
    return { plan, call: guard.attempt(() => guard.modelCall(promptOf(request), inputItems, tools.offered, tools.told)) };
  };
  const answered = (output, call) => {
    if (call === undefined) return;
    guard.attempt(() => guard.answered(call, callsOf(output), answerOf(output), inputItems));
  };

  function model(base) {
    if (!isModel(base)) {
      throw new TypeError(`guard.model: model must be an Agents SDK Model, with getResponse and getStreamedResponse (got ${base === null ? 'null' : typeof base})`);
    }
    const wrapped = {
      async getResponse(request) {
        const { plan, call: pending } = begin(request);
        const call = await pending;
        let response;
        try {
          response = await base.getResponse(request);
        } catch (error) {
          guard.failed(call);
          throw error;
        }
        answered(response?.output, call);
        return { ...response, output: stripOutput(response?.output, plan) };
      },
      async *getStreamedResponse(request) {
        const { plan, call: pending } = begin(request);
        const call = await pending;
        try {
          yield* streamed(base.getStreamedResponse(request), plan, call);
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

  /** A streamed response's events, its text stripped, its answer judged at `response_done`. */
  async function* streamed(events, plan, call) {
    // One filter per message item the text streams into.
    const open = new Map();
    for await (const event of events) {
      if (event?.type === 'output_text_delta') {
        let filter = open.get(event.itemId);
        if (filter === undefined) {
          filter = new ScaffoldingFilter(plan);
          open.set(event.itemId, filter);
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
        answered(event.response?.output, call);
        yield { ...event, response: { ...event.response, output: stripOutput(event.response?.output, plan) } };
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

  return withRunMembers(guard, {
    model,
    modelProvider,
  });
}

exports.createGuard = createGuard;
