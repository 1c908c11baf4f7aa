//! The one scan every engine runs over prose: where the next of a few
//! units is. On x86-64 it compares eight units at a time with SSE2 (part of
//! every x86-64 processor, so nothing is detected at run time); elsewhere
//! it reads unit by unit.
//!
//! A reader that stops often asks for the next one many times over the
//! same text; for it, [`Bitmap`] marks every place once, sixteen bytes at a
//! time, and the next place is then a bit scan. The tool stage reads a text
//! narrowed to a byte a unit; [`narrow_and_mark`] narrows it and marks its
//! stops, and the general engine's first units, in the same read (AVX2,
//! detected at run time), so that neither that stage nor the engine after it
//! scans the text again.

/// The position of the first unit of `text` that is one of `units`. The
/// count is a constant, so that the compares unroll (pad a shorter list by
/// repeating a unit).
#[inline]
pub(crate) fn find_any<const N: usize>(text: &[u16], units: [u16; N]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    let (skipped, text) = match sse2::find_in_steps(text, units) {
        Ok(found) => return Some(found),
        Err(skipped) => (skipped, &text[skipped..]),
    };
    #[cfg(not(target_arch = "x86_64"))]
    let skipped = 0;
    text.iter().position(|unit| units.contains(unit)).map(|at| skipped + at)
}

/// The places in a text where one of a few bytes is, a bit a byte, 64 to
/// a word: built in one pass, so that where the next one is after any
/// place is a scan of the words between, not a new search.
#[derive(Debug, Default)]
pub(crate) struct Bitmap {
    words: Vec<u64>,
}

impl Bitmap {
    /// Marks where in `bytes` one of `wanted` is (the buffer is reused).
    pub(crate) fn fill<const N: usize>(&mut self, bytes: &[u8], wanted: [u8; N]) {
        self.words.clear();
        let (whole, rest) = bytes.as_chunks::<64>();
        self.words.reserve(whole.len() + 1);
        #[cfg(target_arch = "x86_64")]
        sse2::masks_into(whole, wanted, &mut self.words);
        #[cfg(not(target_arch = "x86_64"))]
        self.words.extend(whole.iter().map(|word| mask(word, wanted)));
        if !rest.is_empty() {
            self.words.push(mask(rest, wanted));
        }
    }

    /// The words [`Bitmap::fill`] made: one per 64 bytes.
    pub(crate) fn len(&self) -> usize {
        self.words.len()
    }

    /// The first marked place at or after `from` and before `end`, or `end`
    /// (which must be within the bytes marked). Reads the words in between.
    pub(crate) fn next(&self, from: usize, end: usize) -> usize {
        let mut word = from / 64;
        let Some(&first) = self.words.get(word) else { return end };
        let mut bits = first & (u64::MAX << (from % 64));
        loop {
            if bits != 0 {
                return (word * 64 + bits.trailing_zeros() as usize).min(end);
            }
            word += 1;
            match self.words.get(word) {
                Some(&next) if word * 64 < end => bits = next,
                _ => return end,
            }
        }
    }
}

/// A UTF-16 unit as one byte: ASCII as itself, anything else as 0x80 and its
/// low seven bits, so that in a text in another script a name in that script
/// still narrows to itself, and a byte is an ASCII unit exactly when the unit
/// was that unit.
#[inline]
pub(crate) fn narrowed(unit: u16) -> u8 {
    // Without a branch, so that the narrowing of a text is vectorised.
    (unit & 0x7F) as u8 | u8::from(unit >= 0x80) << 7
}

/// Narrows `text` into `bytes` (see [`narrowed`]; the buffer is reused) and
/// marks in `marks.1` where one of the bytes `marks.0` is, and in `also.1`
/// where one of `also.0` is (each a byte as [`narrowed`] spells it, so that
/// a place marked for a byte beyond ASCII may hold another unit with the
/// same low seven bits): one read of the text where AVX2 is there, else a
/// narrowing then [`Bitmap::fill`], with the same result.
pub(crate) fn narrow_and_mark<const N: usize, const M: usize>(
    text: &[u16],
    bytes: &mut Vec<u8>,
    marks: ([u8; N], &mut Bitmap),
    also: Option<([u8; M], &mut Bitmap)>,
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        let (wanted, bitmap) = marks;
        let words = text.len().div_ceil(64);
        bitmap.words.clear();
        bitmap.words.resize(words, 0);
        bytes.clear();
        bytes.reserve(text.len());
        let spare = &mut bytes.spare_capacity_mut()[..text.len()];
        let done = match also {
            Some((also_wanted, also_bitmap)) => {
                also_bitmap.words.clear();
                also_bitmap.words.resize(words, 0);
                // SAFETY: the processor has AVX2; the buffers are sized.
                let done = unsafe {
                    avx2::narrow_and_mark(
                        text,
                        spare,
                        (wanted, &mut bitmap.words),
                        Some((also_wanted, &mut also_bitmap.words)),
                    )
                };
                for (at, &unit) in text.iter().enumerate().skip(done) {
                    if also_wanted.contains(&narrowed(unit)) {
                        also_bitmap.words[at / 64] |= 1 << (at % 64);
                    }
                }
                done
            }
            // SAFETY: as above.
            None => unsafe { avx2::narrow_and_mark::<N, M>(text, spare, (wanted, &mut bitmap.words), None) },
        };
        for at in done..text.len() {
            let byte = narrowed(text[at]);
            spare[at].write(byte);
            if wanted.contains(&byte) {
                bitmap.words[at / 64] |= 1 << (at % 64);
            }
        }
        // SAFETY: every one of the first `text.len()` bytes was written,
        // by the vectors up to `done` and one by one after.
        unsafe { bytes.set_len(text.len()) };
        return;
    }
    narrow_by_units(text, bytes);
    marks.1.fill(bytes, marks.0);
    if let Some((wanted, bitmap)) = also {
        bitmap.fill(bytes, wanted);
    }
}

/// [`narrow_and_mark`]'s narrowing, unit by unit (which the compiler
/// vectorises).
fn narrow_by_units(text: &[u16], bytes: &mut Vec<u8>) {
    bytes.clear();
    bytes.extend(text.iter().copied().map(narrowed));
}

/// What each of sixteen ASCII bytes is, a bit a byte (bit `i` for
/// `bytes[i]`); a byte beyond ASCII is none of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Classes {
    /// ASCII letters.
    pub(crate) letters: u16,
    /// Lowercase ASCII letters.
    pub(crate) lowercase: u16,
    /// Spaces, tabs and carriage returns.
    pub(crate) blanks: u16,
    /// Line feeds.
    pub(crate) breaks: u16,
}

impl Classes {
    /// The classes of `bytes`, compared sixteen at once on x86-64.
    #[inline]
    pub(crate) fn of(bytes: &[u8; 16]) -> Classes {
        #[cfg(target_arch = "x86_64")]
        return sse2::classes(bytes);
        #[cfg(not(target_arch = "x86_64"))]
        Classes::one_by_one(bytes)
    }

    #[cfg(any(test, not(target_arch = "x86_64")))]
    fn one_by_one(bytes: &[u8; 16]) -> Classes {
        let bits = |test: fn(&u8) -> bool| {
            bytes.iter().enumerate().filter(|(_, byte)| test(byte)).fold(0, |mask, (at, _)| mask | 1 << at)
        };
        Classes {
            letters: bits(u8::is_ascii_alphabetic),
            lowercase: bits(u8::is_ascii_lowercase),
            blanks: bits(|byte| matches!(byte, b' ' | b'\t' | b'\r')),
            breaks: bits(|&byte| byte == b'\n'),
        }
    }
}

/// A bit for each of the (at most 64) `bytes` that is one of `wanted`.
fn mask<const N: usize>(bytes: &[u8], wanted: [u8; N]) -> u64 {
    bytes.iter().enumerate().filter(|(_, byte)| wanted.contains(byte)).fold(0, |mask, (at, _)| mask | 1 << at)
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::mem::MaybeUninit;

    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_andnot_si256, _mm256_cmpeq_epi16, _mm256_cmpeq_epi8,
        _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256, _mm256_packus_epi16,
        _mm256_permute4x64_epi64, _mm256_set1_epi16, _mm256_set1_epi8, _mm256_setzero_si256,
        _mm256_storeu_si256,
    };

    /// Narrows and marks whole words of 64 units (see
    /// [`narrow_and_mark`](super::narrow_and_mark)); returns how many units
    /// it did, the rest being shorter than a word.
    ///
    /// # Safety
    ///
    /// The processor must have AVX2; `bytes` must be as long as `text`, and
    /// the bitmaps' words hold a word for each 64 units.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn narrow_and_mark<const N: usize, const M: usize>(
        text: &[u16],
        bytes: &mut [MaybeUninit<u8>],
        (wanted, words): ([u8; N], &mut [u64]),
        mut also: Option<([u8; M], &mut [u64])>,
    ) -> usize {
        assert!(bytes.len() == text.len() && words.len() == text.len().div_ceil(64));
        let low = _mm256_set1_epi16(0x7F);
        let beyond = _mm256_set1_epi16(-0x80);
        let mark = _mm256_set1_epi16(0x80);
        let wanted: [__m256i; N] = wanted.map(|byte| _mm256_set1_epi8(byte as i8));
        let also_wanted: Option<[__m256i; M]> =
            also.as_ref().map(|(bytes, _)| bytes.map(|byte| _mm256_set1_epi8(byte as i8)));
        // Sixteen units narrowed, as sixteen lanes of sixteen bits.
        let narrow = |at: *const u16| {
            // SAFETY: the caller reads only units within `text`.
            let units = unsafe { _mm256_loadu_si256(at.cast()) };
            let ascii = _mm256_cmpeq_epi16(_mm256_and_si256(units, beyond), _mm256_setzero_si256());
            _mm256_or_si256(_mm256_and_si256(units, low), _mm256_andnot_si256(ascii, mark))
        };
        let hits = |narrowed: __m256i, wanted: &[__m256i]| {
            let hit = wanted.iter().fold(_mm256_setzero_si256(), |hit, &byte| {
                _mm256_or_si256(hit, _mm256_cmpeq_epi8(narrowed, byte))
            });
            _mm256_movemask_epi8(hit) as u32
        };
        let (whole, _) = text.as_chunks::<64>();
        for (word, units) in whole.iter().enumerate() {
            let mut halves = [[0u32; 2]; 2];
            for half in 0..2 {
                let from = units[half * 32..].as_ptr();
                // SAFETY: the 32 units from `from` are within `units`.
                let (first, second) = unsafe { (narrow(from), narrow(from.add(16))) };
                // `packus` packs within each 128-bit lane; the permutation
                // puts the four quarters back in order.
                let narrowed = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi16(first, second));
                let at = word * 64 + half * 32;
                // SAFETY: 32 bytes from `at`, within `bytes`, which is as
                // long as `text`.
                unsafe { _mm256_storeu_si256(bytes[at..at + 32].as_mut_ptr().cast(), narrowed) };
                halves[0][half] = hits(narrowed, &wanted);
                if let Some(also_wanted) = &also_wanted {
                    halves[1][half] = hits(narrowed, also_wanted);
                }
            }
            // (Kept from being seen as vectors of 64 truth values, which the
            // compiler would unpack a bit at a time without AVX-512.)
            let [[first, second], [also_first, also_second]] = std::hint::black_box(halves);
            words[word] = u64::from(first) | u64::from(second) << 32;
            if let Some((_, also_words)) = &mut also {
                also_words[word] = u64::from(also_first) | u64::from(also_second) << 32;
            }
        }
        whole.len() * 64
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_and_si128, _mm_cmpeq_epi16, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8,
        _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi16, _mm_set1_epi8, _mm_setzero_si128,
    };

    use crate::filter::scan::Classes;

    /// Units read per step: four vectors of eight.
    const STEP: usize = 32;

    /// Where the first of `units` is in the whole steps of `text`, or how
    /// many units those steps hold (the rest is shorter than a step).
    #[inline]
    pub(super) fn find_in_steps<const N: usize>(text: &[u16], units: [u16; N]) -> Result<usize, usize> {
        // SAFETY: every x86-64 processor has SSE2.
        unsafe { find_in_steps_sse2(text, units) }
    }

    #[target_feature(enable = "sse2")]
    fn find_in_steps_sse2<const N: usize>(text: &[u16], units: [u16; N]) -> Result<usize, usize> {
        let wanted: [__m128i; N] = units.map(|unit| _mm_set1_epi16(unit as i16));
        // Two mask bits per unit that is one of `units`, eight units a vector.
        let lanes = |vector: &[u16; 8]| -> u64 {
            // SAFETY: an unaligned load of exactly the eight units of
            // `vector`, which is in bounds.
            let loaded = unsafe { _mm_loadu_si128(vector.as_ptr().cast()) };
            let hit = wanted
                .iter()
                .fold(_mm_setzero_si128(), |hit, &unit| _mm_or_si128(hit, _mm_cmpeq_epi16(loaded, unit)));
            u64::from(_mm_movemask_epi8(hit) as u16)
        };
        let (steps, _) = text.as_chunks::<STEP>();
        for (index, step) in steps.iter().enumerate() {
            let (vectors, _) = step.as_chunks::<8>();
            let mask =
                vectors.iter().enumerate().fold(0, |mask, (k, vector)| mask | lanes(vector) << (16 * k));
            if mask != 0 {
                return Ok(index * STEP + mask.trailing_zeros() as usize / 2);
            }
        }
        Err(steps.len() * STEP)
    }

    /// [`Classes::of`].
    #[inline]
    pub(super) fn classes(bytes: &[u8; 16]) -> Classes {
        // SAFETY: every x86-64 processor has SSE2.
        unsafe { classes_sse2(bytes) }
    }

    #[target_feature(enable = "sse2")]
    fn classes_sse2(bytes: &[u8; 16]) -> Classes {
        // SAFETY: an unaligned load of exactly the sixteen bytes of `bytes`.
        let loaded = unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) };
        let is = |byte: u8| _mm_cmpeq_epi8(loaded, _mm_set1_epi8(byte as i8));
        // Signed compares: a byte beyond ASCII is negative, below them all.
        let within = |low: u8, high: u8| {
            _mm_and_si128(
                _mm_cmpgt_epi8(loaded, _mm_set1_epi8(low as i8 - 1)),
                _mm_cmplt_epi8(loaded, _mm_set1_epi8(high as i8 + 1)),
            )
        };
        let bits = |vector: __m128i| _mm_movemask_epi8(vector) as u16;
        let lowercase = within(b'a', b'z');
        Classes {
            letters: bits(_mm_or_si128(lowercase, within(b'A', b'Z'))),
            lowercase: bits(lowercase),
            blanks: bits(_mm_or_si128(_mm_or_si128(is(b' '), is(b'\t')), is(b'\r'))),
            breaks: bits(is(b'\n')),
        }
    }

    /// Pushes, for each 64 bytes, a bit for each byte that is one of
    /// `wanted` (see [`Bitmap`](super::Bitmap)).
    #[inline]
    pub(super) fn masks_into<const N: usize>(words: &[[u8; 64]], wanted: [u8; N], masks: &mut Vec<u64>) {
        // SAFETY: every x86-64 processor has SSE2.
        unsafe { masks_into_sse2(words, wanted, masks) }
    }

    #[target_feature(enable = "sse2")]
    fn masks_into_sse2<const N: usize>(words: &[[u8; 64]], wanted: [u8; N], masks: &mut Vec<u64>) {
        let wanted: [__m128i; N] = wanted.map(|byte| _mm_set1_epi8(byte as i8));
        // A mask bit per byte that is one of `wanted`, sixteen bytes a vector.
        let lanes = |vector: &[u8; 16]| -> u64 {
            // SAFETY: an unaligned load of exactly the sixteen bytes of
            // `vector`, which is in bounds.
            let loaded = unsafe { _mm_loadu_si128(vector.as_ptr().cast()) };
            let hit = wanted
                .iter()
                .fold(_mm_setzero_si128(), |hit, &byte| _mm_or_si128(hit, _mm_cmpeq_epi8(loaded, byte)));
            u64::from(_mm_movemask_epi8(hit) as u16)
        };
        masks.extend(words.iter().map(|word| {
            let (vectors, _) = word.as_chunks::<16>();
            vectors.iter().enumerate().fold(0, |mask, (k, vector)| mask | lanes(vector) << (16 * k))
        }));
    }
}

#[cfg(test)]
mod tests {
    use super::{find_any, narrow_and_mark, narrow_by_units, narrowed, Bitmap, Classes};

    #[test]
    fn narrowing_and_marking_in_one_read_agrees_with_a_narrowing_then_a_fill() {
        // Units that narrow alike (`<` and U+013C), beyond ASCII, surrogates,
        // and lengths on either side of a word.
        let alphabet = [
            u16::from(b'<'),
            0x013C,
            u16::from(b'['),
            u16::from(b']'),
            u16::from(b'a'),
            u16::from(b'\n'),
            0xFF5C,
            0xD83D,
            0xDE00,
            0x80,
            0xFFFF,
            u16::from(b'`'),
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for len in [0, 1, 31, 32, 63, 64, 65, 127, 128, 129, 200, 1000] {
            for _ in 0..20 {
                let text: Vec<u16> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        alphabet[(state % alphabet.len() as u64) as usize]
                    })
                    .collect();
                let stops = [b'<', b'[', b'{', b'`', b'\n'];
                let also = [b'<', b'[', b']', narrowed(0xFF5C)];
                let (mut bytes, mut marks, mut more) = (Vec::new(), Bitmap::default(), Bitmap::default());
                narrow_and_mark(&text, &mut bytes, (stops, &mut marks), Some((also, &mut more)));
                let mut expected = Vec::new();
                narrow_by_units(&text, &mut expected);
                assert_eq!(bytes, expected, "{text:?}");
                let (mut expected_marks, mut expected_more) = (Bitmap::default(), Bitmap::default());
                expected_marks.fill(&expected, stops);
                expected_more.fill(&expected, also);
                assert_eq!(marks.words, expected_marks.words, "{text:?}");
                assert_eq!(more.words, expected_more.words, "{text:?}");
                // Without the second set, the same bytes and marks.
                let (mut alone, mut alone_marks) = (Vec::new(), Bitmap::default());
                narrow_and_mark::<5, 4>(&text, &mut alone, (stops, &mut alone_marks), None);
                assert_eq!((alone, alone_marks.words), (expected, expected_marks.words));
            }
        }
    }

    #[test]
    fn classes_agree_with_the_byte_tests_for_every_byte() {
        for start in (0..=255u8).step_by(16) {
            let bytes: [u8; 16] = std::array::from_fn(|at| start + at as u8);
            assert_eq!(Classes::of(&bytes), Classes::one_by_one(&bytes), "bytes from {start}");
        }
    }

    #[test]
    fn a_bitmap_finds_what_a_search_finds_from_every_place() {
        let text: Vec<u8> =
            (0..300u32).map(|i| if i % 37 == 5 || i % 64 == 63 { b'<' } else { b'a' }).collect();
        for len in [0, 1, 63, 64, 65, 128, 200, 300] {
            let mut bitmap = Bitmap::default();
            bitmap.fill(&text[..len], [b'<', b'\n']);
            assert_eq!(bitmap.len(), len.div_ceil(64));
            for from in 0..=len {
                for end in [from, (from + 1).min(len), (from + 70).min(len), len] {
                    let searched =
                        text[from..end].iter().position(|&b| b == b'<').map_or(end, |at| from + at);
                    assert_eq!(bitmap.next(from, end), searched, "len {len}, from {from}, end {end}");
                }
            }
        }
    }

    #[test]
    fn finds_the_first_of_the_units_in_every_position() {
        for len in [0, 1, 31, 32, 33, 64, 100] {
            for at in 0..len {
                let mut text = vec![u16::from(b'a'); len];
                text[at] = u16::from(b'<');
                if at + 1 < len {
                    text[at + 1] = u16::from(b'[');
                }
                assert_eq!(find_any(&text, [u16::from(b'['), u16::from(b'<')]), Some(at));
                assert_eq!(find_any(&text, [u16::from(b'{')]), None);
                assert_eq!(find_any(&text, []), None);
            }
        }
    }

    #[test]
    fn tells_units_apart_by_both_bytes() {
        // U+013C has the low byte of '<'.
        let text = [0x013C, 0x3C00, u16::from(b'<')];
        assert_eq!(find_any(&text, [u16::from(b'<')]), Some(2));
    }
}
