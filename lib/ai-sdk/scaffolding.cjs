'use strict';
// The scaffolding filter as an AI SDK language-model middleware (6 and 7),
// middleware, for `wrapLanguageModel({ model, middleware })`. It touches only
// text: every other part passes through as it is, in order. The middleware
// is a plain object, so this file needs nothing from `ai` at run time.
//
// With `recover: true` it also makes the one bounded recovery: a round
// whose answer was nothing but markup (after filtering no visible text, at
// least one span stripped, no real tool call) is asked again, once.

const { ScaffoldingFilter } = require('../index.cjs');

/** What a stripped span is cut to in an `onRecover` event. */
const SPAN_CUT = 200;

/**
 * Splits the middleware's options into its own (`recover`, `onRecover`) and
 * the filter's, naming a bad one as the filter names its own.
 */
function splitOptions(options) {
  if (options === undefined) return { recover: false, onRecover: undefined, filter: undefined };
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    const got = options === null ? 'null' : Array.isArray(options) ? 'an array' : typeof options;
    throw new TypeError(`scaffoldingMiddleware: options must be an object (got ${got})`);
  }
  const { recover, onRecover, ...filter } = options;
  if (recover !== undefined && typeof recover !== 'boolean') {
    throw new TypeError(`scaffoldingMiddleware: options.recover must be a boolean (got ${typeof recover})`);
  }
  if (onRecover !== undefined && typeof onRecover !== 'function') {
    throw new TypeError(`scaffoldingMiddleware: options.onRecover must be a function (got ${onRecover === null ? 'null' : typeof onRecover})`);
  }
  return { recover: recover === true, onRecover, filter };
}

/**
 * The filter options for one round: the caller's, with an `onStrip` that
 * also records the round's stripped spans (and still calls the caller's).
 */
function roundOptions(filter, spans) {
  const theirs = filter?.onStrip;
  return {
    ...filter,
    onStrip(event) {
      spans.push(event.span);
      if (theirs !== undefined) theirs(event);
    },
  };
}

function stripWhole(text, options) {
  const filter = new ScaffoldingFilter(options);
  return filter.feed(text) + filter.flush();
}

/** Whether text has a unit a reader would see: anything but whitespace. */
const isVisible = (text) => /\S/.test(text);

/** A real tool call, streamed or whole. */
const isToolCall = (part) => part.type === 'tool-call' || part.type === 'tool-input-start';

/**
 * One filter per open text id. A text's held tail comes out as one last
 * text-delta just before its text-end. A text the provider never ended is
 * ended by the finish part, or failing that by the stream closing.
 */
function textFilter(options) {
  const open = new Map();
  const endOpenTexts = (controller) => {
    for (const [id, filter] of open) {
      const tail = filter.flush();
      if (tail) controller.enqueue({ type: 'text-delta', id, delta: tail });
    }
    open.clear();
  };
  return new TransformStream({
    transform(part, controller) {
      switch (part.type) {
        case 'text-delta': {
          let filter = open.get(part.id);
          if (filter === undefined) {
            filter = new ScaffoldingFilter(options);
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
          controller.enqueue(part);
          return;
        default:
          controller.enqueue(part);
      }
    },
    flush: endOpenTexts,
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

/** Filters a generated result's text parts; says what the round showed. */
function filterResult(result, options) {
  const spans = [];
  const filterOptions = roundOptions(options, spans);
  let visible = false;
  let toolCall = false;
  const content = result.content.map((part) => {
    if (part.type === 'text') {
      const text = stripWhole(part.text, filterOptions);
      if (isVisible(text)) visible = true;
      return { ...part, text };
    }
    if (isToolCall(part)) toolCall = true;
    return part;
  });
  return { result: { ...result, content }, spans, deflected: spans.length > 0 && !visible && !toolCall };
}

/**
 * The stream the reader sees when recovery is on. A round's parts are held,
 * in order, until its answer shows a visible unit or a real tool call (then
 * they stream as they come), or an error arrives (passed on, no recovery).
 * A round that ends still undecided is delivered as it was, unless it
 * deflected: then its parts are dropped, the model is asked again once with
 * the same parameters, and the second round is delivered, its finish part
 * carrying both rounds' usage.
 */
function recoveringStream(first, doStream, abortSignal, filter, onRecover) {
  async function* rounds() {
    const spans = [];
    const held = [];
    let decided = false;
    for await (const part of first.pipeThrough(textFilter(roundOptions(filter, spans)))) {
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
    if (decided || spans.length === 0) {
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
      if (abortSignal?.aborted) throw error;
      yield { type: 'error', error };
      return;
    }
    const secondSpans = [];
    let recovered = false;
    let reported = false;
    const report = () => {
      if (reported) return;
      reported = true;
      if (onRecover !== undefined) onRecover(recoverEvent(spans, recovered));
    };
    for await (const part of second.stream.pipeThrough(textFilter(roundOptions(filter, secondSpans)))) {
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
  const iterator = rounds();
  return new ReadableStream({
    async pull(controller) {
      try {
        const { value, done } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await iterator.return();
    },
  });
}

function scaffoldingMiddleware(options) {
  const { recover, onRecover, filter } = splitOptions(options);
  return {
    specificationVersion: 'v3',
    async wrapGenerate({ doGenerate }) {
      const first = filterResult(await doGenerate(), filter);
      if (!recover || !first.deflected) return first.result;
      const second = filterResult(await doGenerate(), filter);
      if (onRecover !== undefined) onRecover(recoverEvent(first.spans, hasAnswer(second.result)));
      return { ...second.result, usage: addUsage(first.result.usage, second.result.usage) };
    },
    async wrapStream({ doStream, params }) {
      const { stream, ...rest } = await doStream();
      if (!recover) return { ...rest, stream: stream.pipeThrough(textFilter(filter)) };
      return { ...rest, stream: recoveringStream(stream, doStream, params?.abortSignal, filter, onRecover) };
    },
  };
}

/** Whether a generated result has visible text or a real tool call. */
function hasAnswer(result) {
  return result.content.some((part) => (part.type === 'text' && isVisible(part.text)) || isToolCall(part));
}

exports.scaffoldingMiddleware = scaffoldingMiddleware;
