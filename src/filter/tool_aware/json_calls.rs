//! JSON calls: a call written as a JSON object or array (straight or
//! typographic quotes, or `tool => "NAME"`), the calls such a value makes,
//! and the JSON arguments of any head.

use serde_json::{Map, Value};

use super::arguments::{lenient_json, loose, lossy, marked_json};
use super::keys::{only_call_keys, ARGUMENT_KEYS, CALL_KEYS, NAME_KEYS};
use super::reader::{Reader, MAX_CALL_DEPTH, MAX_WORD};
use super::text::{ascii, is_space, Reading, Stop, LEFT_QUOTE, RIGHT_QUOTE};
use super::unoffered::may_quote_a_tool;
use crate::filter::json::{unmarked, JsonScan, Step};
use crate::filter::strip::{CalledTool, ParsedCall};

impl Reader<'_> {
    /// A JSON object or array that is a call (or calls) to offered tools.
    pub(super) fn json_head(&self, at: usize) -> Reading<Option<(Vec<ParsedCall>, usize)>> {
        self.json_head_of(at, false)
    }

    /// [`json_head`](Self::json_head); with `unoffered`, a call may also
    /// name a tool that was not offered (see [`unoffered_call`](Self::unoffered_call)).
    pub(super) fn json_head_of(
        &self,
        at: usize,
        unoffered: bool,
    ) -> Reading<Option<(Vec<ParsedCall>, usize)>> {
        let end = match self.call_shaped_json(at) {
            Ok(end) => end,
            Err(Stop::No) => return self.curly_head(at, unoffered),
            Err(more) => return Err(more),
        };
        let (value, marked) = marked_json(&self.text[at..end]).ok_or(Stop::No)?;
        let mut calls = Vec::new();
        if !self.json_calls(&value, marked, unoffered, &mut calls) || calls.is_empty() {
            return Err(Stop::No);
        }
        Ok(Some((calls, end)))
    }

    /// A JSON call written with typographic quotes (`{“name”: “…”, …}`).
    fn curly_head(&self, at: usize, unoffered: bool) -> Reading<Option<(Vec<ParsedCall>, usize)>> {
        if !self.is(at, b'{')? || self.unit(self.skip_space(at + 1)?)? != LEFT_QUOTE {
            return Err(Stop::No);
        }
        let end = self.balanced(at, false)?;
        let straight: Vec<u16> = self.text[at..end]
            .iter()
            .map(|&u| if u == LEFT_QUOTE || u == RIGHT_QUOTE { u16::from(b'"') } else { u })
            .collect();
        let (value, marked) = marked_json(&straight).ok_or(Stop::No)?;
        let mut calls = Vec::new();
        if !only_call_keys(&value, 0)
            || !self.json_calls(&value, marked, unoffered, &mut calls)
            || calls.is_empty()
        {
            return Err(Stop::No);
        }
        Ok(Some((calls, end)))
    }

    /// `{tool => "NAME", args => {…}}` (MiniMax's bracketed calls), or the
    /// same with `:` or `=`: a loose object whose first key names the tool.
    pub(super) fn arrow_head(&self, at: usize) -> Reading<Option<(ParsedCall, usize)>> {
        let key = self.skip_space(at + 1)?;
        let mut i = key;
        while i - key < MAX_WORD && self.byte(i)?.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_') {
            i += 1;
        }
        let word = String::from_utf16_lossy(&self.text[key..i]);
        if !["tool", "name", "function", "tool_name"].contains(&word.as_str()) {
            return Ok(None);
        }
        let Some(next) = self.arrow(i)? else { return Ok(None) };
        let quote_at = self.skip_space(next)?;
        let Some(q @ (b'"' | b'\'')) = self.byte(quote_at)? else { return Ok(None) };
        let Some((tool, name_end)) = self.name_at(quote_at + 1)? else { return Ok(None) };
        if !self.is(name_end, q)? {
            return Ok(None);
        }
        self.named.set(true);
        let end = self.balanced(at, true)?;
        // The arguments: the value of the next key, if it is a group.
        let mut input = Ok(Value::Object(Map::new()));
        let mut j = self.skip_space(name_end + 1)?;
        if self.is(j, b',')? {
            j = self.skip_space(j + 1)?;
            while j < end && self.byte(j)?.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_') {
                j += 1;
            }
            if let Some(value) = self.arrow(j)? {
                let value = self.skip_space(value)?;
                if value < end && matches!(self.byte(value)?, Some(b'{' | b'[')) {
                    let close = self.balanced(value, true)?.min(end);
                    let raw = &self.text[value..close];
                    input = lenient_json(raw).or_else(|| loose(raw)).ok_or_else(|| raw.to_vec());
                }
            }
        }
        Ok(Some((ParsedCall::offered(tool, input), end)))
    }

    /// `=>`, `:` or `=` at `at` (after blanks): where it ends.
    fn arrow(&self, at: usize) -> Reading<Option<usize>> {
        let at = self.skip_blank(at)?;
        if self.literal(at, "=>")? {
            return Ok(Some(at + 2));
        }
        Ok(matches!(self.byte(at)?, Some(b':' | b'=')).then_some(at + 1))
    }

    /// Where a JSON value that could be a call ends. Fails as soon as a key
    /// outside a call's vocabulary appears outside the arguments.
    fn call_shaped_json(&self, at: usize) -> Reading<usize> {
        // Containers open: whether each is inside arguments (free).
        let mut open: Vec<(u8, bool)> = Vec::new();
        let mut i = at;
        // Inside an object, whether the next string is a key.
        let mut expect_key = false;
        // The freedom of the value that comes after the key just read.
        let mut value_free = false;
        // The value after the key just read names the tool.
        let mut naming = false;
        loop {
            let unit = self.unit(i)?;
            let byte = ascii(unit).ok_or(Stop::No)?;
            match byte {
                b'{' | b'[' => {
                    let free = match open.last() {
                        None => false,
                        Some(&(b'{', free)) => free || value_free,
                        Some(&(_, free)) => free,
                    };
                    if !free && open.len() >= MAX_CALL_DEPTH {
                        return Err(Stop::No);
                    }
                    open.push((byte, free));
                    expect_key = byte == b'{';
                    i += 1;
                }
                b'}' | b']' => {
                    let Some((kind, _)) = open.pop() else { return Err(Stop::No) };
                    if (kind == b'{') != (byte == b'}') {
                        return Err(Stop::No);
                    }
                    i += 1;
                    if open.is_empty() {
                        return Ok(i);
                    }
                    expect_key = false;
                }
                b'"' => {
                    let end = self.json_string_end(i)?;
                    if expect_key {
                        let &(_, free) = open.last().ok_or(Stop::No)?;
                        if !free {
                            let key = String::from_utf16_lossy(&self.text[i + 1..end - 1]);
                            if ARGUMENT_KEYS.contains(&key.as_str()) {
                                value_free = true;
                            } else if CALL_KEYS.contains(&key.as_str()) {
                                value_free = false;
                                naming = NAME_KEYS.contains(&key.as_str());
                            } else {
                                return Err(Stop::No);
                            }
                        }
                        expect_key = false;
                    } else if naming {
                        // A call to an offered tool has begun.
                        if self.tools.json_named(&self.text[i..end]).is_some() {
                            self.named.set(true);
                        }
                        naming = false;
                    }
                    i = end;
                }
                b',' => {
                    expect_key = matches!(open.last(), Some(&(b'{', _)));
                    i += 1;
                }
                b':' => i += 1,
                _ if is_space(byte) => i += 1,
                b'-'
                | b'0'..=b'9'
                | b'.'
                | b'e'
                | b'E'
                | b'+'
                | b't'
                | b'r'
                | b'u'
                | b'f'
                | b'a'
                | b'l'
                | b's'
                | b'n'
                    if !open.is_empty() =>
                {
                    i += 1
                }
                _ => return Err(Stop::No),
            }
            if open.is_empty() {
                return Err(Stop::No);
            }
        }
    }

    /// Where the JSON string starting at `at` (its quote) ends.
    fn json_string_end(&self, at: usize) -> Reading<usize> {
        let mut i = at + 1;
        loop {
            let unit = self.unit(i)?;
            if unit == u16::from(b'\\') {
                self.unit(i + 1)?;
                i += 2;
                continue;
            }
            i += 1;
            if unit == u16::from(b'"') {
                return Ok(i);
            }
        }
    }

    /// The calls a JSON value makes, if it is nothing but calls. `value` as
    /// [`marked_json`] reads it: its names are compared unit for unit, and
    /// when it is `marked`, a lone surrogate in the arguments reads as
    /// U+FFFD. With `unoffered`, a call may name a tool that was not
    /// offered, if it has the whole shape of a call: a name that could be
    /// a tool's and arguments that are an object (or a JSON string of one).
    fn json_calls(&self, value: &Value, marked: bool, unoffered: bool, calls: &mut Vec<ParsedCall>) -> bool {
        match value {
            Value::Array(items) => {
                !items.is_empty() && items.iter().all(|item| self.json_calls(item, marked, unoffered, calls))
            }
            Value::Object(fields) => {
                if let Some(Value::Array(list)) = fields.get("tool_calls") {
                    return fields.len() == 1
                        && !list.is_empty()
                        && list.iter().all(|item| self.json_calls(item, marked, unoffered, calls));
                }
                if let Some(Value::Object(function)) = fields.get("function") {
                    return self.json_calls(&Value::Object(function.clone()), marked, unoffered, calls);
                }
                let input = ARGUMENT_KEYS.iter().find_map(|key| fields.get(*key)).cloned();
                let offered = NAME_KEYS.iter().find_map(|key| match fields.get(*key) {
                    Some(Value::String(name)) => self.tools.named(&unmarked(name)),
                    _ => None,
                });
                let tool = match offered {
                    Some(tool) => CalledTool::Offered(tool),
                    None if unoffered => {
                        let name = NAME_KEYS.iter().find_map(|key| match fields.get(*key) {
                            Some(Value::String(name)) => Some(unmarked(name)),
                            _ => None,
                        });
                        let body = match &input {
                            Some(Value::Object(_)) => true,
                            Some(Value::String(text)) => {
                                matches!(serde_json::from_str::<Value>(text), Ok(Value::Object(_)))
                            }
                            _ => false,
                        };
                        match name {
                            Some(name) if body && may_quote_a_tool(&name) => CalledTool::Unoffered(name),
                            _ => return false,
                        }
                    }
                    None => return false,
                };
                // Arguments that are a JSON Schema (`type` and `properties`):
                // a tool's definition, not a call.
                if let Some(Value::Object(schema)) = &input {
                    if schema.contains_key("type") && schema.contains_key("properties") {
                        return false;
                    }
                }
                let input = match input {
                    None => Value::Object(Map::new()),
                    // OpenAI writes the arguments as a JSON string.
                    Some(Value::String(text)) => match serde_json::from_str::<Value>(&text) {
                        Ok(parsed @ Value::Object(_)) => parsed,
                        _ => {
                            calls.push(ParsedCall { tool, input: Err(unmarked(&text)) });
                            return true;
                        }
                    },
                    Some(other) => other,
                };
                let input = if marked { lossy(input) } else { input };
                calls.push(ParsedCall { tool, input: Ok(input) });
                true
            }
            _ => false,
        }
    }

    /// A JSON object of arguments at `at` (or, failing JSON, a balanced
    /// group: read as a loose object, else kept raw): the input and where
    /// it ends.
    pub(super) fn json_arguments(&self, at: usize) -> Reading<(Result<Value, Vec<u16>>, usize)> {
        let mut scan = JsonScan::new();
        let mut i = at;
        loop {
            match scan.step(self.unit(i)?) {
                Step::More => i += 1,
                Step::Done => {
                    let raw = &self.text[at..=i];
                    return Ok((lenient_json(raw).ok_or_else(|| raw.to_vec()), i + 1));
                }
                Step::Invalid => break,
            }
        }
        // Not JSON: a balanced `{…}` (Gemma's `{city:<|"|>Paris<|"|>}`).
        let end = self.balanced(at, false)?;
        let raw = &self.text[at..end];
        Ok((loose(raw).ok_or_else(|| raw.to_vec()), end))
    }

    /// Where the group opened at `at` (`(`, `[` or `{`) closes; strings in
    /// quotes are skipped when `quotes`.
    pub(super) fn balanced(&self, at: usize, quotes: bool) -> Reading<usize> {
        let mut depth = 0usize;
        let mut i = at;
        loop {
            let byte = self.byte(i)?;
            match byte {
                Some(b'(' | b'[' | b'{') => depth += 1,
                Some(b')' | b']' | b'}') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Ok(i + 1);
                    }
                }
                Some(q @ (b'"' | b'\'')) if quotes => {
                    i += 1;
                    loop {
                        let unit = self.unit(i)?;
                        if unit == u16::from(b'\\') {
                            i += 2;
                            continue;
                        }
                        if unit == u16::from(q) {
                            break;
                        }
                        i += 1;
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
}
