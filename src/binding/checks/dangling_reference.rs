//! `danglingReferencesOf`, with agentfootprint's typings, and the reader
//! `RunCorpus.danglingReferencesOf` shares with it.

use super::findings::findings_to_js;
use super::read::{read_epoch, string_at, string_list};
use crate::binding::napi::{Handle, IsArray, Js};
use crate::checks::dangling_reference::{self, ServedTool};
use napi::bindgen_prelude::Unknown;
use napi::{Env, JsValue, Result, ValueType};
use napi_derive::napi;

/// One tool offered in a request, and the tools whose results ground its
/// arguments.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ServedGroundedTool {
    #[napi(readonly)]
    pub name: String,
    #[napi(readonly, ts_type = "readonly string[]")]
    pub arguments_from: Vec<String>,
}

/// Files one finding per served tool whose declared grounds have left the
/// window and were not fetched again: a ground in `droppedResults` and not
/// in `presentResults`. A ground never dropped, or present again, is
/// silent.
///
/// @param servedTools the tools offered in this request that declare
///   `argumentsFrom`.
/// @param droppedResults names of tools whose results left the window at
///   any point in this run; only its `has` is called.
/// @param presentResults names of tools with a result in the window now;
///   only its `has` is called, and only for dropped names.
/// @param epoch the run iteration, stamped on every finding and witness.
#[napi(
    catch_unwind,
    ts_args_type = "servedTools: readonly ServedGroundedTool[], droppedResults: ReadonlySet<string>, presentResults: ReadonlySet<string>, epoch: number",
    ts_return_type = "readonly ContextError[]"
)]
pub fn dangling_references_of<'env>(
    env: &'env Env,
    served_tools: Unknown,
    dropped_results: Unknown,
    present_results: Unknown,
    epoch: Unknown,
) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let who = "danglingReferencesOf";
    let tools = read_served_tools(js, who, served_tools.raw())?;
    let dropped = has_method(js, who, "droppedResults", dropped_results.raw())?;
    let present = has_method(js, who, "presentResults", present_results.raw())?;
    let epoch = read_epoch(js, who, epoch.raw())?;
    let asks = |(set, has): (Handle, Handle)| {
        move |name: &[u16]| js.truthy(js.call(has, set, &[js.string(name)?])?)
    };
    let findings = dangling_reference::dangling_references_of(&tools, asks(dropped), asks(present), epoch)?;
    Ok(js.unknown(findings_to_js(js, &findings)?))
}

/// The served tools, each `{ name, argumentsFrom }`, read whole.
pub(super) fn read_served_tools(js: Js, who: &str, tools: Handle) -> Result<Vec<ServedTool>> {
    let mut is_array = IsArray::new(js);
    if !is_array.test(tools)? {
        return Err(js.wrong_type(&format!("{who}: servedTools"), "an array of ServedGroundedTool", tools));
    }
    let mut read = Vec::new();
    for i in 0..is_array.len(tools)? {
        let tool = js.element(tools, i as u32)?;
        if js.type_of(tool)? != ValueType::Object {
            return Err(js.wrong_type(
                &format!("{who}: servedTools[{i}]"),
                "a ServedGroundedTool object",
                tool,
            ));
        }
        let name = string_at(js, tool, c"name", &|| format!("{who}: servedTools[{i}].name"))?;
        let from = js.get(tool, c"argumentsFrom")?;
        let arguments_from =
            string_list(js, &mut is_array, from, &format!("{who}: servedTools[{i}].argumentsFrom"))?;
        read.push(ServedTool { name, arguments_from });
    }
    Ok(read)
}

/// A set's `has`, looked up once: anything whose `has` is a function serves.
fn has_method(js: Js, who: &str, what: &str, set: Handle) -> Result<(Handle, Handle)> {
    let must = "a Set of tool names (an object with a has method)";
    if js.type_of(set)? != ValueType::Object {
        return Err(js.wrong_type(&format!("{who}: {what}"), must, set));
    }
    let has = js.get(set, c"has")?;
    if js.type_of(has)? != ValueType::Function {
        return Err(js.wrong_type(&format!("{who}: {what}.has"), "a function", has));
    }
    Ok((set, has))
}
