//! Evaluation of runs against qrels with trec_eval's measures and semantics.
//!
//! In: a [`Run`](crate::trec::Run), [`Qrels`](crate::trec::Qrels), [`Measure`]s. Out: per-query
//! values and their means ([`Evaluation`]).
//!
//! Semantics are trec_eval 9's, so the numbers equal trec_eval's and pytrec_eval's:
//! - a query's documents are ranked by score descending, ties by docid descending — not by the
//!   run file's rank column or line order;
//! - a document is relevant when its grade is ≥ 1; unjudged documents are not relevant; nDCG's
//!   gains are the grades themselves (linear), grades ≤ 0 gain nothing;
//! - only queries that are both in the run and in the qrels are evaluated; with
//!   [`Completeness::Complete`] (trec_eval `-c`), a judged query missing from the run is
//!   evaluated as an empty ranking (every measure 0 but `num_rel`);
//! - [`Settings`] carry trec_eval's `-l` (the lowest relevant grade) and `-M` (the top N
//!   documents measured);
//! - `all` is the arithmetic mean over the evaluated queries, or the sum for the counts
//!   (`num_ret`, `num_rel`, `num_rel_ret`), as trec_eval aggregates them.
//!
//! The formulas live in `measures.rs`, one function per measure; `compare.rs` holds the paired
//! significance tests.

mod compare;
mod measure;
mod measures;
mod evaluate;

pub use compare::{compare, correct, paired_t_test, permutation_test, CompareConfig, Comparison, Correction, RunRow, Test};
pub use evaluate::{evaluate, evaluate_with, Completeness, Evaluation, Settings};
pub use measure::{Aggregate, Measure, MeasureList};
