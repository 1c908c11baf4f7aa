//! What the filter strips, as data: a list of patterns, each a span (from a
//! start to the first end after it), a standalone token or regular
//! expression, an opening followed by one JSON value, or a bare JSON tool
//! call.
//!
//! A [`Registry`] is a checked, compiled list of patterns. Any list of
//! well-formed patterns is a registry; how it is run depends on what it
//! holds:
//!
//! - **Literal registries**, whose patterns are all literal spans and
//!   tokens and whose literals can never overlap in any text, run on the
//!   one-pass engine, which reproduces the reference filter feed by feed
//!   (`engine::one_pass`). The default registry is one. "Never overlap" means,
//!   for all literals `a` and `b` (span starts, span ends and tokens, `a`
//!   and `b` possibly the same literal): no literal occurs inside another
//!   one, and no proper suffix of `a` is a proper prefix of `b`.
//! - **Every other registry** runs on the general engine (`engine::general`):
//!   the leftmost match is stripped, then the next one after it, and so on,
//!   a tie at one start going to the earlier pattern, exactly as one
//!   regular expression made of the patterns in order would find them.
//!
//! The two agree except where the reference's own quirk applies: after a
//! strip, the reference searches the joined text again, so the text on the
//! two sides of a strip can form a new match. The general engine never
//! joins; its output is the same for every chunking.

use std::sync::{Arc, LazyLock};

use super::engine::general::compile::General;
use super::engine::literals::Literals;
use super::pattern::{default_patterns, Part, Pattern, RegistryError};

/// A checked, compiled pattern list (see the module docs for how it runs).
#[derive(Debug)]
pub struct Registry {
    patterns: Vec<Pattern>,
    form: Form,
}

/// How a registry is run.
#[derive(Debug)]
pub(crate) enum Form {
    /// On the one-pass engine: literal spans and tokens that never overlap.
    Literals(Literals),
    /// On the general engine.
    General(General),
}

impl Registry {
    /// Checks and compiles the patterns. The error names the first entry
    /// that cannot be used, and why: an empty literal, a regular expression
    /// the crate cannot run or one that matches the empty string, an empty
    /// `toolNames`.
    pub fn new(patterns: Vec<Pattern>) -> Result<Self, RegistryError> {
        check_well_formed(&patterns)?;
        let form = match Literals::new(&patterns) {
            Some(literals) => Form::Literals(literals),
            None => Form::General(General::new(&patterns)?),
        };
        Ok(Registry { patterns, form })
    }

    /// The default registry, compiled once for the process and shared by
    /// every filter that uses it. It is an immutable constant: it holds no
    /// text and nothing any filter did, so sharing it keeps no state
    /// between filters, and a filter no longer pays a compile.
    pub fn of_defaults() -> Arc<Registry> {
        static DEFAULTS: LazyLock<Arc<Registry>> = LazyLock::new(|| {
            Arc::new(Registry::new(default_patterns()).expect("the default registry is well formed"))
        });
        Arc::clone(&DEFAULTS)
    }

    /// The patterns, in the order they were given.
    pub fn patterns(&self) -> &[Pattern] {
        &self.patterns
    }

    pub(crate) fn form(&self) -> &Form {
        &self.form
    }

    /// Whether this registry runs on the one-pass engine, exactly as the
    /// reference filter runs (see the module docs).
    pub fn is_literal(&self) -> bool {
        matches!(self.form, Form::Literals(_))
    }

    /// Every unit a match can begin with, sorted, each once. A filter that
    /// holds nothing cannot strip or hold any part of a chunk that has none
    /// of these units, and stays as it was; `None` when no such set can be
    /// given (a pattern that depends on what came before, such as a JSON
    /// call at the start of a line, or a very large set).
    pub fn start_units(&self) -> Option<Vec<u16>> {
        match &self.form {
            Form::Literals(_) => {
                let mut units: Vec<u16> = self
                    .patterns
                    .iter()
                    .filter_map(|pattern| match pattern {
                        Pattern::Span { start, .. } => start.first().copied(),
                        Pattern::Token { literal } => literal.first().copied(),
                        _ => None,
                    })
                    .collect();
                units.sort_unstable();
                units.dedup();
                Some(units)
            }
            Form::General(general) => general.start_units(),
        }
    }

    /// The longest held tail outside an open span, for a literal registry:
    /// one unit short of the longest opening literal.
    pub fn max_partial(&self) -> usize {
        match &self.form {
            Form::Literals(literals) => literals.max_partial(),
            Form::General(_) => 0,
        }
    }
}

/// The checks every registry must pass: no empty literal and a non-empty
/// `toolNames` of non-empty names. (Regular expressions are checked as
/// they are compiled.)
fn check_well_formed(patterns: &[Pattern]) -> Result<(), RegistryError> {
    let empty = |entry, name: &str| RegistryError { entry, reason: format!("its {name} is empty") };
    for (entry, pattern) in patterns.iter().enumerate() {
        match pattern {
            Pattern::JsonCall { tool_names: Some(names) } if names.is_empty() => {
                return Err(RegistryError {
                    entry,
                    reason:
                        "its toolNames is empty, so it would strip nothing (leave toolNames out for any tool)"
                            .into(),
                });
            }
            Pattern::JsonCall { tool_names: Some(names) } if names.iter().any(String::is_empty) => {
                return Err(empty(entry, "tool name"));
            }
            _ => {}
        }
        for (name, units) in pattern.literal_parts().unwrap_or_default() {
            if units.is_empty() {
                return Err(empty(entry, name));
            }
        }
        let parts: Vec<(&str, &Part)> = match pattern {
            Pattern::RegexSpan { start, end } => vec![("start", start), ("end", end)],
            Pattern::Json { start } => vec![("start", start)],
            _ => Vec::new(),
        };
        for (name, part) in parts {
            if matches!(part, Part::Literal(units) if units.is_empty()) {
                return Err(empty(entry, name));
            }
        }
    }
    Ok(())
}
