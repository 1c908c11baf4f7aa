// A plain JavaScript model of the empty-lookup rules (docs/checks.md,
// "empty-lookup"), written as directly as the rules read, for
// the tests to compare the addon against. It decides which leaves are
// grounded by which tool; the prose of witnesses and messages is the
// addon's own and is checked separately.

function* stringLeaves(node, path) {
  if (typeof node === 'string') {
    yield { path, value: node };
    return;
  }
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) yield* stringLeaves(node[i], path === '' ? String(i) : `${path}.${i}`);
    return;
  }
  if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) yield* stringLeaves(value, path === '' ? key : `${path}.${key}`);
  }
}

/** The model's verdict: disposition and, per finding, [path, leaf, grounding tool]. */
export function modelEmptyLookup(call, produced) {
  if (call.reading === undefined) return { disposition: 'not-applicable', joins: [] };
  if (!call.reading.empty) return { disposition: 'checked-pass', joins: [] };
  const grounds = produced
    .filter((p) => call.argumentsFrom.includes(p.toolName) && p.text.length > 0)
    .map((p) => ({ toolName: p.toolName, lowered: p.text.toLowerCase() }));
  if (grounds.length === 0) return { disposition: 'unreachable', joins: [] };
  const joins = [];
  for (const leaf of stringLeaves(call.args, '')) {
    const value = leaf.value.trim();
    if (value.length < 4) continue;
    const needle = value.toLowerCase();
    const ground = grounds.find((g) => g.lowered.includes(needle));
    if (ground) joins.push([leaf.path, leaf.value, ground.toolName]);
  }
  return { disposition: joins.length > 0 ? 'checked-fail' : 'checked-pass', joins };
}

/** The same view of the addon's answer. */
export function joinsOf(encounter) {
  return {
    disposition: encounter.disposition,
    joins: encounter.findings.map((f) => [f.predicate, f.witnesses[0].value, f.subjects[1].id]),
  };
}
