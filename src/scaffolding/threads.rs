//! The general engine: any registry, every pattern kind, one unit at a time.
//!
//! What it strips is what one regular expression made of the patterns, in
//! registry order, would find in the whole text: the leftmost match, a tie
//! at one start going to the earlier pattern, then the next match after it,
//! and so on. A strip never joins its neighbours into a new match, so the
//! output is the same for every chunking.
//!
//! Every possible match is a *thread*: a pattern, the position where the
//! match would begin, and where the pattern's automaton stands (a literal's
//! matched length, a DFA state, a JSON scanner, ...). Each unit advances
//! the threads in progress and may begin new ones. Threads are kept in
//! order of (start, pattern), so the first thread decides: once it has
//! finished its match, that match is the leftmost one and is stripped,
//! together with every thread that began inside it; while it is still
//! running, everything from its start on is held. Text before the first
//! thread can no longer take part in a match and is released.
//!
//! # Linear time
//!
//! A thread that has finished its match behind one still running waits in
//! its place and costs nothing until it comes first. Threads of one pattern
//! whose automata stand in the same state have the same future, so one
//! automaton, a *run*, carries them all; the later thread is carried, not
//! dropped, because the earlier one may yet lose to a match that ends
//! before the later one begins, and then the later one is the match. A JSON
//! value that begins inside another reads on as the outer one does, so it
//! joins the outer value's run. A unit steps each run once, and the number
//! of runs is bounded by the registry, not by the text; each thread is
//! begun, carried and settled once. So the engine is linear in its input:
//! inside an open span, behind one, in a long JSON value or a nest of them,
//! in a match a regular expression keeps extending. `growth.rs` counts the
//! work on the shapes that once made it grow faster than the input.

use std::collections::{HashMap, VecDeque};

use regex_automata::util::primitives::StateID;

use super::filter::{OpenSpanPolicy, Options, StripLog, StripReason};
use super::json::{self, JsonScan};
use super::regex::{self as re, context_of, Dfa, CONTEXTS, CONTEXT_BYTES};
use super::registry::{Part, Pattern, RegistryError};
use super::scan::find_any;

/// A part of a pattern, compiled.
#[derive(Debug)]
enum Matcher {
    Literal(Vec<u16>),
    Dfa(Box<Dfa>),
}

/// What ends a span: a literal, searched with a failure table, or a DFA of
/// "anything, then the end".
#[derive(Debug)]
enum EndMatcher {
    Literal { units: Vec<u16>, fallback: Vec<usize> },
    Dfa(Box<Dfa>),
}

#[derive(Debug)]
enum Compiled {
    Token(Matcher),
    Span { start: Matcher, end: EndMatcher },
    Json { start: Matcher },
    JsonCall { tool_names: Option<Vec<String>> },
}

/// A registry compiled for the general engine.
#[derive(Debug)]
pub(crate) struct General {
    patterns: Vec<Compiled>,
    /// Per starting context (the unit before, see `regex::context_of`), one
    /// bit per unit: whether a match can begin with it there.
    begins: Box<[[u64; 1024]; CONTEXTS]>,
    /// Per starting context and ASCII unit, the patterns whose match may
    /// begin with it, in registry order; other units look at every pattern.
    ascii_openers: Vec<Vec<Vec<usize>>>,
    /// Whether some regular expression's start depends on the unit before it.
    needs_context: bool,
    has_json_call: bool,
    /// `begins` of every context at once: where a match may begin after
    /// some unit or other, for a first, context-free scan.
    begins_somewhere: Box<[u64; 1024]>,
    /// The same set as a short list, when it has at most [`FEW`] units
    /// (every family's special tokens begin with `<`, `[` or `]`): then the
    /// scan compares eight units at a time (`scan::find_any`). A shorter
    /// list repeats its first unit.
    few_begins: Option<[u16; FEW]>,
    /// Per ASCII unit that may begin a match, what may follow it (see
    /// [`Follows`]); `None` for other units, or with a JSON call.
    follows: Vec<Option<Box<Follows>>>,
}

/// The second and third units a match may have after its first, in some
/// context or other: a quick no for `could_begin`, which tries each
/// pattern in turn. The `<` of `x < y` begins no special token, but a
/// DeepSeek marker may put a space after its `<`: only the third unit
/// tells them apart.
#[derive(Debug)]
struct Follows {
    seconds: Units,
    /// Per ASCII second unit, the third units.
    thirds: Box<[Units; 128]>,
}

/// A set of units: the ASCII ones exactly, any other as one.
#[derive(Clone, Copy, Debug, Default)]
struct Units {
    ascii: u128,
    other: bool,
}

impl Units {
    const ALL: Units = Units { ascii: u128::MAX, other: true };

    fn add(&mut self, unit: u16) {
        match u8::try_from(unit) {
            Ok(byte) if byte < 128 => self.ascii |= 1 << byte,
            _ => self.other = true,
        }
    }

    fn has(self, unit: u16) -> bool {
        match u8::try_from(unit) {
            Ok(byte) if byte < 128 => self.ascii >> byte & 1 == 1,
            _ => self.other,
        }
    }
}

impl Follows {
    fn new() -> Follows {
        Follows { seconds: Units::default(), thirds: Box::new([Units::default(); 128]) }
    }

    /// Adds what may follow `first` in a match of `start`.
    fn add(&mut self, start: &Matcher, first: u8) {
        match start {
            Matcher::Literal(units) => match units[1..] {
                [] => self.allow_all(),
                [second, ..] => {
                    self.seconds.add(second);
                    if let Ok(byte @ 0..=127) = u8::try_from(second) {
                        match units.get(2) {
                            Some(&third) => self.thirds[usize::from(byte)].add(third),
                            None => self.thirds[usize::from(byte)] = Units::ALL,
                        }
                    }
                }
            },
            // As `dfa_could_begin` reads: a match that has ended, or a unit
            // outside ASCII, may begin one; a dead state may not.
            Matcher::Dfa(dfa) => {
                for look_behind in CONTEXT_BYTES {
                    let Some(mut state) = dfa.start(look_behind) else { continue };
                    if dfa.step(&mut state, &[first]) {
                        return self.allow_all();
                    }
                    if dfa.is_dead(state) {
                        continue;
                    }
                    self.seconds.other = true;
                    for second in 0..128u8 {
                        let mut after_second = state;
                        if dfa.step(&mut after_second, &[second]) {
                            self.seconds.add(u16::from(second));
                            self.thirds[usize::from(second)] = Units::ALL;
                            continue;
                        }
                        if dfa.is_dead(after_second) {
                            continue;
                        }
                        self.seconds.add(u16::from(second));
                        let thirds = &mut self.thirds[usize::from(second)];
                        thirds.other = true;
                        for third in 0..128u8 {
                            let mut after_third = after_second;
                            if dfa.step(&mut after_third, &[third]) || !dfa.is_dead(after_third) {
                                thirds.add(u16::from(third));
                            }
                        }
                    }
                }
            }
        }
    }

    fn allow_all(&mut self) {
        self.seconds = Units::ALL;
        self.thirds.fill(Units::ALL);
    }

    /// Whether `rest`, whose first unit this follows, may go on to a match
    /// as far as its next two units show.
    #[inline]
    fn allows(&self, rest: &[u16]) -> bool {
        let Some(&second) = rest.get(1) else { return true };
        if !self.seconds.has(second) {
            return false;
        }
        match (u8::try_from(second), rest.get(2)) {
            (Ok(byte @ 0..=127), Some(&third)) => self.thirds[usize::from(byte)].has(third),
            _ => true,
        }
    }
}

/// The most units [`General::few_begins`] lists.
const FEW: usize = 4;

const CALL_BEGINS: [u16; 3] = [b'{' as u16, b'[' as u16, b'`' as u16];

fn compile_part(part: &Part, entry: usize, name: &str) -> Result<Matcher, RegistryError> {
    match part {
        Part::Literal(units) => Ok(Matcher::Literal(units.clone())),
        Part::Regex(regex) => Dfa::compile(regex, str::to_string)
            .map(|dfa| Matcher::Dfa(Box::new(dfa)))
            .map_err(|reason| RegistryError { entry, reason: format!("its {name}: {reason}") }),
    }
}

/// The failure table of the classic prefix-function search.
fn fallback_of(units: &[u16]) -> Vec<usize> {
    let mut fallback = vec![0; units.len()];
    let mut k = 0;
    for i in 1..units.len() {
        while k > 0 && units[i] != units[k] {
            k = fallback[k - 1];
        }
        if units[i] == units[k] {
            k += 1;
        }
        fallback[i] = k;
    }
    fallback
}

impl Matcher {
    fn may_begin_with(&self, unit: u16, context: usize) -> bool {
        match self {
            Matcher::Literal(units) => units.first() == Some(&unit),
            Matcher::Dfa(dfa) => lead_bytes(unit).any(|byte| dfa.may_begin_with(byte, context)),
        }
    }

    /// Marks in `bits` every unit a match may begin with after a unit of
    /// `context`: a literal's first unit, or every unit whose code point's
    /// UTF-8 begins with a byte the DFA accepts first (so the work is per
    /// byte, not per unit).
    fn mark_begins(&self, context: usize, bits: &mut [u64; 1024]) {
        let mut mark = |from: u32, to: u32| {
            for unit in from..to {
                bits[unit as usize / 64] |= 1 << (unit % 64);
            }
        };
        match self {
            Matcher::Literal(units) => mark(u32::from(units[0]), u32::from(units[0]) + 1),
            Matcher::Dfa(dfa) => {
                for byte in 0..=255u8 {
                    if !dfa.may_begin_with(byte, context) {
                        continue;
                    }
                    let lead = u32::from(byte);
                    match byte {
                        0x00..=0x7F => mark(lead, lead + 1),
                        0xC2..=0xDF => mark((lead & 0x1F) << 6, ((lead & 0x1F) << 6) + 64),
                        // Three-byte code points, less the surrogates, which
                        // alone read as U+FFFD (lead EF).
                        0xE0..=0xEF => {
                            let from = ((lead & 0x0F) << 12).max(0x800);
                            let to = ((lead & 0x0F) << 12) + 0x1000;
                            mark(from, to.min(0xD800).max(from));
                            mark(from.max(0xE000), to.max(from.max(0xE000)));
                            if byte == 0xEF {
                                mark(0xD800, 0xE000);
                            }
                        }
                        // A high surrogate begins an astral code point.
                        0xF0..=0xF4 => mark(0xD800, 0xDC00),
                        _ => {}
                    }
                }
            }
        }
    }

    fn needs_context(&self) -> bool {
        matches!(self, Matcher::Dfa(dfa) if dfa.needs_context())
    }
}

/// How far [`General::could_begin`] runs a regular expression ahead.
const LOOK_AHEAD: usize = 64;

/// Whether `dfa`, started after `previous`, is still alive (or has matched)
/// after the ASCII units at the start of `rest`.
fn dfa_could_begin(dfa: &Dfa, rest: &[u16], previous: Option<u16>) -> bool {
    let Some(mut state) = dfa.start(re::look_behind(previous)) else { return false };
    for &unit in rest.iter().take(LOOK_AHEAD) {
        let Ok(byte) = u8::try_from(unit) else { return true };
        if !byte.is_ascii() {
            return true;
        }
        if dfa.step(&mut state, &[byte]) {
            return true;
        }
        if dfa.is_dead(state) {
            return false;
        }
    }
    true
}

/// The first UTF-8 byte a DFA may see for a code point beginning with
/// `unit`: a high surrogate begins an astral code point (lead bytes F0-F4)
/// or, alone, U+FFFD (EF), as does a lone low surrogate.
fn lead_bytes(unit: u16) -> impl Iterator<Item = u8> {
    let (first, count): (u8, u8) = match unit {
        0..=0x7F => (unit as u8, 1),
        0x80..=0x7FF => (0xC0 | (unit >> 6) as u8, 1),
        0xD800..=0xDBFF => (0xEF, 6),
        0xDC00..=0xDFFF => (0xEF, 1),
        _ => (0xE0 | (unit >> 12) as u8, 1),
    };
    // EF, then F0 to F4 for a high surrogate.
    (0..count).map(move |k| if k == 0 { first } else { 0xEF + k })
}

impl General {
    pub(crate) fn new(patterns: &[Pattern]) -> Result<Self, RegistryError> {
        let mut compiled = Vec::with_capacity(patterns.len());
        for (entry, pattern) in patterns.iter().enumerate() {
            compiled.push(match pattern {
                Pattern::Span { start, end } => Compiled::Span {
                    start: Matcher::Literal(start.clone()),
                    end: EndMatcher::Literal { units: end.clone(), fallback: fallback_of(end) },
                },
                Pattern::Token { literal } => Compiled::Token(Matcher::Literal(literal.clone())),
                Pattern::Regex { regex } => {
                    Compiled::Token(compile_part(&Part::Regex(regex.clone()), entry, "regex")?)
                }
                Pattern::RegexSpan { start, end } => Compiled::Span {
                    start: compile_part(start, entry, "start")?,
                    end: match end {
                        Part::Literal(units) => {
                            EndMatcher::Literal { units: units.clone(), fallback: fallback_of(units) }
                        }
                        Part::Regex(regex) => EndMatcher::Dfa(Box::new(
                            Dfa::compile(regex, |source| format!("(?s:.)*?(?:{source})")).map_err(
                                |reason| RegistryError { entry, reason: format!("its end: {reason}") },
                            )?,
                        )),
                    },
                },
                Pattern::Json { start } => Compiled::Json { start: compile_part(start, entry, "start")? },
                Pattern::JsonCall { tool_names } => Compiled::JsonCall { tool_names: tool_names.clone() },
            });
        }
        let mut begins = Box::new([[0u64; 1024]; CONTEXTS]);
        for (context, bits) in begins.iter_mut().enumerate() {
            for pattern in &compiled {
                match pattern {
                    Compiled::Token(start) | Compiled::Span { start, .. } | Compiled::Json { start } => {
                        start.mark_begins(context, bits)
                    }
                    // A call begins a line (contexts 0 to 2: the start, after
                    // a line feed or a carriage return).
                    Compiled::JsonCall { .. } if context <= 2 => {
                        for unit in CALL_BEGINS {
                            bits[usize::from(unit) / 64] |= 1 << (unit % 64);
                        }
                    }
                    Compiled::JsonCall { .. } => {}
                }
            }
        }
        let needs_context = compiled.iter().any(|pattern| match pattern {
            Compiled::Token(start) | Compiled::Span { start, .. } | Compiled::Json { start } => {
                start.needs_context()
            }
            Compiled::JsonCall { .. } => false,
        });
        let has_json_call = compiled.iter().any(|pattern| matches!(pattern, Compiled::JsonCall { .. }));
        let ascii_openers = (0..CONTEXTS)
            .map(|context| {
                (0..128u16)
                    .map(|unit| {
                        (0..compiled.len())
                            .filter(|&index| match &compiled[index] {
                                Compiled::Token(start)
                                | Compiled::Span { start, .. }
                                | Compiled::Json { start } => start.may_begin_with(unit, context),
                                // Where a call may begin is decided by the caller
                                // (a line start, or right after another call).
                                Compiled::JsonCall { .. } => CALL_BEGINS.contains(&unit),
                            })
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let mut begins_somewhere = Box::new([0u64; 1024]);
        for bits in begins.iter() {
            for (word, other) in begins_somewhere.iter_mut().zip(bits.iter()) {
                *word |= other;
            }
        }
        let listed: Vec<u16> = (0..=u16::MAX)
            .filter(|&unit| begins_somewhere[usize::from(unit) / 64] >> (unit % 64) & 1 == 1)
            .take(FEW + 1)
            .collect();
        let few_begins = match listed[..] {
            [] => None,
            [first, ..] if listed.len() <= FEW => {
                Some(std::array::from_fn(|index| listed.get(index).copied().unwrap_or(first)))
            }
            _ => None,
        };
        let follows = (0..128u8)
            .map(|first| {
                if has_json_call
                    || !(0..CONTEXTS).any(|context| begins_at(&begins, u16::from(first), context))
                {
                    return None;
                }
                let mut follows = Follows::new();
                for pattern in &compiled {
                    if let Compiled::Token(start) | Compiled::Span { start, .. } | Compiled::Json { start } =
                        pattern
                    {
                        if (0..CONTEXTS).any(|context| start.may_begin_with(u16::from(first), context)) {
                            follows.add(start, first);
                        }
                    }
                }
                Some(Box::new(follows))
            })
            .collect();
        Ok(General {
            patterns: compiled,
            begins,
            ascii_openers,
            needs_context,
            has_json_call,
            begins_somewhere,
            few_begins,
            follows,
        })
    }

    #[inline]
    fn begins_somewhere(&self, unit: u16) -> bool {
        self.begins_somewhere[usize::from(unit) / 64] >> (unit % 64) & 1 == 1
    }

    #[inline]
    fn begins(&self, unit: u16, context: usize) -> bool {
        begins_at(&self.begins, unit, context)
    }

    /// Whether a thread may begin at a unit, given the unit before it.
    #[inline]
    fn may_begin(&self, unit: u16, previous: Option<u16>) -> bool {
        self.begins(unit, context_of(previous))
    }

    /// Whether some pattern could begin a match at the start of `rest`,
    /// given the unit before it, as far as `rest` shows: a literal start
    /// must agree with `rest` on the units both have, a regular expression's
    /// start must not die within them (up to [`LOOK_AHEAD`] units). Yes
    /// whenever it is not sure (a JSON call, a unit outside ASCII, a
    /// surrogate). It lets the feed release a unit such as the `<` of
    /// `x < y` without starting a thread per pattern.
    fn could_begin(&self, rest: &[u16], previous: Option<u16>) -> bool {
        self.follows_allow(rest) && self.could_begin_exactly(rest, previous)
    }

    /// What [`Follows`] says of `rest`: no only where `could_begin_exactly`
    /// says no in every context.
    #[inline]
    fn follows_allow(&self, rest: &[u16]) -> bool {
        match self.follows.get(usize::from(rest[0])) {
            Some(Some(follows)) => follows.allows(rest),
            _ => true,
        }
    }

    fn could_begin_exactly(&self, rest: &[u16], previous: Option<u16>) -> bool {
        let context = context_of(previous);
        let Some(openers) = self.ascii_openers[context].get(usize::from(rest[0])) else {
            return true;
        };
        openers.iter().any(|&pattern| match &self.patterns[pattern] {
            Compiled::Token(start) | Compiled::Span { start, .. } | Compiled::Json { start } => match start {
                // (Unit by unit: most literals differ from prose at their
                // second unit, sooner than a slice compare is set up.)
                Matcher::Literal(units) => units.iter().zip(rest).all(|(unit, shown)| unit == shown),
                Matcher::Dfa(dfa) => dfa_could_begin(dfa, rest, previous),
            },
            Compiled::JsonCall { .. } => true,
        })
    }

    /// The units a match can begin with, when that set alone decides (see
    /// `Registry::start_units`): not with a JSON call, whose start depends
    /// on the unit before it, nor with a regular expression that looks
    /// behind, nor when the set is large.
    pub(crate) fn start_units(&self) -> Option<Vec<u16>> {
        if self.has_json_call || self.needs_context {
            return None;
        }
        // Without context, every context has the same bits; read them a
        // word at a time.
        let mut units = Vec::new();
        for (index, &word) in self.begins[0].iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                units.push((index * 64) as u16 + bits.trailing_zeros() as u16);
                bits &= bits - 1;
                if units.len() > 256 {
                    return None;
                }
            }
        }
        Some(units)
    }
}

fn begins_at(begins: &[[u64; 1024]; CONTEXTS], unit: u16, context: usize) -> bool {
    begins[context][usize::from(unit) / 64] >> (unit % 64) & 1 == 1
}

fn at_line_start(previous: Option<u16>) -> bool {
    matches!(previous, None | Some(0x0A) | Some(0x0D))
}

fn is_high(unit: u16) -> bool {
    (0xD800..0xDC00).contains(&unit)
}

fn is_low(unit: u16) -> bool {
    (0xDC00..0xE000).contains(&unit)
}

/// A DFA fed one code point at a time from UTF-16 units (a high surrogate
/// waits for the unit after it), shared by the threads of its pattern that
/// stand in one state.
///
/// Those threads differ only in the match each falls back on if the run
/// finds no longer one: a thread keeps its own ([`Member::pending`]), and
/// every match the run finds from the thread's [`Member::since`] on
/// replaces it. Whether the threads have a match to fall back on is the
/// same for all of them (`pending`), because it decides when the run is
/// over.
#[derive(Clone, Debug)]
struct DfaRun {
    state: StateID,
    /// A high surrogate read but not yet fed, and its position.
    high: Option<(u16, usize)>,
    pending: bool,
    /// The latest match the run found: where it ends, and the unit that
    /// showed it.
    latest: Option<(usize, usize)>,
}

/// What a DFA run says after a unit.
enum DfaSays {
    Going,
    /// No longer match can come: each thread ends at the match it falls
    /// back on, if it has one.
    Over,
    /// Every thread's match ends here, whatever follows.
    EndsAt(usize),
}

impl DfaRun {
    fn new(dfa: &Dfa, previous: Option<u16>) -> Option<Self> {
        let state = dfa.start(re::look_behind(previous))?;
        Some(DfaRun { state, high: None, pending: false, latest: None })
    }

    /// Feeds the unit at `at`.
    fn push(&mut self, dfa: &Dfa, unit: u16, at: usize) -> DfaSays {
        let mut buffer = [0u8; 4];
        if let Some((high, high_at)) = self.high.take() {
            if is_low(unit) {
                let code_point = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                return self.feed(dfa, re::utf8(code_point, &mut buffer), high_at, at + 1, at);
            }
            if let said @ (DfaSays::Over | DfaSays::EndsAt(_)) =
                self.feed(dfa, re::utf8(0xFFFD, &mut buffer), high_at, at, at)
            {
                return said;
            }
        }
        if is_high(unit) {
            self.high = Some((unit, at));
            return DfaSays::Going;
        }
        self.feed(dfa, re::utf8(u32::from(unit), &mut buffer), at, at + 1, at)
    }

    /// Feeds one code point that spans `[from, to)`, read at unit `at`.
    fn feed(&mut self, dfa: &Dfa, bytes: &[u8], from: usize, to: usize, at: usize) -> DfaSays {
        if dfa.step(&mut self.state, bytes) {
            self.pending = true;
            self.latest = Some((from, at));
        }
        if dfa.is_dead(self.state) || (self.pending && dfa.is_spent(self.state)) {
            return DfaSays::Over;
        }
        if dfa.ends_here(self.state) {
            return DfaSays::EndsAt(to);
        }
        DfaSays::Going
    }

    /// The end of the text, at `end`.
    fn finish(&mut self, dfa: &Dfa, end: usize) -> DfaSays {
        if let Some((_, high_at)) = self.high.take() {
            let mut buffer = [0u8; 4];
            if let said @ (DfaSays::Over | DfaSays::EndsAt(_)) =
                self.feed(dfa, re::utf8(0xFFFD, &mut buffer), high_at, end, end)
            {
                return said;
            }
        }
        if dfa.matches_at_end(self.state) {
            return DfaSays::EndsAt(end);
        }
        DfaSays::Over
    }

    /// Where `member`'s match ends if the run finds no longer one.
    fn fallback(&self, member: &Member) -> Option<usize> {
        match self.latest {
            Some((end, found)) if found >= member.since => Some(end),
            _ => member.pending,
        }
    }

    /// Whether two runs have one future: one state, the same surrogate
    /// waiting, and a match to fall back on for both or neither.
    fn same_future(&self, other: &DfaRun) -> bool {
        self.state == other.state
            && self.high.map(|high| high.0) == other.high.map(|high| high.0)
            && self.pending == other.pending
    }
}

/// Where a JSON call stands outside its value (inside it, the call's
/// thread is on a [`Step::CallValue`] run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CallPhase {
    /// Spaces or tabs at the start of the line.
    Indent,
    /// `n` backticks of a fence.
    Ticks(u8),
    /// `n` letters of the fence's `json`.
    Language(u8),
    /// The rest of the fence's line.
    FenceLine,
    /// After a fenced value: `n` backticks of the closing fence.
    Closing(u8),
    /// After the call, which ends at `end`: the rest of its line must be
    /// blank, or begin another call.
    Trailing { end: usize },
}

/// Where the automaton of one run stands.
#[derive(Clone, Debug)]
enum Step {
    /// Inside a literal part (a token or a start): `matched` units so far.
    /// Never shared: a literal's state says where it began.
    Literal { matched: usize },
    /// Inside a regular-expression part (a token or a start).
    Dfa(DfaRun),
    /// A span's start is complete; looking for a literal end, `matched`
    /// units of it so far.
    EndLiteral { matched: usize },
    /// A span's start is complete; running "anything, then the end".
    EndDfa(DfaRun),
    /// A JSON pattern's start is complete; scanning the value.
    Json(JsonScan),
    /// A bare JSON call before or after its value. Never shared.
    Call(CallPhase),
    /// A bare JSON call's value.
    CallValue(Box<CallValue>),
}

/// The value of a bare JSON call, scanned once for all the calls on its
/// run (a call that begins inside another's value joins it), with what
/// their shape checks need to read each unit a bounded number of times.
#[derive(Clone, Debug)]
struct CallValue {
    scan: JsonScan,
    /// Where each open container begins, outermost first.
    opens: Vec<usize>,
    /// Where a closed container ends (one past its last unit), by where it
    /// begins: those deep enough below some call's value that its shape
    /// check skips them (see `json::is_scanned_tool_call`).
    ends: HashMap<usize, usize>,
}

impl Step {
    /// Whether the match's opening part is complete, so that an unclosed
    /// match is an open span (which `openSpanAtEnd` and `maxHeld` settle).
    fn is_open(&self) -> bool {
        matches!(self, Step::EndLiteral { .. } | Step::EndDfa(_) | Step::Json(_))
    }

    /// Whether two runs of one pattern have one future, so that one run
    /// can carry the threads of both.
    fn same_future(&self, other: &Step) -> bool {
        match (self, other) {
            (Step::Dfa(a), Step::Dfa(b)) | (Step::EndDfa(a), Step::EndDfa(b)) => a.same_future(b),
            (Step::EndLiteral { matched: a }, Step::EndLiteral { matched: b }) => a == b,
            (Step::Json(a), Step::Json(b)) => a == b,
            (Step::CallValue(a), Step::CallValue(b)) => a.scan == b.scan,
            _ => false,
        }
    }

    /// The scan of a JSON run.
    fn scan(&self) -> Option<&JsonScan> {
        match self {
            Step::Json(scan) => Some(scan),
            Step::CallValue(value) => Some(&value.scan),
            _ => None,
        }
    }
}

/// One thread on a run: a possible match, and what it keeps apart from
/// the run's automaton.
#[derive(Clone, Copy, Debug)]
struct Member {
    /// Its place in the order of matches (see [`Threads::slots`]).
    slot: usize,
    /// On a DFA run: the match it falls back on, unless the run finds one
    /// at unit `since` or later.
    pending: Option<usize>,
    since: usize,
    /// On a JSON run: how many of the run's containers were open before
    /// its value began. Its value ends when the run's depth is back to it.
    base: usize,
    /// For a JSON call: where its value's text begins, and whether a fence
    /// must close it.
    value_from: usize,
    fenced: bool,
    /// For a JSON call, under `openSpanAtEnd: 'drop'`: whether its value
    /// already shows a call (as `json::shows_tool_call` would say of it),
    /// for the flush to read if the value never closes.
    shows_call: bool,
}

impl Member {
    fn new(slot: usize, at: usize) -> Self {
        Member { slot, pending: None, since: at, base: 0, value_from: at, fenced: false, shows_call: false }
    }
}

/// An automaton in progress and the threads on it, in the order of their
/// slots (on a JSON run, also the order of their bases).
///
/// Threads of one pattern whose automata stand in the same state have the
/// same future, so one run carries them all and a unit costs one step
/// however many they are. Each keeps its own place in the order, so what
/// is stripped is what stepping each thread on its own would strip.
#[derive(Debug)]
struct Run {
    pattern: usize,
    step: Step,
    members: Members,
}

/// The threads on a run. Most runs carry one (threads begin on most units
/// of an open span, and most end within a few), which is kept without a
/// queue of its own.
#[derive(Debug, Default)]
enum Members {
    #[default]
    None,
    One(Member),
    Many(VecDeque<Member>),
}

impl Members {
    fn slices(&self) -> (&[Member], &[Member]) {
        match self {
            Members::None => (&[], &[]),
            Members::One(member) => (std::slice::from_ref(member), &[]),
            Members::Many(queue) => queue.as_slices(),
        }
    }

    fn iter(&self) -> impl DoubleEndedIterator<Item = &Member> {
        let (first, second) = self.slices();
        first.iter().chain(second)
    }

    fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut Member> {
        let (first, second): (&mut [Member], &mut [Member]) = match self {
            Members::None => (&mut [], &mut []),
            Members::One(member) => (std::slice::from_mut(member), &mut []),
            Members::Many(queue) => queue.as_mut_slices(),
        };
        first.iter_mut().chain(second)
    }

    fn len(&self) -> usize {
        match self {
            Members::None => 0,
            Members::One(_) => 1,
            Members::Many(queue) => queue.len(),
        }
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn front(&self) -> Option<&Member> {
        self.iter().next()
    }

    fn back(&self) -> Option<&Member> {
        self.iter().next_back()
    }

    fn pop_front(&mut self) -> Option<Member> {
        match self {
            Members::Many(queue) => queue.pop_front(),
            _ => match std::mem::take(self) {
                Members::One(member) => Some(member),
                _ => None,
            },
        }
    }

    fn pop_back(&mut self) -> Option<Member> {
        match self {
            Members::Many(queue) => queue.pop_back(),
            _ => self.pop_front(),
        }
    }

    fn push_back(&mut self, member: Member) {
        match self {
            Members::None => *self = Members::One(member),
            Members::One(first) => *self = Members::Many(VecDeque::from([*first, member])),
            Members::Many(queue) => queue.push_back(member),
        }
    }
}

/// What a unit did to a run.
enum Says {
    Going,
    /// Every thread on the run is done; the matches end at `end`.
    Done(usize),
    /// No thread on the run can match.
    Dead,
    /// A DFA part is over: each thread ends at the match it falls back on.
    FallBack,
    /// A regular-expression start is over: each thread goes on to the rest
    /// of its pattern from where its start ended (all from `Some(end)`,
    /// else each from the match it falls back on).
    Opened(Option<usize>),
    /// The unit closed a JSON container, which began at `opened` (calls
    /// only): the threads whose value it was are done.
    Closed {
        opened: usize,
    },
    /// A JSON call's value begins (the run is now on it), at `from`.
    Value {
        from: usize,
        fenced: bool,
    },
}

/// What follows a pattern's opening part.
enum Next {
    Step(Step),
    Done(usize),
    Dead,
}

/// The step after a pattern's opening part, which ended at `end` (the unit
/// before it was `before`): a token is done, a span looks for its end, a
/// JSON pattern scans its value.
fn opened(compiled: &Compiled, end: usize, before: Option<u16>) -> Next {
    match compiled {
        Compiled::Span { end: EndMatcher::Literal { .. }, .. } => Next::Step(Step::EndLiteral { matched: 0 }),
        Compiled::Span { end: EndMatcher::Dfa(dfa), .. } => match DfaRun::new(dfa, before) {
            Some(run) => Next::Step(Step::EndDfa(run)),
            None => Next::Dead,
        },
        Compiled::Json { .. } => Next::Step(Step::Json(JsonScan::new())),
        Compiled::Token(_) | Compiled::JsonCall { .. } => Next::Done(end),
    }
}

/// Advances a run's automaton over the unit at `at`.
fn advance_step(step: &mut Step, compiled: &Compiled, unit: u16, at: usize) -> Says {
    let next = match (&mut *step, compiled) {
        (
            Step::Literal { matched },
            Compiled::Token(Matcher::Literal(units))
            | Compiled::Span { start: Matcher::Literal(units), .. }
            | Compiled::Json { start: Matcher::Literal(units) },
        ) => {
            if units.get(*matched) != Some(&unit) {
                return Says::Dead;
            }
            *matched += 1;
            if *matched < units.len() {
                return Says::Going;
            }
            match opened(compiled, at + 1, Some(unit)) {
                Next::Step(next) => next,
                Next::Done(end) => return Says::Done(end),
                Next::Dead => return Says::Dead,
            }
        }
        (Step::Dfa(run), Compiled::Token(Matcher::Dfa(dfa))) => {
            return match run.push(dfa, unit, at) {
                DfaSays::Going => Says::Going,
                DfaSays::Over => Says::FallBack,
                DfaSays::EndsAt(end) => Says::Done(end),
            };
        }
        (
            Step::Dfa(run),
            Compiled::Span { start: Matcher::Dfa(dfa), .. } | Compiled::Json { start: Matcher::Dfa(dfa) },
        ) => {
            // (A DFA sees a match end one code point late, so the start may
            // have ended before this unit: the rest reads on from there.)
            return match run.push(dfa, unit, at) {
                DfaSays::Going => Says::Going,
                DfaSays::Over => Says::Opened(None),
                DfaSays::EndsAt(end) => Says::Opened(Some(end)),
            };
        }
        (
            Step::EndLiteral { matched },
            Compiled::Span { end: EndMatcher::Literal { units, fallback }, .. },
        ) => {
            let mut k = *matched;
            while k > 0 && units[k] != unit {
                k = fallback[k - 1];
            }
            if units[k] == unit {
                k += 1;
            }
            if k == units.len() {
                return Says::Done(at + 1);
            }
            *matched = k;
            return Says::Going;
        }
        (Step::EndDfa(run), Compiled::Span { end: EndMatcher::Dfa(dfa), .. }) => {
            return match run.push(dfa, unit, at) {
                DfaSays::Going => Says::Going,
                DfaSays::Over => Says::FallBack,
                DfaSays::EndsAt(end) => Says::Done(end),
            };
        }
        (Step::Json(scan), _) => {
            let depth = scan.depth();
            return match scan.step(unit) {
                json::Step::Invalid => Says::Dead,
                _ if scan.depth() < depth => Says::Closed { opened: 0 },
                _ => Says::Going,
            };
        }
        (Step::CallValue(value), _) => {
            let depth = value.scan.depth();
            if value.scan.step(unit) == json::Step::Invalid {
                return Says::Dead;
            }
            if value.scan.depth() > depth {
                value.opens.push(at);
            } else if value.scan.depth() < depth {
                return Says::Closed { opened: value.opens.pop().unwrap_or(at) };
            }
            return Says::Going;
        }
        (Step::Call(phase), _) => match advance_call(*phase, unit, at) {
            CallNext::Phase(next) => {
                *phase = next;
                return Says::Going;
            }
            CallNext::Value { scan, from, fenced } => {
                // (A value that opened on this unit opened here.)
                let opens = if scan.depth() > 0 { vec![at] } else { Vec::new() };
                *step = Step::CallValue(Box::new(CallValue { scan, opens, ends: HashMap::new() }));
                return Says::Value { from, fenced };
            }
            CallNext::Done(end) => return Says::Done(end),
            CallNext::Dead => return Says::Dead,
        },
        _ => return Says::Dead,
    };
    *step = next;
    Says::Going
}

/// What one unit makes of a JSON call outside its value.
enum CallNext {
    Phase(CallPhase),
    /// The value begins at `from`; `scan` has read what of it the unit is.
    Value {
        scan: JsonScan,
        from: usize,
        fenced: bool,
    },
    Done(usize),
    Dead,
}

/// Advances a JSON call outside its value over the unit at `at`.
fn advance_call(phase: CallPhase, unit: u16, at: usize) -> CallNext {
    const SPACE: u16 = b' ' as u16;
    const TAB: u16 = b'\t' as u16;
    const LF: u16 = b'\n' as u16;
    const CR: u16 = b'\r' as u16;
    const TICK: u16 = b'`' as u16;
    let is = |c: u8| unit == u16::from(c) || unit == u16::from(c.to_ascii_uppercase());
    let fence_opened = || CallNext::Value { scan: JsonScan::new(), from: at + 1, fenced: true };
    CallNext::Phase(match phase {
        // A call begins its line: an indented object is a value nested in
        // something larger (a payload example, a config), which every
        // reported bare call shows at the start of its line.
        CallPhase::Indent => match unit {
            TICK => CallPhase::Ticks(1),
            _ if unit == u16::from(b'{') || unit == u16::from(b'[') => {
                let mut scan = JsonScan::new();
                if scan.step(unit) != json::Step::More {
                    return CallNext::Dead;
                }
                return CallNext::Value { scan, from: at, fenced: false };
            }
            _ => return CallNext::Dead,
        },
        CallPhase::Ticks(n) if n < 3 => match unit {
            TICK => CallPhase::Ticks(n + 1),
            _ => return CallNext::Dead,
        },
        CallPhase::Ticks(_) => match unit {
            SPACE | TAB | CR => CallPhase::FenceLine,
            LF => return fence_opened(),
            _ if is(b'j') => CallPhase::Language(1),
            _ => return CallNext::Dead,
        },
        CallPhase::Language(n) if n < 4 => {
            if !is(b"json"[usize::from(n)]) {
                return CallNext::Dead;
            }
            CallPhase::Language(n + 1)
        }
        CallPhase::Language(_) | CallPhase::FenceLine => match unit {
            SPACE | TAB | CR => CallPhase::FenceLine,
            LF => return fence_opened(),
            _ => return CallNext::Dead,
        },
        CallPhase::Closing(n) => match unit {
            SPACE | TAB | CR | LF if n == 0 => CallPhase::Closing(0),
            TICK if n == 2 => CallPhase::Trailing { end: at + 1 },
            TICK => CallPhase::Closing(n + 1),
            _ => return CallNext::Dead,
        },
        CallPhase::Trailing { end } => match unit {
            SPACE | TAB => CallPhase::Trailing { end },
            // The line ends: the call stood on its own.
            LF | CR => return CallNext::Done(end),
            // Another call follows on the same line.
            _ if unit == u16::from(b'{') || unit == u16::from(b'[') => return CallNext::Done(end),
            _ => return CallNext::Dead,
        },
    })
}

/// One possible match, in the order of matches.
#[derive(Clone, Copy, Debug)]
struct Slot {
    start: usize,
    pattern: usize,
    state: SlotState,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlotState {
    /// Its thread is on a run.
    Running,
    /// Complete, ending at `end`; stripped once it comes first.
    Done { end: usize },
    /// No match: dropped once it comes first, or with others when they are
    /// many.
    Gone,
    /// At the flush: a match the end left unclosed, and whether it may be
    /// dropped as a call (any open span; a JSON call cut off inside its
    /// value only when what came of the value already shows a call, since
    /// a JSON answer cut off by a token limit is the answer's own text).
    Unclosed { is_call: bool },
}

/// Above this capacity, the buffer is given back once it is small again.
const KEEP_CAPACITY: usize = 4096;

/// How many empty queues of ended runs are kept, and how large a queue may
/// be to be kept.
const SPARE_QUEUES: usize = 64;
const SPARE_CAPACITY: usize = 64;

/// Gone slots are dropped from among the others once there are this many,
/// and as many as the others.
const GONE_TO_DROP: usize = 256;

/// The general engine's state. Positions are counted in units from the
/// start of the stream.
///
/// Every possible match is a *thread* with a *slot* in `slots`: the slots
/// are in order of (start, pattern), because a thread begins at the unit
/// it starts at and the patterns are tried in order, so no slot is ever
/// inserted. The first slot decides: once complete, its match is the
/// leftmost one and is stripped, with every slot that began inside it;
/// while it runs, everything from its start on is held. A complete match
/// behind a running one waits in its slot and costs nothing per unit.
///
/// The threads' automata are *runs*, each carrying the threads that stand
/// in one state, so a unit steps each run once. How many runs there are at
/// once is bounded by the registry, not the text: per pattern, one for each
/// state of its automaton (a literal start's, a DFA's, a span end's) and,
/// for JSON, one for the values read outside strings and one for those read
/// inside them, since a value that begins inside another joins its run
/// (whether a scan is inside a string is the same for two scans, or the
/// opposite, for as long as both live).
#[derive(Debug, Default)]
pub(crate) struct Threads {
    /// The units read from `base` on. Those before `decided` are released
    /// or stripped already; they are dropped from the buffer once per feed,
    /// not once per unit.
    held: Vec<u16>,
    base: usize,
    decided: usize,
    /// Every possible match not yet stripped or dropped, in order; each
    /// starts at or after `decided`. `slots[i]` is slot `first_slot + i`.
    slots: VecDeque<Slot>,
    first_slot: usize,
    /// How many slots are gone but still in `slots`.
    gone: usize,
    /// The automata in progress, in no order; every running slot is on
    /// exactly one.
    runs: Vec<Run>,
    /// Scratch for `gather`, kept for its allocations: by pattern, and by
    /// run.
    last_of: Vec<usize>,
    previous_of: Vec<usize>,
    /// Empty queues of ended runs, for runs that come to carry more than
    /// one thread.
    spare_members: Vec<VecDeque<Member>>,
    /// The unit before the next one, in the text as given.
    previous: Option<u16>,
    /// Where a JSON call may begin although no line does: right after
    /// another call on the same line (`{…} {…}`).
    call_may_begin_at: Option<usize>,
    /// Whether an unclosed span is dropped at the end (the options'
    /// policy): then JSON calls note whether their values show a call.
    drop_unclosed: bool,
    /// Units read, runs stepped and compared, threads moved and settled
    /// (tests only).
    #[cfg(test)]
    pub(crate) work: u64,
}

impl Threads {
    /// The text not yet released or stripped.
    pub(crate) fn held(&self) -> &[u16] {
        &self.held[self.decided - self.base..]
    }

    pub(crate) fn is_span_open(&self) -> bool {
        self.runs.iter().any(|run| run.step.is_open())
    }

    pub(crate) fn is_idle(&self) -> bool {
        self.runs.is_empty() && self.slots.is_empty() && self.held().is_empty()
    }

    /// How many units at the start of `rest` (what is left of the chunk,
    /// with nothing under way) begin no match: a context-free scan for a
    /// unit that may begin one somewhere, then the exact test there.
    fn next_begin(&self, general: &General, rest: &[u16]) -> usize {
        let mut offset = 0;
        loop {
            let found = match &general.few_begins {
                Some(units) => find_any(&rest[offset..], *units),
                None => rest[offset..].iter().position(|&unit| general.begins_somewhere(unit)),
            };
            match found {
                None => return rest.len(),
                Some(found) => offset += found,
            }
            let previous = if offset == 0 { self.previous } else { Some(rest[offset - 1]) };
            if general.may_begin(rest[offset], previous)
                && (self.call_may_begin_at == Some(self.base + self.held.len() + offset)
                    || general.could_begin(&rest[offset..], previous))
            {
                return offset;
            }
            offset += 1;
        }
    }

    /// Feeds `chunk`, appending what can be released to `out`.
    pub(crate) fn feed(
        &mut self,
        general: &General,
        options: Options,
        log: &mut StripLog,
        chunk: &[u16],
        out: &mut Vec<u16>,
    ) {
        self.drop_unclosed = options.open_span_at_end == OpenSpanPolicy::Drop;
        let mut read = 0;
        while read < chunk.len() {
            if self.slots.is_empty() {
                // Nothing is under way: release everything up to the next
                // unit that may begin a match, without looking further.
                let skip = self.next_begin(general, &chunk[read..]);
                count_work!(self.work, skip + 1);
                if skip > 0 {
                    let to = self.base + self.held.len();
                    self.release_to(to, out);
                    out.extend_from_slice(&chunk[read..read + skip]);
                    self.held.clear();
                    self.base = to + skip;
                    self.decided = self.base;
                    read += skip;
                    self.previous = Some(chunk[read - 1]);
                    continue;
                }
            }
            self.push(general, log, chunk[read], out);
            read += 1;
        }
        let end = self.base + self.held.len();
        let hold = self.first().map_or(end, |slot| slot.start);
        self.release_to(hold, out);
        if let Some(most) = options.max_held {
            if end - hold > most.get() {
                self.settle(options, log, StripReason::MaxHeld, out);
            }
        }
        self.compact();
    }

    /// Ends the stream: every match that the end completes is stripped, an
    /// open span is settled by the policy, the rest is released. The next
    /// feed begins a new stream.
    pub(crate) fn flush(
        &mut self,
        general: &General,
        options: Options,
        log: &mut StripLog,
        out: &mut Vec<u16>,
    ) {
        let end = self.base + self.held.len();
        let runs = std::mem::take(&mut self.runs);
        for run in runs {
            self.finish(general, run, end);
        }
        while let Some(&Slot { start, pattern, state }) = self.first() {
            count_work!(self.work, 1);
            match state {
                SlotState::Done { end } => self.strip(pattern, start, end, StripReason::Match, log, out),
                SlotState::Unclosed { is_call: true } if options.open_span_at_end == OpenSpanPolicy::Drop => {
                    self.strip(pattern, start, end, StripReason::UnclosedAtEnd, log, out);
                }
                _ => self.drop_first(),
            }
        }
        self.release_to(end, out);
        self.compact();
        self.previous = None;
    }

    /// Settles the threads of one run at the end of the text, `end`: what
    /// the end completes is done, what it leaves open is unclosed, the rest
    /// is gone.
    fn finish(&mut self, general: &General, mut run: Run, end: usize) {
        count_work!(self.work, 1 + run.members.len());
        let compiled = &general.patterns[run.pattern];
        let unclosed = SlotState::Unclosed { is_call: true };
        match (&mut run.step, compiled) {
            (Step::Dfa(dfa_run), Compiled::Token(Matcher::Dfa(dfa)))
            | (Step::EndDfa(dfa_run), Compiled::Span { end: EndMatcher::Dfa(dfa), .. }) => {
                let says = dfa_run.finish(dfa, end);
                // With no match, a token is text and a span's end unclosed.
                let none = if matches!(compiled, Compiled::Span { .. }) { unclosed } else { SlotState::Gone };
                for member in run.members.iter() {
                    let state = match says {
                        DfaSays::EndsAt(at) => SlotState::Done { end: at },
                        _ => dfa_run.fallback(member).map_or(none, |at| SlotState::Done { end: at }),
                    };
                    self.set(member.slot, state);
                }
            }
            // A start that the end completes opens a span that nothing can
            // close.
            (
                Step::Dfa(dfa_run),
                Compiled::Span { start: Matcher::Dfa(dfa), .. } | Compiled::Json { start: Matcher::Dfa(dfa) },
            ) => {
                let says = dfa_run.finish(dfa, end);
                for member in run.members.iter() {
                    let opening = match says {
                        DfaSays::EndsAt(at) => Some(at),
                        _ => dfa_run.fallback(member),
                    };
                    let state = match opening.map(|at| opened(compiled, at, None)) {
                        Some(Next::Step(_)) => unclosed,
                        Some(Next::Done(at)) => SlotState::Done { end: at },
                        Some(Next::Dead) | None => SlotState::Gone,
                    };
                    self.set(member.slot, state);
                }
            }
            (Step::Call(CallPhase::Trailing { end }), _) => {
                let end = *end;
                self.settle_all(&run, SlotState::Done { end });
            }
            (Step::Call(CallPhase::Closing(_)), _) | (Step::EndLiteral { .. } | Step::Json(_), _) => {
                self.settle_all(&run, unclosed);
            }
            (Step::CallValue(_), _) => {
                for member in run.members.iter() {
                    self.set(member.slot, SlotState::Unclosed { is_call: member.shows_call });
                }
            }
            // A partial literal, an unfinished call: text after all.
            _ => self.settle_all(&run, SlotState::Gone),
        }
    }

    /// Drops the decided units from the buffer.
    fn compact(&mut self) {
        self.held.drain(..self.decided - self.base);
        self.base = self.decided;
        // One long match does not pin its memory for the stream's lifetime.
        if self.held.capacity() > KEEP_CAPACITY && self.held.len() < KEEP_CAPACITY / 4 {
            self.held.shrink_to(KEEP_CAPACITY / 4);
        }
    }

    /// Settles the first match as the flush would, and carries on with
    /// nothing held.
    fn settle(&mut self, options: Options, log: &mut StripLog, reason: StripReason, out: &mut Vec<u16>) {
        let end = self.base + self.held.len();
        if let Some(&Slot { start, pattern, .. }) = self.first() {
            // The first slot is the first thread of the run it is on.
            let first = self.first_slot;
            let open = self.runs.iter().any(|run| {
                run.step.is_open() && run.members.front().is_some_and(|member| member.slot == first)
            });
            if open && options.open_span_at_end == OpenSpanPolicy::Drop {
                self.strip(pattern, start, end, reason, log, out);
            }
        }
        self.runs.clear();
        self.first_slot += self.slots.len();
        self.slots.clear();
        self.gone = 0;
        self.release_to(end, out);
    }

    /// Releases the undecided text before `to`.
    fn release_to(&mut self, to: usize, out: &mut Vec<u16>) {
        out.extend_from_slice(&self.held[self.decided - self.base..to - self.base]);
        self.decided = to;
    }

    /// The first slot that is not gone, dropping the gone ones before it.
    fn first(&mut self) -> Option<&Slot> {
        while self.slots.front().is_some_and(|slot| slot.state == SlotState::Gone) {
            self.drop_first();
        }
        self.slots.front()
    }

    /// Drops the first slot (whose thread, if it has one, is dropped by the
    /// caller).
    fn drop_first(&mut self) {
        if let Some(slot) = self.slots.pop_front() {
            self.first_slot += 1;
            if slot.state == SlotState::Gone {
                self.gone -= 1;
            }
        }
    }

    /// Sets the state of slot `slot`.
    fn set(&mut self, slot: usize, state: SlotState) {
        let slot = &mut self.slots[slot - self.first_slot];
        if state == SlotState::Gone && slot.state != SlotState::Gone {
            self.gone += 1;
        }
        slot.state = state;
    }

    /// Sets the state of every thread on `run`.
    fn settle_all(&mut self, run: &Run, state: SlotState) {
        count_work!(self.work, run.members.len());
        for member in run.members.iter() {
            self.set(member.slot, state);
        }
    }

    /// Strips `[start, end)` for `pattern`, releasing the text before it,
    /// and drops the threads that began inside it.
    fn strip(
        &mut self,
        pattern: usize,
        start: usize,
        end: usize,
        reason: StripReason,
        log: &mut StripLog,
        out: &mut Vec<u16>,
    ) {
        self.release_to(start, out);
        log.record(&[&self.held[start - self.base..end - self.base]], reason, pattern);
        log.cut_at(out.len());
        self.decided = end;
        while self.slots.front().is_some_and(|slot| slot.start < end) {
            count_work!(self.work, 1);
            self.drop_first();
        }
        // The threads of the dropped slots are the first of their runs.
        let first = self.first_slot;
        count_work!(self.work, self.runs.len());
        let mut runs = std::mem::take(&mut self.runs);
        runs.retain_mut(|run| {
            while run.members.front().is_some_and(|member| member.slot < first) {
                run.members.pop_front();
            }
            !run.members.is_empty() || self.end(run)
        });
        self.runs = runs;
    }

    /// Drops the gone slots from among the others, numbering the rest anew.
    fn drop_gone(&mut self) {
        count_work!(self.work, self.slots.len());
        let mut renumbered = Vec::with_capacity(self.slots.len());
        let mut next = self.first_slot;
        for slot in &self.slots {
            renumbered.push(next);
            if slot.state != SlotState::Gone {
                next += 1;
            }
        }
        self.slots.retain(|slot| slot.state != SlotState::Gone);
        self.gone = 0;
        let first = self.first_slot;
        for run in &mut self.runs {
            count_work!(self.work, run.members.len());
            for member in run.members.iter_mut() {
                member.slot = renumbered[member.slot - first];
            }
        }
    }

    /// Reads one unit: advances every run, begins new threads, gathers the
    /// runs that have one future, and strips what is complete.
    fn push(&mut self, general: &General, log: &mut StripLog, unit: u16, out: &mut Vec<u16>) {
        let at = self.base + self.held.len();
        self.held.push(unit);
        let previous = self.previous;
        // (Runs that a run gives rise to, a call's after its value, go to
        // `self.runs` meanwhile, and are not stepped again over this unit.)
        let mut runs = std::mem::take(&mut self.runs);
        runs.retain_mut(|run| self.advance(general, run, unit, at));
        runs.append(&mut self.runs);
        self.runs = runs;
        // The threads that ended as the newest leave no gone slots.
        while self.slots.back().is_some_and(|slot| slot.state == SlotState::Gone) {
            self.slots.pop_back();
            self.gone -= 1;
        }
        let in_pair = previous.is_some_and(is_high) && is_low(unit);
        if general.may_begin(unit, previous) || self.call_may_begin_at == Some(at) {
            // An ASCII unit looks only at the patterns that can begin with
            // it; any other unit at every pattern.
            let context = context_of(previous);
            let openers = general.ascii_openers[context].get(usize::from(unit));
            let count = openers.map_or(general.patterns.len(), Vec::len);
            for candidate in 0..count {
                let pattern = openers.map_or(candidate, |openers| openers[candidate]);
                let compiled = &general.patterns[pattern];
                let step = match compiled {
                    Compiled::Token(start) | Compiled::Span { start, .. } | Compiled::Json { start } => {
                        match start {
                            Matcher::Literal(units) if units[0] == unit => Step::Literal { matched: 0 },
                            Matcher::Dfa(dfa) if !in_pair && start.may_begin_with(unit, context) => {
                                match DfaRun::new(dfa, previous) {
                                    Some(run) => Step::Dfa(run),
                                    None => continue,
                                }
                            }
                            _ => continue,
                        }
                    }
                    Compiled::JsonCall { .. }
                        if (at_line_start(previous) || self.call_may_begin_at == Some(at))
                            && CALL_BEGINS.contains(&unit) =>
                    {
                        Step::Call(CallPhase::Indent)
                    }
                    Compiled::JsonCall { .. } => continue,
                };
                let slot = self.first_slot + self.slots.len();
                self.slots.push_back(Slot { start: at, pattern, state: SlotState::Running });
                let mut run = Run { pattern, step, members: Members::One(Member::new(slot, at)) };
                if self.advance(general, &mut run, unit, at) {
                    self.runs.push(run);
                }
                // A thread that ends on its first unit without a match
                // leaves no slot.
                if self.slots.back().is_some_and(|slot| slot.state == SlotState::Gone) {
                    self.slots.pop_back();
                    self.gone -= 1;
                }
            }
        }
        self.previous = Some(unit);
        self.gather(at);
        while let Some(&Slot { start, pattern, state: SlotState::Done { end } }) = self.first() {
            self.strip(pattern, start, end, StripReason::Match, log, out);
        }
        if self.first().is_none() {
            let to = self.base + self.held.len();
            self.release_to(to, out);
        }
        if self.gone >= GONE_TO_DROP && 2 * self.gone >= self.slots.len() {
            self.drop_gone();
        }
    }

    /// Moves the threads of runs that have one future onto one run: runs
    /// of one pattern in the same state, and a JSON run whose value began
    /// inside another's and reads on as it does.
    fn gather(&mut self, at: usize) {
        // Only runs of one pattern can join: each run is compared with the
        // earlier runs of its pattern, found through `last_of` (the latest
        // run seen of each pattern) and `previous_of` (for each run, the run
        // of its pattern before it).
        let mut last_of = std::mem::take(&mut self.last_of);
        let mut previous_of = std::mem::take(&mut self.previous_of);
        previous_of.clear();
        let mut index = 0;
        while index < self.runs.len() {
            count_work!(self.work, 1);
            let pattern = self.runs[index].pattern;
            if last_of.len() <= pattern {
                last_of.resize(pattern + 1, usize::MAX);
            }
            let mut joined = false;
            let mut earlier = last_of[pattern];
            while earlier != usize::MAX {
                count_work!(self.work, 1);
                let (a, b) = (&self.runs[earlier], &self.runs[index]);
                // (into, from): the run that carries on, and the one whose
                // threads move onto it.
                let pair = if a.step.same_future(&b.step) {
                    // The fewer threads move.
                    if a.members.len() >= b.members.len() {
                        Some((earlier, index))
                    } else {
                        Some((index, earlier))
                    }
                } else {
                    match (a.step.scan(), b.step.scan()) {
                        (Some(outer), Some(inner)) if inner.nests_in(outer) => Some((earlier, index)),
                        (Some(inner), Some(outer)) if inner.nests_in(outer) => Some((index, earlier)),
                        _ => None,
                    }
                };
                if let Some((into, from)) = pair {
                    if self.join(into, from, at) {
                        // The run that carries on takes the earlier place;
                        // the last run, not yet seen, takes this one.
                        if into == index {
                            self.runs.swap(earlier, index);
                        }
                        let mut absorbed = self.runs.swap_remove(index);
                        self.end(&mut absorbed);
                        joined = true;
                        break;
                    }
                }
                earlier = previous_of[earlier];
            }
            if !joined {
                previous_of.push(last_of[pattern]);
                last_of[pattern] = index;
                index += 1;
            }
        }
        for run in &self.runs {
            last_of[run.pattern] = usize::MAX;
        }
        self.last_of = last_of;
        self.previous_of = previous_of;
    }

    /// Moves the threads of run `from` onto run `into`, in order, after
    /// unit `at`: a thread from a DFA run keeps the match it falls back on
    /// there, one from a JSON run counts its base in `into`'s containers.
    /// Says whether they moved: not if JSON threads would then be out of
    /// order by base.
    fn join(&mut self, into: usize, from: usize, at: usize) -> bool {
        let offset = match (self.runs[into].step.scan(), self.runs[from].step.scan()) {
            (Some(outer), Some(inner)) => outer.depth() - inner.depth(),
            _ => 0,
        };
        // (A run that does not move after all keeps its threads, and loses
        // only ends, which are there to be skipped.)
        let ends = match &mut self.runs[from].step {
            Step::CallValue(value) => std::mem::take(&mut value.ends),
            _ => HashMap::new(),
        };
        if let Step::CallValue(value) = &mut self.runs[into].step {
            count_work!(self.work, ends.len());
            value.ends.extend(ends);
        }
        let json = self.runs[into].step.scan().is_some();
        let mut staying = self.queue_of(into);
        let moving = &self.runs[from];
        let carried = |member: &Member| {
            let mut member = *member;
            if let Step::Dfa(run) | Step::EndDfa(run) = &moving.step {
                member.pending = run.fallback(&member);
                member.since = at + 1;
            }
            member.base += offset;
            member
        };
        count_work!(self.work, moving.members.len());
        let (Some(first), Some(last)) =
            (moving.members.front().map(carried), moving.members.back().map(carried))
        else {
            self.runs[into].members = Members::Many(staying);
            return true;
        };
        let joined =
            if staying.back().is_none_or(|back| back.slot < first.slot && (!json || back.base <= first.base))
            {
                staying.extend(moving.members.iter().map(carried));
                true
            } else if staying
                .front()
                .is_some_and(|front| last.slot < front.slot && (!json || last.base <= front.base))
            {
                for member in moving.members.iter().rev() {
                    staying.push_front(carried(member));
                }
                true
            } else {
                // Interleaved: merged in full.
                count_work!(self.work, staying.len());
                let mut merged = VecDeque::with_capacity(staying.len() + moving.members.len());
                let mut moved = moving.members.iter().map(carried).peekable();
                let mut stayed = staying.iter().copied().peekable();
                let mut in_order = true;
                loop {
                    let next = match (stayed.peek(), moved.peek()) {
                        (Some(a), Some(b)) if a.slot < b.slot => stayed.next(),
                        (Some(_), Some(_)) | (None, Some(_)) => moved.next(),
                        (Some(_), None) => stayed.next(),
                        (None, None) => break,
                    };
                    let Some(next) = next else { break };
                    if json && merged.back().is_some_and(|back: &Member| back.base > next.base) {
                        in_order = false;
                        break;
                    }
                    merged.push_back(next);
                }
                if in_order {
                    staying = merged;
                }
                in_order
            };
        self.runs[into].members = Members::Many(staying);
        joined
    }

    /// Advances `run` over the unit at `at`, settling the threads it
    /// decides; says whether it goes on (if not, its threads are settled
    /// and gone from it).
    fn advance(&mut self, general: &General, run: &mut Run, unit: u16, at: usize) -> bool {
        count_work!(self.work, 1);
        let compiled = &general.patterns[run.pattern];
        if let (Step::Call(CallPhase::Trailing { .. }), b'{' | b'[') = (&run.step, unit.min(0xFF) as u8) {
            self.call_may_begin_at = Some(at);
        }
        match advance_step(&mut run.step, compiled, unit, at) {
            Says::Going => true,
            Says::Done(end) => {
                self.settle_all(run, SlotState::Done { end });
                self.end(run)
            }
            Says::Dead => {
                self.settle_all(run, SlotState::Gone);
                self.end(run)
            }
            Says::FallBack => {
                count_work!(self.work, run.members.len());
                if let Step::Dfa(dfa_run) | Step::EndDfa(dfa_run) = &run.step {
                    for member in run.members.iter() {
                        let state = match dfa_run.fallback(member) {
                            Some(end) => SlotState::Done { end },
                            None => SlotState::Gone,
                        };
                        self.set(member.slot, state);
                    }
                }
                self.end(run)
            }
            Says::Opened(end) => {
                self.open_from(general, run, end);
                self.end(run)
            }
            Says::Closed { opened } => {
                let depth = run.step.scan().map_or(0, JsonScan::depth);
                let tool_names = match compiled {
                    Compiled::JsonCall { tool_names } => tool_names.as_deref(),
                    _ => None,
                };
                if let Step::CallValue(value) = &mut run.step {
                    // Containers this deep below the first call's value are
                    // what the shape checks skip.
                    let first_base = run.members.front().map_or(0, |member| member.base);
                    if depth > first_base + json::OUTLINE_DEPTH {
                        value.ends.insert(opened, at + 1);
                    }
                    if self.drop_unclosed && unit == u16::from(b'}') {
                        self.object_closed(value, &mut run.members, tool_names, opened, depth, at);
                    }
                }
                while run.members.back().is_some_and(|member| member.base == depth) {
                    let Some(member) = run.members.pop_back() else { break };
                    let value = match &run.step {
                        Step::CallValue(value) => Some(&**value),
                        _ => None,
                    };
                    self.value_done(value, run.pattern, tool_names, member, at);
                }
                !run.members.is_empty() || self.end(run)
            }
            Says::Value { from, fenced } => {
                for member in run.members.iter_mut() {
                    member.value_from = from;
                    member.fenced = fenced;
                }
                true
            }
        }
    }

    /// A run that has settled its threads ends; its queue, if it has one,
    /// is kept for another run. Says it does not go on.
    fn end(&mut self, run: &mut Run) -> bool {
        if let Members::Many(mut queue) = std::mem::take(&mut run.members) {
            if self.spare_members.len() < SPARE_QUEUES && queue.capacity() <= SPARE_CAPACITY {
                queue.clear();
                self.spare_members.push(queue);
            }
        }
        false
    }

    /// The threads of run `index` in a queue (a spare one, if they were
    /// not in one), taken from the run.
    fn queue_of(&mut self, index: usize) -> VecDeque<Member> {
        match std::mem::take(&mut self.runs[index].members) {
            Members::Many(queue) => queue,
            members => {
                let mut queue = self.spare_members.pop().unwrap_or_default();
                queue.extend(members.iter().copied());
                queue
            }
        }
    }

    /// The value of `member`, a thread on a JSON run, closed at `at`: a
    /// JSON pattern's match is done (`value` is `None`); a bare call goes on
    /// to what must follow it if the value is a call.
    fn value_done(
        &mut self,
        value: Option<&CallValue>,
        pattern: usize,
        tool_names: Option<&[String]>,
        member: Member,
        at: usize,
    ) {
        count_work!(self.work, 1);
        let Some(value) = value else {
            return self.set(member.slot, SlotState::Done { end: at + 1 });
        };
        if !self.is_call(value, tool_names, member.value_from, at) {
            return self.set(member.slot, SlotState::Gone);
        }
        let phase = if member.fenced { CallPhase::Closing(0) } else { CallPhase::Trailing { end: at + 1 } };
        self.runs.push(Run { pattern, step: Step::Call(phase), members: Members::One(member) });
    }

    /// An object that began at `opened` closed at `at`, `depth` containers
    /// deep in `value`: the calls whose values hold it at most two levels
    /// down (the value itself, its members, theirs) show a call if it is
    /// one, as `json::shows_tool_call` reads a prefix.
    fn object_closed(
        &mut self,
        value: &CallValue,
        members: &mut Members,
        tool_names: Option<&[String]>,
        opened: usize,
        depth: usize,
        at: usize,
    ) {
        // The bases run up to `depth` at most, in order.
        let near = members.iter().rev().take_while(|member| member.base + 2 >= depth).count();
        let unsure = members.iter().rev().take(near).any(|member| !member.shows_call);
        if unsure && self.is_call(value, tool_names, opened, at) {
            members.iter_mut().rev().take(near).for_each(|member| member.shows_call = true);
        }
    }

    /// Whether the text from `from` to `at` (one container, whitespace
    /// before it, that `value`'s scan accepted) is a tool call by its
    /// shape, skipping the inner containers whose ends `value` knows.
    fn is_call(&mut self, value: &CallValue, tool_names: Option<&[String]>, from: usize, at: usize) -> bool {
        let text = &self.held[from - self.base..at + 1 - self.base];
        let skipped = std::cell::Cell::new(0);
        let ends = |offset: usize| {
            let end = value.ends.get(&(from + offset)).map(|end| end - from);
            skipped.set(skipped.get() + end.map_or(0, |end| end.saturating_sub(offset)));
            end
        };
        let is_call = json::is_scanned_tool_call(text, tool_names, &ends);
        // (What the check read, at most: the text less what it skipped.)
        count_work!(self.work, text.len().saturating_sub(skipped.get()));
        is_call
    }

    /// The regular-expression start of `run`'s threads is over: each one
    /// whose start matched (all at `end`, or each at the match it falls
    /// back on) reads on from there, over the units already read.
    fn open_from(&mut self, general: &General, run: &Run, end: Option<usize>) {
        let Step::Dfa(dfa_run) = &run.step else { return self.settle_all(run, SlotState::Gone) };
        // Threads whose starts end at one place have one future from there.
        let mut by_end: Vec<(usize, Members)> = Vec::new();
        for member in run.members.iter() {
            match end.or_else(|| dfa_run.fallback(member)) {
                None => self.set(member.slot, SlotState::Gone),
                Some(end) => match by_end.iter_mut().find(|(at, _)| *at == end) {
                    Some((_, members)) => members.push_back(Member { since: end, pending: None, ..*member }),
                    None => by_end.push((end, Members::One(Member { since: end, pending: None, ..*member }))),
                },
            }
        }
        let compiled = &general.patterns[run.pattern];
        for (end, members) in by_end {
            // The start is at least one unit long and began at or after
            // `base`, so the unit before `end` is held.
            let before = Some(self.held[end - 1 - self.base]);
            let step = match opened(compiled, end, before) {
                Next::Step(step) => step,
                Next::Done(end) => {
                    members.iter().for_each(|member| self.set(member.slot, SlotState::Done { end }));
                    continue;
                }
                Next::Dead => {
                    members.iter().for_each(|member| self.set(member.slot, SlotState::Gone));
                    continue;
                }
            };
            let mut rest = Run { pattern: run.pattern, step, members };
            let mut going = true;
            for at in end..self.base + self.held.len() {
                going = self.advance(general, &mut rest, self.held[at - self.base], at);
                if !going {
                    break;
                }
            }
            if going {
                self.runs.push(rest);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scaffolding::presets::{special_token_patterns, PRESETS};
    use crate::scaffolding::{Registry, ScaffoldingFilter};
    use std::sync::Arc;

    /// One row: a registry, a text, what comes out and what is stripped
    /// (span, pattern), fed whole and one unit at a time.
    struct Case {
        name: &'static str,
        patterns: fn() -> Vec<Pattern>,
        text: &'static str,
        out: &'static str,
        strips: &'static [(&'static str, usize)],
    }

    /// A thread with the same future as an earlier one of its pattern is
    /// carried on the earlier one's run, not dropped: the earlier one may
    /// lose to a match that ends before the later one begins, and then the
    /// later one is the match.
    const CASES: &[Case] = &[
        Case {
            name: "a shorter match at the earlier start ends before the later one",
            patterns: || vec![Pattern::token_of(Part::regex("<a(?:<b)?")), Pattern::span("<", ">")],
            text: "<a<c>",
            out: "",
            strips: &[("<a", 0), ("<c>", 1)],
        },
        Case {
            name: "a match before the earlier start ends between the two",
            patterns: || {
                vec![
                    Pattern::Json { start: Part::literal("#") },
                    Pattern::token("x<"),
                    Pattern::span("<", ">"),
                ]
            },
            text: "#[\"x<<c>",
            out: "#[\"",
            strips: &[("x<", 1), ("<c>", 2)],
        },
        Case {
            name: "special tokens: a Llama 3 span after a JSON call, behind an open Gemma span",
            patterns: || special_token_patterns().into_iter().map(|pattern| pattern.to_pattern()).collect(),
            text: "<|tool_call>x<|python_tag|>{\"a\":1}<|python_tag|>b<|python_tag|>c<|eot_id|>",
            out: "<|tool_call>x",
            strips: &[("<|python_tag|>{\"a\":1}", 3), ("<|python_tag|>b<|python_tag|>c<|eot_id|>", 4)],
        },
    ];

    #[test]
    fn a_thread_merged_into_an_earlier_one_keeps_its_place() {
        for case in CASES {
            let patterns = (case.patterns)();
            let registry = Arc::new(Registry::new(patterns.clone()).unwrap());
            assert!(!registry.is_literal(), "{}", case.name);
            let units: Vec<u16> = case.text.encode_utf16().collect();
            let whole = [units.clone()];
            let one_by_one: Vec<Vec<u16>> = units.iter().map(|&unit| vec![unit]).collect();
            for chunks in [&whole[..], &one_by_one[..]] {
                let mut filter = ScaffoldingFilter::with_registry(Arc::clone(&registry));
                let mut out = Vec::new();
                for chunk in chunks {
                    out.extend(filter.feed(chunk));
                }
                out.extend(filter.flush());
                assert_eq!(String::from_utf16_lossy(&out), case.out, "{}", case.name);
                let strips: Vec<(String, usize)> = filter
                    .strips()
                    .map(|strip| (String::from_utf16_lossy(strip.span), strip.pattern))
                    .collect();
                let expected: Vec<(String, usize)> =
                    case.strips.iter().map(|&(span, pattern)| (span.to_string(), pattern)).collect();
                assert_eq!(strips, expected, "{}", case.name);
            }
        }
    }

    /// [`Follows`] may say no only where no pattern could begin, after any
    /// unit: checked for every ASCII first unit, every ASCII second and
    /// third unit and a few others, on every family's special tokens and on
    /// each preset.
    #[test]
    fn follows_say_no_only_where_no_pattern_could_begin() {
        let mut registries: Vec<Vec<Pattern>> =
            vec![special_token_patterns().into_iter().map(|pattern| pattern.to_pattern()).collect()];
        for preset in PRESETS {
            registries.push(preset.to_patterns());
        }
        let others = [0xFF5C, 0x2016, 0x00E9, 0xD83D, 0x4E00];
        let units: Vec<u16> = (0..128).chain(others).collect();
        let befores =
            [None, Some(0x0A), Some(0x0D), Some(u16::from(b'a')), Some(u16::from(b' ')), Some(0xFF5C)];
        let mut said_no = 0;
        for patterns in &registries {
            let general = General::new(patterns).unwrap();
            for first in 0..128u16 {
                for &second in &units {
                    let pair = [first, second];
                    let pair_lives = befores.iter().any(|&before| general.could_begin_exactly(&pair, before));
                    assert!(!pair_lives || general.follows_allow(&pair), "{pair:?} in {patterns:?}");
                    if !pair_lives {
                        said_no += usize::from(!general.follows_allow(&pair));
                        continue;
                    }
                    for &third in &units {
                        let rest = [first, second, third];
                        if befores.iter().any(|&before| general.could_begin_exactly(&rest, before)) {
                            assert!(general.follows_allow(&rest), "{rest:?} in {patterns:?}");
                        } else {
                            said_no += usize::from(!general.follows_allow(&rest));
                        }
                    }
                }
            }
        }
        // And it does say no: the `<` of prose, say.
        assert!(said_no > 1000, "{said_no}");
        let special = General::new(&registries[0]).unwrap();
        let prose: Vec<u16> = "< y".encode_utf16().collect();
        assert!(!special.follows_allow(&prose));
    }
}
