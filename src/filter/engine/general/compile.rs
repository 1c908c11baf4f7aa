//! A registry compiled for the general engine (`threads`): each
//! pattern's parts as literals or DFAs, and the tables that say quickly
//! whether a match may begin at a unit, so that prose passes without a
//! thread being begun.

use crate::filter::pattern::{Part, Pattern, RegistryError};
use crate::filter::regex::{self as re, context_of, Dfa, CONTEXTS, CONTEXT_BYTES};
use crate::filter::scan::narrowed;

/// A part of a pattern, compiled.
#[derive(Debug)]
pub(super) enum Matcher {
    Literal(Vec<u16>),
    Dfa(Box<Dfa>),
}

/// What ends a span: a literal, searched with a failure table, or a DFA of
/// "anything, then the end".
#[derive(Debug)]
pub(super) enum EndMatcher {
    Literal { units: Vec<u16>, fallback: Vec<usize> },
    Dfa(Box<Dfa>),
}

#[derive(Debug)]
pub(super) enum Compiled {
    Token(Matcher),
    Span { start: Matcher, end: EndMatcher },
    Json { start: Matcher },
    JsonCall { tool_names: Option<Vec<String>> },
}

/// A registry compiled for the general engine.
#[derive(Debug)]
pub(crate) struct General {
    pub(super) patterns: Vec<Compiled>,
    /// Per starting context (the unit before, see `regex::context_of`), one
    /// bit per unit: whether a match can begin with it there.
    begins: Box<[[u64; 1024]; CONTEXTS]>,
    /// Per starting context and ASCII unit, the patterns whose match may
    /// begin with it, in registry order; other units look at every pattern.
    pub(super) ascii_openers: Vec<Vec<Vec<usize>>>,
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
    pub(super) few_begins: Option<[u16; FEW]>,
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
pub(crate) const FEW: usize = 4;

pub(super) const CALL_BEGINS: [u16; 3] = [b'{' as u16, b'[' as u16, b'`' as u16];

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
    pub(super) fn may_begin_with(&self, unit: u16, context: usize) -> bool {
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
    pub(super) fn begins_somewhere(&self, unit: u16) -> bool {
        self.begins_somewhere[usize::from(unit) / 64] >> (unit % 64) & 1 == 1
    }

    #[inline]
    fn begins(&self, unit: u16, context: usize) -> bool {
        begins_at(&self.begins, unit, context)
    }

    /// Whether a thread may begin at a unit, given the unit before it.
    #[inline]
    /// [`General::few_begins`] as the tool stage marks them in its
    /// narrowed read of a chunk (see [`crate::filter::scan::narrowed`]),
    /// for [`Threads::feed_lending`](super::threads::Threads::feed_lending).
    pub(crate) fn narrowed_begins(&self) -> Option<[u8; FEW]> {
        self.few_begins.map(|units| units.map(narrowed))
    }

    pub(super) fn may_begin(&self, unit: u16, previous: Option<u16>) -> bool {
        self.begins(unit, context_of(previous))
    }

    /// Whether some pattern could begin a match at the start of `rest`,
    /// given the unit before it, as far as `rest` shows: a literal start
    /// must agree with `rest` on the units both have, a regular expression's
    /// start must not die within them (up to [`LOOK_AHEAD`] units). Yes
    /// whenever it is not sure (a JSON call, a unit outside ASCII, a
    /// surrogate). It lets the feed release a unit such as the `<` of
    /// `x < y` without starting a thread per pattern.
    pub(super) fn could_begin(&self, rest: &[u16], previous: Option<u16>) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filter::presets::{special_token_patterns, PRESETS};

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
