//! The OpenSearch backend: [`Backend`] over an index on a cluster ([`RemoteIndex`]). The same
//! planning, cutoffs and fusion as the embedded index, with every sub-query of every claim sent to
//! the cluster in `_msearch` batches: BM25, and dense or hybrid where the index was loaded with
//! vectors (quantir encodes the queries and fuses a hybrid's two lists; the cluster searches).

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::{encode_subqueries, ClaimLookup, found_by, fuse_plan, list_depth, plan_all, validate, About, Backend, BackendKind, ClaimEvidence, Evidence, EvidenceHit, ExplainedHit, Explanation, Lists, RunConfig, RunOutput, RunRequest, RunSummary};
use crate::corpus::Claim;
use crate::error::{Error, Result};
use crate::index::dense::models::EncoderOptions;
use crate::index::dense::Encoder;
use crate::index::Bm25Params;
use crate::io::Progress;
use crate::fuse::fuse_query;
use crate::opensearch::{RemoteHit, RemoteIndex, RemoteQuery, RemoteVectorQuery};
use crate::plan::Plan;
use crate::provenance::{Input, Role};
use crate::retrieve::{Cutoff, Retriever};
use crate::trec::{RankedList, Run, ScoredDoc};

impl Backend for RemoteIndex {
    fn about(&self) -> About {
        About { kind: BackendKind::OpenSearch, name: self.cluster().config().index.clone(), documents: self.documents() as u64, analyzer_version: crate::analysis::ANALYZER_VERSION, generation: None }
    }

    fn default_bm25(&self) -> Bm25Params {
        self.bm25()
    }

    /// The encoder the index's vectors were made with (or the named model, checked against it);
    /// for an index without vectors, only a named model (for dense MMR similarity).
    fn encoder(&self, options: &EncoderOptions, roots: &[PathBuf]) -> Result<Option<Encoder>> {
        match (self.dense(), &options.model) {
            (Some(dense), _) => options.vectors_encoder(dense, &location(self), roots).map(Some),
            (None, Some(_)) => options.encoder(None, roots),
            (None, None) => Ok(None),
        }
    }

    fn search(&self, query: &str, cutoff: &Cutoff, k: usize, bm25: Option<Bm25Params>) -> Result<Vec<Evidence>> {
        crate::ranges::K.check(k as u64)?;
        self.check_bm25(bm25)?;
        let query = RemoteQuery { text: query, cutoff: *cutoff, k, exclude: None };
        let hits = self.search_batch(&[query], true, &crate::io::NoProgress)?.pop().unwrap_or_default();
        let evidence: Vec<Evidence> = hits.into_iter().map(|hit| remote_evidence(hit.id, f64::from(hit.score), hit.stored.as_ref())).collect();
        for e in &evidence {
            cutoff.check_stored(Path::new(&self.cluster().config().index), &e.id, e.date.as_deref())?;
        }
        Ok(evidence)
    }

    fn run(&self, claims: &[Claim], request: &RunRequest<'_>, progress: &dyn Progress) -> Result<RunOutput<'_>> {
        let RunRequest { planner, config, plan: plan_config, explain, .. } = *request;
        check(self, config)?;
        config.validate(plan_config)?;
        let started = Instant::now();
        let plans = plan_all(claims, planner, self, config, plan_config, progress)?;
        let answers = self.answers(claims, &plans, request, false, progress)?;
        let mut lists_by_claim = answers.lists(&plans, config, plan_config).into_iter();
        let mut run = Run { queries: Vec::with_capacity(claims.len()) };
        let mut explanations = Vec::new();
        for (claim, plan) in claims.iter().zip(&plans) {
            let mut lists = lists_by_claim.next().expect("a claim's lists");
            let fused = fuse_plan(if explain { lists.clone() } else { std::mem::take(&mut lists) }, config.k, plan_config);
            if explain {
                explanations.push(Explanation {
                    id: claim.id.clone(),
                    subqueries: plan.subqueries.clone(),
                    fell_back: plan.fell_back,
                    hits: fused.iter().map(|&(id, score)| ExplainedHit { id: id.to_string(), score, from_subqueries: found_by(&lists, id) }).collect(),
                });
            }
            run.queries.push(RankedList { qid: claim.id.clone(), docs: fused.into_iter().map(|(id, score)| ScoredDoc { docid: id.to_string(), score }).collect() });
        }
        Ok(RunOutput { source: Input::artifact(Role::Index, &location(self), self.fingerprint()), lists: Lists::Named(run), summary: RunSummary::of(claims, &plans, config, started), explanations })
    }

    fn evidence(&self, claim: &Claim, request: &RunRequest<'_>) -> Result<ClaimEvidence> {
        let RunRequest { planner, config, plan: plan_config, .. } = *request;
        check(self, config)?;
        config.validate(plan_config)?;
        let plan = planner.plan(claim, &ClaimLookup { backend: self, claim, config })?;
        validate(&plan, config, plan_config)?;
        let cutoff = config.cutoff_for(claim);
        let plans = std::slice::from_ref(&plan);
        let answers = self.answers(std::slice::from_ref(claim), plans, request, true, &crate::io::NoProgress)?;
        let lists = answers.lists(plans, config, plan_config).pop().expect("the claim's lists");
        let stored: std::collections::HashMap<&str, &serde_json::Value> = answers.lexical.iter().chain(&answers.dense).flatten().filter_map(|h| h.stored.as_ref().map(|s| (h.id.as_str(), s))).collect();
        let fused = fuse_plan(lists.clone(), config.k, plan_config);
        let hits = fused
            .iter()
            .map(|&(id, score)| {
                let evidence = remote_evidence(id.to_string(), score, stored.get(id).copied());
                cutoff.check_stored(Path::new(&self.cluster().config().index), id, evidence.date.as_deref())?;
                Ok(EvidenceHit { evidence, from_subqueries: found_by(&lists, id) })
            })
            .collect::<Result<_>>()?;
        Ok(ClaimEvidence { plan, hits, generation: None })
    }
}

/// Where a remote index is, as errors and provenance name it.
fn location(index: &RemoteIndex) -> PathBuf {
    PathBuf::from(format!("opensearch:{}", index.cluster().config().index))
}

/// The cluster's answers to every sub-query of a batch of claims, in order: BM25's unless the
/// retriever is dense, the vectors' unless it is BM25.
struct Answers {
    lexical: Vec<Vec<RemoteHit>>,
    dense: Vec<Vec<RemoteHit>>,
}

impl RemoteIndex {
    /// Sends every sub-query of `plans` (each with its claim's cutoff and list depth) to the
    /// retriever's searches: BM25 through [`RemoteIndex::search_batch`], dense through
    /// [`RemoteIndex::search_vectors`] with every sub-query encoded in one call.
    fn answers(&self, claims: &[Claim], plans: &[Plan], request: &RunRequest<'_>, stored: bool, progress: &dyn Progress) -> Result<Answers> {
        let RunRequest { config, plan: plan_config, encoder, .. } = *request;
        let lexical = match config.retriever {
            Retriever::Dense => Vec::new(),
            Retriever::Bm25 | Retriever::Hybrid => self.search_batch(&queries(claims, plans, request), stored, progress)?,
        };
        let dense = match config.retriever {
            Retriever::Bm25 => Vec::new(),
            Retriever::Dense | Retriever::Hybrid => {
                // An index without vectors first: no encoder would help it.
                let dense = self.vectors()?;
                let encoder = encoder.ok_or_else(|| Error::InvalidArgument { name: "retriever", message: "dense and hybrid retrieval need the encoder's model folder (--dense DIR)".into() })?;
                dense.check_settings(&location(self), encoder.config())?;
                let vectors = encode_subqueries(encoder, plans, dense.dim, progress)?;
                let mut rows = vectors.chunks_exact(dense.dim.max(1));
                let mut queries = Vec::with_capacity(vectors.len() / dense.dim.max(1));
                for (claim, plan) in claims.iter().zip(plans) {
                    let (cutoff, exclude, k) = (config.cutoff_for(claim), config.remove_query.then_some(claim.id.as_str()), list_depth(plan, config, plan_config));
                    for _ in &plan.subqueries {
                        queries.push(RemoteVectorQuery { vector: rows.next().expect("a vector a sub-query"), cutoff, k, exclude });
                    }
                }
                self.search_vectors(&queries, config.ann, config.ef, stored, progress)?
            }
        };
        Ok(Answers { lexical, dense })
    }
}

impl Answers {
    /// Each claim's lists, one a sub-query: BM25's, dense's, or (hybrid) both fused by the
    /// request's hybrid fusion, as the embedded backend fuses them.
    fn lists(&self, plans: &[Plan], config: &RunConfig, plan_config: &super::PlanRunConfig) -> Vec<Vec<Vec<(&str, f64)>>> {
        let (mut lexical, mut dense) = (self.lexical.iter(), self.dense.iter());
        plans
            .iter()
            .map(|plan| {
                let depth = list_depth(plan, config, plan_config);
                plan.subqueries
                    .iter()
                    .map(|_| match (lexical.next(), dense.next()) {
                        (Some(l), Some(d)) => fuse_query(&[scored(l), scored(d)], &plan_config.hybrid, depth),
                        (Some(one), None) | (None, Some(one)) => scored(one),
                        (None, None) => Vec::new(),
                    })
                    .collect()
            })
            .collect()
    }
}

/// What the cluster cannot do: feedback, BM25 parameters other than its own; dense retrieval on
/// an index loaded without vectors.
fn check(index: &RemoteIndex, config: &RunConfig) -> Result<()> {
    if config.retriever != Retriever::Bm25 {
        index.vectors()?;
    }
    if config.feedback.is_some() {
        return Err(Error::InvalidArgument { name: "feedback", message: "feedback reads the feedback documents' terms from the embedded index; the OpenSearch backend does not expand queries".into() });
    }
    index.check_bm25(config.bm25)
}

/// The cluster's answer to a sub-query as a list [`fuse_plan`] fuses.
fn scored(hits: &[RemoteHit]) -> Vec<(&str, f64)> {
    hits.iter().map(|h| (h.id.as_str(), f64::from(h.score))).collect()
}

/// Every sub-query of every claim, each with its claim's cutoff and list depth.
fn queries<'a>(claims: &'a [Claim], plans: &'a [Plan], request: &RunRequest<'_>) -> Vec<RemoteQuery<'a>> {
    let RunRequest { config, plan: plan_config, .. } = *request;
    let mut queries = Vec::with_capacity(plans.iter().map(|p| p.subqueries.len()).sum());
    for (claim, plan) in claims.iter().zip(plans) {
        let cutoff = config.cutoff_for(claim);
        let exclude = config.remove_query.then_some(claim.id.as_str());
        let k = list_depth(plan, config, plan_config);
        queries.extend(plan.subqueries.iter().map(|q| RemoteQuery { text: &q.text, cutoff, k, exclude }));
    }
    queries
}

/// A cluster hit's stored fields as [`Evidence`].
fn remote_evidence(id: String, score: f64, stored: Option<&serde_json::Value>) -> Evidence {
    let text = |field: &str| stored.and_then(|s| s[field].as_str()).map(str::to_string);
    Evidence { date: text("date"), title: text("title").unwrap_or_default(), text: text("text").unwrap_or_default(), url: text("url"), id, score }
}
