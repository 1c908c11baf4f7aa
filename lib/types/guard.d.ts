import type { CheckReport, ContextError, DispositionLedger, LookupResultReading } from '../../index.js';

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
  readonly readResult?: Readonly<Record<string, (output: unknown) => LookupResultReading | undefined | PromiseLike<LookupResultReading | undefined>>> | undefined;
  /**
   * Called with each new finding (one per identity in a run) as it is
   * filed, and the run it belongs to. It may be async; what it throws or
   * rejects with goes to `onError`, and the finding is filed and counted
   * all the same.
   */
  readonly onFinding?: ((finding: GuardFinding, run: FindingRun) => unknown) | undefined;
  /**
   * Called when a check could not be made (an input past the checks'
   * limits, a `readResult` or `onFinding` that threw, a message the guard
   * could not read). The run goes on and the encounter is `unreachable` in
   * the ledger. Without it, the first such error is printed once with
   * `console.warn`.
   */
  readonly onError?: ((error: unknown) => unknown) | undefined;
  /**
   * `'dev'` runs each check's canary at every run start, as
   * `beginIntegrityRun` does; `'prod'` (the default) does not.
   */
  readonly posture?: 'dev' | 'prod' | undefined;
  /**
   * How many runs (conversations) one guard holds at most: the least
   * recently used beyond it is ended. 1000 by default. A guard holds only
   * live runs, so a server's memory stays flat however many conversations
   * it serves; a conversation whose run was ended and that goes on is
   * judged as a new run (said once through `onError`).
   */
  readonly maxRuns?: number | undefined;
  /**
   * Whether a leaked call to a tool the model may call becomes a real tool
   * call where the framework can run one (LangChain, the Agents SDK,
   * Mastra): only when the answer made no real call, and only with
   * arguments that were read and that the tool's input schema admits
   * (`argumentsMisfit`). A call to a tool not on offer stays stripped and
   * never runs. `true` by default. Findings are judged on the healed call.
   * (The AI SDK guard strips nothing: there, `scaffoldingMiddleware({ heal })`
   * heals.)
   */
  readonly heal?: boolean | undefined;
  /**
   * Whether the guard strips leaked calls from the answer's text (the
   * stream seam). `true` by default; `false` leaves every text as the model
   * wrote it and heals nothing: findings only.
   */
  readonly strip?: boolean | undefined;
  /**
   * The kinds of finding that stop (or redirect) a run, through the
   * framework's own mechanism: `true` for every kind, or a list. None by
   * default: the guard only detects, and nothing blocks. The AI SDK's
   * `guard.stopWhen`, Mastra's tripwire (`abort` from `processOutputStep`),
   * LangChain's jump after the model call, and the Agents SDK's
   * `guard.outputGuardrail` tripwire act on it. Each finding acts once.
   */
  readonly stopOn?: true | readonly StopKind[] | undefined;
  /**
   * The claim seam: the model's final answer (text and no tool calls) is
   * judged against the tool results the run read (`RunCorpus.evidenceOf`),
   * and a value none of them served, the user did not send and the system
   * prompt does not hold is an `'unsupported-claim'` finding. Off when
   * absent; `true` for the defaults. See docs/guard.md, "The claim seam".
   */
  readonly evidence?: true | EvidenceOptions | undefined;
  /**
   * With `evidence`: also file `'prior-turn-evidence'` (advisory) for a
   * final answer whose every grounded value was served in an earlier turn
   * and none in this one. `false` by default.
   */
  readonly noticePriorTurnEvidence?: boolean | undefined;
}

/** The claim seam's options. */
export interface EvidenceOptions {
  /**
   * `'assist'` (the default) files the verdict. `'guard'` names the
   * unsupported values back to the model for one revision per turn, and
   * files the revised answer's verdict; the first answer reaches no one.
   * (A guard never refuses a run: stop one with `stopOn`.)
   */
  readonly posture?: 'assist' | 'guard' | undefined;
  /** Values never flagged: strings (as `normalizeValue` spells them) or RegExps matched against a whole value. */
  readonly exempt?: readonly (string | RegExp)[] | undefined;
  /** Shapes of value to read as values, tested first: `{ name, match }`. */
  readonly shapes?: readonly { readonly name: string; readonly match: RegExp }[] | undefined;
  /** The digits a number needs to be a value; 4 by default. */
  readonly minDigits?: number | undefined;
}

/** The kinds of finding a guard files, which `stopOn` may name. */
export type StopKind = 'empty-lookup' | 'unsupported-argument' | 'dangling-reference' | 'unsupported-claim' | 'prior-turn-evidence';

/**
 * A finding as a framework's own mechanism is handed it: plain JSON (for
 * provider metadata, agent state, a checkpoint, a guardrail's output).
 */
export interface ActedFinding {
  readonly kind: StopKind;
  readonly seam: 'write' | 'choice' | 'compose' | 'claim';
  /** The tools the finding names: the armed tool first, then its grounds where the finding names them (none for the claim seam). */
  readonly tools: readonly string[];
  /** The argument the finding is about, where it is about one. */
  readonly path?: string;
  /** The argument's value in question, where there is one, as the model wrote it. */
  readonly value?: unknown;
  /** The claim seam's: the values the final answer states that the finding is about (an unsupported claim's unsupported values). */
  readonly values?: readonly string[];
  /** The tool call the finding is about, where known. */
  readonly toolCallId?: string;
  readonly message: string;
  /** Whether it trips the guard's `stopOn`. */
  readonly trips: boolean;
}

/** A model call's (or a run's) findings, as they are handed on: each finding once. */
export interface ActedFindings {
  /** The run (conversation) they belong to: `guard.run(runId)` reads it. */
  readonly runId: string;
  readonly findings: readonly ActedFinding[];
  /** Whether one of them trips `stopOn`. */
  readonly stop: boolean;
}

/** A finding as a guard files it: the check's finding, and the tool call it is about. */
export interface GuardFinding extends ContextError {
  /**
   * The id of the tool call the finding is about, as the framework names
   * it (a healed call's id for a healed call). Absent for a dangling
   * reference, which is about a tool on offer, not a call.
   */
  readonly toolCallId?: string;
}

/**
 * The names a guard records its signals under, in each framework's traces
 * (see docs/telemetry.md): a finding filed, a leaked call stripped, a
 * leaked call healed into a real one, and one heal turned down.
 */
export type SeamguardSignalName = 'seamguard.finding' | 'seamguard.strip' | 'seamguard.heal' | 'seamguard.heal_refused' | 'seamguard.revision';

/**
 * The attributes of a signal: an OpenTelemetry span event's attributes, a
 * LangChain custom event's data, an Agents SDK custom span's data, a Mastra
 * event span's metadata. Each is present where the signal has it.
 */
export interface SeamguardSignalAttributes {
  /** `'finding'`, `'strip'`, `'heal'`, `'heal-refused'` or `'revision'` (the claim seam asked the model again). */
  readonly 'seamguard.signal': 'finding' | 'strip' | 'heal' | 'heal-refused' | 'revision';
  /** A finding's kind (`StopKind`); `'unsupported-claim'` for a revision. */
  readonly 'seamguard.kind'?: string;
  /** A finding's seam: `'write'`, `'choice'`, `'compose'` or `'claim'`. */
  readonly 'seamguard.seam'?: string;
  /** The tools the signal is about: a finding's (the one called first), the calls a strip read, the tool healed or refused. */
  readonly 'seamguard.tools'?: readonly string[];
  /** The argument's path (`wwpn`, `filter.host`): a finding about an argument. */
  readonly 'seamguard.path'?: string;
  /** The argument's value a finding is about, or a healed call's input as JSON; cut to 500 characters. */
  readonly 'seamguard.value'?: string;
  /** A finding's message, as `finding.message`. */
  readonly 'seamguard.message'?: string;
  /** `true` for an advisory finding (an empty lookup). */
  readonly 'seamguard.advisory'?: boolean;
  /** Why a strip was made (`'match'`, `'unclosed-at-end'`, `'max-held'`) or a heal refused. */
  readonly 'seamguard.reason'?: string;
  /** The stripped text, cut to 500 characters. */
  readonly 'seamguard.span'?: string;
  /** The index of the pattern that stripped it; -1 for tool-aware detection. */
  readonly 'seamguard.pattern'?: number;
  /** The claim seam's values: those a revision named back to the model, or those an `unsupported-claim` finding's answer states unsupported; each cut to 500 characters. */
  readonly 'seamguard.values'?: readonly string[];
  /** How many distinct values the judged answer held (a revision). */
  readonly 'seamguard.candidates'?: number;
  /** The run (conversation) the signal belongs to: `guard.run(id)`. */
  readonly 'seamguard.run_id'?: string;
  /** The run's model call the signal came from, counted from 0 (a finding's `epoch`). */
  readonly 'seamguard.model_call'?: number;
  /** The tool, as the OpenTelemetry GenAI conventions name it. */
  readonly 'gen_ai.tool.name'?: string;
  /** The tool call, as the OpenTelemetry GenAI conventions name it. */
  readonly 'gen_ai.tool.call.id'?: string;
}

/** The run a finding belongs to, as `onFinding` is told. */
export interface FindingRun {
  /**
   * The run's id: the framework's thread id where it has one (LangChain's
   * `configurable.thread_id`, Mastra's memory thread),
   * else an id the guard made (a UUID). `guard.run(id)` reads the run
   * while it is live.
   */
  readonly id: string;
  /** The tool call the finding is about; `undefined` for a dangling reference (a tool on offer). */
  readonly toolCallId: string | undefined;
}

/** A run's ledger: a disposition ledger whose rows also say why encounters went unreachable. */
export interface GuardLedger extends DispositionLedger {
  report(): readonly GuardCheckReport[];
}

/** A ledger row, with the reasons the guard gave for its unreachable encounters. */
export interface GuardCheckReport extends CheckReport {
  /**
   * Why encounters went unreachable, each once: a name in `argumentsFrom`
   * no offered tool has (with the closest offered names), a message the
   * guard could not read. Absent when there is nothing to explain.
   */
  readonly reasons?: readonly string[];
}

/** One live run of a guard, as `guard.run(id)` gives it. */
export interface GuardRunView {
  readonly id: string;
  /** The run's findings, the first of each identity, in filing order. A copy. */
  readonly findings: readonly GuardFinding[];
  /** The run's ledger. */
  readonly ledger: GuardLedger;
}

/**
 * What every framework's guard keeps of the conversations it serves: one
 * run each. `findings` and `ledger` are the latest run's (the run of the
 * latest model call), which is all a guard serving one conversation needs;
 * a server reads each run by its id.
 */
export interface GuardRun {
  /** The latest run's findings, the first of each identity, in filing order. A new array at every read. */
  readonly findings: readonly GuardFinding[];
  /** The latest run's ledger: one row per check, every encounter noted. */
  readonly ledger: GuardLedger;
  /** A live run, by the id `onFinding` was told; `undefined` once it has ended. */
  run(id: string): GuardRunView | undefined;
  /** The live runs' ids, least recently used first. */
  runIds(): string[];
  /** Ends every run: the next model call starts a new one, with a new ledger. */
  newRun(): void;
}
