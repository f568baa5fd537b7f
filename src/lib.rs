//! quantir: evidence retrieval for numerical claims.
#![warn(missing_docs)]
pub mod analysis;
pub mod corpus;
pub mod engine;
pub mod error;
pub mod eval;
pub mod index;
pub mod io;
pub mod retrieve;
pub mod trec;
pub use error::{Error, Result};
