//! What the filter strips, as data: a list of patterns, each a span (from a
//! start literal to the first end literal after it) or a standalone token.
//!
//! A [`Registry`] is a checked, compiled list of patterns. The check is the
//! precondition the one-pass filter relies on: **no two literal occurrences
//! can ever overlap**, in any text. Concretely, for all literals `a` and `b`
//! of the registry (span starts, span ends and tokens, `a` and `b` possibly
//! the same literal):
//!
//! - no literal is empty, and no literal occurs inside another one (equal
//!   literals included);
//! - no proper suffix of `a` is a proper prefix of `b`.
//!
//! The default registry meets it: every literal begins with `<|` and ends
//! with `|>`, and neither pair occurs anywhere else in it.

use std::fmt;
use std::sync::Arc;

/// The opening literal of the default span.
pub const SPAN_START: &str = "<|tool_call_start|>";
/// The closing literal of the default span.
pub const SPAN_END: &str = "<|tool_call_end|>";
/// The default standalone tokens, in registry order.
pub const TOKENS: [&str; 2] = ["<|tool_calls|>", "<|tool_call|>"];

/// The JavaScript `RegExp` source of each default pattern, in registry order:
/// the span first, then the two tokens. It is what
/// [`Pattern::regex_source`] derives for [`default_patterns`]; it is spelled
/// out as a constant so that the binding can export it as one, and a test
/// holds the two together.
pub const DEFAULT_PATTERN_SOURCES: [&str; 3] =
    [r"<\|tool_call_start\|>[\s\S]*?<\|tool_call_end\|>", r"<\|tool_calls\|>", r"<\|tool_call\|>"];

/// One registry entry. Literals are UTF-16 code units, as JavaScript holds
/// strings, so a custom literal may contain any JavaScript string.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `start`, then anything, up to and including the first `end` after it.
    Span { start: Vec<u16>, end: Vec<u16> },
    /// The literal on its own.
    Token { literal: Vec<u16> },
}

impl Pattern {
    /// A span between two literals.
    pub fn span(start: &str, end: &str) -> Self {
        Pattern::Span { start: start.encode_utf16().collect(), end: end.encode_utf16().collect() }
    }

    /// A standalone token.
    pub fn token(literal: &str) -> Self {
        Pattern::Token { literal: literal.encode_utf16().collect() }
    }

    /// The JavaScript `RegExp` source that matches what this pattern strips
    /// (without flags: a span is non-greedy and `[\s\S]` crosses newlines).
    pub fn regex_source(&self) -> String {
        match self {
            Pattern::Span { start, end } => {
                format!("{}[\\s\\S]*?{}", regex_escape(start), regex_escape(end))
            }
            Pattern::Token { literal } => regex_escape(literal),
        }
    }

    /// The pattern's literals, each with the name of its part.
    fn parts(&self) -> Vec<(&'static str, &[u16])> {
        match self {
            Pattern::Span { start, end } => vec![("start", start), ("end", end)],
            Pattern::Token { literal } => vec![("token", literal)],
        }
    }
}

/// The reference filter's registry: the tool-call span and the two
/// standalone tokens, in the reference's order.
pub fn default_patterns() -> Vec<Pattern> {
    let mut patterns = vec![Pattern::span(SPAN_START, SPAN_END)];
    patterns.extend(TOKENS.iter().map(|token| Pattern::token(token)));
    patterns
}

/// Escapes UTF-16 text for a JavaScript `RegExp` without the `u` flag:
/// syntax characters get a backslash, printable ASCII stays as it is, and
/// every other unit becomes `\uXXXX` (which is how a lone surrogate, or one
/// half of a pair, is written in such a pattern).
fn regex_escape(units: &[u16]) -> String {
    let mut source = String::with_capacity(units.len());
    for &unit in units {
        match char::from_u32(u32::from(unit)) {
            Some(c) if "\\^$.*+?()[]{}|/".contains(c) => {
                source.push('\\');
                source.push(c);
            }
            Some(c) if c.is_ascii_graphic() || c == ' ' => source.push(c),
            _ => source.push_str(&format!("\\u{unit:04X}")),
        }
    }
    source
}

/// Why a list of patterns cannot be a registry. `entry` is the index of the
/// offending pattern in the list that was given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegistryError {
    pub entry: usize,
    pub reason: String,
}

impl fmt::Display for RegistryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "scaffolding pattern {}: {}", self.entry, self.reason)
    }
}

impl std::error::Error for RegistryError {}

/// What a literal does when it completes in the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Token,
    /// Opens the span with this index (in span order, not entry order).
    Start(usize),
    /// Closes the span with this index.
    End(usize),
}

#[derive(Debug)]
pub(crate) struct Literal {
    pub(crate) units: Vec<u16>,
    pub(crate) role: Role,
    /// The index of the pattern it belongs to, in the list given.
    pub(crate) entry: usize,
}

/// A checked, compiled pattern list (see the module docs for the check).
#[derive(Debug)]
pub struct Registry {
    patterns: Vec<Pattern>,
    literals: Vec<Literal>,
    /// For each span, the units of its end literal.
    span_ends: Vec<Vec<u16>>,
    /// For each span, the index of its pattern in the list given.
    span_entries: Vec<usize>,
    /// Length of the longest literal that can open something (span starts
    /// and tokens; an end opens nothing).
    longest_opening: usize,
    last_units: LastUnits,
}

impl Registry {
    /// Checks the precondition and compiles the patterns. The error names
    /// the first entry that conflicts with itself or with an earlier one.
    pub fn new(patterns: Vec<Pattern>) -> Result<Self, RegistryError> {
        check_disjoint(&patterns)?;
        let mut literals = Vec::new();
        let mut span_ends = Vec::new();
        let mut span_entries = Vec::new();
        for (entry, pattern) in patterns.iter().enumerate() {
            match pattern {
                Pattern::Span { start, end } => {
                    let span = span_ends.len();
                    literals.push(Literal { units: start.clone(), role: Role::Start(span), entry });
                    literals.push(Literal { units: end.clone(), role: Role::End(span), entry });
                    span_ends.push(end.clone());
                    span_entries.push(entry);
                }
                Pattern::Token { literal } => {
                    literals.push(Literal { units: literal.clone(), role: Role::Token, entry });
                }
            }
        }
        let longest_opening = literals
            .iter()
            .filter(|literal| !matches!(literal.role, Role::End(_)))
            .map(|literal| literal.units.len())
            .max()
            .unwrap_or(0);
        let last_units =
            LastUnits::new(literals.iter().map(|literal| literal.units[literal.units.len() - 1]));
        Ok(Registry { patterns, literals, span_ends, span_entries, longest_opening, last_units })
    }

    /// The default registry, compiled for one filter: a few small
    /// allocations, so nothing is kept between filters.
    pub fn of_defaults() -> Arc<Registry> {
        Arc::new(Registry::new(default_patterns()).expect("the default registry meets the precondition"))
    }

    /// The patterns, in the order they were given.
    pub fn patterns(&self) -> &[Pattern] {
        &self.patterns
    }

    /// Every unit a match can begin with: the first unit of each opening
    /// literal (span starts and tokens), sorted, each once. A match begins
    /// with an opening literal, so a filter that holds nothing cannot strip
    /// or hold any part of a chunk that has none of these units.
    pub fn start_units(&self) -> Vec<u16> {
        let mut units: Vec<u16> = self
            .patterns
            .iter()
            .map(|pattern| match pattern {
                Pattern::Span { start, .. } => start[0],
                Pattern::Token { literal } => literal[0],
            })
            .collect();
        units.sort_unstable();
        units.dedup();
        units
    }

    /// The longest held tail in the normal state (no span open): one unit
    /// short of the longest opening literal.
    pub fn max_partial(&self) -> usize {
        self.longest_opening.saturating_sub(1)
    }

    pub(crate) fn span_count(&self) -> usize {
        self.span_ends.len()
    }

    pub(crate) fn span_end(&self, span: usize) -> &[u16] {
        &self.span_ends[span]
    }

    /// The index, in the list given, of the span's pattern.
    pub(crate) fn span_entry(&self, span: usize) -> usize {
        self.span_entries[span]
    }

    /// Position of the next unit in `text` that ends some literal: only
    /// there can a literal complete.
    #[inline]
    pub(crate) fn next_last_unit(&self, text: &[u16]) -> Option<usize> {
        self.last_units.find(text)
    }

    /// The literal `text` ends with, if any. At most one can: two literals
    /// that both end a text would be suffix and substring of each other.
    #[inline]
    pub(crate) fn literal_ending(&self, text: &[u16]) -> Option<&Literal> {
        let last = *text.last()?;
        self.literals
            .iter()
            .find(|literal| literal.units[literal.units.len() - 1] == last && text.ends_with(&literal.units))
    }

    /// Length of the longest suffix of `text` that could still grow into an
    /// opening literal: a proper prefix of a span start or a token, at most
    /// [`Registry::max_partial`] units.
    pub(crate) fn partial_opening_len(&self, text: &[u16]) -> usize {
        let longest = self.max_partial().min(text.len());
        (1..=longest)
            .rev()
            .find(|&k| {
                let suffix = &text[text.len() - k..];
                self.literals.iter().any(|literal| {
                    !matches!(literal.role, Role::End(_))
                        && k < literal.units.len()
                        && literal.units.starts_with(suffix)
                })
            })
            .unwrap_or(0)
    }
}

/// One literal of an entry, named for error messages.
#[derive(Clone, Copy)]
struct Part<'a> {
    entry: usize,
    name: &'static str,
    units: &'a [u16],
}

impl fmt::Display for Part<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = String::from_utf16_lossy(self.units);
        write!(f, "pattern {}'s {} `{text}`", self.entry, self.name)
    }
}

/// Enforces the precondition over every pair of literals, each literal
/// paired with itself too.
fn check_disjoint(patterns: &[Pattern]) -> Result<(), RegistryError> {
    let mut seen: Vec<Part<'_>> = Vec::new();
    for (entry, pattern) in patterns.iter().enumerate() {
        if let Pattern::Span { start, end } = pattern {
            if start == end && !start.is_empty() {
                return Err(RegistryError {
                    entry,
                    reason: "its end is the same as its start, so no end could be told from a start".into(),
                });
            }
        }
        for (name, units) in pattern.parts() {
            if units.is_empty() {
                return Err(RegistryError { entry, reason: format!("its {name} is empty") });
            }
            let part = Part { entry, name, units };
            let mut others = seen.iter().map(|&other| (other, false)).chain([(part, true)]);
            if let Some(reason) = others.find_map(|(other, same)| conflict(part, other, same)) {
                return Err(RegistryError { entry, reason });
            }
            seen.push(part);
        }
    }
    Ok(())
}

/// Why occurrences of `a` and `b` could overlap in some text, if they can.
fn conflict(a: Part<'_>, b: Part<'_>, same: bool) -> Option<String> {
    if !same && (contains(a.units, b.units) || contains(b.units, a.units)) {
        return Some(format!("{a} and {b}: one occurs inside the other"));
    }
    [(a, b), (b, a)].into_iter().find_map(|(first, second)| {
        let k = overlap(first.units, second.units)?;
        let shared = String::from_utf16_lossy(&second.units[..k]);
        Some(format!("{first} ends with `{shared}`, which begins {second}: two occurrences could overlap"))
    })
}

fn contains(haystack: &[u16], needle: &[u16]) -> bool {
    find(haystack, needle).is_some()
}

/// The length of a proper suffix of `a` that is also a proper prefix of `b`.
fn overlap(a: &[u16], b: &[u16]) -> Option<usize> {
    (1..a.len().min(b.len())).find(|&k| a[a.len() - k..] == b[..k])
}

/// First occurrence of `needle` in `haystack`.
pub(crate) fn find(haystack: &[u16], needle: &[u16]) -> Option<usize> {
    let (&first, tail) = needle.split_first()?;
    if haystack.len() < needle.len() {
        return None;
    }
    let last_start = haystack.len() - needle.len();
    let mut from = 0;
    while from <= last_start {
        let at = from + haystack[from..=last_start].iter().position(|&unit| unit == first)?;
        if haystack[at + 1..at + needle.len()] == *tail {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// The set of units that end some literal, tuned for the usual case of one
/// (every default literal ends with `>`).
#[derive(Debug)]
enum LastUnits {
    One(u16),
    Many { ascii: u128, others: Vec<u16> },
}

impl LastUnits {
    fn new(units: impl Iterator<Item = u16>) -> Self {
        let mut units: Vec<u16> = units.collect();
        units.sort_unstable();
        units.dedup();
        if let [only] = units[..] {
            return LastUnits::One(only);
        }
        let ascii = units.iter().filter(|&&unit| unit < 128).fold(0u128, |mask, &unit| mask | 1 << unit);
        let others = units.into_iter().filter(|&unit| unit >= 128).collect();
        LastUnits::Many { ascii, others }
    }

    #[inline]
    fn find(&self, text: &[u16]) -> Option<usize> {
        match self {
            LastUnits::One(unit) => find_unit(text, *unit),
            LastUnits::Many { ascii, others } => {
                text.iter().position(
                    |&unit| {
                        if unit < 128 {
                            ascii >> unit & 1 == 1
                        } else {
                            others.contains(&unit)
                        }
                    },
                )
            }
        }
    }
}

/// Position of the first `unit` in `text`. Compares a block of units at a
/// time so that the compiler can vectorise the scan of long runs of prose.
#[inline]
fn find_unit(text: &[u16], unit: u16) -> Option<usize> {
    const BLOCK: usize = 32;
    let mut blocks = text.chunks_exact(BLOCK);
    let mut offset = 0;
    for block in &mut blocks {
        if block.iter().fold(false, |hit, &u| hit | (u == unit)) {
            return block.iter().position(|&u| u == unit).map(|at| offset + at);
        }
        offset += BLOCK;
    }
    blocks.remainder().iter().position(|&u| u == unit).map(|at| offset + at)
}
