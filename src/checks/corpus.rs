//! A run's messages, kept as they enter the history, so that every check of
//! the run is judged without reading or lower-casing any earlier message
//! again.
//!
//! Each entry is one message: its role, for a tool result the tool's name,
//! and its text lower-cased once, when it is pushed. Judging a check against
//! the corpus is judging it against the in-window entries, in push order:
//! the same texts, the same first ground for each needle, so the answer is
//! the stateless check's. Per tool name the corpus also keeps how many of
//! its results are in the window and whether one was ever evicted, for the
//! compose seam. [`RunCorpus::choice_frame`] is the frame the choice seam
//! searches, for a corpus and for a response judged on its own alike. And
//! it keeps the claim index ([`crate::checks::claim::index`]): what the
//! in-window messages serve and supply, by normalized form, so the claim
//! seam judges an answer at the cost of the answer, not of the history.
//!
//! Memory: per entry in the window, its lowered text and, for long ASCII
//! text, a sketch; per evicted entry newer than the oldest in-window one,
//! a small record; each tool name once; the claim index's forms. Nothing is
//! kept anywhere but in
//! the corpus, and [`RunCorpus::clear`] or dropping it frees all of it.
//! docs/design.md has the reasoning and the sizes.

use crate::checks::claim::index::{Author, ClaimIndex, Indexed};
use crate::checks::text::ground::{
    is_declared_ground, GroundText, Grounding, HeldTexts, Lowered, Texts, Then,
};
use crate::checks::text::sketch::GramSketch;
use crate::checks::unsupported_argument::{ExternalGround, Frame};
use std::collections::HashMap;

/// Who put a message in front of the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    /// Whether the run served this message (it can ground a value), as
    /// opposed to the model having written it.
    pub fn is_served(self) -> bool {
        self != Role::Assistant
    }
}

/// An id this corpus never handed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnknownId {
    /// Its place in the list given to [`RunCorpus::evict`].
    pub at: usize,
    /// The next id the corpus will hand out: every known id is below it.
    pub next: u64,
}

/// Every message a run has served so far, lower-cased, and which of them
/// are still in the window.
#[derive(Debug, Default)]
pub struct RunCorpus {
    /// Each distinct tool name once, in the order first seen, with its
    /// per-name counts.
    tools: Vec<Tool>,
    tool_index: HashMap<Vec<u16>, usize>,
    /// Since the last clear, in push order, from the oldest entry still in
    /// the window or after it: entry `i` has id `first_id + i`. Evicted
    /// entries before the oldest in-window one are let go, since nothing
    /// can ask about them again (evicting one again does nothing either
    /// way), so a window sliding over a long run keeps a bounded record.
    entries: Vec<Entry>,
    /// Indices into `entries` of those in the window, ascending.
    window: Vec<usize>,
    /// The id of `entries[0]`; ids keep counting across clears.
    first_id: u64,
    /// Entries pushed since the last clear and let go from the front.
    let_go: usize,
    /// What the corpus keeps, in bytes, counted as it changes (see
    /// [`Self::external_bytes`]).
    kept: usize,
    /// The claim seam's forms of the in-window entries.
    claim: ClaimIndex,
    /// Made without the claim index ([`Self::without_claims`]): a push
    /// costs the claim seam nothing, and no answer can be judged.
    no_claims: bool,
}

/// A corpus of tool results only, never evicted: what `ProducedCorpus` is.
pub type ProducedCorpus = RunCorpus;

#[derive(Debug)]
struct Tool {
    name: Vec<u16>,
    /// In-window entries with this name.
    present: usize,
    /// Some entry with this name was evicted since the last clear.
    dropped: bool,
}

#[derive(Debug)]
struct Entry {
    role: Role,
    /// Index into `tools`, for a named tool entry.
    tool: Option<usize>,
    /// The text's length in UTF-16 units.
    units: usize,
    /// `None` once evicted: the text is freed then.
    text: Option<Kept>,
    /// What the entry put into the claim index, until it is evicted.
    claim: Indexed,
}

#[derive(Debug)]
enum Kept {
    /// Lowered ASCII, one byte per unit, with its sketch when the text is
    /// long enough to be worth one.
    Ascii { text: Box<[u8]>, sketch: Option<GramSketch> },
    /// Lowered UTF-16 units.
    Wide(Box<[u16]>),
}

impl Kept {
    fn of_units(text: &[u16]) -> Self {
        match Lowered::of_units(text) {
            Lowered::Ascii(bytes) => {
                let text = bytes.into_boxed_slice();
                let sketch = GramSketch::of_text(&text);
                Kept::Ascii { text, sketch }
            }
            Lowered::Wide(units) => Kept::Wide(units.into_boxed_slice()),
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Kept::Ascii { text, sketch } => text.len() + sketch.as_ref().map_or(0, GramSketch::heap_bytes),
            Kept::Wide(units) => units.len() * 2,
        }
    }

    fn ground(&self) -> GroundText<'_> {
        match self {
            Kept::Ascii { text, sketch } => GroundText::Ascii { text, sketch: sketch.as_ref() },
            Kept::Wide(units) => GroundText::Wide(units),
        }
    }
}

impl RunCorpus {
    pub fn new() -> Self {
        Self::default()
    }

    /// A corpus that keeps no claim index: for a run whose answers are
    /// never judged (a guard without the claim seam, a produced corpus),
    /// indexing every text's values would be most of a push's cost.
    pub fn without_claims() -> Self {
        Self { no_claims: true, ..Self::default() }
    }

    /// Whether the corpus keeps the claim index, so that an answer can be
    /// judged against it.
    pub fn keeps_claims(&self) -> bool {
        !self.no_claims
    }

    fn tool(&mut self, name: &[u16]) -> usize {
        if let Some(&tool) = self.tool_index.get(name) {
            return tool;
        }
        self.tools.push(Tool { name: name.to_vec(), present: 0, dropped: false });
        self.tool_index.insert(name.to_vec(), self.tools.len() - 1);
        self.kept += name.len() * 4;
        self.tools.len() - 1
    }

    /// Appends a message given as UTF-16 units and returns its id. `tool_name`
    /// is read only for a tool entry, where `None` means a result with no
    /// name: it grounds text but is nobody's producer. The text is lowered
    /// (narrowed to one byte per unit when it is all ASCII) and, when long
    /// and ASCII, sketched.
    pub fn push(&mut self, role: Role, tool_name: Option<&[u16]>, text: &[u16]) -> u64 {
        let tool = match (role, tool_name) {
            (Role::Tool, Some(name)) => Some(self.tool(name)),
            _ => None,
        };
        if let Some(tool) = tool {
            self.tools[tool].present += 1;
        }
        let kept = Kept::of_units(text);
        let author = match role {
            Role::System => Author::App,
            Role::User => Author::Person,
            Role::Assistant => Author::Model,
            Role::Tool => Author::Tool,
        };
        let claim =
            if self.no_claims { Indexed::default() } else { self.claim.push(self.next_id(), author, text) };
        self.kept += kept.heap_bytes()
            + claim.heap_bytes()
            + std::mem::size_of::<Entry>()
            + std::mem::size_of::<usize>();
        self.window.push(self.entries.len());
        self.entries.push(Entry { role, tool, units: text.len(), text: Some(kept), claim });
        self.next_id() - 1
    }

    /// Appends a tool result, as `ProducedCorpus.push` does.
    pub fn push_units(&mut self, tool_name: &[u16], text: &[u16]) -> u64 {
        self.push(Role::Tool, Some(tool_name), text)
    }

    /// The id the next push returns.
    pub fn next_id(&self) -> u64 {
        self.first_id + self.entries.len() as u64
    }

    /// Takes these entries out of the window for good, and frees their
    /// texts. Every id must be one this corpus handed out; when one is not,
    /// nothing is evicted. An id already evicted, or forgotten by a clear,
    /// is passed over.
    pub fn evict(&mut self, ids: &[u64]) -> Result<(), UnknownId> {
        let next = self.next_id();
        if let Some(at) = ids.iter().position(|&id| id >= next) {
            return Err(UnknownId { at, next });
        }
        let mut evicted = false;
        for &id in ids {
            let Some(index) = id.checked_sub(self.first_id) else { continue };
            let entry = &mut self.entries[index as usize];
            let Some(text) = entry.text.take() else { continue };
            let claim = std::mem::take(&mut entry.claim);
            self.claim.evict(id, &claim);
            self.kept -= text.heap_bytes() + claim.heap_bytes() + std::mem::size_of::<usize>();
            if let Some(tool) = entry.tool {
                let tool = &mut self.tools[tool];
                tool.present -= 1;
                tool.dropped = true;
            }
            evicted = true;
        }
        if evicted {
            let entries = &self.entries;
            self.window.retain(|&index| entries[index].text.is_some());
            self.let_go_of_evicted_front();
        }
        Ok(())
    }

    /// Drops the records of the evicted entries older than every in-window
    /// one, and renumbers what stays.
    fn let_go_of_evicted_front(&mut self) {
        let front = self.window.first().copied().unwrap_or(self.entries.len());
        if front == 0 {
            return;
        }
        self.entries.drain(..front);
        for index in &mut self.window {
            *index -= front;
        }
        self.first_id += front as u64;
        self.let_go += front;
        self.kept -= front * std::mem::size_of::<Entry>();
    }

    /// Forgets every entry and every dropped name, for another run, and
    /// frees what they took. Ids keep counting.
    pub fn clear(&mut self) {
        let first_id = self.next_id();
        *self = Self { first_id, no_claims: self.no_claims, ..Self::default() };
    }

    /// Entries pushed since the last clear, evicted ones included.
    pub fn len(&self) -> usize {
        self.let_go + self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entries in the window.
    pub fn window_len(&self) -> usize {
        self.window.len()
    }

    /// The lowered texts' own bytes.
    pub fn text_bytes(&self) -> usize {
        self.in_window()
            .map(|(_, _, text)| match text {
                Kept::Ascii { text, .. } => text.len(),
                Kept::Wide(units) => units.len() * 2,
            })
            .sum()
    }

    /// About what [`Self::heap_bytes`] says, kept up to date as the corpus
    /// changes, so that it costs nothing to ask after every push.
    pub fn external_bytes(&self) -> usize {
        self.kept + self.claim.heap_bytes()
    }

    /// The heap the corpus keeps, in bytes: the texts, the sketches, the
    /// records and the names.
    pub fn heap_bytes(&self) -> usize {
        let texts: usize = self.in_window().map(|(_, _, text)| text.heap_bytes()).sum();
        let names: usize = self.tools.iter().map(|tool| tool.name.capacity() * 4).sum();
        let claim: usize = self.in_window().map(|(_, entry, _)| entry.claim.heap_bytes()).sum();
        texts
            + names
            + claim
            + self.claim.heap_bytes()
            + self.entries.capacity() * std::mem::size_of::<Entry>()
            + self.window.capacity() * std::mem::size_of::<usize>()
    }

    /// The in-window entries in push order: index, entry, text.
    fn in_window(&self) -> impl Iterator<Item = (usize, &Entry, &Kept)> + '_ {
        self.window.iter().map(|&index| {
            let entry = &self.entries[index];
            (index, entry, entry.text.as_ref().expect("an in-window entry keeps its text"))
        })
    }

    /// The grounds of an empty lookup that declares `arguments_from`: the
    /// in-window named tool entries of those tools with a non-empty text.
    pub fn grounds<N: AsRef<[u16]>>(&self, arguments_from: &[N]) -> CorpusTexts<'_> {
        let picked = self
            .in_window()
            .filter(|(_, entry, _)| {
                entry.tool.is_some_and(|tool| {
                    is_declared_ground(arguments_from, &self.tools[tool].name, entry.units)
                })
            })
            .map(|(index, _, _)| index)
            .collect();
        CorpusTexts { corpus: self, picked }
    }

    /// The in-window entries the run served (system, user and tool
    /// messages), for a search that asks only whether any of them holds a
    /// value: newest first, since a value is most often taken from a recent
    /// result.
    pub fn served(&self) -> OriginTexts<'_> {
        OriginTexts { corpus: self, served: true }
    }

    /// The in-window entries the model wrote, newest first (see
    /// [`Self::served`]).
    pub fn written(&self) -> OriginTexts<'_> {
        OriginTexts { corpus: self, served: false }
    }

    /// The frame a response was chosen from, which `unsupported-argument`
    /// searches: what the run served (system, user and tool messages) is
    /// ground, what the model wrote (assistant messages) is not.
    ///
    /// `served` and `written` are texts the request holds besides this
    /// corpus's entries, oldest first, each older than every entry: a
    /// request's system prompt, before any message; or, for a response
    /// judged on its own, every text, with an empty corpus.
    ///
    /// Each side is searched newest first: the in-window entries, then the
    /// given texts from the last to the first. Whether some text holds a
    /// value does not depend on the order, and a value is most often taken
    /// from a recent message, so the search usually stops early. A given
    /// text is read only when the search reaches it. The counts the finding
    /// reports are each side's entries and given texts together.
    pub fn choice_frame<T>(
        &self,
        served: Vec<T>,
        written: Vec<T>,
        external: Vec<ExternalGround>,
    ) -> ChoiceFrame<'_, T> {
        let newest_first = |texts: Vec<T>| {
            let mut held = HeldTexts::new();
            for (index, text) in texts.into_iter().enumerate().rev() {
                held.push(index, text);
            }
            held
        };
        let (kept_served, kept_written) = (self.served(), self.written());
        Frame {
            served_count: kept_served.len() + served.len(),
            served: Then(kept_served, newest_first(served)),
            assistant_count: kept_written.len() + written.len(),
            assistant: Then(kept_written, newest_first(written)),
            external,
        }
    }

    /// The claim index of the in-window entries.
    pub fn claim_index(&self) -> &ClaimIndex {
        &self.claim
    }

    /// Whether a named tool entry of `name` was evicted since the last clear.
    pub fn was_dropped(&self, name: &[u16]) -> bool {
        self.tool_index.get(name).is_some_and(|&tool| self.tools[tool].dropped)
    }

    /// Whether a named tool entry of `name` is in the window.
    pub fn is_present(&self, name: &[u16]) -> bool {
        self.tool_index.get(name).is_some_and(|&tool| self.tools[tool].present > 0)
    }

    /// Whether any named tool entry was evicted since the last clear.
    pub fn dropped_any(&self) -> bool {
        self.tools.iter().any(|tool| tool.dropped)
    }
}

/// The frame [`RunCorpus::choice_frame`] builds: on each side the corpus's
/// entries, then the texts the request gave.
pub type ChoiceFrame<'c, T> = Frame<Then<OriginTexts<'c>, HeldTexts<T>>, Then<OriginTexts<'c>, HeldTexts<T>>>;

/// An empty lookup's grounds in a corpus: some in-window entries, in push
/// order, each shown with its entry index.
pub struct CorpusTexts<'c> {
    corpus: &'c RunCorpus,
    picked: Vec<usize>,
}

impl<E> Texts<E> for CorpusTexts<'_> {
    fn scan(&mut self, visit: &mut dyn FnMut(usize, GroundText<'_>) -> bool) -> Result<(), E> {
        for &index in &self.picked {
            let text = self.corpus.entries[index].text.as_ref().expect("an in-window entry keeps its text");
            if !visit(index, text.ground()) {
                break;
            }
        }
        Ok(())
    }
}

/// The in-window entries the run served, or those the model wrote, read
/// straight from the window, newest first: for "does any text hold it" the
/// order cannot change the answer, and a value is most often taken from a
/// recent result.
pub struct OriginTexts<'c> {
    corpus: &'c RunCorpus,
    served: bool,
}

impl OriginTexts<'_> {
    fn newest_first(&self) -> impl Iterator<Item = (usize, &Kept)> + '_ {
        let corpus = self.corpus;
        corpus.window.iter().rev().filter_map(move |&index| {
            let entry = &corpus.entries[index];
            let text = entry.text.as_ref().expect("an in-window entry keeps its text");
            (entry.role.is_served() == self.served).then_some((index, text))
        })
    }

    /// How many texts this view holds.
    pub fn len(&self) -> usize {
        self.newest_first().count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<E> Texts<E> for OriginTexts<'_> {
    fn scan(&mut self, visit: &mut dyn FnMut(usize, GroundText<'_>) -> bool) -> Result<(), E> {
        for (index, text) in self.newest_first() {
            if !visit(index, text.ground()) {
                break;
            }
        }
        Ok(())
    }
}

impl<E> Grounding<E> for CorpusTexts<'_> {
    fn is_unreachable(&self) -> bool {
        self.picked.is_empty()
    }

    fn producer(&self, index: usize) -> &[u16] {
        let tool = self.corpus.entries[index].tool.expect("a ground is a named tool entry");
        &self.corpus.tools[tool].name
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::text::js_string::{to_lower, units};

    /// What a scan of `texts` shows, in order: each text's entry index and
    /// lowered units.
    fn scanned<T: Texts<()>>(texts: &mut T) -> Vec<(usize, Vec<u16>)> {
        let mut seen = Vec::new();
        texts
            .scan(&mut |index, text| {
                seen.push((
                    index,
                    match text {
                        GroundText::Ascii { text, .. } => text.iter().map(|&b| u16::from(b)).collect(),
                        GroundText::Wide(units) => units.to_vec(),
                    },
                ));
                true
            })
            .unwrap();
        seen
    }

    /// The texts a scan shows, in order (the entries' indices are the
    /// corpus's own business).
    fn shown<T: Texts<()>>(texts: &mut T) -> Vec<(Vec<u16>, Option<Vec<u16>>)> {
        scanned(texts).into_iter().map(|(_, text)| (text, None)).collect()
    }

    /// The grounds' texts, each with its producer.
    fn shown_with_producers(grounds: &mut CorpusTexts<'_>) -> Vec<(Vec<u16>, Option<Vec<u16>>)> {
        let seen = scanned(grounds);
        seen.into_iter()
            .map(|(index, text)| (text, Some(Grounding::<()>::producer(grounds, index).to_vec())))
            .collect()
    }

    /// A plain model: every entry ever pushed since the last clear, with
    /// its flag.
    #[derive(Default)]
    struct Model {
        first_id: u64,
        entries: Vec<(Role, Option<String>, String, bool)>,
        dropped: Vec<String>,
    }

    #[test]
    fn every_view_is_the_in_window_entries_after_random_pushes_evictions_and_clears() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        let names = ["inventory", "cmdb", ""];
        let words = ["Host-A", "ΣΟΦΙΑ", "srv-4471", "x".repeat(600).leak() as &str, "İstanbul", "ok"];
        for _run in 0..40 {
            let mut corpus = RunCorpus::new();
            let mut model = Model::default();
            for _step in 0..60 {
                match next(10) {
                    0..=5 => {
                        let role = [Role::System, Role::User, Role::Assistant, Role::Tool, Role::Tool]
                            [next(5) as usize];
                        let name = (next(4) > 0).then(|| names[next(3) as usize].to_string());
                        let text: String =
                            (0..next(4)).map(|_| words[next(6) as usize]).collect::<Vec<_>>().join(" ");
                        let id = corpus.push(role, name.as_deref().map(units).as_deref(), &units(&text));
                        assert_eq!(id, model.first_id + model.entries.len() as u64);
                        let name = if role == Role::Tool { name } else { None };
                        model.entries.push((role, name, text, true));
                    }
                    6..=8 => {
                        let next_id = model.first_id + model.entries.len() as u64;
                        let ids: Vec<u64> = (0..next(3)).map(|_| next(next_id + 1)).collect();
                        let bad = ids.iter().position(|&id| id >= next_id);
                        let before = corpus.external_bytes();
                        match corpus.evict(&ids) {
                            Err(unknown) => {
                                assert_eq!(Some(unknown.at), bad);
                                assert_eq!(corpus.external_bytes(), before, "nothing was evicted");
                            }
                            Ok(()) => {
                                assert_eq!(bad, None);
                                for id in ids {
                                    let Some(at) = id.checked_sub(model.first_id) else { continue };
                                    let entry = &mut model.entries[at as usize];
                                    if entry.3 {
                                        entry.3 = false;
                                        if let Some(name) = &entry.1 {
                                            model.dropped.push(name.clone());
                                        }
                                    }
                                }
                                assert!(corpus.external_bytes() <= before);
                            }
                        }
                    }
                    _ => {
                        corpus.clear();
                        model.first_id += model.entries.len() as u64;
                        model.entries.clear();
                        model.dropped.clear();
                        assert_eq!(corpus.external_bytes(), 0);
                    }
                }
                let in_window: Vec<(usize, &(Role, Option<String>, String, bool))> =
                    model.entries.iter().enumerate().filter(|(_, e)| e.3).collect();
                let lowered = |text: &str| to_lower(&units(text)).into_owned();
                let mut served: Vec<_> = in_window
                    .iter()
                    .filter(|(_, e)| e.0 != Role::Assistant)
                    .map(|(_, e)| (lowered(&e.2), None))
                    .collect();
                served.reverse();
                let mut written: Vec<_> = in_window
                    .iter()
                    .filter(|(_, e)| e.0 == Role::Assistant)
                    .map(|(_, e)| (lowered(&e.2), None))
                    .collect();
                written.reverse();
                assert_eq!(shown(&mut corpus.served()), served);
                assert_eq!(shown(&mut corpus.written()), written);
                let declared = [units("inventory"), units("")];
                let grounds: Vec<_> = in_window
                    .iter()
                    .filter(|(_, e)| {
                        e.1.as_deref().is_some_and(|n| n == "inventory" || n.is_empty()) && !e.2.is_empty()
                    })
                    .map(|(_, e)| (lowered(&e.2), e.1.as_deref().map(units)))
                    .collect();
                assert_eq!(shown_with_producers(&mut corpus.grounds(&declared)), grounds);
                assert_eq!(corpus.len(), model.entries.len());
                assert_eq!(corpus.window_len(), in_window.len());
                for name in names {
                    assert_eq!(
                        corpus.was_dropped(&units(name)),
                        model.dropped.iter().any(|d| d == name),
                        "{name}"
                    );
                    let present = in_window.iter().any(|(_, e)| e.1.as_deref() == Some(name));
                    assert_eq!(corpus.is_present(&units(name)), present, "{name}");
                }
                assert_eq!(corpus.dropped_any(), !model.dropped.is_empty());
            }
        }
    }

    #[test]
    fn the_choice_frame_searches_each_side_newest_first_the_given_texts_last() {
        let mut corpus = RunCorpus::new();
        corpus.push(Role::System, None, &units("System Entry"));
        let dropped = corpus.push(Role::User, None, &units("user one"));
        corpus.push(Role::Tool, Some(&units("inventory")), &units("Tool Result"));
        corpus.push(Role::Assistant, None, &units("assistant one"));
        corpus.push(Role::User, None, &units("user two"));
        corpus.push(Role::Assistant, None, &units("assistant two"));
        corpus.evict(&[dropped]).unwrap();
        let given = |texts: &[&str]| texts.iter().map(|text| units(text)).collect::<Vec<_>>();
        let lowered = |texts: &[&str]| {
            texts.iter().map(|text| (to_lower(&units(text)).into_owned(), None)).collect::<Vec<_>>()
        };

        // The given texts are older than every entry: a system prompt, then
        // whatever else the request holds, oldest first.
        let mut frame =
            corpus.choice_frame(given(&["The Prompt", "A Later Text"]), given(&["Given Turn"]), Vec::new());
        assert_eq!(
            shown(&mut frame.served),
            lowered(&["user two", "tool result", "system entry", "a later text", "the prompt"])
        );
        assert_eq!(shown(&mut frame.assistant), lowered(&["assistant two", "assistant one", "given turn"]));
        assert_eq!((frame.served_count, frame.assistant_count), (5, 3));

        // A response judged on its own: nothing kept, every text given.
        let nothing_kept = RunCorpus::new();
        let mut frame = nothing_kept.choice_frame(given(&["a", "b", "c"]), given(&[]), Vec::new());
        assert_eq!(shown(&mut frame.served), lowered(&["c", "b", "a"]));
        assert_eq!(shown(&mut frame.assistant), lowered(&[]));
        assert_eq!((frame.served_count, frame.assistant_count), (3, 0));
    }

    #[test]
    fn a_response_judged_on_the_corpus_gets_the_answer_it_gets_on_its_own_with_every_text_given() {
        use crate::checks::unsupported_argument::{unsupported_arguments_of, Choice, UnsupportedArguments};
        use crate::checks::walk::tests::{record, s, Plain, TooMany};

        let prompt = "Machines are named like srv-0000.";
        let history = [
            (Role::User, "Is srv-4471 backed up?"),
            (Role::Tool, "FLEET: srv-4471, callisto-02"),
            (Role::Assistant, "The nightly job bkp-4417-ganymede-tier2 ran."),
            (Role::User, "And callisto-02?"),
        ];
        let mut corpus = RunCorpus::new();
        let ids: Vec<u64> = history
            .iter()
            .map(|(role, text)| corpus.push(*role, Some(&units("fleet_report")), &units(text)))
            .collect();
        corpus.evict(&[ids[1]]).unwrap();
        let in_window = |served: bool| {
            history
                .iter()
                .enumerate()
                .filter(move |(i, (role, _))| *i != 1 && role.is_served() == served)
                .map(|(_, (_, text))| units(text))
        };

        // Served, self-referenced, served by the prompt only, nowhere,
        // excused, and only in the evicted result.
        let values = ["callisto-02", "4417-ganymede", "srv-0000", "nowhere-9", "panel-7", "fleet: srv"];
        let keys = ["a", "b", "c", "d", "e", "f"];
        fn judge<S: Texts<TooMany>, A: Texts<TooMany>>(
            frame: Frame<S, A>,
            values: &[&str],
            keys: &[&'static str],
        ) -> UnsupportedArguments {
            let choice = Choice {
                tool_name: units("backup_status"),
                tool_call_id: units("call-1"),
                args: record(keys.iter().zip(values).map(|(key, value)| (*key, s(value))).collect()),
                arguments_from: vec![units("fleet_report")],
                declared_enums: Vec::new(),
            };
            let mut choice = Some(choice);
            unsupported_arguments_of(
                &mut Plain::default(),
                1,
                |_| Ok(frame),
                |_, _| Ok(choice.take().unwrap()),
                3.0,
            )
            .unwrap()
        }
        let external = || {
            let vouched =
                ExternalGround::usable(&units("panel-7"), || Ok::<_, ()>(Some(units("viewer-selection"))));
            vec![vouched.unwrap().unwrap()]
        };

        let on_the_corpus =
            judge(corpus.choice_frame(vec![units(prompt)], Vec::new(), external()), &values, &keys);
        let served: Vec<Vec<u16>> = std::iter::once(units(prompt)).chain(in_window(true)).collect();
        let nothing_kept = RunCorpus::new();
        let on_its_own =
            judge(nothing_kept.choice_frame(served, in_window(false).collect(), external()), &values, &keys);
        assert_eq!(on_the_corpus, on_its_own);
        let paths: Vec<String> = on_the_corpus
            .findings
            .iter()
            .map(|finding| String::from_utf16(finding.predicate.as_ref().unwrap()).unwrap())
            .collect();
        assert_eq!(paths, ["b", "d", "f"]);
        assert_eq!(on_the_corpus.external_groundings.len(), 1);
        let provenance = String::from_utf16(&on_the_corpus.findings[0].witnesses[1].provenance).unwrap();
        assert!(
            provenance.contains("3 served string(s)") && provenance.contains("1 assistant turn(s)"),
            "{provenance}"
        );
    }

    #[test]
    fn a_window_sliding_over_a_long_run_keeps_a_bounded_record() {
        let mut corpus = RunCorpus::new();
        let mut after_first_window = 0;
        for i in 0..20_000u64 {
            corpus.push(Role::Tool, Some(&units("inventory")), &units("host-a rack 4"));
            if i >= 5 {
                corpus.evict(&[i - 5]).unwrap();
            }
            if i == 100 {
                after_first_window = corpus.external_bytes();
            }
        }
        assert_eq!((corpus.len(), corpus.window_len()), (20_000, 5));
        assert_eq!(corpus.external_bytes(), after_first_window, "nothing grows with the run");
        assert!(corpus.entries.len() <= 6);
        // Ids let go of, or evicted again, change nothing; the window is intact.
        corpus.evict(&[0, 19_990, 19_994]).unwrap();
        assert_eq!(corpus.window_len(), 5);
        assert!(corpus.was_dropped(&units("inventory")) && corpus.is_present(&units("inventory")));
    }

    #[test]
    fn an_evicted_text_is_freed_and_its_id_is_never_reused() {
        let mut corpus = RunCorpus::new();
        let big = units(&"host-a ".repeat(2_000));
        let first = corpus.push(Role::Tool, Some(&units("inventory")), &big);
        let with_text = corpus.external_bytes();
        corpus.evict(&[first]).unwrap();
        assert!(corpus.external_bytes() + big.len() <= with_text, "the 14,000 lowered bytes are gone");
        corpus.evict(&[first, first]).unwrap();
        corpus.clear();
        assert_eq!(corpus.push(Role::User, None, &units("again")), 1);
        assert_eq!(corpus.evict(&[5]), Err(UnknownId { at: 0, next: 2 }));
        corpus.evict(&[0]).unwrap();
        assert_eq!(corpus.window_len(), 1, "an id a clear forgot evicts nothing");
    }
}
