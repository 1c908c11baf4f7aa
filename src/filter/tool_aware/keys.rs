//! The key tables: which keys and attributes belong to a call, so that a
//! tool's definition or a document's element is not read as one.

use serde_json::Value;

use super::reader::MAX_CALL_DEPTH;

/// The keys that name a call's tool.
pub(super) const NAME_KEYS: [&str; 6] =
    ["name", "tool", "tool_name", "function", "recipient_name", "toolName"];
/// The keys that hold a call's arguments (anything goes inside them).
pub(super) const ARGUMENT_KEYS: [&str; 8] =
    ["arguments", "parameters", "args", "input", "params", "tool_input", "tool_args", "kwargs"];
/// Every other key a call object may have.
pub(super) const CALL_KEYS: [&str; 13] = [
    "name",
    "tool",
    "tool_name",
    "function",
    "recipient_name",
    "toolName",
    "id",
    "type",
    "call_id",
    "tool_call_id",
    "index",
    "tool_calls",
    "toolCallId",
];
/// The attributes that name a tag head's tool.
pub(super) const NAME_ATTRIBUTES: [&str; 5] = ["name", "tool", "tool_name", "function", "toolName"];
/// Every other attribute a tag head may have.
pub(super) const CALL_ATTRIBUTES: [&str; 5] = ["id", "type", "index", "call_id", "tool_call_id"];

/// Whether a parsed JSON value has only a call's keys outside its arguments.
pub(super) fn only_call_keys(value: &Value, depth: usize) -> bool {
    if depth > MAX_CALL_DEPTH {
        return false;
    }
    match value {
        Value::Array(items) => items.iter().all(|item| only_call_keys(item, depth + 1)),
        Value::Object(fields) => fields.iter().all(|(key, value)| {
            ARGUMENT_KEYS.contains(&key.as_str())
                || (CALL_KEYS.contains(&key.as_str())
                    && (!matches!(value, Value::Object(_) | Value::Array(_))
                        || only_call_keys(value, depth + 1)))
        }),
        _ => true,
    }
}
