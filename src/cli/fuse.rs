//! `quantir fuse`.

use std::path::PathBuf;

use clap::Args;
use quantir::fuse::{fuse_runs, Method};
use quantir::trec::{Run, DEFAULT_TAG};

use super::args::FusionArgs;

#[derive(Debug, Args)]
pub struct FuseArgs {
    /// Fusion method
    #[arg(long, value_enum)]
    method: Method,
    #[command(flatten)]
    fusion: FusionArgs,
    /// Documents kept per query
    #[arg(short, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..))]
    k: u64,
    /// TREC runs to fuse (the same queries in each)
    #[arg(value_name = "RUN", required = true, num_args = 2..)]
    runs: Vec<PathBuf>,
    /// The fused TREC run
    #[arg(long, value_name = "RUN")]
    output: PathBuf,
}

pub fn run(args: FuseArgs) -> anyhow::Result<()> {
    super::check_output("--output", &args.output, &args.runs.iter().map(PathBuf::as_path).collect::<Vec<_>>(), &[])?;
    let runs = args.runs.iter().map(|p| Run::read_trec(p)).collect::<Result<Vec<_>, _>>()?;
    if let Some((path, _)) = args.runs.iter().zip(&runs).find(|(_, r)| r.queries.is_empty()) {
        anyhow::bail!("{}: holds no results: a run to fuse has one line per retrieved document (qid Q0 docid rank score tag)", path.display());
    }
    let config = args.fusion.config(args.method);
    let names = || format!("fusing {}", args.runs.iter().enumerate().map(|(i, p)| format!("run {} ({})", i + 1, p.display())).collect::<Vec<_>>().join(", "));
    let fused = fuse_runs(&runs, &config, args.k as usize).map_err(|e| anyhow::Error::new(e).context(names()))?;
    fused.write_trec(&args.output, DEFAULT_TAG)?;
    let inputs = args.runs.iter().map(|p| quantir::provenance::Input::file(quantir::provenance::Role::Run, p)).collect::<Result<Vec<_>, _>>()?;
    super::record(&args.output, quantir::provenance::Artifact::Fusion, inputs, &(&config, args.k), [("queries".to_string(), fused.queries.len() as u64)].into())?;
    eprintln!("fused {} runs ({:?}, norm {:?}) over {} queries into {}", runs.len(), config.method, config.effective_norm(), fused.queries.len(), args.output.display());
    Ok(())
}
