'use strict';
// The offered tool names closest to a name no offered tool has: what a
// guard names when `argumentsFrom` spells a tool the model is never
// offered, so that the mistake reads as the fix.

/**
 * The edit distance (insertions, deletions, substitutions and swaps of two
 * neighbours, each counting one) between `a` and `b`, in UTF-16 units, or
 * `limit + 1` once it is known to exceed `limit`.
 */
function distance(a, b, limit) {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before = null;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (before !== null && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      current.push(d);
      if (d < best) best = d;
    }
    if (best > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length];
}

/**
 * Up to three of `names` closest to `name`: within a third of the longer
 * name's length in edits (at least 2), or one holding the other, case
 * ignored; nearest first, then in the order given.
 */
function closestNames(name, names) {
  const lower = name.toLowerCase();
  const near = [];
  for (const [order, candidate] of names.entries()) {
    const other = candidate.toLowerCase();
    const limit = Math.max(2, Math.floor(Math.max(lower.length, other.length) / 3));
    let d = distance(lower, other, limit);
    if (d > limit && lower.length >= 3 && other.length >= 3 && (lower.includes(other) || other.includes(lower))) d = limit;
    if (d <= limit) near.push({ candidate, d, order });
  }
  near.sort((x, y) => x.d - y.d || x.order - y.order);
  return near.slice(0, 3).map((entry) => entry.candidate);
}

exports.closestNames = closestNames;
