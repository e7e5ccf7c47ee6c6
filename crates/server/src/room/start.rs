//! A race that starts together: in a race room made with `countdown=1`, moves wait until
//! every racer online has said they are ready ([`ClientMsg::Ready`]), then a countdown of
//! [`COUNTDOWN_MS`] runs, and the race starts with one clock for all at 0.
//!
//! Each racer's view has the server's first click open from the start, so racers see the
//! same opening while they get ready; a move before the start is refused with
//! [`ErrorCode::NotStarted`], naming what the race waits for. Everyone is sent a
//! [`ServerMsg::Start`] frame when the count of ready racers changes, when the countdown
//! begins (with the milliseconds left) and when the race starts (0); a connection gets one
//! when it joins. The start is the record [`Record::Start`] in the room's log, written when
//! the countdown ends: the clock runs from it (not from the first move), and recovery
//! replays it. Being ready is kept in memory only: a server stopped before a race started
//! brings it back with nobody ready. A rematch starts the next game unready again.
//!
//! [`ClientMsg::Ready`]: crate::protocol::ClientMsg::Ready

use std::time::{Duration, Instant};

use super::{ConnId, Refusal, Room, refuse};
use crate::log::Record;
use crate::params::COUNTDOWN_MS;
use crate::protocol::{ErrorCode, Mode, NO_TIME, ServerMsg};

impl Room {
    /// Whether moves wait for the race to start: a race with a countdown whose clock has
    /// not started.
    pub(super) fn waits_for_start(&self) -> bool {
        self.params.countdown && self.params.mode == Mode::Race && !self.clock.running()
    }

    /// Why a move must wait for the start, if it must.
    pub(super) fn not_started(&self, now: Instant) -> Option<String> {
        if !self.waits_for_start() {
            return None;
        }
        Some(match self.countdown_until {
            Some(at) => format!(
                "the race starts in {} ms",
                at.saturating_duration_since(now).as_millis()
            ),
            None => {
                let (ready, racers) = self.ready_count();
                format!(
                    "the race starts when every racer is ready: {ready} of {racers} are; send \
                     ready"
                )
            }
        })
    }

    /// Racers online who are ready, and racers online.
    fn ready_count(&self) -> (u32, u32) {
        let online: Vec<usize> = (0..self.players.len())
            .filter(|&p| self.players[p].online > 0)
            .collect();
        let ready = online.iter().filter(|p| self.ready.contains(p)).count();
        (ready as u32, online.len() as u32)
    }

    /// A racer says they are ready.
    pub(super) fn ready(&mut self, conn: ConnId, seq: u32) -> Result<(), Refusal> {
        let player = self.player_of(conn)?;
        if !(self.params.countdown && self.params.mode == Mode::Race) {
            return refuse(
                ErrorCode::NotAllowed,
                "only a race made with countdown=1 waits for its racers to be ready",
            );
        }
        if !self.waits_for_start() {
            return refuse(ErrorCode::NotAllowed, "the race has started");
        }
        self.ready.insert(player);
        self.start_dirty = true;
        self.reply(
            conn,
            ServerMsg::Ack {
                seq,
                opened: 0,
                exploded: 0,
                status: 0,
                flagged: false,
            },
        );
        Ok(())
    }

    /// The start frame as the race stands at `now`.
    pub(super) fn start_frame(&self, now: Instant) -> ServerMsg {
        let (ready, racers) = self.ready_count();
        let starts_in_ms = if !self.waits_for_start() {
            0
        } else {
            self.countdown_until.map_or(NO_TIME, |at| {
                let left = at.saturating_duration_since(now).as_millis();
                u32::try_from(left).unwrap_or(NO_TIME - 1)
            })
        };
        ServerMsg::Start {
            ready,
            racers,
            starts_in_ms,
        }
    }

    /// Called every round: begins the countdown once every racer online is ready, starts
    /// the race when it ends, and sends the start frame when it changed.
    pub(super) fn tick_start(&mut self, now: Instant) {
        if !self.waits_for_start() {
            self.start_dirty = false;
            return;
        }
        match self.countdown_until {
            None => {
                let (ready, racers) = self.ready_count();
                if racers > 0 && ready == racers {
                    self.countdown_until =
                        Some(now + Duration::from_millis(u64::from(COUNTDOWN_MS)));
                    self.start_dirty = true;
                }
            }
            Some(at) if now >= at => {
                let record = Record::Start { game: self.game };
                self.start_race(now);
                self.records.push(record);
                self.start_dirty = true;
            }
            Some(_) => {}
        }
        if std::mem::take(&mut self.start_dirty) {
            let frame = self.start_frame(now).encode();
            self.push_all(frame);
        }
    }

    /// Starts the race at `now`, live or replayed: the clock runs from 0 for every racer.
    pub(super) fn start_race(&mut self, now: Instant) {
        self.countdown_until = None;
        self.ready.clear();
        self.clock.set(self.clock.last_ms, now);
        self.send_clocks(None, now);
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use tokio::sync::mpsc;

    use super::*;
    use crate::protocol::{Action, ClientMsg};
    use crate::room::testing::{expert, join_all};

    fn race(countdown: bool) -> Room {
        expert(Mode::Race, false, countdown, 3)
    }

    /// Runs a round at `now` (as the worker does: the timer, then the frames out) and gives
    /// each connection's frames.
    fn round(
        room: &mut Room,
        queues: &mut [mpsc::Receiver<Bytes>],
        now: Instant,
    ) -> Vec<Vec<ServerMsg>> {
        room.tick(now);
        room.release(now);
        queues
            .iter_mut()
            .map(|q| {
                std::iter::from_fn(|| q.try_recv().ok())
                    .map(|f| ServerMsg::decode(&f).unwrap())
                    .collect()
            })
            .collect()
    }

    fn starts(frames: &[ServerMsg]) -> Vec<(u32, u32, u32)> {
        frames
            .iter()
            .filter_map(|m| match *m {
                ServerMsg::Start {
                    ready,
                    racers,
                    starts_in_ms,
                } => Some((ready, racers, starts_in_ms)),
                _ => None,
            })
            .collect()
    }

    fn refused(frames: &[ServerMsg], seq: u32) -> Option<(u16, String)> {
        frames.iter().find_map(|m| match m {
            ServerMsg::Error {
                seq: s,
                code,
                message,
            } if *s == seq => Some((*code, message.clone())),
            _ => None,
        })
    }

    fn reveal(seq: u32) -> ClientMsg {
        ClientMsg::Move {
            seq,
            action: Action::Reveal,
            row: 0,
            col: 0,
        }
    }

    #[test]
    fn a_race_waits_for_every_racer_then_counts_down_and_starts_one_clock() {
        let t0 = Instant::now();
        let at = |ms: u64| t0 + Duration::from_millis(ms);
        let mut room = race(true);
        let mut queues = Vec::new();
        for conn in 0..2 {
            let (tx, rx) = mpsc::channel(1 << 10);
            room.join(conn, None, false, None, tx, t0).unwrap();
            queues.push(rx);
        }
        let got = round(&mut room, &mut queues, t0);
        // Each was told on joining, and everyone once both had joined: nobody ready yet.
        assert_eq!(starts(&got[1]).last(), Some(&(0, 2, NO_TIME)));

        // A move before the start is refused, saying what the race waits for.
        room.handle(0, reveal(1), t0, t0);
        let got = round(&mut room, &mut queues, at(10));
        let (code, why) = refused(&got[0], 1).expect("refused");
        assert_eq!(code, ErrorCode::NotStarted as u16);
        assert!(why.contains("0 of 2 are"), "{why}");

        // One racer ready: the others hear it; no countdown yet.
        room.handle(0, ClientMsg::Ready { seq: 2 }, at(20), at(20));
        let got = round(&mut room, &mut queues, at(20));
        assert!(
            got[0]
                .iter()
                .any(|m| matches!(m, ServerMsg::Ack { seq: 2, .. }))
        );
        assert_eq!(starts(&got[1]), [(1, 2, NO_TIME)]);

        // Both ready: the countdown begins, and moves still wait.
        room.handle(1, ClientMsg::Ready { seq: 1 }, at(30), at(30));
        let got = round(&mut room, &mut queues, at(30));
        assert_eq!(starts(&got[0]), [(2, 2, COUNTDOWN_MS)]);
        room.handle(1, reveal(2), at(1000), at(1000));
        let got = round(&mut room, &mut queues, at(1000));
        let (code, why) = refused(&got[1], 2).expect("refused");
        assert_eq!(code, ErrorCode::NotStarted as u16);
        assert!(why.contains("starts in 2030 ms"), "{why}");
        assert!(
            room.take_records()
                .iter()
                .all(|r| !matches!(r, Record::Start { .. }))
        );

        // The countdown ends: the start is recorded, the clock runs from 0 for both, and
        // moves are taken.
        let start = at(30 + u64::from(COUNTDOWN_MS));
        let got = round(&mut room, &mut queues, start);
        assert_eq!(room.take_records(), [Record::Start { game: 1 }]);
        for frames in &got {
            assert_eq!(starts(frames), [(0, 2, 0)]);
            let clock = frames.iter().any(|m| {
                matches!(
                    m,
                    ServerMsg::Clock {
                        elapsed_ms: 0,
                        running: true,
                        ..
                    }
                )
            });
            assert!(clock, "{frames:?}");
        }
        assert_eq!(
            room.view_clock(0, start + Duration::from_millis(500)),
            (500, true)
        );
        room.handle(1, reveal(3), start, start);
        let got = round(&mut room, &mut queues, start);
        assert!(refused(&got[1], 3).is_none(), "{:?}", got[1]);
        room.handle(0, ClientMsg::Ready { seq: 4 }, start, start);
        let got = round(&mut room, &mut queues, start);
        assert_eq!(
            refused(&got[0], 4).map(|r| r.0),
            Some(ErrorCode::NotAllowed as u16)
        );

        // Replayed, the records start the race again.
        let mut again = race(true);
        join_all(&mut again, 2, t0);
        assert!(again.waits_for_start());
        again
            .apply_record(&Record::Start { game: 1 }, start)
            .unwrap();
        assert!(!again.waits_for_start());
        assert!(
            again
                .apply_record(&Record::Start { game: 2 }, start)
                .is_err()
        );
    }

    #[test]
    fn a_race_without_a_countdown_refuses_ready_and_takes_moves_at_once() {
        let t0 = Instant::now();
        let mut room = race(false);
        let (tx, rx) = mpsc::channel(1 << 10);
        room.join(0, None, false, None, tx, t0).unwrap();
        let mut queues = vec![rx];
        room.handle(0, ClientMsg::Ready { seq: 1 }, t0, t0);
        room.handle(0, reveal(2), t0, t0);
        let got = round(&mut room, &mut queues, t0);
        assert_eq!(
            refused(&got[0], 1).map(|r| r.0),
            Some(ErrorCode::NotAllowed as u16)
        );
        assert!(refused(&got[0], 2).is_none());
        assert!(starts(&got[0]).is_empty(), "no start frames");
    }
}
