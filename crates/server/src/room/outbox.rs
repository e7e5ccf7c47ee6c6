//! The outbox: the frames a batch of requests produced wait here, with the acks and the
//! records, until the worker has made the records durable and calls [`Room::release`]; then
//! the changed chunks are found and encoded once each, and every frame goes to its
//! connections' bounded queues. A full queue closes its connection.

use std::collections::HashSet;
use std::time::Instant;

use bytes::Bytes;
use tokio::sync::mpsc;

use super::{ConnId, Refusal, Room};
use crate::log::Record;
use crate::protocol::{CHUNK, ServerMsg};

/// A frame waiting for the log to be durable.
pub(super) enum Pending {
    Frame(ConnId, Bytes),
    /// A full chunk, encoded when released, so it shows the state after the batch.
    Snapshot(ConnId, usize, u32),
    /// A frame for the connections watching a chunk of a view.
    Chunk(usize, u32, Bytes),
    /// A frame for one group of the connections that had joined when it was queued: those
    /// whose order is below the first number (so nobody gets a frame before their welcome)
    /// and is the third modulo the second. One group of one is every connection.
    Group(Bytes, u64, u64, u64),
}

impl Room {
    /// Records produced since the last call, to be made durable before [`Room::release`].
    pub fn take_records(&mut self) -> Vec<Record> {
        std::mem::take(&mut self.records)
    }

    /// Connections to close, with their reasons (their queues overflowed).
    pub fn take_closed(&mut self) -> Vec<(ConnId, String)> {
        std::mem::take(&mut self.to_close)
    }

    pub(super) fn reply(&mut self, conn: ConnId, msg: ServerMsg) {
        self.pending.push(Pending::Frame(conn, msg.encode()));
    }

    pub(super) fn error(&mut self, conn: ConnId, seq: u32, (code, message): Refusal) {
        self.metrics.error();
        self.reply(
            conn,
            ServerMsg::Error {
                seq,
                code: code as u16,
                message,
            },
        );
    }

    /// Sends everything the batch produced: call once its records are durable. Deltas go
    /// first, encoded once per chunk, then the queued frames in order, then the acks.
    pub fn release(&mut self, now: Instant) {
        // The cascades: every chunk whose revealed cells changed, found by spreading from the
        // chunks around each move (the cells a cascade opens are 8-connected).
        let mut seen: HashSet<(usize, u32)> = HashSet::new();
        let mut stack: Vec<(usize, u32)> = self.seeds.drain().collect();
        while let Some((view, chunk)) = stack.pop() {
            if !seen.insert((view, chunk)) {
                continue;
            }
            let (opened, beside) = self.revealed_since(view, chunk);
            if opened.is_empty() {
                continue;
            }
            self.dirty.entry((view, chunk)).or_default().extend(opened);
            stack.extend(beside.into_iter().map(|c| (view, c)));
        }
        let dirty = std::mem::take(&mut self.dirty);
        for ((view, chunk), mut cells) in dirty {
            let Some(subscribers) = self.subs.get(&(view, chunk)) else {
                continue;
            };
            if subscribers.is_empty() {
                continue;
            }
            // A cell changed twice in one batch (flagged, then unflagged) keeps its last state.
            cells.reverse();
            let mut seen_cells = HashSet::new();
            cells.retain(|&(offset, _)| seen_cells.insert(offset));
            cells.reverse();
            let frame = if cells.len() * 3 > CHUNK * CHUNK / 2 {
                self.snapshot_frame(view, chunk, false)
            } else {
                ServerMsg::Delta {
                    view: view as u32,
                    chunk_row: (chunk as usize / self.chunk_cols) as u32,
                    chunk_col: (chunk as usize % self.chunk_cols) as u32,
                    cells,
                }
                .encode()
            };
            let subscribers = subscribers.clone();
            for conn in subscribers {
                self.send(conn, frame.clone());
            }
        }
        let pending = std::mem::take(&mut self.pending);
        for item in pending {
            match item {
                Pending::Frame(conn, frame) => self.send(conn, frame),
                Pending::Snapshot(conn, view, chunk) => {
                    let Some(c) = self.conns.get(&conn) else {
                        continue;
                    };
                    // Skip a snapshot of a chunk the connection stopped watching since.
                    if c.view != Some(view) || !c.chunks.contains(&chunk) {
                        continue;
                    }
                    let truth = self.sees_truth(c, view);
                    let frame = self.snapshot_frame(view, chunk, truth);
                    self.send(conn, frame);
                }
                Pending::Chunk(view, chunk, frame) => {
                    let watchers = self.subs.get(&(view, chunk)).cloned().unwrap_or_default();
                    for conn in watchers {
                        self.send(conn, frame.clone());
                    }
                }
                Pending::Group(frame, upto, groups, turn) => {
                    let conns: Vec<ConnId> = self
                        .conns
                        .iter()
                        .filter(|(_, c)| c.order < upto && c.order % groups == turn)
                        .map(|(&id, _)| id)
                        .collect();
                    for conn in conns {
                        self.send(conn, frame.clone());
                    }
                }
            }
        }
        for (conn, frame, received) in std::mem::take(&mut self.acks) {
            self.metrics
                .ack_latency(now.saturating_duration_since(received));
            self.send(conn, frame);
        }
    }

    /// Queues a frame on a connection; a full queue closes the connection, so a client that
    /// falls behind never holds more than its queue and never slows anyone else.
    fn send(&mut self, conn: ConnId, frame: Bytes) {
        let Some(c) = self.conns.get(&conn) else {
            return;
        };
        let len = frame.len();
        match c.tx.try_send(frame) {
            Ok(()) => self.metrics.frame_out(len),
            Err(mpsc::error::TrySendError::Full(_)) => {
                self.metrics.drop_slow();
                self.to_close.push((
                    conn,
                    "too slow: the send queue is full; reconnect with the token to resume".into(),
                ));
                self.leave(conn);
            }
            Err(mpsc::error::TrySendError::Closed(_)) => self.leave(conn),
        }
    }

    /// Queues a frame for every connection in the room now.
    pub fn broadcast(&mut self, frame: Bytes) {
        self.push_all(frame);
    }

    pub(super) fn push_all(&mut self, frame: Bytes) {
        self.pending.push(Pending::Group(frame, self.joins, 1, 0));
    }
}
