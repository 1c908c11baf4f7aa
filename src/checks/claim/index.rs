//! The claim index: what a run's in-window messages serve and supply, by
//! normalized form, kept up to date as messages are pushed and evicted.
//!
//! Two corpora share one table of forms:
//!
//! - **served**: what the tool results in the window offer, read as
//!   [`super::served`] reads a result. Each form knows the in-window tool
//!   entries that serve it, so its newest one (and so the turn that last
//!   served it) is at hand after any eviction.
//! - **exempt**: what the person and the app supplied: the tokens of the
//!   in-window user and system messages, with the other spellings of their
//!   dates and clock times ([`super::exempt`]). A correction the gate wrote
//!   is a user message too, and it quotes the very values it flags, so it
//!   is not exempt: it is recognised by its opening ([`is_correction`]).
//!
//! The model's own messages (assistant entries) are in neither: a value the
//! model typed does not ground itself.
//!
//! Turns are counted as agentfootprint counts them: a turn starts at each
//! in-window user entry that is not a correction, turn 1 at the first such
//! entry still in the window, entries before it in turn 0. The ordinals
//! are window-relative, so an eviction can renumber turns; the boundary
//! between this turn and the earlier ones is exact whatever the window
//! does. So the index keeps the ids of the boundaries, not their numbers,
//! and numbers them at judgement.
//!
//! Pushing an entry costs its text's length; evicting one costs its
//! distinct forms (and the in-window entries sharing each form, for the
//! position found in a list); a look-up costs the form's length and a
//! binary search over the boundaries. There is no ceiling on what is
//! indexed, so the index is never partial.
//!
//! Memory: each distinct form once (shared by the table and its record),
//! and per in-window entry its distinct form numbers and, for each served
//! form, its id in the form's list.

use super::exempt::date_and_clock_forms;
use super::normalize::{lookup_forms, normalize_token, tokenize};
use super::served::{read_served, Piece};
use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;

/// The opening of the correction a 'guard' revision sends (kept from
/// agentfootprint, so a history written by either reads the same).
pub const EVIDENCE_FRAME_PREFIX: &str = "[evidence check";

/// The opening of agentfootprint's schema correction, which it also keeps
/// out of the exempt corpus and the turn count.
pub const SCHEMA_FRAME_PREFIX: &str = "[schema check";

/// Whether a user message is a correction a library wrote: it quotes the
/// model's own values back, so it supplies none, and it asks nothing new,
/// so it starts no turn.
pub fn is_correction(text: &[u16]) -> bool {
    let opens = |prefix: &str| {
        prefix.len() <= text.len() && prefix.encode_utf16().zip(text).all(|(unit, &text)| unit == text)
    };
    opens(EVIDENCE_FRAME_PREFIX) || opens(SCHEMA_FRAME_PREFIX)
}

/// Hands each raw value a supplied text (a user or system message) offers to
/// `add`: its tokens, and the other spellings of its dates and times.
fn supplied_values(text: &[u16], add: &mut dyn FnMut(&[u16])) {
    tokenize(text, &mut *add);
    date_and_clock_forms(text, add);
}

/// Each raw value normalized, then each of its look-up spellings
/// (agentfootprint's `add`); nothing for pure decoration.
fn spellings_of(raw: &[u16], each: &mut dyn FnMut(&[u16])) {
    let normalized = normalize_token(raw);
    if normalized.is_empty() {
        return;
    }
    for form in lookup_forms(&normalized) {
        each(form);
    }
}

/// The forms a text supplies when it is exempt, as a set: for a text a
/// judgement is handed besides the corpus (a request's system prompt).
pub fn supplied_forms(text: &[u16]) -> HashSet<Vec<u16>> {
    let mut forms = HashSet::new();
    supplied_values(text, &mut |raw| {
        spellings_of(raw, &mut |form| {
            forms.insert(form.to_vec());
        })
    });
    forms
}

/// Who wrote a message, as the index tells them apart (the run corpus's
/// roles: assistant, tool, user, system).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Author {
    Model,
    Tool,
    Person,
    App,
}

/// What one entry put into the index: which corpus, and its distinct forms
/// by number.
#[derive(Debug, Default)]
pub struct Indexed {
    part: Part,
    forms: Box<[u32]>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Part {
    /// Nothing: an assistant entry.
    #[default]
    None,
    Served,
    /// Supplied by the person or the app; `turn` when it starts a turn.
    Exempt {
        turn: bool,
    },
}

impl Indexed {
    /// The heap this entry's record keeps, in bytes.
    pub fn heap_bytes(&self) -> usize {
        self.forms.len() * (std::mem::size_of::<u32>() + std::mem::size_of::<u64>())
    }
}

#[derive(Debug)]
struct Form {
    units: Rc<[u16]>,
    /// The in-window tool entries serving this form, by id, ascending.
    served: VecDeque<u64>,
    /// How many in-window user and system entries supply it.
    supplied: u32,
    /// The last entry that added it, so each entry counts it once.
    last_entry: u64,
}

/// The forms of a run's in-window entries (see the module's documentation).
#[derive(Debug, Default)]
pub struct ClaimIndex {
    numbers: HashMap<Rc<[u16]>, u32>,
    forms: Vec<Form>,
    /// Numbers of forms no entry holds any more, for reuse.
    free: Vec<u32>,
    /// The in-window entries that start a turn, by id, ascending.
    boundaries: VecDeque<u64>,
    /// The in-window tool entries, by id, ascending.
    tools: VecDeque<u64>,
    /// The units the table holds, for the corpus's memory count.
    form_units: usize,
    /// Look-up work (forms hashed, boundaries compared), counted in tests
    /// only, for the growth rows.
    #[cfg(test)]
    pub(crate) work: std::cell::Cell<u64>,
}

/// Where one value was found, by the index's lights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    /// The person or the app supplied it.
    Supplied,
    /// A tool result in the window serves it; the newest one is in this
    /// turn (window-relative, 0 before the first boundary).
    Served { turn: u32 },
    /// Nowhere.
    Unsupported,
}

impl ClaimIndex {
    /// Indexes the entry `id` (ids ascend with each push): a tool result's
    /// served forms, a user or system message's supplied ones, nothing for
    /// the model's own message.
    pub fn push(&mut self, id: u64, author: Author, text: &[u16]) -> Indexed {
        let part = match author {
            Author::Model => return Indexed::default(),
            Author::Tool => Part::Served,
            Author::Person if is_correction(text) => return Indexed::default(),
            Author::Person => Part::Exempt { turn: true },
            Author::App => Part::Exempt { turn: false },
        };
        let mut held = Vec::new();
        {
            let mut add = |raw: &[u16]| self.add(id, part, raw, &mut held);
            match part {
                Part::Served => read_served(text, &mut |piece| match piece {
                    Piece::String(units) => {
                        add(units);
                        tokenize(units, &mut add);
                    }
                    Piece::Atom(units) => add(units),
                    Piece::Text(units) => tokenize(units, &mut add),
                }),
                _ => supplied_values(text, &mut add),
            }
        }
        match part {
            Part::Served => self.tools.push_back(id),
            Part::Exempt { turn: true } => self.boundaries.push_back(id),
            _ => {}
        }
        Indexed { part, forms: held.into_boxed_slice() }
    }

    /// One raw value (agentfootprint's `add`): normalized, then each of its
    /// look-up spellings, once per entry.
    fn add(&mut self, id: u64, part: Part, raw: &[u16], held: &mut Vec<u32>) {
        spellings_of(raw, &mut |form| {
            let number = self.number(form);
            let record = &mut self.forms[number as usize];
            if record.last_entry == id + 1 {
                return;
            }
            record.last_entry = id + 1;
            match part {
                Part::Served => record.served.push_back(id),
                _ => record.supplied += 1,
            }
            held.push(number);
        });
    }

    fn number(&mut self, form: &[u16]) -> u32 {
        if let Some(&number) = self.numbers.get(form) {
            return number;
        }
        let units: Rc<[u16]> = form.into();
        let record = Form { units: units.clone(), served: VecDeque::new(), supplied: 0, last_entry: 0 };
        let number = match self.free.pop() {
            Some(number) => {
                self.forms[number as usize] = record;
                number
            }
            None => {
                self.forms.push(record);
                (self.forms.len() - 1) as u32
            }
        };
        self.form_units += form.len();
        self.numbers.insert(units, number);
        number
    }

    /// Takes the entry `id` out: what it indexed stops counting.
    pub fn evict(&mut self, id: u64, indexed: &Indexed) {
        match indexed.part {
            Part::None => return,
            Part::Served => remove_id(&mut self.tools, id),
            Part::Exempt { turn: true } => remove_id(&mut self.boundaries, id),
            Part::Exempt { turn: false } => {}
        }
        for &number in indexed.forms.iter() {
            let record = &mut self.forms[number as usize];
            match indexed.part {
                Part::Served => remove_id(&mut record.served, id),
                _ => record.supplied -= 1,
            }
            if record.served.is_empty() && record.supplied == 0 {
                let units = std::mem::replace(&mut record.units, Rc::from([]));
                record.served = VecDeque::new();
                self.form_units -= units.len();
                self.numbers.remove(&units);
                self.free.push(number);
            }
        }
    }

    /// Where a value looked up under `forms` (its spellings, normalized)
    /// was found; `also_supplied` says whether a text the judgement was
    /// handed besides the corpus supplies a spelling.
    pub fn find(&self, forms: &[&[u16]], also_supplied: impl Fn(&[u16]) -> bool) -> Found {
        // Each spelling is looked up once: supplied under any spelling
        // wins, else the newest serving entry of any spelling (its turn is
        // the newest).
        let mut newest = None;
        for form in forms {
            #[cfg(test)]
            self.work.set(self.work.get() + 1);
            let record = self.numbers.get(*form).map(|&number| &self.forms[number as usize]);
            if record.is_some_and(|r| r.supplied > 0) || also_supplied(form) {
                return Found::Supplied;
            }
            newest = newest.max(record.and_then(|r| r.served.back().copied()));
        }
        match newest {
            Some(id) => Found::Served { turn: self.turn_of(id) },
            None => Found::Unsupported,
        }
    }

    /// The window-relative turn of the entry `id`: how many in-window
    /// boundaries precede it.
    fn turn_of(&self, id: u64) -> u32 {
        self.boundaries.partition_point(|&boundary| {
            #[cfg(test)]
            self.work.set(self.work.get() + 1);
            boundary < id
        }) as u32
    }

    /// The turn in progress: the in-window boundaries (0: none).
    pub fn current_turn(&self) -> u32 {
        self.boundaries.len() as u32
    }

    /// The in-window tool results after the last boundary.
    pub fn tool_results_this_turn(&self) -> u32 {
        match self.boundaries.back() {
            Some(&last) => (self.tools.len() - self.tools.partition_point(|&tool| tool < last)) as u32,
            None => self.tools.len() as u32,
        }
    }

    /// The in-window tool results.
    pub fn tool_results(&self) -> usize {
        self.tools.len()
    }

    /// About what the index keeps, in bytes, besides the entries' records.
    pub fn heap_bytes(&self) -> usize {
        self.form_units * 2
            + self.forms.len() * (std::mem::size_of::<Form>() + std::mem::size_of::<(Rc<[u16]>, u32)>())
            + (self.boundaries.len() + self.tools.len()) * std::mem::size_of::<u64>()
    }
}

/// Removes `id` from an ascending list that holds it. The oldest is the
/// usual case, and costs nothing to find.
fn remove_id(ids: &mut VecDeque<u64>, id: u64) {
    if ids.front() == Some(&id) {
        ids.pop_front();
    } else if let Ok(at) = ids.binary_search(&id) {
        ids.remove(at);
    }
}

#[cfg(test)]
mod tests;
