//! The one-pass engine, for literal registries: the reference filter's
//! output, feed by feed, in one left-to-right pass over each chunk.
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
//! Past `max_held`, the held span is settled as the flush would settle it,
//! and the filter carries on in the normal state with nothing held.

use super::literals::{find, Literals, Role};
use crate::filter::strip::{OpenSpanPolicy, Options, StripLog, StripReason};

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

/// The one-pass engine's state between feeds.
#[derive(Debug, Default)]
pub(crate) struct OnePass {
    /// The held tail between feeds; during a feed, the text built so far.
    /// Between feeds it is either a proper prefix of an opening literal (at
    /// most [`Literals::max_partial`] units) or starts with an open span.
    held: Vec<u16>,
    /// Open spans, innermost last. Positions increase; a span is open at
    /// most once.
    open: Vec<OpenSpan>,
    /// Per span, the end lookup for the current feed.
    next_end: Vec<NextEnd>,
}

/// One feed's view: the registry, the options and the strip log beside the
/// engine's state.
pub(crate) struct Pass<'a> {
    pub(crate) state: &'a mut OnePass,
    pub(crate) literals: &'a Literals,
    pub(crate) options: Options,
    pub(crate) log: &'a mut StripLog,
}

impl OnePass {
    pub(crate) fn new(literals: &Literals) -> Self {
        OnePass { held: Vec::new(), open: Vec::new(), next_end: vec![UNSEARCHED; literals.span_count()] }
    }

    pub(crate) fn held(&self) -> &[u16] {
        &self.held
    }

    pub(crate) fn is_span_open(&self) -> bool {
        !self.open.is_empty()
    }
}

impl Pass<'_> {
    /// Feeds one non-empty chunk and lends the text it releases to `emit`.
    pub(crate) fn feed_with<R>(mut self, chunk: &[u16], emit: impl FnOnce(&[u16]) -> R) -> R {
        let mut hold = self.absorb(chunk);
        if self.outgrown() {
            self.settle_open_span(StripReason::MaxHeld);
            hold = self.state.held.len();
        }
        let emitted = emit(&self.state.held[..hold]);
        self.state.held.drain(..hold);
        for open in &mut self.state.open {
            open.at -= hold;
        }
        if self.state.open.is_empty() && self.state.held.capacity() > KEEP_CAPACITY {
            self.state.held.shrink_to(self.literals.max_partial());
        }
        emitted
    }

    /// Returns the held tail, settling an open span by the policy.
    pub(crate) fn flush(mut self) -> Vec<u16> {
        self.settle_open_span(StripReason::UnclosedAtEnd);
        std::mem::take(&mut self.state.held)
    }

    /// Appends `chunk` to the held text, stripping as it goes, and returns
    /// how much of the result can be emitted.
    fn absorb(&mut self, chunk: &[u16]) -> usize {
        self.state.next_end.fill(UNSEARCHED);
        let mut read = self.close_held_span(chunk);
        while read < chunk.len() {
            let rest = &chunk[read..];
            let Some(last) = self.literals.next_last_unit(rest) else {
                self.state.held.extend_from_slice(rest);
                break;
            };
            self.state.held.extend_from_slice(&rest[..=last]);
            read += last + 1;
            read = self.on_unit_appended(chunk, read);
        }
        self.hold_index()
    }

    /// Handles a literal that may have just completed at the end of `held`;
    /// `read` is how much of `chunk` has been consumed. Returns the new
    /// `read` (further on when a span was stripped through the chunk).
    fn on_unit_appended(&mut self, chunk: &[u16], read: usize) -> usize {
        let Some(literal) = self.literals.literal_ending(&self.state.held) else {
            return read;
        };
        let at = self.state.held.len() - literal.units.len();
        let entry = literal.entry;
        match literal.role {
            Role::Token => self.cut(at, &[], entry, StripReason::Match),
            Role::End(span) => {
                if let Some(index) = self.state.open.iter().position(|open| open.span == span) {
                    let from = self.state.open[index].at;
                    self.state.open.truncate(index);
                    self.cut(from, &[], entry, StripReason::Match);
                }
            }
            Role::Start(span) => {
                if self.state.open.iter().all(|open| open.span != span) {
                    match self.next_end(span, chunk, read) {
                        Some(end_at) => {
                            let through = end_at + self.literals.span_end(span).len();
                            self.cut(at, &chunk[read..through], entry, StripReason::Match);
                            return through;
                        }
                        None => self.state.open.push(OpenSpan { span, at }),
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
        for index in 0..self.state.open.len() {
            let OpenSpan { span, at } = self.state.open[index];
            let reach = self.straddling_end(span, chunk).or_else(|| {
                let end_at = self.next_end(span, chunk, 0)?;
                Some(end_at + self.literals.span_end(span).len())
            });
            if let Some(through) = reach {
                self.state.open.truncate(index);
                let entry = self.literals.span_entry(span);
                self.cut(at, &chunk[..through], entry, StripReason::Match);
                return through;
            }
        }
        0
    }

    /// How far into `chunk` an end literal reaches that begins in the held
    /// text and finishes in the chunk, if there is one.
    fn straddling_end(&self, span: usize, chunk: &[u16]) -> Option<usize> {
        let end = self.literals.span_end(span);
        let most_held = (end.len() - 1).min(self.state.held.len());
        (1..=most_held)
            .rev()
            .find(|&in_held| self.state.held.ends_with(&end[..in_held]) && chunk.starts_with(&end[in_held..]))
            .map(|in_held| end.len() - in_held)
    }

    /// The first occurrence of `span`'s end in `chunk[from..]`. Queries come
    /// with non-decreasing `from` while it is useful, so the answer is kept
    /// and each unit of the chunk is searched about once per span.
    fn next_end(&mut self, span: usize, chunk: &[u16], from: usize) -> Option<usize> {
        let known = self.state.next_end[span];
        if known.from <= from && known.at.is_none_or(|at| at >= from) {
            return known.at;
        }
        let at = find(&chunk[from..], self.literals.span_end(span)).map(|offset| from + offset);
        self.state.next_end[span] = NextEnd { from, at };
        at
    }

    /// Records `held[from..] + through` as one span stripped by pattern
    /// `entry`, and cuts it from the held text.
    fn cut(&mut self, from: usize, through: &[u16], entry: usize, reason: StripReason) {
        self.log.record(&[&self.state.held[from..], through], reason, entry);
        self.log.cut_at(from);
        self.state.held.truncate(from);
    }

    /// Whether the open span holds more than `max_held` allows.
    fn outgrown(&self) -> bool {
        match (self.options.max_held, self.state.open.first()) {
            (Some(most), Some(open)) => self.state.held.len() - open.at > most.get(),
            _ => false,
        }
    }

    /// Settles the outermost open span, and so every span opened inside it,
    /// by the open-span policy: under `Emit` its text stays in `held` to be
    /// emitted as text; under `Drop` it is stripped for `reason`. Either
    /// way no span is open afterwards. Everything held from the outermost
    /// start on belongs to the span, a trailing partial marker included.
    fn settle_open_span(&mut self, reason: StripReason) {
        let Some(&OpenSpan { span, at }) = self.state.open.first() else {
            return;
        };
        self.state.open.clear();
        if self.options.open_span_at_end == OpenSpanPolicy::Drop {
            let entry = self.literals.span_entry(span);
            self.cut(at, &[], entry, reason);
        }
    }

    /// Where the held tail begins: at the outermost open span, else at the
    /// longest suffix that could still grow into an opening literal.
    fn hold_index(&self) -> usize {
        match self.state.open.first() {
            Some(open) => open.at,
            None => self.state.held.len() - self.literals.partial_opening_len(&self.state.held),
        }
    }
}
