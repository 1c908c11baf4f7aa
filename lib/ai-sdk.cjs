'use strict';
// `seamguard/ai-sdk`: the scaffolding filter as an AI SDK (v6) language-model
// middleware, for `wrapLanguageModel({ model, middleware })`. It touches only
// text: every other part passes through as it is, in order. The middleware
// is a plain object, so this file needs nothing from `ai` at run time.

const { ScaffoldingFilter } = require('./index.cjs');

function stripWhole(text, options) {
  const filter = new ScaffoldingFilter(options);
  return filter.feed(text) + filter.flush();
}

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

function scaffoldingMiddleware(options) {
  return {
    specificationVersion: 'v3',
    async wrapGenerate({ doGenerate }) {
      const result = await doGenerate();
      const content = result.content.map((part) =>
        part.type === 'text' ? { ...part, text: stripWhole(part.text, options) } : part,
      );
      return { ...result, content };
    },
    async wrapStream({ doStream }) {
      const { stream, ...rest } = await doStream();
      return { ...rest, stream: stream.pipeThrough(textFilter(options)) };
    },
  };
}

exports.scaffoldingMiddleware = scaffoldingMiddleware;
