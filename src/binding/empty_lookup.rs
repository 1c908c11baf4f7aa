//! `readLookupResult`, `emptyLookupOf` and `ProducedCorpus`, with
//! agentfootprint's typings.
//!
//! The call is received as a raw JavaScript object and read by hand: its
//! `reading` key is required but may hold `undefined`, which no derived
//! conversion can express; every field of the wrong type is a `TypeError`
//! naming it; and its `args` are walked live (getters, Proxy traps and
//! cycles included) through [`LiveArgs`]. Each export reads its arguments
//! once, calls the core, and builds the answer once; nothing is kept
//! between calls but what a `ProducedCorpus` holds.

use super::js::{Handle, IsArray, Js};
use super::live::{LiveArgs, LiveGround, LiveGrounds};
use crate::empty_lookup::{self as core, corpus, ground::is_declared_ground, CallParts};
use napi::bindgen_prelude::{ObjectFinalize, Unknown, Utf16String};
use napi::{Env, JsValue, Result, ValueType};
use napi_derive::napi;
use std::ffi::CStr;

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

    let encounter = core::empty_lookup_with(&mut args, reading, epoch, |args| {
        let parts = read_call_parts(js, "emptyLookupOf", call, args)?;
        let mut grounds = LiveGrounds { js, grounds: Vec::new() };
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
                grounds.grounds.push(LiveGround { index: i, producer, text });
            }
        }
        Ok((parts, grounds))
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
    // Building objects is most of a small call's cost, so a value that
    // repeats is made once per answer: the fixed strings, the epoch, each
    // finding's path, and each subject, which the finding's `subjects` and
    // its witnesses share as one object, as an object literal reused in
    // JavaScript would be.
    let mut subjects: Vec<(Vec<u16>, Handle)> = Vec::new();
    let mut subject = |subject: &core::SubjectRef| -> Result<Handle> {
        if let Some((_, made)) = subjects.iter().find(|(id, _)| *id == subject.id) {
            return Ok(*made);
        }
        let made = js.object(&[(c"kind", js.str(subject.kind)?), (c"id", js.string(&subject.id)?)])?;
        subjects.push((subject.id.clone(), made));
        Ok(made)
    };
    let mut findings = Vec::with_capacity(encounter.findings.len());
    if !encounter.findings.is_empty() {
        let kind = js.str(core::Finding::KIND)?;
        let seam = js.str(core::Finding::SEAM)?;
        let stratum = js.str(core::Finding::STRATUM)?;
        let advisory = js.boolean(true)?;
        for finding in &encounter.findings {
            let epoch = js.number(finding.epoch)?;
            let predicate = js.string(&finding.predicate)?;
            let mut witnesses = Vec::with_capacity(finding.witnesses.len());
            for witness in &finding.witnesses {
                // The core stamps every witness with its finding's path and epoch.
                debug_assert!(witness.predicate == finding.predicate);
                witnesses.push(js.object(&[
                    (c"subject", subject(&witness.subject)?),
                    (c"predicate", predicate),
                    (c"value", js.string(&witness.value)?),
                    (c"epoch", epoch),
                    (c"stratum", stratum),
                    (c"provenance", js.string(&witness.provenance)?),
                ])?);
            }
            let pair = [subject(&finding.subjects[0])?, subject(&finding.subjects[1])?];
            findings.push(js.object(&[
                (c"kind", kind),
                (c"seam", seam),
                (c"subjects", js.array(&pair)?),
                (c"predicate", predicate),
                (c"witnesses", js.array(&witnesses)?),
                (c"epoch", epoch),
                (c"advisory", advisory),
                (c"message", js.string(&finding.message)?),
            ])?);
        }
    }
    js.object(&[
        (c"findings", js.array(&findings)?),
        (c"disposition", js.str(encounter.disposition.as_str())?),
    ])
}

/// Every result a run has served so far, each read and lower-cased once, as
/// it is pushed. `corpus.emptyLookupOf(call, epoch)` judges a call exactly as
/// `emptyLookupOf(call, <every result pushed, in order>, epoch)` does,
/// without reading or lower-casing any earlier result again.
///
/// It keeps each result's text lower-cased (one byte per UTF-16 unit for
/// ASCII text, two otherwise) and each distinct tool name once; not the
/// original text.
#[napi(custom_finalize)]
pub struct ProducedCorpus {
    inner: corpus::ProducedCorpus,
    /// The native memory last reported to V8 for this corpus, in bytes.
    reported: i64,
}

impl ProducedCorpus {
    /// Reports to V8 how the corpus's native memory changed since the last
    /// report, so that a run's texts count towards collections as a string
    /// would (see `napi_adjust_external_memory`).
    fn report_memory(&mut self, js: Js) -> Result<()> {
        let now = i64::try_from(self.inner.external_bytes()).unwrap_or(i64::MAX);
        if now != self.reported {
            js.adjust_external_memory(now - self.reported)?;
            self.reported = now;
        }
        Ok(())
    }
}

impl ObjectFinalize for ProducedCorpus {
    /// Takes the corpus's memory off V8's count as it is freed. A failure
    /// is not thrown: there is no caller to catch it during a collection
    /// or while the env shuts down.
    fn finalize(self, env: Env) -> Result<()> {
        if self.reported != 0 {
            let _ = Js::new(&env).adjust_external_memory(-self.reported);
        }
        Ok(())
    }
}

#[napi]
impl ProducedCorpus {
    /// An empty corpus, for one run.
    #[napi(constructor, catch_unwind)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        ProducedCorpus { inner: corpus::ProducedCorpus::new(), reported: 0 }
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
        let text = string_at(js, result, c"text", &|| "ProducedCorpus.push: result.text".into())?;
        self.inner.push_units(&tool_name, &text);
        self.report_memory(js)
    }

    /// Forgets every result pushed, so the corpus can serve another run, and
    /// frees the memory they took. A run's owner should call it when the run
    /// ends: until then, or until the corpus is garbage collected, its texts
    /// stay in memory.
    #[napi(catch_unwind)]
    pub fn clear(&mut self, env: &Env) -> Result<()> {
        self.inner.clear();
        self.report_memory(Js::new(env))
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
