//! `POST /api/batch`: JSONL in, JSONL out, one answer line per request line, streamed as each is
//! ready, so a pipeline feeding verifiers can start on the first claims at once. A bad line gets
//! an error line (`{"line", "error"}`) and the stream goes on.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use tokio_stream::wrappers::ReceiverStream;
use tokio_stream::StreamExt;

use super::api::{answer, parse_search_request, read_body, ApiError};
use super::AppState;

pub(super) async fn batch(State(state): State<Arc<AppState>>, body: Body) -> Result<Response, ApiError> {
    let bytes = read_body(body, state.limits.batch_body_bytes).await?;
    let text = String::from_utf8(bytes.to_vec()).map_err(|e| ApiError { status: 400, field: None, message: format!("the body is not UTF-8 ({e})") })?;
    let lines: Vec<(usize, String)> = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).map(|(i, l)| (i + 1, l.to_string())).collect();
    if lines.len() > state.limits.batch_lines {
        return Err(ApiError { status: 413, field: None, message: format!("a batch may have at most {} lines, found {}", state.limits.batch_lines, lines.len()) });
    }
    let (tx, rx) = tokio::sync::mpsc::channel::<String>(16);
    tokio::task::spawn_blocking(move || {
        for (line, request) in lines {
            let out = match parse_search_request(request.as_bytes(), &state.limits).and_then(|r| answer(&state, r.checked())) {
                Ok(response) => {
                    let mut value = serde_json::to_value(&response).expect("response serialises");
                    value["line"] = line.into();
                    value
                }
                Err(error) => serde_json::json!({ "line": line, "error": error }),
            };
            if tx.blocking_send(format!("{out}\n")).is_err() {
                break; // the client went away
            }
        }
    });
    let stream = ReceiverStream::new(rx).map(Ok::<_, std::convert::Infallible>);
    Ok(([(header::CONTENT_TYPE, "application/x-ndjson")], Body::from_stream(stream)).into_response())
}
