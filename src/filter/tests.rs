use std::num::NonZeroUsize;
use std::sync::Arc;

use super::pattern::{default_patterns, Part, Pattern, DEFAULT_PATTERN_SOURCES};
use super::presets::{self, PresetPart, PresetPattern, PRESETS};
use super::reference::{ReferenceFilter, Stripped};
use super::registry::Registry;
use super::{OpenSpanPolicy, Options, ScaffoldingFilter, StripReason};

const S: &str = "<|tool_call_start|>";
const E: &str = "<|tool_call_end|>";

fn units(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

fn text(units: &[u16]) -> String {
    String::from_utf16_lossy(units)
}

/// One table row: chunks fed in order, what each feed returns, then the
/// flush and the stripped spans. `{S}` and `{E}` stand for the span's
/// literals.
struct Case {
    name: &'static str,
    chunks: &'static [&'static str],
    outputs: &'static [&'static str],
    flush: &'static str,
    spans: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case { name: "plain text", chunks: &["hello"], outputs: &["hello"], flush: "", spans: &[] },
    Case {
        name: "whole span",
        chunks: &["a{S}[read(path='x')]{E}b"],
        outputs: &["ab"],
        flush: "",
        spans: &["{S}[read(path='x')]{E}"],
    },
    Case {
        name: "both tokens",
        chunks: &["a<|tool_calls|>b<|tool_call|>c"],
        outputs: &["abc"],
        flush: "",
        spans: &["<|tool_calls|>", "<|tool_call|>"],
    },
    Case {
        name: "strip joins its neighbours into a token, fed whole",
        chunks: &["<|tool_<|tool_calls|>call|>"],
        outputs: &[""],
        flush: "",
        spans: &["<|tool_calls|>", "<|tool_call|>"],
    },
    Case {
        name: "strip joins its neighbours, one char at a time",
        chunks: &[
            "<", "|", "t", "o", "o", "l", "_", "<", "|", "t", "o", "o", "l", "_", "c", "a", "l", "l", "s",
            "|", ">", "c", "a", "l", "l", "|", ">",
        ],
        outputs: &[
            "", "", "", "", "", "", "", "<|tool_", "", "", "", "", "", "", "", "", "", "", "", "", "", "c",
            "a", "l", "l", "|", ">",
        ],
        flush: "",
        spans: &["<|tool_calls|>"],
    },
    Case {
        name: "token inside an open span is stripped alone",
        chunks: &["{S}a<|tool_call|>b", "c{E}d"],
        outputs: &["", "d"],
        flush: "",
        spans: &["<|tool_call|>", "{S}abc{E}"],
    },
    Case {
        name: "token inside a span that closes in the same buffer is swallowed",
        chunks: &["{S}a<|tool_call|>b{E}c"],
        outputs: &["c"],
        flush: "",
        spans: &["{S}a<|tool_call|>b{E}"],
    },
    Case {
        name: "a strip inside an open span forms the end",
        chunks: &["{S}a<|tool_call_", "<|tool_call|>end|>b"],
        outputs: &["", "b"],
        flush: "",
        spans: &["<|tool_call|>", "{S}a{E}"],
    },
    Case {
        name: "end without a start is content",
        chunks: &["x{E}y"],
        outputs: &["x{E}y"],
        flush: "",
        spans: &[],
    },
    Case {
        name: "a second start inside a span is content",
        chunks: &["a{S}b", "{S}c", "d{E}e{S}f{E}g"],
        outputs: &["a", "", "eg"],
        flush: "",
        spans: &["{S}b{S}cd{E}", "{S}f{E}"],
    },
    Case {
        name: "start split across chunks",
        chunks: &["x<|tool_call_st", "art|>y{E}z"],
        outputs: &["x", "z"],
        flush: "",
        spans: &["{S}y{E}"],
    },
    Case {
        name: "end split between the held span and the chunk",
        chunks: &["{S}y<|tool_call_e", "nd|>z"],
        outputs: &["", "z"],
        flush: "",
        spans: &["{S}y{E}"],
    },
    Case {
        name: "partial marker is flushed as content",
        chunks: &["ab<|tool"],
        outputs: &["ab"],
        flush: "<|tool",
        spans: &[],
    },
    Case {
        name: "unclosed span is flushed as content",
        chunks: &["a{S}xyz", "<|tool_call|>w"],
        outputs: &["a", ""],
        flush: "{S}xyzw",
        spans: &["<|tool_call|>"],
    },
    Case {
        name: "an empty chunk returns nothing and changes nothing",
        chunks: &["ab<|to", "", "x"],
        outputs: &["ab", "", "<|tox"],
        flush: "",
        spans: &[],
    },
    Case {
        name: "the held tail is the longest partial opening",
        chunks: &["<|tool_call_star"],
        outputs: &[""],
        flush: "<|tool_call_star",
        spans: &[],
    },
    Case {
        name: "a partial end is not held",
        chunks: &["a<|tool_call_en"],
        outputs: &["a<|tool_call_en"],
        flush: "",
        spans: &[],
    },
];

fn expand(template: &str) -> Vec<u16> {
    units(&template.replace("{S}", S).replace("{E}", E))
}

/// What a table row is played through: the filter, or the transcribed
/// reference.
trait Stream {
    fn feed(&mut self, chunk: &[u16]) -> Vec<u16>;
    fn flush(&mut self) -> Vec<u16>;
}

impl Stream for ScaffoldingFilter {
    fn feed(&mut self, chunk: &[u16]) -> Vec<u16> {
        ScaffoldingFilter::feed(self, chunk)
    }
    fn flush(&mut self) -> Vec<u16> {
        ScaffoldingFilter::flush(self)
    }
}

impl Stream for ReferenceFilter {
    fn feed(&mut self, chunk: &[u16]) -> Vec<u16> {
        ReferenceFilter::feed(self, chunk)
    }
    fn flush(&mut self) -> Vec<u16> {
        ReferenceFilter::flush(self)
    }
}

/// Feeds a row's chunks (`{S}` and `{E}` expanded), checking each output
/// and then the flush.
fn play(stream: &mut impl Stream, name: &str, chunks: &[&str], outputs: &[&str], flush: &str) {
    assert_eq!(chunks.len(), outputs.len(), "{name}: one output per chunk");
    for (chunk, expected) in chunks.iter().zip(outputs) {
        assert_eq!(text(&stream.feed(&expand(chunk))), text(&expand(expected)), "{name}: feed {chunk:?}");
    }
    assert_eq!(text(&stream.flush()), text(&expand(flush)), "{name}: flush");
}

#[test]
fn table() {
    for case in CASES {
        let mut filter = ScaffoldingFilter::new();
        play(&mut filter, case.name, case.chunks, case.outputs, case.flush);
        let spans: Vec<String> = filter.stripped_spans().map(text).collect();
        let expected: Vec<String> = case.spans.iter().map(|span| text(&expand(span))).collect();
        assert_eq!(spans, expected, "{}: spans", case.name);
        assert_counted(&filter, case.name);
    }
}

/// `stripped_chars` is the total length of the stripped spans.
fn assert_counted(filter: &ScaffoldingFilter, name: &str) {
    let total: usize = filter.stripped_spans().map(<[u16]>::len).sum();
    assert_eq!(filter.stripped_chars(), total, "{name}: strippedChars");
}

#[test]
fn the_table_agrees_with_the_reference() {
    for case in CASES {
        let mut reference = ReferenceFilter::new(default_patterns());
        play(&mut reference, case.name, case.chunks, case.outputs, case.flush);
    }
}

#[test]
fn surrogates_pass_through_untouched() {
    let mut filter = ScaffoldingFilter::new();
    let pair = units("😀");
    let mut out = filter.feed(&[0x61, pair[0]]);
    out.extend(filter.feed(&[pair[1], 0x62]));
    assert_eq!(out, [0x61, pair[0], pair[1], 0x62]);

    let lone = [0xDC00, 0x78, 0xD800];
    let mut out = filter.feed(&lone);
    out.extend(filter.flush());
    assert_eq!(out, lone);

    let mut chunk = expand("{S}");
    chunk.extend([0xD83D, 0xDE00, 0xDE00]);
    chunk.extend(expand("{E}"));
    assert!(filter.feed(&chunk).is_empty());
    assert_eq!(filter.stripped_spans().last().unwrap().len(), S.len() + 3 + E.len());
}

#[test]
fn feeding_again_after_a_flush() {
    let mut filter = ScaffoldingFilter::new();
    assert_eq!(text(&filter.feed(&expand("a{S}b"))), "a");
    assert_eq!(text(&filter.flush()), format!("{S}b"));
    assert!(!filter.is_span_open());
    assert_eq!(text(&filter.feed(&expand("c{E}<|tool_call|>d"))), format!("c{E}d"));
    assert_eq!(filter.stripped_spans().count(), 1);
    assert_eq!(filter.stripped_chars(), "<|tool_call|>".len());
    assert!(filter.flush().is_empty());
}

#[test]
fn default_sources_are_the_reference_sources_derived_from_the_literals() {
    let derived: Vec<String> = default_patterns().iter().filter_map(Pattern::regex_source).collect();
    assert_eq!(derived, DEFAULT_PATTERN_SOURCES);
    assert_eq!(DEFAULT_PATTERN_SOURCES[0], r"<\|tool_call_start\|>[\s\S]*?<\|tool_call_end\|>");
}

#[test]
fn regex_source_escapes_syntax_and_non_ascii() {
    let pattern = Pattern::Token { literal: vec![0x28, 0x2E, 0x2A, 0x2F, 0x61, 0xD800, 0x0A] };
    assert_eq!(pattern.regex_source().as_deref(), Some(r"\(\.\*\/a\uD800\u000A"));
}

#[test]
fn overlapping_literals_run_on_the_general_engine() {
    let general = [
        vec![Pattern::token("ab"), Pattern::token("b")],
        vec![Pattern::token("<x>"), Pattern::span("<|a|>", "<|a|>")],
        vec![Pattern::span("<a>", "</a>"), Pattern::token("</a>")],
        vec![Pattern::token("aba")],
        vec![Pattern::token("<q>"), Pattern::span("<x>", "x>y")],
        vec![Pattern::token("<x"), Pattern::token("x>")],
        vec![Pattern::token_of(Part::regex("<x+>"))],
    ];
    for patterns in general {
        let registry =
            Registry::new(patterns.clone()).unwrap_or_else(|error| panic!("{patterns:?}: {error}"));
        assert!(!registry.is_literal(), "{patterns:?}");
    }
    assert!(Registry::new(default_patterns()).unwrap().is_literal());
    assert!(Registry::new(Vec::new()).unwrap().is_literal());
}

#[test]
fn registry_rejects_what_cannot_match_and_names_the_entry() {
    let rejected = [
        (vec![Pattern::span("<a>", "")], 0, "its end is empty"),
        (vec![Pattern::token("a"), Pattern::token("")], 1, "its token is empty"),
        (vec![Pattern::token("a"), Pattern::token_of(Part::regex("x?"))], 1, "empty string"),
        (vec![Pattern::token_of(Part::regex("(?<=a)b"))], 0, "look-around"),
        (vec![Pattern::span_of(Part::literal("<s>"), Part::regex("(a)\\1"))], 0, "its end"),
        (vec![Pattern::Json { start: Part::literal("") }], 0, "its start is empty"),
        (vec![Pattern::JsonCall { tool_names: Some(Vec::new()) }], 0, "toolNames is empty"),
    ];
    for (patterns, entry, reason) in rejected {
        let error = Registry::new(patterns.clone()).expect_err(&format!("{patterns:?} should be rejected"));
        assert_eq!(error.entry, entry, "{error}");
        assert!(error.to_string().contains(reason), "{error}");
        assert!(error.to_string().starts_with(&format!("scaffolding pattern {entry}:")), "{error}");
    }
}

#[test]
fn empty_registry_passes_everything_at_once() {
    let mut filter = ScaffoldingFilter::with_registry(Arc::new(Registry::new(Vec::new()).unwrap()));
    assert_eq!(text(&filter.feed(&expand("a{S}b"))), format!("a{S}b"));
    assert!(filter.held().is_empty());
}

/// One row of the options table: like [`Case`], with the options and each
/// strip's reason and pattern (0 is the span, 1 `<|tool_calls|>`, 2
/// `<|tool_call|>`).
struct OptionCase {
    name: &'static str,
    policy: OpenSpanPolicy,
    max_held: Option<usize>,
    chunks: &'static [&'static str],
    outputs: &'static [&'static str],
    flush: &'static str,
    strips: &'static [(&'static str, StripReason, usize)],
}

const OPTION_CASES: &[OptionCase] = &[
    OptionCase {
        name: "drop: an unclosed span is stripped at the flush",
        policy: OpenSpanPolicy::Drop,
        max_held: None,
        chunks: &["a{S}xyz", "<|tool_call|>w"],
        outputs: &["a", ""],
        flush: "",
        strips: &[("<|tool_call|>", StripReason::Match, 2), ("{S}xyzw", StripReason::UnclosedAtEnd, 0)],
    },
    OptionCase {
        name: "drop: a partial marker at the end is still text",
        policy: OpenSpanPolicy::Drop,
        max_held: None,
        chunks: &["ab<|tool"],
        outputs: &["ab"],
        flush: "<|tool",
        strips: &[],
    },
    OptionCase {
        name: "drop: a partial marker inside an open span goes with the span",
        policy: OpenSpanPolicy::Drop,
        max_held: None,
        chunks: &["{S}x<|tool_"],
        outputs: &[""],
        flush: "",
        strips: &[("{S}x<|tool_", StripReason::UnclosedAtEnd, 0)],
    },
    OptionCase {
        name: "emit: past max held the span is released as text, and its end is then content",
        policy: OpenSpanPolicy::Emit,
        max_held: Some(24),
        chunks: &["a{S}", "01234", "5", "x{E}y"],
        outputs: &["a", "", "{S}012345", "x{E}y"],
        flush: "",
        strips: &[],
    },
    OptionCase {
        name: "drop: past max held the span is stripped, and the rest is ordinary text",
        policy: OpenSpanPolicy::Drop,
        max_held: Some(24),
        chunks: &["a{S}", "01234", "5", "x<|tool_call|>{E}y"],
        outputs: &["a", "", "", "x{E}y"],
        flush: "",
        strips: &[("{S}012345", StripReason::MaxHeld, 0), ("<|tool_call|>", StripReason::Match, 2)],
    },
    OptionCase {
        name: "max held: a span that closes within one feed is stripped whatever its length",
        policy: OpenSpanPolicy::Drop,
        max_held: Some(5),
        chunks: &["a{S}0123456789{E}b"],
        outputs: &["ab"],
        flush: "",
        strips: &[("{S}0123456789{E}", StripReason::Match, 0)],
    },
    OptionCase {
        name: "max held: a token stripped inside the open span no longer counts",
        policy: OpenSpanPolicy::Emit,
        max_held: Some(24),
        chunks: &["{S}0123", "<|tool_call|>4", "{E}z"],
        outputs: &["", "", "z"],
        flush: "",
        strips: &[("<|tool_call|>", StripReason::Match, 2), ("{S}01234{E}", StripReason::Match, 0)],
    },
    OptionCase {
        name: "max held: a bound shorter than the start gives a span up as soon as it opens",
        policy: OpenSpanPolicy::Emit,
        max_held: Some(3),
        chunks: &["a{S}b", "c{E}"],
        outputs: &["a{S}b", "c{E}"],
        flush: "",
        strips: &[],
    },
    OptionCase {
        name: "max held: after a release, the next start opens a span as usual",
        policy: OpenSpanPolicy::Emit,
        max_held: Some(20),
        chunks: &["{S}ab", "{S}c", "{E}d"],
        outputs: &["{S}ab", "", "d"],
        flush: "",
        strips: &[("{S}c{E}", StripReason::Match, 0)],
    },
    OptionCase {
        name: "drop: the bound is checked at the end of a feed, the flush settles what is left",
        policy: OpenSpanPolicy::Drop,
        max_held: Some(30),
        chunks: &["{S}ab"],
        outputs: &[""],
        flush: "",
        strips: &[("{S}ab", StripReason::UnclosedAtEnd, 0)],
    },
];

#[test]
fn options_table() {
    for case in OPTION_CASES {
        let options = Options {
            open_span_at_end: case.policy,
            max_held: case.max_held.and_then(NonZeroUsize::new),
            tidy_whitespace: false,
        };
        let mut filter = ScaffoldingFilter::with_options(Registry::of_defaults(), options);
        play(&mut filter, case.name, case.chunks, case.outputs, case.flush);
        let mut reference = ReferenceFilter::with_options(default_patterns(), options);
        play(&mut reference, case.name, case.chunks, case.outputs, case.flush);
        let strips: Vec<(String, StripReason, usize)> =
            filter.strips().map(|strip| (text(strip.span), strip.reason, strip.pattern)).collect();
        let expected: Vec<(String, StripReason, usize)> = case
            .strips
            .iter()
            .map(|&(span, reason, pattern)| (text(&expand(span)), reason, pattern))
            .collect();
        assert_eq!(strips, expected, "{}: strips", case.name);
        assert_counted(&filter, case.name);
    }
}

#[test]
fn strips_report_the_pattern_index_in_the_list_given() {
    let patterns = vec![Pattern::token("<t/>"), Pattern::span("<a>", "</a>"), Pattern::span("<b>", "</b>")];
    let registry = Arc::new(Registry::new(patterns).unwrap());
    let mut filter = ScaffoldingFilter::with_options(
        registry,
        Options { open_span_at_end: OpenSpanPolicy::Drop, max_held: None, tidy_whitespace: false },
    );
    assert_eq!(text(&filter.feed(&units("<b>1</b><t/><a>2</a><a>x<b>y"))), "");
    assert!(filter.flush().is_empty());
    let seen: Vec<(String, StripReason, usize)> =
        filter.strips().map(|strip| (text(strip.span), strip.reason, strip.pattern)).collect();
    assert_eq!(
        seen,
        [
            ("<b>1</b>".into(), StripReason::Match, 2),
            ("<t/>".into(), StripReason::Match, 0),
            ("<a>2</a>".into(), StripReason::Match, 1),
            ("<a>x<b>y".into(), StripReason::UnclosedAtEnd, 1),
        ]
    );
    assert_eq!(filter.strip(3).map(|strip| strip.pattern), Some(1));
    assert!(filter.strip(4).is_none());
}

#[test]
fn presets_are_usable_registries() {
    let names: Vec<&str> = PRESETS.iter().map(|preset| preset.name).collect();
    assert_eq!(
        names,
        [
            "lfm2",
            "hermes",
            "glm",
            "qwen3-coder",
            "llama3",
            "llama4",
            "mistral",
            "deepseek-v3",
            "deepseek-dsml",
            "kimi-k2",
            "gemma4",
            "minimax",
            "anthropic-xml",
            "harmony",
            "granite",
            "json-call"
        ]
    );
    for preset in &PRESETS {
        let registry =
            Registry::new(preset.to_patterns()).unwrap_or_else(|error| panic!("{}: {error}", preset.name));
        assert!(presets::preset(preset.name).is_some());
        // Each literal pattern strips a whole occurrence of itself between
        // text (the others are held to the real leaks in the JavaScript
        // tests).
        for (index, pattern) in preset.patterns.iter().enumerate() {
            let markup = match *pattern {
                PresetPattern::Span { start, end } => format!("{start}[call()]{end}"),
                PresetPattern::Token(token) => token.to_string(),
                PresetPattern::Json(PresetPart::Literal(start)) => format!("{start}[{{\"name\": \"f\"}}]"),
                _ => continue,
            };
            let mut filter =
                ScaffoldingFilter::with_registry(Arc::new(Registry::new(preset.to_patterns()).unwrap()));
            let mut out = filter.feed(&units(&format!("a{markup}\nb")));
            out.extend(filter.flush());
            assert_eq!(text(&out), "a\nb", "{}", preset.name);
            let strip = filter.strips().next().unwrap();
            assert_eq!((text(strip.span), strip.pattern), (markup, index), "{}", preset.name);
        }
        assert!(!registry.is_literal() || registry.max_partial() > 0);
    }
    assert_eq!(presets::LFM2.to_patterns(), default_patterns());
    assert!(presets::preset("qwen").is_none());
}

#[test]
fn the_deepseek_preset_is_spelled_with_full_width_bars_and_lower_blocks() {
    let PresetPattern::Span { start, end } = presets::DEEPSEEK_V3.patterns[0] else {
        panic!("a span");
    };
    for literal in [start, end] {
        assert_eq!(literal.matches('\u{FF5C}').count(), 2, "{literal}");
        assert_eq!(literal.matches('\u{2581}').count(), 2, "{literal}");
        assert!(!literal.contains('|') && !literal.contains('_'), "{literal}");
    }
}

/// A small deterministic generator (splitmix64), so the property tests need
/// no dependency and every failure replays from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }
}

/// A registry to check, with the fragments random texts are built from.
struct Setting {
    name: &'static str,
    patterns: Vec<Pattern>,
    fragments: Vec<Vec<u16>>,
}

fn settings() -> Vec<Setting> {
    let words = |list: &[&str]| -> Vec<Vec<u16>> { list.iter().map(|w| units(w)).collect() };
    let with_surrogates = |mut fragments: Vec<Vec<u16>>| {
        fragments.extend([vec![0xD83D], vec![0xDE00], units("😀")]);
        fragments
    };
    vec![
        Setting {
            name: "default",
            patterns: default_patterns(),
            fragments: with_surrogates(words(&[
                "<|",
                "tool_call",
                "_start",
                "_end",
                "s|>",
                "|>",
                "<",
                ">",
                "|",
                "_",
                "a",
                "b",
                " ",
                "\n",
                "<|tool_call",
                "<|tool_call_start|>",
                "<|tool_call_end|>",
                "<|tool_call|>",
                "<|tool_calls|>",
            ])),
        },
        Setting {
            name: "two spans and a token",
            patterns: vec![
                Pattern::span("<a>", "</a>"),
                Pattern::token("<t/>"),
                Pattern::span("<b>", "</b>"),
            ],
            fragments: words(&[
                "<", "/", "a", "b", "t", ">", "x", "<a>", "</a>", "<b>", "</b>", "<t/>", "</", "a>", "b>",
                "<t", "/>",
            ]),
        },
        Setting {
            name: "a long token and a short span",
            patterns: vec![Pattern::token("<longer-token>"), Pattern::span("<s>", "<e>")],
            fragments: words(&[
                "<",
                "s",
                "e",
                ">",
                "longer-token",
                "long",
                "er-",
                "token>",
                "x",
                "<s>",
                "<e>",
            ]),
        },
        Setting {
            name: "one-unit span literals and an astral token",
            patterns: vec![Pattern::span("⟦", "⟧"), Pattern::token("😀!")],
            fragments: with_surrogates(words(&["⟦", "⟧", "!", "x", "😀!"])),
        },
    ]
    .into_iter()
    // The presets that are literal registries; the others run on the
    // general engine (tests/general_properties.rs).
    .chain(
        PRESETS[1..]
            .iter()
            .filter(|preset| Registry::new(preset.to_patterns()).is_ok_and(|registry| registry.is_literal()))
            .map(|preset| Setting {
                name: preset.name,
                patterns: preset.to_patterns(),
                fragments: with_surrogates(fragments_of(&preset.to_patterns())),
            }),
    )
    .collect()
}

/// Fragments for random texts over a registry: each literal, its halves,
/// its units, and a little plain text.
fn fragments_of(patterns: &[Pattern]) -> Vec<Vec<u16>> {
    let mut fragments = vec![units("x"), units(" ")];
    for pattern in patterns {
        let literals = match pattern {
            Pattern::Span { start, end } => vec![start, end],
            Pattern::Token { literal } => vec![literal],
            _ => continue,
        };
        for literal in literals {
            let half = literal.len() / 2;
            fragments.extend([literal.clone(), literal[..half].to_vec(), literal[half..].to_vec()]);
            fragments.extend(literal.iter().map(|&unit| vec![unit]));
        }
    }
    fragments
}

fn random_text(rng: &mut Rng, fragments: &[Vec<u16>], most: usize) -> Vec<u16> {
    let count = rng.below(most + 1);
    (0..count).flat_map(|_| fragments[rng.below(fragments.len())].iter().copied()).collect()
}

/// Cuts `text` into chunks at random code-unit positions (surrogate pairs
/// included), sometimes one unit each, sometimes whole, with the odd empty
/// chunk.
fn random_chunks(rng: &mut Rng, text: &[u16]) -> Vec<Vec<u16>> {
    match rng.below(8) {
        0 => return vec![text.to_vec()],
        1 => return text.iter().map(|&unit| vec![unit]).collect(),
        _ => {}
    }
    let mut chunks = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let len = if rng.below(10) == 0 { 0 } else { 1 + rng.below(12) };
        let end = (at + len).min(text.len());
        chunks.push(text[at..end].to_vec());
        at = end;
    }
    chunks
}

/// Feeds `chunks` to the filter and the transcribed reference side by side,
/// checking every output, the flush, the spans, the counter, conservation
/// and the hold bound.
fn compare(
    filter: &mut ScaffoldingFilter,
    reference: &mut ReferenceFilter,
    chunks: &[Vec<u16>],
    context: &str,
) {
    let stripped_before = filter.stripped_chars();
    let mut emitted = 0;
    for (index, chunk) in chunks.iter().enumerate() {
        let ours = filter.feed(chunk);
        let theirs = reference.feed(chunk);
        assert_eq!(ours, theirs, "{context}: feed {index} of {chunks:?}");
        emitted += ours.len();
        let bound = match filter.options().max_held {
            _ if !filter.is_span_open() => filter.registry().max_partial(),
            Some(most) => most.get(),
            None => usize::MAX,
        };
        assert!(filter.held().len() <= bound, "{context}: held {:?}", filter.held());
    }
    let ours = filter.flush();
    assert_eq!(ours, reference.flush(), "{context}: flush after {chunks:?}");
    emitted += ours.len();
    let strips: Vec<Stripped> = filter
        .strips()
        .map(|strip| Stripped { span: strip.span.to_vec(), reason: strip.reason, pattern: strip.pattern })
        .collect();
    assert_eq!(strips, reference.stripped, "{context}: strips of {chunks:?}");
    let spans: Vec<Vec<u16>> = filter.stripped_spans().map(<[u16]>::to_vec).collect();
    assert_eq!(spans, reference.stripped_spans(), "{context}: spans");
    assert_eq!(filter.stripped_chars(), reference.stripped_chars, "{context}: strippedChars");
    let input: usize = chunks.iter().map(Vec::len).sum();
    assert_eq!(emitted + filter.stripped_chars() - stripped_before, input, "{context}: conservation");
}

/// The option sets the property tests run under: the reference's, then
/// each departure from it. `None` for the bound means a random one per
/// round, small enough to be crossed often.
const OPTION_KINDS: [(&str, OpenSpanPolicy, bool); 4] = [
    ("emit", OpenSpanPolicy::Emit, false),
    ("drop", OpenSpanPolicy::Drop, false),
    ("emit, bounded", OpenSpanPolicy::Emit, true),
    ("drop, bounded", OpenSpanPolicy::Drop, true),
];

fn random_options(rng: &mut Rng, policy: OpenSpanPolicy, bounded: bool) -> Options {
    Options {
        open_span_at_end: policy,
        max_held: bounded.then(|| NonZeroUsize::new(1 + rng.below(40)).unwrap()),
        tidy_whitespace: false,
    }
}

#[test]
fn matches_the_reference_on_random_texts_and_chunkings() {
    // How often each reason came up, so that a change to the generators
    // cannot quietly stop exercising a path.
    let mut seen = [0usize; 3];
    for setting in settings() {
        let registry = Arc::new(Registry::new(setting.patterns.clone()).unwrap());
        for (kind, policy, bounded) in OPTION_KINDS {
            let mut rng = Rng(0x5EA4_6A7D);
            let rounds = if kind == "emit" { 3000 } else { 1500 };
            for round in 0..rounds {
                let options = random_options(&mut rng, policy, bounded);
                let mut filter = ScaffoldingFilter::with_options(registry.clone(), options);
                let mut reference = ReferenceFilter::with_options(setting.patterns.clone(), options);
                let text = random_text(&mut rng, &setting.fragments, 24);
                for cut in 0..3 {
                    let chunks = random_chunks(&mut rng, &text);
                    compare(
                        &mut filter,
                        &mut reference,
                        &chunks,
                        &format!("{} ({kind} {options:?}) round {round} cut {cut}", setting.name),
                    );
                }
                for strip in filter.strips() {
                    seen[strip.reason as usize] += 1;
                }
            }
        }
    }
    assert!(seen.iter().all(|&count| count > 1000), "{seen:?}");
}

#[test]
fn long_streams_with_many_feeds_match_the_reference() {
    for setting in settings() {
        let registry = Arc::new(Registry::new(setting.patterns.clone()).unwrap());
        for (kind, policy, bounded) in OPTION_KINDS {
            let mut rng = Rng(0x10C4_57E3);
            for round in 0..200 {
                let options = random_options(&mut rng, policy, bounded);
                let mut filter = ScaffoldingFilter::with_options(registry.clone(), options);
                let mut reference = ReferenceFilter::with_options(setting.patterns.clone(), options);
                let text = random_text(&mut rng, &setting.fragments, 200);
                let chunks = random_chunks(&mut rng, &text);
                compare(
                    &mut filter,
                    &mut reference,
                    &chunks,
                    &format!("{} ({kind} {options:?}) long round {round}", setting.name),
                );
            }
        }
    }
}

#[test]
fn a_long_open_span_fed_in_small_pieces() {
    // 16 MiB of span body in 4 KiB pieces: linear work, so this is quick
    // (the transcribed reference would rescan the held span every feed).
    let mut filter = ScaffoldingFilter::new();
    assert_eq!(text(&filter.feed(&expand("before{S}"))), "before");
    let piece: Vec<u16> = units("[call(x='<|tool_ a|> b>')] ").into_iter().cycle().take(4096).collect();
    let pieces = 16 * 1024 * 1024 / piece.len();
    for _ in 0..pieces {
        assert!(filter.feed(&piece).is_empty());
    }
    assert!(filter.is_span_open());
    assert_eq!(text(&filter.feed(&expand("{E}after"))), "after");
    assert_eq!(filter.stripped_chars(), S.len() + pieces * piece.len() + E.len());
    assert!(filter.held().is_empty());
}

/// A JSON string read as UTF-16 code units, lone surrogates included.
/// serde_json refuses a lone surrogate escape in a `String` but passes it
/// through to a byte visitor, encoded like UTF-8 (WTF-8); this decodes that.
#[derive(Debug)]
struct Units(Vec<u16>);

impl<'de> serde::Deserialize<'de> for Units {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Units;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON string")
            }
            fn visit_bytes<E: serde::de::Error>(self, bytes: &[u8]) -> Result<Units, E> {
                decode_wtf8(bytes).map(Units).ok_or_else(|| E::custom("not WTF-8"))
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Units, E> {
                Ok(Units(text.encode_utf16().collect()))
            }
        }
        deserializer.deserialize_bytes(Visitor)
    }
}

fn decode_wtf8(bytes: &[u8]) -> Option<Vec<u16>> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let lead = bytes[at];
        let (len, mut point) = match lead {
            0x00..=0x7F => (1, u32::from(lead)),
            0xC0..=0xDF => (2, u32::from(lead & 0x1F)),
            0xE0..=0xEF => (3, u32::from(lead & 0x0F)),
            0xF0..=0xF7 => (4, u32::from(lead & 0x07)),
            _ => return None,
        };
        for &byte in bytes.get(at + 1..at + len)? {
            point = point << 6 | u32::from(byte & 0x3F);
        }
        match point {
            0..=0xFFFF => out.push(point as u16),
            _ => {
                let offset = point - 0x1_0000;
                out.extend([0xD800 | (offset >> 10) as u16, 0xDC00 | (offset & 0x3FF) as u16]);
            }
        }
        at += len;
    }
    Some(out)
}

#[derive(serde::Deserialize)]
struct Fixture {
    cases: Vec<FixtureCase>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct FixtureCase {
    name: String,
    /// In the registries fixture: the name of the registry the case ran.
    #[serde(default)]
    registry: Option<String>,
    rounds: Vec<FixtureRound>,
    spans: Vec<Units>,
    stripped_chars: usize,
}

#[derive(serde::Deserialize)]
struct FixtureRound {
    chunks: Vec<Units>,
    outputs: Vec<Units>,
    flush: Units,
}

#[derive(serde::Deserialize)]
struct RegistryFixture {
    registries: Vec<FixtureRegistry>,
    cases: Vec<FixtureCase>,
}

#[derive(serde::Deserialize)]
struct FixtureRegistry {
    name: String,
    #[serde(default)]
    preset: Option<String>,
    patterns: Vec<FixturePattern>,
}

/// A pattern as JavaScript writes it. The fixture's literals are plain
/// text (no lone surrogates), so they read as `String`s.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum FixturePattern {
    Span { start: String, end: String },
    Token { token: String },
}

fn read_fixture<T: serde::de::DeserializeOwned>(name: &str) -> T {
    let path = format!("{}/__test__/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Replays one golden case: every feed, every flush, then the spans.
fn replay(filter: &mut ScaffoldingFilter, case: &FixtureCase) {
    for round in &case.rounds {
        for (chunk, expected) in round.chunks.iter().zip(&round.outputs) {
            assert_eq!(filter.feed(&chunk.0), expected.0, "{}: feed {:?}", case.name, text(&chunk.0));
        }
        assert_eq!(filter.flush(), round.flush.0, "{}: flush", case.name);
    }
    let spans: Vec<&[u16]> = filter.stripped_spans().collect();
    let expected: Vec<&[u16]> = case.spans.iter().map(|span| &span.0[..]).collect();
    assert_eq!(spans, expected, "{}: spans", case.name);
    assert_eq!(filter.stripped_chars(), case.stripped_chars, "{}: strippedChars", case.name);
}

#[test]
fn replays_the_golden_vectors() {
    let fixture: Fixture = read_fixture("scaffolding.json");
    assert!(fixture.cases.len() > 1000);
    for case in &fixture.cases {
        replay(&mut ScaffoldingFilter::new(), case);
    }
}

#[test]
fn replays_the_golden_vectors_of_other_registries() {
    let fixture: RegistryFixture = read_fixture("scaffolding-registries.json");
    let mut registries = std::collections::HashMap::new();
    for registry in &fixture.registries {
        let patterns: Vec<Pattern> = registry
            .patterns
            .iter()
            .map(|pattern| match pattern {
                FixturePattern::Span { start, end } => Pattern::span(start, end),
                FixturePattern::Token { token } => Pattern::token(token),
            })
            .collect();
        if let Some(name) = &registry.preset {
            let preset = presets::preset(name).expect("a preset of that name");
            assert_eq!(preset.to_patterns(), patterns, "{name}: the preset changed; regenerate the fixture");
        }
        let compiled = Arc::new(Registry::new(patterns).unwrap());
        registries.insert(registry.name.as_str(), compiled);
    }
    // Every literal preset the reference can run (one span at most) is in
    // the fixture.
    let presets_seen = fixture.registries.iter().filter(|r| r.preset.is_some()).count();
    let one_span = |preset: &&presets::Preset| {
        Registry::new(preset.to_patterns()).is_ok_and(|registry| registry.is_literal())
            && preset.patterns.iter().filter(|p| matches!(p, PresetPattern::Span { .. })).count() <= 1
    };
    assert_eq!(presets_seen, PRESETS.iter().filter(one_span).count());
    assert!(fixture.cases.len() > 1000);
    for case in &fixture.cases {
        let registry = registries[case.registry.as_deref().expect("a registry name")].clone();
        replay(&mut ScaffoldingFilter::with_registry(registry), case);
    }
}

#[test]
fn wtf8_decoding_keeps_lone_surrogates() {
    let units: Units = serde_json::from_str(r#""a\ud83d\ude00\ud800é""#).unwrap();
    assert_eq!(units.0, [0x61, 0xD83D, 0xDE00, 0xD800, 0xE9]);
}

/// The fast path's one rule: an idle filter hands back, whole, a chunk with
/// none of its registry's start units, and stays idle.
#[test]
fn an_idle_filter_passes_a_chunk_without_start_units_whole() {
    let cases: &[(&str, Vec<Pattern>, &str)] = &[
        ("default", default_patterns(), "<"),
        ("hermes", vec![Pattern::span("<tool_call>", "</tool_call>")], "<"),
        ("mistral and a span", vec![Pattern::token("[TOOL_CALLS]"), Pattern::span("{{call", "done}}")], "[{"),
        // Both literals' first units: 'x', and the high surrogate of U+1F527.
        ("astral", vec![Pattern::span("\u{1F527}(", ")!"), Pattern::token("x\u{1F6E0}")], "x\u{1F527}"),
        // On the general engine: a token inside a span's end, and a
        // regular expression.
        (
            "overlapping",
            vec![Pattern::span("<tool_call>", "</tool_call>"), Pattern::token("</tool_call>")],
            "<",
        ),
        (
            "regex",
            vec![Pattern::token_of(Part::regex("<function=[a-z_]+>")), Pattern::token("[TOOL_CALLS]")],
            "<[",
        ),
    ];
    let mut chunks: Vec<Vec<u16>> =
        ["plain prose, a | b -> c", "tool_call_end|> |>", ""].iter().map(|chunk| units(chunk)).collect();
    chunks.extend([vec![0xD83D], vec![0xDE00, 0x20, 0x78]]);
    for (name, patterns, starts) in cases {
        let registry = Arc::new(Registry::new(patterns.clone()).expect("a valid registry"));
        let mut expected = units(starts);
        if *name == "astral" {
            expected.pop();
        }
        expected.sort_unstable();
        assert_eq!(registry.start_units(), Some(expected.clone()), "{name}");
        let mut filter = ScaffoldingFilter::with_registry(Arc::clone(&registry));
        for chunk in &chunks {
            let chunk = chunk.clone();
            if !chunk.iter().any(|unit| expected.contains(unit)) {
                assert!(filter.is_idle(), "{name}: idle before {chunk:?}");
                assert_eq!(filter.feed(&chunk), chunk, "{name}");
                assert!(filter.is_idle(), "{name}: idle after {chunk:?}");
            } else {
                filter.feed(&chunk);
            }
        }
        // A partial opening marker held back: no longer idle.
        let mut filter = ScaffoldingFilter::with_registry(Arc::clone(&registry));
        let opening = match &patterns[0] {
            Pattern::Span { start, .. } => start.clone(),
            Pattern::Token { literal } => literal.clone(),
            _ => units("<function="),
        };
        assert_eq!(filter.feed(&opening[..opening.len() - 1]), Vec::<u16>::new(), "{name}");
        assert!(!filter.is_idle(), "{name}: holds a partial opening");
    }
}

/// A filter for the default registry with tool-aware detection of `names`.
fn tool_aware(names: &[Vec<u16>]) -> ScaffoldingFilter {
    let tools = names.iter().map(|name| super::Tool { name: name.clone(), parameters: None }).collect();
    let tools = super::Tools::new(tools).unwrap();
    ScaffoldingFilter::with_tools(Registry::of_defaults(), Options::default(), Some(Arc::new(tools)))
}

/// `template` with `NAME` replaced by `name`, and `JNAME` by `name` as an
/// ASCII-only JSON encoder writes it (`\u00e9`, `\ud800`).
fn spelt(template: &str, name: &[u16]) -> Vec<u16> {
    let escaped: Vec<u16> = name
        .iter()
        .flat_map(|&unit| match unit {
            0..0x80 => vec![unit],
            _ => units(&format!("\\u{unit:04x}")),
        })
        .collect();
    let mut out = Vec::new();
    for (index, piece) in template.split("NAME").enumerate() {
        if index > 0 {
            let json = out.last() == Some(&u16::from(b'J'));
            if json {
                out.pop();
            }
            out.extend_from_slice(if json { &escaped } else { name });
        }
        out.extend(units(piece));
    }
    out
}

#[test]
fn a_tool_named_in_any_script_is_found_in_every_form() {
    let names: Vec<Vec<u16>> = ["météo", "天气", "погода", "🌤\u{fe0f}", "prévisions météo", "get_weather"]
        .iter()
        .map(|name| units(name))
        .chain([vec![0x61, 0xD800, 0x62], vec![0xDC00, 0x74]])
        // A long name, as an MCP server writes one: past a tag name's 64 units.
        .chain([units(&format!("mcp__files__{}", "read_".repeat(48)))])
        .collect();
    // Each form as a template of the name (`NAME` raw, `JNAME` as JSON
    // escapes); whether a name with a space can take it.
    let forms: &[(&str, bool)] = &[
        ("<NAME>{\"city\": \"Paris\"}</NAME>", false),
        ("<NAME>\n<city>Paris</city>\n</NAME>", false),
        ("<invoke name=\"NAME\"><parameter name=\"city\">Paris</parameter></invoke>", true),
        ("<function=NAME>\n<parameter=city>\nParis\n</parameter>\n</function>", true),
        ("functions.NAME:0 {\"city\": \"Paris\"}", true),
        ("NAME[ARGS]{\"city\": \"Paris\"}", true),
        ("{\"name\": \"NAME\", \"arguments\": {\"city\": \"Paris\"}}", true),
        ("{\"name\": \"JNAME\", \"arguments\": {\"city\": \"Paris\"}}", true),
        ("[{\"type\": \"function\", \"function\": {\"name\": \"JNAME\", \"arguments\": \"{}\"}}]", true),
        ("<tool_call>\n{\"tool_calls\": [{\"name\": \"JNAME\", \"arguments\": {}}]}\n</tool_call>", true),
        ("{“name”: “NAME”, “arguments”: {“city”: “Paris”}}", true),
        ("<|tool_call_start|>[NAME(city=\"Paris\")]<|tool_call_end|>", true),
        ("<tool_call>NAME</tool_call>", true),
        ("[TOOL_CALL]{tool => \"NAME\", args => {\"city\": \"Paris\"}}[/TOOL_CALL]", true),
        ("<|tool_call|>NAME\n```json\n{\"city\": \"Paris\"}\n```<|end|>", true),
        ("commentary to=functions.NAME json{\"city\": \"Paris\"}", true),
    ];
    for (index, name) in names.iter().enumerate() {
        let spaced = name.contains(&u16::from(b' '));
        for &(template, with_space) in forms {
            if spaced && !with_space {
                continue;
            }
            let leak = spelt(template, name);
            let answer = [units("Let me check.\n"), leak.clone(), units("\nDone.")].concat();
            for chunk in [1, 2, 3, 7, 1000] {
                let mut filter = tool_aware(&names);
                let mut out = Vec::new();
                for piece in answer.chunks(chunk) {
                    out.extend(filter.feed(piece));
                }
                out.extend(filter.flush());
                let what = format!("{template} for {:?} in chunks of {chunk}", text(name));
                assert_eq!(text(&out), "Let me check.\n\nDone.", "{what}");
                let strips: Vec<_> = filter.strips().collect();
                assert_eq!(strips.len(), 1, "{what}");
                assert_eq!(strips[0].span, &leak[..], "{what}");
                assert_eq!(
                    strips[0].calls.iter().map(|call| call.tool.clone()).collect::<Vec<_>>(),
                    [crate::filter::CalledTool::Offered(index)],
                    "{what}"
                );
            }
        }
    }
}

#[test]
fn prose_and_code_in_other_languages_pass_untouched() {
    let cases: &[(&[&str], &str)] = &[
        (&["météo"], "La météo de demain : pluie. Appelez météo(ville=\"Paris\") ou `météo` ; <météo>pluie</météo>."),
        (&["météo"], "```python\nrésultat = météo(\"Paris\")\n```"),
        (&["天气"], "今天天气很好。调用天气(城市=\"北京\")，返回 {\"城市\": \"北京\", \"天气\": \"晴\"}。<天气>晴</天气>"),
        (&["天气"], "{\"name\": \"天气\", \"description\": \"查询天气\", \"parameters\": {\"type\": \"object\", \"properties\": {}}}"),
        (&["погода"], "Погода сегодня хорошая: погода(город) — это функция, а [погода] — ссылка."),
        (&["🌤\u{fe0f}"], "🌤\u{fe0f} Sunny! Call 🌤\u{fe0f}(city) for more."),
    ];
    for &(names, prose) in cases {
        let names: Vec<Vec<u16>> = names.iter().map(|name| units(name)).collect();
        let prose = units(prose);
        for chunk in [1, 3, 1000] {
            let mut filter = tool_aware(&names);
            let mut out = Vec::new();
            for piece in prose.chunks(chunk) {
                out.extend(filter.feed(piece));
            }
            out.extend(filter.flush());
            assert_eq!(out, prose, "{} in chunks of {chunk}", text(&prose));
            assert_eq!(filter.strips().len(), 0, "{} in chunks of {chunk}", text(&prose));
        }
    }
}

/// The tool stage marks, as it reads a chunk, where the special tokens'
/// engine may begin, and the engine reads those marks instead of scanning
/// the chunk again: a filter that does and one that does not agree on every
/// output, the flush and every strip, in random texts and chunkings.
#[test]
fn the_stage_marking_the_engines_first_units_changes_nothing() {
    use crate::filter::tool_aware::Tools;
    use crate::filter::tool_names::Tool;
    let registry = Arc::new(
        Registry::new(
            crate::filter::presets::special_token_patterns().into_iter().map(|p| p.to_pattern()).collect(),
        )
        .unwrap(),
    );
    let tools = Arc::new(Tools::new(["get_weather", "search", "é_tool"].map(Tool::named).to_vec()).unwrap());
    let mut fragments = fragments_of(registry.patterns());
    fragments.extend(
        [
            "<",
            "[",
            "]",
            "x < y",
            " a[1] ",
            "]~b]",
            "<|tool_call_start|>",
            "<|tool_call_end|>",
            "[TOOL_CALLS]",
            "<|",
            "|>",
            "get_weather",
            "search",
            "é_tool",
            "{\"name\": \"get_weather\", \"arguments\": {}}",
            "<tool_call>",
            "</tool_call>",
            "\n",
            " ",
            "prose ",
            "ŀ",
            "ļ",
            "\u{FF5C}",
            "<\u{FF5C}",
            "😀",
        ]
        .map(units),
    );
    let mut rng = Rng(0x5EED_0F7A);
    for round in 0..1500 {
        let text = random_text(&mut rng, &fragments, 60);
        let chunks = random_chunks(&mut rng, &text);
        let options = if round % 2 == 0 {
            Options::default()
        } else {
            Options { open_span_at_end: OpenSpanPolicy::Drop, ..Options::default() }
        };
        let mut marked = ScaffoldingFilter::with_tools(registry.clone(), options, Some(tools.clone()));
        assert!(marked.begins.is_some());
        let mut scanned = ScaffoldingFilter::with_tools(registry.clone(), options, Some(tools.clone()));
        scanned.begins = None;
        for (index, chunk) in chunks.iter().enumerate() {
            assert_eq!(marked.feed(chunk), scanned.feed(chunk), "feed {index} of {chunks:?}");
        }
        assert_eq!(marked.flush(), scanned.flush(), "flush after {chunks:?}");
        let strips = |filter: &ScaffoldingFilter| {
            filter.strips().map(|strip| (strip.span.to_vec(), strip.reason)).collect::<Vec<_>>()
        };
        assert_eq!(strips(&marked), strips(&scanned), "strips of {chunks:?}");
    }
}
