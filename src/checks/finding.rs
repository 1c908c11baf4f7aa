//! What every check files: agentfootprint's `ContextError`, its witnesses
//! and subjects, and the closed vocabulary of dispositions.
//!
//! The three checks build their findings as these values and the binding
//! turns them into JavaScript objects in one place, so a finding has one
//! shape whichever seam filed it. Keys come out in agentfootprint's order:
//! `kind, seam, subjects, predicate?, witnesses, epoch, advisory?, message`,
//! with `predicate` and `advisory` present only when the check sets them.

use crate::checks::text::js_string::push_str;

/// The ledger row an encounter files: "nothing found" and "nothing checked"
/// are different states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Disposition {
    CheckedPass,
    CheckedFail,
    NotApplicable,
    Unreachable,
}

impl Disposition {
    pub fn as_str(self) -> &'static str {
        match self {
            Disposition::CheckedPass => "checked-pass",
            Disposition::CheckedFail => "checked-fail",
            Disposition::NotApplicable => "not-applicable",
            Disposition::Unreachable => "unreachable",
        }
    }

    /// The row a judged encounter with `findings` findings earns.
    pub fn of_findings(findings: usize) -> Self {
        if findings == 0 {
            Disposition::CheckedPass
        } else {
            Disposition::CheckedFail
        }
    }
}

/// Where in an agent's loop a check looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seam {
    /// A tool's answer is written into the history (`empty-lookup`).
    Write,
    /// A request is assembled from the window (`dangling-reference`).
    Compose,
    /// The model chose a call's arguments (`unsupported-argument`).
    Choice,
    /// The model wrote its final answer (`unsupported-claim`,
    /// `prior-turn-evidence`).
    Claim,
}

impl Seam {
    pub fn as_str(self) -> &'static str {
        match self {
            Seam::Write => "write",
            Seam::Compose => "compose",
            Seam::Choice => "choice",
            Seam::Claim => "claim",
        }
    }
}

/// `{ kind, id }` of a finding's subject: a tool, the answer, a turn.
#[derive(Debug, Clone, PartialEq)]
pub struct SubjectRef {
    pub kind: &'static str,
    pub id: Vec<u16>,
}

impl SubjectRef {
    pub fn tool(id: &[u16]) -> Self {
        SubjectRef { kind: "tool", id: id.to_vec() }
    }
}

/// A witness's value: a string, or (a count) a number.
#[derive(Debug, Clone, PartialEq)]
pub enum WitnessValue {
    Text(Vec<u16>),
    Number(f64),
}

#[cfg(test)]
impl WitnessValue {
    /// The string, for a test that knows the witness holds one.
    pub fn as_text(&self) -> &[u16] {
        match self {
            WitnessValue::Text(text) => text,
            WitnessValue::Number(number) => panic!("a number witness: {number}"),
        }
    }
}

impl From<Vec<u16>> for WitnessValue {
    fn from(text: Vec<u16>) -> Self {
        WitnessValue::Text(text)
    }
}

/// One witness of a finding. Every witness seamguard files is `asserted`.
#[derive(Debug, Clone, PartialEq)]
pub struct Assertion {
    pub subject: SubjectRef,
    pub predicate: Vec<u16>,
    pub value: WitnessValue,
    pub epoch: f64,
    pub provenance: Vec<u16>,
}

impl Assertion {
    pub const STRATUM: &'static str = "asserted";
}

/// One finding.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextError {
    pub kind: &'static str,
    pub seam: Seam,
    pub subjects: Vec<SubjectRef>,
    /// What the finding is about within its subjects (a leaf's dot-path);
    /// `None` leaves the key out.
    pub predicate: Option<Vec<u16>>,
    pub witnesses: Vec<Assertion>,
    pub epoch: f64,
    /// Doubt rather than contradiction; `false` leaves the key out.
    pub advisory: bool,
    pub message: Vec<u16>,
}

/// Fills `template` in UTF-16: each `{slot}` with `slot(name)`, everything
/// else literal. The checks keep their prose as such templates, so the words
/// live in one place each.
pub fn fill<'v>(template: &str, slot: impl Fn(&str) -> &'v [u16]) -> Vec<u16> {
    let mut filled = Vec::with_capacity(template.len() + 64);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}').expect("a closed slot");
        push_str(&mut filled, &rest[..open]);
        filled.extend_from_slice(slot(&rest[open + 1..close]));
        rest = &rest[close + 1..];
    }
    push_str(&mut filled, rest);
    filled
}
