//! The checks: three seams of an agent's loop where its context goes wrong
//! silently, and what they are judged on.
//!
//! - [`empty_lookup`]: the write seam. A tool answered a lookup with
//!   nothing, and the identifier it looked up came out of an earlier result
//!   of this run: file an advisory finding.
//! - [`unsupported_argument`]: the choice seam. The model called a tool
//!   with a value that nothing the run served contains: file a finding,
//!   saying whether the value came from the model's own earlier prose.
//! - [`dangling_reference`]: the compose seam. A tool is offered while the
//!   results its arguments come from have left the window.
//! - [`claim`]: the claim seam. Which tokens of a final answer are values,
//!   and the one spelling each is compared in.
//! - [`corpus`]: a run's messages, pushed once each, with the window's
//!   evictions, on which all three checks are judged without reading any
//!   earlier message again.
//!
//! What they share: [`walk`] (the string leaves of a call's arguments),
//! [`finding`] (what a check files) and [`text`] (JavaScript string
//! semantics over UTF-16 code units, the needles and grounds of a search,
//! and the sketch that lets a long text be skipped).

pub mod claim;
pub mod corpus;
pub mod dangling_reference;
pub mod empty_lookup;
pub mod finding;
pub mod schema;
pub mod text;
pub mod unsupported_argument;
pub mod walk;
