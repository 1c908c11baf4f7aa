// The reference scaffolding filter (../shared/spec/scaffolding_filter.py)
// ported line for line to JavaScript: the same three regexes, the same
// strip-the-leftmost-match loop over pending + chunk, the same hold rule.
// It is the baseline the benchmark measures the addon against, so it is kept
// exactly as naive as the reference: every feed rescans everything held.

const SCAFFOLD_PATTERNS = [
  /<\|tool_call_start\|>[\s\S]*?<\|tool_call_end\|>/,
  /<\|tool_calls\|>/,
  /<\|tool_call\|>/,
];

const SPAN_START = '<|tool_call_start|>';
const SPAN_END = '<|tool_call_end|>';
const OPENINGS = [SPAN_START, '<|tool_calls|>', '<|tool_call|>'];
const MAX_OPENING = Math.max(...OPENINGS.map((opening) => opening.length));

function leftmostMatch(buf) {
  let best = null;
  for (const pattern of SCAFFOLD_PATTERNS) {
    const match = pattern.exec(buf);
    if (match !== null && (best === null || match.index < best.index)) best = match;
  }
  return best;
}

function holdIndex(buf) {
  if (!buf) return 0;
  let hold = buf.length;
  const start = buf.indexOf(SPAN_START);
  if (start !== -1 && buf.indexOf(SPAN_END, start + 1) === -1) hold = start;
  for (let k = Math.min(buf.length, MAX_OPENING - 1); k > 0; k--) {
    const suffix = buf.slice(-k);
    if (OPENINGS.some((opening) => k < opening.length && opening.startsWith(suffix))) {
      hold = Math.min(hold, buf.length - k);
      break;
    }
  }
  return hold;
}

export class ReferenceFilter {
  constructor() {
    this.pending = '';
    this.strippedChars = 0;
    this.strippedSpans = [];
  }

  feed(chunk) {
    if (!chunk) return '';
    const buf = this.stripComplete(this.pending + chunk);
    const hold = holdIndex(buf);
    this.pending = buf.slice(hold);
    return buf.slice(0, hold);
  }

  flush() {
    const tail = this.pending;
    this.pending = '';
    return tail;
  }

  stripComplete(buf) {
    let match;
    while ((match = leftmostMatch(buf)) !== null) {
      this.strippedChars += match[0].length;
      this.strippedSpans.push(match[0]);
      buf = buf.slice(0, match.index) + buf.slice(match.index + match[0].length);
    }
    return buf;
  }
}
