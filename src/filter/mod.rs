//! The stream seam: strip a chat model's leaked tool-call markup from the
//! answer text it streams, chunk by chunk.
//!
//! Some models write their chat template's tool-call syntax into plain
//! answer text (`<|tool_call_start|>[read(path='x')]<|tool_call_end|>`),
//! even when no tools were offered. [`ScaffoldingFilter`] removes the
//! registered forms as the text flows and holds back only what could still
//! turn into one.
//!
//! # Two engines, chosen by the registry
//!
//! - A **literal registry** (literal spans and tokens that can never
//!   overlap; the default is one) runs on the one-pass engine, with the
//!   same output as the reference filter (a short Python class kept in the
//!   specification) for every chunking: feed by feed, the same flush, the
//!   same stripped spans in the same order. That includes its quirk: a
//!   removal can join its neighbours into a new marker, which is removed
//!   too, so the output can depend on where the chunks were cut.
//! - **Any other registry** (overlapping literals, regular expressions, an
//!   opening followed by JSON, bare JSON tool calls, unions of presets)
//!   runs on the general engine: it strips what one regular expression made
//!   of the patterns in order would find in the whole text, and never joins,
//!   so its output is the same for every chunking.
//!
//! # Guarantees, for both
//!
//! - **Lossless UTF-16**: the filter works on code units and never decodes,
//!   so lone surrogates pass through and nothing becomes U+FFFD. Lengths are
//!   JavaScript `.length`s. (A regular expression reads a lone surrogate as
//!   U+FFFD; the surrogate itself still passes through.)
//! - **Nothing lost**: the output and the stripped spans add up to the
//!   input, unit for unit.
//! - **Linear time**: a feed costs time proportional to the chunk, where the
//!   reference rescans everything it holds; inside an open span, a long JSON
//!   value or a long regular-expression match too, and whatever completes
//!   behind an open span. The general engine steps each of its runs once a
//!   unit, and a registry bounds how many there are (see `threads`); the
//!   tool stage pays its failed reads from a credit the text earns (see
//!   `calls`). The tests count that work, not time (`growth.rs`): on the
//!   shapes that once made it grow with the square or the cube of the text
//!   (a span left open while other patterns complete inside it, openers
//!   that keep threads alive, closers a regular expression keeps extending,
//!   JSON calls nested line by line), for every family's special tokens
//!   with a tool, every preset at once and two spans with a token that is
//!   the second's end, 4 and 16 times the text must cost at most 5 and 20
//!   times the work. `benchmark/bench.mjs` times the same shapes. An open
//!   span is held whole, because the flush must return it, unless
//!   [`Options::max_held`] bounds it.
//!
//! The patterns are data ([`Registry`], [`Pattern`]); the default registry
//! is the reference's span and two tokens, and [`presets`] names the
//! registries of other model families.
//!
//! [`Options`] go beyond the reference, which always returns an unclosed
//! span as text at the end and holds an open span however long it grows:
//! a filter may drop such a span instead ([`OpenSpanPolicy`]), and may
//! bound what an open span holds. Each strip is recorded with its reason
//! and pattern ([`Strip`]), for a caller that reports them as they happen.

/// Adds to an engine's work counter: in tests only, so a release build
/// carries neither the field nor the sums (see `growth.rs`).
macro_rules! count_work {
    ($counter:expr, $amount:expr) => {
        #[cfg(test)]
        {
            $counter += $amount as u64;
        }
    };
}

mod engine;
mod json;
pub mod pattern;
pub mod presets;
mod regex;
pub mod registry;
mod scaffolding_filter;
mod scan;
mod strip;
mod tidy;
mod tool_aware;
mod tool_names;

pub use pattern::{default_patterns, Part, Pattern, RegistryError, DEFAULT_PATTERN_SOURCES};
pub use presets::{Preset, PresetPart, PresetPattern, PRESETS};
pub use regex::RegexSource;
pub use registry::Registry;
pub use scaffolding_filter::ScaffoldingFilter;
pub use strip::{OpenSpanPolicy, Options, ParsedCall, Strip, StripReason, TOOLS};
pub use tool_aware::{Tools, ToolsError};
pub use tool_names::{usable_tools, SkipReason, Skipped, Tool, UsableTools, MAX_NAME};

#[cfg(test)]
mod growth;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
