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
use super::abstain::{choose_thresholds, retrieved_negatives, signals, swap_evidence, AbstentionRule, HeldOut, RelevanceModel, Signals, TermWeights};
use super::calibrate::Temperature;
use crate::verify::{score, Label, LabelSet, Prediction, VerifyExample, VerifyScores};
use crate::analysis::Analyzer;
use crate::error::{Error, Result};
use crate::index::dense::{Encoder, TextKind};
use crate::io::Progress;

/// How the verifier is trained.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
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
    /// Fit a temperature (`calibrate.rs`) on out-of-fold probabilities.
    pub calibrate: bool,
    /// Fit an abstention rule (`abstain.rs`) on out-of-fold verdicts.
    pub abstain: bool,
    /// Folds of the inner cross-validation that fits the temperature and the abstention rule.
    pub inner_folds: usize,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig { with_evidence: true, top: 3, folds: 10, seed: 42, groups: FeatureGroups::default(), evidence_weight: 0.5, linear: LinearConfig::default(), calibrate: true, abstain: true, inner_folds: 5 }
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
    /// The temperature its probabilities are scaled by (none: as the model gives them).
    #[serde(default)]
    pub temperature: Option<Temperature>,
}


/// The inputs of `examples` for `groups`: texts, and the dense and numeric values when their
/// groups are on (the encoder is needed only for `dense`; claims and evidence are encoded in
/// batched calls).
pub fn prepare(examples: &[VerifyExample], encoder: Option<&Encoder>, groups: FeatureGroups, with_evidence: bool, top: usize, progress: &dyn Progress) -> Result<Vec<Inputs>> {
    let top = if with_evidence { top } else { 0 };
    let mut inputs: Vec<Inputs> = examples.iter().map(|e| Inputs { claim: e.claim.clone(), evidence: e.evidence.iter().take(top).map(String::as_str).collect::<Vec<_>>().join("\n"), ..Inputs::default() }).collect();
    if groups.dense {
        let encoder = encoder.ok_or_else(|| Error::InvalidArgument { name: "features", message: "the dense group needs an encoder (--dense)".into() })?;
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
            None => Err(Error::InvalidArgument { name: "claims", message: format!("claim {} has no gold label to train on", e.id) }),
            Some(Label::NotEnoughInfo) => Err(Error::InvalidArgument { name: "claims", message: format!("claim {}: the trained verifier learns True, False and Conflicting, not Not Enough Info", e.id) }),
            Some(label) => Ok(label.index()),
        })
        .collect()
}

/// Seed offset of the evidence swap, so it differs from the fold shuffle of the same seed.
const SWAP_SALT: u64 = 0x5eed_5a4b;

/// Claims of one evidence assignment: inputs and abstention signals, one per training claim.
#[derive(Debug, Clone)]
pub struct Part {
    /// The verifier's inputs.
    pub inputs: Vec<Inputs>,
    /// The abstention signals (over the first `top` evidence texts).
    pub signals: Vec<Signals>,
}

/// Claims prepared for training: their inputs and abstention signals, and, when an abstention
/// rule is to be fitted, the term weights of the signals (over the claims' evidence texts: text
/// statistics, no labels) and two more evidence assignments: each claim with the texts a search of
/// the other claims' evidence finds for it (`negatives`, [`retrieved_negatives`]: what the
/// relevance model and the thresholds are fitted on) and with a random other claim's (`swapped`, [`swap_evidence`]: only
/// measured, never fitted on).
#[derive(Debug, Clone)]
pub struct TrainingSet {
    /// The labelled claims.
    pub examples: Vec<VerifyExample>,
    /// With their own evidence.
    pub own: Part,
    /// The term weights of the signals.
    pub weights: Option<TermWeights>,
    /// With the other claims' texts a search finds for each.
    pub negatives: Option<Part>,
    /// With a random other claim's evidence.
    pub swapped: Option<Part>,
}

impl TrainingSet {
    /// Prepares `examples` for `config` (inputs as [`prepare`] makes them).
    pub fn prepare(examples: Vec<VerifyExample>, encoder: Option<&Encoder>, config: &TrainConfig, progress: &dyn Progress) -> Result<TrainingSet> {
        gold(&examples)?;
        let analyzer = Analyzer::default();
        let read = |e: &VerifyExample| e.evidence[..e.evidence.len().min(config.top)].to_vec();
        let weights = config.abstain.then(|| {
            let mut texts: Vec<&str> = examples.iter().flat_map(|e| e.evidence.iter().take(config.top).map(String::as_str)).collect();
            texts.sort_unstable();
            texts.dedup();
            TermWeights::fit(texts.into_iter(), &analyzer)
        });
        let part = |examples: &[VerifyExample], weights: &TermWeights| -> Result<Part> {
            let inputs = prepare(examples, encoder, config.groups, config.with_evidence, config.top, progress)?;
            Ok(Part { inputs, signals: examples.par_iter().map(|e| signals(&e.claim, &read(e), weights, &analyzer)).collect() })
        };
        let (own, negatives, swapped) = match &weights {
            Some(w) => {
                let swapped = swap_evidence(&examples, config.seed ^ SWAP_SALT);
                let negatives = retrieved_negatives(&examples, &swapped, w, &analyzer, config.top);
                (part(&examples, w)?, Some(part(&negatives, w)?), Some(part(&swapped, w)?))
            }
            None => (Part { inputs: prepare(&examples, encoder, config.groups, config.with_evidence, config.top, progress)?, signals: Vec::new() }, None, None),
        };
        Ok(TrainingSet { examples, own, weights, negatives, swapped })
    }
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

fn probabilities(featurizer: &Featurizer, model: &Linear, input: &Inputs) -> [f64; 3] {
    model.predict(&featurizer.row(input)).map(f64::from)
}

/// The relevance model fitted on `train`'s signals: own evidence relevant, retrieved negatives
/// and random swaps not.
fn fit_relevance(set: &TrainingSet, train: &[usize]) -> RelevanceModel {
    let negatives = &set.negatives.as_ref().expect("abstention needs negatives").signals;
    let swapped = &set.swapped.as_ref().expect("abstention needs swaps").signals;
    let rows: Vec<Signals> = train.iter().map(|&i| set.own.signals[i]).chain(train.iter().map(|&i| negatives[i])).chain(train.iter().map(|&i| swapped[i])).collect();
    let own: Vec<bool> = (0..rows.len()).map(|r| r < train.len()).collect();
    RelevanceModel::fit(&rows, &own)
}

/// The negative each held-out claim contributes to the threshold choice: retrieved texts at even
/// positions, a random swap at odd ones, so both kinds weigh alike and Not Enough Info is half the
/// claims.
fn negative_of(set: &TrainingSet, position: usize) -> &Part {
    let part = if position.is_multiple_of(2) { &set.negatives } else { &set.swapped };
    part.as_ref().expect("abstention needs negatives and swaps")
}

/// What is fitted on `train` beyond the model: the temperature and the abstention rule, each from
/// an inner cross-validation over `train` (`train`'s order cut into `config.inner_folds` parts).
/// The inner folds [`fit_extras`] fits over `n` training claims.
fn inner_folds(config: &TrainConfig, n: usize) -> usize {
    config.inner_folds.max(2).min(n.max(2))
}

fn fit_extras(set: &TrainingSet, y: &[usize], train: &[usize], config: &TrainConfig, progress: &dyn Progress) -> (Option<Temperature>, Option<AbstentionRule>) {
    if !config.calibrate && !config.abstain {
        return (None, None);
    }
    let n = train.len();
    let k = inner_folds(config, n);
    let mut own = vec![[0.0; 3]; n];
    let mut negative_p = vec![[0.0; 3]; n];
    let mut relevance = vec![(0.0, 0.0); n];
    for g in 0..k {
        let (start, end) = (g * n / k, (g + 1) * n / k);
        let inner: Vec<usize> = train[..start].iter().chain(&train[end..]).copied().collect();
        let (featurizer, model) = fit(&set.own.inputs, y, &inner, config);
        let relevance_model = config.abstain.then(|| fit_relevance(set, &inner));
        progress.advance(1);
        for at in start..end {
            let i = train[at];
            own[at] = probabilities(&featurizer, &model, &set.own.inputs[i]);
            if let Some(r) = &relevance_model {
                let negative = negative_of(set, at);
                negative_p[at] = probabilities(&featurizer, &model, &negative.inputs[i]);
                relevance[at] = (r.probability(&set.own.signals[i]), r.probability(&negative.signals[i]));
            }
        }
    }
    let gold: Vec<usize> = train.iter().map(|&i| y[i]).collect();
    let temperature = config.calibrate.then(|| Temperature::fit(&own, &gold));
    let scale = |p: &[f64; 3]| temperature.map_or(*p, |t| t.apply(p));
    let rule = config.abstain.then(|| {
        let verdict = |p: &[f64; 3]| LabelSet::default().pick(&scale(p));
        let held: Vec<HeldOut> = (0..n)
            .flat_map(|at| {
                let ((v, c), (sv, sc)) = (verdict(&own[at]), verdict(&negative_p[at]));
                [HeldOut { gold: Label::ALL[gold[at]], verdict: v, confidence: c, relevance: relevance[at].0 }, HeldOut { gold: Label::NotEnoughInfo, verdict: sv, confidence: sc, relevance: relevance[at].1 }]
            })
            .collect();
        let (min_relevance, min_confidence, macro_f1) = choose_thresholds(&held);
        AbstentionRule { weights: set.weights.clone().expect("abstention has term weights"), relevance: fit_relevance(set, train), min_relevance, min_confidence, claims: n, macro_f1 }
    });
    (temperature, rule)
}

/// A verdict from calibrated probabilities, withheld when `rule` says so.
fn decide(id: &str, p: &[f64; 3], relevance: Option<f64>, rule: Option<&AbstentionRule>) -> Prediction {
    let (verdict, confidence) = LabelSet::default().pick(p);
    let mut prediction = Prediction::verdict(id, verdict, confidence, Vec::new());
    if let (Some(rule), Some(relevance)) = (rule, relevance) {
        prediction.abstain(rule.decide(relevance, confidence), relevance);
    }
    prediction
}

/// A fold's temperature and abstention thresholds `(min_relevance, min_confidence)`.
pub type FoldFit = (Option<f64>, Option<(f64, f64)>);

/// A held-out claim's predictions with a random swap and with retrieved negatives.
type Others = Option<(Prediction, Prediction)>;

/// Cross-validation results.
#[derive(Debug, Clone, PartialEq)]
pub struct CvReport {
    /// One out-of-fold prediction per example: calibrated, and withheld where the fold's
    /// abstention rule says so.
    pub predictions: Vec<Prediction>,
    /// The same verdicts with the model's own probabilities (before calibration, no abstention).
    pub uncalibrated: Vec<Prediction>,
    /// The out-of-fold predictions for the claims with a random other claim's evidence (when
    /// abstention is on).
    pub swapped: Vec<Prediction>,
    /// The same with the texts a search of the other claims' evidence finds (the relevance
    /// model's negatives).
    pub negatives: Vec<Prediction>,
    /// The scores of the verdicts at full coverage (3-way, abstention ignored).
    pub scores: VerifyScores,
    /// Each fold's temperature and abstention thresholds.
    pub folds: Vec<FoldFit>,
    /// Seconds spent fitting features and models and predicting (inputs are prepared before).
    pub seconds: f64,
}

/// k-fold cross-validation (module doc); each fold's temperature and abstention rule come from an
/// inner cross-validation over its training part; folds train in parallel.
pub fn cross_validate(set: &TrainingSet, config: &TrainConfig, progress: &dyn Progress) -> Result<CvReport> {
    let started = Instant::now();
    let examples = &set.examples;
    let y = gold(examples)?;
    let folds = config.folds.max(2).min(examples.len());
    let mut order: Vec<usize> = (0..examples.len()).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
    for i in (1..order.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        order.swap(i, j);
    }
    progress.start("folds", Some(folds as u64));
    type Outcome = (usize, Prediction, Prediction, Others);
    let per_fold: Vec<(Vec<Outcome>, FoldFit)> = (0..folds)
        .into_par_iter()
        .map(|f| {
            let n = order.len();
            let (start, end) = (f * n / folds, (f + 1) * n / folds);
            let train: Vec<usize> = order[..start].iter().chain(&order[end..]).copied().collect();
            let (temperature, rule) = fit_extras(set, &y, &train, config, &crate::io::NoProgress);
            let (featurizer, model) = fit(&set.own.inputs, &y, &train, config);
            let scale = |p: [f64; 3]| temperature.map_or(p, |t| t.apply(&p));
            let judge = |id: &str, part: &Part, i: usize, rule: &AbstentionRule| decide(id, &scale(probabilities(&featurizer, &model, &part.inputs[i])), Some(rule.relevance.probability(&part.signals[i])), Some(rule));
            let predicted = order[start..end]
                .iter()
                .map(|&i| {
                    let id = examples[i].id.as_str();
                    let raw = probabilities(&featurizer, &model, &set.own.inputs[i]);
                    let own = match &rule {
                        Some(r) => judge(id, &set.own, i, r),
                        None => decide(id, &scale(raw), None, None),
                    };
                    let others = match (&rule, &set.swapped, &set.negatives) {
                        (Some(r), Some(swapped), Some(negatives)) => Some((judge(id, swapped, i, r), judge(id, negatives, i, r))),
                        _ => None,
                    };
                    (i, own, decide(id, &raw, None, None), others)
                })
                .collect();
            progress.advance(1);
            (predicted, (temperature.map(|t| t.0), rule.map(|r| (r.min_relevance, r.min_confidence))))
        })
        .collect();
    progress.finish();
    let mut slots: Vec<Option<(Prediction, Prediction, Others)>> = vec![None; examples.len()];
    let mut fold_fits = Vec::with_capacity(folds);
    for (outcomes, fitted) in per_fold {
        fold_fits.push(fitted);
        for (i, p, raw, others) in outcomes {
            slots[i] = Some((p, raw, others));
        }
    }
    let (mut predictions, mut uncalibrated, mut swapped, mut negatives) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for slot in slots {
        let (p, raw, others) = slot.expect("every example is in one fold");
        predictions.push(p);
        uncalibrated.push(raw);
        if let Some((s, n)) = others {
            swapped.push(s);
            negatives.push(n);
        }
    }
    let pairs: Vec<(Label, Label)> = uncalibrated.iter().zip(&y).map(|(p, &g)| (Label::ALL[g], p.label)).collect();
    Ok(CvReport { scores: score(&pairs), predictions, uncalibrated, swapped, negatives, folds: fold_fits, seconds: started.elapsed().as_secs_f64() })
}

impl TrainedVerifier {
    /// Trains on every example, with the temperature and abstention rule (when `config` asks for
    /// them) from an inner cross-validation over all of them.
    pub fn train(set: &TrainingSet, encoder: Option<&Encoder>, config: &TrainConfig, progress: &dyn Progress) -> Result<(TrainedVerifier, Option<AbstentionRule>)> {
        let y = gold(&set.examples)?;
        let mut all: Vec<usize> = (0..set.examples.len()).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(config.seed);
        for i in (1..all.len()).rev() {
            let j = (rng.next_u64() % (i as u64 + 1)) as usize;
            all.swap(i, j);
        }
        // The inner folds' fits (for the temperature and the abstention rule), then the model's.
        let extras = if config.calibrate || config.abstain { inner_folds(config, all.len()) } else { 0 };
        progress.start("training", Some(extras as u64 + 1));
        let (temperature, rule) = fit_extras(set, &y, &all, config, progress);
        let (featurizer, model) = fit(&set.own.inputs, &y, &all, config);
        progress.advance(1);
        progress.finish();
        let encoder_dir = if config.groups.dense { encoder.map(|e| e.dir().to_path_buf()) } else { None };
        Ok((TrainedVerifier { encoder_dir, with_evidence: config.with_evidence, top: config.top, featurizer, model, temperature }, rule))
    }

    /// Writes `dir/verifier.json`, through a temporary file and a rename, so an interrupted save
    /// leaves the previous verifier whole.
    pub fn save(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        crate::io::write_replacing(&dir.join(VERIFIER_FILE), &serde_json::to_vec(self).expect("verifier serialises"))
    }

    /// Reads `dir/verifier.json`, once the folder is checked to be as quantir wrote it
    /// ([`crate::provenance::read_folder`]: the model and its abstention rule).
    pub fn load(dir: &Path) -> Result<TrainedVerifier> {
        Self::model_in(dir, &Self::checked(dir)?)
    }

    /// The verifier of `dir` and its abstention rule (`None` when it was trained without one),
    /// both from the bytes checked against the folder's record: a rule is never read apart from
    /// the check that vouches for it.
    pub fn load_with_rule(dir: &Path) -> Result<(TrainedVerifier, Option<AbstentionRule>)> {
        let texts = Self::checked(dir)?;
        Ok((Self::model_in(dir, &texts)?, Self::rule_in(dir, &texts)?))
    }

    /// The abstention rule of the verifier folder `dir`, checked as [`TrainedVerifier::load_with_rule`]
    /// checks it, without parsing the model (what `--abstention-rule DIR` borrows).
    pub fn load_rule(dir: &Path) -> Result<Option<AbstentionRule>> {
        Self::rule_in(dir, &Self::checked(dir)?)
    }

    /// The folder's files, checked against its record.
    fn checked(dir: &Path) -> Result<crate::provenance::FolderTexts> {
        crate::provenance::read_folder(dir, crate::provenance::Artifact::Verifier, VERIFIER_FILE, &[ABSTENTION_FILE])
    }

    fn model_in(dir: &Path, texts: &crate::provenance::FolderTexts) -> Result<TrainedVerifier> {
        let path = dir.join(VERIFIER_FILE);
        serde_json::from_str(&texts.main).map_err(|e| crate::io::json_error(&path, crate::error::Position { line: 1, column: Some(1) }, &e))
    }

    fn rule_in(dir: &Path, texts: &crate::provenance::FolderTexts) -> Result<Option<AbstentionRule>> {
        texts.part(ABSTENTION_FILE).map(|text| AbstentionRule::parse(&dir.join(ABSTENTION_FILE), text)).transpose()
    }

    /// Calibrated class probabilities (in [`Label::VERDICTS`] order) for `examples`, each reading
    /// its first `top` evidence texts. `encoder` is needed when [`TrainedVerifier::encoder_dir`] is
    /// set.
    pub fn probabilities(&self, examples: &[VerifyExample], encoder: Option<&Encoder>, top: usize, progress: &dyn Progress) -> Result<Vec<[f64; 3]>> {
        let inputs = prepare(examples, encoder, self.featurizer.groups, self.with_evidence, top, progress)?;
        Ok(inputs.iter().map(|input| {
            let p = probabilities(&self.featurizer, &self.model, input);
            self.temperature.map_or(p, |t| t.apply(&p))
        }).collect())
    }

    /// Verdicts for `examples`, each reading its first `top` evidence texts, chosen among `labels`.
    /// `encoder` is needed when [`TrainedVerifier::encoder_dir`] is set.
    pub fn predict(&self, examples: &[VerifyExample], encoder: Option<&Encoder>, top: usize, labels: LabelSet, progress: &dyn Progress) -> Result<Vec<Prediction>> {
        let probabilities = self.probabilities(examples, encoder, top, progress)?;
        Ok(examples
            .iter()
            .zip(&probabilities)
            .map(|(e, p)| {
                let (label, confidence) = labels.pick(p);
                Prediction::verdict(e.id.clone(), label, confidence, e.evidence.iter().take(top).cloned().collect())
            })
            .collect())
    }
}
pub use crate::verify::VERIFIER_FILE;

/// The file beside `verifier.json` that holds a trained verifier's abstention rule.
pub const ABSTENTION_FILE: &str = "abstention.json";

/// What [`train_to_dir`] measured.
#[derive(Debug, Clone)]
pub struct TrainReport {
    /// Claims trained on.
    pub claims: usize,
    /// Seconds preparing the inputs (reading, featurising, encoding).
    pub prepare_seconds: f64,
    /// Seconds in all.
    pub seconds: f64,
    /// The cross-validation, when asked for (`folds` > 0).
    pub cv: Option<CvSummary>,
    /// The abstention rule saved with the verifier, when fitted.
    pub rule: Option<AbstentionRule>,
}

/// A cross-validation's scores as `cv_scores.json` keeps them ([`train_to_dir`]).
#[derive(Debug, Clone)]
pub struct CvSummary {
    /// Folds.
    pub folds: usize,
    /// The verdicts' scores at full coverage.
    pub scores: VerifyScores,
    /// Calibration error before the temperature.
    pub ece_before: f64,
    /// The verdicts as given: calibration, coverage and the risk–coverage curve.
    pub selective: super::calibrate::SelectiveReport,
    /// Not Enough Info rates with the claims' own evidence, a random other claim's and retrieved
    /// negatives (with abstention).
    pub nei_rates: Option<[f64; 3]>,
    /// Everything above, and the folds' temperatures and thresholds, as written.
    pub json: serde_json::Value,
}

/// Trains a verifier on `examples` into `output`: with `config.folds` > 0, first a k-fold
/// cross-validation whose out-of-fold predictions (`cv_predictions*.jsonl`) and scores
/// (`cv_scores.json`) go into the folder; then the verifier (`verifier.json`), its abstention rule
/// ([`ABSTENTION_FILE`]) and what made them (`provenance.json`, naming `claims_file` and the
/// encoder's model). The previous rule is removed first and the new one written last, so an
/// interrupted save leaves a verifier without a rule (which abstention refuses), never one with
/// another model's rule. `quantir train-verifier` is this call.
pub fn train_to_dir(examples: Vec<VerifyExample>, claims_file: &Path, encoder: Option<&Encoder>, config: &TrainConfig, output: &Path, progress: &dyn Progress) -> Result<TrainReport> {
    let started = Instant::now();
    let set = TrainingSet::prepare(examples, encoder, config, progress)?;
    let prepare_seconds = started.elapsed().as_secs_f64();
    std::fs::create_dir_all(output).map_err(|e| Error::io(output, e))?;
    let cv = if config.folds > 0 { Some(cross_validate_into(&set, config, output, progress)?) } else { None };
    let (verifier, rule) = TrainedVerifier::train(&set, encoder, config, progress)?;
    let rule_path = output.join(ABSTENTION_FILE);
    if rule_path.exists() {
        std::fs::remove_file(&rule_path).map_err(|e| Error::io(&rule_path, e))?;
    }
    verifier.save(output)?;
    if let Some(rule) = &rule {
        crate::io::write_replacing(&rule_path, serde_json::to_string_pretty(rule).expect("a rule serialises").as_bytes())?;
    }
    use crate::provenance::{Artifact, Input, Provenance, Role};
    let counts = [("claims".to_string(), set.examples.len() as u64)].into();
    let mut inputs = vec![Input::file(Role::TrainingClaims, claims_file)?];
    if let Some(encoder) = encoder {
        inputs.push(Input::file(Role::Model, &encoder.dir().join(&encoder.config().model))?);
    }
    Provenance::new(Artifact::Verifier, inputs, config).with_counts(counts).write_into(output, VERIFIER_FILE, &[ABSTENTION_FILE])?;
    Ok(TrainReport { claims: set.examples.len(), prepare_seconds, seconds: started.elapsed().as_secs_f64(), cv, rule })
}

/// [`cross_validate`], its predictions and scores written into `output`.
fn cross_validate_into(set: &TrainingSet, config: &TrainConfig, output: &Path, progress: &dyn Progress) -> Result<CvSummary> {
    use super::calibrate::selective;
    let report = cross_validate(set, config, progress)?;
    crate::io::write_jsonl(&output.join("cv_predictions.jsonl"), &report.predictions)?;
    crate::io::write_jsonl(&output.join("cv_predictions_uncalibrated.jsonl"), &report.uncalibrated)?;
    if !report.swapped.is_empty() {
        crate::io::write_jsonl(&output.join("cv_swapped_predictions.jsonl"), &report.swapped)?;
        crate::io::write_jsonl(&output.join("cv_retrieved_negatives_predictions.jsonl"), &report.negatives)?;
    }
    let gold: Vec<Label> = set.examples.iter().map(|e| e.label.expect("training claims are labelled")).collect();
    let judged = |p: &[Prediction]| -> Vec<(Label, Prediction)> { gold.iter().copied().zip(p.iter().cloned()).collect() };
    let (own, raw) = (judged(&report.predictions), judged(&report.uncalibrated));
    let given = selective(&own.iter().map(|(g, p)| (*g, p)).collect::<Vec<_>>());
    let uncalibrated = selective(&raw.iter().map(|(g, p)| (*g, p)).collect::<Vec<_>>());
    let nei_rate = |p: &[Prediction]| p.iter().filter(|p| p.label == Label::NotEnoughInfo).count() as f64 / p.len().max(1) as f64;
    let nei_rates = config.abstain.then(|| [nei_rate(&report.predictions), nei_rate(&report.swapped), nei_rate(&report.negatives)]);
    let mut json = serde_json::to_value(&report.scores).expect("scores serialise");
    json["calibration"] = serde_json::json!({"ece_before": uncalibrated.ece, "ece_after": given.ece, "temperatures": report.folds.iter().map(|f| f.0).collect::<Vec<_>>()});
    if let Some([own_rate, swapped, negatives]) = nei_rates {
        json["abstention"] = serde_json::json!({
            "coverage": given.coverage,
            "nei_rate_own_evidence": own_rate,
            "nei_rate_swapped_evidence": swapped,
            "nei_rate_retrieved_negatives": negatives,
            "four_way": crate::verify::score_outcomes(&own.iter().map(|(g, p)| (*g, Some(p.label))).collect::<Vec<_>>()),
            "answered": given.answered,
            "thresholds": report.folds.iter().map(|f| f.1).collect::<Vec<_>>(),
        });
    }
    json["risk_coverage"] = serde_json::to_value(&given.curve).expect("the curve serialises");
    crate::io::write_replacing(&output.join("cv_scores.json"), serde_json::to_string_pretty(&json).expect("scores serialise").as_bytes())?;
    Ok(CvSummary { folds: config.folds, scores: report.scores, ece_before: uncalibrated.ece, selective: given, nei_rates, json })
}

