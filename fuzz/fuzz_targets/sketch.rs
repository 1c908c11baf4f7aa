//! Fuzz target: a corpus's sketch never rules out a needle its text holds.
//!
//! The input bytes are drawn into a text over an alphabet of word bytes,
//! anchors and JSON punctuation (so tokens and token starts are dense), and a
//! list of cuts. Every cut of the text that `NeedleGrams` can ask about must
//! pass the text's sketch; a cut changed in one byte must pass whenever the
//! changed needle still occurs in the text. A miss is a crash: it would make
//! a corpus skip the result that grounds a value.
#![no_main]

use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;
use seamguard::checks::text::sketch::{GramSketch, NeedleGrams, MIN_SKETCHED_TEXT};

const ALPHABET: &[u8] = b"ab09z:-/._@ \n\"\",{}[]\\|=\t";

fn byte(u: &mut Unstructured) -> Result<u8> {
    Ok(ALPHABET[usize::from(u.arbitrary::<u8>()?) % ALPHABET.len()])
}

fn run(u: &mut Unstructured) -> Result<()> {
    let length = MIN_SKETCHED_TEXT + usize::from(u.arbitrary::<u16>()? % 4096);
    // A short pattern repeated with changes, so that grams recur as they do
    // in tool output, rather than bytes that are all different.
    let pattern: Vec<u8> = (0..1 + u.arbitrary::<u8>()? % 64).map(|_| byte(u)).collect::<Result<_>>()?;
    let mut text: Vec<u8> = pattern.iter().copied().cycle().take(length).collect();
    while !u.is_empty() && u.arbitrary::<u8>()? % 4 != 0 {
        let at = usize::from(u.arbitrary::<u16>()?) % text.len();
        text[at] = byte(u)?;
    }
    let sketch = GramSketch::of_text(&text).expect("long enough to sketch");
    while !u.is_empty() {
        let start = usize::from(u.arbitrary::<u16>()?) % text.len();
        let end = (start + 1 + usize::from(u.arbitrary::<u8>()?)).min(text.len());
        let mut needle = text[start..end].to_vec();
        if u.arbitrary::<bool>()? {
            let at = usize::from(u.arbitrary::<u8>()?) % needle.len();
            needle[at] = byte(u)?;
        }
        let Some(grams) = NeedleGrams::of_needle(&needle) else { continue };
        let occurs = text.windows(needle.len()).any(|window| window == needle.as_slice());
        assert!(!occurs || sketch.may_contain(&grams), "ruled out {:?}", String::from_utf8_lossy(&needle));
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(&mut Unstructured::new(data));
});
