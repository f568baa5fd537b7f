//! Argument groups shared by several subcommands.

use clap::Args;

use quantir::corpus::PubDate;
use quantir::fuse::{ConstantPolicy, FusionConfig, Method, Norm, RRF_K};
use quantir::index::Bm25Params;
use quantir::retrieve::UndatedPolicy;

/// `--k1` / `--b`.
#[derive(Debug, Args)]
pub struct Bm25Args {
    /// BM25 k1 (term-frequency saturation) [default: the index's, 0.9 when building]
    #[arg(long, value_name = "F")]
    pub k1: Option<f32>,
    /// BM25 b (length normalisation, 0..1) [default: the index's, 0.4 when building]
    #[arg(long, value_name = "F")]
    pub b: Option<f32>,
}

impl Bm25Args {
    /// Both values over `base`, or `None` when neither flag was given.
    pub fn over(&self, base: Bm25Params) -> Option<Bm25Params> {
        if self.k1.is_none() && self.b.is_none() {
            return None;
        }
        Some(Bm25Params { k1: self.k1.unwrap_or(base.k1), b: self.b.unwrap_or(base.b) })
    }
}

/// `--before` / `--undated`.
#[derive(Debug, Args)]
pub struct CutoffArgs {
    /// Only evidence published strictly before this date (YYYY-MM-DD; also YYYY-MM or YYYY)
    #[arg(long, value_name = "DATE", value_parser = parse_date)]
    pub before: Option<PubDate>,
    /// Undated documents under a cutoff: exclude (cannot be shown to predate the claim) or
    /// include (as the QuanTemp++ reference code does)
    #[arg(long, value_enum, default_value_t = UndatedPolicy::Exclude)]
    pub undated: UndatedPolicy,
}

fn parse_date(text: &str) -> Result<PubDate, String> {
    text.parse()
}

/// `--threads`.
#[derive(Debug, Args)]
pub struct ThreadsArgs {
    /// Worker threads (0 = one per core)
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub threads: usize,
}

/// `--norm`, `--constant`, `--rrf-k`, `--weights`: how ranked lists are fused.
#[derive(Debug, Args)]
pub struct FusionArgs {
    /// Per-list normalisation [default: min-max; combmax-norm is always min-max; rrf reads ranks only]
    #[arg(long, value_enum)]
    pub norm: Option<Norm>,
    /// What min-max gives a list of one result or equal scores: zero (ranx), one (Pyserini), raw
    /// (QuanTemp++ reference code)
    #[arg(long, value_enum, default_value_t = ConstantPolicy::Zero)]
    pub constant: ConstantPolicy,
    /// RRF's k
    #[arg(long, default_value_t = RRF_K)]
    pub rrf_k: f64,
    /// Weights of wsum, one per list, comma-separated [default: 1 each]
    #[arg(long, value_delimiter = ',', value_name = "W,W,...")]
    pub weights: Vec<f64>,
}

impl FusionArgs {
    /// The library configuration for `method`.
    pub fn config(&self, method: Method) -> FusionConfig {
        FusionConfig { method, norm: self.norm, constant: self.constant, rrf_k: self.rrf_k, weights: self.weights.clone() }
    }
}
