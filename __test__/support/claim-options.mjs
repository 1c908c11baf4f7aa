// The claim fixtures write options as JSON: a RegExp as { source, flags }.

/** A fixture's options, with its RegExps made from { source, flags }. */
export function optionsOf(plain) {
  if (plain === undefined) return undefined;
  const regex = (r) => new RegExp(r.source, r.flags);
  return {
    ...plain,
    ...(plain.shapes && { shapes: plain.shapes.map((s) => ({ name: s.name, match: regex(s) })) }),
    ...(plain.exempt && { exempt: plain.exempt.map((e) => (typeof e === 'string' ? e : regex(e))) }),
  };
}
