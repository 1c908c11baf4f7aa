//! Which tokens of an answer are values, and so have to be found in what
//! the run's tools returned (agentfootprint's `extract.ts`).
//!
//! The rule is conservative on purpose: flagging "24 hours" or "3 issues"
//! would cost a real turn under `'guard'` to justify a word, so it would
//! rather miss an invented value than accuse a correct answer. A normalized
//! token is a value when:
//!
//! 1. a declared shape matches it whole (shapes are tested first and win,
//!    digits or not); otherwise
//! 2. it holds a digit (prose is alphabetic: an all-letter name such as
//!    `esxi-host-alpha` is invisible without a declared shape), and
//! 3. it is not prose wearing a number: `24/7` and `1/2` (one or two digits
//!    each side of a slash) are ratios; a number with a short tail glued on
//!    (`32g`, `47th`, `48-port`, `20/month`, `41200iops`) is judged on its
//!    number alone, and
//! 4. it is distinctive: a number with at least `minDigits` digits (4 by
//!    default), or an identifier of at least four units mixing digits with
//!    letters or with `: _ - / .` (`0xef0101`, `fc1/3`, `ucsb-b200-m5`).
//!
//! With `figures` on, a number under `minDigits` that the answer writes
//! wearing a unit ([`super::figures`]) is a value too, shaped `figure`.
//! Anything declared exempt (a normalized string, or a pattern matching the
//! whole token) is never a value.
//!
//! Values are distinct by their normalized spelling, in first-appearance
//! order. There is no cap on the answer: the work is one pass over it, plus
//! each declared shape and exempt pattern run once over each token.

use std::borrow::Cow;
use std::collections::hash_map::RandomState;
use std::collections::HashSet;
use std::hash::BuildHasher;

use super::figures::figure_numbers_counted;
use super::normalize::{count_digits, lookup_forms, normalize_token, tokenize_where};
use super::Work;
use crate::checks::text::js_string;
use crate::filter::regex::Dfa;
use crate::filter::RegexSource;

/// Why a value is one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Shape {
    Number,
    Identifier,
    /// A number under `minDigits` wearing a unit (figures on).
    Figure,
    /// The declared shape at this index of [`ValueRules`]' shapes.
    Declared(usize),
}

/// One value an answer asserts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnswerValue {
    /// The normalized value.
    pub value: Vec<u16>,
    pub shape: Shape,
    /// The glued spelling the number was read off (`41200iops` for
    /// `41200`), when it was read off one: a result that carried it so
    /// grounds it too.
    pub token: Option<Vec<u16>>,
}

/// Something the caller declared is not a value.
#[derive(Clone, Debug)]
pub enum Exempt {
    /// A spelling, normalized on the way in (both forms of an FCID).
    Value(Vec<u16>),
    /// A pattern, tested against the whole normalized token.
    Pattern(RegexSource),
}

/// A caller's shape: what its identifiers look like.
#[derive(Clone, Debug)]
pub struct DeclaredShape {
    pub name: Vec<u16>,
    pub regex: RegexSource,
}

/// The options as a caller gives them.
#[derive(Clone, Debug)]
pub struct ValueOptions {
    pub exempt: Vec<Exempt>,
    pub shapes: Vec<DeclaredShape>,
    pub min_digits: f64,
    pub figures: bool,
}

impl Default for ValueOptions {
    fn default() -> Self {
        ValueOptions { exempt: Vec::new(), shapes: Vec::new(), min_digits: 4.0, figures: false }
    }
}

/// A refused option: where (`shapes[1].name`), and why. Every one is a
/// value of the right type that cannot be used (the binding checks types).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionError {
    pub at: String,
    pub reason: String,
}

/// The options, checked and compiled once: every answer judged with them
/// shares the compiled patterns.
#[derive(Debug)]
pub struct ValueRules {
    exempt_values: HashSet<Vec<u16>>,
    exempt_patterns: Vec<Dfa>,
    shapes: Vec<(Vec<u16>, Dfa)>,
    min_digits: usize,
    figures: bool,
    /// The labels of [`Shape::Number`], [`Shape::Identifier`] and
    /// [`Shape::Figure`], spelt once.
    labels: [Vec<u16>; 3],
}

fn builtin_labels() -> [Vec<u16>; 3] {
    ["number", "identifier", "figure"].map(js_string::units)
}

impl Default for ValueRules {
    fn default() -> Self {
        ValueRules {
            exempt_values: HashSet::new(),
            exempt_patterns: Vec::new(),
            shapes: Vec::new(),
            min_digits: 4,
            figures: false,
            labels: builtin_labels(),
        }
    }
}

impl ValueRules {
    /// Checks and compiles `options`, refusing what agentfootprint's
    /// `resolveEvidenceGate` refuses: a shape name empty once trimmed, two
    /// shapes of one name, a `minDigits` that is not a whole number of at
    /// least 1; and a pattern a DFA cannot run (look-around,
    /// back-references), with the parser's reason.
    pub fn new(options: ValueOptions) -> Result<ValueRules, OptionError> {
        let min = options.min_digits;
        if !(min.is_finite() && min.fract() == 0.0 && min >= 1.0) {
            return Err(OptionError {
                at: "minDigits".into(),
                reason: format!("must be a whole number of at least 1 (got {min})"),
            });
        }
        let mut shapes: Vec<(Vec<u16>, Dfa)> = Vec::with_capacity(options.shapes.len());
        for (index, shape) in options.shapes.iter().enumerate() {
            let name = js_string::trim(&shape.name).to_vec();
            if name.is_empty() {
                return Err(OptionError {
                    at: format!("shapes[{index}].name"),
                    reason: "must be a non-empty name: it labels the values the shape finds".into(),
                });
            }
            if shapes.iter().any(|(other, _)| *other == name) {
                return Err(OptionError {
                    at: format!("shapes[{index}].name"),
                    reason: format!(
                        "repeats the name '{}': each name labels the values its shape finds, so rename one",
                        String::from_utf16_lossy(&name)
                    ),
                });
            }
            let dfa = compile(&shape.regex, format!("shapes[{index}].match"))?;
            shapes.push((name, dfa));
        }
        let mut exempt_values = HashSet::new();
        let mut exempt_patterns = Vec::new();
        for (index, exempt) in options.exempt.iter().enumerate() {
            match exempt {
                Exempt::Value(raw) => {
                    let normalized = normalize_token(raw);
                    for form in lookup_forms(&normalized) {
                        if !form.is_empty() {
                            exempt_values.insert(form.to_vec());
                        }
                    }
                }
                Exempt::Pattern(regex) => exempt_patterns.push(compile(regex, format!("exempt[{index}]"))?),
            }
        }
        Ok(ValueRules {
            exempt_values,
            exempt_patterns,
            shapes,
            min_digits: min as usize,
            figures: options.figures,
            labels: builtin_labels(),
        })
    }

    /// The label of `shape`, as answerValuesOf spells it.
    pub fn shape_name(&self, shape: &Shape) -> &[u16] {
        match shape {
            Shape::Number => &self.labels[0],
            Shape::Identifier => &self.labels[1],
            Shape::Figure => &self.labels[2],
            Shape::Declared(index) => &self.shapes[*index].0,
        }
    }

    /// Whether the caller declared this normalized token exempt.
    pub fn is_exempt(&self, token: &[u16]) -> bool {
        self.exempt_values.contains(token) || self.exempt_patterns.iter().any(|dfa| dfa.matches_whole(token))
    }

    /// The value one normalized token asserts, if any (agentfootprint's
    /// `classifyToken`). `figures` is the answer's figure numbers, when the
    /// rules read figures.
    pub fn classify(&self, token: &[u16], figures: Option<&HashSet<Vec<u16>>>) -> Option<AnswerValue> {
        self.reading(token, figures).map(|(value, shape, glued)| AnswerValue {
            value: value.into_owned(),
            shape,
            token: glued.then(|| token.to_vec()),
        })
    }

    /// What [`ValueRules::classify`] answers, borrowing the token where
    /// the value is the token itself: (value, shape, whether it was read
    /// off a glued spelling).
    fn reading<'t>(
        &self,
        token: &'t [u16],
        figures: Option<&HashSet<Vec<u16>>>,
    ) -> Option<(Cow<'t, [u16]>, Shape, bool)> {
        if token.is_empty() || self.is_exempt(token) {
            return None;
        }
        if let Some(index) = self.shapes.iter().position(|(_, dfa)| dfa.matches_whole(token)) {
            return Some((Cow::Borrowed(token), Shape::Declared(index), false));
        }
        if count_digits(token) == 0 || is_prose_ratio(token) {
            return None;
        }
        let tail = number_with_tail(token);
        let numeric = match tail {
            Some(end) => Some(Cow::Owned(normalize_token(&token[..end]))),
            None if bare_number(token) == Some(token.len()) => Some(Cow::Borrowed(token)),
            None => None,
        };
        if let Some(value) = numeric {
            let glued = tail.is_some() && token != value.as_ref();
            let shape = if count_digits(&value) >= self.min_digits {
                Shape::Number
            } else if figures.is_some_and(|set| set.contains(value.as_ref())) {
                Shape::Figure
            } else {
                return None;
            };
            return Some((value, shape, glued));
        }
        if token.len() < 4 {
            return None;
        }
        let lettered = token.iter().any(|&u| (0x61..=0x7A).contains(&u));
        let structured = token.iter().any(|&u| matches!(u, 0x3A | 0x5F | 0x2D | 0x2F | 0x2E));
        (lettered || structured).then_some((Cow::Borrowed(token), Shape::Identifier, false))
    }
}

/// A caller's pattern as a whole-token DFA, or why it cannot be one.
fn compile(regex: &RegexSource, at: String) -> Result<Dfa, OptionError> {
    Dfa::compile_whole(regex)
        .map_err(|reason| OptionError { at, reason: format!("is a RegExp this check cannot run ({reason})") })
}

fn is_digit(unit: u16) -> bool {
    (0x30..=0x39).contains(&unit)
}

fn is_lower(unit: u16) -> bool {
    (0x61..=0x7A).contains(&unit)
}

fn run(units: &[u16], at: usize, test: fn(u16) -> bool) -> usize {
    units[at.min(units.len())..].iter().take_while(|&&u| test(u)).count()
}

/// `^\d{1,2}\/\d{1,2}$`.
fn is_prose_ratio(token: &[u16]) -> bool {
    let left = run(token, 0, is_digit);
    let right = run(token, left + 1, is_digit);
    (1..=2).contains(&left)
        && token.get(left) == Some(&0x2F)
        && (1..=2).contains(&right)
        && left + 1 + right == token.len()
}

/// `[-+]?\d+(?:\.\d+)?` at the start of `token`: where it ends. Only the
/// longest reading can be followed by anything but a digit, so it is the
/// one reading the anchored patterns below can use.
fn bare_number(token: &[u16]) -> Option<usize> {
    let sign = usize::from(matches!(token.first(), Some(0x2B | 0x2D)));
    let whole = run(token, sign, is_digit);
    if whole == 0 {
        return None;
    }
    let mut end = sign + whole;
    if token.get(end) == Some(&0x2E) {
        let fraction = run(token, end + 1, is_digit);
        if fraction > 0 {
            end += 1 + fraction;
        }
    }
    Some(end)
}

/// `^([-+]?\d+(?:\.\d+)?)[-/]?[a-z]{1,5}(?:\/[a-z]{1,5})?$`: where the
/// number (the group) ends, when the whole token is a number with a tail.
fn number_with_tail(token: &[u16]) -> Option<usize> {
    let number = bare_number(token)?;
    let mut at = number;
    if matches!(token.get(at), Some(0x2D | 0x2F)) {
        at += 1;
    }
    let letters = run(token, at, is_lower);
    if !(1..=5).contains(&letters) {
        return None;
    }
    at += letters;
    if at == token.len() {
        return Some(number);
    }
    if token[at] != 0x2F {
        return None;
    }
    let more = run(token, at + 1, is_lower);
    ((1..=5).contains(&more) && at + 1 + more == token.len()).then_some(number)
}

/// Every distinct value `answer` asserts, in first-appearance order
/// (agentfootprint's `extractCandidates`, without its 20,000-token cap).
pub fn answer_values(answer: &[u16], rules: &ValueRules) -> Vec<AnswerValue> {
    answer_values_counted(answer, rules, &Work::default())
}

/// [`answer_values`], counting its work. Each token costs its length once
/// per pass over it: the tokenizer's, the normalizer's, the classifier's
/// fixed tests, and one per exempt pattern and declared shape.
pub(crate) fn answer_values_counted(answer: &[u16], rules: &ValueRules, work: &Work) -> Vec<AnswerValue> {
    work.add(answer.len());
    let figures = rules.figures.then(|| figure_numbers_counted(answer, work));
    let mut seen = Distinct::new();
    let mut out: Vec<AnswerValue> = Vec::new();
    let passes = 6 + rules.exempt_patterns.len() + rules.shapes.len();
    // With no declared shape a value holds a digit, and normalizing adds
    // none: a piece without one is passed over unread.
    tokenize_where(answer, rules.shapes.is_empty(), |token| {
        work.add(token.len() * passes);
        if let Some((value, shape, glued)) = rules.reading(token, figures.as_ref()) {
            if seen.first(&value, &out) {
                out.push(AnswerValue {
                    value: value.into_owned(),
                    shape,
                    token: glued.then(|| token.to_vec()),
                });
            }
        }
    });
    out
}

/// The values an answer has asserted so far, found by spelling: an
/// open-addressed table of their places in the answer's list, so that a
/// token is hashed once and a repeated value copies nothing. The hash is
/// the process's keyed one, as `HashSet`'s: an answer cannot be written
/// to collide.
struct Distinct {
    hasher: RandomState,
    /// (hash, place in the list); `EMPTY` marks a free slot.
    slots: Vec<(u64, u32)>,
    used: usize,
}

const EMPTY: u32 = u32::MAX;

impl Distinct {
    fn new() -> Self {
        Distinct { hasher: RandomState::new(), slots: vec![(0, EMPTY); 64], used: 0 }
    }

    /// Whether `value` is new to `listed`; if it is, it is taken to be
    /// pushed next (at `listed.len()`).
    fn first(&mut self, value: &[u16], listed: &[AnswerValue]) -> bool {
        let hash = self.hasher.hash_one(value);
        let mask = self.slots.len() - 1;
        let mut at = hash as usize & mask;
        loop {
            let (held, place) = self.slots[at];
            if place == EMPTY {
                break;
            }
            if held == hash && listed[place as usize].value == value {
                return false;
            }
            at = (at + 1) & mask;
        }
        self.slots[at] = (hash, listed.len() as u32);
        self.used += 1;
        if self.used * 2 > self.slots.len() {
            self.grow();
        }
        true
    }

    fn grow(&mut self) {
        let old = std::mem::replace(&mut self.slots, vec![(0, EMPTY); 0]);
        self.slots = vec![(0, EMPTY); old.len() * 2];
        let mask = self.slots.len() - 1;
        for (hash, place) in old.into_iter().filter(|&(_, place)| place != EMPTY) {
            let mut at = hash as usize & mask;
            while self.slots[at].1 != EMPTY {
                at = (at + 1) & mask;
            }
            self.slots[at] = (hash, place);
        }
    }
}

/// The spellings a value is looked up under: its value's forms, then its
/// glued token's, distinct (agentfootprint's `candidateForms`). The lookup
/// widens; the index of what tools returned never does.
pub fn candidate_forms(value: &AnswerValue) -> Forms<'_> {
    let mut forms = Forms { held: [&[]; 4], len: 0 };
    for form in lookup_forms(&value.value) {
        forms.push(form);
    }
    if let Some(token) = &value.token {
        for form in lookup_forms(token) {
            if !forms.contains(&form) {
                forms.push(form);
            }
        }
    }
    forms
}

/// A value's spellings: at most two of its own and two of its glued
/// token's, held without an allocation (one judgement reads thousands).
#[derive(Clone, Copy, Debug)]
pub struct Forms<'v> {
    held: [&'v [u16]; 4],
    len: usize,
}

impl<'v> Forms<'v> {
    fn push(&mut self, form: &'v [u16]) {
        self.held[self.len] = form;
        self.len += 1;
    }
}

impl<'v> std::ops::Deref for Forms<'v> {
    type Target = [&'v [u16]];

    fn deref(&self) -> &Self::Target {
        &self.held[..self.len]
    }
}

#[cfg(test)]
mod tests;
