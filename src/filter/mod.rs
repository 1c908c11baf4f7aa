//! The stream seam: strip a chat model's leaked tool-call markup from the
//! answer text it streams, chunk by chunk.
//!
//! Some models write their chat template's tool-call syntax into plain
//! answer text (`<|tool_call_start|>[read(path='x')]<|tool_call_end|>`),
//! even when no tools were offered. [`ScaffoldingFilter`] removes the
//! registered forms as the text flows and holds back only what could still
//! turn into one.
//!
//! A chunk goes through tool-aware detection ([`tool_aware`], when tools
//! are offered), then the registry's engine ([`engine`]): the one-pass
//! engine for a literal registry (literal spans and tokens that can never
//! overlap; the default is one), with the reference filter's output for
//! every chunking, its quirk included; the general engine for any other,
//! with the output one regular expression made of the patterns would give,
//! the same for every chunking. For both, the output and the stripped spans
//! add up to the input unit for unit, lone surrogates included, and a feed
//! costs time linear in the chunk. `docs/design.md` ("The stream filter")
//! says how, and how the tests hold them to it.
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
/// carries neither the field nor the sums (see `growth.rs`). Defined before
/// the modules, so that every one of them can use it.
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
pub(crate) mod regex;
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
pub use strip::{CalledTool, OpenSpanPolicy, Options, ParsedCall, Strip, StripReason, TOOLS};
pub use tool_aware::{Tools, ToolsError};
pub use tool_names::{usable_tools, SkipReason, Skipped, Tool, UsableTools, MAX_NAME};

#[cfg(test)]
mod growth;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
