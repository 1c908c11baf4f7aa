//! The compose seam: `dangling-reference`.
//!
//! A `whats_here` tool listed the valid ids on a screen and a `screen_fire`
//! tool acted on one of them. The window evicted the `whats_here` result
//! while `screen_fire` stayed on offer; the model made up a plausible id
//! from a name it remembered and kept spending actions on it. The window
//! knew what it had dropped; nothing tied the drop to the tool that still
//! depended on it.
//!
//! This check ties them when a request is assembled: a served tool one of
//! whose declared grounds (`argumentsFrom`) was dropped from the window at
//! some point in the run, and has no result in the window now, is on offer
//! without its evidence. A ground never dropped is silent (the model has not
//! called it yet), and so is one fetched again.
//!
//! It knows tool names, never values, and withholds nothing. The rules are
//! agentfootprint's; `DANGLING_REFERENCE.md` states them.

use crate::checks::finding::{fill, Assertion, ContextError, Disposition, Seam, SubjectRef};
use crate::checks::text::js_string::units;

/// The kind every finding of this check carries.
pub const KIND: &str = "dangling-reference";

/// One tool offered in a request, with the grounds its author declared.
pub struct ServedTool {
    pub name: Vec<u16>,
    pub arguments_from: Vec<Vec<u16>>,
}

/// The words of a finding, as templates with one owner.
pub mod prose {
    /// Every witness's predicate: data, fixed.
    pub const PREDICATE: &str = "argument-ground";
    /// A witness's value: data, fixed by the specification.
    pub const EVICTED: &str = "results of '{ground}' evicted, not re-established";
    /// A witness's provenance.
    pub const PROVENANCE: &str =
        "'{ground}' is among the results this run's window dropped, and none of its results is in the window now";
    /// The message.
    pub const MESSAGE: &str = "'{tool}' is on offer to the model, but the results its arguments come from \
({grounds}) have left the window and were not fetched again. Values the model remembers from them can no longer be \
checked against anything it can see. Fetching them again (calling {grounds} once more) grounds '{tool}' again; \
nothing here withholds the tool.";
}

/// `danglingReferencesOf`: one finding per served tool with a missing
/// ground, in `tools` order. A ground is missing when `dropped(name)` says
/// so and `present(name)` does not; `present` is asked only about names
/// `dropped` said yes to, as agentfootprint's `&&` asks it. Repeats in
/// `argumentsFrom` repeat in the finding.
pub fn dangling_references_of<E>(
    tools: &[ServedTool],
    mut dropped: impl FnMut(&[u16]) -> Result<bool, E>,
    mut present: impl FnMut(&[u16]) -> Result<bool, E>,
    epoch: f64,
) -> Result<Vec<ContextError>, E> {
    let mut findings = Vec::new();
    for tool in tools {
        let mut missing = Vec::new();
        for ground in &tool.arguments_from {
            if dropped(ground)? && !present(ground)? {
                missing.push(ground);
            }
        }
        if !missing.is_empty() {
            findings.push(finding(tool, &missing, epoch));
        }
    }
    Ok(findings)
}

/// The ledger row a request earns: `not-applicable` when no served tool
/// declares a ground or the run has dropped nothing yet (there is nothing to
/// judge), else `checked-fail` or `checked-pass` by the findings.
pub fn disposition(tools: &[ServedTool], dropped_any: bool, findings: &[ContextError]) -> Disposition {
    if dropped_any && tools.iter().any(|tool| !tool.arguments_from.is_empty()) {
        Disposition::of_findings(findings.len())
    } else {
        Disposition::NotApplicable
    }
}

fn finding(tool: &ServedTool, missing: &[&Vec<u16>], epoch: f64) -> ContextError {
    let mut grounds = Vec::new();
    for (i, ground) in missing.iter().enumerate() {
        if i > 0 {
            grounds.extend(units(", "));
        }
        grounds.extend_from_slice(ground);
    }
    let subject = SubjectRef::tool(&tool.name);
    let witnesses = missing
        .iter()
        .map(|ground| {
            let fill = |template: &str| fill(template, |_| &ground[..]);
            Assertion {
                subject: subject.clone(),
                predicate: units(prose::PREDICATE),
                value: fill(prose::EVICTED).into(),
                epoch,
                provenance: fill(prose::PROVENANCE),
            }
        })
        .collect();
    let message = fill(prose::MESSAGE, |slot| match slot {
        "tool" => &tool.name,
        "grounds" => &grounds,
        other => unreachable!("no slot {other}"),
    });
    let mut subjects = vec![subject];
    subjects.extend(missing.iter().map(|ground| SubjectRef::tool(ground)));
    ContextError {
        kind: KIND,
        seam: Seam::Compose,
        subjects,
        predicate: None,
        witnesses,
        epoch,
        advisory: false,
        message,
    }
}

#[cfg(test)]
mod tests;
