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

use std::collections::HashSet;

use super::figures::figure_numbers_counted;
use super::normalize::{count_digits, lookup_forms, normalize_token, tokenize};
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
}

impl Default for ValueRules {
    fn default() -> Self {
        ValueRules {
            exempt_values: HashSet::new(),
            exempt_patterns: Vec::new(),
            shapes: Vec::new(),
            min_digits: 4,
            figures: false,
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
        })
    }

    /// The label of `shape`, as answerValuesOf spells it.
    pub fn shape_name(&self, shape: &Shape) -> Vec<u16> {
        match shape {
            Shape::Number => js_string::units("number"),
            Shape::Identifier => js_string::units("identifier"),
            Shape::Figure => js_string::units("figure"),
            Shape::Declared(index) => self.shapes[*index].0.clone(),
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
        if token.is_empty() || self.is_exempt(token) {
            return None;
        }
        if let Some(index) = self.shapes.iter().position(|(_, dfa)| dfa.matches_whole(token)) {
            return Some(AnswerValue { value: token.to_vec(), shape: Shape::Declared(index), token: None });
        }
        if count_digits(token) == 0 || is_prose_ratio(token) {
            return None;
        }
        let tail = number_with_tail(token);
        let numeric = match tail {
            Some(end) => Some(normalize_token(&token[..end])),
            None if bare_number(token) == Some(token.len()) => Some(token.to_vec()),
            None => None,
        };
        if let Some(value) = numeric {
            let glued = (tail.is_some() && token != value.as_slice()).then(|| token.to_vec());
            let shape = if count_digits(&value) >= self.min_digits {
                Shape::Number
            } else if figures.is_some_and(|set| set.contains(&value)) {
                Shape::Figure
            } else {
                return None;
            };
            return Some(AnswerValue { value, shape, token: glued });
        }
        if token.len() < 4 {
            return None;
        }
        let lettered = token.iter().any(|&u| (0x61..=0x7A).contains(&u));
        let structured = token.iter().any(|&u| matches!(u, 0x3A | 0x5F | 0x2D | 0x2F | 0x2E));
        (lettered || structured).then(|| AnswerValue {
            value: token.to_vec(),
            shape: Shape::Identifier,
            token: None,
        })
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
    let mut seen: HashSet<Vec<u16>> = HashSet::new();
    let mut out = Vec::new();
    let passes = 6 + rules.exempt_patterns.len() + rules.shapes.len();
    tokenize(answer, |token| {
        work.add(token.len() * passes);
        if let Some(value) = rules.classify(token, figures.as_ref()) {
            if !seen.contains(&value.value) {
                seen.insert(value.value.clone());
                out.push(value);
            }
        }
    });
    out
}

/// The spellings a value is looked up under: its value's forms, then its
/// glued token's, distinct (agentfootprint's `candidateForms`). The lookup
/// widens; the index of what tools returned never does.
pub fn candidate_forms(value: &AnswerValue) -> Vec<&[u16]> {
    let mut forms: Vec<&[u16]> = lookup_forms(&value.value).collect();
    if let Some(token) = &value.token {
        for form in lookup_forms(token) {
            if !forms.contains(&form) {
                forms.push(form);
            }
        }
    }
    forms
}

#[cfg(test)]
mod tests;
