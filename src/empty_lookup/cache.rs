//! Lowered grounds kept between stateless calls.
//!
//! A framework hands `emptyLookupOf` the same result strings call after call
//! (a run's results only grow). The JavaScript layer names each such string
//! by an id it hands out per string value, and this cache keeps that
//! string's lowered text under the id, so a later call that names the id
//! is searched without reading or lower-casing the text again.
//!
//! The id is the only key: the cache never sees the original text, and it
//! trusts that an id always names the same string value. It checks the
//! length it was told against the one it stored, so a stale id cannot pass
//! for a string of another length.
//!
//! Memory is bounded: every entry costs its text's length in UTF-16 units
//! plus [`ENTRY_COST`], and when the total would pass the bound the least
//! recently used entries go first. A lowered text keeps one byte per unit
//! when it is ASCII and two otherwise, so the heap held is at most about
//! twice the bound in bytes.

use super::ground::Lowered;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// What an entry costs on top of its text, in units: the record, the map
/// slot.
pub const ENTRY_COST: usize = 64;

/// The bound a cache starts with, in units: 8 Mi (8 MiB of ASCII text).
pub const DEFAULT_BOUND: usize = 8 << 20;

/// No slot: the end of the recency list.
const NONE: u32 = u32::MAX;

struct Entry {
    id: u64,
    text: Lowered,
    /// The original text's length in UTF-16 units.
    units: usize,
    /// Neighbours in the recency list: `newer` towards the most recently
    /// used entry, `older` towards the least.
    newer: u32,
    older: u32,
}

/// Ids are handed out by the JavaScript layer, one after another, so a
/// multiply spreads them well enough; no caller chooses them.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(byte)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u64(&mut self, id: u64) {
        self.0 = id.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// Lowered texts by id, least recently used first out. The entries live in
/// a slab linked in order of use, so marking one used is a few index moves.
pub struct GroundCache {
    bound: usize,
    used: usize,
    slots: Vec<Option<Entry>>,
    /// Slots of removed entries, for reuse.
    free: Vec<u32>,
    by_id: HashMap<u64, u32, BuildHasherDefault<IdHasher>>,
    newest: u32,
    oldest: u32,
}

impl Default for GroundCache {
    fn default() -> Self {
        Self::new(DEFAULT_BOUND)
    }
}

impl GroundCache {
    pub fn new(bound: usize) -> Self {
        GroundCache {
            bound,
            used: 0,
            slots: Vec::new(),
            free: Vec::new(),
            by_id: HashMap::default(),
            newest: NONE,
            oldest: NONE,
        }
    }

    pub fn bound(&self) -> usize {
        self.bound
    }

    /// Changes the bound, dropping the oldest entries past it.
    pub fn set_bound(&mut self, bound: usize) {
        self.bound = bound;
        self.shrink_to(bound);
    }

    /// What the entries cost, in units (see [`ENTRY_COST`]).
    pub fn used(&self) -> usize {
        self.used
    }

    pub fn len(&self) -> usize {
        self.by_id.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Whether a text of `units` units would be kept at all.
    pub fn fits(&self, units: usize) -> bool {
        units + ENTRY_COST <= self.bound
    }

    fn entry(&self, slot: u32) -> &Entry {
        self.slots[slot as usize].as_ref().expect("a linked slot holds an entry")
    }

    fn entry_mut(&mut self, slot: u32) -> &mut Entry {
        self.slots[slot as usize].as_mut().expect("a linked slot holds an entry")
    }

    /// Takes `slot` out of the recency list.
    fn unlink(&mut self, slot: u32) {
        let (newer, older) = {
            let entry = self.entry(slot);
            (entry.newer, entry.older)
        };
        match newer {
            NONE => self.newest = older,
            newer => self.entry_mut(newer).older = older,
        }
        match older {
            NONE => self.oldest = newer,
            older => self.entry_mut(older).newer = newer,
        }
    }

    /// Puts `slot` at the newest end of the recency list.
    fn link_newest(&mut self, slot: u32) {
        let old_newest = self.newest;
        {
            let entry = self.entry_mut(slot);
            entry.newer = NONE;
            entry.older = old_newest;
        }
        match old_newest {
            NONE => self.oldest = slot,
            newest => self.entry_mut(newest).newer = slot,
        }
        self.newest = slot;
    }

    /// The text held under `id` for a text of `units` units, marked used;
    /// `None` when there is none (or the length differs).
    pub fn touch(&mut self, id: u64, units: usize) -> Option<&Lowered> {
        let slot = *self.by_id.get(&id)?;
        if self.entry(slot).units != units {
            return None;
        }
        if self.newest != slot {
            self.unlink(slot);
            self.link_newest(slot);
        }
        Some(&self.entry(slot).text)
    }

    /// The text held under `id`, without marking it used.
    pub fn get(&self, id: u64) -> Option<&Lowered> {
        self.by_id.get(&id).map(|&slot| &self.entry(slot).text)
    }

    /// Keeps `text` (of `units` units) under `id`, replacing what `id`
    /// held, and drops the least recently used entries past the bound.
    /// A text too long to fit is not kept; returns whether it was.
    pub fn insert(&mut self, id: u64, text: Lowered, units: usize) -> bool {
        self.remove(id);
        if !self.fits(units) {
            return false;
        }
        self.shrink_to(self.bound - units - ENTRY_COST);
        self.used += units + ENTRY_COST;
        let entry = Entry { id, text, units, newer: NONE, older: NONE };
        let slot = match self.free.pop() {
            Some(slot) => {
                self.slots[slot as usize] = Some(entry);
                slot
            }
            None => {
                self.slots.push(Some(entry));
                u32::try_from(self.slots.len() - 1).expect("fewer than 2^32 entries")
            }
        };
        self.link_newest(slot);
        self.by_id.insert(id, slot);
        true
    }

    fn remove(&mut self, id: u64) {
        if let Some(slot) = self.by_id.remove(&id) {
            self.unlink(slot);
            let entry = self.slots[slot as usize].take().expect("a linked slot holds an entry");
            self.used -= entry.units + ENTRY_COST;
            self.free.push(slot);
        }
    }

    /// Drops the least recently used entries until at most `limit` is used.
    fn shrink_to(&mut self, limit: usize) {
        while self.used > limit && self.oldest != NONE {
            let id = self.entry(self.oldest).id;
            self.remove(id);
        }
        if self.by_id.is_empty() {
            // Give back the slab's and the map's own memory too.
            *self = GroundCache::new(self.bound);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(units: usize) -> Lowered {
        Lowered::Ascii(vec![b'a'; units])
    }

    #[test]
    fn keeps_within_the_bound_dropping_the_least_recently_used() {
        let mut cache = GroundCache::new(3 * (100 + ENTRY_COST));
        for id in 1..=3 {
            assert!(cache.insert(id, text(100), 100));
        }
        assert!(cache.touch(1, 100).is_some());
        assert!(cache.insert(4, text(100), 100));
        assert!(cache.get(2).is_none(), "2 was the least recently used");
        for id in [1, 3, 4] {
            assert!(cache.get(id).is_some(), "{id}");
        }
        assert_eq!(cache.used(), 3 * (100 + ENTRY_COST));
        assert!(!cache.insert(5, text(3 * 100 + 2 * ENTRY_COST + 1), 3 * 100 + 2 * ENTRY_COST + 1));
        assert!(cache.get(5).is_none());
        assert_eq!(cache.len(), 3, "a text too long for the bound leaves the others");
    }

    #[test]
    fn a_length_that_differs_is_a_miss() {
        let mut cache = GroundCache::new(1 << 20);
        cache.insert(7, text(10), 10);
        assert!(cache.touch(7, 11).is_none());
        assert!(cache.touch(7, 10).is_some());
    }

    #[test]
    fn replacing_and_shrinking_keep_the_count_exact() {
        let mut cache = GroundCache::new(1 << 20);
        for round in 0..1000u64 {
            cache.insert(round % 17, text((round % 50) as usize), (round % 50) as usize);
        }
        let used: usize = cache.slots.iter().flatten().map(|entry| entry.units + ENTRY_COST).sum();
        assert_eq!(cache.used(), used);
        assert_eq!(cache.slots.iter().flatten().count(), cache.len());
        // The recency list holds every entry once, newest to oldest.
        let mut walked = 0;
        let mut at = cache.newest;
        while at != NONE {
            walked += 1;
            at = cache.entry(at).older;
        }
        assert_eq!(walked, cache.len());
        cache.set_bound(0);
        assert!(cache.is_empty());
        assert_eq!(cache.used(), 0);
    }
}
