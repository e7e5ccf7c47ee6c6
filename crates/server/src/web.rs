//! The web game: plain JavaScript modules, a page and a style sheet, embedded in the binary
//! at build time and served at `/` (the page) and `/web/FILE` (the rest).
//!
//! The files live in `crates/server/web/`; they need no build step, so what is in the
//! repository is what the browser runs. They speak only the protocol of `PROTOCOL.md`, over
//! the same server's WebSocket, and fetch nothing else but `/rooms` for the lobby.

use axum::Router;
use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// Every file of the game: its name under `/web/`, its content type, its bytes.
pub const FILES: &[(&str, &str, &str)] = &[
    (
        "index.html",
        "text/html; charset=utf-8",
        include_str!("../web/index.html"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_str!("../web/style.css"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/app.js"),
    ),
    (
        "protocol.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/protocol.js"),
    ),
    (
        "board.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/board.js"),
    ),
    (
        "lobby.js",
        "text/javascript; charset=utf-8",
        include_str!("../web/lobby.js"),
    ),
    ("icon.svg", "image/svg+xml", include_str!("../web/icon.svg")),
];

/// The content type and bytes of the file `name`, if the game has it.
pub fn file(name: &str) -> Option<(&'static str, &'static str)> {
    FILES
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|&(_, kind, body)| (kind, body))
}

fn respond(name: &str) -> Response {
    match file(name) {
        Some((kind, body)) => (
            [
                (header::CONTENT_TYPE, kind),
                // The files change with the binary; a browser asks again rather than keep an
                // old module beside a new one.
                (header::CACHE_CONTROL, "no-cache"),
            ],
            body,
        )
            .into_response(),
        None => (
            StatusCode::NOT_FOUND,
            format!("the web game has no file {name:?}\n"),
        )
            .into_response(),
    }
}

/// The routes of the game, for any router state.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(|| async { respond("index.html") }))
        .route("/favicon.ico", get(|| async { respond("icon.svg") }))
        .route(
            "/web/{file}",
            get(|Path(name): Path<String>| async move { respond(&name) }),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_module_the_page_imports_is_served() {
        for (name, _, body) in FILES {
            for line in body.lines() {
                let line = line.trim();
                if let Some(rest) = line
                    .strip_prefix("import ")
                    .and_then(|l| l.split("from").nth(1))
                {
                    let target = rest.trim().trim_end_matches(';').trim_matches(['"', '\'']);
                    let target = target.trim_start_matches("./");
                    assert!(
                        file(target).is_some(),
                        "{name} imports {target}, not served"
                    );
                }
                for attribute in ["src=\"/web/", "href=\"/web/"] {
                    if let Some(src) = line.split(attribute).nth(1) {
                        let target = src.split('"').next().unwrap_or("");
                        assert!(file(target).is_some(), "{name} loads {target}, not served");
                    }
                }
            }
        }
    }
}
