//! The web game in a real browser: headless Chromium driven through chromedriver, against a
//! server on a free loopback port. Every case plays by real pointer events and keys, reads
//! the board back through the page's read-only test hook (`window.bitmines`), and ends with
//! no console error and no error in the page.
//!
//! Screenshots go to `target/tmp/browser/`; the frame-time and first-paint figures are
//! printed (run with `--nocapture` to see them) and written beside the screenshots. They are
//! reported, never asserted.

#[path = "browser/driver.rs"]
mod driver;
mod support;

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use bitmines_core::Position;
use bitmines_server::client::Client;
use bitmines_server::protocol::{Action, ClientMsg, ServerMsg};
use bitmines_solve::Solver;
use driver::{Driver, Session};
use serde_json::{Value, json};

/// One browser at a time: the machine's cores are few, and the figures are fairer alone.
static BROWSER: Mutex<()> = Mutex::new(());

const WAIT: Duration = Duration::from_secs(60);

fn lock() -> std::sync::MutexGuard<'static, ()> {
    BROWSER.lock().unwrap_or_else(|e| e.into_inner())
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// What a browser test starts with: the one browser's turn, the driver, a runtime, a server
/// on a free loopback port and its base URL; `None` where there is no browser (and that is
/// allowed: see [`Driver::start`]).
fn start() -> Option<(
    std::sync::MutexGuard<'static, ()>,
    Driver,
    tokio::runtime::Runtime,
    support::TestServer,
    String,
)> {
    let one = lock();
    let driver = Driver::start()?;
    let rt = runtime();
    let server = rt.block_on(support::start());
    let base = format!("http://{}", server.addr);
    Some((one, driver, rt, server, base))
}

fn shots() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("browser");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn report(line: &str) {
    println!("{line}");
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(shots().join("figures.txt"))
        .unwrap();
    let _ = writeln!(f, "{line}");
}

/// Opens a room's link and waits until every chunk in view has arrived.
fn join(s: &Session<'_>, base: &str, hash: &str) {
    s.goto(&format!("{base}/#{hash}"));
    s.wait_for(
        "the board, drawn",
        "return window.bitmines && bitmines.ready() && bitmines.firstPaint() !== null",
        WAIT,
    );
}

/// A desk's window that has opened a room's link and drawn its board.
fn joined<'d>(driver: &'d Driver, base: &str, hash: &str) -> Session<'d> {
    let s = driver.session(1280, 800);
    join(&s, base, hash);
    s
}

/// Waits until every move the page sent is acknowledged and the view is whole.
fn settle(s: &Session<'_>) {
    s.wait_for(
        "the acknowledgements",
        "return bitmines.ready() && bitmines.pending() === 0",
        WAIT,
    );
}

fn welcome(s: &Session<'_>) -> Value {
    s.eval("return bitmines.welcome()")
}

/// The board as the page holds it.
fn cells(s: &Session<'_>) -> Vec<Vec<u8>> {
    serde_json::from_value(s.eval("return bitmines.cells()")).expect("the page's cells")
}

/// A cell, `(row, col)`.
type Cell = (usize, usize);

/// What the solver makes of the page's picture: the proven safe hidden cells, and the
/// hidden cells from the likeliest mine down.
fn solve(picture: &[Vec<u8>], mines: usize) -> (Vec<Cell>, Vec<Cell>) {
    let (rows, cols) = (picture.len(), picture[0].len());
    let mut position = Position::new(rows, cols, mines).unwrap();
    for (r, row) in picture.iter().enumerate() {
        for (c, &state) in row.iter().enumerate() {
            assert_ne!(state, 255, "cell ({r}, {c}) never arrived");
            if state <= 8 {
                position.reveal(r, c, state).unwrap();
            }
        }
    }
    let solution = Solver::new(&position).unwrap().solve().unwrap();
    let hidden = |&(r, c): &(usize, usize)| picture[r][c] == 9;
    let safe: Vec<_> = solution.certain.safe().filter(hidden).collect();
    let mut risky: Vec<((usize, usize), f64)> = (0..rows)
        .flat_map(|r| (0..cols).map(move |c| (r, c)))
        .filter(hidden)
        .map(|cell| {
            let p = solution.probabilities.mine(cell.0, cell.1).unwrap();
            (cell, p)
        })
        .collect();
    risky.sort_by(|a, b| b.1.total_cmp(&a.1));
    (safe, risky.into_iter().map(|(cell, _)| cell).collect())
}

/// Where cell `(row, col)` is on the page.
fn point(s: &Session<'_>, row: usize, col: usize) -> (f64, f64) {
    let p = s.eval_with(
        "return bitmines.cellPoint(arguments[0], arguments[1])",
        json!([row, col]),
    );
    (p[0].as_f64().unwrap(), p[1].as_f64().unwrap())
}

fn click_cells(s: &Session<'_>, cells: &[(usize, usize)], button: u32) {
    let points: Vec<_> = cells.iter().map(|&(r, c)| point(s, r, c)).collect();
    s.click_points(&points, button);
}

fn status(s: &Session<'_>) -> u64 {
    s.eval("return bitmines.status()").as_u64().unwrap_or(0)
}

/// Clicks every cell the solver proves safe, once; returns how many.
fn safe_round(s: &Session<'_>, mines: usize) -> usize {
    settle(s);
    let (safe, _) = solve(&cells(s), mines);
    click_cells(s, &safe, 0);
    settle(s);
    safe.len()
}

/// Flags the proven mines around an open number that has a proven safe hidden neighbour,
/// then chords it with the middle button: the safe neighbours open. While the board has no
/// such number, another round of proven cells is played first.
fn chord_once(s: &Session<'_>, mines: usize) {
    for _ in 0..10 {
        if try_chord(s, mines) {
            return;
        }
        if safe_round(s, mines) == 0 {
            break;
        }
    }
    panic!("no number to chord in ten rounds of proven cells");
}

/// One try of [`chord_once`]: false when no number qualifies.
fn try_chord(s: &Session<'_>, mines: usize) -> bool {
    settle(s);
    let picture = cells(s);
    let (rows, cols) = (picture.len(), picture[0].len());
    let mut position = Position::new(rows, cols, mines).unwrap();
    for (r, row) in picture.iter().enumerate() {
        for (c, &state) in row.iter().enumerate() {
            if state <= 8 {
                position.reveal(r, c, state).unwrap();
            }
        }
    }
    let certain = Solver::new(&position).unwrap().solve().unwrap().certain;
    let around = |r: usize, c: usize| {
        let (r0, c0) = (r.saturating_sub(1), c.saturating_sub(1));
        let mut out = Vec::new();
        for (nr, row) in picture.iter().enumerate().skip(r0).take(r + 2 - r0) {
            for (nc, &state) in row.iter().enumerate().skip(c0).take(c + 2 - c0) {
                if (nr, nc) != (r, c) && state == 9 {
                    out.push((nr, nc));
                }
            }
        }
        out
    };
    let numbers: Vec<(usize, usize, u8)> = picture
        .iter()
        .enumerate()
        .flat_map(|(r, row)| row.iter().enumerate().map(move |(c, &n)| (r, c, n)))
        .filter(|&(_, _, n)| (1..=8).contains(&n))
        .collect();
    for (r, c, n) in numbers {
        let hidden = around(r, c);
        let verdicts: Vec<_> = hidden
            .iter()
            .map(|&(hr, hc)| certain.verdict(hr, hc).unwrap())
            .collect();
        let proven_mines: Vec<_> = hidden
            .iter()
            .zip(&verdicts)
            .filter(|(_, v)| **v == Some(true))
            .map(|(&cell, _)| cell)
            .collect();
        let safe: Vec<_> = hidden
            .iter()
            .zip(&verdicts)
            .filter(|(_, v)| **v == Some(false))
            .map(|(&cell, _)| cell)
            .collect();
        if proven_mines.len() != usize::from(n) || safe.is_empty() || verdicts.contains(&None) {
            continue;
        }
        click_cells(s, &proven_mines, 2);
        settle(s);
        click_cells(s, &[(r, c)], 1);
        settle(s);
        let after = cells(s);
        for (sr, sc) in safe {
            assert!(
                after[sr][sc] <= 8,
                "the chord at ({r}, {c}) opened ({sr}, {sc})"
            );
        }
        // The flags go again, so the rest of the game plays on without them.
        click_cells(s, &proven_mines, 2);
        settle(s);
        return true;
    }
    false
}

/// Checks that the browser logged no error and the page caught none, but those `allowed`.
fn no_errors(s: &Session<'_>, allowed: &[&str]) {
    let problems = s.eval("return bitmines.problems()");
    assert_eq!(problems, json!([]), "errors in the page's code");
    for (level, message) in s.console() {
        if level == "SEVERE" && !allowed.iter().any(|a| message.contains(a)) {
            panic!("a console error: {message}");
        }
    }
}

/// Loses a classic co-op game by clicking the likeliest mine, again until one goes off;
/// gives the board's mine count.
fn lose(s: &Session<'_>) -> usize {
    let mines = welcome(s)["mines"].as_u64().unwrap() as usize;
    let mut tries = 0;
    while status(s) == 0 {
        tries += 1;
        assert!(tries < 100, "no mine hit in 100 tries");
        settle(s);
        let (_, risky) = solve(&cells(s), mines);
        click_cells(s, &risky[..1], 0);
        settle(s);
    }
    assert_eq!(status(s), 2);
    mines
}

/// A room opened by a player who stays, so that the lobby lists it.
fn open_room(
    rt: &tokio::runtime::Runtime,
    server: &support::TestServer,
    name: &str,
    query: &str,
) -> Client {
    rt.block_on(async { Client::connect(&server.url(name, query)).await.unwrap() })
}

fn click_element(s: &Session<'_>, selector: &str) {
    let p = s.eval_with(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();
         return [r.left + r.width / 2, r.top + r.height / 2]",
        json!([selector]),
    );
    s.click_points(&[(p[0].as_f64().unwrap(), p[1].as_f64().unwrap())], 0);
}

#[test]
fn create_an_expert_room_and_win_then_lose() {
    let Some((_one, driver, rt, server, base)) = start() else {
        return;
    };
    // A room already open, so the lobby lists one.
    let waiting = open_room(
        &rt,
        &server,
        "friday-race",
        "preset=intermediate&mode=race&noguess=1&name=ada",
    );
    let s = driver.session(1280, 800);

    // The lobby: create an expert room by clicks (expert, co-op, no guessing are the
    // defaults of the form).
    s.goto(&format!("{base}/"));
    s.wait_for(
        "the list of rooms",
        "return document.querySelectorAll('#rooms tbody tr').length",
        WAIT,
    );
    s.screenshot(&shots().join("lobby.png"));
    click_element(&s, "#create-room");
    s.wait_for(
        "the board, drawn",
        "return window.bitmines && bitmines.ready() && bitmines.firstPaint() !== null",
        WAIT,
    );
    let w = welcome(&s);
    assert_eq!(
        (w["rows"].as_u64(), w["cols"].as_u64()),
        (Some(16), Some(30))
    );
    assert_eq!(w["noguess"], json!(true));
    let mines = w["mines"].as_u64().unwrap() as usize;
    report(&format!(
        "first paint, creating an expert no-guess room: {:.0} ms from the page's start",
        s.eval("return bitmines.firstPaint().sincePageStart")
            .as_f64()
            .unwrap()
    ));

    // The first click is the player's: nothing is open, the page says to click, and the
    // clock stands still; a click near the corner (not the middle the server would pick)
    // opens a region there and starts the clock.
    assert_eq!(w["first"], Value::Null, "a co-op room from the lobby");
    settle(&s);
    assert!(
        cells(&s).iter().flatten().all(|&c| c == 9),
        "a cell open before the click"
    );
    let said = s.eval("return document.getElementById('say').textContent");
    assert!(said.as_str().unwrap().contains("Click any cell"), "{said}");
    assert_eq!(s.eval("return bitmines.clock().running"), json!(false));
    click_cells(&s, &[(1, 27)], 0);
    settle(&s);
    assert_eq!(
        cells(&s)[1][27],
        0,
        "the first click opens a region where it was made"
    );
    s.wait_for(
        "the clock, running",
        "return bitmines.clock().running",
        WAIT,
    );

    // Play by the solver's safe cells, with the help on the way: a chord, a hint, the odds
    // overlay (photographed), a wrong flag found.
    safe_round(&s, mines);
    chord_once(&s, mines);
    s.keys("h");
    let hint = s.wait_for("a hint", "return bitmines.hint()", WAIT);
    let (hr, hc) = (
        hint[0].as_u64().unwrap() as usize,
        hint[1].as_u64().unwrap() as usize,
    );
    assert_eq!(cells(&s)[hr][hc], 9, "the hint names a hidden cell");
    let said = s.eval("return document.getElementById('say').textContent");
    assert!(
        said.as_str().unwrap().contains("is safe"),
        "the hint's reason in words: {said}"
    );
    // A flag on a cell the numbers prove safe is wrong, and the page says so.
    click_cells(&s, &[(hr, hc)], 2);
    settle(&s);
    assert_eq!(cells(&s)[hr][hc], 10);
    s.keys("w");
    let wrong = s.wait_for(
        "the wrong flags",
        "return bitmines.wrongFlags().length && bitmines.wrongFlags()",
        WAIT,
    );
    assert!(
        wrong.as_array().unwrap().contains(&json!([hr, hc])),
        "{wrong}"
    );
    s.keys("w");
    click_cells(&s, &[(hr, hc)], 2);
    settle(&s);
    safe_round(&s, mines);
    s.keys("pp");
    s.wait_for("the odds", "return bitmines.odds()", WAIT);
    std::thread::sleep(Duration::from_millis(300));
    s.screenshot(&shots().join("odds.png"));
    s.keys("p");

    let mut rounds = 0;
    while status(&s) == 0 {
        rounds += 1;
        assert!(rounds < 500, "no win after 500 rounds");
        let clicked = safe_round(&s, mines);
        assert!(
            clicked > 0 || status(&s) != 0,
            "a no-guess board with no safe cell"
        );
    }
    assert_eq!(status(&s), 1, "the game was lost");
    let over = s.wait_for("the end screen", "return bitmines.over()", WAIT);
    assert_eq!(over["status"], json!(1));
    assert!(over["bbbv"].as_u64().unwrap() > 0 && over["clicks"].as_u64().unwrap() > 0);
    let end = s.eval(
        "return document.getElementById('end').open && document.getElementById('end').innerText",
    );
    assert!(
        end.as_str().unwrap().contains("3BV/s") && end.as_str().unwrap().contains("efficiency"),
        "{end}"
    );
    // The first win of this kind of game is this browser's best, and kept.
    assert!(
        end.as_str().unwrap().contains("your best") && end.as_str().unwrap().contains("(new)"),
        "{end}"
    );
    let kept = s.eval("return localStorage.getItem('bitmines:best:expert:coop:noguess')");
    let kept: f64 = kept.as_str().unwrap().parse().unwrap();
    let took = over["elapsedMs"].as_f64().unwrap();
    assert!(
        (kept - took.round().max(1.0)).abs() < 1.0,
        "{kept} for {took}"
    );
    s.screenshot(&shots().join("end.png"));
    no_errors(&s, &[]);

    // A loss: the likeliest mine, again and again, on a board that may need guessing.
    join(&s, &base, "room=unlucky&preset=expert&mode=coop&noguess=0");
    let mut tries = 0;
    while status(&s) == 0 {
        tries += 1;
        assert!(tries < 100, "no mine hit in 100 tries");
        settle(&s);
        let (_, risky) = solve(&cells(&s), mines);
        click_cells(&s, &risky[..1], 0);
        settle(&s);
    }
    assert_eq!(status(&s), 2);
    let over = s.wait_for("the end screen", "return bitmines.over()", WAIT);
    assert_eq!(over["status"], json!(2));
    // After a loss the player sees the mines.
    s.wait_for(
        "the mines shown",
        "return bitmines.cells().some(row => row.some(c => c === 12))",
        WAIT,
    );
    s.screenshot(&shots().join("lost.png"));
    no_errors(&s, &[]);

    drop(s);
    drop(driver);
    rt.block_on(async {
        waiting.close().await;
        server.stop().await
    });
}

#[test]
fn two_browsers_share_a_coop_room_and_race() {
    let Some((_one, driver, rt, server, base)) = start() else {
        return;
    };
    let a = driver.session(1280, 800);
    let b = driver.session(1280, 800);
    let link = "room=team&preset=expert&mode=coop&noguess=1";

    join(&a, &base, link);
    // The second browser opens the link of a room that exists: the first paint of a joined
    // expert room.
    join(&b, &base, link);
    report(&format!(
        "first paint, joining an expert room: {:.0} ms from the page's start, {:.0} ms from the socket's opening",
        b.eval("return bitmines.firstPaint().sincePageStart")
            .as_f64()
            .unwrap(),
        b.eval("return bitmines.firstPaint().sinceConnect")
            .as_f64()
            .unwrap()
    ));
    let (pa, pb) = (welcome(&a)["player"].clone(), welcome(&b)["player"].clone());
    assert_ne!(pa, pb, "two browsers, two players");
    let mines = welcome(&a)["mines"].as_u64().unwrap() as usize;

    // Each sees the other's move.
    let (safe, _) = solve(&cells(&a), mines);
    let (r, c) = safe[0];
    click_cells(&a, &[(r, c)], 0);
    settle(&a);
    b.wait_for(
        "the other player's move",
        &format!("return bitmines.cells()[{r}][{c}] <= 8"),
        WAIT,
    );
    let (safe, _) = solve(&cells(&b), mines);
    let (r, c) = safe[0];
    click_cells(&b, &[(r, c)], 0);
    settle(&b);
    a.wait_for(
        "the other player's move",
        &format!("return bitmines.cells()[{r}][{c}] <= 8"),
        WAIT,
    );
    // And the other's cursor.
    let (x, y) = point(&a, 2, 3);
    a.hover(x, y);
    b.wait_for(
        "the other player's cursor",
        "return bitmines.others().some(o => o.row === 2 && o.col === 3)",
        WAIT,
    );
    // The scores: each player's opened cells.
    b.wait_for(
        "both scores",
        "return bitmines.players().filter(p => p.revealed > 0).length === 2",
        WAIT,
    );
    // The dark theme, photographed with the other player's cursor.
    click_element(&b, "#theme");
    b.wait_for(
        "the dark theme",
        "return document.documentElement.dataset.theme === 'dark'",
        WAIT,
    );
    std::thread::sleep(Duration::from_millis(300));
    b.screenshot(&shots().join("coop-dark.png"));
    click_element(&b, "#theme");
    s_no_errors(&a, &b);

    // A race: both play; each sees the other's progress.
    let race = "room=derby&preset=expert&mode=race&noguess=1";
    join(&a, &base, race);
    join(&b, &base, race);
    for _ in 0..3 {
        safe_round(&a, mines);
        safe_round(&b, mines);
    }
    safe_round(&a, mines);
    a.wait_for(
        "the other racer's progress",
        "return bitmines.players().length === 2 && bitmines.players().every(p => p.revealed > 0)",
        WAIT,
    );
    std::thread::sleep(Duration::from_millis(300));
    a.screenshot(&shots().join("race.png"));
    let bars = a.eval("return document.querySelectorAll('#players .bar-fill').length");
    assert_eq!(bars, json!(2), "a progress bar a racer");
    // A spectator sees the race and may not move.
    let watcher = driver.session(1280, 800);
    join(&watcher, &base, "room=derby&spectate=1");
    assert_eq!(welcome(&watcher)["spectator"], json!(true));
    watcher.wait_for("the racers", "return bitmines.players().length === 2", WAIT);
    assert_eq!(
        watcher.eval("return document.getElementById('hint').disabled"),
        json!(true)
    );
    no_errors(&watcher, &[]);
    // A link whose parameters differ from the room's is refused, in words on the page.
    watcher.goto(&format!("{base}/#room=derby&preset=beginner"));
    let refused = watcher.wait_for(
        "the refusal in words",
        "return bitmines.messages().find(m => m.includes('refused'))",
        WAIT,
    );
    assert!(
        refused.as_str().unwrap().contains("room mismatch")
            && refused.as_str().unwrap().contains("rows=16"),
        "{refused}"
    );
    assert_eq!(watcher.eval("return bitmines.state()"), json!("refused"));
    drop(watcher);
    s_no_errors(&a, &b);

    drop(a);
    drop(b);
    drop(driver);
    rt.block_on(server.stop());
}

fn s_no_errors(a: &Session<'_>, b: &Session<'_>) {
    no_errors(a, &[]);
    no_errors(b, &[]);
}

#[test]
fn a_reload_keeps_the_player_and_a_lost_server_is_shown_and_rejoined() {
    let _one = lock();
    let Some(driver) = Driver::start() else {
        return;
    };
    let rt = runtime();
    let server = rt.block_on(support::start());
    let addr = server.addr;
    let base = format!("http://{addr}");
    let s = driver.session(1280, 800);
    let link = "room=stay&preset=intermediate&mode=coop&noguess=1";
    join(&s, &base, link);
    let player = welcome(&s)["player"].clone();
    let mines = welcome(&s)["mines"].as_u64().unwrap() as usize;
    safe_round(&s, mines);
    // The keys: a hint moves the cursor to a safe cell, Space reveals it.
    s.keys("h");
    let hint = s.wait_for("a hint", "return bitmines.hint()", WAIT);
    let (hr, hc) = (hint[0].as_u64().unwrap(), hint[1].as_u64().unwrap());
    s.keys(" ");
    settle(&s);
    assert!(
        cells(&s)[hr as usize][hc as usize] <= 8,
        "Space revealed the hint"
    );
    // Touch: a long press flags, a tap reveals.
    let (safe, risky) = solve(&cells(&s), mines);
    let (fr, fc) = risky[0];
    let (x, y) = point(&s, fr, fc);
    s.touch(x, y, Duration::from_millis(700));
    settle(&s);
    assert_eq!(cells(&s)[fr][fc], 10, "a long press flags");
    s.touch(x, y, Duration::from_millis(700));
    settle(&s);
    assert_eq!(cells(&s)[fr][fc], 9, "and unflags");
    let (tr, tc) = safe[0];
    let (x, y) = point(&s, tr, tc);
    s.touch(x, y, Duration::from_millis(0));
    settle(&s);
    assert!(cells(&s)[tr][tc] <= 8, "a tap reveals");
    let before = cells(&s);

    s.reload();
    s.wait_for(
        "the board again",
        "return window.bitmines && bitmines.ready()",
        WAIT,
    );
    assert_eq!(
        welcome(&s)["player"],
        player,
        "the same player after a reload"
    );
    assert_eq!(cells(&s), before, "the same view after a reload");
    no_errors(&s, &[]);

    // The server goes away: the page says so in words, and keeps trying.
    let data = rt.block_on(server.stop());
    s.wait_for(
        "the reconnecting state",
        "return bitmines.state() === 'reconnecting' && document.getElementById('connection').textContent.includes('reconnecting')",
        WAIT,
    );
    let shown = s.wait_for(
        "the lost connection in words",
        "return bitmines.messages().find(m => m.includes('connection to the server was lost'))",
        WAIT,
    );
    assert!(shown.as_str().unwrap().contains("Reconnecting"), "{shown}");
    // Tries later, with the server's address dark, the reason given is still the server's
    // own (shutting down), not a dropped connection's, and nothing says "Reconnected".
    std::thread::sleep(Duration::from_millis(1500));
    let shown = s.eval(
        "return bitmines.messages().find(m => m.includes('connection to the server was lost'))",
    );
    assert!(
        shown
            .as_str()
            .unwrap()
            .contains("the server is shutting down"),
        "{shown}"
    );
    assert_eq!(
        s.eval("return document.getElementById('say').textContent"),
        json!("")
    );
    s.screenshot(&shots().join("reconnecting.png"));

    // It comes back on the same port with the same data: the page rejoins as the same
    // player, and the message goes.
    let server = rt.block_on(support::start_in(data, |c| {
        bitmines_server::server::Config { listen: addr, ..c }
    }));
    s.wait_for(
        "the rejoin",
        "return bitmines.state() === 'open' && bitmines.ready()",
        WAIT,
    );
    assert_eq!(
        welcome(&s)["player"],
        player,
        "the same player after the restart"
    );
    assert_eq!(cells(&s), before, "the same view after the restart");
    assert_eq!(s.eval("return bitmines.messages()"), json!([]));
    // The page's own player is said to have joined once, not again at the reconnection.
    let joined = s.eval(
        "return [...document.querySelectorAll('#events li')]
           .filter(li => li.textContent.endsWith(' joined')).length",
    );
    assert_eq!(joined, json!(1), "the joins in the events");
    safe_round(&s, mines);
    // While the server was away, the browser itself logs each refused connection.
    no_errors(&s, &["WebSocket connection to", "ERR_CONNECTION_REFUSED"]);

    drop(s);
    drop(driver);
    rt.block_on(server.stop());
}

/// A room that refuses the page shows nothing of the room before it (title, counters,
/// clock, minimap); a spectator of a race sees the watched racer's mines left and clock.
#[test]
fn a_refused_room_shows_nothing_of_the_last_and_a_spectator_sees_the_racers_figures() {
    let Some((_one, driver, rt, server, base)) = start() else {
        return;
    };
    // A race with one racer, who has placed a flag (a move: the clock runs).
    let mut racer = open_room(
        &rt,
        &server,
        "duel",
        "preset=expert&mode=race&noguess=0&name=ada",
    );
    rt.block_on(async {
        let flag = bitmines_server::protocol::ClientMsg::Move {
            seq: 1,
            action: bitmines_server::protocol::Action::Flag,
            row: 0,
            col: 0,
        };
        racer.send(&flag).await.unwrap();
        while !matches!(
            racer.recv().await.unwrap(),
            bitmines_server::protocol::ServerMsg::Ack { seq: 1, .. }
        ) {}
    });
    let s = driver.session(1280, 800);
    join(
        &s,
        &base,
        "room=big&rows=300&cols=300&mode=coop&rule=classic",
    );
    assert_eq!(
        s.eval("return document.getElementById('minimap').hidden"),
        json!(false)
    );
    // The same name with other settings: refused, and nothing of room "big" stays.
    s.goto(&format!("{base}/#room=duel&preset=beginner"));
    s.wait_for("the refusal", "return bitmines.state() === 'refused'", WAIT);
    let words = s.eval(
        "return ['room-title', 'mines-left', 'clock', 'progress-text']
           .map(id => document.getElementById(id).textContent)
           .concat([document.getElementById('minimap').hidden])",
    );
    assert_eq!(words, json!(["duel", "", "", "", true]), "after a refusal");
    // A spectator of the race: the racer's flag counts, and the racer's clock runs.
    s.goto(&format!("{base}/#room=duel&spectate=1"));
    s.wait_for(
        "the racer's figures",
        "return document.getElementById('mines-left').textContent === '98 mines left'
           && /^[0-9]+ s$/.test(document.getElementById('clock').textContent)",
        WAIT,
    );
    no_errors(&s, &["WebSocket connection to"]);
    rt.block_on(racer.close());
    drop(s);
    drop(driver);
    rt.block_on(server.stop());
}

/// The relative luminance of an sRGB colour (WCAG 2).
fn luminance(rgb: [f64; 3]) -> f64 {
    let lin = |v: f64| {
        let c = v / 255.0;
        if c <= 0.039_28 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * lin(rgb[0]) + 0.7152 * lin(rgb[1]) + 0.0722 * lin(rgb[2])
}

/// Every digit the board's canvas draws, in both themes, at 4.5:1 or more against what it is
/// drawn on: the numbers on an open cell, and the odds' digits on every shade of the odds
/// overlay. Checked from the page's own colours (axe cannot see into a canvas), with a
/// contrast computed here, not by the page.
#[test]
fn every_digit_on_the_board_reads_at_4_5_to_1_in_both_themes() {
    let Some((_one, driver, rt, server, base)) = start() else {
        return;
    };
    let s = driver.session(1280, 800);
    s.goto(&format!("{base}/"));
    s.wait_for("the page", "return Boolean(window.bitmines)", WAIT);
    let pairs = s.eval(
        "return import('/web/board.js').then(m => {
           const rgb = (c) => typeof c === 'string'
             ? c.match(/[0-9a-f]{2}/gi).map(h => parseInt(h, 16)) : c;
           const out = [];
           for (const t of ['light', 'dark']) {
             for (let n = 1; n <= 8; n++) {
               out.push([`${t}: ${n} on an open cell`, rgb(m.NUMBERS[t][n]), rgb(m.THEMES[t].open)]);
             }
             for (let p = 0; p <= 200; p++) {
               const under = m.oddsRgb(p, t);
               out.push([`${t}: odds ${p / 2}%`, rgb(m.oddsInk(under)), under]);
             }
           }
           return out;
         })",
    );
    let pairs = pairs.as_array().unwrap();
    assert_eq!(pairs.len(), 2 * (8 + 201));
    let mut low = Vec::new();
    for pair in pairs {
        let colour = |v: &Value| -> [f64; 3] {
            let c: Vec<f64> = serde_json::from_value(v.clone()).unwrap();
            [c[0], c[1], c[2]]
        };
        let (fg, bg) = (luminance(colour(&pair[1])), luminance(colour(&pair[2])));
        let ratio = (fg.max(bg) + 0.05) / (fg.min(bg) + 0.05);
        if ratio < 4.5 {
            low.push(format!("{}: {ratio:.2}:1", pair[0]));
        }
    }
    assert!(low.is_empty(), "{low:#?}");
    // The formula itself: black on white is 21:1.
    let (w, b) = (luminance([255.0; 3]), luminance([0.0; 3]));
    assert!(((w + 0.05) / (b + 0.05) - 21.0).abs() < 1e-9);
    drop(s);
    drop(driver);
    rt.block_on(server.stop());
}

/// The axe-core version the accessibility test runs, from npm (`.ci/run` installs it).
const AXE: &str = "axe-core@4.14.1";

/// axe-core's script: from `BITMINES_AXE`, else from `target/axe` where `npm install --prefix
/// target/axe axe-core@4.14.1` puts it. Missing, the test is skipped with a line saying what
/// to install, or fails under `BITMINES_BROWSER_TESTS=required`.
fn axe_script() -> Option<String> {
    let path = std::env::var("BITMINES_AXE")
        .ok()
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../../target/axe/node_modules/axe-core/axe.min.js")
        });
    match std::fs::read_to_string(&path) {
        Ok(script) => Some(script),
        Err(e) => {
            let line = format!(
                "axe-core is not at {} ({e}): npm install --prefix target/axe {AXE}, or set BITMINES_AXE",
                path.display()
            );
            assert_ne!(
                std::env::var(driver::POLICY).as_deref(),
                Ok("required"),
                "{line}"
            );
            eprintln!("skipped: {line}");
            None
        }
    }
}

/// axe-core's violations on the page as it stands, every impact: `rule (impact): where`.
fn axe_violations(s: &Session<'_>, script: &str) -> Vec<String> {
    if s.eval("return typeof axe") != json!("object") {
        s.eval(script);
    }
    let found = s.eval(
        "return axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v =>
           `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', ')}`))",
    );
    serde_json::from_value(found).unwrap()
}

/// axe-core finds no violation of any impact on the lobby, a game, its menu and dialogs, and
/// the end of a game, at a desk's and a phone's size.
#[test]
fn axe_finds_nothing_on_any_screen() {
    let Some((_one, driver, rt, server, base)) = start() else {
        return;
    };
    let Some(script) = axe_script() else {
        return;
    };
    let waiting = open_room(
        &rt,
        &server,
        "listed",
        "preset=intermediate&mode=race&noguess=0&name=ada",
    );
    let mut found = Vec::new();
    for (width, height, phone) in [(1280, 800, false), (390, 844, true)] {
        let s = window(&driver, width, height, phone);
        let mut check = |what: &str| {
            for v in axe_violations(&s, &script) {
                found.push(format!("{what} at {width}x{height}: {v}"));
            }
        };
        s.goto(&format!("{base}/"));
        s.wait_for(
            "the list of rooms",
            "return document.querySelectorAll('#rooms tbody tr').length",
            WAIT,
        );
        check("the lobby");
        join(
            &s,
            &base,
            &format!("room=axe-{width}&preset=expert&mode=coop&rule=classic&noguess=0"),
        );
        check("a game");
        if phone {
            click_element(&s, "#menu");
            check("the open menu");
        }
        click_element(&s, "#keys-button");
        s.wait_for(
            "the keys",
            "return document.getElementById('keys').open",
            WAIT,
        );
        check("the keys");
        s.keys("\u{e00c}");
        lose(&s);
        s.wait_for(
            "the end screen",
            "return document.getElementById('end').open",
            WAIT,
        );
        check("the end screen");
    }
    assert!(found.is_empty(), "{found:#?}");
    rt.block_on(waiting.close());
    drop(driver);
    rt.block_on(server.stop());
}

/// Question marks, an option of the browser: off, a right click flags and unflags; on, a flag
/// right-clicked again becomes a question mark and then blank, the mark set and cleared by
/// the page alone (no frame sent), and the option outlives a reload.
#[test]
fn question_marks_cycle_flag_mark_blank_and_send_nothing() {
    let Some((_one, driver, rt, server, base)) = start() else {
        return;
    };
    let s = joined(
        &driver,
        &base,
        "room=marks&preset=beginner&mode=coop&rule=classic&noguess=0",
    );
    let (r, c) = (0..81)
        .map(|k| (k / 9, k % 9))
        .find(|&(r, c)| cells(&s)[r][c] == 9)
        .unwrap();
    let right = |s: &Session<'_>| {
        click_cells(s, &[(r, c)], 2);
        settle(s);
        (cells(s)[r][c], s.eval("return bitmines.marks()"))
    };
    assert_eq!(right(&s), (10, json!([])), "off: a flag");
    assert_eq!(right(&s), (9, json!([])), "off: blank again");
    click_element(&s, "#marks");
    assert_eq!(
        s.eval("return document.getElementById('marks').getAttribute('aria-pressed')"),
        json!("true")
    );
    assert_eq!(right(&s), (10, json!([])), "on: a flag");
    let mark = json!([format!("{r},{c}")]);
    assert_eq!(right(&s), (9, mark.clone()), "on: a question mark");
    s.screenshot(&shots().join("question-mark.png"));
    let seq = s.eval("return bitmines.seq()");
    assert_eq!(right(&s), (9, json!([])), "on: blank again");
    assert_eq!(
        s.eval("return bitmines.seq()"),
        seq,
        "clearing a mark sends nothing"
    );
    s.reload();
    s.wait_for(
        "the board again",
        "return window.bitmines && bitmines.ready()",
        WAIT,
    );
    assert_eq!(
        s.eval("return document.getElementById('marks').getAttribute('aria-pressed')"),
        json!("true"),
        "the option after a reload"
    );
    no_errors(&s, &[]);
    drop(s);
    drop(driver);
    rt.block_on(server.stop());
}

#[test]
fn frame_time_scrolling_a_huge_coop_board() {
    let Some((_one, driver, rt, server, base)) = start() else {
        return;
    };
    let s = driver.session(1920, 1080);
    join(
        &s,
        &base,
        "room=huge&rows=10000&cols=10000&density=0.15&mode=coop&rule=endless",
    );
    s.screenshot(&shots().join("huge.png"));
    // Diagonally across the board, a chunk every two or three frames, for 900 frames; first
    // 300 frames that redraw in place, so the figure has a baseline without the network.
    let measure = |frames: u32, dx: u32, dy: u32| {
        let figures = s.eval_with(
            "return bitmines.measureScroll(arguments[0], arguments[1], arguments[2])
               .then(({draw, interval}) => {
                 const q = (xs, p) => { const s = [...xs].sort((a, b) => a - b);
                   return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
                 return {frames: draw.length, draw50: q(draw, 0.5), draw99: q(draw, 0.99),
                   drawMax: Math.max(...draw), gap50: q(interval, 0.5),
                   gap99: q(interval, 0.99)};
               })",
            json!([frames, dx, dy]),
        );
        let f = |k: &str| figures[k].as_f64().unwrap_or(f64::NAN);
        format!(
            "{} frames: drawing p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms; \
             frame interval p50 {:.1} ms, p99 {:.1} ms",
            figures["frames"],
            f("draw50"),
            f("draw99"),
            f("drawMax"),
            f("gap50"),
            f("gap99")
        )
    };
    let still = measure(300, 0, 0);
    let moving = measure(900, 41, 23);
    report(&format!(
        "frame time on a 10000x10000 co-op board at 1920x1080, redrawn in place, {still}"
    ));
    report(&format!(
        "frame time on a 10000x10000 co-op board at 1920x1080, scrolling, {moving}"
    ));
    // Past cells, drawn from the chunks' summaries: about a pixel a cell, scrolling, then
    // the whole board on screen, redrawn in place.
    let zoom_out_to = |cell: f64| {
        for _ in 0..40 {
            if s.eval("return bitmines.offset()[2]")
                .as_f64()
                .unwrap_or(0.0)
                <= cell
            {
                break;
            }
            s.keys("-");
        }
        s.wait_for(
            "the board drawn from summaries",
            "return bitmines.summaryMode() && bitmines.ready()",
            WAIT,
        );
    };
    zoom_out_to(1.2);
    let pixel_a_cell = measure(300, 41, 23);
    report(&format!(
        "frame time on a 10000x10000 co-op board at 1920x1080, from summaries at about a \
         pixel a cell, scrolling, {pixel_a_cell}"
    ));
    zoom_out_to(0.0);
    let whole = measure(300, 0, 0);
    report(&format!(
        "frame time on a 10000x10000 co-op board at 1920x1080, from summaries, the whole \
         board on screen, redrawn in place, {whole}"
    ));
    s.screenshot(&shots().join("huge-zoomed-out.png"));
    s.keys(&"+".repeat(30));
    s.wait_for(
        "cells again",
        "return !bitmines.summaryMode() && bitmines.ready()",
        WAIT,
    );
    settle(&s);
    s.screenshot(&shots().join("huge-scrolled.png"));
    // A drag scrolls (and reveals nothing), as does the wheel.
    let offset = |s: &Session<'_>| -> Vec<f64> {
        serde_json::from_value(s.eval("return bitmines.offset()")).unwrap()
    };
    let before = offset(&s);
    s.drag((900.0, 500.0), (600.0, 300.0));
    let after = offset(&s);
    assert_eq!(
        (after[0] - before[0], after[1] - before[1]),
        (300.0, 200.0),
        "the drag scrolled"
    );
    assert_eq!(
        s.eval("return bitmines.pending()"),
        json!(0),
        "and made no move"
    );
    s.wheel(900.0, 500.0, 0, 240);
    s.wait_for(
        "the wheel's scroll",
        &format!("return bitmines.offset()[1] > {}", after[1] + 100.0),
        WAIT,
    );
    no_errors(&s, &[]);
    drop(s);
    drop(driver);
    rt.block_on(server.stop());
}

/// Sends a move and waits for its ack: the cells it opened, the mines it set off, and
/// whether it left a flag.
async fn play(
    client: &mut Client,
    seq: u32,
    action: Action,
    row: u32,
    col: u32,
) -> (u32, u32, bool) {
    let msg = ClientMsg::Move {
        seq,
        action,
        row,
        col,
    };
    client.send(&msg).await.unwrap();
    loop {
        match client.recv().await.unwrap() {
            ServerMsg::Ack {
                seq: s,
                opened,
                exploded,
                flagged,
                ..
            } if s == seq => return (opened, exploded, flagged),
            ServerMsg::Error {
                seq: s, message, ..
            } if s == seq => panic!("{message}"),
            _ => {}
        }
    }
}

/// One pixel of a canvas, in its device pixels: [r, g, b, a].
fn pixel(s: &Session<'_>, canvas: &str, at: &Value) -> Vec<u8> {
    serde_json::from_value(s.eval_with(
        "const c = document.getElementById(arguments[0]);
         return Array.from(c.getContext('2d').getImageData(arguments[1], arguments[2], 1, 1).data)",
        json!([canvas, at[0], at[1]]),
    ))
    .unwrap()
}

#[test]
fn a_huge_board_zoomed_out_shows_where_the_team_played() {
    let Some((_one, driver, rt, server, base)) = start() else {
        return;
    };
    let query = "rows=10000&cols=10000&density=0.15&mode=coop&rule=endless";
    let mut client = open_room(&rt, &server, "picture", query);
    // Three regions far from each other and from the first click in the middle: openings
    // near (300, 300) and (9000, 7000), a flag near (9000, 7150), mines set off near
    // (3000, 9000). Under the endless rule a mine hit goes on, so reveals are tried until
    // each region has what it needs.
    let played = rt.block_on(async {
        let mut seq = 0;
        let mut played = Vec::new();
        for (row, col) in [(300u32, 300u32), (9000, 7000)] {
            let mut opened = 0;
            for k in 0..40 {
                seq += 1;
                opened += play(&mut client, seq, Action::Reveal, row + k % 7, col + k / 7)
                    .await
                    .0;
                if opened >= 8 {
                    break;
                }
            }
            assert!(opened >= 8, "nothing opened near ({row}, {col})");
            played.push((row / 64, col / 64));
        }
        let mut hit = 0;
        for k in 0..60 {
            seq += 1;
            hit += play(&mut client, seq, Action::Reveal, 3000 + k % 8, 9000 + k / 8)
                .await
                .1;
            if hit >= 2 {
                break;
            }
        }
        assert!(hit >= 1, "no mine set off near (3000, 9000)");
        played.push((3000 / 64, 9000 / 64));
        // A flag on the first cell still hidden: a flag on an open cell does nothing.
        for k in 0..10 {
            seq += 1;
            if play(&mut client, seq, Action::Flag, 9000 + k, 7150).await.2 {
                break;
            }
        }
        played.push((9000 / 64, 7150 / 64));
        client
            .send(&ClientMsg::Cursor {
                row: 9000,
                col: 7000,
            })
            .await
            .unwrap();
        played
    });
    // The player stays in the room (its cursor with it), read so its queue never fills.
    rt.spawn(async move { while client.recv().await.is_ok() {} });
    let s = driver.session(1280, 800);
    join(&s, &base, &format!("room=picture&{query}"));
    // Zoomed fully out: the whole board on screen, drawn from the chunks' summaries.
    s.keys(&"-".repeat(40));
    s.wait_for(
        "the board drawn from summaries",
        "return bitmines.summaryMode() && bitmines.summaries() !== null
           && bitmines.ready() && bitmines.offset()[2] < 0.1",
        WAIT,
    );
    let summaries: Vec<u8> = serde_json::from_value(s.eval("return bitmines.summaries()")).unwrap();
    let at = |(cr, cc): (u32, u32)| (cr as usize * 157 + cc as usize) * 4;
    assert_eq!(summaries.len(), 157 * 157 * 4);
    for &chunk in &played[..2] {
        assert!(summaries[at(chunk)] > 0, "chunk {chunk:?} opened nothing");
    }
    assert!(
        summaries[at(played[2]) + 1] > 0,
        "no mine hit in {:?}",
        played[2]
    );
    assert!(
        summaries[at(played[3]) + 2] > 0,
        "no flag in {:?}",
        played[3]
    );
    assert!(
        summaries[at((9000 / 64, 7000 / 64)) + 3] > 0,
        "no player's cursor"
    );
    let untouched = (20, 60);
    assert_eq!(&summaries[at(untouched)..at(untouched) + 4], &[0, 0, 0, 0]);
    // Two frames later the picture is drawn: each played chunk's centre differs from an
    // untouched chunk's, in the main view and in the minimap.
    s.eval("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))");
    let point = |chunk: (u32, u32)| {
        s.eval_with(
            "return bitmines.chunkPixel(arguments[0], arguments[1])",
            json!([chunk.0, chunk.1]),
        )
    };
    let sea = point(untouched);
    for canvas in ["board", "minimap"] {
        let key = if canvas == "board" {
            "board"
        } else {
            "minimap"
        };
        let unplayed = pixel(&s, canvas, &sea[key]);
        for &chunk in &played {
            let here = pixel(&s, canvas, &point(chunk)[key]);
            assert_ne!(
                here, unplayed,
                "chunk {chunk:?} on the {canvas} looks untouched"
            );
        }
    }
    s.screenshot(&shots().join("zoomed-out-1e8.png"));
    // A click zooms in on the point, to cells, and makes no move.
    let target = s.eval_with(
        "const r = document.getElementById('board').getBoundingClientRect();
         const p = bitmines.chunkPixel(arguments[0], arguments[1]).board;
         const [x, y] = [p[0] / devicePixelRatio, p[1] / devicePixelRatio];
         return [r.left + x, r.top + y, x, y]",
        json!([played[1].0, played[1].1]),
    );
    let f = |i: usize| target[i].as_f64().unwrap();
    s.click_points(&[(f(0), f(1))], 0);
    s.wait_for(
        "cells again",
        "return !bitmines.summaryMode() && bitmines.ready()",
        WAIT,
    );
    assert_eq!(
        s.eval("return bitmines.pending()"),
        json!(0),
        "a move was made"
    );
    let under = s.eval_with(
        "const [x, y, c] = bitmines.offset(); return [(y + arguments[1]) / c, (x + arguments[0]) / c]",
        json!([f(2), f(3)]),
    );
    let (row, col) = (under[0].as_f64().unwrap(), under[1].as_f64().unwrap());
    assert!(
        (8950.0..9100.0).contains(&row) && (6950.0..7100.0).contains(&col),
        "zoomed in at ({row}, {col}), not at chunk {:?}",
        played[1]
    );
    no_errors(&s, &[]);
    drop(s);
    drop(driver);
    rt.block_on(server.stop());
}

/// A phone's screen or a desk's window of `width` x `height` CSS pixels.
fn window(driver: &Driver, width: u32, height: u32, phone: bool) -> Session<'_> {
    if phone {
        driver.phone(width, height)
    } else {
        driver.session(width, height)
    }
}

/// Whether the page fits `width` CSS pixels: nothing wider than the screen, so no sideways
/// scrolling, and every element named in `inside` (if shown) wholly on the screen; a `+`
/// before a name asks for it only within the screen's width (the lobby scrolls down).
fn fits(s: &Session<'_>, width: u32, inside: &[&str]) -> Result<(), String> {
    let found = s.eval_with(
        "const [w, ids] = arguments;
         const wide = document.documentElement.scrollWidth;
         const out = ids.map(id => [id.startsWith('+'), document.querySelector(id.replace(/^[+]/, ''))])
           .filter(([, e]) => e && e.getClientRects().length)
           .map(([across, e]) => [across, e.id || e.tagName, e.getBoundingClientRect()])
           .filter(([across, , r]) => r.left < -0.5 || r.right > w + 0.5
             || (!across && (r.top < -0.5 || r.bottom > innerHeight + 0.5)))
           .map(([, id, r]) => [id, r])
           .map(([id, r]) => `${id} at ${Math.round(r.left)}..${Math.round(r.right)} x ${Math.round(r.top)}..${Math.round(r.bottom)}`);
         return [wide, innerWidth, out];",
        json!([width, inside]),
    );
    let (wide, inner) = (found[0].as_u64().unwrap(), found[1].as_u64().unwrap());
    let out: Vec<String> = serde_json::from_value(found[2].clone()).unwrap();
    if wide > u64::from(width) || inner != u64::from(width) || !out.is_empty() {
        return Err(format!(
            "at {width} px: the page is {wide} px wide in a {inner} px window; off the screen: {out:?}"
        ));
    }
    Ok(())
}

/// The lobby, the game, its menu, the keys and the end of a game at phone, tablet and desk
/// sizes: nothing wider than the screen, the toolbar folded into a menu on a phone, every
/// dialog on the screen. Photographed at each size.
#[test]
fn every_screen_fits_phones_and_desks() {
    let Some((_one, driver, rt, server, base)) = start() else {
        return;
    };
    // A room already open, with a long name, so the lobby lists one.
    let waiting = open_room(
        &rt,
        &server,
        "a-room-with-a-rather-long-name-for-a-phone",
        "rows=1000&cols=2000&density=0.2&mode=coop&rule=endless&name=ada",
    );
    let sizes = [
        (360, 740, true),
        (390, 844, true),
        (844, 390, true),
        (768, 1024, true),
        (1280, 800, false),
    ];
    let mut failures = Vec::new();
    for (width, height, phone) in sizes {
        let s = window(&driver, width, height, phone);
        let mut check = |what: &str, inside: &[&str]| {
            if let Err(e) = fits(&s, width, inside) {
                failures.push(format!("{what} {e}"));
            }
        };
        s.goto(&format!("{base}/"));
        s.wait_for(
            "the list of rooms",
            "return document.querySelectorAll('#rooms tbody tr').length",
            WAIT,
        );
        check("the lobby", &["+#create-room", "+#rooms .actions .button"]);
        s.screenshot(&shots().join(format!("fit-{width}x{height}-lobby.png")));
        join(
            &s,
            &base,
            &format!("room=fit-{width}&preset=expert&mode=coop&rule=classic&noguess=0"),
        );
        check("the game", &["#mines-left", "#clock", "#theme"]);
        let folded =
            s.eval("return getComputedStyle(document.getElementById('menu')).display !== 'none'");
        assert_eq!(folded, json!(width < 700), "the menu at {width} px");
        if width < 700 {
            assert_eq!(
                s.eval("return document.getElementById('tools').getClientRects().length"),
                json!(0),
                "the tools folded at {width} px"
            );
            click_element(&s, "#menu");
            check("the open menu", &["#tools", "#keys-button"]);
            s.screenshot(&shots().join(format!("fit-{width}x{height}-menu.png")));
        }
        click_element(&s, "#keys-button");
        s.wait_for(
            "the keys",
            "return document.getElementById('keys').open",
            WAIT,
        );
        check("the keys dialog", &["#keys"]);
        s.keys("\u{e00c}");
        s.wait_for(
            "the keys closed",
            "return !document.getElementById('keys').open",
            WAIT,
        );
        s.screenshot(&shots().join(format!("fit-{width}x{height}-game.png")));
        lose(&s);
        s.wait_for(
            "the end screen",
            "return document.getElementById('end').open",
            WAIT,
        );
        check("the end screen", &["#end", "#end-rematch", "#end .button"]);
        s.screenshot(&shots().join(format!("fit-{width}x{height}-end.png")));
        no_errors(&s, &[]);
    }
    assert!(failures.is_empty(), "{failures:#?}");
    rt.block_on(waiting.close());
    drop(driver);
    rt.block_on(server.stop());
}

/// No cell is ever under the minimap: each corner cell of boards from beginner to 10^8
/// cells, at a desk's and a phone's size, is brought into view as the page scrolls to it, is
/// the board's (not the minimap's) under the pointer, and opens when clicked.
#[test]
fn every_corner_cell_can_be_clicked_past_the_minimap() {
    let Some((_one, driver, rt, server, base)) = start() else {
        return;
    };
    let boards = [
        ("beginner", "preset=beginner", 9, 9),
        ("custom", "rows=100&cols=100&density=0.16", 100, 100),
        ("wide", "rows=40&cols=1000&density=0.16", 40, 1000),
        ("huge", "rows=10000&cols=10000&density=0.15", 10_000, 10_000),
    ];
    let mut covered = Vec::new();
    for (width, height, phone) in [(1280, 800, false), (390, 844, true)] {
        for (name, query, rows, cols) in boards {
            let s = window(&driver, width, height, phone);
            // Endless: a mine set off does not end the game, so every corner can be tried.
            join(
                &s,
                &base,
                &format!("room={name}-{width}&{query}&mode=coop&rule=endless&noguess=0"),
            );
            for (row, col) in [(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)] {
                let (x, y) = point(&s, row, col);
                let under = s.eval_with(
                    "return document.elementFromPoint(arguments[0], arguments[1])?.id ?? null",
                    json!([x, y]),
                );
                if under != json!("board") {
                    covered.push(format!(
                        "{name} at {width}x{height}: cell ({row}, {col}) under {under}"
                    ));
                    continue;
                }
                s.click_points(&[(x, y)], 0);
                settle(&s);
                let state = s.eval_with(
                    "return bitmines.cell(arguments[0], arguments[1])",
                    json!([row, col]),
                );
                if state.as_u64().is_none_or(|v| v == 9 || v == 255) {
                    covered.push(format!(
                        "{name} at {width}x{height}: cell ({row}, {col}) still {state} after a click"
                    ));
                }
            }
            s.screenshot(&shots().join(format!("corner-{name}-{width}x{height}.png")));
            no_errors(&s, &[]);
        }
    }
    assert!(covered.is_empty(), "{covered:#?}");
    drop(driver);
    rt.block_on(server.stop());
}

/// A room whose no-guess board takes a while to make: the page says how far the making is,
/// with no clock running, then shows the board with the clock at 0 until the first move.
#[test]
fn a_board_being_made_shows_its_progress_and_no_running_clock() {
    let Some((_one, driver, rt, server, base)) = start() else {
        return;
    };
    let s = driver.session(1280, 800);
    s.goto(&format!(
        "{base}/#room=making&rows=400&cols=400&density=0.2&noguess=1&mode=coop&rule=endless"
    ));
    // The page keeps the last share a progress frame gave, so a board made before a poll
    // of the page still counts; while it is being made, the connection line shows it.
    s.wait_for(
        "a progress frame",
        "return window.bitmines && bitmines.making() !== null",
        WAIT,
    );
    s.screenshot(&shots().join("making.png"));
    let seen = s.eval(
        "return [bitmines.state(), bitmines.making(), document.getElementById('connection').textContent]",
    );
    let share = seen[1].as_u64().expect("a share in percent");
    assert!(share <= 100, "{seen}");
    if seen[0] == json!("making") {
        assert_eq!(
            seen[2],
            json!(format!("making the board: {share}%")),
            "{seen}"
        );
    }
    s.wait_for(
        "the board, drawn",
        "return window.bitmines && bitmines.ready() && bitmines.firstPaint() !== null",
        Duration::from_secs(300),
    );
    // The welcome said the clock stands at 0 and is stopped; it stays so until a move.
    assert_eq!(welcome(&s)["clockRunning"], json!(false));
    std::thread::sleep(Duration::from_millis(1200));
    assert_eq!(
        s.eval("return document.getElementById('clock').textContent"),
        json!("0 s")
    );
    no_errors(&s, &[]);
    drop(s);
    drop(driver);
    rt.block_on(server.stop());
}

/// How long a move takes to reach another player's page: a client flags cells one after
/// another, each once the page has shown the last, and the page notes when each delta frame
/// came (on the same clock, milliseconds since 1970). Reported, never asserted.
#[test]
fn a_move_reaches_another_players_page_in_milliseconds() {
    let Some((_one, driver, rt, server, base)) = start() else {
        return;
    };
    let query = "rows=60&cols=60&mines=300&first=30,30";
    let mut mover = open_room(&rt, &server, "seen", query);
    let s = joined(&driver, &base, &format!("room=seen&{query}"));
    let hidden: Vec<(usize, usize)> = cells(&s)
        .iter()
        .enumerate()
        .flat_map(|(r, row)| row.iter().enumerate().map(move |(c, &v)| (r, c, v)))
        .filter(|&(_, _, v)| v == 9)
        .map(|(r, c, _)| (r, c))
        .take(60)
        .collect();
    let mut took = Vec::new();
    for (seq, &(row, col)) in hidden.iter().enumerate() {
        let sent = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64()
            * 1000.0;
        let flag = ClientMsg::Move {
            seq: seq as u32 + 1,
            action: Action::Flag,
            row: row as u32,
            col: col as u32,
        };
        rt.block_on(mover.send(&flag)).unwrap();
        s.wait_for(
            "the flag on the other page",
            &format!("return bitmines.cell({row}, {col}) === 10"),
            WAIT,
        );
        let came = s.eval("return bitmines.deltaAt()").as_f64().unwrap();
        took.push(came - sent);
    }
    took.sort_by(f64::total_cmp);
    let at = |q: f64| took[((took.len() - 1) as f64 * q).round() as usize];
    report(&format!(
        "a flag from one client reaching another player's page, {} moves: p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        took.len(),
        at(0.5),
        at(0.99),
        took[took.len() - 1]
    ));
    assert_eq!(took.len(), hidden.len());
    no_errors(&s, &[]);
    drop(s);
    drop(driver);
    rt.block_on(server.stop());
}

/// A race made from the lobby's race form has a countdown: the racers see who is ready, a
/// click before the start is held back with words, and once both racers are ready the page
/// counts 3-2-1 and the race starts with one clock for both.
#[test]
fn a_race_starts_for_all_after_a_countdown_once_everyone_is_ready() {
    let Some((_one, driver, rt, server, base)) = start() else {
        return;
    };
    let query = "preset=beginner&mode=race&countdown=1";
    let mut bob = open_room(&rt, &server, "go", &format!("{query}&name=bob"));
    let s = joined(&driver, &base, &format!("room=go&{query}"));
    let words = || s.eval("return document.getElementById('start-words').textContent");
    s.wait_for(
        "nobody ready",
        "return !document.getElementById('start').hidden
           && document.getElementById('start-words').textContent.startsWith('0 of 2 racers ready')",
        WAIT,
    );
    // The overlay passes axe-core's rules, waiting and counting down.
    let axe = axe_script();
    let accessible = |when: &str| {
        if let Some(script) = &axe {
            let found = axe_violations(&s, script);
            assert!(found.is_empty(), "{when}: {found:#?}");
        }
    };
    accessible("waiting for the racers");
    // A click before the start sends nothing and says why. The cell clicked is a hidden one
    // that the overlay does not cover: the opening may reach any corner of a beginner board.
    let seq = s.eval("return bitmines.seq()");
    let aim = s.eval(
        "const cells = bitmines.cells();
         for (let r = 0; r < cells.length; r++)
           for (let c = 0; c < cells[r].length; c++) {
             if (cells[r][c] !== 9) continue;
             const [x, y] = bitmines.cellPoint(r, c);
             if (document.elementFromPoint(x, y)?.id === 'board') return [r, c];
           }
         return null",
    );
    let aim = (
        aim[0].as_u64().expect("a hidden cell outside the overlay") as usize,
        aim[1].as_u64().unwrap() as usize,
    );
    click_cells(&s, &[aim], 0);
    assert_eq!(s.eval("return bitmines.seq()"), seq, "a move was sent");
    let said = s.eval("return document.getElementById('say').textContent");
    assert!(said.as_str().unwrap().contains("press Ready"), "{said}");

    // Bob is ready; then this page.
    rt.block_on(bob.send(&ClientMsg::Ready { seq: 1 })).unwrap();
    s.wait_for(
        "Bob ready",
        "return document.getElementById('start-words').textContent.startsWith('1 of 2')",
        WAIT,
    );
    click_element(&s, "#start-ready");
    s.wait_for(
        "the countdown",
        "return /^[123]$/.test(document.getElementById('start-count').textContent)",
        WAIT,
    );
    assert!(
        words().as_str().unwrap().contains("starts in"),
        "{}",
        words()
    );
    s.screenshot(&shots().join("race-countdown.png"));
    accessible("the countdown");
    assert_eq!(s.eval("return bitmines.clock().running"), json!(false));
    s.wait_for(
        "the start",
        "return document.getElementById('start').hidden && bitmines.clock().running",
        Duration::from_secs(10),
    );
    // One clock for both: Bob's connection was told the same start.
    let started = rt.block_on(async {
        loop {
            if let ServerMsg::Clock { running: true, .. } = bob.recv().await.unwrap() {
                return true;
            }
        }
    });
    assert!(started);
    // Now the race is on: the same click is played.
    click_cells(&s, &[aim], 0);
    settle(&s);
    assert_ne!(
        cells(&s)[aim.0][aim.1],
        9,
        "the click after the start was not played"
    );
    no_errors(&s, &[]);
    drop(s);
    drop(driver);
    rt.block_on(server.stop());
}

/// The page's `protocol.js` against the server's `protocol.rs`: every server message the
/// Rust encoder writes decodes in the page to the same fields, and every client frame the
/// page writes decodes in Rust to the message meant.
#[test]
fn a_lost_coop_game_is_played_again_with_the_rematch_button() {
    let Some((_one, driver, rt, server, base)) = start() else {
        return;
    };
    let s = driver.session(1280, 800);
    join(
        &s,
        &base,
        "room=again&preset=expert&mode=coop&rule=classic&noguess=0",
    );
    assert_eq!(s.eval("return bitmines.game()"), json!(1));
    let mines = lose(&s);
    s.wait_for(
        "the end screen with its Rematch button",
        "return document.getElementById('end').open
           && !document.getElementById('end-rematch').hidden",
        WAIT,
    );
    s.wait_for(
        "the mines shown",
        "return bitmines.cells().some(row => row.some(c => c === 12))",
        WAIT,
    );
    s.screenshot(&shots().join("rematch-end.png"));
    click_element(&s, "#end-rematch");
    // Game 2: the end screen gone, the clock stopped at 0, and a fresh board: every chunk
    // in view again, nothing shown but hidden cells and the first click's opening.
    s.wait_for(
        "the new game",
        "return bitmines.game() === 2 && bitmines.status() === 0
           && !document.getElementById('end').open && bitmines.ready()",
        WAIT,
    );
    s.wait_for(
        "the new game's board",
        "return bitmines.cells().every(row => row.every(c => c <= 9))
           && bitmines.cells().some(row => row.some(c => c <= 8))",
        WAIT,
    );
    let clock = s.eval("return bitmines.clock()");
    assert_eq!(
        (clock["ms"].as_u64(), clock["running"].as_bool()),
        (Some(0), Some(false)),
        "{clock}"
    );
    s.screenshot(&shots().join("rematch-new.png"));
    // The new game plays: a proven safe cell opens.
    safe_round(&s, mines);
    assert_eq!(status(&s), 0);
    no_errors(&s, &[]);
    drop(s);
    drop(driver);
    rt.block_on(server.stop());
}

#[test]
fn the_pages_codec_agrees_with_the_servers() {
    use bitmines_server::protocol::{
        ChunkRect, ChunkSummary, EventKind, MineRule, Mode, NO_TIME, NOBODY, Over, PlayerInfo,
        SeriesEntry, Welcome,
    };
    let _one = lock();
    let Some(driver) = Driver::start() else {
        return;
    };
    let rt = runtime();
    let server = rt.block_on(support::start());
    let s = driver.session(800, 600);
    s.goto(&format!("http://{}/", server.addr));
    let decode = |msg: &ServerMsg| -> Value {
        let bytes: Vec<u8> = msg.encode().to_vec();
        s.eval_with(
            "return import('/web/protocol.js').then(p => {
               const m = p.decode(new Uint8Array(arguments[0]).buffer);
               return JSON.parse(JSON.stringify(m, (k, v) =>
                 v instanceof Uint8Array ? Array.from(v) : v));
             })",
            json!([bytes]),
        )
    };
    let chunk = |cells: Vec<u8>, height: u8, width: u8| ServerMsg::Chunk {
        view: 3,
        chunk_row: 70_000,
        chunk_col: 2,
        height,
        width,
        cells,
    };
    let varied: Vec<u8> = (0..64 * 64).map(|i| (i * 7 % 14) as u8).collect();
    let mut runs = vec![9u8; 40 * 33];
    runs[5] = 3;
    runs[1000] = 10;
    let cases: Vec<(ServerMsg, Value)> = vec![
        (
            ServerMsg::Welcome(Welcome {
                version: 1,
                spectator: false,
                player: 7,
                token: [0xab; 16],
                rows: 10_000,
                cols: 9_999,
                mines: 15_000_000,
                mode: Mode::Coop,
                rule: MineRule::Endless,
                no_guess: true,
                first: Some((5000, 4999)),
                max_chunks: 256,
                view: 0,
                elapsed_ms: 61_234,
                clock_running: true,
                game: 3,
            }),
            json!({"type": "welcome", "version": 1, "spectator": false, "player": 7,
                   "token": "ab".repeat(16), "rows": 10000, "cols": 9999, "mines": 15000000,
                   "mode": "coop", "rule": "endless", "noguess": true, "first": [5000, 4999],
                   "maxChunks": 256, "view": 0, "elapsedMs": 61234, "clockRunning": true,
                   "game": 3}),
        ),
        (
            // A room whose board is made around the first cell a player reveals.
            ServerMsg::Welcome(Welcome {
                version: 1,
                spectator: true,
                player: NOBODY,
                token: [0; 16],
                rows: 16,
                cols: 30,
                mines: 99,
                mode: Mode::Coop,
                rule: MineRule::Classic,
                no_guess: false,
                first: None,
                max_chunks: 64,
                view: 0,
                elapsed_ms: 0,
                clock_running: false,
                game: 1,
            }),
            json!({"type": "welcome", "version": 1, "spectator": true, "player": NOBODY,
                   "token": "00".repeat(16), "rows": 16, "cols": 30, "mines": 99,
                   "mode": "coop", "rule": "classic", "noguess": false, "first": null,
                   "maxChunks": 64, "view": 0, "elapsedMs": 0, "clockRunning": false,
                   "game": 1}),
        ),
        (
            ServerMsg::Ack {
                seq: 9,
                opened: 40,
                exploded: 1,
                status: 2,
                flagged: true,
            },
            json!({"type": "ack", "seq": 9, "opened": 40, "exploded": 1, "status": 2,
                   "flagged": true}),
        ),
        (
            ServerMsg::Error {
                seq: 4,
                code: 6,
                message: "wätching 300 chunks".into(),
            },
            json!({"type": "error", "seq": 4, "code": 6, "message": "wätching 300 chunks"}),
        ),
        (
            chunk(vec![9; 64 * 64], 64, 64),
            json!({"type": "chunk", "view": 3, "chunkRow": 70000, "chunkCol": 2, "height": 64,
                   "width": 64, "cells": vec![9; 64 * 64]}),
        ),
        (
            chunk(varied.clone(), 64, 64),
            json!({"type": "chunk", "view": 3, "chunkRow": 70000, "chunkCol": 2, "height": 64,
                   "width": 64, "cells": varied}),
        ),
        (
            chunk(runs.clone(), 40, 33),
            json!({"type": "chunk", "view": 3, "chunkRow": 70000, "chunkCol": 2, "height": 40,
                   "width": 33, "cells": runs}),
        ),
        (
            chunk(vec![1, 2, 3], 1, 3),
            json!({"type": "chunk", "view": 3, "chunkRow": 70000, "chunkCol": 2, "height": 1,
                   "width": 3, "cells": [1, 2, 3]}),
        ),
        (
            ServerMsg::Delta {
                view: 1,
                chunk_row: 2,
                chunk_col: 3,
                cells: vec![(4095, 13), (0, 0)],
            },
            json!({"type": "delta", "view": 1, "chunkRow": 2, "chunkCol": 3,
                   "cells": [[4095, 13], [0, 0]]}),
        ),
        (
            ServerMsg::Players(vec![PlayerInfo {
                id: 2,
                name: "Zoë".into(),
                online: true,
                status: 1,
                revealed: 5_000_000_000,
                mines_hit: 3,
                flags: 4,
                elapsed_ms: 61_000,
            }]),
            json!({"type": "players", "players": [{"id": 2, "online": true, "status": 1,
                   "revealed": 5000000000u64, "minesHit": 3, "flags": 4, "elapsedMs": 61000,
                   "name": "Zoë"}]}),
        ),
        (
            ServerMsg::Cursors(vec![(1, 2, 3), (4, 5, 6)]),
            json!({"type": "cursors", "cursors": [{"player": 1, "row": 2, "col": 3},
                   {"player": 4, "row": 5, "col": 6}]}),
        ),
        (
            ServerMsg::Over(Over {
                view: 2,
                status: 1,
                elapsed_ms: 12_345,
                bbbv: 150,
                clicks: 170,
                correct_flags: vec![(1, 10), (2, 0)],
            }),
            json!({"type": "over", "view": 2, "status": 1, "elapsedMs": 12345, "bbbv": 150,
                   "clicks": 170, "correctFlags": [{"player": 1, "correct": 10},
                   {"player": 2, "correct": 0}]}),
        ),
        (
            ServerMsg::Hint {
                seq: 5,
                found: Some((3, 4, "the 1 at (2, 3) is satisfied".into())),
            },
            json!({"type": "hint", "seq": 5, "found": {"row": 3, "col": 4,
                   "reason": "the 1 at (2, 3) is satisfied"}}),
        ),
        (
            ServerMsg::Hint {
                seq: 6,
                found: None,
            },
            json!({"type": "hint", "seq": 6, "found": null}),
        ),
        (
            ServerMsg::Odds {
                seq: 7,
                row: 1,
                col: 2,
                height: 2,
                width: 3,
                cells: vec![0, 200, 255, 1, 2, 3],
            },
            json!({"type": "odds", "seq": 7, "row": 1, "col": 2, "height": 2, "width": 3,
                   "cells": [0, 200, 255, 1, 2, 3]}),
        ),
        (
            ServerMsg::WrongFlags {
                seq: 8,
                cells: vec![(1, 2), (70_000, 3)],
            },
            json!({"type": "wrongFlags", "seq": 8, "cells": [[1, 2], [70000, 3]]}),
        ),
        (
            ServerMsg::Pong {
                nonce: 1_700_000_000_000,
            },
            json!({"type": "pong", "nonce": 1700000000000u64}),
        ),
        (
            ServerMsg::Event {
                kind: EventKind::MineHit,
                player: 3,
                row: 4,
                col: 5,
            },
            json!({"type": "event", "kind": 1, "player": 3, "row": 4, "col": 5}),
        ),
        (
            ServerMsg::Clock {
                view: 2,
                elapsed_ms: 90_061,
                running: true,
            },
            json!({"type": "clock", "view": 2, "elapsedMs": 90061, "running": true}),
        ),
        (
            ServerMsg::Progress { share: 4_271 },
            json!({"type": "progress", "share": 4271}),
        ),
        (
            ServerMsg::NewGame { game: 70_000 },
            json!({"type": "newGame", "game": 70000}),
        ),
        (
            ServerMsg::Team {
                opened: 9_000_000_001,
            },
            json!({"type": "team", "opened": 9_000_000_001u64}),
        ),
        (
            ServerMsg::Start {
                ready: 2,
                racers: 3,
                starts_in_ms: NO_TIME,
            },
            json!({"type": "start", "ready": 2, "racers": 3, "startsInMs": 4294967295u64}),
        ),
        (
            ServerMsg::Summaries {
                view: 4,
                rect: ChunkRect {
                    row: 150,
                    col: 70_000,
                    rows: 1,
                    cols: 3,
                },
                chunks: vec![
                    ChunkSummary {
                        opened: 255,
                        exploded: 0,
                        flags: 3,
                        players: 1,
                    },
                    ChunkSummary::default(),
                    ChunkSummary {
                        opened: 1,
                        exploded: 255,
                        flags: 0,
                        players: 0,
                    },
                ],
            },
            json!({"type": "summaries", "view": 4, "chunkRow": 150, "chunkCol": 70000,
                "rows": 1, "cols": 3, "chunks": [255, 0, 3, 1, 0, 0, 0, 0, 1, 255, 0, 0]}),
        ),
        (
            ServerMsg::Series(vec![
                SeriesEntry {
                    player: 1,
                    wins: 2,
                    best_ms: 31_415,
                },
                SeriesEntry {
                    player: 2,
                    wins: 0,
                    best_ms: NO_TIME,
                },
            ]),
            json!({"type": "series", "series": [
                {"player": 1, "wins": 2, "bestMs": 31415},
                {"player": 2, "wins": 0, "bestMs": 4294967295u64}]}),
        ),
    ];
    for (msg, expected) in &cases {
        assert_eq!(&decode(msg), expected, "{msg:?}");
    }

    let encoded = s.eval(
        "return import('/web/protocol.js').then(({encode}) => [
           encode.subscribe({row: 1, col: 2, rows: 3, cols: 4}),
           encode.unsubscribe({row: 70000, col: 0, rows: 1, cols: 1}),
           encode.reveal(1, 2, 3), encode.flag(4, 5, 6), encode.chord(7, 8, 9),
           encode.hint(10, 11, 12), encode.odds(13, 14, 15), encode.cursor(16, 17),
           encode.watch(18), encode.ping(1700000000000), encode.wrongFlags(19, 20, 21),
           encode.rematch(22), encode.ready(23), encode.summaries({row: 3, col: 150, rows: 157, cols: 2}),
         ].map(b => Array.from(new Uint8Array(b))))",
    );
    let rect = |row, col, rows, cols| ChunkRect {
        row,
        col,
        rows,
        cols,
    };
    let mv = |seq, action, row, col| ClientMsg::Move {
        seq,
        action,
        row,
        col,
    };
    let expected = [
        ClientMsg::Subscribe(rect(1, 2, 3, 4)),
        ClientMsg::Unsubscribe(rect(70_000, 0, 1, 1)),
        mv(1, Action::Reveal, 2, 3),
        mv(4, Action::Flag, 5, 6),
        mv(7, Action::Chord, 8, 9),
        ClientMsg::Hint {
            seq: 10,
            row: 11,
            col: 12,
        },
        ClientMsg::Odds {
            seq: 13,
            row: 14,
            col: 15,
        },
        ClientMsg::Cursor { row: 16, col: 17 },
        ClientMsg::Watch { player: 18 },
        ClientMsg::Ping {
            nonce: 1_700_000_000_000,
        },
        ClientMsg::WrongFlags {
            seq: 19,
            row: 20,
            col: 21,
        },
        ClientMsg::Rematch { seq: 22 },
        ClientMsg::Ready { seq: 23 },
        ClientMsg::Summaries(rect(3, 150, 157, 2)),
    ];
    let frames: Vec<Vec<u8>> = serde_json::from_value(encoded).unwrap();
    assert_eq!(frames.len(), expected.len());
    for (bytes, want) in frames.iter().zip(&expected) {
        assert_eq!(ClientMsg::decode(bytes).as_ref(), Ok(want), "{bytes:?}");
    }
    no_errors(&s, &[]);
    drop(s);
    drop(driver);
    rt.block_on(server.stop());
}

/// What a browser test does on a machine with or without Chromium: runs where both programs
/// are found, skips where one is missing and nothing asks for them, and fails where
/// `BITMINES_BROWSER_TESTS=required` (as in CI) or the variable holds a value it does not know.
#[test]
fn a_missing_browser_skips_unless_required() {
    use driver::{Plan, plan};
    let found = || Some("chromedriver".to_string());
    let browser = || Some("chromium".to_string());
    assert_eq!(
        plan(found(), browser(), false, None),
        Plan::Run {
            chromedriver: "chromedriver".to_string(),
            chromium: None
        }
    );
    assert_eq!(
        plan(found(), browser(), true, Some("required")),
        Plan::Run {
            chromedriver: "chromedriver".to_string(),
            chromium: Some("chromium".to_string())
        }
    );
    for (chromedriver, chromium) in [(None, browser()), (found(), None), (None, None)] {
        for policy in [None, Some("")] {
            let Plan::Skip(line) = plan(chromedriver.clone(), chromium.clone(), false, policy)
            else {
                panic!("a missing browser is skipped when nothing requires it");
            };
            assert!(line.starts_with("skipped: "), "{line}");
            assert!(
                line.contains("apt-get install chromium chromium-driver"),
                "{line}"
            );
            assert!(line.contains("BITMINES_BROWSER_TESTS=required"), "{line}");
        }
        let Plan::Fail(message) = plan(chromedriver, chromium, false, Some("required")) else {
            panic!("a missing browser fails the run when it is required");
        };
        assert!(
            message.contains("apt-get install chromium chromium-driver"),
            "{message}"
        );
    }
    let Plan::Fail(message) = plan(None, None, false, Some("requried")) else {
        panic!("a misspelt policy is not taken for unset");
    };
    assert!(message.contains("\"requried\""), "{message}");
}
