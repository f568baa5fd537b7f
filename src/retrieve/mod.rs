//! Retrieval: a query's top-k documents among those the [`Cutoff`] admits.
//!
//! In: an opened [`Index`](crate::index::Index), query text, a [`Cutoff`], k. Out: [`Hit`]s,
//! best first.
//!
//! Invariants:
//! - **exact under the cutoff**: the hits are the k best-scoring documents *among the admitted
//!   ones*, the same list as scoring every document, dropping those the cutoff refuses and
//!   cutting at k. The cutoff is applied while selecting, not to a fixed top-N afterwards (the
//!   QuanTemp++ reference code's post-filter, which loses evidence whenever more than N-k of the
//!   best documents are too recent);
//! - **one tie rule**: score descending, then document id descending by bytes — the order in
//!   which trec_eval evaluates a run, so the ranks written are the ranks it scores;
//! - a document only appears if it shares at least one term with the query.

mod bm25;
mod cutoff;
pub mod dense;
pub mod feedback;
mod top_k;

pub use bm25::{Bm25, Hit, Scratch, Strategy};
pub use cutoff::{Cutoff, TemporalFilter, UndatedPolicy};
pub use feedback::{Expansion, Feedback, Rm3, Rocchio};
pub use dense::{Ann, DenseQuery};

/// Which retrieval runs per sub-query.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Retriever {
    /// Lexical BM25.
    #[default]
    Bm25,
    /// The dense encoder's vectors.
    Dense,
    /// Both, fused (each sub-query contributes a BM25 list and a dense list).
    Hybrid,
}
