//! `bitmines serve` as a real process: killed with SIGKILL at random moments under load and
//! restarted on the same data folder, every acknowledged move is still there; a torn log
//! tail and a corrupt snapshot are survived; Ctrl-C's path (SIGTERM) closes clients with a
//! reason; `bitmines loadtest` runs against it for a few seconds; a stray file under
//! `rooms/` is quarantined with one line, and a data folder that cannot be written stops the
//! start with one.

#[allow(dead_code)]
mod support;

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bitmines_server::client::{Client, ClientError, Picture};
use bitmines_server::log::{RoomDir, Sync};
use bitmines_server::metrics::Metrics;
use bitmines_server::protocol::{Action, ChunkRect, ClientMsg, ErrorCode, ServerMsg, cell};
use support::Rng;

/// Sends SIGTERM to `child` by its PID. The shell's own `kill` does it, since a fresh machine
/// may have no `kill` program (Debian's is in procps) but always has `sh`.
fn sigterm(child: &Child) {
    let status = Command::new("sh")
        .args(["-c", "kill -TERM \"$0\""])
        .arg(child.id().to_string())
        .status()
        .expect("sh runs");
    assert!(status.success(), "kill -TERM {}: {status}", child.id());
}

/// A server process on a free loopback port.
struct Serve {
    child: Child,
    addr: String,
}

impl Serve {
    fn start(data: &Path, extra: &[&str]) -> Serve {
        let mut child = Command::new(env!("CARGO_BIN_EXE_bitmines"))
            .args(["serve", "--listen", "127.0.0.1:0", "--data"])
            .arg(data)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        Serve { child, addr }
    }

    fn url(&self, room: &str, query: &str) -> String {
        format!("ws://{}/room/{room}?{query}", self.addr)
    }

    /// SIGKILL, by this process's own PID (`Child::kill`), and wait for it.
    fn kill(mut self) -> String {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            use std::io::Read;
            let _ = e.read_to_string(&mut err);
        }
        err
    }

    /// SIGTERM by PID, then wait for the clean exit.
    fn terminate(mut self) -> (std::process::ExitStatus, String) {
        sigterm(&self.child);
        let status = self.child.wait().unwrap();
        let mut err = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            use std::io::Read;
            let _ = e.read_to_string(&mut err);
        }
        (status, err)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        // A test that failed half way leaves no server behind.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What one player had acknowledged, and the move it had in flight when the server died.
#[derive(Default, Clone)]
struct Acked {
    reveals: Vec<(u32, u32)>,
    /// Per flagged cell, whether the last acknowledged toggle left it flagged (a toggle on
    /// a revealed or exploded cell does nothing, and its ack says so).
    flags: HashMap<(u32, u32), bool>,
    in_flight: Option<(Action, u32, u32)>,
    /// Cells whose flag toggle was in flight at a kill: applied or not, nobody knows.
    uncertain: std::collections::HashSet<(u32, u32)>,
}

const ROWS: u32 = 200;
const COLS: u32 = 200;

/// A player that reveals and flags cells of its own band of columns, one move at a time,
/// until the connection dies.
async fn play(url: String, band: u32, seed: u64, acked: Arc<std::sync::Mutex<Acked>>) {
    let Ok(mut client) = Client::connect(&url).await else {
        return;
    };
    let mut rng = Rng::new(seed);
    let mut seq = 0u32;
    loop {
        seq += 1;
        let row = rng.below(ROWS as usize) as u32;
        let col = band * 50 + rng.below(50) as u32;
        let action = if rng.chance(0.3) {
            Action::Flag
        } else {
            Action::Reveal
        };
        acked.lock().unwrap().in_flight = Some((action, row, col));
        if client
            .send(&ClientMsg::Move {
                seq,
                action,
                row,
                col,
            })
            .await
            .is_err()
        {
            return;
        }
        loop {
            match client.recv().await {
                Ok(ServerMsg::Ack {
                    seq: s,
                    opened,
                    exploded,
                    flagged,
                    ..
                }) if s == seq => {
                    let mut a = acked.lock().unwrap();
                    a.in_flight = None;
                    match action {
                        // A reveal of a flagged or revealed cell does nothing; one that did
                        // something must still show after any crash.
                        Action::Reveal if opened + exploded > 0 => a.reveals.push((row, col)),
                        Action::Reveal => {}
                        _ => {
                            a.flags.insert((row, col), flagged);
                        }
                    }
                    break;
                }
                Ok(ServerMsg::Error { seq: s, .. }) if s == seq => {
                    acked.lock().unwrap().in_flight = None;
                    break;
                }
                Ok(_) => {}
                Err(_) => return,
            }
        }
    }
}

/// Every acknowledged move shows in the restarted server's view.
async fn check_acked(url: &str, tokens: &[String], acked: &[Acked]) {
    let mut picture = Picture::default();
    let mut client = Client::connect(&format!("{url}&token={}", tokens[0]))
        .await
        .unwrap();
    client
        .send(&ClientMsg::Subscribe(ChunkRect {
            row: 0,
            col: 0,
            rows: 4,
            cols: 4,
        }))
        .await
        .unwrap();
    let mut chunks = 0;
    while chunks < 16 {
        let msg = client.recv().await.unwrap();
        chunks += usize::from(matches!(msg, ServerMsg::Chunk { .. }));
        picture.apply(&msg);
    }
    for a in acked {
        for &(r, c) in &a.reveals {
            let s = picture.cell(0, r as usize, c as usize).unwrap();
            assert!(
                s <= cell::OPEN_MAX || s == cell::EXPLODED,
                "acknowledged reveal of ({r}, {c}) lost: {s}"
            );
        }
        for (&(r, c), &flag) in &a.flags {
            let flagged = picture.cell(0, r as usize, c as usize).unwrap() == cell::FLAGGED;
            let maybe_one_more =
                matches!(a.in_flight, Some((Action::Flag, fr, fc)) if (fr, fc) == (r, c));
            // The last acknowledged toggle decides, unless one was in flight on the cell when
            // the server died (then it may or may not have been applied).
            if !maybe_one_more && !a.uncertain.contains(&(r, c)) {
                assert_eq!(
                    flagged, flag,
                    "({r}, {c}): the last acknowledged flag said {flag}"
                );
            }
        }
    }
    client.close().await;
}

/// A runtime for the tests' clients: two threads, as many as the machine's cores.
fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn every_acknowledged_move_survives_sigkill() {
    let data = tempfile::tempdir().unwrap();
    let runtime = runtime();
    let query = format!("rows={ROWS}&cols={COLS}&density=0.15&rule=endless");
    let mut rng = Rng::new(26);
    let mut tokens: Vec<String> = Vec::new();
    let mut acked = vec![Acked::default(); 4];
    for round in 0..4 {
        // One room worker syncs its rounds itself; two share a sync thread: both ways are
        // killed, on the same data.
        let threads = if round % 2 == 0 { "1" } else { "2" };
        let serve = Serve::start(
            data.path(),
            &["--snapshot-every", "20", "--threads", threads],
        );
        let url = serve.url("crash", &query);
        runtime.block_on(async {
            if round > 0 {
                check_acked(&url, &tokens, &acked).await;
            }
            if tokens.is_empty() {
                for _ in 0..4 {
                    let c = Client::connect(&url).await.unwrap();
                    tokens.push(c.token_hex());
                    c.close().await;
                }
            }
        });
        let shared: Vec<_> = acked
            .iter()
            .map(|a| {
                Arc::new(std::sync::Mutex::new(Acked {
                    in_flight: None,
                    ..a.clone()
                }))
            })
            .collect();
        let tasks: Vec<_> = (0..4)
            .map(|i| {
                runtime.spawn(play(
                    format!("{url}&token={}", tokens[i]),
                    i as u32,
                    rng.next(),
                    Arc::clone(&shared[i]),
                ))
            })
            .collect();
        // Let it run a random while under load, then kill it.
        std::thread::sleep(Duration::from_millis(300 + rng.below(700) as u64));
        let moves: usize = shared.iter().map(|a| a.lock().unwrap().reveals.len()).sum();
        serve.kill();
        runtime.block_on(async {
            for t in tasks {
                let _ = tokio::time::timeout(Duration::from_secs(10), t).await;
            }
        });
        acked = shared.iter().map(|a| a.lock().unwrap().clone()).collect();
        for a in &mut acked {
            if let Some((Action::Flag, r, c)) = a.in_flight {
                a.uncertain.insert((r, c));
            }
        }
        assert!(
            moves > 0,
            "round {round}: no move was acknowledged before the kill"
        );
    }
    // A torn last record (a header promising more than is there) and a corrupt newest
    // snapshot: the server starts, says what it dropped, and keeps every acknowledged move.
    let room = data.path().join("rooms").join("crash");
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(room.join("log"))
        .unwrap()
        .write_all(&[40, 0, 0, 0, 1, 2, 3])
        .unwrap();
    let mut snaps: Vec<_> = std::fs::read_dir(&room)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        // A kill in the middle of a snapshot leaves its `.tmp`, which the server never
        // reads: corrupting it would test nothing.
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("snapshot-") && !n.ends_with(".tmp"))
        })
        .collect();
    snaps.sort();
    assert!(snaps.len() >= 2, "two snapshots kept: {snaps:?}");
    let newest = snaps.last().unwrap();
    let mut bytes = std::fs::read(newest).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(newest, bytes).unwrap();
    let serve = Serve::start(data.path(), &[]);
    let url = serve.url("crash", &query);
    runtime.block_on(check_acked(&url, &tokens, &acked));
    let (status, stderr) = serve.terminate();
    assert!(status.success(), "{status}: {stderr}");
    assert!(stderr.contains("dropped the last 7 bytes"), "{stderr}");
    assert!(stderr.contains("trying the snapshot before it"), "{stderr}");
    // The data as the server left it reads back whole and valid.
    let (recovered, _) = RoomDir::new(data.path(), "crash")
        .recover(Sync::Os, 256, Arc::new(Metrics::default()))
        .unwrap();
    recovered.validate().unwrap();
}

#[test]
fn sigterm_closes_every_client_with_a_reason_and_saves() {
    let data = tempfile::tempdir().unwrap();
    let serve = Serve::start(data.path(), &[]);
    let url = serve.url("bye", "preset=beginner");
    let runtime = runtime();
    let mut client = runtime.block_on(Client::connect(&url)).unwrap();
    let health = runtime.block_on(support_http(&serve.addr, "/healthz"));
    assert!(health.ends_with("ok\n"), "{health}");
    let started = Instant::now();
    sigterm(&serve.child);
    let closed = runtime.block_on(async {
        loop {
            match client.recv().await {
                Ok(_) => continue,
                Err(e) => return e,
            }
        }
    });
    assert_eq!(
        closed,
        ClientError::Closed(Some((1001, "the server is shutting down".into())))
    );
    let (status, _) = serve.terminate();
    assert!(status.success());
    assert!(started.elapsed() < Duration::from_secs(30));
    let snaps = std::fs::read_dir(data.path().join("rooms/bye"))
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("snapshot-"))
        .count();
    assert!(snaps >= 1);
}

async fn support_http(addr: &str, path: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes())
        .await
        .unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).await.unwrap();
    out
}

#[test]
fn loadtest_runs_a_few_seconds_against_a_local_server() {
    let data = tempfile::tempdir().unwrap();
    // --threads 0 is one per core, as in every subcommand that takes it.
    let serve = Serve::start(data.path(), &["--sync", "os", "--threads", "0"]);
    let url = serve.url("load", "rows=2000&cols=2000&density=0.15&rule=endless");
    let out = Command::new(env!("CARGO_BIN_EXE_bitmines"))
        .args([
            "loadtest",
            &url,
            "--clients",
            "20",
            "--duration",
            "3",
            "--warmup",
            "1",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["schema"], "bitmines-loadtest/2");
    assert_eq!(report["moves_per_second"].as_f64(), Some(10.0), "{report}");
    assert_eq!(report["warmup_s"].as_f64(), Some(1.0), "{report}");
    let actions = report["actions"].as_u64().unwrap();
    assert!(actions > 0, "{report}");
    // 10 moves a second each, paced: the 3 timed seconds hold at most 31 a player; moves of
    // the warm-up second are not counted.
    assert!(actions <= 20 * 31, "{report}");
    assert!(report["ack_ms"]["p99"].as_f64().unwrap() > 0.0);
    // The hiccup meter sleeps 1 ms at a time through the 3 timed seconds, and only those.
    let hiccups = &report["hiccup_ms"];
    let count = hiccups["count"].as_u64().unwrap();
    assert!((100..=3000).contains(&count), "{report}");
    assert!(hiccups["max"].as_f64().unwrap() >= hiccups["p50"].as_f64().unwrap());
    let over_100ms = report["server_syncs_over_100ms"].as_u64().unwrap();
    assert!(over_100ms <= report["server_syncs_over_20ms"].as_u64().unwrap());
    assert!(report["bytes_in_per_s"].as_f64().unwrap() > 0.0, "{report}");
    assert!(report["server_memory_after"].as_u64().unwrap() > 0);
    // Other machines are refused outright.
    let out = Command::new(env!("CARGO_BIN_EXE_bitmines"))
        .args(["loadtest", "ws://192.0.2.1:8080/room/x", "--duration", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("only targets this machine"));
    serve.terminate();
    let out = Command::new(env!("CARGO_BIN_EXE_bitmines"))
        .args(["serve", "--threads", "-1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .starts_with("bitmines: --threads -1: must be 0 (one per core) or more"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A short soak: 40 beginner games through a server the soak starts and restarts half-way,
/// with rematches, reconnections and a return after an eviction, and nothing acknowledged
/// lost. Its data folder is given, so the archive it leaves can be checked here.
#[test]
fn a_short_soak_plays_every_game_restarts_once_and_loses_nothing() {
    let data = tempfile::tempdir().unwrap();
    let samples = data.path().join("samples.csv");
    let out = Command::new(env!("CARGO_BIN_EXE_bitmines"))
        .args([
            "loadtest",
            "--soak",
            "40",
            "--preset",
            "beginner",
            "--concurrency",
            "4",
            "--time-limit",
            "300",
            "--json",
            "--data",
        ])
        .arg(data.path().join("rooms"))
        .arg("--samples")
        .arg(&samples)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["schema"], "bitmines-soak/1");
    assert_eq!(report["games"], 40, "{report}");
    assert_eq!(
        report["coop"].as_u64().unwrap() + report["race"].as_u64().unwrap(),
        40,
        "{report}"
    );
    assert!(report["coop"].as_u64().unwrap() > 0, "{report}");
    assert!(report["race"].as_u64().unwrap() > 0, "{report}");
    assert_eq!(report["restarts"], 1, "{report}");
    assert_eq!(report["lost"], 0, "{report}");
    assert_eq!(report["pass"], true, "{report}");
    assert!(report["rematches"].as_u64().unwrap() > 0, "{report}");
    assert!(report["reconnects"].as_u64().unwrap() > 0, "{report}");
    assert_eq!(report["returns_after_eviction"], 1, "{report}");
    assert!(report["archived"].as_u64().unwrap() > 0, "{report}");
    let per_game = report["archive_bytes_per_game"].as_f64().unwrap();
    assert!(per_game > 0.0 && per_game <= 1024.0, "{report}");
    assert!(
        report["failures"].as_array().unwrap().is_empty(),
        "{report}"
    );
    // The samples file has its header and a row a second.
    let csv = std::fs::read_to_string(&samples).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("seconds,games,rss_bytes,open_files,live_rooms,data_bytes,archive_bytes")
    );
    let rows = lines.count();
    assert_eq!(rows as u64, report["samples"].as_u64().unwrap());
    assert!(rows >= 1, "{csv}");
    // The soak's data folder holds the archive of its games.
    assert!(data.path().join("rooms/archive/index").exists());
}

#[test]
fn a_stray_file_is_quarantined_in_one_line_and_an_unwritable_data_folder_stops_the_start() {
    // A file where the data folder should be (a read-only folder would not stop root): the
    // start fails with exit 2 and one line on standard error.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data");
    std::fs::write(&file, "not a folder\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_bitmines"))
        .args(["serve", "--listen", "127.0.0.1:0", "--data"])
        .arg(&file)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A server that started after all would never exit: stop it by its own handle and fail.
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("bitmines serve started on the file {}", file.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert_eq!(status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("bitmines: cannot write the data folder") && stderr.contains("--data"),
        "{stderr}"
    );
    // A stray file under rooms/: the server starts, names it and the cause in one line, and
    // moves it to quarantine/.
    let data = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(data.path().join("rooms")).unwrap();
    std::fs::write(data.path().join("rooms").join("notes.txt"), "a note\n").unwrap();
    let serve = Serve::start(data.path(), &[]);
    let (status, stderr) = serve.terminate();
    assert!(status.success(), "{status}: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| l.contains("notes.txt")).collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(
        lines[0].contains("not a room folder") && lines[0].contains("quarantine"),
        "{stderr}"
    );
    let moved = std::fs::read_dir(data.path().join("quarantine"))
        .unwrap()
        .count();
    assert_eq!(moved, 1);
}

/// More connections than the process may open files for are refused at start, in one line
/// giving the numbers, before anything listens.
#[cfg(target_os = "linux")]
#[test]
fn serve_refuses_more_connections_than_its_open_file_limit() {
    let data = tempfile::tempdir().unwrap();
    // Linux caps a process's open files at 2^30 or so: four billion is over any limit.
    let out = Command::new(env!("CARGO_BIN_EXE_bitmines"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--max-connections",
            "4000000000",
            "--data",
        ])
        .arg(data.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("bitmines: --max-connections 4000000000: 4000000000 connections need 4000006128 open files")
            && stderr.contains("over this process's limit of")
            && stderr.contains("raise the hard limit (ulimit -Hn)"),
        "{stderr}"
    );
    assert!(
        out.stdout.is_empty(),
        "it listened: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Sends a flag toggle and waits for its acknowledgement.
async fn flag_acked(client: &mut Client, seq: u32, row: u32, col: u32) {
    let flag = ClientMsg::Move {
        seq,
        action: Action::Flag,
        row,
        col,
    };
    client.send(&flag).await.unwrap();
    loop {
        match client.recv().await.unwrap() {
            ServerMsg::Ack { seq: s, .. } if s == seq => return,
            ServerMsg::Error {
                seq: s, message, ..
            } if s == seq => panic!("refused: {message}"),
            _ => {}
        }
    }
}

/// The clock a spectator who joins now is told: `(elapsed_ms, running)`.
async fn clock_now(serve: &Serve, room: &str) -> (u32, bool) {
    let query = "spectate=1&preset=expert&mode=coop&rule=endless";
    let client = Client::connect(&serve.url(room, query)).await.unwrap();
    let welcome = client.welcome();
    let clock = (welcome.elapsed_ms, welcome.clock_running);
    client.close().await;
    clock
}

#[test]
fn the_clock_goes_on_after_sigkill_and_sigterm_from_the_last_acknowledged_move() {
    let data = tempfile::tempdir().unwrap();
    let runtime = runtime();
    let query = "preset=expert&mode=coop&rule=endless";
    let mut reading = 0;
    let mut seq = 0;
    for (round, stop) in ["SIGKILL", "SIGTERM"].into_iter().enumerate() {
        let serve = Serve::start(data.path(), &[]);
        let (resumed, running) = runtime.block_on(clock_now(&serve, "time"));
        if round == 0 {
            assert_eq!((resumed, running), (0, false), "no move yet");
        } else {
            // Not from 0: from at least the time of the last move acknowledged before the
            // kill, which came after the reading.
            assert!(running, "after the {stop} restart the clock runs");
            assert!(
                resumed >= reading && resumed > 0,
                "after a restart the clock reads {resumed}; before it, {reading}"
            );
        }
        runtime.block_on(async {
            let mut client = Client::connect(&serve.url("time", query)).await.unwrap();
            seq += 1;
            flag_acked(&mut client, seq, 0, seq).await;
            tokio::time::sleep(Duration::from_millis(60)).await;
            let (now, running) = clock_now(&serve, "time").await;
            assert!(
                running && now > 0 && now >= reading,
                "{now} after {reading}"
            );
            reading = now;
            // The last move: acknowledged after the reading, so its time is not less.
            seq += 1;
            flag_acked(&mut client, seq, 0, seq).await;
        });
        if round == 0 {
            serve.kill();
        } else {
            let (status, _) = serve.terminate();
            assert!(status.success());
        }
    }
    let serve = Serve::start(data.path(), &[]);
    let (resumed, running) = runtime.block_on(clock_now(&serve, "time"));
    assert!(running && resumed >= reading, "{resumed} after {reading}");
    let (status, _) = serve.terminate();
    assert!(status.success());
}

/// Frames until `want` picks one, from a client of a real server (bounded by the caller).
async fn recv_until(client: &mut Client, want: impl Fn(&ServerMsg) -> bool) -> ServerMsg {
    loop {
        let msg = client.recv().await.unwrap();
        if want(&msg) {
            return msg;
        }
    }
}

/// Waits (at most 60 s) until the room folder `dir` holds a snapshot that reads back and
/// passes `wanted`.
async fn snapshot_written(
    dir: &RoomDir,
    what: &str,
    wanted: impl Fn(&bitmines_server::log::SnapshotState) -> bool,
) {
    let waited = Instant::now();
    loop {
        let found = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().starts_with("snapshot-"))
            .filter_map(|e| std::fs::read(e.path()).ok())
            .filter_map(|bytes| bitmines_server::log::decode_snapshot(&bytes).ok())
            .any(|state| wanted(&state));
        if found {
            return;
        }
        assert!(
            waited.elapsed() < Duration::from_secs(60),
            "no snapshot {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Reveals the first mine of `board` (the room's, read from its data folder) as move 1,
/// and checks that it lost the co-op game.
async fn lose_on_a_mine(client: &mut Client, board: &bitmines_core::Board) {
    let cols = board.cols();
    let mine = (0..board.rows() * cols)
        .map(|k| (k / cols, k % cols))
        .find(|&(r, c)| board.is_mine(r, c).unwrap())
        .unwrap();
    let hit = ClientMsg::Move {
        seq: 1,
        action: Action::Reveal,
        row: mine.0 as u32,
        col: mine.1 as u32,
    };
    client.send(&hit).await.unwrap();
    let lost = recv_until(client, |m| {
        matches!(
            m,
            ServerMsg::Ack { seq: 1, .. } | ServerMsg::Error { seq: 1, .. }
        )
    })
    .await;
    assert!(matches!(lost, ServerMsg::Ack { status: 2, .. }), "{lost:?}");
}

#[test]
fn a_rematch_survives_sigkill_with_the_new_games_moves() {
    let data = tempfile::tempdir().unwrap();
    let runtime = runtime();
    let query = "preset=expert&mode=coop&rule=classic";
    let serve = Serve::start(data.path(), &[]);
    let seq_of = |m: &ServerMsg| match m {
        ServerMsg::Ack { seq, .. } | ServerMsg::Error { seq, .. } => Some(*seq),
        _ => None,
    };
    let (token, flagged) = runtime.block_on(async {
        let mut client = Client::connect(&serve.url("again", query)).await.unwrap();
        // The boards, read from the data folder as the server made them (the seeds in `meta`
        // and in the log's new-game record).
        let board = |data: &Path| {
            let dir = RoomDir::new(data, "again");
            let (params, mut seed) = dir.meta().unwrap();
            for record in dir.read_log().unwrap().records() {
                if let bitmines_server::log::Record::NewGame { seed: s, .. } = record {
                    seed = *s;
                }
            }
            bitmines_server::log::make_board(&params, seed).unwrap()
        };
        let first = board(data.path());
        lose_on_a_mine(&mut client, &first).await;
        client.send(&ClientMsg::Rematch { seq: 2 }).await.unwrap();
        let ack = recv_until(&mut client, |m| seq_of(m) == Some(2)).await;
        assert!(matches!(ack, ServerMsg::Ack { .. }), "{ack:?}");
        // A move of game 2, acknowledged just before the kill: a flag on one of its mines
        // (never in the first click's opening).
        let second = board(data.path());
        let mines = |b: &bitmines_core::Board| {
            (0..16 * 30)
                .map(|k| (k / 30, k % 30))
                .filter(|&(r, c)| b.is_mine(r, c).unwrap())
                .collect::<Vec<_>>()
        };
        assert_ne!(mines(&first), mines(&second), "the same board again");
        let (row, col) = mines(&second)[0];
        flag_acked(&mut client, 3, row as u32, col as u32).await;
        (client.token_hex(), (row, col))
    });
    serve.kill();

    let serve = Serve::start(data.path(), &[]);
    runtime.block_on(async {
        let url = format!("{}&token={token}", serve.url("again", query));
        let mut client = Client::connect(&url).await.unwrap();
        assert_eq!(client.welcome().game, 2, "the new game, not the old one");
        assert!(client.welcome().clock_running, "game 2 had a move");
        let whole = ChunkRect {
            row: 0,
            col: 0,
            rows: 1,
            cols: 1,
        };
        // An expert board is one chunk.
        client.send(&ClientMsg::Subscribe(whole)).await.unwrap();
        let mut picture = Picture::default();
        let chunk = recv_until(&mut client, |m| matches!(m, ServerMsg::Chunk { .. })).await;
        picture.apply(&chunk);
        assert_eq!(picture.cell(0, flagged.0, flagged.1), Some(cell::FLAGGED));
        // Nothing of game 1's loss shows: no mine, no explosion.
        assert!(
            picture
                .cells()
                .all(|(_, _, _, state)| state <= cell::FLAGGED),
            "game 1's mines show after the restart"
        );
        client.close().await;
    });
    let (status, _) = serve.terminate();
    assert!(status.success());
}

/// A room over [`bitmines_server::room::INLINE_BOARD_CELLS`] makes its next board on a thread
/// of its own: the players are told its progress, a second rematch meanwhile is refused, the
/// new game starts with the rematch's acknowledgement, and a snapshot of it is written at
/// once, so that a restart after SIGKILL serves game 2 without making its board again.
#[test]
fn a_large_rooms_rematch_is_made_aside_with_progress_and_survives_sigkill() {
    let data = tempfile::tempdir().unwrap();
    let runtime = runtime();
    let (rows, cols) = (1000, 1001);
    assert!(rows * cols > bitmines_server::room::INLINE_BOARD_CELLS);
    let query = format!("rows={rows}&cols={cols}&mines=20000&mode=coop&rule=classic");
    let serve = Serve::start(data.path(), &[]);
    let token = runtime.block_on(async {
        let mut client = Client::connect(&serve.url("large", &query)).await.unwrap();
        let dir = RoomDir::new(data.path(), "large");
        let (params, seed) = dir.meta().unwrap();
        let board = bitmines_server::log::make_board(&params, seed).unwrap();
        lose_on_a_mine(&mut client, &board).await;
        client.send(&ClientMsg::Rematch { seq: 2 }).await.unwrap();
        client.send(&ClientMsg::Rematch { seq: 3 }).await.unwrap();
        let (mut progress, mut acked, mut refused, mut new_game) = (0, false, false, false);
        while !(acked && refused && new_game) {
            match client.recv().await.unwrap() {
                ServerMsg::Progress { share } => {
                    assert!(!new_game, "progress {share} after the new game");
                    progress += 1;
                }
                ServerMsg::Ack { seq: 2, .. } => acked = true,
                ServerMsg::Error {
                    seq: 3,
                    code,
                    message,
                } => {
                    // Refused while the board is made, or because game 2 has begun.
                    assert_eq!(code, ErrorCode::NotOver as u16, "{message}");
                    refused = true;
                }
                ServerMsg::Error { seq, message, .. } => panic!("seq {seq} refused: {message}"),
                ServerMsg::NewGame { game } => {
                    assert_eq!(game, 2);
                    new_game = true;
                }
                _ => {}
            }
        }
        assert!(progress >= 1, "no progress frame while the board was made");
        // The snapshot of game 2, written at once on a thread of its own.
        snapshot_written(&dir, "of game 2", |state| state.game == 2).await;
        client.token_hex()
    });
    serve.kill();

    let serve = Serve::start(data.path(), &[]);
    runtime.block_on(async {
        let url = format!("{}&token={token}", serve.url("large", &query));
        let client = Client::connect(&url).await.unwrap();
        assert_eq!(client.welcome().game, 2, "the new game, not the old one");
        client.close().await;
    });
    let (status, _) = serve.terminate();
    assert!(status.success());
}

/// Finished rooms with a player still connected do not count against `--max-rooms`, but they
/// hold files: past twice `--max-rooms` rooms in memory, a new room is refused with a `Limit`
/// error that says why; once their players leave, the finished rooms leave memory at once to
/// make room.
#[test]
fn rooms_in_memory_are_bounded_by_twice_max_rooms() {
    let data = tempfile::tempdir().unwrap();
    let runtime = runtime();
    let serve = Serve::start(data.path(), &["--max-rooms", "1"]);
    let query = "preset=expert&mode=coop&rule=classic";
    runtime.block_on(async {
        let mut finished = Vec::new();
        for name in ["first", "second"] {
            let mut client = Client::connect(&serve.url(name, query)).await.unwrap();
            let (params, seed) = RoomDir::new(data.path(), name).meta().unwrap();
            let board = bitmines_server::log::make_board(&params, seed).unwrap();
            lose_on_a_mine(&mut client, &board).await;
            finished.push(client);
        }
        let refused = Client::connect(&serve.url("third", query)).await;
        match refused {
            Err(ClientError::Refused { code, message }) => {
                assert_eq!(code, ErrorCode::Limit as u16, "{message}");
                assert!(
                    message.contains("holds 2 rooms in memory")
                        && message.contains("--max-rooms 1"),
                    "{message}"
                );
            }
            other => panic!(
                "a third room in memory: {:?}",
                other.map(|c| c.welcome().game)
            ),
        }
        // The finished rooms are still there for their players.
        for client in &mut finished {
            client.send(&ClientMsg::Ping { nonce: 5 }).await.unwrap();
            recv_until(client, |m| matches!(m, ServerMsg::Pong { nonce: 5 })).await;
        }
        for client in finished {
            client.close().await;
        }
        // Finished and empty, they leave memory at once for a new room (not after
        // --room-idle's ten minutes), and come back when joined.
        let third = Client::connect(&serve.url("third", query)).await.unwrap();
        third.close().await;
        let back = Client::connect(&serve.url("first", query)).await.unwrap();
        assert_eq!(back.welcome().game, 1);
        back.close().await;
    });
    let (status, _) = serve.terminate();
    assert!(status.success());
}

/// A co-op room made with `first=player` has no board anyone plays until a player reveals a
/// cell: a room over [`bitmines_server::room::INLINE_BOARD_CELLS`] makes it around that cell
/// on a thread of its own, tells the players its progress with no running clock, refuses
/// other moves meanwhile with `Busy`, and then makes and acknowledges the reveal. The board
/// is written in a snapshot at once, so after SIGKILL the restarted server shows the same
/// opening.
#[test]
fn a_first_click_room_makes_its_board_around_the_click_and_it_survives_sigkill() {
    let data = tempfile::tempdir().unwrap();
    let runtime = runtime();
    let (rows, cols) = (1000, 1001);
    assert!(rows * cols > bitmines_server::room::INLINE_BOARD_CELLS);
    let query = format!("rows={rows}&cols={cols}&mines=150000&rule=classic&first=player");
    let serve = Serve::start(data.path(), &[]);
    // The corner: its opening is a region no middle click would have kept clear.
    let click = (0_u32, 0_u32);
    let corner = ChunkRect {
        row: 0,
        col: 0,
        rows: 1,
        cols: 1,
    };
    let (token, opened) = runtime.block_on(async {
        let mut client = Client::connect(&serve.url("first", &query)).await.unwrap();
        assert_eq!(client.welcome().first, None);
        assert!(!client.welcome().clock_running);
        client.send(&ClientMsg::Subscribe(corner)).await.unwrap();
        let mut picture = Picture::default();
        picture.apply(&recv_until(&mut client, |m| matches!(m, ServerMsg::Chunk { .. })).await);
        assert!(
            picture.cells().all(|(_, _, _, s)| s == cell::HIDDEN),
            "a cell shows before the first click"
        );
        let reveal = ClientMsg::Move {
            seq: 1,
            action: Action::Reveal,
            row: click.0,
            col: click.1,
        };
        let flag = ClientMsg::Move {
            seq: 2,
            action: Action::Flag,
            row: 500,
            col: 500,
        };
        client.send(&reveal).await.unwrap();
        client.send(&flag).await.unwrap();
        let (mut progress, mut opened, mut flag_done) = (0, None, false);
        while opened.is_none() || !flag_done {
            let msg = client.recv().await.unwrap();
            picture.apply(&msg);
            match msg {
                ServerMsg::Progress { .. } => {
                    assert!(opened.is_none(), "progress after the reveal was made");
                    progress += 1;
                }
                ServerMsg::Clock { running: true, .. } => {
                    assert!(opened.is_some() || progress > 0, "the clock ran early");
                }
                ServerMsg::Ack {
                    seq: 1,
                    opened: n,
                    status,
                    ..
                } => {
                    assert_eq!(status, 0, "the first click set off a mine");
                    opened = Some(n);
                }
                ServerMsg::Ack { seq: 2, .. } => {
                    assert!(opened.is_some(), "the flag was taken before the reveal");
                    flag_done = true;
                }
                ServerMsg::Error {
                    seq: 2,
                    code,
                    message,
                } => {
                    // Refused while the board was being made.
                    assert_eq!(code, ErrorCode::Busy as u16, "{message}");
                    assert!(message.contains("being made"), "{message}");
                    flag_done = true;
                }
                ServerMsg::Error { seq, message, .. } => panic!("seq {seq} refused: {message}"),
                _ => {}
            }
        }
        assert!(progress >= 1, "no progress frame while the board was made");
        let opened = opened.unwrap();
        assert!(
            opened >= 4,
            "the corner's opening is its four cells at least"
        );
        // The opening is the board's: the one the room's stand-in and the click decide.
        let dir = RoomDir::new(data.path(), "first");
        let (params, seed) = dir.meta().unwrap();
        let stand_in = bitmines_server::log::make_board(&params, seed).unwrap();
        let (around, board_seed) = bitmines_server::log::around_first(&params, &stand_in, (0, 0));
        let board = bitmines_server::log::make_board(&around, board_seed).unwrap();
        let mut expected = bitmines_core::Game::try_new(Arc::new(board)).unwrap();
        assert_eq!(expected.reveal(0, 0).unwrap().opened as u32, opened);
        // The opening's frames go out with the acknowledgement, before or after it.
        while picture.cell(0, 0, 0) == Some(cell::HIDDEN) {
            picture.apply(&client.recv().await.unwrap());
        }
        assert_eq!(picture.cell(0, 0, 0), Some(0), "the click shows a zero");
        // The snapshot with the board, written at once.
        snapshot_written(&dir, "with the board", |state| state.records >= 2).await;
        (client.token_hex(), opened)
    });
    serve.kill();

    let serve = Serve::start(data.path(), &[]);
    runtime.block_on(async {
        let url = format!("{}&token={token}", serve.url("first", &query));
        let mut client = Client::connect(&url).await.unwrap();
        assert!(
            client.welcome().clock_running,
            "the first click started the clock"
        );
        client.send(&ClientMsg::Subscribe(corner)).await.unwrap();
        let mut picture = Picture::default();
        picture.apply(&recv_until(&mut client, |m| matches!(m, ServerMsg::Chunk { .. })).await);
        assert_eq!(
            picture.cell(0, 0, 0),
            Some(0),
            "the opening after the restart"
        );
        let shown = picture
            .cells()
            .filter(|&(_, _, _, s)| s <= cell::OPEN_MAX)
            .count();
        assert!(
            shown > 0 && shown as u32 <= opened,
            "{shown} open of {opened}"
        );
        client.close().await;
    });
    let (status, _) = serve.terminate();
    assert!(status.success());
}
