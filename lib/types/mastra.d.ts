import type { Processor } from '@mastra/core/processors';
import type { GuardOptions, GuardRun } from './guard.js';

export type { ActedFinding, ActedFindings, EvidenceOptions, FindingRun, GuardCheckReport, GuardFinding, GuardLedger, GuardOptions, GuardRun, GuardRunView, SeamguardSignalAttributes, SeamguardSignalName, StopKind } from './guard.js';

/**
 * A guard, made once and shared by every request a Mastra agent serves, for a Mastra agent: a processor
 * for both its `inputProcessors` and its `outputProcessors`.
 */
export interface Guard extends Processor<'seamguard'>, GuardRun {
  readonly id: 'seamguard';
  processInputStep: NonNullable<Processor['processInputStep']>;
  processLLMRequest: NonNullable<Processor['processLLMRequest']>;
  processOutputStep: NonNullable<Processor['processOutputStep']>;
  processOutputStream: NonNullable<Processor['processOutputStream']>;
}

/** The Mastra guard's options: every guard's, and the agent's processor retry budget. */
export interface MastraGuardOptions extends GuardOptions {
  /**
   * The Agent's own `maxProcessorRetries`. The claim seam's `'guard'`
   * posture asks for its one revision a turn through Mastra's processor
   * retry, which Mastra turns into an abort (ending the run) unless the
   * agent allows it; the processor cannot read the agent's setting, so
   * `posture: 'guard'` needs it here, and no retry is asked once the
   * step's retries are spent.
   */
  readonly maxProcessorRetries?: number | undefined;
}

/**
 * Arms seamguard's three checks inside a Mastra agent's loop, from one
 * declaration per tool:
 *
 * ```ts
 * const guard = createGuard({ argumentsFrom: { port_for_device: ['fabric_inventory'] } });
 * const agent = new Agent({ ..., inputProcessors: [guard], outputProcessors: [guard] });
 * ```
 *
 * At every step it reads the tools on offer (`processInputStep`), the AI SDK
 * prompt the model gets (`processLLMRequest`, after the processors listed
 * before it) and the answer's tool calls (`processOutputStep`), and judges
 * them as the AI SDK guard does; it strips a leaked call to a tool the step
 * told of from each streamed text (`processOutputStream`, which `generate`
 * runs too). At the step's `finish`, when the model made no real tool call,
 * a leaked call to a tool the step offers, with arguments its input schema
 * admits, is sent on as a `tool-call` part (`toolCallId` `healed_…`) that
 * the agent's loop executes (`heal`, on by default); its findings are
 * judged on that call. `strip: false` changes no text and heals nothing.
 * With `stopOn`, a step whose findings trip it ends the run through
 * Mastra's own tripwire (`abort`, from `processOutputStep`): the result's
 * `tripwire` has the reason and, as its `metadata`, the step's
 * `ActedFindings`. It changes nothing else, and never throws into the run
 * but that tripwire.
 *
 * @throws {TypeError} naming the option, when an option is malformed.
 */
export declare function createGuard(options?: MastraGuardOptions): Guard;
