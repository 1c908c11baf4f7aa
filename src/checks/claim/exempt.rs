//! The other spellings of the dates and clock times a person or an app wrote,
//! for the exempt corpus only.
//!
//! A user who asks about `2026-10-09` has said `2026`, and one who asks
//! "what happened at 8 Am" has said `8:00`; an answer that respells either is
//! not inventing it. Only exempt text gains these spellings: a tool's
//! timestamp never grounds a year the answer made up. Three rules, each a
//! respelling and never a reading (agentfootprint's `dateAndClockForms`):
//!
//! - an ISO date `YYYY-MM-DD` (month 1-12, day 1-31, not inside a longer run
//!   of digits or dashes) gives its year, month and day as written numbers;
//! - a 12-hour reading (`8 Am`, `8:40 AM`, `8pm`, `8:40 p.m.`; hour 1-12)
//!   gives its clock spellings;
//! - a 24-hour token (`20:00`, `08:40`; hour 0-23) gives the same set, read
//!   only from text the 12-hour rule left.
//!
//! A clock time's spellings: `H:MM`, `HH:MM`, the 12-hour `h:MM` and
//! `h:MMam`/`h:MMpm`. So after tokenizing `8:00 PM` and `8:00 AM` both
//! read `8:00`, and a person who wrote `20:00` exempts an answer's `8:00`:
//! the same hour on a 12-hour dial.

use super::normalize::tokenize;
use crate::checks::text::js_string::{is_js_whitespace, push_str};

fn is_digit(unit: u16) -> bool {
    (0x30..=0x39).contains(&unit)
}

fn number_of(digits: &[u16]) -> u32 {
    digits.iter().fold(0, |n, &digit| n * 10 + u32::from(digit - 0x30))
}

/// Hands each spelling of every date and clock time in `text` to `each`, as
/// a string; repeats are possible, and harmless to a set.
pub fn date_and_clock_forms(text: &[u16], each: &mut dyn FnMut(&[u16])) {
    iso_dates(text, each);
    let left = twelve_hour(text, each);
    tokenize(&left, |token| {
        let Some(colon) = token.iter().position(|&unit| unit == 0x3A) else { return };
        let (hours, minutes) = (&token[..colon], &token[colon + 1..]);
        if !(1..=2).contains(&hours.len())
            || minutes.len() != 2
            || !hours.iter().chain(minutes).all(|&unit| is_digit(unit))
        {
            return;
        }
        let h24 = number_of(hours);
        if h24 > 23 || number_of(minutes) > 59 {
            return;
        }
        clock_spellings(h24, minutes, each);
    });
}

/// `(?<![\d-])(\d{4})-(\d{2})-(\d{2})(?!\d)`: year, month and day.
fn iso_dates(text: &[u16], each: &mut dyn FnMut(&[u16])) {
    let shape = |window: &[u16]| {
        window
            .iter()
            .enumerate()
            .all(|(i, &unit)| if i == 4 || i == 7 { unit == 0x2D } else { is_digit(unit) })
    };
    for start in 0..text.len().saturating_sub(9) {
        let window = &text[start..start + 10];
        if !shape(window)
            || start > 0 && (is_digit(text[start - 1]) || text[start - 1] == 0x2D)
            || text.get(start + 10).is_some_and(|&unit| is_digit(unit))
        {
            continue;
        }
        let (month, day) = (number_of(&window[5..7]), number_of(&window[8..10]));
        if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
            continue;
        }
        each(&window[..4]);
        each(&units_of(&month.to_string()));
        each(&units_of(&day.to_string()));
    }
}

/// Reads every `(?<![\d:.])(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m(?![a-z])`
/// (case-insensitive, ASCII letters only) left to right, hands on the
/// spellings of each valid one, and returns the text with each match
/// replaced by a space, for the 24-hour rule.
fn twelve_hour(text: &[u16], each: &mut dyn FnMut(&[u16])) -> Vec<u16> {
    let mut left = Vec::with_capacity(text.len());
    let mut copied = 0;
    let mut at = 0;
    while at < text.len() {
        let Some((end, hours, minutes, pm)) = twelve_hour_at(text, at) else {
            at += 1;
            continue;
        };
        let hour = number_of(hours);
        let minutes: &[u16] = minutes.unwrap_or(&[0x30, 0x30]);
        if (1..=12).contains(&hour) && number_of(minutes) <= 59 {
            clock_spellings(hour % 12 + if pm { 12 } else { 0 }, minutes, each);
        }
        left.extend_from_slice(&text[copied..at]);
        left.push(0x20);
        copied = end;
        at = end;
    }
    left.extend_from_slice(&text[copied..]);
    left
}

/// A 12-hour reading: where it ends, its hour digits, its minute digits
/// when written, and whether it is p.m.
type TwelveHour<'t> = (usize, &'t [u16], Option<&'t [u16]>, bool);

/// A 12-hour reading starting exactly at `at`, as the regular expression
/// would match it there (backtracking included): its end, hour digits,
/// minute digits and whether it is p.m.
fn twelve_hour_at(text: &[u16], at: usize) -> Option<TwelveHour<'_>> {
    if at > 0 && (is_digit(text[at - 1]) || text[at - 1] == 0x3A || text[at - 1] == 0x2E) {
        return None;
    }
    let run = text[at..].iter().take(2).take_while(|&&unit| is_digit(unit)).count();
    for hours in (1..=run).rev() {
        let after_hours = at + hours;
        let with_minutes = (text.get(after_hours) == Some(&0x3A)
            && text.get(after_hours + 1..after_hours + 3).is_some_and(|m| m.iter().all(|&u| is_digit(u))))
        .then_some(after_hours + 3);
        for minutes_end in with_minutes.into_iter().chain(std::iter::once(after_hours)) {
            if let Some((end, pm)) = meridiem_at(text, minutes_end) {
                let minutes = (minutes_end != after_hours).then(|| &text[after_hours + 1..minutes_end]);
                return Some((end, &text[at..after_hours], minutes, pm));
            }
        }
    }
    None
}

/// `\s*([ap])\.?m(?![a-z])` at `at`, case-insensitive: where it ends and
/// whether it is p.m.
fn meridiem_at(text: &[u16], at: usize) -> Option<(usize, bool)> {
    let lower = |unit: u16| if (0x41..=0x5A).contains(&unit) { unit | 0x20 } else { unit };
    let mut i = at + text[at..].iter().take_while(|&&unit| is_js_whitespace(unit)).count();
    let pm = match text.get(i).map(|&unit| lower(unit)) {
        Some(0x61) => false,
        Some(0x70) => true,
        _ => return None,
    };
    i += 1;
    // `\.?` is greedy: with the dot first, then without (which needs `m`
    // where the dot is, so it cannot match when there is a dot).
    if text.get(i) == Some(&0x2E) {
        i += 1;
    }
    if text.get(i).map(|&unit| lower(unit)) != Some(0x6D) {
        return None;
    }
    i += 1;
    if text.get(i).is_some_and(|&unit| (0x61..=0x7A).contains(&lower(unit))) {
        return None;
    }
    Some((i, pm))
}

/// The spellings of one clock time, `minutes` as written (two digits).
fn clock_spellings(h24: u32, minutes: &[u16], each: &mut dyn FnMut(&[u16])) {
    let h12 = if h24.is_multiple_of(12) { 12 } else { h24 % 12 };
    let suffix = if h24 < 12 { "am" } else { "pm" };
    let minutes = String::from_utf16_lossy(minutes);
    for form in [
        format!("{h24}:{minutes}"),
        format!("{h24:02}:{minutes}"),
        format!("{h12}:{minutes}"),
        format!("{h12}:{minutes}{suffix}"),
    ] {
        each(&units_of(&form));
    }
}

fn units_of(text: &str) -> Vec<u16> {
    let mut units = Vec::with_capacity(text.len());
    push_str(&mut units, text);
    units
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::text::js_string::units;

    fn forms(text: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        date_and_clock_forms(&units(text), &mut |form| {
            let form = String::from_utf16(form).unwrap();
            if !out.contains(&form) {
                out.push(form);
            }
        });
        out
    }

    /// agentfootprint's own examples, then the corners of its expressions.
    #[test]
    fn spellings_table() {
        for (text, expected) in [
            (
                "what connected 8 Am to 8:40 AM PST",
                vec!["8:00", "08:00", "8:00am", "8:40", "08:40", "8:40am"],
            ),
            ("2026-10-09", vec!["2026", "10", "9"]),
            ("took 2h", vec![]),
            ("at 20:00 sharp", vec!["20:00", "8:00", "8:00pm"]),
            ("8:40 p.m. then 08:40", vec!["20:40", "8:40", "8:40pm", "08:40", "8:40am"]),
            ("12am and 12 PM", vec!["0:00", "00:00", "12:00", "12:00am", "12:00", "12:00pm"]),
            ("13pm 0am 12:60pm", vec![]),
            ("123pm 1.5pm x:7pm", vec![]),
            ("8 amber 8pmx 8 a.m", vec!["8:00", "08:00", "8:00am"]),
            ("2026-13-01 2026-00-10 12026-10-09 -2026-10-09 2026-10-091 2026-02-31", vec!["2026", "2", "31"]),
            ("24:00 23:59 7:5 123:45", vec!["23:59", "11:59", "11:59pm"]),
        ] {
            let mut expected: Vec<String> = expected.into_iter().map(String::from).collect();
            expected.dedup();
            let mut unique = Vec::new();
            for form in expected {
                if !unique.contains(&form) {
                    unique.push(form);
                }
            }
            assert_eq!(forms(text), unique, "{text:?}");
        }
    }
}
