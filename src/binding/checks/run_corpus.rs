//! `RunCorpus`: one run's messages, pushed once each, with the window's
//! evictions, and the three checks judged on it.

use super::claim::read_value_options;
use super::dangling_reference::read_served_tools;
use super::empty_lookup::{encounter_to_js, read_reading};
use super::findings::findings_to_js;
use super::findings::Disposition;
use super::live::{LiveArgs, LiveString};
use super::read::{read_call_parts, read_epoch, string_at};
use super::unsupported_argument::{answer_to_js, read_calls_and_epoch, read_choice, usable_external};
use crate::binding::napi::{IsArray, Js};
use crate::checks::claim::judge::{self, Judging};
use crate::checks::corpus::{self, Role};
use crate::checks::{dangling_reference, empty_lookup, unsupported_argument};
use napi::bindgen_prelude::{ObjectFinalize, Unknown};
use napi::{Env, JsValue, Result, ValueType};
use napi_derive::napi;

/// Who put a message in front of the model.
#[napi(string_enum)]
pub enum RunRole {
    #[napi(value = "system")]
    System,
    #[napi(value = "user")]
    User,
    #[napi(value = "assistant")]
    Assistant,
    #[napi(value = "tool")]
    Tool,
}

/// One message of a run. `toolName` is read for a `'tool'` message only,
/// and may be absent there: the result then grounds text but is no tool's
/// result.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct RunEntry {
    #[napi(readonly)]
    pub role: RunRole,
    #[napi(readonly)]
    pub text: String,
    #[napi(readonly)]
    pub tool_name: Option<String>,
}

/// What `RunCorpus.unsupportedArgumentsOf` answers: the stateless answer
/// and the disposition to note.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct UnsupportedArgumentsEncounter {
    #[napi(readonly, ts_type = "readonly ContextError[]")]
    pub findings: Vec<()>,
    #[napi(readonly, ts_type = "readonly ExternalGrounding[]")]
    pub external_groundings: Vec<()>,
    #[napi(readonly)]
    pub disposition: Disposition,
}

/// What `RunCorpus.unsupportedArgumentsByCallOf` answers: the encounter,
/// and the tool call id each finding is about.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct UnsupportedArgumentsByCall {
    #[napi(readonly, ts_type = "readonly ContextError[]")]
    pub findings: Vec<()>,
    #[napi(readonly, ts_type = "readonly ExternalGrounding[]")]
    pub external_groundings: Vec<()>,
    #[napi(readonly)]
    pub disposition: Disposition,
    /// The tool call id each finding is about, one per finding, in order.
    #[napi(readonly, ts_type = "readonly string[]")]
    pub finding_calls: Vec<()>,
}

/// What `RunCorpus.danglingReferencesOf` answers: the stateless answer and
/// the disposition to note.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct DanglingReferencesEncounter {
    #[napi(readonly, ts_type = "readonly ContextError[]")]
    pub findings: Vec<()>,
    #[napi(readonly)]
    pub disposition: Disposition,
}

/// What `RunCorpus.evidenceOf` is asked besides the answer: the options of
/// `answerValuesOf`, and three of its own.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct EvidenceOptions {
    #[napi(readonly, ts_type = "readonly (string | RegExp)[]")]
    pub exempt: Option<Vec<()>>,
    #[napi(readonly, ts_type = "readonly ValueShape[]")]
    pub shapes: Option<Vec<()>>,
    #[napi(readonly)]
    pub min_digits: Option<f64>,
    #[napi(readonly)]
    pub figures: Option<bool>,
    /// Report prior-turn-evidence (default false).
    #[napi(readonly)]
    pub notice_prior_turn_evidence: Option<bool>,
    /// Text of this request the corpus does not hold, supplied by the app:
    /// its values are exempt.
    #[napi(readonly)]
    pub system_prompt: Option<String>,
    /// The answer is the revision a correction asked for (the warning says
    /// so). Default false.
    #[napi(readonly)]
    pub revised: Option<bool>,
}

/// A value of the answer that no in-window tool result serves and nobody
/// supplied, clipped to 64 UTF-16 units.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct UnsupportedValue {
    #[napi(readonly)]
    pub value: String,
    /// `'number'`, `'identifier'`, `'figure'` or a declared shape's name.
    #[napi(readonly)]
    pub shape: String,
}

/// When the answer's grounded values were served (agentfootprint's
/// `AnswerGroundingReading`). Turns count the user messages in the window.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct AnswerGroundingReading {
    #[napi(readonly)]
    pub from_this_turn: u32,
    #[napi(readonly)]
    pub from_prior_turns: u32,
    #[napi(readonly)]
    pub latest_prior_turn: Option<u32>,
    #[napi(readonly)]
    pub current_turn: u32,
    #[napi(readonly)]
    pub tool_results_this_turn: u32,
    /// Always false: the index has no ceiling.
    #[napi(readonly, ts_type = "false")]
    pub index_truncated: bool,
}

/// prior-turn-evidence's outcome for one answer.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct PriorTurnEvidenceEncounter {
    #[napi(readonly, ts_type = "readonly ContextError[]")]
    pub findings: Vec<()>,
    #[napi(readonly)]
    pub disposition: Disposition,
}

/// One message of a revision.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct CorrectionMessage {
    #[napi(readonly, ts_type = "'assistant' | 'user'")]
    pub role: String,
    #[napi(readonly)]
    pub content: String,
}

/// What `RunCorpus.evidenceOf` answers: agentfootprint's `EvidenceVerdict`,
/// the `unsupported-claim` finding and its disposition, prior-turn-evidence
/// when asked for, and for a flagged answer the revision's two messages and
/// the operator's sentence.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct EvidenceJudgement {
    #[napi(readonly, ts_type = "readonly UnsupportedValue[]")]
    pub unsupported: Vec<()>,
    #[napi(readonly)]
    pub candidates: u32,
    /// Always false: the index has no ceiling.
    #[napi(readonly, ts_type = "false")]
    pub evidence_truncated: bool,
    #[napi(readonly)]
    pub grounding: AnswerGroundingReading,
    #[napi(readonly, ts_type = "readonly ContextError[]")]
    pub findings: Vec<()>,
    #[napi(readonly)]
    pub disposition: Disposition,
    #[napi(readonly)]
    pub prior_turn_evidence: Option<PriorTurnEvidenceEncounter>,
    #[napi(readonly, ts_type = "readonly [CorrectionMessage, CorrectionMessage]")]
    pub correction: Option<Vec<()>>,
    #[napi(readonly)]
    pub warning: Option<String>,
}

/// One run's messages, each pushed once as it enters the history, and which
/// of them the window still holds. Its three checks answer exactly what the
/// stateless functions answer for the in-window messages, without reading
/// or lower-casing any earlier message again.
///
/// It keeps, per message in the window, its text lower-cased (one byte per
/// UTF-16 unit for ASCII text, two otherwise, not the original) and for a
/// long ASCII text a sketch of an eighth to a quarter of its size; per
/// evicted message a small record (its text is freed), until every message
/// before it is evicted too; each tool name once. `clear()` frees it all.
#[napi(custom_finalize)]
pub struct RunCorpus {
    inner: corpus::RunCorpus,
    /// The native memory last reported to V8 for this corpus, in bytes.
    reported: i64,
}

impl RunCorpus {
    /// Reports to V8 how the corpus's native memory changed since the last
    /// report, so that a run's texts count towards collections as strings
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

impl ObjectFinalize for RunCorpus {
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
impl RunCorpus {
    /// An empty corpus, for one run. `{ evidence: false }`: the corpus keeps
    /// no claim index, so a push costs the claim seam nothing and
    /// `evidenceOf` refuses (for a run whose answers are never judged).
    /// Throws a `TypeError` naming the option when it is not a boolean.
    #[napi(constructor, catch_unwind, ts_args_type = "options?: { readonly evidence?: boolean | undefined }")]
    #[allow(clippy::new_without_default)]
    pub fn new(env: &Env, options: Option<Unknown>) -> Result<Self> {
        let js = Js::new(env);
        let mut evidence = true;
        if let Some(options) = options {
            let options = options.raw();
            match js.type_of(options)? {
                ValueType::Undefined => {}
                ValueType::Object => {
                    let value = js.get(options, c"evidence")?;
                    match js.type_of(value)? {
                        ValueType::Undefined => {}
                        ValueType::Boolean => evidence = js.bool(value)?,
                        _ => {
                            return Err(js.wrong_type(
                                "new RunCorpus: options.evidence",
                                "a boolean or undefined",
                                value,
                            ))
                        }
                    }
                }
                _ => return Err(js.wrong_type("new RunCorpus: options", "an object or undefined", options)),
            }
        }
        let inner = if evidence { corpus::RunCorpus::new() } else { corpus::RunCorpus::without_claims() };
        Ok(RunCorpus { inner, reported: 0 })
    }

    /// Appends one message as it enters the history and returns its id: 0
    /// for the first, one more for each push after, never reused (`clear`
    /// does not restart them). `{ toolName, text }` with no `role` is a tool
    /// result. Throws a `TypeError` naming the field when `role` is not one
    /// of the four, or `text` or a tool message's `toolName` is not a
    /// string.
    #[napi(catch_unwind, ts_args_type = "entry: RunEntry | ProducedResult")]
    pub fn push(&mut self, env: &Env, entry: Unknown) -> Result<f64> {
        let js = Js::new(env);
        let who = "RunCorpus.push";
        let entry = entry.raw();
        if js.type_of(entry)? != ValueType::Object {
            return Err(js.wrong_type(
                &format!("{who}: entry"),
                "a RunEntry or ProducedResult object",
                entry,
            ));
        }
        let role = js.get(entry, c"role")?;
        let role = match js.type_of(role)? {
            ValueType::Undefined => None,
            ValueType::String => match String::from_utf16_lossy(&js.utf16(role)?).as_str() {
                "system" => Some(Role::System),
                "user" => Some(Role::User),
                "assistant" => Some(Role::Assistant),
                "tool" => Some(Role::Tool),
                _ => {
                    return Err(js.type_error(&format!(
                        "{who}: entry.role must be 'system', 'user', 'assistant' or 'tool'"
                    )))
                }
            },
            _ => {
                return Err(js.wrong_type(
                    &format!("{who}: entry.role"),
                    "'system', 'user', 'assistant' or 'tool'",
                    role,
                ))
            }
        };
        let tool_name = match role {
            // A ProducedResult: a tool result that must be named.
            None => Some(string_at(js, entry, c"toolName", &|| format!("{who}: entry.toolName"))?),
            Some(Role::Tool) => {
                let name = js.get(entry, c"toolName")?;
                match js.type_of(name)? {
                    ValueType::Undefined => None,
                    ValueType::String => Some(js.utf16(name)?),
                    _ => {
                        return Err(js.wrong_type(
                            &format!("{who}: entry.toolName"),
                            "a string or undefined",
                            name,
                        ))
                    }
                }
            }
            Some(_) => None,
        };
        let text = string_at(js, entry, c"text", &|| format!("{who}: entry.text"))?;
        let id = self.inner.push(role.unwrap_or(Role::Tool), tool_name.as_deref(), &text);
        self.report_memory(js)?;
        Ok(id as f64)
    }

    /// The window dropped these messages: each stops grounding anything,
    /// and a tool result's name joins the run's dropped names. Every id must
    /// be one this corpus handed out; otherwise a `TypeError` (not a
    /// number) or a `RangeError` (not an id handed out: negative, not an
    /// integer, or not pushed yet) names it, and nothing is evicted. Evicting a message twice, or one `clear` forgot, does
    /// nothing.
    #[napi(catch_unwind, ts_args_type = "ids: readonly number[]")]
    pub fn evict(&mut self, env: &Env, ids: Unknown) -> Result<()> {
        let js = Js::new(env);
        let ids = ids.raw();
        let mut is_array = IsArray::new(js);
        if !is_array.test(ids)? {
            return Err(js.wrong_type("RunCorpus.evict: ids", "an array of ids", ids));
        }
        let mut read = Vec::new();
        for i in 0..is_array.len(ids)? {
            let id = js.element(ids, i as u32)?;
            if js.type_of(id)? != ValueType::Number {
                return Err(js.wrong_type(&format!("RunCorpus.evict: ids[{i}]"), "an id (a number)", id));
            }
            let id = js.f64(id)?;
            if !(id >= 0.0 && id.fract() == 0.0 && id < 2f64.powi(53)) {
                return Err(js.range_error(&format!(
                    "RunCorpus.evict: ids[{i}] must be an id this corpus handed out (got {id})"
                )));
            }
            read.push(id as u64);
        }
        if let Err(unknown) = self.inner.evict(&read) {
            return Err(js.range_error(&format!(
                "RunCorpus.evict: ids[{}] is {}, which this corpus has not handed out (its ids are below {}); nothing was evicted",
                unknown.at, read[unknown.at], unknown.next
            )));
        }
        self.report_memory(js)
    }

    /// Forgets every message and every dropped name, so the corpus can serve
    /// another run, and frees their memory. Ids keep counting. A run's owner
    /// should call it when the run ends: until then, or until the corpus is
    /// collected, its texts stay in memory.
    #[napi(catch_unwind)]
    pub fn clear(&mut self, env: &Env) -> Result<()> {
        self.inner.clear();
        self.report_memory(Js::new(env))
    }

    /// Messages pushed since the last `clear()`, evicted ones included.
    #[napi(getter, catch_unwind)]
    pub fn length(&self) -> u32 {
        u32::try_from(self.inner.len()).unwrap_or(u32::MAX)
    }

    /// Messages pushed since the last `clear()` and still in the window.
    #[napi(getter, catch_unwind)]
    pub fn window_length(&self) -> u32 {
        u32::try_from(self.inner.window_len()).unwrap_or(u32::MAX)
    }

    /// Judges one finished call to an armed tool: the same answer as
    /// `emptyLookupOf(call, <the in-window tool results that have a name,
    /// in push order>, epoch)`.
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
        let (call, who) = (call.raw(), "RunCorpus.emptyLookupOf");
        if js.type_of(call)? != ValueType::Object {
            return Err(js.wrong_type(&format!("{who}: call"), "an EmptyLookupCall object", call));
        }
        let epoch = read_epoch(js, who, epoch.raw())?;
        let reading = read_reading(js, who, call)?;
        let encounter = empty_lookup::empty_lookup_with(&mut LiveArgs::new(js), reading, epoch, |args| {
            let parts = read_call_parts(js, who, "call", call, args)?;
            let grounds = self.inner.grounds(&parts.arguments_from);
            Ok((parts, grounds))
        })?;
        Ok(js.unknown(encounter_to_js(js, &encounter)?))
    }

    /// Checks the armed calls of one model response against the frame it
    /// was chosen from: `request.systemPrompt` (when given) and the in-window
    /// system, user and tool messages as served text, the in-window
    /// assistant messages as the model's own. The same answer as the
    /// stateless `unsupportedArgumentsOf`, with the disposition to note:
    /// `not-applicable` for no calls (and `request` is not read),
    /// `checked-fail` for any finding, else `checked-pass`.
    ///
    /// Call it when the response arrives, before pushing the response's own
    /// assistant message.
    #[napi(
        catch_unwind,
        js_name = "unsupportedArgumentsOf",
        ts_args_type = "calls: readonly ArgumentChoice[], request: { readonly systemPrompt?: string; readonly external?: readonly ExternalGround[] }, epoch: number",
        ts_return_type = "UnsupportedArgumentsEncounter"
    )]
    pub fn unsupported_arguments_of<'env>(
        &self,
        env: &'env Env,
        calls: Unknown,
        request: Unknown,
        epoch: Unknown,
    ) -> Result<Unknown<'env>> {
        self.answer_unsupported_arguments(
            env,
            "RunCorpus.unsupportedArgumentsOf",
            calls,
            request,
            epoch,
            false,
        )
    }

    /// `unsupportedArgumentsOf`, with one more key, `findingCalls`: the tool
    /// call id each finding is about, one per finding, in order. A guard
    /// routes each finding to its call with it, without reading its prose.
    #[napi(
        catch_unwind,
        js_name = "unsupportedArgumentsByCallOf",
        ts_args_type = "calls: readonly ArgumentChoice[], request: { readonly systemPrompt?: string; readonly external?: readonly ExternalGround[] }, epoch: number",
        ts_return_type = "UnsupportedArgumentsByCall"
    )]
    pub fn unsupported_arguments_by_call_of<'env>(
        &self,
        env: &'env Env,
        calls: Unknown,
        request: Unknown,
        epoch: Unknown,
    ) -> Result<Unknown<'env>> {
        self.answer_unsupported_arguments(
            env,
            "RunCorpus.unsupportedArgumentsByCallOf",
            calls,
            request,
            epoch,
            true,
        )
    }

    /// Checks the tools offered in a request against the window: the same
    /// answer as `danglingReferencesOf(servedTools, <names of tool results
    /// evicted since the last clear>, <names of tool results in the
    /// window>, epoch)`, with the disposition to note: `not-applicable` when
    /// no served tool declares a ground or nothing was dropped yet, else
    /// `checked-fail` or `checked-pass`.
    ///
    /// Call it while assembling the request, after the window has evicted.
    #[napi(
        catch_unwind,
        js_name = "danglingReferencesOf",
        ts_args_type = "servedTools: readonly ServedGroundedTool[], epoch: number",
        ts_return_type = "DanglingReferencesEncounter"
    )]
    pub fn dangling_references_of<'env>(
        &self,
        env: &'env Env,
        served_tools: Unknown,
        epoch: Unknown,
    ) -> Result<Unknown<'env>> {
        let js = Js::new(env);
        let who = "RunCorpus.danglingReferencesOf";
        let tools = read_served_tools(js, who, served_tools.raw())?;
        let epoch = read_epoch(js, who, epoch.raw())?;
        let inner = &self.inner;
        let findings = dangling_reference::dangling_references_of::<napi::Error>(
            &tools,
            |name| Ok(inner.was_dropped(name)),
            |name| Ok(inner.is_present(name)),
            epoch,
        )?;
        let disposition = dangling_reference::disposition(&tools, inner.dropped_any(), &findings);
        Ok(js.unknown(js.object(&[
            (c"findings", findings_to_js(js, &findings)?),
            (c"disposition", js.str(disposition.as_str())?),
        ])?))
    }

    /// Judges a final answer against the window: every number, identifier
    /// and name `answerValuesOf(answer, options)` reads off it must be
    /// served by an in-window tool result, or supplied by an in-window user
    /// or system message or `options.systemPrompt`. Costs the answer's
    /// length, not the history's.
    ///
    /// Returns agentfootprint's verdict (`unsupported`, `candidates`,
    /// `evidenceTruncated`, `grounding`), the `unsupported-claim` finding
    /// and its disposition (`not-applicable` when the answer states no
    /// value), `priorTurnEvidence` when `options.noticePriorTurnEvidence`,
    /// and for a flagged answer `correction` (the two messages a revision
    /// appends) and `warning`.
    ///
    /// It catches invented values only: a false claim built from real
    /// values passes.
    #[napi(
        catch_unwind,
        js_name = "evidenceOf",
        ts_args_type = "answer: string, options: EvidenceOptions | undefined, epoch: number",
        ts_return_type = "EvidenceJudgement"
    )]
    pub fn evidence_of<'env>(
        &self,
        env: &'env Env,
        answer: Unknown,
        options: Unknown,
        epoch: Unknown,
    ) -> Result<Unknown<'env>> {
        let js = Js::new(env);
        let who = "RunCorpus.evidenceOf";
        let given = answer.raw();
        if js.type_of(given)? != ValueType::String {
            return Err(js.wrong_type(&format!("{who}: answer"), "a string", given));
        }
        if !self.inner.keeps_claims() {
            return Err(napi::Error::new(
                napi::Status::InvalidArg,
                format!("{who}: this corpus was made with {{ evidence: false }} and keeps no claim index; make it with new RunCorpus() to judge answers"),
            ));
        }
        let answer = js.utf16(given)?;
        let rules = read_value_options(js, options.raw(), who)?;
        let epoch = read_epoch(js, who, epoch.raw())?;
        let (prompt, judging) = Self::read_judging(js, who, options.raw(), epoch)?;
        let judging = Judging { system_prompt: prompt.as_deref(), ..judging };
        let judged = judge::evidence_of(self.inner.claim_index(), &answer, &rules, judging);
        let verdict = &judged.verdict;
        let unsupported = verdict
            .unsupported
            .iter()
            .map(|flagged| {
                js.object(&[(c"value", js.string(&flagged.value)?), (c"shape", js.string(&flagged.shape)?)])
            })
            .collect::<Result<Vec<_>>>()?;
        let reading = &verdict.grounding;
        let mut grounding = vec![
            (c"fromThisTurn", js.number(reading.from_this_turn.into())?),
            (c"fromPriorTurns", js.number(reading.from_prior_turns.into())?),
        ];
        if let Some(turn) = reading.latest_prior_turn {
            grounding.push((c"latestPriorTurn", js.number(turn.into())?));
        }
        grounding.extend([
            (c"currentTurn", js.number(reading.current_turn.into())?),
            (c"toolResultsThisTurn", js.number(reading.tool_results_this_turn.into())?),
            (c"indexTruncated", js.boolean(false)?),
        ]);
        let mut judgement = vec![
            (c"unsupported", js.array(&unsupported)?),
            (c"candidates", js.number(verdict.candidates as f64)?),
            (c"evidenceTruncated", js.boolean(false)?),
            (c"grounding", js.object(&grounding)?),
            (c"findings", findings_to_js(js, &judged.findings)?),
            (c"disposition", js.str(judged.disposition.as_str())?),
        ];
        if let Some(prior) = &judged.prior_turn {
            judgement.push((
                c"priorTurnEvidence",
                js.object(&[
                    (c"findings", findings_to_js(js, &prior.findings)?),
                    (c"disposition", js.str(prior.disposition.as_str())?),
                ])?,
            ));
        }
        if let Some(frame) = &judged.correction {
            // The failed answer goes back as the string it came in as.
            let failed = js.object(&[(c"role", js.str("assistant")?), (c"content", given)])?;
            let frame = js.object(&[(c"role", js.str("user")?), (c"content", js.string(frame)?)])?;
            judgement.push((c"correction", js.array(&[failed, frame])?));
        }
        if let Some(warning) = &judged.warning {
            judgement.push((c"warning", js.string(warning)?));
        }
        Ok(js.unknown(js.object(&judgement)?))
    }
}

impl RunCorpus {
    /// Reads `evidenceOf`'s own options (the value options are read by
    /// `read_value_options`).
    fn read_judging(
        js: Js,
        who: &str,
        options: napi::sys::napi_value,
        epoch: f64,
    ) -> Result<(Option<Vec<u16>>, Judging<'static>)> {
        let mut judging = Judging { epoch, ..Judging::default() };
        if js.type_of(options)? != ValueType::Object {
            return Ok((None, judging));
        }
        let flag = |name: &std::ffi::CStr, field: &str| -> Result<bool> {
            let value = js.get(options, name)?;
            match js.type_of(value)? {
                ValueType::Undefined => Ok(false),
                ValueType::Boolean => js.bool(value),
                _ => Err(js.wrong_type(&format!("{who}: options.{field}"), "a boolean or undefined", value)),
            }
        };
        judging.notice_prior_turn = flag(c"noticePriorTurnEvidence", "noticePriorTurnEvidence")?;
        judging.revised = flag(c"revised", "revised")?;
        let prompt = js.get(options, c"systemPrompt")?;
        let prompt = match js.type_of(prompt)? {
            ValueType::Undefined => None,
            ValueType::String => Some(js.utf16(prompt)?),
            _ => {
                return Err(js.wrong_type(
                    &format!("{who}: options.systemPrompt"),
                    "a string or undefined",
                    prompt,
                ))
            }
        };
        Ok((prompt, judging))
    }

    /// Both unsupported-argument methods: the answer, with `findingCalls` when
    /// `with_calls`.
    fn answer_unsupported_arguments<'env>(
        &self,
        env: &'env Env,
        who: &str,
        calls: Unknown,
        request: Unknown,
        epoch: Unknown,
        with_calls: bool,
    ) -> Result<Unknown<'env>> {
        let js = Js::new(env);
        let (calls, request) = (calls.raw(), request.raw());
        let mut args = LiveArgs::new(js);
        let (count, epoch) = read_calls_and_epoch(js, who, &mut args.is_array, calls, epoch.raw())?;
        let answer = unsupported_argument::unsupported_arguments_of(
            &mut args,
            count,
            |args| {
                if js.type_of(request)? != ValueType::Object {
                    return Err(js.wrong_type(&format!("{who}: request"), "an object", request));
                }
                // The system prompt is the one served text the corpus does
                // not keep: the request gives it.
                let prompt = js.get(request, c"systemPrompt")?;
                let mut served = Vec::new();
                match js.type_of(prompt)? {
                    ValueType::Undefined => {}
                    ValueType::String => served.push(LiveString::new(js, prompt)),
                    _ => {
                        return Err(js.wrong_type(
                            &format!("{who}: request.systemPrompt"),
                            "a string or undefined",
                            prompt,
                        ))
                    }
                }
                let external = usable_external(js, &mut args.is_array, js.get(request, c"external")?)?;
                Ok(self.inner.choice_frame(served, Vec::new(), external))
            },
            |args, i| read_choice(js, who, args, calls, i),
            epoch,
        )?;
        let disposition = unsupported_argument::disposition(count, &answer);
        Ok(js.unknown(answer_to_js(js, &answer, Some(disposition), with_calls)?))
    }
}
