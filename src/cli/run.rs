//! `quantir run`.

use std::path::PathBuf;

use clap::Args;
use quantir::corpus::{load_claims, Format};
use quantir::engine::{Engine, FeedbackKind, PlanRunConfig, RunConfig, RunRequest, RunSettings};
use quantir::fuse::{Method, Norm};
use quantir::eval::{evaluate, Completeness, Measure};
use quantir::trec::{Qrels, QrelsFormat, DEFAULT_TAG};

use quantir::provenance::{Artifact, Input, Role};
use quantir::retrieve::{Strategy, TemporalFilter};

use super::args::{BackendArgs, Bm25Args, CutoffArgs, DenseArgs, FusionArgs, PlanArgs, RetrievalArgs, ThreadsArgs};
use super::progress::Bar;

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("feedback").args(["rm3", "rocchio"])))]
pub struct RunArgs {
    /// The index folder
    #[arg(long, value_name = "DIR")]
    index: Option<PathBuf>,
    #[command(flatten)]
    backend: BackendArgs,
    /// Claims: quantir JSONL, BEIR queries.jsonl (or its folder), or a QuanTemp++ claims list
    #[arg(long, value_name = "PATH")]
    claims: PathBuf,
    /// Claims layout
    #[arg(long, value_enum, default_value_t = Format::Auto)]
    format: Format,
    /// Run only the queries judged in this qrels file (TREC, BEIR tsv or QuanTemp++ JSON)
    #[arg(long, value_name = "PATH")]
    qrels: Option<PathBuf>,
    /// Documents per claim, at least 1
    #[arg(short, default_value_t = RunSettings::DEFAULT.k, value_parser = super::args::ranged(quantir::ranges::K))]
    k: usize,
    /// How BM25 finds the top k: every strategy gives the same hits, bit for bit (for comparing
    /// their speed; exhaustive is the fastest measured)
    #[arg(long, value_enum, default_value_t = RunSettings::DEFAULT.bm25_strategy)]
    bm25_strategy: Strategy,
    /// Drop a hit whose id equals the query id (BEIR convention)
    #[arg(long)]
    remove_query: bool,
    /// RM3 pseudo-relevance feedback on BM25 (Anserini's definition): each sub-query expanded
    /// from its first pass's top documents under the claim's cutoff, then searched again
    #[arg(long, conflicts_with = "rocchio")]
    rm3: bool,
    /// Rocchio pseudo-relevance feedback on BM25 (Anserini's definition), as --rm3 does
    #[arg(long)]
    rocchio: bool,
    /// Feedback (--rm3, --rocchio): documents read from the first pass
    #[arg(long, default_value_t = RunSettings::DEFAULT.fb_docs, requires = "feedback")]
    fb_docs: usize,
    /// Feedback (--rm3, --rocchio): terms kept
    #[arg(long, default_value_t = RunSettings::DEFAULT.fb_terms, requires = "feedback")]
    fb_terms: usize,
    /// RM3: the original query's weight, in [0, 1]
    #[arg(long, default_value_t = RunSettings::DEFAULT.rm3_original_weight, requires = "rm3")]
    rm3_original_weight: f64,
    /// Rocchio: the original query's weight (alpha)
    #[arg(long, default_value_t = RunSettings::DEFAULT.rocchio_alpha, requires = "rocchio")]
    rocchio_alpha: f64,
    /// Rocchio: the feedback documents' weight (beta)
    #[arg(long, default_value_t = RunSettings::DEFAULT.rocchio_beta, requires = "rocchio")]
    rocchio_beta: f64,
    #[command(flatten)]
    cutoff: CutoffArgs,
    /// claim: each claim's own date is its cutoff; off: no cutoff (QuanTemp++'s "without
    /// temporal filter" rows)
    #[arg(long, value_enum, default_value_t = RunSettings::DEFAULT.temporal_filter)]
    temporal_filter: TemporalFilter,
    /// The TREC run file to write
    #[arg(long, value_name = "RUN")]
    output: PathBuf,
    /// Evaluate the run against these qrels right after (nDCG@10, R@10, R@100, MRR, MAP)
    #[arg(long, value_name = "QRELS")]
    eval: Option<PathBuf>,
    #[command(flatten)]
    plan: PlanArgs,
    /// How a claim's sub-query lists are fused (QuanTemp++'s CombMAX-Norm by default)
    #[arg(long, value_enum, default_value_t = RunSettings::DEFAULT.fusion)]
    fusion: Method,
    /// With --retriever hybrid: how each sub-query's BM25 and dense lists are fused, before the
    /// sub-queries are (CombSUM of z-scores by default: the best measured on SciFact, 0.7344
    /// nDCG@10 against BM25's 0.6821; CombMAX-Norm gives 0.6688)
    #[arg(long, value_enum, default_value_t = RunSettings::DEFAULT.hybrid_fusion)]
    hybrid_fusion: Method,
    /// With --retriever hybrid: the normalisation of the BM25 and dense lists before
    /// --hybrid-fusion [default: zmuv; combmax-norm is always min-max; rrf reads ranks only]
    #[arg(long, value_enum)]
    hybrid_norm: Option<Norm>,
    #[command(flatten)]
    fusion_options: FusionArgs,
    /// Documents each sub-query retrieves before fusion, at least 1
    #[arg(long, default_value_t = RunSettings::DEFAULT.depth, value_parser = super::args::ranged(quantir::ranges::DEPTH))]
    depth: usize,
    /// Write, per claim, its sub-queries and which of them found each document (JSONL)
    #[arg(long, value_name = "PATH")]
    explain: Option<PathBuf>,
    #[command(flatten)]
    retrieval: RetrievalArgs,
    #[command(flatten)]
    dense: DenseArgs,
    #[command(flatten)]
    bm25: Bm25Args,
    #[command(flatten)]
    threads: ThreadsArgs,
}

pub fn run(args: RunArgs) -> anyhow::Result<()> {
    let inputs: Vec<&std::path::Path> = [Some(args.claims.as_path()), args.qrels.as_deref(), args.eval.as_deref()].into_iter().flatten().collect();
    for (flag, output) in [("--output", Some(&args.output)), ("--explain", args.explain.as_ref())] {
        if let Some(output) = output {
            super::check_output(flag, output, &inputs, &args.index.iter().map(PathBuf::as_path).collect::<Vec<_>>())?;
        }
    }
    let engine = Engine::open(&args.backend.location(&args.index)?)?;
    let claims = claims(&args)?;
    let settings = settings(&args);
    settings.validate()?;
    let config = settings.run_config(engine.default_bm25());
    let encoder = if settings.needs_encoder() { engine.encoder(&args.dense.options(), &super::models::roots())?.map(std::sync::Arc::new) } else { None };
    let planner = settings.planner(args.plan.llm.config(None), encoder.clone())?;
    let plan_config = settings.plan_run_config();
    let request = RunRequest { planner: planner.as_ref(), encoder: encoder.as_deref(), config: &config, plan: &plan_config, explain: args.explain.is_some() };
    let output = engine.run(&claims, &request, &Bar::default())?;
    output.lists.write_trec(&args.output, DEFAULT_TAG)?;
    record_run(&args, &settings, output.source.clone(), &config, &plan_config, &output.summary)?;
    report(&args, &output.summary, &claims, &config);
    if let Some(path) = &args.eval {
        print_eval(path, &output.lists.view())?;
    }
    if let Some(path) = &args.explain {
        quantir::io::write_jsonl(path, &output.explanations)?;
    }
    Ok(())
}

/// The flags that set how claims are run, as the library's settings (their defaults are
/// [`RunSettings::DEFAULT`]'s).
fn settings(args: &RunArgs) -> RunSettings {
    let feedback = match (args.rm3, args.rocchio) {
        (true, _) => Some(FeedbackKind::Rm3),
        (_, true) => Some(FeedbackKind::Rocchio),
        _ => None,
    };
    RunSettings {
        plan: args.plan.plan.clone(),
        k: args.k,
        depth: args.depth,
        retriever: args.retrieval.retriever,
        ann: args.retrieval.ann,
        ef: args.retrieval.ef,
        fusion: args.fusion,
        norm: args.fusion_options.norm,
        constant: args.fusion_options.constant,
        rrf_k: args.fusion_options.rrf_k,
        weights: args.fusion_options.weights.clone(),
        hybrid_fusion: args.hybrid_fusion,
        hybrid_norm: args.hybrid_norm,
        before: args.cutoff.before,
        undated: args.cutoff.undated,
        temporal_filter: args.temporal_filter,
        remove_query: args.remove_query,
        k1: args.bm25.k1,
        b: args.bm25.b,
        feedback,
        fb_docs: args.fb_docs,
        fb_terms: args.fb_terms,
        rm3_original_weight: args.rm3_original_weight,
        rocchio_alpha: args.rocchio_alpha,
        rocchio_beta: args.rocchio_beta,
        mmr: args.plan.mmr,
        mmr_beta: args.plan.mmr_beta,
        mmr_threshold: args.plan.mmr_threshold,
        mmr_similarity: args.plan.mmr_similarity,
        threads: args.threads.threads,
        bm25_strategy: args.bm25_strategy,
    }
}

/// The claims the flags name (only the judged ones with --qrels).
fn claims(args: &RunArgs) -> anyhow::Result<Vec<quantir::corpus::Claim>> {
    let judged = match &args.qrels {
        Some(path) => Some(Qrels::read(path, QrelsFormat::Auto)?.query_ids()),
        None => None,
    };
    Ok(load_claims(&args.claims, args.format, judged.as_ref())?)
}

/// The settings a run's provenance records.
#[derive(serde::Serialize)]
struct RunRecord<'a> {
    plan: &'a quantir::plan::PlanSpec,
    mmr: Option<quantir::plan::MmrConfig>,
    llm_model: Option<&'a str>,
    run: &'a RunConfig,
    plan_run: &'a PlanRunConfig,
}

/// Records beside the run file what made it: the index, the claims (and the qrels that chose
/// them, and a decomposition file), the settings, and the run's counts.
fn record_run(args: &RunArgs, settings: &RunSettings, index: Input, config: &RunConfig, plan_config: &PlanRunConfig, summary: &quantir::engine::RunSummary) -> anyhow::Result<()> {
    let mut inputs = vec![index, Input::file(Role::Claims, &quantir::corpus::claims_file(&args.claims, args.format)?)?];
    if let Some(qrels) = &args.qrels {
        inputs.push(Input::file(Role::Qrels, qrels)?);
    }
    inputs.extend(super::plan_input(&args.plan.plan)?);
    let mmr = settings.mmr();
    let llm_model = matches!(args.plan.plan, quantir::plan::PlanSpec::Llm(_)).then_some(args.plan.llm.llm_model.as_deref()).flatten();
    super::record(&args.output, Artifact::Run, inputs, &RunRecord { plan: &args.plan.plan, mmr, llm_model, run: config, plan_run: plan_config }, summary.counts())
}

/// What a run did, on stderr: counts, and, under the temporal filter, the claims that had no date
/// and so ran without a cutoff (named: a run with the filter on cuts every claim it can).
fn report(args: &RunArgs, summary: &quantir::engine::RunSummary, claims: &[quantir::corpus::Claim], config: &RunConfig) {
    if config.temporal_filter == TemporalFilter::Claim {
        let uncut: Vec<&str> = claims.iter().filter(|c| config.cutoff_for(c).before.is_none()).map(|c| c.id.as_str()).collect();
        if !uncut.is_empty() {
            let shown = uncut.iter().take(5).copied().collect::<Vec<_>>().join(", ");
            eprintln!("{} of {} claims have no date and ran without a cutoff ({shown}{}); --before DATE cuts them off, --temporal-filter off says none is cut", uncut.len(), claims.len(), if uncut.len() > 5 { ", …" } else { "" });
        }
    }
    eprintln!(
        "ran {} claims ({} with a date cutoff, {} sub-queries, {} fell back to the claim) in {:.2} s ({:.0} claims/s) into {}",
        summary.claims,
        summary.with_cutoff,
        summary.subqueries,
        summary.fallbacks,
        summary.seconds,
        summary.claims as f64 / summary.seconds.max(1e-9),
        args.output.display()
    );
}

/// --eval: the run's default measures against the qrels at `path`.
fn print_eval(path: &std::path::Path, run: &quantir::trec::RunView) -> anyhow::Result<()> {
    let qrels = Qrels::read(path, QrelsFormat::Auto)?;
    let evaluation = evaluate(run, &qrels, &Measure::DEFAULTS, Completeness::Complete);
    super::eval::print_means(&evaluation);
    Ok(())
}
