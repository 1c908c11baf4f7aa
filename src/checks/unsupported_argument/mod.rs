//! The choice seam: `unsupported-argument`.
//!
//! Second turn of a triage conversation. The window had dropped the user's
//! message with the real machine id but kept the assistant's first answer,
//! which named a nightly job `bkp-4417-ganymede-tier2`. Asked about "that
//! machine", the model took `4417-ganymede` out of its own prose, called the
//! backup tool with it, got an honest "no record", and reported a protected
//! machine as unprotected. Every value in the answer had come from a tool;
//! what was wrong was the argument.
//!
//! So: what the run served (system prompt, user messages, tool results) is
//! ground; what the model wrote itself is not. Each string argument of an
//! armed call, trimmed and at least four units long, is looked for, lower-
//! cased, in the frame the model chose from:
//!
//! | where the value is | outcome |
//! | --- | --- |
//! | equal to one of the tool's declared `enum` values (lowered) | passes |
//! | inside some served text | passes |
//! | inside an external ground the application vouches for | excused, the source recorded |
//! | only inside the model's own earlier turns | finding, *self-referenced* |
//! | nowhere | finding, *nowhere* |
//!
//! The rules are agentfootprint's; `UNSUPPORTED_ARGUMENT.md` states them.
//! What the check cannot know: a value made of two served values
//! (`host1,host2`) files; any served text containing the value grounds it,
//! even an unrelated one; the enum fence is flat across a tool's fields;
//! only strings are judged. Nothing is blocked or retried.

use crate::checks::finding::{fill, Assertion, ContextError, Disposition, Seam, SubjectRef};
use crate::checks::text::ground::{first_holders, GroundText, Lowered, Needle, Quote, Texts};
use crate::checks::text::js_string::{to_lower, units};
use crate::checks::walk::{walk_string_leaves, ArgsTree};

/// The kind every finding of this check carries.
pub const KIND: &str = "unsupported-argument";

/// One call the model chose, with what arms it.
pub struct Choice<V> {
    pub tool_name: Vec<u16>,
    pub tool_call_id: Vec<u16>,
    pub args: V,
    /// The tools whose results were meant to ground the arguments; only the
    /// message names them.
    pub arguments_from: Vec<Vec<u16>>,
    /// The values the tool's schema declares in an `enum`, as given (the
    /// check lowers them).
    pub declared_enums: Vec<Vec<u16>>,
}

/// A value the application vouches for, with its label. Build one with
/// [`ExternalGround::usable`], which keeps only what can excuse anything.
pub struct ExternalGround {
    lowered: Lowered,
    source: Vec<u16>,
}

impl ExternalGround {
    /// The ground, when both halves are usable: a value and a source whose
    /// trimmed forms are not empty. `source` is asked for only once the
    /// value is usable (`None` for a source that is not a string), as
    /// agentfootprint reads an entry. The value is matched lowered,
    /// untrimmed; the source is kept exactly as given.
    pub fn usable<E>(
        value: &[u16],
        source: impl FnOnce() -> Result<Option<Vec<u16>>, E>,
    ) -> Result<Option<Self>, E> {
        let blank = |text: &[u16]| crate::checks::text::js_string::trim(text).is_empty();
        if blank(value) {
            return Ok(None);
        }
        Ok(source()?
            .filter(|source| !blank(source))
            .map(|source| ExternalGround { lowered: Lowered::of_units(value), source }))
    }
}

/// The external grounds as texts to search, in order.
struct ExternalTexts<'a>(&'a [ExternalGround]);

impl<E> Texts<E> for ExternalTexts<'_> {
    fn scan(&mut self, visit: &mut dyn FnMut(usize, GroundText<'_>) -> bool) -> Result<(), E> {
        for (index, ground) in self.0.iter().enumerate() {
            if !visit(index, ground.lowered.as_ground()) {
                break;
            }
        }
        Ok(())
    }
}

/// One argument an external ground excused: the audit trail of what the
/// application asserted.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalGrounding {
    pub tool_name: Vec<u16>,
    pub tool_call_id: Vec<u16>,
    /// The leaf's dot-path.
    pub path: Vec<u16>,
    /// The leaf, untrimmed.
    pub value: Vec<u16>,
    /// The matching entry's source, as given.
    pub source: Vec<u16>,
}

/// What the check found: the findings and the excusals, each in call order
/// and then leaf order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct UnsupportedArguments {
    pub findings: Vec<ContextError>,
    pub external_groundings: Vec<ExternalGrounding>,
    /// The tool call id each finding is about, one per finding, in order:
    /// a guard routes a finding to its call without reading its prose.
    pub finding_calls: Vec<Vec<u16>>,
}

/// The frame a response was chosen from: what the run served, what the
/// model wrote, and how many texts of each the frame holds (the second
/// witness reports both counts). `RunCorpus::choice_frame` builds it, for a
/// response judged on a run corpus and for one judged on its own alike.
pub struct Frame<S, A> {
    pub served: S,
    pub served_count: usize,
    pub assistant: A,
    pub assistant_count: usize,
    pub external: Vec<ExternalGround>,
}

/// The words of a finding, as templates with one owner.
pub mod prose {
    /// Witness 2's value when the model's own text holds the value: data,
    /// fixed by the specification.
    pub const SELF_REFERENCED: &str =
        "served by nothing \u{2014} present only in the model\u{2019}s own earlier answer";
    /// Witness 2's value when nothing in the frame holds it: data, fixed.
    pub const NOWHERE: &str = "served by nothing in the window the model saw";
    /// Witness 1's provenance.
    pub const CHOSEN_PROVENANCE: &str = "argument '{path}' of tool call {call}, as the model chose it";
    /// Witness 2's provenance: the frame that was searched.
    pub const FRAME_PROVENANCE: &str =
        "looked for in the frame the call was chosen from: {served} served string(s) \
(system prompt, user messages, tool results) and {assistant} assistant turn(s)";
    /// The message when the model's own text holds the value.
    pub const SELF_REFERENCED_MESSAGE: &str = "'{tool}' was called with {path} = \"{quoted}\". In the frame the model \
chose from, that value occurs only in the model's own earlier answer, and text the model wrote is a rendering, not \
evidence: a value lifted from it can be a piece of some other name. {fix} Nothing here blocked the call.";
    /// The message when nothing in the frame holds the value.
    pub const NOWHERE_MESSAGE: &str = "'{tool}' was called with {path} = \"{quoted}\". That value occurs nowhere in \
the frame the model chose from: not in the instructions, not in any user message, not in any tool result, not even \
in the model's own earlier turns, so nothing this run served says what it names. {fix} Nothing here blocked the call.";
    /// The fix, when the call declares where its arguments come from.
    pub const REFETCH: &str = "To ground it, call {grounds} again and use a value it returns.";
    /// The fix, when it declares nothing.
    pub const REREAD: &str = "To ground it, read the value again from the tool that serves it.";
}

/// One judged leaf, between the walk and the search.
struct Leaf {
    call: usize,
    path: Vec<u16>,
    units: Vec<u16>,
    needle: Needle,
}

/// `unsupportedArgumentsOf`: judges every string leaf of each call, read in
/// turn with `read_call(tree, index)`, against `frame`.
///
/// No call means nothing is read, not even the frame (`frame` is then
/// never called). Otherwise the frame is asked for once, then each call is
/// read and its arguments walked, in order: that is the part a JavaScript
/// caller can observe. The searches come after, each text of the frame read
/// at most once, and only while some needle is still unplaced.
pub fn unsupported_arguments_of<T, S, A>(
    tree: &mut T,
    calls: usize,
    frame: impl FnOnce(&mut T) -> Result<Frame<S, A>, T::Error>,
    mut read_call: impl FnMut(&mut T, usize) -> Result<Choice<T::Value>, T::Error>,
    epoch: f64,
) -> Result<UnsupportedArguments, T::Error>
where
    T: ArgsTree,
    S: Texts<T::Error>,
    A: Texts<T::Error>,
{
    if calls == 0 {
        return Ok(UnsupportedArguments::default());
    }
    let mut frame = frame(tree)?;
    let mut choices = Vec::with_capacity(calls);
    let mut leaves = Vec::new();
    for index in 0..calls {
        let choice = read_call(tree, index)?;
        let declared: Vec<Vec<u16>> =
            choice.declared_enums.iter().map(|value| to_lower(value).into_owned()).collect();
        walk_string_leaves(tree, choice.args.clone(), |path, _, leaf| {
            let Some(needle) = Needle::of_leaf(&leaf) else { return };
            if declared.iter().any(|value| value[..] == needle.units()[..]) {
                return;
            }
            leaves.push(Leaf { call: index, path: path.dotted(), units: leaf, needle });
        })?;
        choices.push(choice);
    }

    let needles: Vec<&Needle> = leaves.iter().map(|leaf| &leaf.needle).collect();
    let outcome = verdicts(&needles, &mut frame)?;

    let (served_count, assistant_count) =
        (units(&frame.served_count.to_string()), units(&frame.assistant_count.to_string()));
    let frame_provenance = fill(prose::FRAME_PROVENANCE, |slot| match slot {
        "served" => &served_count,
        "assistant" => &assistant_count,
        other => unreachable!("no slot {other}"),
    });
    let fixes: Vec<Vec<u16>> = choices.iter().map(|choice| fix(&choice.arguments_from)).collect();
    let mut answer = UnsupportedArguments::default();
    for (leaf, verdict) in leaves.into_iter().zip(outcome) {
        let choice = &choices[leaf.call];
        match verdict {
            None => {}
            Some(Verdict::Excused(by)) => answer.external_groundings.push(ExternalGrounding {
                tool_name: choice.tool_name.clone(),
                tool_call_id: choice.tool_call_id.clone(),
                path: leaf.path,
                value: leaf.units,
                source: frame.external[by].source.clone(),
            }),
            Some(verdict) => {
                answer.finding_calls.push(choice.tool_call_id.clone());
                answer.findings.push(finding(
                    choice,
                    &fixes[leaf.call],
                    leaf,
                    matches!(verdict, Verdict::SelfReferenced),
                    &frame_provenance,
                    epoch,
                ));
            }
        }
    }
    Ok(answer)
}

/// The ledger row a response with `calls` armed calls earns: none is
/// `not-applicable`; any finding `checked-fail`; otherwise, excusals
/// included, `checked-pass` (a real comparison happened).
pub fn disposition(calls: usize, answer: &UnsupportedArguments) -> Disposition {
    if calls == 0 {
        Disposition::NotApplicable
    } else {
        Disposition::of_findings(answer.findings.len())
    }
}

/// Where each needle was found: served text first (`None`: it passes); what
/// that leaves goes to the external grounds, in order, then to the model's
/// own turns. Each set of texts is scanned once, for the needles still
/// unplaced.
fn verdicts<E, S: Texts<E>, A: Texts<E>>(
    needles: &[&Needle],
    frame: &mut Frame<S, A>,
) -> Result<Vec<Option<Verdict>>, E> {
    let served = first_holders(needles, &mut frame.served)?;
    let left: Vec<usize> = (0..needles.len()).filter(|&i| served[i].is_none()).collect();
    let pick = |from: &[usize]| from.iter().map(|&i| needles[i]).collect::<Vec<_>>();
    let excused = first_holders(&pick(&left), &mut ExternalTexts(&frame.external))?;
    let unexcused: Vec<usize> =
        left.iter().zip(&excused).filter(|(_, by)| by.is_none()).map(|(&i, _)| i).collect();
    let written = first_holders(&pick(&unexcused), &mut frame.assistant)?;

    let mut outcome: Vec<Option<Verdict>> = vec![None; needles.len()];
    for (&i, by) in left.iter().zip(&excused) {
        outcome[i] = by.map(Verdict::Excused);
    }
    for (&i, in_own_text) in unexcused.iter().zip(&written) {
        outcome[i] = Some(if in_own_text.is_some() { Verdict::SelfReferenced } else { Verdict::Nowhere });
    }
    Ok(outcome)
}

/// How a leaf that reached the search came out.
#[derive(Clone, Copy)]
enum Verdict {
    /// The external ground at this index holds it.
    Excused(usize),
    /// Only the model's own turns hold it.
    SelfReferenced,
    /// Nothing holds it.
    Nowhere,
}

/// The sentence that says how to ground a value of a call declaring
/// `arguments_from`: call every declared tool again, by name.
fn fix(arguments_from: &[Vec<u16>]) -> Vec<u16> {
    if arguments_from.is_empty() {
        return units(prose::REREAD);
    }
    let mut grounds = Vec::new();
    for (i, name) in arguments_from.iter().enumerate() {
        if i > 0 {
            grounds.extend(units(" or "));
        }
        grounds.extend_from_slice(name);
    }
    fill(prose::REFETCH, |_| &grounds)
}

fn finding<V>(
    choice: &Choice<V>,
    fix: &[u16],
    leaf: Leaf,
    self_referenced: bool,
    frame_provenance: &[u16],
    epoch: f64,
) -> ContextError {
    let quoted = Quote::of_leaf(&leaf.units).text(&leaf.units);
    let fill = |template: &str| {
        fill(template, |slot| match slot {
            "tool" => &choice.tool_name,
            "call" => &choice.tool_call_id,
            "path" => &leaf.path,
            "quoted" => &quoted,
            "fix" => fix,
            other => unreachable!("no slot {other}"),
        })
    };
    let subject = SubjectRef::tool(&choice.tool_name);
    let witness = |value: Vec<u16>, provenance: Vec<u16>| Assertion {
        subject: subject.clone(),
        predicate: leaf.path.clone(),
        value: value.into(),
        epoch,
        provenance,
    };
    let (state, message) = if self_referenced {
        (prose::SELF_REFERENCED, prose::SELF_REFERENCED_MESSAGE)
    } else {
        (prose::NOWHERE, prose::NOWHERE_MESSAGE)
    };
    let witnesses = vec![
        witness(leaf.units.clone(), fill(prose::CHOSEN_PROVENANCE)),
        witness(units(state), frame_provenance.to_vec()),
    ];
    let message = fill(message);
    ContextError {
        kind: KIND,
        seam: Seam::Choice,
        subjects: vec![subject.clone()],
        predicate: Some(leaf.path),
        witnesses,
        epoch,
        advisory: false,
        message,
    }
}

#[cfg(test)]
mod tests;
