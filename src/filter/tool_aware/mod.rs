//! Tool-aware detection: a leaked call to one of the offered tools, found by
//! the tool's name in whatever markup carries it (see `reader`).

mod reader;

pub(crate) use reader::CallStage;
pub use reader::{Tools, ToolsError};
