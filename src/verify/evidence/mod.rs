//! Evidence that is not plain text: tables inside evidence texts ([`table`]: HTML, JSON and
//! Markdown tables parsed into rows and columns, for the LLM verifier's prompt) and SQLite
//! databases a claim is checked against (`sql`, read-only, for the database agent).
//!
//! Uses only [`crate::verify`]'s vocabulary; the verifiers after it use it.

#[cfg(feature = "sqlite")]
pub mod sql;
pub mod table;
