'use strict';
// The AI SDK middlewares hand a language model's stream on as a
// ReadableStream read from an async generator of its parts: this is that
// wrapper, once for both (guard.cjs, scaffolding.cjs).

/**
 * A ReadableStream that pulls `iterator` one part at a time. A throw from it
 * errors the stream (after `onError`, when given); cancelling the stream
 * returns the iterator, so the generator's cleanup runs.
 */
function readableOf(iterator, onError) {
  return new ReadableStream({
    async pull(controller) {
      try {
        const { value, done } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        if (onError !== undefined) onError(error);
        controller.error(error);
      }
    },
    async cancel() {
      await iterator.return();
    },
  });
}

exports.readableOf = readableOf;
