//! Attribute heads: a call whose head is a word with attributes between
//! special tokens, the tool named by an attribute, each argument an entry
//! of its own (Kimi K3's XTML, and any family that writes the same shape
//! with tokens of its own):
//!
//! ```text
//! <|open|>tools<|sep|>
//! <|open|>call tool="NAME" index="1"<|sep|>
//! <|open|>argument key="K" type="number"<|sep|>3<|close|>argument<|sep|>
//! <|close|>call<|sep|><|close|>tools<|sep|>
//! ```
//!
//! Why it cannot fire on prose or code: the head must follow a special
//! token, its attributes must be quoted and only a call's (one naming an
//! offered tool, the rest `id`, `type`, `index` and the like), and another
//! special token must end it. An HTML or XML element carries its attributes
//! inside `<…>`, never between two `<|…|>` tokens, and prose has none.

use serde_json::{Map, Value};

use super::arguments::{scalar, trimmed};
use super::keys::{CALL_ATTRIBUTES, NAME_ATTRIBUTES};
use super::reader::{Level, Reader, MAX_OPENERS, MAX_WORD};
use super::text::{ascii, is_word, optional, Reading, Stop, FULL_BAR};
use crate::filter::strip::ParsedCall;
use crate::filter::tool_names::MAX_NAME;

/// The keys of an entry's attribute that names its argument.
const KEY_ATTRIBUTES: [&str; 2] = ["key", "name"];

/// A word with attributes: `call tool="NAME" index="1"`.
struct Attributed {
    word: Vec<u16>,
    attributes: Vec<(Vec<u16>, String)>,
    end: usize,
}

impl Reader<'_> {
    /// `word attrs<|sep|>` right after a special token, an attribute naming
    /// an offered tool, then its entries (or a JSON object) and its closers:
    /// the call and where it ends.
    pub(super) fn attribute_head(&self, at: usize, level: Level) -> Reading<Option<(ParsedCall, usize)>> {
        if level != Level::Strong || !self.after_token(at) {
            return Ok(None);
        }
        let Some(head) = self.attributed(at)? else { return Ok(None) };
        let mut tool = None;
        for (key, value) in &head.attributes {
            let key = String::from_utf16_lossy(key);
            if tool.is_none() && NAME_ATTRIBUTES.contains(&key.as_str()) {
                let units: Vec<u16> = value.encode_utf16().collect();
                if let Some(found) = self.tools.named(&units) {
                    tool = Some(found);
                    continue;
                }
            }
            if !CALL_ATTRIBUTES.contains(&key.as_str()) {
                return Ok(None);
            }
        }
        let Some(tool) = tool else { return Ok(None) };
        let Some(separator) = self.token_after_blanks(head.end)? else { return Ok(None) };
        self.named.set(true);
        let (input, end) = self.entries(separator, tool)?;
        let end = self.token_run(end)?;
        Ok(Some((ParsedCall::offered(tool, input), end)))
    }

    /// Whether a special token ends right before `at` (blanks between allowed).
    fn after_token(&self, at: usize) -> bool {
        let mut i = at;
        while i > 0 && matches!(ascii(self.text[i - 1]), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            i -= 1;
        }
        i >= 2
            && self.text[i - 1] == u16::from(b'>')
            && (self.text[i - 2] == u16::from(b'|') || self.text[i - 2] == FULL_BAR)
    }

    /// A word then at least one quoted attribute, at `at`.
    fn attributed(&self, at: usize) -> Reading<Option<Attributed>> {
        if !self.byte(at)?.is_some_and(|b| b.is_ascii_alphabetic()) {
            return Ok(None);
        }
        let mut i = at;
        while self.byte(i)?.is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')) {
            i += 1;
            if i - at > MAX_WORD {
                return Ok(None);
            }
        }
        let word = self.text[at..i].to_vec();
        let mut attributes = Vec::new();
        loop {
            let blanks = i;
            while matches!(self.byte(i)?, Some(b' ' | b'\t')) {
                i += 1;
            }
            if i == blanks || !self.byte(i)?.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_') {
                return Ok((!attributes.is_empty()).then_some(Attributed { word, attributes, end: blanks }));
            }
            let key_at = i;
            while self.byte(i)?.is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')) {
                i += 1;
                if i - key_at > MAX_WORD {
                    return Ok(None);
                }
            }
            let key = self.text[key_at..i].to_vec();
            if !self.is(i, b'=')? {
                return Ok(None);
            }
            let Some(quote @ (b'"' | b'\'')) = self.byte(i + 1)? else { return Ok(None) };
            let value_at = i + 2;
            i = value_at;
            loop {
                let unit = self.unit(i)?;
                if unit == u16::from(quote) {
                    break;
                }
                if unit == u16::from(b'\n') || i - value_at > MAX_NAME * 6 {
                    return Ok(None);
                }
                i += 1;
            }
            attributes.push((key, unescaped(&self.text[value_at..i])));
            i += 1;
            if i - at > MAX_OPENERS + MAX_NAME * 6 {
                return Ok(None);
            }
        }
    }

    /// A special token at `at` after blanks: where it ends.
    fn token_after_blanks(&self, at: usize) -> Reading<Option<usize>> {
        let mut i = at;
        while matches!(self.byte(i)?, Some(b' ' | b'\t')) {
            i += 1;
        }
        self.special_token(i)
    }

    /// A call's body from `at`: its argument entries, a JSON object, or
    /// nothing. The arguments and where they end.
    fn entries(&self, at: usize, tool: usize) -> Reading<(Result<Value, Vec<u16>>, usize)> {
        let mut object = Map::new();
        let mut end = at;
        loop {
            // (A call whose closers the text's end cut off ends here.)
            let from = match self.skip_space(end) {
                Err(Stop::No) => break,
                other => other?,
            };
            if object.is_empty() && self.is(from, b'{')? {
                return self.json_arguments(from);
            }
            let Some(token_end) = self.special_token(from)? else { break };
            let Some(entry) = self.attributed(token_end)? else { break };
            let Some(value_at) = self.token_after_blanks(entry.end)? else { break };
            let mut key = None;
            let mut kind = None;
            for (name, value) in &entry.attributes {
                let name = String::from_utf16_lossy(name);
                if KEY_ATTRIBUTES.contains(&name.as_str()) && key.is_none() {
                    key = Some(value.clone());
                } else if name == "type" {
                    kind = Some(value.clone());
                } else {
                    return Err(Stop::No);
                }
            }
            let (value, after) = self.entry_value(value_at, &entry.word)?;
            match key {
                Some(key) if !key.is_empty() && self.tools.accepts_key(tool, &key) => {
                    object.insert(key, typed(&value, kind.as_deref()));
                }
                // `<|open|>json type="object"<|sep|>{…}<|close|>json<|sep|>`: the arguments whole.
                None if object.is_empty() => {
                    let text = String::from_utf16_lossy(&value);
                    return Ok((serde_json::from_str(text.trim()).map_err(|_| value), after));
                }
                _ => return Err(Stop::No),
            }
            end = after;
        }
        Ok((Ok(Value::Object(object)), end))
    }

    /// An entry's value from `at` up to the next special token, and where
    /// the entry ends: after its closer (`<|close|>word<|sep|>`), or, where
    /// a garbled stream lost the closing token and glued the entry's word
    /// to the value (`src/rendererargument<|sep|>`), after that token with
    /// the word taken off the value.
    fn entry_value(&self, at: usize, word: &[u16]) -> Reading<(Vec<u16>, usize)> {
        let mut i = at;
        let token_end = loop {
            if let Some(end) = self.special_token(i)? {
                break end;
            }
            self.unit(i)?;
            i += 1;
        };
        let value = &self.text[at..i];
        if let Some(word_end) = self.glued_word(token_end)? {
            if let Some(end) = self.special_token(word_end)? {
                return Ok((value.to_vec(), end));
            }
        }
        match value.strip_suffix(word) {
            Some(stripped) => Ok((stripped.to_vec(), token_end)),
            None => Ok((value.to_vec(), i)),
        }
    }

    /// Special tokens from `at`, and the words glued between two of them
    /// (`<|close|>call<|sep|><|close|>tools<|sep|>`), space between allowed;
    /// stops before a token that opens another attribute head. Where the
    /// run ends (`at` if none is there).
    pub(super) fn token_run(&self, at: usize) -> Reading<usize> {
        let mut end = at;
        loop {
            let from = match self.skip_space(end) {
                Err(Stop::No) => return Ok(end),
                other => other?,
            };
            let Some(token_end) = self.special_token(from).or_else(none_at_end)? else { return Ok(end) };
            if optional(self.attributed(token_end))?.is_some() {
                return Ok(end);
            }
            end = token_end;
            if let Some(word_end) = self.glued_word(token_end).or_else(none_at_end)? {
                if self.special_token(word_end).or_else(none_at_end)?.is_some() {
                    end = word_end;
                }
            }
        }
    }

    /// A word of lowercase letters, digits and `_` (a role's, a channel's,
    /// a closer's: `call`, `assistant`; not a sentence's `Hello`) at `at`
    /// followed by a special token's `<`: where the word ends.
    pub(super) fn glued_word(&self, at: usize) -> Reading<Option<usize>> {
        let mut i = at;
        while self
            .peek(i)?
            .is_some_and(|unit| is_word(unit) && !ascii(unit).is_some_and(|b| b.is_ascii_uppercase()))
        {
            i += 1;
            if i - at > MAX_WORD {
                return Ok(None);
            }
        }
        Ok((i > at && self.is_there(i, b'<')?).then_some(i))
    }
}

/// The end of a complete text is no token.
fn none_at_end<T>(stop: Stop) -> Reading<Option<T>> {
    match stop {
        Stop::No => Ok(None),
        more => Err(more),
    }
}

/// An attribute's value with the escapes a template writes (`&quot;`,
/// `&amp;`, `&lt;`, `&gt;`, `&apos;`) read.
fn unescaped(units: &[u16]) -> String {
    let text = String::from_utf16_lossy(units);
    if !text.contains('&') {
        return text;
    }
    text.replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

/// An entry's value as its `type` says: a string as written (one line
/// break trimmed at each end), any other type as JSON when it parses; with
/// no type, JSON when it looks like a number, boolean, null, object or array.
fn typed(value: &[u16], kind: Option<&str>) -> Value {
    match kind {
        Some("string" | "str") => Value::String(trimmed(value)),
        Some(_) | None => scalar(value),
    }
}
