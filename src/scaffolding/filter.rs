//! The streaming filter: one left-to-right pass over each chunk.
//!
//! The reference removes the leftmost complete match from `pending + chunk`,
//! again and again, rescanning the whole buffer each time. Because literal
//! occurrences never overlap (the registry's precondition), the same
//! sequence of removals falls out of a single pass that appends the chunk
//! to the held tail unit by unit and looks only at the end of what it has
//! built, like a stack:
//!
//! - a token that completes there is the leftmost match (every open span
//!   lacks an end after it), so it is stripped on its own. Whatever the
//!   removal joins is seen as later units complete literals across the join;
//! - a span start that completes while its span is not open matches iff its
//!   end occurs in the unread rest of the chunk (nothing in the held text
//!   after it can be one). If it does, the span up to the first such end is
//!   stripped in one piece, swallowing the tokens inside; if not, the span
//!   is open;
//! - an end that completes while its span is open closes it, together with
//!   any span opened inside it; otherwise it is content, and so is a start
//!   whose span is already open.
//!
//! A span held open from an earlier feed can only be closed by an end that
//! reaches into the new chunk, so each feed checks that once, at the start,
//! and never rescans the held text. Ends are looked up in the chunk with a
//! cursor that only moves forward, so a feed costs time proportional to the
//! chunk (plus the text it strips or emits), never to what is held.
//!
//! Two options go beyond the reference ([`Options`]): what becomes of a span
//! still open at the end ([`OpenSpanPolicy`]), and a bound on how much an
//! open span may hold between feeds (`max_held`). Past the bound, the held
//! span is settled as the flush would settle it, and the filter carries on
//! in the normal state with nothing held.

use std::num::NonZeroUsize;
use std::sync::Arc;

use super::registry::{find, Registry, Role};

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
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Strip<'a> {
    pub span: &'a [u16],
    pub reason: StripReason,
    /// The index of the pattern in the registry's list.
    pub pattern: usize,
}

/// Where a stripped span ends in the filter's `stripped` text, and what
/// stripped it.
#[derive(Clone, Copy, Debug)]
struct StripRecord {
    end: usize,
    reason: StripReason,
    pattern: usize,
}

/// A span whose start is in the held text and whose end has not been seen.
#[derive(Clone, Copy, Debug)]
struct OpenSpan {
    span: usize,
    /// Where its start literal begins in `held`.
    at: usize,
}

/// What is known, during one feed, about where a span's end occurs in the
/// chunk: the first occurrence at or after `from` begins at `at` (`None`:
/// there is none).
#[derive(Clone, Copy, Debug)]
struct NextEnd {
    from: usize,
    at: Option<usize>,
}

const UNSEARCHED: NextEnd = NextEnd { from: usize::MAX, at: None };

/// Above this capacity, the held buffer is given back once it is small
/// again, so that one long span does not pin its memory for the stream's
/// lifetime.
const KEEP_CAPACITY: usize = 4096;

/// Strips a registry's scaffolding from streamed text, chunk by chunk, with
/// exactly the output of the reference filter for every chunking.
///
/// Text is UTF-16 code units. Nothing is decoded, so a lone surrogate passes
/// through and a pair split across two chunks comes out as two halves that
/// the caller's concatenation rejoins.
#[derive(Debug)]
pub struct ScaffoldingFilter {
    registry: Arc<Registry>,
    options: Options,
    /// The held tail between feeds; during a feed, the text built so far.
    /// Between feeds it is either a proper prefix of an opening literal (at
    /// most [`Registry::max_partial`] units) or starts with an open span.
    held: Vec<u16>,
    /// Open spans, innermost last. Positions increase; a span is open at
    /// most once.
    open: Vec<OpenSpan>,
    /// Per span, the end lookup for the current feed.
    next_end: Vec<NextEnd>,
    /// Every stripped span's text, back to back.
    stripped: Vec<u16>,
    /// One record per stripped span, in strip order.
    strips: Vec<StripRecord>,
}

impl Default for ScaffoldingFilter {
    fn default() -> Self {
        Self::new()
    }
}

impl ScaffoldingFilter {
    /// A filter for the default registry (the reference's three patterns).
    pub fn new() -> Self {
        Self::with_registry(Registry::of_defaults())
    }

    /// A filter for any checked registry, with the reference's options.
    pub fn with_registry(registry: Arc<Registry>) -> Self {
        Self::with_options(registry, Options::default())
    }

    /// A filter for any checked registry and options.
    pub fn with_options(registry: Arc<Registry>, options: Options) -> Self {
        let spans = registry.span_count();
        ScaffoldingFilter {
            registry,
            options,
            held: Vec::new(),
            open: Vec::new(),
            next_end: vec![UNSEARCHED; spans],
            stripped: Vec::new(),
            strips: Vec::new(),
        }
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    pub fn options(&self) -> Options {
        self.options
    }

    /// Feeds one chunk and returns the text that can no longer become
    /// scaffolding. An empty chunk returns nothing and changes nothing.
    pub fn feed(&mut self, chunk: &[u16]) -> Vec<u16> {
        self.feed_with(chunk, <[u16]>::to_vec)
    }

    /// [`ScaffoldingFilter::feed`], lending the emitted text to `emit`
    /// instead of copying it out.
    pub fn feed_with<R>(&mut self, chunk: &[u16], emit: impl FnOnce(&[u16]) -> R) -> R {
        if chunk.is_empty() {
            return emit(&[]);
        }
        let mut hold = self.absorb(chunk);
        if self.outgrown() {
            self.settle_open_span(StripReason::MaxHeld);
            hold = self.held.len();
        }
        let emitted = emit(&self.held[..hold]);
        self.held.drain(..hold);
        for open in &mut self.open {
            open.at -= hold;
        }
        if self.open.is_empty() && self.held.capacity() > KEEP_CAPACITY {
            self.held.shrink_to(self.registry.max_partial());
        }
        emitted
    }

    /// Ends the stream: returns the held tail. A partial marker is content
    /// after all; a span still open is settled by the open-span policy
    /// (returned as text, or stripped). The counters and spans stay; the
    /// filter can be fed again.
    pub fn flush(&mut self) -> Vec<u16> {
        self.settle_open_span(StripReason::UnclosedAtEnd);
        std::mem::take(&mut self.held)
    }

    /// Total length of the stripped spans, in code units.
    pub fn stripped_chars(&self) -> usize {
        self.stripped.len()
    }

    /// The stripped spans, in the order they were stripped.
    pub fn stripped_spans(&self) -> impl ExactSizeIterator<Item = &[u16]> + '_ {
        (0..self.strips.len()).map(|index| self.span_text(index))
    }

    /// Every strip with its reason and pattern, in strip order.
    pub fn strips(&self) -> impl ExactSizeIterator<Item = Strip<'_>> + '_ {
        (0..self.strips.len()).map(|index| self.strip_at(index))
    }

    /// The strip with this index (in strip order), if there is one.
    pub fn strip(&self, index: usize) -> Option<Strip<'_>> {
        (index < self.strips.len()).then(|| self.strip_at(index))
    }

    fn strip_at(&self, index: usize) -> Strip<'_> {
        let StripRecord { reason, pattern, .. } = self.strips[index];
        Strip { span: self.span_text(index), reason, pattern }
    }

    fn span_text(&self, index: usize) -> &[u16] {
        let start = match index {
            0 => 0,
            _ => self.strips[index - 1].end,
        };
        &self.stripped[start..self.strips[index].end]
    }

    /// The text held back for the next feed or the flush.
    pub fn held(&self) -> &[u16] {
        &self.held
    }

    /// Whether the held text begins an unclosed span.
    pub fn is_span_open(&self) -> bool {
        !self.open.is_empty()
    }

    /// Whether nothing is held and no span is open: then a chunk with none
    /// of the registry's [`Registry::start_units`] comes out of `feed`
    /// whole, and leaves the filter idle.
    pub fn is_idle(&self) -> bool {
        self.held.is_empty() && !self.is_span_open()
    }

    /// Appends `chunk` to the held text, stripping as it goes, and returns
    /// how much of the result can be emitted.
    fn absorb(&mut self, chunk: &[u16]) -> usize {
        self.next_end.fill(UNSEARCHED);
        let mut read = self.close_held_span(chunk);
        while read < chunk.len() {
            let rest = &chunk[read..];
            let Some(last) = self.registry.next_last_unit(rest) else {
                self.held.extend_from_slice(rest);
                break;
            };
            self.held.extend_from_slice(&rest[..=last]);
            read += last + 1;
            read = self.on_unit_appended(chunk, read);
        }
        self.hold_index()
    }

    /// Handles a literal that may have just completed at the end of `held`;
    /// `read` is how much of `chunk` has been consumed. Returns the new
    /// `read` (further on when a span was stripped through the chunk).
    fn on_unit_appended(&mut self, chunk: &[u16], read: usize) -> usize {
        let Some(literal) = self.registry.literal_ending(&self.held) else {
            return read;
        };
        let at = self.held.len() - literal.units.len();
        let entry = literal.entry;
        match literal.role {
            Role::Token => self.cut(at, &[], entry, StripReason::Match),
            Role::End(span) => {
                if let Some(index) = self.open.iter().position(|open| open.span == span) {
                    let from = self.open[index].at;
                    self.open.truncate(index);
                    self.cut(from, &[], entry, StripReason::Match);
                }
            }
            Role::Start(span) => {
                if self.open.iter().all(|open| open.span != span) {
                    match self.next_end(span, chunk, read) {
                        Some(end_at) => {
                            let through = end_at + self.registry.span_end(span).len();
                            self.cut(at, &chunk[read..through], entry, StripReason::Match);
                            return through;
                        }
                        None => self.open.push(OpenSpan { span, at }),
                    }
                }
            }
        }
        read
    }

    /// At the start of a feed, closes the outermost held-open span whose end
    /// straddles the held text and the chunk or lies in the chunk, and
    /// returns where reading the chunk resumes.
    fn close_held_span(&mut self, chunk: &[u16]) -> usize {
        for index in 0..self.open.len() {
            let OpenSpan { span, at } = self.open[index];
            let reach = self.straddling_end(span, chunk).or_else(|| {
                let end_at = self.next_end(span, chunk, 0)?;
                Some(end_at + self.registry.span_end(span).len())
            });
            if let Some(through) = reach {
                self.open.truncate(index);
                let entry = self.registry.span_entry(span);
                self.cut(at, &chunk[..through], entry, StripReason::Match);
                return through;
            }
        }
        0
    }

    /// How far into `chunk` an end literal reaches that begins in the held
    /// text and finishes in the chunk, if there is one.
    fn straddling_end(&self, span: usize, chunk: &[u16]) -> Option<usize> {
        let end = self.registry.span_end(span);
        let most_held = (end.len() - 1).min(self.held.len());
        (1..=most_held)
            .rev()
            .find(|&in_held| self.held.ends_with(&end[..in_held]) && chunk.starts_with(&end[in_held..]))
            .map(|in_held| end.len() - in_held)
    }

    /// The first occurrence of `span`'s end in `chunk[from..]`. Queries come
    /// with non-decreasing `from` while it is useful, so the answer is kept
    /// and each unit of the chunk is searched about once per span.
    fn next_end(&mut self, span: usize, chunk: &[u16], from: usize) -> Option<usize> {
        let known = self.next_end[span];
        if known.from <= from && known.at.is_none_or(|at| at >= from) {
            return known.at;
        }
        let at = find(&chunk[from..], self.registry.span_end(span)).map(|offset| from + offset);
        self.next_end[span] = NextEnd { from, at };
        at
    }

    /// Records `held[from..] + through` as one span stripped by pattern
    /// `entry`, and cuts it from the held text.
    fn cut(&mut self, from: usize, through: &[u16], entry: usize, reason: StripReason) {
        self.stripped.extend_from_slice(&self.held[from..]);
        self.stripped.extend_from_slice(through);
        self.strips.push(StripRecord { end: self.stripped.len(), reason, pattern: entry });
        self.held.truncate(from);
    }

    /// Whether the open span holds more than `max_held` allows.
    fn outgrown(&self) -> bool {
        match (self.options.max_held, self.open.first()) {
            (Some(most), Some(open)) => self.held.len() - open.at > most.get(),
            _ => false,
        }
    }

    /// Settles the outermost open span, and so every span opened inside it,
    /// by the open-span policy: under `Emit` its text stays in `held` to be
    /// emitted as text; under `Drop` it is stripped for `reason`. Either
    /// way no span is open afterwards. Everything held from the outermost
    /// start on belongs to the span, a trailing partial marker included.
    fn settle_open_span(&mut self, reason: StripReason) {
        let Some(&OpenSpan { span, at }) = self.open.first() else {
            return;
        };
        self.open.clear();
        if self.options.open_span_at_end == OpenSpanPolicy::Drop {
            let entry = self.registry.span_entry(span);
            self.cut(at, &[], entry, reason);
        }
    }

    /// Where the held tail begins: at the outermost open span, else at the
    /// longest suffix that could still grow into an opening literal.
    fn hold_index(&self) -> usize {
        match self.open.first() {
            Some(open) => open.at,
            None => self.held.len() - self.registry.partial_opening_len(&self.held),
        }
    }
}
