//! `unsupportedArgumentsOf`, with agentfootprint's typings, and the readers
//! `RunCorpus.unsupportedArgumentsOf` shares with it.
//!
//! The calls and the frame are read by hand, as empty-lookup's call is: the
//! arguments are walked live, every field of the wrong type is a
//! `TypeError` naming it, and a frame text is read and lowered only when
//! the search reaches it.

use super::findings::findings_to_js;
use super::live::{LiveArgs, LiveString};
use super::read::{read_call_parts, read_epoch, string_list};
use crate::binding::napi::{Handle, IsArray, Js};
use crate::checks::corpus::RunCorpus;
use crate::checks::finding::Disposition;
use crate::checks::unsupported_argument::{self, Choice, ExternalGround as CoreExternal};
use napi::bindgen_prelude::Unknown;
use napi::{Env, JsValue, Result, ValueType};
use napi_derive::napi;

/// One tool call the model chose to make, with what arms it.
// Declared for the typings only: the calls are read by hand.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ArgumentChoice {
    #[napi(readonly)]
    pub tool_name: String,
    /// The provider's id for this call; the witnesses point at it.
    #[napi(readonly)]
    pub tool_call_id: String,
    #[napi(readonly, ts_type = "Readonly<Record<string, unknown>>")]
    pub args: (),
    /// The tools whose results were meant to ground these arguments; the
    /// message names them as the fix.
    #[napi(readonly, ts_type = "readonly string[]")]
    pub arguments_from: Vec<String>,
    /// The values the tool's input schema declares in an `enum`
    /// (`declaredEnumValuesOf`): a value equal to one of them, ignoring
    /// case, passes at any field of the tool.
    #[napi(readonly, ts_type = "ReadonlySet<string>")]
    pub declared_enums: Option<()>,
}

/// A value the application vouches for, though the run never served it,
/// with a short label of where it came from (`'viewer-selection'`).
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ExternalGround {
    #[napi(readonly)]
    pub value: String,
    #[napi(readonly)]
    pub source: String,
}

/// One argument an external ground excused, and the source that did.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ExternalGrounding {
    #[napi(readonly)]
    pub tool_name: String,
    #[napi(readonly)]
    pub tool_call_id: String,
    /// The dot-path of the argument.
    #[napi(readonly)]
    pub path: String,
    #[napi(readonly)]
    pub value: String,
    #[napi(readonly)]
    pub source: String,
}

/// The frame the model chose from: what the run served (system prompt,
/// user messages, tool results), what the model wrote itself, and what the
/// application vouches for.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ChoiceCorpus {
    #[napi(readonly, ts_type = "readonly string[]")]
    pub grounded: Vec<String>,
    #[napi(readonly, ts_type = "readonly string[]")]
    pub assistant: Vec<String>,
    #[napi(readonly, ts_type = "readonly ExternalGround[]")]
    pub external: Option<Vec<ExternalGround>>,
}

/// What the choice seam found: the findings and the excusals.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct UnsupportedArguments {
    #[napi(readonly, ts_type = "readonly ContextError[]")]
    pub findings: Vec<()>,
    #[napi(readonly, ts_type = "readonly ExternalGrounding[]")]
    pub external_groundings: Vec<ExternalGrounding>,
}

/// Checks every string argument of the armed calls of one model response
/// against the frame the model chose them from.
///
/// A value (trimmed, 4 UTF-16 units or more) passes when it equals one of
/// the call's `declaredEnums` or occurs, ignoring case, in a `grounded`
/// text; an `external` ground that holds it excuses it, recorded in
/// `externalGroundings`; otherwise it is a finding, which says whether the
/// value occurs only in the model's own `assistant` turns or nowhere.
///
/// @param calls the armed calls of one response (tools that declare
///   `argumentsFrom`); with none, `corpus` is not read.
/// @param corpus the request the response was chosen from, as windowed.
/// @param epoch the run iteration, stamped on every finding and witness.
#[napi(
    catch_unwind,
    ts_args_type = "calls: readonly ArgumentChoice[], corpus: ChoiceCorpus, epoch: number",
    ts_return_type = "UnsupportedArguments"
)]
pub fn unsupported_arguments_of<'env>(
    env: &'env Env,
    calls: Unknown,
    corpus: Unknown,
    epoch: Unknown,
) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let who = "unsupportedArgumentsOf";
    let (calls, corpus) = (calls.raw(), corpus.raw());
    let mut args = LiveArgs::new(js);
    let (count, epoch) = read_calls_and_epoch(js, who, &mut args.is_array, calls, epoch.raw())?;
    // A response judged on its own keeps nothing: every text of its frame
    // is given.
    let nothing_kept = RunCorpus::new();
    let answer = unsupported_argument::unsupported_arguments_of(
        &mut args,
        count,
        |args| {
            if js.type_of(corpus)? != ValueType::Object {
                return Err(js.wrong_type(&format!("{who}: corpus"), "a ChoiceCorpus object", corpus));
            }
            let is_array = &mut args.is_array;
            let served = live_strings(js, is_array, js.get(corpus, c"grounded")?, who, "corpus.grounded")?;
            let written = live_strings(js, is_array, js.get(corpus, c"assistant")?, who, "corpus.assistant")?;
            let external = usable_external(js, is_array, js.get(corpus, c"external")?)?;
            Ok(nothing_kept.choice_frame(served, written, external))
        },
        |args, i| read_choice(js, who, args, calls, i),
        epoch,
    )?;
    Ok(js.unknown(answer_to_js(js, &answer, None, false)?))
}

/// Checks `calls` (an array) and `epoch` (a number): how many calls, and
/// the epoch.
pub(super) fn read_calls_and_epoch(
    js: Js,
    who: &str,
    is_array: &mut IsArray,
    calls: Handle,
    epoch: Handle,
) -> Result<(usize, f64)> {
    if !is_array.test(calls)? {
        return Err(js.wrong_type(&format!("{who}: calls"), "an array of ArgumentChoice", calls));
    }
    Ok((is_array.len(calls)?, read_epoch(js, who, epoch)?))
}

/// `calls[i]`, read in agentfootprint's order: its name, id and arguments,
/// where they come from, then its declared enums.
pub(super) fn read_choice(
    js: Js,
    who: &str,
    args: &mut LiveArgs,
    calls: Handle,
    i: usize,
) -> Result<Choice<Handle>> {
    let name = format!("calls[{i}]");
    let call = js.element(calls, i as u32)?;
    if js.type_of(call)? != ValueType::Object {
        return Err(js.wrong_type(&format!("{who}: {name}"), "an ArgumentChoice object", call));
    }
    let parts = read_call_parts(js, who, &name, call, args)?;
    let declared = js.get(call, c"declaredEnums")?;
    let declared_enums = match js.type_of(declared)? {
        ValueType::Undefined | ValueType::Null => Vec::new(),
        _ => {
            let what = format!("{who}: {name}.declaredEnums");
            // agentfootprint spreads it, so any iterable of strings serves;
            // `Array.from` of something with no iterator would invent an
            // empty list, so that is refused first.
            let (_, iterator) = js.builtin(c"Symbol", c"iterator")?;
            let is_iterable = js.type_of(declared)? == ValueType::Object
                && js.type_of(js.property(declared, iterator)?)? == ValueType::Function;
            if !is_iterable {
                return Err(js.wrong_type(&what, "a Set of strings or undefined", declared));
            }
            let (array, from) = js.builtin(c"Array", c"from")?;
            let members = js.call(from, array, &[declared])?;
            string_list(js, &mut args.is_array, members, &what)?
        }
    };
    Ok(Choice {
        tool_name: parts.tool_name,
        tool_call_id: parts.tool_call_id,
        args: parts.args,
        arguments_from: parts.arguments_from,
        declared_enums,
    })
}

/// An array of strings, in order, each checked to be a string now and read
/// only when a search reaches it.
fn live_strings(
    js: Js,
    is_array: &mut IsArray,
    list: Handle,
    who: &str,
    what: &str,
) -> Result<Vec<LiveString>> {
    if !is_array.test(list)? {
        return Err(js.wrong_type(&format!("{who}: {what}"), "an array of strings", list));
    }
    let count = is_array.len(list)?;
    let mut strings = Vec::with_capacity(count);
    for i in 0..count {
        let text = js.element(list, i as u32)?;
        if js.type_of(text)? != ValueType::String {
            return Err(js.wrong_type(&format!("{who}: {what}[{i}]"), "a string", text));
        }
        strings.push(LiveString::new(js, text));
    }
    Ok(strings)
}

/// The usable entries of an `external` list, in order. Anything that is
/// not an array counts as absent, and an entry that cannot excuse anything
/// (not an object, or a `value` or `source` that is not a string with
/// something left after trimming) is passed over without a word: that is
/// the specification's hygiene, not a lenient reading of bad input.
pub(super) fn usable_external(js: Js, is_array: &mut IsArray, external: Handle) -> Result<Vec<CoreExternal>> {
    let mut usable = Vec::new();
    if !is_array.test(external)? {
        return Ok(usable);
    }
    for i in 0..is_array.len(external)? {
        let entry = js.element(external, i as u32)?;
        if js.type_of(entry)? != ValueType::Object {
            continue;
        }
        let value = js.get(entry, c"value")?;
        if js.type_of(value)? != ValueType::String {
            continue;
        }
        let source = || -> Result<Option<Vec<u16>>> {
            let source = js.get(entry, c"source")?;
            Ok(if js.type_of(source)? == ValueType::String { Some(js.utf16(source)?) } else { None })
        };
        if let Some(ground) = CoreExternal::usable(&js.utf16(value)?, source)? {
            usable.push(ground);
        }
    }
    Ok(usable)
}

/// `{ findings, externalGroundings }`, with `disposition` after them when
/// the corpus method answers, and `findingCalls` after that when asked.
pub(super) fn answer_to_js(
    js: Js,
    answer: &unsupported_argument::UnsupportedArguments,
    disposition: Option<Disposition>,
    with_calls: bool,
) -> Result<Handle> {
    let groundings = answer
        .external_groundings
        .iter()
        .map(|excused| {
            js.object(&[
                (c"toolName", js.string(&excused.tool_name)?),
                (c"toolCallId", js.string(&excused.tool_call_id)?),
                (c"path", js.string(&excused.path)?),
                (c"value", js.string(&excused.value)?),
                (c"source", js.string(&excused.source)?),
            ])
        })
        .collect::<Result<Vec<_>>>()?;
    let mut properties = vec![
        (c"findings", findings_to_js(js, &answer.findings)?),
        (c"externalGroundings", js.array(&groundings)?),
    ];
    if let Some(disposition) = disposition {
        properties.push((c"disposition", js.str(disposition.as_str())?));
    }
    if with_calls {
        let calls = answer.finding_calls.iter().map(|id| js.string(id)).collect::<Result<Vec<_>>>()?;
        properties.push((c"findingCalls", js.array(&calls)?));
    }
    js.object(&properties)
}
