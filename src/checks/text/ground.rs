//! Grounds and needles: the texts a leaf is searched in, and the leaf as it
//! is searched for. Every check that asks "was this value served?" asks it
//! through here, so they agree on the fence, the lowering and the quoting.
//!
//! A text is lower-cased exactly as `String.prototype.toLowerCase` would,
//! and kept one byte per unit when it is ASCII (searched with `memchr`'s
//! byte finder), as UTF-16 units otherwise; either way the answer is the
//! plain substring test of the rules. docs/design.md says why.

use crate::checks::text::sketch::{GramSketch, NeedleGrams};

use crate::checks::text::js_string::{clip_point, find, is_ascii, to_lower, trim, trim_range};
use memchr::arch::all::packedpair::HeuristicFrequencyRank;
use memchr::memmem::{Finder, FinderBuilder};
use std::cell::OnceCell;
use std::mem::MaybeUninit;

/// Below this many UTF-16 units a trimmed value is not judged by any check:
/// short strings land inside unrelated words of any corpus, in both
/// directions.
pub const MIN_CHECKED_LENGTH: usize = 4;

/// The longest a value is quoted inside a message, in UTF-16 units.
pub const MAX_QUOTED_UNITS: usize = 80;

/// Whether a result is a ground for a call: its producer is declared in the
/// call's `argumentsFrom`, and its text is not empty.
pub fn is_declared_ground<N: AsRef<[u16]>>(arguments_from: &[N], tool_name: &[u16], text_len: usize) -> bool {
    text_len > 0 && arguments_from.iter().any(|declared| declared.as_ref() == tool_name)
}

/// Writes `units` lower-cased, one byte per unit, into the front of `out`
/// (which must be at least as long), in one vectorised pass that also checks
/// them: `false` when some unit is past ASCII (the bytes written are then
/// meaningless).
pub fn narrow_lowered_into(units: &[u16], out: &mut [MaybeUninit<u8>]) -> bool {
    assert!(out.len() >= units.len(), "room for every unit");
    #[cfg(target_arch = "x86_64")]
    if units.len() >= 64 && is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was just detected; `out` has room for every unit.
        return unsafe { narrow_lowered_avx2(units, out) };
    }
    narrow_lowered_bytewise(units, out)
}

/// [`narrow_lowered_into`] a unit at a time (which the compiler vectorises
/// with the SSE2 every x86_64 has).
fn narrow_lowered_bytewise(units: &[u16], out: &mut [MaybeUninit<u8>]) -> bool {
    let mut seen = 0u16;
    for (slot, &unit) in out.iter_mut().zip(units) {
        seen |= unit;
        let narrow = unit as u8;
        slot.write(narrow | (u8::from(narrow.wrapping_sub(b'A') < 26) << 5));
    }
    seen < 0x80
}

/// [`narrow_lowered_into`] 32 units at a time with AVX2, the rest a unit at
/// a time.
///
/// # Safety
///
/// The CPU must have AVX2, and `out` must be at least as long as `units`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn narrow_lowered_avx2(units: &[u16], out: &mut [MaybeUninit<u8>]) -> bool {
    use std::arch::x86_64::*;
    let whole = units.len() / 32 * 32;
    let mut seen = _mm256_setzero_si256();
    // A byte is in `A..=Z` when, shifted so `A` lands on -128, it is below
    // -128 + 26 as a signed byte.
    let shift = _mm256_set1_epi8(0x80u8.wrapping_sub(b'A') as i8);
    let past_z = _mm256_set1_epi8(0x80u8.wrapping_add(26) as i8);
    let case_bit = _mm256_set1_epi8(0x20);
    for at in (0..whole).step_by(32) {
        // SAFETY: `at + 32 <= whole <= units.len() <= out.len()`.
        unsafe {
            let low = _mm256_loadu_si256(units.as_ptr().add(at).cast());
            let high = _mm256_loadu_si256(units.as_ptr().add(at + 16).cast());
            seen = _mm256_or_si256(seen, _mm256_or_si256(low, high));
            // Packing works within 128-bit lanes; the permute puts the four
            // quarters back in order. A unit past 255 saturates, and `seen`
            // has already marked the text as not ASCII.
            let bytes = _mm256_permute4x64_epi64(_mm256_packus_epi16(low, high), 0b11_01_10_00);
            let upper = _mm256_cmpgt_epi8(past_z, _mm256_add_epi8(bytes, shift));
            let lowered = _mm256_or_si256(bytes, _mm256_and_si256(upper, case_bit));
            _mm256_storeu_si256(out.as_mut_ptr().add(at).cast(), lowered);
        }
    }
    let ascii = _mm256_testz_si256(seen, _mm256_set1_epi16(0xff80u16 as i16)) == 1;
    narrow_lowered_bytewise(&units[whole..], &mut out[whole..]) && ascii
}

/// A result's text, lower-cased, in the narrowest form that holds it exactly.
#[derive(Debug, Clone)]
pub enum Lowered {
    /// Every unit was ASCII: one byte per unit.
    Ascii(Vec<u8>),
    /// Anything else, as UTF-16 code units.
    Wide(Vec<u16>),
}

impl Lowered {
    /// Lower-cases `text`.
    pub fn of_units(text: &[u16]) -> Self {
        let mut lowered = Lowered::Ascii(Vec::new());
        lowered.lower_from(text);
        lowered
    }

    /// Replaces this text with `text` lower-cased, reusing the allocation of
    /// an ASCII buffer, so that a caller lowering many texts in turn
    /// allocates only when one outgrows the others.
    pub fn lower_from(&mut self, text: &[u16]) {
        let mut bytes = match std::mem::replace(self, Lowered::Ascii(Vec::new())) {
            Lowered::Ascii(bytes) => bytes,
            Lowered::Wide(_) => Vec::new(),
        };
        bytes.clear();
        bytes.reserve(text.len());
        // One pass that narrows, lower-cases and notes whether any unit was
        // past ASCII; it vectorises, where three separate passes did not.
        *self = if narrow_lowered_into(text, &mut bytes.spare_capacity_mut()[..text.len()]) {
            // SAFETY: `narrow_lowered_into` wrote every one of these bytes.
            unsafe { bytes.set_len(text.len()) };
            Lowered::Ascii(bytes)
        } else {
            Lowered::Wide(to_lower(text).into_owned())
        };
    }

    /// The text as a scan shows it (no sketch).
    pub fn as_ground(&self) -> GroundText<'_> {
        match self {
            Lowered::Ascii(text) => GroundText::Ascii { text, sketch: None },
            Lowered::Wide(text) => GroundText::Wide(text),
        }
    }
}

/// A ground's lowered text as a scan shows it, borrowed from wherever it is
/// kept, with the sketch a corpus keeps beside an ASCII text.
#[derive(Debug, Clone, Copy)]
pub enum GroundText<'a> {
    Ascii { text: &'a [u8], sketch: Option<&'a GramSketch> },
    Wide(&'a [u16]),
}

impl GroundText<'_> {
    /// Whether the needle of `search` occurs in this text.
    pub fn contains(&self, search: &Search) -> bool {
        match *self {
            // A needle with a non-ASCII unit cannot occur in ASCII text.
            GroundText::Ascii { text, sketch } => search.finder.as_ref().is_some_and(|finder| {
                let ruled_out = sketch
                    .is_some_and(|sketch| search.grams().is_some_and(|grams| !sketch.may_contain(grams)));
                !ruled_out && finder.find(text).is_some()
            }),
            GroundText::Wide(text) => find(text, search.units).is_some(),
        }
    }
}

/// A leaf's value as the check searches for it: trimmed, at least
/// [`MIN_CHECKED_LENGTH`] units long, lower-cased.
pub struct Needle {
    units: Vec<u16>,
    /// The same units as bytes, when every one is ASCII.
    ascii: Option<Vec<u8>>,
}

impl Needle {
    /// The needle of `leaf`, or `None` when the trimmed leaf is under the
    /// fence and is not judged.
    pub fn of_leaf(leaf: &[u16]) -> Option<Self> {
        let value = trim(leaf);
        if value.len() < MIN_CHECKED_LENGTH {
            return None;
        }
        let units = to_lower(value).into_owned();
        let ascii = is_ascii(&units).then(|| units.iter().map(|&unit| unit as u8).collect());
        Some(Needle { units, ascii })
    }

    /// The needle's units: trimmed and lower-cased.
    pub fn units(&self) -> &[u16] {
        &self.units
    }

    /// The needle ready to be searched for in grounds whose bytes occur as
    /// often as `ranks` says (`None`: as `memchr`'s own table says).
    pub fn search(&self, ranks: Option<&ByteRanks>) -> Search<'_> {
        let finder = self.ascii.as_ref().map(|bytes| match ranks {
            Some(ranks) => FinderBuilder::new().build_forward_with_ranker(ranks, bytes),
            None => Finder::new(bytes),
        });
        Search { units: &self.units, ascii: self.ascii.as_deref(), finder, grams: OnceCell::new() }
    }
}

/// A needle with its byte finder built. The finder looks first for two of
/// the needle's bytes that are rare in the grounds at hand; which two only
/// changes how fast a text is searched, never the answer.
pub struct Search<'n> {
    units: &'n [u16],
    /// For an ASCII needle.
    finder: Option<Finder<'n>>,
    ascii: Option<&'n [u8]>,
    /// What a ground's sketch is asked, made when the first sketch is met
    /// (grounds outside a corpus have none).
    grams: OnceCell<Option<NeedleGrams>>,
}

impl Search<'_> {
    fn grams(&self) -> Option<&NeedleGrams> {
        self.grams.get_or_init(|| self.ascii.and_then(NeedleGrams::of_needle)).as_ref()
    }
}

/// How common each byte is in the texts being searched, from a sample, as
/// `memchr`'s finder takes it: its built-in table ranks bytes as they occur
/// in prose and source code, where `:`, digits and hex letters are rare, and
/// in tool output they are everywhere.
pub struct ByteRanks([u8; 256]);

/// At most this many bytes of a text are sampled for [`ByteRanks`].
const RANK_SAMPLE: usize = 512;

/// Below this many bytes a text is not sampled: the search it would speed
/// up costs less than the sample.
const RANK_MIN_TEXT: usize = 16 << 10;

impl ByteRanks {
    /// Ranks from an even sample of `text`, when it is ASCII and long
    /// enough to be worth it.
    pub fn sample(text: GroundText<'_>) -> Option<Self> {
        let GroundText::Ascii { text: bytes, .. } = text else { return None };
        if bytes.len() < RANK_MIN_TEXT {
            return None;
        }
        let mut counts = [0u32; 256];
        let step = (bytes.len() / RANK_SAMPLE).max(1);
        for &byte in bytes.iter().step_by(step) {
            counts[usize::from(byte)] += 1;
        }
        let most = counts.iter().copied().max().unwrap_or(0).max(1) as u64;
        let mut ranks = [0u8; 256];
        for (rank, count) in ranks.iter_mut().zip(counts) {
            *rank = (u64::from(count) * 255 / most) as u8;
        }
        Some(ByteRanks(ranks))
    }
}

impl HeuristicFrequencyRank for &ByteRanks {
    fn rank(&self, byte: u8) -> u8 {
        self.0[usize::from(byte)]
    }
}

/// Where a message quotes a leaf: `leaf[start..end]`, followed by `…` when
/// `clipped`. It is the trimmed value, cut to at most
/// [`MAX_QUOTED_UNITS`] units without splitting a surrogate pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quote {
    pub start: usize,
    pub end: usize,
    pub clipped: bool,
}

impl Quote {
    pub fn of_leaf(leaf: &[u16]) -> Self {
        let trimmed = trim_range(leaf);
        match clip_point(&leaf[trimmed.clone()], MAX_QUOTED_UNITS) {
            None => Quote { start: trimmed.start, end: trimmed.end, clipped: false },
            Some(keep) => Quote { start: trimmed.start, end: trimmed.start + keep, clipped: true },
        }
    }

    /// The quoted text, `…` included.
    pub fn text(&self, leaf: &[u16]) -> Vec<u16> {
        let mut quoted = leaf[self.start..self.end].to_vec();
        if self.clipped {
            quoted.push(0x2026);
        }
        quoted
    }
}

/// Texts needles are searched in, lower-cased, each with an index that says
/// which one it is. `E` is the error reading a text can end in.
pub trait Texts<E> {
    /// Shows `visit` each text lower-cased with its index, in order, until
    /// `visit` returns `false`.
    fn scan(&mut self, visit: &mut dyn FnMut(usize, GroundText<'_>) -> bool) -> Result<(), E>;
}

/// One set of texts, then another, as one: `A`'s indices as they are, and
/// `B`'s shown with `usize::MAX`.
pub struct Then<A, B>(pub A, pub B);

impl<E, A: Texts<E>, B: Texts<E>> Texts<E> for Then<A, B> {
    fn scan(&mut self, visit: &mut dyn FnMut(usize, GroundText<'_>) -> bool) -> Result<(), E> {
        let mut more = true;
        self.0.scan(&mut |index, text| {
            more = visit(index, text);
            more
        })?;
        if more {
            self.1.scan(&mut |_, text| visit(usize::MAX, text))?;
        }
        Ok(())
    }
}

/// Where an empty lookup's needles are searched: a call's declared grounds,
/// in `produced` order, each indexed by its place in `produced`.
pub trait Grounding<E>: Texts<E> {
    /// No declared producer served a non-empty result.
    fn is_unreachable(&self) -> bool;
    /// The tool that produced result `index` (an index `scan` showed).
    fn producer(&self, index: usize) -> &[u16];
}

/// For each needle, the index of the first text in `texts` that contains
/// it, or `None`. Each text is shown once; the scan stops as soon as every
/// needle is placed, so a text after that is never read.
///
/// The finders are built when the first text is shown, with the byte ranks
/// of a sample of it: texts of one kind (tool output, say) share them.
pub fn first_holders<E, T: Texts<E> + ?Sized>(
    needles: &[&Needle],
    texts: &mut T,
) -> Result<Vec<Option<usize>>, E> {
    let mut placed: Vec<Option<usize>> = vec![None; needles.len()];
    let mut unplaced = needles.len();
    if unplaced == 0 {
        return Ok(placed);
    }
    let mut searches = Vec::new();
    texts.scan(&mut |index, text| {
        if searches.is_empty() {
            let ranks = ByteRanks::sample(text);
            searches = needles.iter().map(|needle| needle.search(ranks.as_ref())).collect();
        }
        for (holder, search) in placed.iter_mut().zip(&searches) {
            if holder.is_none() && text.contains(search) {
                *holder = Some(index);
                unplaced -= 1;
            }
        }
        unplaced > 0
    })?;
    Ok(placed)
}

/// A text the caller holds in its own form (a live JavaScript string, in
/// the binding), read as UTF-16 units only when a scan reaches it. Reading
/// can fail with the holder's own error.
pub trait HeldText<E> {
    /// Replaces the contents of `units` with the text's units.
    fn read_into(&self, units: &mut Vec<u16>) -> Result<(), E>;
}

impl<E> HeldText<E> for Vec<u16> {
    fn read_into(&self, units: &mut Vec<u16>) -> Result<(), E> {
        units.clear();
        units.extend_from_slice(self);
        Ok(())
    }
}

/// Held texts, each with its index, scanned in the order pushed. Each text
/// is read and lower-cased when the scan reaches it, and only then, through
/// buffers the scan reuses, so a scan that stops early never reads the
/// rest.
pub struct HeldTexts<T> {
    texts: Vec<(usize, T)>,
}

impl<T> HeldTexts<T> {
    pub fn new() -> Self {
        HeldTexts { texts: Vec::new() }
    }

    /// Adds `text`, which the scan shows with `index`.
    pub fn push(&mut self, index: usize, text: T) {
        self.texts.push((index, text));
    }
}

impl<T> Default for HeldTexts<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E, T: HeldText<E>> Texts<E> for HeldTexts<T> {
    fn scan(&mut self, visit: &mut dyn FnMut(usize, GroundText<'_>) -> bool) -> Result<(), E> {
        let mut units = Vec::new();
        let mut lowered = Lowered::Ascii(Vec::new());
        for (index, text) in &self.texts {
            text.read_into(&mut units)?;
            lowered.lower_from(&units);
            if !visit(*index, lowered.as_ground()) {
                break;
            }
        }
        Ok(())
    }
}

/// The declared grounds of one call, each result held as the caller holds
/// it (UTF-16 units, or a live string in the binding) with the tool that
/// produced it, and indexed by its place in `produced`.
pub struct Grounds<T> {
    texts: HeldTexts<T>,
    producers: Vec<Vec<u16>>,
}

impl<T> Grounds<T> {
    pub fn new() -> Self {
        Grounds { texts: HeldTexts::new(), producers: Vec::new() }
    }

    /// Adds result `index` of `producer`.
    pub fn push(&mut self, index: usize, producer: Vec<u16>, text: T) {
        self.texts.push(index, text);
        self.producers.push(producer);
    }
}

impl<T> Default for Grounds<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<E, T: HeldText<E>> Grounding<E> for Grounds<T> {
    fn is_unreachable(&self) -> bool {
        self.producers.is_empty()
    }

    fn producer(&self, index: usize) -> &[u16] {
        let at = self.texts.texts.iter().position(|&(known, _)| known == index);
        &self.producers[at.expect("an index the scan showed")]
    }
}

impl<E, T: HeldText<E>> Texts<E> for Grounds<T> {
    fn scan(&mut self, visit: &mut dyn FnMut(usize, GroundText<'_>) -> bool) -> Result<(), E> {
        self.texts.scan(visit)
    }
}
