//! Figures: a number wearing a unit of measure is a reading, whatever its
//! length (agentfootprint's figures dial, its rule 1).
//!
//! A bare `53.2` is under `minDigits` and reads as prose, like "3 issues";
//! `53.2%` and `6.3 TB` are measurements someone read off a screen. With
//! `figures` on, every number the answer writes with a unit glued or one
//! whitespace apart is a candidate, shaped `figure`. The units are
//! [`FIGURE_UNITS`], in any case, a size optionally followed by `/s`.
//!
//! The scan reproduces agentfootprint's regular expression
//! `(?<![\w.,])([-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?)\s?(%|(?:units)(?:\/s)?(?![a-z0-9]))`
//! (flags `gi`) as `matchAll` runs it: left to right, each search starting
//! where the last match ended, the alternatives tried in its order. Its
//! `\s` is JavaScript's whitespace (U+00A0 and U+2009 included); its `\d`
//! and `\w` are ASCII. Each start position costs the digits it reads, and
//! a digit run is read from at most two starts (its sign and its first
//! digit), so the scan is linear.

use std::collections::HashSet;

use super::normalize::normalize_token;
use super::Work;
use crate::checks::text::js_string::is_js_whitespace;

/// The units that make a number a figure, in the order they are tried.
pub const FIGURE_UNITS: [&str; 17] = [
    "%", "percent", "kb", "mb", "gb", "tb", "pb", "kib", "mib", "gib", "tib", "pib", "iops", "mbps", "gbps",
    "ms", "us",
];

fn is_digit(unit: u16) -> bool {
    (0x30..=0x39).contains(&unit)
}

fn is_word_or_alnum(unit: u16) -> bool {
    unit < 0x80 && (unit as u8).is_ascii_alphanumeric()
}

/// ASCII case-insensitive: `text[at..]` starts with `word` (lower-case).
fn starts_with_word(text: &[u16], at: usize, word: &str) -> bool {
    let bytes = word.as_bytes();
    text.len() >= at + bytes.len()
        && bytes.iter().enumerate().all(|(i, &b)| {
            let unit = text[at + i];
            unit < 0x80 && (unit as u8).to_ascii_lowercase() == b
        })
}

fn digit_run(text: &[u16], at: usize, work: &Work) -> usize {
    let run = text[at.min(text.len())..].iter().take_while(|&&u| is_digit(u)).count();
    work.add(run + 1);
    run
}

/// `(%|(?:units)(?:\/s)?(?![a-z0-9]))` at `at`: where the unit ends.
fn unit_at(text: &[u16], at: usize, work: &Work) -> Option<usize> {
    work.add(FIGURE_UNITS.len());
    if text.get(at) == Some(&0x25) {
        return Some(at + 1);
    }
    let free = |end: usize| text.get(end).is_none_or(|&u| !is_word_or_alnum(u));
    for unit in &FIGURE_UNITS[1..] {
        if !starts_with_word(text, at, unit) {
            continue;
        }
        let end = at + unit.len();
        if starts_with_word(text, end, "/s") && free(end + 2) {
            return Some(end + 2);
        }
        if free(end) {
            return Some(end);
        }
    }
    None
}

/// `\s?` then the unit, at `at`.
fn spaced_unit_at(text: &[u16], at: usize, work: &Work) -> Option<usize> {
    if text.get(at).is_some_and(|&u| is_js_whitespace(u)) {
        if let Some(end) = unit_at(text, at + 1, work) {
            return Some(end);
        }
    }
    unit_at(text, at, work)
}

/// `(?:\.\d+)?` then the spaced unit, at `at`: (end of the number, end of
/// the match).
fn after_integer(text: &[u16], at: usize, work: &Work) -> Option<(usize, usize)> {
    if text.get(at) == Some(&0x2E) {
        let fraction = digit_run(text, at + 1, work);
        if fraction > 0 {
            if let Some(end) = spaced_unit_at(text, at + 1 + fraction, work) {
                return Some((at + 1 + fraction, end));
            }
        }
    }
    spaced_unit_at(text, at, work).map(|end| (at, end))
}

/// The match starting at `start`, if any: (end of the number, end of the match).
fn match_at(text: &[u16], start: usize, work: &Work) -> Option<(usize, usize)> {
    if start > 0 {
        let before = text[start - 1];
        if is_word_or_alnum(before) || matches!(before, 0x5F | 0x2E | 0x2C) {
            return None;
        }
    }
    let mut at = start;
    if matches!(text.get(at), Some(0x2B | 0x2D)) {
        at += 1;
    }
    let run = digit_run(text, at, work);
    if run == 0 {
        return None;
    }
    // `\d{1,3}(?:,\d{3})+`: the groups, most first.
    if run <= 3 {
        let mut ends = Vec::new();
        let mut end = at + run;
        while text.get(end) == Some(&0x2C) && digit_run(text, end + 1, work) >= 3 {
            end += 4;
            ends.push(end);
        }
        for &end in ends.iter().rev() {
            if let Some(found) = after_integer(text, end, work) {
                return Some(found);
            }
        }
    }
    // `\d+`: only the whole run can be followed by what comes next.
    after_integer(text, at + run, work)
}

/// The normalized numbers `answer` writes as figures (agentfootprint's
/// `figureNumbersOf`).
pub fn figure_numbers(answer: &[u16]) -> HashSet<Vec<u16>> {
    figure_numbers_counted(answer, &Work::default())
}

pub(crate) fn figure_numbers_counted(answer: &[u16], work: &Work) -> HashSet<Vec<u16>> {
    let mut out = HashSet::new();
    let mut at = 0;
    while at < answer.len() {
        work.add(1);
        match match_at(answer, at, work) {
            Some((number_end, end)) => {
                work.add(number_end - at);
                let number = normalize_token(&answer[at..number_end]);
                if !number.is_empty() {
                    out.insert(number);
                }
                at = end;
            }
            None => at += 1,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::text::js_string::units;

    fn figures(text: &str) -> Vec<String> {
        let mut out: Vec<String> =
            figure_numbers(&units(text)).iter().map(|n| String::from_utf16(n).unwrap()).collect();
        out.sort();
        out
    }

    #[test]
    fn figure_table() {
        for (text, expected) in [
            (
                "53.2% used, 6.3 TB free, 24.8TB, 41,200 IOPS, 7 ms, 2 GB/s",
                vec!["2", "24.8", "41200", "53.2", "6.3", "7"],
            ),
            ("3 issues over 24 hours on a 48-port switch, OneFS 9.5, 1.5x", vec![]),
            ("5\u{a0}tb and 6\u{2009}ms and 7\u{85}ms", vec!["5", "6"]),
            ("v1.5 tb, a5 tb, a-5 tb, -7 tb", vec!["-7", "5"]),
            ("1,234,5678 TB", vec![]),
            ("1,234,567.5 TiB 3 Mbps 4 MBPSx 5 GB/S", vec!["1234567.5", "3", "5"]),
            ("12,34 tb", vec![]),
            ("9 kb/s2 8 percent", vec!["8", "9"]),
            ("+3 us", vec!["3"]),
            ("7 \u{212A}b", vec![]),
        ] {
            assert_eq!(figures(text), expected, "{text:?}");
        }
    }
}
