//! The write seam: `empty-lookup`.
//!
//! A triage agent asked an inventory tool which devices exist, then asked a
//! reverse-lookup tool where one of them was logged in. The lookup's filter
//! was broken and answered every identifier with an empty list; the agent
//! told the user the device was logged in nowhere. It was. An empty answer
//! from a broken filter and from a true absence are byte-identical, so this
//! check can only say "worth a look": it joins two facts the run already
//! has, (a) the identifier came out of an earlier result of a tool the
//! consumer declared in `argumentsFrom`, and (b) the lookup keyed on it came
//! back empty, and files an advisory finding when both hold.
//!
//! The rules are agentfootprint's, so a framework can swap its check for this
//! one and see the same dispositions and findings:
//!
//! | the call | disposition |
//! | --- | --- |
//! | result shape unreadable (no reading) | `not-applicable` |
//! | the lookup found something | `checked-pass` |
//! | no declared producer served a non-empty result | `unreachable` |
//! | some string argument (trimmed, 4+ units) occurs, case-folded, in a declared result | `checked-fail`, one finding per such argument |
//! | otherwise | `checked-pass` |
//!
//! What it cannot know is [`EMPTY_LOOKUP_CEILING`].

pub mod walk;

use crate::js_string::{clip, contains, push_str, to_lower, trim};
use std::borrow::Cow;
use walk::{walk_string_leaves, ArgsTree, LeafPath};

/// The check's ceiling, with one owner: every finding's message quotes it
/// verbatim, and the README does too.
pub const EMPTY_LOOKUP_CEILING: &str = "An empty answer can be perfectly true: the thing looked up may exist and \
simply have nothing to show at this moment. So this finding is a place to look, never a verdict that anything \
is wrong.";

/// Below this many UTF-16 units a trimmed value is not judged: short strings
/// land inside unrelated words of any corpus, in both directions.
pub const MIN_CHECKED_LENGTH: usize = 4;

/// The longest a value is quoted inside a message, in UTF-16 units.
pub const MAX_QUOTED_UNITS: usize = 80;

/// The two result shapes the check can read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// An array, counted and never interpreted.
    Rowset,
    /// The tool's own declaration that its search ran and matched nothing.
    Absence,
}

impl Shape {
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::Rowset => "rowset",
            Shape::Absence => "absence",
        }
    }

    /// How a message and a witness name this kind of empty.
    fn empty_phrase(self) -> &'static str {
        match self {
            Shape::Rowset => "a rowset with zero rows",
            Shape::Absence => "a declared absence (the tool said its search ran and matched nothing)",
        }
    }
}

/// What could be read of a finished lookup's result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    pub shape: Shape,
    pub empty: bool,
    /// Rows counted, for a rowset; `None` for an absence.
    pub rows: Option<u32>,
}

/// `readLookupResult`: a declared absence whatever the value; an array's
/// length as a rowset; anything else unreadable (`None`).
pub fn read_lookup_result(declared_absence: bool, array_length: Option<u32>) -> Option<Reading> {
    if declared_absence {
        return Some(Reading { shape: Shape::Absence, empty: true, rows: None });
    }
    array_length.map(|rows| Reading { shape: Shape::Rowset, empty: rows == 0, rows: Some(rows) })
}

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
}

/// One earlier result of this run and the tool that produced it.
#[derive(Debug, Clone)]
pub struct Produced {
    pub tool_name: Vec<u16>,
    pub text: Vec<u16>,
}

/// The parts of a call the check reads once the lookup came back empty.
pub struct CallParts<V> {
    /// The consumer: the tool that was called and answered.
    pub tool_name: Vec<u16>,
    pub tool_call_id: Vec<u16>,
    pub args: V,
    /// The tools whose results were meant to ground the arguments.
    pub arguments_from: Vec<Vec<u16>>,
}

/// `{ kind, id }` of a finding's subject; this check's subjects are tools.
#[derive(Debug, Clone, PartialEq)]
pub struct SubjectRef {
    pub kind: &'static str,
    pub id: Vec<u16>,
}

impl SubjectRef {
    fn tool(id: &[u16]) -> Self {
        SubjectRef { kind: "tool", id: id.to_vec() }
    }
}

/// One witness of a finding. Every witness of this check is `asserted` and
/// carries a string value.
#[derive(Debug, Clone, PartialEq)]
pub struct Assertion {
    pub subject: SubjectRef,
    pub predicate: Vec<u16>,
    pub value: Vec<u16>,
    pub epoch: f64,
    pub provenance: Vec<u16>,
}

/// One `empty-lookup` finding (a `ContextError` of kind `empty-lookup`, at
/// the write seam, always advisory).
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The consumer, then the grounding producer.
    pub subjects: [SubjectRef; 2],
    /// The three witnesses: the value as chosen, the producer served it, the
    /// lookup found nothing.
    pub witnesses: [Assertion; 3],
    /// The leaf's dot-path.
    pub predicate: Vec<u16>,
    pub epoch: f64,
    pub message: Vec<u16>,
}

impl Finding {
    pub const KIND: &'static str = "empty-lookup";
    pub const SEAM: &'static str = "write";
    pub const STRATUM: &'static str = "asserted";
}

/// One encounter's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct Encounter {
    pub findings: Vec<Finding>,
    pub disposition: Disposition,
}

impl Encounter {
    fn quiet(disposition: Disposition) -> Self {
        Encounter { findings: Vec::new(), disposition }
    }
}

/// The declared producers' non-empty results, in `produced` order, each
/// lower-cased the first time a needle asks for it.
struct Grounds<'p> {
    grounds: Vec<(&'p Produced, Option<Cow<'p, [u16]>>)>,
}

impl<'p> Grounds<'p> {
    fn declared(arguments_from: &[Vec<u16>], produced: &'p [Produced]) -> Self {
        let grounds = produced
            .iter()
            .filter(|p| arguments_from.contains(&p.tool_name) && !p.text.is_empty())
            .map(|p| (p, None))
            .collect();
        Grounds { grounds }
    }

    /// The first ground whose lower-cased text contains `needle`.
    fn first_containing(&mut self, needle: &[u16]) -> Option<&'p Produced> {
        for (produced, lowered) in &mut self.grounds {
            let produced: &'p Produced = *produced;
            let lowered = lowered.get_or_insert_with(|| to_lower(&produced.text));
            if contains(lowered, needle) {
                return Some(produced);
            }
        }
        None
    }
}

/// `emptyLookupOf`: judges one finished call to an armed tool.
///
/// `reading` decides first; only when the lookup came back empty does the
/// check ask `rest` for the call's other parts and the run's results, so an
/// unreadable or non-empty result touches nothing else.
pub fn empty_lookup_of<T: ArgsTree>(
    tree: &mut T,
    reading: Option<Reading>,
    epoch: f64,
    rest: impl FnOnce(&mut T) -> Result<(CallParts<T::Value>, Vec<Produced>), T::Error>,
) -> Result<Encounter, T::Error> {
    let Some(reading) = reading else { return Ok(Encounter::quiet(Disposition::NotApplicable)) };
    if !reading.empty {
        return Ok(Encounter::quiet(Disposition::CheckedPass));
    }
    let (call, produced) = rest(tree)?;
    let mut grounds = Grounds::declared(&call.arguments_from, &produced);
    if grounds.grounds.is_empty() {
        return Ok(Encounter::quiet(Disposition::Unreachable));
    }

    let consumer =
        Consumer { name: &call.tool_name, call_id: &call.tool_call_id, shape: reading.shape, epoch };
    let mut findings = Vec::new();
    walk_string_leaves(tree, call.args, |path, leaf| {
        let value = trim(&leaf);
        if value.len() < MIN_CHECKED_LENGTH {
            return;
        }
        if let Some(ground) = grounds.first_containing(&to_lower(value)) {
            findings.push(consumer.finding(path, &leaf, &ground.tool_name));
        }
    })?;
    let disposition = if findings.is_empty() { Disposition::CheckedPass } else { Disposition::CheckedFail };
    Ok(Encounter { findings, disposition })
}

/// Text assembled from Rust literals and JavaScript strings, in UTF-16.
struct Prose(Vec<u16>);

impl Prose {
    fn new() -> Self {
        Prose(Vec::new())
    }
    fn s(mut self, text: &str) -> Self {
        push_str(&mut self.0, text);
        self
    }
    fn u(mut self, units: &[u16]) -> Self {
        self.0.extend_from_slice(units);
        self
    }
}

/// The call a finding is about, and what its lookup came back with.
struct Consumer<'c> {
    name: &'c [u16],
    call_id: &'c [u16],
    shape: Shape,
    epoch: f64,
}

impl Consumer<'_> {
    fn finding(&self, path: &LeafPath, leaf: &[u16], producer_name: &[u16]) -> Finding {
        let Consumer { name: consumer_name, call_id, shape, epoch } = *self;
        let consumer = SubjectRef::tool(consumer_name);
        let producer = SubjectRef::tool(producer_name);
        let predicate = path.dotted();
        let empty = shape.empty_phrase();
        let witness = |subject: &SubjectRef, value: Vec<u16>, provenance: Vec<u16>| Assertion {
            subject: subject.clone(),
            predicate: predicate.clone(),
            value,
            epoch,
            provenance,
        };
        let witnesses = [
            witness(
                &consumer,
                leaf.to_vec(),
                Prose::new()
                    .s("argument '")
                    .u(&predicate)
                    .s("' of tool call ")
                    .u(call_id)
                    .s(", as the model wrote it")
                    .0,
            ),
            witness(
                &producer,
                Prose::new().s("served this value earlier in this run").0,
                Prose::new()
                    .s("'")
                    .u(producer_name)
                    .s("' is a declared ground of '")
                    .u(consumer_name)
                    .s("' (argumentsFrom), and one of its results in this run carries the value")
                    .0,
            ),
            witness(
                &consumer,
                Prose::new().s("found nothing: ").s(empty).0,
                Prose::new().s("the result of tool call ").u(call_id).s(", as the tool returned it").0,
            ),
        ];
        let message = Prose::new()
        .s("'")
        .u(consumer_name)
        .s("' looked up ")
        .u(&predicate)
        .s(" = \"")
        .u(&clip(trim(leaf), MAX_QUOTED_UNITS))
        .s("\" and came back with ")
        .s(empty)
        .s(", yet this run had already produced that value: it appears in a result from '")
        .u(producer_name)
        .s("', which '")
        .u(consumer_name)
        .s("' declares (argumentsFrom) as where its arguments come from. A true absence and a lookup that \
could never match look the same from here, which is why the pair is worth a look. ")
        .s(EMPTY_LOOKUP_CEILING)
        .s(" Tool call id: ")
        .u(call_id)
        .s(". Nothing here blocked the call, changed its result, or retried anything.")
        .0;
        Finding { subjects: [consumer, producer], witnesses, predicate, epoch, message }
    }
}

#[cfg(test)]
mod tests;
