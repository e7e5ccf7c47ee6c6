//! The web game: plain JavaScript modules, a page and a style sheet, embedded in the binary
//! at build time and served at `/` (the page) and `/web/FILE` (the rest).
//!
//! The files live in `crates/server/web/`; they need no build step, so what is in the
//! repository is what the browser runs. They speak only the protocol of `PROTOCOL.md`, over
//! the same server's WebSocket, and fetch nothing else but `/rooms` for the lobby.
//!
//! # The files
//!
//! `protocol.js` encodes client frames and decodes server frames with `DataView`
//! (little-endian, as the specification says). `board.js` holds the chunks the page watches
//! (64x64 cells each) and draws the cells in view on a canvas: each cell picture is rendered
//! once per zoom into an atlas, a run of one state (the hidden sea of a big board, chunks not
//! yet received) is one pattern fill, the rest one `drawImage` a cell, so a frame costs the
//! same on any board. `lobby.js` is the room form and list. `app.js` is the controller: the
//! connection and its reconnection by token, the subscriptions that follow the view (grouped
//! into rectangles, within the welcome's `max_chunks`), input, help, players, events and the
//! end screen, and `window.bitmines`, a read-only hook the browser tests read the page
//! through. The page holds chunks of one view and draws from them; it has no other source, so
//! it cannot show what the server withholds.
//!
//! Plain modules, not TypeScript or a bundler: the files in the repository are the files the
//! browser runs, so there is no compiled output to keep current, no Node toolchain in the
//! build or in CI, and `cargo build` alone makes a binary that serves the game. The code is
//! small enough (about 2,000 lines) that types would buy little, and every path is exercised by
//! the browser tests.
//!
//! # The browser tests
//!
//! `tests/browser.rs` drives headless Chromium through chromedriver (a WebDriver client of its
//! own in `tests/browser/driver.rs`, plain HTTP on loopback) against an in-process server on a
//! free port: whole games by real pointer events, two players in one room, a reload, a server
//! that stops and comes back, every screen at phone and desk sizes (under Chromium's phone
//! emulation), the corner cells past the minimap, axe-core's accessibility rules (its script
//! from npm, found through `BITMINES_AXE` or under `target/axe`), the digits' contrast, and
//! the frame-time figure. Where Chromium
//! or chromedriver is
//! missing, each test prints a line saying so and what to install, and returns;
//! `BITMINES_BROWSER_TESTS=required` (set by `.ci/run`) makes that a failure, so CI never
//! passes without them.

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
