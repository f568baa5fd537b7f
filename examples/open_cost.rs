//! What opening an index costs and what its integrity check is of that, beside a run of claims
//! over it, for scripts/bench_integrity.sh: opens INDEX `repeats` times (the page cache is warm
//! after the first) and takes the median of the whole open and of the check of every file's
//! digest; then runs CLAIMS (each with its own date as the cutoff, claim only, BM25, top K, on
//! every core) `repeats` times and takes the median.
//!
//! usage: open_cost INDEX CLAIMS K REPEATS
//! prints one line of JSON: {"files", "bytes", "open_ms", "check_ms", "run_ms", "claims",
//! "check_share_of_open_and_run"}

use std::path::Path;
use std::time::Instant;

use quantir::corpus::{load_claims, Format};
use quantir::engine::{Backend, PlanRunConfig, RunConfig, RunRequest};
use quantir::index::Index;
use quantir::io::NoProgress;

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, index, claims, k, repeats] = args.as_slice() else {
        anyhow::bail!("usage: open_cost INDEX CLAIMS K REPEATS");
    };
    let (k, repeats): (usize, usize) = (k.parse()?, repeats.parse()?);
    let (mut open, mut check) = (Vec::new(), Vec::new());
    for _ in 0..repeats {
        let started = Instant::now();
        let opened = Index::open(Path::new(index))?;
        open.push(started.elapsed().as_secs_f64());
        check.push(opened.integrity_seconds());
    }
    let index = Index::open(Path::new(index))?;
    let files = &index.manifest().files;
    let bytes: u64 = files.values().map(|d| d.bytes).sum();
    let claims = load_claims(Path::new(claims), Format::Auto, None)?;
    let config = RunConfig { k, ..RunConfig::default() };
    let plan = PlanRunConfig::default();
    let request = RunRequest { planner: &quantir::plan::ClaimOnly, encoder: None, config: &config, plan: &plan, explain: false };
    let mut run = Vec::new();
    for _ in 0..repeats {
        let started = Instant::now();
        index.run(&claims, &request, &NoProgress)?;
        run.push(started.elapsed().as_secs_f64());
    }
    let (open, check, run) = (median(open), median(check), median(run));
    println!(
        "{}",
        serde_json::json!({"files": files.len(), "bytes": bytes, "open_ms": open * 1e3, "check_ms": check * 1e3, "run_ms": run * 1e3, "claims": claims.len(), "check_share_of_open_and_run": check / (open + run)})
    );
    Ok(())
}
