//! Tag heads: a call written as an element (`<NAME …>`, `<tag name="NAME">`,
//! `<tag=NAME>`) with its key/value arguments; and where a head of any kind
//! is tried.

use serde_json::{Map, Value};

use super::arguments::{scalar, trimmed};
use super::keys::{CALL_ATTRIBUTES, NAME_ATTRIBUTES};
use super::reader::{Level, Reader};
use super::text::{optional, spells, Reading, Stop};
use super::wrappers::{is_html, Tag};
use crate::filter::strip::ParsedCall;

impl Reader<'_> {
    /// A head with its arguments at `at`: the calls and where they end.
    pub(super) fn head(&self, at: usize, level: Level) -> Reading<Option<(Vec<ParsedCall>, usize)>> {
        let one = |head: Option<(ParsedCall, usize)>| head.map(|(call, end)| (vec![call], end));
        match self.byte(at)? {
            Some(b'<') => self.tag_head(at, level).map(one),
            Some(byte @ (b'{' | b'[')) => {
                if level < Level::Weak && !self.blank {
                    return Ok(None);
                }
                match self.json_head(at) {
                    Err(Stop::No) => {}
                    other => return other,
                }
                if byte == b'{' && level == Level::Strong {
                    return optional(self.arrow_head(at)).map(one);
                }
                Ok(None)
            }
            _ => {
                if let Some(found) = self.attribute_head(at, level)? {
                    return Ok(one(Some(found)));
                }
                if let Some(found) = optional(self.narrated_head(at, level))? {
                    return Ok(one(Some(found)));
                }
                self.bare_head(at, level).map(one)
            }
        }
    }

    /// `<NAME …>args</NAME>`, `<tag … name="NAME">args</tag>`, `<tag=NAME>args</tag>`.
    pub(super) fn tag_head(&self, at: usize, level: Level) -> Reading<Option<(ParsedCall, usize)>> {
        if self.special_token(at)?.is_some() {
            return Ok(None);
        }
        let Some(tag) = self.tag(at)? else { return Ok(None) };
        if tag.closing {
            return Ok(None);
        }
        // The tool: the tag's own name, or its naming attribute's value.
        let mut tool = self.tools.named(&tag.name);
        let mut naming = None;
        if tool.is_none() {
            for (index, (key, value)) in tag.attributes.iter().enumerate() {
                let names = key.is_empty() || NAME_ATTRIBUTES.iter().any(|name| spells(key, name));
                if let Some(found) = self.tools.named(value).filter(|_| names) {
                    tool = Some(found);
                    naming = Some(index);
                    break;
                }
            }
        }
        let Some(tool) = tool else { return Ok(None) };
        // An HTML element (`<select name="…">`) is a document's, whatever its name says.
        if naming.is_some() && is_html(&tag.name) {
            return Ok(None);
        }
        let others = tag.attributes.iter().enumerate().filter(|&(index, _)| Some(index) != naming);
        if !others.into_iter().all(|(_, (key, _))| CALL_ATTRIBUTES.iter().any(|name| spells(key, name))) {
            return Ok(None);
        }
        self.named.set(true);
        let empty = || ParsedCall::offered(tool, Ok(Value::Object(Map::new())));
        if tag.self_closing {
            return Ok((level == Level::Strong).then(|| (empty(), tag.end)));
        }
        let mut close = vec![u16::from(b'<'), u16::from(b'/')];
        close.extend_from_slice(&tag.name);
        close.push(u16::from(b'>'));
        let body = self.skip_space(tag.end)?;
        if self.units(body, &close)? {
            return Ok((level == Level::Strong).then(|| (empty(), body + close.len())));
        }
        let (input, after) = match self.byte(body)? {
            Some(b'{') => self.json_arguments(body)?,
            Some(b'<') => match self.key_values(body, tool)? {
                Some((object, end)) => (Ok(Value::Object(object)), end),
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        let end = self.skip_space(after)?;
        if !self.units(end, &close)? {
            return Ok(None);
        }
        Ok(Some((ParsedCall::offered(tool, input), end + close.len())))
    }

    /// Key/value tags from `at`: `<key>v</key>`, `<parameter name="key">v</parameter>`
    /// (with `string="true"`: `v` is a string whatever it looks like),
    /// `<parameter=key>v</parameter>`, `<arg_key>k</arg_key><arg_value>v</arg_value>`.
    /// Stops after the last pair, before whatever is not one; `None` if
    /// there is none.
    pub(super) fn key_values(&self, at: usize, tool: usize) -> Reading<Option<(Map<String, Value>, usize)>> {
        self.key_values_where(at, |key| self.tools.accepts_key(tool, key))
    }

    /// [`key_values`](Self::key_values), each key taken when `accepts` it.
    pub(super) fn key_values_where(
        &self,
        at: usize,
        accepts: impl Fn(&str) -> bool,
    ) -> Reading<Option<(Map<String, Value>, usize)>> {
        let mut object = Map::new();
        let mut end = at;
        let done = |object: Map<String, Value>, end| Ok((!object.is_empty()).then_some((object, end)));
        loop {
            let at = match self.skip_space(end) {
                Err(Stop::No) => return done(object, end),
                other => other?,
            };
            if self.literal(at, "</")? {
                return done(object, end);
            }
            let tag = match optional(self.tag(at))? {
                Some(tag) if !tag.closing && !tag.self_closing => tag,
                _ => return done(object, end),
            };
            let mut named = None;
            let mut string = false;
            for (key, value) in &tag.attributes {
                if named.is_none() && (key.is_empty() || spells(key, "name")) {
                    named = Some(String::from_utf16_lossy(value));
                } else if spells(key, "string") {
                    string = spells(value, "true");
                } else if !spells(key, "type") {
                    return Ok(None);
                }
            }
            let Some((content, after)) = self.element_content(&tag)? else { return Ok(None) };
            let name = String::from_utf16_lossy(&tag.name);
            let (key, value, after) = match named {
                Some(key) => (key, content, after),
                None if name.ends_with("key") => {
                    // `<arg_key>k</arg_key>` then a value element.
                    let key = String::from_utf16_lossy(&content).trim().to_owned();
                    let next = self.skip_space(after)?;
                    let Some(value_tag) = self.tag(next)? else { return Ok(None) };
                    if value_tag.closing || value_tag.self_closing || !value_tag.attributes.is_empty() {
                        return Ok(None);
                    }
                    let Some((value, after)) = self.element_content(&value_tag)? else { return Ok(None) };
                    (key, value, after)
                }
                // A tool's definition, not a call.
                None if name == "description" => return Ok(None),
                None => (name, content, after),
            };
            if key.is_empty() || !accepts(&key) {
                return Ok(None);
            }
            object.insert(key, if string { Value::String(trimmed(&value)) } else { scalar(&value) });
            end = after;
        }
    }

    /// The text of an element whose opening tag is `tag`, up to its closing
    /// tag (the first one), and where the element ends.
    fn element_content(&self, tag: &Tag) -> Reading<Option<(Vec<u16>, usize)>> {
        let mut close = vec![u16::from(b'<'), u16::from(b'/')];
        close.extend_from_slice(&tag.name);
        close.push(u16::from(b'>'));
        let mut i = tag.end;
        loop {
            if self.units(i, &close)? {
                return Ok(Some((self.text[tag.end..i].to_vec(), i + close.len())));
            }
            self.unit(i)?;
            i += 1;
        }
    }
}
