//! A run's results, kept as they are served, so that each armed call is
//! judged without reading or lower-casing any earlier result again.
//!
//! Judging a call against a corpus is judging it against the list of every
//! result pushed so far, in push order: the same grounds, the same first
//! ground for each needle. What changes is the cost: a result's text is
//! lower-cased once, when it is pushed, and a call pays only for its search,
//! which a sketch of each ASCII text ([`super::sketch`]) cuts short for most
//! of the results that cannot hold the needle.
//!
//! Memory: per result, its lower-cased text (one byte per UTF-16 unit when
//! the text is ASCII, two otherwise), for ASCII text of 512 units or more a
//! sketch of one bit per unit, and a small fixed record; each distinct tool
//! name is kept once. ASCII texts live in the blocks of a [`TextArena`],
//! which may leave the tail of a block unused. The original text is not
//! kept.

use super::arena::{Span, TextArena};
use super::ground::{is_declared_ground, lower_ascii_in_place, GroundText, Grounding, Lowered};
use super::sketch::GramSketch;
use std::mem::MaybeUninit;

/// Every result served in a run so far, lower-cased.
#[derive(Debug, Default)]
pub struct ProducedCorpus {
    /// Each distinct producer name once, in the order first seen.
    tools: Vec<Vec<u16>>,
    entries: Vec<Entry>,
    arena: TextArena,
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
    Ascii { span: Span, sketch: Option<GramSketch> },
    /// Lowered UTF-16 units.
    Wide(Vec<u16>),
}

impl ProducedCorpus {
    pub fn new() -> Self {
        Self::default()
    }

    fn tool(&mut self, tool_name: &[u16]) -> usize {
        match self.tools.iter().position(|known| known == tool_name) {
            Some(tool) => tool,
            None => {
                self.tools.push(tool_name.to_vec());
                self.tools.len() - 1
            }
        }
    }

    fn push_ascii_span(&mut self, tool_name: &[u16], span: Span) {
        let tool = self.tool(tool_name);
        let sketch = GramSketch::of_text(self.arena.text(span));
        self.entries.push(Entry { tool, text: Kept::Ascii { span, sketch } });
    }

    /// Appends a result given as UTF-16 units.
    pub fn push_units(&mut self, tool_name: &[u16], text: &[u16]) {
        match Lowered::of_units(text) {
            Lowered::Ascii(bytes) => {
                let span = self.arena.append_copy(&bytes, |_| true).expect("kept");
                self.push_ascii_span(tool_name, span);
            }
            Lowered::Wide(units) => {
                let tool = self.tool(tool_name);
                self.entries.push(Entry { tool, text: Kept::Wide(units) });
            }
        }
    }

    /// Appends a result whose text `fill` writes one byte per UTF-16 unit
    /// into the `room` bytes it is handed, returning how many it wrote. The
    /// bytes are kept, lower-cased, when every one is ASCII; otherwise
    /// nothing is appended and this answers `false`, and the caller pushes
    /// the text's units instead.
    ///
    /// # Safety
    ///
    /// As [`TextArena::append_with`]: `fill` must initialise the bytes it
    /// says it wrote, at most `room`.
    pub unsafe fn push_ascii_with<E>(
        &mut self,
        tool_name: &[u16],
        room: usize,
        fill: impl FnOnce(&mut [MaybeUninit<u8>]) -> Result<usize, E>,
    ) -> Result<bool, E> {
        // SAFETY: the caller's word, passed on.
        match unsafe { self.arena.append_with(room, fill, lower_ascii_in_place) }? {
            Some(span) => {
                self.push_ascii_span(tool_name, span);
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Forgets every result, as a new corpus would. The memory the texts
    /// took goes to this thread's spares (see [`super::arena`]), where the
    /// next pushes, to this corpus or another, find it.
    pub fn clear(&mut self) {
        *self = Self::default();
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

    /// The heap the corpus keeps, in bytes: the arena's blocks, the wide
    /// texts, the sketches, the records and the names.
    pub fn heap_bytes(&self) -> usize {
        let kept: usize = self
            .entries
            .iter()
            .map(|entry| match &entry.text {
                Kept::Ascii { sketch, .. } => sketch.as_ref().map_or(0, GramSketch::heap_bytes),
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
                GroundText::Ascii { text: self.arena.text(*span), sketch: sketch.as_ref() }
            }
            Kept::Wide(units) => GroundText::Wide(units),
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
