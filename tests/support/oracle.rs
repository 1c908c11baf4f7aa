//! The oracle the filter is judged by, shared by the property tests and
//! the fuzz targets (which include this file by path).
//!
//! `Rescan` is the Python reference filter (`shared/spec/scaffolding_filter.py`)
//! written out again over UTF-16 code units, statement for statement, with
//! its three hard-wired patterns replaced by a pattern list so that custom
//! registries can be judged the same way. It is deliberately naive: it
//! searches the way a backtracking regex does and rescans the whole buffer
//! after every removal, so keep its inputs small.

use std::sync::Arc;

use seamguard::filter::{Pattern, Registry, ScaffoldingFilter};

/// `haystack.find(needle, from)` as Python's `str.find` answers it, on code
/// units: a plain left-to-right comparison at every position.
pub fn py_find(haystack: &[u16], needle: &[u16], from: usize) -> Option<usize> {
    (from..=haystack.len()).find(|&at| haystack[at..].starts_with(needle))
}

/// `pattern.search(buf)` for the regex a pattern stands for: the leftmost
/// position where the regex matches, with the span's body non-greedy (so it
/// ends at the first end literal after the start literal).
fn regex_search(pattern: &Pattern, buf: &[u16]) -> Option<(usize, usize)> {
    match pattern {
        Pattern::Token { literal } => py_find(buf, literal, 0).map(|at| (at, at + literal.len())),
        Pattern::Span { start, end } => (0..buf.len()).find_map(|at| {
            if !buf[at..].starts_with(start) {
                return None;
            }
            let end_at = py_find(buf, end, at + start.len())?;
            Some((at, end_at + end.len()))
        }),
        _ => unimplemented!("the reference takes literal spans and tokens"),
    }
}

/// The reference filter, over code units, for any pattern list.
pub struct Rescan {
    patterns: Vec<Pattern>,
    pub pending: Vec<u16>,
    pub spans: Vec<Vec<u16>>,
}

impl Rescan {
    pub fn new(patterns: Vec<Pattern>) -> Self {
        Rescan { patterns, pending: Vec::new(), spans: Vec::new() }
    }

    fn openings(&self) -> Vec<&[u16]> {
        self.patterns
            .iter()
            .map(|pattern| match pattern {
                Pattern::Span { start, .. } => &start[..],
                Pattern::Token { literal } => &literal[..],
                _ => unimplemented!("the reference takes literal spans and tokens"),
            })
            .collect()
    }

    /// `_leftmost_match`: ties go to the earlier pattern.
    fn leftmost_match(&self, buf: &[u16]) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize)> = None;
        for pattern in &self.patterns {
            if let Some(found) = regex_search(pattern, buf) {
                if best.is_none() || found.0 < best.unwrap().0 {
                    best = Some(found);
                }
            }
        }
        best
    }

    /// `_hold_index`, with its one span generalised to every span of the
    /// list: each span whose first start has no end after it holds the text
    /// from there.
    fn hold_index(&self, buf: &[u16]) -> usize {
        if buf.is_empty() {
            return 0;
        }
        let mut hold = buf.len();
        for pattern in &self.patterns {
            if let Pattern::Span { start, end } = pattern {
                if let Some(at) = py_find(buf, start, 0) {
                    if py_find(buf, end, at + 1).is_none() {
                        hold = hold.min(at);
                    }
                }
            }
        }
        let openings = self.openings();
        let max_opening = openings.iter().map(|opening| opening.len()).max().unwrap_or(0);
        let mut k = buf.len().min(max_opening.saturating_sub(1));
        while k > 0 {
            let suffix = &buf[buf.len() - k..];
            if openings.iter().any(|opening| k < opening.len() && opening.starts_with(suffix)) {
                hold = hold.min(buf.len() - k);
                break;
            }
            k -= 1;
        }
        hold
    }

    pub fn feed(&mut self, chunk: &[u16]) -> Vec<u16> {
        if chunk.is_empty() {
            return Vec::new();
        }
        let mut buf = std::mem::take(&mut self.pending);
        buf.extend_from_slice(chunk);
        while let Some((from, to)) = self.leftmost_match(&buf) {
            self.spans.push(buf[from..to].to_vec());
            buf.drain(from..to);
        }
        let hold = self.hold_index(&buf);
        self.pending = buf.split_off(hold);
        buf
    }

    pub fn flush(&mut self) -> Vec<u16> {
        std::mem::take(&mut self.pending)
    }
}

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
    let mut oracle = Rescan::new(patterns.to_vec());
    let mut emitted = 0;
    for (index, chunk) in chunks.iter().enumerate() {
        let ours = filter.feed(chunk);
        let theirs = oracle.feed(chunk);
        ensure!(ours == theirs, "feed {index}: filter {ours:?}, reference {theirs:?}");
        ensure!(
            filter.held() == oracle.pending[..],
            "held after feed {index}: {:?} vs {:?}",
            filter.held(),
            oracle.pending
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
    ensure!(spans == oracle.spans, "spans: filter {spans:?}, reference {:?}", oracle.spans);
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
