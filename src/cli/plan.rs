//! `quantir plan`.

use std::path::PathBuf;

use clap::Args;
use quantir::corpus::{load_claims, Format};

use super::args::PlanArgs;

#[derive(Debug, Args)]
pub struct PlanCommand {
    /// Claims: quantir JSONL, BEIR queries.jsonl, or a QuanTemp++ claims list
    #[arg(long, value_name = "PATH")]
    claims: PathBuf,
    /// Claims layout
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    format: Format,
    #[command(flatten)]
    plan: PlanArgs,
    #[command(flatten)]
    dense: super::args::DenseArgs,
    /// Where the decompositions go: {"id", "claim", "queries", "origins"} a line
    #[arg(long, value_name = "PATH")]
    output: PathBuf,
}

#[derive(serde::Serialize)]
struct Line<'a> {
    id: &'a str,
    claim: &'a str,
    queries: Vec<&'a str>,
    origins: Vec<quantir::plan::Origin>,
}

pub fn run(args: PlanCommand) -> anyhow::Result<()> {
    super::check_output("--output", &args.output, &[&args.claims], &[])?;
    let claims = load_claims(&args.claims, args.format, None)?;
    let encoder = if args.plan.needs_encoder() { args.dense.encoder(None)?.map(std::sync::Arc::new) } else { None };
    let planner = args.plan.planner(encoder)?;
    let plans = claims.iter().map(|c| planner.plan(c, &quantir::plan::NoLookup)).collect::<Result<Vec<_>, _>>()?;
    let lines: Vec<Line> = claims
        .iter()
        .zip(&plans)
        .map(|(c, p)| Line { id: &c.id, claim: &c.text, queries: p.texts(), origins: p.subqueries.iter().map(|q| q.origin).collect() })
        .collect();
    quantir::io::write_jsonl(&args.output, &lines)?;
    let fell_back = plans.iter().filter(|p| p.fell_back).count();
    let total: usize = plans.iter().map(|p| p.subqueries.len()).sum();
    let mut inputs = vec![quantir::provenance::Input::file(quantir::provenance::Role::Claims, &quantir::corpus::claims_file(&args.claims, args.format)?)?];
    inputs.extend(super::plan_input(&args.plan.plan)?);
    let mmr = args.plan.mmr();
    let counts = [("claims", plans.len()), ("subqueries", total), ("fell_back", fell_back)].into_iter().map(|(k, v)| (k.to_string(), v as u64)).collect();
    super::record(&args.output, quantir::provenance::Artifact::Plan, inputs, &(&args.plan.plan, mmr, args.plan.llm.llm_model.as_deref()), counts)?;
    eprintln!("planned {} claims ({} sub-queries, {} fell back to the claim) into {}", plans.len(), total, fell_back, args.output.display());
    Ok(())
}
