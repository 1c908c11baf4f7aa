//! Property tests of the general engine (any registry that is not a literal
//! one, every pattern kind) through the crate's public API.
//!
//! - Against the `regex` crate: for registries of literal tokens, literal
//!   spans and regular expressions, the filter strips exactly what one
//!   regular expression made of the patterns in order finds with
//!   `captures_iter` over the whole text, for every chunking.
//! - For every kind, JSON ones included, and both open-span policies: the
//!   same output and the same strips for every chunking, nothing lost
//!   (output and strips add up to the input), and `maxHeld` bounding what
//!   is held after every feed.

use std::num::NonZeroUsize;
use std::sync::Arc;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use seamguard::filter::{OpenSpanPolicy, Options, Part, Pattern, Registry, ScaffoldingFilter};

const SEED: u64 = 0x6E4E_4A11;

fn config(cases: u32) -> Config {
    Config { cases, rng_seed: RngSeed::Fixed(SEED), failure_persistence: None, ..Config::default() }
}

fn units(text: &str) -> Vec<u16> {
    text.encode_utf16().collect()
}

/// Literals from a small alphabet, so that overlaps, nesting and near
/// misses are common.
fn literal() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(vec!["<", ">", "/", "a", "b", "|", "😀"]), 1..5)
        .prop_map(|pieces| pieces.concat())
}

/// Regular expressions over the same alphabet, greedy and lazy ones, with
/// alternations that prefer the shorter branch, and matches that may grow
/// (`<a` that a `<b` may extend; closers that a regular expression keeps
/// extending, as DeepSeek's DSML preset has): a match to fall back on
/// that many threads share.
const REGEXES: [&str; 10] = [
    "<a+>",
    "a[^>]*>",
    "<a|<ab",
    "b{2,3}",
    "(?:ab)+/",
    "<[ab]*?>",
    "/b\\z",
    "😀+a",
    "<a(?:<b)?",
    "(?:</a> ?)+",
];

/// A pattern the `regex` crate can say, with its source there.
#[derive(Clone, Debug)]
struct Said {
    pattern: Pattern,
    source: String,
}

fn said() -> impl Strategy<Value = Said> {
    prop_oneof![
        literal().prop_map(|token| Said { source: regex::escape(&token), pattern: Pattern::token(&token) }),
        (literal(), literal()).prop_map(|(start, end)| Said {
            source: format!("{}(?s:.)*?{}", regex::escape(&start), regex::escape(&end)),
            pattern: Pattern::span(&start, &end),
        }),
        prop::sample::select(REGEXES.to_vec()).prop_map(|source| Said {
            source: format!("(?:{source})"),
            pattern: Pattern::token_of(Part::regex(source)),
        }),
    ]
}

/// A text made of the alphabet and whole literals, and where to cut it.
fn text_and_cuts() -> impl Strategy<Value = (String, Vec<usize>)> {
    let pieces = prop::sample::select(vec![
        "<",
        ">",
        "/",
        "a",
        "b",
        "|",
        "😀",
        "\n",
        " ",
        "{",
        "}",
        "[",
        "]",
        "\"",
        ":",
        ",",
        "é",
        "<ab>",
        "</a>",
        "aab>",
        "bbb",
        "{\"name\": \"f\", \"arguments\": {}}",
        "[{\"name\":\"g\",\"parameters\":{\"x\":[1,2]}}]",
        "```json\n",
        "\n```",
        "{\"a\": \"}\"}",
    ]);
    prop::collection::vec(pieces, 0..40).prop_flat_map(|pieces| {
        let text = pieces.concat();
        let length = text.encode_utf16().count();
        (Just(text), prop::collection::vec(0..=length, 0..12))
    })
}

fn chunks_of(text: &[u16], cuts: &[usize]) -> Vec<Vec<u16>> {
    let mut cuts: Vec<usize> = cuts.iter().map(|&cut| cut.min(text.len())).collect();
    cuts.sort_unstable();
    let mut chunks = Vec::new();
    let mut from = 0;
    for cut in cuts.into_iter().chain([text.len()]) {
        chunks.push(text[from..cut].to_vec());
        from = cut;
    }
    chunks
}

/// Output, and every strip's (span, pattern), for one chunking.
#[allow(clippy::type_complexity)] // (text, strips, flushed): read at the call site
fn run(
    registry: &Arc<Registry>,
    options: Options,
    chunks: &[Vec<u16>],
) -> (Vec<u16>, Vec<(Vec<u16>, usize)>, usize) {
    let mut filter = ScaffoldingFilter::with_options(Arc::clone(registry), options);
    let mut out = Vec::new();
    let mut most_held = 0;
    for chunk in chunks {
        out.extend(filter.feed(chunk));
        most_held = most_held.max(filter.held().len());
    }
    out.extend(filter.flush());
    let strips = filter.strips().map(|strip| (strip.span.to_vec(), strip.pattern)).collect();
    (out, strips, most_held)
}

/// What one regular expression made of the patterns strips from the whole
/// text.
fn by_regex(said: &[Said], text: &str) -> (Vec<u16>, Vec<(Vec<u16>, usize)>) {
    let union: Vec<String> = said.iter().map(|s| format!("({})", s.source)).collect();
    let regex = regex::Regex::new(&union.join("|")).expect("the union compiles");
    let mut out = String::new();
    let mut strips = Vec::new();
    let mut from = 0;
    for captures in regex.captures_iter(text) {
        let whole = captures.get(0).expect("a match");
        let pattern = (1..captures.len()).find(|&group| captures.get(group).is_some()).expect("a group") - 1;
        out.push_str(&text[from..whole.start()]);
        strips.push((units(whole.as_str()), pattern));
        from = whole.end();
    }
    out.push_str(&text[from..]);
    (units(&out), strips)
}

/// Patterns of every kind, for the chunking properties.
fn any_pattern() -> impl Strategy<Value = Pattern> {
    prop_oneof![
        3 => said().prop_map(|said| said.pattern),
        1 => literal().prop_map(|start| Pattern::Json { start: Part::Literal(units(&start)) }),
        1 => Just(Pattern::Json { start: Part::regex("<a+>") }),
        1 => Just(Pattern::JsonCall { tool_names: None }),
        1 => Just(Pattern::JsonCall { tool_names: Some(vec!["g".into()]) }),
        1 => (literal(), prop::sample::select(REGEXES.to_vec()))
            .prop_map(|(start, end)| Pattern::span_of(Part::Literal(units(&start)), Part::regex(end))),
    ]
}

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn strips_what_one_regular_expression_finds(
        said in prop::collection::vec(said(), 1..5),
        (text, cuts) in text_and_cuts(),
    ) {
        let patterns: Vec<Pattern> = said.iter().map(|s| s.pattern.clone()).collect();
        let registry = Arc::new(Registry::new(patterns).expect("a registry"));
        // Literal registries run as the reference does, feed by feed; the
        // properties of that engine are in filter_properties.rs.
        prop_assume!(!registry.is_literal());
        let expected = by_regex(&said, &text);
        let (out, strips, _) = run(&registry, Options::default(), &chunks_of(&units(&text), &cuts));
        prop_assert_eq!(String::from_utf16_lossy(&out), String::from_utf16_lossy(&expected.0));
        prop_assert_eq!(strips, expected.1);
    }

    #[test]
    fn every_chunking_gives_the_same_answer_and_loses_nothing(
        patterns in prop::collection::vec(any_pattern(), 1..5),
        (text, cuts) in text_and_cuts(),
        lone in prop::option::of(0usize..40),
        drop in any::<bool>(),
        max_held in prop::option::of(4usize..40),
    ) {
        let registry = Arc::new(Registry::new(patterns.clone()).expect("a registry"));
        prop_assume!(!registry.is_literal());
        let mut text = units(&text);
        if let Some(at) = lone {
            // A lone surrogate somewhere.
            text.insert(at.min(text.len()), 0xD800);
        }
        let policy = if drop { OpenSpanPolicy::Drop } else { OpenSpanPolicy::Emit };
        let options = Options { open_span_at_end: policy, max_held: None, tidy_whitespace: false };
        let whole = run(&registry, options, std::slice::from_ref(&text));
        let cut = run(&registry, options, &chunks_of(&text, &cuts));
        let by_unit: Vec<Vec<u16>> = text.iter().map(|&unit| vec![unit]).collect();
        let one_by_one = run(&registry, options, &by_unit);
        prop_assert_eq!(&cut.0, &whole.0, "{:?}", patterns);
        prop_assert_eq!(&cut.1, &whole.1);
        prop_assert_eq!(&one_by_one.0, &whole.0);
        prop_assert_eq!(&one_by_one.1, &whole.1);
        let stripped: usize = whole.1.iter().map(|(span, _)| span.len()).sum();
        prop_assert_eq!(whole.0.len() + stripped, text.len());

        if let Some(most) = max_held {
            let bounded = Options { open_span_at_end: policy, max_held: NonZeroUsize::new(most), tidy_whitespace: false };
            let (out, strips, most_held) = run(&registry, bounded, &chunks_of(&text, &cuts));
            prop_assert!(most_held <= most, "held {most_held} > {most}");
            let stripped: usize = strips.iter().map(|(span, _)| span.len()).sum();
            prop_assert_eq!(out.len() + stripped, text.len());
        }
    }
}
