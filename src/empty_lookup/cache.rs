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
use std::collections::{BTreeMap, HashMap};

/// What an entry costs on top of its text, in units: the record, the two
/// map slots.
pub const ENTRY_COST: usize = 64;

/// The bound a cache starts with, in units: 8 Mi (8 MiB of ASCII text).
pub const DEFAULT_BOUND: usize = 8 << 20;

struct Entry {
    text: Lowered,
    /// The original text's length in UTF-16 units.
    units: usize,
    /// When it was last used; the key of `by_use`.
    stamp: u64,
}

/// Lowered texts by id, least recently used first out.
pub struct GroundCache {
    bound: usize,
    used: usize,
    clock: u64,
    entries: HashMap<u64, Entry>,
    /// `stamp -> id`, oldest first.
    by_use: BTreeMap<u64, u64>,
}

impl Default for GroundCache {
    fn default() -> Self {
        Self::new(DEFAULT_BOUND)
    }
}

impl GroundCache {
    pub fn new(bound: usize) -> Self {
        GroundCache { bound, used: 0, clock: 0, entries: HashMap::new(), by_use: BTreeMap::new() }
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
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether a text of `units` units would be kept at all.
    pub fn fits(&self, units: usize) -> bool {
        units + ENTRY_COST <= self.bound
    }

    /// Whether `id` is held for a text of `units` units; marks it used.
    pub fn touch(&mut self, id: u64, units: usize) -> bool {
        let clock = self.clock + 1;
        let Some(entry) = self.entries.get_mut(&id) else { return false };
        if entry.units != units {
            return false;
        }
        self.clock = clock;
        self.by_use.remove(&entry.stamp);
        entry.stamp = clock;
        self.by_use.insert(clock, id);
        true
    }

    /// The text held under `id`, without marking it used.
    pub fn get(&self, id: u64) -> Option<&Lowered> {
        self.entries.get(&id).map(|entry| &entry.text)
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
        self.clock += 1;
        self.used += units + ENTRY_COST;
        self.by_use.insert(self.clock, id);
        self.entries.insert(id, Entry { text, units, stamp: self.clock });
        true
    }

    fn remove(&mut self, id: u64) {
        if let Some(entry) = self.entries.remove(&id) {
            self.by_use.remove(&entry.stamp);
            self.used -= entry.units + ENTRY_COST;
        }
    }

    /// Drops the least recently used entries until at most `limit` is used.
    fn shrink_to(&mut self, limit: usize) {
        while self.used > limit {
            let Some((_, id)) = self.by_use.pop_first() else { break };
            let entry = self.entries.remove(&id).expect("every stamp names an entry");
            self.used -= entry.units + ENTRY_COST;
        }
        if self.entries.is_empty() {
            // Give back the maps' own memory too.
            self.entries = HashMap::new();
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
        assert!(cache.touch(1, 100));
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
        assert!(!cache.touch(7, 11));
        assert!(cache.touch(7, 10));
    }

    #[test]
    fn replacing_and_shrinking_keep_the_count_exact() {
        let mut cache = GroundCache::new(1 << 20);
        for round in 0..1000u64 {
            cache.insert(round % 17, text((round % 50) as usize), (round % 50) as usize);
        }
        let used: usize = cache.entries.values().map(|entry| entry.units + ENTRY_COST).sum();
        assert_eq!(cache.used(), used);
        assert_eq!(cache.by_use.len(), cache.entries.len());
        cache.set_bound(0);
        assert!(cache.is_empty());
        assert_eq!(cache.used(), 0);
    }
}
