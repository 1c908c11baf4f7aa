//! `answerValuesOf` and `normalizeValue`: the claim seam's reading of an
//! answer, and the reader of its options that `RunCorpus.evidenceOf`
//! shares.

use crate::binding::napi::{Handle, IsArray, Js};
use crate::checks::claim::extract::{self, DeclaredShape, Exempt, ValueOptions, ValueRules};
use crate::checks::claim::normalize::normalize_token;
use crate::filter::RegexSource;
use napi::bindgen_prelude::Unknown;
use napi::{Env, JsValue, Result, ValueType};
use napi_derive::napi;

/// A value an answer asserts.
// Declared for the typings only: the answer is built by hand.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct AnswerValue {
    /// The value, normalized (`normalizeValue`): `41,200` is `41200`.
    #[napi(readonly)]
    pub value: String,
    /// `'number'`, `'identifier'`, `'figure'` (with `figures` on) or the
    /// name of the declared shape that matched.
    #[napi(readonly)]
    pub shape: String,
    /// The glued spelling a number was read off (`41200iops` for `41200`),
    /// only when it was read off one: a tool result that carried that
    /// spelling grounds the value too.
    #[napi(readonly)]
    pub token: Option<String>,
}

/// What a domain's identifiers look like: a token the RegExp matches whole
/// (as `^(?:source)$`, `g` and `y` dropped) is a value labelled `name`,
/// digits or not. Shapes are tested before the default rules, in order.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct ValueShape {
    #[napi(readonly)]
    pub name: String,
    #[napi(readonly, js_name = "match", ts_type = "RegExp")]
    pub match_: (),
}

/// How `answerValuesOf` (and the evidence gate) reads an answer.
#[allow(dead_code)]
#[napi(object, object_to_js = false, object_from_js = false)]
pub struct AnswerValuesOptions {
    /// Never values: a string is compared normalized (both forms of an
    /// FCID); a RegExp must match the whole normalized token.
    #[napi(readonly, ts_type = "ReadonlyArray<string | RegExp>")]
    pub exempt: Option<()>,
    #[napi(readonly, ts_type = "readonly ValueShape[]")]
    pub shapes: Option<()>,
    /// The digits a bare number needs to be a value (a whole number of at
    /// least 1; default 4): `892 errors` is prose, `41,200` is a reading.
    #[napi(readonly)]
    pub min_digits: Option<f64>,
    /// A number wearing a unit (`53.2%`, `6.3 TB`, `7 ms`) is a value
    /// whatever its digits, shaped `'figure'`. Default false.
    #[napi(readonly)]
    pub figures: Option<bool>,
}

/// The one spelling a value is compared in, on the answer's side and the
/// tool results' side alike: lower-case, trimmed, without surrounding
/// quotes, brackets, `$`, `%` or sentence punctuation, without thousands
/// separators, and a plain number of up to 15 digits spelt as JavaScript
/// prints it (`'41,200.'` is `'41200'`, `'98304.0'` is `'98304'`). Empty
/// for a token that is only decoration.
///
/// @param token any text.
#[napi(catch_unwind, ts_args_type = "token: string", ts_return_type = "string")]
pub fn normalize_value<'env>(env: &'env Env, token: Unknown) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let token = token.raw();
    if js.type_of(token)? != ValueType::String {
        return Err(js.wrong_type("normalizeValue: token", "a string", token));
    }
    let normalized = normalize_token(&js.utf16(token)?);
    Ok(js.unknown(js.string(&normalized)?))
}

/// The distinct values an answer asserts, in first-appearance order: the
/// numbers of at least `minDigits` digits and the identifiers (digits mixed
/// with letters or `: _ - / .`, four units or more) that the evidence gate
/// looks up among what the run's tools returned. Prose wearing a number
/// (`24 hours`, `48-port`, `24/7`) is not a value. No cap on the answer's
/// length: the work is linear in it.
///
/// @param answer the answer's text.
/// @param options declared shapes, exemptions, `minDigits`, `figures`.
/// @throws {TypeError} or {RangeError} naming the argument or option.
#[napi(
    catch_unwind,
    ts_args_type = "answer: string, options?: AnswerValuesOptions",
    ts_return_type = "AnswerValue[]"
)]
pub fn answer_values_of<'env>(env: &'env Env, answer: Unknown, options: Unknown) -> Result<Unknown<'env>> {
    let js = Js::new(env);
    let who = "answerValuesOf";
    let answer = answer.raw();
    if js.type_of(answer)? != ValueType::String {
        return Err(js.wrong_type(&format!("{who}: answer"), "a string", answer));
    }
    let rules = read_value_options(js, options.raw(), who)?;
    let values = js.with_units(answer, |units| Ok(extract::answer_values(units, &rules)))?;
    let mut items = Vec::with_capacity(values.len());
    for found in &values {
        let value = js.string(&found.value)?;
        let shape = js.string(rules.shape_name(&found.shape))?;
        items.push(match &found.token {
            Some(token) => {
                js.object(&[(c"value", value), (c"shape", shape), (c"token", js.string(token)?)])?
            }
            None => js.object(&[(c"value", value), (c"shape", shape)])?,
        });
    }
    Ok(js.unknown(js.array(&items)?))
}

/// Reads and compiles value options where they are the option `at` of
/// another caller (`createGuard: options.evidence`), answering nothing: the
/// guards check their `evidence` when they are made, by the rule every
/// judgement applies, rather than at their first judgement. Errors name
/// `{at}.<field>`.
#[napi(namespace = "__claim", js_name = "checkValueOptions", skip_typescript, catch_unwind)]
pub fn check_value_options(env: &Env, options: Unknown, at: String) -> Result<()> {
    read_value_options_at(Js::new(env), options.raw(), &at).map(drop)
}

/// Reads and compiles an `AnswerValuesOptions` (undefined: the defaults);
/// every error names `{who}: options.<field>`.
pub(crate) fn read_value_options(js: Js, options: Handle, who: &str) -> Result<ValueRules> {
    read_value_options_at(js, options, &format!("{who}: options"))
}

/// [`read_value_options`], the options named `what` in errors.
fn read_value_options_at(js: Js, options: Handle, what: &str) -> Result<ValueRules> {
    let mut read = ValueOptions::default();
    match js.type_of(options)? {
        ValueType::Undefined => return Ok(ValueRules::default()),
        ValueType::Object => {}
        _ => return Err(js.wrong_type(what, "an object", options)),
    }
    let mut is_array = IsArray::new(js);
    let regexp = js.global(c"RegExp")?;
    let read_regex = |value: Handle, at: &str| -> Result<RegexSource> {
        let text = |name: &std::ffi::CStr| -> Result<String> {
            Ok(String::from_utf16_lossy(&js.utf16(js.get(value, name)?)?))
        };
        RegexSource::with_js_flags(&text(c"source")?, &text(c"flags")?)
            .map_err(|reason| js.range_error(&format!("{what}.{at}: {reason}")))
    };
    let list =
        |name: &std::ffi::CStr, field: &str, is_array: &mut IsArray| -> Result<Option<(Handle, usize)>> {
            let value = js.get(options, name)?;
            if js.type_of(value)? == ValueType::Undefined {
                return Ok(None);
            }
            if !is_array.test(value)? {
                return Err(js.wrong_type(&format!("{what}.{field}"), "an array", value));
            }
            Ok(Some((value, is_array.len(value)?)))
        };
    if let Some((exempt, len)) = list(c"exempt", "exempt", &mut is_array)? {
        for i in 0..len {
            let entry = js.element(exempt, i as u32)?;
            let at = format!("exempt[{i}]");
            read.exempt.push(match js.type_of(entry)? {
                ValueType::String => Exempt::Value(js.utf16(entry)?),
                ValueType::Object if js.instance_of(entry, regexp)? => {
                    Exempt::Pattern(read_regex(entry, &at)?)
                }
                _ => return Err(js.wrong_type(&format!("{what}.{at}"), "a string or a RegExp", entry)),
            });
        }
    }
    if let Some((shapes, len)) = list(c"shapes", "shapes", &mut is_array)? {
        for i in 0..len {
            let entry = js.element(shapes, i as u32)?;
            let at = format!("shapes[{i}]");
            if js.type_of(entry)? != ValueType::Object {
                return Err(js.wrong_type(&format!("{what}.{at}"), "a { name, match } object", entry));
            }
            let name = js.get(entry, c"name")?;
            if js.type_of(name)? != ValueType::String {
                return Err(js.wrong_type(&format!("{what}.{at}.name"), "a string", name));
            }
            let matcher = js.get(entry, c"match")?;
            if js.type_of(matcher)? != ValueType::Object || !js.instance_of(matcher, regexp)? {
                return Err(js.wrong_type(&format!("{what}.{at}.match"), "a RegExp", matcher));
            }
            let regex = read_regex(matcher, &format!("{at}.match"))?;
            read.shapes.push(DeclaredShape { name: js.utf16(name)?, regex });
        }
    }
    let min_digits = js.get(options, c"minDigits")?;
    match js.type_of(min_digits)? {
        ValueType::Undefined => {}
        ValueType::Number => read.min_digits = js.f64(min_digits)?,
        _ => return Err(js.wrong_type(&format!("{what}.minDigits"), "a number", min_digits)),
    }
    let figures = js.get(options, c"figures")?;
    match js.type_of(figures)? {
        ValueType::Undefined => {}
        ValueType::Boolean => read.figures = js.bool(figures)?,
        _ => return Err(js.wrong_type(&format!("{what}.figures"), "a boolean", figures)),
    }
    ValueRules::new(read).map_err(|error| js.range_error(&format!("{what}.{} {}", error.at, error.reason)))
}
