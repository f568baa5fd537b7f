//! Claims in, evidence out: each claim retrieves with its own date as the cutoff, in parallel.
//!
//! Shared by the CLI's `run` and `search` and, later, the server, so that every front end gets the
//! same results for the same claim.

use std::time::Instant;

use rayon::prelude::*;

use crate::corpus::{Claim, PubDate};
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
    /// Wall-clock seconds.
    pub seconds: f64,
}

impl RunConfig {
    /// The cutoff for one claim.
    pub fn cutoff_for(&self, claim: &Claim) -> Cutoff {
        Cutoff { before: claim.date.or(self.default_before), undated: self.undated }
    }
}

/// Runs every claim and returns the run, in claim order.
pub fn run_claims(index: &Index, claims: &[Claim], config: &RunConfig, progress: &dyn Progress) -> Result<(Run, RunSummary)> {
    if config.k == 0 {
        return Err(Error::InvalidArgument { name: "-k", message: "expected at least 1 document per claim".into() });
    }
    let bm25 = Bm25::new(index, config.bm25)?;
    let started = Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .build()
        .map_err(|e| Error::InvalidArgument { name: "--threads", message: e.to_string() })?;
    progress.start("claims", Some(claims.len() as u64));
    let lists: Result<Vec<RankedList>> = pool.install(|| {
        claims
            .par_iter()
            .map_init(Scratch::default, |scratch, claim| {
                let exclude = if config.remove_query { index.rank_of(&claim.id) } else { None };
                let hits = bm25.search(&claim.text, &config.cutoff_for(claim), config.k, exclude, scratch)?;
                progress.advance(1);
                Ok(RankedList {
                    qid: claim.id.clone(),
                    docs: hits.iter().map(|h| ScoredDoc { docid: index.id(h.rank).to_string(), score: f64::from(h.score) }).collect(),
                })
            })
            .collect()
    });
    progress.finish();
    let summary = RunSummary {
        claims: claims.len(),
        with_cutoff: claims.iter().filter(|c| config.cutoff_for(c).before.is_some()).count(),
        seconds: started.elapsed().as_secs_f64(),
    };
    Ok((Run { queries: lists? }, summary))
}

/// One search result with its stored fields, for people reading evidence.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Evidence {
    /// Document id.
    pub id: String,
    /// BM25 score.
    pub score: f32,
    /// Publication date as normalised at index time, if any.
    pub date: Option<String>,
    /// Title.
    pub title: String,
    /// Text.
    pub text: String,
    /// Source address.
    pub url: Option<String>,
}

/// Searches one query and reads the hits' stored fields.
pub fn search(index: &Index, query: &str, cutoff: &Cutoff, k: usize, bm25: Option<Bm25Params>) -> Result<Vec<Evidence>> {
    let searcher = Bm25::new(index, bm25)?;
    let hits = searcher.search(query, cutoff, k, None, &mut Scratch::default())?;
    hits.iter()
        .map(|hit| {
            let StoredDocument { id, title, text, url, date } = index.stored(hit.segment, hit.doc)?;
            Ok(Evidence { id, score: hit.score, date, title, text, url })
        })
        .collect()
}
