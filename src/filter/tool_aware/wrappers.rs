//! Wrappers: the openers that wrap a leaked call (special tokens, tags,
//! markers, brackets, fences), how strongly each says that a call follows
//! ([`Level`]), the closers that end them and the strays after a leak; and
//! the HTML elements, which never wrap one.

use super::reader::{Closer, Level, Reader, MAX_OPENERS, MAX_STRAYS, MAX_TOKEN, MAX_WORD};
use super::text::{
    ascii, is_space, is_tag_name_byte, is_tag_name_unit, is_word, optional, spells, Reading, Stop, FULL_BAR,
};
use crate::filter::tool_names::MAX_NAME;

/// `▁`, the word joiner of DeepSeek's special tokens (`<｜tool▁calls▁begin｜>`).
const LOW_BAR: u16 = 0x2581;

impl Reader<'_> {
    /// The closers of `stack`, innermost first, from `at`; what is missing
    /// is skipped, but for a fence's.
    pub(super) fn close(&self, stack: &[Closer], mut at: usize) -> Reading<usize> {
        for closer in stack.iter().rev() {
            let from = self.skip_space_to_end(at)?;
            let found = match closer {
                Closer::Tag(name) => self.closing_tag(from, name)?,
                Closer::Bracket => self.is_there(from, b']')?.then_some(from + 1),
                Closer::Marker(name) => self.end_marker(from, name)?,
                Closer::Fence => match self.literal(from, "```")? {
                    true => Some(from + 3),
                    false => return Err(Stop::No),
                },
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
        Ok(at)
    }

    /// `</name>` at `at`, or `<end_X>` when `name` is `start_X`: where it ends.
    pub(super) fn closing_tag(&self, at: usize, name: &[u16]) -> Reading<Option<usize>> {
        let mut tag = vec![u16::from(b'<'), u16::from(b'/')];
        tag.extend_from_slice(name);
        tag.push(u16::from(b'>'));
        if self.units(at, &tag)? {
            return Ok(Some(at + tag.len()));
        }
        let start: Vec<u16> = "start_".encode_utf16().collect();
        if let Some(rest) = name.strip_prefix(&start[..]) {
            let mut end: Vec<u16> = "<end_".encode_utf16().collect();
            end.extend_from_slice(rest);
            end.push(u16::from(b'>'));
            if self.units(at, &end)? {
                return Ok(Some(at + end.len()));
            }
        }
        Ok(None)
    }

    /// Special tokens, empty wrappers and stray closers (of a call's parts,
    /// or of wrappers named for tools or calls) right after a leak (space
    /// between allowed); at the end of the text, one the end cut off.
    /// Where they end, `at` if there are none.
    pub(super) fn strays(&self, mut at: usize) -> Reading<usize> {
        for _ in 0..MAX_STRAYS {
            let from = self.skip_space_to_end(at)?;
            // A harmony channel header, special tokens, and the words glued
            // between them (`<|close|>call<|sep|>`).
            if let Some(end) = optional(self.lone_channel_header(from, true))? {
                at = end;
                continue;
            }
            let run = self.token_run(from)?;
            if run > from {
                at = run;
                continue;
            }
            if let Some(end) = self.empty_wrapper(from)? {
                at = end;
                continue;
            }
            match optional(self.tag(from))? {
                Some(tag) if tag.closing && closes_a_call(&tag.name) => at = tag.end,
                _ => {
                    // A token or closer the end cut off.
                    let open = Reader { complete: false, ..*self };
                    let cut_off = self.complete
                        && from < self.text.len()
                        && (open.special_token(from) == Err(Stop::More)
                            || self.cut_off_marker(from)
                            || (matches!(open.literal(from, "</"), Ok(true) | Err(Stop::More))
                                && matches!(open.tag(from), Err(Stop::More))));
                    if cut_off {
                        at = self.text.len();
                    }
                    break;
                }
            }
        }
        Ok(at)
    }

    /// Whether the text, from `at` to its end, is a special token the end
    /// cut off: `<|` or `<｜`, a word of two or more letters, digits, `_`
    /// or `▁` that begins with a letter, perhaps its closing bar, and
    /// nothing after it (`<|tool_call`, `<｜tool▁calls`, `<|im_end|`); or
    /// DeepSeek's namespaced tag so cut (`<｜DSML｜tool_calls`).
    /// No prose ends so: `<|` with no word glued to it (`a <| b` in math,
    /// a lone `<|`) is not one, and neither is any text after which more
    /// follows.
    pub(super) fn cut_off_token(&self, at: usize) -> bool {
        let Some(rest) = self.text.get(at..) else { return false };
        let [open, bar, word @ ..] = rest else { return false };
        if *open != u16::from(b'<') || !(*bar == u16::from(b'|') || *bar == FULL_BAR) {
            return false;
        }
        let word = word.strip_suffix(&[*bar]).unwrap_or(word);
        // DeepSeek's namespaced tags read as its tokens do: `<｜DSML｜tool_calls`.
        let word = match word.iter().position(|&unit| unit == FULL_BAR) {
            Some(at) if *bar == FULL_BAR => {
                let (namespace, local) = (&word[..at], &word[at + 1..]);
                if namespace.is_empty()
                    || !local.iter().all(|&unit| ascii(unit).is_some_and(is_tag_name_byte))
                {
                    return false;
                }
                namespace
            }
            _ => word,
        };
        word.len() >= 2
            && ascii(word[0]).is_some_and(|b| b.is_ascii_alphabetic())
            && word.iter().all(|&unit| is_word(unit) || unit == LOW_BAR)
    }

    /// Whether the text, from `at` to its end, is a call's opening tag the
    /// end cut off before its head, at the start of its line: `<`, then the
    /// name of a wrapper only tool calls use, or a prefix of one of four
    /// letters or more, perhaps its `>`, and nothing after it but space
    /// (`<tool_call>`, `<tool_call>\n`, `<function`, `<minimax:tool_c`).
    /// The names come from the chat templates that write them
    /// ([`CUT_OPENERS`]); Qwen's and Hermes' tokenizers hold `<tool_call>`
    /// as one special token. No document ends so: a sentence that names
    /// the tag goes on after it or does not begin its line with it, and one
    /// in code (a fence, inline code, a line indented as a code block) is
    /// not read.
    pub(super) fn cut_off_opener(&self, at: usize) -> bool {
        if !self.blank || self.indented {
            return false;
        }
        let Some([open, rest @ ..]) = self.text.get(at..) else { return false };
        if *open != u16::from(b'<') {
            return false;
        }
        let is_name =
            |unit: u16| ascii(unit).is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b':');
        let name_len = rest.iter().position(|&unit| !is_name(unit)).unwrap_or(rest.len());
        let closed = rest.get(name_len) == Some(&u16::from(b'>'));
        let after = &rest[name_len + usize::from(closed)..];
        if name_len < 4 || !after.iter().all(|&unit| ascii(unit).is_some_and(is_space)) {
            return false;
        }
        let name = String::from_utf16_lossy(&rest[..name_len]).to_ascii_lowercase();
        // A whole tag names a wrapper; a cut one begins the name of one.
        CUT_OPENERS.iter().any(|opener| if closed { *opener == name } else { opener.starts_with(&name) })
    }

    /// Whether the text, from `at` to its end, is a bracket marker the end
    /// cut off (`[END_TOOL_CA`, `[/TOOL`): `[`, then only capitals, digits,
    /// `_` and `/`. Read only right after a leak.
    fn cut_off_marker(&self, at: usize) -> bool {
        let Some([open, rest @ ..]) = self.text.get(at..) else { return false };
        *open == u16::from(b'[')
            && rest.iter().all(|&unit| {
                ascii(unit).is_some_and(|b| matches!(b, b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'/'))
            })
    }

    /// An empty wrapper at `at`: a tag named for tools or calls and its own
    /// closing tag, nothing but space between. Where it ends.
    pub(super) fn empty_wrapper(&self, at: usize) -> Reading<Option<usize>> {
        let Some(tag) = optional(self.tag(at))? else { return Ok(None) };
        if tag.closing || tag.self_closing || !is_toolish(&tag.name) || is_html(&tag.name) {
            return Ok(None);
        }
        let close = self.skip_space(tag.end)?;
        self.closing_tag(close, &tag.name)
    }

    /// Special tokens back to back from `at` (space between them allowed),
    /// a harmony channel header taken whole: where they end, `at` if there
    /// are none.
    fn tokens(&self, at: usize) -> Reading<usize> {
        let mut end = at;
        loop {
            let from = if end == at { at } else { self.skip_space_to_end(end)? };
            if let Some(after) = optional(self.lone_channel_header(from, true))? {
                end = after;
                continue;
            }
            match optional(self.special_token(from))? {
                Some(after) => end = after,
                None => return Ok(end),
            }
        }
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

    /// A special token at `at`: `<|…|>`, `<｜…｜>`, or one of Gemma 4's
    /// halves, `<|word>` and `<word|>`. Where it ends.
    pub(super) fn special_token(&self, at: usize) -> Reading<Option<usize>> {
        if !self.is(at, b'<')? {
            return Ok(None);
        }
        let second = self.unit(at + 1)?;
        if second == u16::from(b'|') || second == FULL_BAR {
            let mut i = at + 2;
            while i - at <= MAX_TOKEN {
                let unit = self.unit(i)?;
                if unit == second {
                    return Ok(self.is(i + 1, b'>')?.then_some(i + 2));
                }
                if unit == u16::from(b'>') {
                    let word = i > at + 2 && self.text[at + 2..i].iter().all(|&u| is_word(u));
                    return Ok((second == u16::from(b'|') && word).then_some(i + 1));
                }
                if unit == u16::from(b'<') || unit == u16::from(b'\n') {
                    return Ok(None);
                }
                i += 1;
            }
            return Ok(None);
        }
        let mut i = at + 1;
        while i - at <= MAX_TOKEN {
            let unit = self.unit(i)?;
            if is_word(unit) {
                i += 1;
            } else if unit == u16::from(b'|') && i > at + 1 {
                return Ok(self.is(i + 1, b'>')?.then_some(i + 2));
            } else {
                return Ok(None);
            }
        }
        Ok(None)
    }

    /// An opener at `at`: its closer, where it ends, and the level it
    /// raises the wrapping to. `opening`: the candidate begins here.
    pub(super) fn opener(
        &self,
        at: usize,
        level: Level,
        opening: bool,
    ) -> Reading<Option<(Closer, usize, Level)>> {
        let Some(byte) = self.byte(at)? else {
            return Ok(None);
        };
        match byte {
            b'<' => {
                if let Some(end) = self.special_token(at)? {
                    return Ok(Some((Closer::Tokens, end, Level::Strong)));
                }
                let Some(tag) = self.tag(at)? else { return Ok(None) };
                if tag.closing || tag.self_closing || is_html(&tag.name) {
                    return Ok(None);
                }
                let raised = if is_toolish(&tag.name) { Level::Strong } else { Level::Weak };
                Ok(Some((Closer::Tag(tag.name), tag.end, raised)))
            }
            b'[' => {
                // [MARKER]
                let mut i = at + 1;
                while i - at <= MAX_TOKEN {
                    match self.byte(i)? {
                        Some(b'A'..=b'Z' | b'_' | b'0'..=b'9') => i += 1,
                        Some(b']') if i - at >= 3 => {
                            let name = self.text[at + 1..i].to_vec();
                            let raised = match is_toolish(&name) {
                                true => Level::Strong,
                                // `[NOTE]` in a sentence says nothing.
                                false if opening && !self.blank => Level::None,
                                false => Level::Weak,
                            };
                            return Ok(Some((Closer::Marker(name), i + 1, raised)));
                        }
                        _ => break,
                    }
                }
                // A list of calls begins its line; `[` in a sentence says nothing.
                let raised = if opening && !self.blank { Level::None } else { Level::Bracket };
                Ok(Some((Closer::Bracket, at + 1, raised)))
            }
            b'`' if (opening && self.blank) || (!opening && level >= Level::Weak) => {
                if !self.literal(at, "```")? {
                    return Ok(None);
                }
                let mut i = at + 3;
                while i - at <= MAX_TOKEN {
                    match self.byte(i)? {
                        Some(b'\n') => {
                            let info = String::from_utf16_lossy(&self.text[at + 3..i]).to_ascii_lowercase();
                            let tool = ["tool", "call", "function"].iter().any(|w| info.contains(w));
                            let raised = if tool { Level::Strong } else { Level::None };
                            return Ok(Some((Closer::Fence, i + 1, raised)));
                        }
                        Some(b'`') => return Ok(None),
                        _ => i += 1,
                    }
                }
                Ok(None)
            }
            _ if level > Level::None => {
                // A word that belongs to the wrapper: `function<｜tool▁sep｜>`,
                // `call:`, `commentary to=`.
                let mut i = at;
                while i - at < MAX_WORD
                    && self.byte(i)?.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
                {
                    i += 1;
                }
                if i == at {
                    return Ok(None);
                }
                if optional(self.special_token(i))?.is_some() {
                    return Ok(Some((Closer::Nothing, i, Level::None)));
                }
                if self.is_there(i, b':')? && !self.is_there(i + 1, b'/')? {
                    return Ok(Some((Closer::Nothing, i + 1, Level::None)));
                }
                if self.literal(i, " to=")? {
                    return Ok(Some((Closer::Nothing, i + 1, Level::None)));
                }
                Ok(None)
            }
            _ => Ok(None),
        }
    }

    /// A tag at `at` (`<name attrs>`, `</name>`, `<name/>`, `<name=value>`,
    /// the name perhaps behind a `｜NS｜` namespace).
    pub(super) fn tag(&self, at: usize) -> Reading<Option<Tag>> {
        if !self.is(at, b'<')? {
            return Ok(None);
        }
        let mut i = at + 1;
        let closing = self.is(i, b'/')?;
        if closing {
            i += 1;
        }
        let name_start = i;
        let bar = self.unit(i)?;
        if bar == u16::from(b'|') || bar == FULL_BAR {
            let mut j = i + 1;
            loop {
                let unit = self.unit(j)?;
                if unit == bar {
                    break;
                }
                if !is_word(unit) || j - i > MAX_TOKEN {
                    return Ok(None);
                }
                j += 1;
            }
            if j == i + 1 {
                return Ok(None);
            }
            i = j + 1;
        }
        let local = i;
        while i - local <= MAX_TOKEN && self.byte(i)?.is_some_and(is_tag_name_byte) {
            i += 1;
        }
        let ascii_start = self.byte(local)?.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_');
        // A name that goes on past that, in a unit beyond ASCII or past
        // MAX_TOKEN, is a tag's only when it is an offered tool's, whole
        // (`<météo>`, `</天气>`): so a tool is named in any script.
        let goes_on = self.peek(i)?.is_some_and(is_tag_name_unit);
        if goes_on && (ascii_start || i == local) {
            match self.name_at(local)? {
                Some((_, end))
                    if end > i && self.text[local..end].iter().all(|&unit| is_tag_name_unit(unit)) =>
                {
                    i = end
                }
                _ => return Ok(None),
            }
        } else if i == local || !ascii_start {
            return Ok(None);
        }
        let name = self.text[name_start..i].to_vec();
        let mut attributes = Vec::new();
        // `<name=value>`, the value perhaps a tool's name with spaces in it.
        if !closing && self.is(i, b'=')? {
            let value_at = i + 1;
            let named = match self.name_at(value_at)? {
                Some((_, end))
                    if matches!(self.byte(end)?, Some(b'>' | b' ' | b'/' | b'\n' | b'\t' | b'\r')) =>
                {
                    Some((self.text[value_at..end].to_vec(), end))
                }
                _ => None,
            };
            let (value, next) = match named {
                Some(found) => found,
                None => self.attribute_value(value_at)?.ok_or(Stop::No)?,
            };
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
            // Room for the longest name an attribute may hold, and more.
            if i - at > MAX_OPENERS + MAX_NAME {
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
}

/// A tag as read.
#[derive(Debug)]
pub(super) struct Tag {
    pub(super) name: Vec<u16>,
    pub(super) attributes: Vec<(Vec<u16>, Vec<u16>)>,
    pub(super) end: usize,
    pub(super) closing: bool,
    pub(super) self_closing: bool,
}

/// Whether a tag's, marker's or namespace's name says it wraps tool calls.
pub(super) fn is_toolish(name: &[u16]) -> bool {
    let name = String::from_utf16_lossy(name).to_ascii_lowercase();
    name.contains("tool") || name.contains("call")
}

/// The opening tags only tool calls are wrapped in, as chat templates
/// write them: `<tool_call>` (Hermes, Qwen 2.5-3, GLM), `<tool_calls>` and
/// `<function_calls>` (DeepSeek's DSML, Anthropic's XML), `<function` (Qwen3-Coder's
/// `<function=NAME>`), `<toolcall>` (Nemotron's `<TOOLCALL>`), `<tool_use>`,
/// `<minimax:tool_call>` and `<seed:tool_call>` (vLLM's tool parsers for
/// those families).
const CUT_OPENERS: [&str; 8] = [
    "tool_call",
    "tool_calls",
    "function_calls",
    "function",
    "toolcall",
    "tool_use",
    "minimax:tool_call",
    "seed:tool_call",
];

/// The elements a call is made of, besides its wrapper: a closing tag of
/// one of these right against a leak is the leak's own.
const CALL_PARTS: [&str; 9] =
    ["parameter", "param", "function", "invoke", "arg_key", "arg_value", "argument", "arguments", "args"];

/// A tag's name without its `｜NS｜` namespace.
pub(super) fn local_name(name: &[u16]) -> &[u16] {
    match name.first() {
        Some(&bar) if bar == u16::from(b'|') || bar == FULL_BAR => {
            match name[1..].iter().position(|&u| u == bar) {
                Some(at) => &name[at + 2..],
                None => name,
            }
        }
        _ => name,
    }
}

/// Whether a tag's name is one of a call's own elements ([`CALL_PARTS`]).
fn is_call_part(name: &[u16]) -> bool {
    let local = local_name(name);
    CALL_PARTS.iter().any(|part| spells(local, part))
}

/// Whether a closing tag with this name may be a leak's residue: a call's
/// part, or a wrapper named for tools or calls (no HTML element).
pub(super) fn closes_a_call(name: &[u16]) -> bool {
    is_call_part(name) || (is_toolish(name) && !is_html(name))
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

pub(super) fn is_html(name: &[u16]) -> bool {
    // A `｜NS｜` namespace is no part of the element's name.
    let local = String::from_utf16_lossy(local_name(name)).to_ascii_lowercase();
    HTML.binary_search(&local.as_str()).is_ok()
}
