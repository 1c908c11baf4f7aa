'use strict';
// `seamguard/streams`: the scaffolding filter as the two shapes streaming
// JavaScript already has, a WHATWG TransformStream and an async iterable.
// Each adapter owns one ScaffoldingFilter, built from the caller's options
// unchanged, and exposes it as `filter` so its counters can be logged.
//
// Held tail rule, the same in both: the text the filter is holding back is
// delivered only when the source ends normally. When the stream stops any
// other way (the consumer leaves, the source fails, the stream is aborted or
// cancelled), that tail is discarded with the rest of the unread text.

const { ScaffoldingFilter } = require('./scaffolding-filter.cjs');

function withFilter(target, filter) {
  return Object.defineProperty(target, 'filter', { value: filter, enumerable: true });
}

function scaffoldingTransform(options) {
  const filter = new ScaffoldingFilter(options);
  const stream = new TransformStream({
    transform(chunk, controller) {
      // A non-string chunk makes feed throw a TypeError, which errors the stream.
      const visible = filter.feed(chunk);
      if (visible) controller.enqueue(visible);
    },
    flush(controller) {
      const tail = filter.flush();
      if (tail) controller.enqueue(tail);
    },
  });
  return withFilter(stream, filter);
}

async function* stripped(source, filter) {
  let ended = false;
  try {
    for await (const chunk of source) {
      const visible = filter.feed(chunk);
      if (visible) yield visible;
    }
    ended = true;
    const tail = filter.flush();
    if (tail) yield tail;
  } finally {
    // Reached on break, return() or an error. The for-await above has
    // already closed the source; a generator cannot yield to a consumer who
    // has left, so the held tail is flushed out of the filter and dropped.
    if (!ended) filter.flush();
  }
}

/** What a value is, for an error message: its type, or null. */
function describe(value) {
  return value === null ? 'null' : typeof value;
}

function stripScaffolding(source, options) {
  // Checked here, at the call: a generator's body runs only when it is
  // first iterated, which would put the error far from its cause.
  if (
    source === null ||
    source === undefined ||
    (typeof source[Symbol.asyncIterator] !== 'function' && typeof source[Symbol.iterator] !== 'function')
  ) {
    throw new TypeError(`stripScaffolding: source must be an async iterable or an iterable of strings (got ${describe(source)})`);
  }
  const filter = new ScaffoldingFilter(options);
  return withFilter(stripped(source, filter), filter);
}

exports.scaffoldingTransform = scaffoldingTransform;
exports.stripScaffolding = stripScaffolding;
