//! The HTTP server: the engine behind a JSON API, a JSONL stream and a web page.
//!
//! | endpoint | what |
//! |---|---|
//! | `GET /` | the web page for fact-checkers (`page.html`, shipped inside the binary) |
//! | `POST /api/search` | one claim → sub-queries and evidence ([`SearchRequest`]) |
//! | `POST /api/verify` | a search request → the verdict from its top `k` (default 3) hits, when the server has a verifier (`--verifier trained:DIR`; 404 otherwise) |
//! | `POST /api/batch` | JSONL of search requests in, JSONL of results streamed out, one line per line |
//! | `GET /api/health` | liveness and what index is served |
//! | `GET /api/openapi.json` | the OpenAPI 3 description of the above |
//!
//! **Limits** ([`Limits`]): a search body of at most 64 KiB, a batch body of at most 8 MiB and
//! 10,000 lines, a claim of at most 2,000 characters, k and depth of at most 1,000. A request past
//! a limit gets 413 or 400 with a JSON error naming the limit; a malformed request gets 400 (or
//! 422 for a well-formed one the engine cannot take) with `{"error": {"field", "message"}}` naming
//! the field. The server does not read files named in requests (no `file:` plans) and stops
//! gracefully on SIGTERM or Ctrl-C, finishing the requests in flight.

mod api;
mod openapi;
mod page;
mod stream;

use std::sync::Arc;

use axum::routing::{get, post};
use axum::Router;

pub use api::{parse_search_request, ApiError, Limits, SearchRequest, SearchResponse};

use crate::index::dense::Encoder;
use crate::index::Index;
use crate::verify::trained::TrainedVerifier;

/// What every request handler shares.
pub struct AppState {
    /// The index, opened once.
    pub index: Index,
    /// Request limits.
    pub limits: Limits,
    /// The verifier and its encoder (when its features need one), when the server has one.
    pub verifier: Option<(TrainedVerifier, Option<Encoder>)>,
    /// The query encoder for dense and hybrid retrieval, when the index has vectors.
    pub encoder: Option<Encoder>,
}

/// The application's routes.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(page::page))
        .route("/api/search", post(api::search))
        .route("/api/verify", post(api::verify))
        .route("/api/batch", post(stream::batch))
        .route("/api/health", get(api::health))
        .route("/api/openapi.json", get(openapi::openapi))
        .fallback(api::not_found)
        .with_state(state)
}

/// Serves `state` on `listener` until `shutdown` resolves, then finishes the requests in flight.
pub async fn serve(listener: tokio::net::TcpListener, state: Arc<AppState>, shutdown: impl std::future::Future<Output = ()> + Send + 'static) -> std::io::Result<()> {
    axum::serve(listener, router(state)).with_graceful_shutdown(shutdown).await
}
