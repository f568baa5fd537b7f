//! BM25 search timed as bm25s times its own (scripts/bench/bm25s_peer.py), for
//! scripts/bench_bm25.sh: the claims are in memory and the index open before the clock starts
//! (bm25s's index is built in memory, and its build is not timed either); timed is analysing
//! each claim and retrieving its top k into an array of hits (document and score), as bm25s
//! tokenizes the claims and `retrieve` returns arrays of document indices and scores. One
//! thread, no cutoff, a warm-up pass over every claim first (bm25s's warm-up compiles numba's
//! functions; quantir's reads the decoded postings and derives their contributions, which
//! bm25s's index build computes), then the fastest of 3 passes for each k.
//!
//! usage: bm25_search INDEX CLAIMS K...
//! prints raw.csv rows `-,quantir-in-process,search-repeated@K,SECONDS,PEAK_RSS_MB,CLAIMS`

use std::path::Path;
use std::time::Instant;

use quantir::corpus::{load_claims, Format};
use quantir::index::Index;
use quantir::retrieve::{Bm25, Cutoff, Hit, Scratch};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, index, claims, depths @ ..] = args.as_slice() else {
        anyhow::bail!("usage: bm25_search INDEX CLAIMS K...");
    };
    let index = Index::open(Path::new(index))?;
    let claims = load_claims(Path::new(claims), Format::Auto, None)?;
    let searcher = Bm25::new(&index, None)?;
    let (cutoff, mut scratch) = (Cutoff::none(), Scratch::default());
    for depth in depths {
        let k: usize = depth.parse()?;
        let mut pass = || -> anyhow::Result<Vec<Vec<Hit>>> {
            claims.iter().map(|claim| Ok(searcher.search(&claim.text, &cutoff, k, None, &mut scratch)?)).collect()
        };
        let warm = pass()?;
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let started = Instant::now();
            let found = pass()?;
            best = best.min(started.elapsed().as_secs_f64());
            anyhow::ensure!(found == warm, "a pass found other hits than the warm-up's");
        }
        println!("-,quantir-in-process,search-repeated@{k},{best:.4},{},{}", peak_rss_mb(), claims.len());
    }
    Ok(())
}

/// The process's peak resident memory in MiB (Linux's `VmHWM`), 0 where it cannot be read.
fn peak_rss_mb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb / 1024)
}
