//! Rank fusion: several ranked lists for one query (one per sub-query, or one per run) into one.
//!
//! In: lists of `(document, score)`, each sorted best first. Out: one list, sorted by fused score
//! descending, ties by document descending (the retrieve stage's rule).
//!
//! Fusion is two steps, as in ranx (`ranx/meta/fuse.py`): each list is normalised on its own
//! ([`Norm`], `norm.rs`), then the normalised scores are combined by a [`Method`], one file per
//! method with its formula. The conventions where the usual tools disagree are options with
//! documented defaults:
//! - **constant lists under min-max** (one result, or all scores equal): [`ConstantPolicy`] —
//!   `zero` as ranx (the default), `one` as Pyserini, `raw` (keep the raw scores) as the QuanTemp++
//!   reference code;
//! - **a document missing from a list** adds 0 to sums (CombSUM, CombMNZ, weighted sum) and is
//!   ignored by maxima (CombMAX): a missing document has no score, not a low one.
//!
//! Every method and normalisation equals ranx 0.3.21's `fuse` to 1e-9 per query (oracle test).

mod comb_max;
mod comb_max_norm;
mod comb_mnz;
mod comb_sum;
mod norm;
mod rrf;
mod wsum;

use std::hash::Hash;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

pub use norm::{normalize, ConstantPolicy, Norm};

use crate::error::{Error, Result};
use crate::trec::{RankedList, Run, ScoredDoc};

/// How normalised lists are combined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// CombSUM: the sum of a document's scores (Fox & Shaw 1993).
    #[value(name = "combsum")]
    #[serde(rename = "combsum")]
    CombSum,
    /// CombMAX: its best score.
    #[value(name = "combmax")]
    #[serde(rename = "combmax")]
    CombMax,
    /// CombMNZ: the sum times the number of lists that hold it.
    #[value(name = "combmnz")]
    #[serde(rename = "combmnz")]
    CombMnz,
    /// CombMAX over min-max normalised lists: QuanTemp++'s best fusion.
    #[value(name = "combmax-norm")]
    #[serde(rename = "combmax-norm")]
    CombMaxNorm,
    /// Reciprocal rank fusion, Σ 1 / (k + rank) (Cormack, Clarke & Büttcher 2009).
    Rrf,
    /// Weighted sum, one weight per list.
    Wsum,
}

/// RRF's k: 60, the constant of Cormack et al. (2009), which ranx and Pyserini use too.
pub const RRF_K: f64 = 60.0;

/// How lists are fused.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct FusionConfig {
    /// The combination.
    pub method: Method,
    /// The normalisation; `None` uses the method's default ([`FusionConfig::effective_norm`]).
    pub norm: Option<Norm>,
    /// Min-max on a constant list.
    pub constant: ConstantPolicy,
    /// RRF's k.
    pub rrf_k: f64,
    /// Weights of `wsum`, one per list; empty means 1 for every list.
    pub weights: Vec<f64>,
}

impl FusionConfig {
    /// CombMAX-Norm (QuanTemp++'s fusion of sub-queries), ranx's constant policy and RRF's k 60.
    pub const DEFAULT: FusionConfig = FusionConfig { method: Method::CombMaxNorm, norm: None, constant: ConstantPolicy::Zero, rrf_k: RRF_K, weights: Vec::new() };
}

impl Default for FusionConfig {
    fn default() -> Self {
        FusionConfig::DEFAULT
    }
}

impl FusionConfig {
    /// The normalisation applied: `combmax-norm` is always min-max, `rrf` only reads ranks (none),
    /// the others default to min-max (ranx's default).
    pub fn effective_norm(&self) -> Norm {
        match (self.method, self.norm) {
            (Method::CombMaxNorm, _) => Norm::MinMax,
            (Method::Rrf, _) => Norm::None,
            (_, Some(norm)) => norm,
            (_, None) => Norm::MinMax,
        }
    }

    /// Checks that the options fit together and with `lists` lists.
    pub fn validate(&self, lists: usize) -> Result<()> {
        let setting = |name: &str, found: String, expected: &str| Error::Setting { name: name.into(), found, expected: expected.into(), wrong_type: false };
        if let Some(norm) = self.norm.filter(|&n| self.method == Method::CombMaxNorm && n != Norm::MinMax) {
            let name = clap::ValueEnum::to_possible_value(&norm).map_or_else(String::new, |p| p.get_name().to_string());
            return Err(setting("norm", format!("{name:?}"), "min-max: combmax-norm is CombMAX over min-max normalised lists (combmax takes another normalisation)"));
        }
        if self.method == Method::Wsum && !self.weights.is_empty() && self.weights.len() != lists {
            return Err(setting("weights", format!("{} weights", self.weights.len()), &format!("one weight per list ({lists})")));
        }
        if let Some(w) = self.weights.iter().find(|w| !w.is_finite()) {
            return Err(setting("weights", w.to_string(), "finite numbers"));
        }
        if !(self.rrf_k.is_finite() && self.rrf_k >= 0.0) {
            return Err(Error::Range { name: "rrf_k", min: "0".into(), max: None, found: self.rrf_k.to_string() });
        }
        Ok(())
    }
}

/// Fuses one query's `lists` (each best first) and keeps the best `k`.
pub fn fuse_query<K: Copy + Eq + Hash + Ord>(lists: &[Vec<(K, f64)>], config: &FusionConfig, k: usize) -> Vec<(K, f64)> {
    let norm = config.effective_norm();
    let normalised: Vec<Vec<(K, f64)>> = lists.iter().map(|l| normalize(l, norm, config.constant)).collect();
    let fused: FxHashMap<K, f64> = match config.method {
        Method::CombSum => comb_sum::comb_sum(&normalised),
        Method::CombMax => comb_max::comb_max(&normalised),
        Method::CombMnz => comb_mnz::comb_mnz(&normalised),
        Method::CombMaxNorm => comb_max_norm::comb_max_norm(&normalised),
        Method::Rrf => rrf::rrf(&normalised, config.rrf_k),
        Method::Wsum => wsum::wsum(&normalised, &config.weights),
    };
    let mut out: Vec<(K, f64)> = fused.into_iter().collect();
    out.sort_unstable_by(|a, b| crate::trec::ranking(*a, *b));
    out.truncate(k);
    out
}

/// Fuses runs query by query (TREC run interop, `quantir fuse`). Every run must hold the same
/// queries, as ranx requires; the output follows the first run's query order.
pub fn fuse_runs(runs: &[Run], config: &FusionConfig, k: usize) -> Result<Run> {
    config.validate(runs.len())?;
    let Some(first) = runs.first() else { return Ok(Run::default()) };
    let maps: Vec<FxHashMap<&str, &RankedList>> = runs.iter().map(|r| r.queries.iter().map(|l| (l.qid.as_str(), l)).collect()).collect();
    for (i, map) in maps.iter().enumerate() {
        if let Some(q) = first.queries.iter().find(|l| !map.contains_key(l.qid.as_str())) {
            return Err(Error::InvalidArgument { name: "runs", message: format!("run {} has no results for query {} of the first run: runs must hold the same queries", i + 1, q.qid) });
        }
        if map.len() != first.queries.len() {
            return Err(Error::InvalidArgument { name: "runs", message: format!("run {} holds queries the first run does not: runs must hold the same queries", i + 1) });
        }
    }
    let queries = first
        .queries
        .par_iter()
        .map(|list| {
            let lists: Vec<Vec<(&str, f64)>> = maps.iter().map(|m| m[list.qid.as_str()].docs.iter().map(|d| (d.docid.as_str(), d.score)).collect()).collect();
            let fused = fuse_query(&lists, config, k);
            RankedList { qid: list.qid.clone(), docs: fused.into_iter().map(|(d, score)| ScoredDoc { docid: d.to_string(), score }).collect() }
        })
        .collect();
    Ok(Run { queries })
}
