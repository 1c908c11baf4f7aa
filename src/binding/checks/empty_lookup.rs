//! `readLookupResult` and `emptyLookupOf`, with agentfootprint's typings,
//! and the reading and encounter `RunCorpus.emptyLookupOf` shares with
//! them.
//!
//! The call is received as a raw JavaScript object and read by hand: its
//! `reading` key is required but may hold `undefined`, which no derived
//! conversion can express; every field of the wrong type is a `TypeError`
//! naming it; and its `args` are walked live (getters, Proxy traps and
//! cycles included) through [`LiveArgs`]. Each export reads its arguments
//! once, calls the core, and builds the answer once; nothing is kept
//! between calls.

use super::findings::{findings_to_js, ContextError, Disposition};
use super::live::{LiveArgs, LiveString};
use super::read::{read_call_parts, read_epoch, string_at};
use crate::binding::napi::{Handle, IsArray, Js};
use crate::checks::empty_lookup;
use crate::checks::text::ground::{is_declared_ground, Grounds};
use napi::bindgen_prelude::Unknown;
use napi::{Env, JsValue, Result, ValueType};
use napi_derive::napi;

/// The ceiling of the check, as one string with one owner: an empty result
/// can be perfectly true, so a finding is a place to look, never a verdict.
/// Every finding's message quotes it verbatim.
#[napi]
pub const EMPTY_LOOKUP_CEILING: &str = empty_lookup::EMPTY_LOOKUP_CEILING;

/// What could be read about a finished lookup's result.
// Declared for the typings; values are built in `to_js` in agentfootprint's property order.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct LookupResultReading {
    /// `'rowset'`: an array, counted. `'absence'`: the tool declared that
    /// its search ran and matched nothing.
    #[napi(readonly, ts_type = "'rowset' | 'absence'")]
    pub shape: String,
    #[napi(readonly)]
    pub empty: bool,
    /// Rows counted, for a rowset; absent for an absence.
    #[napi(readonly)]
    pub rows: Option<u32>,
}

/// One finished call to a tool whose author declared where its arguments
/// come from.
// Declared for the typings only: `emptyLookupOf` reads the call by hand.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct EmptyLookupCall {
    /// The consumer: the tool that was called and answered.
    #[napi(readonly)]
    pub tool_name: String,
    /// The provider's id for this call; the witnesses point at it.
    #[napi(readonly)]
    pub tool_call_id: String,
    #[napi(readonly, ts_type = "Readonly<Record<string, unknown>>")]
    pub args: (),
    /// The tools whose results were meant to ground these arguments.
    #[napi(readonly, ts_type = "readonly string[]")]
    pub arguments_from: Vec<String>,
    /// What could be read of the result; `undefined` for a shape the check
    /// cannot read.
    #[napi(readonly, ts_type = "LookupResultReading | undefined")]
    pub reading: (),
}

/// One earlier tool result this run served, with the tool that produced it.
// Declared for the typings only: `emptyLookupOf` reads each entry by hand.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ProducedResult {
    #[napi(readonly)]
    pub tool_name: String,
    /// The result exactly as the run served it into the conversation.
    #[napi(readonly)]
    pub text: String,
}

/// One encounter's outcome: the findings, and the disposition it earns.
// Declared for the typings; values are built in `to_js` in agentfootprint's property order.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct EmptyLookupEncounter {
    #[napi(readonly, ts_type = "readonly ContextError[]")]
    pub findings: Vec<ContextError>,
    #[napi(readonly)]
    pub disposition: Disposition,
}

/// Reads a finished result's shape, or declines to.
///
/// `declaredAbsence === true` gives `{ shape: 'absence', empty: true }`
/// whatever the value; an array (a Proxy of one included) gives a rowset
/// with its length counted; anything else gives `undefined`, which
/// `emptyLookupOf` files as `not-applicable`.
///
/// @param value the tool's own answer, as it returned it.
/// @param declaredAbsence whether the tool's answer is its declaration
///   that the search ran and matched nothing.
#[napi(
    catch_unwind,
    ts_args_type = "value: unknown, declaredAbsence: boolean",
    ts_return_type = "LookupResultReading | undefined"
)]
pub fn read_lookup_result<'env>(
    env: &'env Env,
    value: Unknown,
    declared_absence: Unknown,
) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let (value, declared_absence) = (value.raw(), declared_absence.raw());
    if js.type_of(declared_absence)? != ValueType::Boolean {
        return Err(js.wrong_type("readLookupResult: declaredAbsence", "a boolean", declared_absence));
    }
    let declared_absence = js.bool(declared_absence)?;
    let mut is_array = IsArray::new(js);
    let array_length = if declared_absence || !is_array.test(value)? {
        None
    } else if js.is_plain_array(value)? {
        Some(js.plain_array_len(value)?)
    } else {
        // A Proxy over an array: its `length` is whatever the trap returns.
        // agentfootprint reads it twice, `empty: length === 0` and then
        // `rows: length`, and passes the value through; so does this.
        let first = js.get(value, c"length")?;
        let empty = js.type_of(first)? == ValueType::Number && js.f64(first)? == 0.0;
        let rows = js.get(value, c"length")?;
        let shape = js.str(empty_lookup::Shape::Rowset.as_str())?;
        let reading = js.object(&[(c"shape", shape), (c"empty", js.boolean(empty)?), (c"rows", rows)])?;
        return Ok(js.unknown(reading));
    };
    let reading = match empty_lookup::read_lookup_result(declared_absence, array_length) {
        Some(reading) => reading_to_js(js, reading)?,
        None => js.undefined()?,
    };
    Ok(js.unknown(reading))
}

/// Judges one finished call to an armed tool.
///
/// @param call the call and what could be read of its result.
/// @param produced every tool result this run served before this call, with
///   the tool that produced each; filtered to the declared producers here.
/// @param epoch the run iteration, stamped on every finding and witness.
#[napi(
    catch_unwind,
    ts_args_type = "call: EmptyLookupCall, produced: readonly ProducedResult[], epoch: number",
    ts_return_type = "EmptyLookupEncounter"
)]
pub fn empty_lookup_of<'env>(
    env: &'env Env,
    call: Unknown,
    produced: Unknown,
    epoch: Unknown,
) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let (call, produced, epoch) = (call.raw(), produced.raw(), epoch.raw());
    let mut args = LiveArgs::new(js);
    let bad =
        |what: &str, must: &str, value: Handle| js.wrong_type(&format!("emptyLookupOf: {what}"), must, value);

    if js.type_of(call)? != ValueType::Object {
        return Err(bad("call", "an EmptyLookupCall object", call));
    }
    if !args.is_array.test(produced)? {
        return Err(bad("produced", "an array of { toolName, text }", produced));
    }
    let epoch = read_epoch(js, "emptyLookupOf", epoch)?;
    let reading = read_reading(js, "emptyLookupOf", call)?;

    let encounter = empty_lookup::empty_lookup_with(&mut args, reading, epoch, |args| {
        let parts = read_call_parts(js, "emptyLookupOf", "call", call, args)?;
        let mut grounds = Grounds::new();
        for i in 0..args.is_array.len(produced)? {
            let entry = js.element(produced, i as u32)?;
            if js.type_of(entry)? != ValueType::Object {
                return Err(bad(&format!("produced[{i}]"), "an object with toolName and text", entry));
            }
            let producer =
                string_at(js, entry, c"toolName", &|| format!("emptyLookupOf: produced[{i}].toolName"))?;
            let text = js.get(entry, c"text")?;
            if js.type_of(text)? != ValueType::String {
                return Err(bad(&format!("produced[{i}].text"), "a string", text));
            }
            // Only a declared ground's text is ever read, and only when the
            // search reaches it.
            if is_declared_ground(&parts.arguments_from, &producer, js.string_len(text)?) {
                grounds.push(i, producer, LiveString::new(js, text));
            }
        }
        Ok((parts, grounds))
    })?;
    Ok(js.unknown(encounter_to_js(js, &encounter)?))
}

/// `call.reading`: `undefined`, or an object with a boolean `empty` and a
/// known `shape`.
pub(super) fn read_reading(js: Js, who: &str, call: Handle) -> Result<Option<empty_lookup::Reading>> {
    let reading = js.get(call, c"reading")?;
    match js.type_of(reading)? {
        ValueType::Undefined => return Ok(None),
        ValueType::Object => {}
        _ => {
            return Err(js.wrong_type(
                &format!("{who}: call.reading"),
                "a LookupResultReading or undefined",
                reading,
            ))
        }
    }
    let empty = js.get(reading, c"empty")?;
    if js.type_of(empty)? != ValueType::Boolean {
        return Err(js.wrong_type(&format!("{who}: call.reading.empty"), "a boolean", empty));
    }
    let empty = js.bool(empty)?;
    let shape = js.get(reading, c"shape")?;
    let shape = match js.type_of(shape)? {
        ValueType::String => match String::from_utf16_lossy(&js.utf16(shape)?).as_str() {
            "rowset" => Some(empty_lookup::Shape::Rowset),
            "absence" => Some(empty_lookup::Shape::Absence),
            _ => None,
        },
        _ => None,
    };
    let Some(shape) = shape else {
        return Err(js.type_error(&format!("{who}: call.reading.shape must be 'rowset' or 'absence'")));
    };
    // The count is informative only; the check never reads it.
    Ok(Some(empty_lookup::Reading { shape, empty, rows: None }))
}

/// The reading as agentfootprint builds it: `{ shape, empty, rows }`, with
/// no `rows` key at all for an absence.
fn reading_to_js(js: Js, reading: empty_lookup::Reading) -> Result<Handle> {
    let shape = js.str(reading.shape.as_str())?;
    let empty = js.boolean(reading.empty)?;
    match reading.rows {
        Some(rows) => js.object(&[(c"shape", shape), (c"empty", empty), (c"rows", js.number(rows.into())?)]),
        None => js.object(&[(c"shape", shape), (c"empty", empty)]),
    }
}

/// The encounter with agentfootprint's keys in its order, so that
/// `JSON.stringify` of a result is the same on both sides.
pub(super) fn encounter_to_js(js: Js, encounter: &empty_lookup::Encounter) -> Result<Handle> {
    js.object(&[
        (c"findings", findings_to_js(js, &encounter.findings)?),
        (c"disposition", js.str(encounter.disposition.as_str())?),
    ])
}
