'use strict';
// The stream seam's JavaScript layer: `ScaffoldingFilter`, a subclass of the
// generated class (see index.cjs for why a layer exists).

const native = require('../index.js');

// Most feeds of a stream are a few units of prose, and a native call costs
// more than the filter's work on them. So the layer answers a feed itself
// when the answer cannot depend on anything native:
//
// - the filter is idle: it holds nothing, no span is open, nothing is owed
//   from a throwing `onStrip` and no strip is unannounced. The native side
//   publishes this in a word shared per filter (`filterLink`), cleared by
//   every native call that changes the state and set again at its end;
// - the chunk has no unit that ends a literal of the filter's patterns, so
//   nothing can complete and nothing is stripped.
//
// Then the answer is the text (a partial opening literal the layer holds
// from such an earlier feed, then the chunk) less its longest suffix that
// is a proper prefix of an opening literal (a span start or a token), which
// the layer holds in turn. This is the native hold rule, with no match to
// look for. Any other feed crosses with that held prefix in front of its
// chunk, through `filterFeed`; a filter holding nothing natively gives the
// same answer for `prefix + chunk` as for `chunk` after `prefix`, because a
// partial opening literal holds no complete literal.
//
// A class made by napi-rs can be called without `new`, and then wraps its
// receiver (`ScaffoldingFilter()` turned the module object into a filter).
// An ES class cannot, so this subclass also makes that a TypeError; its
// instances are still instances of the generated class.

const nativeFeed = native.ScaffoldingFilter.prototype.feed;
const nativeFlush = native.ScaffoldingFilter.prototype.flush;
// The same feed, for this class's own instances, without napi-rs's
// per-call class machinery (their objects are type-tagged by `filterLink`).
const { filterFeed } = native;

/** What the layer needs of a registry, from `filterLink`'s answer. */
function holdRuleOf(maxPartial, lastUnits, openings) {
  const prefixes = new Set();
  const firstUnits = new Set();
  for (const opening of openings) {
    firstUnits.add(opening.charCodeAt(0));
    for (let k = 1; k < opening.length; k++) prefixes.add(opening.slice(0, k));
  }
  const hex = (unit) => `\\u${unit.toString(16).padStart(4, '0')}`;
  const lastPattern = new RegExp(`[${Array.from(lastUnits, (unit) => hex(unit.charCodeAt(0))).join('')}]`);
  return {
    maxPartial,
    /** Whether a literal could complete in `chunk`. */
    canComplete: lastUnits.length === 1 ? (chunk) => chunk.indexOf(lastUnits) !== -1 : (chunk) => lastPattern.test(chunk),
    /** The longest suffix of `text` that is a proper prefix of an opening literal. */
    partialLength(text) {
      const n = text.length;
      for (let at = n > maxPartial ? n - maxPartial : 0; at < n; at++) {
        if (firstUnits.has(text.charCodeAt(at)) && prefixes.has(text.slice(at))) return n - at;
      }
      return 0;
    },
  };
}

class ScaffoldingFilter extends native.ScaffoldingFilter {
  /** 1 while the native filter is idle (see above). */
  #idle;
  /** The held partial opening literal, while the native filter is idle. */
  #held = '';
  #rule;

  /** Whether `value` was built by this class (anything else goes to the native method, which checks it). */
  static #is(value) {
    return typeof value === 'object' && value !== null && #idle in value;
  }

  constructor(...args) {
    super(...args);
    const [idle, maxPartial, lastUnits, ...openings] = native.filterLink(this, this);
    this.#idle = idle;
    this.#rule = holdRuleOf(maxPartial, lastUnits, openings);
  }

  feed(chunk) {
    if (!ScaffoldingFilter.#is(this)) return nativeFeed.call(this, chunk);
    if (typeof chunk !== 'string' || this.#idle[0] !== 1) return filterFeed(this, chunk);
    const rule = this.#rule;
    const held = this.#held;
    if (rule.canComplete(chunk)) {
      this.#held = '';
      return filterFeed(this, held === '' ? chunk : held + chunk);
    }
    const text = held === '' ? chunk : held + chunk;
    const partial = rule.partialLength(text);
    if (partial === 0) {
      this.#held = '';
      return text;
    }
    this.#held = text.slice(text.length - partial);
    return text.slice(0, text.length - partial);
  }

  flush() {
    if (ScaffoldingFilter.#is(this) && this.#idle[0] === 1) {
      const held = this.#held;
      this.#held = '';
      return held;
    }
    return nativeFlush.call(this);
  }
}

module.exports = { ScaffoldingFilter };
