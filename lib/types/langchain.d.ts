import type { ActedFinding, GuardOptions, GuardRun } from './guard.js';

export type { ActedFinding, ActedFindings, EvidenceOptions, FindingRun, GuardCheckReport, GuardFinding, GuardLedger, GuardOptions, GuardRun, GuardRunView, SeamguardSignalAttributes, SeamguardSignalName, StopKind } from './guard.js';

/**
 * The guard's agent middleware, for `createAgent({ middleware: [...] })`.
 * It is typed by its shape, not as LangChain's `AgentMiddleware`, so that it
 * fits that type whether the app imports LangChain as ES modules or as
 * CommonJS (the two declare distinct classes).
 */
export interface GuardMiddleware {
  readonly name: 'seamguard';
  wrapModelCall(request: any, handler: (request: any) => any): Promise<any>;
}

/**
 * The agent state the middleware adds (its `stateSchema`; the shape above
 * leaves it out, so read the state through this type): each model call's
 * findings, appended (a finding the thread holds already is not added
 * again), so a checkpointer keeps them per thread.
 */
export interface SeamguardState {
  readonly seamguardFindings: readonly ActedFinding[];
}

/** The LangChain guard's options: every guard's, and where a tripping finding sends the run. */
export interface LangChainGuardOptions extends GuardOptions {
  /**
   * Where the run goes after a model call whose findings trip `stopOn`:
   * `'end'` (the default) ends it before the call's tools run; `'model'`
   * asks the model again instead.
   */
  readonly jumpTo?: 'end' | 'model' | undefined;
}

/**
 * A guard for a LangChain.js agent (`createAgent`), made once and shared by
 * every conversation the agent serves: each run is found by its thread
 * (`configurable.thread_id`), or from its prompt. It is itself the
 * middleware too, the same as `guard.middleware`.
 */
export interface Guard extends GuardMiddleware, GuardRun {
  /** For `createAgent({ ..., middleware: [guard.middleware] })`. */
  readonly middleware: GuardMiddleware;
  /**
   * The agent's `streamMode: 'messages'` stream with leaked tool calls
   * stripped from the AI messages' text: one filter per streamed message,
   * from the tools of the model call that made it, its held tail sent as one
   * more chunk of the message, with the calls the middleware healed from it
   * as `tool_call_chunks` (the ids the agent's state holds). Every other item
   * passes as it came; with `strip: false`, every item does.
   *
   * @throws {TypeError} naming the argument, when `stream` is not an async iterable.
   */
  messages<T>(stream: AsyncIterable<T>): AsyncGenerator<T, void, undefined>;
}

/**
 * Arms seamguard's three checks inside a LangChain.js agent's loop, from one
 * declaration per tool:
 *
 * ```ts
 * const guard = createGuard({ argumentsFrom: { port_for_device: ['fabric_inventory'] } });
 * const agent = createAgent({ model, tools, middleware: [guard.middleware] });
 * ```
 *
 * At every model call (`wrapModelCall`) the middleware brings the run's
 * corpus in step with the request's messages and system message, judges each
 * armed tool result the model is about to read and the armed tools on offer,
 * and, when the answer arrives, its armed tool calls. It strips a leaked call
 * from the answer's text (the stream seam) and heals it: a call to a tool
 * the model may call, with arguments the tool's schema admits, in an answer
 * that made no real tool call, becomes one of the AIMessage's `tool_calls`,
 * which the agent runs (`heal: false` strips only; `strip: false` changes
 * nothing). After each model call (`afterModel`) the call's findings join
 * the agent state's `seamguardFindings`; with `stopOn`, a finding that
 * trips it sends the run to `jumpTo`. It changes nothing else, and never
 * throws into the run.
 *
 * @throws {TypeError} naming the option, when an option is malformed.
 */
export declare function createGuard(options?: LangChainGuardOptions): Guard;
