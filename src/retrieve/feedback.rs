//! Pseudo-relevance feedback that respects the cutoff: RM3 as Anserini defines it
//! (`Rm3Reranker`, defaults fbDocs 10, fbTerms 10, original query weight 0.5), over quantir's
//! own analyser and statistics.
//!
//! 1. The first pass: BM25's top `fb_docs` for the query **under the claim's cutoff**, so a
//!    feedback document is one the claim may see (dated strictly before it) and no later
//!    evidence leaks into the expansion.
//! 2. Each feedback document's terms (its passage analysed as the index analysed it) with their
//!    frequencies, keeping only terms of 2 to 20 characters of `[a-z0-9]` held by at most 10% of
//!    the live documents; the `fb_terms` most frequent kept.
//! 3. The relevance model: each term weighs Σ_d tf_d(t) / |d| · score_d over the feedback
//!    documents (|d| the sum of d's kept frequencies; a document with |d| ≤ 0.001 adds
//!    nothing); the `fb_terms` heaviest kept and scaled to sum 1.
//! 4. The query's own terms, counted and scaled to sum 1, interpolated:
//!    w · query + (1 − w) · model over both vocabularies.
//! 5. The second pass: the weighted terms searched under the same cutoff
//!    ([`Bm25::search_weighted`]).
//!
//! Ties when keeping the top terms (steps 2 and 3) go to the term first in byte order (Anserini
//! leaves them to a hash map's order). Weights are computed in f64 and searched as f32.

use super::bm25::{Bm25, Hit, Scratch};
use super::cutoff::Cutoff;
use crate::error::{Error, Result};

/// RM3's parameters, Anserini's defaults.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Rm3 {
    /// Feedback documents: the first pass's top this many.
    pub fb_docs: usize,
    /// Terms kept from each document and in the model.
    pub fb_terms: usize,
    /// The original query's weight in the interpolation, in [0, 1].
    pub original_weight: f64,
}

impl Default for Rm3 {
    fn default() -> Self {
        Rm3 { fb_docs: 10, fb_terms: 10, original_weight: 0.5 }
    }
}

/// A feedback term is at least this many characters long …
const MIN_TERM_CHARS: usize = 2;
/// … and at most this many.
const MAX_TERM_CHARS: usize = 20;
/// A term held by more than this share of the live documents is not a feedback term.
const MAX_DF_RATIO: f64 = 0.1;
/// A feedback document whose kept frequencies sum to at most this adds nothing.
const MIN_NORM: f64 = 0.001;

/// What the expansion read and made: the feedback documents (id ranks, first-pass scores),
/// each one's kept terms, and the expanded query.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Expansion {
    /// The feedback documents: (id rank, first-pass score), best first.
    pub feedback: Vec<(u32, f32)>,
    /// Each feedback document's kept terms with their frequencies (step 2), heaviest first.
    pub document_terms: Vec<Vec<(String, f64)>>,
    /// The relevance model (step 3), heaviest first, summing to 1.
    pub model: Vec<(String, f64)>,
    /// The expanded query (step 4), heaviest first (ties by term).
    pub query: Vec<(String, f64)>,
}

impl Rm3 {
    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        if self.fb_docs == 0 || self.fb_terms == 0 || !(0.0..=1.0).contains(&self.original_weight) {
            return Err(Error::InvalidArgument {
                name: "--rm3",
                message: format!("expected at least 1 feedback document and term and an original weight in [0, 1], found fb_docs {} fb_terms {} weight {}", self.fb_docs, self.fb_terms, self.original_weight),
            });
        }
        Ok(())
    }

    /// The expanded query for `query` under `cutoff` (steps 1–4).
    pub fn expand(&self, bm25: &Bm25<'_>, query: &str, cutoff: &Cutoff, exclude_rank: Option<u32>, scratch: &mut Scratch) -> Result<Expansion> {
        self.validate()?;
        let first = bm25.search(query, cutoff, self.fb_docs, exclude_rank, scratch)?;
        let index = bm25.index();
        let n = index.num_docs() as f64;
        let mut document_terms = Vec::with_capacity(first.len());
        for hit in &first {
            let stored = index.stored_by_rank(hit.rank)?;
            let counts = counted(bm25, &crate::corpus::passage(&stored.title, &stored.text));
            let mut kept = Vec::with_capacity(counts.len());
            for (term, count) in counts {
                if is_feedback_term(&term) && bm25.doc_freq(&term)? as f64 / n <= MAX_DF_RATIO {
                    kept.push((term, count));
                }
            }
            document_terms.push(heaviest(kept, self.fb_terms));
        }
        let mut model: std::collections::HashMap<String, f64> = std::collections::HashMap::new();
        for (terms, hit) in document_terms.iter().zip(&first) {
            let norm: f64 = terms.iter().map(|(_, c)| c).sum();
            if norm <= MIN_NORM {
                continue;
            }
            for (term, count) in terms {
                *model.entry(term.clone()).or_default() += count / norm * f64::from(hit.score);
            }
        }
        let model = unit_sum(heaviest(model.into_iter().collect(), self.fb_terms));
        let original = unit_sum(counted(bm25, query));
        let w = self.original_weight;
        let mut expanded: Vec<(String, f64)> = original.iter().map(|(t, q)| (t.clone(), w * q)).collect();
        for (term, p) in &model {
            match expanded.iter_mut().find(|(t, _)| t == term) {
                Some((_, weight)) => *weight += (1.0 - w) * p,
                None => expanded.push((term.clone(), (1.0 - w) * p)),
            }
        }
        let query = heaviest(expanded, usize::MAX);
        Ok(Expansion { feedback: first.iter().map(|h| (h.rank, h.score)).collect(), document_terms, model, query })
    }

    /// The top `k` documents for `query` with RM3 under `cutoff` (steps 1–5), and the expansion.
    pub fn search(&self, bm25: &Bm25<'_>, query: &str, cutoff: &Cutoff, k: usize, exclude_rank: Option<u32>, scratch: &mut Scratch) -> Result<(Vec<Hit>, Expansion)> {
        let expansion = self.expand(bm25, query, cutoff, exclude_rank, scratch)?;
        let weighted: Vec<(String, f32)> = expansion.query.iter().map(|(t, w)| (t.clone(), *w as f32)).collect();
        let hits = bm25.search_weighted(&weighted, cutoff, k, exclude_rank, scratch)?;
        Ok((hits, expansion))
    }
}

/// `text`'s analysed terms with the times each occurs, in first-occurrence order.
fn counted(bm25: &Bm25<'_>, text: &str) -> Vec<(String, f64)> {
    let mut counts: std::collections::HashMap<String, f64> = std::collections::HashMap::new();
    let mut order: Vec<String> = Vec::new();
    bm25.analyzer().analyze(text, &mut |term| match counts.get_mut(term) {
        Some(count) => *count += 1.0,
        None => {
            counts.insert(term.to_string(), 1.0);
            order.push(term.to_string());
        }
    });
    order.into_iter().map(|t| {
        let count = counts[&t];
        (t, count)
    }).collect()
}

/// Anserini's shape rule for a feedback term: 2 to 20 characters, each in `[a-z0-9]`.
fn is_feedback_term(term: &str) -> bool {
    (MIN_TERM_CHARS..=MAX_TERM_CHARS).contains(&term.len()) && term.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// The `k` heaviest terms, heaviest first, ties to the term first in byte order: the one tie rule
/// of the expansion.
fn heaviest(mut terms: Vec<(String, f64)>, k: usize) -> Vec<(String, f64)> {
    terms.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    terms.truncate(k);
    terms
}

/// `terms` scaled to sum 1 (left as they are when they sum to 0).
fn unit_sum(terms: Vec<(String, f64)>) -> Vec<(String, f64)> {
    let sum: f64 = terms.iter().map(|(_, w)| w).sum();
    if sum <= 0.0 {
        return terms;
    }
    terms.into_iter().map(|(t, w)| (t, w / sum)).collect()
}
