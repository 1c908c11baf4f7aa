//! What a tool's input schema admits: the test a leaked call's arguments
//! pass before the guard turns the call into a real one (heal).
//!
//! A healed call runs a tool, so the test errs toward refusing: what it
//! cannot read as admitted is refused, and the call stays stripped (what it
//! was before heal existed). It reads the JSON Schema keywords the
//! frameworks' tool schemas are written with (Zod, Valibot and TypeBox
//! output, OpenAPI's `nullable`, the MCP tool lists): `type`,
//! `properties`, `required`, `additionalProperties`, `items`,
//! `prefixItems`, `enum`, `const`, `anyOf`, `oneOf`, `allOf`, `not`, the
//! numeric bounds, `minLength`/`maxLength`, `minItems`/`maxItems`,
//! `minProperties`/`maxProperties`, `nullable` and local `$ref`s
//! (`#/definitions/…`, `#/$defs/…`, `#`). A keyword it does not know
//! (`pattern`, `format`, `description`, …) constrains nothing here; the
//! framework's own validation still runs when the tool does.
//!
//! The input of a tool call is a JSON object, whatever the schema says.

use std::cell::Cell;

use serde_json::{Map, Value};

/// How many `$ref`s the test follows without reading deeper into the
/// value: a schema whose references go round in a circle is refused, not
/// followed forever.
const MAX_REF_HOPS: usize = 32;

/// How many subschemas one test may apply: `anyOf` branches that refer
/// back to their own schema could otherwise make the work exponential in
/// the hops. A schema that needs more is refused.
const MAX_STEPS: usize = 100_000;

/// Why `input` is not what `schema` admits, or `None` when it is. `schema`
/// `None` (a tool without one) admits any object.
pub fn misfit(schema: Option<&Value>, input: &Value) -> Option<String> {
    if !input.is_object() {
        return Some(format!("the arguments are {}, not an object", kind_of(input)));
    }
    let schema = schema?;
    let mut path = String::new();
    Fit { root: schema, steps: Cell::new(0) }.check(schema, input, &mut path, 0).err()
}

struct Fit<'a> {
    root: &'a Value,
    steps: Cell<usize>,
}

type Checked = Result<(), String>;

impl<'a> Fit<'a> {
    fn check(&self, schema: &'a Value, value: &Value, path: &mut String, hops: usize) -> Checked {
        self.steps.set(self.steps.get() + 1);
        if self.steps.get() > MAX_STEPS {
            return Err(String::from("the schema takes too long to apply"));
        }
        let schema = match schema {
            Value::Bool(true) => return Ok(()),
            Value::Bool(false) => return Err(at(path, "no value is admitted here")),
            Value::Object(schema) => schema,
            // A schema that is no schema admits what it cannot describe.
            _ => return Ok(()),
        };
        if let Some(reference) = schema.get("$ref") {
            let target =
                self.resolve(reference).ok_or_else(|| at(path, "the schema's $ref does not resolve here"))?;
            if hops >= MAX_REF_HOPS {
                return Err(at(path, "the schema's $refs go round in a circle"));
            }
            self.check(target, value, path, hops + 1)?;
        }
        if value.is_null() && schema.get("nullable") == Some(&Value::Bool(true)) {
            return Ok(());
        }
        if let Some(types) = schema.get("type") {
            let admitted = match types {
                Value::String(name) => is_type(name, value),
                Value::Array(names) => {
                    names.iter().any(|name| name.as_str().is_some_and(|name| is_type(name, value)))
                }
                _ => true,
            };
            if !admitted {
                return Err(at(path, &format!("expected {}, got {}", type_names(types), kind_of(value))));
            }
        }
        if let Some(Value::Array(allowed)) = schema.get("enum") {
            if !allowed.iter().any(|candidate| same(candidate, value)) {
                return Err(at(path, "the value is not one of the schema's enum"));
            }
        }
        if let Some(constant) = schema.get("const") {
            if !same(constant, value) {
                return Err(at(path, "the value is not the schema's const"));
            }
        }
        self.combinators(schema, value, path, hops)?;
        match value {
            Value::Object(object) => self.object(schema, object, path),
            Value::Array(items) => self.array(schema, items, path),
            Value::String(text) => string(schema, text, path),
            Value::Number(_) => number(schema, value, path),
            _ => Ok(()),
        }
    }

    fn combinators(
        &self,
        schema: &'a Map<String, Value>,
        value: &Value,
        path: &mut String,
        hops: usize,
    ) -> Checked {
        if let Some(Value::Array(all)) = schema.get("allOf") {
            for part in all {
                self.check(part, value, path, hops)?;
            }
        }
        if let Some(Value::Array(any)) = schema.get("anyOf") {
            if !any.iter().any(|part| self.check(part, value, &mut path.clone(), hops).is_ok()) {
                return Err(at(path, "the value fits none of the schema's anyOf"));
            }
        }
        if let Some(Value::Array(one)) = schema.get("oneOf") {
            let fitting =
                one.iter().filter(|part| self.check(part, value, &mut path.clone(), hops).is_ok()).count();
            if fitting != 1 {
                return Err(at(
                    path,
                    &format!("the value fits {fitting} of the schema's oneOf, not exactly one"),
                ));
            }
        }
        if let Some(not) = schema.get("not") {
            if self.check(not, value, &mut path.clone(), hops).is_ok() {
                return Err(at(path, "the value fits the schema's not"));
            }
        }
        Ok(())
    }

    fn object(
        &self,
        schema: &'a Map<String, Value>,
        object: &Map<String, Value>,
        path: &mut String,
    ) -> Checked {
        if let Some(Value::Array(required)) = schema.get("required") {
            for key in required.iter().filter_map(Value::as_str) {
                if !object.contains_key(key) {
                    return Err(at(path, &format!("the required property {} is missing", quoted(key))));
                }
            }
        }
        bounds(schema, "minProperties", "maxProperties", object.len(), "properties", path)?;
        let properties = schema.get("properties").and_then(Value::as_object);
        let additional = schema.get("additionalProperties");
        for (key, value) in object {
            let length = path.len();
            path.push('/');
            path.push_str(&key.replace('~', "~0").replace('/', "~1"));
            let result = match properties.and_then(|properties| properties.get(key)) {
                Some(property) => self.check(property, value, path, 0),
                None => match additional {
                    Some(Value::Bool(false)) => Err(at(path, "the schema admits no such property")),
                    Some(additional) => self.check(additional, value, path, 0),
                    None => Ok(()),
                },
            };
            path.truncate(length);
            result?;
        }
        Ok(())
    }

    fn array(&self, schema: &'a Map<String, Value>, items: &[Value], path: &mut String) -> Checked {
        bounds(schema, "minItems", "maxItems", items.len(), "items", path)?;
        let prefix = match schema.get("prefixItems") {
            Some(Value::Array(prefix)) => prefix.as_slice(),
            _ => &[],
        };
        // Draft 4-7 wrote a tuple as `items: [...]`.
        let (prefix, rest) = match schema.get("items") {
            Some(Value::Array(tuple)) if prefix.is_empty() => {
                (tuple.as_slice(), schema.get("additionalItems"))
            }
            rest => (prefix, rest),
        };
        for (index, item) in items.iter().enumerate() {
            let length = path.len();
            path.push('/');
            path.push_str(&index.to_string());
            let result = match prefix.get(index).or(rest) {
                Some(item_schema) => self.check(item_schema, item, path, 0),
                None => Ok(()),
            };
            path.truncate(length);
            result?;
        }
        Ok(())
    }

    /// The schema a local `$ref` names: `#`, `#/definitions/…`, `#/$defs/…`
    /// or any other JSON Pointer into the root.
    fn resolve(&self, reference: &Value) -> Option<&'a Value> {
        let pointer = reference.as_str()?.strip_prefix('#')?;
        if pointer.is_empty() {
            return Some(self.root);
        }
        let mut target = self.root;
        for token in pointer.strip_prefix('/')?.split('/') {
            let token = token.replace("~1", "/").replace("~0", "~");
            target = match target {
                Value::Object(object) => object.get(&token)?,
                Value::Array(items) => items.get(token.parse::<usize>().ok()?)?,
                _ => return None,
            };
        }
        Some(target)
    }
}

fn string(schema: &Map<String, Value>, text: &str, path: &str) -> Checked {
    // JSON Schema counts a string's length in code points.
    bounds(schema, "minLength", "maxLength", text.chars().count(), "characters", path)
}

fn number(schema: &Map<String, Value>, value: &Value, path: &str) -> Checked {
    let Some(number) = value.as_f64() else { return Ok(()) };
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    let fails = bound("minimum").is_some_and(|least| number < least)
        || bound("maximum").is_some_and(|most| number > most)
        || bound("exclusiveMinimum").is_some_and(|least| number <= least)
        || bound("exclusiveMaximum").is_some_and(|most| number >= most)
        || schema.get("exclusiveMinimum") == Some(&Value::Bool(true))
            && bound("minimum").is_some_and(|least| number <= least)
        || schema.get("exclusiveMaximum") == Some(&Value::Bool(true))
            && bound("maximum").is_some_and(|most| number >= most);
    if fails {
        return Err(at(path, &format!("{number} is outside the schema's bounds")));
    }
    if let Some(step) = bound("multipleOf").filter(|step| *step > 0.0) {
        let quotient = number / step;
        if (quotient - quotient.round()).abs() > 1e-9 {
            return Err(at(path, &format!("{number} is not a multiple of {step}")));
        }
    }
    Ok(())
}

fn bounds(
    schema: &Map<String, Value>,
    least: &str,
    most: &str,
    count: usize,
    what: &str,
    path: &str,
) -> Checked {
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    let count_f = count as f64;
    if bound(least).is_some_and(|least| count_f < least) || bound(most).is_some_and(|most| count_f > most) {
        return Err(at(path, &format!("{count} {what} is outside the schema's bounds")));
    }
    Ok(())
}

fn is_type(name: &str, value: &Value) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|number| number.fract() == 0.0),
        // A type this test does not know constrains nothing.
        _ => true,
    }
}

/// Whether two JSON values are equal as JSON Schema compares them: numbers
/// by value (`1` and `1.0` are one number).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y)),
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(key, x)| y.get(key).is_some_and(|y| same(x, y)))
        }
        _ => a == b,
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn type_names(types: &Value) -> String {
    match types {
        Value::Array(names) => names.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" or "),
        Value::String(name) => name.clone(),
        _ => String::from("?"),
    }
}

fn quoted(key: &str) -> String {
    Value::String(key.to_owned()).to_string()
}

fn at(path: &str, why: &str) -> String {
    if path.is_empty() {
        why.to_owned()
    } else {
        format!("at {path}: {why}")
    }
}

#[cfg(test)]
mod tests;
