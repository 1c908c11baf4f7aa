//! Text as the checks search it: JavaScript string semantics, the needles
//! and grounds of a search, and the sketch that lets a long text be
//! skipped.

pub mod ground;
pub mod js_string;
pub mod sketch;
