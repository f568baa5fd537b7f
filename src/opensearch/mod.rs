//! The OpenSearch backend: the same index, the same BM25 scores and the same exact cutoff as the
//! embedded index, held by a cluster.
//!
//! In: a [`Corpus`](crate::corpus::Corpus) to load ([`build`]), or queries to search
//! ([`RemoteIndex::search_batch`]). Out: the cluster's top k per query as `(id, score)`, in the
//! retrieve stage's order.
//!
//! **What stays in quantir.** The numeric-aware analyzer: quantir analyses every passage and
//! sends its terms joined by spaces into `terms`, a text field analysed by OpenSearch's built-in
//! `whitespace` analyzer (the terms are never re-analysed, so `7.25`, `100000` and `percent` reach
//! Lucene as quantir made them). The query side does the same: one `term` clause per distinct
//! query term, boosted by its count (Anserini's bag-of-words query, which the embedded scorer
//! follows). Planning, fusion, evaluation and verification run in quantir on the hits.
//!
//! **What the cluster does.** BM25 with the index's k1 and b (a similarity set in the index
//! settings; Lucene's formula is the embedded scorer's, see [`crate::retrieve`]), the cutoff as a
//! filter clause, top-k per shard and the merge.
//!
//! **Exact scores across shards.** Searches run as `dfs_query_then_fetch`: a first round trip
//! gathers every shard's term and field statistics, so idf and the mean length are the whole
//! index's, as in the embedded index. Under `query_then_fetch` each shard scores with its own
//! statistics and the same document gets a different score depending on which shard holds it:
//! rankings change. That faster option trades exactness for one round trip less; quantir does not
//! offer it. Loads end with a force merge to one segment per shard, because a re-sent document
//! (a resumed load) leaves a deleted copy whose terms Lucene keeps counting in document
//! frequencies until merged away — and copies of a shard merge on their own schedule, so without
//! it a primary and its replica could score differently.
//!
//! **The cutoff** is [`crate::retrieve::Cutoff`]'s rule as a filter on `date_last`, the last day
//! of the document's publication date (partial dates end on the last day of their month or year),
//! `lt` the first day of the claim's date; undated documents have no `date_last` and are kept by
//! an `exists`-negation clause under `--undated include`. A filter, not a post-filter: the top k
//! among the eligible documents, however many newer ones score higher.
//!
//! **Ties** follow the retrieve stage's rule (score descending, then id descending by bytes): the
//! search sorts by `_score` then the `id` keyword. Scores are Lucene's f32 sums, which may differ
//! from the embedded scorer's in the last bits; near-equal scores may then swap.
//!
//! **Vectors** (dense and hybrid retrieval): a load with an embedded index's vectors
//! (`--vectors-from`, [`build`]) sends each document's vector with it into a `knn_vector` field
//! (the k-NN plugin, Lucene's HNSW engine: the only one that runs without native libraries, set on
//! every index quantir makes; an index of another engine is refused). Dense queries are encoded by
//! quantir with the encoder the index records and searched with the claim's cutoff as a filter
//! inside the search, never after it: exactly (`--ann exact`, the plugin's scoring script over the
//! admitted documents: the embedded exact search's top k, scores equal to float rounding) or
//! through the graph (`--ann hnsw`, Lucene's efficient filtering). Hybrid retrieval fuses each
//! sub-query's BM25 and dense lists in quantir, as the embedded backend does.
//!
//! **Layout** of an index named `NAME`: `NAME` is an alias over one physical index,
//! `NAME-<fingerprint>`, where the fingerprint covers the corpus (every id, date, title and
//! text), the analyzer version, k1, b, shards and replicas. A load writes the physical index
//! (ids are the documents' own, so re-sending one overwrites it) and records its progress in the
//! mapping's `_meta`, so an interrupted load resumes where it stopped; once every document is in,
//! merged and counted, one `_aliases` call moves `NAME` to it and the previous physical index is
//! deleted. Searches never see a half-built index. Each search resolves the alias by itself, so
//! a batch that spans the swap may get some answers from each index, every one of them complete.
//!
//! **Updates** (`quantir add`/`delete --backend opensearch`, [`update`]) go to the physical index
//! the alias names as `_bulk` operations, not a new load; its `_meta` then records the new count
//! and a fingerprint of the old one and the change, and `updated`, so a later load of the
//! original corpus does not take the updated index for its own (it loads beside it under the
//! next free name, `NAME-<fingerprint>-1`, and moves the alias). Deleted copies and `--expunge`:
//! see [`update`].
//!
//! Known difference: a document whose passage analyses to no term at all is counted by the
//! embedded index's N and mean length and not by Lucene's; such documents can never match.

mod client;
mod ingest;
mod search;
mod update;

pub use client::{Cluster, ClusterConfig};
pub use ingest::{build, LoadConfig, LoadSummary};
pub use search::{RemoteHit, RemoteIndex, RemoteQuery, RemoteVectorQuery};
pub use update::{update, RemoteChange, RemoteUpdateSummary};

use sha2::{Digest, Sha256};

/// Version of the layout above, written by loads. Layout 2 added each document's `line`, which
/// loads read and searches do not: searches and updates take [`READABLE_LAYOUTS`].
pub const LAYOUT_VERSION: u32 = 2;

/// The layouts searched and updated; an index of another is refused.
pub const READABLE_LAYOUTS: std::ops::RangeInclusive<u32> = 1..=LAYOUT_VERSION;

/// The `_meta` key quantir writes under.
const META_KEY: &str = "quantir";

/// Lucene's whitespace tokenizer cuts tokens at 255 characters; a longer quantir term is sent as
/// `~` and its sha256 prefix instead, at index and at query time, so it stays one term. The one
/// place this rule is written.
pub(crate) fn wire_term(term: &str) -> std::borrow::Cow<'_, str> {
    const MAX_TOKEN: usize = 255;
    if term.chars().count() <= MAX_TOKEN {
        std::borrow::Cow::Borrowed(term)
    } else {
        let digest = Sha256::digest(term.as_bytes());
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        std::borrow::Cow::Owned(format!("~{hex}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_terms_become_one_short_term() {
        assert_eq!(wire_term("7.25"), "7.25");
        let long = "a".repeat(300);
        let wired = wire_term(&long);
        assert_eq!(wired.len(), 33);
        assert!(wired.starts_with('~'));
        assert_eq!(wired, wire_term(&long), "the same term, the same token");
        assert_ne!(wired, wire_term(&"a".repeat(301)));
    }
}
