//! The general engine: the registry compiled for it (`compile`), the
//! automata that carry its threads (`run`), and the engine (`threads`).

pub(crate) mod compile;
mod run;
pub(crate) mod threads;
