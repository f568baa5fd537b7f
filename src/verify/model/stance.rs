//! Per-evidence stance: for each evidence text, whether it supports the claim, refutes it or does
//! not bear on it, with the model's probabilities, and a verdict aggregated from the stances.
//!
//! **The model.** A claim vector u and an evidence vector v from the sentence encoder (the
//! installed all-MiniLM-L6-v2, `TextKind::Query` for the claim and `Passage` for the text) give the
//! pair's features `[u, v, |u − v|, u ∘ v, u · v]` (InferSent's, 4·dim + 1 values), followed by
//! the numbers compared as numbers ([`numeric_signals`]: whether a quantity of the text comparable
//! with the claim's agrees with it, whether one disagrees, and by how much), and a
//! [`Linear`] softmax model (class-balanced, as scikit-learn's `LogisticRegression`) maps them to
//! the three stances. It is trained on sentences labelled by annotators (CLIMATE-FEVER's 3,840
//! claim–sentence pairs, `data/climate-fever/`): 0.5106 sentence macro-F1 in the grouped folds
//! below. Alternatives measured on the same folds (README, "Per-evidence stance"): the trained
//! verifier's verdict read as a stance, 0.4013; the vector features without the numbers, 0.5038
//! (scikit-learn: 0.5064); the encoder run over the concatenated pair (a frozen cross-encoder),
//! 0.4361 in scikit-learn. The PyPI `contract-nli` decomposable-attention model was not ported: it
//! is trained on non-disclosure agreements (ContractNLI), with a 4,792-word case-sensitive
//! vocabulary of contract terms.
//!
//! **Calibration.** A temperature ([`Temperature`], fitted as the trained verifier's is) scales the
//! model's probabilities; it is fitted on out-of-fold stances, so the class-balanced model's
//! over-sharp probabilities are read as what they are worth (sentence-level ECE 0.055 before it,
//! 0.012 after, in the grouped folds).
//!
//! **The verdict.** With s the strongest support among the texts and r the strongest refutation
//! ([`Aggregation::verdict`]): both at least `both` → Conflicting; else the larger one, if at least
//! `bears`, → True (s) or False (r), s winning a tie; else Not Enough Info. The two thresholds are
//! chosen on out-of-fold stances, for the four-way macro-F1 over the training claims.
//!
//! **Cross-validation** ([`cross_validate`]) is grouped by claim: the claims in the file's order,
//! claim i in fold i mod k, so no claim's sentences are on both sides. Each fold's stances come
//! from a model trained on the other folds, and its temperature and thresholds are chosen on the
//! other folds' out-of-fold stances. The swap test gives each held-out claim the next held-out
//! claim's texts (the fold's order, wrapped), as `scripts/bench/climate_fever_verify.py` does for
//! the baseline.

use std::path::Path;
use std::time::Instant;

use super::calibrate::Temperature;
use super::linear::{Linear, LinearConfig};
use super::text::SparseRow;
use crate::error::{Error, Result};
use crate::index::dense::{Encoder, TextKind};
use crate::io::Progress;
use crate::verify::{score, score_outcomes, EvidenceStance, Label, LabelSet, Stance, StanceClaim, VerifyScores};

pub use crate::verify::STANCE_FILE;

/// How a stance model is trained.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct StanceConfig {
    /// Folds of the grouped cross-validation (0: none; then the thresholds are chosen on the
    /// training stances themselves).
    pub folds: usize,
    /// The model's training settings.
    pub linear: LinearConfig,
}

impl Default for StanceConfig {
    fn default() -> Self {
        // C = 0.1: the best of 0.1 and 1 in the grouped folds (scikit-learn, the vector features:
        // macro-F1 0.5064 against 0.5007).
        StanceConfig { folds: 5, linear: LinearConfig { epochs: 200, learning_rate: 0.05, c: 0.1 } }
    }
}

/// The thresholds that turn stances into a verdict (module doc).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Aggregation {
    /// The strongest support or refutation needed for True or False.
    pub bears: f64,
    /// The support and the refutation both needed for Conflicting.
    pub both: f64,
}

impl Aggregation {
    /// What [`Aggregation::check`] holds the thresholds to.
    pub const EXPECTED: &'static str = "thresholds between 0 and 1.01 (1.01: never)";

    /// Refuses thresholds out of range (a damaged or hand-edited file): what was found.
    pub fn check(&self) -> std::result::Result<(), String> {
        let Aggregation { bears, both } = *self;
        if (0.0..=1.01).contains(&bears) && (0.0..=1.01).contains(&both) {
            Ok(())
        } else {
            Err(format!("bears {bears}, both {both}"))
        }
    }

    /// The verdict and its confidence from the stances' probabilities (in [`Stance::ALL`] order).
    pub fn verdict(&self, stances: &[[f64; 3]]) -> (Label, f64) {
        let strongest = |k: usize| stances.iter().map(|p| p[k]).fold(0.0, f64::max);
        let (s, r) = (strongest(Stance::Supports.index()), strongest(Stance::Refutes.index()));
        if s >= self.both && r >= self.both {
            (Label::Conflicting, s.min(r))
        } else if s.max(r) >= self.bears {
            if s >= r { (Label::True, s) } else { (Label::False, r) }
        } else {
            (Label::NotEnoughInfo, 1.0 - s.max(r))
        }
    }

    /// [`Aggregation::verdict`] among `labels`: a verdict they leave out becomes the most probable
    /// allowed one of True (the strongest support), False (the strongest refutation) and
    /// Conflicting (the weaker of the two); Not Enough Info stays where the labels are QuanTemp's
    /// three, as an abstention does.
    pub fn verdict_among(&self, stances: &[[f64; 3]], labels: LabelSet) -> (Label, f64) {
        let (label, confidence) = self.verdict(stances);
        let keeps_nei = label == Label::NotEnoughInfo && labels == LabelSet::default();
        if labels.contains(label) || keeps_nei {
            return (label, confidence);
        }
        let strongest = |k: usize| stances.iter().map(|p| p[k]).fold(0.0, f64::max);
        let (s, r) = (strongest(Stance::Supports.index()), strongest(Stance::Refutes.index()));
        labels.pick(&[s, r, s.min(r)])
    }

    /// The thresholds (on a 0.025 grid) with the best four-way macro-F1 over `claims`: each
    /// claim's stance probabilities and its gold label. The first best in grid order wins.
    pub fn fit(claims: &[(&[[f64; 3]], Label)]) -> Aggregation {
        let grid: Vec<f64> = (12..=40).map(|i| f64::from(i) * 0.025).collect();
        let mut best = (f64::NEG_INFINITY, Aggregation { bears: 0.5, both: 1.0 });
        for (i, &bears) in grid.iter().enumerate() {
            for &both in grid[i..].iter().chain([&1.01]) {
                let candidate = Aggregation { bears, both };
                let pairs: Vec<(Label, Label)> = claims.iter().map(|(p, gold)| (*gold, candidate.verdict(p).0)).collect();
                let f1 = score(&pairs).macro_f1;
                if f1 > best.0 {
                    best = (f1, candidate);
                }
            }
        }
        best.1
    }
}

/// A trained stance model.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StanceModel {
    /// The encoder's name (`quantir-encoder.json`'s), which must encode the texts it judges.
    pub encoder: String,
    /// Its model folder as trained (looked for by name under the model roots where it is not
    /// found there).
    pub encoder_dir: std::path::PathBuf,
    /// Its model file's sha256, checked when the stance model is opened.
    pub encoder_sha256: String,
    /// The encoder's dimension.
    pub dim: usize,
    /// The softmax model over the pair features, classes in [`Stance::ALL`] order.
    pub model: Linear,
    /// The temperature its probabilities are scaled by (none: as the model gives them).
    pub temperature: Option<Temperature>,
    /// How the stances make a verdict.
    pub aggregation: Aggregation,
}

/// Values of [`numeric_signals`] per pair.
pub const NUMERIC: usize = 3;

/// The claim's quantities against each text's ([`crate::analysis::quantity::compare`]: same unit
/// family and scale, same counted thing and year preferred, numbers written as words read): per
/// text, 1 when a comparable quantity agrees with the claim's, 1 when one disagrees, and the
/// smallest disagreement as ln(1 + |relative difference|), at most 3 (0 when none disagrees).
pub fn numeric_signals(claim: &str, texts: &[&str]) -> Vec<[f32; NUMERIC]> {
    use crate::analysis::quantity::{compare, quantities, Agreement};
    let claimed = quantities(claim);
    if claimed.is_empty() {
        return vec![[0.0; NUMERIC]; texts.len()];
    }
    let found: Vec<_> = texts.iter().map(|t| quantities(t)).collect();
    let mut signals = vec![[0.0f32; NUMERIC]; texts.len()];
    let mut nearest = vec![f64::INFINITY; texts.len()];
    for c in compare(&claimed, &found) {
        let s = &mut signals[c.passage];
        match c.agreement {
            Some(Agreement::Agrees) => s[0] = 1.0,
            Some(Agreement::Disagrees) => {
                s[1] = 1.0;
                let far = c.relative_difference.map_or(3.0, |d| d.abs().ln_1p().min(3.0));
                nearest[c.passage] = nearest[c.passage].min(far);
            }
            None => {}
        }
    }
    for (s, far) in signals.iter_mut().zip(nearest) {
        if far.is_finite() {
            s[2] = far as f32;
        }
    }
    signals
}

/// The pair features of claim vector `u`, evidence vector `v` and their [`numeric_signals`]
/// (module doc).
pub fn pair_features(u: &[f32], v: &[f32], numeric: &[f32; NUMERIC]) -> SparseRow {
    let dim = u.len();
    let mut row: SparseRow = Vec::with_capacity(columns(dim));
    let mut push = |values: &mut dyn Iterator<Item = f32>| {
        for x in values {
            row.push((row.len() as u32, x));
        }
    };
    push(&mut u.iter().copied());
    push(&mut v.iter().copied());
    push(&mut u.iter().zip(v).map(|(a, b)| (a - b).abs()));
    push(&mut u.iter().zip(v).map(|(a, b)| a * b));
    push(&mut std::iter::once(u.iter().zip(v).map(|(a, b)| a * b).sum()));
    push(&mut numeric.iter().copied());
    row
}

fn columns(dim: usize) -> usize {
    4 * dim + 1 + NUMERIC
}

fn as_f64(p: [f32; 3]) -> [f64; 3] {
    p.map(f64::from)
}

/// The stance with the highest probability (the first in [`Stance::ALL`] order on a tie).
pub fn judged(probabilities: [f64; 3]) -> EvidenceStance {
    let best = (0..3).fold(0, |best, k| if probabilities[k] > probabilities[best] { k } else { best });
    EvidenceStance { stance: Stance::ALL[best], probability: probabilities[best], supports: probabilities[0], refutes: probabilities[1], does_not_bear: probabilities[2] }
}

impl StanceModel {
    /// The stance probabilities of each evidence vector against the claim vector, with the
    /// texts' [`numeric_signals`].
    pub fn probabilities(&self, claim: &[f32], evidence: &[&[f32]], numeric: &[[f32; NUMERIC]]) -> Vec<[f64; 3]> {
        evidence
            .iter()
            .zip(numeric)
            .map(|(v, n)| {
                let p = as_f64(self.model.predict(&pair_features(claim, v, n)));
                self.temperature.map_or(p, |t| t.apply(&p))
            })
            .collect()
    }

    /// The stance probabilities of each claim's texts with `encoder` (checked once with
    /// [`StanceModel::check_encoder`]), every claim and every text encoded in one call each (a batch pads and runs as the encoder batches it, not claim by claim).
    pub fn probabilities_of(&self, encoder: &Encoder, claims: &[(&str, &[&str])]) -> Result<Vec<Vec<[f64; 3]>>> {
        let texts: Vec<&str> = claims.iter().flat_map(|(_, texts)| texts.iter().copied()).collect();
        if texts.is_empty() {
            return Ok(vec![Vec::new(); claims.len()]);
        }
        let (us, _) = encoder.encode(&claims.iter().map(|(claim, _)| *claim).collect::<Vec<_>>(), TextKind::Query)?;
        let (vs, dim) = encoder.encode(&texts, TextKind::Passage)?;
        if dim != self.dim {
            return Err(Error::InvalidArgument { name: "stance", message: format!("the encoder gives {dim}-dimensional vectors, the stance model was trained on {}-dimensional ones\n\nhint: train it again with quantir train-stance", self.dim) });
        }
        let mut vectors = vs.chunks(dim);
        Ok(claims
            .iter()
            .zip(us.chunks(dim))
            .map(|((claim, texts), u)| {
                let own: Vec<&[f32]> = vectors.by_ref().take(texts.len()).collect();
                self.probabilities(u, &own, &numeric_signals(claim, texts))
            })
            .collect())
    }

    /// Refuses an encoder other than the one the model was trained with: another name, or the
    /// same name with other weights.
    pub fn check_encoder(&self, encoder: &Encoder) -> Result<()> {
        let name = &encoder.config().name;
        let sha256 = encoder.config().model_sha256(encoder.dir())?;
        if *name != self.encoder || sha256 != self.encoder_sha256 {
            return Err(Error::InvalidArgument {
                name: "stance",
                message: format!("the stance model was trained on the vectors of {} (model sha256 {}), not of {name} in {} (sha256 {sha256})\n\nhint: give --dense the encoder it was trained with, or train it again with quantir train-stance", self.encoder, self.encoder_sha256, encoder.dir().display()),
            });
        }
        Ok(())
    }

    /// Writes `dir/stance.json` through a temporary file and a rename.
    pub fn save(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
        crate::io::write_replacing(&dir.join(STANCE_FILE), &serde_json::to_vec(self).expect("a stance model serialises"))
    }

    /// Reads `dir/stance.json`, refusing it — so nothing is judged with it — when it is not the
    /// file `quantir train-stance` wrote ([`crate::provenance::read_folder`]), or when its
    /// weights do not fit its dimension or its temperature or thresholds are out of range.
    pub fn load(dir: &Path) -> Result<StanceModel> {
        let text = crate::provenance::read_folder(dir, crate::provenance::Artifact::StanceModel, STANCE_FILE, &[])?.main;
        Self::parse(&dir.join(STANCE_FILE), &text)
    }

    /// The stance model in `text` (read from `path`), its shape and ranges checked.
    fn parse(path: &Path, text: &str) -> Result<StanceModel> {
        let path = path.to_path_buf();
        let at = crate::error::Position { line: 1, column: Some(1) };
        let model: StanceModel = serde_json::from_str(text).map_err(|e| crate::io::json_error(&path, at, &e))?;
        let bad = |field: &str, expected: String, found: String| Error::Parse { path: path.clone(), at, field: field.into(), expected, found: format!("{found}\n\nhint: train it again with quantir train-stance") };
        let weights = 3 * columns(model.dim);
        if model.dim == 0 || model.model.weights.len() != weights {
            return Err(bad("model.weights", format!("3 × (4 × dim + {}) = {weights} values for dim {}", 1 + NUMERIC, model.dim), format!("{} values", model.model.weights.len())));
        }
        if !model.model.weights.iter().chain(&model.model.bias).all(|w| w.is_finite()) {
            return Err(bad("model", "finite weights".into(), "a value that is not".into()));
        }
        if let Some(Temperature(t)) = model.temperature {
            if !(t.is_finite() && t > 0.0) {
                return Err(bad("temperature", "a positive number".into(), t.to_string()));
            }
        }
        model.aggregation.check().map_err(|found| bad("aggregation", Aggregation::EXPECTED.into(), found))?;
        Ok(model)
    }
}

/// The claims' and their texts' vectors, encoded once.
pub struct Encoded {
    /// Vector dimension.
    pub dim: usize,
    /// One vector per claim, in order.
    pub claims: Vec<f32>,
    /// Per claim, its texts' vectors, in order.
    pub evidence: Vec<Vec<f32>>,
    /// Seconds spent encoding.
    pub seconds: f64,
}

impl Encoded {
    /// Encodes `claims` and their texts with `encoder`.
    pub fn of(claims: &[StanceClaim], encoder: &Encoder, progress: &dyn Progress) -> Result<Encoded> {
        let started = Instant::now();
        progress.start("encoding claims and sentences", Some(claims.len() as u64));
        let texts: Vec<&str> = claims.iter().map(|c| c.claim.as_str()).collect();
        let (claim_vecs, dim) = encoder.encode(&texts, TextKind::Query)?;
        let mut evidence = Vec::with_capacity(claims.len());
        for chunk in claims.chunks(64) {
            let texts: Vec<&str> = chunk.iter().flat_map(|c| c.evidence.iter().map(|(t, _)| t.as_str())).collect();
            let (vecs, _) = encoder.encode(&texts, TextKind::Passage)?;
            let mut at = 0;
            for c in chunk {
                let n = c.evidence.len() * dim;
                evidence.push(vecs[at..at + n].to_vec());
                at += n;
            }
            progress.advance(chunk.len() as u64);
        }
        progress.finish();
        Ok(Encoded { dim, claims: claim_vecs, evidence, seconds: started.elapsed().as_secs_f64() })
    }

    fn claim(&self, i: usize) -> &[f32] {
        &self.claims[i * self.dim..(i + 1) * self.dim]
    }

    fn texts(&self, i: usize) -> Vec<&[f32]> {
        self.evidence[i].chunks(self.dim).collect()
    }
}

/// The numeric signals of claim `claim`'s text against claim `texts_of`'s texts.
fn signals(claims: &[StanceClaim], claim: usize, texts_of: usize) -> Vec<[f32; NUMERIC]> {
    numeric_signals(&claims[claim].claim, &claims[texts_of].evidence.iter().map(|(t, _)| t.as_str()).collect::<Vec<_>>())
}

fn train_on(claims: &[StanceClaim], encoded: &Encoded, which: &[usize], config: &StanceConfig) -> Linear {
    let mut rows = Vec::new();
    let mut y = Vec::new();
    for &i in which {
        let numeric = signals(claims, i, i);
        for ((v, (_, stance)), n) in encoded.texts(i).into_iter().zip(&claims[i].evidence).zip(&numeric) {
            rows.push(pair_features(encoded.claim(i), v, n));
            y.push(stance.index());
        }
    }
    Linear::train(&rows, columns(encoded.dim), &y, &config.linear)
}

/// A grouped cross-validation's figures (module doc).
#[derive(Debug, Clone, serde::Serialize)]
pub struct StanceCv {
    /// Folds.
    pub folds: usize,
    /// Each sentence's stance against the annotators' (scored as the verdict it alone would
    /// give: supports True, refutes False, does not bear Not Enough Info).
    pub stances: VerifyScores,
    /// The sentences' expected calibration error (the top stance's probability), each fold's
    /// temperature applied.
    pub stance_ece: f64,
    /// The same without the temperature.
    pub stance_ece_uncalibrated: f64,
    /// The aggregated verdicts over every claim, Not Enough Info a class of its own.
    pub claims_four_way: VerifyScores,
    /// The aggregated verdicts over the True/False/Conflicting claims (a Not Enough Info verdict
    /// is a miss).
    pub claims_three_way: VerifyScores,
    /// Share of claims whose verdict changes when their texts are another claim's.
    pub swap_changed: f64,
    /// Of those, the share that moved to Not Enough Info.
    pub swap_to_nei: f64,
    /// The thresholds each fold's verdicts were aggregated with.
    pub thresholds: Vec<Aggregation>,
}

/// The grouped cross-validation (module doc): out-of-fold stances for every claim's own texts and
/// for the swapped texts, calibrated and aggregated with the other folds' temperature and
/// thresholds, and scored.
pub fn cross_validate(claims: &[StanceClaim], encoded: &Encoded, config: &StanceConfig, progress: &dyn Progress) -> Result<OutOfFold> {
    let k = config.folds;
    if k < 2 || claims.len() < k {
        return Err(Error::InvalidArgument { name: "folds", message: format!("{k} folds need at least {k} claims and at least 2 folds; {} claims given", claims.len()) });
    }
    let fold_of = |i: usize| i % k;
    let mut own: Vec<Vec<[f64; 3]>> = vec![Vec::new(); claims.len()];
    let mut swapped: Vec<Vec<[f64; 3]>> = vec![Vec::new(); claims.len()];
    progress.start("cross-validating stances", Some(k as u64));
    for f in 0..k {
        let train: Vec<usize> = (0..claims.len()).filter(|&i| fold_of(i) != f).collect();
        let held: Vec<usize> = (0..claims.len()).filter(|&i| fold_of(i) == f).collect();
        let model = StanceModel { encoder: String::new(), encoder_dir: Default::default(), encoder_sha256: String::new(), dim: encoded.dim, model: train_on(claims, encoded, &train, config), temperature: None, aggregation: Aggregation { bears: 0.5, both: 1.0 } };
        for (j, &i) in held.iter().enumerate() {
            let other = held[(j + 1) % held.len()];
            own[i] = model.probabilities(encoded.claim(i), &encoded.texts(i), &signals(claims, i, i));
            swapped[i] = model.probabilities(encoded.claim(i), &encoded.texts(other), &signals(claims, i, other));
        }
        progress.advance(1);
    }
    progress.finish();
    // Each fold's stances scaled by the temperature fitted on the other folds'.
    let raw = own.clone();
    for f in 0..k {
        let others: Vec<usize> = (0..claims.len()).filter(|&i| fold_of(i) != f).collect();
        let temperature = fit_temperature(claims, &raw, &others);
        for i in (0..claims.len()).filter(|&i| fold_of(i) == f) {
            for p in own[i].iter_mut().chain(swapped[i].iter_mut()) {
                *p = temperature.apply(p);
            }
        }
    }
    let mut pairs = Vec::new();
    let (mut calibration, mut uncalibrated) = (Vec::new(), Vec::new());
    for (i, claim) in claims.iter().enumerate() {
        for ((p, q), (_, gold)) in own[i].iter().zip(&raw[i]).zip(&claim.evidence) {
            let judged = judged(*p);
            pairs.push((gold.verdict(), judged.stance.verdict()));
            calibration.push((judged.probability, judged.stance == *gold));
            let before = self::judged(*q);
            uncalibrated.push((before.probability, before.stance == *gold));
        }
    }
    let (mut four, mut three, mut thresholds) = (Vec::new(), Vec::new(), Vec::new());
    let (mut changed, mut to_nei) = (0usize, 0usize);
    for f in 0..k {
        let others: Vec<(&[[f64; 3]], Label)> = (0..claims.len()).filter(|&i| fold_of(i) != f).map(|i| (own[i].as_slice(), claims[i].label)).collect();
        let aggregation = Aggregation::fit(&others);
        thresholds.push(aggregation);
        for i in (0..claims.len()).filter(|&i| fold_of(i) == f) {
            let verdict = aggregation.verdict(&own[i]).0;
            let after = aggregation.verdict(&swapped[i]).0;
            four.push((claims[i].label, verdict));
            if claims[i].label != Label::NotEnoughInfo {
                three.push((claims[i].label, (verdict != Label::NotEnoughInfo).then_some(verdict)));
            }
            if after != verdict {
                changed += 1;
                to_nei += usize::from(after == Label::NotEnoughInfo);
            }
        }
    }
    let cv = StanceCv {
        folds: k,
        stances: score(&pairs),
        stance_ece: super::calibrate::ece(&calibration),
        stance_ece_uncalibrated: super::calibrate::ece(&uncalibrated),
        claims_four_way: score(&four),
        claims_three_way: score_outcomes(&three),
        swap_changed: changed as f64 / claims.len() as f64,
        swap_to_nei: to_nei as f64 / changed.max(1) as f64,
        thresholds,
    };
    Ok(OutOfFold { cv, raw, calibrated: own })
}

/// [`cross_validate`]'s figures and out-of-fold stances, per claim and text.
pub struct OutOfFold {
    /// The figures.
    pub cv: StanceCv,
    /// The stances as the folds' models gave them.
    pub raw: Vec<Vec<[f64; 3]>>,
    /// Scaled by each fold's temperature: what the figures score.
    pub calibrated: Vec<Vec<[f64; 3]>>,
}

/// The temperature that fits the stances of `which` claims' texts to their gold stances.
fn fit_temperature(claims: &[StanceClaim], stances: &[Vec<[f64; 3]>], which: &[usize]) -> Temperature {
    let (probabilities, gold): (Vec<[f64; 3]>, Vec<usize>) = which.iter().flat_map(|&i| stances[i].iter().zip(&claims[i].evidence).map(|(p, (_, g))| (*p, g.index()))).unzip();
    Temperature::fit(&probabilities, &gold)
}

/// What [`train_stance`] made and measured.
pub struct StanceTraining {
    /// The model trained on every claim.
    pub model: StanceModel,
    /// The grouped cross-validation, when asked for.
    pub cv: Option<StanceCv>,
    /// Its out-of-fold stance probabilities as scored (each fold's temperature applied), per claim
    /// and text (empty without one).
    pub out_of_fold: Vec<Vec<[f64; 3]>>,
    /// Seconds encoding.
    pub encode_seconds: f64,
    /// Seconds in all.
    pub seconds: f64,
}

/// Trains a stance model on `claims` (after a grouped cross-validation when `config.folds` > 0,
/// whose out-of-fold stances choose the thresholds; else they are chosen on the training stances).
pub fn train_stance(claims: &[StanceClaim], encoder: &Encoder, config: &StanceConfig, progress: &dyn Progress) -> Result<StanceTraining> {
    let started = Instant::now();
    let encoded = Encoded::of(claims, encoder, progress)?;
    let out_of_fold = if config.folds > 0 { Some(cross_validate(claims, &encoded, config, progress)?) } else { None };
    let all: Vec<usize> = (0..claims.len()).collect();
    let encoder_sha256 = encoder.config().model_sha256(encoder.dir())?;
    let mut model = StanceModel { encoder: encoder.config().name.clone(), encoder_dir: encoder.dir().to_path_buf(), encoder_sha256, dim: encoded.dim, model: train_on(claims, &encoded, &all, config), temperature: None, aggregation: Aggregation { bears: 0.5, both: 1.0 } };
    // Without folds, no temperature: the training stances would fit one too sharp.
    let stances: Vec<Vec<[f64; 3]>> = match &out_of_fold {
        Some(oof) => {
            let temperature = fit_temperature(claims, &oof.raw, &all);
            model.temperature = Some(temperature);
            oof.raw.iter().map(|ps| ps.iter().map(|p| temperature.apply(p)).collect()).collect()
        }
        None => all.iter().map(|&i| model.probabilities(encoded.claim(i), &encoded.texts(i), &signals(claims, i, i))).collect(),
    };
    let labelled: Vec<(&[[f64; 3]], Label)> = stances.iter().zip(claims).map(|(p, c)| (p.as_slice(), c.label)).collect();
    model.aggregation = Aggregation::fit(&labelled);
    let (cv, out_of_fold) = out_of_fold.map_or((None, Vec::new()), |oof| (Some(oof.cv), oof.calibrated));
    Ok(StanceTraining { model, cv, out_of_fold, encode_seconds: encoded.seconds, seconds: started.elapsed().as_secs_f64() })
}

/// [`train_stance`] on the claims of `claims_file` ([`crate::verify::read_stance_claims`]), the
/// model written into `output` ([`STANCE_FILE`]) with the cross-validation's figures
/// (`cv_scores.json`) and out-of-fold stances (`cv_stances.jsonl`: `{"id", "text", "gold",
/// "stance", "supports", "refutes", "does_not_bear"}` a text, `text` its position in the claim's
/// list), and what made them (`provenance.json`: the claims file, the encoder's model file, the
/// settings). `quantir train-stance` is this call.
pub fn train_stance_to_dir(claims_file: &Path, encoder: &Encoder, config: &StanceConfig, output: &Path, progress: &dyn Progress) -> Result<StanceTraining> {
    let claims = crate::verify::read_stance_claims(claims_file)?;
    let training = train_stance(&claims, encoder, config, progress)?;
    std::fs::create_dir_all(output).map_err(|e| Error::io(output, e))?;
    training.model.save(output)?;
    if let Some(cv) = &training.cv {
        crate::io::write_replacing(&output.join("cv_scores.json"), serde_json::to_string_pretty(cv).expect("scores serialise").as_bytes())?;
        let rows: Vec<serde_json::Value> = claims
            .iter()
            .zip(&training.out_of_fold)
            .flat_map(|(claim, stances)| {
                claim.evidence.iter().zip(stances).enumerate().map(|(k, ((_, gold), p))| {
                    let judged = judged(*p);
                    serde_json::json!({"id": claim.id, "text": k, "gold": gold, "stance": judged.stance, "supports": judged.supports, "refutes": judged.refutes, "does_not_bear": judged.does_not_bear})
                })
            })
            .collect();
        crate::io::write_jsonl(&output.join("cv_stances.jsonl"), &rows)?;
    }
    use crate::provenance::{Artifact, Input, Provenance, Role};
    let pairs: usize = claims.iter().map(|c| c.evidence.len()).sum();
    let counts = [("claims".to_string(), claims.len() as u64), ("pairs".to_string(), pairs as u64)].into();
    let inputs = vec![Input::file(Role::TrainingClaims, claims_file)?, Input::file(Role::Model, &encoder.dir().join(&encoder.config().model))?];
    Provenance::new(Artifact::StanceModel, inputs, config).with_counts(counts).write_into(output, STANCE_FILE, &[])?;
    Ok(training)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agg() -> Aggregation {
        Aggregation { bears: 0.5, both: 0.4 }
    }

    #[test]
    fn strong_evidence_both_ways_is_conflicting() {
        let (label, confidence) = agg().verdict(&[[0.7, 0.1, 0.2], [0.1, 0.45, 0.45]]);
        assert_eq!((label, confidence), (Label::Conflicting, 0.45));
    }

    #[test]
    fn the_strongest_stance_decides_and_weak_ones_say_nothing() {
        assert_eq!(agg().verdict(&[[0.2, 0.6, 0.2], [0.3, 0.1, 0.6]]), (Label::False, 0.6));
        assert_eq!(agg().verdict(&[[0.55, 0.3, 0.15]]), (Label::True, 0.55));
        let (label, confidence) = agg().verdict(&[[0.3, 0.2, 0.5]]);
        assert_eq!(label, Label::NotEnoughInfo);
        assert!((confidence - 0.7).abs() < 1e-12);
        assert_eq!(agg().verdict(&[]).0, Label::NotEnoughInfo);
    }

    #[test]
    fn a_verdict_the_labels_leave_out_is_the_best_allowed_one() {
        let stances = [[0.7, 0.1, 0.2], [0.1, 0.45, 0.45]];
        let binary = LabelSet::parse("true,false").unwrap();
        assert_eq!(agg().verdict_among(&stances, binary).0, Label::True);
        assert_eq!(agg().verdict_among(&stances, LabelSet::default()).0, Label::Conflicting);
        // Not Enough Info stays with QuanTemp's three labels, as an abstention does.
        assert_eq!(agg().verdict_among(&[[0.3, 0.2, 0.5]], LabelSet::default()).0, Label::NotEnoughInfo);
        assert_eq!(agg().verdict_among(&[[0.3, 0.2, 0.5]], binary), (Label::True, 0.6));
    }

    #[test]
    fn thresholds_are_fitted_to_the_gold_labels() {
        let supports = [[0.8, 0.1, 0.1]];
        let weak = [[0.35, 0.05, 0.6]];
        let both = [[0.6, 0.55, 0.1]];
        let claims: Vec<(&[[f64; 3]], Label)> = vec![(&supports, Label::True), (&weak, Label::NotEnoughInfo), (&both, Label::Conflicting)];
        let fitted = Aggregation::fit(&claims);
        for (p, gold) in &claims {
            assert_eq!(fitted.verdict(p).0, *gold, "{fitted:?}");
        }
    }

    #[test]
    fn pair_features_are_u_v_difference_product_and_cosine() {
        let row = pair_features(&[1.0, 0.0], &[0.5, 0.5], &[0.0, 1.0, 0.25]);
        let values: Vec<f32> = row.iter().map(|&(_, x)| x).collect();
        assert_eq!(values, vec![1.0, 0.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.0, 0.5, 0.0, 1.0, 0.25]);
        assert!(row.iter().enumerate().all(|(i, &(c, _))| c as usize == i));
        assert_eq!(row.len(), columns(2));
    }

    #[test]
    fn numbers_are_compared_as_numbers_written_as_words_included() {
        let claim = "Finland: 12 of its 19 cabinet members are women";
        let texts = ["twelve of the nineteen new finnish cabinet members are women", "only five of the nineteen new finnish cabinet members are women", "the cabinet met on Tuesday"];
        let s = numeric_signals(claim, &texts);
        assert_eq!(s[0], [1.0, 0.0, 0.0]);
        assert_eq!(&s[1][..2], &[0.0, 1.0]);
        assert!((s[1][2] - (7.0f32 / 12.0).ln_1p()).abs() < 1e-4, "{:?}", s[1]);
        assert_eq!(s[2], [0.0; NUMERIC]);
        assert_eq!(numeric_signals("the cabinet is new", &texts), vec![[0.0; NUMERIC]; 3]);
    }

    #[test]
    fn a_tie_between_stances_goes_to_the_first() {
        assert_eq!(judged([0.4, 0.4, 0.2]).stance, Stance::Supports);
        assert_eq!(judged([0.2, 0.4, 0.4]).stance, Stance::Refutes);
    }
}
