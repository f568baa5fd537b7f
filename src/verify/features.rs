//! Features of a claim and its evidence for the trained verifier.
//!
//! Dense (from the encoder, L2-normalised): the claim vector c, the mean evidence vector e, their
//! product c⊙e and distance |c − e|, and the largest and mean cosine between the claim and one
//! evidence text. Numeric consistency ([`NUMERIC`] values), from the analyzer's number reading
//! (`1,200` = `1200`):
//!
//! 1. log(1 + numbers in the claim); 2. log(1 + numbers in the evidence);
//! 3. share of the claim's numbers found in the evidence as written;
//! 4. mean over the claim's numbers of the relative error to the nearest evidence number,
//!    |x − y| / max(|x|, |y|), capped at 1 (1 when the evidence has none);
//! 5. share of the claim's years (1800–2099) found in the evidence;
//! 6. the claim speaks of percent and so does the evidence; 7. the claim does and the evidence
//!    does not (unit disagreement); 8. share of the claim's analysed terms found in the evidence.
//!
//! Lexical cues: the claim's lowercased word unigrams and bigrams, hashed into [`HASHED`] buckets
//! (FxHash), L2-normalised — the wording of a claim ("Photo shows …", "Says …") carries much of
//! its verdict, and a frozen sentence encoder blurs it.
//!
//! The claim-only ablation keeps c, feature 1 and the lexical cues.

use std::collections::HashSet;

use crate::analysis::{number_spans, Analyzer};

/// Numeric-consistency features per example.
pub const NUMERIC: usize = 8;

/// Buckets of the hashed claim n-grams.
pub const HASHED: usize = 4096;

/// The claim's hashed word unigrams and bigrams (module doc).
pub fn hashed_ngrams(text: &str) -> Vec<f32> {
    use std::hash::{Hash, Hasher};
    let words: Vec<String> = text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()).map(str::to_lowercase).collect();
    let mut v = vec![0f32; HASHED];
    let mut add = |parts: &[&str]| {
        let mut h = rustc_hash::FxHasher::default();
        parts.hash(&mut h);
        v[(h.finish() % HASHED as u64) as usize] = 1.0;
    };
    for (i, w) in words.iter().enumerate() {
        add(&[w]);
        if let Some(next) = words.get(i + 1) {
            add(&[w, next]);
        }
    }
    let norm = v.iter().sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
    v
}

fn numbers(text: &str) -> Vec<(String, f64)> {
    number_spans(text).into_iter().filter_map(|s| s.value.parse::<f64>().ok().map(|v| (s.value, v))).collect()
}

fn mentions_percent(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower.contains('%') || lower.contains("percent") || lower.contains("per cent")
}

/// The numeric-consistency features (module doc).
pub fn numeric(claim: &str, evidence: &[String], analyzer: &Analyzer) -> [f32; NUMERIC] {
    let joined = evidence.join(" \n ");
    let claim_numbers = numbers(claim);
    let evidence_numbers = numbers(&joined);
    let evidence_values: HashSet<&str> = evidence_numbers.iter().map(|(s, _)| s.as_str()).collect();
    let share = |hits: usize, of: usize| if of == 0 { 0.0 } else { hits as f32 / of as f32 };
    let found = claim_numbers.iter().filter(|(s, _)| evidence_values.contains(s.as_str())).count();
    let error = if evidence_numbers.is_empty() || claim_numbers.is_empty() {
        1.0
    } else {
        let e: f64 = claim_numbers
            .iter()
            .map(|(_, x)| evidence_numbers.iter().map(|(_, y)| ((x - y).abs() / x.abs().max(y.abs()).max(1e-9)).min(1.0)).fold(1.0, f64::min))
            .sum::<f64>()
            / claim_numbers.len() as f64;
        e as f32
    };
    let years: Vec<&str> = claim_numbers.iter().filter(|(s, v)| s.len() == 4 && (1800.0..2100.0).contains(v)).map(|(s, _)| s.as_str()).collect();
    let years_found = years.iter().filter(|y| evidence_values.contains(**y)).count();
    let (cp, ep) = (mentions_percent(claim), mentions_percent(&joined));
    let claim_terms: HashSet<String> = analyzer.terms(claim).into_iter().collect();
    let evidence_terms: HashSet<String> = analyzer.terms(&joined).into_iter().collect();
    let overlap = claim_terms.iter().filter(|t| evidence_terms.contains(*t)).count();
    [
        (1.0 + claim_numbers.len() as f32).ln(),
        (1.0 + evidence_numbers.len() as f32).ln(),
        share(found, claim_numbers.len()),
        error,
        share(years_found, years.len()),
        f32::from(u8::from(cp && ep)),
        f32::from(u8::from(cp && !ep)),
        share(overlap, claim_terms.len()),
    ]
}

/// The whole feature vector for one example: `claim` (dim), `evidence` vectors (n × dim).
pub fn features(claim: &str, claim_vec: &[f32], evidence_vecs: &[&[f32]], numeric: &[f32; NUMERIC], with_evidence: bool) -> Vec<f32> {
    let dim = claim_vec.len();
    if !with_evidence {
        let mut f = claim_vec.to_vec();
        f.push(numeric[0]);
        f.extend(hashed_ngrams(claim));
        return f;
    }
    let mut mean = vec![0f32; dim];
    for v in evidence_vecs {
        mean.iter_mut().zip(v.iter()).for_each(|(m, x)| *m += x / evidence_vecs.len() as f32);
    }
    let cosines: Vec<f32> = evidence_vecs.iter().map(|v| v.iter().zip(claim_vec).map(|(a, b)| a * b).sum()).collect();
    let mut f = Vec::with_capacity(4 * dim + 2 + NUMERIC);
    f.extend_from_slice(claim_vec);
    f.extend_from_slice(&mean);
    f.extend(claim_vec.iter().zip(&mean).map(|(a, b)| a * b));
    f.extend(claim_vec.iter().zip(&mean).map(|(a, b)| (a - b).abs()));
    f.push(cosines.iter().copied().fold(0.0, f32::max));
    f.push(if cosines.is_empty() { 0.0 } else { cosines.iter().sum::<f32>() / cosines.len() as f32 });
    f.extend_from_slice(numeric);
    f.extend(hashed_ngrams(claim));
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_consistency() {
        let a = Analyzer::default();
        let f = numeric("Unemployment was 3.5% in 2019", &["unemployment fell to 3.5 percent in 2019".into()], &a);
        assert_eq!((f[2], f[4], f[5], f[6]), (1.0, 1.0, 1.0, 0.0));
        assert!(f[3] < 1e-6);
        let g = numeric("Unemployment was 4% in 2019", &["unemployment fell to 3.5 in 2018".into()], &a);
        assert_eq!((g[2], g[4], g[6]), (0.0, 0.0, 1.0));
        assert!((g[3] - (0.5 / 4.0 + 1.0 / 2019.0) as f32 / 2.0).abs() < 1e-4);
    }
}
