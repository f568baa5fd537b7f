//! Features of a claim and its evidence for the trained verifier, in four groups
//! ([`FeatureGroups`]), fitted on the training claims ([`Featurizer`]) and laid side by side in
//! one sparse row:
//!
//! - `claim-text`: character n-gram TF-IDF of the claim (`text.rs`), L2-normalised;
//! - `evidence-text`: the same over the evidence texts joined, a separate vocabulary, the row
//!   scaled by the evidence weight (0.5 by default; in scikit-learn CV with seed 7 the evidence
//!   at full weight gave 0.5152 macro-F1, at half weight 0.5174, the claim alone 0.5176);
//! - `dense`: from the encoder (L2-normalised vectors): the claim vector c, the mean evidence
//!   vector e, c⊙e, |c − e|, and the largest and mean claim–evidence cosine;
//! - `numeric`: the numeric-consistency values below.
//!
//! The dense and numeric columns are standardised with the training claims' mean and deviation
//! and the block scaled by 1/√columns, so each block weighs about as much as one unit-length text
//! row. The defaults are the two text groups: on the QuanTemp validation claims adding the dense
//! or numeric groups did not raise macro-F1 (README, "Verification").
//!
//! Numeric consistency ([`NUMERIC`] values), from the analyzer's number reading (`1,200` = `1200`):
//!
//! 1. log(1 + numbers in the claim); 2. log(1 + numbers in the evidence);
//! 3. share of the claim's numbers found in the evidence as written;
//! 4. mean over the claim's numbers of the relative error to the nearest evidence number,
//!    |x − y| / max(|x|, |y|), capped at 1 (1 when the evidence has none);
//! 5. share of the claim's years (1800–2099) found in the evidence;
//! 6. the claim speaks of percent and so does the evidence; 7. the claim does and the evidence
//!    does not (unit disagreement); 8. share of the claim's analysed terms found in the evidence.
//!
//! The claim-only ablation drops `evidence-text`, keeps only c of `dense` and only value 1 of
//! `numeric`.

use std::collections::HashSet;

use super::text::{CharTfidf, SparseRow};
use crate::analysis::{number_spans, Analyzer};

/// Numeric-consistency features per example.
pub const NUMERIC: usize = 8;

/// Which feature groups a verifier reads (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FeatureGroups {
    /// Character n-grams of the claim.
    pub claim_text: bool,
    /// Character n-grams of the evidence.
    pub evidence_text: bool,
    /// Encoder vectors of claim and evidence.
    pub dense: bool,
    /// Numeric consistency.
    pub numeric: bool,
}

impl Default for FeatureGroups {
    fn default() -> Self {
        FeatureGroups { claim_text: true, evidence_text: true, dense: false, numeric: false }
    }
}

impl FeatureGroups {
    /// The names `--features` takes.
    pub const NAMES: [&'static str; 4] = ["claim-text", "evidence-text", "dense", "numeric"];

    const NONE: FeatureGroups = FeatureGroups { claim_text: false, evidence_text: false, dense: false, numeric: false };

    /// Reads a comma-separated list of group names.
    pub fn parse(list: &str) -> Result<FeatureGroups, String> {
        let mut groups = Self::NONE;
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name {
                "claim-text" => groups.claim_text = true,
                "evidence-text" => groups.evidence_text = true,
                "dense" => groups.dense = true,
                "numeric" => groups.numeric = true,
                other => return Err(format!("unknown feature group {other:?}; expected some of {}", Self::NAMES.join(", "))),
            }
        }
        if groups == Self::NONE {
            return Err(format!("no feature group given; expected some of {}", Self::NAMES.join(", ")));
        }
        Ok(groups)
    }
}

/// One example's inputs before fitting: the texts, and the dense and numeric values when their
/// groups are on (empty otherwise).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Inputs {
    /// The claim.
    pub claim: String,
    /// The evidence texts read, joined.
    pub evidence: String,
    /// The `dense` group's values.
    pub dense: Vec<f32>,
    /// The `numeric` group's values.
    pub numeric: Vec<f32>,
}

/// Column means and deviations of a dense block, and the block's weight.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Standardiser {
    mean: Vec<f32>,
    scale: Vec<f32>,
    weight: f32,
}

impl Standardiser {
    fn fit<'a>(rows: impl Iterator<Item = &'a [f32]> + Clone) -> Standardiser {
        let n = rows.clone().count().max(1) as f64;
        let dim = rows.clone().next().map_or(0, <[f32]>::len);
        let mut mean = vec![0f64; dim];
        rows.clone().for_each(|r| mean.iter_mut().zip(r).for_each(|(m, &x)| *m += f64::from(x) / n));
        let mut var = vec![0f64; dim];
        rows.for_each(|r| var.iter_mut().zip(r.iter().zip(&mean)).for_each(|(v, (&x, m))| *v += (f64::from(x) - m).powi(2) / n));
        Standardiser {
            mean: mean.iter().map(|&m| m as f32).collect(),
            scale: var.iter().map(|&v| if v > 1e-12 { v.sqrt() as f32 } else { 1.0 }).collect(),
            weight: 1.0 / (dim.max(1) as f32).sqrt(),
        }
    }

    fn push(&self, values: &[f32], offset: usize, row: &mut SparseRow) {
        for (i, (&x, (m, s))) in values.iter().zip(self.mean.iter().zip(&self.scale)).enumerate() {
            row.push(((offset + i) as u32, (x - m) / s * self.weight));
        }
    }

    fn len(&self) -> usize {
        self.mean.len()
    }
}

/// The feature groups fitted on training claims: vocabularies, idf, standardisation.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Featurizer {
    /// The groups read.
    pub groups: FeatureGroups,
    /// The evidence row's scale.
    pub evidence_weight: f32,
    claim_text: Option<CharTfidf>,
    evidence_text: Option<CharTfidf>,
    dense: Option<Standardiser>,
    numeric: Option<Standardiser>,
}

/// n-gram lengths and the least document frequency of the text groups (`text.rs`).
const NGRAMS: (usize, usize) = (2, 5);
const MIN_DF: usize = 2;

impl Featurizer {
    /// Fits the groups on the training `inputs`.
    pub fn fit(inputs: &[&Inputs], groups: FeatureGroups, evidence_weight: f32) -> Featurizer {
        let text = |pick: fn(&Inputs) -> &str| {
            let texts: Vec<&str> = inputs.iter().map(|i| pick(i)).collect();
            CharTfidf::fit(&texts, NGRAMS.0, NGRAMS.1, MIN_DF)
        };
        Featurizer {
            groups,
            evidence_weight,
            claim_text: groups.claim_text.then(|| text(|i| &i.claim)),
            evidence_text: groups.evidence_text.then(|| text(|i| &i.evidence)),
            dense: groups.dense.then(|| Standardiser::fit(inputs.iter().map(|i| i.dense.as_slice()))),
            numeric: groups.numeric.then(|| Standardiser::fit(inputs.iter().map(|i| i.numeric.as_slice()))),
        }
    }

    /// Columns of a row.
    pub fn columns(&self) -> usize {
        self.claim_text.as_ref().map_or(0, CharTfidf::len) + self.evidence_text.as_ref().map_or(0, CharTfidf::len) + self.dense.as_ref().map_or(0, Standardiser::len) + self.numeric.as_ref().map_or(0, Standardiser::len)
    }

    /// The row of one example.
    pub fn row(&self, input: &Inputs) -> SparseRow {
        let mut row = SparseRow::new();
        let mut offset = 0;
        if let Some(v) = &self.claim_text {
            row.extend(v.transform(&input.claim).into_iter().map(|(c, x)| (c + offset as u32, x)));
            offset += v.len();
        }
        if let Some(v) = &self.evidence_text {
            row.extend(v.transform(&input.evidence).into_iter().map(|(c, x)| (c + offset as u32, x * self.evidence_weight)));
            offset += v.len();
        }
        if let Some(s) = &self.dense {
            s.push(&input.dense, offset, &mut row);
            offset += s.len();
        }
        if let Some(s) = &self.numeric {
            s.push(&input.numeric, offset, &mut row);
        }
        row
    }
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
    let years: Vec<&str> = claim_numbers.iter().filter(|(s, v)| s.len() == 4 && crate::analysis::is_year(*v)).map(|(s, _)| s.as_str()).collect();
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

/// The `dense` group's values: `claim` (dim) and its `evidence` vectors (n × dim); the claim
/// vector alone when `with_evidence` is false.
pub fn dense(claim_vec: &[f32], evidence_vecs: &[&[f32]], with_evidence: bool) -> Vec<f32> {
    let dim = claim_vec.len();
    if !with_evidence {
        return claim_vec.to_vec();
    }
    let mut mean = vec![0f32; dim];
    for v in evidence_vecs {
        mean.iter_mut().zip(v.iter()).for_each(|(m, x)| *m += x / evidence_vecs.len() as f32);
    }
    let cosines: Vec<f32> = evidence_vecs.iter().map(|v| v.iter().zip(claim_vec).map(|(a, b)| a * b).sum()).collect();
    let mut f = Vec::with_capacity(4 * dim + 2);
    f.extend_from_slice(claim_vec);
    f.extend_from_slice(&mean);
    f.extend(claim_vec.iter().zip(&mean).map(|(a, b)| a * b));
    f.extend(claim_vec.iter().zip(&mean).map(|(a, b)| (a - b).abs()));
    f.push(cosines.iter().copied().fold(0.0, f32::max));
    f.push(if cosines.is_empty() { 0.0 } else { cosines.iter().sum::<f32>() / cosines.len() as f32 });
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
