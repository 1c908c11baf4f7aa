//! The checks: three seams judged on what a run has served, the finding
//! they share, and the run corpus they are judged on.

pub mod corpus;
pub mod dangling_reference;
pub mod empty_lookup;
pub mod finding;
pub mod text;
pub mod unsupported_argument;
pub mod walk;
