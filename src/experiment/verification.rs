//! QuanTemp++'s verification experiment (the paper's Table 5 layout): for each planner, a verifier
//! trained on the training claims with that planner's evidence, scored on the test claims with
//! that planner's evidence.
//!
//! - **Evidence**: each claim's first `top` (3) documents of the planner's run under the claim's
//!   own cutoff (the temporal filter on), with one retriever (BM25 by default). The test runs are
//!   the retrieval grid's own files; the training runs are made the same way over `train.json`
//!   (`runs/train.*.trec`).
//! - **Verifier**: quantir's trained verifier ([`crate::verify::model::trained`], its default features),
//!   with neither a fitted temperature nor abstention: QuanTemp's three labels, as the paper. A
//!   planner with no queries for the training claims (QGen: `qgen_out.csv` holds the test claims'
//!   only) is scored with the verifier trained on claim-only evidence, and the table says so.
//! - **Scores**: accuracy, F1 per class, weighted-F1 and macro-F1 over the test claims
//!   (scikit-learn's definitions, [`crate::verify::score_outcomes`]).
//! - **Significance** (†): macro-F1 and weighted-F1 on each of `folds` (10) contiguous folds of the
//!   test claims in file order ([`fold_scores`], as `verify-eval --folds`), and a paired two-sided
//!   t-test of each planner's per-fold figures against claim-only's, p < 0.05. The reference code
//!   folds with scikit-learn's shuffled `KFold(10, random_state=42)`: the same test on other folds.
//! - **Resumable**: verifiers (`verifiers/PLANNER.RETRIEVER/verifier.json`) and predictions
//!   (`verification/PLANNER.RETRIEVER.jsonl`) record what made them — the training claims' digest
//!   and the training run's fingerprint, the verifier's fingerprint and the test run's — and are
//!   reused only when that record matches ([`super::Resume`]).
//! - **Claims without a date** are left out, of the test claims as of the training claims: their
//!   evidence cannot be cut off at their date ([`super::ClaimSet`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{cached_run, reusable, retriever_key, run_file, ClaimSet, PaperPlanner, Session, Split};
use crate::error::{Error, Result};
use crate::eval::paired_t_test;
use crate::io::Progress;
use crate::provenance::{Artifact, Fingerprint, Input, Provenance, Role};
use crate::retrieve::{Retriever, TemporalFilter};
use crate::verify::pipeline::examples_from_run;
use crate::verify::VERIFIER_FILE;
use crate::verify::model::trained::{TrainConfig, TrainedVerifier, TrainingSet};
use crate::verify::{fold_scores, read_gold, read_predictions, score_outcomes, Label, LabelSet, Prediction, VerifyScores};

/// How the verification table is made.
#[derive(Debug, Clone, PartialEq)]
pub struct VerificationConfig {
    /// The retriever whose runs give the evidence.
    pub retriever: Retriever,
    /// Evidence texts per claim.
    pub top: usize,
    /// Folds of the significance test.
    pub folds: usize,
    /// How each verifier is trained (no cross-validation, temperature or abstention by default).
    pub train: TrainConfig,
}

impl Default for VerificationConfig {
    /// BM25's top 3 under each claim's cutoff, 10 folds, the trained verifier's default features.
    fn default() -> Self {
        VerificationConfig { retriever: Retriever::Bm25, top: 3, folds: 10, train: TrainConfig { folds: 0, calibrate: false, abstain: false, top: 3, ..TrainConfig::default() } }
    }
}

/// One planner's verification scores.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct VerificationRow {
    /// The planner whose test evidence the verifier read.
    pub planner: PaperPlanner,
    /// The planner whose training evidence the verifier was trained on (module doc).
    pub trained_on: PaperPlanner,
    /// The predictions file.
    pub predictions: PathBuf,
    /// Scores over every test claim.
    pub scores: VerifyScores,
    /// Macro-F1 per fold.
    pub fold_macro_f1: Vec<f64>,
    /// Weighted-F1 per fold.
    pub fold_weighted_f1: Vec<f64>,
    /// p of the paired t-test of the per-fold macro-F1 against claim-only (none for claim-only).
    pub p_macro_f1: Option<f64>,
    /// The same for weighted-F1.
    pub p_weighted_f1: Option<f64>,
}

impl VerificationRow {
    /// Whether macro-F1 differs significantly from claim-only's (p < 0.05).
    pub fn macro_significant(&self) -> bool {
        self.p_macro_f1.is_some_and(|p| p < 0.05)
    }

    /// Whether weighted-F1 differs significantly from claim-only's (p < 0.05).
    pub fn weighted_significant(&self) -> bool {
        self.p_weighted_f1.is_some_and(|p| p < 0.05)
    }
}

/// The verification table.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct VerificationTable {
    /// The retriever of the evidence.
    pub retriever: Retriever,
    /// Evidence texts per claim.
    pub top: usize,
    /// Folds of the significance test.
    pub folds: usize,
    /// What made the table (as the retrieval tables' record, with the training claims).
    pub provenance: Provenance,
    /// Labelled training claims each verifier learnt from.
    pub train_claims: usize,
    /// Training claims left out for want of a date.
    pub train_undated: usize,
    /// Test claims scored.
    pub test_claims: usize,
    /// One row per planner, claim-only first.
    pub rows: Vec<VerificationRow>,
}

/// The labels of QuanTemp's three classes, the columns of the per-class F1.
const CLASSES: [Label; 3] = [Label::True, Label::False, Label::Conflicting];

/// The settings a verifier's or a predictions file's record keeps.
#[derive(serde::Serialize)]
struct VerifierSettings<'a> {
    retriever: Retriever,
    top: usize,
    train: &'a TrainConfig,
}

/// Trains (or reuses) a verifier per planner and scores each planner's evidence for the test
/// claims `test` ([`super::QuantempFolder::test_claims`]).
pub fn run_verification(session: &Session, test: &ClaimSet, judged: &super::Judged, verification: &VerificationConfig, progress: &dyn Progress, log: &mut dyn FnMut(&str)) -> Result<VerificationTable> {
    let folder = session.folder;
    let train_path = folder.train.as_deref().ok_or_else(|| Error::InvalidArgument { name: "data", message: format!("{} has no train.json: the verification table trains its verifiers on it", folder.test.parent().unwrap_or(Path::new(".")).display()) })?;
    let retriever = verification.retriever;
    let test_gold = read_gold(&folder.test)?;
    let test_claims = &test.claims;
    let test_labels = test_claims
        .iter()
        .map(|c| test_gold.get(&c.id).map(|g| g.label).ok_or_else(|| Error::Value { at: format!("{}[{}][\"label\"]", folder.test.display(), c.id), expected: "a label (True, False or Conflicting): every test claim is scored".into(), found: "nothing".into() }))
        .collect::<Result<Vec<Label>>>()?;
    let mut trainer = Trainer { session, verification, train_path, train: None, verifiers: HashMap::new() };
    let mut planners: Vec<PaperPlanner> = vec![PaperPlanner::ClaimOnly];
    planners.extend(session.config.planners.iter().copied().filter(|p| *p != PaperPlanner::ClaimOnly));
    let predictions_dir = session.out.join("verification");
    std::fs::create_dir_all(&predictions_dir).map_err(|e| Error::io(&predictions_dir, e))?;
    let mut rows: Vec<VerificationRow> = Vec::new();
    for planner in planners {
        let Some(spec) = planner.spec(folder) else {
            log(&format!("verification: skipping {}: the folder has no qgen_out.csv", planner.name()));
            continue;
        };
        let trained_on = if planner.train_spec(folder).is_some() { planner } else { PaperPlanner::ClaimOnly };
        let path = predictions_dir.join(format!("{}.{}.jsonl", planner.key(), retriever_key(retriever)));
        let run_path = run_file(&session.out.join("runs"), Split::Test, planner, TemporalFilter::Claim, retriever);
        let made = cached_run(session, test, planner, &spec, retriever, TemporalFilter::Claim, (session.config.k, session.config.plan_run.depth), &run_path, progress, log)?;
        let (verifier_fingerprint, _) = trainer.verifier(trained_on, progress, log)?;
        let inputs = vec![Input::artifact(Role::Verifier, &session.out.join("verifiers"), verifier_fingerprint), Input::artifact(Role::Run, &run_path, made.fingerprint.clone()), test.input(Role::Claims)];
        let expected = Provenance::new(Artifact::Predictions, inputs, &VerifierSettings { retriever, top: verification.top, train: &verification.train });
        let predictions = if reusable(&path, None, &expected, session.config.resume, log)? {
            read_predictions(&path)?
        } else {
            let examples = examples_from_run(session.index, &made.run, test_claims, verification.top)?;
            let (_, verifier) = trainer.verifier(trained_on, progress, log)?;
            let predictions = verifier.predict(&examples, None, verification.top, LabelSet::default(), progress)?;
            write_predictions(&path, &predictions)?;
            expected.write_beside(&path)?;
            log(&format!("verified {} test claims with {}'s evidence into {}", predictions.len(), planner.name(), path.display()));
            predictions
        };
        let by_id: HashMap<&str, Label> = predictions.iter().map(|p| (p.id.as_str(), p.label)).collect();
        // A claim without a prediction counts wrong, as a failed run does.
        let outcomes: Vec<(Label, Option<Label>)> = test_claims.iter().zip(&test_labels).map(|(c, &gold)| (gold, by_id.get(c.id.as_str()).copied())).collect();
        let folds = fold_scores(&outcomes, verification.folds.clamp(1, outcomes.len().max(1)));
        let fold_macro_f1: Vec<f64> = folds.iter().map(|s| s.macro_f1).collect();
        let fold_weighted_f1: Vec<f64> = folds.iter().map(|s| s.weighted_f1).collect();
        let (p_macro_f1, p_weighted_f1) = match rows.first() {
            None => (None, None),
            Some(base) => (Some(paired_p(&base.fold_macro_f1, &fold_macro_f1)), Some(paired_p(&base.fold_weighted_f1, &fold_weighted_f1))),
        };
        rows.push(VerificationRow { planner, trained_on, predictions: path, scores: score_outcomes(&outcomes), fold_macro_f1, fold_weighted_f1, p_macro_f1, p_weighted_f1 });
    }
    let train = trainer.train()?;
    let (train_claims, train_undated) = (train.labelled(), train.set.undated.len());
    let mut provenance = session.provenance(test, judged)?;
    provenance.inputs.push(train.set.input(Role::TrainingClaims));
    let provenance = Provenance::new(Artifact::Tables, provenance.inputs, &(&provenance.settings, VerifierSettings { retriever, top: verification.top, train: &verification.train }, verification.folds));
    Ok(VerificationTable { retriever, top: verification.top, folds: verification.folds, provenance, train_claims, train_undated, test_claims: test_claims.len(), rows })
}

/// The p of the paired t-test between per-fold figures.
fn paired_p(base: &[f64], other: &[f64]) -> f64 {
    let diffs: Vec<f64> = other.iter().zip(base).map(|(o, b)| o - b).collect();
    paired_t_test(&diffs)
}

/// Predictions JSONL (`verify`'s format), written whole through a rename.
fn write_predictions(path: &Path, predictions: &[Prediction]) -> Result<()> {
    let mut text = String::new();
    for p in predictions {
        text.push_str(&serde_json::to_string(p).expect("predictions serialise"));
        text.push('\n');
    }
    crate::io::write_replacing(path, text.as_bytes())
}

/// The verifiers of one experiment, trained once each (or read back from an earlier one).
struct Trainer<'a> {
    session: &'a Session<'a>,
    verification: &'a VerificationConfig,
    train_path: &'a Path,
    /// The training claims, read when first needed ([`Trainer::train`]).
    train: Option<Labelled>,
    verifiers: HashMap<PaperPlanner, (Fingerprint, TrainedVerifier)>,
}

/// The dated training claims and their labels, side by side (a claim of `train.json` may have
/// none).
struct Labelled {
    set: ClaimSet,
    labels: Vec<Option<Label>>,
}

impl Labelled {
    fn labelled(&self) -> usize {
        self.labels.iter().filter(|l| l.is_some()).count()
    }
}

impl Trainer<'_> {
    /// The training claims, read on first use; an error when none has a label.
    fn train(&mut self) -> Result<&Labelled> {
        if self.train.is_none() {
            let set = ClaimSet::read(self.train_path)?;
            let gold = read_gold(self.train_path)?;
            let labels = set.claims.iter().map(|c| gold.get(&c.id).map(|g| g.label)).collect();
            let train = Labelled { set, labels };
            if train.labelled() == 0 {
                return Err(Error::Value { at: format!("{}[*][\"label\"]", self.train_path.display()), expected: "labelled training claims with dates".into(), found: "no label on any dated claim".into() });
            }
            self.train = Some(train);
        }
        Ok(self.train.as_ref().expect("read above"))
    }

    /// The verifier trained on `planner`'s evidence for the training claims, and its provenance's
    /// fingerprint.
    fn verifier(&mut self, planner: PaperPlanner, progress: &dyn Progress, log: &mut dyn FnMut(&str)) -> Result<(Fingerprint, &TrainedVerifier)> {
        if !self.verifiers.contains_key(&planner) {
            let session = self.session;
            let retriever = self.verification.retriever;
            let dir = session.out.join("verifiers").join(format!("{}.{}", planner.key(), retriever_key(retriever)));
            let spec = planner.train_spec(session.folder).expect("trained only on planners with training queries");
            let run_path = run_file(&session.out.join("runs"), Split::Train, planner, TemporalFilter::Claim, retriever);
            let (verification, top) = (self.verification, self.verification.top);
            let train = self.train()?;
            let made = cached_run(session, &train.set, planner, &spec, retriever, TemporalFilter::Claim, (top, session.config.plan_run.depth), &run_path, progress, log)?;
            let inputs = vec![train.set.input(Role::TrainingClaims), Input::artifact(Role::Run, &run_path, made.fingerprint)];
            let expected = Provenance::new(Artifact::Verifier, inputs, &VerifierSettings { retriever, top, train: &verification.train });
            let fingerprint = expected.fingerprint.clone();
            let verifier = if reusable(&dir, Some(VERIFIER_FILE), &expected, session.config.resume, log)? {
                TrainedVerifier::load(&dir)?
            } else {
                let mut examples = examples_from_run(session.index, &made.run, &train.set.claims, top)?;
                for (example, label) in examples.iter_mut().zip(&train.labels) {
                    example.label = *label;
                }
                examples.retain(|e| e.label.is_some());
                let started = std::time::Instant::now();
                let set = TrainingSet::prepare(examples, None, &verification.train, progress)?;
                let (verifier, _) = TrainedVerifier::train(&set, None, &verification.train, &crate::io::NoProgress)?;
                verifier.save(&dir)?;
                expected.write_into(&dir, VERIFIER_FILE, &[])?;
                log(&format!("trained a verifier on {} training claims with {}'s evidence in {:.1} s into {}", set.examples.len(), planner.name(), started.elapsed().as_secs_f64(), dir.display()));
                verifier
            };
            self.verifiers.insert(planner, (fingerprint, verifier));
        }
        let (fingerprint, verifier) = &self.verifiers[&planner];
        Ok((fingerprint.clone(), verifier))
    }
}

/// The table as Markdown, in the paper's layout: planners as rows; accuracy, F1 per class,
/// weighted-F1 and macro-F1; † marking a significant difference from claim-only.
pub fn markdown(table: &VerificationTable) -> String {
    let left_out = if table.train_undated > 0 { format!(", {} training claims without a date left out", table.train_undated) } else { String::new() };
    let mut out = format!(
        "#### Verification: a trained verifier per planner, its top-{} {} evidence under each claim's cutoff ({} training / {} test claims{left_out}; † p < 0.05, paired t-test over {} folds against claim only; fingerprint {})\n\n",
        table.top,
        retriever_key(table.retriever),
        table.train_claims,
        table.test_claims,
        table.folds,
        table.provenance.fingerprint
    );
    out.push_str("| planner | accuracy | F1 True | F1 False | F1 Conflicting | weighted-F1 | macro-F1 |\n|---|---:|---:|---:|---:|---:|---:|\n");
    let mut borrowed = false;
    for row in &table.rows {
        let s = &row.scores;
        let class = |l: Label| s.per_class.get(l.name()).map_or("–".to_string(), |c| super::figure(c.f1));
        let mark = |significant: bool| if significant { "†" } else { "" };
        let star = if row.trained_on != row.planner { "*" } else { "" };
        borrowed |= !star.is_empty();
        out.push_str(&format!(
            "| {}{star} | {} | {} | {} | {} | {}{} | {}{} |\n",
            row.planner.name(),
            super::figure(s.accuracy),
            class(CLASSES[0]),
            class(CLASSES[1]),
            class(CLASSES[2]),
            super::figure(s.weighted_f1),
            mark(row.weighted_significant()),
            super::figure(s.macro_f1),
            mark(row.macro_significant())
        ));
        if let Some(paper) = super::paper::verification(row.planner) {
            let f = paper.figures.map(super::figure);
            let name = super::paper::paper_name(row.planner).unwrap_or_default();
            out.push_str(&format!("| {} paper, {name} | {} | {} | {} | {} | {} | {}{} |\n", super::PAPER_MARK, f[0], f[1], f[2], f[3], f[4], f[5], mark(paper.significant)));
        }
    }
    out.push_str(&format!(
        "\n{} paper: Table 5 of the {}, as printed but in fractions (a fine-tuned roberta-mnli on top-3 Contriever evidence, the real collection's labels; † on its macro-F1 as it marks it): comparable to the row above only on the real data.\n",
        super::PAPER_MARK,
        super::paper::CITATION
    ));
    if borrowed {
        out.push_str("\n\\* scored with the verifier trained on claim-only evidence: the folder has no queries of this planner for the training claims.\n");
    }
    out
}

/// The table as CSV: one line per planner.
pub fn csv(table: &VerificationTable) -> String {
    let mut out = String::from("retriever,planner,trained_on,accuracy,f1_true,f1_false,f1_conflicting,weighted_f1,macro_f1,p_weighted_f1,p_macro_f1\n");
    for row in &table.rows {
        let s = &row.scores;
        let class = |l: Label| s.per_class.get(l.name()).map_or(String::new(), |c| format!("{:.6}", c.f1));
        let p = |p: Option<f64>| p.map_or(String::new(), |p| format!("{p:.6}"));
        out.push_str(&format!(
            "{},{},{},{:.6},{},{},{},{:.6},{:.6},{},{}\n",
            retriever_key(table.retriever),
            row.planner.key(),
            row.trained_on.key(),
            s.accuracy,
            class(CLASSES[0]),
            class(CLASSES[1]),
            class(CLASSES[2]),
            s.weighted_f1,
            s.macro_f1,
            p(row.p_weighted_f1),
            p(row.p_macro_f1)
        ));
    }
    out
}
