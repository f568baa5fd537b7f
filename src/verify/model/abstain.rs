//! Abstention: `Not Enough Info` when the evidence does not bear on the claim, or the verifier is
//! unsure.
//!
//! **Signals** ([`signals`]) of a claim and the evidence texts read: whether there is any; the
//! share of the claim's word terms (the analyzer's, numbers aside) found in the best single text and
//! in all of them; the share of the claim's adjacent term pairs found adjacent in the best text;
//! the share of the claim's names (capitalised words not opening a sentence) found; the share of
//! the claim's quantities with a comparable quantity in the evidence ([`quantity::compare`]) and
//! with one within 10% of it; the share of the claim's years written in the evidence; and whether
//! the claim has quantities and years at all.
//!
//! **Relevance** ([`RelevanceModel`]): a logistic regression on the standardised signals, trained
//! to tell a claim's own evidence (what was retrieved or given for it) from evidence swapped in
//! from another claim ([`swap_evidence`]), so its probability reads "this evidence was found for
//! this claim". No evidence at all has relevance 0.
//!
//! **The rule** ([`AbstentionRule::decide`]): abstain when relevance < `min_relevance`
//! ([`Abstention::Evidence`]), else when the verdict's confidence < `min_confidence`
//! ([`Abstention::Confidence`]). Both thresholds are chosen on held-out folds
//! ([`choose_thresholds`]): the pair maximising 4-way macro-F1 over the held-out claims with their
//! own evidence (gold True/False/Conflicting) and the same claims with swapped evidence (gold Not
//! Enough Info), one of each per claim; ties go to the smaller thresholds (less abstention).

use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::analysis::quantity::{compare, quantities, Quantity, Unit};
use crate::verify::{score, Abstention, Label, VerifyExample};
use crate::analysis::Analyzer;

/// Signals per claim (module doc).
pub const SIGNALS: usize = 10;

/// The signals of a claim and its evidence.
pub type Signals = [f64; SIGNALS];

fn word_terms(analyzer: &Analyzer, text: &str) -> Vec<String> {
    analyzer.terms(text).into_iter().filter(|t| t.chars().any(char::is_alphabetic)).collect()
}

/// Term weights: inverse document frequencies over a set of texts, ln((n + 1) / (df + 1)) + 1
/// (scikit-learn's smoothed idf), so a claim's rare words count more than "says" or "percent". A
/// term seen in fewer than two texts is not stored and weighs as one seen once.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TermWeights {
    texts: u64,
    df: std::collections::BTreeMap<String, u32>,
}

impl TermWeights {
    /// The weights of `texts`' word terms.
    pub fn fit<'a>(texts: impl Iterator<Item = &'a str>, analyzer: &Analyzer) -> TermWeights {
        let mut df: std::collections::HashMap<String, u32> = std::collections::HashMap::new();
        let mut n = 0;
        for text in texts {
            n += 1;
            let mut terms = word_terms(analyzer, text);
            terms.sort();
            terms.dedup();
            for t in terms {
                *df.entry(t).or_default() += 1;
            }
        }
        TermWeights { texts: n, df: df.into_iter().filter(|&(_, d)| d >= 2).collect() }
    }

    /// The weight of `term`.
    pub fn weight(&self, term: &str) -> f64 {
        let df = self.df.get(term).copied().unwrap_or(1);
        ((self.texts as f64 + 1.0) / (f64::from(df) + 1.0)).ln() + 1.0
    }
}

/// The claim's names: capitalised words not opening a sentence, as terms.
fn names(analyzer: &Analyzer, claim: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut opening = true;
    for raw in claim.split_whitespace() {
        let word: String = raw.chars().filter(|c| c.is_alphanumeric()).collect();
        if !opening && word.chars().next().is_some_and(char::is_uppercase) && word != "I" {
            out.extend(word_terms(analyzer, &word));
        }
        opening = raw.ends_with(['.', '!', '?', ':', '"', '“']) || raw.starts_with(['"', '“']) && opening;
    }
    out.sort();
    out.dedup();
    out
}

/// The signals of `claim` and `evidence` (module doc), terms weighed by `weights`.
pub fn signals(claim: &str, evidence: &[String], weights: &TermWeights, analyzer: &Analyzer) -> Signals {
    use std::collections::HashSet;
    let evidence: Vec<&String> = evidence.iter().filter(|e| !e.trim().is_empty()).collect();
    if evidence.is_empty() {
        return [0.0; SIGNALS];
    }
    let share = |hits: usize, of: usize| if of == 0 { 0.0 } else { hits as f64 / of as f64 };
    let mut claim_terms = word_terms(analyzer, claim);
    let pairs: HashSet<(String, String)> = claim_terms.windows(2).map(|w| (w[0].clone(), w[1].clone())).collect();
    claim_terms.sort();
    claim_terms.dedup();
    let total: f64 = claim_terms.iter().map(|t| weights.weight(t)).sum();
    let passages: Vec<Vec<String>> = evidence.iter().map(|e| word_terms(analyzer, e)).collect();
    let sets: Vec<HashSet<&str>> = passages.iter().map(|p| p.iter().map(String::as_str).collect()).collect();
    let all: HashSet<&str> = sets.iter().flatten().copied().collect();
    let covered = |set: &HashSet<&str>| if total == 0.0 { 0.0 } else { claim_terms.iter().filter(|t| set.contains(t.as_str())).map(|t| weights.weight(t)).sum::<f64>() / total };
    let coverage: Vec<f64> = sets.iter().map(covered).collect();
    let coverage_best = coverage.iter().copied().fold(0.0, f64::max);
    let coverage_all = covered(&all);
    let pairs_best = passages
        .iter()
        .map(|p| {
            let present: HashSet<(&str, &str)> = p.windows(2).map(|w| (w[0].as_str(), w[1].as_str())).collect();
            share(pairs.iter().filter(|(a, b)| present.contains(&(a.as_str(), b.as_str()))).count(), pairs.len())
        })
        .fold(0.0, f64::max);
    let names = names(analyzer, claim);
    let names_found = if names.is_empty() { coverage_all } else { share(names.iter().filter(|n| all.contains(n.as_str())).count(), names.len()) };
    let claim_quantities: Vec<Quantity> = quantities(claim);
    let counted = claim_quantities.iter().filter(|q| q.unit != Unit::Year).count();
    // Per passage: the share of the claim's quantities it matches, times how much of the claim
    // it covers, so a number matched in a text about something else counts little.
    let (mut aligned, mut close) = (0.0f64, 0.0f64);
    let mut evidence_years: HashSet<i32> = HashSet::new();
    for (e, c) in evidence.iter().zip(&coverage) {
        let found = quantities(e);
        evidence_years.extend(found.iter().filter(|q| q.unit == Unit::Year).map(|q| q.value as i32));
        let matches = compare(&claim_quantities, std::slice::from_ref(&found));
        aligned = aligned.max(share(matches.len(), counted) * c);
        close = close.max(share(matches.iter().filter(|m| m.relative_difference.is_some_and(|d| d.abs() <= 0.1)).count(), counted) * c);
    }
    let years: Vec<i32> = claim_quantities.iter().filter(|q| q.unit == Unit::Year).map(|q| q.value as i32).collect();
    [
        1.0,
        coverage_best,
        coverage_all,
        pairs_best,
        names_found,
        aligned,
        close,
        f64::from(u8::from(counted > 0)),
        share(years.iter().filter(|y| evidence_years.contains(y)).count(), years.len()),
        f64::from(u8::from(!years.is_empty())),
    ]
}

/// Hard negatives, as a search over a corpus without the claim's own evidence would find them:
/// each claim with the `top` texts, among all the other claims' evidence, that cover the largest
/// weighted share of its word terms — leaving out the evidence of near-copies of the claim (claims
/// sharing 60% or more of its term weight), which would bring relevant texts; ties go to the text
/// seen first. A claim matching no text takes `fallback`'s evidence (a random swap).
pub fn retrieved_negatives(examples: &[VerifyExample], fallback: &[VerifyExample], weights: &TermWeights, analyzer: &Analyzer, top: usize) -> Vec<VerifyExample> {
    use rayon::prelude::*;
    use std::collections::HashMap;
    let distinct = |text: &str| {
        let mut t = word_terms(analyzer, text);
        t.sort();
        t.dedup();
        t
    };
    let claims: Vec<Vec<String>> = examples.par_iter().map(|e| distinct(&e.claim)).collect();
    // The texts, each once, with the claims that own them.
    let mut texts: Vec<&str> = Vec::new();
    let mut owners: Vec<Vec<u32>> = Vec::new();
    let mut position: HashMap<&str, usize> = HashMap::new();
    for (i, e) in examples.iter().enumerate() {
        for t in e.evidence.iter().take(top).filter(|t| !t.trim().is_empty()) {
            let at = *position.entry(t.as_str()).or_insert_with(|| {
                texts.push(t.as_str());
                owners.push(Vec::new());
                texts.len() - 1
            });
            owners[at].push(i as u32);
        }
    }
    let text_terms: Vec<Vec<String>> = texts.par_iter().map(|t| distinct(t)).collect();
    let mut postings: HashMap<&str, Vec<u32>> = HashMap::new();
    for (k, terms) in text_terms.iter().enumerate() {
        for term in terms {
            postings.entry(term.as_str()).or_default().push(k as u32);
        }
    }
    let mut claim_postings: HashMap<&str, Vec<u32>> = HashMap::new();
    for (i, terms) in claims.iter().enumerate() {
        for term in terms {
            claim_postings.entry(term.as_str()).or_default().push(i as u32);
        }
    }
    (0..examples.len())
        .into_par_iter()
        .map(|i| {
            let total: f64 = claims[i].iter().map(|t| weights.weight(t)).sum();
            let mut like: HashMap<u32, f64> = HashMap::new();
            let mut scores: HashMap<u32, f64> = HashMap::new();
            for term in &claims[i] {
                let w = weights.weight(term);
                claim_postings[term.as_str()].iter().for_each(|&j| *like.entry(j).or_default() += w);
                if let Some(list) = postings.get(term.as_str()) {
                    list.iter().for_each(|&k| *scores.entry(k).or_default() += w);
                }
            }
            let excluded = |j: u32| j as usize == i || like.get(&j).is_some_and(|&o| o >= 0.6 * total);
            let mut ranked: Vec<(u32, f64)> = scores.into_iter().filter(|&(k, _)| !owners[k as usize].iter().any(|&j| excluded(j))).collect();
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            let evidence: Vec<String> = ranked.iter().take(top).map(|&(k, _)| texts[k as usize].to_string()).collect();
            let evidence = if evidence.is_empty() { fallback[i].evidence.clone() } else { evidence };
            VerifyExample { evidence, ..examples[i].clone() }
        })
        .collect()
}

/// Logistic regression of "own evidence" on the standardised signals (module doc).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RelevanceModel {
    mean: Vec<f64>,
    scale: Vec<f64>,
    weights: Vec<f64>,
    bias: f64,
}

/// L2 penalty of [`RelevanceModel::fit`] (on the standardised weights, not the bias).
const L2: f64 = 1e-3;

fn sigmoid(z: f64) -> f64 {
    1.0 / (1.0 + (-z).exp())
}

impl RelevanceModel {
    /// Fits on `rows` with targets `own` by Newton's method (25 steps) on the mean log-loss plus
    /// [`L2`] · ‖w‖² / 2.
    pub fn fit(rows: &[Signals], own: &[bool]) -> RelevanceModel {
        let n = rows.len().max(1) as f64;
        let d = SIGNALS;
        let mean: Vec<f64> = (0..d).map(|j| rows.iter().map(|r| r[j]).sum::<f64>() / n).collect();
        let scale: Vec<f64> = (0..d).map(|j| (rows.iter().map(|r| (r[j] - mean[j]).powi(2)).sum::<f64>() / n).sqrt()).map(|s| if s > 1e-9 { s } else { 1.0 }).collect();
        let x: Vec<Vec<f64>> = rows.iter().map(|r| (0..d).map(|j| (r[j] - mean[j]) / scale[j]).chain([1.0]).collect()).collect();
        let mut w = vec![0.0; d + 1];
        for _ in 0..25 {
            let mut grad = vec![0.0; d + 1];
            let mut hess = vec![vec![0.0; d + 1]; d + 1];
            for (xi, &yi) in x.iter().zip(own) {
                let p = sigmoid(xi.iter().zip(&w).map(|(a, b)| a * b).sum());
                let r = p - f64::from(u8::from(yi));
                for a in 0..=d {
                    grad[a] += r * xi[a] / n;
                    for b in 0..=d {
                        hess[a][b] += p * (1.0 - p) * xi[a] * xi[b] / n;
                    }
                }
            }
            for a in 0..d {
                grad[a] += L2 * w[a];
                hess[a][a] += L2;
            }
            hess[d][d] += 1e-9;
            let step = solve(hess, grad);
            w.iter_mut().zip(&step).for_each(|(w, s)| *w -= s);
        }
        let bias = w.pop().expect("a bias");
        RelevanceModel { mean, scale, weights: w, bias }
    }

    /// The probability that `s` are the signals of a claim's own evidence; 0 without evidence.
    pub fn probability(&self, s: &Signals) -> f64 {
        if s[0] == 0.0 {
            return 0.0;
        }
        sigmoid(self.bias + s.iter().zip(self.mean.iter().zip(self.scale.iter().zip(&self.weights))).map(|(x, (m, (sc, w)))| (x - m) / sc * w).sum::<f64>())
    }
}

/// Solves `a · x = b` by Gaussian elimination with partial pivoting (a is small and positive
/// definite here).
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs())).expect("a row");
        a.swap(col, pivot);
        b.swap(col, pivot);
        let p = a[col][col];
        if p.abs() < 1e-15 {
            continue;
        }
        let (above, below) = a.split_at_mut(col + 1);
        let pivot_row = &above[col];
        for (offset, row) in below.iter_mut().enumerate() {
            let f = row[col] / p;
            for (x, pivot) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *x -= f * pivot;
            }
            b[col + 1 + offset] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|k| a[row][k] * x[k]).sum();
        x[row] = if a[row][row].abs() < 1e-15 { 0.0 } else { (b[row] - s) / a[row][row] };
    }
    x
}

/// The abstention rule (module doc), with what it was fitted on.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AbstentionRule {
    /// The term weights of the signals.
    pub weights: TermWeights,
    /// The relevance model.
    pub relevance: RelevanceModel,
    /// Abstain below this relevance.
    pub min_relevance: f64,
    /// Abstain below this confidence.
    pub min_confidence: f64,
    /// Claims the thresholds were chosen on.
    pub claims: usize,
    /// The held-out 4-way macro-F1 at the chosen thresholds.
    pub macro_f1: f64,
}

impl AbstentionRule {
    /// The relevance of `evidence` to `claim`.
    pub fn relevance_of(&self, claim: &str, evidence: &[String], analyzer: &Analyzer) -> f64 {
        self.relevance.probability(&signals(claim, evidence, &self.weights, analyzer))
    }

    /// Whether (and why) to withhold a verdict of `confidence` given evidence of `relevance`.
    pub fn decide(&self, relevance: f64, confidence: f64) -> Option<Abstention> {
        if relevance < self.min_relevance {
            Some(Abstention::Evidence)
        } else if confidence < self.min_confidence {
            Some(Abstention::Confidence)
        } else {
            None
        }
    }

    /// Reads `path` (an `abstention.json` given on its own, outside a verifier's folder).
    pub fn load(path: &std::path::Path) -> crate::Result<AbstentionRule> {
        Self::parse(path, &crate::io::read_utf8(path)?)
    }

    /// The rule written in `text`, read from `path`.
    pub fn parse(path: &std::path::Path, text: &str) -> crate::Result<AbstentionRule> {
        serde_json::from_str(text).map_err(|e| crate::io::json_error(path, crate::error::Position { line: 1, column: Some(1) }, &e))
    }
}

/// One held-out verdict: its gold label, the verifier's verdict and confidence, the evidence's
/// relevance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HeldOut {
    /// The gold label (Not Enough Info for swapped evidence).
    pub gold: Label,
    /// The verdict.
    pub verdict: Label,
    /// Its confidence.
    pub confidence: f64,
    /// The evidence's relevance.
    pub relevance: f64,
}

/// The thresholds `(min_relevance, min_confidence, macro-F1)` maximising 4-way macro-F1 over
/// `held_out` (module doc): relevance thresholds at 0 and every 1% quantile of the relevances
/// seen, confidence thresholds at 0 and 0.34 to 0.80 in steps of 0.02.
pub fn choose_thresholds(held_out: &[HeldOut]) -> (f64, f64, f64) {
    let mut relevances: Vec<f64> = held_out.iter().map(|h| h.relevance).collect();
    relevances.sort_by(f64::total_cmp);
    let mut candidates: Vec<f64> = std::iter::once(0.0).chain((1..100).map(|q| relevances.get(q * relevances.len() / 100).copied().unwrap_or(0.0))).collect();
    candidates.dedup();
    let confidences: Vec<f64> = std::iter::once(0.0).chain((17..=40).map(|k| k as f64 * 0.02)).collect();
    let mut best = (0.0, 0.0, f64::NEG_INFINITY);
    for &r in &candidates {
        for &c in &confidences {
            let pairs: Vec<(Label, Label)> = held_out.iter().map(|h| (h.gold, if h.relevance < r || h.confidence < c { Label::NotEnoughInfo } else { h.verdict })).collect();
            let f1 = score(&pairs).macro_f1;
            if f1 > best.2 + 1e-12 {
                best = (r, c, f1);
            }
        }
    }
    best
}

/// `examples` with each claim's evidence swapped for another's: the claims in a seeded random
/// cycle, each taking the next one's evidence (so none keeps its own, given two or more).
pub fn swap_evidence(examples: &[VerifyExample], seed: u64) -> Vec<VerifyExample> {
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for i in (1..order.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    let mut out = examples.to_vec();
    for k in 0..order.len() {
        let (to, from) = (order[k], order[(k + 1) % order.len()]);
        out[to].evidence = examples[from].evidence.clone();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_evidence_has_more_signal_than_another_claims() {
        let a = Analyzer::default();
        let texts = ["Says unemployment is about 10 percent.", "Says Florida's economy grew 3 percent.", "Florida's economy, a report says, is about tourism."];
        let w = TermWeights::fit(texts.into_iter(), &a);
        assert!(w.weight("florida") > w.weight("say") && w.weight("militari") > w.weight("florida"));
        let claim = "Says the military accounts for about 10 percent of Florida's economy in 2019.";
        let own = signals(claim, &["The military and defense sector accounts for 10.2 percent of Florida's economy, a 2019 report found.".into()], &w, &a);
        let other = signals(claim, &["A plane crashed in Myanmar, killing 12 people.".into()], &w, &a);
        assert_eq!((own[0], own[7], own[9]), (1.0, 1.0, 1.0));
        assert!(own[1] > 0.5 && other[1] < 0.1, "{own:?} {other:?}");
        assert!(own[5] > 0.5 && own[6] > 0.5 && own[8] == 1.0, "{own:?}");
        assert_eq!((other[5], other[8]), (0.0, 0.0));
        assert_eq!(signals(claim, &[" ".into()], &w, &a), [0.0; SIGNALS]);
        // The page's example: each text shares a word or a number with the claim, none is about it.
        let scattered = ["A military plane crashed in Myanmar.", "A ship lost near Florida turned up.", "Unemployment was 10 percent in 2010."].map(String::from);
        let scattered = signals(claim, &scattered, &w, &a);
        assert!(scattered[1] < 0.5 * own[1] && scattered[5] < 0.5 * own[5], "{scattered:?} against {own:?}");
    }

    #[test]
    fn relevance_separates_and_thresholds_abstain() {
        let rows: Vec<Signals> = (0..200).map(|i| {
            let own = i % 2 == 0;
            let x = if own { 0.6 + (i % 7) as f64 * 0.05 } else { 0.1 + (i % 5) as f64 * 0.05 };
            [1.0, x, x, x / 2.0, x, 0.0, 0.0, 0.0, 0.0, 0.0]
        }).collect();
        let own: Vec<bool> = (0..200).map(|i| i % 2 == 0).collect();
        let model = RelevanceModel::fit(&rows, &own);
        assert!(model.probability(&rows[0]) > 0.9 && model.probability(&rows[1]) < 0.1);
        assert_eq!(model.probability(&[0.0; SIGNALS]), 0.0);
        let held: Vec<HeldOut> = rows.iter().zip(&own).map(|(r, &o)| HeldOut { gold: if o { Label::True } else { Label::NotEnoughInfo }, verdict: Label::True, confidence: 0.9, relevance: model.probability(r) }).collect();
        let (r, c, f1) = choose_thresholds(&held);
        assert!(c == 0.0 && f1 == 1.0, "{r} {c} {f1}");
        assert!(held.iter().all(|h| (h.relevance >= r) == (h.gold == Label::True)), "{r}");
        let rule = AbstentionRule { weights: TermWeights::fit(std::iter::empty(), &Analyzer::default()), relevance: model, min_relevance: r, min_confidence: 0.4, claims: 200, macro_f1: f1 };
        assert_eq!(rule.decide(0.0, 0.9), Some(Abstention::Evidence));
        assert_eq!(rule.decide(1.0, 0.3), Some(Abstention::Confidence));
        assert_eq!(rule.decide(1.0, 0.9), None);
    }

    #[test]
    fn swapping_leaves_no_claim_its_own_evidence() {
        let examples: Vec<VerifyExample> = (0..50).map(|i| VerifyExample::new(i.to_string(), format!("claim {i}"), vec![format!("evidence {i}")], None)).collect();
        let swapped = swap_evidence(&examples, 7);
        assert!(swapped.iter().zip(&examples).all(|(s, e)| s.evidence != e.evidence && s.claim == e.claim));
        let mut seen: Vec<&String> = swapped.iter().flat_map(|s| &s.evidence).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), 50);
    }
}
