//! Planners that read evidence: the claim first; then, for a fixed number of rounds, sub-queries
//! written from what the previous round's queries found — every search under the claim's own
//! cutoff ([`Lookup`]), so nothing published on or after the claim shapes its queries.
//!
//! - [`Iterative`] (`iterative`, no model): each new passage a round's queries find (the top
//!   [`Iterative::read`] of each) gives one sub-query for the next round, the claim joined with
//!   the passage's sentence that shares the most of the claim's terms ([`best_sentence`]): the
//!   claim in the evidence's own words. Measured on SciFact and Climate-FEVER
//!   (`scripts/bench_planners.sh`), this was the only evidence-driven rewrite that did not lose to
//!   the claim alone; sub-queries of the claim's terms or quantities the evidence lacked, and
//!   titles of the evidence, lost on both.
//! - [`LlmIterative`] (`llm:iterative`): each round shows an LLM the claim and the passages found
//!   so far (title and the start of the text) and asks for search queries for what they do not
//!   yet cover; its answer is the next round's queries.
//!
//! Deterministic for a given index and claim (the LLM's answers are cached by their messages).
//! A round that finds nothing new ends the planning early.

use std::collections::HashSet;

use super::llm::{parse_answer, MAX_QUERIES, SYSTEM_PROMPT};
use crate::llm::{ChatClient, LlmConfig};
use super::{Lookup, Origin, Passage, Plan, Planner, SubQuery};
use crate::analysis::Analyzer;
use crate::corpus::Claim;
use crate::error::Result;

/// Rounds of the iterative planners by default: the claim, then one round from its evidence.
pub const DEFAULT_ROUNDS: u32 = 2;

/// `iterative`: the claim, then the claim rewritten with each new passage's best sentence.
#[derive(Debug, Clone)]
pub struct Iterative {
    /// Rounds, the claim's included (1 is the claim alone).
    pub rounds: u32,
    /// Passages read per query of a round.
    pub read: usize,
    analyzer: Analyzer,
}

impl Default for Iterative {
    /// [`DEFAULT_ROUNDS`] rounds reading the top passage of each query (on SciFact's train
    /// queries and Climate-FEVER, reading 2 or 3 a query lost to reading 1).
    fn default() -> Self {
        Iterative { rounds: DEFAULT_ROUNDS, read: 1, analyzer: Analyzer::default() }
    }
}

/// The sentence of `text` that holds the most distinct terms of `claim_terms` (the first of
/// equals), or `None` when no sentence holds any. Sentences end at `.`, `!` or `?` followed by
/// white space (a decimal point is followed by a digit, so "3.5" stays whole).
pub fn best_sentence<'a>(analyzer: &Analyzer, claim_terms: &HashSet<String>, text: &'a str) -> Option<&'a str> {
    let mut best: Option<(&str, usize)> = None;
    for sentence in sentences(text) {
        let mut shared = HashSet::new();
        analyzer.analyze(sentence, &mut |t| {
            if claim_terms.contains(t) {
                shared.insert(t.to_string());
            }
        });
        if !shared.is_empty() && best.is_none_or(|(_, n)| shared.len() > n) {
            best = Some((sentence, shared.len()));
        }
    }
    best.map(|(s, _)| s)
}

fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let trimmed = rest.trim_start();
        if trimmed.is_empty() {
            return None;
        }
        let bytes = trimmed.as_bytes();
        let end = (0..bytes.len())
            .find(|&i| matches!(bytes[i], b'.' | b'!' | b'?') && bytes.get(i + 1).is_some_and(u8::is_ascii_whitespace))
            .map_or(trimmed.len(), |i| i + 1);
        let (sentence, after) = trimmed.split_at(end);
        rest = after;
        Some(sentence)
    })
}

/// The rounds loop both planners share: `next(round, found)` writes a round's queries from the
/// passages the previous round's queries found that no earlier round had.
fn rounds(claim: &Claim, rounds: u32, read: usize, lookup: &dyn Lookup, origin: Origin, mut next: impl FnMut(&[Passage]) -> Result<Vec<String>>) -> Result<Plan> {
    let mut subqueries = vec![SubQuery::new(claim.text.clone(), Origin::Claim)];
    let mut frontier = vec![claim.text.clone()];
    let mut seen = HashSet::new();
    for round in 2..=rounds {
        let mut found = Vec::new();
        for query in &frontier {
            found.extend(lookup.search(query, read)?.into_iter().filter(|p| seen.insert(p.id.clone())));
        }
        if found.is_empty() {
            break;
        }
        let queries = next(&found)?;
        if queries.is_empty() {
            break;
        }
        subqueries.extend(queries.iter().map(|text| SubQuery { text: text.clone(), origin, round }));
        frontier = queries;
    }
    Ok(Plan::from_candidates(claim, subqueries))
}

impl Planner for Iterative {
    fn plan(&self, claim: &Claim, lookup: &dyn Lookup) -> Result<Plan> {
        let claim_terms: HashSet<String> = self.analyzer.terms(&claim.text).into_iter().collect();
        rounds(claim, self.rounds, self.read, lookup, Origin::Evidence, |found| {
            Ok(found.iter().filter_map(|p| best_sentence(&self.analyzer, &claim_terms, &p.text)).map(|s| format!("{} {s}", claim.text)).collect())
        })
    }
}

/// Characters of a passage's text an LLM is shown.
const SNIPPET_CHARS: usize = 300;

/// `llm:iterative`: the claim, then an LLM's queries for what the evidence found so far leaves
/// open.
pub struct LlmIterative {
    chat: ChatClient,
    /// Rounds, the claim's included.
    pub rounds: u32,
    /// Passages read per query of a round.
    pub read: usize,
}

impl LlmIterative {
    /// A planner over the chat API `config` names ([`DEFAULT_ROUNDS`] rounds, 3 passages a query).
    pub fn new(config: LlmConfig) -> Result<LlmIterative> {
        Ok(LlmIterative { chat: ChatClient::new(config)?, rounds: DEFAULT_ROUNDS, read: 3 })
    }

    /// The user message for `claim` with the passages found so far.
    pub fn prompt(claim: &str, found: &[Passage]) -> String {
        let mut out = String::from(
            "Below are a claim and the evidence a search has found for it so far. Write at most 10 short web search queries \
for the aspects of the claim this evidence does not yet cover: each quantity, rate, amount, date or period the claim states, \
its baseline or comparison, the entity and the source organisation it refers to. Each query should stand alone. \
Do not ask whether the claim is true, and do not mention fact-checks or fact-checkers.\n\nClaim: ",
        );
        out.push_str(claim);
        out.push_str("\n\nEvidence found so far:\n");
        for (i, p) in found.iter().enumerate() {
            let snippet: String = p.text.chars().take(SNIPPET_CHARS).collect();
            out.push_str(&format!("{}. {}{}{}\n", i + 1, p.title, if p.title.is_empty() { "" } else { ": " }, snippet));
        }
        out
    }
}

impl Planner for LlmIterative {
    fn plan(&self, claim: &Claim, lookup: &dyn Lookup) -> Result<Plan> {
        let mut shown: Vec<Passage> = Vec::new();
        let plan = rounds(claim, self.rounds, self.read, lookup, Origin::Llm, |found| {
            shown.extend_from_slice(found);
            let answer = self.chat.chat(&[("system", SYSTEM_PROMPT), ("user", &LlmIterative::prompt(&claim.text, &shown))])?;
            let mut queries = parse_answer(&answer);
            queries.truncate(MAX_QUERIES);
            if queries.is_empty() {
                self.chat.stats.fallbacks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            Ok(queries)
        })?;
        Ok(plan)
    }

    fn concurrency(&self) -> usize {
        self.chat.config().concurrency
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A collection of three passages, searched by shared words; records the queries.
    struct Fake(std::sync::Mutex<Vec<String>>);

    impl Lookup for Fake {
        fn search(&self, query: &str, k: usize) -> Result<Vec<Passage>> {
            self.0.lock().unwrap().push(query.to_string());
            let docs = [
                ("a", "Unemployment in Ohio. The jobless rate in Ohio fell to 4.1 percent in 2019. Weather was mild."),
                ("b", "Ohio budget. The state spent 3.5 billion dollars."),
                ("c", "Unrelated. Nothing here."),
            ];
            let words: HashSet<String> = query.to_lowercase().split_whitespace().map(str::to_string).collect();
            let mut hits: Vec<(usize, &str, &str)> = docs.iter().map(|(id, t)| (t.to_lowercase().split_whitespace().filter(|w| words.contains(*w)).count(), *id, *t)).filter(|h| h.0 > 0).collect();
            hits.sort_by(|x, y| y.0.cmp(&x.0).then(x.1.cmp(y.1)));
            Ok(hits.into_iter().take(k).map(|(_, id, t)| Passage { id: id.into(), title: String::new(), text: t.into() }).collect())
        }
    }

    #[test]
    fn sentences_end_at_stops_before_white_space() {
        assert_eq!(sentences("Rate is 3.5 percent. It fell!  Why? x").collect::<Vec<_>>(), ["Rate is 3.5 percent.", "It fell!", "Why?", "x"]);
        let analyzer = Analyzer::default();
        let claim: HashSet<String> = analyzer.terms("Ohio jobless rate 4.1 percent").into_iter().collect();
        assert_eq!(best_sentence(&analyzer, &claim, "Unemployment in Ohio. The jobless rate in Ohio fell to 4.1 percent in 2019."), Some("The jobless rate in Ohio fell to 4.1 percent in 2019."));
        assert_eq!(best_sentence(&analyzer, &claim, "Nothing shared."), None);
    }

    #[test]
    fn rounds_write_from_new_evidence_and_stop_when_nothing_is_new() {
        let claim = Claim { id: "c".into(), text: "Ohio jobless rate is 4.1 percent".into(), date: None };
        let lookup = Fake(Default::default());
        let plan = Iterative { rounds: 3, ..Iterative::default() }.plan(&claim, &lookup).unwrap();
        let rounds: Vec<(u32, Origin)> = plan.subqueries.iter().map(|q| (q.round, q.origin)).collect();
        assert_eq!(rounds, [(1, Origin::Claim), (2, Origin::Evidence)]);
        assert_eq!(plan.subqueries[1].text, "Ohio jobless rate is 4.1 percent The jobless rate in Ohio fell to 4.1 percent in 2019.");
        // Round 3 searched round 2's query, found only "a" again, and stopped.
        assert_eq!(lookup.0.lock().unwrap().len(), 2);
        let one = Iterative { rounds: 1, ..Iterative::default() }.plan(&claim, &lookup).unwrap();
        assert_eq!(one.texts(), [claim.text.as_str()]);
    }
}
