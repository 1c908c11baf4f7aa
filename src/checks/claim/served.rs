//! How a served tool result is read for the evidence index: by the JSON
//! grammar as far as it goes, the rest as text.
//!
//! A tool result is often JSON, and tokenizing `{"id":4417,"up":true}` as
//! text yields `id`, `:4417`, `up`, `:true`: every number and boolean the
//! tool returned would read as absent. So a result is read the way
//! agentfootprint's `readResult` reads it:
//!
//! - the whole text (trimmed) is one JSON value: it is walked, keys
//!   included; a capped result's marker (`{"truncated": true, "head": …}`)
//!   has its `head` read again as a result of its own;
//! - otherwise the text opens with complete JSON values (an object or an
//!   array, then more separated by JSON whitespace, as an MCP text result
//!   joins its blocks): they are walked, and what follows them is read on
//!   as below (a framework's note after the JSON is text);
//! - JSON cut short (a capped or truncated result): its complete leaves, in
//!   order, and, when the cut falls inside a string, that string's whole
//!   words as text; never the token the cut may have split;
//! - anything else is text.
//!
//! What comes out is a sequence of [`Piece`]s; how each is indexed is the
//! index's business. One rule matters here: a value is served only as a
//! whole token, never as a substring of one.
//!
//! JSON here is `JSON.parse`'s grammar exactly: strings are UTF-16 with their
//! escapes undone (a `\uD800` stays a lone surrogate), a number is the
//! double the literal rounds to, spelt as `String(n)` spells it, and when an
//! object repeats a key only the last value is kept, as `JSON.parse` keeps
//! it. The reader keeps no stack of its own on the call stack: nesting depth
//! costs heap, not recursion.

use crate::checks::text::js_string::trim;
use std::collections::HashMap;
use std::ops::Range;

/// One thing a served result offers the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Piece<'p> {
    /// A string value: one value whole, and text whose tokens are values.
    String(&'p [u16]),
    /// An object key, or a number or boolean as `String` spells it: one
    /// value, whole.
    Atom(&'p [u16]),
    /// Text: its tokens are values.
    Text(&'p [u16]),
}

/// Reads `text` as a served result and hands each piece to `visit`.
pub fn read_served(text: &[u16], visit: &mut dyn FnMut(Piece<'_>)) {
    let trimmed = trim(text);
    if matches!(trimmed.first(), Some(&(OPEN_OBJECT | OPEN_ARRAY))) {
        if let Some(read) = parse_value(trimmed) {
            read.visit(visit);
            if let Some(head) = read.capped_head() {
                read_served(&head, visit);
            }
            return;
        }
    }
    let (values, rest) = leading_values(text);
    for read in &values {
        read.visit(visit);
    }
    if rest.is_empty() {
        return;
    }
    match json_prefix(rest) {
        Some(prefix) => {
            for leaf in &prefix.leaves {
                visit(Piece::String(leaf));
            }
            if let Some(words) = &prefix.words {
                visit(Piece::Text(words));
            }
        }
        None => visit(Piece::Text(rest)),
    }
}

const OPEN_OBJECT: u16 = b'{' as u16;
const CLOSE_OBJECT: u16 = b'}' as u16;
const OPEN_ARRAY: u16 = b'[' as u16;
const CLOSE_ARRAY: u16 = b']' as u16;
const QUOTE: u16 = b'"' as u16;
const BACKSLASH: u16 = b'\\' as u16;
const COMMA: u16 = b',' as u16;
const COLON: u16 = b':' as u16;

/// JSON's whitespace: space, tab, line feed, carriage return.
fn is_json_space(unit: u16) -> bool {
    matches!(unit, 0x20 | 0x09 | 0x0A | 0x0D)
}

fn skip_space(text: &[u16], from: usize) -> usize {
    from + text[from..].iter().take_while(|&&unit| is_json_space(unit)).count()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    String,
    Atom,
}

/// One parsed JSON value, as the pieces its walk yields: every key, every
/// string, number and boolean (never `null`), with the values a repeated
/// key overwrote left out.
#[derive(Debug, Default)]
struct Parsed {
    /// The pieces' units, one after the other.
    units: Vec<u16>,
    pieces: Vec<(Kind, Range<usize>)>,
    /// Pieces a later value of the same key replaced.
    gone: Vec<bool>,
    /// The top-level object's `head` string, when its `truncated` is `true`.
    capped_head: Option<Range<usize>>,
}

impl Parsed {
    fn visit(&self, visit: &mut dyn FnMut(Piece<'_>)) {
        for (index, (kind, range)) in self.pieces.iter().enumerate() {
            if self.gone[index] {
                continue;
            }
            let units = &self.units[range.clone()];
            visit(match kind {
                Kind::String => Piece::String(units),
                Kind::Atom => Piece::Atom(units),
            });
        }
    }

    fn capped_head(&self) -> Option<Vec<u16>> {
        self.capped_head.clone().map(|range| self.units[range].to_vec())
    }

    fn push(&mut self, kind: Kind, units: &[u16]) -> usize {
        let start = self.units.len();
        self.units.extend_from_slice(units);
        self.pieces.push((kind, start..self.units.len()));
        self.gone.push(false);
        self.pieces.len() - 1
    }
}

/// An object being read: each member's key and the pieces its value yielded.
#[derive(Default)]
struct OpenObject {
    members: Vec<(Range<usize>, Range<usize>)>,
    /// For the top level only: the members `truncated` and `head` as read.
    truncated_true: bool,
    head: Option<Range<usize>>,
}

enum Open {
    Array,
    Object(OpenObject),
}

/// `JSON.parse(text)`'s value as pieces, or `None` when `JSON.parse` would
/// throw.
fn parse_value(text: &[u16]) -> Option<Parsed> {
    let mut parsed = Parsed::default();
    let mut stack: Vec<Open> = Vec::new();
    let mut at = skip_space(text, 0);
    // The piece index a member's value starts at, and the key's piece, per
    // open object member.
    let mut member_starts: Vec<(usize, usize)> = Vec::new();
    loop {
        // A value starts at `at`.
        match *text.get(at)? {
            OPEN_OBJECT => {
                at = skip_space(text, at + 1);
                if text.get(at) == Some(&CLOSE_OBJECT) {
                    at += 1;
                } else {
                    stack.push(Open::Object(OpenObject::default()));
                    at = read_key(text, at, &mut parsed, &mut member_starts)?;
                    continue;
                }
            }
            OPEN_ARRAY => {
                at = skip_space(text, at + 1);
                if text.get(at) == Some(&CLOSE_ARRAY) {
                    at += 1;
                } else {
                    stack.push(Open::Array);
                    continue;
                }
            }
            QUOTE => {
                let (end, units) = read_string(text, at)?;
                at = end;
                parsed.push(Kind::String, &units);
            }
            _ => {
                let end = at + text[at..].iter().take_while(|&&unit| is_literal_unit(unit)).count();
                let literal = &text[at..end];
                match literal {
                    [0x74, 0x72, 0x75, 0x65] | [0x66, 0x61, 0x6C, 0x73, 0x65] => {
                        parsed.push(Kind::Atom, literal);
                    }
                    [0x6E, 0x75, 0x6C, 0x6C] => {}
                    _ => {
                        let number = json_number(literal)?;
                        parsed.push(Kind::Atom, &js_number_string(number));
                    }
                }
                at = end;
            }
        }
        // A value ended at `at`: close what it closes, or go on to the next
        // member or element.
        loop {
            at = skip_space(text, at);
            let top_level = stack.len() == 1;
            let Some(open) = stack.last_mut() else {
                return (at == text.len()).then_some(parsed);
            };
            match open {
                Open::Array => match *text.get(at)? {
                    COMMA => {
                        at = skip_space(text, at + 1);
                        break;
                    }
                    CLOSE_ARRAY => {
                        at += 1;
                        stack.pop();
                    }
                    _ => return None,
                },
                Open::Object(object) => {
                    let (value_from, key_piece) = member_starts.pop()?;
                    let key = parsed.pieces[key_piece].1.clone();
                    let value = value_from..parsed.pieces.len();
                    if top_level {
                        note_top_member(object, &parsed, &key, &value);
                    }
                    object.members.push((key, value));
                    match *text.get(at)? {
                        COMMA => {
                            at = skip_space(text, at + 1);
                            at = read_key(text, at, &mut parsed, &mut member_starts)?;
                            break;
                        }
                        CLOSE_OBJECT => {
                            at += 1;
                            let Some(Open::Object(object)) = stack.pop() else { unreachable!() };
                            drop_overwritten(&mut parsed, &object.members);
                            if stack.is_empty() && object.truncated_true {
                                parsed.capped_head = object.head;
                            }
                        }
                        _ => return None,
                    }
                }
            }
        }
    }
}

/// Notes a top-level member that makes a capped result: `truncated: true`
/// and a string `head`. The last value of each key counts.
fn note_top_member(object: &mut OpenObject, parsed: &Parsed, key: &Range<usize>, value: &Range<usize>) {
    let key = &parsed.units[key.clone()];
    let only = (value.len() == 1).then(|| &parsed.pieces[value.start]);
    if key == [0x74, 0x72, 0x75, 0x6E, 0x63, 0x61, 0x74, 0x65, 0x64] {
        object.truncated_true = only.is_some_and(|(kind, range)| {
            *kind == Kind::Atom && parsed.units[range.clone()] == [0x74, 0x72, 0x75, 0x65]
        });
    } else if key == [0x68, 0x65, 0x61, 0x64] {
        object.head = only.filter(|(kind, _)| *kind == Kind::String).map(|(_, range)| range.clone());
    }
}

/// Reads `"key"` and the colon after it, leaving `at` on the member's value.
fn read_key(
    text: &[u16],
    at: usize,
    parsed: &mut Parsed,
    member_starts: &mut Vec<(usize, usize)>,
) -> Option<usize> {
    if text.get(at) != Some(&QUOTE) {
        return None;
    }
    let (end, key) = read_string(text, at)?;
    let key_piece = parsed.push(Kind::Atom, &key);
    let at = skip_space(text, end);
    if text.get(at) != Some(&COLON) {
        return None;
    }
    member_starts.push((parsed.pieces.len(), key_piece));
    Some(skip_space(text, at + 1))
}

/// Marks the values of keys a later member of the same object repeats: the
/// object `JSON.parse` builds keeps only the last.
fn drop_overwritten(parsed: &mut Parsed, members: &[(Range<usize>, Range<usize>)]) {
    if members.len() < 2 {
        return;
    }
    let mut last: HashMap<&[u16], usize> = HashMap::with_capacity(members.len());
    for (index, (key, _)) in members.iter().enumerate() {
        last.insert(&parsed.units[key.clone()], index);
    }
    if last.len() == members.len() {
        return;
    }
    let gone: Vec<Range<usize>> = members
        .iter()
        .enumerate()
        .filter(|(index, (key, _))| last[&parsed.units[key.clone()]] != *index)
        .map(|(_, (_, value))| value.clone())
        .collect();
    for range in gone {
        for flag in &mut parsed.gone[range] {
            *flag = true;
        }
    }
}

/// A unit that can be part of `true`, `false`, `null` or a number.
fn is_literal_unit(unit: u16) -> bool {
    matches!(unit, 0x30..=0x39 | 0x2B | 0x2D | 0x2E | 0x45 | 0x65 | 0x61..=0x7A)
}

/// The double a JSON number literal rounds to, or `None` when the literal is
/// not one: `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`.
fn json_number(literal: &[u16]) -> Option<f64> {
    let digits =
        |from: usize| literal[from..].iter().take_while(|unit| (0x30..=0x39).contains(*unit)).count();
    let mut at = usize::from(literal.first() == Some(&0x2D));
    let whole = digits(at);
    if whole == 0 || (whole > 1 && literal[at] == 0x30) {
        return None;
    }
    at += whole;
    if literal.get(at) == Some(&0x2E) {
        let fraction = digits(at + 1);
        if fraction == 0 {
            return None;
        }
        at += 1 + fraction;
    }
    if matches!(literal.get(at), Some(&(0x45 | 0x65))) {
        at += 1;
        if matches!(literal.get(at), Some(&(0x2B | 0x2D))) {
            at += 1;
        }
        let exponent = digits(at);
        if exponent == 0 {
            return None;
        }
        at += exponent;
    }
    if at != literal.len() {
        return None;
    }
    let ascii: String = literal.iter().map(|&unit| unit as u8 as char).collect();
    ascii.parse::<f64>().ok()
}

/// Reads the string literal opening at `at` (a quote): where it ends, and its
/// units with the escapes undone. `None` when `JSON.parse` would refuse it: a
/// raw control character, an unknown escape, or no closing quote.
fn read_string(text: &[u16], at: usize) -> Option<(usize, Vec<u16>)> {
    let mut units = Vec::new();
    let mut i = at + 1;
    loop {
        let unit = *text.get(i)?;
        match unit {
            QUOTE => return Some((i + 1, units)),
            BACKSLASH => {
                let escaped = *text.get(i + 1)?;
                let plain = match escaped {
                    0x22 | 0x5C | 0x2F => escaped,
                    0x62 => 0x08,
                    0x66 => 0x0C,
                    0x6E => 0x0A,
                    0x72 => 0x0D,
                    0x74 => 0x09,
                    0x75 => {
                        let hex = text.get(i + 2..i + 6)?;
                        let mut code = 0u16;
                        for &digit in hex {
                            code = code * 16 + hex_value(digit)?;
                        }
                        i += 4;
                        code
                    }
                    _ => return None,
                };
                units.push(plain);
                i += 2;
            }
            0x00..=0x1F => return None,
            _ => {
                units.push(unit);
                i += 1;
            }
        }
    }
}

fn hex_value(unit: u16) -> Option<u16> {
    match unit {
        0x30..=0x39 => Some(unit - 0x30),
        0x41..=0x46 => Some(unit - 0x41 + 10),
        0x61..=0x66 => Some(unit - 0x61 + 10),
        _ => None,
    }
}

/// `String(n)` for any double, as `Number.prototype.toString()` spells it:
/// the shortest digits that round-trip, laid out by the exponent.
pub fn js_number_string(n: f64) -> Vec<u16> {
    if n.is_nan() {
        return "NaN".encode_utf16().collect();
    }
    if n == 0.0 {
        return vec![0x30];
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity" } else { "-Infinity" }.encode_utf16().collect();
    }
    // Rust's `{:e}` prints the same shortest round-trip digits, as
    // `d.ddde±x`; JavaScript lays them out by the decimal exponent.
    let scientific = format!("{:e}", n.abs());
    let (mantissa, exponent) = scientific.split_once('e').expect("`{:e}` has an exponent");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let point = exponent.parse::<i32>().expect("a decimal exponent") + 1;
    let count = digits.len() as i32;
    let mut out = String::with_capacity(digits.len() + 8);
    if n < 0.0 {
        out.push('-');
    }
    if count <= point && point <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', (point - count) as usize));
    } else if 0 < point && point <= 21 {
        out.push_str(&digits[..point as usize]);
        out.push('.');
        out.push_str(&digits[point as usize..]);
    } else if -6 < point && point <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-point) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if count > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let exponent = point - 1;
        out.push('e');
        out.push(if exponent < 0 { '-' } else { '+' });
        out.push_str(&exponent.unsigned_abs().to_string());
    }
    out.encode_utf16().collect()
}

/// The complete JSON values `text` opens with (objects or arrays, separated
/// by JSON whitespace), and the text after the last, from its first
/// non-space unit. No values when the text does not open with a complete
/// one that parses.
fn leading_values(text: &[u16]) -> (Vec<Parsed>, &[u16]) {
    let mut values = Vec::new();
    let mut at = skip_space(text, 0);
    while matches!(text.get(at), Some(&(OPEN_OBJECT | OPEN_ARRAY))) {
        let Some(end) = bracketed_end(text, at) else { break };
        let Some(value) = parse_value(&text[at..end]) else { break };
        values.push(value);
        at = skip_space(text, end);
    }
    if values.is_empty() {
        return (values, text);
    }
    (values, &text[at..])
}

/// The end (exclusive) of the bracketed value opening at `start`: strings and
/// their escapes skipped, brackets counted. `None` when the text ends first.
fn bracketed_end(text: &[u16], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = start;
    while i < text.len() {
        let unit = text[i];
        if in_string {
            if unit == BACKSLASH {
                i += 1;
            } else if unit == QUOTE {
                in_string = false;
            }
        } else if unit == QUOTE {
            in_string = true;
        } else if unit == OPEN_OBJECT || unit == OPEN_ARRAY {
            depth += 1;
        } else if unit == CLOSE_OBJECT || unit == CLOSE_ARRAY {
            depth = depth.wrapping_sub(1);
            if depth == 0 {
                return Some(i + 1);
            }
        }
        i += 1;
    }
    None
}

/// What JSON text cut short reads as.
#[derive(Debug, PartialEq)]
struct Prefix {
    /// Every complete key or string (unescaped), number (as `String` spells
    /// it) and boolean, in order; never `null`.
    leaves: Vec<Vec<u16>>,
    /// When the text ends inside a string: its whole words, the string up to
    /// its last space, unescaped.
    words: Option<Vec<u16>>,
}

/// JSON text cut short, read token by token: `None` when it does not open
/// with a bracket, a token is not JSON (the token the text ends inside not
/// even the beginning of one), a bracket does not match, or the value
/// closes (a complete value that did not parse is not JSON).
fn json_prefix(text: &[u16]) -> Option<Prefix> {
    let mut at = skip_space(text, 0);
    if !matches!(text.get(at), Some(&(OPEN_OBJECT | OPEN_ARRAY))) {
        return None;
    }
    let mut leaves = Vec::new();
    let mut open: Vec<u16> = Vec::new();
    while at < text.len() {
        let unit = text[at];
        if is_json_space(unit) || unit == COMMA || unit == COLON {
            at += 1;
        } else if unit == OPEN_OBJECT || unit == OPEN_ARRAY {
            open.push(if unit == OPEN_OBJECT { CLOSE_OBJECT } else { CLOSE_ARRAY });
            at += 1;
        } else if unit == CLOSE_OBJECT || unit == CLOSE_ARRAY {
            if open.pop() != Some(unit) || open.is_empty() {
                return None;
            }
            at += 1;
        } else if unit == QUOTE {
            match string_end(text, at) {
                None => return Some(Prefix { leaves, words: whole_words(&text[at + 1..]) }),
                Some(end) => {
                    let (_, units) = read_string(&text[..end], at)?;
                    leaves.push(units);
                    at = end;
                }
            }
        } else {
            let end = at
                + text[at..].iter().take_while(|&&unit| !is_delimiter(unit) && !is_json_space(unit)).count();
            let literal = &text[at..end];
            if end == text.len() {
                return is_literal_start(literal).then_some(Prefix { leaves, words: None });
            }
            match literal {
                [0x74, 0x72, 0x75, 0x65] | [0x66, 0x61, 0x6C, 0x73, 0x65] => leaves.push(literal.to_vec()),
                [0x6E, 0x75, 0x6C, 0x6C] => {}
                _ => leaves.push(js_number_string(json_number(literal)?)),
            }
            at = end;
        }
    }
    Some(Prefix { leaves, words: None })
}

fn is_delimiter(unit: u16) -> bool {
    matches!(unit, OPEN_OBJECT | CLOSE_OBJECT | OPEN_ARRAY | CLOSE_ARRAY | COMMA | COLON | QUOTE)
}

/// The end (exclusive) of the string literal opening at `start`; `None` when
/// the text ends inside it.
fn string_end(text: &[u16], start: usize) -> Option<usize> {
    let mut i = start + 1;
    while i < text.len() {
        match text[i] {
            BACKSLASH => i += 1,
            QUOTE => return Some(i + 1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The whole words of a string literal's body cut short: the body up to its
/// last space, read as a JSON string. A space cannot sit inside an escape,
/// so that part is complete; the word the cut may have split is left out.
/// `None` when no space is left, that part is not a JSON string's body, or
/// it is only whitespace.
fn whole_words(body: &[u16]) -> Option<Vec<u16>> {
    let last_space = body.iter().rposition(|&unit| unit == 0x20)?;
    let mut quoted = Vec::with_capacity(last_space + 2);
    quoted.push(QUOTE);
    quoted.extend_from_slice(&body[..last_space]);
    quoted.push(QUOTE);
    let (end, words) = read_string(&quoted, 0)?;
    if end != quoted.len() || trim(&words).is_empty() {
        return None;
    }
    Some(words)
}

/// Whether `literal` is how a JSON literal begins: a number (`-`, `4`, `1.`,
/// `1.5e`, `1.5e-`), or a prefix of `true`, `false` or `null`.
fn is_literal_start(literal: &[u16]) -> bool {
    let prefix_of = |word: &[u8]| {
        literal.len() <= word.len() && literal.iter().zip(word).all(|(&u, &b)| u == u16::from(b))
    };
    if prefix_of(b"true") || prefix_of(b"false") || prefix_of(b"null") {
        return true;
    }
    // -?(\d+(\.\d*)?([eE][+-]?\d*)?)?
    let digits =
        |from: usize| literal[from..].iter().take_while(|unit| (0x30..=0x39).contains(*unit)).count();
    let mut at = usize::from(literal.first() == Some(&0x2D));
    if at == literal.len() {
        return true;
    }
    let whole = digits(at);
    if whole == 0 {
        return false;
    }
    at += whole;
    if literal.get(at) == Some(&0x2E) {
        at += 1 + digits(at + 1);
    }
    if matches!(literal.get(at), Some(&(0x45 | 0x65))) {
        at += 1;
        if matches!(literal.get(at), Some(&(0x2B | 0x2D))) {
            at += 1;
        }
        at += digits(at);
    }
    at == literal.len()
}

#[cfg(test)]
mod tests;
