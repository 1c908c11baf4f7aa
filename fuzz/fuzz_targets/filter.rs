//! Fuzz target: the scaffolding filter under a random registry and a random
//! chunking.
//!
//! The input bytes are read as a small program (see `Script`): a registry
//! (the default one, or up to four patterns: literal spans and tokens over a
//! tiny alphabet, often overlapping or empty on purpose, and now and then a
//! regular expression, a span with a regular-expression end, an opening
//! followed by JSON, or a JSON call), then text built from units, pieces of
//! the literals and pieces of JSON, cut into chunks, with flushes in
//! between. A literal registry is judged by the transcribed reference the
//! property tests use; any other by its own guarantees: the same output and
//! strips as the same streams fed whole, and no unit lost. Any disagreement,
//! a broken hold bound or a panic is a crash.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use std::sync::Arc;

use seamguard::filter::{default_patterns, Part, Pattern, Registry, ScaffoldingFilter};

#[path = "../../tests/support/oracle.rs"]
mod oracle;

/// Few units, so that literals collide, nearly match and overlap often; a
/// surrogate pair and a lone surrogate among them.
const ALPHABET: [u16; 8] = [0x3C, 0x3E, 0x7C, 0x61, 0x2F, 0xD83D, 0xDE00, 0xD800];

/// Keeps the quadratic reference fast enough for millions of runs.
const MOST_UNITS: usize = 400;

fn literal(u: &mut Unstructured) -> Result<Vec<u16>> {
    let len = u.int_in_range(1..=6)?;
    (0..len).map(|_| Ok(ALPHABET[u.choose_index(ALPHABET.len())?])).collect()
}

/// Regular expressions over the alphabet: greedy, lazy, anchored, and one
/// that can match the empty string (refused).
const REGEXES: [&str; 7] = ["<a+>", "a[^>]*>", "<a|<a/", "(?:a/)+>", "^<a", "/a$", "a*"];

/// Pieces of JSON, so that JSON patterns open, close and fail.
const JSON: [&str; 6] = ["{\"name\":\"f\",\"arguments\":{}}", "[{", "}]", "\"a\"", "\n", "{\"a\":[1,"];

fn patterns(u: &mut Unstructured) -> Result<Vec<Pattern>> {
    if u.ratio(1, 3)? {
        return Ok(default_patterns());
    }
    let count = u.int_in_range(0..=4)?;
    (0..count)
        .map(|_| {
            Ok(match u.int_in_range(0..=9u8)? {
                0..=3 => Pattern::Span { start: literal(u)?, end: literal(u)? },
                4..=6 => Pattern::Token { literal: literal(u)? },
                7 => Pattern::token_of(Part::regex(REGEXES[u.choose_index(REGEXES.len())?])),
                8 if u.arbitrary()? => Pattern::Json { start: Part::Literal(literal(u)?) },
                8 => Pattern::JsonCall { tool_names: None },
                _ => Pattern::span_of(Part::Literal(literal(u)?), Part::regex(REGEXES[u.choose_index(4)?])),
            })
        })
        .collect()
}

fn literals_of(patterns: &[Pattern]) -> Vec<&[u16]> {
    patterns
        .iter()
        .flat_map(|pattern| match pattern {
            Pattern::Span { start, end } => vec![&start[..], &end[..]],
            Pattern::Token { literal } => vec![&literal[..]],
            Pattern::Json { start: Part::Literal(start) }
            | Pattern::RegexSpan { start: Part::Literal(start), .. } => {
                vec![&start[..]]
            }
            _ => Vec::new(),
        })
        .collect()
}

/// The stream a script describes: chunks and where to flush.
struct Script {
    chunks: Vec<Vec<u16>>,
    flush_after: Vec<bool>,
}

fn script(u: &mut Unstructured, patterns: &[Pattern]) -> Result<Script> {
    let literals = literals_of(patterns);
    let mut chunks = vec![Vec::new()];
    let mut flush_after = vec![false];
    let mut total = 0;
    while !u.is_empty() && total < MOST_UNITS {
        let chunk = chunks.last_mut().expect("one chunk at least");
        match u.int_in_range(0..=15u8)? {
            0 => {
                chunks.push(Vec::new());
                flush_after.push(false);
            }
            1 => {
                *flush_after.last_mut().expect("one per chunk") = true;
                chunks.push(Vec::new());
                flush_after.push(false);
            }
            2..=6 => {
                chunk.push(ALPHABET[u.choose_index(ALPHABET.len())?]);
                total += 1;
            }
            7 => {
                let piece: Vec<u16> = JSON[u.choose_index(JSON.len())?].encode_utf16().collect();
                total += piece.len();
                chunk.extend(piece);
            }
            _ if literals.is_empty() => {}
            _ => {
                let whole = literals[u.choose_index(literals.len())?];
                let cut = u.int_in_range(0..=whole.len())?;
                let piece = match u.int_in_range(0..=2u8)? {
                    0 => whole,
                    1 => &whole[..cut],
                    _ => &whole[cut..],
                };
                chunk.extend_from_slice(piece);
                total += piece.len();
            }
        }
    }
    Ok(Script { chunks, flush_after })
}

/// Output per stream (a stream ends at each flush) and every strip.
type Run = (Vec<Vec<u16>>, Vec<(Vec<u16>, usize)>);

fn run(registry: &Arc<Registry>, streams: &[Vec<Vec<u16>>]) -> Run {
    let mut filter = ScaffoldingFilter::with_registry(Arc::clone(registry));
    let outputs = streams
        .iter()
        .map(|chunks| {
            let mut out: Vec<u16> = chunks.iter().flat_map(|chunk| filter.feed(chunk)).collect();
            out.extend(filter.flush());
            out
        })
        .collect();
    (outputs, filter.strips().map(|strip| (strip.span.to_vec(), strip.pattern)).collect())
}

/// The general engine's guarantees: each stream gives the same output and
/// strips fed in the script's chunks as fed whole, and loses nothing.
fn check_general(registry: &Arc<Registry>, script: &Script) -> std::result::Result<(), String> {
    let mut streams = vec![Vec::new()];
    for (chunk, &flush) in script.chunks.iter().zip(&script.flush_after) {
        streams.last_mut().expect("one stream at least").push(chunk.clone());
        if flush {
            streams.push(Vec::new());
        }
    }
    let whole: Vec<Vec<Vec<u16>>> = streams.iter().map(|chunks| vec![chunks.concat()]).collect();
    let (cut, cut_strips) = run(registry, &streams);
    let (one, one_strips) = run(registry, &whole);
    if cut != one || cut_strips != one_strips {
        return Err(format!(
            "chunking changed the answer: {cut:?} {cut_strips:?} against {one:?} {one_strips:?}"
        ));
    }
    let input: usize = script.chunks.iter().map(Vec::len).sum();
    let kept: usize = cut.iter().map(Vec::len).sum::<usize>()
        + cut_strips.iter().map(|(span, _)| span.len()).sum::<usize>();
    if input != kept {
        return Err(format!("{input} units in, {kept} out and stripped"));
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(patterns) = patterns(&mut u) else { return };
    let registry = match Registry::new(patterns.clone()) {
        Ok(registry) => Arc::new(registry),
        Err(error) => {
            // A rejected list must name one of its own entries.
            assert!(error.entry < patterns.len(), "{error}");
            return;
        }
    };
    let Ok(script) = script(&mut u, &patterns) else { return };
    let checked = if registry.is_literal() {
        oracle::check_stream(&patterns, &script.chunks, &script.flush_after)
    } else {
        check_general(&registry, &script)
    };
    if let Err(why) = checked {
        panic!(
            "{why}\npatterns: {patterns:?}\nchunks: {:?}\nflush after: {:?}",
            script.chunks, script.flush_after
        );
    }
});
