//! A run's results, kept as they are served, so that each armed call is
//! judged without reading or lower-casing any earlier result again.
//!
//! Judging a call against a corpus is judging it against the list of every
//! result pushed so far, in push order: the same grounds, the same first
//! ground for each needle. What changes is the cost: a result's text is
//! lower-cased once, when it is pushed, and a call pays only for its search,
//! which a sketch of each long ASCII text ([`super::sketch`]) cuts short for
//! most of the results that cannot hold the needle.
//!
//! Everything happens on the caller's thread, inside the call that asks for
//! it: `push` lowers the text and builds its sketch before it returns. The
//! corpus keeps nothing anywhere but in itself, and [`ProducedCorpus::clear`]
//! or dropping it frees all of it.
//!
//! Memory: per result, its lower-cased text (one byte per UTF-16 unit when
//! the text is ASCII, two otherwise), for ASCII text of 512 units or more a
//! sketch of one to two bits per unit, and a small fixed record; each
//! distinct tool name is kept once. The original text is not kept.

use super::ground::{is_declared_ground, GroundText, Grounding, Lowered};
use super::sketch::GramSketch;

/// Every result served in a run so far, lower-cased.
#[derive(Debug, Default)]
pub struct ProducedCorpus {
    /// Each distinct producer name once, in the order first seen.
    tools: Vec<Vec<u16>>,
    entries: Vec<Entry>,
    /// What the corpus keeps, in bytes, counted as it grows (see
    /// [`Self::external_bytes`]).
    kept: usize,
}

#[derive(Debug)]
struct Entry {
    /// Index into `tools`.
    tool: usize,
    text: Kept,
}

#[derive(Debug)]
enum Kept {
    /// Lowered ASCII, one byte per unit, with its sketch when the text is
    /// long enough to be worth one.
    Ascii { text: Box<[u8]>, sketch: Option<GramSketch> },
    /// Lowered UTF-16 units.
    Wide(Box<[u16]>),
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
                self.kept += tool_name.len() * 2;
                self.tools.len() - 1
            }
        }
    }

    /// Appends a result given as UTF-16 units: lowers it (narrowed to one
    /// byte per unit when it is all ASCII) and, for a long ASCII text,
    /// builds its sketch.
    pub fn push_units(&mut self, tool_name: &[u16], text: &[u16]) {
        let tool = self.tool(tool_name);
        let kept = match Lowered::of_units(text) {
            Lowered::Ascii(bytes) => {
                let text = bytes.into_boxed_slice();
                let sketch = GramSketch::of_text(&text);
                self.kept += text.len() + sketch.as_ref().map_or(0, GramSketch::heap_bytes);
                Kept::Ascii { text, sketch }
            }
            Lowered::Wide(units) => {
                let units = units.into_boxed_slice();
                self.kept += units.len() * 2;
                Kept::Wide(units)
            }
        };
        self.kept += std::mem::size_of::<Entry>();
        self.entries.push(Entry { tool, text: kept });
    }

    /// Forgets every result and frees what they took, as a new corpus would.
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

    /// The lowered texts' own bytes.
    pub fn text_bytes(&self) -> usize {
        self.entries
            .iter()
            .map(|entry| match &entry.text {
                Kept::Ascii { text, .. } => text.len(),
                Kept::Wide(units) => units.len() * 2,
            })
            .sum()
    }

    /// About what [`Self::heap_bytes`] says, kept up to date as the corpus
    /// grows, so that it costs nothing to ask after every push: every text,
    /// sketch, record and name as it was counted when pushed.
    pub fn external_bytes(&self) -> usize {
        self.kept
    }

    /// The heap the corpus keeps, in bytes: the texts, the sketches, the
    /// records and the names.
    pub fn heap_bytes(&self) -> usize {
        let texts: usize = self
            .entries
            .iter()
            .map(|entry| match &entry.text {
                Kept::Ascii { text, sketch } => {
                    text.len() + sketch.as_ref().map_or(0, GramSketch::heap_bytes)
                }
                Kept::Wide(units) => units.len() * 2,
            })
            .sum();
        let names: usize = self.tools.iter().map(|name| name.capacity() * 2).sum();
        texts + names + self.entries.capacity() * std::mem::size_of::<Entry>()
    }

    /// The length in UTF-16 units of result `index`'s text.
    fn units(&self, index: usize) -> usize {
        match &self.entries[index].text {
            Kept::Ascii { text, .. } => text.len(),
            Kept::Wide(units) => units.len(),
        }
    }

    /// The grounds of a call that declares `arguments_from`.
    pub fn grounds<N: AsRef<[u16]>>(&self, arguments_from: &[N]) -> CorpusGrounds<'_> {
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
            Kept::Ascii { text, sketch } => GroundText::Ascii { text, sketch: sketch.as_ref() },
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
