//! Bare heads: a tool's name outside any tag or JSON (`functions.NAME`,
//! `default_api:NAME`, `NAME[ARGS]`, `NAME(…)`), and the gap between it and
//! its arguments.

use serde_json::{Map, Value};

use super::arguments::pythonic;
use super::reader::{Level, Reader, DISTINCTIVE, MAX_GAP_JUNK, MAX_GAP_WORDS, MAX_OPENERS};
use super::text::{ascii, is_space, is_word, Reading, Stop};
use crate::filter::strip::ParsedCall;

impl Reader<'_> {
    /// A tool's name outside any tag or JSON: `functions.NAME`,
    /// `to=functions.NAME`, `default_api:NAME`, `NAME[ARGS]…`, or `NAME`
    /// with its arguments in any shape, as far as the wrapping allows.
    pub(super) fn bare_head(&self, at: usize, level: Level) -> Reading<Option<(ParsedCall, usize)>> {
        if at > 0 && self.text.get(at - 1).is_some_and(|&u| is_word(u)) {
            return Ok(None);
        }
        let mut name_at = at;
        let mut distinctive = false;
        for prefix in DISTINCTIVE.into_iter().chain(["to="]) {
            if self.literal(at, prefix)? {
                name_at = at + prefix.encode_utf16().count();
                distinctive = prefix != "to=" || level > Level::None;
                break;
            }
        }
        let Some((tool, name_end)) = self.name_at(name_at)? else { return Ok(None) };
        match self.peek(name_end) {
            Ok(Some(unit)) if is_word(unit) => return Ok(None),
            // The text may end right after a distinctive head: a call the
            // end may cut off (see `cut_off_call`).
            Err(Stop::More) if distinctive => {
                self.named.set(true);
                return Err(Stop::More);
            }
            other => {
                other?;
            }
        }
        let no_arguments_allowed = level == Level::Strong && !distinctive;
        if distinctive || no_arguments_allowed {
            self.named.set(true);
        }
        if self.literal(name_end, "[ARGS]")? {
            self.named.set(true);
            let args = self.skip_space(name_end + 6)?;
            if !self.is(args, b'{')? {
                return Ok(None);
            }
            let (input, end) = self.json_arguments(args)?;
            return Ok(Some((ParsedCall::offered(tool, input), end)));
        }
        // `NAME(…)` or `NAME.call(…)`
        let paren = if self.literal(name_end, ".call(")? { name_end + 5 } else { name_end };
        if self.is_there(paren, b'(')? {
            if !distinctive && level < Level::Bracket {
                // No wrapper: a call only as a whole line (see `python_line`).
                return match paren == name_end {
                    true => self.python_line(tool, paren),
                    false => Ok(None),
                };
            }
            self.named.set(true);
            let end = self.balanced(paren, true)?;
            let raw = &self.text[paren + 1..end - 1];
            return Ok(match pythonic(raw) {
                Some(input) => Some((ParsedCall::offered(tool, Ok(input)), end)),
                None if distinctive || level == Level::Strong => {
                    Some((ParsedCall::offered(tool, Err(raw.to_vec())), end))
                }
                None => None,
            });
        }
        // A gap of space, special tokens, markers, an index and short words,
        // then JSON arguments (or key/value tags, or nothing before a closer).
        let no_arguments = Some((ParsedCall::offered(tool, Ok(Value::Object(Map::new()))), name_end));
        let mut i = name_end;
        let mut fence = false;
        let mut token = false;
        let mut words = 0;
        let mut junk = 0;
        while i - name_end <= MAX_OPENERS {
            let only_space = self.text[name_end..i].iter().all(|&u| ascii(u).is_some_and(is_space));
            let unit = match self.unit(i) {
                Ok(unit) => unit,
                // The text ends right after the name: a call with no arguments.
                Err(Stop::No) if no_arguments_allowed && only_space => return Ok(no_arguments),
                Err(stop) => return Err(stop),
            };
            match ascii(unit) {
                Some(b'{') => {
                    if !(distinctive || token || level >= Level::Weak) {
                        return Ok(None);
                    }
                    self.named.set(true);
                    let (input, mut end) = self.json_arguments(i)?;
                    if fence {
                        let close = self.skip_space(end)?;
                        if self.literal(close, "```")? {
                            end = close + 3;
                        }
                    }
                    return Ok(Some((ParsedCall::offered(tool, input), end)));
                }
                Some(b) if is_space(b) => i += 1,
                Some(b':') => {
                    i += 1;
                    while self.byte(i)?.is_some_and(|b| b.is_ascii_digit()) {
                        i += 1;
                    }
                }
                Some(b'`') if self.literal(i, "```")? => {
                    let mut j = i + 3;
                    while self.byte(j)?.is_some_and(|b| b.is_ascii_alphanumeric()) {
                        j += 1;
                    }
                    fence = true;
                    i = j;
                }
                Some(b'[') => {
                    let mut j = i + 1;
                    while self.byte(j)?.is_some_and(|b| b.is_ascii_uppercase() || b == b'_') {
                        j += 1;
                    }
                    if j == i + 1 || !self.is(j, b']')? {
                        return Ok(None);
                    }
                    i = j + 1;
                }
                Some(b'<') => {
                    if let Some(end) = self.special_token(i)? {
                        token = true;
                        i = end;
                        continue;
                    }
                    if self.literal(i, "</")? {
                        // A closer: a call with no arguments, if wrapped so.
                        return Ok(if no_arguments_allowed && only_space { no_arguments } else { None });
                    }
                    if level < Level::Weak {
                        return Ok(None);
                    }
                    self.named.set(true);
                    return Ok(self
                        .key_values(i, tool)?
                        .map(|(object, end)| (ParsedCall::offered(tool, Ok(Value::Object(object))), end)));
                }
                Some(b) if b.is_ascii_lowercase() => {
                    let mut j = i;
                    while self.byte(j)?.is_some_and(|b| b.is_ascii_lowercase()) && j - i < 16 {
                        j += 1;
                    }
                    words += 1;
                    if words > MAX_GAP_WORDS
                        || !self.byte(j)?.is_some_and(|b| is_space(b) || b == b'<' || b == b'{')
                    {
                        return Ok(None);
                    }
                    i = j;
                }
                // Stray tokens of a garbled stream after `to=functions.NAME`.
                None if distinctive && junk < MAX_GAP_JUNK => {
                    junk += 1;
                    i += 1;
                }
                _ => {
                    // Something else: a call with no arguments only right
                    // before a strong wrapper's end.
                    if no_arguments_allowed && i == name_end && matches!(ascii(unit), Some(b']' | b')')) {
                        return Ok(no_arguments);
                    }
                    return Ok(None);
                }
            }
        }
        Ok(None)
    }
}
