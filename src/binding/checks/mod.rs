//! The checks' exports, one file per check of `crate::checks` under the
//! same name, with the run corpus's class, the findings every check
//! returns, the live values they read and the readers they share.

mod claim;
mod dangling_reference;
mod empty_lookup;
mod findings;
mod live;
mod read;
mod run_corpus;
mod schema;
mod unsupported_argument;
