//! `GET /`: the web page, a single HTML file with its CSS and JavaScript inline, no network
//! fetches (no CDNs): it talks to `/api/search` on the same server.
//!
//! It is sent with a Content-Security-Policy that allows only its own inline script and style
//! (by their sha256, computed once from the file), requests to this server, and nothing else: no
//! other script, no `javascript:` URL, no plugin, no framing — so evidence text or a corpus URL
//! that carries markup cannot run as script even if it reached the page's DOM unescaped.

use std::sync::LazyLock;

use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use base64::Engine;
use sha2::{Digest, Sha256};

const PAGE: &str = include_str!("page.html");

/// `'sha256-…'` of the text between the page's `<tag>` and `</tag>`.
fn inline_hash(tag: &str) -> String {
    let open = format!("<{tag}>");
    let start = PAGE.find(&open).map(|i| i + open.len()).expect("the page has its inline element");
    let end = start + PAGE[start..].find(&format!("</{tag}>")).expect("the inline element is closed");
    format!("'sha256-{}'", base64::engine::general_purpose::STANDARD.encode(Sha256::digest(&PAGE.as_bytes()[start..end])))
}

/// The page's Content-Security-Policy (module doc).
pub(super) static POLICY: LazyLock<String> = LazyLock::new(|| {
    format!(
        "default-src 'none'; script-src {}; style-src {}; connect-src 'self'; img-src 'self' data: blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        inline_hash("script"),
        inline_hash("style")
    )
});

pub(super) async fn page() -> Response {
    ([(header::CONTENT_SECURITY_POLICY, POLICY.as_str()), (header::X_CONTENT_TYPE_OPTIONS, "nosniff")], Html(PAGE)).into_response()
}
