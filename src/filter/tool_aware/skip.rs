//! The skip: where a leak could begin, and how far the text is plain, so
//! that prose passes at memory speed and a try is made only where a leak
//! may begin.

use super::code::Line;
use super::narrated::colon_may_lead;
use super::reader::{is_channel_word, DISTINCTIVE, MAX_WORD};
use super::text::{ascii, is_word, FULL_BAR};
use super::tools::{next_lead, Tools, LONGEST_PREFIX, NARRATION_LEADS};
use crate::filter::engine::general::compile::FEW;
use crate::filter::scan::{narrow_and_mark, Bitmap, Classes};

/// Whether a leak could begin at `at`.
pub(super) fn may_begin(tools: &Tools, text: &[u16], at: usize, before: Option<u16>, blank: bool) -> bool {
    match ascii(text[at]) {
        Some(b'<') => angle_may_open(tools, text, at),
        Some(b'[' | b'{') => true,
        Some(b'`') => blank,
        Some(b':') => colon_may_lead(&text[at..], |rest| tools.name_may_begin(rest)),
        _ if before.is_some_and(is_word) => false,
        Some(b) if b.is_ascii_alphabetic() && blank => line_may_lead(tools, &text[at..]),
        _ => word_may_lead(tools, &text[at..]),
    }
}

/// Whether the `<` at `at` may open what the reader takes there: a special
/// token (`<|`, `<｜`, `<word|>`) or a tag (`<name`, `</`, `<NAME` for an
/// offered name beyond ASCII); not the `<` of `x < y`. Yes when the text
/// ends after it.
fn angle_may_open(tools: &Tools, text: &[u16], at: usize) -> bool {
    text.get(at + 1).is_none_or(|&next| {
        is_word(next)
            || next == FULL_BAR
            || matches!(ascii(next), Some(b'/' | b'|'))
            || (ascii(next).is_none() && tools.name_may_begin(&text[at + 1..]))
    })
}

/// Whether a leak may begin at a letter that starts a line: what
/// [`Reader::lead`](super::reader::Reader::lead) reads there (a channel word before ` to=functions.`
/// or glued by `:` to a distinctive head, or a lone lowercase word of 2 to
/// 16 letters on its line with a tag beginning the next), or what may begin
/// mid-line (see [`word_may_lead`]). Yes when the text ends before that is
/// decided.
fn line_may_lead(tools: &Tools, rest: &[u16]) -> bool {
    word_may_lead(tools, rest) || first_word_may_lead(rest, true)
}

/// What [`line_may_lead`] asks of a line's first word besides whether an
/// offered name or a distinctive prefix begins it: whether it is too long
/// to tell, reaches the text's end, is glued to a distinctive head
/// (`heads`: the caller may know that no lead is there), or stands alone
/// on its line.
fn first_word_may_lead(rest: &[u16], heads: bool) -> bool {
    let word = rest
        .iter()
        .take(MAX_WORD)
        .take_while(|&&unit| ascii(unit).is_some_and(|b| b.is_ascii_alphabetic()))
        .count();
    let after = &rest[word..];
    if word == MAX_WORD || after.is_empty() {
        return true;
    }
    if heads
        && (agrees(" to=functions.", after)
            || (agrees(" to=", after) && is_channel_word(&rest[..word]))
            || (after[0] == u16::from(b':') && DISTINCTIVE.iter().any(|prefix| agrees(prefix, &after[1..]))))
    {
        return true;
    }
    let lowercase = rest[..word].iter().all(|&unit| ascii(unit).is_some_and(|b| b.is_ascii_lowercase()));
    if !(2..=16).contains(&word) || !lowercase {
        return false;
    }
    // A lone word: blanks, then the line's end (or the text's), then a tag.
    let line_end = after.iter().position(|&unit| !matches!(ascii(unit), Some(b' ' | b'\t' | b'\r')));
    line_end.is_none_or(|at| after[at] == u16::from(b'\n') && tag_may_follow(&after[at + 1..]))
}

/// Whether, after a lone word's line break, the next line may begin the
/// tag head [`Reader::lead`](super::reader::Reader::lead) reads there:
/// blanks, then `<`, or the text's end before anything else. A word alone
/// on its line before more prose leads nowhere, and prose is full of them
/// (a heading, a list's item, a name on a signature line).
fn tag_may_follow(rest: &[u16]) -> bool {
    rest.iter()
        .find(|&&unit| !matches!(ascii(unit), Some(b' ' | b'\t')))
        .is_none_or(|&unit| unit == u16::from(b'<'))
}

/// Whether a leak may begin at a word's start that is not a line's: only a
/// head that needs no wrapper can (`functions.NAME`, `to=functions.NAME`,
/// `default_api:NAME`, an offered name that `[ARGS]` or a special token
/// follows, or a narration, `Assistant called tool NAME …`), so `rest` must
/// begin one of those prefixes or an offered name (or end inside one). Any
/// other word costs a table look-up.
fn word_may_lead(tools: &Tools, rest: &[u16]) -> bool {
    // Every distinctive prefix begins with `t`, `f` or `d`.
    match rest.first().and_then(|&unit| ascii(unit)) {
        Some(b't' | b'f' | b'd') if DISTINCTIVE.iter().chain(&["to="]).any(|prefix| agrees(prefix, rest)) => {
            return true
        }
        // A narration's opening (`Assistant called tool `).
        Some(b'A' | b'a' | b'C' | b'c') if NARRATION_LEADS.iter().any(|lead| agrees(lead, rest)) => {
            return true
        }
        _ => {}
    }
    tools.name_may_begin(rest)
}

/// Whether `literal` and `rest` agree as far as both go (`rest` may end
/// inside it).
fn agrees(literal: &str, rest: &[u16]) -> bool {
    literal.bytes().map(u16::from).zip(rest).all(|(a, &b)| a == b)
}

/// A text as [`plain_run`] searches it: narrowed to a byte a unit (see
/// [`narrowed`](crate::filter::scan::narrowed)), for the search of leads, and the places of the units
/// that stop a plain run (`<`, `[`, `{`, a backtick, a line break), marked
/// once, so that a run that stops at every line finds the next stop with a
/// bit scan instead of a new search. Both buffers are reused by every read.
#[derive(Debug, Default)]
pub(super) struct Narrowed {
    bytes: Vec<u8>,
    stops: Bitmap,
    /// Where the units are that may begin a pattern of the filter's next
    /// engine, when the read was asked to mark them (`marked`; see
    /// [`CallStage::feed_lending`](super::stage::CallStage::feed_lending)).
    begins: Bitmap,
    marked: bool,
}

impl Narrowed {
    /// Narrows `text` and marks its stops; returns the work done (units
    /// narrowed and words marked), for the work counter.
    /// `begins`: the units (narrowed) to mark for the next engine, if any.
    pub(super) fn read(&mut self, text: &[u16], begins: Option<[u8; FEW]>) -> usize {
        // A stop is ASCII, and only the unit itself narrows to it.
        let stops = ([b'<', b'[', b'{', b'`', b'\n'], &mut self.stops);
        let begins = begins.map(|units| (units, &mut self.begins));
        self.marked = begins.is_some();
        narrow_and_mark(text, &mut self.bytes, stops, begins);
        text.len() + self.stops.len()
    }

    /// Where the units asked for were marked in the last read, if they were.
    pub(super) fn begins(&self) -> Option<&Bitmap> {
        self.marked.then_some(&self.begins)
    }

    /// [`first_word_may_lead`] without the heads, for the word at `first`:
    /// read from the narrowed bytes sixteen at a time, where they decide
    /// (a word shorter than sixteen letters, and after it its line's first
    /// unit that is no blank). A line start in prose costs a few compares,
    /// not a loop a unit.
    fn first_word_may_lead(&self, text: &[u16], first: usize) -> bool {
        let window = self.bytes.get(first..first + 16).and_then(|bytes| <&[u8; 16]>::try_from(bytes).ok());
        if let Some(window) = window {
            let classes = Classes::of(window);
            // (Narrowed, a unit is an ASCII letter, blank or line feed
            // exactly when it was one.)
            let word = classes.letters.trailing_ones();
            if word < 16 {
                let letters = (1 << word) - 1;
                if !(2..=16).contains(&word) || classes.lowercase & letters != letters {
                    return false;
                }
                // A lone word: blanks after it, then the line's end, then
                // a tag (or the text's end).
                let line_end = (!classes.blanks >> word).trailing_zeros();
                if line_end < 16 - word {
                    let at = word + line_end;
                    return classes.breaks >> at & 1 == 1 && tag_may_follow(&text[first + at as usize + 1..]);
                }
            }
        }
        first_word_may_lead(&text[first..], false)
    }

    /// Where, from `from`, the next unit is that stops a plain run; or `end`.
    fn next_stop(&self, from: usize, end: usize) -> usize {
        self.stops.next(from, end)
    }
}

/// How far from `at` the text is plain, for a line that is not blank and
/// holds no open code span: no unit that may begin a leak (see
/// [`may_begin`]), no backtick (which changes the line), no `{` or `[`
/// (which start a JSON scan); a `<` that opens nothing is passed. Stops at
/// `end`. A line break is passed when
/// the next line's start begins nothing either (its blanks, then a unit
/// that is no stop and cannot lead); then the second value is true, and
/// the line at the end is neither blank nor quoted.
pub(super) fn plain_run(
    tools: &Tools,
    text: &[u16],
    narrowed: &Narrowed,
    at: usize,
    end: usize,
    before: Option<u16>,
    ahead: &mut Ahead,
) -> (usize, bool) {
    let mut crossed = false;
    let mut from = at;
    loop {
        let stop = match ahead.stop {
            Some(stop) if stop >= from => stop,
            _ => *ahead.stop.insert(narrowed.next_stop(from, end)),
        };
        loop {
            if ahead.lead < from {
                ahead.lead = next_lead(tools, &narrowed.bytes, from);
            }
            let candidate = ahead.lead;
            if candidate >= stop {
                break;
            }
            let unit_before = if candidate == 0 { before } else { Some(text[candidate - 1]) };
            if !unit_before.is_some_and(is_word) && word_may_lead(tools, &text[candidate..]) {
                // A narration's `:` before the name begins it (`: NAME Args :{…}`).
                return (colon_before(text, at, candidate) - at, crossed);
            }
            from = candidate + 1;
        }
        if stop >= end {
            // (A name may begin at `end`, in the held tail.)
            return (colon_before(text, at, stop) - at, crossed);
        }
        // A `<` that opens nothing is prose (it leaves the line as it is).
        if text[stop] == u16::from(b'<') && !angle_may_open(tools, text, stop) {
            from = stop + 1;
            continue;
        }
        // The next line's start, read as the unit-by-unit path would read
        // it on a blank line.
        if text[stop] != u16::from(b'\n') {
            return (stop - at, crossed);
        }
        let mut first = stop + 1;
        while first < end && matches!(ascii(text[first]), Some(b' ' | b'\t')) {
            if word_may_lead(tools, &text[first..]) {
                return (stop - at, crossed);
            }
            first += 1;
        }
        let begins = match text.get(first).and_then(|&unit| ascii(unit)) {
            _ if first >= end => true,
            Some(b'<' | b'[' | b'{' | b'`' | b'\n') => true,
            Some(b) if b.is_ascii_alphabetic() => {
                // Where no lead begins at the word or right after it, with
                // room for the longest in the text, only the word itself
                // can say yes.
                if ahead.lead < first {
                    ahead.lead = next_lead(tools, &narrowed.bytes, first);
                }
                let reach = first + MAX_WORD + 1;
                if ahead.lead > reach && reach + tools.longest.max(LONGEST_PREFIX) <= text.len() {
                    narrowed.first_word_may_lead(text, first)
                } else {
                    line_may_lead(tools, &text[first..])
                }
            }
            _ => word_may_lead(tools, &text[first..]),
        };
        if begins {
            return (stop - at, crossed);
        }
        crossed = true;
        from = first + 1;
    }
}

/// What [`plain_run`] found ahead of the reading in one read of a text:
/// the next lead and the next stop at or after some earlier place. Each is
/// searched again only once the reading has passed it, so each unit of the
/// text is searched about once, however often the reading stops.
#[derive(Default)]
pub(super) struct Ahead {
    lead: usize,
    /// (`None` until the first search.)
    stop: Option<usize>,
}

/// Where the longest tail of `text[from..]` that could still begin a leak
/// starts (among the `marks`, the places read outside JSON and code): a
/// prefix of a tool's name, of a distinctive prefix, or of a fence.
pub(super) fn partial_tail(tools: &Tools, text: &[u16], from: usize, marks: &[(usize, Line, i64)]) -> usize {
    // Whether `tail` is a strict prefix of `whole`.
    fn begins(whole: impl ExactSizeIterator<Item = u16>, tail: &[u16]) -> bool {
        whole.len() > tail.len() && whole.zip(tail).all(|(a, &b)| a == b)
    }
    for &(start, _, _) in marks {
        if start < from || (start > 0 && is_word(text[start - 1])) {
            continue;
        }
        let tail = &text[start..];
        let of_literal = DISTINCTIVE
            .iter()
            .chain(&NARRATION_LEADS)
            .chain(&["```"])
            .any(|p| begins(p.bytes().map(u16::from), tail));
        let of_name = tools.list().iter().any(|tool| begins(tool.name.iter().copied(), tail));
        if of_literal || of_name {
            return held_colon(text, from, start, marks);
        }
    }
    held_colon(text, from, text.len(), marks)
}

/// `end`, or the `:` before it with blanks between (a narration's
/// `: NAME`), when that `:` is at or after `from`.
fn colon_before(text: &[u16], from: usize, end: usize) -> usize {
    let mut i = end;
    while i > from && matches!(ascii(text[i - 1]), Some(b' ' | b'\t')) {
        i -= 1;
    }
    if i > from && text[i - 1] == u16::from(b':') {
        i - 1
    } else {
        end
    }
}

/// Where a held tail begins when a narration's `:` (see [`colon_before`])
/// stands before `start`, among the `marks`; else `start`.
fn held_colon(text: &[u16], from: usize, start: usize, marks: &[(usize, Line, i64)]) -> usize {
    let colon = colon_before(text, from, start);
    if colon < start && marks.iter().any(|&(mark, _, _)| mark == colon) {
        colon
    } else {
        start
    }
}

#[cfg(test)]
mod tests {
    use super::{first_word_may_lead, Narrowed};

    #[test]
    fn the_narrowed_first_word_agrees_with_the_unit_by_unit_one() {
        let words = ["a", "ok", "court", "Status", "sixteenletterwrd", "seventeenletterwd", "é", "wörd"];
        let afters = ["", " ", "\n", "  \n", " \t\r\n", " x", ":", "\r", "               \n", " é", "<"];
        for word in words {
            for after in afters {
                for tail in [
                    "",
                    "\nmore text after the line, long enough to fill sixteen",
                    "\n<tool_call>{\"name\": \"get_weather\"}</tool_call> and more",
                    "\n \t <invoke name=\"get_weather\">",
                    "\n   ",
                    "\n\n<tool_call>",
                ] {
                    let text: Vec<u16> = format!("\n{word}{after}{tail}").encode_utf16().collect();
                    let mut narrowed = Narrowed::default();
                    narrowed.read(&text, None);
                    assert_eq!(
                        narrowed.first_word_may_lead(&text, 1),
                        first_word_may_lead(&text[1..], false),
                        "{word:?} then {after:?} then {tail:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_lone_word_may_lead_only_with_a_tag_or_the_end_after_it() {
        // What `Reader::lead` reads: a lone lowercase word, its line's end,
        // blanks, then a tag head. Prose after the word's line leads nowhere.
        let cases = [
            ("court\n<tool_call>", true),
            ("court\n  <invoke name=\"x\">", true),
            ("court \r\n\t<", true),
            ("court\n", true),
            ("court\n  ", true),
            ("court", true),
            ("court\nThe ruling came down on Monday, long after the hearing.", false),
            ("summary\n- first item of a list that goes on for a while", false),
            ("court\n\n<tool_call>", false),
            ("court\n`code`", false),
        ];
        for (text, leads) in cases {
            let text: Vec<u16> = format!("\n{text}").encode_utf16().collect();
            let mut narrowed = Narrowed::default();
            narrowed.read(&text, None);
            assert_eq!(first_word_may_lead(&text[1..], false), leads, "{text:?}");
            assert_eq!(narrowed.first_word_may_lead(&text, 1), leads, "narrowed: {text:?}");
        }
    }
}
