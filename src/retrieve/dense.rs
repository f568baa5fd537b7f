//! Dense retrieval: inner product between query and document vectors, exact or through HNSW,
//! with the date cutoff.
//!
//! - **Exact**: the scores of a block of [`QUERY_BLOCK`] queries against a block of [`BLOCK`]
//!   documents are one matrix product (`matrixmultiply::sgemm`); each query keeps its top k among
//!   the documents its own cutoff admits. Exact top-k under the cutoff, as for BM25. Query blocks
//!   run in parallel (rayon), so a whole run's sub-queries — every claim's, each with its own
//!   cutoff — are one call that uses every core.
//! - **HNSW**: a filtered graph search that only returns admitted documents. When the cutoff
//!   admits less than [`HNSW_MIN_ADMITTED`] of the collection, the graph would wander among
//!   refused nodes and miss good ones, so the search falls back to exact; it also falls back when
//!   the graph returns fewer than k documents. The answer is then always complete.
//!
//! Ties: score descending, then id rank descending (document id descending), as everywhere.

use super::cutoff::{CompiledCutoff, Cutoff};
use super::top_k::TopK;
use crate::corpus::DayNumber;
use crate::error::{Error, Result};
use crate::index::Index;

/// Documents per block of the exact search.
pub const BLOCK: usize = 4096;

/// Queries per block of the exact search. Each query block streams every document vector once,
/// so bigger blocks read the vectors fewer times: on the QuanTemp++ replica (5,405 sub-queries ×
/// 165,700 vectors of 384, k 100, 2 threads) 64 took 7.5 s, 256 and 512 5.5 s
/// (`scripts/bench_dense_batch.sh`); 256 keeps each thread's score buffer at 4 MiB.
pub const QUERY_BLOCK: usize = 256;

/// Below this share of admitted documents, HNSW search falls back to exact search.
pub const HNSW_MIN_ADMITTED: f64 = 0.10;

/// Approximate or exact nearest neighbours.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ann {
    /// Every document scored.
    #[default]
    Exact,
    /// The HNSW graph (with exact fallback, module doc).
    Hnsw,
}

/// One dense query: its vector, cutoff and excluded document.
pub struct DenseQuery<'a> {
    /// The query vector (`dim` values).
    pub vector: &'a [f32],
    /// Its cutoff.
    pub cutoff: Cutoff,
    /// A document to leave out (`--remove-query`).
    pub exclude: Option<u32>,
}

fn sorted(top: TopK) -> Vec<(u32, f32)> {
    top.into_sorted().into_iter().map(|(score, rank)| (rank, score)).collect()
}

/// Top `k` documents `(id rank, inner product)` for each query, best first.
pub fn search(index: &Index, queries: &[DenseQuery], k: usize, ann: Ann, ef: usize) -> Result<Vec<Vec<(u32, f32)>>> {
    let vectors = index.vectors().ok_or_else(|| Error::InvalidArgument {
        name: "--retriever",
        message: format!("{} has no dense vectors\n\nhint: rebuild it with `quantir index --corpus … --index {} --dense models/all-minilm-l6-v2`", index.path().display(), index.path().display()),
    })?;
    let dates = index.date_keys_by_rank();
    // k beyond the collection is the collection (and allocates no more).
    let k = k.min(dates.len());
    // The matrix products read `dim` values per query: a vector of another length (an encoder of
    // another dimension) is an error here, never an out-of-bounds read.
    if let Some(q) = queries.iter().find(|q| q.vector.len() != vectors.dim()) {
        return Err(Error::InvalidArgument { name: "--dense", message: format!("a query vector has {} values, the index's vectors {}: the encoder is not the index's", q.vector.len(), vectors.dim()) });
    }
    match ann {
        Ann::Exact => Ok(exact(vectors.all(), vectors.dim(), dates, queries, k)),
        Ann::Hnsw => {
            use rayon::prelude::*;
            let graph = index.hnsw()?;
            let n = dates.len();
            let out = queries.par_iter().map(|q| {
                let cut = q.cutoff.compile();
                let admit = |row: usize| cut.admits(dates[row]) && Some(row as u32) != q.exclude;
                let unfiltered = q.cutoff.before.is_none() && q.exclude.is_none();
                let admitted = if unfiltered { n } else { dates.iter().filter(|&&d| cut.admits(d)).count() };
                let mut hits = Vec::new();
                if unfiltered {
                    hits = graph.search_all(q.vector, k, ef).into_iter().map(|(row, s)| (row as u32, s)).collect::<Vec<_>>();
                } else if admitted as f64 >= HNSW_MIN_ADMITTED * n as f64 {
                    hits = graph.search(q.vector, k, ef, &admit).into_iter().map(|(row, s)| (row as u32, s)).collect::<Vec<_>>();
                    hits.sort_by(|a, b| crate::trec::ranking((a.0, f64::from(a.1)), (b.0, f64::from(b.1))));
                }
                if hits.len() < k.min(admitted) {
                    hits = exact(vectors.all(), vectors.dim(), dates, std::slice::from_ref(q), k).pop().unwrap_or_default();
                }
                hits
            });
            Ok(out.collect())
        }
    }
}

/// Exact search (module doc).
fn exact(all: &[f32], dim: usize, dates: &[DayNumber], queries: &[DenseQuery], k: usize) -> Vec<Vec<(u32, f32)>> {
    use rayon::prelude::*;
    let blocks: Vec<Vec<Vec<(u32, f32)>>> = queries.par_chunks(QUERY_BLOCK).map(|qblock| exact_block(all, dim, dates, qblock, k)).collect();
    blocks.into_iter().flatten().collect()
}

/// One block of queries against every document.
fn exact_block(all: &[f32], dim: usize, dates: &[DayNumber], qblock: &[DenseQuery], k: usize) -> Vec<Vec<(u32, f32)>> {
    let n = dates.len();
    {
        let nq = qblock.len();
        let q: Vec<f32> = qblock.iter().flat_map(|q| q.vector.iter().copied()).collect();
        let cuts: Vec<CompiledCutoff> = qblock.iter().map(|q| q.cutoff.compile()).collect();
        let mut heaps: Vec<TopK> = (0..nq).map(|_| TopK::new(k)).collect();
        let mut scores = vec![0f32; nq * BLOCK];
        for start in (0..n).step_by(BLOCK) {
            let len = BLOCK.min(n - start);
            let docs = &all[start * dim..(start + len) * dim];
            // scores (nq × len) = q (nq × dim) · docsᵀ (dim × len); docs is row-major len × dim,
            // so its transpose has row stride 1 and column stride dim.
            // SAFETY: the pointers and strides describe the slices' own extents.
            unsafe {
                matrixmultiply::sgemm(nq, dim, len, 1.0, q.as_ptr(), dim as isize, 1, docs.as_ptr(), 1, dim as isize, 0.0, scores.as_mut_ptr(), len as isize, 1);
            }
            for (qi, heap) in heaps.iter_mut().enumerate() {
                let cut = &cuts[qi];
                let exclude = qblock[qi].exclude;
                let mut floor = heap.floor();
                for (j, &s) in scores[qi * len..(qi + 1) * len].iter().enumerate() {
                    // Most scores fall below the k-th kept one: skip them before the date check.
                    if s < floor {
                        continue;
                    }
                    let rank = (start + j) as u32;
                    if cut.admits(dates[start + j]) && Some(rank) != exclude {
                        heap.push(s, rank);
                        floor = heap.floor();
                    }
                }
            }
        }
        heaps.into_iter().map(sorted).collect()
    }
}
