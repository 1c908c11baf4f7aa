'use strict';
// `ScaffoldingFilter` at the root entry: the generated class, with one
// predicate in front of its `feed`.
//
// Most feeds of a stream are a few units of prose, and a native call costs
// more than the filter's work on them. A filter that is idle (it holds
// nothing, no span is open, nothing is owed: the native `idle` getter)
// returns a chunk unchanged, and stays idle, when no unit of the chunk can
// begin a match: no markup can start in it, and none is under way. The set
// of those units is the native `startUnits`, read once per filter (`null`
// when no such set decides, and then every feed is native). Every
// other feed, and every flush, is the native one; after each, the layer
// asks the filter again whether it is idle, when a chunk first needs it.
//
// The subclass also makes calling the class without `new` a TypeError, as
// for any ES class; its instances are instances of the generated class.
// `ScaffoldRegistry` is subclassed for that alone.

const native = require('../index.js');

/** A test for "this chunk has one of `units`", built once per filter. */
function startTest(units) {
  if (units === null) return () => true;
  if (units.length === 1) return (chunk) => chunk.indexOf(units) !== -1;
  const hex = (unit) => `\\u${unit.toString(16).padStart(4, '0')}`;
  const set = new RegExp(`[${Array.from({ length: units.length }, (_, i) => hex(units.charCodeAt(i))).join('')}]`);
  return (chunk) => set.test(chunk);
}

class ScaffoldingFilter extends native.ScaffoldingFilter {
  /** Whether the native filter is idle; `undefined` until asked after a native call. */
  #idle = true;
  #mayStart;

  constructor(options) {
    super(options);
    this.#mayStart = startTest(this.startUnits);
  }

  feed(chunk) {
    // A filter the generated class built (no fields of this class) goes
    // to the native method, as does anything else.
    if (!(#idle in this)) return super.feed(chunk);
    if (typeof chunk === 'string' && !this.#mayStart(chunk)) {
      if (this.#idle === undefined) this.#idle = this.idle;
      if (this.#idle) return chunk;
    }
    this.#idle = false;
    const text = super.feed(chunk);
    this.#idle = undefined;
    return text;
  }

  flush() {
    if (!(#idle in this)) return super.flush();
    this.#idle = false;
    const text = super.flush();
    this.#idle = undefined;
    return text;
  }
}

/**
 * The generated class as an ES class, so that calling it without `new` is a
 * TypeError; its instances are instances of the generated class.
 */
class ScaffoldRegistry extends native.ScaffoldRegistry {}

module.exports = { ScaffoldingFilter, ScaffoldRegistry };
