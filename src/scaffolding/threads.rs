//! The general engine: any registry, every pattern kind, one unit at a time.
//!
//! What it strips is what one regular expression made of the patterns, in
//! registry order, would find in the whole text: the leftmost match, a tie
//! at one start going to the earlier pattern, then the next match after it,
//! and so on. A strip never joins its neighbours into a new match, so the
//! output is the same for every chunking.
//!
//! Every possible match in progress is a *thread*: a pattern, the position
//! where the match would begin, and where the pattern's automaton stands
//! (a literal's matched length, a DFA state, a JSON scanner, ...). Each unit
//! advances every thread and may begin new ones. Threads are kept in order
//! of (start, pattern), so the first thread decides: once it has finished
//! its match, that match is the leftmost one and is stripped, together with
//! every thread that began inside it; while it is still running, everything
//! from its start on is held. Text before the first thread can no longer
//! take part in a match and is released.
//!
//! Two threads of one pattern whose automata stand in the same state have
//! the same future, so the later one is dropped: the earlier one's match, if
//! it comes, covers it. That keeps the number of threads bounded by the
//! patterns' sizes, not by the text, and so a unit costs a bounded amount of
//! work: the engine is linear in its input, inside an open span or a long
//! JSON value too.

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

/// A DFA fed one code point at a time from UTF-16 units: a high surrogate
/// waits for the unit after it.
#[derive(Clone, Debug, PartialEq, Eq)]
struct DfaRun {
    state: StateID,
    /// Where the longest match seen so far ends.
    matched: Option<usize>,
    /// A high surrogate read but not yet fed, and its position.
    high: Option<(u16, usize)>,
}

/// What a DFA run says after a unit.
enum RunSays {
    Going,
    /// The match is over and ends here.
    Matched(usize),
    Dead,
}

impl DfaRun {
    fn new(dfa: &Dfa, previous: Option<u16>) -> Option<Self> {
        Some(DfaRun { state: dfa.start(re::look_behind(previous))?, matched: None, high: None })
    }

    /// Feeds the unit at `at`.
    fn push(&mut self, dfa: &Dfa, unit: u16, at: usize) -> RunSays {
        let mut buffer = [0u8; 4];
        if let Some((high, high_at)) = self.high.take() {
            if is_low(unit) {
                let code_point = 0x10000 + ((u32::from(high) - 0xD800) << 10) + (u32::from(unit) - 0xDC00);
                return self.feed(dfa, re::utf8(code_point, &mut buffer), high_at, at + 1);
            }
            if let RunSays::Matched(_) | RunSays::Dead =
                self.feed(dfa, re::utf8(0xFFFD, &mut buffer), high_at, at)
            {
                return self.over();
            }
        }
        if is_high(unit) {
            self.high = Some((unit, at));
            return RunSays::Going;
        }
        self.feed(dfa, re::utf8(u32::from(unit), &mut buffer), at, at + 1)
    }

    /// Feeds one code point that spans `[from, to)`.
    fn feed(&mut self, dfa: &Dfa, bytes: &[u8], from: usize, to: usize) -> RunSays {
        if dfa.step(&mut self.state, bytes) {
            self.matched = Some(from);
        }
        if dfa.is_dead(self.state) || (self.matched.is_some() && dfa.is_spent(self.state)) {
            return self.over();
        }
        if dfa.ends_here(self.state) {
            self.matched = Some(to);
            return RunSays::Matched(to);
        }
        RunSays::Going
    }

    fn over(&self) -> RunSays {
        match self.matched {
            Some(end) => RunSays::Matched(end),
            None => RunSays::Dead,
        }
    }

    /// The end of the text: where the match ends, if there is one.
    fn finish(&mut self, dfa: &Dfa, end: usize) -> Option<usize> {
        if let Some((_, high_at)) = self.high.take() {
            let mut buffer = [0u8; 4];
            if let RunSays::Matched(_) | RunSays::Dead =
                self.feed(dfa, re::utf8(0xFFFD, &mut buffer), high_at, end)
            {
                return self.matched;
            }
        }
        if dfa.matches_at_end(self.state) {
            return Some(end);
        }
        self.matched
    }

    /// Whether two runs have the same future and neither has a match to
    /// keep.
    fn same_future(&self, other: &DfaRun) -> bool {
        self.matched.is_none()
            && other.matched.is_none()
            && self.state == other.state
            && self.high.map(|h| h.0) == other.high.map(|h| h.0)
    }
}

/// Where a JSON call stands.
#[derive(Clone, Debug, PartialEq, Eq)]
enum CallPhase {
    /// Spaces or tabs at the start of the line.
    Indent,
    /// `n` backticks of a fence.
    Ticks(u8),
    /// `n` letters of the fence's `json`.
    Language(u8),
    /// The rest of the fence's line.
    FenceLine,
    /// The value; `fenced` says whether a fence must close it.
    Value { scan: JsonScan, fenced: bool },
    /// After a fenced value: `n` backticks of the closing fence.
    Closing(u8),
    /// After the call, which ends at `end`: the rest of its line must be
    /// blank, or begin another call.
    Trailing { end: usize },
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Call {
    phase: CallPhase,
    /// Where the value's text begins.
    value_from: usize,
}

/// Where one thread's automaton stands.
#[derive(Clone, Debug)]
enum Step {
    /// Inside a literal part (a token or a start): `matched` units so far.
    Literal {
        matched: usize,
    },
    /// Inside a regular-expression part.
    Dfa(DfaRun),
    /// A span's start is complete; looking for a literal end, `matched`
    /// units of it so far.
    EndLiteral {
        matched: usize,
    },
    /// A span's start is complete; running "anything, then the end".
    EndDfa(DfaRun),
    /// A JSON pattern's start is complete; scanning the value.
    Json(JsonScan),
    Call(Call),
    /// The match is complete and ends at `end`.
    Done {
        end: usize,
    },
    /// No match: the thread is to be dropped.
    Over,
}

#[derive(Clone, Debug)]
struct Thread {
    pattern: usize,
    start: usize,
    step: Step,
}

impl Thread {
    /// Whether the match's opening part is complete, so that an unclosed
    /// match is an open span (which `openSpanAtEnd` and `maxHeld` settle).
    fn is_open(&self) -> bool {
        matches!(self.step, Step::EndLiteral { .. } | Step::EndDfa(_) | Step::Json(_))
    }

    /// Whether the stream ending here leaves the match unclosed: an open
    /// span, or a JSON call whose value has begun (which may be an
    /// ordinary answer cut off, so only the flush settles it, never
    /// `maxHeld`).
    fn is_unclosed_at_end(&self) -> bool {
        self.is_open()
            || matches!(
                self.step,
                Step::Call(Call { phase: CallPhase::Value { .. } | CallPhase::Closing(_), .. })
            )
    }

    fn same_future(&self, other: &Thread) -> bool {
        if self.pattern != other.pattern {
            return false;
        }
        match (&self.step, &other.step) {
            (Step::Dfa(a), Step::Dfa(b)) | (Step::EndDfa(a), Step::EndDfa(b)) => a.same_future(b),
            (Step::EndLiteral { matched: a }, Step::EndLiteral { matched: b }) => a == b,
            (Step::Json(a), Step::Json(b)) => a == b,
            // A call is checked on its own text, and a literal's state
            // says where it began, so neither merges.
            _ => false,
        }
    }
}

/// What advancing a thread by one unit did.
enum Advance {
    Alive,
    Dead,
}

/// Above this capacity, the buffer is given back once it is small again.
const KEEP_CAPACITY: usize = 4096;

/// The general engine's state. Positions are counted in units from the
/// start of the stream.
#[derive(Debug, Default)]
pub(crate) struct Threads {
    /// The units read from `base` on. Those before `decided` are released
    /// or stripped already; they are dropped from the buffer once per feed,
    /// not once per unit.
    held: Vec<u16>,
    base: usize,
    decided: usize,
    /// In order of (start, pattern); each starts at or after `decided`.
    threads: Vec<Thread>,
    /// The unit before the next one, in the text as given.
    previous: Option<u16>,
    /// Where a JSON call may begin although no line does: right after
    /// another call on the same line (`{…} {…}`).
    call_may_begin_at: Option<usize>,
    /// Units read and threads stepped, compared and dropped (tests only).
    #[cfg(test)]
    pub(crate) work: u64,
}

impl Threads {
    /// The text not yet released or stripped.
    pub(crate) fn held(&self) -> &[u16] {
        &self.held[self.decided - self.base..]
    }

    pub(crate) fn is_span_open(&self) -> bool {
        self.threads.iter().any(Thread::is_open)
    }

    pub(crate) fn is_idle(&self) -> bool {
        self.threads.is_empty() && self.held().is_empty()
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
        let mut read = 0;
        while read < chunk.len() {
            if self.threads.is_empty() {
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
        let hold = self.threads.first().map_or(self.base + self.held.len(), |thread| thread.start);
        self.release_to(hold, out);
        if let (Some(most), Some(first)) = (options.max_held, self.threads.first()) {
            if self.base + self.held.len() - first.start > most.get() {
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
        count_work!(self.work, self.threads.len());
        for thread in &mut self.threads {
            let step = std::mem::replace(&mut thread.step, Step::Done { end });
            let compiled = &general.patterns[thread.pattern];
            thread.step = match (step, compiled) {
                (Step::Dfa(mut run), Compiled::Token(Matcher::Dfa(dfa))) => match run.finish(dfa, end) {
                    Some(end) => Step::Done { end },
                    None => Step::Over,
                },
                // A start that the end completes opens a span that nothing
                // can close.
                (
                    Step::Dfa(mut run),
                    Compiled::Span { start: Matcher::Dfa(dfa), .. }
                    | Compiled::Json { start: Matcher::Dfa(dfa) },
                ) => match run.finish(dfa, end) {
                    Some(at) => opened(compiled, at, None),
                    None => Step::Over,
                },
                (Step::EndDfa(mut run), Compiled::Span { end: EndMatcher::Dfa(dfa), .. }) => {
                    match run.finish(dfa, end) {
                        Some(end) => Step::Done { end },
                        None => Step::EndDfa(run),
                    }
                }
                (Step::Call(Call { phase: CallPhase::Trailing { end }, .. }), _) => Step::Done { end },
                (
                    step @ Step::Call(Call { phase: CallPhase::Value { .. } | CallPhase::Closing(_), .. }),
                    _,
                ) => step,
                (
                    step @ (Step::Done { .. } | Step::EndLiteral { .. } | Step::EndDfa(_) | Step::Json(_)),
                    _,
                ) => step,
                // A partial literal, an unfinished call: text after all.
                _ => Step::Over,
            };
        }
        while let Some(first) = self.threads.first() {
            count_work!(self.work, self.threads.len());
            let (pattern, start) = (first.pattern, first.start);
            match first.step {
                Step::Done { end } => self.strip(pattern, start, end, StripReason::Match, log, out),
                _ if first.is_unclosed_at_end()
                    && options.open_span_at_end == OpenSpanPolicy::Drop
                    && self.unclosed_is_call(general, first) =>
                {
                    self.strip(pattern, start, end, StripReason::UnclosedAtEnd, log, out);
                }
                _ => {
                    self.threads.remove(0);
                }
            }
        }
        let end = self.base + self.held.len();
        self.release_to(end, out);
        self.compact();
        self.previous = None;
    }

    /// Whether an unclosed match may be dropped as a call: any open span,
    /// but a JSON call cut off inside its value only when what came of the
    /// value already shows a call (`json::shows_tool_call`). A JSON answer
    /// cut off by a token limit is the answer's own text.
    fn unclosed_is_call(&self, general: &General, thread: &Thread) -> bool {
        match (&thread.step, &general.patterns[thread.pattern]) {
            (
                Step::Call(Call { phase: CallPhase::Value { .. }, value_from }),
                Compiled::JsonCall { tool_names },
            ) => json::shows_tool_call(&self.held[value_from - self.base..], tool_names.as_deref()),
            _ => true,
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

    /// Settles the first thread's match as the flush would, and carries on
    /// with nothing held.
    fn settle(&mut self, options: Options, log: &mut StripLog, reason: StripReason, out: &mut Vec<u16>) {
        let end = self.base + self.held.len();
        if let Some(first) = self.threads.first() {
            if first.is_open() && options.open_span_at_end == OpenSpanPolicy::Drop {
                let (pattern, start) = (first.pattern, first.start);
                self.strip(pattern, start, end, reason, log, out);
            }
        }
        self.threads.clear();
        self.release_to(end, out);
    }

    /// Releases the undecided text before `to`.
    fn release_to(&mut self, to: usize, out: &mut Vec<u16>) {
        out.extend_from_slice(&self.held[self.decided - self.base..to - self.base]);
        self.decided = to;
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
        let inside = self.threads.iter().take_while(|thread| thread.start < end).count();
        count_work!(self.work, self.threads.len());
        self.threads.drain(..inside);
    }

    /// Reads one unit: advances every thread, begins new ones, merges
    /// threads with the same future, and strips what is complete.
    fn push(&mut self, general: &General, log: &mut StripLog, unit: u16, out: &mut Vec<u16>) {
        let at = self.base + self.held.len();
        self.held.push(unit);
        let previous = self.previous;
        // Advance every thread, keeping the live ones in order.
        count_work!(self.work, self.threads.len() + 1);
        let mut kept = 0;
        for index in 0..self.threads.len() {
            if let Advance::Alive = self.advance(general, index, unit, at) {
                self.threads.swap(kept, index);
                kept += 1;
            }
        }
        self.threads.truncate(kept);
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
                        Step::Call(Call { phase: CallPhase::Indent, value_from: at })
                    }
                    Compiled::JsonCall { .. } => continue,
                };
                count_work!(self.work, 1);
                self.threads.push(Thread { pattern, start: at, step });
                let last = self.threads.len() - 1;
                if let Advance::Dead = self.advance(general, last, unit, at) {
                    self.threads.pop();
                }
            }
        }
        self.previous = Some(unit);
        self.merge();
        while let Some((pattern, start, end)) = self.threads.first().and_then(|thread| match thread.step {
            Step::Done { end } => Some((thread.pattern, thread.start, end)),
            _ => None,
        }) {
            self.strip(pattern, start, end, StripReason::Match, log, out);
        }
        if self.threads.is_empty() {
            let to = self.base + self.held.len();
            self.release_to(to, out);
        }
    }

    /// Drops every thread that has the same future as an earlier one.
    fn merge(&mut self) {
        if self.threads.len() < 2 {
            return;
        }
        let mut index = 1;
        while index < self.threads.len() {
            let (earlier, rest) = self.threads.split_at(index);
            count_work!(self.work, index);
            if earlier.iter().any(|thread| thread.same_future(&rest[0])) {
                self.threads.remove(index);
            } else {
                index += 1;
            }
        }
    }

    /// Advances thread `index` over the unit at `at`.
    fn advance(&mut self, general: &General, index: usize, unit: u16, at: usize) -> Advance {
        let thread = &mut self.threads[index];
        let compiled = &general.patterns[thread.pattern];
        if let (Step::Call(Call { phase: CallPhase::Trailing { .. }, .. }), b'{' | b'[') =
            (&thread.step, unit.min(0xFF) as u8)
        {
            self.call_may_begin_at = Some(at);
        }
        let next = match (&mut thread.step, compiled) {
            (Step::Done { .. }, _) => return Advance::Alive,
            (Step::Over, _) => return Advance::Dead,
            (
                Step::Literal { matched },
                Compiled::Token(Matcher::Literal(units))
                | Compiled::Span { start: Matcher::Literal(units), .. }
                | Compiled::Json { start: Matcher::Literal(units) },
            ) => {
                if units.get(*matched) != Some(&unit) {
                    return Advance::Dead;
                }
                *matched += 1;
                if *matched < units.len() {
                    return Advance::Alive;
                }
                opened(compiled, at + 1, Some(unit))
            }
            (
                Step::Dfa(run),
                Compiled::Token(Matcher::Dfa(dfa))
                | Compiled::Span { start: Matcher::Dfa(dfa), .. }
                | Compiled::Json { start: Matcher::Dfa(dfa) },
            ) => {
                match run.push(dfa, unit, at) {
                    RunSays::Going => return Advance::Alive,
                    RunSays::Dead => return Advance::Dead,
                    RunSays::Matched(end) => {
                        // The match of the opening part may end before this
                        // unit (a DFA sees a match end one code point late):
                        // the next part reads from there.
                        // The opening part is at least one unit long and began
                        // at or after `base`, so the unit before `end` is held.
                        let before = Some(self.held[end - 1 - self.base]);
                        let mut step = opened(compiled, end, before);
                        count_work!(self.work, self.base + self.held.len() - end);
                        for at in end..self.base + self.held.len() {
                            if let Step::Done { .. } | Step::Over = step {
                                break;
                            }
                            let unit = self.held[at - self.base];
                            match advance_open(&mut step, compiled, &self.held, self.base, unit, at) {
                                Advance::Alive => {}
                                Advance::Dead => return Advance::Dead,
                            }
                        }
                        if let Step::Over = step {
                            return Advance::Dead;
                        }
                        step
                    }
                }
            }
            (step, _) => {
                let base = self.base;
                return advance_open(step, compiled, &self.held, base, unit, at);
            }
        };
        self.threads[index].step = next;
        Advance::Alive
    }
}

/// The step after a pattern's opening part, which ended at `end` (the unit
/// before it was `before`): a token is done, a span looks for its end, a
/// JSON pattern scans its value.
fn opened(compiled: &Compiled, end: usize, before: Option<u16>) -> Step {
    match compiled {
        Compiled::Span { end: EndMatcher::Literal { .. }, .. } => Step::EndLiteral { matched: 0 },
        Compiled::Span { end: EndMatcher::Dfa(dfa), .. } => match DfaRun::new(dfa, before) {
            Some(run) => Step::EndDfa(run),
            None => Step::Over,
        },
        Compiled::Json { .. } => Step::Json(JsonScan::new()),
        Compiled::Token(_) | Compiled::JsonCall { .. } => Step::Done { end },
    }
}

/// Advances a step past its opening part over the unit at `at`; `held`
/// starts at `base`.
fn advance_open(
    step: &mut Step,
    compiled: &Compiled,
    held: &[u16],
    base: usize,
    unit: u16,
    at: usize,
) -> Advance {
    match (&mut *step, compiled) {
        (Step::Done { .. }, _) => Advance::Alive,
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
                *step = Step::Done { end: at + 1 };
            } else {
                *matched = k;
            }
            Advance::Alive
        }
        (Step::EndDfa(run), Compiled::Span { end: EndMatcher::Dfa(dfa), .. }) => {
            match run.push(dfa, unit, at) {
                RunSays::Going => Advance::Alive,
                RunSays::Dead => Advance::Dead,
                RunSays::Matched(end) => {
                    *step = Step::Done { end };
                    Advance::Alive
                }
            }
        }
        (Step::Json(scan), _) => match scan.step(unit) {
            json::Step::More => Advance::Alive,
            json::Step::Invalid => Advance::Dead,
            json::Step::Done => {
                *step = Step::Done { end: at + 1 };
                Advance::Alive
            }
        },
        (Step::Call(call), Compiled::JsonCall { tool_names }) => {
            match advance_call(call, tool_names.as_deref(), held, base, unit, at) {
                CallSays::Going => Advance::Alive,
                CallSays::Dead => Advance::Dead,
                CallSays::Done(end) => {
                    *step = Step::Done { end };
                    Advance::Alive
                }
            }
        }
        _ => Advance::Dead,
    }
}

enum CallSays {
    Going,
    Dead,
    Done(usize),
}

/// Advances a JSON call over the unit at `at`.
fn advance_call(
    call: &mut Call,
    tool_names: Option<&[String]>,
    held: &[u16],
    base: usize,
    unit: u16,
    at: usize,
) -> CallSays {
    const SPACE: u16 = b' ' as u16;
    const TAB: u16 = b'\t' as u16;
    const LF: u16 = b'\n' as u16;
    const CR: u16 = b'\r' as u16;
    const TICK: u16 = b'`' as u16;
    let is = |c: u8| unit == u16::from(c) || unit == u16::from(c.to_ascii_uppercase());
    call.phase = match std::mem::replace(&mut call.phase, CallPhase::Indent) {
        // A call begins its line: an indented object is a value nested in
        // something larger (a payload example, a config), which every
        // reported bare call shows at the start of its line.
        CallPhase::Indent => match unit {
            TICK => CallPhase::Ticks(1),
            _ if unit == u16::from(b'{') || unit == u16::from(b'[') => {
                call.value_from = at;
                let mut scan = JsonScan::new();
                if scan.step(unit) != json::Step::More {
                    return CallSays::Dead;
                }
                CallPhase::Value { scan, fenced: false }
            }
            _ => return CallSays::Dead,
        },
        CallPhase::Ticks(n) if n < 3 => match unit {
            TICK => CallPhase::Ticks(n + 1),
            _ => return CallSays::Dead,
        },
        CallPhase::Ticks(_) => match unit {
            SPACE | TAB | CR => CallPhase::FenceLine,
            LF => fence_opened(call, at),
            _ if is(b'j') => CallPhase::Language(1),
            _ => return CallSays::Dead,
        },
        CallPhase::Language(n) if n < 4 => {
            if !is(b"json"[usize::from(n)]) {
                return CallSays::Dead;
            }
            CallPhase::Language(n + 1)
        }
        CallPhase::Language(_) | CallPhase::FenceLine => match unit {
            SPACE | TAB | CR => CallPhase::FenceLine,
            LF => fence_opened(call, at),
            _ => return CallSays::Dead,
        },
        CallPhase::Value { mut scan, fenced } => match scan.step(unit) {
            json::Step::More => CallPhase::Value { scan, fenced },
            json::Step::Invalid => return CallSays::Dead,
            json::Step::Done => {
                let text = &held[call.value_from - base..at + 1 - base];
                if !json::is_tool_call(text, tool_names) {
                    return CallSays::Dead;
                }
                if fenced {
                    CallPhase::Closing(0)
                } else {
                    CallPhase::Trailing { end: at + 1 }
                }
            }
        },
        CallPhase::Closing(n) => match unit {
            SPACE | TAB | CR | LF if n == 0 => CallPhase::Closing(0),
            TICK if n == 2 => CallPhase::Trailing { end: at + 1 },
            TICK => CallPhase::Closing(n + 1),
            _ => return CallSays::Dead,
        },
        CallPhase::Trailing { end } => match unit {
            SPACE | TAB => CallPhase::Trailing { end },
            // The line ends: the call stood on its own.
            LF | CR => return CallSays::Done(end),
            // Another call follows on the same line.
            _ if unit == u16::from(b'{') || unit == u16::from(b'[') => return CallSays::Done(end),
            _ => return CallSays::Dead,
        },
    };
    CallSays::Going
}

fn fence_opened(call: &mut Call, at: usize) -> CallPhase {
    call.value_from = at + 1;
    CallPhase::Value { scan: JsonScan::new(), fenced: true }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scaffolding::presets::{special_token_patterns, PRESETS};

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
