'use strict';
// The guard as LangChain.js agent middleware (`createAgent`, langchain 1).
// It only translates: at `wrapModelCall`, the request's messages (with its
// system message), its tools and tool choice, and the answer's tool calls,
// into the guard core's terms (../guard/core.cjs).
//
// The stream seam (each model call's `guard.streamSeam`): the middleware
// strips a leaked call from the answer's text and, unless `heal: false`,
// heals it: a call to a tool the model may call, with arguments its schema
// admits, in an answer that made no real call, becomes one of the
// AIMessage's `tool_calls`, so the agent runs it, and findings are judged
// on it. A middleware never sees the chunks a model streams: LangGraph's
// `streamMode: 'messages'` takes them from the model's callbacks, and
// shows the message the middleware returned only when its id is new (it
// is not: the answer keeps the model's id). So `guard.messages(stream)`
// strips each streamed message with a filter of its own, from the tools
// of the call that made it (found by its LangGraph task), and ends it with
// the calls the middleware healed from it, as tool call chunks with the
// same ids: the reader sees what the agent's state holds, no markup, each
// healed call once. `strip: false` changes no text and heals nothing.
//
// Each finding, strip and heal is a custom event of the run the model call
// belongs to (`dispatchCustomEvent`, named as telemetry.cjs names them,
// the attributes as its data), so a callback handler's `handleCustomEvent`,
// LangSmith and `streamEvents` see it; and an event on the active
// OpenTelemetry span, when one records.
//
// Messages are told apart by their `type` and made with the constructor of
// the message they replace, never with this file's copy of
// `@langchain/core`: an app that imports LangChain as ES modules has other
// classes than this CommonJS file would (`AIMessageChunk.isInstance` walks
// the prototype chain, so it would say no to the app's own chunks).

const { createRequire } = require('node:module');
const { createMiddleware } = require('langchain');
const { Runnable } = require('@langchain/core/runnables');
const { toJsonSchema } = require('@langchain/core/utils/json_schema');
const { AsyncLocalStorageProviderSingleton } = require('@langchain/core/singletons');
const { dispatchCustomEvent } = require('@langchain/core/callbacks/dispatch/web');
const { Guard, MESSAGE_KINDS, withRunMembers } = require('../../guard/core.cjs');
const { valueOfText } = require('../../guard/text.cjs');
const { ScaffoldingFilter } = require('../../index.cjs');

const isAi = (message) => message !== null && typeof message === 'object' && message.type === 'ai';
/** A streamed chunk of an AI message (a chunk can be concatenated; a whole message cannot). */
const isAiChunk = (message) => isAi(message) && typeof message.concat === 'function';

/**
 * The same AI message (or chunk) with other content, made by its own class;
 * `fields`, when given, set too (its tool calls, healed).
 */
function withContent(message, content, fields = {}) {
  const { id, name, tool_calls, invalid_tool_calls, tool_call_chunks, additional_kwargs, response_metadata, usage_metadata } = message;
  const kept = { id, name, content, tool_calls, invalid_tool_calls, additional_kwargs, response_metadata, usage_metadata };
  return new message.constructor({ ...kept, ...(tool_call_chunks === undefined ? {} : { tool_call_chunks }), ...fields });
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

/** Content with `change` applied to its text: the string, or each text block's. */
function textBlocks(content, change) {
  if (typeof content === 'string') return change(content);
  if (!Array.isArray(content)) return content;
  return content.map((block) => (block?.type === 'text' && typeof block.text === 'string' ? { ...block, text: change(block.text) } : block));
}

/** How many real tool calls an AI message made, readable or not. */
const realCallsOf = (message) => (message.tool_calls?.length ?? 0) + (message.invalid_tool_calls?.length ?? 0);

/** Healed calls (`{ toolCallId, toolName, input }`) as a message's tool calls, and as a chunk's. */
const asToolCalls = (healed) => healed.map(({ toolCallId, toolName, input }) => ({ id: toolCallId, name: toolName, args: input, type: 'tool_call' }));
const asToolCallChunks = (healed) =>
  healed.map(({ toolCallId, toolName, input }, index) => ({ id: toolCallId, name: toolName, args: JSON.stringify(input), index, type: 'tool_call_chunk' }));

/** Content with leaked calls stripped from its text by `plan`; `changed`, whether any was. */
function stripContent(content, plan) {
  let changed = false;
  const stripped = textBlocks(content, (text) => {
    const shown = ScaffoldingFilter.strip(text, plan);
    if (shown !== text) changed = true;
    return shown;
  });
  return { content: stripped, changed };
}

/**
 * The answer as the agent keeps it: its text stripped, and `healed` (the
 * leaked calls `seam.heal` made real) as its tool calls, which the agent
 * runs. The same message when neither changed it.
 */
function keptAnswer(message, shown, healed) {
  if (healed.length > 0) {
    // A chunk's tool calls are read from its tool call chunks; a message's are its own.
    const calls = isAiChunk(message) ? { tool_call_chunks: asToolCallChunks(healed) } : { tool_calls: asToolCalls(healed) };
    return withContent(message, shown.content, calls);
  }
  return shown?.changed ? withContent(message, shown.content) : message;
}

/**
 * The run's custom events, as a trace sink: the config of the run the
 * model call is in (LangChain keeps it in its async context, one per
 * run), or `undefined` outside a run with callbacks.
 */
function customEvents() {
  const config = AsyncLocalStorageProviderSingleton.getRunnableConfig();
  if (config?.callbacks === undefined) return undefined;
  return (name, attributes) => dispatchCustomEvent(name, attributes, config);
}

/** The LangGraph task of a model call, as `wrapModelCall` reads it and as a streamed message's metadata names it. */
const taskOfRequest = (request) => request.runtime?.configurable?.checkpoint_ns;
const taskOfChunk = (metadata) => metadata?.langgraph_checkpoint_ns ?? metadata?.checkpoint_ns;

/**
 * A guard, made once for every conversation: `middleware` for `createAgent`,
 * `messages(stream)` for its `streamMode: 'messages'` stream, the run's
 * `findings` and its `ledger`.
 */
function createGuard(options) {
  const { jumpTo, rest } = readJumpTo(options);
  const guard = new Guard(rest, 'createGuard', ['jumpTo']);
  // The findings of each answer, until afterModel, which runs next on the
  // same thread, hands them to the agent's state.
  const actedOn = new WeakMap();
  // What `guard.messages` needs of each model call, by the LangGraph task
  // that made it (a streamed message's metadata names the task too): the
  // tools the model was told about, for the stream's own filter, and, once
  // the middleware answered, the calls it healed, so the stream shows them
  // with the same ids the agent's state holds. A stream is read after the
  // call began, maybe long after it ended, so a task's record is kept until
  // its stream read it, or until `maxRuns` newer calls pushed it out (an
  // agent only invoked, never streamed, keeps no more than that).
  const tasks = new Map();
  // The stream's plan for a message of no task the middleware saw.
  let untold;

  /** Opens the record of the model call `request` makes. */
  function openTask(request, told) {
    const task = taskOfRequest(request);
    if (typeof task !== 'string' || !guard.stripping) return undefined;
    let settle;
    const record = { task, told, plan: undefined, settled: new Promise((resolve) => (settle = resolve)), settle };
    tasks.delete(task);
    tasks.set(task, record);
    if (tasks.size > guard.runs.max) tasks.delete(tasks.keys().next().value);
    return record;
  }

  /**
   * The stream is done with the message `id` of this record's task: the
   * record goes, and, when the stream's filter stripped something from the
   * message, the middleware's answer comes (the stream can run ahead of
   * it): `{ message, healed }` when it healed calls from that message.
   */
  async function closeTask(record, id, stripped) {
    if (record === undefined) return undefined;
    if (tasks.get(record.task) === record) tasks.delete(record.task);
    if (!stripped) return undefined;
    const answer = await record.settled;
    return answer?.message.id === id ? answer : undefined;
  }

  const middleware = createMiddleware({
    name: 'seamguard',
    async wrapModelCall(request, handler) {
      const tools = guard.attempt(() => toolsOf(request)) ?? { told: [], offered: [] };
      const trace = guard.attempt(() => guard.trace(customEvents()));
      const call = await guard.attempt(() => {
        const system = request.systemMessage;
        const prompt = system !== undefined && textOf(system) !== '' ? [system, ...request.messages] : request.messages;
        // The thread names the conversation where the app gives one; else
        // the run is found from the prompt.
        const thread = request.runtime?.configurable?.thread_id;
        const scope = typeof thread === 'string' || typeof thread === 'number' ? String(thread) : undefined;
        return guard.modelCall(prompt, requestMessages, tools.offered, tools.told, scope, trace);
      });
      const seam = guard.attempt(() => guard.streamSeam(tools.told, tools.offered, trace));
      const record = openTask(request, tools.told);
      let response;
      try {
        response = await handler(request);
      } catch (error) {
        guard.failed(call);
        record?.settle(undefined);
        throw error;
      }
      if (!isAi(response)) {
        record?.settle(undefined);
        return response;
      }
      // The stream may be waiting on this record: it is settled whatever
      // happens below (a resolved promise ignores a second settle).
      try {
        // The answer as the agent keeps it (stripped, healed) and the calls
        // it makes: findings are judged on those.
        const kept = (message) => {
          // The answer's text is stripped with the plan its seam reads leaked
          // calls with; `plan` is undefined when stripping is off.
          const shown = seam?.plan === undefined ? undefined : stripContent(message.content, seam.plan);
          const healed = (shown?.changed && guard.attempt(() => seam.heal(realCallsOf(message)))) || [];
          const calls = healed.length > 0 ? healed : (message.tool_calls ?? []).map((toolCall) => ({ toolCallId: toolCall.id, toolName: toolCall.name, input: toolCall.args }));
          return { answer: keptAnswer(message, shown, healed), healed, calls };
        };
        let { answer, healed, calls } = kept(response);
        const revision = guard.attempt(() => guard.answered(call, calls, answer, requestMessages, { text: textOf(answer) }));
        if (revision !== undefined) {
          // The claim seam's one revision: the model is asked again inside
          // this model call, with the failed answer and the correction
          // after the request's messages; the agent's state keeps only the
          // answer it gives (or the first, when that call fails).
          const revised = await reviseCall(guard, request, handler, response, revision);
          if (isAi(revised)) ({ answer, healed, calls } = kept(revised));
          guard.attempt(() => guard.answered(call, calls, answer, requestMessages, { text: textOf(answer), revised: true, revision: isAi(revised) ? revision.correction : undefined }));
        }
        const acted = guard.attempt(() => guard.actOn(call));
        if (acted !== undefined) actedOn.set(answer, acted);
        record?.settle(healed.length > 0 ? { message: answer, healed } : undefined);
        return answer;
      } finally {
        record?.settle(undefined);
      }
    },
    stateSchema: findingsState(),
    // The model call's findings into the agent's state (a checkpointer keeps
    // them per thread) and, when one trips stopOn, the jump.
    afterModel: {
      canJumpTo: [jumpTo],
      hook(state) {
        const history = state?.messages;
        const last = Array.isArray(history) ? history[history.length - 1] : undefined;
        const acted = last !== null && typeof last === 'object' ? actedOn.get(last) : undefined;
        if (acted === undefined) return undefined;
        actedOn.delete(last);
        return acted.stop ? { [FINDINGS]: acted.findings, jumpTo } : { [FINDINGS]: acted.findings };
      },
    },
  });

  /**
   * Strips leaked calls from the AI messages of a `streamMode: 'messages'`
   * stream: one filter per streamed message, its held tail sent as one more
   * chunk of that message when another message begins or the stream ends,
   * with the calls the middleware healed from it as tool call chunks.
   */
  function messages(stream) {
    if (stream === null || typeof stream?.[Symbol.asyncIterator] !== 'function') {
      const got = stream === null ? 'null' : Array.isArray(stream) ? 'an array' : typeof stream;
      throw new TypeError(`guard.messages: stream must be an agent's streamMode: 'messages' stream, an async iterable (got ${got})`);
    }
    return guard.stripping ? filtered(stream) : passed(stream);
  }

  /** The plan a streamed message of `task` opens its filter from: its call's tools, as the middleware read them. */
  function planOf(task) {
    const record = task === undefined ? undefined : tasks.get(task);
    if (record === undefined) return { record, plan: (untold ??= guard.filterPlan([])) };
    record.plan ??= guard.filterPlan(record.told);
    return { record, plan: record.plan };
  }

  async function* filtered(stream) {
    let open;
    const close = async function* () {
      if (open === undefined) return;
      const { filter, record, id, Chunk, metadata } = open;
      const tail = filter.flush();
      const stripped = open.shown + tail.length !== open.fed;
      open = undefined;
      const answer = await closeTask(record, id, stripped);
      // The tail, and the healed calls, are one more chunk of the message, of its own class.
      if (answer !== undefined) yield [new Chunk({ id, content: tail, tool_call_chunks: asToolCallChunks(answer.healed) }), metadata];
      else if (tail) yield [new Chunk({ id, content: tail }), metadata];
    };
    for await (const item of stream) {
      const [message, metadata] = Array.isArray(item) ? item : [];
      const chunk = isAiChunk(message);
      if (!chunk || open?.id !== message.id) yield* close();
      if (!chunk) {
        yield isAi(message) ? [await wholeMessage(message, metadata), metadata] : item;
        continue;
      }
      if (open === undefined) {
        const { record, plan } = planOf(taskOfChunk(metadata));
        open = { id: message.id, Chunk: message.constructor, metadata, record, filter: new ScaffoldingFilter(plan), fed: 0, shown: 0 };
      }
      const current = open;
      const content = textBlocks(message.content, (text) => {
        const shown = current.filter.feed(text);
        current.fed += text.length;
        current.shown += shown.length;
        return shown;
      });
      yield content === message.content ? item : [withContent(message, content), metadata];
      if (message.chunk_position === 'last') yield* close();
    }
    yield* close();
  }

  /** A whole AI message in the stream: stripped, and as the middleware healed it. */
  async function wholeMessage(message, metadata) {
    const { record, plan } = planOf(taskOfChunk(metadata));
    const { content, changed } = stripContent(message.content, plan);
    const answer = await closeTask(record, message.id, changed);
    if (answer !== undefined) return answer.message;
    return changed ? withContent(message, content) : message;
  }

  return withRunMembers(guard, {
    middleware,
    // The guard is the middleware itself too, so `middleware: [guard]`
    // guards as `middleware: [guard.middleware]` does.
    ...middleware,
    messages,
  });
}

/**
 * Asks the model once more, through the same handler, with the claim
 * seam's correction (`[{ role, content }]`, the failed answer and the
 * correction) after the request's messages, each made with the class of a
 * message of its kind the run already holds. Returns the revised answer,
 * or `undefined` when the call failed (said through onError).
 */
async function reviseCall(guard, request, handler, failed, revision) {
  try {
    const Human = request.messages.find((message) => message?.type === 'human')?.constructor ?? require('@langchain/core/messages').HumanMessage;
    const exchange = revision.correction.map(({ role, content }) => (role === 'assistant' ? new failed.constructor({ content: String(content) }) : new Human({ content: String(content) })));
    return await handler({ ...request, messages: [...request.messages, ...exchange] });
  } catch (error) {
    guard.revisionFailed(error, request.signal?.aborted === true || request.runtime?.signal?.aborted === true);
    return undefined;
  }
}

// The agent state's field for findings. LangChain builds an agent's state
// from its middlewares' `stateSchema`; a LangGraph StateSchema with a
// ReducedValue is the kind it documents for a field whose updates append.
// Both are taken, with zod, from where langchain itself resolves them (they
// are its dependencies, not this package's), and both are told apart by
// LangGraph's registered symbols, so an app that loads LangChain as ES
// modules reads them too.
const FINDINGS = 'seamguardFindings';
const JUMPS = ['end', 'model'];

/** The middleware's state schema: `seamguardFindings`, a list its updates append to. */
function findingsState() {
  const fromLangchain = createRequire(require.resolve('langchain'));
  const { StateSchema, ReducedValue } = fromLangchain('@langchain/langgraph');
  const { z } = fromLangchain('zod/v4');
  const list = z.array(z.record(z.string(), z.unknown()));
  return new StateSchema({ [FINDINGS]: new ReducedValue(list.default(() => []), { inputSchema: list.optional(), reducer: appendNew }) });
}

/**
 * The findings reducer: `added` appended to `kept`, less those `kept`
 * holds already. An agent's `invoke` hands a thread's saved state back in as
 * its input, so an update may repeat every finding the thread holds.
 */
function appendNew(kept = [], added = []) {
  if (!Array.isArray(added) || added.length === 0) return kept;
  const held = new Set(kept.map((finding) => JSON.stringify(finding)));
  const fresh = added.filter((finding) => !held.has(JSON.stringify(finding)));
  return fresh.length === 0 ? kept : [...kept, ...fresh];
}

/**
 * Takes this adapter's own option, `jumpTo` (where a run goes when a
 * finding trips `stopOn`: 'end', the default, or 'model'), out of the
 * guard's options; the rest are the core's to read.
 */
function readJumpTo(options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options) || !('jumpTo' in options)) return { jumpTo: 'end', rest: options };
  const { jumpTo, ...rest } = options;
  if (!JUMPS.includes(jumpTo)) throw new TypeError(`createGuard: options.jumpTo must be 'end' or 'model' (got ${JSON.stringify(jumpTo) ?? typeof jumpTo})`);
  return { jumpTo, rest };
}

/** A stream with stripping off: every item as it came. */
async function* passed(stream) {
  yield* stream;
}

exports.createGuard = createGuard;
