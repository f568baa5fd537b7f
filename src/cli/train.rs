//! `quantir train-verifier`: one library call, [`quantir::verify::model::trained::train_to_dir`].

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use quantir::verify::read_examples;
use quantir::verify::model::trained::{train_to_dir, FeatureGroups, LinearConfig, TrainConfig};

use super::args::DenseArgs;
use super::progress::Bar;
use super::verify_eval::{print_scores, print_selective};

#[derive(Debug, Args)]
pub struct TrainArgs {
    /// Labelled claims with evidence: a QuanTemp evidence mapping (.json) or evidence JSONL
    #[arg(long, value_name = "PATH")]
    claims: PathBuf,
    /// Where the verifier goes (verifier.json, cv_predictions.jsonl, cv_scores.json)
    #[arg(long, value_name = "DIR")]
    output: PathBuf,
    /// Cross-validation folds, 2 to 1000 (0: none)
    #[arg(long, default_value_t = 10, value_parser = parse_folds)]
    folds: usize,
    /// Evidence texts per claim, 1 to 100
    #[arg(long, default_value_t = 3, value_parser = super::args::ranged(quantir::ranges::TOP))]
    top: usize,
    /// Ignore the evidence (the claim-only ablation)
    #[arg(long)]
    claim_only: bool,
    /// Feature groups, comma-separated: claim-text, evidence-text (character n-gram TF-IDF), dense
    /// (encoder vectors of claim and evidence), numeric (numeric consistency)
    #[arg(long, default_value = "claim-text,evidence-text", value_parser = FeatureGroups::parse)]
    features: FeatureGroups,
    /// Scale of the evidence text features against the claim's
    #[arg(long, default_value_t = 0.5)]
    evidence_weight: f32,
    /// Inverse L2 regularisation strength, as scikit-learn's LogisticRegression C
    #[arg(long, default_value_t = 1.0)]
    c: f32,
    /// Training epochs (full-batch Adam), 1 to 100000
    #[arg(long, default_value_t = 200, value_parser = super::args::count(1, 100_000))]
    epochs: usize,
    /// Seed of the fold shuffle
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Keep the model's own probabilities (no temperature fitted)
    #[arg(long)]
    no_calibrate: bool,
    /// Fit no abstention rule (abstention.json)
    #[arg(long)]
    no_abstain: bool,
    /// Folds of the inner cross-validation that fits the temperature and the abstention rule
    #[arg(long, default_value_t = 5, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..=100))]
    inner_folds: usize,
    #[command(flatten)]
    dense: DenseArgs,
}

pub fn train(args: TrainArgs) -> anyhow::Result<()> {
    super::check_output("--output", &args.output, &[&args.claims], &[])?;
    let examples = read_examples(&args.claims)?;
    let encoder = if args.features.dense { Some(args.dense.encoder(Some(std::path::Path::new(super::models::DEFAULT_MODEL)))?.context("no encoder")?) } else { None };
    let config = TrainConfig {
        with_evidence: !args.claim_only,
        top: args.top,
        folds: args.folds,
        seed: args.seed,
        groups: args.features,
        evidence_weight: args.evidence_weight,
        linear: LinearConfig { epochs: args.epochs, c: args.c, ..Default::default() },
        calibrate: !args.no_calibrate,
        abstain: !args.no_abstain,
        inner_folds: args.inner_folds,
    };
    let report = train_to_dir(examples, &args.claims, encoder.as_ref(), &config, &args.output, &Bar::default())?;
    if let Some(cv) = &report.cv {
        println!("{}-fold cross-validation over {} claims ({}):", cv.folds, report.claims, if config.with_evidence { format!("claim + top-{} evidence", args.top) } else { "claim only".into() });
        print_scores(&cv.scores);
        println!("calibration  ECE {:.4} before, {:.4} after{}", cv.ece_before, cv.selective.ece, if config.calibrate { "" } else { " (not calibrated)" });
        print_selective(&cv.selective);
        if let Some([own, swapped, negatives]) = cv.nei_rates {
            println!("swapped      Not Enough Info for {:.1}% of the claims with their own evidence, {:.1}% with a random other claim's, {:.1}% with other claims' texts retrieved for it", 100.0 * own, 100.0 * swapped, 100.0 * negatives);
        }
    }
    if let Some(rule) = &report.rule {
        eprintln!("abstention rule: Not Enough Info below relevance {:.3} or confidence {:.2} (held-out 4-way macro-F1 {:.4})", rule.min_relevance, rule.min_confidence, rule.macro_f1);
    }
    eprintln!("trained on {} claims in {:.1} s ({:.1} s preparing inputs) into {}", report.claims, report.seconds, report.prepare_seconds, args.output.display());
    Ok(())
}

pub(super) fn parse_folds(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(k) if k == 0 || (2..=1000).contains(&k) => Ok(k),
        _ => Err(format!("expected 0 (no cross-validation) or 2 to 1000 folds, found {text:?}")),
    }
}
