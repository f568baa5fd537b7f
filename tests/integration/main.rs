//! One integration binary, a module per stage or command (ripgrep's layout).

mod bad_input;
mod bm25;
mod cli;
mod cutoff;
mod databases;
mod docs;
pub mod dense;
mod eval_oracle;
mod experiment;
mod feedback;
mod formats;
mod fuse_oracle;
mod index_build;
mod integrity;
mod layering;
pub mod plan;
mod scifact;
mod regression;
#[path = "../common/small_corpus.rs"]
mod small_corpus;
pub mod serve;
pub mod stance;
mod update;
mod util;
mod verify;
