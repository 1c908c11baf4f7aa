//! seamguard: guard rails for the seams where an agent's context goes wrong
//! silently.
//!
//! The crate is a plain Rust library (the modules below know nothing of
//! Node) with a thin N-API binding layer on top, compiled into a Node addon.
//!
//! - [`empty_lookup`]: the write seam. A tool answered a lookup with nothing,
//!   and the identifier it looked up came out of an earlier result of this
//!   run: file an advisory finding.
//! - [`unsupported_argument`]: the choice seam. The model called a tool
//!   with a value that nothing the run served contains: file a finding,
//!   saying whether the value came from the model's own earlier prose.
//! - [`dangling_reference`]: the compose seam. A tool is offered while the
//!   results its arguments come from have left the window.
//! - [`corpus`]: a run's messages, pushed once each, with the window's
//!   evictions, on which all three checks are judged without reading any
//!   earlier message again.
//! - [`filter`]: the stream seam. Strip a chat model's leaked tool-call
//!   markup from the answer text it streams, chunk by chunk.
//!
//! The pieces the checks share: [`walk`] (the string leaves of a call's
//! arguments), [`ground`] (needles, lowered texts and the search),
//! [`sketch`] (what lets a long text be skipped) and [`finding`] (what a
//! check files).
//!
//! Every string is handled as JavaScript sees it: a sequence of UTF-16 code
//! units, lone surrogates included ([`js_string`]).

// Test case tables are tuples by design: one row a case, read across.
#![cfg_attr(test, allow(clippy::type_complexity))]

pub mod corpus;
pub mod dangling_reference;
pub mod empty_lookup;
pub mod filter;
pub mod finding;
pub mod ground;
pub mod js_string;
pub mod sketch;
pub mod unsupported_argument;
pub mod walk;

// napi registers the binding's exports at load time, which a test build
// leaves out, so there they look unused.
#[cfg_attr(test, allow(dead_code))]
mod binding;
