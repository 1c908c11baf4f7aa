//! The claim seam: which tokens of a final answer are values (numbers and
//! identifiers someone read off a screen), and how each is spelt, so they
//! can be looked up among what the run's tools returned.
//!
//! - [`normalize`]: one spelling per value, shared by the answer's side and
//!   the tool results' side.
//! - [`extract`]: the values an answer asserts, as agentfootprint's
//!   evidence gate reads them, under the caller's options.
//! - [`figures`]: numbers wearing a unit of measure, read as values
//!   whatever their length when the caller asks.

pub mod extract;
pub mod figures;
pub mod normalize;

#[cfg(test)]
mod growth;

/// The units of text a reading looked at, counted in tests only (see
/// `growth.rs`): a release build keeps neither the count nor the sums.
#[derive(Default)]
pub(crate) struct Work {
    #[cfg(test)]
    units: std::cell::Cell<u64>,
}

impl Work {
    #[inline]
    pub(crate) fn add(&self, units: usize) {
        #[cfg(test)]
        self.units.set(self.units.get() + units as u64);
        let _ = units;
    }

    #[cfg(test)]
    pub(crate) fn total(&self) -> u64 {
        self.units.get()
    }
}
