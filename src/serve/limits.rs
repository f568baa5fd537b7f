//! What every API request passes before its handler: the Content-Type a POST must declare, and a
//! slot among [`Limits::concurrency`](super::Limits) — or 503 with `Retry-After` at once, never a
//! queue that grows with the clients.
//!
//! Why Content-Type: a cross-origin HTML form can POST only `text/plain`,
//! `application/x-www-form-urlencoded` or `multipart/form-data`, so requiring a JSON type keeps
//! other sites' pages from sending requests here. Why a slot rather than a queue: searches run
//! on blocking threads, and a client that never reads a batch answer would otherwise keep one
//! busy; with slots the damage is bounded and everyone else is told to come back.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::sync::OwnedSemaphorePermit;

use super::api::ApiError;
use super::AppState;

/// Seconds a client is asked to wait after a 503.
const RETRY_AFTER_SECONDS: &str = "1";

/// A slot among the server's concurrent requests, held until the answer is complete (for a
/// batch, until its last line is written): handlers find it in the request's extensions.
#[derive(Clone)]
pub(super) struct Slot(#[allow(dead_code)] pub Arc<OwnedSemaphorePermit>);

/// The media types a POST to `path` may declare.
fn accepted(path: &str) -> &'static [&'static str] {
    if path == "/api/batch" {
        &["application/x-ndjson", "application/jsonl", "application/json-lines", "application/json"]
    } else {
        &["application/json"]
    }
}

/// Every request, before routing: an HTTP/1.1 request must name its `Host` (RFC 9112 §3.2: a
/// server answers one without it with 400), whatever it asks for.
pub(super) async fn require_host(request: Request, next: Next) -> Response {
    if request.version() == axum::http::Version::HTTP_11 && !request.headers().contains_key(header::HOST) {
        return ApiError::new(400, None, "an HTTP/1.1 request must name its Host (RFC 9112, section 3.2)").into_response();
    }
    next.run(request).await
}

pub(super) async fn admit(State(state): State<Arc<AppState>>, mut request: Request, next: Next) -> Response {
    if request.method() == Method::POST {
        let path = request.uri().path().to_string();
        let declared = request.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(|v| v.split(';').next().unwrap_or("").trim().to_ascii_lowercase());
        let allowed = accepted(&path);
        if !declared.as_deref().is_some_and(|d| allowed.contains(&d)) {
            let found = declared.map_or_else(|| "none".to_string(), |d| format!("{d:?}"));
            return ApiError::new(415, None, format!("POST {path} takes Content-Type {}; found {found}", allowed.join(" or "))).into_response();
        }
    }
    let Ok(permit) = state.slots.clone().try_acquire_owned() else {
        let mut response = ApiError::new(503, None, format!("the server is answering {} requests already; retry in a moment", state.limits.concurrency)).into_response();
        response.headers_mut().insert(header::RETRY_AFTER, header::HeaderValue::from_static(RETRY_AFTER_SECONDS));
        return response;
    };
    // Held here until the response is ready (extractors drop the request's extensions before the
    // handler runs), and by a batch's writer until its last line.
    let slot = Slot(Arc::new(permit));
    request.extensions_mut().insert(slot.clone());
    let response = next.run(request).await;
    drop(slot);
    response
}
