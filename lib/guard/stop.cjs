'use strict';
// What acting on a finding means, said once for every framework. Detection
// is the default and blocks nothing; a guard made with `stopOn` names the
// kinds of finding that should stop (or redirect) a run, and each adapter
// hands that verdict to its framework's own mechanism (an AI SDK stop
// condition, a Mastra tripwire, a LangChain jump, an Agents SDK output
// guardrail). An adapter decides nothing here: it asks `trips`, and hands on
// `actedFinding`s.

const { closestNames } = require('./names.cjs');
const { isClaimFinding, statedValues } = require('./claim.cjs');

/** The kinds of finding a guard files, the only ones `stopOn` may name. */
const STOP_KINDS = Object.freeze(['empty-lookup', 'unsupported-argument', 'dangling-reference', 'unsupported-claim', 'prior-turn-evidence']);

/**
 * Reads the `stopOn` option: `true` (every kind), an array of kinds, or
 * nothing (no kind: detection only). Returns the set of kinds that trip.
 */
function readStopOn(stopOn, who) {
  if (stopOn === undefined || stopOn === false) return new Set();
  if (stopOn === true) return new Set(STOP_KINDS);
  if (!Array.isArray(stopOn)) {
    throw new TypeError(`${who}: options.stopOn must be true or an array of finding kinds (${STOP_KINDS.join(', ')}), got ${stopOn === null ? 'null' : typeof stopOn}`);
  }
  for (const kind of stopOn) {
    if (STOP_KINDS.includes(kind)) continue;
    const close = typeof kind === 'string' ? closestNames(kind, STOP_KINDS) : [];
    const hint = close.length > 0 ? `; did you mean ${close[0]}?` : '';
    throw new TypeError(`${who}: options.stopOn names ${JSON.stringify(kind) ?? String(kind)}, which is not a kind of finding (kinds: ${STOP_KINDS.join(', ')}${hint})`);
  }
  return new Set(stopOn);
}

/**
 * A finding as plain JSON, for a framework's state, metadata or guardrail
 * output: what it is about (`kind`, `seam`, the `tools` it names, the
 * argument `path` and the `value` in question where it has them; for the
 * claim seam, no tool and the answer's `values` in question), the tool
 * call it is about where known (the finding's `toolCallId`), its
 * `message`, and whether it `trips` the guard's `stopOn`.
 */
function actedFinding(finding, trips) {
  // A claim-seam finding is about the final answer, not a tool.
  const claim = isClaimFinding(finding);
  const acted = { kind: finding.kind, seam: finding.seam, tools: claim ? [] : finding.subjects.map((subject) => subject.id) };
  if (claim) {
    acted.values = statedValues(finding);
  } else {
    if (finding.predicate !== undefined) acted.path = finding.predicate;
    const value = finding.witnesses[0]?.value;
    if (value !== undefined && finding.kind !== 'dangling-reference') acted.value = value;
  }
  if (finding.toolCallId !== undefined) acted.toolCallId = finding.toolCallId;
  acted.message = finding.message;
  acted.trips = trips;
  return acted;
}

exports.STOP_KINDS = STOP_KINDS;
exports.readStopOn = readStopOn;
exports.actedFinding = actedFinding;
