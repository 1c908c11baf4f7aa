//! `RunCorpus`: one run's messages, pushed once each, with the window's
//! evictions, and the three checks judged on it.

use super::dangling_reference::read_served_tools;
use super::empty_lookup::{encounter_to_js, read_reading};
use super::findings::findings_to_js;
use super::findings::Disposition;
use super::live::{LiveArgs, LiveString};
use super::read::{read_call_parts, read_epoch, string_at};
use super::unsupported_argument::{answer_to_js, read_calls_and_epoch, read_choice, usable_external};
use crate::binding::napi::{IsArray, Js};
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
    /// An empty corpus, for one run.
    #[napi(constructor, catch_unwind)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        RunCorpus { inner: corpus::RunCorpus::new(), reported: 0 }
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
}

impl RunCorpus {
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
