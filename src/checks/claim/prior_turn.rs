//! prior-turn-evidence: the answer is grounded, and every value in it was
//! last served before the turn being answered.
//!
//! The field failure behind it (agentfootprint's): an agent answered a new
//! question with no tool call at all, and every value in its answer was
//! grounded, in an inventory read four turns earlier for another question.
//! The gate asks whether a value was read, never when. This check reads the
//! when out of the same verdict and files it beside the gate, as an
//! advisory: referring back is often right ("and that disk?"), and nothing
//! here can tell a fair reference from a stale one.
//!
//! One grounded value from this turn's own results is enough to stay
//! quiet: the claim is that every value came from before, and one that did
//! not falsifies it. The finding and its words are agentfootprint's
//! (`src/integrity/prior-turn-evidence/check.ts`) exactly.

use super::gate::{answer_subject, Grounding};
use crate::checks::finding::{Assertion, ContextError, Disposition, Seam, SubjectRef, WitnessValue};
use crate::checks::text::js_string::units;

/// What this check can and cannot know, quoted into every finding.
pub const CEILING: &str = "An answer that legitimately refers back to an earlier result is indistinguishable, by evidence alone, from one that has gone stale: this reports WHERE the values came from and never whether they were still the ones the reader wanted. It counts only the turns still in the live window, so the distance it names is a floor, and values the run supplied rather than fetched (the prompt, a fact, a recalled passage) are exempt from grounding and invisible to it. A place to look, never a verdict that anything is wrong.";

/// One judged answer's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct PriorTurnEvidence {
    pub findings: Vec<ContextError>,
    pub disposition: Disposition,
}

/// Reads one verdict's grounding: `unreachable` when the window holds no
/// user turn or the answer grounded no value, `checked-pass` when a value
/// came from this turn, else one advisory finding.
pub fn prior_turn_evidence_of(reading: &Grounding, epoch: f64) -> PriorTurnEvidence {
    let quiet = |disposition| PriorTurnEvidence { findings: Vec::new(), disposition };
    if reading.current_turn == 0 || reading.from_this_turn == 0 && reading.from_prior_turns == 0 {
        return quiet(Disposition::Unreachable);
    }
    if reading.from_this_turn > 0 {
        return quiet(Disposition::CheckedPass);
    }
    let total = reading.from_prior_turns;
    // `from_prior_turns > 0` always sets it; "undefined" is what the
    // reference would print otherwise.
    let (from, age) = match reading.latest_prior_turn {
        Some(from) => (from.to_string(), (reading.current_turn - from).to_string()),
        None => ("undefined".to_string(), "undefined".to_string()),
    };
    let fetched_nothing = reading.tool_results_this_turn == 0;
    let answer = answer_subject();
    let witness =
        |subject: &SubjectRef, predicate: &str, value: WitnessValue, provenance: String| Assertion {
            subject: subject.clone(),
            predicate: units(predicate),
            value,
            epoch,
            provenance: units(&provenance),
        };
    let witnesses = vec![
        witness(
            &answer,
            "grounding",
            units(&format!("{total} grounded value(s), none of them served by this turn")).into(),
            "the evidence gate's index of `role: 'tool'` results, each form stamped with the latest turn that served it"
                .to_string(),
        ),
        witness(
            &SubjectRef { kind: "turn", id: units(&from) },
            "grounding",
            units("served the newest result the answer drew on").into(),
            format!("turn {from} of the turns still in this run's window, at least {age} turn(s) before the one being answered"),
        ),
        witness(
            &answer,
            "tool-results-this-turn",
            WitnessValue::Number(f64::from(reading.tool_results_this_turn)),
            if fetched_nothing {
                "this turn served no tool results at all, so every value in the answer came from history by construction"
            } else {
                "this turn served tool results, and none of them carried a value the answer states"
            }
            .to_string(),
        ),
    ];
    let this_turn = if fetched_nothing {
        "This turn called no tool and served no result, so the answer was assembled entirely from the conversation. "
            .to_string()
    } else {
        format!(
            "This turn served {} tool result(s) and the answer states no value from any of them. ",
            reading.tool_results_this_turn
        )
    };
    let message = format!(
        "the final answer states {total} value(s) the run can ground, and every one of them was last served in turn {from} or earlier — at least {age} turn(s) before the turn being answered — while turn {}, the one being answered, contributed none of them. {this_turn}{CEILING} Nothing here blocked the answer, revised it or changed a byte of it.",
        reading.current_turn
    );
    PriorTurnEvidence {
        disposition: Disposition::CheckedFail,
        findings: vec![ContextError {
            kind: "prior-turn-evidence",
            seam: Seam::Claim,
            subjects: vec![answer],
            predicate: Some(units("grounding")),
            witnesses,
            epoch,
            advisory: true,
            message: units(&message),
        }],
    }
}

#[cfg(test)]
mod tests {
    //! agentfootprint's `test/integrity/priorTurnEvidence.test.ts`, its unit
    //! and negative cases, as readings and what they earn.
    use super::*;

    const FIELD_CASE: Grounding = Grounding {
        from_this_turn: 0,
        from_prior_turns: 3,
        latest_prior_turn: Some(1),
        current_turn: 3,
        tool_results_this_turn: 0,
    };

    fn message(reading: &Grounding) -> String {
        String::from_utf16(&prior_turn_evidence_of(reading, 2.0).findings[0].message).unwrap()
    }

    #[test]
    fn readings_table() {
        let cases: [(&str, Grounding, Disposition, usize); 6] = [
            ("the field case", FIELD_CASE, Disposition::CheckedFail, 1),
            (
                "the neutralize-proof: every form read as this turn's",
                Grounding { from_this_turn: 3, from_prior_turns: 0, latest_prior_turn: None, ..FIELD_CASE },
                Disposition::CheckedPass,
                0,
            ),
            (
                "one value from this turn is enough",
                Grounding { from_this_turn: 1, from_prior_turns: 2, tool_results_this_turn: 1, ..FIELD_CASE },
                Disposition::CheckedPass,
                0,
            ),
            (
                "a turn that did fetch",
                Grounding { tool_results_this_turn: 2, ..FIELD_CASE },
                Disposition::CheckedFail,
                1,
            ),
            ("no boundary", Grounding { current_turn: 0, ..FIELD_CASE }, Disposition::Unreachable, 0),
            (
                "no grounded value",
                Grounding { from_this_turn: 0, from_prior_turns: 0, latest_prior_turn: None, ..FIELD_CASE },
                Disposition::Unreachable,
                0,
            ),
        ];
        for (name, reading, disposition, findings) in cases {
            let out = prior_turn_evidence_of(&reading, 2.0);
            assert_eq!((out.disposition, out.findings.len()), (disposition, findings), "{name}");
        }
    }

    #[test]
    fn the_message_names_the_count_the_turn_and_the_distance() {
        let said = message(&FIELD_CASE);
        for part in
            ["3 value(s)", "turn 1", "at least 2 turn(s)", "called no tool and served no result", CEILING]
        {
            assert!(said.contains(part), "{part}");
        }
        let fetched = message(&Grounding { tool_results_this_turn: 2, ..FIELD_CASE });
        assert!(fetched.contains("served 2 tool result(s)") && !fetched.contains("called no tool"));
        let finding = &prior_turn_evidence_of(&FIELD_CASE, 2.0).findings[0];
        assert!(finding.advisory);
        assert_eq!((finding.kind, finding.seam), ("prior-turn-evidence", Seam::Claim));
        assert_eq!(finding.witnesses[2].value, WitnessValue::Number(0.0));
    }
}
