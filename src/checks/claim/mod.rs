//! The claim seam: which tokens of a final answer are values (numbers and
//! identifiers someone read off a screen), and how each is spelt, so they
//! can be looked up among what the run's tools returned.
//!
//! - [`normalize`]: one spelling per value, shared by the answer's side and
//!   the tool results' side.
//! - [`served`]: how a tool result is read (JSON by its grammar, the rest as
//!   text), and [`exempt`]: the other spellings of a person's dates and
//!   times.
//! - [`index`]: what the in-window messages serve and supply, kept by the
//!   run corpus as messages come and go.
//! - [`gate`]: an answer's verdict, its finding and the sentences a guard
//!   says; [`prior_turn`]: the advisory for an answer built only from
//!   earlier turns.
pub mod exempt;
pub mod gate;
pub mod index;
pub mod normalize;
pub mod prior_turn;
pub mod served;
