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
//! - **Undated claims** ([`ClaimSet`]): every cell is measured over the same claims, and the
//!   filtered cells cut each claim's evidence at its own date, so a claim without a date
//!   (`"published"` missing or null) is left out of every cell — never run without its cutoff —
//!   and the tables' header counts and names those left out. Qrels are read for the claims kept:
//!   a judged claim the run lacks counts 0, and judgments of claims not kept count nowhere.
//! - **Coverage**: a published decomposition without queries for a claim falls back to the claim
//!   itself; the table says how many claims each planner covered ("QGen: 3 of 12 claims").
//! - **The paper's figures** ([`paper`]): under each planner's row, the QuanTemp++ paper's own
//!   (Tables 4 and 5 as printed, bundled in `data/quantemp-paper/`), marked `↳ paper`.
//! - **Reuse** ([`Resume`], [`crate::provenance`]): the index, every run, verifier and
//!   predictions file records what made it — the digests of `corpus.json`, the claims, the
//!   decomposition files and the index, and every setting that changes it. A rerun reuses an
//!   artifact only when that record matches what it would make now and the artifact's bytes are
//!   those written; otherwise it is made again and the log says why (`--resume strict` refuses
//!   instead). A file with the right name but no record is never reused. The tables' header
//!   carries the experiment's own record.

use std::path::{Path, PathBuf};

use crate::corpus::{load_claims, Claim, Format, LoadOptions};
use crate::engine::{Backend, PlanRunConfig, RunConfig, RunRequest};
use crate::error::{Error, Result};
use crate::eval::{evaluate, paired_t_test, Completeness, Evaluation, Measure};
use crate::fuse::ConstantPolicy;
use crate::index::dense::{Encoder, VectorDtype};
use crate::index::{BuildSummary, DenseConfig, Index, IndexConfig};
use crate::io::{Digest, Progress};
use crate::llm::LlmConfig;
use crate::plan::{planner_for, Decomposition, PlanSpec};
use crate::provenance::{Artifact, Input, Provenance, Reuse, Role, Source};

pub mod paper;
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
    pub fn test_claims(&self) -> Result<ClaimSet> {
        ClaimSet::read(&self.test)
    }

    /// The test qrels, for the claims of `claims`.
    pub fn test_qrels(&self, claims: &ClaimSet) -> Result<Judged> {
        Judged::read(&self.qrels, claims)
    }

    /// The folder at `dir`; a missing file is an error naming it and the layout.
    pub fn open(dir: &Path) -> Result<QuantempFolder> {
        let need = |name: &str| -> Result<PathBuf> {
            let path = dir.join(name);
            if path.is_file() {
                Ok(path)
            } else {
                Err(Error::InvalidArgument {
                    name: "data",
                    message: format!("{} has no {name}: a QuanTemp++ folder holds corpus.json, test.json and test_qrels.json (and qgen_out.csv for QGen)", dir.display()),
                })
            }
        };
        Ok(QuantempFolder { corpus: need("corpus.json")?, test: need("test.json")?, qrels: need("test_qrels.json")?, qgen: Some(dir.join("qgen_out.csv")).filter(|p| p.is_file()), train: Some(dir.join("train.json")).filter(|p| p.is_file()) })
    }
}

/// One split's claims as the experiment runs them (module doc): those with a date, in file order,
/// and the ids of those without, left out.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimSet {
    /// The claims file.
    pub path: PathBuf,
    /// Its digest (provenance).
    pub digest: Digest,
    /// The dated claims, in file order.
    pub claims: Vec<Claim>,
    /// The ids of the claims without a date, left out of every cell.
    pub undated: Vec<String>,
}

impl ClaimSet {
    /// Reads a QuanTemp++ claims file; an error when no claim has a date.
    pub fn read(path: &Path) -> Result<ClaimSet> {
        let digest = Digest::of_file(path)?;
        let (claims, undated): (Vec<Claim>, Vec<Claim>) = load_claims(path, Format::Quantemp, None)?.into_iter().partition(|c| c.date.is_some());
        if claims.is_empty() {
            return Err(Error::Empty {
                path: path.to_path_buf(),
                what: format!("none of its {} claims has a date (\"published\"); every cell of the experiment cuts a claim's evidence off at its date", undated.len()),
                hint: "give the claims their publication dates in \"published\"".into(),
            });
        }
        Ok(ClaimSet { path: path.to_path_buf(), digest, claims, undated: undated.into_iter().map(|c| c.id).collect() })
    }

    /// Claims in the file, dated or not.
    pub fn total(&self) -> usize {
        self.claims.len() + self.undated.len()
    }

    /// The file as an input of `role`.
    fn input(&self, role: Role) -> Input {
        Input::digested(role, &self.path, self.digest.clone())
    }

    /// "12 claims" or "10 of 12 claims (2 undated left out: 3, 7)", for headers and logs.
    pub fn describe(&self) -> String {
        const SHOWN: usize = 10;
        if self.undated.is_empty() {
            return format!("{} claims", self.claims.len());
        }
        let mut ids = self.undated.iter().take(SHOWN).cloned().collect::<Vec<_>>().join(", ");
        if self.undated.len() > SHOWN {
            ids.push_str(", …");
        }
        format!("{} of {} claims ({} without a date left out: {ids})", self.claims.len(), self.total(), self.undated.len())
    }
}

/// Qrels for the claims an experiment runs (module doc).
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    /// The qrels file.
    pub path: PathBuf,
    /// Its digest (provenance).
    pub digest: Digest,
    /// The judgments of the claims run.
    pub qrels: Qrels,
    /// Claims run without any judgment (not measured, as in trec_eval).
    pub unjudged: usize,
    /// Judged queries that are not among the claims run (left out).
    pub foreign: usize,
}

impl Judged {
    /// Reads `path` and keeps the judgments of `claims`' claims; an error when none is judged.
    pub fn read(path: &Path, claims: &ClaimSet) -> Result<Judged> {
        let digest = Digest::of_file(path)?;
        let mut all = Qrels::read(path, QrelsFormat::Quantemp)?;
        let total = all.judgments.len();
        let mut kept = Qrels::default();
        for claim in &claims.claims {
            if let Some(judgments) = all.judgments.remove(&claim.id) {
                kept.judgments.insert(claim.id.clone(), judgments);
            }
        }
        if kept.judgments.is_empty() {
            return Err(Error::Empty {
                path: path.to_path_buf(),
                what: format!("none of its {total} judged queries is among the {} of {}", claims.describe(), claims.path.display()),
                hint: "qrels key claims by their position in the claims list (\"0\", \"1\", …), as QuanTemp++'s {split}_qrels.json does".into(),
            });
        }
        Ok(Judged { path: path.to_path_buf(), digest, unjudged: claims.claims.len() - kept.judgments.len(), foreign: total - kept.judgments.len(), qrels: kept })
    }
}

/// What an experiment does with an artifact an earlier one left in its output folder whose
/// provenance differs from what it would make now (`--resume`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Resume {
    /// Make it again, saying why.
    #[default]
    Auto,
    /// Refuse to go on ([`Error::StaleArtifact`]).
    Strict,
}

/// Whether the artifact at `path` (a file, or a folder whose main file is `main`) may stand for
/// the one `expected` describes: `true` to reuse it, `false` to make it (absent, or made
/// otherwise under [`Resume::Auto`]); an error under [`Resume::Strict`] when it was made otherwise.
fn reusable(path: &Path, main: Option<&str>, expected: &Provenance, resume: Resume, log: &mut dyn FnMut(&str)) -> Result<bool> {
    if !path.exists() {
        return Ok(false);
    }
    match expected.reuse(path, main) {
        Reuse::Reuse => {
            log(&format!("reusing {} (fingerprint {})", path.display(), expected.fingerprint));
            Ok(true)
        }
        Reuse::Redo(why) => match resume {
            Resume::Auto => {
                log(&format!("redoing {}: {why}", path.display()));
                Ok(false)
            }
            Resume::Strict => Err(Error::StaleArtifact { path: path.to_path_buf(), why }),
        },
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
    /// quantir's iterative planner: the claim, then the claim rewritten from the evidence it
    /// finds before its date (`iterative`).
    Iterative,
    /// An LLM asked for search queries (`llm:fcdecomp`).
    LlmFcdecomp,
    /// An LLM asked for yes/no sub-questions (`llm:claimdecomp`).
    LlmClaimdecomp,
    /// An LLM asked for a program of questions (`llm:pgmfc`).
    LlmPgmfc,
    /// An LLM shown the evidence found so far, asked for what it leaves open (`llm:iterative`).
    LlmIterative,
}

impl PaperPlanner {
    /// Every planner that needs no LLM, in the table's order.
    pub const ALL: [PaperPlanner; 7] = [PaperPlanner::ClaimOnly, PaperPlanner::Fcdecomp, PaperPlanner::Claimdecomp, PaperPlanner::Pgmfc, PaperPlanner::Qgen, PaperPlanner::Numeric, PaperPlanner::Iterative];
    /// The planners that ask an LLM.
    pub const LLM: [PaperPlanner; 4] = [PaperPlanner::LlmFcdecomp, PaperPlanner::LlmClaimdecomp, PaperPlanner::LlmPgmfc, PaperPlanner::LlmIterative];

    /// Whether it asks an LLM.
    pub fn needs_llm(self) -> bool {
        Self::LLM.contains(&self)
    }

    /// Whether its sub-queries come from data — a published decomposition, an LLM's answers —
    /// that may lack some claims: the table then says how many claims it covered.
    pub fn has_coverage(self) -> bool {
        !matches!(self, PaperPlanner::ClaimOnly | PaperPlanner::Numeric | PaperPlanner::Iterative)
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
            PaperPlanner::Iterative => "quantir iterative",
            PaperPlanner::LlmFcdecomp => "LLM, FCDecomp-style",
            PaperPlanner::LlmClaimdecomp => "LLM, ClaimDecomp-style",
            PaperPlanner::LlmPgmfc => "LLM, PgmFC-style",
            PaperPlanner::LlmIterative => "LLM, iterative",
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
            PaperPlanner::Iterative => "iterative",
            PaperPlanner::LlmFcdecomp => "llm-fcdecomp",
            PaperPlanner::LlmClaimdecomp => "llm-claimdecomp",
            PaperPlanner::LlmPgmfc => "llm-pgmfc",
            PaperPlanner::LlmIterative => "llm-iterative",
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
            PaperPlanner::Fcdecomp => field(Decomposition::FcDecomp),
            PaperPlanner::Claimdecomp => field(Decomposition::ClaimDecomp),
            PaperPlanner::Pgmfc => field(Decomposition::PgmFc),
            PaperPlanner::Qgen => qgen.map(|path| PlanSpec::File { path: path.to_path_buf(), field: None }),
            PaperPlanner::Numeric => Some(PlanSpec::Numeric),
            PaperPlanner::Iterative => Some(PlanSpec::Iterative),
            PaperPlanner::LlmFcdecomp => Some(PlanSpec::Llm(Decomposition::FcDecomp)),
            PaperPlanner::LlmClaimdecomp => Some(PlanSpec::Llm(Decomposition::ClaimDecomp)),
            PaperPlanner::LlmPgmfc => Some(PlanSpec::Llm(Decomposition::PgmFc)),
            PaperPlanner::LlmIterative => Some(PlanSpec::LlmIterative),
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
    /// What to do with an earlier artifact made otherwise.
    pub resume: Resume,
}

impl Default for ExperimentConfig {
    /// Every planner, BM25, k 100 (the deepest measure is Recall@100), quantir's conventions,
    /// CombMAX-Norm over sub-queries at depth 100, earlier artifacts made otherwise made again.
    fn default() -> Self {
        ExperimentConfig { planners: PaperPlanner::ALL.to_vec(), retrievers: vec![Retriever::Bm25], k: 100, conventions: Conventions::Quantir, plan_run: PlanRunConfig::default(), threads: 0, llm: None, resume: Resume::Auto }
    }
}

/// The settings of the experiment that change its tables, as its provenance records them.
#[derive(serde::Serialize)]
struct GridSettings<'a> {
    planners: Vec<&'static str>,
    retrievers: &'a [Retriever],
    k: usize,
    conventions: Conventions,
    plan_run: &'a PlanRunConfig,
    llm: Option<LlmSettings<'a>>,
    measures: Vec<String>,
}

/// The LLM a run's planner asked: its answers depend on it.
#[derive(serde::Serialize)]
struct LlmSettings<'a> {
    url: &'a str,
    model: &'a str,
}

impl ExperimentConfig {
    fn llm_settings(&self) -> Option<LlmSettings<'_>> {
        self.llm.as_ref().map(|l| LlmSettings { url: &l.base_url, model: &l.model })
    }
}

/// The index of `folder`'s corpus at `out/index`: the one there when it was built from the same
/// `corpus.json` with the experiment's settings (and, when `encoder` is given, holds vectors
/// made by its model), else built again — a new generation, saying why ([`Resume`]). The build's
/// summary, when there was one.
/// `config` gives the threads and what to do with an index made otherwise ([`Resume`]).
pub fn prepare_index(folder: &QuantempFolder, out: &Path, encoder: Option<&Encoder>, config: &ExperimentConfig, load: &LoadOptions, progress: &dyn Progress, log: &mut dyn FnMut(&str)) -> Result<(Index, Option<BuildSummary>)> {
    let (threads, resume) = (config.threads, config.resume);
    let dir = out.join("index");
    let corpus_digest = Digest::of_file(&folder.corpus)?;
    if dir.exists() {
        let why = match Index::open(&dir) {
            Err(e) => Some(format!("it does not open ({e})")),
            Ok(index) => match index_fits(&index, &corpus_digest, encoder) {
                None => {
                    log(&format!("reusing {} (generation {}, fingerprint {})", dir.display(), index.generation(), index.fingerprint()));
                    return Ok((index, None));
                }
                why => why,
            },
        };
        let why = why.expect("a reason to rebuild");
        match resume {
            Resume::Auto => log(&format!("rebuilding {}: {why}", dir.display())),
            Resume::Strict => return Err(Error::StaleArtifact { path: dir, why }),
        }
    }
    let dense = encoder.map(|encoder| DenseConfig { encoder, dtype: VectorDtype::F32, hnsw: None });
    let (summary, _) = crate::index::build_from_path(&folder.corpus, Format::Quantemp, load, &dir, &IndexConfig { threads, dense, ..IndexConfig::default() }, progress)?;
    Ok((Index::open(&dir)?, Some(summary)))
}

/// Why `index` cannot serve as the experiment's index of the corpus with digest `corpus`, or
/// `None` when it can: same corpus bytes, same quantir, the default BM25 settings and document
/// order, and vectors by `encoder`'s model when it is given (vectors it holds beyond that are
/// harmless: BM25 runs never read them).
fn index_fits(index: &Index, corpus: &Digest, encoder: Option<&Encoder>) -> Option<String> {
    let manifest = index.manifest();
    let recorded = manifest.provenance.input(Role::Corpus).map(|i| &i.source);
    if recorded != Some(&Source::File(corpus.clone())) {
        return Some("corpus.json is not the file it was built from".into());
    }
    if manifest.quantir_version != env!("CARGO_PKG_VERSION") {
        return Some(format!("it was built by quantir {}", manifest.quantir_version));
    }
    let defaults = IndexConfig::default();
    if (manifest.bm25, manifest.doc_order) != (defaults.bm25, defaults.doc_order) {
        return Some(format!("it was built with BM25 k1 {} b {} in {:?} order, not the experiment's defaults", manifest.bm25.k1, manifest.bm25.b, manifest.doc_order));
    }
    let encoder = encoder?;
    crate::index::dense::models::serves_vectors_of(index, Some((encoder.config(), encoder.dir()))).err().map(|e| format!("its vectors do not fit the encoder ({e})"))
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
    /// Claims run.
    pub claims: usize,
    /// Claims the planner had no sub-queries for, run as the claim alone (a decomposition file
    /// without them).
    pub fell_back: usize,
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
    /// What made the tables: the folder's files and the index (digests, fingerprint) and the
    /// settings.
    pub provenance: Provenance,
    /// The measures' names (columns).
    pub measures: Vec<String>,
    /// Claims run (dated claims of test.json).
    pub claims: usize,
    /// Claims of test.json left out for want of a date.
    pub undated: Vec<String>,
    /// Claims run without judgments (not measured).
    pub unjudged: usize,
    /// Judged queries of the qrels that are not among the claims run (left out).
    pub foreign_judgments: usize,
    /// The cells, by retriever, then filter, then planner.
    pub cells: Vec<Cell>,
    /// The post-filter rows.
    pub post_filter: Vec<PostFilterRow>,
}

/// An error naming the first of `planners` that asks an LLM when there is no endpoint.
pub fn check_llm(planners: &[PaperPlanner], llm: Option<&LlmConfig>) -> Result<()> {
    match planners.iter().find(|p| p.needs_llm()) {
        Some(planner) if llm.is_none() => Err(Error::InvalidArgument { name: "planners", message: format!("{} asks an LLM: give --llm-url and --llm-model (or QUANTIR_LLM_URL and QUANTIR_LLM_MODEL)", planner.key()) }),
        _ => Ok(()),
    }
}

/// The depth the reference code retrieves before its post-filter.
pub const REFERENCE_DEPTH: usize = 2048;

/// What every run of an experiment shares: the index, the encoder, the folder, the settings and
/// where the runs go.
pub struct Session<'a> {
    /// The index of the folder's corpus ([`prepare_index`]).
    pub index: &'a Index,
    /// The query encoder, for dense and hybrid runs.
    pub encoder: Option<&'a Encoder>,
    /// The folder.
    pub folder: &'a QuantempFolder,
    /// The settings.
    pub config: &'a ExperimentConfig,
    /// The output folder.
    pub out: &'a Path,
}

impl Session<'_> {
    /// The digest of `qgen_out.csv`, when the folder has it.
    fn qgen_digest(&self) -> Result<Option<Digest>> {
        self.folder.qgen.as_deref().map(Digest::of_file).transpose()
    }

    /// The experiment's own record: the folder's files, the index and the settings.
    pub fn provenance(&self, claims: &ClaimSet, judged: &Judged) -> Result<Provenance> {
        let mut inputs = vec![Input::digested(Role::Corpus, &self.folder.corpus, Digest::of_file(&self.folder.corpus)?), Input::artifact(Role::Index, self.index.path(), self.index.fingerprint().clone()), claims.input(Role::Claims), Input::digested(Role::Qrels, &judged.path, judged.digest.clone())];
        if let (Some(path), Some(digest)) = (&self.folder.qgen, self.qgen_digest()?) {
            inputs.push(Input::digested(Role::PlanFile, path, digest));
        }
        let settings = GridSettings {
            planners: self.config.planners.iter().map(|p| p.key()).collect(),
            retrievers: &self.config.retrievers,
            k: self.config.k,
            conventions: self.config.conventions,
            plan_run: &self.config.plan_run,
            llm: self.config.llm_settings(),
            measures: measures().iter().map(|m| m.to_string()).collect(),
        };
        Ok(Provenance::new(Artifact::Tables, inputs, &settings))
    }
}

/// Runs (or reuses) every run of the grid over the test `claims` ([`QuantempFolder::test_claims`])
/// into `out/runs/` and measures it against `judged`.
pub fn run_grid(session: &Session, claims: &ClaimSet, judged: &Judged, progress: &dyn Progress, log: &mut dyn FnMut(&str)) -> Result<Grid> {
    let config = session.config;
    check_llm(&config.planners, config.llm.as_ref())?;
    let runs_dir = session.out.join("runs");
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
                let Some(spec) = planner.spec(session.folder) else {
                    log(&format!("skipping {}: the folder has no qgen_out.csv", planner.name()));
                    continue;
                };
                let path = run_file(&runs_dir, Split::Test, planner, filter, retriever);
                let made = cached_run(session, claims, planner, &spec, retriever, filter, (config.k, config.plan_run.depth), &path, progress, log)?;
                let evaluation = evaluate(&made.run.view(), &judged.qrels, &measures, Completeness::Complete);
                let p_values = match &baseline {
                    None => vec![None; measures.len()],
                    Some(base) => (0..measures.len()).map(|m| Some(paired_p(base, &evaluation, m))).collect(),
                };
                if filter == TemporalFilter::Claim {
                    // The reference code's post-filter over a fixed top 2,048 without a cutoff.
                    let deep_path = runs_dir.join(format!("{}.off-{REFERENCE_DEPTH}.{}.trec", planner.key(), retriever_key(retriever)));
                    let deep = cached_run(session, claims, planner, &spec, retriever, TemporalFilter::Off, (REFERENCE_DEPTH, REFERENCE_DEPTH), &deep_path, progress, log)?;
                    let (filtered, short_claims) = post_filtered(session.index, &claims.claims, &deep.run, config.k);
                    let post = evaluate(&filtered.view(), &judged.qrels, &measures, Completeness::Complete);
                    post_filter.push(PostFilterRow { planner, retriever, short_claims, claims: claims.claims.len(), exact: evaluation.mean.clone(), post_filtered: post.mean });
                }
                cells.push(Cell { planner, retriever, filter, run: path, means: evaluation.mean.clone(), p_values, seconds: made.seconds, claims: made.claims, fell_back: made.fell_back });
                if planner == PaperPlanner::ClaimOnly {
                    baseline = Some(evaluation);
                }
            }
        }
    }
    Ok(Grid {
        provenance: session.provenance(claims, judged)?,
        measures: measures.iter().map(|m| m.to_string()).collect(),
        claims: claims.claims.len(),
        undated: claims.undated.clone(),
        unjudged: judged.unjudged,
        foreign_judgments: judged.foreign,
        cells,
        post_filter,
    })
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

/// A run of the experiment, made or reused.
struct MadeRun {
    run: Run,
    /// Seconds it took (0 when reused).
    seconds: f64,
    /// Its provenance's fingerprint (the verifiers and predictions made from it record it).
    fingerprint: crate::provenance::Fingerprint,
    /// Claims run.
    claims: usize,
    /// Claims whose planner fell back to the claim.
    fell_back: usize,
}

/// The settings a run of the experiment records (module doc): everything that changes its lines.
#[derive(serde::Serialize)]
struct ExperimentRunSettings<'a> {
    planner: &'static str,
    retriever: Retriever,
    filter: TemporalFilter,
    k: usize,
    depth: usize,
    undated_documents: UndatedPolicy,
    fusion: &'a crate::fuse::FusionConfig,
    hybrid: &'a crate::fuse::FusionConfig,
    llm: Option<LlmSettings<'a>>,
}

/// The run of `planner` over `claims` at `path` if an earlier experiment made it as this one
/// would ([`reusable`]), else a new one written there with its provenance beside it: `k`
/// documents per claim, `depth` per sub-query.
#[allow(clippy::too_many_arguments)]
fn cached_run(
    session: &Session,
    claims: &ClaimSet,
    planner: PaperPlanner,
    spec: &PlanSpec,
    retriever: Retriever,
    filter: TemporalFilter,
    (k, depth): (usize, usize),
    path: &Path,
    progress: &dyn Progress,
    log: &mut dyn FnMut(&str),
) -> Result<MadeRun> {
    let config = session.config;
    let (undated, constant) = match config.conventions {
        Conventions::Quantir => (UndatedPolicy::Exclude, config.plan_run.fusion.constant),
        Conventions::Reference => (UndatedPolicy::Include, ConstantPolicy::Raw),
    };
    let mut plan_run = config.plan_run.clone();
    plan_run.fusion.constant = constant;
    plan_run.depth = depth;
    let mut inputs = vec![Input::artifact(Role::Index, session.index.path(), session.index.fingerprint().clone()), claims.input(Role::Claims)];
    if let PlanSpec::File { path: plan_file, .. } = spec {
        if plan_file != &claims.path {
            inputs.push(Input::file(Role::PlanFile, plan_file)?);
        }
    }
    let settings = ExperimentRunSettings { planner: planner.key(), retriever, filter, k, depth, undated_documents: undated, fusion: &plan_run.fusion, hybrid: &plan_run.hybrid, llm: if planner.needs_llm() { config.llm_settings() } else { None } };
    let expected = Provenance::new(Artifact::Run, inputs, &settings);
    if reusable(path, None, &expected, config.resume, log)? {
        let recorded = crate::provenance::read(&crate::provenance::sidecar(path))?.expect("a reused run has its record");
        let count = |key: &str| recorded.counts.get(key).copied().unwrap_or(0) as usize;
        return Ok(MadeRun { run: Run::read_trec(path)?, seconds: 0.0, fingerprint: expected.fingerprint, claims: count("claims"), fell_back: count("fell_back") });
    }
    let planner_impl = planner_for(spec, None, config.llm.clone(), None)?;
    let run_config = RunConfig { k, undated, temporal_filter: filter, retriever, threads: config.threads, ..RunConfig::default() };
    let started = std::time::Instant::now();
    let request = RunRequest { planner: planner_impl.as_ref(), encoder: session.encoder, config: &run_config, plan: &plan_run, explain: false };
    let output = session.index.run(&claims.claims, &request, progress)?;
    let (run, summary) = (output.lists.into_run(), output.summary);
    // Written whole through a rename: a file at `path` is always a finished run; its record
    // goes beside it after, with the digest of what was written.
    run.write_trec(path, DEFAULT_TAG)?;
    let fingerprint = expected.fingerprint.clone();
    expected.with_counts(summary.counts()).write_beside(path)?;
    log(&format!("ran {} ({} claims, {} sub-queries, {} fell back to the claim) in {:.1} s", path.display(), summary.claims, summary.subqueries, summary.fallbacks, summary.seconds));
    Ok(MadeRun { run, seconds: started.elapsed().as_secs_f64(), fingerprint, claims: summary.claims, fell_back: summary.fallbacks })
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

/// A figure of a table, four decimals; never "-0.0000".
pub(crate) fn figure(value: f64) -> String {
    format!("{:.4}", if value == 0.0 { 0.0 } else { value })
}

/// The header of an experiment's tables: what made them ([`Provenance::header_lines`]) and which
/// claims they measure.
pub fn header(grid: &Grid) -> String {
    let mut out = format!("### QuanTemp++ experiments, made by quantir {}\n\n", grid.provenance.quantir_version);
    for line in grid.provenance.header_lines() {
        out.push_str(&format!("- {line}\n"));
    }
    let left_out = if grid.undated.is_empty() {
        String::new()
    } else {
        let shown: Vec<&str> = grid.undated.iter().take(10).map(String::as_str).collect();
        format!("; {} claims of test.json without a date left out of every cell ({}{})", grid.undated.len(), shown.join(", "), if grid.undated.len() > 10 { ", …" } else { "" })
    };
    out.push_str(&format!("- claims: {} run{left_out}; {} run without judgments (not measured); {} judged queries of the qrels not among them (left out)\n\n", grid.claims, grid.unjudged, grid.foreign_judgments));
    out
}

/// The grid as Markdown: the [`header`], then one table per retriever in the paper's layout
/// (planners as rows; the measures with the temporal filter, then without), † marking a
/// significant difference from claim-only, a planner's coverage beside its name when it fell
/// back for some claims, then the post-filter table.
pub fn markdown(grid: &Grid) -> String {
    let mut out = header(grid);
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
        let planners: Vec<&Cell> = grid.cells.iter().filter(|c| c.retriever == retriever && c.filter == TemporalFilter::Claim).collect();
        for first in planners {
            let planner = first.planner;
            let coverage = if first.fell_back > 0 && planner.has_coverage() { format!(" ({} of {} claims; {} run as the claim alone)", first.claims - first.fell_back, first.claims, first.fell_back) } else { String::new() };
            let mut row = format!("| {}{coverage} |", planner.name());
            for filter in [TemporalFilter::Claim, TemporalFilter::Off] {
                match grid.cells.iter().find(|c| c.planner == planner && c.retriever == retriever && c.filter == filter) {
                    Some(cell) => {
                        for m in 0..cell.means.len() {
                            row.push_str(&format!(" {}{} |", figure(cell.means[m]), if cell.significant(m) { "†" } else { "" }));
                        }
                    }
                    None => row.push_str(&" – |".repeat(names.len())),
                }
            }
            out.push_str(&row);
            out.push('\n');
            if let Some(paper) = paper_row(planner) {
                out.push_str(&paper);
            }
        }
        out.push_str(&format!("\n{PAPER_MARK} paper: Table 4 of the {}, as printed (Contriever, CombMAX-Norm, the real collection's relevance judgments; – where it has no such row): comparable to the row above only with the same retriever on the real data.\n\n", paper::CITATION));
    }
    out.push_str(&format!("#### The reference code's post-filter (top {REFERENCE_DEPTH} without a cutoff, then dated-before or undated) against quantir's exact cutoff\n\n"));
    out.push_str("| planner | retriever | claims short of k | NDCG@10 exact / post | R@100 exact / post | MRR exact / post |\n|---|---|---:|---:|---:|---:|\n");
    for row in &grid.post_filter {
        out.push_str(&format!(
            "| {} | {} | {} of {} | {} / {} | {} / {} | {} / {} |\n",
            row.planner.name(),
            retriever_key(row.retriever),
            row.short_claims,
            row.claims,
            figure(row.exact[0]),
            figure(row.post_filtered[0]),
            figure(row.exact[2]),
            figure(row.post_filtered[2]),
            figure(row.exact[3]),
            figure(row.post_filtered[3])
        ));
    }
    out
}

/// The mark of a row of the paper's figures, under the row of the same planner.
pub(crate) const PAPER_MARK: &str = "↳";

/// The paper's Table 4 row for a planner in the retrieval table's columns (with the filter, then
/// without), or `None` when the paper has neither.
fn paper_row(planner: PaperPlanner) -> Option<String> {
    let with = paper::retrieval(planner, TemporalFilter::Claim);
    let without = paper::retrieval(planner, TemporalFilter::Off);
    if with.is_none() && without.is_none() {
        return None;
    }
    let mut row = format!("| {PAPER_MARK} paper, {} |", paper::paper_name(planner)?);
    for figures in [with, without] {
        match figures {
            Some(figures) => figures.iter().for_each(|f| row.push_str(&format!(" {f} |"))),
            None => row.push_str(&" – |".repeat(4)),
        }
    }
    row.push('\n');
    Some(row)
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
