//! QuanTemp++'s experiments over a QuanTemp++ folder: retrieval (the paper's Table 4 layout, this
//! module) and verification (Table 5, [`verification`]).
//!
//! In: a folder in the published layout ([`QuantempFolder`]: `corpus.json`, `test.json`,
//! `test_qrels.json`, optionally `train.json` and `qgen_out.csv`), an index built from its corpus, and an
//! [`ExperimentConfig`]. Out: one TREC run per planner × temporal filter × retriever under
//! `OUT/runs/` (a rerun reuses the runs already there, so an interrupted experiment resumes), and
//! the [`Grid`] of measures with the paired t-test against claim-only in the same column, plus,
//! per planner, what the reference code's post-filter loses ([`PostFilterRow`]).
//!
//! - **Planners** ([`PaperPlanner`]): claim-only, FCDecomp (`in_file` keys: the oracle), ClaimDecomp
//!   (`decomp_questions`), PgmFC (`pgmfc_questions`), QGen (`qgen_out.csv`, by row), and
//!   quantir's numeric decomposer; with an LLM endpoint ([`ExperimentConfig::llm`]), the three
//!   `llm:` planners too. Sub-query lists are fused with the configured fusion
//!   (CombMAX-Norm by default, the paper's).
//! - **Measures**: NDCG@10, Recall@10, Recall@100 and MRR (`ndcg_cut.10`, `recall.10`,
//!   `recall.100`, `recip_rank`), with trec_eval's semantics; judged claims missing from a run count
//!   as 0 (trec_eval `-c`).
//! - **Significance** (†): a paired two-sided t-test on the per-claim values against claim-only
//!   with the same retriever and temporal filter, p < 0.05, uncorrected, as the paper marks it.
//! - **The post-filter**: the QuanTemp++ reference code retrieves a fixed top 2,048 without any
//!   cutoff and then keeps the documents dated before the claim, undated ones included (it treats
//!   them as very old). quantir's cutoff is exact inside retrieval. For each planner, the
//!   post-filtered run is built from a no-cutoff run of 2,048 documents per claim (and per
//!   sub-query); the row counts the claims left with fewer than k eligible documents and gives the
//!   measures of both.
//! - **Conventions** ([`Conventions`]): quantir's (undated documents excluded under a cutoff, a
//!   constant list normalised to 0) or the reference code's (undated included, a constant list
//!   keeps its raw score), so either can be reproduced.

use std::path::{Path, PathBuf};

use crate::corpus::{load_claims, Claim, Format};
use crate::engine::{run_planned, PlanRunConfig, RunConfig};
use crate::error::{Error, Result};
use crate::eval::{evaluate, paired_t_test, Completeness, Evaluation, Measure};
use crate::fuse::ConstantPolicy;
use crate::index::dense::Encoder;
use crate::index::Index;
use crate::io::Progress;
use crate::plan::{planner_for, FileField, LlmConfig, LlmStyle, PlanSpec};

pub mod verification;
use crate::retrieve::{Retriever, TemporalFilter, UndatedPolicy};
use crate::trec::{Qrels, QrelsFormat, RankedList, Run, ScoredDoc, DEFAULT_TAG};

/// The files of a QuanTemp++ folder the retrieval experiments read.
#[derive(Debug, Clone, PartialEq)]
pub struct QuantempFolder {
    /// `corpus.json`: the dated snippets.
    pub corpus: PathBuf,
    /// `test.json`: the claims, with `published`, `in_file`, `decomp_questions`, `pgmfc_questions`.
    pub test: PathBuf,
    /// `test_qrels.json`.
    pub qrels: PathBuf,
    /// `qgen_out.csv`, when the folder has it.
    pub qgen: Option<PathBuf>,
    /// `train.json` (the verifier's training claims), when the folder has it.
    pub train: Option<PathBuf>,
}

impl QuantempFolder {
    /// The test claims, with their dates: read once, for [`run_grid`] and
    /// [`verification::run_verification`] both.
    pub fn test_claims(&self) -> Result<Vec<Claim>> {
        load_claims(&self.test, Format::Quantemp, None)
    }

    /// The folder at `dir`; a missing file is an error naming it and the layout.
    pub fn open(dir: &Path) -> Result<QuantempFolder> {
        let need = |name: &str| -> Result<PathBuf> {
            let path = dir.join(name);
            if path.is_file() {
                Ok(path)
            } else {
                Err(Error::InvalidArgument {
                    name: "--data",
                    message: format!("{} has no {name}: a QuanTemp++ folder holds corpus.json, test.json and test_qrels.json (and qgen_out.csv for QGen)", dir.display()),
                })
            }
        };
        Ok(QuantempFolder { corpus: need("corpus.json")?, test: need("test.json")?, qrels: need("test_qrels.json")?, qgen: Some(dir.join("qgen_out.csv")).filter(|p| p.is_file()), train: Some(dir.join("train.json")).filter(|p| p.is_file()) })
    }
}

/// The planners of the paper's Table 4, and quantir's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PaperPlanner {
    /// The claim alone: the baseline of every † mark.
    ClaimOnly,
    /// FCDecomp: the `in_file` queries (the oracle decomposition).
    Fcdecomp,
    /// ClaimDecomp: `decomp_questions`.
    Claimdecomp,
    /// PgmFC: `pgmfc_questions`.
    Pgmfc,
    /// QGen: `qgen_out.csv`.
    Qgen,
    /// quantir's numeric-aspect decomposer.
    Numeric,
    /// An LLM asked for search queries (`llm:fcdecomp`).
    LlmFcdecomp,
    /// An LLM asked for yes/no sub-questions (`llm:claimdecomp`).
    LlmClaimdecomp,
    /// An LLM asked for a program of questions (`llm:pgmfc`).
    LlmPgmfc,
}

impl PaperPlanner {
    /// Every planner that needs no LLM, in the table's order.
    pub const ALL: [PaperPlanner; 6] = [PaperPlanner::ClaimOnly, PaperPlanner::Fcdecomp, PaperPlanner::Claimdecomp, PaperPlanner::Pgmfc, PaperPlanner::Qgen, PaperPlanner::Numeric];
    /// The planners that ask an LLM.
    pub const LLM: [PaperPlanner; 3] = [PaperPlanner::LlmFcdecomp, PaperPlanner::LlmClaimdecomp, PaperPlanner::LlmPgmfc];

    /// Whether it asks an LLM.
    pub fn needs_llm(self) -> bool {
        Self::LLM.contains(&self)
    }

    /// The name in the tables (the paper's).
    pub fn name(self) -> &'static str {
        match self {
            PaperPlanner::ClaimOnly => "Claim only",
            PaperPlanner::Fcdecomp => "FCDecomp (oracle)",
            PaperPlanner::Claimdecomp => "ClaimDecomp",
            PaperPlanner::Pgmfc => "PgmFC",
            PaperPlanner::Qgen => "QGen",
            PaperPlanner::Numeric => "quantir numeric",
            PaperPlanner::LlmFcdecomp => "LLM, FCDecomp-style",
            PaperPlanner::LlmClaimdecomp => "LLM, ClaimDecomp-style",
            PaperPlanner::LlmPgmfc => "LLM, PgmFC-style",
        }
    }

    /// The name in file names and JSON.
    pub fn key(self) -> &'static str {
        match self {
            PaperPlanner::ClaimOnly => "claim-only",
            PaperPlanner::Fcdecomp => "fcdecomp",
            PaperPlanner::Claimdecomp => "claimdecomp",
            PaperPlanner::Pgmfc => "pgmfc",
            PaperPlanner::Qgen => "qgen",
            PaperPlanner::Numeric => "numeric",
            PaperPlanner::LlmFcdecomp => "llm-fcdecomp",
            PaperPlanner::LlmClaimdecomp => "llm-claimdecomp",
            PaperPlanner::LlmPgmfc => "llm-pgmfc",
        }
    }

    /// Its `--plan` for the test claims of `folder`, or none when the folder lacks its file (QGen).
    pub fn spec(self, folder: &QuantempFolder) -> Option<PlanSpec> {
        self.spec_in(&folder.test, folder.qgen.as_deref())
    }

    /// Its `--plan` for the training claims of `folder`, or none when the folder has no
    /// `train.json` or the planner no queries for it (QGen: `qgen_out.csv` holds the test claims'
    /// only).
    pub fn train_spec(self, folder: &QuantempFolder) -> Option<PlanSpec> {
        folder.train.as_deref().and_then(|train| self.spec_in(train, None))
    }

    /// Its `--plan` over the claims file `split`.
    fn spec_in(self, split: &Path, qgen: Option<&Path>) -> Option<PlanSpec> {
        let field = |field| Some(PlanSpec::File { path: split.to_path_buf(), field: Some(field) });
        match self {
            PaperPlanner::ClaimOnly => Some(PlanSpec::ClaimOnly),
            PaperPlanner::Fcdecomp => field(FileField::FcDecomp),
            PaperPlanner::Claimdecomp => field(FileField::ClaimDecomp),
            PaperPlanner::Pgmfc => field(FileField::PgmFc),
            PaperPlanner::Qgen => qgen.map(|path| PlanSpec::File { path: path.to_path_buf(), field: None }),
            PaperPlanner::Numeric => Some(PlanSpec::Numeric),
            PaperPlanner::LlmFcdecomp => Some(PlanSpec::Llm(LlmStyle::FcDecomp)),
            PaperPlanner::LlmClaimdecomp => Some(PlanSpec::Llm(LlmStyle::ClaimDecomp)),
            PaperPlanner::LlmPgmfc => Some(PlanSpec::Llm(LlmStyle::PgmFc)),
        }
    }
}

/// Whose conventions the runs follow where tools disagree (module doc).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Conventions {
    /// Undated documents excluded under a cutoff; min-max gives a constant list 0 (ranx).
    #[default]
    Quantir,
    /// The QuanTemp++ reference code's: undated documents included; a constant list keeps its raw
    /// score.
    Reference,
}

/// The grid to run.
#[derive(Debug, Clone, PartialEq)]
pub struct ExperimentConfig {
    /// Planners (claim-only is always run: it is the baseline).
    pub planners: Vec<PaperPlanner>,
    /// Retrievers (dense and hybrid need an index with vectors and its encoder).
    pub retrievers: Vec<Retriever>,
    /// Documents kept per claim.
    pub k: usize,
    /// Conventions.
    pub conventions: Conventions,
    /// How sub-queries (and, for hybrid, retrievers) are fused.
    pub plan_run: PlanRunConfig,
    /// Worker threads (0: one per core).
    pub threads: usize,
    /// The endpoint the `llm-*` planners ask (they are refused without one).
    pub llm: Option<LlmConfig>,
}

impl Default for ExperimentConfig {
    /// Every planner, BM25, k 100 (the deepest measure is Recall@100), quantir's conventions,
    /// CombMAX-Norm over sub-queries at depth 100.
    fn default() -> Self {
        ExperimentConfig { planners: PaperPlanner::ALL.to_vec(), retrievers: vec![Retriever::Bm25], k: 100, conventions: Conventions::Quantir, plan_run: PlanRunConfig::default(), threads: 0, llm: None }
    }
}

/// The measures of the tables.
pub fn measures() -> Vec<Measure> {
    ["ndcg_cut.10", "recall.10", "recall.100", "recip_rank"].iter().map(|m| m.parse().expect("known measures")).collect()
}

/// One cell group of the table: a planner's run with one retriever and temporal filter.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Cell {
    /// The planner.
    pub planner: PaperPlanner,
    /// The retriever.
    pub retriever: Retriever,
    /// With the temporal filter or without.
    pub filter: TemporalFilter,
    /// The run file.
    pub run: PathBuf,
    /// Mean per measure ([`measures`]).
    pub means: Vec<f64>,
    /// p-value of the paired t-test against claim-only per measure (none for claim-only).
    pub p_values: Vec<Option<f64>>,
    /// Seconds the run took (0 when reused).
    pub seconds: f64,
}

impl Cell {
    /// Whether the difference from claim-only is significant (p < 0.05) for measure `m`.
    pub fn significant(&self, m: usize) -> bool {
        self.p_values[m].is_some_and(|p| p < 0.05)
    }
}

/// What the reference code's post-filter gives for one planner and retriever (module doc).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PostFilterRow {
    /// The planner.
    pub planner: PaperPlanner,
    /// The retriever.
    pub retriever: Retriever,
    /// Claims left with fewer than k documents after the post-filter.
    pub short_claims: usize,
    /// Claims run.
    pub claims: usize,
    /// Means of quantir's exact cutoff (the filtered cell).
    pub exact: Vec<f64>,
    /// Means of the post-filtered run.
    pub post_filtered: Vec<f64>,
}

/// Everything the experiment measured.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Grid {
    /// The measures' names (columns).
    pub measures: Vec<String>,
    /// Claims evaluated.
    pub claims: usize,
    /// The cells, by retriever, then filter, then planner.
    pub cells: Vec<Cell>,
    /// The post-filter rows.
    pub post_filter: Vec<PostFilterRow>,
}

/// An error naming the first of `planners` that asks an LLM when there is no endpoint.
pub fn check_llm(planners: &[PaperPlanner], llm: Option<&LlmConfig>) -> Result<()> {
    match planners.iter().find(|p| p.needs_llm()) {
        Some(planner) if llm.is_none() => Err(Error::InvalidArgument { name: "--planners", message: format!("{} asks an LLM: give --llm-url and --llm-model (or QUANTIR_LLM_URL and QUANTIR_LLM_MODEL)", planner.key()) }),
        _ => Ok(()),
    }
}

/// The depth the reference code retrieves before its post-filter.
pub const REFERENCE_DEPTH: usize = 2048;

/// Runs (or reuses) every run of the grid over the test `claims` ([`QuantempFolder::test_claims`])
/// into `out/runs/` and measures it.
#[allow(clippy::too_many_arguments)]
pub fn run_grid(index: &Index, encoder: Option<&Encoder>, folder: &QuantempFolder, claims: &[Claim], config: &ExperimentConfig, out: &Path, progress: &dyn Progress, log: &mut dyn FnMut(&str)) -> Result<Grid> {
    check_llm(&config.planners, config.llm.as_ref())?;
    let qrels = Qrels::read(&folder.qrels, QrelsFormat::Quantemp)?;
    let runs_dir = out.join("runs");
    std::fs::create_dir_all(&runs_dir).map_err(|e| Error::io(&runs_dir, e))?;
    let measures = measures();
    let mut planners: Vec<PaperPlanner> = vec![PaperPlanner::ClaimOnly];
    planners.extend(config.planners.iter().copied().filter(|p| *p != PaperPlanner::ClaimOnly));
    let mut cells = Vec::new();
    let mut post_filter = Vec::new();
    for &retriever in &config.retrievers {
        for filter in [TemporalFilter::Claim, TemporalFilter::Off] {
            let mut baseline: Option<Evaluation> = None;
            for &planner in &planners {
                let Some(spec) = planner.spec(folder) else {
                    log(&format!("skipping {}: the folder has no qgen_out.csv", planner.name()));
                    continue;
                };
                let path = run_file(&runs_dir, Split::Test, planner, filter, retriever);
                let (run, seconds) = cached_run(index, encoder, claims, &spec, retriever, filter, (config.k, config.plan_run.depth), config, &path, progress, log)?;
                let evaluation = evaluate(&run.view(), &qrels, &measures, Completeness::Complete);
                let p_values = match &baseline {
                    None => vec![None; measures.len()],
                    Some(base) => (0..measures.len()).map(|m| Some(paired_p(base, &evaluation, m))).collect(),
                };
                if filter == TemporalFilter::Claim {
                    // The reference code's post-filter over a fixed top 2,048 without a cutoff.
                    let deep_path = runs_dir.join(format!("{}.off-{REFERENCE_DEPTH}.{}.trec", planner.key(), retriever_key(retriever)));
                    let (deep, _) = cached_run(index, encoder, claims, &spec, retriever, TemporalFilter::Off, (REFERENCE_DEPTH, REFERENCE_DEPTH), config, &deep_path, progress, log)?;
                    let (filtered, short_claims) = post_filtered(index, claims, &deep, config.k);
                    let post = evaluate(&filtered.view(), &qrels, &measures, Completeness::Complete);
                    post_filter.push(PostFilterRow { planner, retriever, short_claims, claims: claims.len(), exact: evaluation.mean.clone(), post_filtered: post.mean });
                }
                cells.push(Cell { planner, retriever, filter, run: path, means: evaluation.mean.clone(), p_values, seconds });
                if planner == PaperPlanner::ClaimOnly {
                    baseline = Some(evaluation);
                }
            }
        }
    }
    Ok(Grid { measures: measures.iter().map(|m| m.to_string()).collect(), claims: claims.len(), cells, post_filter })
}

/// Which claims of the folder a run ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Split {
    Test,
    Train,
}

/// Where the run of `planner` over `split` with `filter` and `retriever` is kept.
fn run_file(runs: &Path, split: Split, planner: PaperPlanner, filter: TemporalFilter, retriever: Retriever) -> PathBuf {
    let prefix = match split {
        Split::Test => "",
        Split::Train => "train.",
    };
    runs.join(format!("{prefix}{}.{}.{}.trec", planner.key(), filter_key(filter), retriever_key(retriever)))
}

fn filter_key(filter: TemporalFilter) -> &'static str {
    match filter {
        TemporalFilter::Claim => "filter",
        TemporalFilter::Off => "nofilter",
    }
}

fn retriever_key(retriever: Retriever) -> &'static str {
    match retriever {
        Retriever::Bm25 => "bm25",
        Retriever::Dense => "dense",
        Retriever::Hybrid => "hybrid",
    }
}

/// The paired t-test's p over the claims both evaluations hold, for measure `m`.
fn paired_p(base: &Evaluation, other: &Evaluation, m: usize) -> f64 {
    let diffs: Vec<f64> = base.per_query.iter().filter_map(|(q, b)| other.per_query.get(q).map(|o| o[m] - b[m])).collect();
    paired_t_test(&diffs)
}

/// The run at `path` if an earlier experiment finished it, else a new one written there: `k`
/// documents per claim, `depth` per sub-query.
#[allow(clippy::too_many_arguments)]
fn cached_run(
    index: &Index,
    encoder: Option<&Encoder>,
    claims: &[Claim],
    spec: &PlanSpec,
    retriever: Retriever,
    filter: TemporalFilter,
    (k, depth): (usize, usize),
    config: &ExperimentConfig,
    path: &Path,
    progress: &dyn Progress,
    log: &mut dyn FnMut(&str),
) -> Result<(Run, f64)> {
    if path.is_file() {
        log(&format!("reusing {}", path.display()));
        return Ok((Run::read_trec(path)?, 0.0));
    }
    let planner = planner_for(spec, None, config.llm.clone(), None)?;
    let (undated, constant) = match config.conventions {
        Conventions::Quantir => (UndatedPolicy::Exclude, config.plan_run.fusion.constant),
        Conventions::Reference => (UndatedPolicy::Include, ConstantPolicy::Raw),
    };
    let run_config = RunConfig { k, undated, temporal_filter: filter, retriever, threads: config.threads, ..RunConfig::default() };
    let mut plan_run = config.plan_run.clone();
    plan_run.fusion.constant = constant;
    plan_run.depth = depth;
    let started = std::time::Instant::now();
    let (run, summary, _) = run_planned(index, claims, planner.as_ref(), encoder, &run_config, &plan_run, false, progress)?;
    // Written whole through a rename: a file at `path` is always a finished run.
    run.write_trec(path, DEFAULT_TAG)?;
    log(&format!("ran {} ({} claims, {} sub-queries) in {:.1} s", path.display(), summary.claims, summary.subqueries, summary.seconds));
    Ok((run, started.elapsed().as_secs_f64()))
}

/// The reference code's post-filter of `deep` (a no-cutoff run): per claim, the documents dated
/// strictly before its date or undated, cut at `k`; with the number of claims left short of k.
fn post_filtered(index: &Index, claims: &[Claim], deep: &Run, k: usize) -> (Run, usize) {
    let dates = index.date_keys_by_rank();
    let by_id: std::collections::HashMap<&str, &Claim> = claims.iter().map(|c| (c.id.as_str(), c)).collect();
    let mut short = 0;
    let queries = deep
        .queries
        .iter()
        .map(|list| {
            let cutoff = by_id.get(list.qid.as_str()).map(|c| crate::retrieve::Cutoff { before: c.date, undated: UndatedPolicy::Include }.compile());
            let docs: Vec<ScoredDoc> = list
                .docs
                .iter()
                .filter(|d| match (&cutoff, index.rank_of(&d.docid)) {
                    (Some(cut), Some(rank)) => cut.admits(dates[rank as usize]),
                    _ => true,
                })
                .take(k)
                .cloned()
                .collect();
            if docs.len() < k {
                short += 1;
            }
            RankedList { qid: list.qid.clone(), docs }
        })
        .collect();
    (Run { queries }, short)
}

/// The grid as Markdown: one table per retriever in the paper's layout (planners as rows; the
/// measures with the temporal filter, then without), † marking a significant difference from
/// claim-only, then the post-filter table.
pub fn markdown(grid: &Grid) -> String {
    let mut out = String::new();
    let names = ["NDCG@10", "R@10", "R@100", "MRR"];
    let mut retrievers: Vec<Retriever> = Vec::new();
    for c in &grid.cells {
        if !retrievers.contains(&c.retriever) {
            retrievers.push(c.retriever);
        }
    }
    for retriever in retrievers {
        out.push_str(&format!("#### {} ({} claims; † p < 0.05, paired t-test against claim only)\n\n", retriever_key(retriever), grid.claims));
        out.push_str(&format!("| planner | {} | {} |\n", names.map(|n| format!("{n} (filter)")).join(" | "), names.map(|n| format!("{n} (no filter)")).join(" | ")));
        out.push_str(&format!("|---|{}\n", "---:|".repeat(2 * names.len())));
        let planners: Vec<PaperPlanner> = grid.cells.iter().filter(|c| c.retriever == retriever && c.filter == TemporalFilter::Claim).map(|c| c.planner).collect();
        for planner in planners {
            let mut row = format!("| {} |", planner.name());
            for filter in [TemporalFilter::Claim, TemporalFilter::Off] {
                match grid.cells.iter().find(|c| c.planner == planner && c.retriever == retriever && c.filter == filter) {
                    Some(cell) => {
                        for m in 0..cell.means.len() {
                            row.push_str(&format!(" {:.4}{} |", cell.means[m], if cell.significant(m) { "†" } else { "" }));
                        }
                    }
                    None => row.push_str(&" – |".repeat(names.len())),
                }
            }
            out.push_str(&row);
            out.push('\n');
        }
        out.push('\n');
    }
    out.push_str(&format!("#### The reference code's post-filter (top {REFERENCE_DEPTH} without a cutoff, then dated-before or undated) against quantir's exact cutoff\n\n"));
    out.push_str("| planner | retriever | claims short of k | NDCG@10 exact / post | R@100 exact / post | MRR exact / post |\n|---|---|---:|---:|---:|---:|\n");
    for row in &grid.post_filter {
        out.push_str(&format!(
            "| {} | {} | {} of {} | {:.4} / {:.4} | {:.4} / {:.4} | {:.4} / {:.4} |\n",
            row.planner.name(),
            retriever_key(row.retriever),
            row.short_claims,
            row.claims,
            row.exact[0],
            row.post_filtered[0],
            row.exact[2],
            row.post_filtered[2],
            row.exact[3],
            row.post_filtered[3]
        ));
    }
    out
}

/// The grid as CSV: one line per cell (`retriever,filter,planner,` each measure, each p-value).
pub fn csv(grid: &Grid) -> String {
    let mut out = format!("retriever,filter,planner,{},{}\n", grid.measures.join(","), grid.measures.iter().map(|m| format!("p_{m}")).collect::<Vec<_>>().join(","));
    for c in &grid.cells {
        let means: Vec<String> = c.means.iter().map(|v| format!("{v:.6}")).collect();
        let ps: Vec<String> = c.p_values.iter().map(|p| p.map_or(String::new(), |p| format!("{p:.6}"))).collect();
        out.push_str(&format!("{},{},{},{},{}\n", retriever_key(c.retriever), filter_key(c.filter), c.planner.key(), means.join(","), ps.join(",")));
    }
    out
}
