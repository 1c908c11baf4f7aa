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

use crate::checks::finding::{fill, Assertion, ContextError, Disposition, Seam, SubjectRef};
use crate::checks::text::ground::{first_holders, is_declared_ground, Grounding, Grounds, Needle, Quote};
use crate::checks::text::js_string::units;
use crate::checks::walk::{walk_string_leaves, ArgsTree};

/// The check's ceiling, with one owner: every finding's message quotes it
/// verbatim, and `docs/checks.md` does too.
pub const EMPTY_LOOKUP_CEILING: &str = "An empty answer can be perfectly true: the thing looked up may exist and \
simply have nothing to show at this moment. So this finding is a place to look, never a verdict that anything \
is wrong.";

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
    pub fn empty_phrase(self) -> &'static str {
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

/// One `empty-lookup` finding: at the write seam, always advisory, with the
/// consumer and the grounding producer as subjects and three witnesses (the
/// value as chosen, the producer served it, the lookup found nothing).
pub type Finding = ContextError;

/// The kind every finding of this check carries.
pub const KIND: &str = "empty-lookup";

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

/// One grounded leaf: what a finding is made of.
#[derive(Debug, Clone)]
pub struct Join<V> {
    /// The leaf's dot-path.
    pub path: Vec<u16>,
    /// How many steps the path has: 1 for an entry of the root.
    pub path_depth: usize,
    /// The leaf as the arguments hold it (a live handle in the binding).
    pub leaf: V,
    /// The leaf's UTF-16 units, untrimmed.
    pub units: Vec<u16>,
    /// The `produced` index of the first ground that contains it.
    pub ground: usize,
    /// Where the message quotes it.
    pub quote: Quote,
}

/// Judges every string leaf of `args` against `grounds`: a leaf whose
/// needle (trimmed, past the fence, lower-cased) occurs in a ground joins
/// the first such ground. Joins come in walk order.
///
/// The walk runs first and whole, in the rules' order: it is the part
/// JavaScript can observe (getters, Proxy traps). Then the grounds are read
/// once each, in order, and every needle not yet placed is searched in each;
/// the first ground that contains a needle is the first one to be asked. The
/// scan stops as soon as every needle is placed.
pub fn joins<T: ArgsTree, G: Grounding<T::Error>>(
    tree: &mut T,
    args: T::Value,
    grounds: &mut G,
) -> Result<Vec<Join<T::Value>>, T::Error> {
    let mut judged = Vec::new();
    walk_string_leaves(tree, args, |path, leaf, units| {
        if let Some(needle) = Needle::of_leaf(&units) {
            judged.push((path.dotted(), path.segments().len(), leaf.clone(), units, needle));
        }
    })?;
    let needles: Vec<&Needle> = judged.iter().map(|(_, _, _, _, needle)| needle).collect();
    let placed = first_holders(&needles, grounds)?;
    Ok(judged
        .into_iter()
        .zip(placed)
        .filter_map(|((path, path_depth, leaf, units, _), ground)| {
            Some(Join { ground: ground?, quote: Quote::of_leaf(&units), path, path_depth, leaf, units })
        })
        .collect())
}

/// The disposition the reading decides on its own, before anything else of
/// the call is read: `not-applicable` for an unreadable result,
/// `checked-pass` when the lookup found something.
fn decided_by_reading(reading: Option<Reading>) -> Option<Disposition> {
    match reading {
        None => Some(Disposition::NotApplicable),
        Some(reading) if !reading.empty => Some(Disposition::CheckedPass),
        Some(_) => None,
    }
}

/// `emptyLookupOf`: judges one finished call to an armed tool against the
/// results in `produced` order.
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
    empty_lookup_with(tree, reading, epoch, |tree| {
        let (call, produced) = rest(tree)?;
        let mut grounds = Grounds::new();
        for (index, result) in produced.into_iter().enumerate() {
            if is_declared_ground(&call.arguments_from, &result.tool_name, result.text.len()) {
                grounds.push(index, result.tool_name, result.text);
            }
        }
        Ok((call, grounds))
    })
}

/// [`empty_lookup_of`] over any [`Grounding`], a
/// [`ProducedCorpus`](crate::checks::corpus::ProducedCorpus)'s included.
pub fn empty_lookup_with<T: ArgsTree, G: Grounding<T::Error>>(
    tree: &mut T,
    reading: Option<Reading>,
    epoch: f64,
    rest: impl FnOnce(&mut T) -> Result<(CallParts<T::Value>, G), T::Error>,
) -> Result<Encounter, T::Error> {
    if let Some(disposition) = decided_by_reading(reading) {
        return Ok(Encounter::quiet(disposition));
    }
    let shape = reading.expect("an empty reading").shape;
    let (call, mut grounds) = rest(tree)?;
    if grounds.is_unreachable() {
        return Ok(Encounter::quiet(Disposition::Unreachable));
    }
    let consumer = Consumer { name: &call.tool_name, call_id: &call.tool_call_id, shape, epoch };
    let findings: Vec<Finding> = joins(tree, call.args, &mut grounds)?
        .iter()
        .map(|join| consumer.finding(join, grounds.producer(join.ground)))
        .collect();
    Ok(Encounter { disposition: Disposition::of_findings(findings.len()), findings })
}

/// The prose of a finding, as templates with one owner. A `{slot}` is
/// filled with a value; everything else is literal. The words live here
/// only.
pub mod prose {
    /// Witness 1's provenance: where the chosen value came from.
    pub const CHOSEN_PROVENANCE: &str = "argument '{path}' of tool call {call}, as the model wrote it";
    /// Witness 2's value.
    pub const SERVED_VALUE: &str = "served this value earlier in this run";
    /// Witness 2's provenance.
    pub const SERVED_PROVENANCE: &str =
        "'{producer}' is a declared ground of '{consumer}' (argumentsFrom), and one of \
its results in this run carries the value";
    /// Witness 3's value.
    pub const EMPTY_VALUE: &str = "found nothing: {empty}";
    /// Witness 3's provenance.
    pub const EMPTY_PROVENANCE: &str = "the result of tool call {call}, as the tool returned it";
    /// The finding's message.
    pub const MESSAGE: &str = "'{consumer}' looked up {path} = \"{quoted}\" and came back with {empty}, yet this run \
had already produced that value: it appears in a result from '{producer}', which '{consumer}' declares \
(argumentsFrom) as where its arguments come from. A true absence and a lookup that could never match look the \
same from here, which is why the pair is worth a look. {ceiling} Tool call id: {call}. Nothing here blocked the \
call, changed its result, or retried anything.";

    /// Every template, with the name the binding gives it.
    pub const TEMPLATES: [(&str, &str); 6] = [
        ("chosenProvenance", CHOSEN_PROVENANCE),
        ("servedValue", SERVED_VALUE),
        ("servedProvenance", SERVED_PROVENANCE),
        ("emptyValue", EMPTY_VALUE),
        ("emptyProvenance", EMPTY_PROVENANCE),
        ("message", MESSAGE),
    ];
}

/// The call a finding is about, and what its lookup came back with.
struct Consumer<'c> {
    name: &'c [u16],
    call_id: &'c [u16],
    shape: Shape,
    epoch: f64,
}

impl Consumer<'_> {
    fn finding<V>(&self, join: &Join<V>, producer_name: &[u16]) -> Finding {
        let Consumer { name: consumer_name, call_id, shape, epoch } = *self;
        let consumer = SubjectRef::tool(consumer_name);
        let producer = SubjectRef::tool(producer_name);
        let predicate = join.path.clone();
        let empty = units(shape.empty_phrase());
        let ceiling = units(EMPTY_LOOKUP_CEILING);
        let quoted = join.quote.text(&join.units);
        let fill = |template: &str| {
            fill(template, |slot| match slot {
                "path" => &predicate,
                "call" => call_id,
                "consumer" => consumer_name,
                "producer" => producer_name,
                "empty" => &empty,
                "quoted" => &quoted,
                "ceiling" => &ceiling,
                other => unreachable!("no slot {other}"),
            })
        };
        let witness = |subject: &SubjectRef, value: Vec<u16>, provenance: Vec<u16>| Assertion {
            subject: subject.clone(),
            predicate: predicate.clone(),
            value: value.into(),
            epoch,
            provenance,
        };
        let witnesses = [
            witness(&consumer, join.units.clone(), fill(prose::CHOSEN_PROVENANCE)),
            witness(&producer, fill(prose::SERVED_VALUE), fill(prose::SERVED_PROVENANCE)),
            witness(&consumer, fill(prose::EMPTY_VALUE), fill(prose::EMPTY_PROVENANCE)),
        ];
        let message = fill(prose::MESSAGE);
        ContextError {
            kind: KIND,
            seam: Seam::Write,
            subjects: vec![consumer, producer],
            predicate: Some(predicate),
            witnesses: witnesses.into(),
            epoch,
            advisory: true,
            message,
        }
    }
}

#[cfg(test)]
mod tests;
