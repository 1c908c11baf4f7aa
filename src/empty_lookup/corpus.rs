//! A run's results, kept as they are served, so that each armed call is
//! judged without reading or lower-casing any earlier result again.
//!
//! Judging a call against a corpus is judging it against the list of every
//! result pushed so far, in push order: the same grounds, the same first
//! ground for each needle. What changes is the cost: a result's text is
//! lower-cased once, when it is pushed, and a call pays only for its search.
//!
//! Memory: per result, its lower-cased text (one byte per UTF-16 unit when
//! the text is ASCII, two otherwise) and a small fixed record; each distinct
//! tool name is kept once. The original text is not kept.

use super::ground::{is_declared_ground, Grounding, Lowered};

/// Every result served in a run so far, lower-cased.
#[derive(Debug, Default)]
pub struct ProducedCorpus {
    /// Each distinct producer name once, in the order first seen.
    tools: Vec<Vec<u16>>,
    entries: Vec<Entry>,
}

#[derive(Debug)]
struct Entry {
    /// Index into `tools`.
    tool: usize,
    text: Lowered,
    /// The text's length in UTF-16 units.
    units: usize,
}

impl ProducedCorpus {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a result given as UTF-16 units.
    pub fn push_units(&mut self, tool_name: &[u16], text: &[u16]) {
        self.push_lowered(tool_name, Lowered::of_units(text), text.len());
    }

    /// Appends a result already lower-cased; `units` is the original text's
    /// length in UTF-16 units.
    pub fn push_lowered(&mut self, tool_name: &[u16], text: Lowered, units: usize) {
        let tool = match self.tools.iter().position(|known| known == tool_name) {
            Some(tool) => tool,
            None => {
                self.tools.push(tool_name.to_vec());
                self.tools.len() - 1
            }
        };
        self.entries.push(Entry { tool, text, units });
    }

    /// How many results were pushed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The heap the corpus keeps, in bytes (texts, records and names).
    pub fn heap_bytes(&self) -> usize {
        let texts: usize = self.entries.iter().map(|entry| entry.text.heap_bytes()).sum();
        let names: usize = self.tools.iter().map(|name| name.capacity() * 2).sum();
        texts + names + self.entries.capacity() * std::mem::size_of::<Entry>()
    }

    /// The grounds of a call that declares `arguments_from`.
    pub fn grounds(&self, arguments_from: &[Vec<u16>]) -> CorpusGrounds<'_> {
        let grounds = self
            .entries
            .iter()
            .enumerate()
            .filter(|(_, entry)| is_declared_ground(arguments_from, &self.tools[entry.tool], entry.units))
            .map(|(index, _)| index)
            .collect();
        CorpusGrounds { corpus: self, grounds }
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

    fn scan(&mut self, visit: &mut dyn FnMut(usize, &Lowered) -> bool) -> Result<(), E> {
        for &index in &self.grounds {
            if !visit(index, &self.corpus.entries[index].text) {
                break;
            }
        }
        Ok(())
    }

    fn producer(&self, index: usize) -> &[u16] {
        &self.corpus.tools[self.corpus.entries[index].tool]
    }
}
