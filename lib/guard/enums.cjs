'use strict';
// declaredEnumValuesOf: the strings a tool's input schema lists in `enum`
// arrays, wherever they sit. The rules are in docs/checks.md
// ("unsupported-argument"); the typing is in typings/header.d.ts, which
// napi-rs puts at the head of index.d.ts. It stays in JavaScript because its
// rules are JavaScript's own property reads (getters, an inherited `enum`,
// Proxies) and its answer is a real `Set`.

// A node deeper than this is not visited; the root is depth 0.
const MAX_DEPTH = 8;

// The walk's budget, a safeguard agentfootprint does not have. The depth
// fence ends a cycle, but not sharing: an object referenced from several
// properties at every level is walked once per path, and ten references a
// level already make 10^8 paths, which would hold the caller far longer than
// any schema should. Every value the walk steps onto and every enum member
// it reads costs one step; past the budget the walk stops with a RangeError
// rather than return a set that would be missing values. No real tool
// schema comes near it.
const MAX_STEPS = 1_000_000;

/**
 * Every string declared in an `enum` array anywhere in `schema`, in the order
 * the walk meets them, each once. A schema that is not an object gives an
 * empty set.
 *
 * @param {unknown} schema a tool's input schema.
 * @returns {Set<string>}
 * @throws {RangeError} when the schema takes more than a million steps to walk.
 */
function declaredEnumValuesOf(schema) {
  const values = new Set();
  let steps = 0;
  const step = () => {
    steps += 1;
    if (steps > MAX_STEPS) {
      throw new RangeError(
        `declaredEnumValuesOf: the schema was not walked; it takes more than ${MAX_STEPS} steps ` +
          '(is one object reachable along a great many paths?)',
      );
    }
  };

  const walk = (node, depth) => {
    step();
    if (depth > MAX_DEPTH || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const element of node) walk(element, depth + 1);
      return;
    }
    // Ordinary property access, so an `enum` on the prototype chain counts.
    const declared = node.enum;
    if (Array.isArray(declared)) {
      for (const member of declared) {
        step();
        if (typeof member === 'string') values.add(member);
      }
    }
    // Own enumerable string-keyed values, getters run; this includes the
    // `enum` array itself, so objects inside it are walked as well.
    for (const value of Object.values(node)) walk(value, depth + 1);
  };

  walk(schema, 0);
  return values;
}

exports.declaredEnumValuesOf = declaredEnumValuesOf;
