//! Filtering sub-queries: drop fact-checking mentions, then Maximal Marginal Relevance.
//!
//! MMR (Carbonell & Goldstein 1998), as the QuanTemp++ pipeline applies it to generated queries
//! (`src/data_pipe/relevance/relevance.py`): the first pick is the sub-query most similar to the
//! claim; each next pick maximises
//!
//! ```text
//! mmr(q) = β · sim(q, claim) − (1 − β) · max_{s ∈ picked} sim(q, s)
//! ```
//!
//! and its score is that maximum (the first pick's score is its similarity to the claim). The
//! scores of all picks are min-max normalised, and the picks whose normalised score is ≥
//! `threshold` are kept, in pick order. With β = 0.8, threshold = 0.5 (the QuanTemp++ QGen
//! setting) relevance to the claim dominates and near-duplicates fall out. A sub-query that *is*
//! the claim is always kept and takes no part in the selection. When the scores are all equal
//! (one candidate, say) every pick is kept.
//!
//! `sim` is lexical by default: the cosine of the two texts' term-frequency vectors under
//! quantir's analyzer, so "3%" and "3 percent" agree and stopwords do not count. With
//! [`MmrSimilarity::Dense`] it is the cosine of the dense encoder's vectors, which also sees
//! paraphrases ([`mmr_filter_dense`]).

use std::collections::HashMap;

use super::{Origin, SubQuery};
use crate::analysis::Analyzer;
use crate::error::Result;
use crate::index::dense::{Encoder, TextKind};

/// Which similarity MMR uses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MmrSimilarity {
    /// Cosine of analysed term frequencies.
    #[default]
    Lexical,
    /// Cosine of the dense encoder's vectors.
    Dense,
}

/// MMR's settings.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct MmrConfig {
    /// β: weight of relevance to the claim against redundancy.
    pub beta: f64,
    /// Keep picks whose min-max normalised MMR score is at least this.
    pub threshold: f64,
    /// The similarity.
    pub similarity: MmrSimilarity,
}

impl MmrConfig {
    /// β = 0.8, threshold 0.5: the QuanTemp++ QGen setting; lexical similarity.
    pub const DEFAULT: MmrConfig = MmrConfig { beta: 0.8, threshold: 0.5, similarity: MmrSimilarity::Lexical };

    /// MMR as the flags ask for it (`--mmr` with `--mmr-beta`, `--mmr-threshold` and
    /// `--mmr-similarity`, or Python's and the API's `mmr=`): `None` when it is off. The one place
    /// the switch and the three values become a setting, for the CLI's planner flags and a run's
    /// settings alike.
    pub fn switched(on: bool, beta: f64, threshold: f64, similarity: MmrSimilarity) -> Option<MmrConfig> {
        on.then_some(MmrConfig { beta, threshold, similarity })
    }

    /// Whether this MMR needs the query encoder (similarity by the encoder's cosine).
    pub fn needs_encoder(&self) -> bool {
        self.similarity == MmrSimilarity::Dense
    }
}

impl Default for MmrConfig {
    fn default() -> Self {
        MmrConfig::DEFAULT
    }
}

/// Phrases that mark a query as asking about fact-checks rather than facts (the QuanTemp++
/// pipeline's list, plus spelling variants).
const FACT_CHECK_PHRASES: [&str; 7] = ["fact-check", "fact check", "factcheck", "politifact", "veracity", "in the claim", "snopes"];

/// Whether `query` mentions fact-checking.
pub fn mentions_fact_checking(query: &str) -> bool {
    let lower = query.to_lowercase();
    FACT_CHECK_PHRASES.iter().any(|p| lower.contains(p))
}

/// Cosine similarity of the analysed term-frequency vectors of `a` and `b` (0 when either is empty).
pub fn lexical_similarity(a: &str, b: &str) -> f64 {
    let analyzer = Analyzer::default();
    cosine(&tf(&analyzer, a), &tf(&analyzer, b))
}

fn tf(analyzer: &Analyzer, text: &str) -> HashMap<String, f64> {
    let mut v = HashMap::new();
    analyzer.analyze(text, &mut |t| *v.entry(t.to_string()).or_insert(0.0) += 1.0);
    v
}

fn cosine(a: &HashMap<String, f64>, b: &HashMap<String, f64>) -> f64 {
    let dot: f64 = a.iter().filter_map(|(t, x)| b.get(t).map(|y| x * y)).sum();
    let norm = |v: &HashMap<String, f64>| v.values().map(|x| x * x).sum::<f64>().sqrt();
    let d = norm(a) * norm(b);
    if d == 0.0 {
        0.0
    } else {
        dot / d
    }
}

/// Applies MMR (module doc) to `subqueries` of `claim`, with lexical similarity.
pub fn mmr_filter(claim: &str, subqueries: Vec<SubQuery>, config: &MmrConfig) -> Vec<SubQuery> {
    let analyzer = Analyzer::default();
    let claim_v = tf(&analyzer, claim);
    select(claim, subqueries, config, |candidates| {
        let vectors: Vec<HashMap<String, f64>> = candidates.iter().map(|q| tf(&analyzer, &q.text)).collect();
        let to_claim = vectors.iter().map(|v| cosine(v, &claim_v)).collect();
        let pairwise = vectors.iter().map(|a| vectors.iter().map(|b| cosine(a, b)).collect()).collect();
        Ok((to_claim, pairwise))
    })
    .expect("lexical similarity cannot fail")
}

/// Applies MMR (module doc) with the dense encoder's cosine similarity.
pub fn mmr_filter_dense(claim: &str, subqueries: Vec<SubQuery>, config: &MmrConfig, encoder: &Encoder) -> Result<Vec<SubQuery>> {
    select(claim, subqueries, config, |candidates| {
        let mut texts: Vec<&str> = vec![claim];
        texts.extend(candidates.iter().map(|q| q.text.as_str()));
        let (flat, dim) = encoder.encode(&texts, TextKind::Query)?;
        let rows: Vec<&[f32]> = flat.chunks(dim.max(1)).collect();
        let dot = |a: &[f32], b: &[f32]| -> f64 { a.iter().zip(b).map(|(x, y)| f64::from(*x) * f64::from(*y)).sum() };
        let to_claim = rows[1..].iter().map(|r| dot(r, rows[0])).collect();
        let pairwise = rows[1..].iter().map(|a| rows[1..].iter().map(|b| dot(a, b)).collect()).collect();
        Ok((to_claim, pairwise))
    })
}

/// The MMR selection over the candidates' similarities to the claim and to each other.
fn select(claim: &str, subqueries: Vec<SubQuery>, config: &MmrConfig, similarities: impl FnOnce(&[SubQuery]) -> Result<(Vec<f64>, Vec<Vec<f64>>)>) -> Result<Vec<SubQuery>> {
    let (fixed, candidates): (Vec<SubQuery>, Vec<SubQuery>) = subqueries.into_iter().partition(|q| q.origin == Origin::Claim || q.text == claim);
    if candidates.len() <= 1 {
        return Ok(fixed.into_iter().chain(candidates).collect());
    }
    let (to_claim, pairwise) = similarities(&candidates)?;
    let mut picked: Vec<(usize, f64)> = Vec::new();
    let mut left: Vec<usize> = (0..candidates.len()).collect();
    while !left.is_empty() {
        let score = |i: usize| -> f64 {
            if picked.is_empty() {
                to_claim[i]
            } else {
                let redundancy = picked.iter().map(|&(p, _)| pairwise[i][p]).fold(f64::NEG_INFINITY, f64::max);
                config.beta * to_claim[i] - (1.0 - config.beta) * redundancy
            }
        };
        // Ties go to the earlier candidate, so the planner's order decides.
        let (pos, best) = left.iter().enumerate().map(|(pos, &i)| (pos, score(i))).fold((0, f64::NEG_INFINITY), |acc, x| if x.1 > acc.1 { x } else { acc });
        picked.push((left.remove(pos), best));
    }
    let min = picked.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let max = picked.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    let keep: Vec<usize> = picked.iter().filter(|(_, s)| max == min || (s - min) / (max - min) >= config.threshold).map(|(i, _)| *i).collect();
    let mut candidates: Vec<Option<SubQuery>> = candidates.into_iter().map(Some).collect();
    Ok(fixed.into_iter().chain(keep.into_iter().filter_map(|i| candidates[i].take())).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(t: &str) -> SubQuery {
        SubQuery::new(t, Origin::Llm)
    }

    #[test]
    fn duplicates_and_off_topic_queries_fall_out() {
        let claim = "Florida's military accounts for about 10 percent of the state economy";
        let kept = mmr_filter(
            claim,
            vec![q("military share of Florida economy percent"), q("military share of the Florida economy in percent"), q("best beaches in Spain"), q("Florida defense spending 10%")],
            &MmrConfig::default(),
        );
        let texts: Vec<&str> = kept.iter().map(|q| q.text.as_str()).collect();
        assert_eq!(texts[0], "military share of Florida economy percent");
        assert!(!texts.contains(&"best beaches in Spain"), "{texts:?}");
        assert!(!texts.contains(&"military share of the Florida economy in percent"), "a near-duplicate of the first pick: {texts:?}");
    }

    #[test]
    fn the_claim_is_always_kept() {
        let kept = mmr_filter("x rose 3%", vec![SubQuery::new("x rose 3%", Origin::Claim), q("y")], &MmrConfig::default());
        assert_eq!(kept.len(), 2);
    }

    #[test]
    fn similarity_sees_numbers_through_the_analyzer() {
        assert!((lexical_similarity("3% inflation", "inflation of 3 percent") - 1.0).abs() < 1e-12);
        assert_eq!(lexical_similarity("", "x"), 0.0);
        assert!(mentions_fact_checking("Has PolitiFact rated it?"));
    }
}
