//! Claims in, evidence out: each claim retrieves with its own date as the cutoff, in parallel.
//!
//! One interface over where the index lives, [`Backend`]: the embedded index (`embedded.rs`, an
//! index folder on this machine) and an index on an OpenSearch cluster (`remote.rs`) answer the
//! same three calls — search one query under a cutoff, run a batch of claims through a plan, and
//! fetch one claim's evidence with its stored fields — with the same planning, cutoffs and fusion,
//! which live here, once. [`Engine`] is the one type the CLI and the server hold, opened from a
//! [`Location`]; they never ask which backend it is. The experiments and the Python package hold
//! an [`Index`] (or a cluster's index) and call it through the same trait.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use rayon::prelude::*;

use crate::corpus::{Claim, PubDate};
use crate::fuse::{fuse_query, FusionConfig};
use crate::plan::{Lookup, Passage, Plan, Planner, SubQuery};
use crate::error::{Error, Result};
use crate::index::dense::models::EncoderOptions;
use crate::index::dense::Encoder;
use crate::index::{Bm25Params, Index, Live};
use crate::io::Progress;
use crate::provenance::{Fingerprint, Input};
use crate::retrieve::{Ann, Cutoff, Retriever, Strategy, TemporalFilter, UndatedPolicy};
use crate::trec::{QueryView, Run, RunView};

mod embedded;
mod remote;
mod settings;

pub use embedded::run_ranked;
pub use settings::{FeedbackKind, RunSettings, SettingValue};

/// How a batch of claims is run.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct RunConfig {
    /// Documents kept per claim.
    pub k: usize,
    /// BM25 parameters; `None` uses the index's.
    pub bm25: Option<Bm25Params>,
    /// Cutoff for claims that carry no date of their own (`--before`). A claim's own date always
    /// wins: in a batch every claim is checked against the evidence available when it was made.
    pub default_before: Option<PubDate>,
    /// Undated documents under a cutoff.
    pub undated: UndatedPolicy,
    /// Whether claims are cut off at their dates at all.
    pub temporal_filter: TemporalFilter,
    /// Drop a hit whose id equals the claim's id (BEIR's `--remove-query`).
    pub remove_query: bool,
    /// Worker threads; 0 means one per core. (Speed only: not recorded in provenance.)
    #[serde(skip)]
    pub threads: usize,
    /// BM25, dense or both.
    pub retriever: Retriever,
    /// Exact or HNSW dense search.
    pub ann: Ann,
    /// Candidates explored by an HNSW search.
    pub ef: usize,
    /// How BM25 finds the top k (all give the same hits; speed only, not recorded in provenance).
    #[serde(skip)]
    pub bm25_strategy: Strategy,
    /// Pseudo-relevance feedback on BM25's lists (each sub-query expanded from its own first
    /// pass under the claim's cutoff); `None`: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<crate::retrieve::Feedback>,
}

impl Default for RunConfig {
    /// [`RunSettings::DEFAULT`]'s, with the index's BM25 parameters.
    fn default() -> Self {
        RunSettings::DEFAULT.run_config(Bm25Params::default())
    }
}

/// What a batch run did.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunSummary {
    /// Claims run.
    pub claims: usize,
    /// Claims that had a cutoff (their own date or `--before`).
    pub with_cutoff: usize,
    /// Sub-queries retrieved, over all claims.
    pub subqueries: usize,
    /// Claims whose planner fell back to the claim itself.
    pub fallbacks: usize,
    /// Wall-clock seconds, planning included.
    pub seconds: f64,
}

impl RunConfig {
    /// Checks the counts against their ranges ([`crate::ranges`]), with the depth of `plan`.
    pub fn validate(&self, plan: &PlanRunConfig) -> Result<()> {
        crate::ranges::K.check(self.k as u64)?;
        crate::ranges::DEPTH.check(plan.depth as u64)?;
        crate::ranges::THREADS.check(self.threads as u64)?;
        crate::ranges::EF.check(self.ef as u64)?;
        Ok(())
    }

    /// The cutoff for one claim.
    pub fn cutoff_for(&self, claim: &Claim) -> Cutoff {
        match self.temporal_filter {
            TemporalFilter::Claim => Cutoff { before: claim.date.or(self.default_before), undated: self.undated },
            TemporalFilter::Off => Cutoff::none(),
        }
    }
}

/// How a claim's lists become one: first each sub-query's BM25 and dense lists (hybrid
/// retrieval, `hybrid`), then the sub-queries' lists (`fusion`). Two different problems — two
/// retrievers' views of one query, against several queries' views of one claim — so two settings.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PlanRunConfig {
    /// Documents each sub-query retrieves (`--depth`) when a claim has several.
    pub depth: usize,
    /// How the sub-queries' lists are fused (`--fusion`).
    pub fusion: FusionConfig,
    /// How a sub-query's BM25 and dense lists are fused under hybrid retrieval (`--hybrid-fusion`).
    pub hybrid: FusionConfig,
}

/// The default hybrid fusion: CombSUM of z-scored (zmuv) BM25 and dense scores, chosen by
/// `scripts/bench_hybrid.sh` over every fusion × normalisation (all-MiniLM-L6-v2 int8, 128 tokens,
/// k 1000, nDCG@10) as the best mean over two collections — SciFact's 809 train queries and
/// Climate-FEVER's 529 judged claims (`data/climate-fever`) — among the hybrids at or above BM25 on
/// both: 0.7360 / 0.4973 (mean 0.6167; SciFact test 0.7344), against BM25 0.6967 / 0.3983 and
/// dense 0.6400 / 0.4483. CombSUM over min-max is 0.0008 behind on the mean (0.7292 / 0.5027):
/// z-scores win on SciFact, min-max on Climate-FEVER, each significantly (paired t-test p 0.021
/// and 0.037), so neither wins on both. CombMAX keeps one retriever's view per document, so it
/// cannot reward a document both rank high; RRF discards the score gaps (0.6934 on SciFact train,
/// below BM25). The table: `docs/benchmarks.md`.
pub fn default_hybrid_fusion() -> FusionConfig {
    hybrid_fusion(crate::fuse::Method::CombSum, None)
}

/// A hybrid fusion with `method`; without a `norm`, z-scores (as measured best,
/// [`default_hybrid_fusion`]), except for CombMAX-Norm (always min-max) and RRF (ranks only).
pub fn hybrid_fusion(method: crate::fuse::Method, norm: Option<crate::fuse::Norm>) -> FusionConfig {
    use crate::fuse::{Method, Norm};
    let norm = norm.or(match method {
        Method::CombMaxNorm | Method::Rrf => None,
        _ => Some(Norm::Zmuv),
    });
    FusionConfig { method, norm, ..FusionConfig::default() }
}

impl Default for PlanRunConfig {
    /// [`RunSettings::DEFAULT`]'s: depth 100 and CombMAX-Norm across sub-queries (QuanTemp++'s
    /// setting); CombSUM of z-scores across retrievers ([`default_hybrid_fusion`]).
    fn default() -> Self {
        RunSettings::DEFAULT.plan_run_config()
    }
}

/// For one claim: its sub-queries and which of them found each fused document (`--explain`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Explanation {
    /// The claim's id.
    pub id: String,
    /// Its sub-queries.
    pub subqueries: Vec<SubQuery>,
    /// Whether the planner fell back to the claim.
    pub fell_back: bool,
    /// The fused documents, best first.
    pub hits: Vec<ExplainedHit>,
}

/// One fused document and the sub-queries that retrieved it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ExplainedHit {
    /// Document id.
    pub id: String,
    /// Fused score.
    pub score: f64,
    /// Indices into [`Explanation::subqueries`].
    pub from_subqueries: Vec<usize>,
}


/// Where an index lives, as a front end names it.
#[derive(Debug, Clone)]
pub enum Location {
    /// An index folder on this machine, followed as it is rebuilt ([`Live`]).
    Folder(PathBuf),
    /// An index on an OpenSearch cluster.
    OpenSearch(crate::opensearch::ClusterConfig),
}

/// Which backend answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// An index folder on this machine.
    Embedded,
    /// An index on an OpenSearch cluster.
    #[serde(rename = "opensearch")]
    OpenSearch,
}

impl std::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BackendKind::Embedded => "embedded",
            BackendKind::OpenSearch => "OpenSearch",
        })
    }
}

/// What a backend says of itself (`GET /api/health`).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct About {
    /// Which backend.
    #[serde(rename = "backend")]
    pub kind: BackendKind,
    /// The index folder, or the index's name on the cluster.
    #[serde(rename = "index")]
    pub name: String,
    /// Documents searched.
    pub documents: u64,
    /// The analyzer version the index was built with.
    pub analyzer_version: u32,
    /// The generation answering (embedded backend).
    pub generation: Option<Generation>,
}

/// An embedded index's generation.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Generation {
    /// Its number.
    pub number: u64,
    /// Its fingerprint.
    pub fingerprint: Fingerprint,
    /// Why a newer generation is not served, while one is not ([`Live::reload_error`]).
    pub reload_error: Option<String>,
}

/// One call's settings: how its claims are planned, retrieved and fused.
#[derive(Clone, Copy)]
pub struct RunRequest<'a> {
    /// The planner.
    pub planner: &'a dyn Planner,
    /// The query encoder, for dense and hybrid retrieval.
    pub encoder: Option<&'a Encoder>,
    /// How claims are run.
    pub config: &'a RunConfig,
    /// How the lists are fused.
    pub plan: &'a PlanRunConfig,
    /// Whether to explain which sub-queries found each document ([`Explanation`]).
    pub explain: bool,
}

/// A batch run: the lists, what the run did, and (when asked) the explanations.
pub struct RunOutput<'a> {
    /// One list per claim, in claim order.
    pub lists: Lists<'a>,
    /// The index that answered (the generation, on a folder followed as it is rebuilt), as the
    /// run's provenance records it.
    pub source: Input,
    /// What the run did.
    pub summary: RunSummary,
    /// One per claim when the request asked to explain, else none.
    pub explanations: Vec<Explanation>,
}

/// A run's lists, as the backend made them: the embedded index's as id ranks (no `String` per
/// hit: a k = 1000 run has millions), a cluster's as ids.
pub enum Lists<'a> {
    /// Id ranks of this index.
    Ranked {
        /// The index (generation) the ranks are of.
        index: IndexRef<'a>,
        /// One per claim.
        lists: Vec<RankedHits>,
    },
    /// Document ids.
    Named(Run),
}

/// An index a run's ranks are of: borrowed, or a generation held for the run ([`Live`]).
pub enum IndexRef<'a> {
    /// Borrowed from the caller.
    Borrowed(&'a Index),
    /// A generation held until the run's lists are dropped.
    Shared(Arc<Index>),
}

impl std::ops::Deref for IndexRef<'_> {
    type Target = Index;
    fn deref(&self) -> &Index {
        match self {
            IndexRef::Borrowed(index) => index,
            IndexRef::Shared(index) => index,
        }
    }
}

impl Lists<'_> {
    /// Writes the lists as a TREC run.
    pub fn write_trec(&self, path: &std::path::Path, tag: &str) -> Result<()> {
        match self {
            Lists::Ranked { index, lists } => RankedHits::write_trec(lists, index, path, tag),
            Lists::Named(run) => run.write_trec(path, tag),
        }
    }

    /// The lists as a run view, for evaluation.
    pub fn view(&self) -> RunView<'_> {
        match self {
            Lists::Ranked { index, lists } => RankedHits::view(lists, index),
            Lists::Named(run) => run.view(),
        }
    }

    /// The lists as a [`Run`], with a `String` per hit.
    pub fn into_run(self) -> Run {
        match self {
            Lists::Ranked { index, lists } => Run {
                queries: lists
                    .into_iter()
                    .map(|list| crate::trec::RankedList { docs: list.docs(&index).map(|(docid, score)| crate::trec::ScoredDoc { docid: docid.to_string(), score }).collect(), qid: list.qid })
                    .collect(),
            },
            Lists::Named(run) => run,
        }
    }
}

/// The calls every backend answers, with the same results for the same index contents (the
/// OpenSearch tests hold the cluster to the embedded index's scores and order).
pub trait Backend: Send + Sync {
    /// What it is and holds.
    fn about(&self) -> About;

    /// The index's own BM25 parameters.
    fn default_bm25(&self) -> Bm25Params;

    /// The query encoder for dense retrieval or dense MMR: the model the index's vectors were made
    /// with (or the one `options` names, checked against them); `None` when there is neither.
    fn encoder(&self, options: &EncoderOptions, roots: &[PathBuf]) -> Result<Option<Encoder>>;

    /// The top `k` documents for one query under `cutoff`, with their stored fields (BM25; `bm25`
    /// overrides the index's parameters where the backend allows).
    fn search(&self, query: &str, cutoff: &Cutoff, k: usize, bm25: Option<Bm25Params>) -> Result<Vec<Evidence>>;

    /// Plans every claim, retrieves each sub-query with the claim's own cutoff, fuses the lists
    /// and keeps the top `k`, in claim order.
    fn run(&self, claims: &[Claim], request: &RunRequest<'_>, progress: &dyn Progress) -> Result<RunOutput<'_>>;

    /// One claim as [`Backend::run`] runs it, with the hits' stored fields and the sub-queries
    /// that found each: what the server and the web page show.
    fn evidence(&self, claim: &Claim, request: &RunRequest<'_>) -> Result<ClaimEvidence>;
}

/// The one type front ends hold: a [`Backend`], opened from a [`Location`].
pub struct Engine {
    backend: Box<dyn Backend>,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine").field("about", &self.backend.about()).finish()
    }
}

impl Engine {
    /// Opens the index at `location`: a folder's current generation (checked, [`Index::open`]),
    /// which every call then answers from, or a cluster's index (connected and checked,
    /// [`crate::opensearch::RemoteIndex::open`]).
    pub fn open(location: &Location) -> Result<Engine> {
        Ok(match location {
            Location::Folder(dir) => Engine::new(Index::open(dir)?),
            Location::OpenSearch(config) => Engine::new(crate::opensearch::RemoteIndex::open(crate::opensearch::Cluster::connect(config.clone())?)?),
        })
    }

    /// Opens the index at `location` to serve it, a folder followed as it is rebuilt ([`Live`]),
    /// with the query encoder its vectors were made with
    /// (when it has vectors): a rebuilt generation is served only when that encoder fits it
    /// ([`crate::index::dense::models::serves_vectors_of`]).
    pub fn open_to_serve(location: &Location, options: &EncoderOptions, roots: &[PathBuf]) -> Result<(Engine, Option<Encoder>)> {
        match location {
            Location::Folder(dir) => {
                let index = Index::open(dir)?;
                let encoder = options.index_encoder(&index, roots)?;
                let fits = encoder.as_ref().map(|e| (e.config().clone(), e.dir().to_path_buf()));
                let accept: crate::index::Accept = Box::new(move |next: &Index| crate::index::dense::models::serves_vectors_of(next, fits.as_ref().map(|(c, d)| (c, d.as_path()))));
                Ok((Engine::new(Live::new(index, Some(accept))), encoder))
            }
            Location::OpenSearch(_) => {
                // The encoder the cluster index's vectors were made with (none without vectors).
                let engine = Engine::open(location)?;
                let encoder = engine.encoder(options, roots)?;
                Ok((engine, encoder))
            }
        }
    }

    /// An engine over `backend`.
    pub fn new(backend: impl Backend + 'static) -> Engine {
        Engine { backend: Box::new(backend) }
    }
}

impl std::ops::Deref for Engine {
    type Target = dyn Backend;
    fn deref(&self) -> &(dyn Backend + 'static) {
        self.backend.as_ref()
    }
}

/// One claim's fused documents as id ranks ([`Index::id`] gives the id), best first: what
/// [`Lists::Ranked`] and [`run_ranked`] hold, for front ends that keep ids of their own (the Python package keeps one
/// Python string per document instead of making one per hit).
#[derive(Debug, Clone, PartialEq)]
pub struct RankedHits {
    /// The claim's id.
    pub qid: String,
    /// `(id rank, score)`, best first.
    pub hits: Vec<(u32, f64)>,
}

impl RankedHits {
    /// The hits as `(document id, score)`, best first, with ids borrowed from `index`.
    pub fn docs<'a>(&'a self, index: &'a Index) -> impl Iterator<Item = (&'a str, f64)> + 'a {
        self.hits.iter().map(|&(rank, score)| (index.id(rank), score))
    }

    /// Ranked lists as a run view (for evaluation) borrowing its ids from `index`.
    pub fn view<'a>(lists: &'a [RankedHits], index: &'a Index) -> RunView<'a> {
        RunView { queries: lists.iter().map(|list| QueryView { qid: &list.qid, docs: list.docs(index).collect() }).collect() }
    }

    /// Writes ranked lists as a TREC run without a `String` per hit ([`crate::trec::write_trec`]).
    pub fn write_trec(lists: &[RankedHits], index: &Index, path: &std::path::Path, tag: &str) -> Result<()> {
        crate::trec::write_trec(path, tag, lists.iter().map(|list| (list.qid.as_str(), list.docs(index))))
    }
}


impl RunSummary {
    /// The counts a run's provenance keeps ([`crate::provenance::Provenance::counts`]).
    pub fn counts(&self) -> std::collections::BTreeMap<String, u64> {
        [("claims", self.claims), ("with_cutoff", self.with_cutoff), ("subqueries", self.subqueries), ("fell_back", self.fallbacks)].into_iter().map(|(k, v)| (k.to_string(), v as u64)).collect()
    }

    fn of(claims: &[Claim], plans: &[Plan], config: &RunConfig, started: Instant) -> RunSummary {
        RunSummary {
            claims: claims.len(),
            with_cutoff: claims.iter().filter(|c| config.cutoff_for(c).before.is_some()).count(),
            subqueries: plans.iter().map(|p| p.subqueries.len()).sum(),
            fallbacks: plans.iter().filter(|p| p.fell_back).count(),
            seconds: started.elapsed().as_secs_f64(),
        }
    }
}

/// Every claim's plan, in claim order, each checked against the fusion settings.
fn plan_all(claims: &[Claim], planner: &dyn Planner, backend: &dyn Backend, config: &RunConfig, plan_config: &PlanRunConfig, progress: &dyn Progress) -> Result<Vec<Plan>> {
    progress.start("planning", Some(claims.len() as u64));
    let plans: Vec<Plan> = in_pool(planner.concurrency(), || {
        claims
            .par_iter()
            .map(|claim| {
                let plan = planner.plan(claim, &ClaimLookup { backend, claim, config });
                progress.advance(1);
                plan
            })
            .collect::<Result<Vec<Plan>>>()
    })??;
    progress.finish();
    for plan in &plans {
        validate(plan, config, plan_config)?;
    }
    Ok(plans)
}

/// The top `k` documents for `query` as `claim` may see them: BM25 on `backend` under the claim's
/// cutoff with the run's parameters, and without the claim's own id under `remove_query`. What a
/// planner that reads evidence searches ([`ClaimLookup`], and Python's `ClaimSearch`).
pub fn search_for_claim(backend: &dyn Backend, claim: &Claim, config: &RunConfig, query: &str, k: usize) -> Result<Vec<Evidence>> {
    search_for_claim_by(backend, claim, config, query, k, Retriever::Bm25, None)
}

/// [`search_for_claim`] by `retriever`: dense and hybrid as [`search_query`] answers them (the
/// run's `ann` and `ef`, with `encoder`), under the same cutoff and without the same id. Python's
/// `ClaimSearch(query, k, retriever=…)`.
pub fn search_for_claim_by(backend: &dyn Backend, claim: &Claim, config: &RunConfig, query: &str, k: usize, retriever: Retriever, encoder: Option<&Encoder>) -> Result<Vec<Evidence>> {
    let exclude = config.remove_query.then_some(claim.id.as_str());
    let wanted = k + usize::from(exclude.is_some());
    let cutoff = config.cutoff_for(claim);
    let hits = match retriever {
        Retriever::Bm25 => backend.search(query, &cutoff, wanted, config.bm25)?,
        _ => search_query(backend, query, &cutoff, &RunConfig { k: wanted, retriever, ..*config }, encoder)?,
    };
    Ok(hits.into_iter().filter(|h| Some(h.id.as_str()) != exclude).take(k).collect())
}

/// One query's top `config.k` under `cutoff`, with the hits' stored fields: BM25
/// ([`Backend::search`], with `config.bm25`), or dense or hybrid retrieval (`config.retriever`,
/// `ann`, `ef`) as a run does it — the query run as a claim made on the cutoff's date by the
/// claim-only plan, with `encoder` (the one [`Backend::encoder`] gives). What `quantir search`
/// and Python's `search` answer; the rest of `config` is not read. An empty query (or only spaces)
/// is an error, as an empty claim is: encoded, it would find the "nearest" documents to nothing.
pub fn search_query(backend: &dyn Backend, query: &str, cutoff: &Cutoff, config: &RunConfig, encoder: Option<&Encoder>) -> Result<Vec<Evidence>> {
    if query.trim().is_empty() {
        return Err(Error::Value { at: "the query".into(), expected: "the query's text".into(), found: format!("{query:?}") });
    }
    if config.retriever == Retriever::Bm25 {
        return backend.search(query, cutoff, config.k, config.bm25);
    }
    let config = RunConfig {
        k: config.k,
        bm25: config.bm25,
        undated: cutoff.undated,
        temporal_filter: if cutoff.before.is_some() { TemporalFilter::Claim } else { TemporalFilter::Off },
        retriever: config.retriever,
        ann: config.ann,
        ef: config.ef,
        ..RunConfig::default()
    };
    let plan = PlanRunConfig { depth: config.k, fusion: FusionConfig::default(), hybrid: default_hybrid_fusion() };
    config.validate(&plan)?;
    let claim = Claim { id: "query".into(), text: query.to_string(), date: cutoff.before };
    let request = RunRequest { planner: &crate::plan::ClaimOnly, encoder, config: &config, plan: &plan, explain: false };
    Ok(backend.evidence(&claim, &request)?.hits.into_iter().map(|h| h.evidence).collect())
}

/// [`search_for_claim`] as a planner's [`Lookup`] for one claim.
pub struct ClaimLookup<'a> {
    /// Where the index lives.
    pub backend: &'a dyn Backend,
    /// The claim being planned.
    pub claim: &'a Claim,
    /// The run's settings (cutoff, BM25 parameters, `remove_query`).
    pub config: &'a RunConfig,
}

impl Lookup for ClaimLookup<'_> {
    fn search(&self, query: &str, k: usize) -> Result<Vec<Passage>> {
        Ok(search_for_claim(self.backend, self.claim, self.config, query, k)?.into_iter().map(|e| Passage { id: e.id, title: e.title, text: e.text }).collect())
    }
}

/// A claim's sub-query lists into its top `k`: a single list is the claim's own (moved, not
/// copied), several are fused. The one place this choice is made, for every backend.
/// Every sub-query of every plan encoded as a query, in order: `dim` values each.
fn encode_subqueries(encoder: &Encoder, plans: &[Plan], dim: usize, progress: &dyn Progress) -> Result<Vec<f32>> {
    let texts: Vec<&str> = plans.iter().flat_map(|p| p.subqueries.iter().map(|q| q.text.as_str())).collect();
    progress.start("encoding queries", Some(texts.len() as u64));
    let mut vectors = Vec::with_capacity(texts.len() * dim);
    for part in texts.chunks(512) {
        let (v, _) = encoder.encode(part, crate::index::dense::TextKind::Query)?;
        vectors.extend(v);
        progress.advance(part.len() as u64);
    }
    progress.finish();
    Ok(vectors)
}

fn fuse_plan<K: Copy + Eq + std::hash::Hash + Ord>(mut lists: Vec<Vec<(K, f64)>>, k: usize, plan_config: &PlanRunConfig) -> Vec<(K, f64)> {
    if lists.len() == 1 {
        let mut only = lists.pop().expect("one list");
        only.truncate(k);
        only
    } else {
        fuse_query(&lists, &plan_config.fusion, k)
    }
}

/// The sub-queries whose lists hold `doc`: one list per sub-query, in order, so the indices come
/// out sorted and distinct.
fn found_by<K: Copy + PartialEq>(lists: &[Vec<(K, f64)>], doc: K) -> Vec<usize> {
    lists.iter().enumerate().filter(|(_, l)| l.iter().any(|&(d, _)| d == doc)).map(|(j, _)| j).collect()
}

/// Runs `work` on `threads` worker threads: rayon's global pool (one per core, made once per
/// process) for 0, else a pool of that size. Made per call, a pool costs its threads' start-up:
/// about 0.5 ms, the whole cost of running one claim from Python.
fn in_pool<R: Send>(threads: usize, work: impl FnOnce() -> R + Send) -> Result<R> {
    if threads == 0 {
        return Ok(work());
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| Error::InvalidArgument { name: "threads", message: e.to_string() })?;
    Ok(pool.install(work))
}

/// Checks both fusion settings against the lists they will fuse.
fn validate(plan: &Plan, config: &RunConfig, plan_config: &PlanRunConfig) -> Result<()> {
    plan_config.fusion.validate(plan.subqueries.len())?;
    if config.retriever == Retriever::Hybrid {
        plan_config.hybrid.validate(2).map_err(hybrid_error)?;
    }
    Ok(())
}

/// A hybrid fusion's error, naming the hybrid settings (`hybrid_norm`, not the sub-query
/// fusion's `norm`).
pub(crate) fn hybrid_error(error: Error) -> Error {
    match error {
        Error::Setting { name, found, expected, wrong_type } => Error::Setting { name: format!("hybrid_{name}"), found, expected: expected.replace("combmax takes", "hybrid_fusion combmax takes"), wrong_type },
        other => other,
    }
}

/// Documents each sub-query retrieves (from each retriever): k when the claim has one sub-query
/// (its list is the claim's), else depth.
fn list_depth(plan: &Plan, config: &RunConfig, plan_config: &PlanRunConfig) -> usize {
    if plan.subqueries.len() == 1 {
        config.k
    } else {
        plan_config.depth
    }
}

/// One search result with its stored fields, for people reading evidence.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Evidence {
    /// Document id.
    pub id: String,
    /// Score: BM25, or the fused score for a plan of several sub-queries.
    pub score: f64,
    /// Publication date as normalised at index time, if any.
    pub date: Option<String>,
    /// Title.
    pub title: String,
    /// Text.
    pub text: String,
    /// Source address.
    pub url: Option<String>,
}

/// One claim's evidence with where it came from: what the server and the web page show.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ClaimEvidence {
    /// The plan used.
    pub plan: Plan,
    /// The fused hits, best first, with their stored fields.
    pub hits: Vec<EvidenceHit>,
    /// The embedded index's generation that answered.
    pub generation: Option<u64>,
}

/// One hit of [`ClaimEvidence`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EvidenceHit {
    /// Stored fields and score.
    #[serde(flatten)]
    pub evidence: Evidence,
    /// Indices of the sub-queries that retrieved it.
    pub from_subqueries: Vec<usize>,
}

