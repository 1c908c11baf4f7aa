//! seamguard: guard rails for the seams where an agent's context goes wrong
//! silently.
//!
//! Two libraries that know nothing of Node, and a thin N-API binding over
//! them, compiled into a Node addon:
//!
//! - [`checks`]: three of agentfootprint's context checks, each at one seam
//!   of an agent's loop, with the finding they file and the run corpus they
//!   can be judged on.
//! - [`filter`]: the stream filter. Strip a chat model's leaked tool-call
//!   markup from the answer text it streams, chunk by chunk.
//! - the binding (`src/binding/`, not part of the Rust API): each export
//!   reads its JavaScript arguments once, calls the core, and builds the
//!   answer once. Its files are named as the core's are.
//!
//! docs/design.md explains the layout and the reasoning behind it.

// Test case tables are tuples by design: one row a case, read across.
#![cfg_attr(test, allow(clippy::type_complexity))]

pub mod checks;
pub mod filter;

// napi registers the binding's exports at load time, which a test build
// leaves out, so there they look unused.
#[cfg_attr(test, allow(dead_code))]
mod binding;
