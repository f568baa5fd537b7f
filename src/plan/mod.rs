//! Planning: a claim into the sub-queries that retrieve its evidence.
//!
//! In: a [`Claim`]. Out: a [`Plan`], the claim's sub-queries, each tagged with where it came from.
//! The planners ([`PlanSpec`]):
//! - `claim-only`: the claim itself;
//! - `file:PATH[:FIELD]`: decompositions published by others, read by `files.rs` (QuanTemp++
//!   claims JSON, the QuanTemp ClaimDecomp CSV, the QGen output CSV, quantir JSONL);
//! - `numeric`: quantir's offline numeric-aspect decomposer (`numeric.rs`), no model needed;
//! - `llm:fcdecomp|claimdecomp|pgmfc`: an OpenAI-compatible chat API (`llm.rs`), cached on disk.
//!
//! Invariants: sub-queries of a plan are distinct (compared case- and space-insensitively);
//! sub-queries that mention fact-checking are dropped ([`mentions_fact_checking`]); a plan is
//! never empty — a claim a planner has nothing for falls back to the claim itself, and
//! [`Plan::fell_back`] says so. [`mmr::mmr_filter`] optionally keeps the sub-queries relevant to
//! the claim and not redundant with each other.

mod files;
mod llm;
mod mmr;
mod numeric;

use std::collections::HashMap;
use std::path::PathBuf;
use std::str::FromStr;

pub use files::{read_plan_file, FileField};
pub use llm::{ChatClient, LlmConfig, LlmPlanner, LlmStats, LlmStyle};
pub use mmr::{lexical_similarity, mentions_fact_checking, mmr_filter, mmr_filter_dense, MmrConfig, MmrSimilarity};
pub use numeric::numeric_subqueries;

use std::sync::Arc;

use crate::corpus::Claim;
use crate::error::Result;
use crate::index::dense::Encoder;

/// Where a sub-query came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// The claim itself.
    Claim,
    /// A precomputed decomposition file.
    File,
    /// The numeric-aspect decomposer.
    Numeric,
    /// The LLM planner.
    Llm,
}

/// One sub-query.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SubQuery {
    /// The query text.
    pub text: String,
    /// Its source.
    pub origin: Origin,
}

/// A claim's sub-queries.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Plan {
    /// The claim's id.
    pub id: String,
    /// The sub-queries, in the planner's order, distinct.
    pub subqueries: Vec<SubQuery>,
    /// Whether the planner had nothing usable and the claim itself was used.
    pub fell_back: bool,
}

impl Plan {
    /// A plan from candidate sub-queries: drops fact-checking mentions and repeats, and falls
    /// back to the claim when nothing is left.
    pub fn from_candidates(claim: &Claim, candidates: Vec<SubQuery>) -> Plan {
        let mut seen = std::collections::HashSet::new();
        let subqueries: Vec<SubQuery> = candidates
            .into_iter()
            .filter(|q| !q.text.trim().is_empty() && !mentions_fact_checking(&q.text))
            .filter(|q| seen.insert(q.text.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase()))
            .collect();
        if subqueries.is_empty() {
            Plan { id: claim.id.clone(), subqueries: vec![SubQuery { text: claim.text.clone(), origin: Origin::Claim }], fell_back: true }
        } else {
            Plan { id: claim.id.clone(), subqueries, fell_back: false }
        }
    }

    /// The sub-query texts.
    pub fn texts(&self) -> Vec<&str> {
        self.subqueries.iter().map(|q| q.text.as_str()).collect()
    }
}

/// Which planner, as written on the command line (`--plan`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanSpec {
    /// The claim itself.
    ClaimOnly,
    /// The numeric-aspect decomposer (plus the claim).
    Numeric,
    /// A decomposition file, with the field to read from a QuanTemp++ claims JSON.
    File {
        /// The file.
        path: PathBuf,
        /// For QuanTemp++ claims JSON: which decomposition.
        field: Option<FileField>,
    },
    /// An LLM through an OpenAI-compatible API.
    Llm(LlmStyle),
}

impl FromStr for PlanSpec {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        let expected = || format!("expected claim-only, numeric, file:PATH[:claimdecomp|pgmfc|fcdecomp] or llm:fcdecomp|claimdecomp|pgmfc; found {s:?}");
        match s {
            "claim-only" | "claim" => return Ok(PlanSpec::ClaimOnly),
            "numeric" => return Ok(PlanSpec::Numeric),
            _ => {}
        }
        if let Some(rest) = s.strip_prefix("file:") {
            let (path, field) = match rest.rsplit_once(':') {
                Some((path, field)) if FileField::from_str(field).is_ok() => (path, Some(FileField::from_str(field).expect("checked"))),
                _ => (rest, None),
            };
            return if path.is_empty() { Err(expected()) } else { Ok(PlanSpec::File { path: PathBuf::from(path), field }) };
        }
        if let Some(style) = s.strip_prefix("llm:") {
            return style.parse().map(PlanSpec::Llm).map_err(|_| expected());
        }
        Err(expected())
    }
}

/// Something that plans claims. Implementations are shared across threads.
pub trait Planner: Sync {
    /// The plan for `claim`.
    fn plan(&self, claim: &Claim) -> Result<Plan>;

    /// How many claims may be planned at once (the LLM planner's concurrency limit).
    fn concurrency(&self) -> usize {
        0
    }
}

/// `claim-only`.
#[derive(Debug, Default, Clone, Copy)]
pub struct ClaimOnly;

impl Planner for ClaimOnly {
    fn plan(&self, claim: &Claim) -> Result<Plan> {
        Ok(Plan { id: claim.id.clone(), subqueries: vec![SubQuery { text: claim.text.clone(), origin: Origin::Claim }], fell_back: false })
    }
}

/// `numeric`: the claim, then one sub-query per quantity ([`numeric_subqueries`]).
#[derive(Debug, Default, Clone, Copy)]
pub struct Numeric;

impl Planner for Numeric {
    fn plan(&self, claim: &Claim) -> Result<Plan> {
        let mut candidates = vec![SubQuery { text: claim.text.clone(), origin: Origin::Claim }];
        candidates.extend(numeric_subqueries(&claim.text).into_iter().map(|text| SubQuery { text, origin: Origin::Numeric }));
        Ok(Plan::from_candidates(claim, candidates))
    }
}

/// `file:…`: the queries a decomposition file holds for each claim id.
#[derive(Debug, Clone, Default)]
pub struct FromFile {
    /// Claim id → queries.
    pub queries: HashMap<String, Vec<String>>,
}

impl Planner for FromFile {
    fn plan(&self, claim: &Claim) -> Result<Plan> {
        let candidates = self.queries.get(&claim.id).into_iter().flatten().map(|q| SubQuery { text: q.clone(), origin: Origin::File }).collect();
        Ok(Plan::from_candidates(claim, candidates))
    }
}

/// A planner with MMR filtering after it.
pub struct Filtered<'a> {
    /// The planner.
    pub inner: &'a dyn Planner,
    /// The filter's settings.
    pub mmr: MmrConfig,
    /// The encoder, for dense similarity.
    pub encoder: Option<&'a Encoder>,
}

impl Planner for Filtered<'_> {
    fn plan(&self, claim: &Claim) -> Result<Plan> {
        let mut plan = self.inner.plan(claim)?;
        let subqueries = std::mem::take(&mut plan.subqueries);
        plan.subqueries = match (self.mmr.similarity, self.encoder) {
            (MmrSimilarity::Lexical, _) => mmr_filter(&claim.text, subqueries, &self.mmr),
            (MmrSimilarity::Dense, Some(encoder)) => mmr_filter_dense(&claim.text, subqueries, &self.mmr, encoder)?,
            (MmrSimilarity::Dense, None) => {
                return Err(crate::Error::InvalidArgument { name: "--mmr-similarity", message: "dense similarity needs the encoder (--dense DIR)".into() })
            }
        };
        Ok(plan)
    }

    fn concurrency(&self) -> usize {
        self.inner.concurrency()
    }
}

/// The planner a [`PlanSpec`] names, with MMR filtering after it when `mmr` is given. `llm`
/// holds the connection settings the `llm:` planners need (its `style` is taken from the spec);
/// `encoder` serves dense MMR similarity.
pub fn planner_for(spec: &PlanSpec, mmr: Option<MmrConfig>, llm: Option<LlmConfig>, encoder: Option<Arc<Encoder>>) -> Result<Box<dyn Planner>> {
    let inner: Box<dyn Planner> = match spec {
        PlanSpec::ClaimOnly => Box::new(ClaimOnly),
        PlanSpec::Numeric => Box::new(Numeric),
        PlanSpec::File { path, field } => Box::new(FromFile { queries: read_plan_file(path, *field)? }),
        PlanSpec::Llm(style) => {
            let config = llm.ok_or_else(|| crate::Error::InvalidArgument {
                name: "--plan",
                message: "an llm: plan needs --llm-url and --llm-model (or QUANTIR_LLM_URL and QUANTIR_LLM_MODEL)".into(),
            })?;
            Box::new(LlmPlanner::new(LlmConfig { style: *style, ..config })?)
        }
    };
    Ok(match mmr {
        Some(mmr) => Box::new(Owned { inner, mmr, encoder }),
        None => inner,
    })
}

/// [`Filtered`] owning its planner.
struct Owned {
    inner: Box<dyn Planner>,
    mmr: MmrConfig,
    encoder: Option<Arc<Encoder>>,
}

impl Planner for Owned {
    fn plan(&self, claim: &Claim) -> Result<Plan> {
        Filtered { inner: self.inner.as_ref(), mmr: self.mmr, encoder: self.encoder.as_deref() }.plan(claim)
    }

    fn concurrency(&self) -> usize {
        self.inner.concurrency()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_specs_parse() {
        assert_eq!("claim-only".parse::<PlanSpec>().unwrap(), PlanSpec::ClaimOnly);
        assert_eq!("file:a/test.json:pgmfc".parse::<PlanSpec>().unwrap(), PlanSpec::File { path: "a/test.json".into(), field: Some(FileField::PgmFc) });
        assert_eq!("file:q.jsonl".parse::<PlanSpec>().unwrap(), PlanSpec::File { path: "q.jsonl".into(), field: None });
        assert_eq!("llm:claimdecomp".parse::<PlanSpec>().unwrap(), PlanSpec::Llm(LlmStyle::ClaimDecomp));
        assert!("llm:other".parse::<PlanSpec>().unwrap_err().contains("expected claim-only, numeric"));
        assert!("bm25".parse::<PlanSpec>().is_err());
    }

    #[test]
    fn plans_drop_repeats_and_fact_checks_and_fall_back() {
        let claim = Claim { id: "c".into(), text: "Inflation is 3%".into(), date: None };
        let q = |t: &str| SubQuery { text: t.into(), origin: Origin::File };
        let plan = Plan::from_candidates(&claim, vec![q("inflation rate 2023"), q("Inflation  rate 2023"), q("Was this fact-checked by PolitiFact?")]);
        assert_eq!(plan.texts(), ["inflation rate 2023"]);
        let empty = Plan::from_candidates(&claim, vec![q("  ")]);
        assert!(empty.fell_back);
        assert_eq!(empty.texts(), ["Inflation is 3%"]);
    }
}
