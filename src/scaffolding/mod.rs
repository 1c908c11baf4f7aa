//! The stream seam: strip a chat model's leaked tool-call markup from the
//! answer text it streams, chunk by chunk.
//!
//! Some models write their chat template's tool-call syntax into plain
//! answer text (`<|tool_call_start|>[read(path='x')]<|tool_call_end|>`),
//! even when no tools were offered. [`ScaffoldingFilter`] removes the
//! registered forms as the text flows and holds back only what could still
//! turn into one.
//!
//! # Guarantees
//!
//! - **Same output as the reference filter** (a short Python class kept in
//!   the specification) for every chunking: feed by feed, the same flush,
//!   the same stripped spans in the same order. That includes its quirks:
//!   a removal can join its neighbours into a new marker, which is removed
//!   too, so the output depends on where the chunks were cut.
//! - **Lossless UTF-16**: the filter works on code units and never decodes,
//!   so lone surrogates pass through and nothing becomes U+FFFD. Lengths are
//!   JavaScript `.length`s.
//! - **Linear time**: a feed costs time proportional to the chunk, where the
//!   reference rescans everything it holds. Memory outside an open span is
//!   at most the longest opening literal minus one unit; an open span is
//!   held whole, because the flush must return it, unless
//!   [`Options::max_held`] bounds it.
//!
//! The patterns are data ([`Registry`], [`Pattern`]); the default registry
//! is the reference's span and two tokens, and [`presets`] names the
//! registries of other model families. A registry must keep literal
//! occurrences from overlapping (see [`registry`]); that is what lets one
//! pass stand in for the reference's repeated rescans.
//!
//! [`Options`] go beyond the reference, which always returns an unclosed
//! span as text at the end and holds an open span however long it grows:
//! a filter may drop such a span instead ([`OpenSpanPolicy`]), and may
//! bound what an open span holds. Each strip is recorded with its reason
//! and pattern ([`Strip`]), for a caller that reports them as they happen.

mod filter;
pub mod presets;
pub mod registry;

pub use filter::{OpenSpanPolicy, Options, ScaffoldingFilter, Strip, StripReason};
pub use presets::{Preset, PresetPattern, PRESETS};
pub use registry::{default_patterns, Pattern, Registry, RegistryError, DEFAULT_PATTERN_SOURCES};

#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;
