//! The reader: a leak read whole from where it may begin, as the grammar in
//! the `tool_aware` module doc has it (lead, openers, head and arguments,
//! closers, strays). This file holds the reader's state, its look at the
//! text and how the pieces make a leak; openers and closers (`wrappers`),
//! heads and arguments have files of their own.

use std::cell::Cell;

use super::text::{ascii, is_space, optional, spells, Reading, Stop};
use super::tools::Tools;
use crate::filter::json::shows_tool_call;
use crate::filter::strip::ParsedCall;

/// A leak read whole: where it ends and the calls in it.
#[derive(Debug)]
pub(super) struct Leak {
    pub(super) end: usize,
    pub(super) calls: Vec<ParsedCall>,
}

/// Openers, calls and where the last call ends.
type OneCall = (Vec<Closer>, Level, Vec<ParsedCall>, usize);

/// How far before its head a leak's openers may reach.
pub(super) const MAX_OPENERS: usize = 256;
/// The longest special token, marker, tag or word an opener reads.
pub(super) const MAX_TOKEN: usize = 64;
/// How deep the parts of a JSON call that are not its arguments may nest.
pub(super) const MAX_CALL_DEPTH: usize = 6;
/// The longest lead word (a channel name before `to=`).
pub(super) const MAX_WORD: usize = 32;
/// How many stray closers and end tokens a leak takes after it.
pub(super) const MAX_STRAYS: usize = 8;
/// What the gap between a bare name and its arguments may hold: this many
/// short words (`commentary json`), and this many other units.
pub(super) const MAX_GAP_WORDS: usize = 2;
pub(super) const MAX_GAP_JUNK: usize = 32;

/// The call prefixes that make a bare name distinctive.
pub(super) const DISTINCTIVE: [&str; 4] = ["to=functions.", "functions.", "default_api:", "default_api."];

/// Whether a line's first word is a harmony channel whose special tokens
/// were removed, before `to=NAME`: `commentary`, `analysis`, `assistant`,
/// or `assistant` glued to a channel (`assistantcommentary`).
pub(super) fn is_channel_word(word: &[u16]) -> bool {
    let channel = match word.get(..9) {
        Some(role) if spells(role, "assistant") => &word[9..],
        _ => word,
    };
    channel.is_empty() || spells(channel, "analysis") || spells(channel, "commentary")
}

/// How strongly the openers read so far say "a call follows".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Level {
    /// No wrapper.
    None,
    /// A list bracket `[`.
    Bracket,
    /// A tag or marker that is no HTML element and names no tool or call.
    Weak,
    /// A special token, or a tag, marker or fence named for tools or calls.
    Strong,
}

/// What a wrapper opened and how it closes.
#[derive(Clone, Debug)]
pub(super) enum Closer {
    /// `</name>` (or `<end_X>` for `<start_X>`).
    Tag(Vec<u16>),
    /// Any special tokens (none needed).
    Tokens,
    /// `]`.
    Bracket,
    /// `[/NAME]` or `[END_NAME]`, if present.
    Marker(Vec<u16>),
    /// A closing fence: required.
    Fence,
    /// Nothing.
    Nothing,
}

/// Reads leaks in a text that may still grow.
#[derive(Clone, Copy)]
pub(super) struct Reader<'a> {
    pub(super) text: &'a [u16],
    pub(super) tools: &'a Tools,
    /// The text is complete: running out of it is an answer, not a wait,
    /// and what the end cut off right after a leak goes with it (see
    /// [`strays`](Self::strays)).
    pub(super) complete: bool,
    /// Whether only spaces and tabs stand between the candidate and the
    /// start of its line (or the end of the last leak, or of the text).
    pub(super) blank: bool,
    /// Whether the blanks before the candidate on its line indent it as a
    /// markdown code block's line (see [`Line::CODE_INDENT`](super::code::Line::CODE_INDENT)).
    pub(super) indented: bool,
    /// The furthest unit read, for the reading credit.
    pub(super) far: &'a Cell<usize>,
    /// Whether a head has named an offered tool where, wrapped as it is, a
    /// call's name goes (so a text that ends after it ends inside a call).
    pub(super) named: &'a Cell<bool>,
}

impl Reader<'_> {
    fn get(&self, at: usize) -> Option<u16> {
        if at > self.far.get() {
            self.far.set(at);
        }
        self.text.get(at).copied()
    }

    pub(super) fn unit(&self, at: usize) -> Reading<u16> {
        match self.get(at) {
            Some(unit) => Ok(unit),
            None if self.complete => Err(Stop::No),
            None => Err(Stop::More),
        }
    }

    /// The unit at `at`, or `None` at the end of a complete text.
    pub(super) fn peek(&self, at: usize) -> Reading<Option<u16>> {
        match self.unit(at) {
            Ok(unit) => Ok(Some(unit)),
            Err(Stop::No) => Ok(None),
            Err(more) => Err(more),
        }
    }

    pub(super) fn byte(&self, at: usize) -> Reading<Option<u8>> {
        self.unit(at).map(ascii)
    }

    pub(super) fn is(&self, at: usize, byte: u8) -> Reading<bool> {
        Ok(self.byte(at)? == Some(byte))
    }

    /// Like [`is`](Self::is), but the end of a complete text is a `false`.
    pub(super) fn is_there(&self, at: usize, byte: u8) -> Reading<bool> {
        Ok(self.peek(at)?.and_then(ascii) == Some(byte))
    }

    /// Whether `literal` is at `at` (waiting while the text is a prefix).
    pub(super) fn literal(&self, at: usize, literal: &str) -> Reading<bool> {
        self.spelled_at(at, literal.encode_utf16())
    }

    /// Whether `units` are at `at` (waiting while the text is a prefix).
    pub(super) fn units(&self, at: usize, units: &[u16]) -> Reading<bool> {
        self.spelled_at(at, units.iter().copied())
    }

    fn spelled_at(&self, at: usize, units: impl Iterator<Item = u16>) -> Reading<bool> {
        for (offset, unit) in units.enumerate() {
            match self.get(at + offset) {
                Some(found) if found == unit => {}
                Some(_) => return Ok(false),
                None if self.complete => return Ok(false),
                None => return Err(Stop::More),
            }
        }
        Ok(true)
    }

    /// The first position from `at` that is not whitespace.
    pub(super) fn skip_space(&self, mut at: usize) -> Reading<usize> {
        while self.byte(at)?.is_some_and(is_space) {
            at += 1;
        }
        Ok(at)
    }

    /// Like [`skip_space`](Self::skip_space), but the end of a complete
    /// text is a place too.
    pub(super) fn skip_space_to_end(&self, at: usize) -> Reading<usize> {
        match self.skip_space(at) {
            Err(Stop::No) if self.complete => Ok(self.text.len().max(at)),
            other => other,
        }
    }

    /// The first position from `at` that is no space or tab (the end of a
    /// complete text is one).
    pub(super) fn skip_blank(&self, mut at: usize) -> Reading<usize> {
        while matches!(self.peek(at)?.and_then(ascii), Some(b' ' | b'\t')) {
            at += 1;
        }
        Ok(at)
    }

    /// The offered tool whose name begins at `at`, and where it ends.
    pub(super) fn name_at(&self, at: usize) -> Reading<Option<(usize, usize)>> {
        self.get(at + self.tools.longest);
        self.tools.name_at(self.text, at, self.complete)
    }

    /// A whole leak beginning at `start`: calls, or a channel header alone.
    pub(super) fn leak(&self, start: usize) -> Reading<Leak> {
        match self.call_leak(start) {
            Err(Stop::No) => {}
            other => return other,
        }
        match self.lone_channel_header(start, false)? {
            Some(end) => Ok(Leak { end: self.strays(end)?, calls: Vec::new() }),
            None => Err(Stop::No),
        }
    }

    /// A leak of calls beginning at `start`.
    fn call_leak(&self, start: usize) -> Reading<Leak> {
        let (mut stack, level, mut calls, mut end) = self.one_call(start, true, Level::None)?;
        // More calls under the wrappers still open; when none follows, the
        // innermost wrapper is closed (a call's own, say) and more calls
        // are looked for under the rest.
        while !stack.is_empty() {
            loop {
                let mut at = self.skip_space_to_end(end)?;
                if self.peek(at)?.is_some_and(|u| u == u16::from(b',') || u == u16::from(b';')) {
                    at = self.skip_space_to_end(at + 1)?;
                }
                if at >= self.text.len() && self.complete {
                    break;
                }
                match self.one_call(at, false, level) {
                    Ok((more_stack, _, more, next)) => {
                        calls.extend(more);
                        end = self.close(&more_stack, next)?;
                    }
                    Err(Stop::No) => break,
                    Err(Stop::More) => return Err(Stop::More),
                }
            }
            let Some(closer) = stack.pop() else { break };
            end = self.close(std::slice::from_ref(&closer), end)?;
        }
        end = self.strays(end)?;
        // A markdown link's text: `[…](url)`.
        let after = self.peek(end)?;
        if self.text.get(end.wrapping_sub(1)) == Some(&u16::from(b']')) && after == Some(u16::from(b'(')) {
            return Err(Stop::No);
        }
        Ok(Leak { end, calls })
    }

    /// Openers, then a head with its arguments. `first`: this is where the
    /// candidate began; `inherited`: the wrappers around it.
    fn one_call(&self, start: usize, first: bool, inherited: Level) -> Reading<OneCall> {
        if first && self.blank {
            match self.lead(start) {
                Ok(Some(found)) => return Ok(found),
                Ok(None) | Err(Stop::No) => {}
                Err(more) => return Err(more),
            }
        }
        let mut stack = Vec::new();
        let mut level = inherited;
        let mut at = start;
        // Closers of a call before this one, whose openers the stream never
        // showed, and empty wrappers: the leak's own when a call follows.
        if first {
            let end = self.residue_before(start)?;
            if end > start {
                at = self.skip_space(end)?;
                if !self.is(at, b'<')? {
                    return Err(Stop::No);
                }
            }
        }
        // After a fence that names no tool: a JSON call, or code.
        let mut json_only = false;
        loop {
            let opening = first && at == start;
            if json_only && !matches!(self.byte(at)?, Some(b'{' | b'[')) {
                return Err(Stop::No);
            }
            let head = self.head(at, level);
            if let Ok(Some((calls, end))) = head {
                return Ok((stack, level, calls, end));
            }
            if head == Err(Stop::More) {
                return Err(Stop::More);
            }
            if json_only {
                return Err(Stop::No);
            }
            if let Some((calls, end)) = optional(self.broken_call(at, level))? {
                return Ok((stack, level, calls, end));
            }
            head?;
            let Some((closer, next, raised)) = self.opener(at, level, opening)? else {
                return Err(Stop::No);
            };
            json_only = matches!(closer, Closer::Fence) && raised == Level::None;
            // An empty wrapper before the call wraps nothing.
            if let (Closer::Tag(name), Level::Strong) = (&closer, raised) {
                let close = self.skip_space(next)?;
                if let Some(end) = optional(self.closing_tag(close, name))? {
                    at = self.skip_space(end)?;
                    if at - start > MAX_OPENERS {
                        return Err(Stop::No);
                    }
                    continue;
                }
            }
            stack.push(closer);
            level = level.max(raised);
            at = self.skip_space(next)?;
            if at - start > MAX_OPENERS {
                return Err(Stop::No);
            }
        }
    }

    /// A call whose markup no offered tool's head reads: a call to a tool
    /// that was not on offer (`unoffered`), one whose closers never came,
    /// or parameter tags whose head was lost (`residue`).
    fn broken_call(&self, at: usize, level: Level) -> Reading<Option<(Vec<ParsedCall>, usize)>> {
        if let Some(found) = optional(self.unoffered_call(at, level))? {
            return Ok(Some(found));
        }
        if let Some((call, end)) = optional(self.unclosed_call(at))? {
            return Ok(Some((vec![call], end)));
        }
        Ok(optional(self.orphan_parameters(at))?.map(|end| (Vec::new(), end)))
    }

    /// A lead word at a line's start: a channel word before
    /// `to=functions.NAME`, or a lone lowercase word on its line before a
    /// tag head (a mangled opener, `court`).
    fn lead(&self, start: usize) -> Reading<Option<OneCall>> {
        let mut i = start;
        while i - start < MAX_WORD && self.byte(i)?.is_some_and(|b| b.is_ascii_alphabetic()) {
            i += 1;
        }
        if i == start {
            return Ok(None);
        }
        // A channel word (`commentary to=functions.NAME`), or a garbled one
        // glued to a distinctive head (`Lie:default_api:NAME{…}`).
        let mut glued = false;
        if self.is_there(i, b':')? {
            for prefix in DISTINCTIVE {
                glued |= self.literal(i + 1, prefix)?;
            }
        }
        if glued || self.literal(i, " to=functions.")? {
            return Ok(self
                .bare_head(i + 1, Level::None)?
                .map(|(call, end)| (Vec::new(), Level::None, vec![call], end)));
        }
        // A harmony header whose tokens were removed, its recipient
        // without `functions.` (`commentary to=NAME json{…}`): the channel
        // word makes `to=NAME` a head, as a token before it would.
        if self.literal(i, " to=")? && is_channel_word(&self.text[start..i]) {
            return Ok(self
                .bare_head(i + 1, Level::Weak)?
                .map(|(call, end)| (Vec::new(), Level::None, vec![call], end)));
        }
        let word = &self.text[start..i];
        if !(2..=16).contains(&word.len())
            || !word.iter().all(|&u| ascii(u).is_some_and(|b| b.is_ascii_lowercase()))
        {
            return Ok(None);
        }
        let mut j = self.skip_blank(i)?;
        if self.is_there(j, b'\r')? {
            j += 1;
        }
        if !self.is_there(j, b'\n')? {
            return Ok(None);
        }
        let head = self.skip_blank(j + 1)?;
        if !self.is_there(head, b'<')? {
            return Ok(None);
        }
        Ok(self.tag_head(head, Level::None)?.map(|(call, end)| (Vec::new(), Level::None, vec![call], end)))
    }

    /// Whether a leak that failed at `at` in a complete text failed because
    /// the text ended after it had named an offered tool.
    pub(super) fn cut_off_call(&self, at: usize) -> bool {
        let open = Reader { complete: false, ..*self };
        self.named.set(false);
        match open.leak(at) {
            Err(Stop::More) => {
                self.named.get()
                    || (matches!(ascii(self.text[at]), Some(b'{' | b'[')) && {
                        // The names as the JSON reader compares them, only where a JSON value begins.
                        let names: Vec<String> = self
                            .tools
                            .list()
                            .iter()
                            .map(|tool| String::from_utf16_lossy(&tool.name))
                            .collect();
                        shows_tool_call(&self.text[at..], Some(&names))
                    })
            }
            _ => false,
        }
    }
}
