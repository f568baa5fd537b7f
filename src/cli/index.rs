//! `quantir index`.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::Args;
use quantir::corpus::Format;
use quantir::index::dense::VectorDtype;
use quantir::index::{build_from_path, Bm25Params, DenseConfig, DocOrder, HnswParams, IndexConfig};

use super::args::{BackendArgs, Bm25Args, DenseArgs, ThreadsArgs};
use super::progress::Bar;

#[derive(Debug, Args)]
pub struct IndexArgs {
    /// The evidence corpus: a JSONL file, a BEIR folder, or a QuanTemp++ folder or its corpus.json
    #[arg(long, value_name = "PATH")]
    corpus: PathBuf,
    /// Corpus layout
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    format: Format,
    /// Where the index goes (replaced atomically when the build succeeds)
    #[arg(long, value_name = "DIR")]
    index: Option<PathBuf>,
    #[command(flatten)]
    backend: BackendArgs,
    /// OpenSearch: primary shards of the new index
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=1024))]
    opensearch_shards: u32,
    /// OpenSearch: replicas of each primary (at most nodes - 1)
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(0..=16))]
    opensearch_replicas: u32,
    /// OpenSearch: documents per _bulk request
    #[arg(long, value_name = "N", default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    opensearch_batch: u64,
    /// OpenSearch: load each document with its vector from this embedded index, built from the
    /// same corpus with --dense (dense and hybrid retrieval on the cluster, Lucene's HNSW with
    /// --hnsw-m and --hnsw-ef-construction)
    #[arg(long, value_name = "DIR")]
    vectors_from: Option<PathBuf>,
    #[command(flatten)]
    bm25: Bm25Args,
    #[command(flatten)]
    records: super::args::RecordArgs,
    /// Order of documents inside the embedded index: by date (a date cutoff then reads only the
    /// postings before it) or as in the corpus; results are the same either way [default: date]
    #[arg(long, value_enum)]
    doc_order: Option<DocOrder>,
    #[command(flatten)]
    threads: ThreadsArgs,
    #[command(flatten)]
    dense: DenseArgs,
    /// Store vectors as f16 (half the disk; widened when opened)
    #[arg(long, requires = "dense")]
    f16: bool,
    /// Also build an HNSW graph over the vectors
    #[arg(long, requires = "dense")]
    hnsw: bool,
    /// HNSW neighbours per node (M), 2 to 256 (hnsw_rs's most)
    #[arg(long, default_value_t = 16, value_parser = super::args::ranged(quantir::ranges::HNSW_M))]
    hnsw_m: usize,
    /// HNSW candidate list while building, 1 to 100000
    #[arg(long, default_value_t = 200, value_parser = super::args::ranged(quantir::ranges::HNSW_EF_CONSTRUCTION))]
    hnsw_ef_construction: usize,
}

pub fn run(args: IndexArgs) -> anyhow::Result<()> {
    if let Some(cluster) = args.backend.cluster(&args.index)? {
        return load_cluster(&args, cluster);
    }
    if args.vectors_from.is_some() {
        anyhow::bail!("--vectors-from loads vectors into an OpenSearch index (--backend opensearch); an embedded index encodes its own with --dense MODEL");
    }
    let target = args.backend.folder(&args.index)?.clone();
    let started = Instant::now();
    quantir::index::check_target(&target)?;
    let encoder = args.dense.encoder(None)?;
    let dense = encoder.as_ref().map(|encoder| DenseConfig {
        encoder,
        dtype: if args.f16 { VectorDtype::F16 } else { VectorDtype::F32 },
        hnsw: args.hnsw.then_some(HnswParams { max_connections: args.hnsw_m, ef_construction: args.hnsw_ef_construction }),
    });
    let config = IndexConfig { bm25: args.bm25.over(Bm25Params::default()).unwrap_or_default(), threads: args.threads.threads, dense, doc_order: args.doc_order.unwrap_or_default() };
    let (summary, loaded) = build_from_path(&args.corpus, args.format, &args.records.options(), &target, &config, &Bar::default())
        .with_context(|| format!("building the index at {}", target.display()))?;
    let total = started.elapsed().as_secs_f64();
    eprintln!(
        "indexed {} documents ({} undated, {} skipped as empty) into {} in {:.2} s ({:.0} docs/s; loading took {:.2} s)",
        summary.documents,
        summary.undated,
        summary.skipped_empty,
        target.display(),
        total,
        summary.documents as f64 / total.max(1e-9),
        (total - summary.seconds).max(0.0),
    );
    if loaded.no_date_field > 0 {
        eprintln!("  {} documents have no date field", loaded.no_date_field);
    }
    if encoder.is_some() {
        eprintln!("  encoded {} passages ({} resumed from an interrupted build)", summary.encoded + summary.resumed, summary.resumed);
    }
    for (line, found) in &loaded.undated_examples {
        eprintln!("  undated: {}:{line}: date {} is not a date quantir reads", loaded.file.display(), quantir::error::shorten(found));
    }
    Ok(())
}

/// `quantir index --backend opensearch`: the corpus into the cluster, behind its alias.
fn load_cluster(args: &IndexArgs, config: quantir::opensearch::ClusterConfig) -> anyhow::Result<()> {
    if args.dense.dense.is_some() || args.hnsw || args.f16 {
        anyhow::bail!("the OpenSearch backend does not encode documents: --dense, --hnsw and --f16 are the embedded backend's\n\nhint: build an embedded index of the corpus with --dense MODEL and load the cluster with --vectors-from DIR");
    }
    if args.doc_order.is_some() {
        anyhow::bail!("--doc-order orders the embedded index; OpenSearch keeps its own order (nothing was loaded)");
    }
    let started = Instant::now();
    // Streamed: one pass checks and counts, the fingerprint and the load read the file again in
    // order; no document is held beyond the window being sent.
    let corpus = quantir::corpus::stream_corpus(&args.corpus, args.format, &args.records.options(), &Bar::default())?;
    let cluster = quantir::opensearch::Cluster::connect(config)?;
    let load = quantir::opensearch::LoadConfig {
        bm25: args.bm25.over(Bm25Params::default()).unwrap_or_default(),
        shards: args.opensearch_shards,
        replicas: args.opensearch_replicas,
        batch: args.opensearch_batch as usize,
        hnsw: HnswParams { max_connections: args.hnsw_m, ef_construction: args.hnsw_ef_construction },
    };
    let vectors = args.vectors_from.as_deref().map(quantir::index::Index::open).transpose().context("opening the index named by --vectors-from")?;
    let summary = quantir::opensearch::build(&cluster, &corpus, &args.corpus, &load, vectors.as_ref(), &Bar::default())
        .with_context(|| format!("loading {} into OpenSearch index {}", args.corpus.display(), args.backend.opensearch_index))?;
    let total = started.elapsed().as_secs_f64();
    if summary.unchanged {
        eprintln!("OpenSearch index {} already holds this corpus with these settings ({}): nothing sent", args.backend.opensearch_index, summary.physical);
        return Ok(());
    }
    eprintln!(
        "loaded {} documents ({} undated{}) into OpenSearch index {} ({}) in {:.2} s ({:.0} docs/s)",
        summary.documents,
        summary.undated,
        if summary.resumed > 0 { format!(", {} already sent by an interrupted load", summary.resumed) } else { String::new() },
        args.backend.opensearch_index,
        summary.physical,
        total,
        (summary.documents - summary.resumed) as f64 / total.max(1e-9),
    );
    Ok(())
}
