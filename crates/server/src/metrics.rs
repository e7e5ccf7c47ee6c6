//! Counters and the acknowledgement latency histogram, shown at `/metrics` in the Prometheus
//! text format.

use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use hdrhistogram::Histogram;

/// The server's counters. Every method is cheap and callable from any thread.
pub struct Metrics {
    connections: AtomicU64,
    connections_total: AtomicU64,
    rooms: AtomicU64,
    actions: AtomicU64,
    errors: AtomicU64,
    frames_out: AtomicU64,
    bytes_out: AtomicU64,
    frames_in: AtomicU64,
    drops_slow: AtomicU64,
    closes_abuse: AtomicU64,
    sync_rounds: AtomicU64,
    sync_requests: AtomicU64,
    sync_micros: AtomicU64,
    ack: Mutex<Histogram<u64>>,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics {
            connections: AtomicU64::new(0),
            connections_total: AtomicU64::new(0),
            rooms: AtomicU64::new(0),
            actions: AtomicU64::new(0),
            errors: AtomicU64::new(0),
            frames_out: AtomicU64::new(0),
            bytes_out: AtomicU64::new(0),
            frames_in: AtomicU64::new(0),
            drops_slow: AtomicU64::new(0),
            closes_abuse: AtomicU64::new(0),
            sync_rounds: AtomicU64::new(0),
            sync_requests: AtomicU64::new(0),
            sync_micros: AtomicU64::new(0),
            // Microseconds, 1 us to 60 s, three significant figures.
            ack: Mutex::new(
                Histogram::new_with_bounds(1, 60_000_000, 3)
                    .unwrap_or_else(|_| Histogram::new(3).unwrap_or_else(|_| unreachable_hist())),
            ),
        }
    }
}

fn unreachable_hist() -> Histogram<u64> {
    // Both constructors above take valid constant bounds; this is never reached, and a
    // histogram of any shape would do.
    Histogram::new_with_max(1 << 20, 1).unwrap_or_else(|_| unreachable_hist())
}

impl Metrics {
    /// A connection opened.
    pub fn connected(&self) {
        self.connections.fetch_add(1, Relaxed);
        self.connections_total.fetch_add(1, Relaxed);
    }

    /// A connection closed.
    pub fn disconnected(&self) {
        self.connections.fetch_sub(1, Relaxed);
    }

    /// Rooms open now.
    pub fn set_rooms(&self, rooms: usize) {
        self.rooms.store(rooms as u64, Relaxed);
    }

    /// A move was applied.
    pub fn action(&self) {
        self.actions.fetch_add(1, Relaxed);
    }

    /// An error frame was sent.
    pub fn error(&self) {
        self.errors.fetch_add(1, Relaxed);
    }

    /// A frame of `len` bytes was queued for a client.
    pub fn frame_out(&self, len: usize) {
        self.frames_out.fetch_add(1, Relaxed);
        self.bytes_out.fetch_add(len as u64, Relaxed);
    }

    /// A frame arrived from a client.
    pub fn frame_in(&self) {
        self.frames_in.fetch_add(1, Relaxed);
    }

    /// A client was closed for falling behind.
    pub fn drop_slow(&self) {
        self.drops_slow.fetch_add(1, Relaxed);
    }

    /// A client was closed for abuse (bad frames or floods past the rate limit).
    pub fn close_abuse(&self) {
        self.closes_abuse.fetch_add(1, Relaxed);
    }

    /// One round of the logs' group commit synced `requests` rooms' logs in `took`.
    pub fn sync_round(&self, requests: usize, took: Duration) {
        self.sync_rounds.fetch_add(1, Relaxed);
        self.sync_requests.fetch_add(requests as u64, Relaxed);
        self.sync_micros.fetch_add(took.as_micros() as u64, Relaxed);
    }

    /// A move's acknowledgement was queued `latency` after the move arrived.
    pub fn ack_latency(&self, latency: Duration) {
        if let Ok(mut h) = self.ack.lock() {
            let us = (latency.as_micros() as u64).clamp(1, 60_000_000);
            let _ = h.record(us);
        }
    }

    /// Moves applied since the start.
    pub fn actions(&self) -> u64 {
        self.actions.load(Relaxed)
    }

    /// The metrics in the Prometheus text format.
    pub fn render(&self) -> String {
        let mut out = String::new();
        let mut put = |name: &str, kind: &str, help: &str, value: u64| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
            );
        };
        put(
            "bitmines_connections",
            "gauge",
            "Open WebSocket connections.",
            self.connections.load(Relaxed),
        );
        put(
            "bitmines_connections_total",
            "counter",
            "WebSocket connections accepted.",
            self.connections_total.load(Relaxed),
        );
        put(
            "bitmines_rooms",
            "gauge",
            "Rooms open.",
            self.rooms.load(Relaxed),
        );
        put(
            "bitmines_actions_total",
            "counter",
            "Moves applied and acknowledged.",
            self.actions.load(Relaxed),
        );
        put(
            "bitmines_errors_total",
            "counter",
            "Error frames sent.",
            self.errors.load(Relaxed),
        );
        put(
            "bitmines_frames_in_total",
            "counter",
            "Frames received.",
            self.frames_in.load(Relaxed),
        );
        put(
            "bitmines_frames_out_total",
            "counter",
            "Frames queued for clients.",
            self.frames_out.load(Relaxed),
        );
        put(
            "bitmines_bytes_out_total",
            "counter",
            "Bytes of frames queued for clients.",
            self.bytes_out.load(Relaxed),
        );
        put(
            "bitmines_resyncs_total",
            "counter",
            "Resyncs sent (the server closes slow clients instead, so always 0).",
            0,
        );
        put(
            "bitmines_drops_total",
            "counter",
            "Connections closed because their send queue was full.",
            self.drops_slow.load(Relaxed),
        );
        put(
            "bitmines_abuse_closes_total",
            "counter",
            "Connections closed for bad frames or floods.",
            self.closes_abuse.load(Relaxed),
        );
        put(
            "bitmines_log_sync_rounds_total",
            "counter",
            "Rounds of the logs' group commit (each one sync for every room waiting).",
            self.sync_rounds.load(Relaxed),
        );
        put(
            "bitmines_log_sync_requests_total",
            "counter",
            "Rooms' requests to make their log durable, over all rounds.",
            self.sync_requests.load(Relaxed),
        );
        put(
            "bitmines_log_sync_microseconds_total",
            "counter",
            "Time spent syncing the logs, over all rounds.",
            self.sync_micros.load(Relaxed),
        );
        put(
            "process_resident_memory_bytes",
            "gauge",
            "Resident memory of the server process.",
            resident_bytes(),
        );
        if let Ok(h) = self.ack.lock() {
            let name = "bitmines_ack_latency_seconds";
            let _ = writeln!(
                out,
                "# HELP {name} From a move's arrival to its acknowledgement, durable write included."
            );
            let _ = writeln!(out, "# TYPE {name} histogram");
            for le_us in [
                100u64, 250, 500, 1_000, 2_500, 5_000, 10_000, 20_000, 50_000, 100_000, 250_000,
                1_000_000,
            ] {
                let count = h.count_between(0, le_us);
                let _ = writeln!(
                    out,
                    "{name}_bucket{{le=\"{}\"}} {count}",
                    le_us as f64 / 1e6
                );
            }
            let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {}", h.len());
            let sum: f64 = h
                .iter_recorded()
                .map(|v| v.value_iterated_to() as f64 * v.count_at_value() as f64)
                .sum::<f64>()
                / 1e6;
            let _ = writeln!(out, "{name}_sum {sum}");
            let _ = writeln!(out, "{name}_count {}", h.len());
        }
        out
    }
}

/// The process's resident memory, from `/proc/self/statm` (0 where there is none).
pub fn resident_bytes() -> u64 {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096)
}
