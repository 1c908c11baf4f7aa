//! Property tests of the scaffolding filter through the crate's public API,
//! judged by the transcribed reference (`src/filter/reference.rs`, through
//! `support/oracle.rs`).
//!
//! Every run is seeded (`SEED`), so a failure replays; proptest then shrinks
//! it to a small text and chunking.

#[path = "support/oracle.rs"]
mod oracle;

use oracle::check_stream;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use seamguard::filter::{default_patterns, Pattern, Registry, PRESETS};

const SEED: u64 = 0x5EA4_9A2D;

fn config(cases: u32) -> Config {
    Config { cases, rng_seed: RngSeed::Fixed(SEED), failure_persistence: None, ..Config::default() }
}

fn units(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

// ---------------------------------------------------------------------------
// Inputs.

/// A registry and the pieces its random texts are made of: every literal
/// whole, every proper prefix and suffix of it, and some filler.
#[derive(Clone, Debug)]
struct Setting {
    patterns: Vec<Pattern>,
    fragments: Vec<Vec<u16>>,
}

impl Setting {
    fn new(patterns: Vec<Pattern>, filler: &[&[u16]]) -> Self {
        let mut fragments: Vec<Vec<u16>> = filler.iter().map(|f| f.to_vec()).collect();
        for pattern in &patterns {
            let literals: Vec<&Vec<u16>> = match pattern {
                Pattern::Span { start, end } => vec![start, end],
                Pattern::Token { literal } => vec![literal],
                _ => unimplemented!("literal registries only"),
            };
            for literal in literals {
                for cut in 1..literal.len() {
                    fragments.push(literal[..cut].to_vec());
                    fragments.push(literal[cut..].to_vec());
                }
                // Whole literals twice, so that complete markers are common.
                fragments.push(literal.clone());
                fragments.push(literal.clone());
            }
        }
        fragments.sort();
        fragments.dedup_by(|a, b| a == b && a.len() > 1);
        Setting { patterns, fragments }
    }
}

const PAIR: [u16; 2] = [0xD83D, 0xDE00];

/// The literal registries every property runs against: the default one,
/// every preset that is one (those with two spans are checked nowhere else:
/// the Python reference runs one span at most), and a few built by hand
/// with the public API, a lone surrogate in a literal included. The presets
/// that run on the general engine are checked in `general_properties.rs`.
fn fixed_settings() -> Vec<Setting> {
    let filler: &[&[u16]] = &[&units("a"), &units(" "), &units("\n"), &PAIR, &PAIR[..1], &PAIR[1..]];
    let presets = PRESETS
        .iter()
        .map(|preset| preset.to_patterns())
        .filter(|patterns| Registry::new(patterns.clone()).is_ok_and(|registry| registry.is_literal()))
        .map(|patterns| Setting::new(patterns, filler));
    presets
        .chain([
            Setting::new(default_patterns(), filler),
            Setting::new(
                vec![Pattern::span("<a>", "</a>"), Pattern::token("<t/>"), Pattern::span("<b>", "</b>")],
                filler,
            ),
            Setting::new(vec![Pattern::token("<longer-token>"), Pattern::span("<s>", "<e>")], filler),
            Setting::new(vec![Pattern::span("«", "»"), Pattern::token("😀!")], filler),
            Setting::new(
                vec![
                    Pattern::Span { start: vec![0xD800, 0x3C], end: vec![0x3E, 0xDFFF] },
                    Pattern::token("[[x]]"),
                ],
                filler,
            ),
            // A span whose end is one unit: the shortest possible.
            Setting::new(vec![Pattern::span("{|", "}"), Pattern::token("~#!")], filler),
        ])
        .collect()
}

#[test]
fn every_hand_built_registry_is_literal() {
    for setting in fixed_settings() {
        match Registry::new(setting.patterns.clone()) {
            Ok(registry) => assert!(registry.is_literal(), "{:?}", setting.patterns),
            Err(error) => panic!("{:?}: {error}", setting.patterns),
        }
    }
}

fn literal_strategy() -> impl Strategy<Value = Vec<u16>> {
    // A small alphabet makes conflicts, near misses and overlaps likely.
    prop::collection::vec(prop::sample::select(vec![0x3C_u16, 0x3E, 0x7C, 0x61, 0x62, 0xD83D, 0xDE00]), 1..6)
}

fn pattern_strategy() -> impl Strategy<Value = Pattern> {
    prop_oneof![
        (literal_strategy(), literal_strategy()).prop_map(|(start, end)| Pattern::Span { start, end }),
        literal_strategy().prop_map(|literal| Pattern::Token { literal }),
    ]
}

/// A random literal registry: candidate patterns kept one by one while the
/// list still runs on the one-pass engine.
fn random_setting() -> impl Strategy<Value = Setting> {
    prop::collection::vec(pattern_strategy(), 1..5).prop_map(|candidates| {
        let mut patterns: Vec<Pattern> = Vec::new();
        for candidate in candidates {
            patterns.push(candidate);
            if !Registry::new(patterns.clone()).is_ok_and(|registry| registry.is_literal()) {
                patterns.pop();
            }
        }
        Setting::new(patterns, &[&units("a"), &units("<"), &units(">")])
    })
}

/// One stream: a text cut into chunks at arbitrary code-unit positions
/// (inside surrogate pairs too, empty chunks too), with a flush after some
/// of them.
#[derive(Clone, Debug)]
struct Stream {
    chunks: Vec<Vec<u16>>,
    flush_after: Vec<bool>,
}

fn text_strategy(setting: &Setting, most_fragments: usize) -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(prop::sample::select(setting.fragments.clone()), 0..most_fragments)
        .prop_map(|pieces| pieces.concat())
}

fn chunking_strategy(text: Vec<u16>) -> impl Strategy<Value = Stream> {
    let len = text.len();
    (prop::collection::vec(0..=len, 0..12), prop::collection::vec(prop::bool::weighted(0.15), 13)).prop_map(
        move |(mut cuts, flush_after)| {
            cuts.push(0);
            cuts.push(len);
            cuts.sort_unstable();
            let chunks = cuts.windows(2).map(|w| text[w[0]..w[1]].to_vec()).collect();
            Stream { chunks, flush_after }
        },
    )
}

fn stream_strategy(setting: &Setting, most_fragments: usize) -> impl Strategy<Value = Stream> {
    text_strategy(setting, most_fragments).prop_flat_map(chunking_strategy)
}

fn fixed_setting_and_stream() -> impl Strategy<Value = (Setting, Stream)> {
    prop::sample::select(fixed_settings()).prop_flat_map(|setting| {
        let stream = stream_strategy(&setting, 30);
        (Just(setting), stream)
    })
}

fn random_setting_and_stream() -> impl Strategy<Value = (Setting, Stream)> {
    random_setting().prop_flat_map(|setting| {
        let stream = stream_strategy(&setting, 30);
        (Just(setting), stream)
    })
}

// ---------------------------------------------------------------------------
// The properties.

fn check(setting: &Setting, stream: &Stream) -> Result<(), TestCaseError> {
    check_stream(&setting.patterns, &stream.chunks, &stream.flush_after).map_err(TestCaseError::fail)
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn hand_built_registries_match_the_reference((setting, stream) in fixed_setting_and_stream()) {
        check(&setting, &stream)?;
    }
}

proptest! {
    #![proptest_config(config(3000))]

    #[test]
    fn random_registries_match_the_reference((setting, stream) in random_setting_and_stream()) {
        check(&setting, &stream)?;
    }
}

proptest! {
    #![proptest_config(config(300))]

    /// The same text under two chunkings: each agrees with the oracle and
    /// conserves every unit, even where the two outputs differ (which the
    /// reference allows: a removal can join text across a cut).
    #[test]
    fn every_chunking_conserves_the_input(
        (setting, a, b) in prop::sample::select(fixed_settings()).prop_flat_map(|setting| {
            text_strategy(&setting, 60).prop_flat_map(move |text| {
                (Just(setting.clone()), chunking_strategy(text.clone()), chunking_strategy(text))
            })
        })
    ) {
        for stream in [&a, &b] {
            check(&setting, stream)?;
        }
        let rejoined: Vec<u16> = a.chunks.concat();
        prop_assert_eq!(&rejoined, &b.chunks.concat());
        let whole = Stream { chunks: vec![rejoined], flush_after: vec![] };
        check(&setting, &whole)?;
    }
}

/// Whether occurrences of `a` and `b` could overlap in some text, found by
/// brute force: `b` placed at every offset that shares a unit with `a`.
fn can_overlap(a: &[u16], b: &[u16]) -> bool {
    let same = a == b;
    // Offsets of b's start relative to a's start; 0 is an overlap unless a
    // and b are the same literal compared with itself.
    let lowest = -(b.len() as isize) + 1;
    let highest = a.len() as isize - 1;
    (lowest..=highest).any(|offset| {
        if same && offset == 0 {
            return false;
        }
        (0..a.len() as isize).all(|i| {
            let j = i - offset;
            j < 0 || j >= b.len() as isize || a[i as usize] == b[j as usize]
        })
    })
}

fn literals(patterns: &[Pattern]) -> Vec<Vec<u16>> {
    patterns
        .iter()
        .flat_map(|pattern| match pattern {
            Pattern::Span { start, end } => vec![start.clone(), end.clone()],
            Pattern::Token { literal } => vec![literal.clone()],
            _ => unimplemented!("literal registries only"),
        })
        .collect()
}

proptest! {
    #![proptest_config(config(2000))]

    /// A list of literal patterns runs on the one-pass engine exactly when
    /// its literals can never overlap: the precondition that engine rests
    /// on. Every such list is a registry.
    #[test]
    fn the_registry_check_is_the_overlap_rule(patterns in prop::collection::vec(pattern_strategy(), 1..4)) {
        let all = literals(&patterns);
        let mut overlapping = false;
        for (i, a) in all.iter().enumerate() {
            for b in &all[i..] {
                // Two equal literals in different places overlap at offset 0.
                let distinct_places = !std::ptr::eq(a, b);
                if can_overlap(a, b) || (distinct_places && a == b) {
                    overlapping = true;
                }
            }
        }
        let registry = Registry::new(patterns.clone());
        prop_assert!(registry.is_ok(), "{:?}", patterns);
        prop_assert_eq!(registry.is_ok_and(|registry| registry.is_literal()), !overlapping, "{:?}", patterns);
    }
}
