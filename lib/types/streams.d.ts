import type { ScaffoldingFilter } from '../../index.js';

// The options are whatever ScaffoldingFilter's constructor takes (options,
// or a FilterPlan), read from the root typings so the adapters follow it. `[number]` rather than `[0]`:
// it is the same type for a one-parameter constructor, and still compiles
// (as `never`) for a constructor that takes none.

/** A `TransformStream` of answer text with the scaffolding removed. */
export interface ScaffoldingTransformStream extends TransformStream<string, string> {
  /** The filter doing the work, for reading `strippedChars` and `strippedSpans`. */
  readonly filter: ScaffoldingFilter;
}

/** Answer text with the scaffolding removed, as an async generator. */
export interface StrippedText extends AsyncGenerator<string, void, undefined> {
  /** The filter doing the work, for reading `strippedChars` and `strippedSpans`. */
  readonly filter: ScaffoldingFilter;
}

/**
 * A `TransformStream<string, string>` that strips leaked tool-call markup
 * from the text written to it, for `readable.pipeThrough(...)`.
 *
 * Each chunk goes through `filter.feed`; what it returns is enqueued when it
 * is not empty. When the writable side closes, the held tail
 * (`filter.flush()`) is enqueued too. A chunk that is not a string errors the
 * stream with a `TypeError`. On abort or cancel the held tail is discarded.
 *
 * @param options passed unchanged to `new ScaffoldingFilter(options)`:
 *   options, or a `FilterPlan` shared with other filters.
 */
export declare function scaffoldingTransform(
  options?: ConstructorParameters<typeof ScaffoldingFilter>[number],
): ScaffoldingTransformStream;

/**
 * Yields the text of `source` with leaked tool-call markup stripped; chunks
 * that come out empty are skipped.
 *
 * - The source ends: the held tail (`filter.flush()`) is yielded last.
 * - The consumer stops early (`break`, `return()`): the source iterator is
 *   closed, and the held tail is flushed out of the filter and discarded;
 *   nothing more is yielded.
 * - The source throws, or yields a non-string (a `TypeError`): the error
 *   reaches the consumer, and the held tail is flushed and discarded.
 *
 * @param source any async (or sync) iterable of strings, a `ReadableStream`
 *   of strings included.
 * @param options passed unchanged to `new ScaffoldingFilter(options)`:
 *   options, or a `FilterPlan` shared with other filters.
 * @throws {TypeError} at the call, naming `source`, when `source` is not
 *   iterable; the filter's own errors for bad options.
 */
export declare function stripScaffolding(
  source: AsyncIterable<string> | Iterable<string>,
  options?: ConstructorParameters<typeof ScaffoldingFilter>[number],
): StrippedText;
