//! `quantir add`, `quantir delete` and `quantir compact`: an index updated in place, one new
//! generation each ([`quantir::index::update`]).

use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use quantir::corpus::Format;
use quantir::index::{Index, MergePolicy, UpdateConfig, UpdateSummary};

use super::args::{BackendArgs, DenseArgs, RecordArgs, ThreadsArgs};
use super::progress::Bar;

/// How an update merges segments.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Segments of one size tier merged together by an update, 2 to 1000 (each tier holds
    /// segments up to this many times larger than the one below)
    #[arg(long, value_name = "N", default_value_t = MergePolicy::default().factor, value_parser = super::args::ranged(quantir::ranges::MERGE_FACTOR))]
    merge_factor: usize,
}

impl MergeArgs {
    fn policy(&self) -> MergePolicy {
        MergePolicy { factor: self.merge_factor, ..MergePolicy::default() }
    }
}

/// What every update command prints.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Print what the update did as one JSON object on stdout
    #[arg(long)]
    json: bool,
}

/// OpenSearch: whether deleted copies are merged away.
#[derive(Debug, Args)]
pub struct ExpungeArgs {
    /// OpenSearch: merge away the deleted copies a replace or delete leaves, so that document
    /// frequencies are the live documents' (results equal to the embedded index's; costs a merge
    /// of the segments holding them). Without it the summary counts the copies left
    #[arg(long)]
    expunge: bool,
}

#[derive(Debug, Args)]
pub struct AddArgs {
    /// The index to update
    #[arg(long, value_name = "DIR")]
    index: Option<PathBuf>,
    #[command(flatten)]
    backend: BackendArgs,
    #[command(flatten)]
    expunge: ExpungeArgs,
    /// The documents to add: a JSONL file, a BEIR folder, or a QuanTemp++ folder or its
    /// corpus.json, read as `index` reads a corpus. A document whose id the index holds
    /// replaces it; one it holds as given is left as it is
    #[arg(long, value_name = "PATH")]
    corpus: PathBuf,
    /// Corpus layout
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    format: Format,
    #[command(flatten)]
    records: RecordArgs,
    #[command(flatten)]
    dense: DenseArgs,
    #[command(flatten)]
    merge: MergeArgs,
    #[command(flatten)]
    report: ReportArgs,
}

#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// The index to update
    #[arg(long, value_name = "DIR")]
    index: Option<PathBuf>,
    #[command(flatten)]
    backend: BackendArgs,
    #[command(flatten)]
    expunge: ExpungeArgs,
    /// A document id to delete (repeatable)
    #[arg(long, value_name = "ID")]
    id: Vec<String>,
    /// A file of ids to delete, one per line (`-`: standard input)
    #[arg(long, value_name = "FILE")]
    ids: Option<PathBuf>,
    #[command(flatten)]
    merge: MergeArgs,
    #[command(flatten)]
    report: ReportArgs,
}

#[derive(Debug, Args)]
pub struct CompactArgs {
    /// The index to compact
    #[arg(long, value_name = "DIR")]
    index: PathBuf,
    #[command(flatten)]
    threads: ThreadsArgs,
    #[command(flatten)]
    report: ReportArgs,
}

pub fn add(args: AddArgs) -> anyhow::Result<()> {
    if let Some(config) = args.backend.cluster(&args.index)? {
        let corpus = quantir::corpus::scan_corpus(&args.corpus, args.format, &quantir::corpus::LoadOptions { in_memory_bytes: u64::MAX, ..args.records.options() }, &Bar::default())?.into_corpus()?;
        return update_cluster(config, quantir::opensearch::RemoteChange::Upsert(&corpus), &args.expunge, &args.report, "adding");
    }
    reject_expunge(&args.expunge)?;
    let index = args.backend.folder(&args.index)?.clone();
    // An index with vectors encodes its new documents with the encoder it was built with.
    let model = Index::open(&index)?.manifest().dense.as_ref().map(|d| PathBuf::from(&d.model_dir));
    let encoder = match model {
        Some(model) => args.dense.encoder(Some(&model))?,
        None => None,
    };
    let config = UpdateConfig { encoder: encoder.as_ref(), merge: args.merge.policy(), threads: 0 };
    let (summary, loaded) = quantir::index::add_from_path(&args.corpus, args.format, &args.records.options(), &index, &config, &Bar::default())
        .with_context(|| format!("adding {} to the index at {}", args.corpus.display(), index.display()))?;
    for (line, found) in &loaded.undated_examples {
        eprintln!("  undated: {}:{line}: date {} is not a date quantir reads", loaded.file.display(), quantir::error::shorten(found));
    }
    report(&index, &summary, &args.report)
}

pub fn delete(args: DeleteArgs) -> anyhow::Result<()> {
    let mut ids = args.id.clone();
    if let Some(path) = &args.ids {
        ids.extend(read_ids(path)?);
    }
    if ids.is_empty() {
        anyhow::bail!("nothing to delete: name ids with --id ID or --ids FILE (nothing was changed)");
    }
    if let Some(config) = args.backend.cluster(&args.index)? {
        return update_cluster(config, quantir::opensearch::RemoteChange::Delete(&ids), &args.expunge, &args.report, "deleting from");
    }
    reject_expunge(&args.expunge)?;
    let index = args.backend.folder(&args.index)?.clone();
    let config = UpdateConfig { encoder: None, merge: args.merge.policy(), threads: 0 };
    let summary = quantir::index::delete(&index, &ids, &config, &Bar::default()).with_context(|| format!("deleting from the index at {}", index.display()))?;
    report(&index, &summary, &args.report)
}

/// `--expunge` is the cluster's; the embedded index never counts deleted copies.
fn reject_expunge(args: &ExpungeArgs) -> anyhow::Result<()> {
    if args.expunge {
        anyhow::bail!("--expunge merges deleted copies away on an OpenSearch index; the embedded index counts none (nothing was changed)

hint: leave out --expunge, or add --backend opensearch");
    }
    Ok(())
}

/// An update of the cluster's index, reported as the embedded one's is.
fn update_cluster(config: quantir::opensearch::ClusterConfig, change: quantir::opensearch::RemoteChange<'_>, expunge: &ExpungeArgs, args: &ReportArgs, what: &str) -> anyhow::Result<()> {
    let name = config.index.clone();
    let cluster = quantir::opensearch::Cluster::connect(config)?;
    let summary = quantir::opensearch::update(&cluster, change, expunge.expunge, &Bar::default()).with_context(|| format!("{what} OpenSearch index {name}"))?;
    if args.json {
        println!("{}", serde_json::to_string(&summary)?);
    }
    let copies = match (summary.deleted_copies, summary.expunged) {
        (0, true) => "; deleted copies merged away".to_string(),
        (0, false) => String::new(),
        (n, _) => format!("; {n} deleted copies still counted in document frequencies (--expunge merges them away)"),
    };
    eprintln!(
        "{}: OpenSearch index {name} ({}) holds {} documents{copies} in {:.2} s",
        summary.counts,
        summary.physical,
        summary.documents,
        summary.seconds
    );
    Ok(())
}

pub fn compact(args: CompactArgs) -> anyhow::Result<()> {
    let config = UpdateConfig { encoder: None, merge: MergePolicy::default(), threads: args.threads.threads };
    let summary = quantir::index::compact(&args.index, &config, &Bar::default()).with_context(|| format!("compacting the index at {}", args.index.display()))?;
    report(&args.index, &summary, &args.report)
}

/// The ids of `path`, one per line (blank lines skipped; `-`: standard input).
fn read_ids(path: &Path) -> anyhow::Result<Vec<String>> {
    let reader: Box<dyn BufRead> = match path.to_str() {
        Some("-") => Box::new(std::io::stdin().lock()),
        _ => Box::new(std::io::BufReader::new(std::fs::File::open(path).map_err(|e| quantir::Error::io(path, e))?)),
    };
    let mut ids = Vec::new();
    for (n, line) in reader.lines().enumerate() {
        let line = line.with_context(|| format!("{}:{}: reading an id", path.display(), n + 1))?;
        let id = line.trim_end_matches('\r');
        if !id.trim().is_empty() {
            ids.push(id.to_string());
        }
    }
    Ok(ids)
}

fn report(index: &Path, summary: &UpdateSummary, args: &ReportArgs) -> anyhow::Result<()> {
    if args.json {
        println!("{}", serde_json::to_string(summary)?);
    }
    let what = summary.counts.to_string();
    match summary.committed {
        true => eprintln!(
            "{what}: {} now serves generation {} ({} documents, {} segments; {} segments merged, {} documents indexed again, {} passages encoded) in {:.2} s",
            index.display(),
            summary.generation,
            summary.documents,
            summary.segments,
            summary.merged_segments,
            summary.rewritten,
            summary.encoded,
            summary.seconds
        ),
        false => eprintln!("{what}: nothing to change, {} still serves generation {} ({} documents)", index.display(), summary.generation, summary.documents),
    }
    Ok(())
}
