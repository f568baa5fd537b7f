//! The database agent (`verify --database … --verifier llm:MODEL`): a tool-calling loop over an
//! OpenAI-compatible chat API in which the model may only run read-only SQL, as ClaimDB's agents do.
//!
//! In: a claim, the database it names ([`DatabaseSource`]), the labels the task allows. Out: a
//! [`Prediction`] whose `sql` lists the statements run (the explanation), with `tool_calls` and
//! any `refused` statements; or a *failed* run (`failure` set), which `verify-eval` counts wrong.
//!
//! The loop:
//! 1. The model gets quantir's own system prompt, the database schema (every `CREATE` statement)
//!    up front and the claim, and one tool, `execute_sql(query)`.
//! 2. Each tool call runs one statement under [`SqlLimits`] and returns its outcome as JSON:
//!    rows (at most `max_rows`, marked `truncated`), `refused` (a write, several statements),
//!    `error` (SQLite's message) or `timed_out`.
//! 3. At most `max_calls` tool calls (ClaimDB's 20) — every call counts, refused and malformed
//!    ones too; one more is a failed run.
//! 4. Tool arguments that are not JSON `{"query": "…"}` (or a tool other than `execute_sql`) get
//!    an error result asking again, once; a second malformed call is a failed run.
//! 5. A reply without tool calls is the answer: JSON `{"label", "confidence"}` as the text
//!    verifier reads it ([`super::allowed_verdict`]); a malformed answer is re-asked once,
//!    then the run fails.
//!
//! Every request goes through [`ChatClient::complete`], cached by the whole conversation, and SQL
//! results are deterministic, so a rerun replays every claim without a call.

use serde_json::{json, Value};

use super::evidence::sql::{DatabaseSource, SqlOutcome};
use super::{allowed_verdict, Label, LabelSet, Prediction, VerifyExample};
use crate::error::{Error, Result};
use crate::io::Progress;
use crate::llm::ChatClient;

/// ClaimDB's limit on tool calls per claim.
pub const MAX_TOOL_CALLS: usize = 20;

/// The agent.
pub struct DatabaseAgent {
    chat: ChatClient,
    source: DatabaseSource,
    labels: LabelSet,
    max_calls: usize,
}

fn label_word(label: Label) -> &'static str {
    match label {
        Label::True => "entailed",
        Label::False => "contradicted",
        Label::Conflicting => "conflicting",
        Label::NotEnoughInfo => "not enough info",
    }
}

fn choices(labels: LabelSet) -> String {
    labels.labels().into_iter().map(|l| format!("\"{}\"", label_word(l))).collect::<Vec<_>>().join(" | ")
}

fn system(labels: LabelSet, max_calls: usize) -> String {
    let abstain = if labels.contains(Label::NotEnoughInfo) {
        " When the database cannot decide the claim (it lacks the data, the claim supposes something that did not happen, or it is a matter of opinion), the answer is \"not enough info\"."
    } else {
        ""
    };
    format!(
        "You are a careful fact-checker of numerical claims. You check a claim against a SQLite database, and only against it, by calling the tool \
execute_sql with one read-only SQL query at a time; you may call it at most {max_calls} times. Pay attention to every number, unit, date and comparison \
in the claim.{abstain} When you have decided, answer only with JSON of the form {{\"label\": {}, \"confidence\": a number from 0 to 1}}.",
        choices(labels)
    )
}

fn reask(labels: LabelSet) -> String {
    format!("That answer was not the JSON asked for. Answer only with {{\"label\": {}, \"confidence\": 0..1}}.", choices(labels))
}

fn tools() -> Value {
    json!([{
        "type": "function",
        "function": {
            "name": "execute_sql",
            "description": "Run one read-only SQLite query on the claim's database and get its rows (at most 50; longer results are cut).",
            "parameters": {"type": "object", "properties": {"query": {"type": "string", "description": "One SQLite SELECT statement."}}, "required": ["query"]}
        }
    }])
}

/// The query in a tool call, or why the call is malformed.
fn query_of(call: &Value) -> std::result::Result<String, String> {
    let function = &call["function"];
    if function["name"] != "execute_sql" {
        return Err(format!("unknown tool {}; the only tool is execute_sql", function["name"]));
    }
    let arguments = function["arguments"].as_str().ok_or("the arguments must be a JSON string")?;
    let parsed: Value = serde_json::from_str(arguments).map_err(|e| format!("the arguments are not JSON ({e})"))?;
    parsed["query"].as_str().map(str::to_string).ok_or_else(|| "the arguments must be JSON {\"query\": \"SELECT …\"}".to_string())
}

/// What one claim's conversation has done so far.
struct Conversation {
    sql: Vec<String>,
    refused: Vec<String>,
    calls: usize,
}

impl DatabaseAgent {
    /// An agent answering with one of `labels`, `max_calls` tool calls per claim at most.
    pub fn new(chat: ChatClient, source: DatabaseSource, labels: LabelSet, max_calls: usize) -> DatabaseAgent {
        DatabaseAgent { chat, source, labels, max_calls }
    }

    /// Verdicts for `examples`, `--llm-concurrency` claims at a time.
    pub fn predict(&self, examples: &[VerifyExample], progress: &dyn Progress) -> Result<Vec<Prediction>> {
        use rayon::prelude::*;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.chat.config().concurrency.max(1))
            .build()
            .map_err(|e| Error::InvalidArgument { name: "llm_concurrency", message: e.to_string() })?;
        progress.start("verifying", Some(examples.len() as u64));
        let out = pool.install(|| {
            examples
                .par_iter()
                .map(|e| {
                    let p = self.one(e);
                    progress.advance(1);
                    p
                })
                .collect()
        });
        progress.finish();
        out
    }

    fn one(&self, example: &VerifyExample) -> Result<Prediction> {
        let db = self.source.connect(example.database.as_deref())?;
        let user = format!("Database schema:\n{}\n\nClaim: {}", db.schema()?, example.claim);
        let mut messages = vec![json!({"role": "system", "content": system(self.labels, self.max_calls)}), json!({"role": "user", "content": user})];
        let tools = tools();
        let mut run = Conversation { sql: Vec::new(), refused: Vec::new(), calls: 0 };
        let (mut malformed_calls, mut malformed_answers) = (0, 0);
        let failure = loop {
            let reply = self.chat.complete(&messages, &tools)?;
            let calls: Vec<Value> = reply["tool_calls"].as_array().cloned().unwrap_or_default();
            let content = reply["content"].as_str().unwrap_or("").to_string();
            // The assistant turn goes back as the API gave it, tool calls and all.
            let mut turn = json!({"role": "assistant", "content": reply["content"].clone()});
            if !calls.is_empty() {
                turn["tool_calls"] = Value::Array(calls.clone());
            }
            messages.push(turn);
            if calls.is_empty() {
                if let Some((label, confidence)) = allowed_verdict(&content, self.labels) {
                    return Ok(self.finish(example, run, label, confidence, None));
                }
                malformed_answers += 1;
                if malformed_answers > 1 {
                    break "two malformed answers".to_string();
                }
                messages.push(json!({"role": "user", "content": reask(self.labels)}));
                continue;
            }
            let mut failed = None;
            for call in &calls {
                run.calls += 1;
                if run.calls > self.max_calls {
                    failed = Some(format!("more than {} tool calls", self.max_calls));
                    break;
                }
                let result = match query_of(call) {
                    Err(why) => {
                        malformed_calls += 1;
                        if malformed_calls > 1 {
                            failed = Some(format!("malformed tool call twice: {why}"));
                            break;
                        }
                        json!({"status": "error", "message": format!("{why}; call execute_sql with {{\"query\": \"SELECT …\"}}")}).to_string()
                    }
                    Ok(query) => {
                        let outcome = db.execute(&query);
                        match &outcome {
                            SqlOutcome::Refused { reason } => run.refused.push(format!("{query} ({reason})")),
                            _ => run.sql.push(query),
                        }
                        outcome.to_tool_result()
                    }
                };
                messages.push(json!({"role": "tool", "tool_call_id": call["id"].clone(), "content": result}));
            }
            if let Some(why) = failed {
                break why;
            }
        };
        Ok(self.finish(example, run, self.labels.fallback(), 0.0, Some(failure)))
    }

    fn finish(&self, example: &VerifyExample, run: Conversation, label: Label, confidence: f64, failure: Option<String>) -> Prediction {
        let mut p = Prediction::verdict(example.id.clone(), label, confidence, Vec::new());
        p.sql = run.sql;
        p.refused = run.refused;
        p.tool_calls = Some(run.calls.min(self.max_calls));
        p.failure = failure;
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_arguments() {
        let call = |name: &str, arguments: &str| json!({"id": "1", "type": "function", "function": {"name": name, "arguments": arguments}});
        assert_eq!(query_of(&call("execute_sql", r#"{"query": "SELECT 1"}"#)), Ok("SELECT 1".to_string()));
        assert!(query_of(&call("execute_sql", "{not json")).unwrap_err().starts_with("the arguments are not JSON"));
        assert!(query_of(&call("execute_sql", r#"{"sql": "SELECT 1"}"#)).unwrap_err().contains("{\"query\""));
        assert!(query_of(&call("drop_table", "{}")).unwrap_err().starts_with("unknown tool"));
    }

    #[test]
    fn the_prompt_names_the_allowed_labels() {
        let claimdb = LabelSet::parse("true,false,not-enough-info").unwrap();
        assert!(system(claimdb, 20).contains("{\"label\": \"entailed\" | \"contradicted\" | \"not enough info\""));
        assert!(system(claimdb, 20).contains("at most 20 times"));
        assert!(!system(LabelSet::parse("true,false").unwrap(), 20).contains("not enough info"));
    }
}
