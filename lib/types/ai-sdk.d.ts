import type { LanguageModelMiddleware, wrapLanguageModel } from 'ai';
import type { ScaffoldingFilterOptions } from '../../index.js';

import type { GuardOptions, GuardRun } from './guard.js';
export type { ActedFinding, ActedFindings, EvidenceOptions, FindingRun, GuardCheckReport, GuardFinding, GuardLedger, GuardOptions, GuardRun, GuardRunView, SeamguardSignalAttributes, SeamguardSignalName, StopKind } from './guard.js';

/**
 * The `specificationVersion` of seamguard's middlewares: that of the models
 * the installed `ai` wraps, `'v4'` under ai 7 and `'v3'` under ai 6. At run
 * time it is read from the `ai` seamguard resolves as a peer.
 */
export type MiddlewareSpecificationVersion = ReturnType<typeof wrapLanguageModel>['specificationVersion'];

/** A language-model middleware of the installed `ai`, saying that `ai`'s specification version. */
export type SeamguardMiddleware = LanguageModelMiddleware & { readonly specificationVersion: MiddlewareSpecificationVersion };

/**
 * A guard, made once and shared by every conversation the wrapped model
 * serves; each conversation's run is found from its prompt. It is itself a
 * middleware too, the same as `guard.middleware`, so `middleware: guard`
 * works as well.
 */
export interface Guard extends SeamguardMiddleware, GuardRun {
  /** For `wrapLanguageModel({ model, middleware: guard.middleware })`. */
  readonly middleware: SeamguardMiddleware;
  /**
   * A stop condition: `stopWhen: [stepCountIs(8), guard.stopWhen]` (for
   * `generateText`, `streamText` and `ToolLoopAgent`) ends the loop after a
   * step whose model call filed a finding that trips `stopOn`. It reads the
   * step's `providerMetadata.seamguard` (an `ActedFindings`), which every
   * model call that filed findings carries, on generate's result and on the
   * stream's finish part. The SDK checks it after the step's tools ran.
   */
  readonly stopWhen: (options: { readonly steps: ReadonlyArray<{ readonly providerMetadata?: unknown }> }) => boolean;
}

/**
 * Arms seamguard's three checks inside the AI SDK's loop (`generateText`,
 * `streamText`, `ToolLoopAgent`; AI SDK 6 and 7), from one declaration per
 * tool:
 *
 * ```ts
 * const guard = createGuard({ argumentsFrom: { port_for_device: ['fabric_inventory'] } });
 * const model = wrapLanguageModel({ model: base, middleware: guard.middleware });
 * ```
 *
 * At every model call the middleware brings the run's corpus in step with
 * the prompt (a new message is pushed once, a dropped one evicted; a
 * prompt that shares no message but the system prompt with the run starts a
 * new run), judges each armed result the model is about to read
 * (empty-lookup) and the armed tools on offer (dangling-reference); when
 * the answer arrives, it judges the armed calls in it against what that
 * call was given (unsupported-argument). It never changes what the model or
 * a tool sees and never throws into the run.
 *
 * @throws {TypeError} naming the option, when an option is malformed.
 */
export declare function createGuard(options?: GuardOptions): Guard;

/** What `onRecover` is told about a round that deflected into markup. */
export interface RecoverEvent {
  /** The round that deflected: always 1 (the retry is never retried). */
  readonly round: 1;
  /** The spans stripped from that round, in order, each cut to 200 UTF-16 units. */
  readonly stripped: ReadonlyArray<string>;
  /** Whether the second round answered: visible text or a real tool call. */
  readonly recovered: boolean;
}

/** What `onHeal` is told about a round whose leaked calls became real ones. */
export interface HealEvent {
  /** The calls made real, in the order they leaked. */
  readonly calls: ReadonlyArray<{ readonly toolCallId: string; readonly toolName: string; readonly input: unknown }>;
  /** The spans stripped from that round, in order, each cut to 200 UTF-16 units. */
  readonly stripped: ReadonlyArray<string>;
}

/** The options of `scaffoldingMiddleware`: the filter's, the heal's and the recovery's. */
export type ScaffoldingMiddlewareOptions = ScaffoldingFilterOptions & {
  /**
   * Ask the model again, once, when a round deflected: after filtering its
   * answer has no visible text, at least one span was stripped from it, and
   * it made no real tool call. Default `false`: every round is delivered as
   * it came, filtered.
   */
  readonly recover?: boolean | undefined;
  /** Called once per retried round, when the retry has ended. */
  readonly onRecover?: ((event: RecoverEvent) => void) | undefined;
  /**
   * Make a round's leaked calls real: when the calls the filter read out of
   * its text name tools this call may use (`params.tools`, as `toolChoice`
   * allows) and the round made no real tool call, they are returned as
   * tool calls, so the SDK runs the tools instead of the user seeing markup
   * or an empty answer. A call whose arguments did not parse is not healed,
   * and neither is a call to a tool not on offer (`offered: false`), which
   * is only stripped. Default `false`.
   */
  readonly heal?: boolean | undefined;
  /** Called once per healed round. */
  readonly onHeal?: ((event: HealEvent) => void) | undefined;
  /**
   * Told what goes wrong on the middleware's side, which never reaches the
   * run: once per tool name, a tool a call offers whose name tool-aware
   * detection cannot use (empty, over 256 UTF-16 units, holding a line
   * break, or repeated: `usableTools` decides), left out of detection; and
   * what `onStrip`, `onHeal` or `onRecover` throws or rejects with. Without
   * it, the first is said once with `console.warn`. It may be async.
   */
  readonly onError?: ((error: unknown) => unknown) | undefined;
};

/**
 * An AI SDK (6 and 7) language-model middleware that strips leaked tool-call
 * markup from the model's answer text:
 *
 * ```ts
 * const model = wrapLanguageModel({ model: base, middleware: scaffoldingMiddleware() });
 * ```
 *
 * - What it strips, unless the options say otherwise: a leaked call to any
 *   function tool in the call's `params.tools`, in whatever markup it comes
 *   (`tools`), and every family's special tokens (`patterns:
 *   SCAFFOLD_SPECIAL_TOKENS`). Pass `patterns: SCAFFOLD_PRESETS.lfm2` and
 *   `tools: []` for the reference filter's behaviour exactly.
 * - With `heal: true`, a round's leaked calls to tools it may use become
 *   real tool calls when it made none: generating, `tool-call` content
 *   parts and finish reason `'tool-calls'`; streaming, each call's
 *   `tool-input-start`, `tool-input-delta`, `tool-input-end` and
 *   `tool-call` parts, right before the finish part (whose reason becomes
 *   `'tool-calls'`). Healing comes first; `recover` asks again only when
 *   nothing could be healed.
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
 * @param options the filter's options for every text, less the
 *   middleware's own (`recover`, `onRecover`, `heal`, `onHeal`,
 *   `onError`): each model call compiles them once into a `FilterPlan`,
 *   which every text of the call opens its filter from, so an `onStrip`
 *   callback sees every stripped span of every text. Checked when the
 *   middleware is built.
 * @throws {TypeError} or {RangeError} naming the option, when one is malformed.
 */
export declare function scaffoldingMiddleware(options?: ScaffoldingMiddlewareOptions): SeamguardMiddleware;
