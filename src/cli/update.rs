//! `quantir add`, `quantir delete` and `quantir compact`: an index updated in place, one new
//! generation each ([`quantir::index::update`]).

use std::io::BufRead;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use quantir::corpus::Format;
use quantir::index::{Index, MergePolicy, UpdateConfig, UpdateSummary};

use super::args::{DenseArgs, RecordArgs, ThreadsArgs};
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

#[derive(Debug, Args)]
pub struct AddArgs {
    /// The index to update
    #[arg(long, value_name = "DIR")]
    index: PathBuf,
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
    index: PathBuf,
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
    // An index with vectors encodes its new documents with the encoder it was built with.
    let model = Index::open(&args.index)?.manifest().dense.as_ref().map(|d| PathBuf::from(&d.model_dir));
    let encoder = match model {
        Some(model) => args.dense.encoder(Some(&model))?,
        None => None,
    };
    let config = UpdateConfig { encoder: encoder.as_ref(), merge: args.merge.policy(), threads: 0 };
    let (summary, loaded) = quantir::index::add_from_path(&args.corpus, args.format, &args.records.options(), &args.index, &config, &Bar::default())
        .with_context(|| format!("adding {} to the index at {}", args.corpus.display(), args.index.display()))?;
    for (line, found) in &loaded.undated_examples {
        eprintln!("  undated: {}:{line}: date {} is not a date quantir reads", loaded.file.display(), quantir::error::shorten(found));
    }
    report(&args.index, &summary, &args.report)
}

pub fn delete(args: DeleteArgs) -> anyhow::Result<()> {
    let mut ids = args.id.clone();
    if let Some(path) = &args.ids {
        ids.extend(read_ids(path)?);
    }
    if ids.is_empty() {
        anyhow::bail!("nothing to delete: name ids with --id ID or --ids FILE (nothing was changed)");
    }
    let config = UpdateConfig { encoder: None, merge: args.merge.policy(), threads: 0 };
    let summary = quantir::index::delete(&args.index, &ids, &config, &Bar::default()).with_context(|| format!("deleting from the index at {}", args.index.display()))?;
    report(&args.index, &summary, &args.report)
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
    let what = format!(
        "{} added, {} replaced, {} unchanged, {} deleted{}",
        summary.added,
        summary.replaced,
        summary.unchanged,
        summary.deleted,
        if summary.not_found > 0 { format!(", {} ids to delete not in the index", summary.not_found) } else { String::new() }
    );
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
