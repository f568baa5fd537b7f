//! The planners behind [`PlanSpec`](super::PlanSpec): claim-only, numeric, listed (from a file or a
//! caller), MMR-filtered, and [`planner_for`], which builds the one a spec names.

use std::collections::HashMap;
use std::sync::Arc;

use super::{mmr_filter, mmr_filter_dense, read_plan_file, Iterative, LlmIterative, LlmPlanner, Lookup, MmrConfig, MmrSimilarity, Origin, Plan, PlanSpec, Planner, SubQuery};
use super::numeric_subqueries;
use crate::corpus::Claim;
use crate::error::Result;
use crate::index::dense::Encoder;
use crate::llm::LlmConfig;

/// `claim-only`.
#[derive(Debug, Default, Clone, Copy)]
pub struct ClaimOnly;

impl Planner for ClaimOnly {
    fn plan(&self, claim: &Claim, _lookup: &dyn Lookup) -> Result<Plan> {
        Ok(Plan { id: claim.id.clone(), subqueries: vec![SubQuery::new(claim.text.clone(), Origin::Claim)], fell_back: false })
    }
}

/// `numeric`: the claim, then one sub-query per quantity ([`numeric_subqueries`]).
#[derive(Debug, Default, Clone, Copy)]
pub struct Numeric;

impl Planner for Numeric {
    fn plan(&self, claim: &Claim, _lookup: &dyn Lookup) -> Result<Plan> {
        let mut candidates = vec![SubQuery::new(claim.text.clone(), Origin::Claim)];
        candidates.extend(numeric_subqueries(&claim.text).into_iter().map(|text| SubQuery::new(text, Origin::Numeric)));
        Ok(Plan::from_candidates(claim, candidates))
    }
}

/// Sub-queries written before the run, by claim id: a decomposition file's (`file:…`, origin
/// [`Origin::File`]) or a caller's own planner's (a Python callable, [`Origin::Callable`]).
#[derive(Debug, Clone)]
pub struct Listed {
    /// Claim id → queries, in order.
    pub queries: HashMap<String, Vec<String>>,
    /// Where they came from.
    pub origin: Origin,
}

impl Planner for Listed {
    fn plan(&self, claim: &Claim, _lookup: &dyn Lookup) -> Result<Plan> {
        let candidates = self.queries.get(&claim.id).into_iter().flatten().map(|q| SubQuery::new(q.clone(), self.origin)).collect();
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
    fn plan(&self, claim: &Claim, lookup: &dyn Lookup) -> Result<Plan> {
        let mut plan = self.inner.plan(claim, lookup)?;
        let subqueries = std::mem::take(&mut plan.subqueries);
        plan.subqueries = match (self.mmr.similarity, self.encoder) {
            (MmrSimilarity::Lexical, _) => mmr_filter(&claim.text, subqueries, &self.mmr),
            (MmrSimilarity::Dense, Some(encoder)) => mmr_filter_dense(&claim.text, subqueries, &self.mmr, encoder)?,
            (MmrSimilarity::Dense, None) => {
                return Err(crate::Error::InvalidArgument { name: "mmr_similarity", message: "dense similarity needs the encoder (--dense DIR)".into() })
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
        PlanSpec::File { path, field } => Box::new(Listed { queries: read_plan_file(path, *field)?, origin: Origin::File }),
        PlanSpec::Llm(style) => {
            let config = llm.ok_or_else(|| crate::Error::InvalidArgument {
                name: "plan",
                message: "an llm: plan needs --llm-url and --llm-model (or QUANTIR_LLM_URL and QUANTIR_LLM_MODEL)".into(),
            })?;
            Box::new(LlmPlanner::new(config, *style)?)
        }
        PlanSpec::Iterative => Box::new(Iterative::default()),
        PlanSpec::LlmIterative => {
            let config = llm.ok_or_else(|| crate::Error::InvalidArgument {
                name: "plan",
                message: "llm:iterative needs --llm-url and --llm-model (or QUANTIR_LLM_URL and QUANTIR_LLM_MODEL)".into(),
            })?;
            Box::new(LlmIterative::new(config)?)
        }
    };
    with_mmr(inner, mmr, encoder)
}

/// `inner`, with MMR filtering after it when `mmr` is given (its parameters checked against their
/// ranges).
pub fn with_mmr(inner: Box<dyn Planner>, mmr: Option<MmrConfig>, encoder: Option<Arc<Encoder>>) -> Result<Box<dyn Planner>> {
    Ok(match mmr {
        Some(mmr) => {
            crate::ranges::MMR_BETA.check(mmr.beta)?;
            crate::ranges::MMR_THRESHOLD.check(mmr.threshold)?;
            Box::new(Owned { inner, mmr, encoder })
        }
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
    fn plan(&self, claim: &Claim, lookup: &dyn Lookup) -> Result<Plan> {
        Filtered { inner: self.inner.as_ref(), mmr: self.mmr, encoder: self.encoder.as_deref() }.plan(claim, lookup)
    }

    fn concurrency(&self) -> usize {
        self.inner.concurrency()
    }
}
