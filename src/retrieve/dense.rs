//! Dense retrieval: inner product between query and document vectors, exact or through HNSW,
//! with the date cutoff.
//!
//! - **Exact**: the scores of a block of [`QUERY_BLOCK`] queries against a block of [`BLOCK`]
//!   documents are one matrix product (`gemm`, `product`); each query keeps its top k among
//!   the documents its own cutoff admits. Exact top-k under the cutoff, as for BM25. Query blocks
//!   run in parallel (rayon), so a whole run's sub-queries — every claim's, each with its own
//!   cutoff — are one call that uses every core. A batch of at least
//!   [`DATE_ORDER_MIN_QUERIES`] with cutoffs goes through the vectors in date order instead
//!   (undated last): each query then admits a prefix of them (and the undated suffix when it keeps
//!   undated documents), queries are grouped by cutoff, and a group multiplies only the columns
//!   some of its queries admit. On the QuanTemp++ replica, whose test claims admit about two
//!   thirds of the corpus each, that leaves a third of the products out.
//! - **HNSW**: a filtered graph search that only returns admitted documents. When the cutoff
//!   admits less than [`HNSW_MIN_ADMITTED`] of the collection, the graph would wander among
//!   refused nodes and miss good ones, so the search falls back to exact; it also falls back when
//!   the graph returns fewer than k documents. The answer is then always complete.
//!
//! Ties: score descending, then id rank descending (document id descending), as everywhere.

use std::ops::Range;

use super::cutoff::{CompiledCutoff, Cutoff};
use super::top_k::TopK;
use crate::corpus::DayNumber;
use crate::error::{Error, Result};
use crate::index::Index;

/// Documents per block of the exact search.
pub const BLOCK: usize = 4096;

/// The most queries per block of the exact search (`query_block` evens them out). Each query
/// block streams every document vector once, and `gemm` packs each block of documents anew for
/// every query block, so bigger blocks read and pack the vectors fewer times. On the QuanTemp++
/// replica (5,405 sub-queries × 165,700 vectors of 384, k 100, 2 threads,
/// `scripts/bench_dense_batch.sh`): blocks of at most 256 took 2.46 s, at most 512 (12 of 451)
/// 2.04–2.25 s and at most 1024 (6 of 901) 1.89–2.11 s. Each thread's score buffer is then
/// up to 16 MiB.
pub const QUERY_BLOCK: usize = 1024;

/// Batches of at least this many queries, some with a cutoff, search the vectors in date order
/// (module doc). Putting them in that order reads every vector once, about what scoring them
/// costs a few queries.
pub const DATE_ORDER_MIN_QUERIES: usize = 64;

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
        name: "retriever",
        message: format!("{} has no dense vectors\n\nhint: rebuild it with `quantir index --corpus … --index {} --dense models/all-minilm-l6-v2`", index.path().display(), index.path().display()),
    })?;
    let dates = index.date_keys_by_rank();
    // k beyond the collection is the collection (and allocates no more).
    let k = k.min(dates.len());
    // The matrix products read `dim` values per query: a vector of another length (an encoder of
    // another dimension) is an error here, never an out-of-bounds read.
    if let Some(q) = queries.iter().find(|q| q.vector.len() != vectors.dim()) {
        return Err(Error::InvalidArgument { name: "dense", message: format!("a query vector has {} values, the index's vectors {}: the encoder is not the index's", q.vector.len(), vectors.dim()) });
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
    let query_block = query_block(queries.len(), rayon::current_num_threads());
    if queries.len() >= DATE_ORDER_MIN_QUERIES && queries.iter().any(|q| q.cutoff.before.is_some()) {
        return exact_in_date_order(all, dim, dates, queries, k, BLOCK, query_block);
    }
    exact_in_rank_order(all, dim, dates, queries, k, BLOCK, query_block)
}

/// Queries per block for a batch of `n` on `threads` threads: at most [`QUERY_BLOCK`], in blocks
/// of equal size whose number the threads divide, so that no thread is left waiting while
/// another finishes a last block (5,405 queries on 2 threads: 6 blocks of 901, not 5 of 1,024
/// and one of 285).
fn query_block(n: usize, threads: usize) -> usize {
    let blocks = n.div_ceil(QUERY_BLOCK).max(1).next_multiple_of(threads.max(1));
    n.div_ceil(blocks).max(1)
}

/// Exact search over the vectors as stored: each block of `query_block` queries scores every
/// document, `block` documents at a time. With fewer query blocks than twice the threads, the
/// documents are split into parts as well, so that every thread has work: each (query block,
/// part) keeps its own top k, and a query's parts are merged at the end (the top k by score and
/// rank does not depend on the order candidates come in).
fn exact_in_rank_order(all: &[f32], dim: usize, dates: &[DayNumber], queries: &[DenseQuery], k: usize, block: usize, query_block: usize) -> Vec<Vec<(u32, f32)>> {
    use rayon::prelude::*;
    let n = dates.len();
    let qblocks: Vec<&[DenseQuery]> = queries.chunks(query_block).collect();
    let n_blocks = n.div_ceil(block).max(1);
    let parts = (2 * rayon::current_num_threads()).div_ceil(qblocks.len().max(1)).clamp(1, n_blocks);
    let tasks: Vec<(usize, usize)> = (0..qblocks.len()).flat_map(|b| (0..parts).map(move |part| (b, part))).collect();
    let found: Vec<Vec<Vec<(f32, u32)>>> = tasks
        .par_iter()
        .map(|&(b, part)| {
            let qblock = qblocks[b];
            let nq = qblock.len();
            let q = columns(qblock.iter().map(|q| q.vector), dim);
            let cuts: Vec<CompiledCutoff> = qblock.iter().map(|q| q.cutoff.compile()).collect();
            let mut heaps: Vec<TopK> = (0..nq).map(|_| TopK::new(k)).collect();
            let mut scores = vec![0f32; nq * block];
            let (from, to) = ((n_blocks * part / parts) * block, ((n_blocks * (part + 1) / parts) * block).min(n));
            for start in (from..to).step_by(block) {
                let len = block.min(n - start);
                product(&q, nq, &all[start * dim..(start + len) * dim], len, dim, &mut scores);
                for (qi, heap) in heaps.iter_mut().enumerate() {
                    let (cut, exclude) = (&cuts[qi], qblock[qi].exclude);
                    keep_best(heap, &scores[qi * len..(qi + 1) * len], |j| {
                        let rank = (start + j) as u32;
                        (cut.admits(dates[start + j]) && Some(rank) != exclude).then_some(rank)
                    });
                }
            }
            heaps.into_iter().map(TopK::into_sorted).collect()
        })
        .collect();
    let mut out = Vec::with_capacity(queries.len());
    for (b, qblock) in qblocks.iter().enumerate() {
        for qi in 0..qblock.len() {
            let mut top = TopK::new(k);
            for part in &found[b * parts..(b + 1) * parts] {
                for &(score, rank) in &part[qi] {
                    top.push(score, rank);
                }
            }
            out.push(sorted(top));
        }
    }
    out
}

/// Exact search of a batch with cutoffs, over the vectors in date order (module doc): each
/// query's admitted documents are then a prefix of that order (and the undated suffix when it
/// keeps them), so a block of queries with similar cutoffs multiplies only the columns some of
/// them admit. The vectors are gathered into date order one block of documents at a time, shared
/// by every query block. Scores, ranks and ties are those of [`exact_in_rank_order`] bit for bit.
fn exact_in_date_order(all: &[f32], dim: usize, dates: &[DayNumber], queries: &[DenseQuery], k: usize, block: usize, query_block: usize) -> Vec<Vec<(u32, f32)>> {
    use rayon::prelude::*;
    let n = dates.len();
    // Ranks by date key, undated (`DayNumber::MAX`) last.
    let mut order: Vec<u32> = (0..n as u32).collect();
    order.sort_by_key(|&rank| dates[rank as usize]);
    let keys: Vec<DayNumber> = order.iter().map(|&rank| dates[rank as usize]).collect();
    let ranges: Vec<[Range<u32>; 2]> = queries.iter().map(|q| q.cutoff.compile().ranges(&keys)).collect();
    // Queries with similar cutoffs share a block, so each block's columns stay few.
    let mut by_cutoff: Vec<usize> = (0..queries.len()).collect();
    by_cutoff.sort_by_key(|&i| (ranges[i][0].end, ranges[i][1].start));
    struct QueryBlock {
        members: Vec<usize>,
        /// The members' vectors as [`columns`].
        vectors: Vec<f32>,
        heaps: Vec<TopK>,
    }
    let mut qblocks: Vec<QueryBlock> = by_cutoff
        .chunks(query_block)
        .map(|members| QueryBlock {
            members: members.to_vec(),
            vectors: columns(members.iter().map(|&i| queries[i].vector), dim),
            heaps: members.iter().map(|_| TopK::new(k)).collect(),
        })
        .collect();
    // One score buffer per thread of the pool.
    let buffers: Vec<std::sync::Mutex<Vec<f32>>> = (0..rayon::current_num_threads()).map(|_| std::sync::Mutex::new(Vec::new())).collect();
    let mut docs = vec![0f32; block.min(n) * dim];
    for start in (0..n).step_by(block) {
        let end = (start + block).min(n);
        docs[..(end - start) * dim].par_chunks_mut(dim).zip(&order[start..end]).for_each(|(row, &rank)| row.copy_from_slice(&all[rank as usize * dim..][..dim]));
        let docs = &docs;
        qblocks.par_iter_mut().for_each(|qb| {
            // The columns of this document block that some query of the block admits.
            let (mut lo, mut hi) = (end, start);
            for &i in &qb.members {
                for r in &ranges[i] {
                    let (a, b) = ((r.start as usize).max(start), (r.end as usize).min(end));
                    if a < b {
                        (lo, hi) = (lo.min(a), hi.max(b));
                    }
                }
            }
            if lo >= hi {
                return;
            }
            let (nq, cols) = (qb.members.len(), hi - lo);
            let slot = rayon::current_thread_index().unwrap_or(0) % buffers.len();
            let mut scores = buffers[slot].lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            scores.resize(nq * cols, 0.0);
            product(&qb.vectors, nq, &docs[(lo - start) * dim..(hi - start) * dim], cols, dim, &mut scores);
            for (m, heap) in qb.heaps.iter_mut().enumerate() {
                let (range, exclude) = (&ranges[qb.members[m]], queries[qb.members[m]].exclude);
                keep_best(heap, &scores[m * cols..(m + 1) * cols], |j| {
                    let at = (lo + j) as u32;
                    let rank = order[lo + j];
                    (range.iter().any(|r| r.contains(&at)) && Some(rank) != exclude).then_some(rank)
                });
            }
        });
    }
    let mut out: Vec<Vec<(u32, f32)>> = vec![Vec::new(); queries.len()];
    for qb in qblocks {
        for (i, heap) in qb.members.into_iter().zip(qb.heaps) {
            out[i] = sorted(heap);
        }
    }
    out
}

/// Query vectors as the left operand of [`product`]: `dim` rows of one value per query (the
/// vectors as columns).
fn columns<'v>(vectors: impl ExactSizeIterator<Item = &'v [f32]>, dim: usize) -> Vec<f32> {
    let nq = vectors.len();
    let mut out = vec![0f32; nq * dim];
    for (j, vector) in vectors.enumerate() {
        for (i, &x) in vector.iter().enumerate().take(dim) {
            out[i * nq + j] = x;
        }
    }
    out
}

/// `scores` (`nq × len`, row-major) = `q` · `docs`ᵀ, with `q` the `nq` query vectors as
/// [`columns`] and `docs` `len` rows of `dim`.
///
/// Through the `gemm` crate's AVX-512 kernels (about a fifth faster here than `matrixmultiply`'s
/// AVX2 ones). A query's scores must not depend on the batch it comes in (a run's scores and the
/// server's for the same query are the same bits), and `gemm` adds in one order only on its
/// general path with one pass over the inner dimension: each score is then one sequence of
/// multiply-adds along it. Its other paths add in other orders: its matrix-vector path (one query
/// or one document, so both are padded to two), its small-product path (taken when the queries'
/// values are contiguous, so they come as columns) and several passes over a long inner
/// dimension (so it goes in fixed slices of [`INNER_SLICE`], one pass each, added in order).
fn product(q: &[f32], nq: usize, docs: &[f32], len: usize, dim: usize, scores: &mut [f32]) {
    assert!(q.len() >= nq * dim && docs.len() >= len * dim && scores.len() >= nq * len);
    if nq == 0 || len == 0 {
        return;
    }
    if nq == 1 || len == 1 {
        // Only the side of one is copied: a single query's search pads its vector, not every
        // block of documents.
        let (pq, plen) = (nq.max(2), len.max(2));
        let padded_q: std::borrow::Cow<[f32]> = if nq == 1 {
            let mut padded = vec![0f32; pq * dim];
            for i in 0..dim {
                padded[i * pq] = q[i];
            }
            padded.into()
        } else {
            q.into()
        };
        let padded_docs: std::borrow::Cow<[f32]> = if len == 1 {
            let mut padded = docs[..dim].to_vec();
            padded.resize(plen * dim, 0.0);
            padded.into()
        } else {
            docs.into()
        };
        let mut padded = vec![0f32; pq * plen];
        product(&padded_q, pq, &padded_docs, plen, dim, &mut padded);
        for row in 0..nq {
            scores[row * len..(row + 1) * len].copy_from_slice(&padded[row * plen..row * plen + len]);
        }
        return;
    }
    for (slice, from) in (0..dim).step_by(INNER_SLICE).enumerate() {
        let depth = INNER_SLICE.min(dim - from);
        // gemm computes dst = alpha · dst + beta · lhs · rhs, each matrix given by its column
        // and row strides: scores is row-major nq × len; q (nq × dim) has row stride 1 and
        // column stride nq, its queries being columns; docsᵀ (dim × len) has column stride dim
        // and row stride 1, docs being row-major len × dim. The first slice writes the scores,
        // the others add to them.
        // SAFETY: the assertion above bounds every element the strides reach.
        unsafe {
            gemm::gemm(nq, len, depth, scores.as_mut_ptr(), 1, len as isize, slice > 0, q.as_ptr().add(from * nq), nq as isize, 1, docs.as_ptr().add(from), dim as isize, 1, 1.0, 1.0, false, false, false, gemm::Parallelism::None);
        }
    }
}

/// The inner dimension's slice per `gemm` pass: at most the 512 that `gemm` takes in one pass
/// whatever the matrices' sizes.
const INNER_SLICE: usize = 512;

/// Offers `heap` the scores of one query's row; `admit(j)` gives column `j`'s id rank when the
/// query may have it. Most scores fall below the k-th kept one: they are skipped before `admit`.
/// A chunk of [`LANES`] scores is first tested as a whole (one vector compare), and only a chunk
/// with a score at or above the floor is read score by score.
#[inline]
fn keep_best(heap: &mut TopK, row: &[f32], admit: impl Fn(usize) -> Option<u32>) {
    const LANES: usize = 16;
    let mut floor = heap.floor();
    for (c, chunk) in row.chunks(LANES).enumerate() {
        // "Not below the floor", as the test per score reads it (a NaN is not below it either).
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        if !chunk.iter().fold(false, |any, &s| any | !(s < floor)) {
            continue;
        }
        for (j, &s) in chunk.iter().enumerate() {
            if s < floor {
                continue;
            }
            if let Some(rank) = admit(c * LANES + j) {
                heap.push(s, rank);
                floor = heap.floor();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::corpus::PubDate;
    use crate::retrieve::UndatedPolicy;

    /// Query blocks are at most QUERY_BLOCK and nearly equal (the last one short by fewer
    /// queries than there are blocks); for a run's batch their number is a multiple of the
    /// threads.
    #[test]
    fn query_blocks_share_the_threads_evenly() {
        for threads in [1, 2, 3, 8] {
            for n in [1, 2, 7, 64, 511, 512, 513, 1024, 5405, 100_000] {
                let size = query_block(n, threads);
                let blocks = n.div_ceil(size);
                assert!((1..=QUERY_BLOCK).contains(&size), "n {n}, threads {threads}: {size}");
                assert!(blocks * size - n < blocks, "n {n}, threads {threads}: {blocks} blocks of {size}");
                if n >= 5405 {
                    assert_eq!(blocks % threads, 0, "n {n}, threads {threads}: {blocks} blocks of {size}");
                }
            }
        }
    }

    /// A query's score for a document is the same bits in a product of any shape: alone, in a
    /// small product and in large ones (`gemm` takes other paths and passes for each), for
    /// dimensions within one pass and beyond it.
    #[test]
    fn a_score_does_not_depend_on_the_product_it_is_in() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut value = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 20_001) as f32 / 10_000.0 - 1.0
        };
        for dim in [3, 384, 768, 1100] {
            let (queries, docs): (Vec<f32>, Vec<f32>) = ((0..300 * dim).map(|_| value()).collect(), (0..300 * dim).map(|_| value()).collect());
            let scores = |nq: usize, len: usize| {
                let q = columns(queries.chunks(dim).take(nq), dim);
                let mut out = vec![0f32; nq * len];
                product(&q, nq, &docs[..len * dim], len, dim, &mut out);
                // The first two queries' scores for the first document.
                [out[0].to_bits(), if nq > 1 { out[len].to_bits() } else { 0 }]
            };
            let alone = [scores(1, 1)[0], 0];
            for (nq, len) in [(2, 1), (1, 2), (2, 2), (3, 5), (16, 16), (70, 70), (256, 300), (300, 256)] {
                let got = scores(nq, len);
                assert_eq!(got[0], alone[0], "dim {dim}: the first query's first score, alone and in {nq} × {len}");
                if nq > 1 {
                    assert_eq!(got[1], scores(2, 2)[1], "dim {dim}: the second query's first score, in 2 × 2 and in {nq} × {len}");
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// The date-ordered batch gives every query exactly what the stored order gives it, and
        /// what searching it alone gives it, bit for bit: over several document and query blocks,
        /// dimensions below, at and beyond one `gemm` pass, cutoffs, undated policies and
        /// exclusions.
        #[test]
        fn date_order_equals_rank_order(
            n in 1usize..90,
            dim in prop_oneof![1usize..9, 250usize..400, 500usize..1100],
            seed: u64,
            cutoffs in proptest::collection::vec((proptest::option::of(1u32..28), any::<bool>(), proptest::option::of(0u32..90)), 1..30),
            k in 1usize..12,
            (block, query_block) in (1usize..20, 1usize..7),
        ) {
            let mut state = seed | 1;
            let mut next = move || { state ^= state << 13; state ^= state >> 7; state ^= state << 17; state };
            // Documents drawn from a few random vectors, so that equal scores (ties) happen;
            // random values, so that a different order of additions shows in the last bits.
            let value = |x: u64| (x % 20_001) as f32 / 10_000.0 - 1.0;
            let pool: Vec<Vec<f32>> = (0..12).map(|_| (0..dim).map(|_| value(next())).collect()).collect();
            let all: Vec<f32> = (0..n).flat_map(|i| pool[(i * 7 + i / 3) % pool.len()].iter().copied()).collect();
            let base = PubDate::parse("2000-02-01").unwrap().last_day_number();
            let dates: Vec<DayNumber> = (0..n).map(|_| if next() % 5 == 0 { DayNumber::MAX } else { base + (next() % 28) as DayNumber }).collect();
            let vectors: Vec<Vec<f32>> = cutoffs.iter().map(|_| (0..dim).map(|_| value(next())).collect()).collect();
            let queries: Vec<DenseQuery> = cutoffs.iter().zip(&vectors).map(|((day, include, exclude), v)| DenseQuery {
                vector: v,
                cutoff: day.map_or(Cutoff::none(), |d| Cutoff::before(PubDate::parse(&format!("2000-02-{d:02}")).unwrap(), if *include { UndatedPolicy::Include } else { UndatedPolicy::Exclude })),
                exclude: *exclude,
            }).collect();
            let want = exact_in_rank_order(&all, dim, &dates, &queries, k, block, query_block);
            let got = exact_in_date_order(&all, dim, &dates, &queries, k, block, query_block);
            let bits = |hits: &[(u32, f32)]| hits.iter().map(|&(r, s)| (r, s.to_bits())).collect::<Vec<_>>();
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                prop_assert_eq!(bits(g), bits(w), "query {}", i);
                // And the same as the query searched alone, in blocks of one document too.
                let alone = exact_in_rank_order(&all, dim, &dates, std::slice::from_ref(&queries[i]), k, 1 + i % 2 * block, 1).remove(0);
                prop_assert_eq!(bits(&alone), bits(w), "query {} alone", i);
            }
        }
    }
}
