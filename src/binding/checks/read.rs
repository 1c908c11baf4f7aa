//! The readers every check's export shares: an epoch, a string field, a
//! list of strings and the parts of a call every check reads the same way.
//! Each checks its value's type as it reads it and names the field in the
//! `TypeError` when the type is wrong.

use super::live::LiveArgs;
use crate::binding::napi::{Handle, IsArray, Js};
use crate::checks::empty_lookup::CallParts;
use napi::{Result, ValueType};
use std::ffi::CStr;

/// `epoch`, which must be a number; `who` names the caller in the error.
pub(super) fn read_epoch(js: Js, who: &str, epoch: Handle) -> Result<f64> {
    if js.type_of(epoch)? != ValueType::Number {
        return Err(js.wrong_type(&format!("{who}: epoch"), "a number", epoch));
    }
    js.f64(epoch)
}

/// `owner.name`, which must be a string; `what` names it in the error.
pub(super) fn string_at(js: Js, owner: Handle, name: &CStr, what: &dyn Fn() -> String) -> Result<Vec<u16>> {
    let value = js.get(owner, name)?;
    if js.type_of(value)? != ValueType::String {
        return Err(js.wrong_type(&what(), "a string", value));
    }
    js.utf16(value)
}

/// Reads and checks the parts of `call` past its reading, in the order
/// agentfootprint reads them; `who` names the caller in errors.
pub(super) fn read_call_parts(
    js: Js,
    who: &str,
    name: &str,
    call: Handle,
    args: &mut LiveArgs,
) -> Result<CallParts<Handle>> {
    let bad =
        |what: &str, must: &str, value: Handle| js.wrong_type(&format!("{who}: {name}.{what}"), must, value);
    let tool_name = string_at(js, call, c"toolName", &|| format!("{who}: {name}.toolName"))?;
    let tool_call_id = string_at(js, call, c"toolCallId", &|| format!("{who}: {name}.toolCallId"))?;
    let call_args = js.get(call, c"args")?;
    if js.type_of(call_args)? != ValueType::Object {
        return Err(bad("args", "an object", call_args));
    }
    args.naming(format!("{who}: {name}.args"));
    let from = js.get(call, c"argumentsFrom")?;
    let arguments_from = string_list(js, &mut args.is_array, from, &format!("{who}: {name}.argumentsFrom"))?;
    Ok(CallParts { tool_name, tool_call_id, args: call_args, arguments_from })
}

/// An array of strings (a Proxy of one included), read whole; `what` names
/// it in the error.
pub(super) fn string_list(js: Js, is_array: &mut IsArray, list: Handle, what: &str) -> Result<Vec<Vec<u16>>> {
    if !is_array.test(list)? {
        return Err(js.wrong_type(what, "an array of strings", list));
    }
    let mut read = Vec::new();
    for i in 0..is_array.len(list)? {
        let item = js.element(list, i as u32)?;
        if js.type_of(item)? != ValueType::String {
            return Err(js.wrong_type(&format!("{what}[{i}]"), "a string", item));
        }
        read.push(js.utf16(item)?);
    }
    Ok(read)
}
