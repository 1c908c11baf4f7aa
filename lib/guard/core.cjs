'use strict';
// The guard: seamguard's three checks inside an agent framework's own loop,
// for one conversation at a time. It knows no framework. An adapter hands it,
// at every model call, the prompt as the framework's own messages (with a
// translator that reads them) and the tools on offer; and, when the answer
// arrives, the answer's tool calls. The guard keeps one RunCorpus in step
// with the prompts, judges each seam, files findings and keeps the run's
// ledger. An adapter decides nothing of this; it only translates.
//
// What the guard never does: change what the model or a tool sees, or throw
// into the user's run. A check that cannot be made is an `unreachable` note
// and an error handed to `onError`.

const native = require('../../index.js');
const { beginIntegrityRun, contextErrorIdentity } = require('../accounting.cjs');
const { declaredEnumValuesOf } = require('../enums.cjs');
const { searchableText } = require('./text.cjs');

const OPTION_KEYS = ['argumentsFrom', 'readResult', 'onFinding', 'onError', 'posture'];

const describe = (value) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);
const isRecord = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Reads and checks a guard's options once, when the guard is made. Every
 * mistake is a TypeError that names the option, prefixed with `who`.
 */
function readOptions(options, who) {
  if (options === undefined) options = {};
  if (!isRecord(options)) throw new TypeError(`${who}: options must be an object (got ${describe(options)})`);
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.includes(key)) {
      throw new TypeError(`${who}: unknown option ${JSON.stringify(key)} (known: ${OPTION_KEYS.join(', ')})`);
    }
  }
  const grounds = new Map();
  const { argumentsFrom = {}, readResult = {}, onFinding, onError, posture = 'prod' } = options;
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
  return { grounds, readers, onFinding, onError, posture };
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
 * A guard for one conversation at a time.
 *
 * The translator an adapter passes to `modelCall` reads its framework's
 * messages:
 * - `kindOf(message)`, a small number (a kind is a role, or a role with or
 *   without tool calls), and `keyOf(message, kind)`, a string: together
 *   they name the message across model calls (the
 *   framework rebuilds its message objects, so identity will not do): a key
 *   is unique among its kind's messages, a call id or the text. They are
 *   asked for every message of every prompt, so they must be cheap: a
 *   property read, never a string built.
 * - `entriesOf(message)`: what the message holds, asked once, when it first
 *   appears: an array of `{ role: 'system' | 'user', text }`,
 *   `{ role: 'assistant', text, calls: [{ toolCallId, toolName, input }] }`
 *   (input decoded) and `{ role: 'tool', toolName, toolCallId, value, error }`
 *   (value as the model reads it).
 */
class Guard {
  constructor(options, who) {
    const { grounds, readers, onFinding, onError, posture } = readOptions(options, who);
    this.who = who;
    this.grounds = grounds;
    this.readers = readers;
    this.onFinding = onFinding;
    this.onError = onError;
    this.posture = posture;
    this.warned = false;
    this.corpus = new native.RunCorpus();
    this.startRun();
  }

  /** Forgets the run so far: the next model call starts a new one. */
  startRun() {
    this.corpus.clear();
    const armed = this.grounds.size > 0;
    this.ledger = beginIntegrityRun({
      armed: { 'empty-lookup': armed, 'unsupported-argument': armed, 'dangling-reference': armed },
      posture: this.posture,
    });
    this.findings = [];
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
  }

  /**
   * One model call: brings the corpus in step with `messages`, judges the
   * write seam for each armed result the model is about to read and the
   * compose seam for the armed tools on offer. Returns the call's `epoch`,
   * to hand to `answered` with the answer's tool calls (`undefined` when
   * no tool is armed: there is nothing to judge).
   *
   * @param messages the prompt, in the framework's own message objects.
   * @param translator reads them (see the class comment).
   * @param offered the tools on offer: `[{ name, inputSchema }]`.
   */
  modelCall(messages, translator, offered) {
    // With no tool armed every row says not-applicable once, at the start,
    // and nothing a prompt holds can change that.
    if (this.grounds.size === 0) return undefined;
    const fresh = this.sync(messages, translator);
    const epoch = this.epoch;
    this.offered = offered;
    for (const appeared of fresh) this.pushMessage(appeared, translator, epoch);
    this.judgeCompose(offered, epoch);
    return epoch;
  }

  /**
   * The answer of the model call numbered `epoch` arrived with these tool
   * calls (`[{ toolCallId, toolName, input }]`, input as JSON text or decoded):
   * judges the choice seam against the frame that call was given.
   */
  answered(calls, epoch) {
    if (epoch !== this.epoch) return;
    const choices = [];
    let unreadable;
    for (const call of calls) {
      const from = this.grounds.get(call.toolName);
      if (from === undefined) continue;
      try {
        choices.push({
          toolName: call.toolName,
          toolCallId: call.toolCallId,
          args: typeof call.input === 'string' ? JSON.parse(call.input) : call.input,
          argumentsFrom: from,
          declaredEnums: declaredEnumValuesOf(this.schemaOf(call.toolName)),
        });
      } catch (error) {
        unreadable ??= new TypeError(`${this.who}: the input of tool call ${JSON.stringify(call.toolCallId)} to ${call.toolName} could not be read: ${error?.message ?? error}`);
      }
    }
    this.encounter('unsupported-argument', 'choice', epoch, () => {
      const answer = this.corpus.unsupportedArgumentsOf(choices, {}, epoch);
      if (unreadable === undefined) return answer;
      // The calls that could be read are judged; the answer as a whole was
      // not, so it is noted unreachable.
      this.file(answer.findings);
      throw unreadable;
    });
  }

  /** The offered tool's input schema, if the model call listed it. */
  schemaOf(toolName) {
    return this.offered?.find((tool) => tool.name === toolName)?.inputSchema;
  }

  /**
   * Matches the prompt's messages against the run's, evicts what the prompt
   * dropped and returns the messages it adds, in order, each as
   * `{ message, kind, key }`. A prompt that shares no message but system
   * messages with the run starts a new run.
   *
   * This is the one part of a model call that reads every message of the
   * prompt, so it only asks each for its kind and key, and looks the key up
   * in that kind's map: no string is built, and a key string the framework
   * hands again at every call keeps the hash V8 cached for it.
   */
  sync(messages, translator) {
    const pass = ++this.pass;
    const fresh = [];
    let continued = false;
    let matched = 0;
    for (const message of messages) {
      const kind = translator.kindOf(message);
      const records = this.records[kind] ?? this.recordsOf(kind);
      const key = translator.keyOf(message, kind);
      let record = records.get(key);
      // Two messages with the same key in one prompt (two "ok"s from the
      // user) are told apart by their order: the second is `key` numbered 2.
      for (let n = 2; record !== undefined && record.pass === pass; n++) {
        record = records.get(`${key}\u0000${n}`);
      }
      if (record === undefined) {
        fresh.push({ message, kind, key });
      } else {
        record.pass = pass;
        matched += 1;
        if (!record.system) continued = true;
      }
    }
    if (this.recordCount > 0 && !continued) {
      this.startRun();
      this.pass = pass;
      this.epoch = 0;
      return messages.map((message) => {
        const kind = translator.kindOf(message);
        return { message, kind, key: translator.keyOf(message, kind) };
      });
    }
    this.epoch += 1;
    // Every message of the run is in this prompt: nothing to evict.
    if (matched === this.recordCount) return fresh;
    const dropped = [];
    for (const records of this.records) {
      if (records === undefined) continue;
      for (const [key, record] of records) {
        if (record.pass === pass) continue;
        for (const id of record.ids) dropped.push(id);
        // A call the window dropped is no one's to judge by any more.
        for (const callId of record.calls) this.calls.delete(callId);
        records.delete(key);
        this.recordCount -= 1;
      }
    }
    if (dropped.length > 0) this.corpus.evict(dropped);
    return fresh;
  }

  /** The map of one kind's messages, by key. */
  recordsOf(kind) {
    this.records[kind] ??= new Map();
    return this.records[kind];
  }

  /** Pushes one message that just appeared; an armed result is judged first. */
  pushMessage({ message, kind, key: base }, translator, epoch) {
    const ids = [];
    const calls = [];
    let system = true;
    for (const entry of translator.entriesOf(message)) {
      if (entry.role !== 'system') system = false;
      if (entry.role === 'tool') {
        if (this.grounds.has(entry.toolName)) this.judgeWrite(entry, epoch);
        ids.push(this.corpus.push({ role: 'tool', toolName: entry.toolName, text: searchableText(entry.value) }));
      } else if (entry.role === 'assistant') {
        let text = entry.text;
        for (const call of entry.calls) {
          this.calls.set(call.toolCallId, call);
          calls.push(call.toolCallId);
          text += `\n${searchableText(call.input)}`;
        }
        ids.push(this.corpus.push({ role: 'assistant', text }));
      } else {
        ids.push(this.corpus.push({ role: entry.role, text: entry.text }));
      }
    }
    const records = this.recordsOf(kind);
    let key = base;
    // The first numbered key the run does not hold yet, as `sync` looks them up.
    for (let n = 2; records.has(key); n++) key = `${base}\u0000${n}`;
    records.set(key, { ids, calls, pass: this.pass, system });
    this.recordCount += 1;
  }

  /** The write seam: an armed tool's result, before the model reads it. */
  judgeWrite(entry, epoch) {
    this.encounter('empty-lookup', 'write', epoch, () => {
      const call = this.calls.get(entry.toolCallId);
      if (call === undefined) {
        // The window kept the result but not the call that asked for it:
        // there are no arguments to judge.
        return { findings: [], disposition: 'unreachable' };
      }
      const reader = this.readers.get(entry.toolName);
      const reading = entry.error ? undefined : reader !== undefined ? reader(entry.value) : defaultReading(entry.value);
      return this.corpus.emptyLookupOf(
        {
          toolName: entry.toolName,
          toolCallId: entry.toolCallId,
          args: call.input,
          argumentsFrom: this.grounds.get(entry.toolName),
          reading,
        },
        epoch,
      );
    });
  }

  /** The compose seam: the armed tools this model call offers. */
  judgeCompose(offered, epoch) {
    const served = [];
    for (const tool of offered) {
      const from = this.grounds.get(tool.name);
      if (from !== undefined) served.push({ name: tool.name, argumentsFrom: from });
    }
    this.encounter('dangling-reference', 'compose', epoch, () => this.corpus.danglingReferencesOf(served, epoch));
  }

  /**
   * Runs one check, files its findings and notes its disposition. Whatever
   * throws on the way (a check refusing an input, a user's `readResult` or
   * `onFinding`) makes the encounter `unreachable` and goes to `onError`.
   */
  encounter(check, seam, epoch, judge) {
    let disposition;
    try {
      const answer = judge();
      disposition = answer.disposition;
      this.file(answer.findings);
    } catch (error) {
      disposition = 'unreachable';
      this.report(error);
    }
    this.ledger.note(check, seam, disposition, epoch);
  }

  /**
   * Keeps the first finding of each identity, the epoch left out, and tells
   * `onFinding`. Every finding is kept even when `onFinding` throws; the
   * first error is thrown once all are filed.
   */
  file(findings) {
    let failed;
    for (const finding of findings) {
      const identity = contextErrorIdentity({ ...finding, epoch: undefined });
      if (this.identities.has(identity)) continue;
      this.identities.add(identity);
      this.findings.push(finding);
      if (this.onFinding === undefined) continue;
      try {
        this.onFinding(finding);
      } catch (error) {
        failed ??= { error };
      }
    }
    if (failed !== undefined) throw failed.error;
  }

  /** Hands an error to `onError`, or says it once on the console. */
  report(error) {
    if (this.onError !== undefined) {
      try {
        this.onError(error);
      } catch {
        // An onError that throws has nowhere left to report to; the run goes on.
      }
      return;
    }
    if (this.warned) return;
    this.warned = true;
    console.warn(`seamguard: a check could not be made and was noted unreachable (pass onError to see each): ${error?.stack ?? error}`);
  }
}

/**
 * The kinds of message most frameworks have, for an adapter's `kindOf`: an
 * assistant message that calls tools is its own kind (named by its first
 * call's id), and so is the tool message that answers it (named by the id
 * of the call it answers), so the two names never meet. The guard itself
 * reads kinds as opaque numbers; an adapter may use others.
 */
const MESSAGE_KINDS = Object.freeze({ SYSTEM: 0, USER: 1, ASSISTANT: 2, CALLS: 3, RESULTS: 4 });

/**
 * Gives an adapter's guard object the members every guard has: `findings`
 * (the run's, one per identity, in filing order, a copy), `ledger` (the
 * run's, one row per check) and `newRun()` (the next model call starts a
 * new run, with a new ledger; then `afterNewRun`, for an adapter's own
 * per-run state). Returns `object`.
 */
function withRunMembers(guard, object, afterNewRun) {
  return Object.defineProperties(object, {
    findings: { get: () => guard.findings.slice(), enumerable: true },
    ledger: { get: () => guard.ledger, enumerable: true },
    newRun: {
      value: function newRun() {
        guard.startRun();
        if (afterNewRun !== undefined) afterNewRun();
      },
      enumerable: true,
    },
  });
}

exports.Guard = Guard;
exports.MESSAGE_KINDS = MESSAGE_KINDS;
exports.withRunMembers = withRunMembers;
exports.defaultReading = defaultReading;
