//! quantir: evidence retrieval for numerical claims.
//!
//! A claim such as "inflation is down close to 3%" needs evidence published *before* it was made
//! that bears on its numbers. quantir indexes a dated evidence corpus with a numeric-aware
//! analyzer and retrieves, per claim, the best documents among those dated strictly before it.
//!
//! ```text
//!  corpus ─► analysis ─► index ─► plan ─► retrieve ─────────► fuse ─► engine ─► trec::Run ─► eval
//!  (jsonl,    (numbers    (tantivy  (sub-    (BM25, exact top-k   (ranx-   (batched,   (TREC      (trec_eval
//!   beir,      whole)      postings) queries) under the cutoff)    equal)   per claim)  run files)  measures)
//!   quantemp)                                              verify (verdicts) ◄─┘   └─► serve (HTTP, page)
//! ```
//!
//! Modules are stacked: each uses only [`error`], [`ranges`] and the modules before it in this order —
//! [`io`], [`trec`], [`corpus`], [`analysis`], [`provenance`], [`index`], [`llm`], [`plan`], [`retrieve`], [`fuse`],
//! [`opensearch`], [`engine`], [`eval`], [`verify`], [`experiment`], [`serve`]
//! (`tests/integration/layering.rs` fails on an import against this order).
//! The library never prints, exits or reads environment variables; the `quantir` binary's `cli`
//! module does.
#![warn(missing_docs)]

pub mod analysis;
pub mod corpus;
pub mod engine;
pub mod error;
pub mod eval;
pub mod experiment;
pub mod fuse;
pub mod index;
pub mod io;
pub mod llm;
pub mod opensearch;
pub mod plan;
pub mod provenance;
pub mod ranges;
pub mod retrieve;
#[cfg(feature = "server")]
pub mod serve;
pub mod verify;
pub mod trec;

pub use error::{Error, Result};
