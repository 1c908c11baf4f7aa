//! `readLookupResult` and `emptyLookupOf`, with agentfootprint's typings.
//!
//! The call is received as a raw JavaScript object and read by hand: its
//! `reading` key is required but may hold `undefined`, which no derived
//! conversion can express, and its `args` are walked live (getters, Proxy
//! traps and cycles included) through [`LiveArgs`].

use super::js::{Builtin, Handle, IsArray, Js};
use crate::empty_lookup::{
    self as core,
    cache::GroundCache,
    corpus,
    ground::{is_declared_ground, GroundText, Grounding, Lowered},
    prose,
    walk::{ArgsTree, Node, MAX_WALKED_VALUES},
    CallParts, Join, Produced,
};
use napi::bindgen_prelude::{Object, Unknown, Utf16String};
use napi::{Env, JsValue, Result, ValueType};
use napi_derive::napi;
use std::ffi::CStr;
use std::rc::Rc;

/// The ceiling of the check, as one string with one owner: an empty result
/// can be perfectly true, so a finding is a place to look, never a verdict.
/// Every finding's message quotes it verbatim.
#[napi]
pub const EMPTY_LOOKUP_CEILING: &str = core::EMPTY_LOOKUP_CEILING;

/// The ledger row an encounter files.
#[napi(string_enum)]
pub enum Disposition {
    #[napi(value = "checked-pass")]
    CheckedPass,
    #[napi(value = "checked-fail")]
    CheckedFail,
    #[napi(value = "not-applicable")]
    NotApplicable,
    #[napi(value = "unreachable")]
    Unreachable,
}

/// The seam a finding was filed at; this check files at `write`.
#[napi(string_enum)]
pub enum IntegritySeam {
    #[napi(value = "write")]
    Write,
    #[napi(value = "compose")]
    Compose,
    #[napi(value = "wire")]
    Wire,
    #[napi(value = "choice")]
    Choice,
    #[napi(value = "claim")]
    Claim,
}

/// The kinds of finding in agentfootprint's family; this check files
/// `empty-lookup`.
#[napi(string_enum)]
pub enum ContextErrorKind {
    #[napi(value = "invariant-violation")]
    InvariantViolation,
    #[napi(value = "unsupported-argument")]
    UnsupportedArgument,
    #[napi(value = "dangling-reference")]
    DanglingReference,
    #[napi(value = "duplicate-execution")]
    DuplicateExecution,
    #[napi(value = "unsupported-claim")]
    UnsupportedClaim,
    #[napi(value = "empty-lookup")]
    EmptyLookup,
    #[napi(value = "column-type-mismatch")]
    ColumnTypeMismatch,
    #[napi(value = "missing-column")]
    MissingColumn,
    #[napi(value = "prior-turn-evidence")]
    PriorTurnEvidence,
}

/// How a witness knows what it says: `asserted` first-hand, `quoted` from
/// someone else.
#[napi(string_enum)]
pub enum AssertionStratum {
    #[napi(value = "asserted")]
    Asserted,
    #[napi(value = "quoted")]
    Quoted,
}

/// What a finding is about.
// Declared for the typings; values are built in `to_js` in agentfootprint's property order.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct SubjectRef {
    #[napi(readonly)]
    pub kind: String,
    #[napi(readonly)]
    pub id: Utf16String,
}

/// One witness of a finding.
// Declared for the typings; values are built in `to_js` in agentfootprint's property order.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct Assertion {
    #[napi(readonly)]
    pub subject: SubjectRef,
    #[napi(readonly)]
    pub predicate: Utf16String,
    #[napi(readonly, ts_type = "unknown")]
    pub value: Utf16String,
    #[napi(readonly)]
    pub epoch: Option<f64>,
    #[napi(readonly)]
    pub stratum: AssertionStratum,
    #[napi(readonly)]
    pub provenance: Utf16String,
    #[napi(readonly)]
    pub runtime_stage_id: Option<String>,
    #[napi(readonly, ts_type = "true")]
    pub synthetic: Option<bool>,
}

/// One finding. `empty-lookup` findings are always advisory: doubt, never
/// contradiction.
// Declared for the typings; values are built in `to_js` in agentfootprint's property order.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ContextError {
    #[napi(readonly)]
    pub kind: ContextErrorKind,
    #[napi(readonly)]
    pub seam: IntegritySeam,
    #[napi(readonly, ts_type = "readonly SubjectRef[]")]
    pub subjects: Vec<SubjectRef>,
    #[napi(readonly)]
    pub predicate: Option<Utf16String>,
    #[napi(readonly, ts_type = "readonly Assertion[]")]
    pub witnesses: Vec<Assertion>,
    #[napi(readonly)]
    pub epoch: Option<f64>,
    #[napi(readonly, ts_type = "true")]
    pub synthetic: Option<bool>,
    #[napi(readonly, ts_type = "true")]
    pub advisory: Option<bool>,
    #[napi(readonly)]
    pub message: Utf16String,
}

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
        let shape = js.str(core::Shape::Rowset.as_str())?;
        let reading = js.object(&[(c"shape", shape), (c"empty", js.boolean(empty)?), (c"rows", rows)])?;
        return Ok(js.unknown(reading));
    };
    let reading = match core::read_lookup_result(declared_absence, array_length) {
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
    if js.type_of(epoch)? != ValueType::Number {
        return Err(bad("epoch", "a number", epoch));
    }
    let epoch = js.f64(epoch)?;
    let reading = read_reading(js, "emptyLookupOf", call)?;

    let encounter = core::empty_lookup_of(&mut args, reading, epoch, |args| {
        let parts = read_call_parts(js, "emptyLookupOf", call, args)?;
        let mut results = Vec::new();
        for i in 0..args.is_array.len(produced)? {
            let entry = js.element(produced, i as u32)?;
            if js.type_of(entry)? != ValueType::Object {
                return Err(bad(&format!("produced[{i}]"), "an object with toolName and text", entry));
            }
            results.push(Produced {
                tool_name: string_at(js, entry, c"toolName", &|| {
                    format!("emptyLookupOf: produced[{i}].toolName")
                })?,
                text: string_at(js, entry, c"text", &|| format!("emptyLookupOf: produced[{i}].text"))?,
            });
        }
        Ok((parts, results))
    })?;
    Ok(js.unknown(encounter_to_js(js, &encounter)?))
}

/// `owner.name`, which must be a string; `what` names it in the error.
fn string_at(js: Js, owner: Handle, name: &CStr, what: &dyn Fn() -> String) -> Result<Vec<u16>> {
    let value = js.get(owner, name)?;
    if js.type_of(value)? != ValueType::String {
        return Err(js.wrong_type(&what(), "a string", value));
    }
    js.utf16(value)
}

/// Reads and checks the parts of `call` past its reading, in the order
/// agentfootprint reads them; `who` names the caller in errors.
fn read_call_parts(js: Js, who: &str, call: Handle, args: &mut LiveArgs) -> Result<CallParts<Handle>> {
    let bad = |what: &str, must: &str, value: Handle| js.wrong_type(&format!("{who}: {what}"), must, value);
    let tool_name = string_at(js, call, c"toolName", &|| format!("{who}: call.toolName"))?;
    let tool_call_id = string_at(js, call, c"toolCallId", &|| format!("{who}: call.toolCallId"))?;
    let call_args = js.get(call, c"args")?;
    if js.type_of(call_args)? != ValueType::Object {
        return Err(bad("call.args", "an object", call_args));
    }
    let from = js.get(call, c"argumentsFrom")?;
    if !args.is_array.test(from)? {
        return Err(bad("call.argumentsFrom", "an array of tool names", from));
    }
    let mut arguments_from = Vec::new();
    for i in 0..args.is_array.len(from)? {
        let name = js.element(from, i as u32)?;
        if js.type_of(name)? != ValueType::String {
            return Err(bad(&format!("call.argumentsFrom[{i}]"), "a string", name));
        }
        arguments_from.push(js.utf16(name)?);
    }
    Ok(CallParts { tool_name, tool_call_id, args: call_args, arguments_from })
}

/// `call.reading`: `undefined`, or an object with a boolean `empty` and a
/// known `shape`.
fn read_reading(js: Js, who: &str, call: Handle) -> Result<Option<core::Reading>> {
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
            "rowset" => Some(core::Shape::Rowset),
            "absence" => Some(core::Shape::Absence),
            _ => None,
        },
        _ => None,
    };
    let Some(shape) = shape else {
        return Err(js.type_error(&format!("{who}: call.reading.shape must be 'rowset' or 'absence'")));
    };
    // The count is informative only; the check never reads it.
    Ok(Some(core::Reading { shape, empty, rows: None }))
}

/// The reading as agentfootprint builds it: `{ shape, empty, rows }`, with
/// no `rows` key at all for an absence.
fn reading_to_js(js: Js, reading: core::Reading) -> Result<Handle> {
    let shape = js.str(reading.shape.as_str())?;
    let empty = js.boolean(reading.empty)?;
    match reading.rows {
        Some(rows) => js.object(&[(c"shape", shape), (c"empty", empty), (c"rows", js.number(rows.into())?)]),
        None => js.object(&[(c"shape", shape), (c"empty", empty)]),
    }
}

/// The encounter with each object's keys in agentfootprint's order, so that
/// `JSON.stringify` of a result is the same on both sides.
fn encounter_to_js(js: Js, encounter: &core::Encounter) -> Result<Handle> {
    let subject = |subject: &core::SubjectRef| -> Result<Handle> {
        js.object(&[(c"kind", js.str(subject.kind)?), (c"id", js.string(&subject.id)?)])
    };
    let mut findings = Vec::with_capacity(encounter.findings.len());
    for finding in &encounter.findings {
        let epoch = js.number(finding.epoch)?;
        let mut witnesses = Vec::with_capacity(finding.witnesses.len());
        for witness in &finding.witnesses {
            witnesses.push(js.object(&[
                (c"subject", subject(&witness.subject)?),
                (c"predicate", js.string(&witness.predicate)?),
                (c"value", js.string(&witness.value)?),
                (c"epoch", js.number(witness.epoch)?),
                (c"stratum", js.str(core::Finding::STRATUM)?),
                (c"provenance", js.string(&witness.provenance)?),
            ])?);
        }
        let subjects = [subject(&finding.subjects[0])?, subject(&finding.subjects[1])?];
        findings.push(js.object(&[
            (c"kind", js.str(core::Finding::KIND)?),
            (c"seam", js.str(core::Finding::SEAM)?),
            (c"subjects", js.array(&subjects)?),
            (c"predicate", js.string(&finding.predicate)?),
            (c"witnesses", js.array(&witnesses)?),
            (c"epoch", epoch),
            (c"advisory", js.boolean(true)?),
            (c"message", js.string(&finding.message)?),
        ])?);
    }
    js.object(&[
        (c"findings", js.array(&findings)?),
        (c"disposition", js.str(encounter.disposition.as_str())?),
    ])
}

// ---- The fast path's native half ---------------------------------------------
//
// `lib/index.cjs` answers the cases the reading decides on its own, reads the
// call's fields and the produced list in JavaScript (where a property read
// costs nanoseconds, not a boundary crossing), and builds the result objects
// there from the compact answer below, with the prose templates of
// `core::prose`. What is decided stays here: which results are grounds, the
// leaf walk, the fence, and which leaf is grounded by which result. These
// entries are left out of the typings; the package entry does not export
// them.

/// The templates and fixed phrases a JavaScript layer needs to build the
/// same findings as [`encounter_to_js`]: `{ templates, emptyRowset,
/// emptyAbsence, ceiling, ellipsis }`.
#[napi(skip_typescript, catch_unwind, js_name = "emptyLookupProse")]
pub fn empty_lookup_prose<'env>(env: &'env Env) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let mut templates = Vec::new();
    for (name, template) in prose::TEMPLATES {
        templates.push(js.array(&[js.str(name)?, js.str(template)?])?);
    }
    let prose = js.object(&[
        (c"templates", js.array(&templates)?),
        (c"emptyRowset", js.str(core::Shape::Rowset.empty_phrase())?),
        (c"emptyAbsence", js.str(core::Shape::Absence.empty_phrase())?),
        (c"ceiling", js.str(core::EMPTY_LOOKUP_CEILING)?),
        (c"ellipsis", js.str("\u{2026}")?),
    ])?;
    Ok(js.unknown(prose))
}

/// Width of one join in the compact answer: `path, leaf, producer, quote`.
const JOIN_WIDTH: usize = 4;

/// The joins as one flat array, [`JOIN_WIDTH`] slots each; `leaf` is the
/// argument's own string, handed back untouched. `quote` packs the quote
/// into one number, `start * 256 + (end - start) * 2 + clipped`: a quote is
/// at most `MAX_QUOTED_UNITS` (80) units long and a string's length fits in
/// 30 bits, so the number is an exact integer.
fn joins_to_js(js: Js, joins: &[Join<Handle>], producer: impl Fn(usize) -> Result<Handle>) -> Result<Handle> {
    let mut flat = Vec::with_capacity(joins.len() * JOIN_WIDTH);
    for join in joins {
        flat.extend([
            js.string(&join.path)?,
            join.leaf,
            producer(join.ground)?,
            js.number(packed_quote(&join.quote))?,
        ]);
    }
    js.array(&flat)
}

/// A quote as one number (see [`joins_to_js`]).
fn packed_quote(quote: &core::ground::Quote) -> f64 {
    const _: () = assert!(core::MAX_QUOTED_UNITS < 128);
    quote.start as f64 * 256.0 + ((quote.end - quote.start) * 2 + usize::from(quote.clipped)) as f64
}

/// The strings of a genuine array the JavaScript layer built.
fn string_list(js: Js, list: Handle, what: &str) -> Result<Vec<Handle>> {
    if !js.is_plain_array(list)? {
        return Err(js.wrong_type(what, "an array of strings", list));
    }
    let mut strings = Vec::new();
    for i in 0..js.plain_array_len(list)? {
        let string = js.element(list, i)?;
        if js.type_of(string)? != ValueType::String {
            return Err(js.wrong_type(what, "an array of strings", list));
        }
        strings.push(string);
    }
    Ok(strings)
}

/// The units of each string of such an array: the declared tool names.
fn tool_names(js: Js, list: Handle, what: &str) -> Result<Vec<Vec<u16>>> {
    string_list(js, list, what)?.into_iter().map(|name| js.utf16(name)).collect()
}

/// Installs the variadic entry, which napi-rs's `#[napi]` functions cannot
/// express.
#[napi(module_exports)]
pub fn install_variadic(exports: Object, env: Env) -> Result<()> {
    let js = Js::new(&env);
    js.export_variadic(exports.raw(), c"emptyLookupJoins", empty_lookup_joins)?;
    js.export_variadic(exports.raw(), c"emptyLookupReachable", empty_lookup_reachable)?;
    js.export_variadic(exports.raw(), c"emptyLookupFast", empty_lookup_fast)
}

/// `emptyLookupJoins(args, fromCount, ...items)`: which string leaves of
/// `args` are grounded by which result, for a call whose reading is an empty
/// one.
///
/// `items` are the call's `fromCount` declared tool names, then three for
/// each result of `produced`, in order: its name, its text and a code, a
/// number `id * 2 + ascii`. `ascii` is 1 only when every unit of the text is
/// ASCII (see [`Js::lowered`]); `id`, when not 0, is the name the
/// JavaScript layer gives this text's string value, under which the env's
/// [`GroundCache`] keeps its lowered form between calls. They come spread as
/// arguments, so that all of them cross in one call, or for a long list as
/// one array.
///
/// Returns `null` when no declared producer served a non-empty result, else
/// the flat joins (`producer` is the result's name string).
unsafe extern "C" fn empty_lookup_joins(
    env: napi::sys::napi_env,
    info: napi::sys::napi_callback_info,
) -> Handle {
    unsafe { Js::run_variadic(env, info, joins_of_items) }
}

/// The largest id a code can carry exactly.
const MAX_ID: f64 = (1u64 << 52) as f64;

fn joins_of_items(js: Js, arguments: &[Handle]) -> Result<Handle> {
    let misuse = || js.type_error("emptyLookupJoins(args, fromCount, ...items): bad arguments");
    let [args, from_count, spread @ ..] = arguments else { return Err(misuse()) };
    let items = match spread {
        [list] if js.is_plain_array(*list)? => elements_of(js, *list)?,
        _ => spread.to_vec(),
    };
    if js.type_of(*from_count)? != ValueType::Number {
        return Err(misuse());
    }
    let from_count = js.f64(*from_count)?;
    if !(0.0..=items.len() as f64).contains(&from_count)
        || from_count.fract() != 0.0
        || (items.len() - from_count as usize) % 3 != 0
    {
        return Err(misuse());
    }
    let (from, results) = items.split_at(from_count as usize);
    let mut arguments_from = Vec::with_capacity(from.len());
    for &name in from {
        if js.type_of(name)? != ValueType::String {
            return Err(misuse());
        }
        arguments_from.push(js.utf16(name)?);
    }
    let mut grounds = LiveGrounds { js, grounds: Vec::new() };
    for (index, triple) in results.chunks_exact(3).enumerate() {
        let [name, text, code] = [triple[0], triple[1], triple[2]];
        if js.type_of(name)? != ValueType::String
            || js.type_of(text)? != ValueType::String
            || js.type_of(code)? != ValueType::Number
        {
            return Err(misuse());
        }
        let code = js.f64(code)?;
        if !(0.0..MAX_ID).contains(&code) || code.fract() != 0.0 {
            return Err(misuse());
        }
        let code = code as u64;
        let producer = js.utf16(name)?;
        let units = js.string_len(text)?;
        if is_declared_ground(&arguments_from, &producer, units) {
            grounds.grounds.push(LiveGround {
                index,
                producer: producer.into(),
                text,
                units,
                ascii: code & 1 == 1,
                id: code >> 1,
            });
        }
    }
    if Grounding::<napi::Error>::is_unreachable(&grounds) {
        return js.null();
    }
    let joins = core::joins(&mut LiveArgs::new(js), *args, &mut grounds)?;
    joins_to_js(js, &joins, |index| Ok(results[index * 3]))
}

// ---- The layer's fast path: numbers in a shared array ----------------------
//
// On a small call most of the time went to the boundary: about seventy
// napi calls to read the declared names, each result's name, text and code,
// one at a time, and a call back into JavaScript for the arguments' entries.
// The fast path takes the numbers from a `Float64Array` the layer fills
// (tool names by id, each text's cache code and length), takes the entries
// of the arguments' root as plain arguments (the layer reads them with
// `Object.entries`, once it knows the call is reachable, as the rules'
// walk would), and writes the joins back into the same array when every
// grounded leaf is an entry of the root.
//
// The slots, as the layer writes them:
//
//   spread, fromCount, fromId..., rootCount, resultCount, (nameId, code, units)...
//
// `rootCount` is how many `[key, value]` entries of the root there are, or
// -1 when the root is an array (walked here). With `spread` 1 the entries'
// keys and values follow `args` among the arguments, then one text per
// result; with `spread` 0 (too many to spread) two arrays follow instead,
// the entries flat and the texts.

/// The most tool names an env keeps by id.
const MAX_NAME_IDS: u32 = 4096;

/// The longest tool name kept by id, in UTF-16 units.
const MAX_NAME_UNITS: usize = 256;

/// `emptyLookupName(id, name)`: the layer names `name` by `id` for this
/// env's fast calls. An id already in use is given the new name (the layer
/// reuses ids once it has handed out [`MAX_NAME_IDS`]).
#[napi(skip_typescript, catch_unwind, js_name = "emptyLookupName")]
pub fn empty_lookup_name(env: &Env, id: u32, name: Unknown) -> Result<()> {
    let js = Js::new(env);
    if js.type_of(name.raw())? != ValueType::String {
        return Err(js.wrong_type("emptyLookupName: name", "a string", name.raw()));
    }
    let units = js.utf16(name.raw())?;
    if id >= MAX_NAME_IDS || units.len() > MAX_NAME_UNITS {
        return Err(js.range_error(&format!(
            "emptyLookupName: ids go below {MAX_NAME_IDS} and names up to {MAX_NAME_UNITS} units"
        )));
    }
    with_env_lookups(js, |state| {
        let id = id as usize;
        if state.names.len() <= id {
            state.names.resize(id + 1, Rc::from(&[][..]));
        }
        state.names[id] = units.into();
    })
}

/// The limits the layer keeps to: `[maxNameIds, maxNameUnits]`.
#[napi(skip_typescript, catch_unwind, js_name = "emptyLookupNameLimits")]
pub fn empty_lookup_name_limits() -> Vec<u32> {
    vec![MAX_NAME_IDS, MAX_NAME_UNITS as u32]
}

/// One result as the slots give it.
struct SlotResult {
    name: Rc<[u16]>,
    code: u64,
    units: usize,
}

/// A fast call's numbers, read from its slots.
struct SlotCall {
    /// Whether the entries and texts come spread as arguments.
    spread: bool,
    from: Vec<Rc<[u16]>>,
    /// How many root entries the arguments hold, when the layer read them.
    root: Option<usize>,
    results: Vec<SlotResult>,
}

impl SlotCall {
    /// Reads the slots; any number out of place is the layer's misuse.
    fn read(js: Js, slots: &[f64]) -> Result<Self> {
        let misuse = || js.type_error("emptyLookupFast: slots out of place");
        let mut at = 0;
        let mut next = |limit: f64| -> Result<f64> {
            let value = *slots.get(at).ok_or_else(misuse)?;
            at += 1;
            if value.fract() != 0.0 || !(-1.0..=limit).contains(&value) {
                return Err(misuse());
            }
            Ok(value)
        };
        with_env_lookups(js, |state| {
            let name = |id: f64| -> Result<Rc<[u16]>> {
                state.names.get(id as usize).filter(|_| id >= 0.0).cloned().ok_or_else(misuse)
            };
            let spread = next(1.0)? == 1.0;
            let from_count = next(slots.len() as f64)?;
            let mut from = Vec::with_capacity(from_count.max(0.0) as usize);
            for _ in 0..from_count.max(0.0) as usize {
                from.push(name(next(f64::from(MAX_NAME_IDS))?)?);
            }
            let root = next(u32::MAX as f64)?;
            let result_count = next(slots.len() as f64)?.max(0.0) as usize;
            let mut results = Vec::with_capacity(result_count);
            for _ in 0..result_count {
                let name = name(next(f64::from(MAX_NAME_IDS))?)?;
                let code = next(MAX_ID)?.max(0.0) as u64;
                let units = next(u32::MAX as f64)?.max(0.0) as usize;
                results.push(SlotResult { name, code, units });
            }
            Ok(SlotCall { spread, from, root: (root >= 0.0).then_some(root as usize), results })
        })?
    }

    fn is_reachable(&self) -> bool {
        self.results.iter().any(|result| is_declared_ground(&self.from, &result.name, result.units))
    }
}

/// The elements of a genuine array the layer built.
fn elements_of(js: Js, list: Handle) -> Result<Vec<Handle>> {
    if !js.is_plain_array(list)? {
        return Err(js.type_error("seamguard: the layer passes its lists as arrays"));
    }
    (0..js.plain_array_len(list)?).map(|i| js.element(list, i)).collect()
}

/// The slots of a fast call: its first argument, a `Float64Array`.
fn slots_of<'a>(js: Js, view: Handle) -> Result<&'a mut [f64]> {
    match js.float64_array(view)? {
        // SAFETY: the layer's own array, alive for this call; nothing in
        // the call detaches it (its buffer never reaches user code).
        Some((data, len)) => Ok(unsafe { std::slice::from_raw_parts_mut(data, len) }),
        None => Err(js.type_error("emptyLookupFast: slots must be a Float64Array")),
    }
}

/// `emptyLookupReachable(slots)`: whether any result the slots describe is
/// a ground of the call, so that the layer reads the arguments only when
/// the rules would walk them.
unsafe extern "C" fn empty_lookup_reachable(
    env: napi::sys::napi_env,
    info: napi::sys::napi_callback_info,
) -> Handle {
    unsafe {
        Js::run_variadic(env, info, |js, arguments| {
            let [view] = arguments else { return Err(js.type_error("emptyLookupReachable(slots)")) };
            let call = SlotCall::read(js, slots_of(js, *view)?)?;
            js.boolean(call.is_reachable())
        })
    }
}

/// `emptyLookupFast(slots, args, ...rootEntries, ...texts)`: the joins of
/// a reachable call. Answers `null` when no result is a ground after all; a
/// number `n` when every grounded leaf is an entry of the root, with the
/// joins written to the slots, three numbers each (the entry's index, the
/// result's index, the packed quote); else the flat joins, as
/// `emptyLookupJoins` gives them.
unsafe extern "C" fn empty_lookup_fast(
    env: napi::sys::napi_env,
    info: napi::sys::napi_callback_info,
) -> Handle {
    unsafe { Js::run_variadic(env, info, fast_joins) }
}

fn fast_joins(js: Js, arguments: &[Handle]) -> Result<Handle> {
    let misuse = || js.type_error("emptyLookupFast(slots, args, ...rootEntries, ...texts): bad arguments");
    let [view, args, rest @ ..] = arguments else { return Err(misuse()) };
    let slots = slots_of(js, *view)?;
    let call = SlotCall::read(js, slots)?;
    let root_items = call.root.map_or(0, |count| count * 2);
    let listed;
    let rest = match rest {
        _ if call.spread => rest,
        [flat, texts] => {
            let mut items = elements_of(js, *flat)?;
            items.extend(elements_of(js, *texts)?);
            listed = items;
            &listed[..]
        }
        _ => return Err(misuse()),
    };
    if rest.len() != root_items + call.results.len() {
        return Err(misuse());
    }
    let (root, texts) = rest.split_at(root_items);
    let mut live = LiveArgs::new(js);
    if call.root.is_some() {
        let mut entries = Vec::with_capacity(root.len() / 2);
        for pair in root.chunks_exact(2) {
            if js.type_of(pair[0])? != ValueType::String {
                return Err(misuse());
            }
            entries.push((js.utf16(pair[0])?, pair[1]));
        }
        live.root_entries = Some((*args, entries));
    }
    let mut grounds = LiveGrounds { js, grounds: Vec::new() };
    // The texts are not type-checked here: the layer passes strings, and
    // one that is not would fail to read with napi's own error.
    for (index, (result, &text)) in call.results.iter().zip(texts).enumerate() {
        if is_declared_ground(&call.from, &result.name, result.units) {
            grounds.grounds.push(LiveGround {
                index,
                producer: Rc::clone(&result.name),
                text,
                units: result.units,
                ascii: result.code & 1 == 1,
                id: result.code >> 1,
            });
        }
    }
    if Grounding::<napi::Error>::is_unreachable(&grounds) {
        return js.null();
    }
    let joins = core::joins(&mut live, *args, &mut grounds)?;
    // Every join an entry of the root, and room for them: the numbers.
    let entry_of = |join: &Join<Handle>| {
        (join.path_depth == 1).then(|| root.chunks_exact(2).position(|pair| pair[1] == join.leaf)).flatten()
    };
    let fits = joins.len() * 3 <= slots.len();
    if fits && call.root.is_some() && joins.iter().all(|join| entry_of(join).is_some()) {
        for (slot, join) in slots.chunks_exact_mut(3).zip(&joins) {
            slot[0] = entry_of(join).expect("checked above") as f64;
            slot[1] = join.ground as f64;
            slot[2] = packed_quote(&join.quote);
        }
        return js.number(joins.len() as f64);
    }
    joins_to_js(js, &joins, |index| js.string(&call.results[index].name))
}

/// `groundCacheBound(units)`: sets the bound of this env's [`GroundCache`]
/// when `units` is a non-negative number (dropping the oldest entries past
/// it), and returns the bound in force. For the JavaScript layer, which
/// bounds its own map of ids the same way, and for tests.
#[napi(skip_typescript, catch_unwind, js_name = "groundCacheBound")]
pub fn ground_cache_bound(env: &Env, units: Unknown) -> Result<f64> {
    let js = Js::new(env);
    let units = units.raw();
    let wanted = match js.type_of(units)? {
        ValueType::Number => Some(js.f64(units)?).filter(|units| *units >= 0.0),
        _ => None,
    };
    with_ground_cache(js, |cache| {
        if let Some(units) = wanted {
            cache.set_bound(units.min(usize::MAX as f64) as usize);
        }
        cache.bound() as f64
    })
}

thread_local! {
    /// The buffer a ground's text is read into, kept between calls so that
    /// a call does not fault in fresh pages for every large text.
    static GROUND_BUFFER: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };

    /// What each env keeps between calls for its JavaScript layer. An env
    /// lives on one thread; its entry is dropped by a cleanup hook when the
    /// env goes away.
    static ENV_LOOKUPS: std::cell::RefCell<Vec<(usize, EnvLookups)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// An env's state for its JavaScript layer's calls.
#[derive(Default)]
struct EnvLookups {
    /// Lowered grounds, by the ids the layer gives result texts.
    cache: GroundCache,
    /// Tool names, by the ids the layer gives them (see
    /// [`empty_lookup_name`]).
    names: Vec<Rc<[u16]>>,
}

unsafe extern "C" fn forget_env_lookups(env: *mut std::ffi::c_void) {
    ENV_LOOKUPS.with(|envs| envs.borrow_mut().retain(|(known, _)| *known != env as usize));
}

/// Runs `body` with this env's state, made on first use. Nothing in `body`
/// may run JavaScript (reading a string's contents does not).
fn with_env_lookups<R>(js: Js, body: impl FnOnce(&mut EnvLookups) -> R) -> Result<R> {
    let key = js.raw_env() as usize;
    ENV_LOOKUPS.with(|envs| {
        let mut envs = envs.borrow_mut();
        let at = match envs.iter().position(|(env, _)| *env == key) {
            Some(at) => at,
            None => {
                napi::check_status!(unsafe {
                    napi::sys::napi_add_env_cleanup_hook(
                        js.raw_env(),
                        Some(forget_env_lookups),
                        js.raw_env().cast(),
                    )
                })?;
                envs.push((key, EnvLookups::default()));
                envs.len() - 1
            }
        };
        Ok(body(&mut envs[at].1))
    })
}

/// Runs `body` with this env's ground cache (see [`with_env_lookups`]).
fn with_ground_cache<R>(js: Js, body: impl FnOnce(&mut GroundCache) -> R) -> Result<R> {
    with_env_lookups(js, |state| body(&mut state.cache))
}

/// Past this size the ground buffer is given back after a call rather than
/// kept for the next.
const KEEP_GROUND_BUFFER: usize = 4 << 20;

/// One declared ground of a call, as a live string.
struct LiveGround {
    /// Its index in `produced`.
    index: usize,
    producer: Rc<[u16]>,
    text: Handle,
    /// The text's length in UTF-16 units.
    units: usize,
    /// Whether every unit of the text is ASCII.
    ascii: bool,
    /// Its id in the env's cache, or 0.
    id: u64,
}

/// A call's declared grounds as live strings. A text with an id the cache
/// holds is not read at all; any other is read and lower-cased when the
/// scan reaches it, into the cache when it has an id and fits, else into
/// one reused buffer.
struct LiveGrounds {
    js: Js,
    grounds: Vec<LiveGround>,
}

impl Grounding<napi::Error> for LiveGrounds {
    fn is_unreachable(&self) -> bool {
        self.grounds.is_empty()
    }

    fn scan(&mut self, visit: &mut dyn FnMut(usize, GroundText<'_>) -> bool) -> Result<()> {
        let js = self.js;
        let grounds = &self.grounds;
        with_ground_cache(js, |cache| {
            let mut bytes = GROUND_BUFFER.with(std::cell::Cell::take);
            let mut scratch = Vec::new();
            let mut outcome = Ok(());
            for ground in grounds {
                if ground.id != 0 && cache.fits(ground.units) {
                    let lowered = match cache.touch(ground.id, ground.units) {
                        Some(lowered) => lowered,
                        None => match js.lowered(ground.text, ground.ascii, Vec::new(), &mut scratch) {
                            Ok((lowered, units)) => {
                                cache.insert(ground.id, lowered, units);
                                cache.get(ground.id).expect("a text that fits is kept")
                            }
                            Err(error) => {
                                outcome = Err(error);
                                break;
                            }
                        },
                    };
                    if !visit(ground.index, lowered.as_ground()) {
                        break;
                    }
                    continue;
                }
                let lowered = match js.lowered(ground.text, ground.ascii, bytes, &mut scratch) {
                    Ok((lowered, _)) => lowered,
                    Err(error) => {
                        outcome = Err(error);
                        bytes = Vec::new();
                        break;
                    }
                };
                let more = visit(ground.index, lowered.as_ground());
                bytes = match lowered {
                    Lowered::Ascii(kept) => kept,
                    Lowered::Wide(_) => Vec::new(),
                };
                if !more {
                    break;
                }
            }
            if bytes.capacity() <= KEEP_GROUND_BUFFER {
                GROUND_BUFFER.with(|kept| kept.set(bytes));
            }
            outcome
        })?
    }

    fn producer(&self, index: usize) -> &[u16] {
        let ground = self.grounds.iter().find(|ground| ground.index == index);
        &ground.expect("an index the scan showed").producer
    }
}

/// Every result a run has served so far, each read and lower-cased once, as
/// it is pushed. `corpus.emptyLookupOf(call, epoch)` judges a call exactly as
/// `emptyLookupOf(call, <every result pushed, in order>, epoch)` does,
/// without reading or lower-casing any earlier result again.
///
/// It keeps each result's text lower-cased (one byte per UTF-16 unit for
/// ASCII text, two otherwise) and each distinct tool name once; not the
/// original text.
#[napi]
pub struct ProducedCorpus {
    inner: corpus::ProducedCorpus,
}

#[napi]
impl ProducedCorpus {
    /// An empty corpus, for one run.
    #[napi(constructor, catch_unwind)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        ProducedCorpus { inner: corpus::ProducedCorpus::new() }
    }

    /// Appends a result as the run serves it. Throws a `TypeError` naming
    /// the field when `result` is not an object or its `toolName` or `text`
    /// is not a string.
    #[napi(catch_unwind, ts_args_type = "result: ProducedResult")]
    pub fn push(&mut self, env: &Env, result: Unknown) -> Result<()> {
        let js = Js::new(env);
        let result = result.raw();
        if js.type_of(result)? != ValueType::Object {
            return Err(js.wrong_type(
                "ProducedCorpus.push: result",
                "an object with toolName and text",
                result,
            ));
        }
        let tool_name =
            string_at(js, result, c"toolName", &|| "ProducedCorpus.push: result.toolName".into())?;
        let text = js.get(result, c"text")?;
        if js.type_of(text)? != ValueType::String {
            return Err(js.wrong_type("ProducedCorpus.push: result.text", "a string", text));
        }
        push_text(js, &mut self.inner, &tool_name, text)
    }

    /// Forgets every result pushed, so the corpus can serve another run, and
    /// frees the memory they took for the next pushes on this thread (up to
    /// 16 MiB is kept for reuse; see the README). A run's owner should call
    /// it when the run ends: until then, or until the corpus is garbage
    /// collected, its texts stay in memory.
    #[napi(catch_unwind)]
    pub fn clear(&mut self) {
        self.inner.clear();
    }

    /// How many results were pushed.
    #[napi(getter, catch_unwind)]
    pub fn length(&self) -> u32 {
        u32::try_from(self.inner.len()).unwrap_or(u32::MAX)
    }

    /// Judges one finished call to an armed tool against every result
    /// pushed so far, in push order: the same answer as `emptyLookupOf` with
    /// that list as `produced`.
    ///
    /// @param call the call and what could be read of its result.
    /// @param epoch the run iteration, stamped on every finding and witness.
    #[napi(
        catch_unwind,
        js_name = "emptyLookupOf",
        ts_args_type = "call: EmptyLookupCall, epoch: number",
        ts_return_type = "EmptyLookupEncounter"
    )]
    pub fn empty_lookup_of<'env>(
        &self,
        env: &'env Env,
        call: Unknown,
        epoch: Unknown,
    ) -> Result<Unknown<'env>> {
        let js = Js::new(env);
        let (call, epoch) = (call.raw(), epoch.raw());
        let who = "ProducedCorpus.emptyLookupOf";
        if js.type_of(call)? != ValueType::Object {
            return Err(js.wrong_type(&format!("{who}: call"), "an EmptyLookupCall object", call));
        }
        if js.type_of(epoch)? != ValueType::Number {
            return Err(js.wrong_type(&format!("{who}: epoch"), "a number", epoch));
        }
        let epoch = js.f64(epoch)?;
        let reading = read_reading(js, who, call)?;
        let encounter = core::empty_lookup_with(&mut LiveArgs::new(js), reading, epoch, |args| {
            let parts = read_call_parts(js, who, call, args)?;
            let grounds = self.inner.grounds(&parts.arguments_from);
            Ok((parts, grounds))
        })?;
        Ok(js.unknown(encounter_to_js(js, &encounter)?))
    }
}

/// `ProducedCorpus.push` for the JavaScript layer, which has checked the
/// fields.
#[napi(skip_typescript, catch_unwind, js_name = "corpusPush")]
pub fn corpus_push(env: &Env, corpus: &mut ProducedCorpus, tool_name: Unknown, text: Unknown) -> Result<()> {
    let js = Js::new(env);
    let [tool_name, text] = [tool_name.raw(), text.raw()];
    for value in [tool_name, text] {
        if js.type_of(value)? != ValueType::String {
            return Err(js.wrong_type("corpusPush: toolName and text", "strings", value));
        }
    }
    push_text(js, &mut corpus.inner, &js.utf16(tool_name)?, text)
}

/// Appends `text` to a corpus. It is read as UTF-16 units into a buffer this
/// thread keeps, and narrowed from there into the corpus's arena when every
/// unit is ASCII, so no caller has to say whether it is.
fn push_text(js: Js, corpus: &mut corpus::ProducedCorpus, tool_name: &[u16], text: Handle) -> Result<()> {
    with_unit_scratch(|units| {
        js.utf16_into(text, units)?;
        corpus.push_units(tool_name, units);
        Ok(())
    })
}

/// A scratch buffer of UTF-16 units larger than this is freed after use
/// rather than kept for the next text.
const KEPT_SCRATCH_UNITS: usize = 1 << 20;

thread_local! {
    /// The units of the text being read, kept between reads so that a read
    /// does not fault in fresh pages.
    static UNIT_SCRATCH: std::cell::Cell<Vec<u16>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Runs `body` with this thread's unit scratch (empty, or a fresh one when
/// the scratch is in use further up the stack).
fn with_unit_scratch<R>(body: impl FnOnce(&mut Vec<u16>) -> R) -> R {
    let mut units = UNIT_SCRATCH.take();
    let answer = body(&mut units);
    if units.capacity() <= KEPT_SCRATCH_UNITS {
        units.clear();
        UNIT_SCRATCH.set(units);
    }
    answer
}

/// The fast path's native half for a corpus: like [`empty_lookup_joins`],
/// with the corpus as the produced list (`producer` is the tool's name).
#[napi(skip_typescript, catch_unwind, js_name = "corpusJoins")]
pub fn corpus_joins<'env>(
    env: &'env Env,
    corpus: &ProducedCorpus,
    args: Unknown,
    arguments_from: Unknown,
) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let arguments_from = tool_names(js, arguments_from.raw(), "corpusJoins: argumentsFrom")?;
    let mut grounds = corpus.inner.grounds(&arguments_from);
    if Grounding::<napi::Error>::is_unreachable(&grounds) {
        return Ok(js.unknown(js.null()?));
    }
    let joins = core::joins(&mut LiveArgs::new(js), args.raw(), &mut grounds)?;
    Ok(js.unknown(joins_to_js(js, &joins, |index| {
        js.string(Grounding::<napi::Error>::producer(&grounds, index))
    })?))
}

/// Past this depth the containers on the current path are tracked in a JS
/// `Set` instead of by comparing against each one in turn.
const LINEAR_PATH_LIMIT: usize = 32;

/// A record's `Object.entries`: keys in UTF-16, values as handles.
type Entries = Vec<(Vec<u16>, Handle)>;

/// Live JavaScript arguments, read as `Object.entries` and `Array.isArray`
/// see them.
struct LiveArgs {
    js: Js,
    is_array: IsArray,
    record_entries: Option<(Handle, Handle)>,
    on_path: Vec<Handle>,
    /// `(set, has, add, delete)` once the path is deep.
    path_set: Option<[Handle; 4]>,
    /// The root's `Object.entries`, when the JavaScript layer read them
    /// (see [`empty_lookup_fast`]): taken by the walk's first look at the
    /// root instead of reading them again.
    root_entries: Option<(Handle, Entries)>,
}

impl LiveArgs {
    fn new(js: Js) -> Self {
        LiveArgs {
            js,
            is_array: IsArray::new(js),
            record_entries: None,
            on_path: Vec::new(),
            path_set: None,
            root_entries: None,
        }
    }

    /// A non-array object's `Object.entries`, or `None` when
    /// `Array.isArray` says it is an array after all (a Proxy of one).
    fn record_entries(&mut self, object: Handle) -> Result<Option<Entries>> {
        let js = self.js;
        let (receiver, record_entries) = match self.record_entries {
            Some(found) => found,
            None => *self.record_entries.insert(js.builtin(Builtin::RecordEntries)?),
        };
        let flat = js.call(record_entries, receiver, &[object])?;
        if js.type_of(flat)? == ValueType::Null {
            return Ok(None);
        }
        let count = js.plain_array_len(flat)? / 2;
        let mut entries = Vec::with_capacity(count as usize);
        for i in 0..count {
            entries.push((js.utf16(js.element(flat, 2 * i)?)?, js.element(flat, 2 * i + 1)?));
        }
        Ok(Some(entries))
    }

    fn path_set(&mut self) -> Result<[Handle; 4]> {
        if let Some(set) = self.path_set {
            return Ok(set);
        }
        let js = self.js;
        let set = js.construct(js.get(js.global()?, c"Set")?)?;
        let methods = [set, js.get(set, c"has")?, js.get(set, c"add")?, js.get(set, c"delete")?];
        for &container in &self.on_path {
            js.call(methods[2], set, &[container])?;
        }
        Ok(*self.path_set.insert(methods))
    }
}

impl ArgsTree for LiveArgs {
    type Value = Handle;
    type Error = napi::Error;

    fn node(&mut self, value: &Handle) -> Result<Node<Handle>> {
        if self.root_entries.as_ref().is_some_and(|(root, _)| root == value) {
            let (_, entries) = self.root_entries.take().expect("just seen");
            return Ok(Node::Record(entries));
        }
        Ok(match self.js.type_of(*value)? {
            ValueType::String => Node::Text(self.js.utf16(*value)?),
            // A genuine array needs no call into JavaScript; anything else
            // asks Array.isArray and Object.entries in one crossing.
            ValueType::Object if self.js.is_plain_array(*value)? => Node::List,
            ValueType::Object => match self.record_entries(*value)? {
                Some(entries) => Node::Record(entries),
                None => Node::List,
            },
            _ => Node::Opaque,
        })
    }

    fn list_len(&mut self, list: &Handle) -> Result<usize> {
        self.is_array.len(*list)
    }

    fn list_item(&mut self, list: &Handle, index: usize) -> Result<Handle> {
        self.js.element(*list, index as u32)
    }

    fn enter(&mut self, container: &Handle) -> Result<bool> {
        let js = self.js;
        if self.on_path.len() < LINEAR_PATH_LIMIT && self.path_set.is_none() {
            for &ancestor in &self.on_path {
                if js.strict_equals(ancestor, *container)? {
                    return Ok(false);
                }
            }
        } else {
            let [set, has, add, _] = self.path_set()?;
            if js.bool(js.call(has, set, &[*container])?)? {
                return Ok(false);
            }
            js.call(add, set, &[*container])?;
        }
        self.on_path.push(*container);
        Ok(true)
    }

    fn leave(&mut self, container: &Handle) {
        self.on_path.pop();
        if let Some([set, _, _, delete]) = self.path_set {
            // `Set.prototype.delete` on a Set we made cannot throw.
            let _ = self.js.call(delete, set, &[*container]);
        }
    }

    fn too_many_values(&mut self) -> napi::Error {
        self.js.range_error(&format!(
            "call.args holds more than {} values along its paths (a getter that returns a new object \
every time, an object shared along very many paths, or an array with billions of holes); it was not judged",
            MAX_WALKED_VALUES
        ))
    }
}
