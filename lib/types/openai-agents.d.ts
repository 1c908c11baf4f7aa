import type { Model, ModelProvider, OutputGuardrail } from '@openai/agents';
import type { ActedFinding, GuardOptions, GuardRun } from './guard.js';

export type { ActedFinding, ActedFindings, EvidenceOptions, FindingRun, GuardCheckReport, GuardFinding, GuardLedger, GuardOptions, GuardRun, GuardRunView, SeamguardSignalAttributes, SeamguardSignalName, StopKind } from './guard.js';

/** A guard, made once and shared by every run of the agents whose model it wraps, for the OpenAI Agents SDK. */
export interface Guard extends GuardRun {
  /**
   * The agent's model, guarded: `new Agent({ ..., model: guard.model(model) })`.
   *
   * @throws {TypeError} naming the argument, when `model` is not an Agents SDK `Model`.
   */
  model(model: Model): Model;
  /**
   * A provider whose every model is guarded, for models named by a string:
   * `new Runner({ modelProvider: guard.modelProvider(provider) })`.
   *
   * @throws {TypeError} naming the argument, when `provider` is not a `ModelProvider`.
   */
  modelProvider(provider: ModelProvider): ModelProvider;
  /**
   * An output guardrail, for `new Agent({ outputGuardrails: [...] })` or
   * `new Runner({ outputGuardrails: [...] })`: at the run's final output its
   * `outputInfo` (a `GuardrailInfo`) holds the findings of the run's
   * conversation that nothing handed on yet, and its tripwire fires when one
   * trips `stopOn`, so the run throws `OutputGuardrailTripwireTriggered`.
   * The conversation is found by the run's function call ids, else by its
   * final answer. It never throws.
   */
  readonly outputGuardrail: OutputGuardrail<any, any>;
}

/** What `guard.outputGuardrail` puts in its result's `outputInfo`. */
export interface GuardrailInfo {
  /** The guard's run of the conversation; `undefined` when the guardrail could not tell which it was. */
  readonly runId: string | undefined;
  readonly findings: readonly ActedFinding[];
}

/**
 * Arms seamguard's three checks inside the OpenAI Agents SDK's loop, from one
 * declaration per tool:
 *
 * ```ts
 * const guard = createGuard({ argumentsFrom: { port_for_device: ['fabric_inventory'] } });
 * const agent = new Agent({ name: 'triage', model: guard.model(model), tools });
 * ```
 *
 * At every turn the guarded model brings the run's corpus in step with the
 * model input (instructions and items, after any `callModelInputFilter`),
 * judges each armed function result the model is about to read and the
 * armed tools on offer (less what `modelSettings.toolChoice` withholds), and,
 * when the response arrives, its armed function calls. It strips a leaked
 * call to a tool the model was told of from the response's text: the
 * streamed `output_text_delta` events and the response's message text alike
 * (the stream seam). When the response made no real tool call, a leaked call
 * to a tool the turn offers, with arguments its `parameters` admit, joins
 * the response's output as a `function_call` item (`callId` `healed_…`; in
 * the `response_done` event's output, streamed), which the runner executes
 * (`heal`, on by default; not where the provider keeps the conversation,
 * `previousResponseId` or `conversationId`); its findings are judged on
 * that call.
 * `strip: false` changes no text and heals nothing. It changes nothing else,
 * and never throws into the run.
 *
 * @throws {TypeError} naming the option, when an option is malformed.
 */
export declare function createGuard(options?: GuardOptions): Guard;
