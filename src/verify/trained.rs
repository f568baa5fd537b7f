//! The verifier quantir trains itself (`trained:DIR`): features (`features.rs`) from the dense
//! encoder and numeric consistency, a [`Linear`] softmax model, k-fold cross-validation.
//!
//! Cross-validation shuffles the examples once with a seeded ChaCha8 generator and cuts them into
//! `folds` equal parts; each part is predicted by a model trained on the others, so every example
//! gets exactly one out-of-fold prediction, and the scores are computed over all of them.
//!
//! `DIR/verifier.json` holds the model, the encoder folder, whether evidence is used and how many
//! evidence texts per claim.

use std::path::{Path, PathBuf};
use std::time::Instant;

use rand_chacha::rand_core::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::features::{features, numeric};
pub use super::linear::{Linear, LinearConfig};
use super::{score, Label, Prediction, VerifyExample, VerifyScores};
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
    /// The model's training settings.
    pub linear: LinearConfig,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig { with_evidence: true, top: 3, folds: 10, seed: 42, linear: LinearConfig::default() }
    }
}

/// A trained verifier.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TrainedVerifier {
    /// The encoder's model folder.
    pub encoder_dir: PathBuf,
    /// Whether it reads evidence.
    pub with_evidence: bool,
    /// Evidence texts per claim.
    pub top: usize,
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
    /// Seconds spent encoding and training.
    pub seconds: f64,
}

/// Feature rows for `examples`: claims and evidence are encoded in two batched calls.
pub fn featurize(examples: &[VerifyExample], encoder: &Encoder, with_evidence: bool, top: usize, progress: &dyn Progress) -> Result<Vec<Vec<f32>>> {
    let claims: Vec<&str> = examples.iter().map(|e| e.claim.as_str()).collect();
    progress.start("encoding claims", Some(claims.len() as u64));
    let (claim_vecs, dim) = encode_in_parts(encoder, &claims, TextKind::Query, progress)?;
    progress.finish();
    let evidence: Vec<&str> = if with_evidence { examples.iter().flat_map(|e| e.evidence.iter().take(top).map(String::as_str)).collect() } else { Vec::new() };
    progress.start("encoding evidence", Some(evidence.len() as u64));
    let (evidence_vecs, _) = encode_in_parts(encoder, &evidence, TextKind::Passage, progress)?;
    progress.finish();
    let analyzer = Analyzer::default();
    let mut row = 0;
    Ok(examples
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let used: Vec<String> = e.evidence.iter().take(if with_evidence { top } else { 0 }).cloned().collect();
            let vecs: Vec<&[f32]> = (0..used.len()).map(|j| &evidence_vecs[(row + j) * dim..(row + j + 1) * dim]).collect();
            row += used.len();
            features(&e.claim, &claim_vecs[i * dim..(i + 1) * dim], &vecs, &numeric(&e.claim, &used, &analyzer), with_evidence)
        })
        .collect())
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

fn argmax(p: [f32; 3]) -> usize {
    (0..3).max_by(|&a, &b| p[a].total_cmp(&p[b]).then(b.cmp(&a))).unwrap_or(0)
}

fn gold(examples: &[VerifyExample]) -> Result<Vec<usize>> {
    examples
        .iter()
        .map(|e| e.label.map(Label::index).ok_or_else(|| Error::InvalidArgument { name: "--claims", message: format!("claim {} has no gold label to train on", e.id) }))
        .collect()
}

/// k-fold cross-validation over precomputed feature rows (module doc).
pub fn cross_validate(examples: &[VerifyExample], rows: &[Vec<f32>], config: &TrainConfig, progress: &dyn Progress) -> Result<CvReport> {
    let started = Instant::now();
    let y = gold(examples)?;
    let folds = config.folds.max(2).min(examples.len());
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    for i in (1..order.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    let mut predictions: Vec<Option<Prediction>> = vec![None; examples.len()];
    progress.start("folds", Some(folds as u64));
    for f in 0..folds {
        let n = order.len();
        let (start, end) = (f * n / folds, (f + 1) * n / folds);
        let test: &[usize] = &order[start..end];
        let train: Vec<usize> = order[..start].iter().chain(&order[end..]).copied().collect();
        let x: Vec<Vec<f32>> = train.iter().map(|&i| rows[i].clone()).collect();
        let labels: Vec<usize> = train.iter().map(|&i| y[i]).collect();
        let model = Linear::train(&x, &labels, &config.linear);
        for &i in test {
            let p = model.predict(&rows[i]);
            let c = argmax(p);
            predictions[i] = Some(Prediction { id: examples[i].id.clone(), label: Label::ALL[c], confidence: f64::from(p[c]), evidence: Vec::new() });
        }
        progress.advance(1);
    }
    progress.finish();
    let predictions: Vec<Prediction> = predictions.into_iter().map(|p| p.expect("every example is in one fold")).collect();
    let pairs: Vec<(Label, Label)> = predictions.iter().zip(&y).map(|(p, &g)| (Label::ALL[g], p.label)).collect();
    Ok(CvReport { scores: score(&pairs), predictions, seconds: started.elapsed().as_secs_f64() })
}

impl TrainedVerifier {
    /// Trains on every example.
    pub fn train(examples: &[VerifyExample], rows: &[Vec<f32>], encoder: &Encoder, config: &TrainConfig) -> Result<TrainedVerifier> {
        let y = gold(examples)?;
        Ok(TrainedVerifier { encoder_dir: encoder.dir().to_path_buf(), with_evidence: config.with_evidence, top: config.top, model: Linear::train(rows, &y, &config.linear) })
    }

    /// Writes `dir/verifier.json`.
    pub fn save(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        let path = dir.join("verifier.json");
        std::fs::write(&path, serde_json::to_vec(self).expect("verifier serialises")).map_err(|e| Error::io(&path, e))
    }

    /// Reads `dir/verifier.json`.
    pub fn load(dir: &Path) -> Result<TrainedVerifier> {
        let path = dir.join("verifier.json");
        let text = crate::io::read_utf8(&path)?;
        serde_json::from_str(&text).map_err(|e| crate::io::json_error(&path, crate::error::Position { line: 1, column: Some(1) }, &e))
    }

    /// Verdicts for `examples`, each reading its first `top` evidence texts.
    pub fn predict(&self, examples: &[VerifyExample], encoder: &Encoder, top: usize, progress: &dyn Progress) -> Result<Vec<Prediction>> {
        let rows = featurize(examples, encoder, self.with_evidence, top, progress)?;
        Ok(examples
            .iter()
            .zip(rows)
            .map(|(e, row)| {
                let p = self.model.predict(&row);
                let c = argmax(p);
                Prediction { id: e.id.clone(), label: Label::ALL[c], confidence: f64::from(p[c]), evidence: e.evidence.iter().take(top).cloned().collect() }
            })
            .collect())
    }
}
