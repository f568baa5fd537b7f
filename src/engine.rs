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
use crate::retrieve::{Bm25, Cutoff, Scratch, UndatedPolicy};
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
}

impl Default for RunConfig {
    fn default() -> Self {
        RunConfig { k: 1000, bm25: None, default_before: None, undated: UndatedPolicy::Exclude, remove_query: false, threads: 0 }
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
    let (run, summary, _) = run_planned(index, claims, &ClaimOnly, config, &PlanRunConfig::default(), false, progress)?;
    Ok((run, summary))
}

/// Plans every claim, retrieves each sub-query with the claim's own cutoff, fuses the lists and
/// keeps the top `config.k`. A one-query plan keeps its BM25 scores (nothing to fuse), so
/// `claim-only` is plain BM25. With `explain`, also returns an [`Explanation`] per claim.
pub fn run_planned(
    index: &Index,
    claims: &[Claim],
    planner: &dyn Planner,
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
        plan_config.fusion.validate(plan.subqueries.len())?;
    }
    progress.start("claims", Some(claims.len() as u64));
    let results: Result<Vec<(RankedList, Option<Explanation>)>> = pool(config.threads)?.install(|| {
        claims
            .par_iter()
            .zip(&plans)
            .map_init(Scratch::default, |scratch, (claim, plan)| {
                let result = retrieve_plan(index, &bm25, claim, plan, config, plan_config, explain, scratch);
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

#[allow(clippy::too_many_arguments)]
fn retrieve_plan(
    index: &Index,
    bm25: &Bm25,
    claim: &Claim,
    plan: &Plan,
    config: &RunConfig,
    plan_config: &PlanRunConfig,
    explain: bool,
    scratch: &mut Scratch,
) -> Result<(RankedList, Option<Explanation>)> {
    let cutoff = config.cutoff_for(claim);
    let exclude = if config.remove_query { index.rank_of(&claim.id) } else { None };
    let single = plan.subqueries.len() == 1;
    let depth = if single { config.k } else { plan_config.depth };
    let mut lists: Vec<Vec<(u32, f64)>> = Vec::with_capacity(plan.subqueries.len());
    for subquery in &plan.subqueries {
        let hits = bm25.search(&subquery.text, &cutoff, depth, exclude, scratch)?;
        lists.push(hits.iter().map(|h| (h.rank, f64::from(h.score))).collect());
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
                from_subqueries: lists.iter().enumerate().filter(|(_, l)| l.iter().any(|&(r, _)| r == rank)).map(|(i, _)| i).collect(),
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
/// hits' stored fields.
pub fn evidence_for_claim(index: &Index, claim: &Claim, planner: &dyn Planner, config: &RunConfig, plan_config: &PlanRunConfig, scratch: &mut Scratch) -> Result<ClaimEvidence> {
    let plan = planner.plan(claim)?;
    plan_config.fusion.validate(plan.subqueries.len())?;
    let bm25 = Bm25::new(index, config.bm25)?;
    let (_, explanation) = retrieve_plan(index, &bm25, claim, &plan, config, plan_config, true, scratch)?;
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
