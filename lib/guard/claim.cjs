'use strict';
// The claim seam in the guard: the model's final answer (text, no tool
// calls) judged against what the run served, by the run corpus's
// `evidenceOf`. The rule lives in Rust; this file reads the guard's two
// options once and turns a verdict into what the guard files and what an
// adapter does next:
//
// - `'assist'` (the default): the verdict is filed: the findings through
//   the guard's `file`, one disposition per row on the run's ledger.
// - `'guard'`: an answer with unsupported values, in a turn that has not
//   had its revision yet, is not filed: the adapter asks the model once
//   more with the verdict's `correction` appended, and the revised answer
//   is judged and filed instead (marked `revised`). A turn never gets a
//   second revision, whatever the revised answer does.
//
// A guard never refuses a run, so agentfootprint's `'rails'` posture is not
// offered: `stopOn` is how a run is stopped.

const { checkValueOptions } = require('../native.cjs').__claim;

const CLAIM_SEAM = 'claim';
const POSTURES = ['assist', 'guard'];
const EVIDENCE_KEYS = ['posture', 'exempt', 'shapes', 'minDigits'];

const describe = (value) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value);
const isRecord = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Reads `evidence` and `noticePriorTurnEvidence`. Returns `undefined` when
 * the seam is off (`evidence` absent or false), else `{ posture, options }`,
 * `options` as `evidenceOf` takes them (the exemptions, shapes and digit
 * floor checked by the addon's own reader).
 */
function readEvidence(evidence, notice, who) {
  if (notice !== undefined && typeof notice !== 'boolean') {
    throw new TypeError(`${who}: options.noticePriorTurnEvidence must be a boolean (got ${describe(notice)})`);
  }
  if (evidence === undefined || evidence === false) {
    if (notice === true) throw new TypeError(`${who}: options.noticePriorTurnEvidence needs options.evidence: the prior-turn check reads the claim seam's verdict`);
    return undefined;
  }
  if (evidence === true) evidence = {};
  if (!isRecord(evidence)) throw new TypeError(`${who}: options.evidence must be true or an object { posture, exempt, shapes, minDigits } (got ${describe(evidence)})`);
  for (const key of Object.keys(evidence)) {
    if (!EVIDENCE_KEYS.includes(key)) throw new TypeError(`${who}: options.evidence has unknown key ${JSON.stringify(key)} (known: ${EVIDENCE_KEYS.join(', ')})`);
  }
  const { posture = 'assist', exempt, shapes, minDigits } = evidence;
  if (posture === 'rails') {
    throw new TypeError(`${who}: options.evidence.posture 'rails' is not offered: a guard never refuses a run. Use 'guard' for one revision, and stopOn: ['unsupported-claim'] to stop the run`);
  }
  if (!POSTURES.includes(posture)) {
    throw new TypeError(`${who}: options.evidence.posture must be 'assist' or 'guard' (got ${JSON.stringify(posture) ?? describe(posture)})`);
  }
  // The addon's reader checks and compiles them, as every judgement will:
  // a look-around pattern or two shapes of one name are refused here, when
  // the guard is made, not at its first answer.
  checkValueOptions({ exempt, shapes, minDigits }, `${who}: options.evidence`);
  const options = { noticePriorTurnEvidence: notice === true };
  if (exempt !== undefined) options.exempt = [...exempt];
  if (shapes !== undefined) options.shapes = shapes.map(({ name, match }) => ({ name, match }));
  if (minDigits !== undefined) options.minDigits = minDigits;
  return Object.freeze({ posture, options, noticePrior: notice === true });
}

/** The ledger rows the claim seam files on, for a guard whose seam is `claim` (readEvidence's). */
function claimRows(claim) {
  if (claim === undefined) return [];
  return claim.noticePrior ? [['unsupported-claim', CLAIM_SEAM], ['prior-turn-evidence', CLAIM_SEAM]] : [['unsupported-claim', CLAIM_SEAM]];
}

/**
 * The answer's text as the seam judges it: a string, or the text of an
 * array of parts; `undefined` for anything else (nothing is judged).
 */
function answerText(text) {
  if (typeof text === 'string') return text;
  if (!Array.isArray(text)) return undefined;
  let joined = '';
  for (const part of text) {
    if (typeof part === 'string') joined += part;
    else if (typeof part?.text === 'string') joined += part.text;
  }
  return joined;
}

/**
 * Whether `finding` is the claim seam's, and so about the final answer
 * rather than a tool; and the values it is about: the witnesses its
 * answer `states`. One reading for every place a finding is told (the
 * acted-on finding, the telemetry signal).
 */
const isClaimFinding = (finding) => finding.seam === CLAIM_SEAM;
const statedValues = (finding) => (finding.witnesses ?? []).filter((witness) => witness.predicate === 'states').map((witness) => witness.value);

exports.CLAIM_SEAM = CLAIM_SEAM;
exports.isClaimFinding = isClaimFinding;
exports.statedValues = statedValues;
exports.readEvidence = readEvidence;
exports.claimRows = claimRows;
exports.answerText = answerText;
