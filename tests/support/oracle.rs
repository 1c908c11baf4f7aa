//! The oracle the filter is judged by, shared by the property tests and
//! the fuzz targets (which include this file by path).
//!
//! The oracle is the crate's own transcription of the Python reference
//! filter (`src/filter/reference.rs`, which the unit tests use too),
//! included here by path: it is deliberately naive (it rescans the whole
//! buffer after every removal), so keep its inputs small.

use std::sync::Arc;

use seamguard::filter::{OpenSpanPolicy, Options, Pattern, Registry, ScaffoldingFilter, StripReason};

// The property tests use the default options only, so some of the
// transcription goes unused here.
#[allow(dead_code)]
#[path = "../../src/filter/reference.rs"]
mod reference;

use reference::ReferenceFilter;

/// Why a check failed: what differed, with both sides.
macro_rules! ensure {
    ($ok:expr, $($why:tt)+) => {
        if !$ok {
            return Err(format!($($why)+));
        }
    };
}

/// Runs one stream through the filter and the oracle side by side: `chunks`
/// fed in order, with a flush after chunk `i` where `flush_after[i]`, and a
/// final flush. Checks, feed by feed, the same output, the same held tail
/// and the hold bound (outside an open span the filter holds at most the
/// longest opening literal less one unit); at the end, the same spans and
/// conservation (emitted plus stripped is every input unit).
pub fn check_stream(patterns: &[Pattern], chunks: &[Vec<u16>], flush_after: &[bool]) -> Result<(), String> {
    let registry = Registry::new(patterns.to_vec()).map_err(|error| format!("not a registry: {error}"))?;
    let longest_opening = patterns
        .iter()
        .map(|pattern| match pattern {
            Pattern::Span { start, .. } => start.len(),
            Pattern::Token { literal } => literal.len(),
            _ => unimplemented!("the reference takes literal spans and tokens"),
        })
        .max()
        .unwrap_or(0);
    let bound = longest_opening.saturating_sub(1);
    ensure!(
        registry.max_partial() == bound,
        "max_partial {} for openings up to {longest_opening}",
        registry.max_partial()
    );

    let mut filter = ScaffoldingFilter::with_registry(Arc::new(registry));
    let mut oracle = ReferenceFilter::new(patterns.to_vec());
    let mut emitted = 0;
    for (index, chunk) in chunks.iter().enumerate() {
        let ours = filter.feed(chunk);
        let theirs = oracle.feed(chunk);
        ensure!(ours == theirs, "feed {index}: filter {ours:?}, reference {theirs:?}");
        ensure!(
            filter.held() == oracle.held(),
            "held after feed {index}: {:?} vs {:?}",
            filter.held(),
            oracle.held()
        );
        ensure!(
            filter.is_span_open() || filter.held().len() <= bound,
            "feed {index}: holds {} units outside a span, bound {bound}",
            filter.held().len()
        );
        emitted += ours.len();
        if flush_after.get(index).copied().unwrap_or(false) {
            let ours = filter.flush();
            let theirs = oracle.flush();
            ensure!(ours == theirs, "flush after feed {index}: filter {ours:?}, reference {theirs:?}");
            ensure!(filter.held().is_empty() && !filter.is_span_open(), "a flush leaves nothing held");
            emitted += ours.len();
        }
    }
    let ours = filter.flush();
    let theirs = oracle.flush();
    ensure!(ours == theirs, "final flush: filter {ours:?}, reference {theirs:?}");
    emitted += ours.len();

    let spans: Vec<Vec<u16>> = filter.stripped_spans().map(<[u16]>::to_vec).collect();
    let theirs = oracle.stripped_spans();
    ensure!(spans == theirs, "spans: filter {spans:?}, reference {theirs:?}");
    let stripped: usize = spans.iter().map(Vec::len).sum();
    ensure!(
        filter.stripped_chars() == stripped,
        "stripped_chars {} for spans of {stripped}",
        filter.stripped_chars()
    );
    let input: usize = chunks.iter().map(Vec::len).sum();
    ensure!(
        emitted + stripped == input,
        "conservation: {emitted} emitted + {stripped} stripped != {input} fed"
    );
    Ok(())
}
