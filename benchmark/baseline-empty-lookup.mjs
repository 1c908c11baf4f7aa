// emptyLookupOf written in plain JavaScript from its rules (docs/checks.md,
// "empty-lookup"), the way a framework author would write it in TypeScript:
// a recursive generator for the string leaves, the declared grounds
// lower-cased once per call, and findings with all three witnesses and a
// full message. It is the baseline the benchmark measures the addon
// against; its prose is its own.

const CEILING =
  'An empty answer can be perfectly true: the thing looked up may exist and simply have nothing to show at ' +
  'this moment. So this finding is a place to look, never a verdict that anything is wrong.';

function* stringLeaves(node, path) {
  if (typeof node === 'string') {
    yield { path, value: node };
  } else if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) yield* stringLeaves(node[i], path === '' ? String(i) : `${path}.${i}`);
  } else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) yield* stringLeaves(value, path === '' ? key : `${path}.${key}`);
  }
}

function quote(value) {
  if (value.length <= 80) return value;
  let keep = 79;
  const code = value.charCodeAt(keep - 1);
  if (code >= 0xd800 && code < 0xdc00) keep -= 1;
  return `${value.slice(0, keep)}…`;
}

export function readLookupResult(value, declaredAbsence) {
  if (declaredAbsence) return { shape: 'absence', empty: true };
  if (Array.isArray(value)) return { shape: 'rowset', empty: value.length === 0, rows: value.length };
  return undefined;
}

export function emptyLookupOf(call, produced, epoch) {
  if (call.reading === undefined) return { findings: [], disposition: 'not-applicable' };
  if (!call.reading.empty) return { findings: [], disposition: 'checked-pass' };
  const grounds = produced
    .filter((result) => call.argumentsFrom.includes(result.toolName) && result.text.length > 0)
    .map((result) => ({ toolName: result.toolName, lowered: result.text.toLowerCase() }));
  if (grounds.length === 0) return { findings: [], disposition: 'unreachable' };

  const empty = call.reading.shape === 'absence'
    ? 'a declared absence (the tool said its search ran and matched nothing)'
    : 'a rowset with zero rows';
  const consumer = { kind: 'tool', id: call.toolName };
  const findings = [];
  for (const { path, value } of stringLeaves(call.args, '')) {
    const trimmed = value.trim();
    if (trimmed.length < 4) continue;
    const needle = trimmed.toLowerCase();
    const ground = grounds.find((candidate) => candidate.lowered.includes(needle));
    if (ground === undefined) continue;
    const producer = { kind: 'tool', id: ground.toolName };
    const witness = (subject, witnessValue, provenance) => ({
      subject, predicate: path, value: witnessValue, epoch, stratum: 'asserted', provenance,
    });
    findings.push({
      kind: 'empty-lookup',
      seam: 'write',
      subjects: [consumer, producer],
      predicate: path,
      witnesses: [
        witness(consumer, value, `argument '${path}' of tool call ${call.toolCallId}, as the model chose it`),
        witness(producer, 'served this value earlier in this run',
          `'${ground.toolName}' is declared in argumentsFrom of '${call.toolName}', and a result it served carries the value`),
        witness(consumer, `found nothing: ${empty}`, `the result of tool call ${call.toolCallId}`),
      ],
      epoch,
      advisory: true,
      message: `Tool '${call.toolName}' looked up ${path} = "${quote(trimmed)}" and got ${empty}, although '${ground.toolName}' ` +
        `(one of its declared sources, argumentsFrom) served that value earlier in this run. ${CEILING} ` +
        `Tool call id: ${call.toolCallId}. Nothing here blocked the call, changed its result, or retried anything.`,
    });
  }
  return { findings, disposition: findings.length > 0 ? 'checked-fail' : 'checked-pass' };
}
