//! The one scan every engine runs over prose: where the next of a few
//! units is. On x86-64 it compares eight units at a time with SSE2 (part of
//! every x86-64 processor, so nothing is detected at run time); elsewhere
//! it reads unit by unit.

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

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi16, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi16,
        _mm_setzero_si128,
    };

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
}

#[cfg(test)]
mod tests {
    use super::find_any;

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
