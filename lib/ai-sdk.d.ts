import type { LanguageModelMiddleware } from 'ai';
import type { ScaffoldingFilter } from '../index.js';

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
 *
 * @param options passed unchanged to every `new ScaffoldingFilter(options)`
 *   the middleware makes (one per text), so an `onStrip` callback sees every
 *   stripped span of every text.
 */
export declare function scaffoldingMiddleware(
  options?: ConstructorParameters<typeof ScaffoldingFilter>[number],
): LanguageModelMiddleware;
