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
//! - [`served`]: how a tool result is read (JSON by its grammar, the rest as
//!   text), and [`exempt`]: the other spellings of a person's dates and
//!   times.
//! - [`index`]: what the in-window messages serve and supply, kept by the
//!   run corpus as messages come and go.
//! - [`gate`]: an answer's verdict, its finding and the sentences a guard
//!   says; [`prior_turn`]: the advisory for an answer built only from
//!   earlier turns; [`judge`]: the two together over one answer.

pub mod exempt;
pub mod extract;
pub mod figures;
pub mod gate;
pub mod index;
pub mod judge;
pub mod normalize;
pub mod prior_turn;
pub mod served;

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
