//! `bitmines loadtest`: simulated players against a server on this machine.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use anyhow::{Context, anyhow, bail};
use bitmines_core::Position;
use bitmines_server::client::{Client, ClientError, Picture};
use bitmines_server::protocol::{Action, CHUNK, ChunkRect, ClientMsg, ErrorCode, ServerMsg, cell};
use bitmines_solve::Solver;
use hdrhistogram::Histogram;
use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;
use serde::Serialize;

mod soak;

use crate::cli::{
    JsonArg, at_least_one, clock_seed, fraction, non_negative, positive, refused, whole,
};

/// The name and version of the `--json` report's shape.
pub(crate) const SCHEMA: &str = "bitmines-loadtest/2";

/// Options of `bitmines loadtest`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The room to load: ws://127.0.0.1:PORT/room/NAME?PARAMETERS (this machine only). The
    /// first client's join makes the room with the query's parameters. Not given with --soak,
    /// which starts a server of its own.
    #[arg(required_unless_present = "soak")]
    url: Option<String>,
    /// Simulated players, each on a connection of its own.
    #[arg(long, default_value_t = 100, value_parser = at_least_one::<usize>, allow_negative_numbers = true)]
    clients: usize,
    /// Seconds of play, timed from when every player has joined and has its viewport (and
    /// the warm-up is over).
    #[arg(long, default_value_t = 10.0, value_parser = positive, allow_negative_numbers = true)]
    duration: f64,
    /// Seconds of play before the timed run, left out of every figure: players who all
    /// joined at once solve their first viewports all at once, and a new room's memory is
    /// touched for the first time. 0 times the run from the first move.
    #[arg(long, default_value_t = 0.0, value_parser = non_negative, allow_negative_numbers = true)]
    warmup: f64,
    /// Each player's viewport, ROWSxCOLS cells (whole chunks of 64 are watched).
    #[arg(long, default_value = "64x128")]
    viewport: String,
    /// Seed of the players' choices: viewport places, guesses, reconnect times (default: one
    /// from the clock; the seed used is always printed, so a run can be made again).
    #[arg(long, value_parser = whole::<u64>, allow_negative_numbers = true)]
    seed: Option<u64>,
    /// Share of the players, from 0 to 1, that drop their connection once and resume with
    /// their token (0.1: one player in ten).
    #[arg(long, default_value_t = 0.1, value_parser = fraction, allow_negative_numbers = true)]
    reconnects: f64,
    /// Moves a second each player makes (each waits for its last move's ack first); 0 plays
    /// as fast as the acks come back. (`--rate` is its old name.)
    #[arg(long, default_value_t = 10.0, value_parser = non_negative, allow_negative_numbers = true, alias = "rate")]
    moves_per_second: f64,
    /// Rooms to spread the players over: NAME-0 to NAME-(N-1), player i in room i mod N. A
    /// player whose game ends (a race's, or a classic co-op game's) stops.
    #[arg(long, default_value_t = 1, value_parser = at_least_one::<usize>, allow_negative_numbers = true)]
    rooms: usize,
    #[command(flatten)]
    soak: soak::SoakArgs,
    #[command(flatten)]
    json: JsonArg,
}

#[derive(Default)]
struct Totals {
    /// Connections made, reconnections included.
    connected: AtomicU64,
    acks: AtomicU64,
    errors: AtomicU64,
    busy: AtomicU64,
    closed_slow: AtomicU64,
    failed: AtomicU64,
    reconnects: AtomicU64,
    bytes_in: AtomicU64,
    won: AtomicU64,
    ended: AtomicU64,
}

/// What one pair of players who share a viewport sent, so that each can time the other's
/// moves reaching it.
type Sent = Arc<[Mutex<HashMap<(u32, u32, u32), Instant>>; 2]>;

#[derive(Serialize)]
struct Report {
    schema: &'static str,
    url: String,
    seed: u64,
    rooms: usize,
    clients: usize,
    moves_per_second: f64,
    connected: usize,
    /// Seconds from the first player's connection to the last's viewport: before the timed
    /// run, and not in its figures.
    ramp_s: f64,
    /// Seconds played after the ramp and before the timed run, not in its figures.
    warmup_s: f64,
    duration_s: f64,
    actions: u64,
    actions_per_s: f64,
    ack_ms: Quantiles,
    fanout_ms: Quantiles,
    /// How late the tester's 1 ms sleeps woke in the timed run: how long this machine kept
    /// a thread that was ready from running, whether by the load itself or by stalls of the
    /// machine (a virtual machine's host, other programs).
    hiccup_ms: Quantiles,
    errors: u64,
    busy: u64,
    drops: u64,
    failed: u64,
    reconnects: u64,
    games_ended: u64,
    games_won: u64,
    bytes_in_per_s: f64,
    server_memory_before: u64,
    server_memory_after: u64,
    server_resyncs: u64,
    server_drops: u64,
    /// Rounds of the server's log sync in the timed run that took over 20 ms, and over
    /// 100 ms: the disk's delays, which the acknowledgements of those rounds waited for.
    server_syncs_over_20ms: u64,
    server_syncs_over_100ms: u64,
}

#[derive(Serialize)]
struct Quantiles {
    count: u64,
    p50: f64,
    p99: f64,
    p999: f64,
    max: f64,
}

fn quantiles(h: &Histogram<u64>) -> Quantiles {
    let ms = |q: f64| h.value_at_quantile(q) as f64 / 1000.0;
    Quantiles {
        count: h.len(),
        p50: ms(0.5),
        p99: ms(0.99),
        p999: ms(0.999),
        max: h.max() as f64 / 1000.0,
    }
}

fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 120_000_000, 3).expect("constant bounds are valid")
}

/// The host and port of a ws:// URL on this machine, or why not.
fn loopback(url: &str) -> anyhow::Result<String> {
    let rest = url
        .strip_prefix("ws://")
        .ok_or_else(|| anyhow!("{url:?} is not a ws:// address"))?;
    let authority = rest.split('/').next().unwrap_or("");
    let host = authority
        .rsplit_once(':')
        .map_or(authority, |(h, _)| h)
        .trim_start_matches('[')
        .trim_end_matches(']');
    let ok = host == "localhost"
        || host == "::1"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|a| a.is_loopback());
    if !ok {
        bail!(
            "the load tester only targets this machine (127.0.0.0/8, localhost or [::1]), not {host:?}"
        );
    }
    if !rest.contains("/room/") {
        bail!("{url:?} names no room: ws://HOST:PORT/room/NAME");
    }
    Ok(authority.to_string())
}

/// The server's `/metrics` text, if it answers.
fn server_metrics(authority: &str) -> Option<String> {
    let mut stream = TcpStream::connect(authority).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET /metrics HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).ok()?;
    Some(text)
}

/// The value of the sample `name` (labels included, as the server writes them) in a
/// metrics text.
fn metric(text: &str, name: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| {
            l.strip_prefix(name)?
                .strip_prefix(' ')?
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map(|v| v as u64)
}

/// The server's rounds of syncing its logs so far that took over 20 ms and over 100 ms,
/// from the `bitmines_log_sync_seconds` histogram of its metrics `text`: the disk's delays,
/// which every acknowledgement of those rounds waited for.
fn slow_syncs(text: &str) -> Option<[u64; 2]> {
    let name = "bitmines_log_sync_seconds";
    let count = metric(text, &format!("{name}_count"))?;
    let within = |le: &str| metric(text, &format!("{name}_bucket{{le=\"{le}\"}}"));
    Some([
        count.saturating_sub(within("0.02")?),
        count.saturating_sub(within("0.1")?),
    ])
}

/// Runs the load and prints the report.
pub(crate) fn run(args: &Args) -> anyhow::Result<()> {
    if let Some(games) = args.soak.soak {
        return soak::run(&args.soak, games, args.json.json);
    }
    let url = args
        .url
        .clone()
        .ok_or_else(|| anyhow!("a room's URL is needed (or --soak GAMES)"))?;
    let authority = loopback(&url)?;
    let (vr, vc) = args
        .viewport
        .split_once('x')
        .and_then(|(r, c)| Some((r.parse::<usize>().ok()?, c.parse::<usize>().ok()?)))
        .filter(|&(r, c)| r > 0 && c > 0)
        .ok_or_else(|| {
            refused(
                "viewport",
                &args.viewport,
                "not ROWSxCOLS with whole numbers of 1 or more",
            )
        })?;
    // The parsers refused values below each range; these are the tops, and the one bound
    // that depends on another option.
    if args.moves_per_second > 1000.0 {
        return Err(refused(
            "moves-per-second",
            args.moves_per_second,
            "must be at most 1000",
        ));
    }
    if args.clients > 20_000 {
        return Err(refused("clients", args.clients, "must be at most 20000"));
    }
    if args.rooms > args.clients {
        return Err(refused(
            "rooms",
            args.rooms,
            &format!("must be at most --clients ({})", args.clients),
        ));
    }
    if args.warmup > 600.0 {
        return Err(refused(
            "warmup",
            args.warmup,
            "must be at most 600 seconds",
        ));
    }
    if args.duration > 3600.0 {
        return Err(refused(
            "duration",
            args.duration,
            "must be at most 3600 seconds",
        ));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the runtime")?;
    let memory = "process_resident_memory_bytes";
    let memory_before = server_metrics(&authority)
        .and_then(|text| metric(&text, memory))
        .unwrap_or(0);
    let totals = Arc::new(Totals::default());
    let ack = Arc::new(Mutex::new(histogram()));
    let fanout = Arc::new(Mutex::new(histogram()));
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    let room_url = |k: usize| {
        let name = if args.rooms > 1 {
            format!("{path}-{k}")
        } else {
            path.to_string()
        };
        format!("{name}?{query}")
    };
    // A join's own parameters follow the room's, after a `&` only when the room has some.
    let join = |k: usize, extra: &str| {
        let url = room_url(k);
        let joiner = if url.ends_with('?') { "" } else { "&" };
        format!("{url}{joiner}{extra}")
    };
    // The first join makes the room (a large board takes a moment); the others follow. A
    // server that cannot be reached is named by its address, as the user gave it.
    let first = runtime
        .block_on(Client::connect(&join(0, "spectate=1")))
        .map_err(|e| match e {
            ClientError::Connect { reason, .. } => {
                anyhow!(
                    "cannot connect to {authority} ({}): {}",
                    url,
                    reason.trim_start_matches("IO error: ")
                )
            }
            other => anyhow!("{url}: {other}"),
        })?;
    let (rows, cols) = (first.welcome().rows as usize, first.welcome().cols as usize);
    let mines = first.welcome().mines as usize;
    runtime.block_on(first.close());
    let seed = args.seed.unwrap_or_else(clock_seed);
    eprintln!(
        "bitmines loadtest: {} players in {} {rows}x{cols} rooms for at most {} s, seed {seed}",
        args.clients, args.rooms, args.duration
    );
    let duration = Duration::from_secs_f64(args.duration);
    let warmup = Duration::from_secs_f64(args.warmup);
    // Every player joins and gets its viewport first; the timed run starts when all have
    // (or a player could not connect), so the figures are of the load, not of the ramp.
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    let (go_tx, go_rx) = tokio::sync::watch::channel::<Option<(Instant, Instant)>>(None);
    let ramp_start = Instant::now();
    let mut rng = Pcg64::seed_from_u64(seed);
    let gate = Arc::new(tokio::sync::Semaphore::new(64));
    let thinker = Thinker::start()?;
    let timed = Arc::new(OnceLock::new());
    let hiccups = Hiccups::start(Arc::clone(&timed))?;
    let mut tasks = Vec::with_capacity(args.clients);
    for pair in 0..args.clients.div_ceil(2) {
        // Two players share each viewport, so each times the other's moves reaching it.
        let sent: Sent = Arc::new([Mutex::new(HashMap::new()), Mutex::new(HashMap::new())]);
        let r0 = (rng.next_u64() as usize % rows.saturating_sub(vr).max(1)) / CHUNK * CHUNK;
        let c0 = (rng.next_u64() as usize % cols.saturating_sub(vc).max(1)) / CHUNK * CHUNK;
        for side in 0..2 {
            let index = pair * 2 + side;
            if index >= args.clients {
                break;
            }
            let reconnect_at =
                (rng.next_u64() as f64 / u64::MAX as f64 <= args.reconnects).then(|| {
                    let at = 0.2 + 0.6 * (rng.next_u64() as f64 / u64::MAX as f64);
                    duration.mul_f64(at)
                });
            let player = Player {
                url: join(pair % args.rooms, &format!("name=load-{index}")),
                view: (r0, c0, vr.min(rows - r0), vc.min(cols - c0)),
                side,
                board: (rows, cols, mines),
                sent: Arc::clone(&sent),
                seed: seed ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15),
                pace: (args.moves_per_second > 0.0)
                    .then(|| Duration::from_secs_f64(1.0 / args.moves_per_second)),
                reconnect_after: reconnect_at,
                reconnect_at: None,
            };
            let start = Start {
                ready: Ready(Some(ready_tx.clone())),
                go: go_rx.clone(),
            };
            let thinker = thinker.clone();
            let (totals, ack, fanout, gate) = (
                Arc::clone(&totals),
                Arc::clone(&ack),
                Arc::clone(&fanout),
                Arc::clone(&gate),
            );
            tasks.push(runtime.spawn(async move {
                player
                    .play(start, &totals, &ack, &fanout, &gate, &thinker)
                    .await
            }));
        }
    }
    drop(ready_tx);
    let (ramp, start) = runtime.block_on(async {
        // Each player says once that it is ready, or gone; ten minutes at most.
        let limit = tokio::time::Instant::now() + Duration::from_secs(600);
        for _ in 0..args.clients {
            match tokio::time::timeout_at(limit, ready_rx.recv()).await {
                Ok(Some(())) => {}
                _ => break,
            }
        }
        let start = Instant::now() + warmup;
        let _ = timed.set((start, start + duration));
        let _ = go_tx.send(Some((start, start + duration)));
        (ramp_start.elapsed().as_secs_f64(), start)
    });
    if args.warmup > 0.0 {
        eprintln!(
            "bitmines loadtest: the players joined and got their viewports in {ramp:.1} s; {} s of warm-up, then the timed run",
            args.warmup
        );
    } else {
        eprintln!(
            "bitmines loadtest: the players joined and got their viewports in {ramp:.1} s; the timed run starts"
        );
    }
    // The server's slow syncs are counted from the timed run's start.
    std::thread::sleep(start.saturating_duration_since(Instant::now()));
    let syncs_before = server_metrics(&authority).and_then(|text| slow_syncs(&text));
    runtime.block_on(async {
        for t in tasks {
            let _ = t.await;
        }
    });
    // Above zero, should every game have ended in the warm-up.
    let elapsed = Instant::now()
        .saturating_duration_since(start)
        .as_secs_f64()
        .max(1e-6);

    let hiccups = hiccups.stop();
    // One read of the server's metrics at the end gives every figure of the report's.
    let end = server_metrics(&authority).unwrap_or_default();
    let [syncs_over_20ms, syncs_over_100ms] = match (syncs_before, slow_syncs(&end)) {
        (Some(before), Some(after)) => [0, 1].map(|i| after[i].saturating_sub(before[i])),
        _ => [0, 0],
    };
    let memory_after = metric(&end, memory).unwrap_or(0);
    let ack = ack.lock().map_err(|_| anyhow!("poisoned"))?;
    let fanout = fanout.lock().map_err(|_| anyhow!("poisoned"))?;
    let actions = totals.acks.load(Relaxed);
    let report = Report {
        schema: SCHEMA,
        url: url.clone(),
        seed,
        rooms: args.rooms,
        clients: args.clients,
        moves_per_second: args.moves_per_second,
        connected: totals.connected.load(Relaxed) as usize,
        ramp_s: ramp,
        warmup_s: args.warmup,
        duration_s: elapsed,
        actions,
        actions_per_s: actions as f64 / elapsed,
        ack_ms: quantiles(&ack),
        fanout_ms: quantiles(&fanout),
        hiccup_ms: quantiles(&hiccups),
        errors: totals.errors.load(Relaxed),
        busy: totals.busy.load(Relaxed),
        drops: totals.closed_slow.load(Relaxed),
        failed: totals.failed.load(Relaxed),
        reconnects: totals.reconnects.load(Relaxed),
        games_ended: totals.ended.load(Relaxed),
        games_won: totals.won.load(Relaxed),
        bytes_in_per_s: totals.bytes_in.load(Relaxed) as f64 / elapsed,
        server_memory_before: memory_before,
        server_memory_after: memory_after,
        server_resyncs: metric(&end, "bitmines_resyncs_total").unwrap_or(0),
        server_drops: metric(&end, "bitmines_drops_total").unwrap_or(0),
        server_syncs_over_20ms: syncs_over_20ms,
        server_syncs_over_100ms: syncs_over_100ms,
    };
    if args.json.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        let q = |q: &Quantiles| {
            format!(
                "p50 {:.2} ms, p99 {:.2} ms, p99.9 {:.2} ms, max {:.2} ms ({} samples)",
                q.p50, q.p99, q.p999, q.max, q.count
            )
        };
        println!(
            "players          {} ({} connected at some point, {} reconnects, {} failed)",
            report.clients, report.connected, report.reconnects, report.failed
        );
        println!(
            "moves            {} acknowledged in {:.1} s: {:.0} a second (after {:.1} s for every player to join and {} s of warm-up)",
            report.actions, elapsed, report.actions_per_s, report.ramp_s, report.warmup_s
        );
        println!("acknowledgement  {}", q(&report.ack_ms));
        if report.fanout_ms.count > 0 {
            println!("fan-out          {}", q(&report.fanout_ms));
        } else {
            // Race players each watch their own view: nobody else's move reaches them.
            println!("fan-out          no samples: no player watched another's moves");
        }
        println!(
            "hiccups          {}: how late the tester's 1 ms sleeps woke, the machine's own delays",
            q(&report.hiccup_ms)
        );
        println!(
            "errors           {} ({} busy), {} closed as too slow",
            report.errors, report.busy, report.drops
        );
        println!(
            "games            {} ended, {} won",
            report.games_ended, report.games_won
        );
        println!(
            "received         {} a second",
            rate_text(report.bytes_in_per_s)
        );
        println!(
            "server memory    {:.1} MiB before, {:.1} MiB after; resyncs {}, drops {}",
            memory_before as f64 / 1048576.0,
            memory_after as f64 / 1048576.0,
            report.server_resyncs,
            report.server_drops
        );
        println!(
            "server log syncs {} over 20 ms, {} over 100 ms (the disk's delays: each held its round's acknowledgements)",
            report.server_syncs_over_20ms, report.server_syncs_over_100ms
        );
    }
    Ok(())
}

/// One simulated player.
struct Player {
    url: String,
    /// First row, first column, rows, columns of its viewport.
    view: (usize, usize, usize, usize),
    side: usize,
    /// The board's rows, columns and mines.
    board: (usize, usize, usize),
    /// Time between moves, or `None` to move as soon as the last is acknowledged.
    pace: Option<Duration>,
    sent: Sent,
    seed: u64,
    /// When, into the timed run, this player drops its connection and resumes by token.
    reconnect_after: Option<Duration>,
    reconnect_at: Option<Instant>,
}

/// Says once that a player is ready to play (or gone): when told, or when dropped.
struct Ready(Option<tokio::sync::mpsc::UnboundedSender<()>>);

impl Ready {
    fn fire(&mut self) {
        if let Some(tx) = self.0.take() {
            let _ = tx.send(());
        }
    }
}

impl Drop for Ready {
    fn drop(&mut self) {
        self.fire();
    }
}

/// How a player's session on one connection ends.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Session {
    /// It reconnects (with its token) and plays on.
    Again,
    /// It is done: the run is over, its game ended, or something failed.
    Over,
}

/// A player's part in the start: it says when it is ready, and learns when the timed run
/// starts (after the warm-up) and ends.
struct Start {
    ready: Ready,
    go: tokio::sync::watch::Receiver<Option<(Instant, Instant)>>,
}

impl Player {
    async fn play(
        mut self,
        mut start: Start,
        totals: &Totals,
        ack_hist: &Mutex<Histogram<u64>>,
        fanout_hist: &Mutex<Histogram<u64>>,
        gate: &tokio::sync::Semaphore,
        thinker: &Thinker,
    ) {
        let mut rng = Pcg64::seed_from_u64(self.seed);
        let mut url = self.url.clone();
        let mut seq = 0u32;
        // Until the run starts, the deadline is the ramp's limit; nothing before `timed`
        // (the ramp and the warm-up) counts.
        let mut started = false;
        let mut deadline = Instant::now() + Duration::from_secs(660);
        let mut timed = deadline;
        while Instant::now() < deadline {
            let client = {
                let _permit = gate.acquire().await;
                Client::connect(&url).await
            };
            let mut client = match client {
                Ok(c) => c,
                Err(_) => {
                    totals.failed.fetch_add(1, Relaxed);
                    return;
                }
            };
            totals.connected.fetch_add(1, Relaxed);
            if !url.contains("token=") {
                url = format!("{url}&token={}", client.token_hex());
            }
            let view_id = client.welcome().view;
            let (r0, c0, h, w) = self.view;
            let rect = ChunkRect {
                row: (r0 / CHUNK) as u32,
                col: (c0 / CHUNK) as u32,
                rows: (r0 + h).div_ceil(CHUNK).saturating_sub(r0 / CHUNK) as u16,
                cols: (c0 + w).div_ceil(CHUNK).saturating_sub(c0 / CHUNK) as u16,
            };
            if client.send(&ClientMsg::Subscribe(rect)).await.is_err() {
                totals.failed.fetch_add(1, Relaxed);
                return;
            }
            let mut picture = Picture::default();
            let mut queue: Vec<(usize, usize)> = Vec::new();
            let mut in_flight: Option<(u32, Instant, (u32, u32))> = None;
            let mut thinking: Option<tokio::sync::oneshot::Receiver<Cells>> = None;
            let chunks = usize::from(rect.rows) * usize::from(rect.cols);
            let mut got_chunks = 0;
            // Players start at random points of their interval, so moves do not come in waves.
            let mut next_at = Instant::now()
                + self.pace.map_or(Duration::ZERO, |p| {
                    p.mul_f64((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
                });
            // Bytes received before the timed run, left out of its rate.
            let mut untimed_bytes = 0;
            let next = loop {
                let now = Instant::now();
                if now >= deadline {
                    break Session::Over;
                }
                if now < timed {
                    untimed_bytes = client.bytes_in;
                }
                if let Some(at) = self.reconnect_at
                    && now >= at
                    && in_flight.is_none()
                {
                    self.reconnect_at = None;
                    totals.reconnects.fetch_add(1, Relaxed);
                    break Session::Again;
                }
                if got_chunks >= chunks && !started {
                    // The first move's solve of the whole viewport is done before the run
                    // starts: 2,000 players solving at once would time the tester's ramp.
                    if let Some(job) = self.job(&picture, view_id, &mut rng)
                        && let Ok(cells) = thinker.ask(job).await
                    {
                        queue.extend(cells);
                    }
                    start.ready.fire();
                    if start.go.wait_for(Option::is_some).await.is_err() {
                        break Session::Over;
                    }
                    started = true;
                    (timed, deadline) = (*start.go.borrow()).unwrap_or((timed, deadline));
                    self.reconnect_at = self.reconnect_after.map(|after| timed + after);
                    next_at = Instant::now()
                        + self.pace.map_or(Duration::ZERO, |p| {
                            p.mul_f64((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
                        });
                    continue;
                }
                let ready = in_flight.is_none() && thinking.is_none() && got_chunks >= chunks;
                if ready && now >= next_at {
                    let Some((r, c)) = Self::queued(&picture, view_id, &mut queue) else {
                        // Nothing queued: the thinker solves the viewport, and the move goes
                        // when it answers; meanwhile this player goes on reading.
                        let Some(job) = self.job(&picture, view_id, &mut rng) else {
                            break Session::Over;
                        };
                        thinking = Some(thinker.ask(job));
                        continue;
                    };
                    // Paced: the next move is due one interval after this one was (or now,
                    // if this player fell behind).
                    if let Some(pace) = self.pace {
                        next_at = (next_at + pace).max(now);
                    }
                    seq = seq.wrapping_add(1);
                    let at = Instant::now();
                    if let Ok(mut sent) = self.sent[self.side].lock() {
                        sent.insert((view_id, r as u32, c as u32), at);
                    }
                    let msg = ClientMsg::Move {
                        seq,
                        action: Action::Reveal,
                        row: r as u32,
                        col: c as u32,
                    };
                    if client.send(&msg).await.is_err() {
                        break Session::Again;
                    }
                    in_flight = Some((seq, at, (r as u32, c as u32)));
                }
                let wake = if in_flight.is_none() && thinking.is_none() && got_chunks >= chunks {
                    next_at.min(deadline)
                } else {
                    deadline
                };
                let remaining = wake.saturating_duration_since(Instant::now());
                let got = tokio::select! {
                    cells = answer(&mut thinking) => {
                        thinking = None;
                        match cells {
                            Some(cells) if !cells.is_empty() => {
                                queue.extend(cells);
                                continue;
                            }
                            // The viewport has no hidden cell left: this player is done.
                            Some(_) => break Session::Over,
                            None => {
                                totals.failed.fetch_add(1, Relaxed);
                                break Session::Over;
                            }
                        }
                    }
                    got = tokio::time::timeout(remaining, client.recv()) => got,
                };
                let msg = match got {
                    Err(_) => continue,
                    Ok(Err(ClientError::Closed(Some((1013, _))))) => {
                        totals.closed_slow.fetch_add(1, Relaxed);
                        break Session::Again;
                    }
                    Ok(Err(_)) => {
                        totals.failed.fetch_add(1, Relaxed);
                        break Session::Over;
                    }
                    Ok(Ok(m)) => m,
                };
                match &msg {
                    ServerMsg::Chunk { .. } => got_chunks += 1,
                    ServerMsg::Delta {
                        view,
                        chunk_row,
                        chunk_col,
                        cells,
                        ..
                    } => {
                        let other = &self.sent[1 - self.side];
                        if let Ok(mut theirs) = other.lock()
                            && !theirs.is_empty()
                        {
                            let now = Instant::now();
                            for &(offset, _) in cells {
                                let r = *chunk_row as usize * CHUNK + usize::from(offset) / CHUNK;
                                let c = *chunk_col as usize * CHUNK + usize::from(offset) % CHUNK;
                                if let Some(at) = theirs.remove(&(*view, r as u32, c as u32))
                                    && at >= timed
                                    && let Ok(mut h) = fanout_hist.lock()
                                {
                                    let _ =
                                        h.record(now.duration_since(at).as_micros().max(1) as u64);
                                }
                            }
                        }
                    }
                    ServerMsg::Ack { seq: s, status, .. } => {
                        if let Some((want, at, _)) = in_flight
                            && *s == want
                        {
                            in_flight = None;
                            if at >= timed {
                                totals.acks.fetch_add(1, Relaxed);
                                if let Ok(mut h) = ack_hist.lock() {
                                    let _ = h.record(at.elapsed().as_micros().max(1) as u64);
                                }
                            }
                        }
                        if *status != 0 {
                            // This player's game is over (a race, or a classic co-op game).
                            totals.won.fetch_add(u64::from(*status == 1), Relaxed);
                            totals.ended.fetch_add(1, Relaxed);
                            break Session::Over;
                        }
                    }
                    ServerMsg::Error { seq: s, code, .. } => {
                        if Instant::now() >= timed {
                            totals.errors.fetch_add(1, Relaxed);
                            if *code == ErrorCode::Busy as u16 {
                                totals.busy.fetch_add(1, Relaxed);
                            }
                        }
                        if *code == ErrorCode::GameOver as u16 {
                            // Someone else ended the shared game.
                            totals.ended.fetch_add(1, Relaxed);
                            break Session::Over;
                        }
                        if in_flight.is_some_and(|(want, _, _)| want == *s) {
                            in_flight = None;
                        }
                    }
                    _ => {}
                }
                picture.apply(&msg);
            };
            totals
                .bytes_in
                .fetch_add(client.bytes_in.saturating_sub(untimed_bytes), Relaxed);
            client.close().await;
            if next == Session::Over {
                break;
            }
        }
    }

    /// The next cell of the player's queue that is still hidden.
    fn queued(
        picture: &Picture,
        view: u32,
        queue: &mut Vec<(usize, usize)>,
    ) -> Option<(usize, usize)> {
        while let Some(cell) = queue.pop() {
            if picture.cell(view, cell.0, cell.1) == Some(cell::HIDDEN) {
                return Some(cell);
            }
        }
        None
    }

    /// What the player thinks about next: its viewport as it sees it now.
    fn job(&self, picture: &Picture, view: u32, rng: &mut Pcg64) -> Option<Job> {
        let (r0, c0, h, w) = self.view;
        Some(Job {
            states: picture.rect(view, (r0, c0), (h, w))?,
            view: self.view,
            board: self.board,
            pick: rng.next_u64(),
        })
    }
}

/// A rate of bytes for people: MB with one decimal from 1 MB, else kB.
fn rate_text(bytes: f64) -> String {
    if bytes >= 1e6 {
        format!("{:.1} MB", bytes / 1e6)
    } else {
        format!("{:.1} kB", bytes / 1e3)
    }
}

/// The tester's hiccup meter: a thread that sleeps 1 ms again and again and records how
/// late each sleep ends, once the timed run has started. A player cannot get its
/// acknowledgement sooner than its thread gets a processor, so these delays, which no server
/// causes directly, show how much of the acknowledgements' tail is the machine's: the load's
/// own contention for the processors and the stalls of the machine under it.
struct Hiccups {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Histogram<u64>>,
}

impl Hiccups {
    /// The sleep the meter times.
    const SLEEP: Duration = Duration::from_millis(1);

    /// Starts the meter; it records the sleeps that begin in the timed run, from and until
    /// the instants `timed` is set to.
    fn start(timed: Arc<OnceLock<(Instant, Instant)>>) -> anyhow::Result<Hiccups> {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("loadtest hiccups".into())
            .spawn(move || {
                let mut late = histogram();
                while !stopped.load(Relaxed) {
                    let asleep = Instant::now();
                    std::thread::sleep(Self::SLEEP);
                    let woke = Instant::now();
                    if timed
                        .get()
                        .is_some_and(|&(from, until)| (from..until).contains(&asleep))
                    {
                        let over = woke.duration_since(asleep).saturating_sub(Self::SLEEP);
                        let _ = late.record((over.as_micros() as u64).max(1));
                    }
                }
                late
            })
            .context("cannot start the tester's hiccup meter")?;
        Ok(Hiccups { stop, thread })
    }

    /// Stops the meter and gives what it recorded.
    fn stop(self) -> Histogram<u64> {
        self.stop.store(true, Relaxed);
        self.thread.join().unwrap_or_else(|_| histogram())
    }
}

/// The players' solver: a thread of its own, so that a player's thinking (a solve of its
/// viewport can take milliseconds) never holds up the threads that read the connections and
/// time the acknowledgements; thinking happens on each player's own machine in real play.
#[derive(Clone)]
struct Thinker {
    jobs: std::sync::mpsc::Sender<(Job, Reply)>,
}

impl Thinker {
    /// Starts the thread; it ends when the last handle is dropped.
    fn start() -> anyhow::Result<Thinker> {
        let (jobs, rx) = std::sync::mpsc::channel::<(Job, Reply)>();
        std::thread::Builder::new()
            .name("loadtest solver".into())
            .spawn(move || {
                for (job, reply) in rx {
                    let _ = reply.send(job.think());
                }
            })
            .context("cannot start the players' solver thread")?;
        Ok(Thinker { jobs })
    }

    /// Queues `job`; the answer comes on the receiver (which fails if the thread is gone).
    fn ask(&self, job: Job) -> tokio::sync::oneshot::Receiver<Cells> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        let _ = self.jobs.send((job, reply));
        answer
    }
}

/// The cells a solve proposes, and where they are sent.
type Cells = Vec<(usize, usize)>;
type Reply = tokio::sync::oneshot::Sender<Cells>;

/// The answer of the player's solve in progress, if any (`None` if the solver is gone);
/// never ready when no solve is in progress.
async fn answer(thinking: &mut Option<tokio::sync::oneshot::Receiver<Cells>>) -> Option<Cells> {
    match thinking {
        Some(rx) => rx.await.ok(),
        None => std::future::pending().await,
    }
}

/// A player's viewport to solve, off the connections' threads.
struct Job {
    /// The viewport's cells, row by row.
    states: Vec<u8>,
    /// First row, first column, rows, columns of the viewport.
    view: (usize, usize, usize, usize),
    /// The board's rows, columns and mines.
    board: (usize, usize, usize),
    /// A random number for the last resort, a hidden cell picked at random.
    pick: u64,
}

impl Job {
    /// The cells to play next: those the solver proves safe in the viewport, else its safest
    /// guess there; none when the viewport has no hidden cell left.
    fn think(&self) -> Cells {
        let (r0, c0, h, w) = self.view;
        let (rows, cols, board_mines) = self.board;
        let states = &self.states;
        let hidden_at = |&(r, c): &(usize, usize)| states.get(r * w + c) == Some(&cell::HIDDEN);
        let mut hidden = Vec::new();
        let mut numbers = Vec::new();
        for r in 0..h {
            for c in 0..w {
                let state = states[r * w + c];
                // A number at the viewport's edge sees cells outside it (unless the edge is
                // the board's): leave it out, so every constraint is whole.
                let whole = (r > 0 || r0 == 0)
                    && (c > 0 || c0 == 0)
                    && (r + 1 < h || r0 + h == rows)
                    && (c + 1 < w || c0 + w == cols);
                if state <= cell::OPEN_MAX && whole {
                    numbers.push((r, c, state));
                } else if state == cell::HIDDEN {
                    hidden.push((r, c));
                }
            }
        }
        if hidden.is_empty() {
            return Vec::new();
        }
        // A mine count for the window, which only the odds use: the board's own when the
        // viewport is the whole board, else the board's density.
        let mines = if h == rows && w == cols {
            board_mines
        } else {
            hidden.len() * board_mines / (rows * cols).max(1)
        }
        .min(hidden.len());
        let Ok(mut position) = Position::new(h, w, mines) else {
            return vec![self.random(&hidden)];
        };
        for (r, c, n) in numbers {
            let _ = position.reveal(r, c, n);
        }
        if let Ok(mut solver) = Solver::new(&position)
            && solver.deduce().is_ok()
        {
            let safe: Vec<_> = solver.into_certain().safe().filter(hidden_at).collect();
            if !safe.is_empty() {
                return self.place(safe);
            }
        }
        if let Ok(solver) = Solver::new(&position)
            && let Ok(solution) = solver.solve_with(false)
        {
            // A cell the full solve proves safe (the mine count can prove what the quick
            // deduction did not), else the first hidden cell, row by row, of the lowest
            // probability: the lowest of the cells next to a number and the one shared by
            // the cells touching none.
            let safe: Vec<_> = solution.certain.safe().filter(hidden_at).collect();
            if !safe.is_empty() {
                return self.place(safe);
            }
            let odds = &solution.probabilities;
            let mut lowest = odds
                .frontier()
                .map(|(_, q)| q)
                .fold(f64::INFINITY, f64::min);
            if odds.off_frontier_cells() > 0 {
                lowest = lowest.min(odds.off_frontier());
            }
            let best = hidden
                .iter()
                .copied()
                .find(|&(r, c)| odds.mine(r, c).is_ok_and(|q| q <= lowest));
            if let Some(cell) = best {
                return self.place(vec![cell]);
            }
        }
        vec![self.random(&hidden)]
    }

    /// Cells of the viewport as cells of the board.
    fn place(&self, cells: Cells) -> Cells {
        let (r0, c0, _, _) = self.view;
        cells.into_iter().map(|(r, c)| (r0 + r, c0 + c)).collect()
    }

    /// The last resort: a hidden cell (of the viewport's, `hidden`) picked at random.
    fn random(&self, hidden: &[(usize, usize)]) -> (usize, usize) {
        let (r, c) = hidden[self.pick as usize % hidden.len()];
        (self.view.0 + r, self.view.1 + c)
    }
}
