import type { ContextError, DispositionLedger, LookupResultReading } from '../index.js';

/**
 * The options of every framework's `createGuard` (`seamguard/ai-sdk`,
 * `seamguard/langchain`, `seamguard/openai-agents`, `seamguard/mastra`).
 * Each is checked when the guard is made.
 */
export interface GuardOptions {
  /**
   * Arms the checks, per tool: the tools whose results ground its
   * arguments, as agentfootprint declares them. A tool named here with at
   * least one ground is armed at every seam; a tool not named is never
   * judged (its results still ground others). No armed tool: every check's
   * row says `not-applicable` once.
   */
  readonly argumentsFrom?: Readonly<Record<string, readonly string[]>> | undefined;
  /**
   * How to read an armed tool's result for the empty-lookup check, per
   * tool, when the default does not fit. It receives the result as the
   * prompt carries it (what the model reads, after any `toModelOutput`) and
   * returns `readLookupResult(rows, declaredAbsence)`, or `undefined` for a
   * result that is not a lookup answer. The default reads an array as a
   * rowset, agentfootprint's absence envelope (`{ af_absent: true,
   * checked: [...] }`) as an absence, and anything else as not a lookup.
   */
  readonly readResult?: Readonly<Record<string, (output: unknown) => LookupResultReading | undefined>> | undefined;
  /** Called with each new finding (one per identity in a run) as it is filed. */
  readonly onFinding?: ((finding: ContextError) => void) | undefined;
  /**
   * Called when a check could not be made (an input past the checks'
   * limits, a `readResult` or `onFinding` that threw, a message the guard
   * could not read). The run goes on and the encounter is `unreachable` in
   * the ledger. Without it, the first such error is printed once with
   * `console.warn`.
   */
  readonly onError?: ((error: unknown) => void) | undefined;
  /**
   * `'dev'` runs each check's canary at every run start, as
   * `beginIntegrityRun` does; `'prod'` (the default) does not.
   */
  readonly posture?: 'dev' | 'prod' | undefined;
}

/** What every framework's guard keeps of its conversation's run. */
export interface GuardRun {
  /** The current run's findings, the first of each identity, in filing order. A new array at every read. */
  readonly findings: readonly ContextError[];
  /** The current run's ledger: one row per check, every encounter noted. */
  readonly ledger: DispositionLedger;
  /** Ends the run here: the next model call starts a new one, with a new ledger. */
  newRun(): void;
}
