//! `quantir search`.

use std::path::PathBuf;

use clap::Args;
use quantir::corpus::Claim;
use quantir::engine::{default_hybrid_fusion, Engine, Evidence, PlanRunConfig, RunConfig, RunRequest};
use quantir::plan::ClaimOnly;
use quantir::retrieve::{Cutoff, Retriever, TemporalFilter};

use super::args::{BackendArgs, Bm25Args, CutoffArgs, DenseArgs, RetrievalArgs};

#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The index folder
    #[arg(long, value_name = "DIR")]
    index: Option<PathBuf>,
    #[command(flatten)]
    backend: BackendArgs,
    #[command(flatten)]
    cutoff: CutoffArgs,
    /// Number of hits
    #[arg(short, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    k: u64,
    /// Print {"hits": [{"id","score","date","title","text","url"}]}
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    bm25: Bm25Args,
    #[command(flatten)]
    retrieval: RetrievalArgs,
    #[command(flatten)]
    dense: DenseArgs,
    /// The claim or query
    query: String,
}

pub fn run(args: SearchArgs) -> anyhow::Result<()> {
    let cutoff = Cutoff { before: args.cutoff.before, undated: args.cutoff.undated };
    let engine = Engine::open(&args.backend.location(&args.index)?)?;
    let hits = match args.retrieval.retriever {
        Retriever::Bm25 => engine.search(&args.query, &cutoff, args.k as usize, args.bm25.over(engine.default_bm25()))?,
        Retriever::Dense | Retriever::Hybrid => vector_search(&engine, &args, &cutoff)?,
    };
    if args.json {
        println!("{}", serde_json::json!({ "hits": hits }));
        return Ok(());
    }
    for (i, hit) in hits.iter().enumerate() {
        let date = hit.date.as_deref().unwrap_or("undated");
        let title = if hit.title.is_empty() { String::new() } else { format!("  {}", hit.title) };
        println!("{:>3}. {}  {:.4}  {}{}", i + 1, hit.id, hit.score, date, title);
        let snippet: String = hit.text.chars().take(200).collect();
        println!("     {snippet}{}", if hit.text.chars().count() > 200 { "…" } else { "" });
    }
    if hits.is_empty() {
        eprintln!("no documents match");
    }
    Ok(())
}

/// Dense or hybrid search for one query: the query run as a claim made on the cutoff's date, by
/// the claim-only plan, as `run` and the server run it.
fn vector_search(engine: &Engine, args: &SearchArgs, cutoff: &Cutoff) -> anyhow::Result<Vec<Evidence>> {
    let encoder = engine.encoder(&args.dense.options(), &super::models::roots())?;
    let config = RunConfig {
        k: args.k as usize,
        bm25: args.bm25.over(engine.default_bm25()),
        undated: cutoff.undated,
        temporal_filter: if cutoff.before.is_some() { TemporalFilter::Claim } else { TemporalFilter::Off },
        retriever: args.retrieval.retriever,
        ann: args.retrieval.ann,
        ef: args.retrieval.ef,
        ..RunConfig::default()
    };
    let plan = PlanRunConfig { depth: args.k as usize, fusion: Default::default(), hybrid: default_hybrid_fusion() };
    config.validate(&plan)?;
    let claim = Claim { id: "query".into(), text: args.query.clone(), date: cutoff.before };
    let request = RunRequest { planner: &ClaimOnly, encoder: encoder.as_ref(), config: &config, plan: &plan, explain: false };
    Ok(engine.evidence(&claim, &request)?.hits.into_iter().map(|h| h.evidence).collect())
}
