//! An OpenAI-compatible `/v1/chat/completions` client, shared by the LLM planners
//! ([`crate::plan`]), the LLM verifier and the SQL agent ([`crate::verify`]).
//!
//! - **Robustness**: the URL is checked before any request ([`check_url`]: a malformed one is
//!   refused when the flags are read, never retried). Each request has one deadline, `timeout`
//!   (60 s by default), that its attempts share: a connect timeout of at most [`CONNECT_TIMEOUT`]
//!   an attempt, up to `retries` further attempts on a network error, HTTP 429 or 5xx within the
//!   deadline, waiting `backoff · 2^attempt` (at most [`MAX_BACKOFF`], never past the deadline)
//!   between them. An endpoint that never answers costs the deadline, and is reported as "timed
//!   out after N s" ([`LlmFailure::Timeout`]); other HTTP errors fail at once with the server's
//!   message. At most `concurrency` requests are in flight.
//! - **Cache**: every answer is stored in `cache_dir/<sha256 of the model and the messages>.json`,
//!   so a rerun makes no calls and returns the same answers.
//! - **Answers** come back as text; [`unfenced`] strips the Markdown code fence a model may wrap
//!   JSON in, for every caller that parses one.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::error::{Error, LlmFailure, Result};

/// The longest wait between two attempts of one LLM request.
pub const MAX_BACKOFF: std::time::Duration = std::time::Duration::from_secs(60);

/// The longest an attempt waits for a connection.
pub const CONNECT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// `url` as a chat API's base URL: an http or https URL with a host; anything else is
/// [`LlmFailure::Url`]. The CLI checks `--llm-url` with it when the flags are read; the client
/// checks it again before any request.
pub fn check_url(url: &str) -> Result<()> {
    let refuse = |message: String| Err(Error::Llm { url: url.to_string(), failure: LlmFailure::Url { message } });
    match url::Url::parse(url) {
        Err(e) => refuse(e.to_string()),
        Ok(parsed) if !matches!(parsed.scheme(), "http" | "https") => refuse(format!("the scheme is {:?}, not http or https", parsed.scheme())),
        Ok(parsed) if parsed.host_str().is_none_or(str::is_empty) => refuse("it names no host".into()),
        Ok(_) => Ok(()),
    }
}

/// Version of the prompt wording: part of the cache key, so changed prompts are asked anew.
const PROMPT_VERSION: u32 = 1;

/// Connection settings and limits.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmConfig {
    /// Base URL of the API, e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8000/v1`.
    pub base_url: String,
    /// Model name.
    pub model: String,
    /// Bearer token, if the server needs one.
    pub api_key: Option<String>,
    /// Total time allowed for one request, its retries included.
    pub timeout: Duration,
    /// Further attempts after a retryable failure.
    pub retries: u32,
    /// First wait between attempts (doubled each time).
    pub backoff: Duration,
    /// Requests (claims) in flight at once.
    pub concurrency: usize,
    /// Folder of cached answers.
    pub cache_dir: PathBuf,
}

/// The variable a chat API's URL falls back to (the CLI's `--llm-url`, Python's `llm_url=`).
pub const URL_VAR: &str = "QUANTIR_LLM_URL";
/// The variable the model of `llm:` plans falls back to (`--llm-model`, `llm_model=`).
pub const MODEL_VAR: &str = "QUANTIR_LLM_MODEL";
/// The variable the API key falls back to (`--llm-key`, `llm_key=`).
pub const KEY_VAR: &str = "OPENAI_API_KEY";

impl LlmConfig {
    /// The chat API from what the caller gives, each part not given read from its variable
    /// ([`URL_VAR`], [`MODEL_VAR`], [`KEY_VAR`]; an empty one counts as unset): `None` while the
    /// URL or the model is still missing. The CLI's flags fall back to the same variables.
    pub fn from_env(url: Option<String>, model: Option<String>, key: Option<String>) -> Option<LlmConfig> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let (url, model) = (url.or_else(|| var(URL_VAR))?, model.or_else(|| var(MODEL_VAR))?);
        Some(LlmConfig { api_key: key.or_else(|| var(KEY_VAR)), ..LlmConfig::new(url, model) })
    }

    /// `model` at `base_url` with the CLI's defaults: no key, 60 s a request, 3 retries from
    /// 0.5 s, 4 requests at once, answers cached in `.quantir/llm-cache`.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> LlmConfig {
        LlmConfig {
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            timeout: Duration::from_secs(60),
            retries: 3,
            backoff: Duration::from_millis(500),
            concurrency: 4,
            cache_dir: PathBuf::from(".quantir/llm-cache"),
        }
    }
}

/// What the client did, for the run summary.
#[derive(Debug, Default)]
pub struct LlmStats {
    /// HTTP requests sent (retries included).
    pub requests: AtomicUsize,
    /// Answers taken from the cache.
    pub cache_hits: AtomicUsize,
    /// Claims that fell back to the claim itself (malformed or empty answer).
    pub fallbacks: AtomicUsize,
}

/// An OpenAI-compatible chat client: timeouts, retries with backoff, and a disk cache keyed by
/// the model and the messages. Shared by the LLM planner and the LLM verifier.
pub struct ChatClient {
    config: LlmConfig,
    client: reqwest::blocking::Client,
    /// Counters.
    pub stats: LlmStats,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct CacheEntry {
    model: String,
    messages: Vec<(String, String)>,
    answer: String,
}

impl ChatClient {
    /// A client: the URL checked ([`check_url`]), the ranges checked ([`crate::ranges`]), the
    /// cache folder created if needed.
    pub fn new(config: LlmConfig) -> Result<ChatClient> {
        check_url(&config.base_url)?;
        crate::ranges::LLM_TIMEOUT.check(config.timeout.as_secs().max(u64::from(config.timeout.subsec_nanos() > 0)))?;
        crate::ranges::LLM_RETRIES.check(config.retries.into())?;
        crate::ranges::LLM_CONCURRENCY.check(config.concurrency as u64)?;
        std::fs::create_dir_all(&config.cache_dir).map_err(|e| Error::io(&config.cache_dir, e))?;
        let client = reqwest::blocking::Client::builder()
            .connect_timeout(config.timeout.min(CONNECT_TIMEOUT))
            .build()
            .map_err(|e| Error::Llm { url: config.base_url.clone(), failure: LlmFailure::Url { message: e.to_string() } })?;
        Ok(ChatClient { config, client, stats: LlmStats::default() })
    }

    /// The settings.
    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    fn cache_path(&self, messages: &[(&str, &str)]) -> PathBuf {
        let mut hash = Sha256::new();
        hash.update(self.config.model.as_bytes());
        hash.update([0u8]);
        hash.update(PROMPT_VERSION.to_string().as_bytes());
        for (role, content) in messages {
            hash.update([0u8]);
            hash.update(role.as_bytes());
            hash.update([0u8]);
            hash.update(content.as_bytes());
        }
        self.config.cache_dir.join(format!("{}.json", hex(&hash.finalize())))
    }

    /// The model's answer to `messages` (`(role, content)` pairs), from the cache or the API.
    pub fn chat(&self, messages: &[(&str, &str)]) -> Result<String> {
        let path = self.cache_path(messages);
        if let Some(entry) = self.cached::<CacheEntry>(&path) {
            return Ok(entry.answer);
        }
        let body = serde_json::json!({
            "model": self.config.model,
            "temperature": 0,
            "messages": messages.iter().map(|(role, content)| serde_json::json!({"role": role, "content": content})).collect::<Vec<_>>(),
        });
        let answer = self.post(&body)?["content"].as_str().unwrap_or("").to_string();
        let entry = CacheEntry { model: self.config.model.clone(), messages: messages.iter().map(|(r, c)| (r.to_string(), c.to_string())).collect(), answer: answer.clone() };
        self.store(&path, &entry)?;
        Ok(answer)
    }

    /// The model's reply message — a JSON object with `content` and/or `tool_calls`, as the
    /// OpenAI chat API returns it — to `messages` (chat messages as JSON, tool results included)
    /// with `tools` offered, from the cache or the API. The cache key covers the model, the
    /// messages and the tools, so an agent's rerun replays its whole conversation without a call.
    pub fn complete(&self, messages: &[serde_json::Value], tools: &serde_json::Value) -> Result<serde_json::Value> {
        let mut hash = Sha256::new();
        hash.update(self.config.model.as_bytes());
        hash.update([0u8]);
        hash.update(PROMPT_VERSION.to_string().as_bytes());
        hash.update([0u8]);
        hash.update(serde_json::to_vec(&(messages, tools)).expect("JSON serialises"));
        let path = self.config.cache_dir.join(format!("tools-{}.json", hex(&hash.finalize())));
        if let Some(entry) = self.cached::<ToolCacheEntry>(&path) {
            return Ok(entry.reply);
        }
        let body = serde_json::json!({"model": self.config.model, "temperature": 0, "messages": messages, "tools": tools});
        let reply = self.post(&body)?;
        self.store(&path, &ToolCacheEntry { model: self.config.model.clone(), messages: messages.to_vec(), tools: tools.clone(), reply: reply.clone() })?;
        Ok(reply)
    }

    fn cached<T: serde::de::DeserializeOwned>(&self, path: &std::path::Path) -> Option<T> {
        let entry = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
        self.stats.cache_hits.fetch_add(1, Ordering::Relaxed);
        Some(entry)
    }

    /// Writes a cache entry beside and renames it, so a crash never leaves half an entry to be
    /// read back.
    fn store(&self, path: &std::path::Path, entry: &impl serde::Serialize) -> Result<()> {
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, serde_json::to_vec_pretty(entry).expect("entry serialises")).map_err(|e| Error::io(&tmp, e))?;
        std::fs::rename(&tmp, path).map_err(|e| Error::io(path, e))
    }

    /// Posts `body` to the chat completions endpoint within the request's deadline (module doc
    /// for retries); the first choice's message.
    fn post(&self, body: &serde_json::Value) -> Result<serde_json::Value> {
        let url = format!("{}/chat/completions", self.config.base_url.trim_end_matches('/'));
        let fail = |failure| Error::Llm { url: url.clone(), failure };
        let timed_out = |attempts| fail(LlmFailure::Timeout { seconds: self.config.timeout.as_secs_f64(), attempts });
        let deadline = std::time::Instant::now() + self.config.timeout;
        let mut attempts: u32 = 0;
        loop {
            let Some(left) = deadline.checked_duration_since(std::time::Instant::now()).filter(|d| !d.is_zero()) else { return Err(timed_out(attempts)) };
            attempts += 1;
            self.stats.requests.fetch_add(1, Ordering::Relaxed);
            let mut request = self.client.post(&url).timeout(left).json(body);
            if let Some(key) = &self.config.api_key {
                request = request.bearer_auth(key);
            }
            let retryable = match request.send() {
                Ok(response) if response.status().is_success() => {
                    let mut json: serde_json::Value = match response.json() {
                        Ok(json) => json,
                        Err(e) if e.is_timeout() => return Err(timed_out(attempts)),
                        Err(e) => return Err(fail(LlmFailure::Malformed { message: format!("not JSON ({e})") })),
                    };
                    return Ok(json["choices"][0]["message"].take());
                }
                Ok(response) => {
                    let status = response.status().as_u16();
                    let body = crate::error::shorten(&response.text().unwrap_or_default());
                    let failure = LlmFailure::Status { status, body, attempts };
                    if status != 429 && !(500..600).contains(&status) {
                        return Err(fail(failure));
                    }
                    failure
                }
                Err(e) if e.is_timeout() => return Err(timed_out(attempts)),
                Err(e) => LlmFailure::Connect { message: error_chain(&e), attempts },
            };
            if attempts > self.config.retries {
                return Err(fail(retryable));
            }
            let wait = crate::io::backoff(self.config.backoff, attempts - 1, MAX_BACKOFF);
            match deadline.checked_duration_since(std::time::Instant::now()) {
                Some(left) if left > wait => std::thread::sleep(wait),
                // No time left for another attempt after the wait: the last failure stands.
                _ => return Err(fail(retryable)),
            }
        }
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[derive(serde::Serialize, serde::Deserialize)]
struct ToolCacheEntry {
    model: String,
    messages: Vec<serde_json::Value>,
    tools: serde_json::Value,
    reply: serde_json::Value,
}

/// A network error with its causes ("error sending request" alone says nothing).
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut parts = vec![e.to_string()];
    let mut source = e.source();
    while let Some(cause) = source {
        parts.push(cause.to_string());
        source = cause.source();
    }
    parts.dedup();
    parts.join(": ")
}

/// A chat answer without the Markdown code fence (```` ```json … ``` ```` or ```` ``` … ``` ````) a
/// model may wrap it in, trimmed: what the planner and the verifier parse.
pub fn unfenced(answer: &str) -> &str {
    let trimmed = answer.trim();
    trimmed.strip_prefix("```json").or_else(|| trimmed.strip_prefix("```")).and_then(|s| s.strip_suffix("```")).unwrap_or(trimmed).trim()
}
