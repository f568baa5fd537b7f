//! The embedded backend: [`Backend`] over an index folder on this machine ([`Index`]), and over
//! the folder followed as it is rebuilt ([`Live`], each call on the generation it holds then).

use std::path::PathBuf;
use std::time::Instant;

use rayon::prelude::*;

use super::{encode_subqueries, ClaimLookup, fuse_plan, found_by, in_pool, list_depth, plan_all, validate, About, Backend, BackendKind, Generation, IndexRef, ClaimEvidence, Evidence, EvidenceHit, ExplainedHit, Explanation, Lists, RankedHits, RunOutput, RunRequest, RunSummary};
use crate::corpus::Claim;
use crate::error::{Error, Result};
use crate::fuse::fuse_query;
use crate::index::dense::models::EncoderOptions;
use crate::index::dense::Encoder;
use crate::index::{Bm25Params, Index, Live, StoredDocument};
use crate::io::Progress;
use crate::plan::Plan;
use crate::provenance::{Input, Role};
use crate::retrieve::{Bm25, Cutoff, DenseQuery, Retriever, Scratch};

thread_local! {
    /// A search's scratch space, kept per thread between one-claim calls (the server's).
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

impl Backend for Index {
    fn about(&self) -> About {
        About { kind: BackendKind::Embedded, name: self.path().display().to_string(), documents: self.num_docs(), analyzer_version: self.manifest().analyzer_version, generation: Some(Generation { number: self.generation(), fingerprint: self.fingerprint().clone(), reload_error: None }) }
    }

    fn default_bm25(&self) -> Bm25Params {
        self.manifest().bm25
    }

    fn encoder(&self, options: &EncoderOptions, roots: &[PathBuf]) -> Result<Option<Encoder>> {
        options.retrieval_encoder(self, roots)
    }

    fn search(&self, query: &str, cutoff: &Cutoff, k: usize, bm25: Option<Bm25Params>) -> Result<Vec<Evidence>> {
        crate::ranges::K.check(k as u64)?;
        let searcher = Bm25::new(self, bm25)?;
        let hits = SCRATCH.with(|scratch| searcher.search(query, cutoff, k, None, &mut scratch.borrow_mut()))?;
        hits.iter()
            .map(|hit| {
                let StoredDocument { id, title, text, url, date } = self.stored(hit.segment, hit.doc)?;
                cutoff.check_stored(self.path(), &id, date.as_deref())?;
                Ok(Evidence { id, score: f64::from(hit.score), date, title, text, url })
            })
            .collect()
    }

    fn run(&self, claims: &[Claim], request: &RunRequest<'_>, progress: &dyn Progress) -> Result<RunOutput<'_>> {
        let (lists, summary, explanations) = run_ranked(self, claims, request, progress)?;
        Ok(RunOutput { source: source(self), lists: Lists::Ranked { index: IndexRef::Borrowed(self), lists }, summary, explanations })
    }

    fn evidence(&self, claim: &Claim, request: &RunRequest<'_>) -> Result<ClaimEvidence> {
        let RunRequest { planner, config, plan: plan_config, .. } = *request;
        config.validate(plan_config)?;
        let plan = planner.plan(claim, &ClaimLookup { backend: self, claim, config })?;
        validate(&plan, config, plan_config)?;
        let bm25 = Bm25::new(self, config.bm25)?.with_strategy(config.bm25_strategy);
        let plans = std::slice::from_ref(&plan);
        let dense = dense_lists(self, std::slice::from_ref(claim), plans, request, &crate::io::NoProgress)?;
        let dense = dense.as_ref().map(|d| d[0].as_slice());
        let (ranked, explanation) = SCRATCH.with(|scratch| retrieve_plan(self, &bm25, claim, &plan, dense, &RunRequest { explain: true, ..*request }, &mut scratch.borrow_mut()))?;
        let explanation = explanation.expect("explain was asked");
        // The explanation's hits are the ranked hits, in order: read each by its rank.
        let hits = ranked
            .hits
            .iter()
            .zip(explanation.hits)
            .map(|(&(rank, score), hit)| {
                let StoredDocument { id, title, text, url, date } = self.stored_by_rank(rank)?;
                config.cutoff_for(claim).check_stored(self.path(), &id, date.as_deref())?;
                Ok(EvidenceHit { evidence: Evidence { id, score, date, title, text, url }, from_subqueries: hit.from_subqueries })
            })
            .collect::<Result<_>>()?;
        Ok(ClaimEvidence { plan, hits, generation: Some(self.generation()) })
    }
}

/// The run's claims over the generation held when the call began ([`Live::get`]); answers carry
/// that generation.
impl Backend for Live {
    fn about(&self) -> About {
        let mut about = self.get().about();
        if let Some(generation) = &mut about.generation {
            generation.reload_error = self.reload_error();
        }
        about
    }

    fn default_bm25(&self) -> Bm25Params {
        self.get().default_bm25()
    }

    fn encoder(&self, options: &EncoderOptions, roots: &[PathBuf]) -> Result<Option<Encoder>> {
        self.get().encoder(options, roots)
    }

    fn search(&self, query: &str, cutoff: &Cutoff, k: usize, bm25: Option<Bm25Params>) -> Result<Vec<Evidence>> {
        self.get().search(query, cutoff, k, bm25)
    }

    fn run(&self, claims: &[Claim], request: &RunRequest<'_>, progress: &dyn Progress) -> Result<RunOutput<'_>> {
        let index = self.get();
        let (lists, summary, explanations) = run_ranked(&index, claims, request, progress)?;
        Ok(RunOutput { source: source(&index), lists: Lists::Ranked { index: IndexRef::Shared(index), lists }, summary, explanations })
    }

    fn evidence(&self, claim: &Claim, request: &RunRequest<'_>) -> Result<ClaimEvidence> {
        self.get().evidence(claim, request)
    }
}

/// `index` as a run's provenance records it.
fn source(index: &Index) -> Input {
    Input::artifact(Role::Index, index.path(), index.fingerprint().clone())
}

/// A run of `claims` over `index` as id ranks ([`Index::id`] gives the ids), for a front end that
/// keeps ids of its own (the Python package keeps one string per document of a generation): what
/// [`Backend::run`] does for the embedded index, before the ids.
///
/// Plans every claim, retrieves each sub-query with the claim's own cutoff, fuses the lists and
/// keeps the top `config.k`. A plan with one list keeps its scores (nothing to fuse), so
/// `claim-only` is plain BM25 (or plain dense). Dense and hybrid retrieval need the request's
/// encoder: every sub-query of every claim is encoded in one batched call. With `explain`, also
/// returns an [`Explanation`] per claim.
pub fn run_ranked(index: &Index, claims: &[Claim], request: &RunRequest<'_>, progress: &dyn Progress) -> Result<(Vec<RankedHits>, RunSummary, Vec<Explanation>)> {
    let RunRequest { planner, config, plan: plan_config, .. } = *request;
    config.validate(plan_config)?;
    let bm25 = Bm25::new(index, config.bm25)?.with_strategy(config.bm25_strategy);
    let started = Instant::now();
    let plans = plan_all(claims, planner, index, config, plan_config, progress)?;
    let results = in_pool(config.threads, || -> Result<Vec<(RankedHits, Option<Explanation>)>> {
        let dense_lists = dense_lists(index, claims, &plans, request, progress)?;
        progress.start("claims", Some(claims.len() as u64));
        claims
            .par_iter()
            .zip(&plans)
            .enumerate()
            .map_init(Scratch::default, |scratch, (i, (claim, plan))| {
                let dense = dense_lists.as_ref().map(|d| d[i].as_slice());
                let result = retrieve_plan(index, &bm25, claim, plan, dense, request, scratch);
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

/// Claim → sub-query → dense hits as `(id rank, score)`.
type DenseLists = Vec<Vec<Vec<(u32, f64)>>>;

/// The dense lists of every claim's sub-queries, when the retriever uses vectors.
fn dense_lists(index: &Index, claims: &[Claim], plans: &[Plan], request: &RunRequest<'_>, progress: &dyn Progress) -> Result<Option<DenseLists>> {
    let RunRequest { encoder, config, plan: plan_config, .. } = *request;
    if config.retriever == Retriever::Bm25 {
        return Ok(None);
    }
    // An index without vectors first: no encoder would help it.
    let dense = index.manifest().dense.as_ref().ok_or_else(|| Error::InvalidArgument {
        name: "retriever",
        message: format!("{} has no dense vectors\n\nhint: rebuild it with `quantir index … --dense models/all-minilm-l6-v2`", index.path().display()),
    })?;
    let encoder = encoder.ok_or_else(|| Error::InvalidArgument { name: "retriever", message: "dense and hybrid retrieval need the encoder's model folder (--dense DIR)".into() })?;
    dense.check_settings(index.path(), encoder.config())?;
    let vectors = encode_subqueries(encoder, plans, dense.dim, progress)?;
    // Every sub-query of every claim, each with its claim's cutoff, in one search: the exact
    // search's matrix products then span claims, and its query blocks run on every core.
    let mut queries: Vec<DenseQuery> = Vec::with_capacity(vectors.len() / dense.dim.max(1));
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

/// One claim's plan retrieved (each sub-query under the claim's cutoff), fused and checked, with
/// its explanation when the request asks.
fn retrieve_plan(index: &Index, bm25: &Bm25, claim: &Claim, plan: &Plan, dense: Option<&[Vec<(u32, f64)>]>, request: &RunRequest<'_>, scratch: &mut Scratch) -> Result<(RankedHits, Option<Explanation>)> {
    let RunRequest { config, plan: plan_config, explain, .. } = *request;
    let cutoff = config.cutoff_for(claim);
    let exclude = if config.remove_query { index.rank_of(&claim.id) } else { None };
    let depth = list_depth(plan, config, plan_config);
    // One list per sub-query: BM25's, dense's, or (hybrid) both fused.
    let mut lists: Vec<Vec<(u32, f64)>> = Vec::with_capacity(plan.subqueries.len());
    for (j, subquery) in plan.subqueries.iter().enumerate() {
        let lexical = match config.retriever {
            Retriever::Dense => None,
            Retriever::Bm25 | Retriever::Hybrid => {
                let hits = match &config.feedback {
                    Some(feedback) => feedback.search(bm25, &subquery.text, &cutoff, depth, exclude, scratch)?.0,
                    None => bm25.search(&subquery.text, &cutoff, depth, exclude, scratch)?,
                };
                Some(hits.into_iter().map(|h| (h.rank, f64::from(h.score))).collect::<Vec<_>>())
            }
        };
        let semantic = dense.map(|d| d[j].clone());
        lists.push(match (lexical, semantic) {
            (Some(l), Some(s)) => fuse_query(&[l, s], &plan_config.hybrid, depth),
            (Some(one), None) | (None, Some(one)) => one,
            (None, None) => return Err(Error::InvalidArgument { name: "retriever", message: "dense retrieval needs the dense lists".into() }),
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
