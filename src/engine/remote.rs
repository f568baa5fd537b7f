//! The OpenSearch backend: [`Backend`] over an index on a cluster ([`RemoteIndex`]). The same
//! planning, cutoffs and fusion as the embedded index, with every sub-query of every claim sent to
//! the cluster in `_msearch` batches. BM25 only: the cluster holds no vectors.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::{ClaimLookup, found_by, fuse_plan, list_depth, plan_all, validate, About, Backend, BackendKind, ClaimEvidence, Evidence, EvidenceHit, ExplainedHit, Explanation, Lists, RunConfig, RunOutput, RunRequest, RunSummary};
use crate::corpus::Claim;
use crate::error::{Error, Result};
use crate::index::dense::models::EncoderOptions;
use crate::index::dense::Encoder;
use crate::index::Bm25Params;
use crate::io::Progress;
use crate::opensearch::{RemoteHit, RemoteIndex, RemoteQuery};
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

    /// The cluster holds no vectors, so no model is known from it: only a named one (for dense
    /// MMR similarity).
    fn encoder(&self, options: &EncoderOptions, roots: &[PathBuf]) -> Result<Option<Encoder>> {
        match options.model {
            Some(_) => options.encoder(None, roots),
            None => Ok(None),
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
        let mut answers = self.search_batch(&queries(claims, &plans, request), false, progress)?.into_iter();
        let mut run = Run { queries: Vec::with_capacity(claims.len()) };
        let mut explanations = Vec::new();
        for (claim, plan) in claims.iter().zip(&plans) {
            let hits: Vec<Vec<RemoteHit>> = answers.by_ref().take(plan.subqueries.len()).collect();
            let mut lists = scored(&hits);
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
        Ok(RunOutput { source: Input::artifact(Role::Index, Path::new(&format!("opensearch:{}", self.cluster().config().index)), self.fingerprint()), lists: Lists::Named(run), summary: RunSummary::of(claims, &plans, config, started), explanations })
    }

    fn evidence(&self, claim: &Claim, request: &RunRequest<'_>) -> Result<ClaimEvidence> {
        let RunRequest { planner, config, plan: plan_config, .. } = *request;
        check(self, config)?;
        config.validate(plan_config)?;
        let plan = planner.plan(claim, &ClaimLookup { backend: self, claim, config })?;
        validate(&plan, config, plan_config)?;
        let cutoff = config.cutoff_for(claim);
        let answers = self.search_batch(&queries(std::slice::from_ref(claim), std::slice::from_ref(&plan), request), true, &crate::io::NoProgress)?;
        let lists = scored(&answers);
        let stored: std::collections::HashMap<&str, &serde_json::Value> = answers.iter().flatten().filter_map(|h| h.stored.as_ref().map(|s| (h.id.as_str(), s))).collect();
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

/// What the cluster cannot do: dense retrieval, feedback, BM25 parameters other than its own.
fn check(index: &RemoteIndex, config: &RunConfig) -> Result<()> {
    if config.retriever != Retriever::Bm25 {
        return Err(Error::InvalidArgument { name: "--retriever", message: "the OpenSearch backend retrieves with BM25 only (the cluster holds no vectors)".into() });
    }
    if config.feedback.is_some() {
        return Err(Error::InvalidArgument { name: "--rm3/--rocchio", message: "feedback reads the feedback documents' terms from the embedded index; the OpenSearch backend does not expand queries".into() });
    }
    index.check_bm25(config.bm25)
}

/// The cluster's answers to a claim's sub-queries as the lists [`fuse_plan`] fuses.
fn scored(answers: &[Vec<RemoteHit>]) -> Vec<Vec<(&str, f64)>> {
    answers.iter().map(|list| list.iter().map(|h| (h.id.as_str(), f64::from(h.score))).collect()).collect()
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
