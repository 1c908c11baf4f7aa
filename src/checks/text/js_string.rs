//! JavaScript string semantics over UTF-16 code units.
//!
//! A JavaScript string is a sequence of UTF-16 code units that may hold lone
//! surrogates, and its `length`, `trim`, `toLowerCase` and `includes` are all
//! defined on those units. Rust's `str` cannot hold a lone surrogate and its
//! own `trim` uses another whitespace set, so everything here works on
//! `&[u16]` and reproduces the JavaScript answer exactly. The fixture
//! `__test__/fixtures/js-semantics.json`, written by Node itself, pins the
//! whitespace set and the lower-case mapping of every code point.

use std::borrow::Cow;

/// Whether `unit` is removed by `String.prototype.trim`: the ECMAScript
/// WhiteSpace and LineTerminator sets. Every member is in the BMP, so one
/// code unit decides. U+0085 is not a member; U+FEFF and U+00A0 are.
pub fn is_js_whitespace(unit: u16) -> bool {
    matches!(
        unit,
        0x0009..=0x000D
            | 0x0020
            | 0x00A0
            | 0x1680
            | 0x2000..=0x200A
            | 0x2028
            | 0x2029
            | 0x202F
            | 0x205F
            | 0x3000
            | 0xFEFF
    )
}

/// `String.prototype.trim`.
pub fn trim(units: &[u16]) -> &[u16] {
    &units[trim_range(units)]
}

/// Where [`trim`]'s answer lies in `units`.
pub fn trim_range(units: &[u16]) -> std::ops::Range<usize> {
    let start = units.iter().position(|&u| !is_js_whitespace(u)).unwrap_or(units.len());
    let end = units.iter().rposition(|&u| !is_js_whitespace(u)).map_or(start, |i| i + 1);
    start..end
}

/// `String.prototype.toLowerCase`: the full Unicode mapping, Final_Sigma in
/// context included, with lone surrogates passed through.
///
/// ASCII text takes a fast path with the same answer. Otherwise each run of
/// well-formed UTF-16 is lowered by `str::to_lowercase`, which implements the
/// same Unicode rules (and this crate's Rust and Node 20 both carry Unicode
/// 17). A lone surrogate is neither cased nor case-ignorable, so it ends the
/// Final_Sigma context on both sides, exactly as cutting the runs there does.
pub fn to_lower(units: &[u16]) -> Cow<'_, [u16]> {
    if is_ascii(units) {
        if !units.iter().any(|u| (b'A' as u16..=b'Z' as u16).contains(u)) {
            return Cow::Borrowed(units);
        }
        return Cow::Owned(
            units.iter().map(|&u| if (0x41..=0x5A).contains(&u) { u | 0x20 } else { u }).collect(),
        );
    }
    let mut lowered = Vec::with_capacity(units.len());
    let mut run = String::new();
    for decoded in char::decode_utf16(units.iter().copied()) {
        match decoded {
            Ok(c) => run.push(c),
            Err(lone) => {
                push_str(&mut lowered, &run.to_lowercase());
                run.clear();
                lowered.push(lone.unpaired_surrogate());
            }
        }
    }
    push_str(&mut lowered, &run.to_lowercase());
    Cow::Owned(lowered)
}

fn as_bytes(units: &[u16]) -> &[u8] {
    // SAFETY: any initialised u16 slice is a valid byte slice twice as long,
    // and u8 has no alignment requirement.
    unsafe { std::slice::from_raw_parts(units.as_ptr().cast::<u8>(), std::mem::size_of_val(units)) }
}

/// `haystack.indexOf(needle)` on code units: the first position where
/// `needle` occurs, if any.
///
/// The search runs over bytes with `memchr`'s SIMD substring finder; a byte
/// match at an odd offset straddles two code units and is skipped.
pub fn find(haystack: &[u16], needle: &[u16]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    let hay = as_bytes(haystack);
    let finder = memchr::memmem::Finder::new(as_bytes(needle));
    let mut from = 0;
    while let Some(at) = finder.find(&hay[from..]) {
        let at = from + at;
        if at % 2 == 0 {
            return Some(at / 2);
        }
        from = at + 1;
    }
    None
}

/// `haystack.includes(needle)` on code units.
pub fn contains(haystack: &[u16], needle: &[u16]) -> bool {
    find(haystack, needle).is_some()
}

/// Appends `text` as UTF-16. Prose is mostly ASCII, whose bytes are its
/// code units: that part is widened a byte at a time (which vectorises)
/// rather than decoded.
pub fn push_str(buffer: &mut Vec<u16>, text: &str) {
    let ascii = text.bytes().position(|byte| !byte.is_ascii()).unwrap_or(text.len());
    buffer.extend(text.as_bytes()[..ascii].iter().map(|&byte| u16::from(byte)));
    buffer.extend(text[ascii..].encode_utf16());
}

/// `text` as UTF-16 code units.
pub fn units(text: &str) -> Vec<u16> {
    let mut units = Vec::with_capacity(text.len());
    push_str(&mut units, text);
    units
}

/// `value` quoted at most `max` code units long: a longer value keeps its
/// first `max - 1` units and gains a trailing `…`, and the cut never falls
/// between the two halves of a surrogate pair (the pair goes whole).
pub fn clip(value: &[u16], max: usize) -> Cow<'_, [u16]> {
    match clip_point(value, max) {
        None => Cow::Borrowed(value),
        Some(keep) => {
            let mut clipped = value[..keep].to_vec();
            clipped.push(0x2026);
            Cow::Owned(clipped)
        }
    }
}

/// Where [`clip`] cuts `value`: `None` when it fits in `max` units, else
/// how many leading units are kept before the `…`. Lets a caller that holds
/// the string elsewhere (a JavaScript layer) cut it without a copy.
pub fn clip_point(value: &[u16], max: usize) -> Option<usize> {
    if value.len() <= max {
        return None;
    }
    let keep = max.saturating_sub(1);
    let splits_pair =
        keep > 0 && (0xD800..0xDC00).contains(&value[keep - 1]) && (0xDC00..0xE000).contains(&value[keep]);
    Some(if splits_pair { keep - 1 } else { keep })
}

/// Whether every unit is ASCII, so that the text fits one byte per unit and
/// its lower-casing is the ASCII one.
pub fn is_ascii(units: &[u16]) -> bool {
    // `fold` rather than `all`: no early exit, so the loop vectorises.
    units.iter().fold(0, |seen, &u| seen | u) < 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str) -> Vec<u16> {
        units(text)
    }

    #[test]
    fn trim_uses_the_javascript_whitespace_set() {
        let cases: &[(&str, &[u16], &[u16])] = &[
            ("ascii spaces and tabs", &s(" \t abc \n"), &s("abc")),
            ("no-break space and BOM", &s("\u{a0}\u{feff}abc\u{feff}"), &s("abc")),
            ("line and paragraph separators", &s("\u{2028}abc\u{2029}"), &s("abc")),
            ("ideographic space", &s("\u{3000}abc"), &s("abc")),
            ("NEL is not whitespace", &s("\u{85}abc\u{85}"), &s("\u{85}abc\u{85}")),
            ("Mongolian vowel separator is not whitespace", &s("\u{180e}abc"), &s("\u{180e}abc")),
            ("zero width space is not whitespace", &s("\u{200b}abc"), &s("\u{200b}abc")),
            ("all whitespace", &s(" \u{a0} "), &[]),
            ("empty", &[], &[]),
            ("inner whitespace kept", &s(" a b "), &s("a b")),
            ("lone surrogate kept", &[0x20, 0xD800, 0x20], &[0xD800]),
        ];
        for (name, input, expected) in cases {
            assert_eq!(trim(input), *expected, "{name}");
        }
    }

    #[test]
    fn lower_case_follows_javascript() {
        let cases: &[(&str, Vec<u16>, Vec<u16>)] = &[
            ("ascii", s("WWPN:AB"), s("wwpn:ab")),
            ("dotted capital I grows", s("İ"), s("i\u{307}")),
            ("final sigma at the end of a word", s("ΟΔΟΣ"), s("οδος")),
            ("sigma before a letter", s("ΣΑ"), s("σα")),
            ("lone sigma", s("Σ"), s("σ")),
            ("final sigma then space", s("ΑΣ Β"), s("ας β")),
            ("final sigma across a case-ignorable mark", s("Α\u{301}Σ"), s("α\u{301}ς")),
            ("sharp s stays", s("ß"), s("ß")),
            ("astral capital", s("\u{10400}"), s("\u{10428}")),
            ("lone high surrogate", vec![0x41, 0xD801, 0x42], vec![0x61, 0xD801, 0x62]),
            (
                "lone low surrogate ends the sigma context",
                vec![0x391, 0xDC00, 0x3A3],
                vec![0x3B1, 0xDC00, 0x3C3],
            ),
            (
                "sigma before a lone surrogate is final",
                vec![0x391, 0x3A3, 0xDC00],
                vec![0x3B1, 0x3C2, 0xDC00],
            ),
        ];
        for (name, input, expected) in cases {
            assert_eq!(to_lower(input).as_ref(), expected.as_slice(), "{name}");
        }
    }

    #[test]
    fn find_is_a_code_unit_search() {
        let cases: &[(&str, Vec<u16>, Vec<u16>, Option<usize>)] = &[
            ("found", s("abcdef"), s("cde"), Some(2)),
            ("absent", s("abcdef"), s("xyz"), None),
            ("empty needle", s("abc"), vec![], Some(0)),
            // 0x0100 0x0001 as little-endian bytes is 00 01 01 00: the bytes
            // of 0x0101 sit at an odd offset and must not count.
            ("odd byte offset is not a match", vec![0x0100, 0x0001], vec![0x0101], None),
            ("odd then even", vec![0x0100, 0x0001, 0x0101], vec![0x0101], Some(2)),
            ("high surrogate alone matches half a pair", s("a😀"), vec![0xD83D], Some(1)),
            ("needle longer than haystack", s("ab"), s("abc"), None),
        ];
        for (name, hay, needle, expected) in cases {
            assert_eq!(find(hay, needle), *expected, "{name}");
        }
    }

    #[test]
    fn clip_keeps_pairs_whole() {
        let long = s(&"a".repeat(100));
        let clipped = clip(&long, 80);
        assert_eq!(clipped.len(), 80);
        assert_eq!(clipped[79], 0x2026);

        let exact = s(&"a".repeat(80));
        assert_eq!(clip(&exact, 80).as_ref(), exact.as_slice());

        // A pair at units 78..80 would be cut by keeping 79 units.
        let mut with_pair = s(&"a".repeat(78));
        with_pair.extend(s("😀😀"));
        let clipped = clip(&with_pair, 80);
        assert_eq!(clipped.as_ref(), [s(&"a".repeat(78)), vec![0x2026]].concat());

        // A pair ending exactly at unit 79 stays.
        let mut pair_fits = s(&"a".repeat(77));
        pair_fits.extend(s("😀😀"));
        let clipped = clip(&pair_fits, 80);
        assert_eq!(clipped.as_ref(), [s(&"a".repeat(77)), s("😀"), vec![0x2026]].concat());
    }

    /// Node's own answers, recorded by `scripts/gen-js-semantics-fixture.mjs`.
    mod against_node {
        use super::super::*;
        use serde_json::Value;

        fn fixture() -> Value {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/__test__/fixtures/js-semantics.json");
            serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("json")
        }

        fn unit_list(value: &Value) -> Vec<u16> {
            value.as_array().unwrap().iter().map(|u| u.as_u64().unwrap() as u16).collect()
        }

        #[test]
        fn whitespace_set_is_node_s() {
            let node = unit_list(&fixture()["whitespace"]);
            let ours: Vec<u16> = (0..=u16::MAX).filter(|&u| is_js_whitespace(u)).collect();
            assert_eq!(ours, node);
        }

        #[test]
        fn every_code_point_lowers_as_in_node() {
            let fixture = fixture();
            let mut expected = std::collections::HashMap::new();
            for entry in fixture["lowerCase"].as_array().unwrap() {
                expected.insert(entry[0].as_u64().unwrap() as u32, unit_list(&entry[1]));
            }
            for cp in (0..=0x10FFFFu32).filter(|cp| !(0xD800..=0xDFFF).contains(cp)) {
                let c = char::from_u32(cp).unwrap();
                let input = units(c.encode_utf8(&mut [0; 4]));
                let want = expected.get(&cp).cloned().unwrap_or_else(|| input.clone());
                assert_eq!(to_lower(&input).as_ref(), want.as_slice(), "U+{cp:04X}");
            }
        }

        #[test]
        fn final_sigma_contexts_lower_as_in_node() {
            for case in fixture()["contexts"].as_array().unwrap() {
                let input = unit_list(&case[0]);
                assert_eq!(to_lower(&input).as_ref(), unit_list(&case[1]).as_slice(), "{input:04X?}");
            }
        }
    }
}
