//! Planning: a claim into the sub-queries that retrieve its evidence.
//!
//! In: a [`Claim`]. Out: a [`Plan`], the claim's sub-queries, each tagged with where it came from.
//! The planners ([`PlanSpec`]):
//! - `claim-only`: the claim itself;
//! - `file:PATH[:FIELD]`: decompositions published by others, read by `files.rs` (QuanTemp++
//!   claims JSON, the QuanTemp ClaimDecomp CSV, the QGen output CSV, quantir JSONL);
//! - `numeric`: quantir's offline numeric-aspect decomposer (`numeric.rs`), no model needed;
//! - `llm:fcdecomp|claimdecomp|pgmfc`: an OpenAI-compatible chat API (`llm.rs`), cached on disk;
//! - `iterative` and `llm:iterative`: planners that read evidence (`iterative.rs`): the claim
//!   first, then, for a fixed number of rounds, sub-queries written from what the previous
//!   round's queries found — every search under the claim's own cutoff ([`Lookup`]).
//!
//! Invariants: sub-queries of a plan are distinct (compared case- and space-insensitively);
//! sub-queries that mention fact-checking are dropped ([`mentions_fact_checking`]); a plan is
//! never empty — a claim a planner has nothing for falls back to the claim itself, and
//! [`Plan::fell_back`] says so. [`mmr::mmr_filter`] optionally keeps the sub-queries relevant to
//! the claim and not redundant with each other.

mod files;
mod iterative;
mod llm;
mod mmr;
mod numeric;
mod planners;

use std::path::PathBuf;
use std::str::FromStr;

pub use files::read_plan_file;
pub use iterative::{best_sentence, Iterative, LlmIterative, DEFAULT_ROUNDS};
pub use llm::{LlmPlanner, MAX_QUERIES};
pub use mmr::{lexical_similarity, mentions_fact_checking, mmr_filter, mmr_filter_dense, MmrConfig, MmrSimilarity};
pub use numeric::{numeric_subqueries, MAX_SUBQUERIES, MAX_TIMES};
pub use planners::{planner_for, with_mmr, ClaimOnly, Filtered, Listed, Numeric};

use crate::corpus::Claim;
use crate::error::Result;

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
    /// A caller's own planner (a Python callable, `Index.run(claims, plan=callable)`).
    Callable,
    /// The iterative planner: the claim joined with a sentence of evidence an earlier round found.
    Evidence,
}

/// One sub-query.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SubQuery {
    /// The query text.
    pub text: String,
    /// Its source.
    pub origin: Origin,
    /// The planning round that asked it: 1 for every planner that reads no evidence; an
    /// iterative planner's later rounds are written from what the rounds before found.
    #[serde(default = "first_round", skip_serializing_if = "is_first_round")]
    pub round: u32,
}

impl SubQuery {
    /// A first-round sub-query.
    pub fn new(text: impl Into<String>, origin: Origin) -> SubQuery {
        SubQuery { text: text.into(), origin, round: 1 }
    }
}

fn first_round() -> u32 {
    1
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_first_round(round: &u32) -> bool {
    *round == 1
}

/// A passage a planner read ([`Lookup::search`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Passage {
    /// The document's id.
    pub id: String,
    /// Its title (empty when the collection has none).
    pub title: String,
    /// Its text.
    pub text: String,
}

/// What a planner may read while it plans one claim: the collection searched under *that claim's*
/// cutoff (and without the claim's own id under `--remove-query`), so evidence a claim may not see
/// never shapes its sub-queries. The engine makes one per claim.
pub trait Lookup: Sync {
    /// The top `k` passages for `query`, best first.
    fn search(&self, query: &str, k: usize) -> Result<Vec<Passage>>;
}

/// The lookup of a planner run without an index (`quantir plan`): planners that read evidence
/// are refused with a hint.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoLookup;

impl Lookup for NoLookup {
    fn search(&self, _query: &str, _k: usize) -> Result<Vec<Passage>> {
        Err(crate::Error::InvalidArgument {
            name: "plan",
            message: "this planner reads evidence as it plans, so it needs an index: use it with `quantir run --index DIR` (or `serve`, or Python's Index.run)".into(),
        })
    }
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
            Plan { id: claim.id.clone(), subqueries: vec![SubQuery::new(claim.text.clone(), Origin::Claim)], fell_back: true }
        } else {
            Plan { id: claim.id.clone(), subqueries, fell_back: false }
        }
    }

    /// The sub-query texts.
    pub fn texts(&self) -> Vec<&str> {
        self.subqueries.iter().map(|q| q.text.as_str()).collect()
    }
}

/// The three published decompositions of a claim, by the method that names them: the field of a
/// QuanTemp++ claims file a `file:` plan reads ([`read_plan_file`]) and the style an `llm:` plan
/// asks for ([`LlmPlanner`]). One set of names for both (`fcdecomp`, `claimdecomp`, `pgmfc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decomposition {
    /// FCDecomp: search queries, one per numeric or temporal aspect; in a claims file, the keys
    /// of `in_file` (the fact-checker's own queries, the oracle).
    FcDecomp,
    /// ClaimDecomp: yes/no sub-questions; in a claims file, `decomp_questions`.
    ClaimDecomp,
    /// PgmFC: a program of simple questions, one per step; in a claims file, `pgmfc_questions`.
    PgmFc,
}

impl FromStr for Decomposition {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        match s {
            "fcdecomp" => Ok(Decomposition::FcDecomp),
            "claimdecomp" => Ok(Decomposition::ClaimDecomp),
            "pgmfc" => Ok(Decomposition::PgmFc),
            _ => Err(format!("expected fcdecomp, claimdecomp or pgmfc, found {s:?}")),
        }
    }
}

impl std::fmt::Display for Decomposition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Decomposition::FcDecomp => "fcdecomp",
            Decomposition::ClaimDecomp => "claimdecomp",
            Decomposition::PgmFc => "pgmfc",
        })
    }
}

/// Which planner, as written on the command line (`--plan`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
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
        field: Option<Decomposition>,
    },
    /// An LLM through an OpenAI-compatible API.
    Llm(Decomposition),
    /// The claim, then sub-queries from the evidence each round found ([`Iterative`]).
    Iterative,
    /// The claim, then an LLM's follow-up queries written from the evidence found so far
    /// ([`LlmIterative`]).
    LlmIterative,
}

impl FromStr for PlanSpec {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, Self::Err> {
        let expected = || format!("expected claim-only, numeric, iterative, file:PATH[:claimdecomp|pgmfc|fcdecomp] or llm:fcdecomp|claimdecomp|pgmfc|iterative; found {s:?}");
        match s {
            "claim-only" | "claim" => return Ok(PlanSpec::ClaimOnly),
            "numeric" => return Ok(PlanSpec::Numeric),
            "iterative" => return Ok(PlanSpec::Iterative),
            "llm:iterative" => return Ok(PlanSpec::LlmIterative),
            _ => {}
        }
        if let Some(rest) = s.strip_prefix("file:") {
            let (path, field) = match rest.rsplit_once(':') {
                Some((path, field)) if Decomposition::from_str(field).is_ok() => (path, Some(Decomposition::from_str(field).expect("checked"))),
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

impl std::fmt::Display for PlanSpec {
    /// As written on the command line: what [`FromStr`] reads back.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PlanSpec::ClaimOnly => f.write_str("claim-only"),
            PlanSpec::Numeric => f.write_str("numeric"),
            PlanSpec::Iterative => f.write_str("iterative"),
            PlanSpec::LlmIterative => f.write_str("llm:iterative"),
            PlanSpec::Llm(style) => write!(f, "llm:{style}"),
            PlanSpec::File { path, field: None } => write!(f, "file:{}", path.display()),
            PlanSpec::File { path, field: Some(field) } => write!(f, "file:{}:{field}", path.display()),
        }
    }
}

/// Something that plans claims. Implementations are shared across threads.
pub trait Planner: Sync {
    /// The plan for `claim`; `lookup` searches the collection under the claim's cutoff, for the
    /// planners that read evidence (the others ignore it).
    fn plan(&self, claim: &Claim, lookup: &dyn Lookup) -> Result<Plan>;

    /// How many claims may be planned at once (the LLM planner's concurrency limit).
    fn concurrency(&self) -> usize {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_specs_parse() {
        assert_eq!("claim-only".parse::<PlanSpec>().unwrap(), PlanSpec::ClaimOnly);
        assert_eq!("file:a/test.json:pgmfc".parse::<PlanSpec>().unwrap(), PlanSpec::File { path: "a/test.json".into(), field: Some(Decomposition::PgmFc) });
        assert_eq!("file:q.jsonl".parse::<PlanSpec>().unwrap(), PlanSpec::File { path: "q.jsonl".into(), field: None });
        assert_eq!("llm:claimdecomp".parse::<PlanSpec>().unwrap(), PlanSpec::Llm(Decomposition::ClaimDecomp));
        assert!("llm:other".parse::<PlanSpec>().unwrap_err().contains("expected claim-only, numeric"));
        assert_eq!("iterative".parse::<PlanSpec>().unwrap(), PlanSpec::Iterative);
        assert_eq!("llm:iterative".parse::<PlanSpec>().unwrap(), PlanSpec::LlmIterative);
        assert!("bm25".parse::<PlanSpec>().is_err());
        for text in ["claim-only", "numeric", "iterative", "llm:iterative", "llm:pgmfc", "file:a/b.json", "file:a/test.json:fcdecomp"] {
            assert_eq!(text.parse::<PlanSpec>().unwrap().to_string(), text);
        }
    }

    #[test]
    fn plans_drop_repeats_and_fact_checks_and_fall_back() {
        let claim = Claim { id: "c".into(), text: "Inflation is 3%".into(), date: None };
        let q = |t: &str| SubQuery::new(t, Origin::File);
        let plan = Plan::from_candidates(&claim, vec![q("inflation rate 2023"), q("Inflation  rate 2023"), q("Was this fact-checked by PolitiFact?")]);
        assert_eq!(plan.texts(), ["inflation rate 2023"]);
        let empty = Plan::from_candidates(&claim, vec![q("  ")]);
        assert!(empty.fell_back);
        assert_eq!(empty.texts(), ["Inflation is 3%"]);
    }
}
