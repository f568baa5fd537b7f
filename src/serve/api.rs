//! `/api/search`, `/api/health`: request parsing, validation and the JSON answers.

use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use super::AppState;
use crate::verify::model::calibrate::ConfidenceLevel;
use crate::verify::pipeline::{read_evidence, ReadHit};
use crate::corpus::{Claim, PubDate};
use crate::error::Error;
use crate::engine::{PlanRunConfig, RunConfig, RunRequest, RunSettings, SettingValue};
use crate::fuse::Method;
use crate::plan::{ClaimOnly, Iterative, Numeric, PlanSpec, Planner, SubQuery};

/// Requests in flight per worker thread ([`Limits::concurrency`]): at about 1 ms a search, 16
/// waiting on each thread is about 16 ms of queue.
pub const IN_FLIGHT_PER_THREAD: usize = 16;

/// Request limits (module doc of [`crate::serve`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of a search request body.
    pub search_body_bytes: usize,
    /// Bytes of a batch request body.
    pub batch_body_bytes: usize,
    /// Lines of a batch request.
    pub batch_lines: usize,
    /// Characters of a claim.
    pub claim_chars: usize,
    /// Largest k and depth.
    pub max_k: usize,
    /// Searches, verifications and batches served at once; one more gets 503 with `Retry-After`.
    /// [`IN_FLIGHT_PER_THREAD`] per worker thread by default: enough that a burst queues briefly
    /// on the blocking pool instead of being refused, few enough that stalled clients cannot pin
    /// hundreds of threads.
    pub concurrency: usize,
    /// Time to read a request's headers, and to wait for the next request on an idle
    /// keep-alive connection: a slow or silent client is disconnected after it.
    pub header_timeout: std::time::Duration,
    /// Time from a request's headers to its response's: reading the body and the search. A
    /// request past it gets 408.
    pub request_timeout: std::time::Duration,
    /// Time a batch answer waits for a client that stops reading before the batch is abandoned
    /// (its slot and thread freed).
    pub write_timeout: std::time::Duration,
    /// After SIGTERM: time for the requests in flight to finish before the remaining
    /// connections are closed.
    pub grace: std::time::Duration,
}

impl Default for Limits {
    fn default() -> Self {
        use std::time::Duration;
        Limits {
            search_body_bytes: 64 << 10,
            batch_body_bytes: 8 << 20,
            batch_lines: 10_000,
            claim_chars: 2_000,
            max_k: 1_000,
            concurrency: IN_FLIGHT_PER_THREAD * std::thread::available_parallelism().map_or(2, |n| n.get()),
            header_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(30),
            write_timeout: Duration::from_secs(10),
            grace: Duration::from_secs(10),
        }
    }
}

/// The run settings a request may give ([`RunSettings`]'s names; the others are the server's: its
/// threads, a cutoff for undated claims where the request has `date`, BM25's parameters,
/// feedback, MMR, wsum's weights). Each is in the OpenAPI document, whose schema admits only
/// requests the server takes.
pub const SERVED_SETTINGS: [&str; 8] = ["plan", "retriever", "fusion", "hybrid_fusion", "norm", "k", "depth", "undated"];

/// Hits an answer holds when the request gives no `k` (a page of evidence, not a run's 1000).
pub const DEFAULT_K: usize = crate::ranges::DEFAULT_SEARCH_K;

/// The body of `POST /api/search` (and each line of `/api/batch`): the claim, its date, an id to
/// echo, and run settings by [`RunSettings`]'s names ([`SERVED_SETTINGS`]; a null keeps the
/// default).
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRequest {
    /// An id echoed in batch answers.
    pub id: Option<String>,
    /// The claim.
    pub claim: String,
    /// Evidence must be published strictly before this date.
    pub date: Option<String>,
    /// How the claim is run: [`RunSettings::DEFAULT`] with what the request gives, `k`
    /// [`DEFAULT_K`] unless given.
    pub settings: RunSettings,
}

/// A checked request, ready for the engine.
pub(super) struct Checked {
    pub id: Option<String>,
    pub claim: Claim,
    pub plan: PlanSpec,
    pub run: RunConfig,
    pub plan_run: PlanRunConfig,
}

/// A 4xx answer: `{"error": {"field", "message"}}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ApiError {
    /// HTTP status.
    #[serde(skip)]
    pub status: u16,
    /// The request field at fault, when one is.
    pub field: Option<String>,
    /// What is wrong and what is expected.
    pub message: String,
}

impl ApiError {
    pub(super) fn new(status: u16, field: Option<&str>, message: impl Into<String>) -> Self {
        ApiError { status, field: field.map(str::to_string), message: message.into() }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::BAD_REQUEST);
        (status, Json(serde_json::json!({ "error": self }))).into_response()
    }
}

/// Parses and checks a search request body (one JSON object).
pub fn parse_search_request(body: &[u8], limits: &Limits) -> Result<SearchRequest, ApiError> {
    parse_request(body, limits, DEFAULT_K)
}

/// Parses and checks a request body, `k` `default_k` unless it gives one.
fn parse_request(body: &[u8], limits: &Limits, default_k: usize) -> Result<SearchRequest, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(body);
    let object: serde_json::Map<String, serde_json::Value> = serde::Deserialize::deserialize(&mut de).map_err(|e| {
        let message = e.to_string();
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        ApiError::new(400, None, format!("expected a JSON object: {message}"))
    })?;
    de.end().map_err(|_| ApiError::new(400, None, "expected one JSON object, found more after it"))?;
    let request = from_object(object, default_k)?;
    check(&request, limits)?;
    Ok(request)
}

/// The request an object gives: `id`, `claim`, `date`, and settings by name.
fn from_object(object: serde_json::Map<String, serde_json::Value>, default_k: usize) -> Result<SearchRequest, ApiError> {
    use serde_json::Value;
    let text = |name: &str, value: &Value| match value {
        Value::String(text) => Ok(Some(text.clone())),
        Value::Null => Ok(None),
        other => Err(ApiError::new(400, Some(name), format!("expected a string, found {}", crate::corpus::json_kind(other)))),
    };
    let (mut id, mut claim, mut date) = (None, None, None);
    let mut settings = RunSettings { k: default_k, ..RunSettings::DEFAULT };
    for (name, value) in &object {
        match name.as_str() {
            "id" => id = text(name, value)?,
            "claim" => claim = text(name, value)?,
            "date" => date = text(name, value)?,
            setting if SERVED_SETTINGS.contains(&setting) => settings.set(setting, &setting_value(value)).map_err(|e| ApiError::new(400, Some(setting), e.to_string()))?,
            other => {
                let why = if RunSettings::NAMES.contains(&other) { "is the server's to set" } else { "is not a field of a search request" };
                let fields = ["id", "claim", "date"].iter().chain(&SERVED_SETTINGS).copied().collect::<Vec<_>>().join(", ");
                return Err(ApiError::new(400, Some(other), format!("{other} {why}; a request takes {fields}")));
            }
        }
    }
    let claim = claim.ok_or_else(|| ApiError::new(400, Some("claim"), "expected the claim's text, found no claim field"))?;
    Ok(SearchRequest { id, claim, date, settings })
}

/// A JSON value as a setting's value.
fn setting_value(value: &serde_json::Value) -> SettingValue {
    use serde_json::Value;
    match value {
        Value::Null => SettingValue::Null,
        Value::Bool(b) => SettingValue::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => SettingValue::Int(i.into()),
            (_, Some(u)) => SettingValue::Int(u.into()),
            _ => SettingValue::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(text) => SettingValue::Text(text.clone()),
        Value::Array(items) => match items.iter().map(Value::as_f64).collect::<Option<Vec<f64>>>() {
            Some(numbers) => SettingValue::Numbers(numbers),
            None => SettingValue::Other("a list of other than numbers".into()),
        },
        Value::Object(_) => SettingValue::Other("an object".into()),
    }
}

fn check(request: &SearchRequest, limits: &Limits) -> Result<(), ApiError> {
    let chars = request.claim.chars().count();
    if request.claim.trim().is_empty() {
        return Err(ApiError::new(400, Some("claim"), "expected the claim's text, found an empty string"));
    }
    if chars > limits.claim_chars {
        return Err(ApiError::new(400, Some("claim"), format!("a claim may have at most {} characters, found {chars}", limits.claim_chars)));
    }
    let settings = &request.settings;
    for (name, value) in [("k", settings.k), ("depth", settings.depth)] {
        if value == 0 || value > limits.max_k {
            return Err(ApiError::new(400, Some(name), format!("expected 1 to {}, found {value}", limits.max_k)));
        }
    }
    if let Some(date) = &request.date {
        if PubDate::parse(date).is_none() {
            return Err(ApiError::new(400, Some("date"), format!("expected a date like 2021-03-21, found {}", crate::error::shorten(date))));
        }
    }
    if !matches!(settings.plan, PlanSpec::ClaimOnly | PlanSpec::Numeric | PlanSpec::Iterative) {
        return Err(ApiError::new(400, Some("plan"), format!("the API's planners are claim-only, numeric and iterative, found {:?} (decomposition files and LLM planners run from the CLI)", settings.plan.to_string())));
    }
    if settings.fusion == Method::Wsum {
        return Err(ApiError::new(400, Some("fusion"), "wsum needs one weight per sub-query, which the API does not take; use combsum"));
    }
    if settings.hybrid_fusion == Method::Wsum {
        return Err(ApiError::new(400, Some("hybrid_fusion"), "wsum needs weights, which the API does not take; use combsum"));
    }
    settings.validate().map_err(|e| ApiError::new(400, e.setting(), e.to_string()))?;
    Ok(())
}

impl SearchRequest {
    pub(super) fn checked(self) -> Checked {
        let date = self.date.as_deref().and_then(PubDate::parse);
        let settings = self.settings;
        Checked {
            id: self.id.clone(),
            claim: Claim { id: self.id.unwrap_or_default(), text: self.claim, date },
            run: RunConfig { threads: 1, ..settings.run_config(crate::index::Bm25Params::default()) },
            plan_run: settings.plan_run_config(),
            plan: settings.plan,
        }
    }
}

/// The answer to `POST /api/search`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SearchResponse {
    /// The request's id, if it had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The index generation that answered (embedded backend).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<u64>,
    /// The sub-queries run.
    pub subqueries: Vec<SubQuery>,
    /// The evidence, best first.
    pub hits: Vec<ReadHit>,
    /// Milliseconds spent.
    pub took_ms: f64,
}

/// The planner a checked request names (one of the three [`check`] lets through).
fn planner(plan: &PlanSpec) -> &'static dyn Planner {
    static ITERATIVE: std::sync::LazyLock<Iterative> = std::sync::LazyLock::new(Iterative::default);
    match plan {
        PlanSpec::Numeric => &Numeric,
        PlanSpec::Iterative => &*ITERATIVE,
        _ => &ClaimOnly,
    }
}

/// Runs a checked request (blocking: call from a blocking thread).
pub(super) fn answer(state: &AppState, request: Checked) -> Result<SearchResponse, ApiError> {
    let started = Instant::now();
    let settings = RunRequest { planner: planner(&request.plan), encoder: state.encoder.as_ref(), config: &request.run, plan: &request.plan_run, explain: true };
    // Answered from one generation, held until it is answered; the answer names it.
    let evidence = read_evidence(&*state.engine, &request.claim, &settings).map_err(server_or_request)?;
    Ok(SearchResponse { id: request.id, generation: evidence.generation, subqueries: evidence.subqueries, hits: evidence.hits, took_ms: started.elapsed().as_secs_f64() * 1e3 })
}

/// The answer to an engine error: 422 for a request the engine cannot take (settings that do
/// not fit the plan, a retriever the index does not offer), 503 when the cluster fails, 500 for
/// anything else — the server's own state (a damaged index, an I/O error) is never the client's
/// fault.
fn server_or_request(e: Error) -> ApiError {
    match e {
        // A request the index cannot answer as asked (dense retrieval of a cluster index loaded
        // without vectors): the request's trouble.
        Error::InvalidArgument { .. } | Error::Value { .. } | Error::Range { .. } | Error::OpenSearchNoVectors { .. } => ApiError::new(422, None, e.to_string()),
        // An upstream the server depends on (a cluster, a chat API) failing: retry later.
        Error::OpenSearchUnreachable { .. } | Error::OpenSearch { .. } | Error::Llm { .. } => ApiError::new(503, None, e.to_string()),
        other => ApiError::new(500, None, other.to_string()),
    }
}

/// Reads a body up to `limit` bytes: 413 past it, 400 for a body that cannot be read (a
/// malformed chunked encoding, a connection cut mid-body).
pub(super) async fn read_body(body: Body, limit: usize) -> Result<axum::body::Bytes, ApiError> {
    axum::body::to_bytes(body, limit).await.map_err(|e| {
        let too_long = std::error::Error::source(&e).is_some_and(|s| s.is::<http_body_util::LengthLimitError>());
        if too_long {
            ApiError::new(413, None, format!("the request body may have at most {limit} bytes"))
        } else {
            ApiError::new(400, None, format!("the request body could not be read: {e}"))
        }
    })
}

pub(super) async fn search(State(state): State<Arc<AppState>>, body: Body) -> Result<Json<SearchResponse>, ApiError> {
    let bytes = read_body(body, state.limits.search_body_bytes).await?;
    let request = parse_search_request(&bytes, &state.limits)?.checked();
    let response = tokio::task::spawn_blocking(move || answer(&state, request))
        .await
        .map_err(|_| ApiError::new(503, None, "the search was interrupted; try again"))??;
    Ok(Json(response))
}

/// The answer to `POST /api/verify`.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct VerifyResponse {
    /// The request's id, if it had one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The index generation that answered (embedded backend).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<u64>,
    /// True, False, Conflicting, or Not Enough Info when the verdict is withheld.
    pub label: crate::verify::Label,
    /// The verifier's probability for its verdict (the withheld one, when withheld).
    pub confidence: f64,
    /// `confidence` in words: low, moderate or high (`verify::model::calibrate::ConfidenceLevel`).
    pub confidence_level: ConfidenceLevel,
    /// The verdict withheld or given, when the server abstains.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<crate::verify::Label>,
    /// The probability that the evidence read bears on the claim, when the server abstains.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relevance: Option<f64>,
    /// Why the verdict was withheld: "evidence" or "confidence".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub abstained: Option<crate::verify::Abstention>,
    /// How many of the hits, from the first, the verifier read.
    pub read: usize,
    /// The hits, best first, each with its comparisons.
    pub evidence: Vec<ReadHit>,
    /// The sub-queries run.
    pub subqueries: Vec<SubQuery>,
    /// Milliseconds spent.
    pub took_ms: f64,
}

pub(super) async fn verify(State(state): State<Arc<AppState>>, body: Body) -> Result<Json<VerifyResponse>, ApiError> {
    let Some(top) = state.verifier.as_ref().map(|p| p.top) else {
        return Err(ApiError::new(404, None, "POST /api/verify needs a verifier: start the server with --verifier trained:DIR"));
    };
    let bytes = read_body(body, state.limits.search_body_bytes).await?;
    let request = parse_request(&bytes, &state.limits, top)?.checked();
    let response = tokio::task::spawn_blocking(move || -> Result<VerifyResponse, ApiError> {
        let started = Instant::now();
        let pipeline = state.verifier.as_ref().expect("checked above");
        let settings = RunRequest { planner: planner(&request.plan), encoder: state.encoder.as_ref(), config: &request.run, plan: &request.plan_run, explain: true };
        let (evidence, prediction) = pipeline.verify_claim(&*state.engine, &request.claim, &settings).map_err(server_or_request)?;
        Ok(VerifyResponse {
            id: request.id,
            generation: evidence.generation,
            label: prediction.label,
            confidence: prediction.confidence,
            confidence_level: ConfidenceLevel::of(prediction.confidence),
            verdict: prediction.verdict,
            relevance: prediction.relevance,
            abstained: prediction.abstained,
            read: prediction.evidence.len(),
            evidence: evidence.hits,
            subqueries: evidence.subqueries,
            took_ms: started.elapsed().as_secs_f64() * 1e3,
        })
    })
    .await
    .map_err(|_| ApiError::new(503, None, "the verification was interrupted; try again"))??;
    Ok(Json(response))
}

pub(super) async fn health(State(state): State<Arc<AppState>>) -> Json<serde_json::Value> {
    // Opening a new generation reads files: off the async threads.
    let about = {
        let state = state.clone();
        tokio::task::spawn_blocking(move || state.engine.about()).await
    };
    let about = match about {
        Ok(about) => about,
        Err(_) => return Json(serde_json::json!({"status": "unavailable"})),
    };
    Json(serde_json::json!({
        "status": "ok",
        "backend": about.kind,
        "index": about.name,
        "generation": about.generation,
        "documents": about.documents,
        "quantir_version": env!("CARGO_PKG_VERSION"),
        "analyzer_version": about.analyzer_version,
        "retrievers": state.retrievers(),
        "verifier": state.verifier.as_ref().map(|p| serde_json::json!({"kind": p.verifier.kind(), "top": p.top, "abstains": p.abstention.is_some()})),
    }))
}

pub(super) async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError::new(405, None, format!("{method} is not served at {}; see /api/openapi.json for the methods", uri.path()))
}

pub(super) async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::new(404, None, format!("no endpoint {}; see /api/openapi.json", uri.path()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(body: &str) -> Result<SearchRequest, ApiError> {
        parse_search_request(body.as_bytes(), &Limits::default())
    }

    #[test]
    fn errors_name_the_field() {
        let e = parse(r#"{"claim": "x", "fusion": "best"}"#).unwrap_err();
        assert_eq!((e.status, e.field.as_deref()), (400, Some("fusion")));
        assert!(e.message.contains("combmax-norm"), "{}", e.message);
        let e = parse(r#"{"claim": "x", "date": "soon"}"#).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("date"));
        let e = parse(r#"{"claim": "x", "k": 0}"#).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("k"));
        let e = parse(r#"{"claims": "x"}"#).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("claims"));
        assert!(e.message.contains("claims is not a field of a search request; a request takes id, claim, date, plan"), "{}", e.message);
        let e = parse(r#"{"claim": 3}"#).unwrap_err();
        assert_eq!(e.field.as_deref(), Some("claim"));
        assert!(parse(r#"{"claim": "x"} {}"#).is_err());
        assert!(parse(r#"{"claim": "Inflation is 3%", "date": "2023-08-20", "plan": "numeric", "fusion": "rrf", "k": 5}"#).is_ok());
    }
}
