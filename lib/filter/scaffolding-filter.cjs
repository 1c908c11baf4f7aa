'use strict';
// `ScaffoldingFilter`: a JavaScript class over native stream state, and
// `FilterPlan`, what its options compile to.
//
// Every rule is Rust's: the options are checked and compiled there once,
// and every strip is made there. A `FilterPlan` holds options compiled
// ahead (`compile`), which every filter opened from it shares, so opening
// a stream reads no option again; a filter made from options compiles
// them into the stream it opens at once (`openWith`), which frees them at
// its flush. These classes only adapt. A filter opens a native stream
// when a feed first needs one, and ends it at `flush()`, keeping in
// JavaScript what must stay readable: the counters, and the text and
// `onStrip` events a throwing callback left owed. So a filter has no native
// object of its own: a loop that makes a filter per text, feeds it and
// flushes it frees each stream as it goes, where a `#[napi]` class instance
// (a napi_wrap, whose finalizer Node runs only once the loop yields) was
// held until the loop ended.
//
// An open stream is a Rust `Box`, which this class holds through a handle:
// an 8-byte ArrayBuffer that the addon type-tags and checks on every call
// (src/binding/filter/stream.rs). V8 frees the buffer itself; the `Box` is
// freed by `flush()`, by `[Symbol.dispose]()`, or, for a filter dropped
// with its stream open, by the FinalizationRegistry below once the event
// loop turns. A stream joins the registry only if it is still open when the
// job that opened it ends: registering costs a cell that V8 frees only in a
// full collection, so a loop that registered and unregistered every stream
// it flushed grew by some 470 bytes a stream.
//
// Most feeds of a stream are a few units of prose, and a native call costs
// more than the filter's work on them. A chunk with none of the filter's
// `startUnits` (the set Rust computed from its patterns; `null` when no
// such set decides) that reaches a filter with nothing held comes back
// unchanged, and the filter stays so: no markup can start in it, and none
// is under way. Such a chunk never opens a stream. Whether an open stream
// holds anything is asked of Rust once after each native feed, when a
// chunk first needs to know.
//
// `onStrip` is called here, with the events Rust hands back: once per
// strip, in strip order, before the call that stripped it returns. If it
// throws, the call throws; the events not yet announced and the text not
// returned stay owed, and the next call announces them and returns that
// text in front of its own.

const native = require('../native.cjs');

const {
  compile,
  openWith,
  open: openStream,
  feed: feedStream,
  finish,
  close,
  idle: streamIsIdle,
  strippedChars: streamChars,
  strippedSpans: streamSpans,
  strip: stripText,
} = native.__scaffoldingFilter;

/** A test for "this chunk has one of `units`", built once per plan. */
function startTest(units) {
  if (units === null) return () => true;
  if (units.length === 1) return (chunk) => chunk.indexOf(units) !== -1;
  const hex = (unit) => `\\u${unit.toString(16).padStart(4, '0')}`;
  const set = new RegExp(`[${Array.from({ length: units.length }, (_, i) => hex(units.charCodeAt(i))).join('')}]`);
  return (chunk) => set.test(chunk);
}

/**
 * A plan as both classes keep it: `compiled`, the opaque value `compile`
 * made, which `open` and `strip` take; `startUnits` and a test for them;
 * and the options' `onStrip`, which stays here, in JavaScript, where the
 * garbage collector sees it (a callback that closes over its own plan is
 * then freed with it). Frozen, and never handed out.
 */
function planOf(who, options) {
  const [compiled, startUnits, onStrip] = compile(options, who);
  return Object.freeze({ compiled, startUnits, mayStart: startTest(startUnits), onStrip });
}

/** What `new ScaffoldingFilter()` compiles to, computed once. */
const DEFAULTS = planOf('ScaffoldingFilter', undefined);

/**
 * Frees the stream of a filter that was collected with its stream open.
 * A filter whose stream is still open when the job that opened it ends is
 * registered here, with its handle as the held value, and unregistered when
 * the stream ends. Module scope, which the class's methods refer to, keeps
 * the registry alive: a registry that nothing refers to is collected
 * itself, and then runs no callback (Node 24 does so).
 */
const leftOpen = new FinalizationRegistry(close);

/**
 * The filters whose stream opened in the current job and is still open,
 * not yet registered: each knows its index here (`#slot`), and leaves when
 * its stream ends. A microtask registers those still here when the job
 * ends. Held strongly until then, as the job that made them is still
 * running.
 */
const unregistered = [];
let registering = false;

/**
 * For __test__/filter/filter-layer.test.mjs only (the package does not export
 * it): makes a filter take every chunk across, as if any could begin a
 * match, so that the tests can hold the shortcut to the native answers.
 */
let crossEveryChunk;

/**
 * The plan a `FilterPlan` keeps, for the filter class; `undefined` for a
 * value that is no `FilterPlan` (options, then). Set by FilterPlan's
 * static block.
 */
let planIn;

/**
 * Options checked and compiled once, to open any number of filters from:
 * `new ScaffoldingFilter(plan)`, `ScaffoldingFilter.strip(text, plan)`.
 * Immutable; nothing a filter does changes it.
 */
class FilterPlan {
  #plan;

  constructor(options) {
    this.#plan = options === undefined ? DEFAULTS : planOf('FilterPlan', options);
  }

  get startUnits() {
    if (typeof this !== 'object' || this === null || !(#plan in this)) {
      throw new TypeError(`FilterPlan.startUnits: called on something that is not a FilterPlan (got ${this === null ? 'null' : typeof this})`);
    }
    return this.#plan.startUnits;
  }

  static {
    planIn = (value, who) => {
      if (typeof value !== 'object' || value === null) return undefined;
      if (#plan in value) return value.#plan;
      if (value instanceof FilterPlan) {
        throw new TypeError(`${who}: options claims to be a FilterPlan but was not made by its constructor`);
      }
      return undefined;
    };
  }
}

/** How an error names a method of the class. */
const named = (method) => (method === '[Symbol.dispose]' ? `ScaffoldingFilter${method}` : `ScaffoldingFilter.${method}`);

class ScaffoldingFilter {
  /**
   * The plan streams open from (see `planOf`): a FilterPlan's, or, for a
   * filter made from options, its start units, `onStrip` and the options,
   * with no `compiled` until it is fed again after a flush.
   */
  #plan;
  /** Whether a chunk could begin a match: the plan's test. */
  #mayStart;
  /** The open stream's handle; `null` between streams. */
  #handle = null;
  /** Whether the open stream holds nothing: `undefined` until asked after a native feed. */
  #idle = true;
  /** The spans of the streams already ended (`null`: none), and their total length. */
  #spans = null;
  #chars = 0;
  /** Text a call whose `onStrip` threw did not return. */
  #owed = '';
  /** Events still to announce (`null`: none), from index `#next` on. */
  #pending = null;
  #next = 0;
  /** Set while `onStrip` runs. */
  #announcing = false;
  #disposed = false;
  /** Where this filter is in `unregistered` (-1: not there), and whether `leftOpen` holds its stream. */
  #slot = -1;
  #registered = false;

  constructor(options) {
    const plan = options === undefined ? DEFAULTS : planIn(options, 'ScaffoldingFilter');
    if (plan !== undefined) {
      this.#plan = plan;
      this.#mayStart = plan.mayStart;
      return;
    }
    // Options: compiled into a stream opened now, which owns what they
    // compiled to and frees it at the flush (`openWith`). A plan kept for
    // this filter alone would be freed only by a finalizer, after the loop
    // that made it yields.
    const [handle, startUnits, onStrip] = openWith(options, 'ScaffoldingFilter');
    this.#plan = { compiled: undefined, options, startUnits, mayStart: startTest(startUnits), onStrip };
    this.#mayStart = this.#plan.mayStart;
    this.#adopt(handle);
  }

  static {
    crossEveryChunk = (filter) => {
      filter.#mayStart = () => true;
      return filter;
    };
  }

  static strip(text, options) {
    const plan = options === undefined ? DEFAULTS : planIn(options, 'ScaffoldingFilter');
    return plan === undefined ? stripText(text, options) : stripText(text, plan.compiled, plan.onStrip);
  }

  /** Throws unless `filter` is a ScaffoldingFilter. */
  static #brand(filter, method) {
    if (typeof filter !== 'object' || filter === null || !(#plan in filter)) {
      const got = filter === null ? 'null' : typeof filter;
      throw new TypeError(`${named(method)}: called on something that is not a ScaffoldingFilter (got ${got})`);
    }
  }

  /** Throws unless `filter` can take a feed or a flush now. */
  static #enter(filter, method) {
    ScaffoldingFilter.#brand(filter, method);
    if (filter.#disposed) throw new TypeError(`${named(method)}: this filter was disposed`);
    if (filter.#announcing) {
      throw new Error(`${named(method)} cannot be called from inside this filter's onStrip callback`);
    }
  }

  feed(chunk) {
    ScaffoldingFilter.#enter(this, 'feed');
    let text;
    if (typeof chunk === 'string' && !this.#mayStart(chunk) && this.#holdsNothing()) {
      text = chunk;
    } else {
      // A chunk that is not a string goes across with no stream, to be
      // named in Rust's TypeError.
      const handle = this.#handle ?? (typeof chunk === 'string' ? this.#open() : null);
      this.#idle = undefined;
      const answer = feedStream(handle, chunk);
      if (typeof answer === 'string') {
        text = answer;
      } else {
        text = answer[0];
        this.#queue(answer, 1);
      }
    }
    if (this.#pending === null && this.#owed === '') return text;
    return this.#announce(text);
  }

  flush() {
    ScaffoldingFilter.#enter(this, 'flush');
    let text = '';
    const handle = this.#handle;
    if (handle !== null) {
      this.#forget();
      const answer = finish(handle);
      if (typeof answer === 'string') {
        text = answer;
      } else {
        text = answer[0];
        this.#keep(answer[1]);
        this.#queue(answer, 2);
      }
    }
    if (this.#pending === null && this.#owed === '') return text;
    return this.#announce(text);
  }

  get strippedChars() {
    ScaffoldingFilter.#brand(this, 'strippedChars');
    return this.#handle === null ? this.#chars : this.#chars + streamChars(this.#handle);
  }

  get strippedSpans() {
    ScaffoldingFilter.#brand(this, 'strippedSpans');
    const held = this.#handle === null ? [] : streamSpans(this.#handle);
    return this.#spans === null ? held : this.#spans.concat(held);
  }

  get idle() {
    ScaffoldingFilter.#brand(this, 'idle');
    return !this.#announcing && this.#pending === null && this.#owed === '' && this.#holdsNothing();
  }

  get startUnits() {
    ScaffoldingFilter.#brand(this, 'startUnits');
    return this.#plan.startUnits;
  }

  [Symbol.dispose]() {
    ScaffoldingFilter.#brand(this, '[Symbol.dispose]');
    if (this.#disposed) return;
    this.#disposed = true;
    // From inside onStrip, the call that is announcing ends the stream when
    // its announcing ends.
    if (this.#announcing) return;
    this.#owed = '';
    this.#pending = null;
    this.#end();
  }

  /** Whether the native side holds nothing (true with no stream open). */
  #holdsNothing() {
    if (this.#handle === null) return true;
    if (this.#idle === undefined) this.#idle = streamIsIdle(this.#handle);
    return this.#idle;
  }

  #open() {
    if (this.#plan.compiled === undefined) {
      // Made from options and fed again after a flush: the options are
      // compiled again, into a plan this filter keeps from now on.
      this.#plan = planOf('ScaffoldingFilter', this.#plan.options);
    }
    const handle = openStream(this.#plan.compiled);
    this.#adopt(handle);
    return handle;
  }

  /** Takes `handle`, a stream just opened, as this filter's. */
  #adopt(handle) {
    this.#handle = handle;
    this.#slot = unregistered.push(this) - 1;
    if (!registering) {
      registering = true;
      queueMicrotask(ScaffoldingFilter.#registerOpen);
    }
  }

  /** When a job ends: puts every stream it left open under the registry. */
  static #registerOpen() {
    registering = false;
    for (const filter of unregistered) {
      filter.#slot = -1;
      filter.#registered = true;
      leftOpen.register(filter, filter.#handle, filter);
    }
    unregistered.length = 0;
  }

  /** Lets go of the open stream, which the caller then ends. */
  #forget() {
    this.#handle = null;
    this.#idle = true;
    if (this.#registered) {
      this.#registered = false;
      leftOpen.unregister(this);
    } else if (this.#slot !== -1) {
      const last = unregistered.pop();
      if (last !== this) {
        unregistered[this.#slot] = last;
        last.#slot = this.#slot;
      }
      this.#slot = -1;
    }
  }

  /** Frees the open stream, if any, keeping its spans. */
  #end() {
    const handle = this.#handle;
    if (handle === null) return;
    this.#forget();
    this.#keep(streamSpans(handle));
    close(handle);
  }

  /** Keeps the spans of a stream that ends. */
  #keep(spans) {
    if (spans.length === 0) return;
    if (this.#spans === null) this.#spans = spans;
    else for (const span of spans) this.#spans.push(span);
    for (const span of spans) this.#chars += span.length;
  }

  /** Queues the events `answer` holds from index `from` on. */
  #queue(answer, from) {
    if (answer.length <= from) return;
    if (this.#pending === null) {
      this.#pending = answer;
      this.#next = from;
    } else {
      for (let i = from; i < answer.length; i++) this.#pending.push(answer[i]);
    }
  }

  /** Calls `onStrip` for every event still to announce, then returns the owed text and `text`. */
  #announce(text) {
    this.#owed += text;
    const pending = this.#pending;
    if (pending !== null) {
      const onStrip = this.#plan.onStrip;
      let done = false;
      this.#announcing = true;
      try {
        // Counted before the call: an event is announced once, even when
        // the callback throws.
        while (this.#next < pending.length) onStrip(pending[this.#next++]);
        done = true;
      } finally {
        this.#announcing = false;
        if (done || this.#disposed) {
          this.#pending = null;
          this.#next = 0;
        }
        if (this.#disposed) {
          // Disposed from inside onStrip: the stream ends now.
          this.#end();
          if (!done) this.#owed = '';
        }
      }
    }
    const owed = this.#owed;
    this.#owed = '';
    return owed;
  }
}

/**
 * The generated class as an ES class, so that calling it without `new` is a
 * TypeError; its instances are instances of the generated class.
 */
class ScaffoldRegistry extends native.ScaffoldRegistry {}

module.exports = { ScaffoldingFilter, FilterPlan, ScaffoldRegistry, crossEveryChunk };
