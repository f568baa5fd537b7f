//! The connection to a cluster: the official client (`opensearch` crate) over a round-robin pool
//! of the configured nodes, one request at a time with retries, or many with bounded concurrency.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use opensearch::auth::Credentials;
use opensearch::cert::{Certificate, CertificateValidation};
use opensearch::http::headers::{HeaderMap, HeaderValue, CONTENT_TYPE};
use opensearch::http::transport::{Connection, ConnectionPool, TransportBuilder};
use opensearch::http::{Method, StatusCode};
use opensearch::OpenSearch;
use serde_json::Value;
use url::Url;

use crate::error::{Error, Result};

/// Where the cluster is and how to talk to it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterConfig {
    /// The nodes' HTTP addresses; requests go round-robin and a retry goes to the next node.
    pub urls: Vec<Url>,
    /// The index name quantir reads and writes: an alias over the physical index.
    pub index: String,
    /// Basic authentication.
    pub user: Option<String>,
    /// Its password.
    pub password: Option<String>,
    /// A PEM file with the certificate authority that signed the nodes' certificates (https).
    pub ca_certificate: Option<std::path::PathBuf>,
    /// Accept any TLS certificate (self-signed test clusters only).
    pub insecure: bool,
    /// Per-request timeout.
    pub timeout: Duration,
    /// Attempts per request beyond the first, on 429, 5xx and dropped connections.
    pub retries: u32,
    /// Requests in flight at once (bulk batches, `_msearch` batches).
    pub concurrency: usize,
}

/// One request of [`Cluster::request_all`]: method, path, query parameters, body.
pub(crate) type Request = (Method, String, Vec<(&'static str, String)>, Body);

impl ClusterConfig {
    /// A configuration for `urls` and `index` with the defaults: no authentication, 60 s per
    /// request, 6 retries (about 10 s of backoff in all), 4 requests in flight.
    pub fn new(urls: Vec<Url>, index: &str) -> Self {
        ClusterConfig {
            urls,
            index: index.to_string(),
            user: None,
            password: None,
            ca_certificate: None,
            insecure: false,
            timeout: Duration::from_secs(60),
            retries: 6,
            concurrency: 4,
        }
    }

    /// Parses a comma-separated URL list (`--opensearch-url`).
    pub fn parse_urls(text: &str) -> Result<Vec<Url>> {
        let urls = text
            .split(',')
            .map(str::trim)
            .filter(|u| !u.is_empty())
            .map(|u| {
                let url = Url::parse(u).map_err(|e| Error::InvalidArgument { name: "opensearch_url", message: format!("expected a URL like http://127.0.0.1:9200, found {u:?} ({e})") })?;
                match url.scheme() {
                    "http" | "https" => Ok(url),
                    other => Err(Error::InvalidArgument { name: "opensearch_url", message: format!("expected an http or https URL, found {other}:") }),
                }
            })
            .collect::<Result<Vec<_>>>()?;
        if urls.is_empty() {
            return Err(Error::InvalidArgument { name: "opensearch_url", message: format!("expected at least one URL, found {text:?}") });
        }
        Ok(urls)
    }

    fn urls_text(&self) -> String {
        self.urls.iter().map(|u| u.as_str().trim_end_matches('/')).collect::<Vec<_>>().join(",")
    }
}

/// The configured nodes in turn. The official client ships only a single-node pool; this is its
/// `ConnectionPool` trait over several, so that a node that drops costs one retry, not the run.
#[derive(Debug, Clone)]
struct RoundRobin {
    connections: Arc<Vec<Connection>>,
    next: Arc<AtomicUsize>,
}

impl ConnectionPool for RoundRobin {
    fn next(&self) -> Connection {
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.connections.len();
        self.connections[i].clone()
    }
}

/// A request's body.
#[derive(Debug, Clone)]
pub(crate) enum Body {
    None,
    Json(Value),
    /// Newline-delimited JSON (`_bulk`, `_msearch`).
    NdJson(String),
}

/// A connected cluster. Requests run on a small tokio runtime of its own, so the library's
/// callers (rayon workers, the CLI, the server's blocking pool) stay synchronous.
pub struct Cluster {
    client: OpenSearch,
    /// Always `Some` until dropped (see the `Drop` impl).
    runtime: Option<tokio::runtime::Runtime>,
    config: ClusterConfig,
    /// The version the first node that answered reported (`version.number`).
    version: String,
}

impl std::fmt::Debug for Cluster {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cluster").field("urls", &self.config.urls_text()).field("index", &self.config.index).finish()
    }
}

impl Drop for Cluster {
    /// Without waiting: a cluster may be dropped inside another runtime (the server's state at
    /// shutdown), where dropping a runtime the usual way, blocking, panics.
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// What one attempt came to.
enum Attempt {
    Done(StatusCode, Value),
    /// Worth another try: 429, 5xx, a dropped connection, a timeout.
    Retry(Retryable),
}

/// Why an attempt is worth repeating.
enum Retryable {
    /// The cluster answered 429 or 5xx, with its reason.
    Status(u16, String),
    /// No answer: refused, dropped, timed out.
    Transport(String),
}

impl Cluster {
    /// Builds the client and checks that some node answers (`GET /`), so a wrong URL or bad
    /// credentials fail here with one clear error.
    pub fn connect(config: ClusterConfig) -> Result<Cluster> {
        if config.urls.is_empty() {
            return Err(Error::InvalidArgument { name: "opensearch_url", message: "expected at least one URL, found none".into() });
        }
        if config.concurrency == 0 {
            return Err(Error::InvalidArgument { name: "opensearch_concurrency", message: "expected at least 1 request in flight".into() });
        }
        let pool = RoundRobin { connections: Arc::new(config.urls.iter().cloned().map(Connection::new).collect()), next: Arc::new(AtomicUsize::new(0)) };
        let mut builder = TransportBuilder::new(pool).timeout(config.timeout).disable_proxy();
        match (&config.user, &config.password) {
            (Some(user), password) => builder = builder.auth(Credentials::Basic(user.clone(), password.clone().unwrap_or_default())),
            (None, Some(_)) => return Err(Error::InvalidArgument { name: "opensearch_password", message: "a password needs --opensearch-user".into() }),
            (None, None) => {}
        }
        if config.insecure {
            builder = builder.cert_validation(CertificateValidation::None);
        } else if let Some(path) = &config.ca_certificate {
            let pem = std::fs::read(path).map_err(|e| Error::io(path, e))?;
            let certificate = Certificate::from_pem(&pem).map_err(|e| Error::Value { at: path.display().to_string(), expected: "a PEM certificate".into(), found: e.to_string() })?;
            builder = builder.cert_validation(CertificateValidation::Full(certificate));
        }
        let transport = builder.build().map_err(|e| Error::InvalidArgument { name: "opensearch_url", message: e.to_string() })?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("quantir-opensearch")
            .enable_all()
            .build()
            .map_err(|e| Error::io("tokio runtime", e))?;
        let mut cluster = Cluster { client: OpenSearch::new(transport), runtime: Some(runtime), config, version: String::new() };
        let about = cluster.request(Method::Get, "/", &[], Body::None, "connecting")?;
        if about["version"]["distribution"].as_str() != Some("opensearch") {
            return Err(Error::OpenSearch { action: "connecting".into(), status: 200, message: format!("{} is not an OpenSearch node (it answered {})", cluster.config.urls_text(), crate::error::shorten(&about.to_string())) });
        }
        cluster.version = about["version"]["number"].as_str().unwrap_or_default().to_string();
        Ok(cluster)
    }

    fn runtime(&self) -> &tokio::runtime::Runtime {
        self.runtime.as_ref().expect("the runtime lives as long as the cluster")
    }

    /// Its configuration.
    pub fn config(&self) -> &ClusterConfig {
        &self.config
    }

    /// The OpenSearch version, as the nodes report it (`2.19.6`).
    pub fn version(&self) -> &str {
        &self.version
    }

    /// The major version (2 for `2.19.6`; 0 when unreadable).
    pub fn major_version(&self) -> u32 {
        self.version.split('.').next().and_then(|m| m.parse().ok()).unwrap_or(0)
    }

    /// One request with retries; the JSON answer of a 2xx, else a typed error. `action` names the
    /// request in errors.
    pub(crate) fn request(&self, method: Method, path: &str, query: &[(&str, String)], body: Body, action: &str) -> Result<Value> {
        let (status, value) = self.request_status(method, path, query, body, action)?;
        if status.is_success() {
            Ok(value)
        } else {
            Err(self.error(status, &value, action))
        }
    }

    /// [`Cluster::request`], returning the status and body of any non-retryable answer.
    pub(crate) fn request_status(&self, method: Method, path: &str, query: &[(&str, String)], body: Body, action: &str) -> Result<(StatusCode, Value)> {
        self.runtime().block_on(send_with_retries(&self.client, &self.config, method, path, query, body, action))
    }

    /// A request that may run for long (a force merge): up to an hour, no retries (repeating a
    /// merge that timed out on our side would queue a second one).
    pub(crate) fn request_long(&self, method: Method, path: &str, query: &[(&str, String)], action: &str) -> Result<Value> {
        let config = ClusterConfig { retries: 0, timeout: Duration::from_secs(3600), ..self.config.clone() };
        let (status, value) = self.runtime().block_on(send_with_retries(&self.client, &config, method, path, query, Body::None, action))?;
        if status.is_success() {
            Ok(value)
        } else {
            Err(self.error(status, &value, action))
        }
    }

    /// Many requests, at most `config.concurrency` in flight; answers in input order.
    pub(crate) fn request_all(&self, requests: Vec<Request>, action: &str) -> Result<Vec<(StatusCode, Value)>> {
        let limit = self.config.concurrency;
        self.runtime().block_on(async {
            let mut set = tokio::task::JoinSet::new();
            let total = requests.len();
            let mut out: Vec<Option<(StatusCode, Value)>> = (0..total).map(|_| None).collect();
            let mut pending = requests.into_iter().enumerate();
            let mut first_error: Option<Error> = None;
            loop {
                while set.len() < limit && first_error.is_none() {
                    let Some((i, (method, path, query, body))) = pending.next() else { break };
                    let (client, config, action) = (self.client.clone(), self.config.clone(), action.to_string());
                    set.spawn(async move {
                        let query: Vec<(&str, String)> = query.iter().map(|(k, v)| (*k, v.clone())).collect();
                        (i, send_with_retries(&client, &config, method, &path, &query, body, &action).await)
                    });
                }
                let Some(joined) = set.join_next().await else { break };
                match joined {
                    Ok((i, Ok(answer))) => out[i] = Some(answer),
                    Ok((_, Err(e))) => {
                        first_error.get_or_insert(e);
                    }
                    Err(e) => {
                        first_error.get_or_insert(Error::OpenSearch { action: action.to_string(), status: 0, message: format!("a request task failed: {e}") });
                    }
                }
            }
            match first_error {
                Some(e) => Err(e),
                None => Ok(out.into_iter().map(|a| a.expect("every request answered")).collect()),
            }
        })
    }

    /// The typed error for a non-2xx answer.
    pub(crate) fn error(&self, status: StatusCode, value: &Value, action: &str) -> Error {
        let url = self.config.urls_text();
        let security = value["error"]["type"].as_str().is_some_and(|t| t.contains("security"));
        match status.as_u16() {
            // 403 is also an index block or a read-only cluster: only the security plugin's is
            // about credentials.
            401 => Error::OpenSearchAuth { url, status: 401 },
            403 if security => Error::OpenSearchAuth { url, status: 403 },
            code => Error::OpenSearch { action: action.to_string(), status: code, message: reason(value) },
        }
    }
}

/// OpenSearch's own words for an error answer.
pub(crate) fn reason(value: &Value) -> String {
    let error = &value["error"];
    let root = &error["root_cause"][0];
    let pick = |v: &Value| -> Option<String> {
        let kind = v["type"].as_str()?;
        Some(format!("{kind}: {}", v["reason"].as_str().unwrap_or("")))
    };
    pick(root).or_else(|| pick(error)).or_else(|| error.as_str().map(str::to_string)).unwrap_or_else(|| crate::error::shorten(&value.to_string()))
}

/// Backoff before retry `n` (1-based): 200 ms doubling, at most 4 s.
pub(crate) fn backoff(n: u32) -> Duration {
    crate::io::backoff(Duration::from_millis(100), n, Duration::from_secs(4))
}

async fn send_with_retries(client: &OpenSearch, config: &ClusterConfig, method: Method, path: &str, query: &[(&str, String)], body: Body, action: &str) -> Result<(StatusCode, Value)> {
    let mut last = Retryable::Transport(String::new());
    for attempt in 0..=config.retries {
        if attempt > 0 {
            tokio::time::sleep(backoff(attempt)).await;
        }
        match send_once(client, method, path, query, &body, config.timeout).await {
            Attempt::Done(status, value) => return Ok((status, value)),
            Attempt::Retry(why) => last = why,
        }
    }
    let attempts = config.retries + 1;
    Err(match last {
        Retryable::Status(status, why) => Error::OpenSearch { action: action.to_string(), status, message: format!("{why} (after {attempts} attempts)") },
        Retryable::Transport(why) => Error::OpenSearchUnreachable { urls: config.urls_text(), message: format!("{why} (after {attempts} attempts)") },
    })
}

async fn send_once(client: &OpenSearch, method: Method, path: &str, query: &[(&str, String)], body: &Body, timeout: Duration) -> Attempt {
    let mut headers = HeaderMap::new();
    let bytes: Option<Vec<u8>> = match body {
        Body::None => None,
        Body::Json(v) => {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            Some(serde_json::to_vec(v).expect("JSON serialises"))
        }
        Body::NdJson(text) => {
            headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/x-ndjson"));
            Some(text.as_bytes().to_vec())
        }
    };
    let query = (!query.is_empty()).then_some(query);
    let response = match client.send(method, path, headers, query, bytes, Some(timeout)).await {
        Ok(r) => r,
        Err(e) => return Attempt::Retry(Retryable::Transport(describe(&e))),
    };
    let status = response.status_code();
    let text = match response.text().await {
        Ok(t) => t,
        Err(e) => return Attempt::Retry(Retryable::Transport(describe(&e))),
    };
    let value: Value = if text.is_empty() { Value::Null } else { serde_json::from_str(&text).unwrap_or(Value::String(text)) };
    if status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
        return Attempt::Retry(Retryable::Status(status.as_u16(), reason(&value)));
    }
    Attempt::Done(status, value)
}

/// A transport error in a line: reqwest's chain of causes, which says "connection refused".
fn describe(e: &opensearch::Error) -> String {
    let mut out = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = s.source();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_checked() {
        assert_eq!(ClusterConfig::parse_urls("http://a:9200, https://b:9201").unwrap().len(), 2);
        assert!(ClusterConfig::parse_urls("").is_err());
        assert!(ClusterConfig::parse_urls("ftp://x").is_err());
        assert!(ClusterConfig::parse_urls("not a url").is_err());
    }

    #[test]
    fn backoff_doubles_and_is_capped() {
        assert_eq!(backoff(1), Duration::from_millis(200));
        assert_eq!(backoff(2), Duration::from_millis(400));
        assert_eq!(backoff(30), Duration::from_millis(4_000));
        assert_eq!(backoff(u32::MAX), Duration::from_millis(4_000), "no overflow");
    }
}
