//! A small filter kept beside a corpus's ASCII text, so that a call can pass
//! over most of a run's results without searching them.
//!
//! The sketch is a Bloom filter of the 8-byte grams that start at each
//! anchored token start of the text (a word byte after a separator other
//! than JSON's own punctuation and `|`). The invariant it keeps: every such
//! gram that lies inside a needle the text contains is in the filter, so a
//! text whose filter lacks one cannot hold the needle. The sketch only ever
//! skips a text, never decides a match. Why grams at token starts, and why
//! that is exact, is in docs/design.md.

/// The gram length, in bytes.
const GRAM: usize = 8;

/// Texts shorter than this are not sketched: searching them costs about as
/// much as asking the sketch.
pub const MIN_SKETCHED_TEXT: usize = 512;

/// Word bytes: what tokens are made of, in lowered text.
#[inline]
fn is_word(byte: u8) -> bool {
    byte.is_ascii_lowercase() || byte.is_ascii_digit()
}

/// JSON's own punctuation (and `|`, which shares a bit pattern with it),
/// which separates tokens but is not an anchor.
const UNANCHORED: [u8; 8] = [b'"', b',', b'{', b'}', b'[', b']', b'\\', b'|'];

#[inline]
fn is_anchor(byte: u8) -> bool {
    !is_word(byte) && !UNANCHORED.contains(&byte)
}

/// Whether position `at` of `bytes` (with `at >= 1`) starts an anchored
/// token.
#[inline]
fn starts_token(bytes: &[u8], at: usize) -> bool {
    is_anchor(bytes[at - 1]) && is_word(bytes[at])
}

#[inline(always)]
fn gram_hash(bytes: &[u8], at: usize) -> u64 {
    let gram = u64::from_le_bytes(bytes[at..at + GRAM].try_into().expect("GRAM bytes"));
    gram.wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// A Bloom filter of a text's anchored grams, one hash bit per gram.
#[derive(Debug, PartialEq, Eq)]
pub struct GramSketch {
    /// `2^log_bits` bits.
    words: Box<[u64]>,
    log_bits: u32,
}

impl GramSketch {
    /// The sketch of a lowered ASCII text, or `None` when the text is too
    /// short to be worth one.
    pub fn of_text(text: &[u8]) -> Option<Self> {
        if !Self::is_worth_it(text.len()) {
            return None;
        }
        // At least one bit per byte: a text has about one anchored token
        // start per ten bytes of JSON, so a gram sets about one bit in ten.
        let log_bits = Self::log_bits_for(text.len());
        let mut sketch = GramSketch { words: vec![0u64; 1 << (log_bits - 6)].into_boxed_slice(), log_bits };
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx2")
            && is_x86_feature_detected!("bmi1")
            && is_x86_feature_detected!("popcnt")
        {
            // SAFETY: the features it is compiled for were just detected.
            unsafe { sketch.fill_avx2(text) };
            return Some(sketch);
        }
        sketch.fill(text, block_masks);
        Some(sketch)
    }

    /// Puts the gram at every anchored token start of `text` in the filter,
    /// the blocks' masks made by `masks`.
    #[inline(always)]
    fn fill(&mut self, text: &[u8], masks: impl Fn(&[u8; 64]) -> (u64, u64)) {
        // Token starts up to the last whole gram.
        let last = text.len() - GRAM;
        let shift = 64 - self.log_bits;
        let words = &mut *self.words;
        let in_range = words.len() - 1;
        for_each_token_start(text, masks, |at| {
            if at <= last {
                let bit = gram_hash(text, at) >> shift;
                words[(bit >> 6) as usize & in_range] |= 1 << (bit & 63);
            }
        });
    }

    /// [`Self::fill`] compiled for AVX2, with hardware bit counts.
    ///
    /// # Safety
    ///
    /// The CPU must have AVX2, BMI1 and POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,bmi1,popcnt")]
    unsafe fn fill_avx2(&mut self, text: &[u8]) {
        // SAFETY: this function's own features are the ones it needs.
        self.fill(text, |block| unsafe { block_masks_avx2(block) });
    }

    /// The bit of a gram's hash: its top `log_bits` bits (the high bits of
    /// a multiplicative hash depend on every input bit), as a word index
    /// and a mask.
    #[inline(always)]
    fn bit(&self, hash: u64) -> (usize, u64) {
        let bit = hash >> (64 - self.log_bits);
        ((bit >> 6) as usize & (self.words.len() - 1), 1 << (bit & 63))
    }

    /// Whether a text of `len` bytes gets a sketch: not when it is so short
    /// that searching it costs about as much as asking the sketch. Token
    /// starts are counted in `u32`; no JavaScript string is longer, but a
    /// Rust caller's text could be.
    pub fn is_worth_it(len: usize) -> bool {
        len >= MIN_SKETCHED_TEXT && u32::try_from(len).is_ok()
    }

    /// The filter's size for a text of `len` bytes: at least one bit per
    /// byte.
    fn log_bits_for(len: usize) -> u32 {
        len.next_power_of_two().trailing_zeros().max(6)
    }

    /// The heap the sketch keeps, in bytes.
    pub fn heap_bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// Whether the text this sketch was made from may contain the needle
    /// `grams` were made from. `false` is certain; `true` is a maybe.
    pub fn may_contain(&self, grams: &NeedleGrams) -> bool {
        grams.hashes.iter().all(|&hash| {
            let (word, mask) = self.bit(hash);
            self.words[word] & mask != 0
        })
    }
}

/// Calls `visit` with every position `at >= 1` of `text` that starts an
/// anchored token, in order, the blocks' masks made by `masks` (as
/// [`block_masks`] makes them).
#[inline(always)]
fn for_each_token_start(text: &[u8], masks: impl Fn(&[u8; 64]) -> (u64, u64), mut visit: impl FnMut(usize)) {
    let mut base = 0;
    // Whether the byte before the current block is an anchor; the text's
    // first byte has no byte before it, so it never starts a token.
    let mut anchor_before = 0u64;
    for block in text.chunks_exact(64) {
        let (word, anchor) = masks(block.try_into().expect("64 bytes"));
        let mut starts = ((anchor << 1) | anchor_before) & word;
        anchor_before = anchor >> 63;
        while starts != 0 {
            visit(base + starts.trailing_zeros() as usize);
            starts &= starts - 1;
        }
        base += 64;
    }
    for at in base.max(1)..text.len() {
        if starts_token(text, at) {
            visit(at);
        }
    }
}

/// Bit `i` of the first mask is set when `block[i]` is a word byte, of the
/// second when it is an anchor.
#[cfg(target_arch = "x86_64")]
fn block_masks(block: &[u8; 64]) -> (u64, u64) {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of x86_64; every load reads 16 of the 64 bytes.
    unsafe {
        // A byte is in `lo..lo + n` when, shifted so `lo` lands on -128, it
        // is below -128 + n as a signed byte.
        let within = |v: __m128i, lo: u8, n: u8| {
            let shifted = _mm_add_epi8(v, _mm_set1_epi8(0x80u8.wrapping_sub(lo) as i8));
            _mm_cmplt_epi8(shifted, _mm_set1_epi8((0x80u8.wrapping_add(n)) as i8))
        };
        let (mut words, mut anchors) = (0u64, 0u64);
        for (lane, chunk) in block.chunks_exact(16).enumerate() {
            let v = _mm_loadu_si128(chunk.as_ptr().cast());
            let word = _mm_or_si128(within(v, b'a', 26), within(v, b'0', 10));
            // `[ \ ]` and `{ | }` differ only in bit 5.
            let brackets = within(_mm_or_si128(v, _mm_set1_epi8(0x20)), b'{', 3);
            let quote_or_comma = _mm_or_si128(
                _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8)),
                _mm_cmpeq_epi8(v, _mm_set1_epi8(b',' as i8)),
            );
            let unanchored = _mm_or_si128(word, _mm_or_si128(brackets, quote_or_comma));
            let shift = 16 * lane;
            words |= u64::from(_mm_movemask_epi8(word) as u16) << shift;
            anchors |= u64::from(!(_mm_movemask_epi8(unanchored) as u16)) << shift;
        }
        (words, anchors)
    }
}

/// [`block_masks`] in two 32-byte halves.
///
/// # Safety
///
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn block_masks_avx2(block: &[u8; 64]) -> (u64, u64) {
    use std::arch::x86_64::*;
    let within = |v: __m256i, lo: u8, n: u8| {
        let shifted = _mm256_add_epi8(v, _mm256_set1_epi8(0x80u8.wrapping_sub(lo) as i8));
        _mm256_cmpgt_epi8(_mm256_set1_epi8((0x80u8.wrapping_add(n)) as i8), shifted)
    };
    let (mut words, mut anchors) = (0u64, 0u64);
    for (half, chunk) in block.chunks_exact(32).enumerate() {
        // SAFETY: reads the 32 bytes of `chunk`.
        let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
        let word = _mm256_or_si256(within(v, b'a', 26), within(v, b'0', 10));
        let brackets = within(_mm256_or_si256(v, _mm256_set1_epi8(0x20)), b'{', 3);
        let quote_or_comma = _mm256_or_si256(
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8)),
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b',' as i8)),
        );
        let unanchored = _mm256_or_si256(word, _mm256_or_si256(brackets, quote_or_comma));
        let shift = 32 * half;
        words |= u64::from(_mm256_movemask_epi8(word) as u32) << shift;
        anchors |= u64::from(!(_mm256_movemask_epi8(unanchored) as u32)) << shift;
    }
    (words, anchors)
}

#[cfg(not(target_arch = "x86_64"))]
fn block_masks(block: &[u8; 64]) -> (u64, u64) {
    let (mut words, mut anchors) = (0u64, 0u64);
    for (i, &byte) in block.iter().enumerate() {
        words |= u64::from(is_word(byte)) << i;
        anchors |= u64::from(is_anchor(byte)) << i;
    }
    (words, anchors)
}

/// A needle's anchored grams, hashed.
#[derive(Debug)]
pub struct NeedleGrams {
    hashes: Vec<u64>,
}

impl NeedleGrams {
    /// The anchored grams of a lowered ASCII needle, or `None` when it has
    /// none and a sketch cannot rule it out.
    pub fn of_needle(needle: &[u8]) -> Option<Self> {
        let hashes: Vec<u64> = (1..=needle.len().saturating_sub(GRAM))
            .filter(|&at| starts_token(needle, at))
            .map(|at| gram_hash(needle, at))
            .collect();
        (!hashes.is_empty()).then_some(NeedleGrams { hashes })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random bytes drawn from `alphabet`.
    fn text(seed: u64, len: usize, alphabet: &[u8]) -> Vec<u8> {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                alphabet[(state % alphabet.len() as u64) as usize]
            })
            .collect()
    }

    /// Every printable ASCII byte and a few controls, so that every class
    /// (word, anchor, JSON punctuation) and every pair of them occurs.
    const ANY: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789 :-_/.@\"{}[],\\\t\n=#";

    #[test]
    fn the_masks_agree_with_the_byte_rules() {
        for byte in 0..=255u8 {
            let (word, anchor) = block_masks(&[byte; 64]);
            assert_eq!(word, if is_word(byte) { !0 } else { 0 }, "{byte}");
            assert_eq!(anchor, if is_anchor(byte) { !0 } else { 0 }, "{byte}");
        }
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx2") {
            for seed in 0..200 {
                let block: [u8; 64] = text(seed, 64, &(0..=255).collect::<Vec<u8>>()).try_into().expect("64");
                // SAFETY: AVX2 was just detected.
                assert_eq!(unsafe { block_masks_avx2(&block) }, block_masks(&block), "seed {seed}");
            }
        }
        let sample = text(3, 64 * 40 + 17, ANY);
        let mut seen = Vec::new();
        for_each_token_start(&sample, block_masks, |at| seen.push(at));
        let expected: Vec<usize> = (1..sample.len()).filter(|&at| starts_token(&sample, at)).collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn every_substring_passes_its_own_text() {
        // No false negatives: every substring of the text, at every offset
        // and length, passes (or has no grams to ask about).
        for (seed, len) in [(1, 512), (2, 777), (3, 4096), (4, 1000)] {
            let text = text(seed, len, ANY);
            let sketch = GramSketch::of_text(&text).expect("long enough");
            for start in 0..text.len() {
                for end in start + 1..=(start + 48).min(text.len()) {
                    if let Some(grams) = NeedleGrams::of_needle(&text[start..end]) {
                        assert!(sketch.may_contain(&grams), "seed {seed}, {start}..{end}");
                    }
                }
            }
        }
    }

    #[test]
    fn absent_structured_ids_are_ruled_out() {
        // WWPNs that share their first fifteen bytes, as a fabric's do.
        let wwpn = |seed: u64| {
            let hex = text(seed, 6, b"0123456789abcdef");
            format!(
                "20:00:00:25:b5:{}:{}:{}",
                String::from_utf8_lossy(&hex[0..2]),
                String::from_utf8_lossy(&hex[2..4]),
                String::from_utf8_lossy(&hex[4..6])
            )
        };
        let ground: String = (0..700)
            .map(|i| format!("{{\"wwpn\":\"{}\",\"port\":\"fc{}/{}\"}}\n", wwpn(i), i % 4, i % 48))
            .collect();
        let sketch = GramSketch::of_text(ground.as_bytes()).expect("long enough");
        let passed = (10_000..12_000)
            .filter(|&seed| {
                let needle = wwpn(seed);
                let grams = NeedleGrams::of_needle(needle.as_bytes()).expect("anchored grams");
                sketch.may_contain(&grams) && !ground.contains(&needle)
            })
            .count();
        assert!(passed < 100, "{passed} of 2000 absent WWPNs passed");
    }

    #[test]
    fn short_texts_and_unanchored_needles_are_not_sketched() {
        assert!(GramSketch::of_text(&[b'a'; MIN_SKETCHED_TEXT - 1]).is_none());
        assert!(GramSketch::of_text(&[b'a'; MIN_SKETCHED_TEXT]).is_some());
        for needle in ["abcdefghijklmnop", "x:abcdefg", "\"abcdefghijk\"", "{abcdefghijk"] {
            assert!(NeedleGrams::of_needle(needle.as_bytes()).is_none(), "{needle}");
        }
        assert!(NeedleGrams::of_needle(b"x:abcdefgh").is_some());
    }

    #[test]
    fn a_gram_that_ends_the_text_is_kept() {
        let mut text = text(9, 700, b"abcdefgh");
        text.extend_from_slice(b"-tail5678");
        let sketch = GramSketch::of_text(&text).expect("long enough");
        assert!(sketch.may_contain(&NeedleGrams::of_needle(b"h-tail5678").expect("anchored")));
        // The text has one anchored gram, so another is ruled out.
        assert!(!sketch.may_contain(&NeedleGrams::of_needle(b"h-zzzzzzzz").expect("anchored")));
    }
}
