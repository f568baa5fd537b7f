//! Passage encoding throughput, for scripts/bench_encode.sh: takes the first N documents of a
//! corpus, writes the passages quantir encodes (`corpus::passage`, one JSON string a line) for the
//! peers to encode the same strings, warms the encoder on a few, then times one
//! `Encoder::encode` call over all of them (what `quantir index --dense` runs, chunk by chunk)
//! and writes the vectors (quantir's vector format) for the agreement check.
//!
//! usage: encode CORPUS N MODEL_DIR ORT_LIB WORKERS BATCH DEVICE TEXTS_OUT VECTORS_OUT
//! prints: {"passages": N, "seconds": S, "passages_per_s": P, "device": "..."}

use std::io::Write;
use std::path::Path;
use std::time::Instant;

use quantir::corpus::{load_corpus, passage, Format};
use quantir::index::dense::{vectors, Device, Encoder, EncoderConfig, TextKind, VectorDtype};

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, corpus, n, model, lib, workers, batch, device, texts_out, vectors_out] = args.as_slice() else {
        anyhow::bail!("usage: encode CORPUS N MODEL_DIR ORT_LIB WORKERS BATCH DEVICE TEXTS_OUT VECTORS_OUT");
    };
    let (n, workers, batch): (usize, usize, usize) = (n.parse()?, workers.parse()?, batch.parse()?);
    let device = <Device as clap::ValueEnum>::from_str(device, false).map_err(anyhow::Error::msg)?;
    let corpus = load_corpus(Path::new(corpus), Format::Auto)?;
    let texts: Vec<String> = corpus.documents.iter().take(n).map(|d| passage(&d.title, &d.text)).collect();
    let mut out = std::io::BufWriter::new(std::fs::File::create(texts_out)?);
    for text in &texts {
        writeln!(out, "{}", serde_json::to_string(text)?)?;
    }
    out.flush()?;
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let encoder = Encoder::open(Path::new(model), EncoderConfig::read(Path::new(model))?, Path::new(lib), workers, batch, device)?;
    encoder.encode(&refs[..refs.len().min(64)], TextKind::Passage)?;
    let started = Instant::now();
    let (flat, dim) = encoder.encode(&refs, TextKind::Passage)?;
    let seconds = started.elapsed().as_secs_f64();
    vectors::write(Path::new(vectors_out), dim, &flat, VectorDtype::F32)?;
    println!("{}", serde_json::json!({ "passages": refs.len(), "seconds": seconds, "passages_per_s": refs.len() as f64 / seconds, "device": encoder.device().to_string() }));
    Ok(())
}
