//! Calls to a tool that was not on offer: the model made one up, or called
//! one the app withdrew. Such a call is stripped (and reported with its
//! name, marked as not offered, so that nothing runs it), but only in
//! markup no clean text writes.
//!
//! Without an offered name to anchor it, a call is read only where both
//! halves of a call are unmistakable:
//!
//! - a strong wrapper: a special token, or a tag, marker or fence named for
//!   tools or calls (`<tool_call>`, `<|tool_call_begin|>`, `[TOOL_CALLS]`,
//!   ```` ```tool_call ````), which no prose or document writes outside
//!   code, and a fenced block or inline code is never read;
//! - a call-shaped body: a name that could be a tool's (an identifier, see
//!   [`may_name_a_tool`], or in quotes any short line, see
//!   [`may_quote_a_tool`]) in a call's name position, with arguments that
//!   are an object: a JSON call with only a call's keys (a tool's
//!   definition has `description`, a request payload `model` or
//!   `messages`, and arguments that are a JSON Schema are a definition,
//!   see `json_calls`), `<tag name="NAME">` with argument tags or a JSON
//!   object, `functions.NAME:0` or `NAME[ARGS]` with a JSON object.
//!
//! One form needs no wrapper: `<tag=NAME>` with `<parameter=KEY>` argument
//! tags and its closing tag (Qwen3-Coder's call). `<tag=value>` is no
//! well-formed XML or HTML, so no document holds it but as code, which is
//! not read.

use serde_json::Value;

use super::keys::{CALL_ATTRIBUTES, NAME_ATTRIBUTES};
use super::reader::{Level, Reader, MAX_OPENERS};
use super::text::{ascii, is_word, optional, spells, Reading};
use super::wrappers::is_html;
use crate::filter::strip::{CalledTool, ParsedCall};

/// The longest name a call to a tool not on offer may have.
const MAX_UNOFFERED_NAME: usize = 64;

/// Whether `units` could be a tool's name where no offered tool anchors it:
/// an ASCII identifier of up to 64 units, a letter or `_` first, then
/// letters, digits and `_`, `-`, `.` or `:` (`toolbox.web.answer`,
/// `mcp__fs__read`), not ending in punctuation. A sentence, a path with
/// slashes or a title with spaces is none.
pub(super) fn may_name_a_tool(units: &[u16]) -> bool {
    let bytes: Option<Vec<u8>> = units.iter().map(|&unit| ascii(unit)).collect();
    let Some(bytes) = bytes else { return false };
    let (Some(first), Some(last)) = (bytes.first(), bytes.last()) else { return false };
    bytes.len() <= MAX_UNOFFERED_NAME
        && (first.is_ascii_alphabetic() || *first == b'_')
        && (last.is_ascii_alphanumeric() || *last == b'_')
        && bytes.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

/// Whether `units`, quoted where a call's name goes (a JSON call's name, a
/// naming attribute's value), could be a tool's name: up to 64 units on
/// one line, not blank. A quoted name may be a tool's title
/// (`"Apply tags to a document"`): the quotes, not the name, delimit it.
pub(super) fn may_quote_a_tool(units: &[u16]) -> bool {
    units.len() <= MAX_UNOFFERED_NAME
        && units.iter().all(|&unit| unit >= 0x20 && unit != 0x7F)
        && units.iter().any(|&unit| unit != u16::from(b' '))
}

impl Reader<'_> {
    /// A call at `at`, under wrapping `level`, to a tool that was not
    /// offered (see the module doc): the calls (a JSON list may mix them
    /// with calls to offered tools) and where they end.
    pub(super) fn unoffered_call(
        &self,
        at: usize,
        level: Level,
    ) -> Reading<Option<(Vec<ParsedCall>, usize)>> {
        match self.byte(at)? {
            Some(b'{' | b'[') if level == Level::Strong => optional(self.json_head_of(at, true)),
            Some(b'<') => self.unoffered_tag(at, level),
            Some(_) if level == Level::Strong => {
                Ok(self.unoffered_bare(at)?.map(|(call, end)| (vec![call], end)))
            }
            _ => Ok(None),
        }
    }

    /// The tool a name not on offer names, if it may name one: `quoted`,
    /// any name a quoted one may be ([`may_quote_a_tool`]), else an
    /// identifier ([`may_name_a_tool`]).
    fn unoffered(&self, name: &[u16], quoted: bool) -> Option<CalledTool> {
        let may = if quoted { may_quote_a_tool(name) } else { may_name_a_tool(name) };
        (self.tools.named(name).is_none() && may).then(|| CalledTool::Unoffered(name.to_vec()))
    }

    /// `<tag name="NAME">args</tag>` in a strong wrapper, or
    /// `<tag=NAME><parameter=KEY>…</parameter>…</tag>` anywhere.
    fn unoffered_tag(&self, at: usize, level: Level) -> Reading<Option<(Vec<ParsedCall>, usize)>> {
        if self.special_token(at)?.is_some() {
            return Ok(None);
        }
        let Some(tag) = self.tag(at)? else { return Ok(None) };
        if tag.closing || tag.self_closing || is_html(&tag.name) {
            return Ok(None);
        }
        let names = |key: &[u16]| key.is_empty() || NAME_ATTRIBUTES.iter().any(|name| spells(key, name));
        let Some(naming) = tag.attributes.iter().position(|(key, _)| names(key)) else { return Ok(None) };
        let (key, value) = &tag.attributes[naming];
        let equals = key.is_empty();
        if !(equals || level == Level::Strong) {
            return Ok(None);
        }
        let calls_only =
            tag.attributes.iter().enumerate().all(|(index, (key, _))| {
                index == naming || CALL_ATTRIBUTES.iter().any(|name| spells(key, name))
            });
        // (A naming attribute's value is quoted, or an identifier.)
        let Some(tool) = self.unoffered(value, !equals).filter(|_| calls_only) else { return Ok(None) };
        let body = self.skip_space(tag.end)?;
        let (input, after) = match self.byte(body)? {
            Some(b'{') if !equals => match self.json_arguments(body)? {
                (Ok(object @ Value::Object(_)), after) => (object, after),
                _ => return Ok(None),
            },
            Some(b'<') => {
                // Without a wrapper, the argument tags must be a call's own
                // (`<parameter=KEY>`, `<parameter name="KEY">`), not elements.
                let keyed = match optional(self.tag(body))? {
                    Some(first) => {
                        first.attributes.first().is_some_and(|(key, _)| key.is_empty() || spells(key, "name"))
                    }
                    None => false,
                };
                if equals && !keyed {
                    return Ok(None);
                }
                match self.key_values_where(body, |_| true)? {
                    Some((object, after)) => (Value::Object(object), after),
                    None => return Ok(None),
                }
            }
            _ => return Ok(None),
        };
        let mut close = vec![u16::from(b'<'), u16::from(b'/')];
        close.extend_from_slice(&tag.name);
        close.push(u16::from(b'>'));
        let end = self.skip_space(after)?;
        if !self.units(end, &close)? {
            return Ok(None);
        }
        Ok(Some((vec![ParsedCall { tool, input: Ok(input) }], end + close.len())))
    }

    /// `functions.NAME:0 {…}` (special tokens between allowed) or
    /// `NAME[ARGS]{…}`, in a strong wrapper.
    fn unoffered_bare(&self, at: usize) -> Reading<Option<(ParsedCall, usize)>> {
        if at > 0 && self.text.get(at - 1).is_some_and(|&unit| is_word(unit)) {
            return Ok(None);
        }
        let prefixed = self.literal(at, "functions.")?;
        let name_at = if prefixed { at + "functions.".len() } else { at };
        let mut i = name_at;
        while i - name_at <= MAX_UNOFFERED_NAME
            && self.byte(i)?.is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        {
            i += 1;
        }
        let Some(tool) = self.unoffered(&self.text[name_at..i], false) else { return Ok(None) };
        let args = if prefixed {
            if self.is_there(i, b':')? {
                i += 1;
                while self.byte(i)?.is_some_and(|b| b.is_ascii_digit()) {
                    i += 1;
                }
            }
            // Space and special tokens (`<|tool_call_argument_begin|>`).
            loop {
                let from = self.skip_space(i)?;
                match optional(self.special_token(from))? {
                    Some(end) if end - at <= MAX_OPENERS => i = end,
                    _ => break from,
                }
            }
        } else if self.literal(i, "[ARGS]")? {
            self.skip_space(i + "[ARGS]".len())?
        } else {
            return Ok(None);
        };
        if !self.is(args, b'{')? {
            return Ok(None);
        }
        match self.json_arguments(args)? {
            (Ok(object @ Value::Object(_)), end) => Ok(Some((ParsedCall { tool, input: Ok(object) }, end))),
            _ => Ok(None),
        }
    }
}
