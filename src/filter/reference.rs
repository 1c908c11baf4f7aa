//! A direct transcription of the reference filter
//! (`scaffolding_filter.py` of the specification) over UTF-16 units, for
//! the tests to compare against: the unit tests, and the property tests and
//! the fuzz target, which include this file by path (`tests/support/
//! oracle.rs`). It keeps the reference's shape on purpose
//! (leftmost match, remove, rescan; then the hold rule), quadratic cost
//! included, and takes a pattern list so that custom registries can be
//! checked the same way. With the default patterns and options it is the
//! reference.
//!
//! The two options go beyond the reference, so they are modelled here
//! directly, on the reference's own terms: a span is open when the hold
//! rule holds back at a span start; `Drop` at the flush strips the held
//! text from that start; `max_held` looks at the held span once the feed's
//! stripping and hold rule are done, and when it is too long settles it
//! the way the flush would and holds nothing.

// Through the parent, so that the file reads the same inside the crate
// and included by a test crate, whose parent imports these from
// `seamguard::filter`.
use super::{OpenSpanPolicy, Options, Pattern, StripReason};

/// A stripped span, with why and by which pattern (its index in the list).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stripped {
    pub span: Vec<u16>,
    pub reason: StripReason,
    pub pattern: usize,
}

pub struct ReferenceFilter {
    patterns: Vec<Pattern>,
    options: Options,
    pending: Vec<u16>,
    pub stripped_chars: usize,
    pub stripped: Vec<Stripped>,
}

/// `haystack.find(needle, from)` as Python's `str.find` answers it, on code
/// units: a plain comparison at every position, left to right. The
/// transcription uses no search of the crate's, so it judges none.
fn find_from(haystack: &[u16], needle: &[u16], from: usize) -> Option<usize> {
    (from..=haystack.len()).find(|&at| haystack[at..].starts_with(needle))
}

fn find(haystack: &[u16], needle: &[u16]) -> Option<usize> {
    find_from(haystack, needle, 0)
}

impl ReferenceFilter {
    pub fn new(patterns: Vec<Pattern>) -> Self {
        Self::with_options(patterns, Options::default())
    }

    pub fn with_options(patterns: Vec<Pattern>, options: Options) -> Self {
        ReferenceFilter { patterns, options, pending: Vec::new(), stripped_chars: 0, stripped: Vec::new() }
    }

    /// What the filter holds back: the tail of the text it has not yet
    /// emitted. The property tests compare it feed by feed; the unit tests
    /// do not read it.
    #[allow(dead_code)]
    pub fn held(&self) -> &[u16] {
        &self.pending
    }

    pub fn stripped_spans(&self) -> Vec<Vec<u16>> {
        self.stripped.iter().map(|strip| strip.span.clone()).collect()
    }

    pub fn feed(&mut self, chunk: &[u16]) -> Vec<u16> {
        if chunk.is_empty() {
            return Vec::new();
        }
        let mut buf = std::mem::take(&mut self.pending);
        buf.extend_from_slice(chunk);
        let mut buf = self.strip_complete(buf);
        let hold = self.hold_index(&buf);
        if let (Some(most), Some((start, _))) = (self.options.max_held, self.open_span(&buf)) {
            if buf.len() - start > most.get() {
                self.settle(&mut buf, StripReason::MaxHeld);
                return buf;
            }
        }
        self.pending = buf[hold..].to_vec();
        buf[..hold].to_vec()
    }

    pub fn flush(&mut self) -> Vec<u16> {
        let mut tail = std::mem::take(&mut self.pending);
        self.settle(&mut tail, StripReason::UnclosedAtEnd);
        tail
    }

    /// Under `Drop`, strips the open span at the end of `buf`, if any.
    fn settle(&mut self, buf: &mut Vec<u16>, reason: StripReason) {
        if self.options.open_span_at_end != OpenSpanPolicy::Drop {
            return;
        }
        if let Some((start, pattern)) = self.open_span(buf) {
            let span = buf.split_off(start);
            self.stripped_chars += span.len();
            self.stripped.push(Stripped { span, reason, pattern });
        }
    }

    /// The reference's span hold: the earliest span start with no end
    /// after it, and its pattern.
    fn open_span(&self, buf: &[u16]) -> Option<(usize, usize)> {
        let mut open: Option<(usize, usize)> = None;
        for (index, pattern) in self.patterns.iter().enumerate() {
            if let Pattern::Span { start, end } = pattern {
                if let Some(s) = find(buf, start) {
                    if find_from(buf, end, s + 1).is_none() && open.is_none_or(|(o, _)| s < o) {
                        open = Some((s, index));
                    }
                }
            }
        }
        open
    }

    /// The match a regex search of one pattern finds: the leftmost start
    /// where it matches (for a span, the first start has an end after it
    /// whenever any start does), ending at the first end after the start.
    fn search(pattern: &Pattern, buf: &[u16]) -> Option<(usize, usize)> {
        match pattern {
            Pattern::Span { start, end } => {
                let s = find(buf, start)?;
                let e = find_from(buf, end, s + start.len())?;
                Some((s, e + end.len()))
            }
            Pattern::Token { literal } => find(buf, literal).map(|s| (s, s + literal.len())),
            _ => unimplemented!("the reference takes literal spans and tokens"),
        }
    }

    /// The leftmost match, its end, and its pattern's index.
    fn leftmost_match(&self, buf: &[u16]) -> Option<(usize, usize, usize)> {
        let mut best: Option<(usize, usize, usize)> = None;
        for (index, pattern) in self.patterns.iter().enumerate() {
            if let Some((start, end)) = Self::search(pattern, buf) {
                if best.is_none_or(|b| start < b.0) {
                    best = Some((start, end, index));
                }
            }
        }
        best
    }

    fn strip_complete(&mut self, mut buf: Vec<u16>) -> Vec<u16> {
        while let Some((start, end, pattern)) = self.leftmost_match(&buf) {
            self.stripped_chars += end - start;
            self.stripped.push(Stripped {
                span: buf.drain(start..end).collect(),
                reason: StripReason::Match,
                pattern,
            });
        }
        buf
    }

    fn hold_index(&self, buf: &[u16]) -> usize {
        if buf.is_empty() {
            return 0;
        }
        let mut hold = buf.len();
        let mut openings: Vec<&[u16]> = Vec::new();
        for pattern in &self.patterns {
            match pattern {
                Pattern::Span { start, end } => {
                    openings.push(start);
                    if let Some(s) = find(buf, start) {
                        if find_from(buf, end, s + 1).is_none() {
                            hold = hold.min(s);
                        }
                    }
                }
                Pattern::Token { literal } => openings.push(literal),
                _ => unimplemented!("the reference takes literal spans and tokens"),
            }
        }
        let max_opening = openings.iter().map(|o| o.len()).max().unwrap_or(0);
        for k in (1..=buf.len().min(max_opening.saturating_sub(1))).rev() {
            let suffix = &buf[buf.len() - k..];
            if openings.iter().any(|o| k < o.len() && o.starts_with(suffix)) {
                hold = hold.min(buf.len() - k);
                break;
            }
        }
        hold
    }
}
