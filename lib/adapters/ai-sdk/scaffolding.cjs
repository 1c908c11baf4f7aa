'use strict';
// The scaffolding filter as an AI SDK language-model middleware (6 and 7),
// for `wrapLanguageModel({ model, middleware })`. It touches only text:
// every other part passes through as it is, in order. The middleware is a
// plain object, so this file needs nothing from `ai` at run time but its
// version (version.cjs).
//
// By default each call's filter reads the tools that call offers
// (`params.tools`), so a leaked call to one of them is stripped in any
// markup, and strips the special tokens of every family
// (`SCAFFOLD_SPECIAL_TOKENS`).
//
// With `heal: true`, a round that made no real tool call gets its leaked
// calls to offered tools, whose arguments the tool's schema admits, as
// real tool calls (the guards' rules, ../../guard/heal.cjs). With
// `recover: true`, a round whose answer was nothing but markup (no visible
// text, at least one span stripped, no real or healed tool call) is asked
// again, once. Each strip, heal and refused heal is recorded as an event
// on the OpenTelemetry span active when the model call began (the AI SDK's
// own, with `experimental_telemetry`), as the guards record theirs
// (../../guard/telemetry.cjs).

const { ScaffoldingFilter } = require('../../index.cjs');
const { streamPlan } = require('../../guard/core.cjs');
const { healCalls } = require('../../guard/heal.cjs');
const { callTrace } = require('../../guard/telemetry.cjs');
const { filterTools, functionTools, offeredTools, sayLeftOut } = require('../../guard/tools.cjs');
const { readableOf } = require('./readable.cjs');
const { specificationVersion } = require('./version.cjs');

/** What a stripped span is cut to in an `onRecover` event. */
const SPAN_CUT = 200;

const OWN_OPTIONS = ['recover', 'onRecover', 'heal', 'onHeal', 'onError'];

/**
 * Splits the middleware's options into its own and the filter's, and checks
 * both now, so a bad option fails where the middleware is built, naming it.
 */
function readOptions(options) {
  if (options === undefined) options = {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    const got = options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options;
    throw new TypeError(`scaffoldingMiddleware: options must be an object (got ${got})`);
  }
  const { recover, onRecover, heal, onHeal, onError, ...filter } = options;
  for (const [name, value] of [['recover', recover], ['heal', heal]]) {
    if (value !== undefined && typeof value !== 'boolean') {
      throw new TypeError(`scaffoldingMiddleware: options.${name} must be a boolean (got ${typeof value})`);
    }
  }
  for (const [name, value] of [['onRecover', onRecover], ['onHeal', onHeal], ['onError', onError]]) {
    if (value !== undefined && typeof value !== 'function') {
      throw new TypeError(`scaffoldingMiddleware: options.${name} must be a function (got ${value === null ? 'null' : typeof value})`);
    }
  }
  try {
    ScaffoldingFilter.strip('', filter);
  } catch (error) {
    if (!(error instanceof TypeError || error instanceof RangeError)) throw error;
    const message = error.message
      .replace(/^ScaffoldingFilter: /, 'scaffoldingMiddleware: ')
      .replace(/\(the options are ([^)]*)\)/, (_, names) => `(the options are ${[...OWN_OPTIONS, ...names.split(', ')].join(', ')})`);
    throw new error.constructor(message);
  }
  // What goes wrong on the middleware's side (an offered tool whose name
  // detection cannot use, a callback that throws or rejects) never reaches
  // the run: it goes to onError, or else is said once on the console.
  let warned = false;
  const say = (error) => {
    if (onError === undefined) {
      if (warned) return;
      warned = true;
      console.warn(`seamguard: ${error?.message ?? error} (pass onError to scaffoldingMiddleware to hear of each)`);
      return;
    }
    try {
      const returned = onError(error);
      if (returned !== null && typeof returned?.then === 'function') returned.then(undefined, () => {});
    } catch {
      // An onError that throws has nowhere left to report to.
    }
  };
  const guarded = (callback) =>
    callback === undefined
      ? undefined
      : (event) => {
          try {
            const returned = callback(event);
            if (returned !== null && typeof returned?.then === 'function') returned.then(undefined, say);
          } catch (error) {
            say(error);
          }
        };
  const said = new Set();
  return {
    recover: recover === true,
    onRecover: guarded(onRecover),
    heal: heal === true,
    onHeal: guarded(onHeal),
    filter: filter.onStrip === undefined ? filter : { ...filter, onStrip: guarded(filter.onStrip) },
    leftOut: (skipped) => sayLeftOut(skipped, said, say),
    report: say,
  };
}

/**
 * One round's record and its filter plan, made from the caller's options,
 * the tools the model was told about and the special tokens where the
 * caller gave none (a leak under `toolChoice: 'none'` still names a tool
 * it knows; only the tools it may call are healed), and an `onStrip` that
 * records the round's stripped spans and leaked calls (and still calls the
 * caller's). Every text of the round opens its filter from the plan. What
 * the round strips and heals is recorded in `trace`, the model call's.
 */
function beginRound({ filter, leftOut }, params, trace) {
  const round = { spans: [], calls: [], toolCall: false, offered: offeredTools(params), trace };
  const theirs = filter.onStrip;
  let tools = filter.tools;
  if (tools === undefined) {
    const usable = filterTools(functionTools(params));
    leftOut(usable.skipped);
    tools = usable.tools;
  }
  round.plan = streamPlan({
    ...filter,
    tools,
    onStrip(event) {
      round.spans.push(event.span);
      round.trace?.strip(event);
      if (event.calls !== undefined) round.calls.push(...event.calls);
      if (theirs !== undefined) theirs(event);
    },
  });
  return round;
}

/**
 * The leaked calls a round can make real, as tool-call parts: those to a
 * tool this call offered, with arguments that were read and that the
 * tool's input schema admits (the guards' one set of rules, heal.cjs).
 */
function healable(round) {
  const { healed, refused } = healCalls(round.calls, round.offered);
  round.trace?.heal(healed, refused);
  return healed.map(({ toolCallId, toolName, input }) => ({
    type: 'tool-call',
    toolCallId,
    toolName,
    input: JSON.stringify(input),
  }));
}

/** A finish reason that says the round called tools, in the shape given. */
function toolCallsReason(reason) {
  if (reason !== null && typeof reason === 'object') return { ...reason, unified: 'tool-calls' };
  return 'tool-calls';
}

/** The event `onHeal` gets. */
function healEvent(round, calls) {
  return {
    calls: calls.map(({ toolCallId, toolName, input }) => ({ toolCallId, toolName, input: JSON.parse(input) })),
    stripped: round.spans.map((span) => span.slice(0, SPAN_CUT)),
  };
}

/** Whether text has a unit a reader would see: anything but whitespace. */
const isVisible = (text) => /\S/.test(text);

/** A real tool call, streamed or whole. */
const isToolCall = (part) => part.type === 'tool-call' || part.type === 'tool-input-start';

/**
 * One filter per open text id. A text's held tail comes out as one last
 * text-delta just before its text-end. A text the provider never ended is
 * ended by the finish part, or failing that by the stream closing. With
 * `heal`, a round that leaked calls to offered tools and made no real one
 * gets them as tool-call parts (start, input, end, call) right before its
 * finish, whose reason becomes 'tool-calls'.
 */
function textFilter(round, heal, onHeal) {
  const open = new Map();
  const endOpenTexts = (controller) => {
    for (const [id, filter] of open) {
      const tail = filter.flush();
      if (tail) controller.enqueue({ type: 'text-delta', id, delta: tail });
    }
    open.clear();
  };
  /** Enqueues the healed calls; whether there were any. */
  const healRound = (controller) => {
    if (!heal || round.toolCall || round.healed) return false;
    // Tried once, at the finish or else at the end: a round's leaks are all in by then.
    round.healed = true;
    const calls = healable(round);
    if (calls.length === 0) return false;
    for (const call of calls) {
      controller.enqueue({ type: 'tool-input-start', id: call.toolCallId, toolName: call.toolName });
      controller.enqueue({ type: 'tool-input-delta', id: call.toolCallId, delta: call.input });
      controller.enqueue({ type: 'tool-input-end', id: call.toolCallId });
      controller.enqueue(call);
    }
    if (onHeal !== undefined) onHeal(healEvent(round, calls));
    return true;
  };
  return new TransformStream({
    transform(part, controller) {
      switch (part.type) {
        case 'text-delta': {
          let filter = open.get(part.id);
          if (filter === undefined) {
            filter = new ScaffoldingFilter(round.plan);
            open.set(part.id, filter);
          }
          const delta = filter.feed(part.delta);
          // An emptied delta is dropped, as the AI SDK drops empty deltas,
          // unless it carries provider metadata that would be lost with it.
          if (delta || part.providerMetadata != null) controller.enqueue({ ...part, delta });
          return;
        }
        case 'text-end': {
          const filter = open.get(part.id);
          if (filter !== undefined) {
            open.delete(part.id);
            const tail = filter.flush();
            if (tail) controller.enqueue({ type: 'text-delta', id: part.id, delta: tail });
          }
          controller.enqueue(part);
          return;
        }
        case 'finish':
          endOpenTexts(controller);
          if (healRound(controller)) {
            controller.enqueue({ ...part, finishReason: toolCallsReason(part.finishReason) });
          } else {
            controller.enqueue(part);
          }
          return;
        default:
          if (isToolCall(part)) round.toolCall = true;
          controller.enqueue(part);
      }
    },
    flush(controller) {
      endOpenTexts(controller);
      healRound(controller);
    },
  });
}

/** Adds two token counts; a count neither round reported stays unreported. */
function addCounts(a, b) {
  if (a === undefined && b === undefined) return undefined;
  return (a ?? 0) + (b ?? 0);
}

/** Both rounds' usage, field by field (both were paid for). */
function addUsage(first, second) {
  if (first === undefined) return second;
  if (second === undefined) return first;
  const add = (group) => {
    const a = first[group] ?? {};
    const b = second[group] ?? {};
    const sum = {};
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      sum[key] = typeof a[key] === 'object' || typeof b[key] === 'object' ? b[key] : addCounts(a[key], b[key]);
    }
    return sum;
  };
  return { ...second, inputTokens: add('inputTokens'), outputTokens: add('outputTokens') };
}

/** The event `onRecover` gets for a round that deflected. */
function recoverEvent(spans, recovered) {
  return { round: 1, stripped: spans.map((span) => span.slice(0, SPAN_CUT)), recovered };
}

/**
 * Filters a generated result's text parts, heals its leaked calls when it
 * may, and says what the round showed.
 */
function filterResult(result, round, heal, onHeal) {
  let visible = false;
  const content = [];
  for (const part of result.content) {
    if (part.type === 'text') {
      const text = ScaffoldingFilter.strip(part.text, round.plan);
      if (isVisible(text)) visible = true;
      // A text part the filter emptied is left out when calls replace it.
      content.push({ ...part, text });
      continue;
    }
    if (isToolCall(part)) round.toolCall = true;
    content.push(part);
  }
  const calls = heal && !round.toolCall ? healable(round) : [];
  if (calls.length > 0) {
    if (onHeal !== undefined) onHeal(healEvent(round, calls));
    return {
      result: {
        ...result,
        content: [...content.filter((part) => part.type !== 'text' || part.text !== ''), ...calls],
        finishReason: toolCallsReason(result.finishReason),
      },
      deflected: false,
    };
  }
  return { result: { ...result, content }, deflected: round.spans.length > 0 && !visible && !round.toolCall };
}

/**
 * The stream the reader sees when recovery is on. A round's parts are held,
 * in order, until its answer shows a visible unit or a tool call (real or
 * healed; then they stream as they come), or an error arrives (passed on,
 * no recovery). A round that ends still undecided is delivered as it was,
 * unless it deflected: then its parts are dropped, the model is asked again
 * once with the same parameters, and the second round is delivered, its
 * finish part carrying both rounds' usage.
 */
function recoveringStream(first, doStream, params, settings, trace) {
  const { heal, onHeal, onRecover } = settings;
  async function* rounds() {
    const round = beginRound(settings, params, trace);
    const held = [];
    let decided = false;
    for await (const part of first.pipeThrough(textFilter(round, heal, onHeal))) {
      if (decided) {
        yield part;
        continue;
      }
      held.push(part);
      const shows = (part.type === 'text-delta' && isVisible(part.delta)) || isToolCall(part) || part.type === 'error';
      if (shows) {
        decided = true;
        yield* held.splice(0);
      }
    }
    if (decided || round.spans.length === 0) {
      yield* held.splice(0);
      return;
    }
    // The round deflected: the reader never sees it.
    const firstUsage = held.find((part) => part.type === 'finish')?.usage;
    held.length = 0;
    let second;
    try {
      second = await doStream();
    } catch (error) {
      // An abort ends the stream as it would end the model's own; a failed
      // call is an error part, as the AI SDK reports a call that fails.
      if (params?.abortSignal?.aborted) throw error;
      yield { type: 'error', error };
      return;
    }
    const secondRound = beginRound(settings, params, trace);
    let recovered = false;
    let reported = false;
    const report = () => {
      if (reported) return;
      reported = true;
      if (onRecover !== undefined) onRecover(recoverEvent(round.spans, recovered));
    };
    for await (const part of second.stream.pipeThrough(textFilter(secondRound, heal, onHeal))) {
      if ((part.type === 'text-delta' && isVisible(part.delta)) || isToolCall(part)) recovered = true;
      if (part.type === 'finish') {
        report();
        yield { ...part, usage: addUsage(firstUsage, part.usage) };
      } else {
        yield part;
      }
    }
    report();
  }
  return readableOf(rounds());
}

function scaffoldingMiddleware(options) {
  const settings = readOptions(options);
  const { recover, onRecover, heal, onHeal } = settings;
  return {
    specificationVersion: specificationVersion(),
    async wrapGenerate({ doGenerate, params }) {
      const trace = callTrace(undefined, settings.report);
      const round = beginRound(settings, params, trace);
      const first = filterResult(await doGenerate(), round, heal, onHeal);
      if (!recover || !first.deflected) return first.result;
      const second = filterResult(await doGenerate(), beginRound(settings, params, trace), heal, onHeal);
      if (onRecover !== undefined) onRecover(recoverEvent(round.spans, hasAnswer(second.result)));
      return { ...second.result, usage: addUsage(first.result.usage, second.result.usage) };
    },
    async wrapStream({ doStream, params }) {
      const trace = callTrace(undefined, settings.report);
      const { stream, ...rest } = await doStream();
      if (!recover) return { ...rest, stream: stream.pipeThrough(textFilter(beginRound(settings, params, trace), heal, onHeal)) };
      return { ...rest, stream: recoveringStream(stream, doStream, params, settings, trace) };
    },
  };
}

/** Whether a generated result has visible text or a real tool call. */
function hasAnswer(result) {
  return result.content.some((part) => (part.type === 'text' && isVisible(part.text)) || isToolCall(part));
}

exports.scaffoldingMiddleware = scaffoldingMiddleware;
