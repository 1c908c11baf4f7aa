//! The N-API face of the crate. Each submodule converts JavaScript values
//! once, at the edge, calls the core and converts the answer back; no rule
//! lives here that a Rust test cannot reach through the core.

mod empty_lookup;
mod js;
mod layer;
mod live;
mod scaffolding;
