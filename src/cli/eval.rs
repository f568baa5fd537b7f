//! `quantir eval`.

use std::path::PathBuf;

use clap::Args;
use quantir::eval::{evaluate_with, Evaluation, Measure};

use super::args::MeasureArgs;
use quantir::trec::{parse_trec, Qrels, QrelsFormat};

#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Relevance judgments (TREC, BEIR tsv or QuanTemp++ JSON)
    #[arg(long, value_name = "PATH")]
    qrels: PathBuf,
    /// Qrels layout
    #[arg(long, value_enum, default_value_t = QrelsFormat::Auto)]
    qrels_format: QrelsFormat,
    /// The TREC run file
    #[arg(long, value_name = "RUN")]
    run: PathBuf,
    #[command(flatten)]
    measure: MeasureArgs,
    /// Print every query's values too
    #[arg(long)]
    per_query: bool,
    /// Print JSON: {"all": {...}, "per_query": {...}}
    #[arg(long)]
    json: bool,
}

pub fn run(args: EvalArgs) -> anyhow::Result<()> {
    let qrels = Qrels::read(&args.qrels, args.qrels_format)?;
    let text = quantir::io::MappedText::open(&args.run)?;
    let run = parse_trec(&args.run, text.as_str())?;
    let measures = args.measure.measures();
    let settings = args.measure.settings();
    let evaluation = evaluate_with(&run, &qrels, &measures, &settings);
    nothing_evaluated(&args.run, &evaluation, run.queries.len())?;
    if args.json {
        let row = |values: &[f64]| -> serde_json::Map<String, serde_json::Value> {
            measures.iter().zip(values).map(|(m, v)| (m.key(), serde_json::json!(v))).collect()
        };
        let mut out = serde_json::json!({ "all": row(&evaluation.mean) });
        if args.per_query {
            let per_query: serde_json::Map<String, serde_json::Value> =
                evaluation.per_query.iter().map(|(q, v)| (q.clone(), serde_json::Value::Object(row(v)))).collect();
            out["per_query"] = serde_json::Value::Object(per_query);
        }
        println!("{out}");
    } else {
        if args.per_query {
            for (qid, values) in &evaluation.per_query {
                for (m, v) in measures.iter().zip(values) {
                    println!("{:<22}\t{qid}\t{}", m.to_string(), format_value(*m, *v));
                }
            }
        }
        print_means(&evaluation);
    }
    if evaluation.unjudged_in_run > 0 {
        eprintln!("{} run queries have no judgments: not evaluated", evaluation.unjudged_in_run);
    }
    if evaluation.missing_from_run > 0 {
        let how = if settings.completeness == quantir::eval::Completeness::Complete { "evaluated as empty rankings (-c)" } else { "skipped; -c evaluates them as empty rankings" };
        eprintln!("{} judged queries are missing from the run: {how}", evaluation.missing_from_run);
    }
    Ok(())
}

/// An error when no query was evaluated (an empty run, or one whose queries the qrels do not
/// judge): its measures would be zeros that measure nothing.
pub fn nothing_evaluated(run: &std::path::Path, evaluation: &Evaluation, run_queries: usize) -> quantir::Result<()> {
    if !evaluation.per_query.is_empty() {
        return Ok(());
    }
    let what = if run_queries == 0 { "no ranked lines: nothing to evaluate".to_string() } else { format!("none of its {run_queries} queries is judged in the qrels: nothing to evaluate") };
    Err(quantir::Error::Empty { path: run.to_path_buf(), what, hint: "check that the run and the qrels use the same query ids (-c evaluates judged queries missing from the run as empty rankings)".into() })
}

/// Prints the means as trec_eval does: `measure  all  value`.
pub fn print_means(evaluation: &Evaluation) {
    println!("{:<22}\tall\t{}", "num_q", evaluation.per_query.len());
    for (m, v) in evaluation.measures.iter().zip(&evaluation.mean) {
        println!("{:<22}\tall\t{}", m.to_string(), format_value(*m, *v));
    }
}

/// A value as trec_eval prints it: counts whole, the rest at four places, and a value that rounds
/// to zero as `0.0000`, never `-0.0000`.
pub fn format_value(measure: Measure, v: f64) -> String {
    if measure.is_count() {
        format!("{v:.0}")
    } else if (v * 1e4).round() == 0.0 {
        format!("{:.4}", 0.0)
    } else {
        format!("{v:.4}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 12: a value that rounds to zero printed `-0.0000`.
    #[test]
    fn values_print_as_trec_eval_prints_them() {
        assert_eq!(format_value(Measure::Map, -0.0), "0.0000");
        assert_eq!(format_value(Measure::Map, -1e-9), "0.0000");
        assert_eq!(format_value(Measure::Map, 0.12345), "0.1235");
        assert_eq!(format_value(Measure::NumRet, 1000.0), "1000");
    }
}
