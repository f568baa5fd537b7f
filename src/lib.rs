//! quantir: evidence retrieval for numerical claims.
#![warn(missing_docs)]
pub mod analysis;
pub mod corpus;
pub mod error;
pub mod io;
pub use error::{Error, Result};
