//! `quantir compare`.

use std::path::PathBuf;

use clap::Args;
use quantir::eval::{compare, evaluate_with, CompareConfig, Correction, Test};

use super::args::MeasureArgs;
use quantir::trec::{parse_trec, Qrels, QrelsFormat};

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// Relevance judgments (TREC, BEIR tsv or QuanTemp++ JSON)
    #[arg(long, value_name = "PATH")]
    qrels: PathBuf,
    /// Qrels layout
    #[arg(long, value_enum, default_value_t = QrelsFormat::Auto)]
    qrels_format: QrelsFormat,
    /// TREC runs; the first is the baseline
    #[arg(value_name = "RUN", required = true, num_args = 2..)]
    runs: Vec<PathBuf>,
    #[command(flatten)]
    measure: MeasureArgs,
    /// Paired test against the baseline
    #[arg(long, value_enum, default_value_t = Test::T)]
    test: Test,
    /// Significance level (after correction)
    #[arg(long, default_value_t = 0.05, value_parser = parse_alpha, allow_hyphen_values = true)]
    alpha: f64,
    /// Correction across the compared runs
    #[arg(long, value_enum, default_value_t = Correction::Holm)]
    correction: Correction,
    /// Sign-flip samples of the permutation test, 1 to 10000000
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    permutations: u64,
    /// Seed of the permutation test
    #[arg(long, default_value_t = 42)]
    seed: u64,
    /// Print JSON
    #[arg(long)]
    json: bool,
}

fn parse_alpha(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(a) if a > 0.0 && a < 1.0 => Ok(a),
        _ => Err(format!("expected a number between 0 and 1, found {text:?}")),
    }
}

pub fn run(args: CompareArgs) -> anyhow::Result<()> {
    let qrels = Qrels::read(&args.qrels, args.qrels_format)?;
    let measures = args.measure.measures();
    let settings = args.measure.settings();
    let mut evaluations = Vec::new();
    for path in &args.runs {
        let text = quantir::io::MappedText::open(path)?;
        let run = parse_trec(path, text.as_str())?;
        let name = path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
        let evaluation = evaluate_with(&run, &qrels, &measures, &settings);
        super::eval::nothing_evaluated(path, &evaluation, run.queries.len())?;
        evaluations.push((name, evaluation));
    }
    let config = CompareConfig { test: args.test, alpha: args.alpha, correction: args.correction, permutations: args.permutations as usize, seed: args.seed };
    let table = compare(&evaluations, &config);
    if args.json {
        println!("{}", table.to_json(&config));
        return Ok(());
    }
    let width = table.runs.iter().map(|r| r.name.len()).max().unwrap_or(3).max(3) + 2;
    print!("{:width$}", "run");
    for m in &measures {
        print!("{:>16}", m.to_string());
    }
    println!();
    for (i, row) in table.runs.iter().enumerate() {
        print!("{:width$}", row.name);
        for (m, mean) in row.means.iter().enumerate() {
            let mark = if row.significant[m] { "†" } else { " " };
            print!("{:>15.4}{mark}", mean);
        }
        println!("{}", if i == 0 { "  (baseline)" } else { "" });
    }
    let test = match config.test {
        Test::T => "paired two-sided t-test".to_string(),
        Test::Permutation => format!("paired randomisation test ({} sign flips, seed {})", config.permutations, config.seed),
    };
    println!("† p < {} against the baseline, {test}, {:?} correction, {} queries", config.alpha, config.correction, table.queries);
    for row in table.runs.iter().skip(1) {
        let ps: Vec<String> = measures.iter().zip(&row.corrected).map(|(m, p)| format!("{m} p={:.4}", p.unwrap_or(1.0))).collect();
        println!("  {}: {}", row.name, ps.join(", "));
    }
    Ok(())
}
