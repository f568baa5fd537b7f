//! Dense search timing for scripts/bench_dense.sh: encodes the claims of a JSONL/BEIR file,
//! writes their vectors (quantir's vector format) for the faiss side, then times exact and HNSW
//! search (k, no cutoff) over the index's vectors and reports HNSW's recall@k against exact.
//!
//! usage: dense_search INDEX MODEL_DIR ORT_LIB CLAIMS QUERIES_OUT K EF

use std::path::Path;
use std::time::Instant;

use quantir::corpus::{load_claims, Format};
use quantir::index::dense::{vectors, Encoder, EncoderConfig, TextKind, VectorDtype};
use quantir::index::Index;
use quantir::retrieve::{dense, Ann, Cutoff, DenseQuery};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, index, model, lib, claims, out, k, ef] = args.as_slice() else {
        anyhow::bail!("usage: dense_search INDEX MODEL_DIR ORT_LIB CLAIMS QUERIES_OUT K EF");
    };
    let (k, ef): (usize, usize) = (k.parse()?, ef.parse()?);
    let index = Index::open(Path::new(index))?;
    let encoder = Encoder::open(Path::new(model), EncoderConfig::read(Path::new(model))?, Path::new(lib), 2, 16, quantir::index::dense::Device::Cpu)?;
    let claims = load_claims(Path::new(claims), Format::Auto, None)?;
    let texts: Vec<&str> = claims.iter().map(|c| c.text.as_str()).collect();
    let (flat, dim) = encoder.encode(&texts, TextKind::Query)?;
    vectors::write(Path::new(out), dim, &flat, VectorDtype::F32)?;
    let queries: Vec<DenseQuery> = flat.chunks(dim).map(|v| DenseQuery { vector: v, cutoff: Cutoff::none(), exclude: None }).collect();
    // Queries a second, and each query's hits (row, score).
    type Timed = (f64, Vec<Vec<(u32, f32)>>);
    let time = |ann: Ann| -> anyhow::Result<Timed> {
        dense::search(&index, &queries[..1], k, ann, ef)?; // loads the graph, warms the map
        let started = Instant::now();
        let hits = dense::search(&index, &queries, k, ann, ef)?;
        Ok((queries.len() as f64 / started.elapsed().as_secs_f64(), hits))
    };
    let (exact_qps, exact) = time(Ann::Exact)?;
    let (hnsw_qps, approx) = time(Ann::Hnsw)?;
    let found: usize = exact.iter().zip(&approx).map(|(e, a)| a.iter().filter(|h| e.iter().any(|x| x.0 == h.0)).count()).sum();
    let total: usize = exact.iter().map(Vec::len).sum();
    println!("{{\"queries\": {}, \"exact_qps\": {exact_qps:.1}, \"hnsw_qps\": {hnsw_qps:.1}, \"hnsw_recall\": {:.4}}}", queries.len(), found as f64 / total as f64);
    Ok(())
}
