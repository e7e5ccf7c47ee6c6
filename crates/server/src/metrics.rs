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
    sockets: AtomicU64,
    upgrade_timeouts: AtomicU64,
    sockets_refused: AtomicU64,
    rooms: AtomicU64,
    rooms_by_phase: [AtomicU64; 3],
    rooms_in_memory: AtomicU64,
    rooms_empty: AtomicU64,
    rooms_quarantined: AtomicU64,
    rooms_evicted: AtomicU64,
    rooms_restored: AtomicU64,
    rooms_archived: AtomicU64,
    rooms_removed: AtomicU64,
    data_bytes: AtomicU64,
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
    sync: Mutex<Histogram<u64>>,
}

impl Default for Metrics {
    fn default() -> Metrics {
        Metrics {
            connections: AtomicU64::new(0),
            connections_total: AtomicU64::new(0),
            sockets: AtomicU64::new(0),
            upgrade_timeouts: AtomicU64::new(0),
            sockets_refused: AtomicU64::new(0),
            rooms: AtomicU64::new(0),
            rooms_by_phase: Default::default(),
            rooms_in_memory: AtomicU64::new(0),
            rooms_empty: AtomicU64::new(0),
            rooms_quarantined: AtomicU64::new(0),
            rooms_evicted: AtomicU64::new(0),
            rooms_restored: AtomicU64::new(0),
            rooms_archived: AtomicU64::new(0),
            rooms_removed: AtomicU64::new(0),
            data_bytes: AtomicU64::new(0),
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
            ack: Mutex::new(micros()),
            sync: Mutex::new(micros()),
        }
    }
}

/// A histogram of microseconds, 1 us to 60 s, three significant figures.
fn micros() -> Histogram<u64> {
    Histogram::new_with_bounds(1, 60_000_000, 3)
        .unwrap_or_else(|_| Histogram::new(3).unwrap_or_else(|_| unreachable_hist()))
}

/// Records `took` in `histogram`, clamped to its range.
fn record(histogram: &Mutex<Histogram<u64>>, took: Duration) {
    if let Ok(mut h) = histogram.lock() {
        let _ = h.record((took.as_micros() as u64).clamp(1, 60_000_000));
    }
}

/// Writes `histogram` (of microseconds) as the Prometheus histogram `name`, in seconds.
fn put_histogram(out: &mut String, name: &str, help: &str, histogram: &Mutex<Histogram<u64>>) {
    let Ok(h) = histogram.lock() else {
        return;
    };
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} histogram");
    for le_us in [
        100u64, 250, 500, 1_000, 2_500, 5_000, 10_000, 20_000, 50_000, 100_000, 250_000, 1_000_000,
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

    /// A socket was accepted (it counts until [`Metrics::socket_closed`]).
    pub fn socket_opened(&self) {
        self.sockets.fetch_add(1, Relaxed);
    }

    /// An accepted socket closed.
    pub fn socket_closed(&self) {
        self.sockets.fetch_sub(1, Relaxed);
    }

    /// Sockets open now, those still speaking HTTP and WebSockets alike.
    pub fn sockets(&self) -> u64 {
        self.sockets.load(Relaxed)
    }

    /// A socket was closed for not becoming a WebSocket in time.
    pub fn upgrade_timed_out(&self) {
        self.upgrade_timeouts.fetch_add(1, Relaxed);
    }

    /// A socket was closed as it was accepted, past the budget of sockets.
    pub fn socket_refused(&self) {
        self.sockets_refused.fetch_add(1, Relaxed);
    }

    /// Rooms now: how many are waiting, playing and over, and how many of them are in
    /// memory and how many empty (nobody connected). The rooms that can be joined (waiting
    /// or playing) are the rooms open.
    pub fn set_rooms(&self, by_phase: [u64; 3], in_memory: u64, empty: u64) {
        self.rooms_empty.store(empty, Relaxed);
        self.rooms.store(by_phase[0] + by_phase[1], Relaxed);
        for (slot, n) in self.rooms_by_phase.iter().zip(by_phase) {
            slot.store(n, Relaxed);
        }
        self.rooms_in_memory.store(in_memory, Relaxed);
    }

    /// A room with nobody connected left memory, its folder kept.
    pub fn room_evicted(&self) {
        self.rooms_evicted.fetch_add(1, Relaxed);
    }

    /// An evicted room came back into memory for a join.
    pub fn room_restored(&self) {
        self.rooms_restored.fetch_add(1, Relaxed);
    }

    /// A finished room's folder was replaced by its archive record.
    pub fn room_archived(&self) {
        self.rooms_archived.fetch_add(1, Relaxed);
    }

    /// A room's folder was deleted with no record (a game never started, or `--archive
    /// none`).
    pub fn room_removed(&self) {
        self.rooms_removed.fetch_add(1, Relaxed);
    }

    /// The bytes of the files under the data folder, as last measured.
    pub fn set_data_bytes(&self, bytes: u64) {
        self.data_bytes.store(bytes, Relaxed);
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

    /// A room that could not be restored was moved to the quarantine folder.
    pub fn room_quarantined(&self) {
        self.rooms_quarantined.fetch_add(1, Relaxed);
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
        record(&self.sync, took);
    }

    /// A move's acknowledgement was queued `latency` after the move arrived.
    pub fn ack_latency(&self, latency: Duration) {
        record(&self.ack, latency);
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
            "bitmines_sockets",
            "gauge",
            "Open sockets: WebSockets and those still speaking HTTP.",
            self.sockets.load(Relaxed),
        );
        put(
            "bitmines_upgrade_timeouts_total",
            "counter",
            "Sockets closed for not becoming a WebSocket within the upgrade timeout.",
            self.upgrade_timeouts.load(Relaxed),
        );
        put(
            "bitmines_sockets_refused_total",
            "counter",
            "Sockets closed as they were accepted, past the budget of sockets.",
            self.sockets_refused.load(Relaxed),
        );
        put(
            "bitmines_rooms",
            "gauge",
            "Rooms open: those that can be joined (waiting or playing), in memory or not.",
            self.rooms.load(Relaxed),
        );
        let _ = writeln!(
            out,
            "# HELP bitmines_rooms_by_state Rooms by state: waiting (no move yet), playing, over.\n# TYPE bitmines_rooms_by_state gauge"
        );
        for (state, n) in ["waiting", "playing", "over"]
            .iter()
            .zip(&self.rooms_by_phase)
        {
            let _ = writeln!(
                out,
                "bitmines_rooms_by_state{{state=\"{state}\"}} {}",
                n.load(Relaxed)
            );
        }
        let mut put = |name: &str, kind: &str, help: &str, value: u64| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
            );
        };
        put(
            "bitmines_rooms_in_memory",
            "gauge",
            "Rooms in memory (the others are evicted: their folder only).",
            self.rooms_in_memory.load(Relaxed),
        );
        put(
            "bitmines_rooms_empty",
            "gauge",
            "Rooms with nobody connected, in any state, in memory or not.",
            self.rooms_empty.load(Relaxed),
        );
        put(
            "bitmines_rooms_evicted_total",
            "counter",
            "Rooms with nobody connected that left memory, their folder kept.",
            self.rooms_evicted.load(Relaxed),
        );
        put(
            "bitmines_rooms_restored_total",
            "counter",
            "Evicted rooms brought back into memory by a join or a watch.",
            self.rooms_restored.load(Relaxed),
        );
        put(
            "bitmines_rooms_archived_total",
            "counter",
            "Finished rooms whose folder was replaced by an archive record.",
            self.rooms_archived.load(Relaxed),
        );
        put(
            "bitmines_rooms_removed_total",
            "counter",
            "Rooms deleted with no record: never started, or finished with --archive none.",
            self.rooms_removed.load(Relaxed),
        );
        put(
            "bitmines_data_bytes",
            "gauge",
            "Bytes of the files under the data folder, measured every few seconds.",
            self.data_bytes.load(Relaxed),
        );
        put(
            "bitmines_rooms_quarantined_total",
            "counter",
            "Rooms that could not be restored at start, moved to the quarantine folder.",
            self.rooms_quarantined.load(Relaxed),
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
        put(
            "process_open_fds",
            "gauge",
            "Files the server process has open (sockets, logs, snapshots being written).",
            open_files(),
        );
        put_histogram(
            &mut out,
            "bitmines_ack_latency_seconds",
            "From a move's arrival to its acknowledgement, durable write included.",
            &self.ack,
        );
        put_histogram(
            &mut out,
            "bitmines_log_sync_seconds",
            "How long each round of the logs' group commit took.",
            &self.sync,
        );
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

/// How many files the process has open, from `/proc/self/fd` (0 where there is none). A
/// scrape opens the folder itself, which is not counted.
pub fn open_files() -> u64 {
    std::fs::read_dir("/proc/self/fd")
        .map_or(0, |entries| (entries.count() as u64).saturating_sub(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of the line `name value` in `text`.
    fn value(text: &str, name: &str) -> Option<f64> {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
    }

    /// The open-file gauge moves with the files the process opens.
    #[cfg(target_os = "linux")]
    #[test]
    fn open_files_counts_the_process_files() {
        let held: Vec<std::fs::File> = (0..20)
            .map(|_| std::fs::File::open("/proc/self/statm").unwrap())
            .collect();
        let during = open_files();
        drop(held);
        // Other tests of this binary open and close files on their own threads meanwhile,
        // so only the files held here are counted on.
        assert!(during >= 20, "{during} with 20 held");
        let text = Metrics::default().render();
        assert!(
            value(&text, "process_open_fds").is_some_and(|n| n >= 3.0),
            "{text}"
        );
    }

    #[test]
    fn histograms_count_into_their_buckets() {
        let m = Metrics::default();
        m.sync_round(3, Duration::from_micros(200));
        m.sync_round(1, Duration::from_millis(30));
        m.ack_latency(Duration::from_micros(700));
        let text = m.render();
        let sync = "bitmines_log_sync_seconds";
        assert_eq!(value(&text, &format!("{sync}_count")), Some(2.0));
        assert_eq!(
            value(&text, &format!("{sync}_bucket{{le=\"0.00025\"}}")),
            Some(1.0)
        );
        assert_eq!(
            value(&text, &format!("{sync}_bucket{{le=\"0.02\"}}")),
            Some(1.0)
        );
        assert_eq!(
            value(&text, &format!("{sync}_bucket{{le=\"0.05\"}}")),
            Some(2.0)
        );
        assert_eq!(
            value(&text, &format!("{sync}_bucket{{le=\"+Inf\"}}")),
            Some(2.0)
        );
        let sum = value(&text, &format!("{sync}_sum")).unwrap_or(0.0);
        assert!((sum - 0.0302).abs() < 0.0002, "sum {sum}");
        assert_eq!(value(&text, "bitmines_log_sync_requests_total"), Some(4.0));
        let ack = "bitmines_ack_latency_seconds";
        assert_eq!(value(&text, &format!("{ack}_count")), Some(1.0));
        assert_eq!(
            value(&text, &format!("{ack}_bucket{{le=\"0.0005\"}}")),
            Some(0.0)
        );
        assert_eq!(
            value(&text, &format!("{ack}_bucket{{le=\"0.001\"}}")),
            Some(1.0)
        );
    }
}
