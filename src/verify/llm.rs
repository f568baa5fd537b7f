//! The LLM verifier (`llm:MODEL`): a zero-shot prompt to an OpenAI-compatible chat API.
//!
//! The prompt (quantir's own) gives the claim and its numbered evidence and asks for JSON
//! `{"label": "True" | "False" | "Conflicting", "confidence": 0..1}`, naming only the labels
//! allowed (`--labels`: "True" | "False" for a binary task). An answer that is not that (a code
//! fence is fine, and a bare label word is accepted; a label not allowed is not) is re-asked once
//! with the malformed answer shown back, as CoverBench does; if the second answer is malformed too,
//! the claim gets [`LabelSet::fallback`] with confidence 0 and is counted
//! ([`LlmVerifier::unparsed`]). Every answer is cached by [`ChatClient`], so a rerun makes no calls.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::{Label, LabelSet, Prediction, VerifyExample};
use crate::error::Result;
use crate::io::Progress;
use crate::plan::ChatClient;

/// `"True" | "False" | "Conflicting"` for the allowed labels.
fn choices(labels: LabelSet) -> String {
    labels.labels().iter().map(|l| format!("\"{}\"", l.name())).collect::<Vec<_>>().join(" | ")
}

fn system(labels: LabelSet) -> String {
    format!(
        "You are a careful fact-checker of numerical claims. You judge a claim only from the evidence given, \
paying attention to every number, unit, date and comparison. Answer only with JSON of the form \
{{\"label\": {}, \"confidence\": a number from 0 to 1}}.",
        choices(labels)
    )
}

fn reask(labels: LabelSet) -> String {
    format!("That answer was not the JSON asked for. Answer only with {{\"label\": {}, \"confidence\": 0..1}}.", choices(labels))
}

fn prompt(claim: &str, evidence: &[String], labels: LabelSet) -> String {
    let mut p = format!("Claim: {claim}\n\nEvidence:\n");
    if evidence.is_empty() {
        p.push_str("(none)\n");
    }
    for (i, e) in evidence.iter().enumerate() {
        p.push_str(&format!("{}. {}\n", i + 1, e.trim()));
    }
    let names: Vec<&str> = labels
        .labels()
        .into_iter()
        .map(|l| match l {
            Label::Conflicting => "Conflicting (partly true, partly false, or disputed)",
            other => other.name(),
        })
        .collect();
    // "True or False?", "True, False, or Conflicting (…)?"
    let question = match names.as_slice() {
        [a, b] => format!("{a} or {b}"),
        [init @ .., last] => format!("{}, or {last}", init.join(", ")),
        [] => String::new(),
    };
    p.push_str(&format!("\nIs the claim {question}?"));
    p
}

/// The verdict in an answer, if it has one.
pub fn parse_verdict(answer: &str) -> Option<(Label, f64)> {
    let trimmed = answer.trim();
    let unfenced = trimmed.strip_prefix("```json").or_else(|| trimmed.strip_prefix("```")).and_then(|s| s.strip_suffix("```")).unwrap_or(trimmed).trim();
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(unfenced) {
        let label = Label::parse(v.get("label")?.as_str()?)?;
        let confidence = v.get("confidence").and_then(|c| c.as_f64()).filter(|c| (0.0..=1.0).contains(c)).unwrap_or(1.0);
        return Some((label, confidence));
    }
    let word = unfenced.trim_end_matches(['.', '!']);
    Label::parse(word).map(|l| (l, 1.0))
}

/// The verifier.
pub struct LlmVerifier {
    chat: ChatClient,
    top: usize,
    labels: LabelSet,
    /// Claims whose two answers were both malformed.
    pub unparsed: AtomicUsize,
}

impl LlmVerifier {
    /// A verifier reading `top` evidence texts per claim, answering with one of `labels`.
    pub fn new(chat: ChatClient, top: usize, labels: LabelSet) -> LlmVerifier {
        LlmVerifier { chat, top, labels, unparsed: AtomicUsize::new(0) }
    }

    /// Verdicts for `examples`, `concurrency` claims at a time.
    pub fn predict(&self, examples: &[VerifyExample], progress: &dyn Progress) -> Result<Vec<Prediction>> {
        use rayon::prelude::*;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.chat.config().concurrency.max(1))
            .build()
            .map_err(|e| crate::Error::InvalidArgument { name: "--llm-concurrency", message: e.to_string() })?;
        progress.start("verifying", Some(examples.len() as u64));
        let out = pool.install(|| examples.par_iter().map(|e| { let p = self.one(e); progress.advance(1); p }).collect());
        progress.finish();
        out
    }

    fn one(&self, example: &VerifyExample) -> Result<Prediction> {
        let evidence: Vec<String> = example.evidence.iter().take(self.top).cloned().collect();
        let (system, user) = (system(self.labels), prompt(&example.claim, &evidence, self.labels));
        let allowed = |answer: &str| parse_verdict(answer).filter(|(label, _)| self.labels.contains(*label));
        let first = self.chat.chat(&[("system", &system), ("user", &user)])?;
        let verdict = match allowed(&first) {
            Some(v) => Some(v),
            None => allowed(&self.chat.chat(&[("system", &system), ("user", &user), ("assistant", &first), ("user", &reask(self.labels))])?),
        };
        let (label, confidence) = verdict.unwrap_or_else(|| {
            self.unparsed.fetch_add(1, Ordering::Relaxed);
            (self.labels.fallback(), 0.0)
        });
        Ok(Prediction { id: example.id.clone(), label, confidence, evidence })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_in_every_shape() {
        assert_eq!(parse_verdict(r#"{"label": "False", "confidence": 0.8}"#), Some((Label::False, 0.8)));
        assert_eq!(parse_verdict("```json\n{\"label\": \"half true\"}\n```"), Some((Label::Conflicting, 1.0)));
        assert_eq!(parse_verdict("True."), Some((Label::True, 1.0)));
        assert_eq!(parse_verdict("I think it is probably false"), None);
        assert_eq!(parse_verdict(r#"{"label": "maybe"}"#), None);
    }
}
