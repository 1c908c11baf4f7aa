//! The two engines a registry runs on (see `registry`): the one-pass engine
//! for a literal registry, the general engine for any other.

pub(crate) mod general;
pub(crate) mod literals;
pub(crate) mod one_pass;
