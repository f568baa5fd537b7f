//! The interchange formats: TREC run files and relevance judgments (qrels).
//!
//! These are what quantir shares with trec_eval, Pyserini and ranx, so they sit above every
//! stage: retrieval writes [`Run`]s, evaluation reads [`Run`]s and [`Qrels`].

mod qrels;
mod run;

pub use qrels::{Qrels, QrelsFormat};
pub use run::{parse_trec, ranking, write_trec, QueryView, RankedList, Run, RunView, ScoredDoc, DEFAULT_TAG};
