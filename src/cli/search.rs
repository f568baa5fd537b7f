//! `quantir search`.

use std::path::PathBuf;

use clap::Args;
use quantir::engine::{search_query, Engine, RunConfig};
use quantir::retrieve::{Cutoff, Retriever};

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
    #[arg(short, default_value_t = quantir::ranges::DEFAULT_SEARCH_K as u64, value_parser = clap::value_parser!(u64).range(1..))]
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
    let encoder = match args.retrieval.retriever {
        Retriever::Bm25 => None,
        Retriever::Dense | Retriever::Hybrid => engine.encoder(&args.dense.options(), &super::models::roots())?,
    };
    let config = RunConfig {
        k: args.k as usize,
        bm25: args.bm25.over(engine.default_bm25()),
        retriever: args.retrieval.retriever,
        ann: args.retrieval.ann,
        ef: args.retrieval.ef,
        ..RunConfig::default()
    };
    let hits = search_query(&*engine, &args.query, &cutoff, &config, encoder.as_ref())?;
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
