//! `POST /api/batch`: JSONL in, JSONL out, one answer line per request line, streamed as each is
//! ready, so a pipeline feeding verifiers can start on the first claims at once. A bad line gets
//! an error line (`{"line", "error"}`) and the stream goes on.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Extension, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;

use super::api::{answer, parse_search_request, read_body, ApiError};
use super::limits::Slot;
use super::AppState;

pub(super) async fn batch(State(state): State<Arc<AppState>>, Extension(slot): Extension<Slot>, body: Body) -> Result<Response, ApiError> {
    let bytes = read_body(body, state.limits.batch_body_bytes).await?;
    // Lines are split on bytes, so one line that is not UTF-8 gets its own error line.
    let lines: Vec<(usize, Vec<u8>)> = bytes
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l).to_vec()))
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
        .collect();
    if lines.len() > state.limits.batch_lines {
        return Err(ApiError { status: 413, field: None, message: format!("a batch may have at most {} lines, found {}", state.limits.batch_lines, lines.len()) });
    }
    let (tx, rx) = tokio::sync::mpsc::channel::<String>(16);
    let runtime = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || {
        // The slot is held until the last line is handed over (or the client is given up on).
        let _slot = slot;
        for (line, request) in lines {
            let parsed = std::str::from_utf8(&request)
                .map_err(|e| ApiError::new(400, None, format!("line {line} is not UTF-8 ({e})")))
                .and_then(|text| parse_search_request(text.as_bytes(), &state.limits));
            let out = match parsed.and_then(|r| answer(&state, r.checked())) {
                Ok(response) => {
                    let mut value = serde_json::to_value(&response).expect("response serialises");
                    value["line"] = line.into();
                    value
                }
                Err(error) => {
                    let mut value = serde_json::json!({ "line": line, "error": error });
                    // The request's id, when the line is an object with a string id: a client
                    // matches errors to its requests by it.
                    if let Some(id) = serde_json::from_slice::<serde_json::Value>(&request).ok().and_then(|v| v.get("id").and_then(|id| id.as_str()).map(str::to_string)) {
                        value["id"] = id.into();
                    }
                    value
                }
            };
            // A client that went away, or stopped reading for write_timeout: the batch ends.
            if runtime.block_on(tx.send_timeout(format!("{out}\n"), state.limits.write_timeout)).is_err() {
                break;
            }
        }
    });
    let stream = ReceiverStream::new(rx).map(Ok::<_, std::convert::Infallible>);
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], Body::from_stream(stream)).into_response())
}
