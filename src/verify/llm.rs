//! The LLM verifier (`llm:MODEL`): a zero-shot prompt to an OpenAI-compatible chat API.
//!
//! The prompt (quantir's own) gives the claim and its numbered evidence and asks for JSON
//! `{"label": "True" | "False" | "Conflicting", "confidence": 0..1}`, naming only the labels
//! allowed (`--labels`: "True" | "False" for a binary task). An answer that is not that (a code
//! fence is fine, and a bare label word is accepted; a label not allowed is not) is re-asked once
//! with the malformed answer shown back, as CoverBench does; if the second answer is malformed too,
//! the claim gets [`LabelSet::fallback`] with confidence 0 and is counted
//! ([`LlmVerifier::unparsed`]). Every answer is cached by [`ChatClient`], so a rerun makes no calls.
//!
//! **Long contexts** ([`ContextPolicy`]). Tables in the evidence are sent as written, or each
//! rewritten as a Markdown table (`--tables markdown`: compact, and one shape for HTML, JSON and
//! Markdown alike). The evidence then goes in within a token budget (`--context-tokens`, 8,000
//! by default): tokens are estimated as one per 4 bytes of UTF-8 (the usual rule of thumb for
//! English with BPE tokenizers; quantir has no tokenizer for an arbitrary remote model), and when
//! the numbered evidence exceeds the budget it is trimmed **from the beginning**, as CoverBench
//! trims a context longer than the model's window: the first bytes are dropped up to the next
//! whitespace after the cut, and `[… N characters trimmed]` marks the place.

use std::sync::atomic::{AtomicUsize, Ordering};

use super::{allowed_verdict, Label, LabelSet, Prediction, VerifyExample};
use crate::error::Result;
use crate::io::Progress;
use crate::llm::ChatClient;

/// How evidence is written into the prompt (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ContextPolicy {
    /// Token budget for the evidence (0: no limit).
    pub max_tokens: usize,
    /// How tables are sent.
    pub tables: TableStyle,
}

impl Default for ContextPolicy {
    /// 8,000 tokens: CoverBench's contexts average 3,500 tokens, and 8,000 leave room for the
    /// prompt within the smallest current windows.
    fn default() -> Self {
        ContextPolicy { max_tokens: 8000, tables: TableStyle::Keep }
    }
}

/// How tables in evidence are sent to the model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TableStyle {
    /// As written in the evidence (HTML, JSON or Markdown).
    #[default]
    Keep,
    /// Each table rewritten as a Markdown pipe table.
    Markdown,
}

/// Bytes per token in the budget's estimate (module doc).
const BYTES_PER_TOKEN: usize = 4;

/// `text` cut to `max_tokens` (module doc): the end kept, the beginning trimmed.
pub fn fit_to_budget(text: &str, max_tokens: usize) -> String {
    let budget = max_tokens.saturating_mul(BYTES_PER_TOKEN);
    if max_tokens == 0 || text.len() <= budget {
        return text.to_string();
    }
    let mut cut = text.len() - budget;
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    // Start at a word: past the next whitespace, when there is one soon enough.
    if let Some(space) = text[cut..].find(char::is_whitespace).filter(|&i| i < 64) {
        cut += space;
    }
    let kept = text[cut..].trim_start();
    format!("[… {} characters trimmed] {kept}", text[..text.len() - kept.len()].chars().count())
}

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

fn prompt(claim: &str, evidence: &[String], labels: LabelSet, context: ContextPolicy) -> String {
    let mut p = format!("Claim: {claim}\n\nEvidence:\n");
    if evidence.is_empty() {
        p.push_str("(none)\n");
    }
    let mut numbered = String::new();
    for (i, e) in evidence.iter().enumerate() {
        let e = match context.tables {
            TableStyle::Keep => e.trim().to_string(),
            TableStyle::Markdown => super::evidence::table::tables_as_markdown(e, &super::evidence::table::find_tables(e)).trim().to_string(),
        };
        numbered.push_str(&format!("{}. {e}\n", i + 1));
    }
    p.push_str(&fit_to_budget(&numbered, context.max_tokens));
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

/// The verifier.
pub struct LlmVerifier {
    chat: ChatClient,
    context: ContextPolicy,
    /// Claims whose two answers were both malformed.
    pub unparsed: AtomicUsize,
}

impl LlmVerifier {
    /// A verifier sending `context`'s share of each claim's evidence.
    pub fn new(chat: ChatClient, context: ContextPolicy) -> LlmVerifier {
        LlmVerifier { chat, context, unparsed: AtomicUsize::new(0) }
    }

    /// Verdicts for `examples` (each read from all its evidence texts), answering with one of
    /// `labels`, `concurrency` claims at a time.
    pub fn predict(&self, examples: &[VerifyExample], labels: LabelSet, progress: &dyn Progress) -> Result<Vec<Prediction>> {
        use rayon::prelude::*;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.chat.config().concurrency.max(1))
            .build()
            .map_err(|e| crate::Error::InvalidArgument { name: "llm_concurrency", message: e.to_string() })?;
        progress.start("verifying", Some(examples.len() as u64));
        let out = pool.install(|| examples.par_iter().map(|e| { let p = self.one(e, labels); progress.advance(1); p }).collect());
        progress.finish();
        out
    }

    fn one(&self, example: &VerifyExample, labels: LabelSet) -> Result<Prediction> {
        let evidence = example.evidence.clone();
        let (system, user) = (system(labels), prompt(&example.claim, &evidence, labels, self.context));
        let allowed = |answer: &str| allowed_verdict(answer, labels);
        let first = self.chat.chat(&[("system", &system), ("user", &user)])?;
        let verdict = match allowed(&first) {
            Some(v) => Some(v),
            None => allowed(&self.chat.chat(&[("system", &system), ("user", &user), ("assistant", &first), ("user", &reask(labels))])?),
        };
        let (label, confidence) = verdict.unwrap_or_else(|| {
            self.unparsed.fetch_add(1, Ordering::Relaxed);
            (labels.fallback(), 0.0)
        });
        Ok(Prediction::verdict(example.id.clone(), label, confidence, evidence))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_contexts_keep_their_end() {
        assert_eq!(fit_to_budget("short", 2), "short");
        assert_eq!(fit_to_budget("anything", 0), "anything");
        let text = format!("{}the end", "word ".repeat(100));
        let fitted = fit_to_budget(&text, 5);
        assert!(fitted.ends_with("word the end"), "{fitted}");
        let kept = fitted.split("] ").nth(1).unwrap();
        assert!(kept.len() <= 20);
        assert_eq!(fitted, format!("[… {} characters trimmed] {kept}", text.len() - kept.len()));
        // Never inside a character.
        assert!(fit_to_budget(&"é".repeat(50), 3).ends_with('é'));
    }
}
