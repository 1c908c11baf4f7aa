//! Fuzz target: the scaffolding filter under a random registry and a random
//! chunking, judged by the transcribed reference the property tests use.
//!
//! The input bytes are read as a small program (see `Script`): a registry
//! (the default one, or up to four patterns with literals over a tiny
//! alphabet, often invalid on purpose), then text built from units and from
//! pieces of the literals, cut into chunks, with flushes in between. Any
//! disagreement with the reference, a broken hold bound, a lost unit or a
//! panic is a crash.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use seamguard::scaffolding::{default_patterns, Pattern, Registry};

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

fn patterns(u: &mut Unstructured) -> Result<Vec<Pattern>> {
    if u.ratio(1, 3)? {
        return Ok(default_patterns());
    }
    let count = u.int_in_range(0..=4)?;
    (0..count)
        .map(|_| {
            Ok(if u.arbitrary()? {
                Pattern::Span { start: literal(u)?, end: literal(u)? }
            } else {
                Pattern::Token { literal: literal(u)? }
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
            2..=7 => {
                chunk.push(ALPHABET[u.choose_index(ALPHABET.len())?]);
                total += 1;
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

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(patterns) = patterns(&mut u) else { return };
    if let Err(error) = Registry::new(patterns.clone()) {
        // A rejected list must name one of its own entries.
        assert!(error.entry < patterns.len(), "{error}");
        return;
    }
    let Ok(script) = script(&mut u, &patterns) else { return };
    if let Err(why) = oracle::check_stream(&patterns, &script.chunks, &script.flush_after) {
        panic!(
            "{why}\npatterns: {patterns:?}\nchunks: {:?}\nflush after: {:?}",
            script.chunks, script.flush_after
        );
    }
});
