//! Property tests of the JavaScript string helpers against independent
//! definitions: Rust's own Unicode functions on well-formed text, and naive
//! searches on any code units.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use seamguard::checks::text::js_string::{clip, contains, find, to_lower, trim, units};

fn config(cases: u32) -> Config {
    Config { cases, rng_seed: RngSeed::Fixed(0x0015_7A1C), failure_persistence: None, ..Config::default() }
}

/// Characters where JavaScript and Unicode disagree or case mapping is
/// tricky, mixed with plain ones.
const EDGES: &[char] = &[
    'a',
    'Z',
    ' ',
    '\t',
    '\n',
    '\u{0b}',
    '\u{0c}',
    '\r',
    '\u{1c}',
    '\u{85}',
    '\u{a0}',
    '\u{1680}',
    '\u{180e}',
    '\u{2000}',
    '\u{200a}',
    '\u{200b}',
    '\u{2028}',
    '\u{2029}',
    '\u{202f}',
    '\u{205f}',
    '\u{3000}',
    '\u{feff}',
    'Σ',
    'σ',
    'ς',
    'Α',
    '\u{301}',
    '\u{345}',
    'İ',
    'I',
    'ı',
    'ß',
    'ẞ',
    'Ω',
    'K',
    'Å',
    'ǅ',
    '\u{10400}',
    '\u{1e900}',
    '😀',
    '.',
    '\'',
];

fn valid_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop_oneof![3 => prop::sample::select(EDGES), 1 => any::<char>()], 0..24)
        .prop_map(|chars| chars.into_iter().collect())
}

/// Any code units, lone surrogates and split pairs included.
fn any_units() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(
        prop_oneof![
            valid_text().prop_map(|text| units(&text)),
            prop::sample::select(vec![0xD800_u16, 0xDBFF, 0xDC00, 0xDFFF, 0xD83D, 0xDE00])
                .prop_map(|unit| vec![unit]),
        ],
        0..6,
    )
    .prop_map(|parts| parts.concat())
}

/// JavaScript's whitespace set (ECMAScript WhiteSpace and LineTerminator)
/// spelled from Unicode's: White_Space without U+0085, plus U+FEFF.
fn is_js_space(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

fn naive_find(haystack: &[u16], needle: &[u16]) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    haystack.windows(needle.len()).position(|window| window == needle)
}

fn is_high(unit: u16) -> bool {
    (0xD800..0xDC00).contains(&unit)
}

fn is_low(unit: u16) -> bool {
    (0xDC00..0xE000).contains(&unit)
}

proptest! {
    #![proptest_config(config(4000))]

    #[test]
    fn trim_is_unicode_trim_less_nel_plus_bom(text in valid_text()) {
        let expected = units(text.trim_matches(is_js_space));
        let input = units(&text);
        prop_assert_eq!(trim(&input), &expected[..]);
    }

    /// On any units: what is cut is whitespace, what is kept is bounded by
    /// non-whitespace, and the kept part is a slice of the input.
    #[test]
    fn trim_cuts_only_whitespace(text in any_units()) {
        let kept = trim(&text);
        let start = kept.as_ptr() as usize - text.as_ptr() as usize;
        let start = start / 2;
        let end = start + kept.len();
        let space = |unit: &u16| char::from_u32(u32::from(*unit)).is_some_and(is_js_space);
        prop_assert!(text[..start].iter().all(space));
        prop_assert!(text[end..].iter().all(space));
        prop_assert!(kept.first().is_none_or(|u| !space(u)));
        prop_assert!(kept.last().is_none_or(|u| !space(u)));
    }

    #[test]
    fn to_lower_is_unicode_lowercase_on_valid_text(text in valid_text()) {
        prop_assert_eq!(to_lower(&units(&text)).into_owned(), units(&text.to_lowercase()));
    }

    /// With lone surrogates: each one stays where it was, and the text
    /// between them lowers on its own.
    #[test]
    fn to_lower_keeps_lone_surrogates_and_lowers_around_them(text in any_units()) {
        let mut expected = Vec::new();
        let mut run = String::new();
        for decoded in char::decode_utf16(text.iter().copied()) {
            match decoded {
                Ok(c) => run.push(c),
                Err(lone) => {
                    expected.extend(run.to_lowercase().encode_utf16());
                    run.clear();
                    expected.push(lone.unpaired_surrogate());
                }
            }
        }
        expected.extend(run.to_lowercase().encode_utf16());
        prop_assert_eq!(to_lower(&text).into_owned(), expected);
    }

    #[test]
    fn find_is_a_naive_search(haystack in any_units(), needle in any_units(), from in 0usize..8, len in 0usize..5) {
        // Needles cut from the haystack are found often; random ones rarely.
        let cut = if haystack.is_empty() { needle.clone() } else {
            let from = from % haystack.len();
            haystack[from..(from + len).min(haystack.len())].to_vec()
        };
        for needle in [&needle, &cut] {
            prop_assert_eq!(find(&haystack, needle), naive_find(&haystack, needle));
            prop_assert_eq!(contains(&haystack, needle), naive_find(&haystack, needle).is_some());
        }
    }

    /// Units whose bytes straddle two units must not match: 0x0100 0x0001
    /// holds the bytes of 0x0101 at an odd offset.
    #[test]
    fn find_never_matches_across_a_unit_boundary(units_ in prop::collection::vec(prop::sample::select(vec![0x0001_u16, 0x0100, 0x0101, 0x0000, 0x0110]), 0..16),
                                                 needle in prop::collection::vec(prop::sample::select(vec![0x0001_u16, 0x0100, 0x0101, 0x0000]), 1..3)) {
        prop_assert_eq!(find(&units_, &needle), naive_find(&units_, &needle));
    }

    #[test]
    fn clip_never_splits_a_pair(text in any_units(), max in 1usize..30) {
        let clipped = clip(&text, max);
        if text.len() <= max {
            prop_assert_eq!(&clipped[..], &text[..]);
        } else {
            prop_assert!(clipped.len() <= max);
            prop_assert_eq!(clipped.last(), Some(&0x2026));
            let kept = &clipped[..clipped.len() - 1];
            prop_assert_eq!(kept, &text[..kept.len()]);
            // The cut falls between two units that are not one pair.
            let cut = kept.len();
            prop_assert!(cut == 0 || !(is_high(text[cut - 1]) && is_low(text[cut])));
            // And no more is dropped than that rule needs.
            prop_assert!(kept.len() + 2 >= max);
        }
    }
}
