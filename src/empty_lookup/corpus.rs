//! A run's results, kept as they are served, so that each armed call is
//! judged without reading or lower-casing any earlier result again.
//!
//! Judging a call against a corpus is judging it against the list of every
//! result pushed so far, in push order: the same grounds, the same first
//! ground for each needle. What changes is the cost: a result's text is
//! lower-cased once, when it is pushed, and a call pays only for its search,
//! which a sketch of each ASCII text ([`super::sketch`]) cuts short for most
//! of the results that cannot hold the needle. Sketches are built on a
//! helper thread when there is one ([`super::sketcher`]); a call that needs
//! one not built yet searches in full or builds it itself.
//!
//! Memory: per result, its lower-cased text (one byte per UTF-16 unit when
//! the text is ASCII, two otherwise), for ASCII text of 512 units or more a
//! sketch of one bit per unit, and a small fixed record; each distinct tool
//! name is kept once. ASCII texts live in the blocks of a [`TextArena`],
//! which may leave the tail of a block unused. The original text is not
//! kept.

use super::arena::{Span, TextArena};
use super::ground::{is_declared_ground, narrow_lowered_into, GroundText, Grounding};
use super::sketch::GramSketch;
use super::sketcher::{PendingSketch, Sketching};
use crate::js_string::to_lower;
use std::cell::Cell;
use std::convert::Infallible;
use std::mem::MaybeUninit;
use std::sync::Arc;

/// Every result served in a run so far, lower-cased.
#[derive(Debug)]
pub struct ProducedCorpus {
    /// Each distinct producer name once, in the order first seen.
    tools: Vec<Vec<u16>>,
    entries: Vec<Entry>,
    arena: TextArena,
    sketching: Sketching,
    /// What the corpus keeps outside the arena, in bytes, counted as it
    /// grows (see [`Self::external_bytes`]).
    kept_outside: usize,
}

#[derive(Debug)]
struct Entry {
    /// Index into `tools`.
    tool: usize,
    text: Kept,
}

#[derive(Debug)]
enum Kept {
    /// Lowered ASCII, one byte per unit, in the arena.
    Ascii { span: Span, sketch: Sketch },
    /// Lowered UTF-16 units.
    Wide(Vec<u16>),
}

/// An ASCII text's sketch.
#[derive(Debug)]
enum Sketch {
    /// None: the text is too short to be worth one.
    None,
    Built(GramSketch),
    /// Asked of the helper thread; it reads the text in the arena.
    Pending(Arc<PendingSketch>),
}

impl Default for ProducedCorpus {
    fn default() -> Self {
        Self::with_sketching(Sketching::default_for_process())
    }
}

impl ProducedCorpus {
    pub fn new() -> Self {
        Self::default()
    }

    /// A corpus that builds its sketches as `sketching` says (see
    /// [`super::sketcher`]).
    pub fn with_sketching(sketching: Sketching) -> Self {
        ProducedCorpus { tools: Vec::new(), entries: Vec::new(), arena: TextArena::new(), sketching, kept_outside: 0 }
    }

    fn tool(&mut self, tool_name: &[u16]) -> usize {
        match self.tools.iter().position(|known| known == tool_name) {
            Some(tool) => tool,
            None => {
                self.tools.push(tool_name.to_vec());
                self.kept_outside += tool_name.len() * 2;
                self.tools.len() - 1
            }
        }
    }

    /// Appends a result given as UTF-16 units. ASCII text is narrowed and
    /// lower-cased straight into the arena, in one pass.
    pub fn push_units(&mut self, tool_name: &[u16], text: &[u16]) {
        let ascii = Cell::new(false);
        let fill = |spare: &mut [MaybeUninit<u8>]| {
            ascii.set(narrow_lowered_into(text, spare));
            Ok::<_, Infallible>(text.len())
        };
        let tool = self.tool(tool_name);
        // SAFETY: `narrow_lowered_into` writes one byte per unit, as `fill`
        // reports.
        let kept = match unsafe { self.arena.append_with(text.len(), fill, |_| ascii.get()) } {
            Ok(Some(span)) => {
                self.kept_outside += GramSketch::heap_bytes_for(span.len());
                Kept::Ascii { span, sketch: self.sketch(span) }
            }
            Ok(None) => {
                let units = to_lower(text).into_owned();
                self.kept_outside += units.capacity() * 2;
                Kept::Wide(units)
            }
            Err(never) => match never {},
        };
        self.kept_outside += std::mem::size_of::<Entry>();
        self.entries.push(Entry { tool, text: kept });
    }

    /// The sketch of the text at `span`, built now or asked of the helper.
    fn sketch(&self, span: Span) -> Sketch {
        let text = self.arena.text(span);
        if !GramSketch::is_worth_it(text.len()) {
            return Sketch::None;
        }
        if self.sketching == Sketching::Background {
            // SAFETY: the arena keeps the text, unchanged, until the corpus
            // is dropped or cleared, and `Drop` cancels every job first.
            if let Some(pending) = unsafe { PendingSketch::queue(text) } {
                return Sketch::Pending(pending);
            }
        }
        GramSketch::of_text(text).map_or(Sketch::None, Sketch::Built)
    }

    /// Forgets every result, as a new corpus would. The memory the texts
    /// took goes to this thread's spares (see [`super::arena`]), where the
    /// next pushes, to this corpus or another, find it.
    pub fn clear(&mut self) {
        *self = Self::with_sketching(self.sketching);
    }

    /// Whether no sketch is still being asked of the helper thread (for
    /// tests: answers do not depend on it).
    pub fn sketches_settled(&self) -> bool {
        self.entries.iter().all(|entry| match &entry.text {
            Kept::Ascii { sketch: Sketch::Pending(pending), .. } => pending.is_settled(),
            _ => true,
        })
    }

    /// How many results were pushed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The lowered texts' own bytes (without the arena's unused tails).
    pub fn text_bytes(&self) -> usize {
        self.entries
            .iter()
            .map(|entry| match &entry.text {
                Kept::Ascii { span, .. } => span.len(),
                Kept::Wide(units) => units.len() * 2,
            })
            .sum()
    }

    /// About what [`Self::heap_bytes`] says, kept up to date as the corpus
    /// grows, so that it costs nothing to ask after every push: the arena's
    /// blocks, plus every sketch (built or still to be), wide text, record
    /// and name as it was counted when pushed.
    pub fn external_bytes(&self) -> usize {
        self.arena.heap_bytes() + self.kept_outside
    }

    /// The heap the corpus keeps, in bytes: the arena's blocks, the wide
    /// texts, the sketches, the records and the names.
    pub fn heap_bytes(&self) -> usize {
        let kept: usize = self
            .entries
            .iter()
            .map(|entry| match &entry.text {
                Kept::Ascii { sketch: Sketch::Built(sketch), .. } => sketch.heap_bytes(),
                Kept::Ascii { sketch: Sketch::Pending(pending), .. } => {
                    pending.ready().map_or(0, GramSketch::heap_bytes)
                }
                Kept::Ascii { sketch: Sketch::None, .. } => 0,
                Kept::Wide(units) => units.capacity() * 2,
            })
            .sum();
        let names: usize = self.tools.iter().map(|name| name.capacity() * 2).sum();
        self.arena.heap_bytes() + kept + names + self.entries.capacity() * std::mem::size_of::<Entry>()
    }

    /// The length in UTF-16 units of result `index`'s text.
    fn units(&self, index: usize) -> usize {
        match &self.entries[index].text {
            Kept::Ascii { span, .. } => span.len(),
            Kept::Wide(units) => units.len(),
        }
    }

    /// The grounds of a call that declares `arguments_from`.
    pub fn grounds(&self, arguments_from: &[Vec<u16>]) -> CorpusGrounds<'_> {
        let grounds = (0..self.entries.len())
            .filter(|&index| {
                let tool = &self.tools[self.entries[index].tool];
                is_declared_ground(arguments_from, tool, self.units(index))
            })
            .collect();
        CorpusGrounds { corpus: self, grounds }
    }

    fn ground_text(&self, index: usize) -> GroundText<'_> {
        match &self.entries[index].text {
            Kept::Ascii { span, sketch } => {
                let sketch = match sketch {
                    Sketch::None => None,
                    Sketch::Built(sketch) => Some(sketch),
                    // The newest result is left to the helper, which was
                    // just handed it; an older one the helper has not
                    // reached is sketched here, as a push would have.
                    Sketch::Pending(pending) if index + 1 == self.entries.len() => pending.ready(),
                    Sketch::Pending(pending) => pending.ready_or_build(),
                };
                GroundText::Ascii { text: self.arena.text(*span), sketch }
            }
            Kept::Wide(units) => GroundText::Wide(units),
        }
    }
}

impl Drop for ProducedCorpus {
    /// Stops the helper from reading the texts before the arena's memory is
    /// freed or reused.
    fn drop(&mut self) {
        for entry in &self.entries {
            if let Kept::Ascii { sketch: Sketch::Pending(pending), .. } = &entry.text {
                pending.cancel();
            }
        }
    }
}

/// One call's view of a corpus: the results that ground it, in push order.
pub struct CorpusGrounds<'c> {
    corpus: &'c ProducedCorpus,
    grounds: Vec<usize>,
}

impl<E> Grounding<E> for CorpusGrounds<'_> {
    fn is_unreachable(&self) -> bool {
        self.grounds.is_empty()
    }

    fn scan(&mut self, visit: &mut dyn FnMut(usize, GroundText<'_>) -> bool) -> Result<(), E> {
        for &index in &self.grounds {
            if !visit(index, self.corpus.ground_text(index)) {
                break;
            }
        }
        Ok(())
    }

    fn producer(&self, index: usize) -> &[u16] {
        &self.corpus.tools[self.corpus.entries[index].tool]
    }
}
