//! The N-API face of the crate. Each submodule reads its JavaScript
//! arguments once, at the edge, calls the core and builds the answer once;
//! no rule lives here that a Rust test cannot reach through the core, and
//! nothing is kept between calls but what the objects a user holds (a
//! `RunCorpus`, a `ScaffoldingFilter`) keep.

mod checks;
mod filter;
mod napi;
