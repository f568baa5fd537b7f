//! Pseudo-relevance feedback that respects the cutoff: RM3 and Rocchio as Anserini defines them
//! (`Rm3Reranker`: fbDocs 10, fbTerms 10, original query weight 0.5; `RocchioReranker`: top 10
//! documents, 10 terms, α 1, β 0.75, no negative feedback), over quantir's own analyser and
//! statistics.
//!
//! Both start the same way:
//! 1. The first pass: BM25's top `fb_docs` for the query **under the claim's cutoff**, so a
//!    feedback document is one the claim may see (dated strictly before it) and no later
//!    evidence leaks into the expansion.
//! 2. Each feedback document's terms (its passage analysed as the index analysed it) with their
//!    frequencies, keeping only terms of 2 to 20 characters held by at most 10% of the live
//!    documents (RM3 also only terms of `[a-z0-9]`).
//!
//! **RM3** then keeps each document's `fb_terms` most frequent terms; each term weighs
//! Σ_d tf_d(t) / |d|₁ · score_d over the feedback documents (a document with |d|₁ ≤ 0.001 adds
//! nothing); the `fb_terms` heaviest are kept and scaled to sum 1 (the relevance model); the
//! query's own terms, counted and scaled to sum 1, are interpolated:
//! w · query + (1 − w) · model.
//!
//! **Rocchio** takes each term's mean of tf_d(t) / |d|₂ over the feedback documents (every
//! document counted in the mean; one with |d|₂ ≤ 0.001 adds nothing), keeps the `fb_terms`
//! heaviest and scales them to unit L2 norm; the query's counted terms scaled to unit L2 norm
//! are combined: α · query + β · mean, terms with a positive weight kept.
//!
//! The expanded query's weighted terms are searched under the same cutoff
//! ([`Bm25::search_weighted`]). Ties when keeping the top terms go to the term first in byte
//! order (Anserini leaves them to a hash map's order). Weights are computed in f64 and searched
//! as f32.

use super::bm25::{Bm25, Hit, Scratch};
use super::cutoff::Cutoff;
use std::collections::HashMap;

use crate::error::{Error, Result};

/// A feedback method and its parameters.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "method", rename_all = "lowercase")]
pub enum Feedback {
    /// RM3 (module doc).
    Rm3(Rm3),
    /// Rocchio (module doc).
    Rocchio(Rocchio),
}

/// Rocchio's parameters, Anserini's defaults.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Rocchio {
    /// Feedback documents: the first pass's top this many.
    pub fb_docs: usize,
    /// Terms kept in the documents' mean.
    pub fb_terms: usize,
    /// The original query's weight, at least 0.
    pub alpha: f64,
    /// The feedback documents' mean's weight, at least 0.
    pub beta: f64,
}

impl Rocchio {
    /// Anserini's defaults.
    pub const DEFAULT: Rocchio = Rocchio { fb_docs: 10, fb_terms: 10, alpha: 1.0, beta: 0.75 };
}

impl Default for Rocchio {
    fn default() -> Self {
        Rocchio::DEFAULT
    }
}

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

impl Rm3 {
    /// Anserini's defaults.
    pub const DEFAULT: Rm3 = Rm3 { fb_docs: 10, fb_terms: 10, original_weight: 0.5 };
}

impl Default for Rm3 {
    fn default() -> Self {
        Rm3::DEFAULT
    }
}

/// A feedback term is at least this many characters long …
const MIN_TERM_CHARS: usize = 2;
/// … and at most this many.
const MAX_TERM_CHARS: usize = 20;
/// A term held by more than this share of the live documents is not a feedback term.
const MAX_DF_RATIO: f64 = 0.1;
/// A feedback document whose norm (RM3: L1, Rocchio: L2) is at most this adds nothing.
const MIN_NORM: f64 = 0.001;

/// What the expansion read and made: the feedback documents (id ranks, first-pass scores),
/// each one's kept terms, and the expanded query.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Expansion {
    /// The feedback documents: (id rank, first-pass score), best first.
    pub feedback: Vec<(u32, f32)>,
    /// Each feedback document's kept terms with their frequencies (RM3: its `fb_terms` most
    /// frequent), heaviest first.
    pub document_terms: Vec<Vec<(String, f64)>>,
    /// RM3's relevance model (summing to 1) or Rocchio's mean (unit L2 norm), heaviest first.
    pub model: Vec<(String, f64)>,
    /// The expanded query, heaviest first (ties by term).
    pub query: Vec<(String, f64)>,
}

impl Feedback {
    /// The feedback documents taken and the terms kept from each.
    fn feedback_docs(&self) -> usize {
        match self {
            Feedback::Rm3(p) => p.fb_docs,
            Feedback::Rocchio(p) => p.fb_docs,
        }
    }

    /// Checks the parameters.
    pub fn validate(&self) -> Result<()> {
        let (name, ok, found) = match self {
            Feedback::Rm3(p) => ("feedback", p.fb_docs > 0 && p.fb_terms > 0 && (0.0..=1.0).contains(&p.original_weight), format!("fb_docs {} fb_terms {} original weight {}", p.fb_docs, p.fb_terms, p.original_weight)),
            Feedback::Rocchio(p) => ("feedback", p.fb_docs > 0 && p.fb_terms > 0 && p.alpha >= 0.0 && p.beta >= 0.0, format!("fb_docs {} fb_terms {} alpha {} beta {}", p.fb_docs, p.fb_terms, p.alpha, p.beta)),
        };
        if !ok {
            return Err(Error::InvalidArgument { name, message: format!("expected at least 1 feedback document and term and weights in range (RM3's original weight in [0, 1], Rocchio's alpha and beta at least 0), found {found}") });
        }
        Ok(())
    }

    /// The expanded query for `query` under `cutoff` (module doc).
    pub fn expand(&self, bm25: &Bm25<'_>, query: &str, cutoff: &Cutoff, exclude_rank: Option<u32>, scratch: &mut Scratch) -> Result<Expansion> {
        self.validate()?;
        let first = bm25.search(query, cutoff, self.feedback_docs(), exclude_rank, scratch)?;
        let index = bm25.index();
        let n = index.num_docs() as f64;
        let mut document_terms = Vec::with_capacity(first.len());
        for hit in &first {
            let stored = index.stored_by_rank(hit.rank)?;
            let mut kept = Vec::new();
            for (term, count) in counted(bm25, &crate::corpus::passage(&stored.title, &stored.text)) {
                if self.is_feedback_term(&term) && bm25.doc_freq(&term)? as f64 / n <= MAX_DF_RATIO {
                    kept.push((term, count));
                }
            }
            document_terms.push(match self {
                Feedback::Rm3(p) => heaviest(kept, p.fb_terms),
                Feedback::Rocchio(_) => heaviest(kept, usize::MAX),
            });
        }
        let original = counted(bm25, query);
        let mut model: HashMap<String, f64> = HashMap::new();
        let (model, query) = match self {
            Feedback::Rm3(p) => {
                for (terms, hit) in document_terms.iter().zip(&first) {
                    let norm: f64 = terms.iter().map(|(_, c)| c).sum();
                    if norm <= MIN_NORM {
                        continue;
                    }
                    for (term, count) in terms {
                        *model.entry(term.clone()).or_default() += count / norm * f64::from(hit.score);
                    }
                }
                let model = scaled(heaviest(model.into_iter().collect(), p.fb_terms), l1);
                let query = combined(&scaled(original, l1), p.original_weight, &model, 1.0 - p.original_weight);
                (model, query)
            }
            Feedback::Rocchio(p) => {
                for terms in &document_terms {
                    let norm = l2(terms);
                    if norm <= MIN_NORM {
                        continue;
                    }
                    for (term, count) in terms {
                        *model.entry(term.clone()).or_default() += count / norm;
                    }
                }
                let docs = document_terms.len().max(1) as f64;
                let mean = model.into_iter().map(|(t, w)| (t, w / docs)).collect();
                let model = scaled(heaviest(mean, p.fb_terms), l2);
                let query = combined(&scaled(original, l2), p.alpha, &model, p.beta);
                (model, query)
            }
        };
        Ok(Expansion { feedback: first.iter().map(|h| (h.rank, h.score)).collect(), document_terms, model, query })
    }

    /// The top `k` documents for `query` with feedback under `cutoff`, and the expansion.
    pub fn search(&self, bm25: &Bm25<'_>, query: &str, cutoff: &Cutoff, k: usize, exclude_rank: Option<u32>, scratch: &mut Scratch) -> Result<(Vec<Hit>, Expansion)> {
        let expansion = self.expand(bm25, query, cutoff, exclude_rank, scratch)?;
        let weighted: Vec<(String, f32)> = expansion.query.iter().map(|(t, w)| (t.clone(), *w as f32)).collect();
        let hits = bm25.search_weighted(&weighted, cutoff, k, exclude_rank, scratch)?;
        Ok((hits, expansion))
    }

    /// Anserini's shape rule for a feedback term: 2 to 20 characters (UTF-16 units, as Java
    /// counts), and for RM3 each in `[a-z0-9]`.
    fn is_feedback_term(&self, term: &str) -> bool {
        let length = term.encode_utf16().count();
        (MIN_TERM_CHARS..=MAX_TERM_CHARS).contains(&length) && (matches!(self, Feedback::Rocchio(_)) || term.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
    }
}

/// w_a · a + w_b · b over both vocabularies, terms with a positive weight, heaviest first.
fn combined(a: &[(String, f64)], w_a: f64, b: &[(String, f64)], w_b: f64) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = a.iter().map(|(t, v)| (t.clone(), w_a * v)).collect();
    for (term, v) in b {
        match out.iter_mut().find(|(t, _)| t == term) {
            Some((_, weight)) => *weight += w_b * v,
            None => out.push((term.clone(), w_b * v)),
        }
    }
    out.retain(|(_, w)| *w > 0.0);
    heaviest(out, usize::MAX)
}

/// The sum of the weights (all positive here: L1).
fn l1(terms: &[(String, f64)]) -> f64 {
    terms.iter().map(|(_, w)| w.abs()).sum()
}

/// The L2 norm of the weights.
fn l2(terms: &[(String, f64)]) -> f64 {
    terms.iter().map(|(_, w)| w * w).sum::<f64>().sqrt()
}

/// `terms` divided by `norm` of them (left as they are when it is 0).
fn scaled(terms: Vec<(String, f64)>, norm: fn(&[(String, f64)]) -> f64) -> Vec<(String, f64)> {
    let n = norm(&terms);
    if n <= 0.0 {
        return terms;
    }
    terms.into_iter().map(|(t, w)| (t, w / n)).collect()
}

/// `text`'s analysed terms with the times each occurs, in first-occurrence order.
fn counted(bm25: &Bm25<'_>, text: &str) -> Vec<(String, f64)> {
    let mut counts: HashMap<String, f64> = HashMap::new();
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

/// The `k` heaviest terms, heaviest first, ties to the term first in byte order: the one tie rule
/// of the expansion.
fn heaviest(mut terms: Vec<(String, f64)>, k: usize) -> Vec<(String, f64)> {
    terms.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    terms.truncate(k);
    terms
}
