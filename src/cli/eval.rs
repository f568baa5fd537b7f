//! `quantir eval`.

use std::path::PathBuf;

use clap::Args;
use quantir::eval::{evaluate, Completeness, Evaluation, Measure};
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
    /// Measures, trec_eval names (repeatable) [default: ndcg_cut.10 recall.10 recall.100 recip_rank map]
    #[arg(short = 'm', long = "measure", value_name = "MEASURE")]
    measures: Vec<Measure>,
    /// Count judged queries missing from the run as 0 (trec_eval -c)
    #[arg(long)]
    complete: bool,
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
    let measures = if args.measures.is_empty() { Measure::DEFAULTS.to_vec() } else { args.measures.clone() };
    let completeness = if args.complete { Completeness::Complete } else { Completeness::RunQueriesOnly };
    let evaluation = evaluate(&run, &qrels, &measures, completeness);
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
                    println!("{:<22}\t{qid}\t{:.4}", m.to_string(), unsigned_zero(*v));
                }
            }
        }
        print_means(&evaluation);
    }
    if evaluation.unjudged_in_run > 0 {
        eprintln!("{} run queries have no judgments: not evaluated", evaluation.unjudged_in_run);
    }
    if evaluation.missing_from_run > 0 {
        let how = if args.complete { "counted as 0 (--complete)" } else { "skipped; --complete counts them as 0" };
        eprintln!("{} judged queries are missing from the run: {how}", evaluation.missing_from_run);
    }
    Ok(())
}

/// Prints the means as trec_eval does: `measure  all  value`.
pub fn print_means(evaluation: &Evaluation) {
    println!("{:<22}\tall\t{}", "num_q", evaluation.per_query.len());
    for (m, v) in evaluation.measures.iter().zip(&evaluation.mean) {
        println!("{:<22}\tall\t{:.4}", m.to_string(), unsigned_zero(*v));
    }
}

/// `v`, with a value that prints as zero at four places printed `0.0000`, never `-0.0000`.
fn unsigned_zero(v: f64) -> f64 {
    if (v * 1e4).round() == 0.0 {
        0.0
    } else {
        v
    }
}
