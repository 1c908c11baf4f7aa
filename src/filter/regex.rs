//! Regular-expression parts of patterns, compiled once per registry into a
//! dense DFA from the `regex-automata` crate.
//!
//! A DFA is what keeps the filter linear however a pattern is written: each
//! code unit costs one table lookup per live candidate, and nothing ever
//! backtracks. The price is what a DFA cannot express: look-around and
//! back-references are refused with the parser's own reason, and so is a
//! pattern whose DFA would outgrow [`DFA_SIZE_LIMIT`].
//!
//! Text is UTF-16 and a DFA reads UTF-8, so each code point is fed as its
//! UTF-8 bytes; a lone surrogate is fed as U+FFFD (the filter still passes
//! the surrogate itself through unchanged). Patterns are compiled with
//! Unicode semantics, as a JavaScript `RegExp` with the `u` flag would read
//! them.

use regex_automata::dfa::{dense, Automaton, StartKind};
use regex_automata::util::primitives::StateID;
use regex_automata::util::start;
use regex_automata::util::syntax;
use regex_automata::{Anchored, MatchKind};
use regex_syntax::hir::Look;

/// The most memory one pattern's DFA may take, in bytes.
pub const DFA_SIZE_LIMIT: usize = 4 << 20;

/// A regular expression as a user gives it: a `RegExp`'s `source` and the
/// flags that change what it matches.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RegexSource {
    pub source: String,
    /// `i`: letters match either case.
    pub case_insensitive: bool,
    /// `m`: `^` and `$` match at line breaks too.
    pub multi_line: bool,
    /// `s`: `.` matches a line break too.
    pub dot_all: bool,
}

impl RegexSource {
    /// A source with no flags.
    pub fn new(source: &str) -> Self {
        RegexSource { source: source.to_string(), case_insensitive: false, multi_line: false, dot_all: false }
    }

    /// A source with JavaScript's flag letters. `g`, `y`, `d`, `u` and `v`
    /// change nothing a filter does; any other letter is refused.
    pub fn with_js_flags(source: &str, flags: &str) -> Result<Self, String> {
        let mut regex = RegexSource::new(source);
        for flag in flags.chars() {
            match flag {
                'i' => regex.case_insensitive = true,
                'm' => regex.multi_line = true,
                's' => regex.dot_all = true,
                'g' | 'y' | 'd' | 'u' | 'v' => {}
                other => return Err(format!("its flag `{other}` is not a RegExp flag the filter knows")),
            }
        }
        Ok(regex)
    }

    fn syntax(&self) -> syntax::Config {
        syntax::Config::new()
            .case_insensitive(self.case_insensitive)
            .multi_line(self.multi_line)
            .dot_matches_new_line(self.dot_all)
            .utf8(true)
            .unicode(true)
    }
}

/// JavaScript spellings that mean something else, or nothing, to the
/// `regex` crate: `\<` and `\>` are plain angle brackets in JavaScript but
/// word boundaries in Rust, `\/` is a slash, `[^]` matches any unit, and
/// `\w`, `\d` and `\b` are ASCII-only in JavaScript (Unicode in Rust).
fn from_js(source: &str) -> String {
    let source = join_escaped_pairs(source);
    let mut out = String::with_capacity(source.len());
    let mut chars = source.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(escaped @ ('<' | '>' | '/')) => out.push(escaped),
                Some('w') if in_class => out.push_str("0-9A-Za-z_"),
                Some('d') if in_class => out.push_str("0-9"),
                Some('w') => out.push_str("[0-9A-Za-z_]"),
                Some('W') if !in_class => out.push_str("[^0-9A-Za-z_]"),
                Some('d') => out.push_str("[0-9]"),
                Some('D') if !in_class => out.push_str("[^0-9]"),
                Some(boundary @ ('b' | 'B')) if !in_class => {
                    out.push_str("(?-u:\\");
                    out.push(boundary);
                    out.push(')');
                }
                Some(escaped) => {
                    out.push('\\');
                    out.push(escaped);
                }
                None => out.push('\\'),
            },
            '[' if !in_class => {
                if chars.peek() == Some(&'^') {
                    chars.next();
                    if chars.peek() == Some(&']') {
                        chars.next();
                        out.push_str("[\\s\\S]");
                        continue;
                    }
                    out.push_str("[^");
                } else {
                    out.push('[');
                }
                in_class = true;
            }
            ']' if in_class => {
                in_class = false;
                out.push(']');
            }
            _ => out.push(c),
        }
    }
    out
}

/// `\uD83D\uDE00`, a surrogate pair written as two escapes (how a
/// JavaScript `RegExp` without `u` spells an astral character), as the one
/// code point `\u{1F600}` it stands for. A lone surrogate escape is left as
/// it is, and refused by the parser: no text can match it, since a lone
/// surrogate reads as U+FFFD.
fn join_escaped_pairs(source: &str) -> String {
    let hex = |text: &str| -> Option<u32> {
        (text.len() == 4 && text.chars().all(|c| c.is_ascii_hexdigit()))
            .then(|| u32::from_str_radix(text, 16).ok())?
    };
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(at) = rest.find("\\u") {
        // Count the backslashes before it: an escaped backslash is no escape.
        let backslashes = rest[..at].chars().rev().take_while(|&c| c == '\\').count();
        let (high, low) = (rest.get(at + 2..at + 6).and_then(hex), rest.get(at + 8..at + 12).and_then(hex));
        match (high, low) {
            (Some(high @ 0xD800..=0xDBFF), Some(low @ 0xDC00..=0xDFFF))
                if backslashes % 2 == 0 && rest.get(at + 6..at + 8) == Some("\\u") =>
            {
                let code_point = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
                out.push_str(&rest[..at]);
                out.push_str(&format!("\\u{{{code_point:X}}}"));
                rest = &rest[at + 12..];
            }
            _ => {
                out.push_str(&rest[..at + 2]);
                rest = &rest[at + 2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A compiled regular expression: an anchored, leftmost-first DFA.
#[derive(Debug)]
pub(crate) struct Dfa {
    dfa: dense::DFA<Vec<u32>>,
    /// The bytes a match can begin with, in each starting context (see
    /// [`context_of`]).
    first_bytes: [[bool; 256]; CONTEXTS],
    /// Whether the start depends on what precedes it (`^` with `m`, `\b`):
    /// then a filter cannot skip text in JavaScript without telling it.
    needs_context: bool,
}

impl Dfa {
    /// Compiles `regex`, or says why it cannot be used. `wrap` lets the
    /// caller embed the source (a span's end becomes "anything, then the
    /// end").
    pub(crate) fn compile(regex: &RegexSource, wrap: impl Fn(&str) -> String) -> Result<Dfa, String> {
        Self::build(regex, wrap, false)
    }

    /// Compiles `regex` to test a whole text, as JavaScript's
    /// `new RegExp(`^(?:${source})$`, flags).test(text)` does: a pattern
    /// that can match the empty string is kept (the empty text is never
    /// asked about). See [`Dfa::matches_whole`].
    pub(crate) fn compile_whole(regex: &RegexSource) -> Result<Dfa, String> {
        Self::build(regex, |source| format!("(?:{source})\\z"), true)
    }

    fn build(regex: &RegexSource, wrap: impl Fn(&str) -> String, allow_empty: bool) -> Result<Dfa, String> {
        let source = from_js(&regex.source);
        let hir = syntax::parse_with(&source, &regex.syntax()).map_err(|error| {
            format!("its regular expression cannot be used: {}", first_line(&error.to_string()))
        })?;
        if !allow_empty && hir.properties().minimum_len() == Some(0) {
            return Err("its regular expression can match the empty string, which strips nothing".into());
        }
        let context_looks = [
            Look::Start,
            Look::StartLF,
            Look::StartCRLF,
            Look::WordAscii,
            Look::WordAsciiNegate,
            Look::WordUnicode,
            Look::WordUnicodeNegate,
            Look::WordStartAscii,
            Look::WordEndAscii,
            Look::WordStartUnicode,
            Look::WordEndUnicode,
            Look::WordStartHalfAscii,
            Look::WordEndHalfAscii,
            Look::WordStartHalfUnicode,
            Look::WordEndHalfUnicode,
        ];
        let prefix_looks = hir.properties().look_set_prefix_any();
        let needs_context = context_looks.iter().any(|&look| prefix_looks.contains(look));
        let config = dense::Config::new()
            .match_kind(MatchKind::LeftmostFirst)
            .start_kind(StartKind::Anchored)
            .minimize(false)
            .dfa_size_limit(Some(DFA_SIZE_LIMIT))
            .determinize_size_limit(Some(DFA_SIZE_LIMIT));
        let dfa =
            dense::Builder::new().configure(config).syntax(regex.syntax()).build(&wrap(&source)).map_err(
                |error| {
                    format!("its regular expression cannot be compiled: {}", first_line(&error.to_string()))
                },
            )?;
        let mut first_bytes = [[false; 256]; CONTEXTS];
        for (context, look_behind) in CONTEXT_BYTES.into_iter().enumerate() {
            let config = start::Config::new().anchored(Anchored::Yes).look_behind(look_behind);
            let Ok(start) = dfa.start_state(&config) else { continue };
            for byte in 0..=255u8 {
                if !dfa.is_dead_state(dfa.next_state(start, byte)) {
                    first_bytes[context][usize::from(byte)] = true;
                }
            }
        }
        Ok(Dfa { dfa, first_bytes, needs_context })
    }

    /// The state before the first byte, given the byte before the match
    /// (`None` at the start of the text).
    pub(crate) fn start(&self, look_behind: Option<u8>) -> Option<StateID> {
        self.dfa.start_state(&start::Config::new().anchored(Anchored::Yes).look_behind(look_behind)).ok()
    }

    /// Steps over one code point's bytes, and says whether a match ended
    /// just before it (a DFA reports a match one byte late, so it shows on
    /// the code point's first byte). Stops at a dead state.
    pub(crate) fn step(&self, state: &mut StateID, bytes: &[u8]) -> bool {
        let mut matched = false;
        for (index, &byte) in bytes.iter().enumerate() {
            *state = self.dfa.next_state(*state, byte);
            matched |= index == 0 && self.dfa.is_match_state(*state);
            if self.is_dead(*state) {
                break;
            }
        }
        matched
    }

    /// Whether nothing can follow: no byte leads anywhere but the dead state.
    pub(crate) fn is_spent(&self, state: StateID) -> bool {
        self.is_dead(state) || (0..=255u8).all(|byte| self.is_dead(self.dfa.next_state(state, byte)))
    }

    /// Whether a match ends exactly here whatever comes next: the text may
    /// end, or any byte may follow, and the match stands and cannot grow.
    /// This is what lets a match be stripped as soon as its last unit
    /// arrives, instead of one code point later.
    pub(crate) fn ends_here(&self, state: StateID) -> bool {
        if !self.matches_at_end(state) {
            return false;
        }
        let mut checked: Vec<StateID> = Vec::new();
        (0..=255u8).all(|byte| {
            let next = self.dfa.next_state(state, byte);
            if checked.contains(&next) {
                return true;
            }
            checked.push(next);
            self.dfa.is_match_state(next) && self.is_spent(next)
        })
    }

    /// Whether the whole of `text` matches a DFA built by
    /// [`Dfa::compile_whole`]. One table step per UTF-8 byte, stopping at a
    /// dead state; a lone surrogate reads as U+FFFD.
    pub(crate) fn matches_whole(&self, text: &[u16]) -> bool {
        let Some(mut state) = self.start(None) else { return false };
        let mut buffer = [0; 4];
        for decoded in char::decode_utf16(text.iter().copied()) {
            let c = decoded.unwrap_or(char::REPLACEMENT_CHARACTER);
            self.step(&mut state, c.encode_utf8(&mut buffer).as_bytes());
            if self.is_dead(state) {
                return false;
            }
        }
        self.matches_at_end(state)
    }

    /// Whether the state is dead: no match can be found from it.
    pub(crate) fn is_dead(&self, state: StateID) -> bool {
        self.dfa.is_dead_state(state) || self.dfa.is_quit_state(state)
    }

    /// Whether a match ends at the end of the text.
    pub(crate) fn matches_at_end(&self, state: StateID) -> bool {
        self.dfa.is_match_state(self.dfa.next_eoi_state(state))
    }

    /// Whether a match may begin with `byte` after a unit of `context`.
    pub(crate) fn may_begin_with(&self, byte: u8, context: usize) -> bool {
        self.first_bytes[context][usize::from(byte)]
    }

    pub(crate) fn needs_context(&self) -> bool {
        self.needs_context
    }
}

fn first_line(message: &str) -> String {
    // The crate's messages draw the pattern with a caret under the fault;
    // the last line says what the fault is.
    let lines: Vec<&str> = message.lines().map(str::trim).filter(|line| !line.is_empty()).collect();
    match lines.iter().rev().find(|line| line.starts_with("error:")) {
        Some(line) => line.trim_start_matches("error:").trim().to_string(),
        None => lines.last().copied().unwrap_or("unknown error").to_string(),
    }
}

/// The UTF-8 bytes the DFAs read for one code point, in a small buffer.
pub(crate) fn utf8(code_point: u32, buffer: &mut [u8; 4]) -> &[u8] {
    let c = char::from_u32(code_point).unwrap_or(char::REPLACEMENT_CHARACTER);
    c.encode_utf8(buffer).as_bytes()
}

/// How many starting contexts a DFA tells apart: the start of the text,
/// after a line feed, after a carriage return, after an ASCII word
/// character, after anything else.
pub(crate) const CONTEXTS: usize = 5;

/// A byte of each context, in that order.
pub(crate) const CONTEXT_BYTES: [Option<u8>; CONTEXTS] =
    [None, Some(b'\n'), Some(b'\r'), Some(b'a'), Some(b' ')];

/// The starting context after `previous` (`None`: the start of the text).
pub(crate) fn context_of(previous: Option<u16>) -> usize {
    match previous {
        None => 0,
        Some(0x0A) => 1,
        Some(0x0D) => 2,
        Some(unit) if unit < 0x80 && (unit as u8 == b'_' || (unit as u8).is_ascii_alphanumeric()) => 3,
        Some(_) => 4,
    }
}

/// The look-behind byte a DFA start needs for the unit before a match.
pub(crate) fn look_behind(previous: Option<u16>) -> Option<u8> {
    previous.map(|unit| if unit < 0x80 { unit as u8 } else { 0x80 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dfa(source: &str) -> Result<Dfa, String> {
        Dfa::compile(&RegexSource::new(source), |s| s.to_string())
    }

    #[test]
    fn refuses_what_a_dfa_cannot_run() {
        for (source, says) in [
            ("a(?=b)", "look-around"),
            ("(a)\\1", "backreference"),
            ("a*", "empty string"),
            ("(", "unclosed"),
        ] {
            let error = dfa(source).unwrap_err();
            assert!(error.to_lowercase().contains(says), "{source}: {error}");
        }
    }

    #[test]
    fn whole_matches_try_every_alternative_and_keep_empty_patterns() {
        let whole = |source: &str, flags: &str, text: &str| {
            Dfa::compile_whole(&RegexSource::with_js_flags(source, flags).unwrap())
                .unwrap()
                .matches_whole(&text.encode_utf16().collect::<Vec<u16>>())
        };
        assert!(whole("a|ab", "", "ab"), "JavaScript backtracks into the second alternative");
        assert!(!whole("ab", "", "abc") && !whole("bc", "", "abc"), "the whole text, not a part");
        assert!(whole("a*", "", "aaa"), "a pattern that can match empty is kept");
        assert!(whole(r"\d{4}", "g", "2026") && !whole(r"\d{4}", "", "20261"));
        assert!(whole("HOST-[a-z]+", "i", "host-alpha"));
        assert!(!whole(r"\w+", "", "na\u{ef}ve"), "\\w is ASCII");
        assert!(Dfa::compile_whole(&RegexSource::new("a(?=b)")).is_err());
    }

    #[test]
    fn javascript_escapes_mean_what_they_mean_in_javascript() {
        assert_eq!(from_js(r"\<tool\>"), "<tool>");
        assert_eq!(from_js(r"a\/b"), "a/b");
        assert_eq!(from_js(r"x[^]y"), r"x[\s\S]y");
        assert_eq!(from_js(r"[^a]"), "[^a]");
        assert_eq!(from_js(r"[\]]"), r"[\]]");
        assert_eq!(from_js(r"\w+\b[\d_]"), r"[0-9A-Za-z_]+(?-u:\b)[0-9_]");
        assert_eq!(from_js(r"<\uD83D\uDE00>"), r"<\u{1F600}>");
        assert_eq!(from_js(r"\\uD83D\uDE00"), r"\\uD83D\uDE00", "an escaped backslash, then text");
        assert_eq!(from_js(r"\uD83Dx"), r"\uD83Dx");
    }

    #[test]
    fn first_bytes_and_context() {
        let d = dfa(r"<function=\w+>").unwrap();
        assert!(d.may_begin_with(b'<', 4));
        assert!(!d.may_begin_with(b'f', 4));
        let line = dfa(r"(?m:^)call").unwrap();
        assert!(
            line.may_begin_with(b'c', context_of(None)) && line.may_begin_with(b'c', context_of(Some(0x0A)))
        );
        assert!(!line.may_begin_with(b'c', context_of(Some(u16::from(b'x')))));
        assert!(!line.may_begin_with(b'c', context_of(Some(u16::from(b' ')))));
        assert!(!d.needs_context());
        assert!(dfa(r"(?m:^)call").unwrap().needs_context());
        assert!(dfa(r"\bcall").unwrap().needs_context());
        assert!(!dfa(r"call\z").unwrap().needs_context());
    }

    #[test]
    fn a_match_ends_as_soon_as_it_cannot_grow() {
        let mut buffer = [0; 4];
        let d = dfa("ab").unwrap();
        let mut state = d.start(None).unwrap();
        assert!(!d.step(&mut state, utf8('a' as u32, &mut buffer)));
        assert!(!d.ends_here(state));
        assert!(!d.step(&mut state, utf8('b' as u32, &mut buffer)));
        assert!(d.ends_here(state));
        let greedy = dfa("ab+").unwrap();
        let mut state = greedy.start(None).unwrap();
        greedy.step(&mut state, b"a");
        greedy.step(&mut state, b"b");
        assert!(!greedy.ends_here(state), "another b would lengthen it");
        assert!(greedy.step(&mut state, b"c"), "the match is seen one byte late");
        assert!(greedy.is_spent(state));
        let at_end = dfa(r"ab\z").unwrap();
        let mut state = at_end.start(None).unwrap();
        at_end.step(&mut state, b"a");
        at_end.step(&mut state, b"b");
        assert!(at_end.matches_at_end(state) && !at_end.ends_here(state));
        assert!(!at_end.step(&mut state, b"c"));
        assert!(at_end.is_dead(state));
    }
}
