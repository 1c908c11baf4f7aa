//! A literal registry compiled for the one-pass engine: whether a pattern
//! list is one (literal spans and tokens that can never overlap in any
//! text), and the tables the engine searches with.

use crate::filter::pattern::Pattern;
use crate::filter::scan::find_any;

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

/// A literal registry, compiled for the one-pass engine.
#[derive(Debug)]
pub(crate) struct Literals {
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

impl Literals {
    /// Compiles a literal registry, or `None` when the list is not one.
    pub(crate) fn new(patterns: &[Pattern]) -> Option<Self> {
        if patterns.iter().any(|pattern| pattern.literal_parts().is_none()) || !are_disjoint(patterns) {
            return None;
        }
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
                _ => return None,
            }
        }
        let longest_opening = literals
            .iter()
            .filter(|literal| !matches!(literal.role, Role::End(_)))
            .map(|literal| literal.units.len())
            .max()
            .unwrap_or(0);
        let last_units = LastUnits::new(literals.iter().filter_map(|literal| literal.units.last().copied()));
        Some(Literals { literals, span_ends, span_entries, longest_opening, last_units })
    }

    /// One unit short of the longest opening literal.
    pub(crate) fn max_partial(&self) -> usize {
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
    /// [`Registry::max_partial`](crate::filter::Registry::max_partial) units.
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

/// Whether no two literal occurrences can overlap, over every pair of
/// literals, each literal paired with itself too.
fn are_disjoint(patterns: &[Pattern]) -> bool {
    let mut seen: Vec<&[u16]> = Vec::new();
    for pattern in patterns {
        for (_, units) in pattern.literal_parts().unwrap_or_default() {
            let mut others = seen.iter().map(|&other| (other, false)).chain([(units, true)]);
            if others.any(|(other, same)| can_overlap(units, other, same)) {
                return false;
            }
            seen.push(units);
        }
    }
    true
}

/// Whether occurrences of `a` and `b` could overlap in some text.
fn can_overlap(a: &[u16], b: &[u16], same: bool) -> bool {
    if !same && (contains(a, b) || contains(b, a)) {
        return true;
    }
    overlap(a, b).is_some() || overlap(b, a).is_some()
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
            LastUnits::One(unit) => find_any(text, [*unit]),
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
