//! Tool-aware detection: a leaked call to one of the offered tools, found by
//! the tool's name in whatever markup carries it.
//!
//! A preset knows one family's markup. What every leaked call shares is that
//! it names a tool the model was offered, in a place where a call's name
//! goes, with its arguments next to it, inside whatever wrapper the family
//! uses. This stage reads exactly that:
//!
//! ```text
//! leak    = opener* head args (separator opener* head args)* closer*
//! opener  = <|token|> | <｜token｜> | <tag …> | [MARKER] | [ | ```info\n
//!           | word<|token|> | word: | word to=          (after a wrapper only)
//! head    = <NAME …> | <tag … attr="NAME" …> | <tag=NAME>   (the tag's body holds the arguments)
//!         | a JSON object or array of call objects naming NAME
//!         | functions.NAME | to=functions.NAME | NAME[ARGS] | NAME  (bare: needs a wrapper,
//!           but for the first three)
//! args    = JSON object | (pythonic, args) | <key>value</key>… | <arg_key>k</arg_key><arg_value>v</arg_value>…
//! closer  = </tag> for each tag opened, ] for [, ``` for a fence, any <|token|>
//! ```
//!
//! What keeps a clean answer clean: a head must name an offered tool; a tag
//! that is an HTML element is never a wrapper; a bare `NAME(…)` in prose or
//! in a code block is not a call unless a wrapper (a special token, a
//! marker, a non-HTML tag, a list bracket or a tool fence) opened right
//! before it; a tag head's body must be arguments and nothing else; a JSON
//! object is a call only if every key outside its arguments belongs to a
//! call (`name`, `arguments`, `id`, `type`, …), so a payload example or a
//! tool's definition (it has a `description`) is text.
//!
//! # Streaming, and its cost
//!
//! The stage emits everything up to the next unit where a leak could begin
//! (`<`, `[`, `{`, a fence at a line's start, a tool's name or `functions.`
//! at a word's start) and tries to read a leak there. A try that fails on
//! an opener or head gives up within a bounded distance; one that fails
//! inside a JSON value that is not a call leaves the rest of that value to
//! a one-pass JSON scan, so nothing inside it is tried again. A try that
//! runs out of text holds the candidate and is repeated only once the held
//! text has grown by half, so the re-reading adds up to a constant factor
//! of the text: linear time.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::filter::{OpenSpanPolicy, Options, StripLog, StripReason};
use super::json::{shows_tool_call, JsonScan, Step};

/// One offered tool: its name, and its parameter names when known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tool {
    pub name: Vec<u16>,
    pub parameters: Option<Vec<Vec<u16>>>,
}

impl Tool {
    pub fn named(name: &str) -> Self {
        Tool { name: name.encode_utf16().collect(), parameters: None }
    }

    pub fn with_parameters(name: &str, parameters: &[&str]) -> Self {
        Tool {
            name: name.encode_utf16().collect(),
            parameters: Some(parameters.iter().map(|p| p.encode_utf16().collect()).collect()),
        }
    }
}

/// Why a tool list cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolsError {
    /// The index of the tool at fault.
    pub tool: usize,
    pub reason: String,
}

/// The offered tools, checked: names non-empty, at most [`MAX_NAME`] units,
/// without line breaks, and distinct.
#[derive(Clone, Debug)]
pub struct Tools {
    tools: Vec<Tool>,
    /// Whether some name begins with this unit (ASCII only; others always
    /// answer yes and are compared).
    first: [bool; 128],
}

/// The longest tool name accepted, in code units.
pub const MAX_NAME: usize = 256;

impl Tools {
    pub fn new(tools: Vec<Tool>) -> Result<Self, ToolsError> {
        let mut seen = HashSet::new();
        let mut first = [false; 128];
        for (index, tool) in tools.iter().enumerate() {
            let fail = |reason: &str| Err(ToolsError { tool: index, reason: reason.to_owned() });
            if tool.name.is_empty() {
                return fail("a tool's name must not be empty");
            }
            if tool.name.len() > MAX_NAME {
                return fail("a tool's name must be at most 256 characters");
            }
            if tool.name.iter().any(|&unit| unit == u16::from(b'\n') || unit == u16::from(b'\r')) {
                return fail("a tool's name must not hold a line break");
            }
            if !seen.insert(tool.name.clone()) {
                return fail("this name is given twice");
            }
            if let Some(parameters) = &tool.parameters {
                if parameters.iter().any(Vec::is_empty) {
                    return fail("a parameter's name must not be empty");
                }
            }
            if let Some(byte) = ascii(tool.name[0]) {
                first[usize::from(byte)] = true;
            }
        }
        Ok(Tools { tools, first })
    }

    pub fn list(&self) -> &[Tool] {
        &self.tools
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    fn may_start_name(&self, unit: u16) -> bool {
        match ascii(unit) {
            Some(byte) => self.first[usize::from(byte)],
            None => true,
        }
    }

    /// The tool whose name is exactly `units`.
    fn named(&self, units: &[u16]) -> Option<usize> {
        self.tools.iter().position(|tool| tool.name == units)
    }

    /// The longest name that `text[at..]` begins with, or `More` when the
    /// text ends inside a name that could still match (and none shorter
    /// does).
    fn name_at(&self, text: &[u16], at: usize) -> Reading<Option<(usize, usize)>> {
        let rest = &text[at.min(text.len())..];
        let mut best: Option<(usize, usize)> = None;
        let mut partial = false;
        for (index, tool) in self.tools.iter().enumerate() {
            let name = &tool.name[..];
            if rest.len() >= name.len() {
                if rest.starts_with(name) && best.is_none_or(|(_, end)| at + name.len() > end) {
                    best = Some((index, at + name.len()));
                }
            } else if name.starts_with(rest) {
                partial = true;
            }
        }
        if partial && best.is_none() {
            return Err(Stop::More);
        }
        Ok(best)
    }

    fn accepts_key(&self, tool: usize, key: &str) -> bool {
        match &self.tools[tool].parameters {
            None => true,
            Some(parameters) => parameters.iter().any(|p| String::from_utf16_lossy(p) == key),
        }
    }
}

/// A call read out of a leak.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedCall {
    /// The index of the tool in the list the filter was given.
    pub tool: usize,
    /// The arguments as a JSON value, or the raw argument text when they
    /// did not parse.
    pub input: Result<Value, Vec<u16>>,
}

/// Why a read stopped short.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stop {
    /// Not a leak here.
    No,
    /// The text ended before it could be decided.
    More,
}

type Reading<T> = Result<T, Stop>;

/// A leak read whole: where it ends and the calls in it.
#[derive(Debug)]
struct Leak {
    end: usize,
    calls: Vec<ParsedCall>,
}

/// How far before its head a leak's openers may reach.
const MAX_OPENERS: usize = 256;
/// The longest special token, marker, tag or word an opener reads.
const MAX_TOKEN: usize = 64;
/// How deep the parts of a JSON call that are not its arguments may nest.
const MAX_CALL_DEPTH: usize = 6;

/// What a wrapper opened and how it closes.
#[derive(Clone, Debug)]
enum Closer {
    /// `</name>`.
    Tag(Vec<u16>),
    /// Any special tokens (none needed).
    Tokens,
    /// `]`.
    Bracket,
    /// `[/NAME]` or `[END_NAME]`, if present.
    Marker(Vec<u16>),
    /// A closing fence.
    Fence,
    /// Nothing.
    Nothing,
}

/// Reads leaks in a text that may still grow.
#[derive(Clone, Copy)]
struct Reader<'a> {
    text: &'a [u16],
    tools: &'a Tools,
    /// The text is complete: running out of it is an answer, not a wait.
    complete: bool,
    /// Whether the unit before the candidate ends a line (or there is none).
    line_start: bool,
}

impl Reader<'_> {
    fn unit(&self, at: usize) -> Reading<u16> {
        match self.text.get(at) {
            Some(&unit) => Ok(unit),
            None if self.complete => Err(Stop::No),
            None => Err(Stop::More),
        }
    }

    fn byte(&self, at: usize) -> Reading<Option<u8>> {
        self.unit(at).map(ascii)
    }

    fn is(&self, at: usize, byte: u8) -> Reading<bool> {
        Ok(self.byte(at)? == Some(byte))
    }

    /// Whether `literal` is at `at` (waiting while the text is a prefix).
    fn literal(&self, at: usize, literal: &str) -> Reading<bool> {
        for (offset, unit) in literal.encode_utf16().enumerate() {
            match self.text.get(at + offset) {
                Some(&found) if found == unit => {}
                Some(_) => return Ok(false),
                None if self.complete => return Ok(false),
                None => return Err(Stop::More),
            }
        }
        Ok(true)
    }

    /// The first position from `at` that is not whitespace.
    fn skip_space(&self, mut at: usize) -> Reading<usize> {
        while self.byte(at)?.is_some_and(is_space) {
            at += 1;
        }
        Ok(at)
    }

    /// Like [`skip_space`](Self::skip_space), but the end of a complete
    /// text is a place too.
    fn skip_space_to_end(&self, at: usize) -> Reading<usize> {
        match self.skip_space(at) {
            Err(Stop::No) if self.complete => Ok(self.text.len().max(at)),
            other => other,
        }
    }

    /// A whole leak beginning at `start`.
    fn leak(&self, start: usize) -> Reading<Leak> {
        let (stack, mut calls, mut end) = self.one_call(start, true)?;
        // More calls under the same wrappers.
        loop {
            let mut at = self.skip_space_to_end(end)?;
            if self.text.get(at).is_some_and(|&u| u == u16::from(b',') || u == u16::from(b';')) {
                at = self.skip_space_to_end(at + 1)?;
            }
            if at >= self.text.len() && self.complete {
                break;
            }
            match self.one_call(at, false) {
                Ok((more_stack, more, next)) => {
                    calls.extend(more);
                    end = self.close(&more_stack, next)?;
                }
                Err(Stop::No) => break,
                Err(Stop::More) => return Err(Stop::More),
            }
        }
        end = self.close(&stack, end)?;
        Ok(Leak { end, calls })
    }

    /// Openers, then a head with its arguments. `first`: this is where the
    /// candidate began, so a bare name needs a distinctive form or a
    /// wrapper opened here.
    fn one_call(&self, start: usize, first: bool) -> Reading<(Vec<Closer>, Vec<ParsedCall>, usize)> {
        let mut stack = Vec::new();
        let mut wrapped = !first;
        let mut at = start;
        loop {
            if let Some((calls, end)) = self.head(at, wrapped)? {
                return Ok((stack, calls, end));
            }
            let Some((closer, next, wrapper)) = self.opener(at, wrapped, at == start)? else {
                return Err(Stop::No);
            };
            stack.push(closer);
            wrapped |= wrapper;
            at = self.skip_space(next)?;
            if at - start > MAX_OPENERS {
                return Err(Stop::No);
            }
        }
    }

    fn line_start_at(&self, at: usize) -> bool {
        match at.checked_sub(1).and_then(|before| self.text.get(before)) {
            Some(&unit) => is_line_end(unit),
            None => self.line_start,
        }
    }

    /// Whether a leak that failed at `at` in a complete text failed because
    /// the text ended after it had named an offered tool.
    fn cut_off_call(&self, at: usize) -> bool {
        let names: Vec<String> =
            self.tools.list().iter().map(|tool| String::from_utf16_lossy(&tool.name)).collect();
        let open = Reader { complete: false, ..*self };
        match open.leak(at) {
            Err(Stop::More) => {
                open.named_tool_before_end(at)
                    || (matches!(ascii(self.text[at]), Some(b'{' | b'['))
                        && shows_tool_call(&self.text[at..], Some(&names)))
            }
            _ => false,
        }
    }

    /// Whether a tag, attribute or bare word in `text[at..]` names an
    /// offered tool (the head of a call the end cut off).
    fn named_tool_before_end(&self, at: usize) -> bool {
        (at..self.text.len()).any(|i| {
            let after_boundary = i == 0 || !is_word(self.text[i - 1]);
            after_boundary
                && matches!(self.tools.name_at(self.text, i), Ok(Some((_, end))) if end >= self.text.len() || !is_word(self.text[end]))
                && !(matches!(ascii(self.text[at]), Some(b'{' | b'[')))
        })
    }

    /// The closers of `stack`, innermost first, from `at`; what is missing
    /// is skipped. Special tokens right after are taken too.
    fn close(&self, stack: &[Closer], mut at: usize) -> Reading<usize> {
        for closer in stack.iter().rev() {
            let from = self.skip_space_to_end(at)?;
            let found = match closer {
                Closer::Tag(name) => {
                    let mut tag = vec![u16::from(b'<'), u16::from(b'/')];
                    tag.extend_from_slice(name);
                    tag.push(u16::from(b'>'));
                    self.units(from, &tag)?.then_some(from + tag.len())
                }
                Closer::Bracket => self.is(from, b']').unwrap_or(false).then_some(from + 1),
                Closer::Marker(name) => self.end_marker(from, name)?,
                Closer::Fence => self.literal(from, "```")?.then_some(from + 3),
                Closer::Tokens => {
                    let after = self.tokens(from)?;
                    (after > from).then_some(after)
                }
                Closer::Nothing => None,
            };
            if let Some(end) = found {
                at = end;
            }
        }
        // Special tokens that end a turn or a call (`<|eom_id|>`, `<|call|>`).
        let from = match self.skip_space_to_end(at) {
            Ok(from) => from,
            Err(Stop::No) => return Ok(at),
            Err(more) => return Err(more),
        };
        let after = self.tokens(from)?;
        Ok(if after > from { after } else { at })
    }

    /// Special tokens back to back from `at` (space between them allowed):
    /// where they end, `at` if there are none.
    fn tokens(&self, at: usize) -> Reading<usize> {
        let mut end = at;
        loop {
            let from = if end == at { at } else { self.skip_space_to_end(end)? };
            match self.special_token(from) {
                Ok(Some(after)) => end = after,
                Ok(None) | Err(Stop::No) => return Ok(end),
                Err(Stop::More) => return Err(Stop::More),
            }
        }
    }

    fn units(&self, at: usize, units: &[u16]) -> Reading<bool> {
        for (offset, &unit) in units.iter().enumerate() {
            match self.text.get(at + offset) {
                Some(&found) if found == unit => {}
                Some(_) => return Ok(false),
                None if self.complete => return Ok(false),
                None => return Err(Stop::More),
            }
        }
        Ok(true)
    }

    /// `[/NAME]` or `[END_NAME]` at `at`: where it ends.
    fn end_marker(&self, at: usize, name: &[u16]) -> Reading<Option<usize>> {
        for prefix in ["[/", "[END_"] {
            let mut marker: Vec<u16> = prefix.encode_utf16().collect();
            marker.extend_from_slice(name);
            marker.push(u16::from(b']'));
            if self.units(at, &marker)? {
                return Ok(Some(at + marker.len()));
            }
        }
        Ok(None)
    }

    /// A special token at `at` (`<|…|>` or `<｜…｜>`): where it ends.
    fn special_token(&self, at: usize) -> Reading<Option<usize>> {
        if !self.is(at, b'<')? {
            return Ok(None);
        }
        let bar = self.unit(at + 1)?;
        if bar != u16::from(b'|') && bar != FULL_BAR {
            return Ok(None);
        }
        let mut i = at + 2;
        while i - at <= MAX_TOKEN {
            let unit = self.unit(i)?;
            if unit == bar {
                return Ok(self.is(i + 1, b'>')?.then_some(i + 2));
            }
            if unit == u16::from(b'<') || unit == u16::from(b'>') || unit == u16::from(b'\n') {
                return Ok(None);
            }
            i += 1;
        }
        Ok(None)
    }

    /// An opener at `at`: its closer, where it ends, and whether it is a
    /// wrapper (one that lets a bare name be a call).
    fn opener(&self, at: usize, wrapped: bool, first: bool) -> Reading<Option<(Closer, usize, bool)>> {
        let Some(byte) = self.byte(at)? else {
            return Ok(None);
        };
        match byte {
            b'<' => {
                if let Some(end) = self.special_token(at)? {
                    return Ok(Some((Closer::Tokens, end, true)));
                }
                let Some(tag) = self.tag(at)? else { return Ok(None) };
                if tag.closing || tag.self_closing || is_html(&tag.name) {
                    return Ok(None);
                }
                Ok(Some((Closer::Tag(tag.name), tag.end, true)))
            }
            b'[' => {
                // [MARKER]
                let mut i = at + 1;
                while i - at <= MAX_TOKEN {
                    match self.byte(i)? {
                        Some(b'A'..=b'Z' | b'_' | b'0'..=b'9') => i += 1,
                        Some(b']') if i - at >= 3 => {
                            let name = self.text[at + 1..i].to_vec();
                            return Ok(Some((Closer::Marker(name), i + 1, true)));
                        }
                        _ => break,
                    }
                }
                Ok(Some((Closer::Bracket, at + 1, true)))
            }
            b'`' if first && self.line_start_at(at) || !first && wrapped => {
                if !self.literal(at, "```")? {
                    return Ok(None);
                }
                let mut i = at + 3;
                while i - at <= MAX_TOKEN {
                    match self.byte(i)? {
                        Some(b'\n') => {
                            let info = String::from_utf16_lossy(&self.text[at + 3..i]).to_ascii_lowercase();
                            let tool = ["tool", "call", "function"].iter().any(|w| info.contains(w));
                            return Ok(Some((Closer::Fence, i + 1, tool)));
                        }
                        Some(b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'-' | b' ') => i += 1,
                        _ => return Ok(None),
                    }
                }
                Ok(None)
            }
            _ if wrapped => {
                // A word that belongs to the wrapper: `function<｜tool▁sep｜>`,
                // `call:`, `commentary to=`.
                let mut i = at;
                while i - at < 32 && self.byte(i)?.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
                    i += 1;
                }
                if i == at {
                    return Ok(None);
                }
                if self.special_token(i)?.is_some() {
                    return Ok(Some((Closer::Nothing, i, false)));
                }
                if self.is(i, b':')? && !self.is(i + 1, b'/')? {
                    return Ok(Some((Closer::Nothing, i + 1, false)));
                }
                if self.literal(i, " to=")? {
                    return Ok(Some((Closer::Nothing, i + 1, false)));
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// A tag at `at` (`<name attrs>`, `</name>`, `<name/>`, `<name=value>`).
    fn tag(&self, at: usize) -> Reading<Option<Tag>> {
        if !self.is(at, b'<')? {
            return Ok(None);
        }
        let mut i = at + 1;
        let closing = self.is(i, b'/')?;
        if closing {
            i += 1;
        }
        let name_start = i;
        while i - name_start <= MAX_TOKEN {
            match self.byte(i)? {
                Some(b) if b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b':' | b'.') => i += 1,
                _ => break,
            }
        }
        if i == name_start || !self.byte(name_start)?.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_') {
            return Ok(None);
        }
        let name = self.text[name_start..i].to_vec();
        let mut attributes = Vec::new();
        // `<name=value>`
        if self.is(i, b'=')? {
            let (value, next) = self.attribute_value(i + 1)?.ok_or(Stop::No)?;
            attributes.push((Vec::new(), value));
            i = next;
        }
        loop {
            let before = i;
            i = self.skip_space(i)?;
            match self.byte(i)? {
                Some(b'>') => {
                    return Ok(Some(Tag { name, attributes, end: i + 1, closing, self_closing: false }));
                }
                Some(b'/') if self.is(i + 1, b'>')? => {
                    return Ok(Some(Tag { name, attributes, end: i + 2, closing, self_closing: true }));
                }
                Some(b) if (b.is_ascii_alphabetic() || b == b'_') && i > before && !closing => {
                    let key_start = i;
                    while self
                        .byte(i)?
                        .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b':'))
                    {
                        i += 1;
                        if i - key_start > MAX_TOKEN {
                            return Ok(None);
                        }
                    }
                    let key = self.text[key_start..i].to_vec();
                    if self.is(i, b'=')? {
                        let Some((value, next)) = self.attribute_value(i + 1)? else { return Ok(None) };
                        attributes.push((key, value));
                        i = next;
                    } else {
                        attributes.push((key, Vec::new()));
                    }
                }
                _ => return Ok(None),
            }
            if i - at > MAX_OPENERS {
                return Ok(None);
            }
        }
    }

    /// An attribute's value at `at`: quoted, or bare up to space or `>`.
    fn attribute_value(&self, at: usize) -> Reading<Option<(Vec<u16>, usize)>> {
        let quote = self.byte(at)?;
        if let Some(q @ (b'"' | b'\'')) = quote {
            let mut i = at + 1;
            loop {
                let unit = self.unit(i)?;
                if unit == u16::from(q) {
                    return Ok(Some((self.text[at + 1..i].to_vec(), i + 1)));
                }
                if unit == u16::from(b'\n') || i - at > MAX_NAME + 2 {
                    return Ok(None);
                }
                i += 1;
            }
        }
        let mut i = at;
        loop {
            match self.byte(i)? {
                Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'\'' | b'<') => break,
                Some(b'/') if self.is(i + 1, b'>')? => break,
                _ => i += 1,
            }
            if i - at > MAX_NAME {
                return Ok(None);
            }
        }
        Ok((i > at).then(|| (self.text[at..i].to_vec(), i)))
    }

    /// A head with its arguments at `at`: the call and where it ends.
    fn head(&self, at: usize, wrapped: bool) -> Reading<Option<(Vec<ParsedCall>, usize)>> {
        let one = |head: Option<(ParsedCall, usize)>| head.map(|(call, end)| (vec![call], end));
        match self.byte(at)? {
            Some(b'<') => self.tag_head(at, wrapped).map(one),
            Some(b'{' | b'[') => match self.json_head(at) {
                Err(Stop::No) => Ok(None),
                other => other,
            },
            _ => self.bare_head(at, wrapped).map(one),
        }
    }

    /// `<NAME …>args</NAME>`, `<tag … attr="NAME">args</tag>`, `<tag=NAME>args</tag>`.
    fn tag_head(&self, at: usize, wrapped: bool) -> Reading<Option<(ParsedCall, usize)>> {
        if self.special_token(at)?.is_some() {
            return Ok(None);
        }
        let Some(tag) = self.tag(at)? else { return Ok(None) };
        if tag.closing {
            return Ok(None);
        }
        let tool = match self.tools.named(&tag.name) {
            Some(tool) => Some(tool),
            None => tag.attributes.iter().find_map(|(_, value)| self.tools.named(value)),
        };
        let Some(tool) = tool else { return Ok(None) };
        if tag.self_closing {
            return Ok(wrapped.then(|| (ParsedCall { tool, input: Ok(Value::Object(Map::new())) }, tag.end)));
        }
        let mut close = vec![u16::from(b'<'), u16::from(b'/')];
        close.extend_from_slice(&tag.name);
        close.push(u16::from(b'>'));
        let body = self.skip_space(tag.end)?;
        if self.units(body, &close)? {
            return Ok(wrapped
                .then(|| (ParsedCall { tool, input: Ok(Value::Object(Map::new())) }, body + close.len())));
        }
        let (input, after) = match self.byte(body)? {
            Some(b'{') => {
                let (input, end) = self.json_arguments(body)?;
                (input, end)
            }
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
        Ok(Some((ParsedCall { tool, input }, end + close.len())))
    }

    /// Key/value tags from `at`: `<key>v</key>`, `<parameter name="key">v</parameter>`,
    /// `<parameter=key>v</parameter>`, `<arg_key>k</arg_key><arg_value>v</arg_value>`.
    /// Stops before a closing tag; `None` if anything else comes first.
    fn key_values(&self, mut at: usize, tool: usize) -> Reading<Option<(Map<String, Value>, usize)>> {
        let mut object = Map::new();
        loop {
            at = self.skip_space(at)?;
            if self.literal(at, "</")? {
                return Ok((!object.is_empty()).then_some((object, at)));
            }
            let Some(tag) = self.tag(at)? else { return Ok(None) };
            if tag.closing || tag.self_closing || tag.attributes.len() > 1 {
                return Ok(None);
            }
            let Some((content, end)) = self.element_content(&tag)? else { return Ok(None) };
            let name = String::from_utf16_lossy(&tag.name);
            let (key, value, end) = if name.ends_with("key") && tag.attributes.is_empty() {
                // `<arg_key>k</arg_key>` then a value element.
                let key = String::from_utf16_lossy(&content).trim().to_owned();
                let next = self.skip_space(end)?;
                let Some(value_tag) = self.tag(next)? else { return Ok(None) };
                if value_tag.closing || value_tag.self_closing || !value_tag.attributes.is_empty() {
                    return Ok(None);
                }
                let Some((value, end)) = self.element_content(&value_tag)? else { return Ok(None) };
                (key, value, end)
            } else {
                let key = match tag.attributes.first() {
                    Some((key, value)) if key.is_empty() || spells(key, "name") => {
                        String::from_utf16_lossy(value)
                    }
                    Some(_) => return Ok(None),
                    None => name,
                };
                (key, content, end)
            };
            if key.is_empty() || !self.tools.accepts_key(tool, &key) {
                return Ok(None);
            }
            object.insert(key, scalar(&value));
            at = end;
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

    /// A JSON object or array that is a call (or calls) to offered tools.
    fn json_head(&self, at: usize) -> Reading<Option<(Vec<ParsedCall>, usize)>> {
        let end = self.call_shaped_json(at)?;
        let value = lenient_json(&self.text[at..end]).ok_or(Stop::No)?;
        let mut calls = Vec::new();
        if !self.json_calls(&value, &mut calls) || calls.is_empty() {
            return Err(Stop::No);
        }
        Ok(Some((calls, end)))
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
                            } else {
                                return Err(Stop::No);
                            }
                        }
                        expect_key = false;
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

    /// The calls a JSON value makes, if it is nothing but calls.
    fn json_calls(&self, value: &Value, calls: &mut Vec<ParsedCall>) -> bool {
        match value {
            Value::Array(items) => !items.is_empty() && items.iter().all(|item| self.json_calls(item, calls)),
            Value::Object(fields) => {
                if let Some(Value::Array(list)) = fields.get("tool_calls") {
                    return fields.len() == 1
                        && !list.is_empty()
                        && list.iter().all(|item| self.json_calls(item, calls));
                }
                if let Some(Value::Object(function)) = fields.get("function") {
                    return self.json_calls(&Value::Object(function.clone()), calls);
                }
                let Some(tool) = NAME_KEYS.iter().find_map(|key| match fields.get(*key) {
                    Some(Value::String(name)) => {
                        let units: Vec<u16> = name.encode_utf16().collect();
                        self.tools.named(&units)
                    }
                    _ => None,
                }) else {
                    return false;
                };
                let input = ARGUMENT_KEYS.iter().find_map(|key| fields.get(*key)).cloned();
                let input = match input {
                    None => Value::Object(Map::new()),
                    // OpenAI writes the arguments as a JSON string.
                    Some(Value::String(text)) => match serde_json::from_str::<Value>(&text) {
                        Ok(parsed @ Value::Object(_)) => parsed,
                        _ => {
                            calls.push(ParsedCall { tool, input: Err(text.encode_utf16().collect()) });
                            return true;
                        }
                    },
                    Some(other) => other,
                };
                calls.push(ParsedCall { tool, input: Ok(input) });
                true
            }
            _ => false,
        }
    }

    /// A JSON object of arguments at `at` (or, failing JSON, a balanced
    /// group kept raw): the input and where it ends.
    fn json_arguments(&self, at: usize) -> Reading<(Result<Value, Vec<u16>>, usize)> {
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
        // Not JSON: a balanced `{…}` taken raw (Gemma's `{city:<escape>…}`).
        let end = self.balanced(at, false)?;
        Ok((Err(self.text[at..end].to_vec()), end))
    }

    /// Where the group opened at `at` (`(`, `[` or `{`) closes; strings in
    /// quotes are skipped when `quotes`.
    fn balanced(&self, at: usize, quotes: bool) -> Reading<usize> {
        let mut depth = 0usize;
        let mut i = at;
        loop {
            let byte = self.byte(i)?;
            match byte {
                Some(b'(' | b'[' | b'{') => depth += 1,
                Some(b')' | b']' | b'}') => {
                    depth -= 1;
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

    /// A tool's name outside any tag or JSON: `functions.NAME`,
    /// `to=functions.NAME`, `NAME[ARGS]…`, or (wrapped) `NAME` with its
    /// arguments in any shape.
    fn bare_head(&self, at: usize, wrapped: bool) -> Reading<Option<(ParsedCall, usize)>> {
        if at > 0 && self.text.get(at - 1).is_some_and(|&u| is_word(u)) {
            return Ok(None);
        }
        let mut name_at = at;
        let mut distinctive = false;
        for prefix in ["to=functions.", "functions.", "to="] {
            if self.literal(at, prefix)? {
                name_at = at + prefix.encode_utf16().count();
                distinctive = prefix != "to=" || wrapped;
                break;
            }
        }
        let Some((tool, name_end)) = self.tools.name_at(self.text, name_at)? else { return Ok(None) };
        if self.text.get(name_end).is_some_and(|&u| is_word(u)) {
            return Ok(None);
        }
        if self.literal(name_end, "[ARGS]")? {
            let args = self.skip_space(name_end + 6)?;
            if !self.is(args, b'{')? {
                return Ok(None);
            }
            let (input, end) = self.json_arguments(args)?;
            return Ok(Some((ParsedCall { tool, input }, end)));
        }
        if !(wrapped || distinctive) {
            return Ok(None);
        }
        // `NAME(…)` or `NAME.call(…)`
        let paren = if self.literal(name_end, ".call(")? { name_end + 5 } else { name_end };
        if self.is(paren, b'(')? {
            let end = self.balanced(paren, true)?;
            let raw = &self.text[paren + 1..end - 1];
            let input = pythonic(raw).ok_or_else(|| raw.to_vec());
            return Ok(Some((ParsedCall { tool, input }, end)));
        }
        // A gap of space, special tokens, markers and short words, then
        // JSON arguments (or key/value tags, or nothing before a closer).
        let mut i = name_end;
        let mut fence = false;
        let no_arguments = Some((ParsedCall { tool, input: Ok(Value::Object(Map::new())) }, name_end));
        while i - name_end <= MAX_OPENERS {
            let only_space = self.text[name_end..i].iter().all(|&u| ascii(u).is_some_and(is_space));
            let unit = match self.unit(i) {
                Ok(unit) => unit,
                // The text ends right after the name: a call with no arguments.
                Err(Stop::No) if wrapped && !distinctive && only_space => return Ok(no_arguments),
                Err(stop) => return Err(stop),
            };
            match ascii(unit) {
                Some(b'{') => {
                    let (input, mut end) = self.json_arguments(i)?;
                    if fence {
                        let close = self.skip_space(end)?;
                        if self.literal(close, "```")? {
                            end = close + 3;
                        }
                    }
                    return Ok(Some((ParsedCall { tool, input }, end)));
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
                        i = end;
                        continue;
                    }
                    if self.literal(i, "</")? {
                        // A closer: a call with no arguments, if wrapped.
                        return Ok(if wrapped && !distinctive && only_space { no_arguments } else { None });
                    }
                    if !wrapped {
                        return Ok(None);
                    }
                    return Ok(self
                        .key_values(i, tool)?
                        .map(|(object, end)| (ParsedCall { tool, input: Ok(Value::Object(object)) }, end)));
                }
                Some(b) if b.is_ascii_lowercase() => {
                    let mut j = i;
                    while self.byte(j)?.is_some_and(|b| b.is_ascii_lowercase()) && j - i < 16 {
                        j += 1;
                    }
                    if !self.byte(j)?.is_some_and(|b| is_space(b) || b == b'<' || b == b'{') {
                        return Ok(None);
                    }
                    i = j;
                }
                _ => {
                    // Something else: a call with no arguments only right
                    // before a wrapper's end.
                    if wrapped && !distinctive && i == name_end && matches!(ascii(unit), Some(b']' | b')')) {
                        return Ok(no_arguments);
                    }
                    return Ok(None);
                }
            }
        }
        Ok(None)
    }
}

/// The keys that name a call's tool.
const NAME_KEYS: [&str; 6] = ["name", "tool", "tool_name", "function", "recipient_name", "toolName"];
/// The keys that hold a call's arguments (anything goes inside them).
const ARGUMENT_KEYS: [&str; 8] =
    ["arguments", "parameters", "args", "input", "params", "tool_input", "tool_args", "kwargs"];
/// Every other key a call object may have.
const CALL_KEYS: [&str; 13] = [
    "name",
    "tool",
    "tool_name",
    "function",
    "recipient_name",
    "toolName",
    "id",
    "type",
    "call_id",
    "tool_call_id",
    "index",
    "tool_calls",
    "toolCallId",
];

/// A tag as read.
#[derive(Debug)]
struct Tag {
    name: Vec<u16>,
    attributes: Vec<(Vec<u16>, Vec<u16>)>,
    end: usize,
    closing: bool,
    self_closing: bool,
}

const FULL_BAR: u16 = 0xFF5C;

fn ascii(unit: u16) -> Option<u8> {
    u8::try_from(unit).ok().filter(u8::is_ascii)
}

fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

fn is_word(unit: u16) -> bool {
    ascii(unit).is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn spells(units: &[u16], text: &str) -> bool {
    text.encode_utf16().eq(units.iter().copied())
}

/// The HTML elements: a tag named so is a document's, never a wrapper.
const HTML: &[&str] = &[
    "a",
    "abbr",
    "address",
    "area",
    "article",
    "aside",
    "audio",
    "b",
    "base",
    "bdi",
    "bdo",
    "blockquote",
    "body",
    "br",
    "button",
    "canvas",
    "caption",
    "cite",
    "code",
    "col",
    "colgroup",
    "data",
    "datalist",
    "dd",
    "del",
    "details",
    "dfn",
    "dialog",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "i",
    "iframe",
    "img",
    "input",
    "ins",
    "kbd",
    "label",
    "legend",
    "li",
    "link",
    "main",
    "map",
    "mark",
    "menu",
    "meta",
    "meter",
    "nav",
    "noscript",
    "object",
    "ol",
    "optgroup",
    "option",
    "output",
    "p",
    "param",
    "picture",
    "pre",
    "progress",
    "q",
    "rp",
    "rt",
    "ruby",
    "s",
    "samp",
    "script",
    "search",
    "section",
    "select",
    "slot",
    "small",
    "source",
    "span",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "svg",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "time",
    "title",
    "tr",
    "track",
    "u",
    "ul",
    "var",
    "video",
    "wbr",
];

fn is_html(name: &[u16]) -> bool {
    let name = String::from_utf16_lossy(name).to_ascii_lowercase();
    HTML.binary_search(&name.as_str()).is_ok()
}

/// A tag's text content as a value: JSON when it is JSON (a number, an
/// object), else the text, with one line break trimmed at each end.
fn scalar(units: &[u16]) -> Value {
    let text = String::from_utf16_lossy(units);
    let text = text.strip_prefix('\n').unwrap_or(&text);
    let text = text.strip_suffix('\n').unwrap_or(text);
    match serde_json::from_str::<Value>(text.trim()) {
        Ok(
            value @ (Value::Number(_) | Value::Bool(_) | Value::Null | Value::Object(_) | Value::Array(_)),
        ) => value,
        _ => Value::String(text.to_owned()),
    }
}

/// `text` parsed as JSON; failing that, parsed again with the raw line
/// breaks and tabs that models write inside strings escaped.
fn lenient_json(text: &[u16]) -> Option<Value> {
    let text = String::from_utf16_lossy(text);
    if let Ok(value) = serde_json::from_str::<Value>(&text) {
        return Some(value);
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
    serde_json::from_str(&escaped).ok()
}

/// Pythonic keyword arguments (`city="Paris", days=3`) as a JSON object.
fn pythonic(units: &[u16]) -> Option<Value> {
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
        if reader.next()? != '=' {
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

struct Py {
    chars: Vec<char>,
    at: usize,
}

impl Py {
    fn done(&self) -> bool {
        self.at >= self.chars.len()
    }
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }
    fn next(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        Some(c)
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
                    let Value::String(key) = self.value(depth + 1)? else { return None };
                    self.space();
                    if self.next()? != ':' {
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

/// The stage's state between feeds.
#[derive(Debug, Default)]
pub(crate) struct CallStage {
    /// Text not yet released: a candidate (or the start of one) and what
    /// came after it.
    held: Vec<u16>,
    /// The unit before `held`; `None` at the start of the stream.
    before: Option<u16>,
    /// `held.len()` when the candidate at its start last ran out of text;
    /// zero when no candidate waits.
    waiting: usize,
    /// Inside a JSON value that is not a call: its scan, so nothing inside
    /// it is tried as a leak.
    inside_json: Option<JsonScan>,
}

impl CallStage {
    pub(crate) fn held(&self) -> &[u16] {
        &self.held
    }

    pub(crate) fn is_idle(&self) -> bool {
        self.held.is_empty() && self.inside_json.is_none()
    }

    pub(crate) fn is_span_open(&self) -> bool {
        self.waiting > 0
    }

    pub(crate) fn feed(
        &mut self,
        tools: &Tools,
        options: Options,
        log: &mut StripLog,
        chunk: &[u16],
        out: &mut Vec<u16>,
    ) {
        self.held.extend_from_slice(chunk);
        // A candidate that ran out is read again once the text has grown by
        // half: the re-reading sums to a constant factor of the text.
        if self.waiting == 0 || self.held.len() >= self.waiting + (self.waiting / 2).max(1) {
            self.run(tools, options, log, out, false);
        }
        if let Some(most) = options.max_held {
            if self.waiting > 0 && self.held.len() > most.get() {
                self.settle(options, log, StripReason::MaxHeld, out);
            }
        }
    }

    /// Ends the stream, and frees what the stage held.
    pub(crate) fn flush(&mut self, tools: &Tools, options: Options, log: &mut StripLog, out: &mut Vec<u16>) {
        self.run(tools, options, log, out, true);
        *self = CallStage::default();
    }

    /// A candidate that outgrew `max_held`: stripped under the drop policy,
    /// else released as text.
    fn settle(&mut self, options: Options, log: &mut StripLog, reason: StripReason, out: &mut Vec<u16>) {
        let held = std::mem::take(&mut self.held);
        match options.open_span_at_end {
            OpenSpanPolicy::Drop => log.record_call(&held, reason, Vec::new()),
            OpenSpanPolicy::Emit => out.extend_from_slice(&held),
        }
        if let Some(&last) = held.last() {
            self.before = Some(last);
        }
        self.waiting = 0;
    }

    /// Reads the held text as far as it decides; `complete`: nothing more
    /// will come.
    fn run(
        &mut self,
        tools: &Tools,
        options: Options,
        log: &mut StripLog,
        out: &mut Vec<u16>,
        complete: bool,
    ) {
        let text = std::mem::take(&mut self.held);
        self.waiting = 0;
        let mut emitted = 0;
        let mut at = 0;
        let mut keep_from = None;
        while at < text.len() {
            if let Some(scan) = &mut self.inside_json {
                match scan.step(text[at]) {
                    Step::More => at += 1,
                    Step::Done => {
                        self.inside_json = None;
                        at += 1;
                    }
                    // The unit that ended it is read afresh.
                    Step::Invalid => self.inside_json = None,
                }
                continue;
            }
            let before = if at == 0 { self.before } else { Some(text[at - 1]) };
            if !may_begin(tools, &text, at, before) {
                at += 1;
                continue;
            }
            let reader =
                Reader { text: &text, tools, complete, line_start: self.before.is_none_or(is_line_end) };
            match reader.leak(at) {
                Ok(leak) => {
                    out.extend_from_slice(&text[emitted..at]);
                    log.record_call(&text[at..leak.end], StripReason::Match, leak.calls);
                    emitted = leak.end;
                    at = leak.end;
                }
                Err(Stop::More) => {
                    keep_from = Some(at);
                    self.waiting = text.len() - at;
                    break;
                }
                Err(Stop::No) => {
                    if complete && options.open_span_at_end == OpenSpanPolicy::Drop && reader.cut_off_call(at)
                    {
                        out.extend_from_slice(&text[emitted..at]);
                        log.record_call(&text[at..], StripReason::UnclosedAtEnd, Vec::new());
                        emitted = text.len();
                        break;
                    }
                    if matches!(ascii(text[at]), Some(b'{' | b'[')) {
                        let mut scan = JsonScan::new();
                        if scan.step(text[at]) == Step::More {
                            self.inside_json = Some(scan);
                        }
                    }
                    at += 1;
                }
            }
        }
        // A name, `functions.` or a fence may have begun in the tail.
        let keep_from = match keep_from {
            Some(at) => at,
            None if complete => text.len(),
            None => partial_tail(tools, &text, emitted),
        }
        .max(emitted);
        out.extend_from_slice(&text[emitted..keep_from]);
        if keep_from > 0 {
            self.before = Some(text[keep_from - 1]);
        }
        let mut text = text;
        text.drain(..keep_from);
        self.held = text;
    }
}

fn is_line_end(unit: u16) -> bool {
    unit == u16::from(b'\n')
}

/// Whether a leak could begin at `at`.
fn may_begin(tools: &Tools, text: &[u16], at: usize, before: Option<u16>) -> bool {
    let unit = text[at];
    match ascii(unit) {
        Some(b'<' | b'[' | b'{') => true,
        Some(b'`') => before.is_none_or(is_line_end),
        _ => {
            !before.is_some_and(is_word)
                && (tools.may_start_name(unit) || unit == u16::from(b'f') || unit == u16::from(b't'))
        }
    }
}

/// Where the longest tail of `text[from..]` that could still begin a leak
/// starts: a prefix of a tool's name, of `to=functions.`, of a fence, or a
/// lone `<`.
fn partial_tail(tools: &Tools, text: &[u16], from: usize) -> usize {
    let longest = tools.list().iter().map(|tool| tool.name.len()).max().unwrap_or(0).max(16);
    let earliest = text.len().saturating_sub(longest).max(from);
    for start in earliest..text.len() {
        let tail = &text[start..];
        if start > 0 && is_word(text[start - 1]) {
            continue;
        }
        let prefixes = ["to=functions.", "functions.", "```"];
        let of_literal = prefixes.iter().any(|p| {
            let p: Vec<u16> = p.encode_utf16().collect();
            p.len() > tail.len() && p.starts_with(tail)
        });
        let of_name =
            tools.list().iter().any(|tool| tool.name.len() > tail.len() && tool.name.starts_with(tail));
        if of_literal || of_name {
            return start;
        }
    }
    text.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(text: &str) -> Vec<u16> {
        text.encode_utf16().collect()
    }

    fn run(tools: &[&str], text: &str, chunk: usize) -> (String, Vec<String>) {
        let tools = Tools::new(tools.iter().map(|name| Tool::named(name)).collect()).unwrap();
        let mut stage = CallStage::default();
        let mut log = StripLog::default();
        let mut out = Vec::new();
        let all = units(text);
        for piece in all.chunks(chunk.max(1)) {
            stage.feed(&tools, Options::default(), &mut log, piece, &mut out);
        }
        stage.flush(&tools, Options::default(), &mut log, &mut out);
        let spans = log.spans().map(|s| String::from_utf16_lossy(s)).collect();
        (String::from_utf16_lossy(&out), spans)
    }

    #[test]
    fn strips_the_common_families_in_every_chunking() {
        let leaks = [
            "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
            "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>\n</tool_call>",
            "<function_calls><invoke name=\"get_weather\"><parameter name=\"city\">Paris</parameter></invoke></function_calls>",
            "[TOOL_CALLS][{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}]",
            "[TOOL_CALLS]get_weather[ARGS]{\"city\": \"Paris\"}",
            "<|python_tag|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}<|eom_id|>",
            "<|tool_call_start|>[get_weather(city=\"Paris\")]<|tool_call_end|>",
            "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
            "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{\"city\": \"Paris\"}<|tool_call_end|><|tool_calls_section_end|>",
            "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
            "<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{\"city\": \"Paris\"}<|call|>",
            "<get_weather>{\"city\": \"Paris\"}</get_weather>",
        ];
        for leak in leaks {
            let text = format!("Let me check. {leak} Done.");
            for chunk in [1, 2, 3, 7, 1000] {
                let (out, spans) = run(&["get_weather", "get_time"], &text, chunk);
                assert_eq!(out, "Let me check.  Done.", "{leak} in chunks of {chunk}");
                assert_eq!(spans, vec![leak.to_owned()], "{leak} in chunks of {chunk}");
            }
        }
    }

    #[test]
    fn leaves_prose_and_code_alone() {
        let clean = [
            "Call get_weather(city) to fetch the forecast.",
            "```python\nget_weather(\"Paris\")\n```",
            "<div>get_weather</div>",
            "{\"model\": \"x\", \"tools\": [{\"name\": \"get_weather\", \"arguments\": {}}]}",
            "{\"name\": \"get_weather\", \"description\": \"d\", \"parameters\": {\"type\": \"object\"}}",
            "<param name=\"get_weather\">text</param>",
            "Use functions.get_weather when asked.",
            "<code>get_weather(city=\"Paris\")</code>",
            "a < b and c > d; {x} [y] get_weatherly",
        ];
        for text in clean {
            for chunk in [1, 3, 1000] {
                let (out, spans) = run(&["get_weather"], text, chunk);
                assert_eq!(out, text, "chunks of {chunk}");
                assert!(spans.is_empty(), "{text}: {spans:?}");
            }
        }
    }

    #[test]
    fn reads_the_call() {
        let tools = Tools::new(vec![Tool::named("get_weather")]).unwrap();
        let mut stage = CallStage::default();
        let mut log = StripLog::default();
        let mut out = Vec::new();
        stage.feed(
            &tools,
            Options::default(),
            &mut log,
            &units("<|tool_call_start|>[get_weather(city=\"Paris\", days=3)]<|tool_call_end|>"),
            &mut out,
        );
        stage.flush(&tools, Options::default(), &mut log, &mut out);
        let calls = log.calls_of(0);
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].input, Ok(serde_json::json!({"city": "Paris", "days": 3})));
    }
}
