//! What the filter keeps of each strip, and the options it runs under:
//! the types the front end, both engines and the tool stage share. They
//! sit below all of them, so no engine imports the front end.

use std::num::NonZeroUsize;

use serde_json::Value;

/// What becomes of a span that is still open when the stream ends (or when
/// it outgrows [`Options::max_held`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OpenSpanPolicy {
    /// Released as text, as the reference does: it never closed, so it may
    /// not have been markup after all.
    #[default]
    Emit,
    /// Stripped and recorded like any other span.
    Drop,
}

/// How a filter treats open spans. The default is the reference's
/// behaviour: emit at the end, no bound.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    pub open_span_at_end: OpenSpanPolicy,
    /// The most an open span may hold at the end of a feed, in code units.
    /// A span that opens and closes within one feed is never held, so it is
    /// stripped whatever its length. `None`: no bound.
    pub max_held: Option<NonZeroUsize>,
    /// Settle the whitespace a strip leaves where it cut (see [`Tidy`](super::tidy::Tidy)):
    /// off, as the reference, by default.
    pub tidy_whitespace: bool,
}

/// Why a span was stripped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StripReason {
    /// A complete match of a pattern.
    Match,
    /// A span still open at the flush, under [`OpenSpanPolicy::Drop`].
    UnclosedAtEnd,
    /// A span that outgrew [`Options::max_held`], under
    /// [`OpenSpanPolicy::Drop`].
    MaxHeld,
}

impl StripReason {
    /// The name JavaScript sees.
    pub fn as_str(self) -> &'static str {
        match self {
            StripReason::Match => "match",
            StripReason::UnclosedAtEnd => "unclosed-at-end",
            StripReason::MaxHeld => "max-held",
        }
    }
}

/// One stripped span, with why and by which pattern.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Strip<'a> {
    pub span: &'a [u16],
    pub reason: StripReason,
    /// The index of the pattern in the registry's list, or [`TOOLS`] for
    /// tool-aware detection.
    pub pattern: usize,
    /// The calls read out of the span (tool-aware detection only).
    pub calls: &'a [ParsedCall],
}

/// The `pattern` of a strip made by tool-aware detection.
pub const TOOLS: usize = usize::MAX;

/// A call read out of a leak.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedCall {
    /// The tool it calls.
    pub tool: CalledTool,
    /// The arguments as a JSON value, or the raw argument text when they
    /// did not parse.
    pub input: Result<Value, Vec<u16>>,
}

impl ParsedCall {
    /// A call to the offered tool at `tool` in the list.
    pub fn offered(tool: usize, input: Result<Value, Vec<u16>>) -> Self {
        ParsedCall { tool: CalledTool::Offered(tool), input }
    }
}

/// The tool a leaked call names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CalledTool {
    /// An offered tool: its index in the list the filter was given.
    Offered(usize),
    /// A tool that was not on offer (made up, or withdrawn), by the name the
    /// call spells. Such a call is stripped and must never run.
    Unoffered(Vec<u16>),
}

/// Where a stripped span ends in the filter's `stripped` text, and what
/// stripped it.
#[derive(Clone, Copy, Debug)]
pub(super) struct StripRecord {
    end: usize,
    reason: StripReason,
    pattern: usize,
    /// Where this strip's calls end in the log's `calls`.
    calls_end: usize,
}

/// Every stripped span's text, back to back, with one record per span.
#[derive(Debug, Default)]
pub(crate) struct StripLog {
    pub(super) stripped: Vec<u16>,
    pub(super) strips: Vec<StripRecord>,
    pub(super) calls: Vec<ParsedCall>,
    /// Whether cuts are tracked (only for [`Options::tidy_whitespace`]).
    pub(super) track_cuts: bool,
    /// Where strips cut the output the engine at work is building, in
    /// ascending order (see [`StripLog::cut_at`]).
    pub(super) cuts: Vec<usize>,
}

impl StripLog {
    /// Records one stripped span, given in pieces.
    pub(crate) fn record(&mut self, pieces: &[&[u16]], reason: StripReason, pattern: usize) {
        for piece in pieces {
            self.stripped.extend_from_slice(piece);
        }
        self.strips.push(StripRecord {
            end: self.stripped.len(),
            reason,
            pattern,
            calls_end: self.calls.len(),
        });
    }

    /// Notes that a strip cut the output at `at` (in the engine's current
    /// output). A cut at or before an earlier one replaces it: an engine
    /// that joins text around an earlier cut and strips the join has
    /// removed that cut's place too.
    pub(crate) fn cut_at(&mut self, at: usize) {
        if self.track_cuts {
            let keep = self.cuts.partition_point(|&cut| cut < at);
            self.cuts.truncate(keep);
            self.cuts.push(at);
        }
    }

    /// The cuts in the first `len` units of output, as positions there; the
    /// cuts after them move back by `len`, for the next output.
    pub(crate) fn take_cuts(&mut self, len: usize) -> Vec<usize> {
        let within = self.cuts.partition_point(|&cut| cut <= len);
        let taken: Vec<usize> = self.cuts.drain(..within).collect();
        for cut in &mut self.cuts {
            *cut -= len;
        }
        taken
    }

    /// Records a span stripped by tool-aware detection, with its calls.
    pub(crate) fn record_call(&mut self, span: &[u16], reason: StripReason, calls: Vec<ParsedCall>) {
        self.calls.extend(calls);
        self.record(&[span], reason, TOOLS);
    }

    #[cfg(test)]
    pub(crate) fn spans(&self) -> impl Iterator<Item = &[u16]> + '_ {
        (0..self.len()).map(|index| self.at(index).span)
    }

    #[cfg(test)]
    pub(crate) fn calls_of(&self, index: usize) -> &[ParsedCall] {
        self.at(index).calls
    }

    pub(super) fn len(&self) -> usize {
        self.strips.len()
    }

    pub(super) fn get(&self, index: usize) -> Option<Strip<'_>> {
        (index < self.strips.len()).then(|| self.at(index))
    }

    /// The strip with an index below `len()`.
    pub(super) fn at(&self, index: usize) -> Strip<'_> {
        let StripRecord { end, reason, pattern, calls_end } = self.strips[index];
        let (start, calls_start) = match index {
            0 => (0, 0),
            _ => (self.strips[index - 1].end, self.strips[index - 1].calls_end),
        };
        Strip {
            span: &self.stripped[start..end],
            reason,
            pattern,
            calls: &self.calls[calls_start..calls_end],
        }
    }
}
