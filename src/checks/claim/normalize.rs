//! One spelling per value, the same on the answer's side and the tool
//! results' side of the comparison.
//!
//! A tool returns the number `41200`; the model writes `41,200 IOPS.`. Both
//! sides pass through [`normalize_token`] before they meet, so the comma,
//! the case and the full stop are presentation and the value is one. The
//! rules are agentfootprint's (`normalize.ts`) to the UTF-16 code unit:
//!
//! - lower-case (`String.prototype.toLowerCase`), then trim (its `trim`);
//! - drop leading `$ # @ + ' " ` ( [ { <` and trailing
//!   `. , ; : ! ? % ' " ` ) ] } >`;
//! - drop the commas of a thousands-separated number (`-?d{1,3}(,ddd)+(.d+)?`);
//! - respell a plain number (`-?d+(.d+)?`) of at most 15 digits the way
//!   JavaScript prints `Number(v)`: `007` is `7`, `98304.0` is `98304`,
//!   `0.0000001` is `1e-7`. Past 15 digits a number is a serial, not a
//!   quantity, and keeps its digits.
//!
//! Digits are the ASCII ones throughout, as JavaScript's `\d` is: `٤١٢٠٠` is
//! not a number here, and neither side ever reads it as one.

use crate::checks::text::js_string;

/// A plain number longer than this many digits keeps its spelling, because
/// a double cannot hold it exactly.
pub const MAX_EXACT_DIGITS: usize = 15;

fn is_digit(unit: u16) -> bool {
    (0x30..=0x39).contains(&unit)
}

fn is_leading_decoration(unit: u16) -> bool {
    matches!(unit, 0x24 | 0x23 | 0x40 | 0x2B | 0x27 | 0x22 | 0x60 | 0x28 | 0x5B | 0x7B | 0x3C)
}

fn is_trailing_decoration(unit: u16) -> bool {
    matches!(
        unit,
        0x2E | 0x2C | 0x3B | 0x3A | 0x21 | 0x3F | 0x25 | 0x27 | 0x22 | 0x60 | 0x29 | 0x5D | 0x7D | 0x3E
    )
}

/// Whether `unit` may sit inside a token: ASCII letters and digits and
/// `: _ - / . , % + @ # $`. Everything else separates tokens, so a value in
/// a markdown cell or in `**bold**` reads as the bare value.
pub const fn is_token_unit(unit: u16) -> bool {
    match unit {
        0x30..=0x39 | 0x41..=0x5A | 0x61..=0x7A => true,
        _ => matches!(unit, 0x3A | 0x5F | 0x2D | 0x2F | 0x2E | 0x2C | 0x25 | 0x2B | 0x40 | 0x23 | 0x24),
    }
}

/// How many ASCII digits `units` holds.
pub fn count_digits(units: &[u16]) -> usize {
    units.iter().filter(|&&unit| is_digit(unit)).count()
}

/// The length of the run of digits at the start of `units`.
fn digit_run(units: &[u16]) -> usize {
    units.iter().take_while(|&&unit| is_digit(unit)).count()
}

/// `-?\d+(\.\d+)?`, whole: a plain number. `+` is never left at the front
/// of a normalized token (it is decoration), so only `-` is a sign here.
/// Returns the split: (negative, integer digits, fraction digits).
fn plain_number(units: &[u16]) -> Option<(bool, &[u16], &[u16])> {
    let (negative, rest) = match units.first() {
        Some(0x2D) => (true, &units[1..]),
        _ => (false, units),
    };
    let whole = digit_run(rest);
    if whole == 0 {
        return None;
    }
    let (integer, tail) = rest.split_at(whole);
    match tail {
        [] => Some((negative, integer, &[])),
        [0x2E, fraction @ ..] if !fraction.is_empty() && digit_run(fraction) == fraction.len() => {
            Some((negative, integer, fraction))
        }
        _ => None,
    }
}

/// `^-?\d{1,3}(,\d{3})+(\.\d+)?$`: a number wearing thousands separators.
fn is_thousands(units: &[u16]) -> bool {
    let rest = match units.first() {
        Some(0x2D) => &units[1..],
        _ => units,
    };
    let lead = digit_run(rest);
    if !(1..=3).contains(&lead) {
        return false;
    }
    let mut rest = &rest[lead..];
    let mut groups = 0;
    while let [0x2C, a, b, c, after @ ..] = rest {
        if !(is_digit(*a) && is_digit(*b) && is_digit(*c)) {
            break;
        }
        groups += 1;
        rest = after;
    }
    if groups == 0 {
        return false;
    }
    match rest {
        [] => true,
        [0x2E, fraction @ ..] => !fraction.is_empty() && digit_run(fraction) == fraction.len(),
        _ => false,
    }
}

/// `String(Number(v))` for a plain decimal of at most [`MAX_EXACT_DIGITS`]
/// digits. A decimal that short is held by a double exactly enough that the
/// shortest spelling JavaScript prints is the decimal itself, less its
/// redundant zeros; so the answer is built from the digits, with no float
/// in between.
fn js_number_spelling(negative: bool, integer: &[u16], fraction: &[u16]) -> Vec<u16> {
    let all: Vec<u16> = integer.iter().chain(fraction).copied().collect();
    let lead = all.iter().take_while(|&&unit| unit == 0x30).count();
    let trail = all[lead..].iter().rev().take_while(|&&unit| unit == 0x30).count();
    let digits = &all[lead..all.len() - trail];
    if digits.is_empty() {
        return vec![0x30];
    }
    lay_out(negative, digits, integer.len() as isize - lead as isize)
}

/// `Number.prototype.toString()` of a finite double (`String(n)`): the
/// shortest digits that read back as `n` (Rust's `{:e}` finds the same
/// ones), laid out as JavaScript lays them out: `1e21`, `1.5e-7`, `-0` as
/// `0`. NaN and the infinities are spelt as JavaScript spells them.
pub fn js_number_string(n: f64) -> Vec<u16> {
    if n.is_nan() {
        return js_string::units("NaN");
    }
    if n.is_infinite() {
        return js_string::units(if n > 0.0 { "Infinity" } else { "-Infinity" });
    }
    if n == 0.0 {
        return vec![0x30];
    }
    let scientific = format!("{:e}", n.abs());
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: isize = exponent.parse().unwrap_or(0);
    let digits: Vec<u16> = mantissa.bytes().filter(u8::is_ascii_digit).map(u16::from).collect();
    lay_out(n < 0.0, &digits, exponent + 1)
}

/// Significant `digits` (no leading or trailing zero) of the value
/// 0.DIGITS × 10^point, laid out as `Number.prototype.toString` does.
fn lay_out(negative: bool, digits: &[u16], point: isize) -> Vec<u16> {
    let count = digits.len() as isize;
    let mut out = Vec::with_capacity(digits.len() + 8);
    if negative {
        out.push(0x2D);
    }
    if count <= point && point <= 21 {
        out.extend_from_slice(digits);
        out.extend(std::iter::repeat_n(0x30, (point - count) as usize));
    } else if 0 < point && point <= 21 {
        out.extend_from_slice(&digits[..point as usize]);
        out.push(0x2E);
        out.extend_from_slice(&digits[point as usize..]);
    } else if -6 < point && point <= 0 {
        out.extend_from_slice(&[0x30, 0x2E]);
        out.extend(std::iter::repeat_n(0x30, (-point) as usize));
        out.extend_from_slice(digits);
    } else {
        out.push(digits[0]);
        if digits.len() > 1 {
            out.push(0x2E);
            out.extend_from_slice(&digits[1..]);
        }
        out.push(0x65);
        let exponent = point - 1;
        out.push(if exponent < 0 { 0x2D } else { 0x2B });
        js_string::push_str(&mut out, &exponent.unsigned_abs().to_string());
    }
    out
}

/// The form both sides compare on (agentfootprint's `normalizeToken`).
/// Empty for a token that is nothing but decoration: callers drop those.
pub fn normalize_token(raw: &[u16]) -> Vec<u16> {
    let mut value = Vec::new();
    normalize_into(raw, &mut value);
    value
}

/// [`normalize_token`] into `out` (cleared first), so a caller reading
/// many tokens reuses one buffer.
pub fn normalize_into(raw: &[u16], out: &mut Vec<u16>) {
    out.clear();
    if raw.iter().all(|&unit| unit < 0x80) {
        // ASCII (every token the tokenizer cuts): lowering changes no
        // unit's class, so the trim and the decoration are cut from the
        // raw units and only the core is lowered, into `out`, in one copy.
        let core = undecorated(js_string::trim(raw));
        if is_thousands(core) {
            out.extend(core.iter().copied().filter(|&unit| unit != 0x2C));
        } else {
            out.extend(
                core.iter().map(|&unit| if (0x41..=0x5A).contains(&unit) { unit | 0x20 } else { unit }),
            );
        }
    } else {
        lowered_core_into(raw, out);
    }
    respell_number(out);
}

/// The general reading's first steps (any UTF-16): lower-case the whole
/// text, trim it, cut its decoration, drop thousands separators.
fn lowered_core_into(raw: &[u16], out: &mut Vec<u16>) {
    let lowered = js_string::to_lower(raw);
    let core = undecorated(js_string::trim(&lowered));
    if is_thousands(core) {
        out.extend(core.iter().copied().filter(|&unit| unit != 0x2C));
    } else {
        out.extend_from_slice(core);
    }
}

/// Respells `out` in place when it is a plain number JavaScript would
/// print otherwise.
fn respell_number(out: &mut Vec<u16>) {
    if let Some((negative, integer, fraction)) = plain_number(out) {
        // A whole number without a leading zero is spelt as it is written
        // (the common case, with no copy); `-0`, `007`, `1.50` are not.
        let as_written = fraction.is_empty() && integer.first() != Some(&0x30);
        if !as_written && integer.len() + fraction.len() <= MAX_EXACT_DIGITS {
            let spelt = js_number_spelling(negative, integer, fraction);
            out.clear();
            out.extend_from_slice(&spelt);
        }
    }
}

/// `units` without its leading and trailing decoration.
fn undecorated(units: &[u16]) -> &[u16] {
    let start = units.iter().position(|&unit| !is_leading_decoration(unit)).unwrap_or(units.len());
    let rest = &units[start..];
    let end = rest.iter().rposition(|&unit| !is_trailing_decoration(unit)).map_or(0, |at| at + 1);
    &rest[..end]
}

/// The spellings under which one normalized value is looked up: itself,
/// and for an FCID (`0xef0101`) the bare `ef0101` too, since a switch
/// prints the prefix and a model often drops it (or the reverse).
pub fn lookup_forms(normalized: &[u16]) -> impl Iterator<Item = &[u16]> {
    let bare = match normalized {
        [0x30, 0x78, rest @ ..] if !rest.is_empty() => Some(rest),
        _ => None,
    };
    std::iter::once(normalized).chain(bare)
}

/// Splits free text into normalized tokens, in order, and hands each
/// non-empty one to `each` (agentfootprint's `tokenize`).
///
/// A token is a maximal run of [`is_token_unit`] units. Inside one, a comma
/// with a digit on both sides is a thousands separator; any other comma
/// separates two tokens (`fc1/3,fc1/4`). Matching is token-exact on both
/// sides: a value that only occurs inside a longer token is not that token.
pub fn tokenize(text: &[u16], each: impl FnMut(&[u16])) {
    tokenize_where(text, false, each);
}

/// A token unit's class bits in [`CLASS`].
const TOKEN: u8 = 1;
const DIGIT: u8 = 2;
const COMMA: u8 = 4;

/// The class of each ASCII unit: [`is_token_unit`], digit, comma.
static CLASS: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut unit = 0;
    while unit < 128 {
        if is_token_unit(unit as u16) {
            table[unit] = TOKEN;
        }
        if unit >= 0x30 && unit <= 0x39 {
            table[unit] |= DIGIT;
        }
        if unit == 0x2C {
            table[unit] |= COMMA;
        }
        unit += 1;
    }
    table
};

fn class(unit: u16) -> u8 {
    if unit < 128 {
        CLASS[unit as usize]
    } else {
        0
    }
}

/// [`tokenize`], normalizing and handing on, when `need_digit`, only the
/// pieces holding an ASCII digit: normalizing adds none, so a caller that
/// wants only tokens with a digit has the rest passed over unread.
pub fn tokenize_where(text: &[u16], need_digit: bool, mut each: impl FnMut(&[u16])) {
    let mut buffer = Vec::new();
    let mut emit = |piece: &[u16], digits: bool| {
        if piece.is_empty() || (need_digit && !digits) {
            return;
        }
        normalize_into(piece, &mut buffer);
        if !buffer.is_empty() {
            each(&buffer);
        }
    };
    let mut at = 0;
    while at < text.len() {
        if class(text[at]) & TOKEN == 0 {
            at += 1;
            continue;
        }
        let start = at;
        let mut seen = 0;
        while at < text.len() {
            let bits = class(text[at]);
            if bits & TOKEN == 0 {
                break;
            }
            seen |= bits;
            at += 1;
        }
        let rough = &text[start..at];
        if seen & COMMA == 0 {
            emit(rough, seen & DIGIT != 0);
            continue;
        }
        let mut piece = 0;
        for (index, &unit) in rough.iter().enumerate() {
            let thousands = index > 0
                && is_digit(rough[index - 1])
                && rough.get(index + 1).is_some_and(|&next| is_digit(next));
            if unit == 0x2C && !thousands {
                emit(&rough[piece..index], count_digits(&rough[piece..index]) > 0);
                piece = index + 1;
            }
        }
        emit(&rough[piece..], count_digits(&rough[piece..]) > 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::text::js_string::units;

    fn norm(raw: &str) -> String {
        String::from_utf16(&normalize_token(&units(raw))).unwrap()
    }

    fn tokens(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        tokenize(&units(text), |token| out.push(String::from_utf16(token).unwrap()));
        out
    }

    #[test]
    fn normalize_token_table() {
        for (raw, expected) in [
            ("41,200", "41200"),
            ("41200", "41200"),
            ("41,200.50", "41200.5"),
            ("-1,234", "-1234"),
            ("1,23", "1,23"),
            ("1234,567", "1234,567"),
            ("98304.0", "98304"),
            ("007", "7"),
            ("-0", "0"),
            ("-0.00", "0"),
            ("0.000001", "0.000001"),
            ("0.0000001", "1e-7"),
            ("0.00000012", "1.2e-7"),
            ("123456789012345", "123456789012345"),
            ("9007199254740993", "9007199254740993"),
            ("0000000000000001", "0000000000000001"),
            ("000000000000001", "1"),
            ("1.", "1"),
            ("+5", "5"),
            ("-+5", "-+5"),
            ("$20", "20"),
            ("78%", "78"),
            ("`0xEF0101`", "0xef0101"),
            ("**FC1/3**", "**fc1/3**"),
            ("(ARR-2291).", "arr-2291"),
            ("  \u{a0}Host-7\u{feff} ", "host-7"),
            ("\u{85}7", "\u{85}7"),
            ("...", ""),
            ("", ""),
            ("İ9", "i\u{307}9"),
            ("٤١٢٠٠", "٤١٢٠٠"),
            ("1e5", "1e5"),
        ] {
            assert_eq!(norm(raw), expected, "{raw:?}");
        }
    }

    #[test]
    fn js_number_string_table() {
        for (n, expected) in [
            (0.0, "0"),
            (-0.0, "0"),
            (41200.0, "41200"),
            (98304.5, "98304.5"),
            (-1.5, "-1.5"),
            (0.1 + 0.2, "0.30000000000000004"),
            (1e21, "1e+21"),
            (123456789012345680000.0, "123456789012345680000"),
            (1e-7, "1e-7"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (9007199254740993.0, "9007199254740992"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
        ] {
            assert_eq!(String::from_utf16(&js_number_string(n)).unwrap(), expected, "{n}");
        }
    }

    #[test]
    fn a_lone_surrogate_is_kept_as_it_is() {
        let raw = [0xD800, 0x41, 0x31];
        assert_eq!(normalize_token(&raw), vec![0xD800, 0x61, 0x31]);
    }

    #[test]
    fn lookup_forms_drop_an_fcid_prefix() {
        let forms = |v: &str| -> Vec<String> {
            lookup_forms(&units(v)).map(|f| String::from_utf16(f).unwrap()).collect()
        };
        assert_eq!(forms("0xef0101"), ["0xef0101", "ef0101"]);
        assert_eq!(forms("0x"), ["0x"]);
        assert_eq!(forms("ef0101"), ["ef0101"]);
    }

    #[test]
    fn tokenize_table() {
        for (text, expected) in [
            ("Port fc1/3,fc1/4 at 41,200 IOPS.", vec!["port", "fc1/3", "fc1/4", "at", "41200", "iops"]),
            ("| `ARR-2291` | **7.0.3** |", vec!["arr-2291", "7.0.3"]),
            ("a,,b ,1,2, 3,", vec!["a", "b", "1,2", "3"]),
            ("naïve 42\u{a0}000", vec!["na", "ve", "42", "0"]),
            ("x\u{1F600}y 12\u{2009}345", vec!["x", "y", "12", "345"]),
            ("", vec![]),
        ] {
            assert_eq!(tokens(text), expected, "{text:?}");
        }
    }

    /// The shortcuts (an ASCII token lowered as it is copied, a whole
    /// number without a leading zero kept as written, pieces without a
    /// digit skipped) answer what the plain reading answers.
    mod shortcuts {
        use super::*;
        use proptest::prelude::*;
        use proptest::test_runner::{Config, RngSeed};

        const ALPHABET: &[char] = &[
            'a', 'Z', 'x', '0', '0', '1', '7', '9', ' ', '\t', ',', ',', '.', '-', '+', '$', '#', '@', '%',
            ':', '/', '_', '\'', '"', '(', ']', '{', '>', '!', '?', ';', '`', '*', '|',
        ];

        fn config() -> Config {
            Config {
                cases: 3000,
                rng_seed: RngSeed::Fixed(0x0C1A_1345),
                failure_persistence: None,
                ..Config::default()
            }
        }

        fn text(max: usize) -> impl Strategy<Value = Vec<u16>> {
            proptest::collection::vec(proptest::sample::select(ALPHABET), 0..max)
                .prop_map(|chars| units(&chars.into_iter().collect::<String>()))
        }

        /// The plain reading: lower the whole, trim, cut, then respell any
        /// plain number short enough.
        fn plain(raw: &[u16]) -> Vec<u16> {
            let mut out = Vec::new();
            lowered_core_into(raw, &mut out);
            if let Some((negative, integer, fraction)) = plain_number(&out) {
                if integer.len() + fraction.len() <= MAX_EXACT_DIGITS {
                    out = js_number_spelling(negative, integer, fraction);
                }
            }
            out
        }

        proptest! {
            #![proptest_config(config())]

            #[test]
            fn an_ascii_token_reads_as_the_plain_reading(raw in text(24)) {
                prop_assert_eq!(normalize_token(&raw), plain(&raw));
            }

            #[test]
            fn the_digit_pieces_are_the_tokens_holding_a_digit(raw in text(80)) {
                let mut all = Vec::new();
                tokenize(&raw, |token| {
                    if count_digits(token) > 0 {
                        all.push(token.to_vec());
                    }
                });
                let mut kept = Vec::new();
                tokenize_where(&raw, true, |token| kept.push(token.to_vec()));
                prop_assert_eq!(kept, all);
            }
        }
    }
}
