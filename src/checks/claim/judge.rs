//! One judgement of a final answer over a run's claim index: the values read
//! off the answer, the gate's verdict and finding, prior-turn-evidence when
//! asked for, and the sentences a guard needs. What `RunCorpus.evidenceOf`
//! answers.

use super::extract::{answer_values, candidate_forms, ValueRules};
use super::gate::{
    check_answer, correction, disposition, unsupported_claim_findings, warning, Candidate, Verdict,
};
use super::index::{supplied_forms, ClaimIndex};
use super::prior_turn::{prior_turn_evidence_of, PriorTurnEvidence};
use crate::checks::finding::{ContextError, Disposition};

/// What a judgement is asked besides the answer.
#[derive(Debug, Default, Clone, Copy)]
pub struct Judging<'j> {
    /// Text of this request the corpus does not hold, supplied by the app.
    pub system_prompt: Option<&'j [u16]>,
    /// Read the verdict's grounding into prior-turn-evidence.
    pub notice_prior_turn: bool,
    /// The answer is the revision a correction asked for.
    pub revised: bool,
    pub epoch: f64,
}

/// One answer's judgement.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    pub verdict: Verdict,
    /// The `unsupported-claim` finding, or none.
    pub findings: Vec<ContextError>,
    pub disposition: Disposition,
    pub prior_turn: Option<PriorTurnEvidence>,
    /// For an answer with unsupported values: the message a revision adds
    /// after the answer (the answer is the message before it, as written),
    /// and the sentence an operator reads.
    pub correction: Option<Vec<u16>>,
    pub warning: Option<Vec<u16>>,
}

/// Judges `answer` over `index`. Costs the answer's length (and the system
/// prompt's, when given), never the history's.
pub fn evidence_of(
    index: &ClaimIndex,
    answer: &[u16],
    rules: &ValueRules,
    judging: Judging<'_>,
) -> Judgement {
    let values = answer_values(answer, rules);
    let prompt = judging.system_prompt.map(supplied_forms);
    let candidates = values.iter().map(|value| Candidate {
        value: &value.value,
        shape: rules.shape_name(&value.shape),
        forms: candidate_forms(value),
    });
    let verdict =
        check_answer(index, candidates, |form| prompt.as_ref().is_some_and(|forms| forms.contains(form)));
    let flagged = !verdict.unsupported.is_empty();
    Judgement {
        findings: unsupported_claim_findings(&verdict, index.tool_results(), judging.epoch),
        disposition: disposition(&verdict),
        prior_turn: judging
            .notice_prior_turn
            .then(|| prior_turn_evidence_of(&verdict.grounding, judging.epoch)),
        correction: flagged.then(|| correction(&verdict.unsupported)),
        warning: flagged.then(|| warning(&verdict.unsupported, judging.revised)),
        verdict,
    }
}
