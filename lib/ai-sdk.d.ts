import type { LanguageModelMiddleware } from 'ai';
import type { ScaffoldingFilter } from '../index.js';

/** What `onRecover` is told about a round that deflected into markup. */
export interface RecoverEvent {
  /** The round that deflected: always 1 (the retry is never retried). */
  readonly round: 1;
  /** The spans stripped from that round, in order, each cut to 200 UTF-16 units. */
  readonly stripped: ReadonlyArray<string>;
  /** Whether the second round answered: visible text or a real tool call. */
  readonly recovered: boolean;
}

/** The options of `scaffoldingMiddleware`: the filter's, and the recovery's. */
export type ScaffoldingMiddlewareOptions = NonNullable<ConstructorParameters<typeof ScaffoldingFilter>[number]> & {
  /**
   * Ask the model again, once, when a round deflected: after filtering its
   * answer has no visible text, at least one span was stripped from it, and
   * it made no real tool call. Default `false`: every round is delivered as
   * it came, filtered.
   */
  readonly recover?: boolean | undefined;
  /** Called once per retried round, when the retry has ended. */
  readonly onRecover?: ((event: RecoverEvent) => void) | undefined;
};

/**
 * An AI SDK (v6) language-model middleware that strips leaked tool-call
 * markup from the model's answer text:
 *
 * ```ts
 * const model = wrapLanguageModel({ model: base, middleware: scaffoldingMiddleware() });
 * ```
 *
 * - Streaming: `text-delta` parts are filtered with one `ScaffoldingFilter`
 *   per text id. A delta that comes out empty is dropped (kept, with `''`,
 *   when it carries `providerMetadata`). A text's held tail is sent as one
 *   last `text-delta` right before its `text-end`; a text with no `text-end`
 *   gets it before `finish`, or when the stream closes. Every other part
 *   (reasoning, tool calls, sources, finish, errors) passes through
 *   unchanged and in order.
 * - Generating: each `text` content part is filtered whole (feed, then
 *   flush); every other part is returned as it came.
 * - With `recover: true`, a round that deflected (only markup, no real tool
 *   call) is asked again once, with the same parameters, and the second
 *   round is what the caller gets. Streaming, a round's parts are held in
 *   order until its answer shows a visible unit, a real tool call or an
 *   error; a deflected round's parts are never delivered. The reader sees
 *   the second round's parts, metadata and finish reason, with the usage
 *   of both rounds added up (both were paid for); the response headers are
 *   the first call's, since the middleware answers before it knows.
 *
 * @param options passed to every `new ScaffoldingFilter(options)` the
 *   middleware makes (one per text), less `recover` and `onRecover`, so an
 *   `onStrip` callback sees every stripped span of every text.
 */
export declare function scaffoldingMiddleware(options?: ScaffoldingMiddlewareOptions): LanguageModelMiddleware;
