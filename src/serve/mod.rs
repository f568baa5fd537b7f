//! The HTTP server: the engine behind a JSON API, a JSONL stream and a web page.
//!
//! | endpoint | what |
//! |---|---|
//! | `GET /` | the web page for fact-checkers (`page.html`, shipped inside the binary) |
//! | `POST /api/search` | one claim → sub-queries and evidence ([`SearchRequest`]) |
//! | `POST /api/verify` | a search request → the verification pipeline's verdict (`verify::pipeline`: the top hits it reads, abstention, comparisons), when the server has a verifier (`--verifier`; 404 otherwise) |
//! | `POST /api/batch` | JSONL of search requests in, JSONL of results streamed out, one line per line |
//! | `GET /api/health` | liveness, what index is served and its generation |
//! | `GET /api/openapi.json` | the OpenAPI 3 description of the above |
//!
//! **Rebuilds.** `quantir index` into the served folder writes a new generation; the next request
//! reads `CURRENT`, opens the new generation (every file checked) and answers from it, while the
//! requests in flight finish on the one they started on. Every answer carries the `generation`
//! that made it, and `/api/health` the one served (with `reload_error` when a newer one could not
//! be served, for instance a damaged one: the old one stays in service, never a 4xx).
//!
//! **Limits** ([`Limits`]): a search body of at most 64 KiB, a batch body of at most 8 MiB and
//! 10,000 lines, a claim of at most 2,000 characters, k and depth of at most 1,000. A request past
//! a limit gets 413 or 400 with a JSON error naming the limit; a malformed request gets 400 (or
//! 422 for a well-formed one the engine cannot take) with `{"error": {"field", "message"}}` naming
//! the field. The server does not read files named in requests (no `file:` plans).
//!
//! **Under abuse** (`limits.rs`, [`serve`]): a POST must declare a JSON Content-Type (415
//! otherwise); at most [`Limits::concurrency`] searches, verifications and batches run at once
//! and one more gets 503 with `Retry-After` at once; a client gets [`Limits::header_timeout`] to
//! send its headers (and as long between keep-alive requests), [`Limits::request_timeout`] from
//! headers to response (408 after), and a batch client that stops reading is dropped after
//! [`Limits::write_timeout`]. On SIGTERM or Ctrl-C the server stops accepting, gives the requests
//! in flight [`Limits::grace`] to finish, then closes whatever is left. Wrong methods get a JSON
//! 405; the page is served with a Content-Security-Policy that runs only its own script.

mod api;
mod limits;
mod openapi;
mod page;
mod stream;

use std::sync::Arc;

use axum::routing::{get, post};
use axum::Router;

pub use api::{parse_search_request, ApiError, Limits, SearchRequest, SearchResponse, IN_FLIGHT_PER_THREAD};

use crate::index::dense::Encoder;
use crate::engine::Engine;
use crate::verify::pipeline::Pipeline;

/// What every request handler shares.
pub struct AppState {
    /// Slots for concurrent requests ([`Limits::concurrency`]).
    slots: Arc<tokio::sync::Semaphore>,
    /// The index, opened once: an embedded folder followed as it is rebuilt (each request is
    /// answered from the newest generation that opens, and finishes on it), or a cluster's.
    pub engine: Engine,
    /// Request limits.
    pub limits: Limits,
    /// The verification pipeline, when the server has a verifier.
    pub verifier: Option<Pipeline>,
    /// The query encoder for dense and hybrid retrieval, when the index has vectors.
    pub encoder: Option<Encoder>,
}

impl AppState {
    /// The state of a server of `index` with `limits`.
    pub fn new(engine: Engine, limits: Limits, verifier: Option<Pipeline>, encoder: Option<Encoder>) -> AppState {
        AppState { slots: Arc::new(tokio::sync::Semaphore::new(limits.concurrency.max(1))), engine, limits, verifier, encoder }
    }

    /// The retrievers this server offers: dense and hybrid only with an encoder (the index has
    /// vectors). `/api/health` lists them and `/api/openapi.json` allows only them.
    pub fn retrievers(&self) -> &'static [crate::retrieve::Retriever] {
        use crate::retrieve::Retriever;
        if self.encoder.is_some() {
            &[Retriever::Bm25, Retriever::Dense, Retriever::Hybrid]
        } else {
            &[Retriever::Bm25]
        }
    }
}

/// The application's routes.
pub fn router(state: Arc<AppState>) -> Router {
    let api = Router::new()
        .route("/api/search", post(api::search))
        .route("/api/verify", post(api::verify))
        .route("/api/batch", post(stream::batch))
        .route_layer(axum::middleware::from_fn_with_state(state.clone(), limits::admit));
    Router::new()
        .route("/", get(page::page))
        .route("/api/health", get(api::health))
        .route("/api/openapi.json", get(openapi::openapi))
        .merge(api)
        .fallback(api::not_found)
        .method_not_allowed_fallback(api::method_not_allowed)
        .layer(axum::middleware::from_fn(limits::require_host))
        .layer(tower_http::timeout::TimeoutLayer::with_status_code(axum::http::StatusCode::REQUEST_TIMEOUT, state.limits.request_timeout))
        .with_state(state)
}

/// Serves `state` on `listener` until `shutdown` resolves; then stops accepting, lets the
/// requests in flight finish for up to [`Limits::grace`] and returns, closing the rest.
///
/// The connection loop is hyper's own rather than `axum::serve`, which has no header-read
/// timeout and waits for every connection at shutdown, however stalled.
pub async fn serve(listener: tokio::net::TcpListener, state: Arc<AppState>, shutdown: impl std::future::Future<Output = ()> + Send + 'static) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let limits = state.limits;
    let app = router(state);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // Out of file descriptors and the like: wait, and keep serving those connected.
                Err(_) => {
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let service = hyper_util::service::TowerToHyperService::new(app.clone());
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            // A client that shuts its side after sending (`curl`'s --http1.0 style, `nc -N`) still
            // gets its answer.
            .half_close(true)
            .serve_connection(TokioIo::new(stream), service);
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            let _ = connection.await;
        });
    }
    drop(listener);
    let _ = tokio::time::timeout(limits.grace, graceful.shutdown()).await;
    Ok(())
}
