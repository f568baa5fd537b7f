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
use crate::retrieve::{Ann, Bm25, Cutoff, DenseQuery, Retriever, Scratch, UndatedPolicy};
use crate::trec::{RankedList, Run, ScoredDoc};

/// How a batch of claims is run.
#[derive(Debug, Clone, Copy, PartialEq)]
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
    /// Drop a hit whose id equals the claim's id (BEIR's `--remove-query`).
    pub remove_query: bool,
    /// Worker threads; 0 means one per core.
    pub threads: usize,
    /// BM25, dense or both.
    pub retriever: Retriever,
    /// Exact or HNSW dense search.
    pub ann: Ann,
    /// Candidates explored by an HNSW search.
    pub ef: usize,
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig {
            k: 1000,
            bm25: None,
            default_before: None,
            undated: UndatedPolicy::Exclude,
            remove_query: false,
            threads: 0,
            retriever: Retriever::Bm25,
            ann: Ann::Exact,
            ef: 256,
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
    /// The cutoff for one claim.
    pub fn cutoff_for(&self, claim: &Claim) -> Cutoff {
        Cutoff { before: claim.date.or(self.default_before), undated: self.undated }
    }
}

/// How sub-query lists become one list per claim.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanRunConfig {
    /// Documents each sub-query retrieves (`--depth`).
    pub depth: usize,
    /// How the lists are fused.
    pub fusion: FusionConfig,
}

impl Default for PlanRunConfig {
    /// Depth 100, CombMAX-Norm: QuanTemp++'s setting.
    fn default() -> Self {
        PlanRunConfig { depth: 100, fusion: FusionConfig::default() }
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

/// Plans every claim, retrieves each sub-query with the claim's own cutoff, fuses the lists and
/// keeps the top `config.k`. A plan with one list keeps its scores (nothing to fuse), so
/// `claim-only` is plain BM25 (or plain dense). Dense and hybrid retrieval need `encoder`: every
/// sub-query of every claim is encoded in one batched call. With `explain`, also returns an
/// [`Explanation`] per claim.
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
    if config.k == 0 || plan_config.depth == 0 {
        return Err(Error::InvalidArgument { name: "-k", message: "expected at least 1 document per claim and per sub-query".into() });
    }
    let bm25 = Bm25::new(index, config.bm25)?;
    let started = Instant::now();
    let pool = |threads: usize| {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().map_err(|e| Error::InvalidArgument { name: "--threads", message: e.to_string() })
    };
    progress.start("planning", Some(claims.len() as u64));
    let plans: Result<Vec<Plan>> = pool(planner.concurrency())?.install(|| {
        claims
            .par_iter()
            .map(|claim| {
                let plan = planner.plan(claim);
                progress.advance(1);
                plan
            })
            .collect()
    });
    progress.finish();
    let plans = plans?;
    for plan in &plans {
        plan_config.fusion.validate(lists_per_plan(plan, config.retriever))?;
    }
    let workers = pool(config.threads)?;
    let dense_lists = workers.install(|| dense_lists(index, claims, &plans, encoder, config, plan_config, progress))?;
    progress.start("claims", Some(claims.len() as u64));
    let results: Result<Vec<(RankedList, Option<Explanation>)>> = workers.install(|| {
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
    });
    progress.finish();
    let (lists, explanations): (Vec<RankedList>, Vec<Option<Explanation>>) = results?.into_iter().unzip();
    let summary = RunSummary {
        claims: claims.len(),
        with_cutoff: claims.iter().filter(|c| config.cutoff_for(c).before.is_some()).count(),
        subqueries: plans.iter().map(|p| p.subqueries.len()).sum(),
        fallbacks: plans.iter().filter(|p| p.fell_back).count(),
        seconds: started.elapsed().as_secs_f64(),
    };
    Ok((Run { queries: lists }, summary, explanations.into_iter().flatten().collect()))
}

/// How many ranked lists a plan yields: one per sub-query, two with hybrid retrieval.
fn lists_per_plan(plan: &Plan, retriever: Retriever) -> usize {
    plan.subqueries.len() * if retriever == Retriever::Hybrid { 2 } else { 1 }
}

/// Documents each list retrieves: k when a claim has a single list (nothing to fuse), else depth.
fn list_depth(plan: &Plan, config: &RunConfig, plan_config: &PlanRunConfig) -> usize {
    if lists_per_plan(plan, config.retriever) == 1 {
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
    let mut out = Vec::with_capacity(claims.len());
    let mut row = 0;
    for (claim, plan) in claims.iter().zip(plans) {
        let cutoff = config.cutoff_for(claim);
        let exclude = if config.remove_query { index.rank_of(&claim.id) } else { None };
        let queries: Vec<DenseQuery> = plan
            .subqueries
            .iter()
            .enumerate()
            .map(|(j, _)| DenseQuery { vector: &vectors[(row + j) * dense.dim..(row + j + 1) * dense.dim], cutoff, exclude })
            .collect();
        row += plan.subqueries.len();
        let hits = crate::retrieve::dense::search(index, &queries, list_depth(plan, config, plan_config), config.ann, config.ef)?;
        out.push(hits.into_iter().map(|l| l.into_iter().map(|(r, s)| (r, f64::from(s))).collect()).collect());
    }
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
) -> Result<(RankedList, Option<Explanation>)> {
    let cutoff = config.cutoff_for(claim);
    let exclude = if config.remove_query { index.rank_of(&claim.id) } else { None };
    let depth = list_depth(plan, config, plan_config);
    let single = lists_per_plan(plan, config.retriever) == 1;
    // Each list with the sub-query it came from.
    let mut lists: Vec<Vec<(u32, f64)>> = Vec::with_capacity(2 * plan.subqueries.len());
    let mut list_subquery: Vec<usize> = Vec::with_capacity(2 * plan.subqueries.len());
    if config.retriever != Retriever::Dense {
        for (j, subquery) in plan.subqueries.iter().enumerate() {
            let hits = bm25.search(&subquery.text, &cutoff, depth, exclude, scratch)?;
            lists.push(hits.iter().map(|h| (h.rank, f64::from(h.score))).collect());
            list_subquery.push(j);
        }
    }
    if let Some(dense) = dense {
        for (j, hits) in dense.iter().enumerate() {
            lists.push(hits.clone());
            list_subquery.push(j);
        }
    }
    let fused: Vec<(u32, f64)> = if single {
        lists[0].iter().take(config.k).copied().collect()
    } else {
        fuse_query(&lists, &plan_config.fusion, config.k)
    };
    let explanation = explain.then(|| Explanation {
        id: claim.id.clone(),
        subqueries: plan.subqueries.clone(),
        fell_back: plan.fell_back,
        hits: fused
            .iter()
            .map(|&(rank, score)| ExplainedHit {
                id: index.id(rank).to_string(),
                score,
                from_subqueries: {
                    let mut from: Vec<usize> = lists.iter().zip(&list_subquery).filter(|(l, _)| l.iter().any(|&(r, _)| r == rank)).map(|(_, &j)| j).collect();
                    from.sort_unstable();
                    from.dedup();
                    from
                },
            })
            .collect(),
    });
    let list = RankedList { qid: claim.id.clone(), docs: fused.into_iter().map(|(rank, score)| ScoredDoc { docid: index.id(rank).to_string(), score }).collect() };
    Ok((list, explanation))
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
    let plan = planner.plan(claim)?;
    plan_config.fusion.validate(lists_per_plan(&plan, config.retriever))?;
    let bm25 = Bm25::new(index, config.bm25)?;
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
            Ok(EvidenceHit { evidence: Evidence { id, score: hit.score, date, title, text, url }, from_subqueries: hit.from_subqueries })
        })
        .collect::<Result<_>>()?;
    Ok(ClaimEvidence { plan, hits })
}

/// Searches one query and reads the hits' stored fields.
pub fn search(index: &Index, query: &str, cutoff: &Cutoff, k: usize, bm25: Option<Bm25Params>) -> Result<Vec<Evidence>> {
    let searcher = Bm25::new(index, bm25)?;
    let hits = searcher.search(query, cutoff, k, None, &mut Scratch::default())?;
    hits.iter()
        .map(|hit| {
            let StoredDocument { id, title, text, url, date } = index.stored(hit.segment, hit.doc)?;
            Ok(Evidence { id, score: f64::from(hit.score), date, title, text, url })
        })
        .collect()
}
