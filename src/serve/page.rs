//! `GET /`: the web page, a single HTML file with its CSS and JavaScript inline, no network
//! fetches (no CDNs): it talks to `/api/search` on the same server.

use axum::response::Html;

const PAGE: &str = include_str!("page.html");

pub(super) async fn page() -> Html<&'static str> {
    Html(PAGE)
}
