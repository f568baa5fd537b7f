//! Batched exact dense search at full size, for scripts/bench_dense_batch.sh: encodes every
//! sub-query of a planned run (a `quantir plan` JSONL file), writes their vectors (quantir's vector
//! format) for the faiss side, then times one `dense::search` call over all of them on THREADS
//! threads, without cutoffs (what faiss IndexFlatIP computes) and with each claim's own date as
//! its cutoff (what a run computes).
//!
//! usage: dense_batch INDEX MODEL_DIR ORT_LIB CLAIMS PLANS QUERIES_OUT K THREADS

use std::path::Path;
use std::time::Instant;

use quantir::corpus::{load_claims, Format};
use quantir::index::dense::{vectors, Encoder, EncoderConfig, TextKind, VectorDtype};
use quantir::index::Index;
use quantir::plan::read_plan_file;
use quantir::retrieve::{dense, Ann, Cutoff, DenseQuery, UndatedPolicy};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, index, model, lib, claims, plans, out, k, threads] = args.as_slice() else {
        anyhow::bail!("usage: dense_batch INDEX MODEL_DIR ORT_LIB CLAIMS PLANS QUERIES_OUT K THREADS");
    };
    let (k, threads): (usize, usize) = (k.parse()?, threads.parse()?);
    let index = Index::open(Path::new(index))?;
    let claims = load_claims(Path::new(claims), Format::Auto, None)?;
    let plans = read_plan_file(Path::new(plans), None)?;
    let mut texts: Vec<&str> = Vec::new();
    let mut dates = Vec::new();
    for claim in &claims {
        for q in plans.get(&claim.id).into_iter().flatten() {
            texts.push(q);
            dates.push(claim.date);
        }
    }
    let encoder = Encoder::open(Path::new(model), EncoderConfig::read(Path::new(model))?, Path::new(lib), threads, 16, quantir::index::dense::Device::Cpu)?;
    let started = Instant::now();
    let (flat, dim) = encoder.encode(&texts, TextKind::Query)?;
    let encode_s = started.elapsed().as_secs_f64();
    vectors::write(Path::new(out), dim, &flat, VectorDtype::F32)?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build()?;
    let time = |cutoffs: bool| -> anyhow::Result<f64> {
        let queries: Vec<DenseQuery> = flat
            .chunks(dim)
            .zip(&dates)
            .map(|(v, d)| DenseQuery { vector: v, cutoff: if cutoffs { Cutoff { before: *d, undated: UndatedPolicy::Exclude } } else { Cutoff::none() }, exclude: None })
            .collect();
        pool.install(|| dense::search(&index, &queries[..1], k, Ann::Exact, 0))?; // warms the map
        let started = Instant::now();
        let hits = pool.install(|| dense::search(&index, &queries, k, Ann::Exact, 0))?;
        assert_eq!(hits.len(), queries.len());
        Ok(started.elapsed().as_secs_f64())
    };
    let (plain, cut) = (time(false)?, time(true)?);
    let n = texts.len() as f64;
    println!(
        "{{\"queries\": {}, \"documents\": {}, \"k\": {k}, \"threads\": {threads}, \"encode_qps\": {:.1}, \"exact_s\": {plain:.3}, \"exact_qps\": {:.1}, \"exact_with_cutoffs_s\": {cut:.3}, \"exact_with_cutoffs_qps\": {:.1}}}",
        texts.len(),
        index.num_docs(),
        n / encode_s,
        n / plain,
        n / cut
    );
    Ok(())
}
