//! Residue: what a call leaves when its markup is broken. Closing tags of
//! a call whose opener the stream never showed, an empty wrapper, a
//! call's parameter tags with their head lost (`<parameter=k>v</parameter>
//! </function></tool_call>`), and a call whose closers never came
//! (`<function=NAME><parameter=k>v` to a blank line or the end).
//!
//! Each is read only where no clean text has it:
//!
//! - closers and empty wrappers only right before or after a leak (space
//!   between): a document's `</parameter>` or `</function>` stands after
//!   its own opener, never against a leaked call;
//! - parameter tags without a head only in Qwen3-Coder's `<parameter=KEY>`
//!   dialect, and only when a call's closers follow (`</function>`, or a
//!   tag named for tools or calls): `<tag=value>` is no well-formed XML
//!   or HTML, so a document holds it only as code, which is not read;
//! - an unclosed call only under a head that names its tool where a
//!   call's name goes (`<function=NAME>`, `<invoke name="NAME">` or
//!   `<NAME>`, an offered tool's, or for `<tag=NAME>` any tool's name), with argument
//!   tags in a call's own dialect (`<parameter=KEY>`, `<parameter
//!   name="KEY">`).

use serde_json::{Map, Value};

use super::arguments::scalar;
use super::keys::{CALL_ATTRIBUTES, NAME_ATTRIBUTES};
use super::reader::Reader;
use super::text::{ascii, optional, spells, Reading, Stop};
use super::unoffered::may_name_a_tool;
use super::wrappers::{closes_a_call, is_html, is_toolish, local_name, Tag};
use crate::filter::strip::{CalledTool, ParsedCall};

/// How many closers a run of residue may hold.
const MAX_RESIDUE: usize = 8;

impl Reader<'_> {
    /// The closing tags of a call's parts and wrappers back to back from
    /// `at` (space between), as a leak's residue: where they end (`at` if
    /// there are none), and whether one of them closes a call itself
    /// (`</function>`) or a wrapper named for tools or calls.
    pub(super) fn residue_closers(&self, at: usize) -> Reading<(usize, bool)> {
        let mut end = at;
        let mut closes_call = false;
        for _ in 0..MAX_RESIDUE {
            let from = if end == at { at } else { self.skip_space_to_end(end)? };
            match optional(self.tag(from))? {
                Some(tag) if tag.closing && closes_a_call(&tag.name) => {
                    closes_call |= spells(local_name(&tag.name), "function") || is_toolish(&tag.name);
                    end = tag.end;
                }
                _ => break,
            }
        }
        Ok((end, closes_call))
    }

    /// Closing tags and empty wrappers back to back from `at` (space
    /// between) that a call before this one left: where they end, `at` if
    /// there are none.
    pub(super) fn residue_before(&self, at: usize) -> Reading<usize> {
        let mut end = at;
        for _ in 0..MAX_RESIDUE {
            let from = if end == at { at } else { self.skip_space(end)? };
            let (closers, _) = self.residue_closers(from)?;
            if closers > from {
                end = closers;
            } else if let Some(after) = self.empty_wrapper(from)? {
                end = after;
            } else {
                break;
            }
        }
        Ok(end)
    }

    /// Parameter tags whose head was lost: `<parameter=KEY>v</parameter>`…
    /// then a call's closers, one of them `</function>` or a wrapper's
    /// named for tools or calls. Where they end; the call's tool is
    /// unknown, so it reports none.
    pub(super) fn orphan_parameters(&self, at: usize) -> Reading<Option<usize>> {
        let Some(first) = optional(self.tag(at))? else { return Ok(None) };
        let parameter = ["parameter", "param", "argument", "arg"]
            .iter()
            .any(|name| spells(local_name(&first.name), name));
        if first.closing || !parameter || !first.attributes.first().is_some_and(|(key, _)| key.is_empty()) {
            return Ok(None);
        }
        let Some((_, after)) = self.key_values_where(at, |_| true)? else { return Ok(None) };
        let from = self.skip_space_to_end(after)?;
        let (end, closes_call) = self.residue_closers(from)?;
        Ok(closes_call.then_some(end))
    }

    /// A call whose closers never came: a head that names its tool
    /// (`<tag=NAME>`, or `<tag name="NAME">` or `<NAME>` for an offered
    /// tool) with
    /// argument tags in a call's dialect, the last value running to its
    /// closer, the next argument tag, a call's closing tag, a blank line or
    /// the end of the text; then the head's closer, if it is there. A value
    /// the end of the text ended may be cut, so that call carries its raw
    /// arguments (`rawInput`), never an input to run.
    pub(super) fn unclosed_call(&self, at: usize) -> Reading<Option<(ParsedCall, usize)>> {
        if self.special_token(at)?.is_some() {
            return Ok(None);
        }
        let Some(tag) = optional(self.tag(at))? else { return Ok(None) };
        if tag.closing || tag.self_closing || is_html(&tag.name) {
            return Ok(None);
        }
        let Some(tool) = self.named_by(&tag) else { return Ok(None) };
        let accepts = |key: &str| match &tool {
            CalledTool::Offered(index) => self.tools.accepts_key(*index, key),
            CalledTool::Unoffered(_) => true,
        };
        let mut object = Map::new();
        let mut at = self.skip_space(tag.end)?;
        let mut cut = false;
        while let Some(pair) = optional(self.tag(at))? {
            let keyed = pair.attributes.first().filter(|(key, _)| key.is_empty() || spells(key, "name"));
            let Some((_, key)) = keyed.filter(|_| !pair.closing && !pair.self_closing) else { break };
            let key = String::from_utf16_lossy(key);
            if key.is_empty() || !accepts(&key) {
                return Ok(None);
            }
            let (value, next, ended) = self.open_value(&pair)?;
            object.insert(key, scalar(&self.text[pair.end..value]));
            cut |= ended;
            at = match self.skip_space(next) {
                Err(Stop::No) => next,
                other => other?,
            };
            if ended || next < at && self.blank_line(next, at) {
                break;
            }
        }
        if object.is_empty() {
            return Ok(None);
        }
        if matches!(tool, CalledTool::Offered(_)) {
            self.named.set(true);
        }
        let mut end = self.arguments_end(tag.end, at);
        if let Some(after) = optional(self.closing_tag(at, &tag.name))? {
            end = after;
        }
        let input = if cut { Err(self.text[tag.end..end].to_vec()) } else { Ok(Value::Object(object)) };
        Ok(Some((ParsedCall { tool, input }, end)))
    }

    /// The tool a head names where a call's name goes: an offered tool by
    /// the tag's own name (`<bash>`), its `<tag=NAME>` value or naming
    /// attribute, or any tool by `<tag=NAME>`; the tag's other attributes
    /// must be a call's.
    fn named_by(&self, tag: &Tag) -> Option<CalledTool> {
        let names = |key: &[u16]| key.is_empty() || NAME_ATTRIBUTES.iter().any(|name| spells(key, name));
        let naming = tag.attributes.iter().position(|(key, _)| names(key));
        let others_are_a_calls = tag.attributes.iter().enumerate().all(|(index, (key, _))| {
            Some(index) == naming || CALL_ATTRIBUTES.iter().any(|name| spells(key, name))
        });
        if !others_are_a_calls {
            return None;
        }
        let Some(naming) = naming else { return self.tools.named(&tag.name).map(CalledTool::Offered) };
        let (key, value) = &tag.attributes[naming];
        match self.tools.named(value) {
            Some(index) => Some(CalledTool::Offered(index)),
            None if key.is_empty() && may_name_a_tool(value) => Some(CalledTool::Unoffered(value.clone())),
            None => None,
        }
    }

    /// The value of the argument tag `pair` opens: where it ends, where
    /// reading goes on, and whether the end of the text ended it.
    fn open_value(&self, pair: &Tag) -> Reading<(usize, usize, bool)> {
        let mut i = pair.end;
        loop {
            let Some(unit) = self.peek(i)? else { return Ok((i, i, true)) };
            if unit == u16::from(b'<') {
                if let Some(end) = optional(self.closing_tag(i, &pair.name))? {
                    return Ok((i, end, false));
                }
                match optional(self.tag(i))? {
                    // The next argument, or a call's closer.
                    Some(next) if !next.closing && next.name == pair.name => return Ok((i, i, false)),
                    Some(next) if next.closing && closes_a_call(&next.name) => return Ok((i, i, false)),
                    _ => {}
                }
            }
            if unit == u16::from(b'\n') && i > pair.end {
                let after = self.skip_blank(i + 1)?;
                if self.peek(after)? == Some(u16::from(b'\n')) {
                    return Ok((i, i, false));
                }
            }
            i += 1;
        }
    }

    /// Whether a blank line lies between `from` and `to` (only space there).
    fn blank_line(&self, from: usize, to: usize) -> bool {
        self.text[from..to.min(self.text.len())].iter().filter(|&&unit| unit == u16::from(b'\n')).count() >= 2
    }

    /// Where the arguments read from `start` end, before the space that
    /// reading skipped to reach `at`.
    fn arguments_end(&self, start: usize, at: usize) -> usize {
        let mut end = at.min(self.text.len());
        while end > start
            && self.text.get(end - 1).and_then(|&unit| ascii(unit)).is_some_and(|b| b.is_ascii_whitespace())
        {
            end -= 1;
        }
        end
    }
}
