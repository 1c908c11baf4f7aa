//! The patterns a registry is made of: a span (from a start to the first
//! end after it), a standalone token or regular expression, an opening
//! followed by one JSON value, or a bare JSON tool call; and the reference
//! filter's own three.

use std::fmt;

use super::regex::RegexSource;

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

/// One part of a pattern: a literal (UTF-16 code units, as JavaScript holds
/// strings) or a regular expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Part {
    Literal(Vec<u16>),
    Regex(RegexSource),
}

impl Part {
    pub fn literal(text: &str) -> Self {
        Part::Literal(text.encode_utf16().collect())
    }

    pub fn regex(source: &str) -> Self {
        Part::Regex(RegexSource::new(source))
    }

    /// The JavaScript `RegExp` source that matches this part.
    fn regex_source(&self) -> String {
        match self {
            Part::Literal(units) => regex_escape(units),
            Part::Regex(regex) => format!("(?:{})", regex.source),
        }
    }
}

/// One registry entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `start`, then anything, up to and including the first `end` after it.
    Span { start: Vec<u16>, end: Vec<u16> },
    /// The literal on its own.
    Token { literal: Vec<u16> },
    /// A match of a regular expression.
    Regex { regex: RegexSource },
    /// A span with a regular expression at one end or both: a match of
    /// `start`, then anything, up to and including the first match of `end`.
    RegexSpan { start: Part, end: Part },
    /// A match of `start`, optional JSON whitespace, and one complete JSON
    /// object or array.
    Json { start: Part },
    /// A bare JSON tool call at the very start of the answer or of a line,
    /// not indented, optionally in a Markdown fence that begins its line
    /// (see `json::is_tool_call` for the shapes). With `tool_names`, only
    /// calls naming one of them.
    JsonCall { tool_names: Option<Vec<String>> },
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

    /// A span between two parts, literal ones or not.
    pub fn span_of(start: Part, end: Part) -> Self {
        match (start, end) {
            (Part::Literal(start), Part::Literal(end)) => Pattern::Span { start, end },
            (start, end) => Pattern::RegexSpan { start, end },
        }
    }

    /// A token that is a literal or a regular expression.
    pub fn token_of(part: Part) -> Self {
        match part {
            Part::Literal(literal) => Pattern::Token { literal },
            Part::Regex(regex) => Pattern::Regex { regex },
        }
    }

    /// The JavaScript `RegExp` source that matches what this pattern strips
    /// (without flags: a span is non-greedy and `[\s\S]` crosses newlines),
    /// for the kinds a regular expression can say: not the JSON kinds.
    pub fn regex_source(&self) -> Option<String> {
        match self {
            Pattern::Span { start, end } => {
                Some(format!("{}[\\s\\S]*?{}", regex_escape(start), regex_escape(end)))
            }
            Pattern::Token { literal } => Some(regex_escape(literal)),
            Pattern::Regex { regex } => Some(regex.source.clone()),
            Pattern::RegexSpan { start, end } => {
                Some(format!("{}[\\s\\S]*?{}", start.regex_source(), end.regex_source()))
            }
            Pattern::Json { .. } | Pattern::JsonCall { .. } => None,
        }
    }

    /// The pattern's literals, each with the name of its part, when it is a
    /// literal span or token.
    pub(super) fn literal_parts(&self) -> Option<Vec<(&'static str, &[u16])>> {
        match self {
            Pattern::Span { start, end } => Some(vec![("start", start), ("end", end)]),
            Pattern::Token { literal } => Some(vec![("token", literal)]),
            _ => None,
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
