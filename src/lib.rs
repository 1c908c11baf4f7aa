//! seamguard: guard rails for the two seams where an agent's context goes
//! wrong silently.
//!
//! The crate is a plain Rust library (the modules below know nothing of
//! Node) with a thin N-API binding layer on top, compiled into a Node addon.
//!
//! - [`empty_lookup`]: the write seam. A tool answered a lookup with nothing,
//!   and the identifier it looked up came out of an earlier result of this
//!   run: file an advisory finding.
//! - [`scaffolding`]: the stream seam. Strip a chat model's leaked tool-call
//!   markup from the answer text it streams, chunk by chunk.
//!
//! Every string is handled as JavaScript sees it: a sequence of UTF-16 code
//! units, lone surrogates included ([`js_string`]).

pub mod empty_lookup;
pub mod js_string;
pub mod scaffolding;

// napi registers the binding's exports at load time, which a test build
// leaves out, so there they look unused.
#[cfg_attr(test, allow(dead_code))]
mod binding;
