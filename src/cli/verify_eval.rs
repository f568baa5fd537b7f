//! `quantir verify-eval`: predictions matched with gold labels and scored.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use quantir::error::Unmatched;
use quantir::eval::paired_t_test;
use quantir::verify::model::calibrate;
use quantir::verify::{fold_macro_f1, match_predictions, nei_categories, read_gold, read_predictions, score_outcomes, Coverage, Gold, Judged, ToolCallStats, VerifyScores};

#[derive(Debug, Args)]
pub struct VerifyEvalArgs {
    /// Gold labels: JSONL {"id", "label", "category"?} (CoverBench's and ClaimDB's records too) or a
    /// QuanTemp evidence mapping (.json)
    #[arg(long, value_name = "PATH")]
    gold: PathBuf,
    /// Predictions JSONL
    #[arg(long, value_name = "PATH")]
    pred: PathBuf,
    /// A second predictions file: paired t-test on per-fold macro-F1 against --pred
    #[arg(long, value_name = "PATH", requires = "folds")]
    pred_b: Option<PathBuf>,
    /// Folds for the paired t-test (the claims in id order, cut into equal parts; 2 to the number
    /// of claims)
    #[arg(long, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(2..=1_000_000))]
    folds: Option<usize>,
    /// Score only the claims predicted: without it, a gold claim with no prediction, or a
    /// prediction for a claim with no gold label, is an error
    #[arg(long)]
    allow_missing: bool,
    /// Write the reliability diagram (reliability.png, .csv) and the risk–coverage curve
    /// (risk_coverage.png, .csv) here
    #[arg(long, value_name = "DIR")]
    plots: Option<PathBuf>,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

/// The predictions in `pred` matched with `gold` ([`match_predictions`]), with the CLI's hint.
fn pairs(gold: &HashMap<String, Gold>, pred: &std::path::Path, allow_missing: bool) -> anyhow::Result<(Vec<Judged>, Coverage)> {
    match_predictions(gold, read_predictions(pred)?, allow_missing, &pred.display().to_string()).map_err(|e| {
        let hint = match &e {
            quantir::Error::Unmatched { problem: Unmatched::Missing { .. }, .. } => "predict every claim, or pass --allow-missing to score only those predicted",
            quantir::Error::Unmatched { problem: Unmatched::Extra { .. }, .. } => "check that the ids match, or pass --allow-missing to leave them out",
            quantir::Error::Unmatched { problem: Unmatched::Twice { .. }, .. } => "keep one prediction per claim",
            _ => return anyhow::Error::new(e),
        };
        anyhow::anyhow!("{e}\n\nhint: {hint}")
    })
}

pub fn eval(args: VerifyEvalArgs) -> anyhow::Result<()> {
    let gold = read_gold(&args.gold)?;
    let (a, coverage) = pairs(&gold, &args.pred, args.allow_missing)?;
    let outcomes = |v: &[Judged]| v.iter().map(|j| (j.gold.label, j.predicted)).collect::<Vec<_>>();
    let scores = score_outcomes(&outcomes(&a));
    let mut json = serde_json::to_value(&scores)?;
    json["coverage"] = serde_json::to_value(coverage)?;
    let categories = nei_categories(&a.iter().map(|j| (j.gold, j.predicted)).collect::<Vec<_>>());
    if !categories.is_empty() {
        json["nei_categories"] = serde_json::to_value(&categories)?;
    }
    let calls = ToolCallStats::of(a.iter().filter_map(|j| j.prediction.tool_calls));
    if let Some(calls) = &calls {
        json["tool_calls"] = serde_json::to_value(calls)?;
    }
    let selective = calibrate::selective(&a.iter().filter(|j| j.predicted.is_some()).map(|j| (j.gold.label, &j.prediction)).collect::<Vec<_>>());
    json["selective"] = serde_json::to_value(&selective)?;
    if let Some(dir) = &args.plots {
        write_plots(dir, &args.pred, &selective)?;
    }
    if let (Some(b), Some(folds)) = (&args.pred_b, args.folds) {
        let (b, _) = pairs(&gold, b, args.allow_missing)?;
        anyhow::ensure!(folds <= a.len(), "--folds {folds}: there are only {} claims to cut into folds", a.len());
        anyhow::ensure!(a.iter().map(|j| &j.id).eq(b.iter().map(|j| &j.id)), "--pred and --pred-b must predict the same claims");
        let (fa, fb) = (fold_macro_f1(&outcomes(&a), folds), fold_macro_f1(&outcomes(&b), folds));
        let diffs: Vec<f64> = fb.iter().zip(&fa).map(|(y, x)| y - x).collect();
        let p = paired_t_test(&diffs);
        json["folds"] = serde_json::json!({ "k": folds, "macro_f1_a": fa, "macro_f1_b": fb, "t_test_p": p });
        if !args.json {
            println!("paired t-test over {folds} folds of macro-F1: mean A {:.4}, mean B {:.4}, p = {p:.4}", fa.iter().sum::<f64>() / folds as f64, fb.iter().sum::<f64>() / folds as f64);
        }
    }
    if args.json {
        println!("{json}");
        return Ok(());
    }
    print_scores(&scores);
    println!("coverage     {} of {} gold claims predicted ({} missing, {} extra)", coverage.predicted, coverage.gold, coverage.missing, coverage.extra);
    if selective.withheld > 0 {
        let v = &selective.verdicts;
        println!("full verdicts accuracy {:.4} macro_f1 {:.4} weighted_f1 {:.4} (the withheld verdicts given)", v.accuracy, v.macro_f1, v.weighted_f1);
    }
    println!("calibration  ECE {:.4} ({} bins)", selective.ece, calibrate::BINS);
    print_selective(&selective);
    for (category, c) in &categories {
        let predicted: Vec<String> = c.predicted.iter().map(|(label, n)| format!("{label} {n}")).collect();
        println!("not enough info, {:<15} claims {} recall {:.4} (predicted: {})", category.name(), c.claims, c.recall, predicted.join(", "));
    }
    if let Some(c) = calls {
        println!("tool calls   {:.2} a claim (max {}, {} in all, over {} claims)", c.mean, c.max, c.total, c.claims);
    }
    Ok(())
}

/// The reliability diagram and the risk–coverage curve of `pred`, as PNG and CSV, into `dir`.
fn write_plots(dir: &std::path::Path, pred: &std::path::Path, s: &calibrate::SelectiveReport) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let name = pred.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    quantir::verify::plot::reliability_png(&dir.join("reliability.png"), &format!("Reliability of {name}: ECE {:.3}", s.ece), &[("verdicts", &s.reliability)])?;
    quantir::verify::plot::risk_coverage_png(&dir.join("risk_coverage.png"), &format!("Risk–coverage of {name}"), &s.curve)?;
    let mut csv = csv::Writer::from_path(dir.join("reliability.csv")).with_context(|| format!("writing {}", dir.join("reliability.csv").display()))?;
    csv.write_record(["low", "high", "count", "confidence", "accuracy"])?;
    for b in &s.reliability {
        csv.write_record([b.low.to_string(), b.high.to_string(), b.count.to_string(), b.confidence.to_string(), b.accuracy.to_string()])?;
    }
    csv.flush()?;
    let mut csv = csv::Writer::from_path(dir.join("risk_coverage.csv")).with_context(|| format!("writing {}", dir.join("risk_coverage.csv").display()))?;
    csv.write_record(["coverage", "kept", "threshold", "accuracy", "macro_f1", "weighted_f1"])?;
    for p in &s.curve {
        csv.write_record([p.coverage.to_string(), p.kept.to_string(), p.threshold.to_string(), p.scores.accuracy.to_string(), p.scores.macro_f1.to_string(), p.scores.weighted_f1.to_string()])?;
    }
    csv.flush()?;
    eprintln!("wrote reliability.png, reliability.csv, risk_coverage.png and risk_coverage.csv into {}", dir.display());
    Ok(())
}

/// `--folds` of train-verifier: 0 (no cross-validation) or 2 to 1000.
/// Coverage, the verdicts given and the risk–coverage points at 80% and 50%.
pub(super) fn print_selective(s: &calibrate::SelectiveReport) {
    if s.withheld > 0 {
        let answered = s.answered.as_ref().map_or(String::from("none given"), |a| format!("accuracy {:.4}, macro_f1 {:.4}", a.accuracy, a.macro_f1));
        println!("abstention   coverage {:.4} ({} withheld as Not Enough Info); verdicts given: {answered}", s.coverage, s.withheld);
    }
    for point in s.curve.iter().filter(|p| p.target == 0.8 || p.target == 0.5) {
        println!("selective    at coverage {:.2} ({} of {} claims, confidence >= {:.3}): accuracy {:.4}, macro_f1 {:.4}", point.target, point.kept, s.verdicts.examples, point.threshold, point.scores.accuracy, point.scores.macro_f1);
    }
}

pub(super) fn print_scores(s: &VerifyScores) {
    println!("accuracy     {:.4}\nmacro_f1     {:.4}\nweighted_f1  {:.4}", s.accuracy, s.macro_f1, s.weighted_f1);
    for name in &s.labels {
        let c = &s.per_class[name];
        println!("{:<16} precision {:.4} recall {:.4} f1 {:.4} support {}", name, c.precision, c.recall, c.f1, c.support);
    }
    println!("confusion (gold rows, predicted columns; {}): {:?}", s.labels.join(", "), s.confusion);
    if s.failed > 0 {
        println!("failed runs  {} (counted wrong)", s.failed);
    }
}
