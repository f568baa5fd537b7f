//! `quantir experiment quantemp`: the paper's retrieval and verification tables from a QuanTemp++
//! folder.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Context;
use clap::{Args, Subcommand};
use quantir::engine::{default_hybrid_fusion, PlanRunConfig};
use quantir::experiment::verification::{self, run_verification, VerificationConfig};
use quantir::experiment::{csv, markdown, prepare_index, run_grid, Conventions, ExperimentConfig, PaperPlanner, QuantempFolder, Resume, Session};
use quantir::fuse::{FusionConfig, Method};
use quantir::retrieve::Retriever;

use super::args::{DenseArgs, LlmArgs, ThreadsArgs};
use super::progress::Bar;

#[derive(Debug, Subcommand)]
pub enum ExperimentCommand {
    /// QuanTemp++'s experiments: retrieval (Table 4 layout: every planner × with and without the
    /// temporal filter × each retriever, measures with † against claim only, and what the
    /// reference code's post-filter loses) and verification (Table 5 layout: a verifier trained
    /// per planner on train.json, scored on the test claims); resumable
    Quantemp(QuantempArgs),
}

#[derive(Debug, Args)]
pub struct QuantempArgs {
    /// A QuanTemp++ folder: corpus.json, test.json, test_qrels.json (qgen_out.csv for QGen,
    /// train.json for the verification table)
    #[arg(long, value_name = "DIR")]
    data: PathBuf,
    /// Where the index, the runs and the tables go (a rerun reuses what an earlier one made from
    /// the same data and settings, and makes the rest again)
    #[arg(long, value_name = "DIR")]
    output: PathBuf,
    /// An earlier artifact in --output made from other data or settings: auto makes it again
    /// (saying why), strict refuses to go on
    #[arg(long, value_enum, default_value_t = Resume::Auto)]
    resume: Resume,
    /// Planners, comma-separated (claim-only always runs: it is the baseline) [default:
    /// claim-only,fcdecomp,claimdecomp,pgmfc,qgen,numeric, and llm-fcdecomp,llm-claimdecomp,llm-pgmfc
    /// when --llm-url and --llm-model are given]
    #[arg(long, value_enum, value_delimiter = ',')]
    planners: Option<Vec<PaperPlanner>>,
    /// Retrievers, comma-separated (dense and hybrid encode the corpus with --dense once)
    #[arg(long, value_enum, value_delimiter = ',', default_value = "bm25")]
    retrievers: Vec<Retriever>,
    /// Documents kept per claim
    #[arg(short, default_value_t = 100, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=10_000))]
    k: usize,
    /// Documents each sub-query retrieves before fusion
    #[arg(long, default_value_t = quantir::ranges::DEFAULT_DEPTH, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=10_000))]
    depth: usize,
    /// How sub-query lists are fused (the paper's CombMAX-Norm)
    #[arg(long, value_enum, default_value_t = Method::CombMaxNorm)]
    fusion: Method,
    /// quantir's conventions, or the reference code's (undated documents included, a constant
    /// list keeps its raw score)
    #[arg(long, value_enum, default_value_t = Conventions::Quantir)]
    conventions: Conventions,
    /// Leave out the verification table (it is made when the folder has train.json)
    #[arg(long)]
    no_verification: bool,
    /// The retriever whose runs give the verifier its evidence (one of --retrievers)
    #[arg(long, value_enum, default_value_t = Retriever::Bm25)]
    verify_retriever: Retriever,
    /// Evidence texts per claim the verifier reads, 1 to 100
    #[arg(long, default_value_t = 3, value_parser = super::args::ranged(quantir::ranges::TOP))]
    verify_top: usize,
    /// Folds of the verification table's paired t-test, 2 to 1000
    #[arg(long, default_value_t = 10, value_parser = super::args::count(2, 1000))]
    verify_folds: usize,
    #[command(flatten)]
    llm: LlmArgs,
    #[command(flatten)]
    records: super::args::RecordArgs,
    #[command(flatten)]
    dense: DenseArgs,
    #[command(flatten)]
    threads: ThreadsArgs,
}

/// Peak resident memory of this process so far, in MiB.
fn peak_mib() -> f64 {
    // SAFETY: getrusage writes into the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    usage.ru_maxrss as f64 / 1024.0
}

pub fn run(command: ExperimentCommand) -> anyhow::Result<()> {
    let ExperimentCommand::Quantemp(args) = command;
    let folder = QuantempFolder::open(&args.data)?;
    let llm = args.llm.config(None);
    let planners = args.planners.clone().unwrap_or_else(|| {
        let mut all = PaperPlanner::ALL.to_vec();
        if llm.is_some() {
            all.extend(PaperPlanner::LLM);
        }
        all
    });
    quantir::experiment::check_llm(&planners, llm.as_ref())?;
    let verify = !args.no_verification && folder.train.is_some();
    anyhow::ensure!(!verify || args.retrievers.contains(&args.verify_retriever), "--verify-retriever {} is not among --retrievers\n\nhint: add it to --retrievers, or pass --no-verification", clap::ValueEnum::to_possible_value(&args.verify_retriever).map_or_else(String::new, |v| v.get_name().to_string()));
    std::fs::create_dir_all(&args.output).with_context(|| format!("creating {}", args.output.display()))?;
    let mut stages: Vec<serde_json::Value> = Vec::new();
    let mut stage = |name: &str, started: Instant| {
        let seconds = started.elapsed().as_secs_f64();
        eprintln!("{name}: {seconds:.1} s (peak memory so far {:.0} MiB)", peak_mib());
        stages.push(serde_json::json!({"stage": name, "seconds": seconds, "peak_mib": peak_mib()}));
    };
    let needs_vectors = args.retrievers.iter().any(|r| *r != Retriever::Bm25);
    let encoder = if needs_vectors { Some(args.dense.encoder(Some(std::path::Path::new(super::models::DEFAULT_MODEL)))?.context("no encoder")?) } else { None };
    // The claims and their judgments first: an empty or undated test.json, or qrels of no claim
    // run, is an error before any index is built.
    let test_claims = folder.test_claims()?;
    let judged = folder.test_qrels(&test_claims)?;
    if !test_claims.undated.is_empty() {
        eprintln!("test.json: {}", test_claims.describe());
    }
    let config = ExperimentConfig {
        planners,
        retrievers: args.retrievers.clone(),
        k: args.k,
        conventions: args.conventions,
        plan_run: PlanRunConfig { depth: args.depth, fusion: FusionConfig { method: args.fusion, ..FusionConfig::default() }, hybrid: default_hybrid_fusion() },
        threads: args.threads.threads,
        llm,
        resume: args.resume,
    };
    let started = Instant::now();
    let (index, built) = prepare_index(&folder, &args.output, encoder.as_ref(), &config, &args.records.options(), &Bar::default(), &mut |line| eprintln!("{line}"))?;
    if let Some(summary) = built {
        stage(if needs_vectors { "index (BM25 and encoding)" } else { "index (BM25)" }, started);
        eprintln!("indexed {} snippets ({} undated){}", summary.documents, summary.undated, if needs_vectors { format!(", encoded {} ({} resumed)", summary.encoded + summary.resumed, summary.resumed) } else { String::new() });
    }
    let session = Session { index: &index, encoder: encoder.as_ref(), folder: &folder, config: &config, out: &args.output };
    let started = Instant::now();
    let grid = run_grid(&session, &test_claims, &judged, &Bar::default(), &mut |line| eprintln!("{line}"))?;
    stage("runs and measures", started);
    let mut tables = markdown(&grid);
    let table = if verify {
        let started = Instant::now();
        let mut verification = VerificationConfig { retriever: args.verify_retriever, top: args.verify_top, folds: args.verify_folds, ..VerificationConfig::default() };
        verification.train.top = args.verify_top;
        let table = run_verification(&session, &test_claims, &judged, &verification, &Bar::default(), &mut |line| eprintln!("{line}"))?;
        stage("verification", started);
        tables.push('\n');
        tables.push_str(&verification::markdown(&table));
        Some(table)
    } else {
        if !args.no_verification {
            eprintln!("no verification table: {} has no train.json", args.data.display());
        }
        None
    };
    let write = |name: &str, text: &str| -> anyhow::Result<()> { Ok(quantir::io::write_replacing(&args.output.join(name), text.as_bytes())?) };
    write("tables.md", &tables)?;
    write("grid.csv", &csv(&grid))?;
    write("grid.json", &serde_json::to_string_pretty(&grid)?)?;
    if let Some(table) = &table {
        write("verification.csv", &verification::csv(table))?;
        write("verification.json", &serde_json::to_string_pretty(table)?)?;
    }
    write("timings.json", &serde_json::to_string_pretty(&stages)?)?;
    print!("{tables}");
    eprintln!("tables, CSV, JSON and timings in {}", args.output.display());
    Ok(())
}
