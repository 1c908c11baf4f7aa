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

use std::sync::Arc;

use super::registry::{find, Registry, Role};

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

const UNSEARCHED: NextEnd = NextEnd {
    from: usize::MAX,
    at: None,
};

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
    /// Where each stripped span ends in `stripped`.
    stripped_ends: Vec<usize>,
}

impl Default for ScaffoldingFilter {
    fn default() -> Self {
        Self::new()
    }
}

impl ScaffoldingFilter {
    /// A filter for the default registry (the reference's three patterns).
    pub fn new() -> Self {
        Self::with_registry(Registry::shared_default())
    }

    /// A filter for any checked registry.
    pub fn with_registry(registry: Arc<Registry>) -> Self {
        let spans = registry.span_count();
        ScaffoldingFilter {
            registry,
            held: Vec::new(),
            open: Vec::new(),
            next_end: vec![UNSEARCHED; spans],
            stripped: Vec::new(),
            stripped_ends: Vec::new(),
        }
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
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
        let hold = self.absorb(chunk);
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

    /// Ends the stream: returns the held tail as it is (a partial marker or
    /// an unclosed span is content after all). The counters and spans stay;
    /// the filter can be fed again.
    pub fn flush(&mut self) -> Vec<u16> {
        self.open.clear();
        std::mem::take(&mut self.held)
    }

    /// Total length of the stripped spans, in code units.
    pub fn stripped_chars(&self) -> usize {
        self.stripped.len()
    }

    /// The stripped spans, in the order they were stripped.
    pub fn stripped_spans(&self) -> impl ExactSizeIterator<Item = &[u16]> + '_ {
        self.stripped_ends.iter().enumerate().map(|(index, &end)| {
            let start = if index == 0 {
                0
            } else {
                self.stripped_ends[index - 1]
            };
            &self.stripped[start..end]
        })
    }

    /// The text held back for the next feed or the flush.
    pub fn held(&self) -> &[u16] {
        &self.held
    }

    /// Whether the held text begins an unclosed span.
    pub fn is_span_open(&self) -> bool {
        !self.open.is_empty()
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
        match literal.role {
            Role::Token => self.strip(at, &[]),
            Role::End(span) => {
                if let Some(index) = self.open.iter().position(|open| open.span == span) {
                    let from = self.open[index].at;
                    self.open.truncate(index);
                    self.strip(from, &[]);
                }
            }
            Role::Start(span) => {
                if self.open.iter().all(|open| open.span != span) {
                    match self.next_end(span, chunk, read) {
                        Some(end_at) => {
                            let through = end_at + self.registry.span_end(span).len();
                            self.strip(at, &chunk[read..through]);
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
                self.strip(at, &chunk[..through]);
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
            .find(|&in_held| {
                self.held.ends_with(&end[..in_held]) && chunk.starts_with(&end[in_held..])
            })
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

    /// Records `held[from..] + through` as one stripped span and cuts it
    /// from the held text.
    fn strip(&mut self, from: usize, through: &[u16]) {
        self.stripped.extend_from_slice(&self.held[from..]);
        self.stripped.extend_from_slice(through);
        self.stripped_ends.push(self.stripped.len());
        self.held.truncate(from);
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
