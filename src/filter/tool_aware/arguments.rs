//! Arguments that are not plain JSON: a parameter's text as a JSON scalar
//! or a string, lenient JSON (marked lone surrogates, loose objects), and
//! pythonic `k=v` arguments.

use serde_json::{Map, Value};

use crate::filter::json::{readable, unmarked};

/// A tag's text content, with one line break trimmed at each end.
pub(super) fn trimmed(units: &[u16]) -> String {
    let text = String::from_utf16_lossy(units);
    let text = text.strip_prefix('\n').unwrap_or(&text);
    let text = text.strip_suffix('\n').unwrap_or(text);
    text.to_owned()
}

/// A tag's text content as a value: JSON when it is JSON (a number, an
/// object), else the text, with one line break trimmed at each end.
pub(super) fn scalar(units: &[u16]) -> Value {
    let text = trimmed(units);
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(
            value @ (Value::Number(_) | Value::Bool(_) | Value::Null | Value::Object(_) | Value::Array(_)),
        ) => value,
        _ => Value::String(text),
    }
}

/// `text` parsed as JSON, a lone surrogate in it read as U+FFFD (see
/// [`marked_json`]).
pub(super) fn lenient_json(text: &[u16]) -> Option<Value> {
    marked_json(text).map(|(value, marked)| if marked { lossy(value) } else { value })
}

/// `value` with its marked strings (see [`readable`]) read lossily: a lone
/// surrogate as U+FFFD.
pub(super) fn lossy(value: Value) -> Value {
    let lossy_string = |text: String| String::from_utf16_lossy(&unmarked(&text));
    match value {
        Value::String(text) => Value::String(lossy_string(text)),
        Value::Array(items) => Value::Array(items.into_iter().map(lossy).collect()),
        Value::Object(fields) => {
            Value::Object(fields.into_iter().map(|(key, item)| (lossy_string(key), lossy(item))).collect())
        }
        other => other,
    }
}

/// `text` parsed as JSON, with its lone surrogates (raw or escaped) kept
/// marked in its strings (see [`readable`]), and whether any is; failing
/// that, parsed again with the raw line breaks and tabs that models write
/// inside strings escaped.
pub(super) fn marked_json(text: &[u16]) -> Option<(Value, bool)> {
    let (text, marked) = readable(text);
    if let Ok(value) = serde_json::from_str::<Value>(&text) {
        return Some((value, marked));
    }
    let mut escaped = String::with_capacity(text.len() + 16);
    let (mut in_string, mut backslash) = (false, false);
    for c in text.chars() {
        match (in_string, backslash, c) {
            (true, false, '\n') => escaped.push_str("\\n"),
            (true, false, '\r') => escaped.push_str("\\r"),
            (true, false, '\t') => escaped.push_str("\\t"),
            _ => escaped.push(c),
        }
        match (in_string, backslash, c) {
            (true, false, '\\') => backslash = true,
            (true, true, _) => backslash = false,
            (_, false, '"') => in_string = !in_string,
            _ => {}
        }
    }
    serde_json::from_str(&escaped).ok().map(|value| (value, marked))
}

/// Pythonic keyword arguments (`city="Paris", days=3`, or `city: "Paris"`)
/// as a JSON object.
pub(super) fn pythonic(units: &[u16]) -> Option<Value> {
    keyword_arguments(units, &['=', ':'])
}

/// Python's own keyword arguments, `city="Paris", days=3` (no `:`), at
/// least one, each value a literal: as a JSON object.
pub(super) fn python_keywords(units: &[u16]) -> Option<Value> {
    keyword_arguments(units, &['='])
        .filter(|value| value.as_object().is_some_and(|object| !object.is_empty()))
}

/// Keyword arguments, each key and its value between one of `separators`.
fn keyword_arguments(units: &[u16], separators: &[char]) -> Option<Value> {
    let text = String::from_utf16_lossy(units);
    let mut reader = Py { chars: text.chars().collect(), at: 0 };
    let mut object = Map::new();
    reader.space();
    if reader.done() {
        return Some(Value::Object(object));
    }
    loop {
        reader.space();
        let key = reader.identifier()?;
        reader.space();
        if !separators.contains(&reader.next()?) {
            return None;
        }
        let value = reader.value(0)?;
        object.insert(key, value);
        reader.space();
        if reader.done() {
            return Some(Value::Object(object));
        }
        if reader.next()? != ',' {
            return None;
        }
        reader.space();
        if reader.done() {
            return Some(Value::Object(object));
        }
    }
}

/// A loose object (`{city:<|"|>Paris<|"|>, days:3}`, `{command:"ls"}`): keys
/// bare or quoted, strings in quotes or between `<|"|>` or `<escape>`.
pub(super) fn loose(units: &[u16]) -> Option<Value> {
    let text = String::from_utf16_lossy(units);
    let mut reader = Py { chars: text.chars().collect(), at: 0 };
    let value = reader.value(0)?;
    reader.space();
    (reader.done() && value.is_object()).then_some(value)
}

struct Py {
    chars: Vec<char>,
    at: usize,
}

impl Py {
    fn done(&self) -> bool {
        self.at >= self.chars.len()
    }
    pub(super) fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }
    pub(super) fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
    }
    fn starts_with(&self, text: &str) -> bool {
        let mut rest = self.chars.get(self.at..).unwrap_or(&[]).iter();
        text.chars().all(|c| rest.next() == Some(&c))
    }
    fn space(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
    }
    fn identifier(&mut self) -> Option<String> {
        let start = self.at;
        while self.peek().is_some_and(|c| c.is_alphanumeric() || c == '_') {
            self.at += 1;
        }
        (self.at > start).then(|| self.chars[start..self.at].iter().collect())
    }
    /// A string between two `delimiter`s, the first at the reader.
    fn delimited(&mut self, delimiter: &str) -> Option<Value> {
        self.at += delimiter.chars().count();
        let start = self.at;
        while !self.starts_with(delimiter) {
            self.next()?;
        }
        let text: String = self.chars[start..self.at].iter().collect();
        self.at += delimiter.chars().count();
        Some(Value::String(text))
    }
    fn value(&mut self, depth: usize) -> Option<Value> {
        if depth > 32 {
            return None;
        }
        self.space();
        match self.peek()? {
            q @ ('"' | '\'') => {
                self.at += 1;
                let mut out = String::new();
                loop {
                    match self.next()? {
                        '\\' => match self.next()? {
                            'n' => out.push('\n'),
                            't' => out.push('\t'),
                            c => out.push(c),
                        },
                        c if c == q => return Some(Value::String(out)),
                        c => out.push(c),
                    }
                }
            }
            '<' if self.starts_with("<|\"|>") => self.delimited("<|\"|>"),
            '<' if self.starts_with("<escape>") => self.delimited("<escape>"),
            open @ ('[' | '(') => {
                self.at += 1;
                let close = if open == '[' { ']' } else { ')' };
                let mut items = Vec::new();
                loop {
                    self.space();
                    if self.peek()? == close {
                        self.at += 1;
                        return Some(Value::Array(items));
                    }
                    items.push(self.value(depth + 1)?);
                    self.space();
                    match self.next()? {
                        ',' => {}
                        c if c == close => return Some(Value::Array(items)),
                        _ => return None,
                    }
                }
            }
            '{' => {
                self.at += 1;
                let mut object = Map::new();
                loop {
                    self.space();
                    if self.peek()? == '}' {
                        self.at += 1;
                        return Some(Value::Object(object));
                    }
                    let key = match self.peek()? {
                        '"' | '\'' => match self.value(depth + 1)? {
                            Value::String(key) => key,
                            _ => return None,
                        },
                        _ => self.identifier()?,
                    };
                    self.space();
                    if !matches!(self.next()?, ':' | '=') {
                        return None;
                    }
                    object.insert(key, self.value(depth + 1)?);
                    self.space();
                    match self.next()? {
                        ',' => {}
                        '}' => return Some(Value::Object(object)),
                        _ => return None,
                    }
                }
            }
            _ => {
                let start = self.at;
                while self.peek().is_some_and(|c| c.is_alphanumeric() || matches!(c, '.' | '-' | '+' | '_')) {
                    self.at += 1;
                }
                let word: String = self.chars[start..self.at].iter().collect();
                match word.as_str() {
                    "True" | "true" => Some(Value::Bool(true)),
                    "False" | "false" => Some(Value::Bool(false)),
                    "None" | "null" => Some(Value::Null),
                    _ => serde_json::from_str::<serde_json::Number>(&word).ok().map(Value::Number),
                }
            }
        }
    }
}
