//! `quantir train-stance`: one library call, [`quantir::verify::model::stance::train_stance_to_dir`].

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use quantir::verify::model::stance::{train_stance_to_dir, StanceConfig};
use quantir::verify::model::trained::LinearConfig;
use quantir::verify::{Stance, VerifyScores};

use super::args::DenseArgs;
use super::progress::Bar;
use super::verify_eval::print_scores;

#[derive(Debug, Args)]
pub struct StanceArgs {
    /// Stance-labelled claims: CLIMATE-FEVER's JSONL (claim, claim_label, evidences with
    /// evidence_label), e.g. data/climate-fever/claims.jsonl
    #[arg(long, value_name = "PATH")]
    claims: PathBuf,
    /// Where the model goes (stance.json, cv_scores.json, provenance.json)
    #[arg(long, value_name = "DIR")]
    output: PathBuf,
    /// Folds of the cross-validation grouped by claim, 2 to 1000 (0: none)
    #[arg(long, default_value_t = StanceConfig::default().folds, value_parser = super::train::parse_folds)]
    folds: usize,
    /// Inverse L2 regularisation strength, as scikit-learn's LogisticRegression C
    #[arg(long, default_value_t = StanceConfig::default().linear.c)]
    c: f32,
    /// Training epochs (full-batch Adam), 1 to 100000
    #[arg(long, default_value_t = StanceConfig::default().linear.epochs, value_parser = super::args::count(1, 100_000))]
    epochs: usize,
    #[command(flatten)]
    dense: DenseArgs,
}

pub fn train(args: StanceArgs) -> anyhow::Result<()> {
    super::check_output("--output", &args.output, &[&args.claims], &[])?;
    let encoder = args.dense.encoder(Some(std::path::Path::new(super::models::DEFAULT_MODEL)))?.context("no encoder")?;
    let config = StanceConfig { folds: args.folds, linear: LinearConfig { epochs: args.epochs, c: args.c, ..StanceConfig::default().linear } };
    let training = train_stance_to_dir(&args.claims, &encoder, &config, &args.output, &Bar::default())?;
    if let Some(cv) = &training.cv {
        println!("{}-fold cross-validation grouped by claim:", cv.folds);
        print_stances(&cv.stances);
        println!("stance ECE   {:.4} ({:.4} before the temperature)", cv.stance_ece, cv.stance_ece_uncalibrated);
        println!("claims, True/False/Conflicting (a Not Enough Info verdict is a miss):");
        // A Not Enough Info verdict is scored as a failed run is (a miss for its gold label).
        print_scores(&VerifyScores { failed: 0, ..cv.claims_three_way.clone() });
        println!("Not Enough Info verdicts {} (counted wrong)", cv.claims_three_way.failed);
        println!("claims, four-way:");
        print_scores(&cv.claims_four_way);
        println!("swapped      another claim's sentences change {:.1}% of the verdicts ({:.1}% of those to Not Enough Info)", 100.0 * cv.swap_changed, 100.0 * cv.swap_to_nei);
    }
    let a = training.model.aggregation;
    eprintln!("verdicts: Conflicting when support and refutation both reach {:.3}, else True or False from {:.3}, else Not Enough Info", a.both, a.bears);
    eprintln!("trained in {:.1} s ({:.1} s encoding) into {}", training.seconds, training.encode_seconds, args.output.display());
    Ok(())
}

/// Stance scores, each class under its stance's name.
fn print_stances(s: &VerifyScores) {
    println!("stances      accuracy {:.4} macro_f1 {:.4} weighted_f1 {:.4}", s.accuracy, s.macro_f1, s.weighted_f1);
    for stance in Stance::ALL {
        if let Some(c) = s.per_class.get(stance.verdict().name()) {
            println!("{:<16} precision {:.4} recall {:.4} f1 {:.4} support {}", stance.name(), c.precision, c.recall, c.f1, c.support);
        }
    }
}
