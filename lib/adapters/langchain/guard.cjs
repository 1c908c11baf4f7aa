'use strict';
// The guard as LangChain.js agent middleware (`createAgent`, langchain 1).
// It only translates: at `wrapModelCall`, the request's messages (with its
// system message), its tools and tool choice, and the answer's tool calls,
// into the guard core's terms (../guard/core.cjs). The stream seam strips a
// leaked call to a tool the model was offered from the answer's text: whole
// in the middleware (so the agent's state holds the text the reader saw),
// and chunk by chunk in `guard.messages(stream)`, since a middleware never
// sees the chunks a model streams.
//
// Messages are told apart by their `type` and made with the constructor of
// the message they replace, never with this file's copy of
// `@langchain/core`: an app that imports LangChain as ES modules has other
// classes than this CommonJS file would (`AIMessageChunk.isInstance` walks
// the prototype chain, so it would say no to the app's own chunks).

const { createMiddleware } = require('langchain');
const { Runnable } = require('@langchain/core/runnables');
const { toJsonSchema } = require('@langchain/core/utils/json_schema');
const { Guard, MESSAGE_KINDS, withRunMembers } = require('../../guard/core.cjs');
const { valueOfText } = require('../../guard/text.cjs');
const { ScaffoldingFilter } = require('../../index.cjs');

const isAi = (message) => message !== null && typeof message === 'object' && message.type === 'ai';
/** A streamed chunk of an AI message (a chunk can be concatenated; a whole message cannot). */
const isAiChunk = (message) => isAi(message) && typeof message.concat === 'function';

/** The same AI message (or chunk) with other content, made by its own class. */
function withContent(message, content) {
  const { id, name, tool_calls, invalid_tool_calls, tool_call_chunks, additional_kwargs, response_metadata, usage_metadata } = message;
  const fields = { id, name, content, tool_calls, invalid_tool_calls, additional_kwargs, response_metadata, usage_metadata };
  return new message.constructor(tool_call_chunks === undefined ? fields : { ...fields, tool_call_chunks });
}

/** A message's text: its string content, or its text blocks, one after another. */
const textOf = (message) => (typeof message.content === 'string' ? message.content : message.text);

/**
 * What a tool message reads as: its text as the JSON it spells. A tool that
 * returned an empty list reaches LangChain as an empty content array (an
 * empty list of content blocks), and is read as the empty list it was.
 */
function valueOf(content) {
  if (Array.isArray(content) && content.length === 0) return [];
  return valueOfText(typeof content === 'string' ? content : content.map((block) => block.text ?? '').join(''));
}

// The kinds of message, as the guard tells them apart: an AI message that
// calls tools is named by its first call's id, a tool message by the id of
// the call it answers; any other by its id (LangGraph gives every message in
// the agent's state one), or its text.
const { SYSTEM, USER, ASSISTANT, CALLS, RESULTS } = MESSAGE_KINDS;
const KINDS = { system: SYSTEM, human: USER, ai: ASSISTANT, tool: RESULTS };

/** Reads the request's messages (`BaseMessage`s) for the guard. */
const requestMessages = {
  kindOf(message) {
    const kind = KINDS[message.type] ?? USER;
    return kind === ASSISTANT && message.tool_calls?.length > 0 ? CALLS : kind;
  },
  keyOf(message, kind) {
    if (kind === CALLS) return message.tool_calls[0].id ?? message.id ?? '';
    if (kind === RESULTS) return message.tool_call_id ?? '';
    return message.id ?? textOf(message);
  },
  entriesOf(message) {
    switch (message.type) {
      case 'system':
        return [{ role: 'system', text: textOf(message) }];
      case 'ai': {
        const calls = (message.tool_calls ?? []).map((call) => ({ toolCallId: call.id, toolName: call.name, input: call.args }));
        return [{ role: 'assistant', text: textOf(message), calls }];
      }
      case 'tool':
        return [{ role: 'tool', toolName: message.name, toolCallId: message.tool_call_id, value: valueOf(message.content), error: message.status === 'error' }];
      default:
        return [{ role: 'user', text: textOf(message) }];
    }
  },
};

/**
 * The request's client tools (server tools run on the provider's side) as
 * `{ name, inputSchema }`, the schema as JSON Schema; and of those, the ones
 * the model may call, as `toolChoice` allows.
 */
function toolsOf(request) {
  const told = [];
  for (const tool of request.tools ?? []) {
    if (!Runnable.isRunnable(tool) || typeof tool.name !== 'string') continue;
    let inputSchema;
    try {
      inputSchema = tool.schema === undefined ? undefined : toJsonSchema(tool.schema);
    } catch {
      inputSchema = undefined;
    }
    told.push({ name: tool.name, inputSchema });
  }
  const choice = request.toolChoice;
  const only = choice?.type === 'function' ? choice.function?.name : typeof choice === 'string' && !['auto', 'any', 'required', 'none'].includes(choice) ? choice : undefined;
  const offered = choice === 'none' ? [] : only === undefined ? told : told.filter((tool) => tool.name === only);
  return { told, offered };
}

/** The answer's text with leaked calls stripped; the same message when nothing was. */
function stripAnswer(message, options) {
  let changed = false;
  const strip = (text) => {
    const shown = ScaffoldingFilter.strip(text, options);
    if (shown !== text) changed = true;
    return shown;
  };
  const content = textBlocks(message.content, strip);
  return changed ? withContent(message, content) : message;
}

/** Content with `change` applied to its text: the string, or each text block's. */
function textBlocks(content, change) {
  if (typeof content === 'string') return change(content);
  if (!Array.isArray(content)) return content;
  return content.map((block) => (block?.type === 'text' && typeof block.text === 'string' ? { ...block, text: change(block.text) } : block));
}

/**
 * A guard, made once for every conversation: `middleware` for `createAgent`,
 * `messages(stream)` for its `streamMode: 'messages'` stream, the run's
 * `findings` and its `ledger`.
 */
function createGuard(options) {
  const guard = new Guard(options, 'createGuard');
  // The tools the model was told about, by name, since the guard was made
  // or its run renewed: a streamed chunk is read after its model call began,
  // maybe after the next one did.
  const told = new Map();
  // The stream seam's plan for what `told` holds, made when first needed
  // after each model call.
  let plan;
  const filterPlan = () => (plan ??= guard.filterPlan([...told.values()]));

  const middleware = createMiddleware({
    name: 'seamguard',
    async wrapModelCall(request, handler) {
      const call = await guard.attempt(() => {
        const tools = toolsOf(request);
        for (const tool of tools.told) told.set(tool.name, tool);
        plan = undefined;
        const system = request.systemMessage;
        const prompt = system !== undefined && textOf(system) !== '' ? [system, ...request.messages] : request.messages;
        // The thread names the conversation where the app gives one; else
        // the run is found from the prompt.
        const thread = request.runtime?.configurable?.thread_id;
        const scope = typeof thread === 'string' || typeof thread === 'number' ? String(thread) : undefined;
        return guard.modelCall(prompt, requestMessages, tools.offered, tools.told, scope);
      });
      let response;
      try {
        response = await handler(request);
      } catch (error) {
        guard.failed(call);
        throw error;
      }
      if (call !== undefined && isAi(response)) {
        guard.attempt(() =>
          guard.answered(call, (response.tool_calls ?? []).map((toolCall) => ({ toolCallId: toolCall.id, toolName: toolCall.name, input: toolCall.args })), response, requestMessages),
        );
      }
      return isAi(response) ? stripAnswer(response, filterPlan()) : response;
    },
  });

  /**
   * Strips leaked calls from the AI messages of a `streamMode: 'messages'`
   * stream: one filter per streamed message, its held tail sent as one more
   * chunk of that message when another message begins or the stream ends.
   */
  function messages(stream) {
    if (stream === null || typeof stream?.[Symbol.asyncIterator] !== 'function') {
      const got = stream === null ? 'null' : Array.isArray(stream) ? 'an array' : typeof stream;
      throw new TypeError(`guard.messages: stream must be an agent's streamMode: 'messages' stream, an async iterable (got ${got})`);
    }
    return filtered(stream);
  }
  async function* filtered(stream) {
    let open;
    const close = function* () {
      if (open === undefined) return;
      const tail = open.filter.flush();
      // The tail is one more chunk of the message, of its own class.
      if (tail) yield [new open.Chunk({ id: open.id, content: tail }), open.metadata];
      open = undefined;
    };
    for await (const item of stream) {
      const [message, metadata] = Array.isArray(item) ? item : [];
      const chunk = isAiChunk(message);
      if (!chunk || open?.id !== message.id) yield* close();
      if (!chunk) {
        yield isAi(message) ? [stripAnswer(message, filterPlan()), metadata] : item;
        continue;
      }
      open ??= { id: message.id, Chunk: message.constructor, metadata, filter: new ScaffoldingFilter(filterPlan()) };
      const { filter } = open;
      const content = textBlocks(message.content, (text) => filter.feed(text));
      yield content === message.content ? item : [withContent(message, content), metadata];
      if (message.chunk_position === 'last') yield* close();
    }
    yield* close();
  }

  return withRunMembers(guard, {
    middleware,
    // The guard is the middleware itself too, so `middleware: [guard]`
    // guards as `middleware: [guard.middleware]` does.
    ...middleware,
    messages,
  }, () => {
    told.clear();
    plan = undefined;
  });
}

exports.createGuard = createGuard;
