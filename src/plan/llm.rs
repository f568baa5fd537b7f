//! The LLM planner: sub-queries asked of a chat model through [`ChatClient`] (timeouts, retries,
//! cache: [`crate::llm`]).
//!
//! - **Prompts** are quantir's own (one per [`Decomposition`]): at most 10 short search queries that
//!   cover the claim's numeric and temporal aspects, never a question about fact-checks, answered
//!   as JSON `{"queries": [...]}`.
//! - **Answers**: JSON `{"queries": [...]}` or a JSON list (inside a code fence or not), else one
//!   query per line with list markers stripped. A malformed or empty answer falls back to the
//!   claim itself and is counted ([`LlmStats::fallbacks`]).
//! - At most [`MAX_QUERIES`] queries are kept a claim, and `concurrency` claims are in flight
//!   ([`Planner::concurrency`]). The client's cache holds the prompt and the claim, so a rerun
//!   makes no calls and returns the same plans.

use std::sync::atomic::Ordering;

use super::{Decomposition, Origin, Plan, Planner, SubQuery};
use crate::corpus::Claim;
use crate::error::Result;
use crate::llm::{unfenced, ChatClient, LlmConfig, LlmStats};

/// Queries kept a claim.
pub const MAX_QUERIES: usize = 10;

pub(super) const SYSTEM_PROMPT: &str = "You help fact-checkers find evidence for numerical claims. You write web search queries, \
never opinions. Answer only with JSON of the form {\"queries\": [\"...\", \"...\"]}.";

impl Decomposition {
    fn instruction(self) -> &'static str {
        match self {
            Decomposition::FcDecomp => "Write at most 10 short web search queries that together find evidence for every numeric and temporal \
aspect of the claim below: each quantity, rate, amount of money, percentage, date or period, with the entity and the time it refers to. \
Each query should stand alone and be answerable by a document published before the claim was made. Do not ask whether the claim \
is true, and do not mention fact-checks, fact-checkers or the claim itself.",
            Decomposition::ClaimDecomp => "Write at most 10 yes/no questions whose answers, taken together, decide the claim below, covering \
each of its numbers, dates and comparisons. Each question should stand alone. Do not mention fact-checks or fact-checkers.",
            Decomposition::PgmFc => "Break the claim below into a short program of at most 10 simple questions, one per reasoning step \
(find each quantity, then compare or compute), each written as a standalone search question. Do not mention fact-checks.",
        }
    }

    /// The user message for `claim`.
    pub fn prompt(self, claim: &str) -> String {
        format!("{}\n\nClaim: {claim}", self.instruction())
    }
}

/// The planner.
pub struct LlmPlanner {
    chat: ChatClient,
    style: Decomposition,
}

impl LlmPlanner {
    /// A planner asking for `style`'s decomposition; the cache folder is created if needed.
    pub fn new(config: LlmConfig, style: Decomposition) -> Result<LlmPlanner> {
        Ok(LlmPlanner { chat: ChatClient::new(config)?, style })
    }

    /// Its counters.
    pub fn stats(&self) -> &LlmStats {
        &self.chat.stats
    }

    /// The model's answer for `claim`, from the cache or the API.
    pub fn answer(&self, claim: &str) -> Result<String> {
        let prompt = self.style.prompt(claim);
        self.chat.chat(&[("system", SYSTEM_PROMPT), ("user", &prompt)])
    }
}

/// The queries in an answer (module doc); empty when there are none.
pub fn parse_answer(answer: &str) -> Vec<String> {
    let unfenced = unfenced(answer);
    let from_json = |v: &serde_json::Value| -> Option<Vec<String>> {
        let list = v.get("queries").unwrap_or(v).as_array()?;
        Some(list.iter().filter_map(|q| q.as_str()).map(|q| q.trim().to_string()).filter(|q| !q.is_empty()).collect())
    };
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(unfenced) {
        return from_json(&value).unwrap_or_default();
    }
    if unfenced.starts_with('{') || unfenced.starts_with('[') {
        return Vec::new();
    }
    unfenced
        .lines()
        .map(|l| l.trim().trim_start_matches(|c: char| c.is_ascii_digit() || "-*.)• ".contains(c)).trim().trim_matches('"').to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

impl Planner for LlmPlanner {
    fn plan(&self, claim: &Claim, _lookup: &dyn super::Lookup) -> Result<Plan> {
        let answer = self.answer(&claim.text)?;
        let mut queries = parse_answer(&answer);
        queries.truncate(MAX_QUERIES);
        let plan = Plan::from_candidates(claim, queries.into_iter().map(|text| SubQuery::new(text, Origin::Llm)).collect());
        if plan.fell_back {
            self.chat.stats.fallbacks.fetch_add(1, Ordering::Relaxed);
        }
        Ok(plan)
    }

    fn concurrency(&self) -> usize {
        self.chat.config().concurrency
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_in_every_shape() {
        assert_eq!(parse_answer(r#"{"queries": ["a", " b "]}"#), ["a", "b"]);
        assert_eq!(parse_answer("```json\n[\"a\", \"b\"]\n```"), ["a", "b"]);
        assert_eq!(parse_answer("1. first query\n2) second\n- third"), ["first query", "second", "third"]);
        assert!(parse_answer("{\"queries\": [").is_empty(), "broken JSON is malformed, not a line");
        assert!(parse_answer("   ").is_empty());
        assert!(parse_answer(r#"{"answer": "no"}"#).is_empty());
    }
}
