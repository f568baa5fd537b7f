//! The verifier quantir trains itself (`trained:DIR`): feature groups (`features.rs`: character
//! n-grams of claim and evidence by default; encoder vectors and numeric consistency on request),
//! a [`Linear`] softmax model, k-fold cross-validation.
//!
//! Cross-validation shuffles the examples once with a seeded ChaCha8 generator and cuts them into
//! `folds` equal parts; each part is predicted by a model trained on the others — vocabularies,
//! idf and standardisation included, so nothing is learnt from the held-out part — and every
//! example gets exactly one out-of-fold prediction; the scores are computed over all of them.
//!
//! `DIR/verifier.json` holds the fitted features and model, the encoder folder when the `dense`
//! group is on, whether evidence is used and how many evidence texts per claim.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use rayon::prelude::*;

use super::features::{dense, numeric};
pub use super::features::{FeatureGroups, Featurizer, Inputs};
pub use super::linear::{Linear, LinearConfig};
use super::text::SparseRow;
use super::{score, Label, LabelSet, Prediction, VerifyExample, VerifyScores};
use crate::analysis::Analyzer;
use crate::error::{Error, Result};
use crate::index::dense::{Encoder, TextKind};
use crate::io::Progress;

/// How the verifier is trained.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrainConfig {
    /// Use the evidence (false: the claim-only ablation).
    pub with_evidence: bool,
    /// Evidence texts per claim.
    pub top: usize,
    /// Folds of the cross-validation (0: none).
    pub folds: usize,
    /// Shuffling seed.
    pub seed: u64,
    /// The feature groups.
    pub groups: FeatureGroups,
    /// Scale of the evidence text row.
    pub evidence_weight: f32,
    /// The model's training settings.
    pub linear: LinearConfig,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig { with_evidence: true, top: 3, folds: 10, seed: 42, groups: FeatureGroups::default(), evidence_weight: 0.5, linear: LinearConfig::default() }
    }
}

impl TrainConfig {
    /// The groups actually read: no evidence text in the claim-only ablation.
    pub fn effective_groups(&self) -> FeatureGroups {
        FeatureGroups { evidence_text: self.groups.evidence_text && self.with_evidence, ..self.groups }
    }
}

/// A trained verifier.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TrainedVerifier {
    /// The encoder's model folder, when the `dense` group is on.
    pub encoder_dir: Option<PathBuf>,
    /// Whether it reads evidence.
    pub with_evidence: bool,
    /// Evidence texts per claim.
    pub top: usize,
    /// The fitted features.
    pub featurizer: Featurizer,
    /// The model.
    pub model: Linear,
}

/// Cross-validation results.
#[derive(Debug, Clone, PartialEq)]
pub struct CvReport {
    /// One out-of-fold prediction per example.
    pub predictions: Vec<Prediction>,
    /// Their scores.
    pub scores: VerifyScores,
    /// Seconds spent fitting features and models and predicting (inputs are prepared before).
    pub seconds: f64,
}

/// The inputs of `examples` for `groups`: texts, and the dense and numeric values when their
/// groups are on (the encoder is needed only for `dense`; claims and evidence are encoded in
/// batched calls).
pub fn prepare(examples: &[VerifyExample], encoder: Option<&Encoder>, groups: FeatureGroups, with_evidence: bool, top: usize, progress: &dyn Progress) -> Result<Vec<Inputs>> {
    let top = if with_evidence { top } else { 0 };
    let mut inputs: Vec<Inputs> = examples.iter().map(|e| Inputs { claim: e.claim.clone(), evidence: e.evidence.iter().take(top).map(String::as_str).collect::<Vec<_>>().join("\n"), ..Inputs::default() }).collect();
    if groups.dense {
        let encoder = encoder.ok_or_else(|| Error::InvalidArgument { name: "--features", message: "the dense group needs an encoder (--dense)".into() })?;
        let claims: Vec<&str> = examples.iter().map(|e| e.claim.as_str()).collect();
        progress.start("encoding claims", Some(claims.len() as u64));
        let (claim_vecs, dim) = encode_in_parts(encoder, &claims, TextKind::Query, progress)?;
        progress.finish();
        let evidence: Vec<&str> = examples.iter().flat_map(|e| e.evidence.iter().take(top).map(String::as_str)).collect();
        progress.start("encoding evidence", Some(evidence.len() as u64));
        let (evidence_vecs, _) = encode_in_parts(encoder, &evidence, TextKind::Passage, progress)?;
        progress.finish();
        let mut row = 0;
        for (i, (e, input)) in examples.iter().zip(&mut inputs).enumerate() {
            let used = e.evidence.len().min(top);
            let vecs: Vec<&[f32]> = (0..used).map(|j| &evidence_vecs[(row + j) * dim..(row + j + 1) * dim]).collect();
            row += used;
            input.dense = dense(&claim_vecs[i * dim..(i + 1) * dim], &vecs, with_evidence);
        }
    }
    if groups.numeric {
        let analyzer = Analyzer::default();
        for (e, input) in examples.iter().zip(&mut inputs) {
            let values = numeric(&e.claim, &e.evidence[..e.evidence.len().min(top)], &analyzer);
            input.numeric = if with_evidence { values.to_vec() } else { vec![values[0]] };
        }
    }
    Ok(inputs)
}

fn encode_in_parts(encoder: &Encoder, texts: &[&str], kind: TextKind, progress: &dyn Progress) -> Result<(Vec<f32>, usize)> {
    let mut all = Vec::new();
    let mut dim = 0;
    for part in texts.chunks(1024) {
        let (v, d) = encoder.encode(part, kind)?;
        all.extend(v);
        dim = d;
        progress.advance(part.len() as u64);
    }
    Ok((all, dim))
}

fn gold(examples: &[VerifyExample]) -> Result<Vec<usize>> {
    examples
        .iter()
        .map(|e| match e.label {
            None => Err(Error::InvalidArgument { name: "--claims", message: format!("claim {} has no gold label to train on", e.id) }),
            Some(Label::NotEnoughInfo) => Err(Error::InvalidArgument { name: "--claims", message: format!("claim {}: the trained verifier learns True, False and Conflicting, not Not Enough Info", e.id) }),
            Some(label) => Ok(label.index()),
        })
        .collect()
}

/// Fits the features and the model on `train`.
fn fit(inputs: &[Inputs], y: &[usize], train: &[usize], config: &TrainConfig) -> (Featurizer, Linear) {
    let chosen: Vec<&Inputs> = train.iter().map(|&i| &inputs[i]).collect();
    let featurizer = Featurizer::fit(&chosen, config.effective_groups(), config.evidence_weight);
    let rows: Vec<SparseRow> = chosen.iter().map(|input| featurizer.row(input)).collect();
    let labels: Vec<usize> = train.iter().map(|&i| y[i]).collect();
    let model = Linear::train(&rows, featurizer.columns(), &labels, &config.linear);
    (featurizer, model)
}

/// k-fold cross-validation over prepared inputs (module doc); folds train in parallel.
pub fn cross_validate(examples: &[VerifyExample], inputs: &[Inputs], config: &TrainConfig, progress: &dyn Progress) -> Result<CvReport> {
    let started = Instant::now();
    let y = gold(examples)?;
    let folds = config.folds.max(2).min(examples.len());
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    for i in (1..order.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    progress.start("folds", Some(folds as u64));
    let per_fold: Vec<Vec<(usize, Prediction)>> = (0..folds)
        .into_par_iter()
        .map(|f| {
            let n = order.len();
            let (start, end) = (f * n / folds, (f + 1) * n / folds);
            let train: Vec<usize> = order[..start].iter().chain(&order[end..]).copied().collect();
            let (featurizer, model) = fit(inputs, &y, &train, config);
            let predicted = order[start..end]
                .iter()
                .map(|&i| {
                    let (label, confidence) = LabelSet::default().pick(&model.predict(&featurizer.row(&inputs[i])).map(f64::from));
                    (i, Prediction::verdict(examples[i].id.clone(), label, confidence, Vec::new()))
                })
                .collect();
            progress.advance(1);
            predicted
        })
        .collect();
    progress.finish();
    let mut predictions: Vec<Option<Prediction>> = vec![None; examples.len()];
    for (i, p) in per_fold.into_iter().flatten() {
        predictions[i] = Some(p);
    }
    let predictions: Vec<Prediction> = predictions.into_iter().map(|p| p.expect("every example is in one fold")).collect();
    let pairs: Vec<(Label, Label)> = predictions.iter().zip(&y).map(|(p, &g)| (Label::ALL[g], p.label)).collect();
    Ok(CvReport { scores: score(&pairs), predictions, seconds: started.elapsed().as_secs_f64() })
}

impl TrainedVerifier {
    /// Trains on every example.
    pub fn train(examples: &[VerifyExample], inputs: &[Inputs], encoder: Option<&Encoder>, config: &TrainConfig) -> Result<TrainedVerifier> {
        let y = gold(examples)?;
        let all: Vec<usize> = (0..examples.len()).collect();
        let (featurizer, model) = fit(inputs, &y, &all, config);
        let encoder_dir = if config.groups.dense { encoder.map(|e| e.dir().to_path_buf()) } else { None };
        Ok(TrainedVerifier { encoder_dir, with_evidence: config.with_evidence, top: config.top, featurizer, model })
    }

    /// Writes `dir/verifier.json`, through a temporary file and a rename, so an interrupted save
    /// leaves the previous verifier whole.
    pub fn save(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let (path, tmp) = (dir.join("verifier.json"), dir.join(".verifier.json.tmp"));
        std::fs::write(&tmp, serde_json::to_vec(self).expect("verifier serialises")).map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e))
    }

    /// Reads `dir/verifier.json`.
    pub fn load(dir: &Path) -> Result<TrainedVerifier> {
        let path = dir.join("verifier.json");
        let text = crate::io::read_utf8(&path)?;
        serde_json::from_str(&text).map_err(|e| crate::io::json_error(&path, crate::error::Position { line: 1, column: Some(1) }, &e))
    }

    /// Verdicts for `examples`, each reading its first `top` evidence texts, chosen among `labels`.
    /// `encoder` is needed when [`TrainedVerifier::encoder_dir`] is set.
    pub fn predict(&self, examples: &[VerifyExample], encoder: Option<&Encoder>, top: usize, labels: LabelSet, progress: &dyn Progress) -> Result<Vec<Prediction>> {
        let inputs = prepare(examples, encoder, self.featurizer.groups, self.with_evidence, top, progress)?;
        Ok(examples
            .iter()
            .zip(&inputs)
            .map(|(e, input)| {
                let (label, confidence) = labels.pick(&self.model.predict(&self.featurizer.row(input)).map(f64::from));
                Prediction::verdict(e.id.clone(), label, confidence, e.evidence.iter().take(top).cloned().collect())
            })
            .collect())
    }
}
