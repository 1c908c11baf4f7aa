'use strict';
// Which run a model call belongs to, for a guard that serves many
// conversations at once.
//
// Where the framework names the conversation (LangChain's thread id), the
// adapter hands that name as the call's scope and the run is the one of that
// name. Where it does not (the AI SDK hands a middleware nothing but the
// prompt), the run is found from the prompt itself:
//
// - A conversation's next prompt holds the answer its last model call got
//   (the tool calls, whose ids are unique per call, or the answer's text)
//   and then what followed it. So each run that got its answer is indexed
//   by that answer, its frontier, and a prompt continues the run whose
//   frontier it holds, the latest one it holds when read from its end.
// - Conversations that open alike are the same prompt until their first
//   answers differ: a first prompt that matches no frontier starts a run of
//   its own, so two such conversations are two runs from the start, judged
//   alike until they part.
// - A call that failed (and may be tried again with the same prompt) keeps
//   the run waiting at that prompt's last message.
// - When the answer's own text did not survive into the prompt as it was
//   (a middleware changed it), the run is found by the last message of its
//   last prompt, which the next prompt holds before what it adds. Where that
//   names more than one run that differ, the guard cannot tell them apart,
//   and says so once through onError.
//
// A guard holds only the live runs: at most `maxRuns`, the least recently
// used ended first. A prompt that continues a run the guard ended starts a
// new one, and the guard says so once.

const { randomUUID } = require('node:crypto');
const { MESSAGE_KINDS_WITH_ANSWERS } = require('./kinds.cjs');

/** `kind -> key -> Set<run>`: an index of runs by one message of theirs. */
class Index {
  constructor() {
    this.byKind = [];
  }

  add(run, at) {
    const byKey = (this.byKind[at.kind] ??= new Map());
    let runs = byKey.get(at.key);
    if (runs === undefined) {
      runs = new Set();
      byKey.set(at.key, runs);
    }
    runs.add(run);
  }

  remove(run, at) {
    if (at === undefined) return;
    const byKey = this.byKind[at.kind];
    const runs = byKey?.get(at.key);
    if (runs === undefined) return;
    runs.delete(run);
    if (runs.size === 0) byKey.delete(at.key);
  }

  get(kind, key) {
    return this.byKind[kind]?.get(key);
  }

  clear() {
    this.byKind = [];
  }
}

class Runs {
  constructor(guard, max) {
    this.guard = guard;
    this.max = max;
    // id -> run, least recently used first.
    this.live = new Map();
    this.frontiers = new Index();
    this.lastKeys = new Index();
    this.ended = 0;
  }

  newId() {
    return randomUUID();
  }

  get(id) {
    return this.live.get(id);
  }

  ids() {
    return [...this.live.keys()];
  }

  /**
   * The run of a model call with this prompt: `{ run, restart }`, where
   * `restart` says the run is new (every message of the prompt is new to
   * it).
   */
  find(messages, translator, scope) {
    const reads = this.readAll(messages, translator);
    let found;
    if (scope instanceof Object && this.live.get(scope.id) === scope) {
      // The run of an earlier step of the same request, still live.
      found = { run: scope, restart: false };
    } else if (typeof scope === 'string') {
      const run = this.live.get(scope);
      found = run === undefined ? { run: this.add(this.guard.makeRun(scope)), restart: true } : { run, restart: false };
    } else {
      found = this.byPrompt(reads) ?? { run: this.add(this.guard.makeRun(this.newId())), restart: true };
    }
    this.calling(found.run, reads);
    return { ...found, reads };
  }

  /**
   * Each message as `{ message, kind, key }`, read once for the whole model
   * call, or `undefined` for one the translator cannot read (its error is
   * in `errors`, by position).
   */
  readAll(messages, translator) {
    const reads = Array.from({ length: messages.length });
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i];
      try {
        const kind = translator.kindOf(message);
        reads[i] = { message, kind, key: translator.keyOf(message, kind) };
      } catch (error) {
        reads[i] = undefined;
        (reads.errors ??= new Map()).set(i, error);
      }
    }
    return reads;
  }

  /** The run this prompt continues, found from its messages, if any. */
  byPrompt(reads) {
    let history = false;
    for (let i = reads.length - 1; i >= 0; i--) {
      const read = reads[i];
      if (read === undefined) continue;
      if (MESSAGE_KINDS_WITH_ANSWERS.has(read.kind)) history = true;
      const runs = this.frontiers.get(read.kind, read.key);
      if (runs === undefined) continue;
      const run = this.pick(runs, reads, i);
      if (run !== undefined) return { run, restart: false };
    }
    // No frontier: the answer's text may have changed on its way into the
    // prompt. A run whose last prompt ended with a message this prompt
    // holds, with more after it, is continued.
    for (let i = reads.length - 2; i >= 0; i--) {
      const read = reads[i];
      if (read === undefined) continue;
      const runs = this.lastKeys.get(read.kind, read.key);
      if (runs === undefined) continue;
      const answered = [...runs].filter((run) => run.state === 'answered');
      if (answered.length === 0) continue;
      if (answered.length > 1) {
        this.guard.sayOnceToOnError(
          'ambiguous',
          `a prompt continues one of ${answered.length} runs that ended their last prompts alike, and their answers did not reach the prompt as they were given, so the guard cannot tell which; it is judged as run ${answered[0].id}`,
        );
      }
      return { run: answered[0], restart: false };
    }
    if (history && this.ended > 0) {
      this.guard.sayOnceToOnError(
        'ended',
        `a prompt continues a conversation whose run the guard no longer holds (it holds the ${this.max} most recently used runs: maxRuns); it is judged as a new run, and what its earlier messages hold may be reported again`,
      );
    }
    return undefined;
  }

  /**
   * Of the runs whose frontier the prompt holds at `at`, the one it
   * continues: the run waiting for its next call, and where several wait
   * (answers of the same text), the first whose last prompt's last message
   * the prompt also holds (an app's window may have dropped it: a single
   * waiting run needs no such proof). One in flight only (the same run asked
   * twice at once) is forked: a new run, said once.
   */
  pick(runs, reads, at) {
    let busy;
    let waiting;
    let count = 0;
    for (const run of runs) {
      if (run.state === 'calling') {
        busy ??= run;
        continue;
      }
      count += 1;
      waiting ??= run;
      if (run.state === 'failed' || this.holds(reads, run.lastKey, at)) return run;
    }
    if (waiting !== undefined && count === 1) return waiting;
    if (waiting !== undefined) {
      this.guard.sayOnceToOnError(
        'ambiguous',
        `a prompt continues one of ${count} runs whose last answers read alike, and none of their earlier prompts is in it, so the guard cannot tell which; it is judged as run ${waiting.id}`,
      );
      return waiting;
    }
    if (busy === undefined) return undefined;
    this.guard.sayOnceToOnError(
      'fork',
      `two model calls continue run ${busy.id} at once (the same conversation asked twice); the later one is judged as a run of its own, and what its earlier messages hold may be reported again`,
    );
    return undefined;
  }

  /** Whether `reads` holds the message `at` before position `end` (or holds nothing to check). */
  holds(reads, at, end) {
    if (at === undefined) return true;
    for (let i = end; i >= 0; i--) {
      const read = reads[i];
      if (read !== undefined && read.kind === at.kind && read.key === at.key) return true;
    }
    return false;
  }

  /** Adds a new run, ending the least recently used one past `max`. */
  add(run) {
    this.live.set(run.id, run);
    while (this.live.size > this.max) {
      const [oldest] = this.live.values();
      this.end(oldest);
      this.ended += 1;
    }
    return run;
  }

  /** The run is in a model call with this prompt. */
  calling(run, reads) {
    // Most recently used last.
    this.live.delete(run.id);
    this.live.set(run.id, run);
    // The frontier stays indexed while the call is in flight: a prompt that
    // continues it meanwhile is the same run asked twice at once.
    this.lastKeys.remove(run, run.lastKey);
    run.state = 'calling';
    let last;
    for (let i = reads.length - 1; i >= 0 && last === undefined; i--) last = reads[i];
    run.lastKey = last;
    if (last !== undefined) this.lastKeys.add(run, last);
  }

  /** The run's call got its answer: `answer` as a prompt message, when known. */
  answered(run, answer, translator) {
    if (!this.live.has(run.id) || run.state !== 'calling') return;
    run.state = 'answered';
    this.frontiers.remove(run, run.frontier);
    run.frontier = undefined;
    if (answer === undefined || translator === undefined) return;
    try {
      const kind = translator.kindOf(answer);
      run.frontier = { kind, key: translator.keyOf(answer, kind) };
      this.frontiers.add(run, run.frontier);
    } catch {
      run.frontier = undefined;
    }
  }

  /** The run's call failed: it waits for the same prompt again. */
  failed(run) {
    if (!this.live.has(run.id) || run.state !== 'calling') return;
    run.state = 'failed';
    this.frontiers.remove(run, run.frontier);
    run.frontier = run.lastKey;
    if (run.frontier !== undefined) this.frontiers.add(run, run.frontier);
  }

  /** Forgets one run. */
  end(run) {
    this.frontiers.remove(run, run.frontier);
    this.lastKeys.remove(run, run.lastKey);
    this.live.delete(run.id);
    run.state = 'ended';
  }

  /** Forgets every run. */
  endAll() {
    for (const run of this.live.values()) run.state = 'ended';
    this.live.clear();
    this.frontiers.clear();
    this.lastKeys.clear();
  }
}

exports.Runs = Runs;
