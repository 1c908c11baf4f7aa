// The reference scaffolding filter (../shared/spec/scaffolding_filter.py),
// ported to JavaScript line for line, for the property tests to compare the
// addon against. It keeps the reference's shape on purpose: find the
// leftmost match with the three regular expressions, cut it out, search
// again from the start, then hold back the tail. Its cost is quadratic in
// what it holds, which is fine for the short texts of a property test.
//
// One deliberate difference: JavaScript strings are UTF-16, so lengths
// here (and strippedChars) count code units where Python counts code
// points. That is what the seamguard specification asks of the addon too.

const escape = (literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The reference's module globals for a registry of at most one span and any
 * tokens (the Python class reads them as globals; the port takes them as
 * data). The default is exactly the reference's three patterns.
 */
export function registryOf(patterns) {
  const spans = patterns.filter((p) => 'start' in p);
  if (spans.length > 1) throw new Error('the reference models one span at most');
  const span = spans[0];
  const tokens = patterns.filter((p) => 'token' in p).map((p) => p.token);
  return {
    regexes: [
      ...(span ? [new RegExp(`${escape(span.start)}[\\s\\S]*?${escape(span.end)}`)] : []),
      ...tokens.map((token) => new RegExp(escape(token))),
    ],
    spanStart: span?.start,
    spanEnd: span?.end,
    openings: [...(span ? [span.start] : []), ...tokens],
  };
}

export const DEFAULT_PATTERNS = [
  { start: '<|tool_call_start|>', end: '<|tool_call_end|>' },
  { token: '<|tool_calls|>' },
  { token: '<|tool_call|>' },
];

const DEFAULT = registryOf(DEFAULT_PATTERNS);
export const SCAFFOLD_PATTERNS = DEFAULT.regexes;

function leftmostMatch(registry, buf) {
  let best = null;
  for (const pattern of registry.regexes) {
    const match = pattern.exec(buf);
    if (match !== null && (best === null || match.index < best.index)) best = match;
  }
  return best;
}

function holdIndex(registry, buf) {
  if (buf === '') return 0;
  let hold = buf.length;
  if (registry.spanStart !== undefined) {
    const start = buf.indexOf(registry.spanStart);
    if (start !== -1 && buf.indexOf(registry.spanEnd, start + 1) === -1) hold = start;
  }
  const maxOpening = Math.max(...registry.openings.map((opening) => opening.length));
  for (let k = Math.min(buf.length, maxOpening - 1); k > 0; k--) {
    const suffix = buf.slice(buf.length - k);
    if (registry.openings.some((opening) => k < opening.length && opening.startsWith(suffix))) {
      hold = Math.min(hold, buf.length - k);
      break;
    }
  }
  return hold;
}

export class ReferenceFilter {
  #registry;
  #pending = '';
  #strippedChars = 0;
  #strippedSpans = [];

  /** `patterns` as the addon takes them; the default registry when left out. */
  constructor(patterns) {
    this.#registry = patterns === undefined ? DEFAULT : registryOf(patterns);
  }

  get strippedChars() {
    return this.#strippedChars;
  }

  get strippedSpans() {
    return [...this.#strippedSpans];
  }

  /** The held tail, for tests that compare it. */
  get pending() {
    return this.#pending;
  }

  feed(chunk) {
    if (!chunk) return '';
    const buf = this.#stripComplete(this.#pending + chunk);
    const hold = holdIndex(this.#registry, buf);
    this.#pending = buf.slice(hold);
    return buf.slice(0, hold);
  }

  flush() {
    const tail = this.#pending;
    this.#pending = '';
    return tail;
  }

  #stripComplete(buf) {
    let match;
    while ((match = leftmostMatch(this.#registry, buf)) !== null) {
      this.#strippedChars += match[0].length;
      this.#strippedSpans.push(match[0]);
      buf = buf.slice(0, match.index) + buf.slice(match.index + match[0].length);
    }
    return buf;
  }
}
