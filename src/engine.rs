//! Claims in, evidence out: each claim retrieves with its own date as the cutoff, in parallel.
//!
//! Shared by the CLI's `run` and `search` and, later, the server, so that every front end gets the
//! same results for the same claim.

use std::time::Instant;

use rayon::prelude::*;

use crate::corpus::{Claim, PubDate};
use crate::fuse::{fuse_query, FusionConfig};
use crate::plan::{ClaimOnly, Plan, Planner, SubQuery};
use crate::error::{Error, Result};
use crate::index::{Bm25Params, Index, StoredDocument};
use crate::io::Progress;
use crate::index::dense::{Encoder, TextKind};
use crate::retrieve::{Ann, Bm25, Cutoff, DenseQuery, Retriever, Scratch, Strategy, TemporalFilter, UndatedPolicy};
use crate::trec::{QueryView, RankedList, Run, RunView, ScoredDoc};

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
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            k: 1000,
            bm25: None,
            default_before: None,
            undated: UndatedPolicy::Exclude,
            temporal_filter: TemporalFilter::Claim,
            remove_query: false,
            threads: 0,
            retriever: Retriever::Bm25,
            ann: Ann::Exact,
            ef: 256,
            bm25_strategy: Strategy::default(),
        }
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

/// The default hybrid fusion: CombSUM of z-scored (zmuv) BM25 and dense scores, the best of the
/// fusions measured (`scripts/bench_hybrid.sh`; all-MiniLM-L6-v2 int8, 128 tokens, k 1000,
/// nDCG@10) on SciFact's 300 test queries and, as a second query set the choice was not made on,
/// its 809 train queries: BM25 alone 0.6821 / 0.6967, dense alone 0.6233 / 0.6400; hybrid CombSUM
/// over zmuv 0.7344 / 0.7360 (mean 0.7352), CombMNZ over zmuv 0.7354 / 0.7336 (0.7345), CombSUM
/// over min-max 0.7292 / 0.7292, CombMAX over zmuv 0.7009 / 0.7262, RRF 0.7036 / 0.6934,
/// CombMAX-Norm 0.6688 / 0.7036. CombMAX keeps one retriever's view per document, so it cannot
/// reward a document both rank high; RRF discards the score gaps, and on the train queries falls
/// below BM25 alone.
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
    /// Depth 100 and CombMAX-Norm across sub-queries (QuanTemp++'s setting); CombSUM of z-scores
    /// across retrievers ([`default_hybrid_fusion`]).
    fn default() -> Self {
        PlanRunConfig { depth: crate::ranges::DEFAULT_DEPTH, fusion: FusionConfig::default(), hybrid: default_hybrid_fusion() }
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

/// Runs every claim as claim-only BM25 and returns the run, in claim order.
pub fn run_claims(index: &Index, claims: &[Claim], config: &RunConfig, progress: &dyn Progress) -> Result<(Run, RunSummary)> {
    let (run, summary, _) = run_planned(index, claims, &ClaimOnly, None, config, &PlanRunConfig::default(), false, progress)?;
    Ok((run, summary))
}

/// One claim's fused documents as id ranks ([`Index::id`] gives the id), best first: what
/// [`run_ranked`] returns for front ends that keep ids of their own (the Python package keeps one
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

/// [`run_ranked`], with document ids: a [`Run`].
#[allow(clippy::too_many_arguments)]
pub fn run_planned(
    index: &Index,
    claims: &[Claim],
    planner: &dyn Planner,
    encoder: Option<&Encoder>,
    config: &RunConfig,
    plan_config: &PlanRunConfig,
    explain: bool,
    progress: &dyn Progress,
) -> Result<(Run, RunSummary, Vec<Explanation>)> {
    let (lists, summary, explanations) = run_ranked(index, claims, planner, encoder, config, plan_config, explain, progress)?;
    let queries = lists
        .into_iter()
        .map(|list| RankedList { docs: list.docs(index).map(|(docid, score)| ScoredDoc { docid: docid.to_string(), score }).collect(), qid: list.qid })
        .collect();
    Ok((Run { queries }, summary, explanations))
}

/// Plans every claim, retrieves each sub-query with the claim's own cutoff, fuses the lists and
/// keeps the top `config.k`. A plan with one list keeps its scores (nothing to fuse), so
/// `claim-only` is plain BM25 (or plain dense). Dense and hybrid retrieval need `encoder`: every
/// sub-query of every claim is encoded in one batched call. With `explain`, also returns an
/// [`Explanation`] per claim.
#[allow(clippy::too_many_arguments)]
pub fn run_ranked(
    index: &Index,
    claims: &[Claim],
    planner: &dyn Planner,
    encoder: Option<&Encoder>,
    config: &RunConfig,
    plan_config: &PlanRunConfig,
    explain: bool,
    progress: &dyn Progress,
) -> Result<(Vec<RankedHits>, RunSummary, Vec<Explanation>)> {
    config.validate(plan_config)?;
    let bm25 = Bm25::new(index, config.bm25)?.with_strategy(config.bm25_strategy);
    let started = Instant::now();
    let plans = plan_all(claims, planner, config, plan_config, progress)?;
    let results = in_pool(config.threads, || -> Result<Vec<(RankedHits, Option<Explanation>)>> {
        let dense_lists = dense_lists(index, claims, &plans, encoder, config, plan_config, progress)?;
        progress.start("claims", Some(claims.len() as u64));
        claims
            .par_iter()
            .zip(&plans)
            .enumerate()
            .map_init(Scratch::default, |scratch, (i, (claim, plan))| {
                let dense = dense_lists.as_ref().map(|d| d[i].as_slice());
                let result = retrieve_plan(index, &bm25, claim, plan, dense, config, plan_config, explain, scratch);
                progress.advance(1);
                result
            })
            .collect()
    })??;
    progress.finish();
    let (lists, explanations): (Vec<RankedHits>, Vec<Option<Explanation>>) = results.into_iter().unzip();
    let summary = RunSummary::of(claims, &plans, config, started);
    Ok((lists, summary, explanations.into_iter().flatten().collect()))
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
fn plan_all(claims: &[Claim], planner: &dyn Planner, config: &RunConfig, plan_config: &PlanRunConfig, progress: &dyn Progress) -> Result<Vec<Plan>> {
    progress.start("planning", Some(claims.len() as u64));
    let plans: Vec<Plan> = in_pool(planner.concurrency(), || {
        claims
            .par_iter()
            .map(|claim| {
                let plan = planner.plan(claim);
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

/// A claim's sub-query lists into its top `k`: a single list is the claim's own (moved, not
/// copied), several are fused. The one place this choice is made, for every backend.
fn fuse_plan<K: Copy + Eq + std::hash::Hash + Ord>(mut lists: Vec<Vec<(K, f64)>>, k: usize, plan_config: &PlanRunConfig) -> Vec<(K, f64)> {
    if lists.len() == 1 {
        let mut only = lists.pop().expect("one list");
        only.truncate(k);
        only
    } else {
        fuse_query(&lists, &plan_config.fusion, k)
    }
}

/// [`run_planned`] over an index on an OpenSearch cluster: the same planning, cutoffs and fusion,
/// with every sub-query of every claim sent to the cluster in `_msearch` batches. BM25 only: the
/// cluster holds no vectors.
pub fn run_remote(
    index: &crate::opensearch::RemoteIndex,
    claims: &[Claim],
    planner: &dyn Planner,
    config: &RunConfig,
    plan_config: &PlanRunConfig,
    progress: &dyn Progress,
) -> Result<(Run, RunSummary)> {
    config.validate(plan_config)?;
    if config.retriever != Retriever::Bm25 {
        return Err(Error::InvalidArgument { name: "--retriever", message: "the OpenSearch backend retrieves with BM25 only (the cluster holds no vectors)".into() });
    }
    index.check_bm25(config.bm25)?;
    let started = Instant::now();
    let plans = plan_all(claims, planner, config, plan_config, progress)?;
    let mut queries = Vec::with_capacity(plans.iter().map(|p| p.subqueries.len()).sum());
    for (claim, plan) in claims.iter().zip(&plans) {
        let cutoff = config.cutoff_for(claim);
        let exclude = config.remove_query.then_some(claim.id.as_str());
        let k = list_depth(plan, config, plan_config);
        queries.extend(plan.subqueries.iter().map(|q| crate::opensearch::RemoteQuery { text: &q.text, cutoff, k, exclude }));
    }
    let mut answers = index.search_batch(&queries, false, progress)?.into_iter();
    let mut run = Run { queries: Vec::with_capacity(claims.len()) };
    for (claim, plan) in claims.iter().zip(&plans) {
        let hits: Vec<Vec<crate::opensearch::RemoteHit>> = answers.by_ref().take(plan.subqueries.len()).collect();
        let lists: Vec<Vec<(&str, f64)>> = hits.iter().map(|list| list.iter().map(|h| (h.id.as_str(), f64::from(h.score))).collect()).collect();
        let fused = fuse_plan(lists, config.k, plan_config);
        run.queries.push(RankedList { qid: claim.id.clone(), docs: fused.into_iter().map(|(id, score)| ScoredDoc { docid: id.to_string(), score }).collect() });
    }
    Ok((run, RunSummary::of(claims, &plans, config, started)))
}

/// [`evidence_for_claim`] over an index on an OpenSearch cluster: the same plan, cutoff and fusion,
/// the sub-queries in one `_msearch`, the stored fields from the cluster. BM25 only.
pub fn evidence_for_claim_remote(index: &crate::opensearch::RemoteIndex, claim: &Claim, planner: &dyn Planner, config: &RunConfig, plan_config: &PlanRunConfig) -> Result<ClaimEvidence> {
    if config.retriever != Retriever::Bm25 {
        return Err(Error::InvalidArgument { name: "retriever", message: "the OpenSearch backend retrieves with BM25 only (the cluster holds no vectors)".into() });
    }
    config.validate(plan_config)?;
    index.check_bm25(config.bm25)?;
    let plan = planner.plan(claim)?;
    validate(&plan, config, plan_config)?;
    let cutoff = config.cutoff_for(claim);
    let exclude = config.remove_query.then_some(claim.id.as_str());
    let k = list_depth(&plan, config, plan_config);
    let queries: Vec<_> = plan.subqueries.iter().map(|q| crate::opensearch::RemoteQuery { text: &q.text, cutoff, k, exclude }).collect();
    let answers = index.search_batch(&queries, true, &crate::io::NoProgress)?;
    let lists: Vec<Vec<(&str, f64)>> = answers.iter().map(|list| list.iter().map(|h| (h.id.as_str(), f64::from(h.score))).collect()).collect();
    let stored: std::collections::HashMap<&str, &serde_json::Value> = answers.iter().flatten().filter_map(|h| h.stored.as_ref().map(|s| (h.id.as_str(), s))).collect();
    let fused = fuse_plan(lists.clone(), config.k, plan_config);
    let hits = fused
        .iter()
        .map(|&(id, score)| {
            let evidence = remote_evidence(id.to_string(), score, stored.get(id).copied());
            cutoff.check_stored(std::path::Path::new(&index.cluster().config().index), id, evidence.date.as_deref())?;
            Ok(EvidenceHit { evidence, from_subqueries: found_by(&lists, id) })
        })
        .collect::<Result<_>>()?;
    Ok(ClaimEvidence { plan, hits })
}

/// [`search`] over an index on an OpenSearch cluster.
pub fn search_remote(index: &crate::opensearch::RemoteIndex, query: &str, cutoff: &Cutoff, k: usize, bm25: Option<Bm25Params>) -> Result<Vec<Evidence>> {
    crate::ranges::K.check(k as u64)?;
    index.check_bm25(bm25)?;
    let query = crate::opensearch::RemoteQuery { text: query, cutoff: *cutoff, k, exclude: None };
    let hits = index.search_batch(&[query], true, &crate::io::NoProgress)?.pop().unwrap_or_default();
    let evidence: Vec<Evidence> = hits.into_iter().map(|hit| remote_evidence(hit.id, f64::from(hit.score), hit.stored.as_ref())).collect();
    for e in &evidence {
        cutoff.check_stored(std::path::Path::new(&index.cluster().config().index), &e.id, e.date.as_deref())?;
    }
    Ok(evidence)
}

/// The sub-queries whose lists hold `doc`: one list per sub-query, in order, so the indices come
/// out sorted and distinct.
fn found_by<K: Copy + PartialEq>(lists: &[Vec<(K, f64)>], doc: K) -> Vec<usize> {
    lists.iter().enumerate().filter(|(_, l)| l.iter().any(|&(d, _)| d == doc)).map(|(j, _)| j).collect()
}

/// A cluster hit's stored fields as [`Evidence`].
fn remote_evidence(id: String, score: f64, stored: Option<&serde_json::Value>) -> Evidence {
    let text = |field: &str| stored.and_then(|s| s[field].as_str()).map(str::to_string);
    Evidence { date: text("date"), title: text("title").unwrap_or_default(), text: text("text").unwrap_or_default(), url: text("url"), id, score }
}

/// Runs `work` on `threads` worker threads: rayon's global pool (one per core, made once per
/// process) for 0, else a pool of that size. Made per call, a pool costs its threads' start-up:
/// about 0.5 ms, the whole cost of running one claim from Python.
fn in_pool<R: Send>(threads: usize, work: impl FnOnce() -> R + Send) -> Result<R> {
    if threads == 0 {
        return Ok(work());
    }
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| Error::InvalidArgument { name: "--threads", message: e.to_string() })?;
    Ok(pool.install(work))
}

/// Checks both fusion settings against the lists they will fuse.
fn validate(plan: &Plan, config: &RunConfig, plan_config: &PlanRunConfig) -> Result<()> {
    plan_config.fusion.validate(plan.subqueries.len())?;
    if config.retriever == Retriever::Hybrid {
        plan_config.hybrid.validate(2).map_err(|e| match e {
            Error::InvalidArgument { message, .. } => Error::InvalidArgument { name: "--hybrid-fusion", message },
            other => other,
        })?;
    }
    Ok(())
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

/// The dense lists of every claim's sub-queries (claim → sub-query → hits), when the retriever
/// uses vectors.
fn dense_lists(
    index: &Index,
    claims: &[Claim],
    plans: &[Plan],
    encoder: Option<&Encoder>,
    config: &RunConfig,
    plan_config: &PlanRunConfig,
    progress: &dyn Progress,
) -> Result<Option<Vec<Vec<Vec<(u32, f64)>>>>> {
    if config.retriever == Retriever::Bm25 {
        return Ok(None);
    }
    let encoder = encoder.ok_or_else(|| Error::InvalidArgument { name: "--retriever", message: "dense and hybrid retrieval need the encoder's model folder (--dense DIR)".into() })?;
    let dense = index.manifest().dense.as_ref().ok_or_else(|| Error::InvalidArgument {
        name: "--retriever",
        message: format!("{} has no dense vectors\n\nhint: rebuild it with `quantir index … --dense models/all-minilm-l6-v2`", index.path().display()),
    })?;
    dense.check_settings(index.path(), encoder.config())?;
    let texts: Vec<&str> = plans.iter().flat_map(|p| p.subqueries.iter().map(|q| q.text.as_str())).collect();
    progress.start("encoding queries", Some(texts.len() as u64));
    let mut vectors = Vec::with_capacity(texts.len() * dense.dim);
    for part in texts.chunks(512) {
        let (v, _) = encoder.encode(part, TextKind::Query)?;
        vectors.extend(v);
        progress.advance(part.len() as u64);
    }
    progress.finish();
    // Every sub-query of every claim, each with its claim's cutoff, in one search: the exact
    // search's matrix products then span claims, and its query blocks run on every core.
    let mut queries: Vec<DenseQuery> = Vec::with_capacity(texts.len());
    for (claim, plan) in claims.iter().zip(plans) {
        let cutoff = config.cutoff_for(claim);
        let exclude = if config.remove_query { index.rank_of(&claim.id) } else { None };
        for _ in &plan.subqueries {
            let row = queries.len();
            queries.push(DenseQuery { vector: &vectors[row * dense.dim..(row + 1) * dense.dim], cutoff, exclude });
        }
    }
    let deepest = plans.iter().map(|p| list_depth(p, config, plan_config)).max().unwrap_or(0);
    let mut hits = crate::retrieve::dense::search(index, &queries, deepest, config.ann, config.ef)?.into_iter();
    let out = plans
        .iter()
        .map(|plan| {
            let depth = list_depth(plan, config, plan_config);
            hits.by_ref().take(plan.subqueries.len()).map(|list| list.into_iter().take(depth).map(|(r, s)| (r, f64::from(s))).collect()).collect()
        })
        .collect();
    Ok(Some(out))
}

#[allow(clippy::too_many_arguments)]
fn retrieve_plan(
    index: &Index,
    bm25: &Bm25,
    claim: &Claim,
    plan: &Plan,
    dense: Option<&[Vec<(u32, f64)>]>,
    config: &RunConfig,
    plan_config: &PlanRunConfig,
    explain: bool,
    scratch: &mut Scratch,
) -> Result<(RankedHits, Option<Explanation>)> {
    let cutoff = config.cutoff_for(claim);
    let exclude = if config.remove_query { index.rank_of(&claim.id) } else { None };
    let depth = list_depth(plan, config, plan_config);
    // One list per sub-query: BM25's, dense's, or (hybrid) both fused.
    let mut lists: Vec<Vec<(u32, f64)>> = Vec::with_capacity(plan.subqueries.len());
    for (j, subquery) in plan.subqueries.iter().enumerate() {
        let lexical = match config.retriever {
            Retriever::Dense => None,
            Retriever::Bm25 | Retriever::Hybrid => Some(bm25.search(&subquery.text, &cutoff, depth, exclude, scratch)?.into_iter().map(|h| (h.rank, f64::from(h.score))).collect::<Vec<_>>()),
        };
        let semantic = dense.map(|d| d[j].clone());
        lists.push(match (lexical, semantic) {
            (Some(l), Some(s)) => fuse_query(&[l, s], &plan_config.hybrid, depth),
            (Some(one), None) | (None, Some(one)) => one,
            (None, None) => return Err(Error::InvalidArgument { name: "--retriever", message: "dense retrieval needs the dense lists".into() }),
        });
    }
    let fused: Vec<(u32, f64)> = if explain { fuse_plan(lists.clone(), config.k, plan_config) } else { fuse_plan(std::mem::take(&mut lists), config.k, plan_config) };
    cutoff.check_hits(index, fused.iter().map(|&(rank, _)| rank))?;
    let explanation = explain.then(|| Explanation {
        id: claim.id.clone(),
        subqueries: plan.subqueries.clone(),
        fell_back: plan.fell_back,
        hits: fused
            .iter()
            .map(|&(rank, score)| ExplainedHit {
                id: index.id(rank).to_string(),
                score,
                from_subqueries: found_by(&lists, rank),
            })
            .collect(),
    });
    Ok((RankedHits { qid: claim.id.clone(), hits: fused }, explanation))
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

/// Plans, retrieves and fuses one claim (as [`run_planned`] does for a batch) and reads the
/// hits' stored fields. Dense and hybrid retrieval need `encoder`.
#[allow(clippy::too_many_arguments)]
pub fn evidence_for_claim(
    index: &Index,
    claim: &Claim,
    planner: &dyn Planner,
    encoder: Option<&Encoder>,
    config: &RunConfig,
    plan_config: &PlanRunConfig,
    scratch: &mut Scratch,
) -> Result<ClaimEvidence> {
    config.validate(plan_config)?;
    let plan = planner.plan(claim)?;
    validate(&plan, config, plan_config)?;
    let bm25 = Bm25::new(index, config.bm25)?.with_strategy(config.bm25_strategy);
    let plans = std::slice::from_ref(&plan);
    let dense = dense_lists(index, std::slice::from_ref(claim), plans, encoder, config, plan_config, &crate::io::NoProgress)?;
    let dense = dense.as_ref().map(|d| d[0].as_slice());
    let (_, explanation) = retrieve_plan(index, &bm25, claim, &plan, dense, config, plan_config, true, scratch)?;
    let explanation = explanation.expect("explain was asked");
    let hits = explanation
        .hits
        .into_iter()
        .map(|hit| {
            let rank = index.rank_of(&hit.id).expect("a hit's id is in the index");
            let StoredDocument { id, title, text, url, date } = index.stored_by_rank(rank)?;
            config.cutoff_for(claim).check_stored(index.path(), &id, date.as_deref())?;
            Ok(EvidenceHit { evidence: Evidence { id, score: hit.score, date, title, text, url }, from_subqueries: hit.from_subqueries })
        })
        .collect::<Result<_>>()?;
    Ok(ClaimEvidence { plan, hits })
}

/// Searches one query and reads the hits' stored fields.
pub fn search(index: &Index, query: &str, cutoff: &Cutoff, k: usize, bm25: Option<Bm25Params>) -> Result<Vec<Evidence>> {
    crate::ranges::K.check(k as u64)?;
    let searcher = Bm25::new(index, bm25)?;
    let hits = searcher.search(query, cutoff, k, None, &mut Scratch::default())?;
    hits.iter()
        .map(|hit| {
            let StoredDocument { id, title, text, url, date } = index.stored(hit.segment, hit.doc)?;
            cutoff.check_stored(index.path(), &id, date.as_deref())?;
            Ok(Evidence { id, score: f64::from(hit.score), date, title, text, url })
        })
        .collect()
}
