'use strict';
// The guard: seamguard's three checks inside an agent framework's own loop.
// It knows no framework. An adapter hands it, at every model call, the
// prompt as the framework's own messages (with a translator that reads
// them), the tools on offer and, where the framework has one, the run's own
// identity; and, when the answer arrives, the answer's tool calls. The guard
// finds the run the call belongs to, keeps that run's RunCorpus in step with
// its prompts, judges each seam, files findings and keeps the run's ledger.
// An adapter decides nothing of this; it only translates.
//
// One guard serves any number of conversations at once, as an agent built at
// startup does (runs.cjs tells them apart). What it never does: change what
// the model or a tool sees, or throw into the user's run. A check that
// cannot be made is an `unreachable` note and an error handed to `onError`.

const native = require('../native.cjs');
const { beginIntegrityRun, contextErrorIdentity, CHECK_ROWS } = require('./ledger.cjs');
const { declaredEnumValuesOf } = require('./enums.cjs');
const { searchableText } = require('./text.cjs');
const { Runs } = require('./runs.cjs');
const { closestNames } = require('./names.cjs');
const { MESSAGE_KINDS } = require('./kinds.cjs');
const { filterTools, sayLeftOut } = require('./tools.cjs');
const { streamSeam } = require('./heal.cjs');
const { callTrace } = require('./telemetry.cjs');
const { FilterPlan, ScaffoldRegistry } = require('../filter/scaffolding-filter.cjs');
const { readStopOn, actedFinding } = require('./stop.cjs');
const { CLAIM_SEAM, readEvidence, claimRows, answerText } = require('./claim.cjs');

// Marks the one error a guard throws into a run: a misspelt name in
// `argumentsFrom` under `posture: 'dev'`.
const MISUSE = Symbol('seamguard.misuse');

const OPTION_KEYS = ['argumentsFrom', 'readResult', 'onFinding', 'onError', 'posture', 'maxRuns', 'heal', 'strip', 'stopOn', 'evidence', 'noticePriorTurnEvidence'];
const DEFAULT_MAX_RUNS = 1000;

/** Every family's special tokens, compiled once for every plan `streamPlan` makes. */
const SPECIAL_TOKENS = new ScaffoldRegistry(native.SCAFFOLD_SPECIAL_TOKENS);

/**
 * The stream seam's filter plan for one model call, which every text of
 * the call opens its filter from: `options` as given, with every family's
 * special tokens as the patterns unless they name others. Every adapter,
 * and `scaffoldingMiddleware`, makes its plans here.
 */
function streamPlan(options) {
  return new FilterPlan({ ...options, patterns: options.patterns ?? SPECIAL_TOKENS });
}

const describe = (value) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);
const isRecord = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const isThenable = (value) => value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function';

/**
 * Reads and checks a guard's options once, when the guard is made. Every
 * mistake is a TypeError that names the option, prefixed with `who`.
 */
function readOptions(options, who, adapterKeys) {
  if (options === undefined) options = {};
  if (!isRecord(options)) throw new TypeError(`${who}: options must be an object (got ${describe(options)})`);
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) {
      // The adapter has read its own options (`adapterKeys`) already; a
      // misspelt one is named among the rest.
      const known = [...OPTION_KEYS, ...adapterKeys];
      const close = closestNames(key, known);
      const hint = close.length > 0 ? `; did you mean ${close[0]}?` : '';
      throw new TypeError(`${who}: unknown option ${JSON.stringify(key)} (known: ${known.join(', ')}${hint})`);
    }
  }
  const grounds = new Map();
  const { argumentsFrom = {}, readResult = {}, onFinding, onError, posture = 'prod', maxRuns = DEFAULT_MAX_RUNS, heal = true, strip = true, stopOn, evidence, noticePriorTurnEvidence } = options;
  if (!isRecord(argumentsFrom)) {
    throw new TypeError(`${who}: options.argumentsFrom must be an object of tool name to tool names (got ${describe(argumentsFrom)})`);
  }
  for (const [tool, from] of Object.entries(argumentsFrom)) {
    if (!Array.isArray(from) || !from.every((name) => typeof name === 'string')) {
      throw new TypeError(`${who}: options.argumentsFrom[${JSON.stringify(tool)}] must be an array of tool names`);
    }
    // A tool that declares no ground is not armed: nothing grounds it.
    if (from.length > 0) grounds.set(tool, Object.freeze([...from]));
  }
  if (!isRecord(readResult)) {
    throw new TypeError(`${who}: options.readResult must be an object of tool name to function (got ${describe(readResult)})`);
  }
  const readers = new Map();
  for (const [tool, reader] of Object.entries(readResult)) {
    if (typeof reader !== 'function') {
      throw new TypeError(`${who}: options.readResult[${JSON.stringify(tool)}] must be a function (got ${describe(reader)})`);
    }
    readers.set(tool, reader);
  }
  if (onFinding !== undefined && typeof onFinding !== 'function') {
    throw new TypeError(`${who}: options.onFinding must be a function (got ${describe(onFinding)})`);
  }
  if (onError !== undefined && typeof onError !== 'function') {
    throw new TypeError(`${who}: options.onError must be a function (got ${describe(onError)})`);
  }
  if (posture !== 'dev' && posture !== 'prod') {
    throw new TypeError(`${who}: options.posture must be 'dev' or 'prod' (got ${JSON.stringify(posture) ?? describe(posture)})`);
  }
  if (!Number.isSafeInteger(maxRuns) || maxRuns < 1) {
    throw new TypeError(`${who}: options.maxRuns must be a whole number of at least 1 (got ${typeof maxRuns === 'number' ? maxRuns : describe(maxRuns)})`);
  }
  for (const [name, value] of [['heal', heal], ['strip', strip]]) {
    if (typeof value !== 'boolean') throw new TypeError(`${who}: options.${name} must be a boolean (got ${describe(value)})`);
  }
  const claim = readEvidence(evidence, noticePriorTurnEvidence, who);
  return { grounds, readers, onFinding, onError, posture, maxRuns, heal, strip, stopKinds: readStopOn(stopOn, who), claim };
}

/**
 * The default reading of a tool result: agentfootprint's absence envelope
 * (what its `absent()` mints) is a declared absence; anything else is read
 * by `readLookupResult` as it is (an array a rowset, any other shape no
 * reading, so `not-applicable`).
 */
function defaultReading(value) {
  const absence = isRecord(value) && value.af_absent === true && Array.isArray(value.checked) && value.checked.length > 0;
  return native.readLookupResult(value, absence);
}

/**
 * A run's ledger: the disposition ledger, whose `report()` rows also say
 * why their encounters went unreachable, where the guard knows (`reasons`,
 * each once: a name in `argumentsFrom` no offered tool has, a message it
 * could not read). `explain(check, seam, reason)` adds one.
 */
function explainedLedger(ledger) {
  const reasons = new Map();
  return Object.freeze({
    ...ledger,
    explain(check, seam, reason) {
      const key = `${check}\u0000${seam}`;
      const said = reasons.get(key) ?? [];
      if (!said.includes(reason)) reasons.set(key, [...said, reason]);
    },
    report() {
      return ledger.report().map((row) => {
        const said = reasons.get(`${row.check}\u0000${row.seam}`);
        return said === undefined ? row : { ...row, reasons: [...said] };
      });
    },
  });
}

/**
 * One conversation's run: its corpus, findings and ledger, and the
 * messages of its window by kind and key. A guard holds one per live
 * conversation; `Runs` finds them.
 */
class Run {
  constructor(guard, id) {
    this.guard = guard;
    this.id = id;
    // Without the claim seam the corpus keeps no claim index: a push then
    // costs what it did before the seam existed.
    this.corpus = new native.RunCorpus(guard.claim === undefined ? { evidence: false } : undefined);
    // What `Runs` keeps to find this run again: see runs.cjs.
    this.state = 'new';
    this.frontier = undefined;
    this.begin();
  }

  /** Starts the run afresh: the next model call is its first. */
  begin() {
    this.corpus.clear();
    const armed = this.guard.grounds.size > 0;
    this.ledger = explainedLedger(
      beginIntegrityRun({
        armed: { 'empty-lookup': armed, 'unsupported-argument': armed, 'dangling-reference': armed },
        posture: this.guard.posture,
      }),
    );
    for (const [check, seam] of this.guard.claimRows) this.ledger.register(check, seam);
    this.findings = [];
    // Each finding as filed, `{ finding, acted }`: what the
    // framework's own mechanism is handed (see Guard.actOn).
    this.filed = [];
    this.identities = new Set();
    // Per kind of message, message key -> { ids, calls, pass, system }: the
    // messages of the run still in its window, with their corpus ids and
    // the ids of the tool calls they hold.
    this.records = [];
    this.recordCount = 0;
    // tool call id -> { toolName, input }: the calls in the run's window.
    this.calls = new Map();
    this.pass = 0;
    this.epoch = -1;
    this.offered = undefined;
    // The trace of the model call the run is in (telemetry.cjs), if any,
    // until the call is answered or fails.
    this.trace = undefined;
    this.namesChecked = false;
    this.unreadableSaid = false;
    // The claim seam's turns: a turn starts at each user message that
    // appears; `revisedTurn` is the turn whose one revision was spent.
    this.turns = 0;
    this.revisedTurn = -1;
  }

  /** The map of one kind's messages, by key. */
  recordsOf(kind) {
    this.records[kind] ??= new Map();
    return this.records[kind];
  }

  /** What a user sees of the run: `{ id, findings, ledger }`, findings a copy. */
  view() {
    return { id: this.id, findings: this.findings.slice(), ledger: this.ledger };
  }
}

/**
 * The guard core: options, the live runs, and the checks.
 *
 * The translator an adapter passes to `modelCall` reads its framework's
 * messages:
 * - `kindOf(message)`, a small number (a kind is a role, or a role with or
 *   without tool calls), and `keyOf(message, kind)`, a string: together
 *   they name the message across model calls (the framework rebuilds its
 *   message objects, so identity will not do): a key is unique among its
 *   kind's messages, a call id or the text. They are asked for every
 *   message of every prompt, so they must be cheap: a property read, never
 *   a string built.
 * - `entriesOf(message)`: what the message holds, asked once, when it first
 *   appears: an array of `{ role: 'system' | 'user', text }`,
 *   `{ role: 'assistant', text, calls: [{ toolCallId, toolName, input }] }`
 *   (input decoded) and `{ role: 'tool', toolName, toolCallId, value, error }`
 *   (value as the model reads it).
 * Any of them may throw on a message it cannot read: that message is noted
 * unreachable once and the rest of the run is judged as before.
 */
class Guard {
  /**
   * `who` prefixes every error; `adapterKeys`: the options the adapter read
   * itself and took out of `options`, named when a key is unknown.
   */
  constructor(options, who, adapterKeys = []) {
    const { grounds, readers, onFinding, onError, posture, maxRuns, heal, strip, stopKinds, claim } = readOptions(options, who, adapterKeys);
    this.who = who;
    // The stream seam: strip leaked calls from the answer's text, and heal
    // those that may run into real tool calls (heal.cjs). Heal needs the
    // strip: with `strip: false` the text is left as it is.
    this.stripping = strip;
    this.healing = strip && heal;
    this.grounds = grounds;
    this.readers = readers;
    this.onFinding = onFinding;
    this.onError = onError;
    this.posture = posture;
    // The kinds of finding that stop a run (stop.cjs); none by default.
    this.stopKinds = stopKinds;
    // The claim seam (claim.cjs): `undefined` when off.
    this.claim = claim;
    this.claimRows = claimRows(claim);
    // Said once per guard: the first error with no onError, an onError that
    // failed, each misspelt name.
    this.said = new Set();
    // The offered tool names detection cannot use, said already.
    this.leftOut = new Set();
    this.runs = new Runs(this, maxRuns);
    // The run of the latest model call: what `guard.findings` and
    // `guard.ledger` show, for a guard that serves one conversation.
    this.latest = this.makeRun(this.runs.newId());
  }

  /** A new run named `id`. */
  makeRun(id) {
    return new Run(this, id);
  }

  /**
   * Runs the guard's side of a model call, `fn`, so that its failure never
   * reaches the run: what it throws or rejects with goes to onError, and
   * `undefined` is the result. The one exception is a misuse `dev` posture
   * asks to be thrown.
   */
  attempt(fn) {
    const failed = (error) => {
      if (error?.[MISUSE] === true) throw error;
      this.report(error);
      return undefined;
    };
    try {
      const result = fn();
      return isThenable(result) ? Promise.resolve(result).then(undefined, failed) : result;
    } catch (error) {
      return failed(error);
    }
  }

  /**
   * One model call: finds its run (by `scope`, the framework's own identity
   * for the conversation, or else from the prompt), brings the run's corpus
   * in step with `messages`, judges the write seam for each armed result the
   * model is about to read and the compose seam for the armed tools on
   * offer. Returns the call, `{ run, epoch }`, to hand to `answered` or
   * `failed`; `undefined` when no tool is armed (there is nothing to judge).
   * Returns a promise only when a `readResult` does.
   *
   * @param messages the prompt, in the framework's own message objects.
   * @param translator reads them (see the class comment).
   * @param offered the tools the model may call: `[{ name, inputSchema }]`.
   * @param told the tools the model was told about (`offered` when not given).
   * @param scope the framework's identity of the conversation, if it has
   *   one: a string (a thread id), or the run an earlier call of the same
   *   request found (kept in the framework's per-request state).
   * @param trace where this call's signals are recorded (`guard.trace`).
   */
  modelCall(messages, translator, offered, told = offered, scope = undefined, trace = undefined) {
    // With no tool armed every row says not-applicable once, at the start,
    // and nothing a prompt holds can change that.
    if (this.grounds.size === 0 && this.claim === undefined) return undefined;
    const found = this.runs.find(messages, translator, scope);
    const { run } = found;
    this.latest = run;
    const fresh = found.restart ? this.restart(run, found.reads) : this.sync(run, found.reads);
    // A message the translator could not read is left out, said once.
    for (const error of found.reads.errors?.values() ?? []) this.unreadable(run, error);
    const epoch = run.epoch;
    run.offered = offered;
    run.trace = trace;
    trace?.run(run.id, epoch);
    if (!run.namesChecked && told.length > 0 && this.grounds.size > 0) {
      run.namesChecked = true;
      this.checkNames(run, told, epoch);
    }
    // `filed` is the run's as this call found it: a run that starts afresh later files elsewhere.
    const call = { run, epoch, filed: run.filed, trace };
    for (let i = 0; i < fresh.length; i++) {
      const pending = this.pushMessage(run, fresh[i], translator, epoch);
      if (pending !== undefined) return this.finishPushes(call, pending, fresh, i + 1, translator, offered);
    }
    if (this.grounds.size > 0) this.judgeCompose(run, offered, epoch);
    return call;
  }

  /** The rest of `modelCall` once a `readResult` answered with a promise. */
  async finishPushes(call, pending, fresh, from, translator, offered) {
    await pending;
    for (let i = from; i < fresh.length; i++) await this.pushMessage(call.run, fresh[i], translator, call.epoch);
    if (this.grounds.size > 0) this.judgeCompose(call.run, offered, call.epoch);
    return call;
  }

  /**
   * The answer of `call` arrived with these tool calls (`[{ toolCallId,
   * toolName, input }]`, input as JSON text or decoded): judges the choice
   * seam against the frame that call was given. `answer`, when given, is the
   * answer as a prompt message the translator reads: the next prompt of the
   * same conversation holds it, which is how the run is found again.
   *
   * `said`, where the adapter gives it, is `{ text, revised, revision }`:
   * the answer's text, for the claim seam; whether it is the answer to a
   * revision (or stands in for one that failed), which is never revised
   * again; and the revision's `correction` it answers, if any. When
   * the claim seam asks for a revision, the answer is not taken as the
   * call's: this returns `{ correction, unsupported }` (the messages to
   * append to the model's input, and the values they name), and the
   * adapter hands `answered` the revised answer, with `revised: true`.
   */
  answered(call, calls, answer, translator, said = undefined) {
    if (call === undefined) return undefined;
    const { run, epoch } = call;
    if (this.claim !== undefined && calls.length === 0 && said !== undefined && epoch === run.epoch) {
      run.trace = call.trace;
      const revision = this.judgeClaim(run, epoch, said);
      if (revision !== undefined) return revision;
    }
    this.runs.answered(run, answer, translator);
    if (epoch !== run.epoch) return;
    run.trace = call.trace;
    const choices = [];
    let unreadable;
    for (const toolCall of calls) {
      const from = this.grounds.get(toolCall.toolName);
      if (from === undefined) continue;
      try {
        choices.push({
          toolName: toolCall.toolName,
          toolCallId: toolCall.toolCallId,
          args: typeof toolCall.input === 'string' ? JSON.parse(toolCall.input) : toolCall.input,
          argumentsFrom: from,
          declaredEnums: declaredEnumValuesOf(this.schemaOf(run, toolCall.toolName)),
        });
      } catch (error) {
        unreadable ??= new TypeError(`${this.who}: the input of tool call ${JSON.stringify(toolCall.toolCallId)} to ${toolCall.toolName} could not be read: ${error?.message ?? error}`);
      }
    }
    if (this.grounds.size === 0) {
      run.trace = undefined;
      return undefined;
    }
    this.encounter(run, 'unsupported-argument', 'choice', epoch, () => {
      const judged = run.corpus.unsupportedArgumentsByCallOf(choices, {}, epoch);
      // Each finding is about the call the check names for it.
      const findings = judged.findings.map((finding, i) => ({ finding, toolCallId: judged.findingCalls[i] }));
      if (unreadable === undefined) return { findings, disposition: judged.disposition };
      // The calls that could be read are judged; the answer as a whole was
      // not, so it is noted unreachable.
      this.file(run, findings);
      throw unreadable;
    });
    // The call is over: the run keeps nothing of its trace (a framework's
    // run config, a span) while it waits for its next call.
    run.trace = undefined;
    return undefined;
  }

  /**
   * The claim seam on a final answer (see claim.cjs): the revision to ask
   * for, or `undefined` when the verdict was filed (or nothing was judged:
   * an empty answer states nothing).
   */
  judgeClaim(run, epoch, said) {
    const text = answerText(said.text);
    if (text === undefined || text.trim() === '') return undefined;
    const revised = said.revised === true;
    let verdict;
    try {
      verdict = this.withRevision(run, said.revision, () => run.corpus.evidenceOf(text, revised ? { ...this.claim.options, revised } : this.claim.options, epoch));
    } catch (error) {
      for (const [check, seam] of this.claimRows) run.ledger.note(check, seam, 'unreachable', epoch);
      this.report(error);
      return undefined;
    }
    const { unsupported, correction } = verdict;
    const mayRevise = this.claim.posture === 'guard' && !revised && run.revisedTurn !== run.turns;
    if (unsupported.length > 0 && mayRevise && correction !== undefined) {
      // The turn's one revision: this answer is not filed; the revised one
      // is judged in its place (agentfootprint's 'revision-asked').
      run.revisedTurn = run.turns;
      run.trace?.revision(unsupported, verdict.candidates);
      return { correction, unsupported };
    }
    this.file(run, verdict.findings.map((finding) => ({ finding, toolCallId: undefined })));
    run.ledger.note('unsupported-claim', CLAIM_SEAM, verdict.disposition, epoch);
    const prior = verdict.priorTurnEvidence;
    if (prior !== undefined) {
      this.file(run, prior.findings.map((finding) => ({ finding, toolCallId: undefined })));
      run.ledger.note('prior-turn-evidence', CLAIM_SEAM, prior.disposition, epoch);
    }
    return undefined;
  }

  /**
   * The model call of the claim seam's revision threw: rethrown when the
   * framework aborted the run (it ends it as it ends any aborted call),
   * else said through onError; the first answer then stands, judged as
   * final.
   */
  revisionFailed(error, aborted) {
    if (aborted) throw error;
    this.report(new Error(`${this.who}: the model failed on the claim seam's revision; the first answer stands`, { cause: error }));
  }

  /**
   * Runs `judge` with the revision's exchange (the failed answer and the
   * correction, `[{ role, content }]`) in the run's corpus, as the model
   * read it, and takes it out again after: the framework's history keeps
   * only the answer the revision gave, so the next prompt will not hold it.
   */
  withRevision(run, exchange, judge) {
    if (!Array.isArray(exchange)) return judge();
    const ids = exchange.map(({ role, content }) => run.corpus.push({ role: role === 'assistant' ? 'assistant' : 'user', text: String(content) }));
    try {
      return judge();
    } finally {
      run.corpus.evict(ids);
    }
  }

  /** The model call `call` failed: the run waits for the same prompt again. */
  failed(call) {
    if (call === undefined) return;
    this.runs.failed(call.run);
    if (call.run.trace === call.trace) call.run.trace = undefined;
  }

  /** The offered tool's input schema, if the model call listed it. */
  schemaOf(run, toolName) {
    return run.offered?.find((tool) => tool.name === toolName)?.inputSchema;
  }

  /** Starts `run` afresh at this prompt: every message in it is new. */
  restart(run, reads) {
    run.begin();
    run.pass = 1;
    run.epoch = 0;
    return reads.filter((read) => read !== undefined);
  }

  /**
   * Matches the prompt's messages against the run's, evicts what the prompt
   * dropped and returns the messages it adds, in order, each as
   * `{ message, kind, key }`. A prompt that shares no message but system
   * messages with the run starts the run afresh.
   *
   * This is the one part of a model call that reads every message of the
   * prompt, so it only has each one's kind and key (read once, when the run
   * was found), and looks the key up in that kind's map: no string is
   * built, and a key string the framework hands again at every call keeps
   * the hash V8 cached for it.
   */
  sync(run, reads) {
    const pass = ++run.pass;
    const fresh = [];
    let continued = false;
    let matched = 0;
    for (const read of reads) {
      if (read === undefined) continue;
      const { kind, key } = read;
      const records = run.records[kind] ?? run.recordsOf(kind);
      let record = records.get(key);
      // Two messages with the same key in one prompt (two "ok"s from the
      // user) are told apart by their order: the second is `key` numbered 2.
      for (let n = 2; record !== undefined && record.pass === pass; n++) {
        record = records.get(`${key}\u0000${n}`);
      }
      if (record === undefined) {
        fresh.push(read);
      } else {
        record.pass = pass;
        matched += 1;
        if (!record.system) continued = true;
      }
    }
    if (run.recordCount > 0 && !continued) return this.restart(run, reads);
    run.epoch += 1;
    // Every message of the run is in this prompt: nothing to evict.
    if (matched === run.recordCount) return fresh;
    const dropped = [];
    for (const records of run.records) {
      if (records === undefined) continue;
      for (const [key, record] of records) {
        if (record.pass === pass) continue;
        for (const id of record.ids) dropped.push(id);
        // A call the window dropped is no one's to judge by any more.
        for (const callId of record.calls) run.calls.delete(callId);
        records.delete(key);
        run.recordCount -= 1;
      }
    }
    if (dropped.length > 0) run.corpus.evict(dropped);
    return fresh;
  }

  /**
   * Pushes one message that just appeared; an armed result is judged first.
   * A message the translator cannot read is recorded with nothing in the
   * corpus (so it is not read again) and noted unreachable once. Returns a
   * promise only when a `readResult` did.
   */
  pushMessage(run, appeared, translator, epoch) {
    const { message, kind, key: base } = appeared;
    let system = true;
    let entries;
    try {
      entries = translator.entriesOf(message);
      if (!Array.isArray(entries)) throw new TypeError(`the message reads as ${describe(entries)}, not a list of entries`);
    } catch (error) {
      entries = [];
      system = false;
      this.unreadable(run, error, epoch);
    }
    const record = { ids: [], calls: [], pass: run.pass, system };
    const records = run.recordsOf(kind);
    let key = base;
    // The first numbered key the run does not hold yet, as `sync` looks them up.
    for (let n = 2; records.has(key); n++) key = `${base}\u0000${n}`;
    records.set(key, record);
    run.recordCount += 1;
    return this.pushEntries(run, record, entries, 0, epoch);
  }

  /**
   * Pushes a message's entries from `start` on, each armed result judged
   * before it is pushed. When a `readResult` answers with a promise, the
   * rest waits for it: the result is then pushed, and the rest follows.
   */
  pushEntries(run, record, entries, start, epoch) {
    for (let i = start; i < entries.length; i++) {
      const entry = entries[i];
      try {
        if (entry.role !== 'system') record.system = false;
        if (entry.role !== 'tool') {
          this.pushEntry(run, record, entry);
          continue;
        }
        const pending = this.grounds.has(entry.toolName) ? this.judgeWrite(run, entry, epoch) : undefined;
        const push = () => record.ids.push(run.corpus.push({ role: 'tool', toolName: String(entry.toolName), text: searchableText(entry.value) }));
        if (pending === undefined) {
          push();
          continue;
        }
        return pending.then(() => {
          try {
            push();
          } catch (error) {
            this.unreadable(run, error, epoch);
          }
          return this.pushEntries(run, record, entries, i + 1, epoch);
        });
      } catch (error) {
        this.unreadable(run, error, epoch);
      }
    }
    return undefined;
  }

  /** Pushes a system, user or assistant entry. */
  pushEntry(run, record, entry) {
    if (entry.role === 'assistant') {
      let text = typeof entry.text === 'string' ? entry.text : '';
      for (const call of entry.calls ?? []) {
        run.calls.set(call.toolCallId, call);
        record.calls.push(call.toolCallId);
        text += `\n${searchableText(call.input)}`;
      }
      record.ids.push(run.corpus.push({ role: 'assistant', text }));
    } else {
      if (entry.role !== 'system') run.turns += 1;
      record.ids.push(run.corpus.push({ role: entry.role === 'system' ? 'system' : 'user', text: typeof entry.text === 'string' ? entry.text : '' }));
    }
  }

  /**
   * A message the guard could not read: every armed check is noted
   * unreachable at this call, once per run, and the error goes to onError.
   */
  unreadable(run, error, epoch = run.epoch) {
    if (run.unreadableSaid) return;
    run.unreadableSaid = true;
    const reason = `a message could not be read: ${error?.message ?? error}`;
    for (const [check, seam] of [...CHECK_ROWS, ...this.claimRows]) {
      run.ledger.note(check, seam, 'unreachable', epoch);
      run.ledger.explain(check, seam, reason);
    }
    this.report(new TypeError(`${this.who}: ${reason}; it is left out of run ${run.id}, whose other messages are judged as before`, { cause: error }));
  }

  /**
   * The write seam: an armed tool's result, before the model reads it.
   * Returns a promise only when the tool's `readResult` returned one.
   */
  judgeWrite(run, entry, epoch) {
    const call = run.calls.get(entry.toolCallId);
    if (call === undefined) {
      // The window kept the result but not the call that asked for it:
      // there are no arguments to judge.
      run.ledger.note('empty-lookup', 'write', 'unreachable', epoch);
      return undefined;
    }
    const reader = this.readers.get(entry.toolName);
    let reading;
    try {
      reading = entry.error ? undefined : reader !== undefined ? reader(entry.value) : defaultReading(entry.value);
    } catch (error) {
      this.encounter(run, 'empty-lookup', 'write', epoch, () => {
        throw error;
      });
      return undefined;
    }
    const judge = (settled) =>
      this.encounter(run, 'empty-lookup', 'write', epoch, () => {
        const answer = run.corpus.emptyLookupOf(
          { toolName: entry.toolName, toolCallId: entry.toolCallId, args: call.input, argumentsFrom: this.grounds.get(entry.toolName), reading: settled },
          epoch,
        );
        return { findings: answer.findings.map((finding) => ({ finding, toolCallId: entry.toolCallId })), disposition: answer.disposition };
      });
    if (!isThenable(reading)) {
      judge(reading);
      return undefined;
    }
    return Promise.resolve(reading).then(judge, (error) =>
      this.encounter(run, 'empty-lookup', 'write', epoch, () => {
        throw error;
      }),
    );
  }

  /** The compose seam: the armed tools this model call offers. */
  judgeCompose(run, offered, epoch) {
    const served = [];
    for (const tool of offered) {
      const from = this.grounds.get(tool.name);
      if (from !== undefined) served.push({ name: tool.name, argumentsFrom: from });
    }
    this.encounter(run, 'dangling-reference', 'compose', epoch, () => {
      const answer = run.corpus.danglingReferencesOf(served, epoch);
      return { findings: answer.findings.map((finding) => ({ finding, toolCallId: undefined })), disposition: answer.disposition };
    });
  }

  /**
   * The names `argumentsFrom` gives, against the tools the first model
   * call of a run that shows tools was told about: a name no tool has is a
   * misspelling (or a tool the app never offers), and the checks that need
   * it can never be made. In `dev` posture that throws, naming the closest
   * tools; in `prod` it is said once through onError and explained in each
   * check's ledger row.
   */
  checkNames(run, told, epoch) {
    const names = new Set(told.map((tool) => tool.name));
    const missing = [];
    for (const [tool, from] of this.grounds) {
      if (!names.has(tool)) missing.push({ name: tool, as: 'an armed tool' });
      for (const producer of from) {
        if (!names.has(producer) && !missing.some((m) => m.name === producer)) missing.push({ name: producer, as: `a producer for ${tool}` });
      }
    }
    if (missing.length === 0) return;
    const offeredNames = [...names];
    const lines = missing.map(({ name, as }) => {
      const close = closestNames(name, offeredNames);
      const hint = close.length > 0 ? ` (closest: ${close.map((n) => JSON.stringify(n)).join(', ')})` : '';
      return `${JSON.stringify(name)}, named in argumentsFrom as ${as}, is not among the tools the model is offered${hint}`;
    });
    const message = `${this.who}: ${lines.join('; ')}. The model is offered: ${offeredNames.map((n) => JSON.stringify(n)).join(', ')}.`;
    if (this.posture === 'dev') throw Object.defineProperty(new TypeError(message), MISUSE, { value: true });
    for (const [check, seam] of CHECK_ROWS) {
      run.ledger.note(check, seam, 'unreachable', epoch);
      run.ledger.explain(check, seam, lines.join('; '));
    }
    if (this.said.has(message)) return;
    this.said.add(message);
    this.report(new TypeError(message));
  }

  /**
   * Runs one check, files its findings and notes its disposition. Whatever
   * throws on the way (a check refusing an input, a user's `readResult`)
   * makes the encounter `unreachable` and goes to `onError`. A throwing
   * `onFinding` does not: the finding is filed and counted all the same.
   */
  encounter(run, check, seam, epoch, judge) {
    let disposition;
    try {
      const answer = judge();
      disposition = answer.disposition;
      this.file(run, answer.findings);
    } catch (error) {
      disposition = 'unreachable';
      this.report(error);
    }
    run.ledger.note(check, seam, disposition, epoch);
  }

  /**
   * Keeps the first finding of each identity, the epoch left out, with the
   * id of the tool call it is about (`toolCallId`, where there is one),
   * records it in the model call's trace and tells `onFinding` with the
   * run: `{ id, toolCallId }`. Every finding is kept and counted whatever
   * `onFinding` or a trace does; what they throw goes to `onError`.
   */
  file(run, found) {
    for (const { finding, toolCallId } of found) {
      const identity = contextErrorIdentity({ ...finding, epoch: undefined });
      if (run.identities.has(identity)) continue;
      run.identities.add(identity);
      const filed = toolCallId === undefined ? finding : { ...finding, toolCallId };
      run.findings.push(filed);
      run.filed.push({ finding: filed, acted: false });
      run.trace?.finding(filed, toolCallId);
      if (this.onFinding === undefined) continue;
      this.callBack(this.onFinding, filed, { id: run.id, toolCallId });
    }
  }

  /** Calls a user's callback; a throw or a rejection goes to `report`. */
  callBack(callback, ...args) {
    let returned;
    try {
      returned = callback(...args);
    } catch (error) {
      this.report(error);
      return;
    }
    if (isThenable(returned)) {
      try {
        returned.then(undefined, (error) => this.report(error));
      } catch (error) {
        this.report(error);
      }
    }
  }

  /**
   * Hands an error to `onError`, or says it once on the console. An
   * `onError` that throws or rejects has nowhere left to report to: that is
   * said once on the console, and the run goes on.
   */
  report(error) {
    if (this.onError === undefined) {
      this.sayOnce('no-onError', `seamguard: a check could not be made and was noted unreachable (pass onError to see each): ${error?.stack ?? error}`);
      return;
    }
    const failed = (failure) => this.sayOnce('onError-failed', `seamguard: onError failed while reporting an error, and nothing more is said of its failures: ${failure?.stack ?? failure}`);
    let returned;
    try {
      returned = this.onError(error);
    } catch (failure) {
      failed(failure);
      return;
    }
    if (isThenable(returned)) {
      try {
        returned.then(undefined, failed);
      } catch (failure) {
        failed(failure);
      }
    }
  }

  /**
   * The stream seam's tool list for `told` (`[{ name, inputSchema }]`):
   * what tool-aware detection can use of it, the tools it cannot use said
   * once per name through onError.
   */
  filterTools(told) {
    const { tools, skipped } = filterTools(told);
    sayLeftOut(skipped, this.leftOut, (error) => this.report(new TypeError(`${this.who}: ${error.message}`)));
    return tools;
  }

  /**
   * The stream seam's plan for a model call that told the model of `told`:
   * tool-aware detection for what it can use of them (`filterTools`), and
   * every family's special tokens.
   */
  filterPlan(told) {
    return streamPlan({ tools: this.filterTools(told) });
  }

  /**
   * The stream seam of one model call that told the model of `told` and
   * lets it call `offered` (`[{ name, inputSchema }]` each): `plan` for
   * every text of the call (undefined under `strip: false`), and
   * `heal(realCalls)`, the leaked calls that may become real ones
   * (heal.cjs `streamSeam`). Its strips and heals are recorded in `trace`.
   */
  streamSeam(told, offered = told, trace = undefined) {
    return streamSeam({
      strip: this.stripping,
      heal: this.healing,
      offered,
      trace,
      makePlan: (onStrip) => streamPlan({ tools: this.filterTools(told), onStrip }),
    });
  }

  // Acting on findings (stop.cjs): what an adapter hands its framework's own
  // mechanism. Each finding is handed on once: the first `actOn` or
  // `actOnRun` that sees it marks it acted.

  /** Whether `finding` stops the run, by `stopOn`. */
  trips(finding) {
    return this.stopKinds.has(finding.kind);
  }

  /** Whether any kind of finding stops a run (`stopOn` was given). */
  get stops() {
    return this.stopKinds.size > 0;
  }

  /**
   * The findings the model call `call` filed (before it, on its prompt and
   * tools, and on its answer) and nothing acted on yet: `{ runId, findings,
   * stop }`, the findings as plain JSON (`actedFinding`), `stop` whether
   * one trips. `undefined` when there are none.
   */
  actOn(call) {
    if (call === undefined) return undefined;
    return this.act(call.run, call.filed.filter((entry) => !entry.acted && entry.finding.epoch === call.epoch));
  }

  /** Like `actOn`, for every finding of `run` nothing acted on yet. */
  actOnRun(run) {
    if (run === undefined) return undefined;
    return this.act(run, run.filed.filter((entry) => !entry.acted));
  }

  /** Marks `entries` acted and hands them on, as `actOn` says. */
  act(run, entries) {
    if (entries.length === 0) return undefined;
    const findings = entries.map((entry) => {
      entry.acted = true;
      return actedFinding(entry.finding, this.trips(entry.finding));
    });
    return { runId: run.id, findings, stop: findings.some((finding) => finding.trips) };
  }

  /**
   * The live run whose window holds a call of `callIds`, when exactly one
   * run's does (tool call ids are unique per model call, so this is the
   * surer way to find a run from what a framework's end-of-run hook holds).
   */
  runOfCalls(callIds) {
    let found;
    for (const run of this.runs.live.values()) {
      if (!callIds.some((id) => run.calls.has(id))) continue;
      if (found !== undefined) return undefined;
      found = run;
    }
    return found;
  }

  /**
   * The live run whose last answer was `answer` (a prompt message the
   * translator reads), when exactly one run's was: how a framework that
   * hands its end-of-run hook only the final answer finds the run.
   */
  runOfAnswer(answer, translator) {
    const kind = translator.kindOf(answer);
    const runs = this.runs.frontiers.get(kind, translator.keyOf(answer, kind));
    if (runs === undefined) return undefined;
    const answered = [...runs].filter((run) => run.state === 'answered');
    return answered.length === 1 ? answered[0] : undefined;
  }

  /**
   * Where the signals of a model call beginning now are recorded: the
   * active OpenTelemetry span and `sink`, the framework's own
   * (`(name, attributes) => void`); `undefined` when nothing records
   * (telemetry.cjs). An adapter hands it to `modelCall` and `streamSeam`.
   */
  trace(sink = undefined) {
    return callTrace(sink, (error) => this.report(error));
  }

  /** Hands `text` to onError as an Error, once per `what` for this guard. */
  sayOnceToOnError(what, text) {
    if (this.said.has(what)) return;
    this.said.add(what);
    this.report(new Error(`${this.who}: ${text}`));
  }

  /** Prints `text` with console.warn, once per `what` for this guard. */
  sayOnce(what, text) {
    if (this.said.has(what)) return;
    this.said.add(what);
    try {
      console.warn(text);
    } catch {
      // A console that throws: nothing is left to say it with.
    }
  }
}


/**
 * Gives an adapter's guard object the members every guard has: `findings`
 * and `ledger` (the latest run's: for a guard that serves one
 * conversation), `run(id)` (a live run's `{ id, findings, ledger }`),
 * `runIds()` (the live runs) and `newRun()` (the next model call starts a
 * new run, with a new ledger). Returns `object`.
 */
function withRunMembers(guard, object, afterNewRun) {
  return Object.defineProperties(object, {
    findings: { get: () => guard.latest.findings.slice(), enumerable: true },
    ledger: { get: () => guard.latest.ledger, enumerable: true },
    run: {
      value: function run(id) {
        return guard.runs.get(id)?.view();
      },
      enumerable: true,
    },
    runIds: {
      value: function runIds() {
        return guard.runs.ids();
      },
      enumerable: true,
    },
    newRun: {
      value: function newRun() {
        guard.runs.endAll();
        guard.latest = guard.makeRun(guard.runs.newId());
        if (afterNewRun !== undefined) afterNewRun();
      },
      enumerable: true,
    },
  });
}

exports.Guard = Guard;
exports.streamPlan = streamPlan;
exports.Run = Run;
exports.MESSAGE_KINDS = MESSAGE_KINDS;
exports.withRunMembers = withRunMembers;
exports.defaultReading = defaultReading;
