//! `argumentsMisfit`: whether a tool call's arguments are what the tool's
//! input schema admits, the test a leaked call passes before the guards
//! heal it into a real one.

use crate::binding::napi::{Handle, Js};
use crate::checks::schema;
use napi::bindgen_prelude::Unknown;
use napi::{Env, JsValue, Result, ValueType};
use napi_derive::napi;

/// Why a tool call's arguments are not what the tool's input schema admits,
/// or `null` when they are: the test a leaked call passes before a guard
/// turns it into a real tool call (heal). Both are JSON texts, as a tool
/// call carries its arguments; `inputSchemaJson` `null` or `undefined` (a
/// tool without a schema) admits any object. It reads the JSON Schema
/// keywords tool schemas are written with (`type`, `properties`,
/// `required`, `additionalProperties`, `items`, `prefixItems`, `enum`,
/// `const`, `anyOf`, `oneOf`, `allOf`, `not`, bounds, `nullable`, local
/// `$ref`s); one it does not know (`pattern`, `format`) constrains nothing.
///
/// @param argumentsJson the call's arguments, as JSON text.
/// @param inputSchemaJson the tool's input schema, as JSON text.
#[napi(
    catch_unwind,
    ts_args_type = "argumentsJson: string, inputSchemaJson?: string | null",
    ts_return_type = "string | null"
)]
pub fn arguments_misfit<'env>(
    env: &'env Env,
    arguments_json: Unknown,
    input_schema_json: Option<Unknown>,
) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let input = json_text(js, arguments_json.raw(), "argumentsJson")?.ok_or_else(|| {
        js.type_error("argumentsMisfit: argumentsJson must be a string of JSON text (got null)")
    })?;
    let schema = match input_schema_json {
        Some(schema) => json_text(js, schema.raw(), "inputSchemaJson")?,
        None => None,
    };
    Ok(js.unknown(match schema::misfit(schema.as_ref(), &input) {
        Some(why) => js.str(&why)?,
        None => js.null()?,
    }))
}

/// The JSON value a string argument spells; `None` for null or undefined.
fn json_text(js: Js, value: Handle, name: &str) -> Result<Option<serde_json::Value>> {
    match js.type_of(value)? {
        ValueType::Null | ValueType::Undefined => Ok(None),
        ValueType::String => {
            // A lone surrogate is refused, not replaced: the text is tested as given
            // (JSON.stringify escapes one, so a stringified value never holds one).
            let text = String::from_utf16(&js.utf16(value)?).map_err(|_| {
                js.type_error(&format!(
                    "argumentsMisfit: {name} must be well-formed text (it holds a lone surrogate)"
                ))
            })?;
            serde_json::from_str(&text).map(Some).map_err(|error| {
                js.type_error(&format!("argumentsMisfit: {name} must be JSON text ({error})"))
            })
        }
        _ => Err(js.wrong_type(&format!("argumentsMisfit: {name}"), "a string of JSON text", value)),
    }
}
