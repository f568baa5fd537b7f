//! Exact BM25 for any k1 and b over tantivy's postings.
//!
//! Why not tantivy's own `BM25Weight`: it fixes k1 = 1.2 and b = 0.75, and its block-max WAND
//! skips documents using upper bounds computed for those values, so changing the parameters would
//! need a scorer of our own anyway — and the cutoff must be applied to *every* candidate, which
//! WAND's pruning (tuned to the unfiltered top-k) would have to be taught too. Instead this scorer
//! is exhaustive term-at-a-time: each query term's block postings are decoded once and added to a
//! dense per-segment accumulator, then one pass selects the top k among the documents the cutoff
//! admits. No document is ever skipped, so the result is exact for any k1, b and cutoff.
//!
//! The score is Lucene's (and so Anserini's) BM25, term by term:
//!
//! ```text
//! idf(t)      = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
//! score(t, d) = qtf(t) · idf(t) · tf / (tf + k1 · (1 - b + b · len(d) / avglen))
//! ```
//!
//! with N the number of documents, qtf the times t occurs in the query (Anserini's bag-of-words
//! query boosts), len(d) the document's length after tantivy's one-byte field-norm quantisation
//! (the same table as Lucene's `SmallFloat.intToByte4`) and avglen the exact mean length. Scores
//! are summed in f32, as Lucene does.

use tantivy::schema::IndexRecordOption;
use tantivy::Term;

use super::cutoff::Cutoff;
use super::top_k::TopK;
use crate::analysis::Analyzer;
use crate::error::{Error, Result};
use crate::index::{Bm25Params, Index};

/// One retrieved document.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Its tantivy segment.
    pub segment: u32,
    /// Its document number in the segment.
    pub doc: u32,
    /// Its id's rank (see [`Index::id`]).
    pub rank: u32,
    /// BM25 score.
    pub score: f32,
}

/// Per-thread working memory for [`Bm25::search`]; reuse one per thread.
#[derive(Default)]
pub struct Scratch {
    scores: Vec<f32>,
    touched: Vec<bool>,
}

/// A BM25 searcher over an opened index.
pub struct Bm25<'a> {
    index: &'a Index,
    analyzer: Analyzer,
    params: Bm25Params,
    /// 1 / (k1 · (1 - b + b · len / avglen)) for each of the 256 field-norm codes.
    norm_inverse: [f32; 256],
}

impl<'a> Bm25<'a> {
    /// A searcher with `params` (the index's own defaults when `None`).
    pub fn new(index: &'a Index, params: Option<Bm25Params>) -> Result<Self> {
        let params = params.unwrap_or(index.manifest().bm25);
        params.validate()?;
        let average = index.average_length().max(f32::MIN_POSITIVE);
        let mut norm_inverse = [0f32; 256];
        for (code, slot) in norm_inverse.iter_mut().enumerate() {
            let length = tantivy::fieldnorm::FieldNormReader::id_to_fieldnorm(code as u8) as f32;
            let norm = params.k1 * ((1.0 - params.b) + params.b * length / average);
            // k1 = 0 makes tf irrelevant: every matching term scores its idf (norm 0 → ∞ inverse).
            *slot = if norm > 0.0 { 1.0 / norm } else { f32::INFINITY };
        }
        Ok(Bm25 { index, analyzer: Analyzer::default(), params, norm_inverse })
    }

    /// The parameters in use.
    pub fn params(&self) -> Bm25Params {
        self.params
    }

    /// The analysed query terms with their weights qtf · idf, in first-occurrence order;
    /// terms absent from the index are left out.
    pub fn weighted_terms(&self, query: &str) -> Result<Vec<(Term, f32)>> {
        let mut counted: Vec<(String, u32)> = Vec::new();
        self.analyzer.analyze(query, &mut |term| match counted.iter_mut().find(|(t, _)| t == term) {
            Some((_, count)) => *count += 1,
            None => counted.push((term.to_string(), 1)),
        });
        let n = self.index.num_docs() as f64;
        let mut weighted = Vec::with_capacity(counted.len());
        for (text, count) in counted {
            let term = self.index.term(&text);
            let df = self.index.doc_freq(&term)? as f64;
            if df > 0.0 {
                let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln() as f32;
                weighted.push((term, count as f32 * idf));
            }
        }
        Ok(weighted)
    }

    /// The top `k` documents for `query` among those `cutoff` admits, best first (module doc of
    /// [`crate::retrieve`] for the tie rule). `exclude_rank` drops one document (BEIR's
    /// `--remove-query`).
    pub fn search(&self, query: &str, cutoff: &Cutoff, k: usize, exclude_rank: Option<u32>, scratch: &mut Scratch) -> Result<Vec<Hit>> {
        let terms = self.weighted_terms(query)?;
        let cutoff = cutoff.compile();
        let mut top: TopK<(u32, u32)> = TopK::new(k);
        if k == 0 || terms.is_empty() {
            return Ok(Vec::new());
        }
        for (segment_ord, segment) in self.index.segments().iter().enumerate() {
            let max_doc = segment.ranks.len();
            if scratch.scores.len() < max_doc {
                scratch.scores.resize(max_doc, 0.0);
                scratch.touched.resize(max_doc, false);
            }
            let scores = &mut scratch.scores[..max_doc];
            let touched = &mut scratch.touched[..max_doc];
            for (term, weight) in &terms {
                let Some(mut block) =
                    segment.inverted.read_block_postings(term, IndexRecordOption::WithFreqs).map_err(|e| Error::io(self.index.path(), e))?
                else {
                    continue;
                };
                loop {
                    let docs = block.docs();
                    if docs.is_empty() {
                        break;
                    }
                    for (&doc, &tf) in docs.iter().zip(block.freqs()) {
                        let doc = doc as usize;
                        let inverse = self.norm_inverse[segment.norm_ids[doc] as usize];
                        // weight · tf / (tf + norm), written as Lucene's BM25Scorer does.
                        scores[doc] += weight - weight / (1.0 + tf as f32 * inverse);
                        touched[doc] = true;
                    }
                    block.advance();
                }
            }
            for doc in 0..max_doc {
                if !touched[doc] {
                    continue;
                }
                touched[doc] = false;
                let score = std::mem::take(&mut scores[doc]);
                let rank = segment.ranks[doc];
                if !cutoff.admits(segment.date_keys[doc]) || Some(rank) == exclude_rank {
                    continue;
                }
                top.push(score, rank, (segment_ord as u32, doc as u32));
            }
        }
        Ok(top.into_sorted().into_iter().map(|(score, rank, (segment, doc))| Hit { segment, doc, rank, score }).collect())
    }
}
