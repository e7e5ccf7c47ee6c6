//! A room's life: its phase (waiting, playing, over), what becomes of it once nobody is
//! connected (evicted, archived or removed), and the archive of finished games.
//!
//! A room with nobody connected for `--room-idle` leaves memory: a room whose game never
//! started is removed with its folder; any other is evicted (a snapshot is written and the
//! room dropped, its folder kept), and comes back on the next join or watch through the same
//! recovery a start runs. A room whose game is over and that has been empty for
//! `--keep-finished` is archived: its folder is replaced by a record of under 1 KiB in
//! `archive/games/` (or simply deleted, with `--archive none`), listed at `/games`.
//!
//! The archive's `index` lists the records' file names in the order they were written, one
//! line of [`INDEX_LINE`] bytes each, so that a page of `/games` is one seek and one read
//! however many games were played.
//!
//! # The states
//!
//! A room's phase is **waiting** (no move in the room yet: its clock has not started, and no
//! rematch), **playing**, or **over** (co-op's game ended; a race won, or every racer's game
//! ended); any of them may be **empty** (nobody connected). The room's worker acts on an empty
//! room at its tick: after `--room-idle` a waiting room is removed with its folder (renamed
//! into `trash/` at once, then deleted; a start empties what a stop left there), any other
//! evicted (its snapshot written on a thread of its own, the room dropped, the folder kept).
//! An over room empty for `--keep-finished` is archived: its folder is replaced by a JSON
//! record of under [`MAX_RECORD`] bytes (when it was made and ended by the wall clock, how long
//! it took by the room's game clock) in `archive/games/`, whose name is appended to
//! `archive/index`, or deleted with `--archive none`. A sweep thread does the same for rooms
//! already evicted.
//!
//! A join or a watch of an evicted room recovers it from its folder on a thread of its own,
//! through `RoomDir::recover`, the path a start takes; a join counted on its way in (under the
//! directory's lock) keeps the room from leaving memory until the worker has taken it, so no
//! join is ever sent to a room that is gone. A room that cannot be recovered, at start or on
//! such a join, is quarantined (see [`crate::log::quarantine`]). Only waiting and playing rooms
//! count against `--max-rooms` and show at `/rooms`; only rooms in memory count against
//! `--max-total-cells`.

use std::fmt::Write as _;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bitmines_core::Status;

use crate::params::{RoomParams, mode_name, rule_name};
use crate::protocol::Mode;
use crate::room::{FinishedGame, GameResult, Room};

/// Where a room's game stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Nobody has made a move yet.
    Waiting,
    /// A move was made and the game goes on.
    Playing,
    /// The game ended (co-op: won or lost; a race: a racer won, or every racer's game ended).
    Over,
}

impl Phase {
    /// The phase's name, as `/rooms` and `/metrics` show it.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Waiting => "waiting",
            Phase::Playing => "playing",
            Phase::Over => "over",
        }
    }

    /// Every phase, in order.
    pub const ALL: [Phase; 3] = [Phase::Waiting, Phase::Playing, Phase::Over];

    /// The phase of `room`'s game: waiting until the room's first move (its clock starts
    /// there), playing from then, over once its game ended. A room past a rematch is never
    /// waiting: it has players and a game behind it, which a waiting room (removed, not
    /// kept, once empty) would lose.
    pub fn of(room: &Room) -> Phase {
        if room.is_over() {
            Phase::Over
        } else if room.clock_started() || room.game() > 1 {
            Phase::Playing
        } else {
            Phase::Waiting
        }
    }

    pub(crate) fn code(self) -> u8 {
        self as u8
    }

    pub(crate) fn from_code(code: u8) -> Phase {
        match code {
            0 => Phase::Waiting,
            1 => Phase::Playing,
            _ => Phase::Over,
        }
    }
}

/// What becomes of a finished game's folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArchiveMode {
    /// A record of the result is kept under `archive/` and listed at `/games`.
    Archive,
    /// The folder is deleted and nothing is kept.
    None,
}

/// What becomes of a room with nobody connected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fate {
    /// Leaves memory with a snapshot; its folder stays and it comes back on a join.
    Evict,
    /// Its folder is deleted (a game never started, or a finished one with `--archive none`).
    Remove,
    /// Its folder is replaced by a record under `archive/`.
    Archive,
}

/// What becomes of a room in `phase` that has been empty for `empty_for`, if anything yet.
pub(crate) fn fate(
    phase: Phase,
    empty_for: Duration,
    room_idle: Duration,
    keep_finished: Duration,
    archive: ArchiveMode,
) -> Option<Fate> {
    match phase {
        Phase::Over if empty_for >= keep_finished => Some(match archive {
            ArchiveMode::Archive => Fate::Archive,
            ArchiveMode::None => Fate::Remove,
        }),
        Phase::Waiting if empty_for >= room_idle => Some(Fate::Remove),
        _ if empty_for >= room_idle => Some(Fate::Evict),
        _ => None,
    }
}

/// The most bytes of an archive record.
pub const MAX_RECORD: usize = 1024;

/// The bytes of one line of the archive's index (a record's file name, padded with spaces).
pub const INDEX_LINE: usize = 128;

/// Games a page of `/games` lists.
pub const PAGE: usize = 50;

/// Seconds since 1970 of `time` (0 before it).
pub fn unix(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// When the room in `folder` was made and when its game last changed, as unix seconds: the
/// times its `meta` and its `log` were last written. These say when the game happened, by
/// the wall clock; how long it took is the room's game clock (see [`record`]), which leaves
/// out the time the server was down.
pub fn game_times(folder: &Path) -> (u64, u64) {
    let modified = |name: &str| {
        fs::metadata(folder.join(name))
            .and_then(|m| m.modified())
            .ok()
    };
    let made = modified("meta").map_or(0, unix);
    let ended = modified("log").map_or(made, unix).max(made);
    (made, ended)
}

/// A play time for a record: its milliseconds, or `null` where there is none.
fn json_ms(ms: Option<u64>) -> String {
    ms.map_or_else(|| "null".to_string(), |ms| ms.to_string())
}

/// Appends `text` to `out` as a JSON string.
pub(crate) fn json_string(out: &mut String, text: &str) {
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

fn status_name(status: Status) -> &'static str {
    match status {
        Status::Playing => "playing",
        Status::Won => "won",
        Status::Lost => "lost",
    }
}

/// The archive record of the finished room `name`: its parameters, when it was made and
/// ended (unix seconds), its play time on the room's clock (`ms`, milliseconds from its
/// first move to the end of its game), the board's 3BV, who won, and the players with their
/// results (each with the play time their game ended at, `null` for one still going),
/// as one JSON object of at most [`MAX_RECORD`] bytes. Co-op's `result` is the team's; a
/// race's is `won` when a racer won, and `winner` names them. Players past what fits are
/// left out (`players_total` counts them all), and names are cut to 32 bytes.
pub fn record(name: &str, params: &RoomParams, room: &Room, (made, ended): (u64, u64)) -> String {
    let results = room.results();
    let winner = results.iter().find(|r| r.status == Status::Won);
    let result = match params.mode {
        Mode::Coop => room
            .games()
            .next()
            .map_or("lost", |g| status_name(g.status())),
        Mode::Race if winner.is_some() => "won",
        Mode::Race => "lost",
    };
    let mut head = String::with_capacity(MAX_RECORD);
    head.push_str("{\"name\":");
    json_string(&mut head, name);
    let _ = write!(
        head,
        ",\"game\":{},\"rows\":{},\"cols\":{},\"mines\":{},\"mode\":\"{}\",\"rule\":\"{}\",\"noguess\":{},\"made\":{made},\"ended\":{ended},\"ms\":{},\"bbbv\":{},\"result\":\"{result}\",\"winner\":",
        room.game(),
        params.rows,
        params.cols,
        params.mines,
        mode_name(params.mode),
        rule_name(params.rule),
        params.no_guess,
        json_ms(room.ended_ms()),
        room.bbbv(),
    );
    match (params.mode, winner) {
        (Mode::Race, Some(w)) => {
            json_string(&mut head, crate::protocol::truncate_utf8(&w.name, 32))
        }
        _ => head.push_str("null"),
    }
    let _ = write!(head, ",\"players_total\":{},\"players\":[", results.len());
    let mut players: Vec<String> = results
        .iter()
        .map(|r| {
            let mut p = String::from("{\"name\":");
            json_string(&mut p, crate::protocol::truncate_utf8(&r.name, 32));
            let _ = write!(
                p,
                ",\"result\":\"{}\",\"ms\":{},\"opened\":{},\"mines_hit\":{}}}",
                status_name(r.status),
                json_ms(r.ms),
                r.opened,
                r.mines_hit
            );
            p
        })
        .collect();
    // The players who did most come first, so those kept are the ones that matter.
    let mut order: Vec<usize> = (0..players.len()).collect();
    order.sort_by_key(|&i| {
        (
            results[i].status != Status::Won,
            std::cmp::Reverse(results[i].opened),
        )
    });
    players = order
        .into_iter()
        .map(|i| std::mem::take(&mut players[i]))
        .collect();
    close_record(head, players)
}

/// Ends a record whose `head` has opened its players' list: as many of `players` (best
/// first) as fit in [`MAX_RECORD`] bytes, then the list's and the object's ends.
fn close_record(head: String, players: Vec<String>) -> String {
    let tail = "]}";
    let mut out = head;
    let mut first = true;
    for p in players {
        if out.len() + p.len() + 1 + tail.len() > MAX_RECORD {
            break;
        }
        if !first {
            out.push(',');
        }
        first = false;
        out.push_str(&p);
    }
    out.push_str(tail);
    out
}

/// The archive record of game `finished` of room `name`, which ended when the room's next
/// game began (a rematch), in the form of [`record`] and written `ended` (unix seconds).
/// When it was made is `ended` less its play time; a player's cells opened and mines hit are
/// not kept past a rematch and read `null`.
pub fn rematch_record(name: &str, finished: &FinishedGame, ended: u64) -> String {
    let params = &finished.params;
    let played = finished
        .started_ms
        .map_or(0, |start| finished.ended_ms.saturating_sub(start));
    let made = ended.saturating_sub(played / 1000);
    let status_of = |id: u32| match &finished.result {
        GameResult::Coop { won: true } => (Status::Won, Some(finished.ended_ms)),
        GameResult::Coop { won: false } => (Status::Lost, Some(finished.ended_ms)),
        GameResult::Race(racers) => racers
            .iter()
            .find(|r| r.player == id)
            .map_or((Status::Playing, None), |r| (r.status, r.ended_ms)),
    };
    let winner = finished
        .players
        .iter()
        .find(|(id, _)| params.mode == Mode::Race && status_of(*id).0 == Status::Won);
    let result = match &finished.result {
        GameResult::Coop { won } => {
            if *won {
                "won"
            } else {
                "lost"
            }
        }
        GameResult::Race(_) if winner.is_some() => "won",
        GameResult::Race(_) => "lost",
    };
    let mut head = String::with_capacity(MAX_RECORD);
    head.push_str("{\"name\":");
    json_string(&mut head, name);
    let _ = write!(
        head,
        ",\"game\":{},\"rows\":{},\"cols\":{},\"mines\":{},\"mode\":\"{}\",\"rule\":\"{}\",\"noguess\":{},\"made\":{made},\"ended\":{ended},\"ms\":{},\"bbbv\":{},\"result\":\"{result}\",\"winner\":",
        finished.game,
        params.rows,
        params.cols,
        params.mines,
        mode_name(params.mode),
        rule_name(params.rule),
        params.no_guess,
        json_ms(finished.started_ms.map(|_| played)),
        finished.bbbv,
    );
    match winner {
        Some((_, name)) => json_string(&mut head, crate::protocol::truncate_utf8(name, 32)),
        None => head.push_str("null"),
    }
    let _ = write!(
        head,
        ",\"players_total\":{},\"players\":[",
        finished.players.len()
    );
    let mut players: Vec<(Status, String)> = finished
        .players
        .iter()
        .map(|(id, player)| {
            let (status, ms) = status_of(*id);
            let mut p = String::from("{\"name\":");
            json_string(&mut p, crate::protocol::truncate_utf8(player, 32));
            let _ = write!(
                p,
                ",\"result\":\"{}\",\"ms\":{},\"opened\":null,\"mines_hit\":null}}",
                status_name(status),
                json_ms(ms),
            );
            (status, p)
        })
        .collect();
    // The winners first, so those kept are the ones that matter.
    players.sort_by_key(|(status, _)| *status != Status::Won);
    close_record(head, players.into_iter().map(|(_, p)| p).collect())
}

/// The archive folder of the data folder `data`.
pub fn archive_dir(data: &Path) -> PathBuf {
    data.join("archive")
}

/// Writes the record of room `name` under `archive/games/` and lists it in the index;
/// gives the record's path. The record is written and synced before its line is appended,
/// so the index never names a record that is not there.
pub fn archive(data: &Path, name: &str, record: &str, ended: u64) -> io::Result<PathBuf> {
    let dir = archive_dir(data);
    let games = dir.join("games");
    fs::create_dir_all(&games)?;
    let base = format!("{name}-{ended}");
    // A name played twice in one second gets a second record, not one over the other.
    let file = (1..)
        .map(|k| match k {
            1 => format!("{base}.json"),
            k => format!("{base}-{k}.json"),
        })
        .find(|f| fs::symlink_metadata(games.join(f)).is_err())
        .unwrap_or_else(|| format!("{base}.json"));
    let path = games.join(&file);
    let tmp = games.join(format!(".{file}.tmp"));
    {
        let mut f = File::create(&tmp)?;
        f.write_all(record.as_bytes())?;
        f.write_all(b"\n")?;
        f.sync_all()?;
    }
    fs::rename(&tmp, &path)?;
    let mut line = file.into_bytes();
    if line.len() >= INDEX_LINE {
        return Err(io::Error::other(format!(
            "a record name of {} bytes, over the index's {}",
            line.len(),
            INDEX_LINE - 1
        )));
    }
    line.resize(INDEX_LINE - 1, b' ');
    line.push(b'\n');
    let mut index = OpenOptions::new()
        .create(true)
        .truncate(false)
        .read(true)
        .write(true)
        .open(dir.join("index"))?;
    // A line cut short by a crash is dropped, so that every line starts at a multiple of
    // the line's length.
    let len = index.metadata()?.len();
    let whole = len - len % INDEX_LINE as u64;
    if whole != len {
        index.set_len(whole)?;
    }
    index.seek(SeekFrom::Start(whole))?;
    index.write_all(&line)?;
    index.sync_data()?;
    Ok(path)
}

/// Page `page` (0 for the newest) of the archived games, as JSON:
/// `{"total":N,"page":P,"per_page":50,"games":[RECORD,...]}`, newest first. Reads the index's
/// lines for that page and their records, nothing else; a record that cannot be read is
/// left out.
pub fn games_page(data: &Path, page: usize) -> String {
    let dir = archive_dir(data);
    let mut names = Vec::new();
    let mut total = 0;
    if let Ok(mut index) = File::open(dir.join("index")) {
        total = index.metadata().map_or(0, |m| {
            usize::try_from(m.len()).unwrap_or(usize::MAX) / INDEX_LINE
        });
        // Newest first: page 0 ends at the index's last line.
        let end = total.saturating_sub(page.saturating_mul(PAGE));
        let start = end.saturating_sub(PAGE);
        let mut buf = vec![0u8; (end - start) * INDEX_LINE];
        if index
            .seek(SeekFrom::Start((start * INDEX_LINE) as u64))
            .is_ok()
            && index.read_exact(&mut buf).is_ok()
        {
            names = buf
                .chunks(INDEX_LINE)
                .rev()
                .filter_map(|line| std::str::from_utf8(line).ok())
                .map(|line| line.trim().to_string())
                .collect();
        }
    }
    let mut out = format!("{{\"total\":{total},\"page\":{page},\"per_page\":{PAGE},\"games\":[");
    let mut first = true;
    for name in names {
        // Only a plain file name from the index is read: nothing outside `games/`.
        if name.is_empty() || name.contains('/') || name.contains('\\') || name.starts_with('.') {
            continue;
        }
        let Ok(text) = fs::read_to_string(dir.join("games").join(&name)) else {
            continue;
        };
        if !first {
            out.push(',');
        }
        first = false;
        out.push_str(text.trim_end());
    }
    out.push_str("]}");
    out
}

/// Renames the folder of room `name` into the data folder's `trash/`, at once, so that a new
/// room of that name starts from nothing; gives its new path, for the caller to delete.
pub fn trash_room_folder(data: &Path, name: &str) -> io::Result<PathBuf> {
    let from = data.join("rooms").join(name);
    let trash = data.join("trash");
    fs::create_dir_all(&trash)?;
    let to = (1u64..)
        .map(|k| trash.join(format!("{name}-{k}")))
        .find(|p| fs::symlink_metadata(p).is_err())
        .unwrap_or_else(|| trash.join(name));
    fs::rename(&from, &to)?;
    Ok(to)
}

/// Empties the data folder's `trash/` (what a removal left when the server stopped midway).
pub fn empty_trash(data: &Path) {
    let _ = fs::remove_dir_all(data.join("trash"));
}

/// The bytes of the files under `path`, links not followed.
pub fn folder_bytes(path: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(entry.path()),
                Ok(t) if t.is_file() => total += entry.metadata().map_or(0, |m| m.len()),
                _ => {}
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fates_follow_the_phase_and_the_time_empty() {
        let (idle, keep) = (Duration::from_secs(10), Duration::from_secs(100));
        let f = |phase, secs, mode| fate(phase, Duration::from_secs(secs), idle, keep, mode);
        let a = ArchiveMode::Archive;
        assert_eq!(f(Phase::Waiting, 9, a), None);
        assert_eq!(f(Phase::Waiting, 10, a), Some(Fate::Remove));
        assert_eq!(f(Phase::Playing, 10, a), Some(Fate::Evict));
        assert_eq!(f(Phase::Playing, 1000, a), Some(Fate::Evict));
        assert_eq!(f(Phase::Over, 10, a), Some(Fate::Evict));
        assert_eq!(f(Phase::Over, 100, a), Some(Fate::Archive));
        assert_eq!(f(Phase::Over, 100, ArchiveMode::None), Some(Fate::Remove));
        // A finished game kept for less than the idle time is archived first.
        let short = fate(
            Phase::Over,
            Duration::from_secs(5),
            idle,
            Duration::from_secs(5),
            a,
        );
        assert_eq!(short, Some(Fate::Archive));
    }

    #[test]
    fn pages_list_the_newest_first_and_skip_a_torn_line() {
        let data = tempfile::tempdir().unwrap();
        for k in 0..(PAGE + 3) {
            archive(
                data.path(),
                &format!("g{k}"),
                &format!("{{\"k\":{k}}}"),
                1000,
            )
            .unwrap();
        }
        let first = games_page(data.path(), 0);
        assert!(
            first.starts_with(&format!("{{\"total\":{},\"page\":0,", PAGE + 3)),
            "{first}"
        );
        assert!(
            first.contains(&format!("\"games\":[{{\"k\":{}}},", PAGE + 2)),
            "{first}"
        );
        let second = games_page(data.path(), 1);
        assert!(
            second.ends_with("\"games\":[{\"k\":2},{\"k\":1},{\"k\":0}]}"),
            "{second}"
        );
        assert!(games_page(data.path(), 9).ends_with("\"games\":[]}"));
        // A line cut short (a crash midway through an append) is dropped by the next append.
        let index = archive_dir(data.path()).join("index");
        let mut f = OpenOptions::new().append(true).open(&index).unwrap();
        f.write_all(b"half").unwrap();
        archive(data.path(), "after", "{\"k\":\"after\"}", 1000).unwrap();
        let len = fs::metadata(&index).unwrap().len();
        assert_eq!(len, ((PAGE + 4) * INDEX_LINE) as u64);
        assert!(games_page(data.path(), 0).contains("\"games\":[{\"k\":\"after\"},"));
    }

    #[test]
    fn json_strings_escape_quotes_backslashes_and_controls() {
        let mut out = String::new();
        json_string(&mut out, "a\"b\\c\nd\u{1}é");
        assert_eq!(out, "\"a\\\"b\\\\c\\u000ad\\u0001é\"");
    }
}

#[cfg(test)]
mod records {
    use std::sync::Arc;
    use std::time::Instant;

    use super::*;
    use bitmines_core::Cell;

    use crate::log::Record;
    use crate::metrics::Metrics;
    use crate::protocol::{Action, MineRule};
    use crate::room::fresh_room;

    #[test]
    fn a_record_stays_under_a_kibibyte_with_many_players_and_long_names() {
        let params = RoomParams {
            rows: 16,
            cols: 30,
            mines: 99,
            mode: Mode::Coop,
            rule: MineRule::Classic,
            no_guess: false,
            first: Some((8, 15)),
            countdown: false,
        };
        let now = Instant::now();
        let mut room = fresh_room(&params, 3, 256, Arc::new(Metrics::default()), now).unwrap();
        for player in 0..200u32 {
            let name = format!("\"{player}\\\n{}", "é".repeat(200));
            room.apply_record(
                &Record::Join {
                    player,
                    token: [player as u8; 16],
                    name,
                },
                now,
            )
            .unwrap();
        }
        let name = "n".repeat(64);
        let text = record(&name, &params, &room, (1, 2));
        assert!(text.len() <= MAX_RECORD, "{} bytes", text.len());
        assert!(text.contains("\"players_total\":200"), "{text}");
        assert!(text.ends_with("]}"), "{text}");
        assert!(text.contains("\"bbbv\":"), "{text}");
        // It is JSON a reader takes: one object whose listed players fit.
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        let listed = value["players"].as_array().unwrap().len();
        assert!((1..200).contains(&listed), "{listed} players listed");
        assert_eq!(value["made"], 1);
        assert_eq!(value["ended"], 2);
        // Nobody moved: no play time, for the game or anyone.
        assert!(value["ms"].is_null(), "{text}");
        assert!(value["players"][0]["ms"].is_null(), "{text}");
    }

    /// A move of `player` on the cell at `at_ms` of the room's clock.
    fn at(player: u32, action: Action, (row, col): (usize, usize), at_ms: u64) -> Record {
        Record::Move {
            player,
            action,
            row: row as u32,
            col: col as u32,
            at_ms,
        }
    }

    #[test]
    fn a_records_times_are_the_rooms_clock() {
        let params = RoomParams {
            rows: 9,
            cols: 9,
            mines: 10,
            mode: Mode::Race,
            rule: MineRule::Classic,
            no_guess: false,
            first: Some((4, 4)),
            countdown: false,
        };
        let now = Instant::now();
        let mut room = fresh_room(&params, 7, 256, Arc::new(Metrics::default()), now).unwrap();
        for (player, name) in (0..).zip(["alice", "bob", "carol"]) {
            let join = Record::Join {
                player,
                token: [player as u8 + 1; 16],
                name: name.into(),
            };
            room.apply_record(&join, now).unwrap();
        }
        let cells: Vec<(usize, usize)> = (0..9).flat_map(|r| (0..9).map(move |c| (r, c))).collect();
        let board = Arc::clone(room.board());
        let mine = *cells
            .iter()
            .find(|&&(r, c)| board.is_mine(r, c).unwrap())
            .unwrap();
        // Alice sets off a mine at 1.5 s; Bob clears his board, his last cell at 7 s; Carol
        // goes on playing.
        room.apply_record(&at(0, Action::Reveal, mine, 1_500), now)
            .unwrap();
        let mut last = 2_000;
        for &cell in cells
            .iter()
            .filter(|&&(r, c)| !board.is_mine(r, c).unwrap())
        {
            if room.games().nth(1).unwrap().cell(cell.0, cell.1).unwrap() == Cell::Hidden {
                room.apply_record(&at(1, Action::Reveal, cell, last), now)
                    .unwrap();
                last += 100;
            }
        }
        let won = last - 100;
        assert_eq!(room.games().nth(1).unwrap().status(), Status::Won);
        assert!(room.is_over());
        let value = |room: &Room| -> serde_json::Value {
            serde_json::from_str(&record("race", &params, room, (10, 20))).unwrap()
        };
        let player = |v: &serde_json::Value, name: &str| {
            v["players"]
                .as_array()
                .unwrap()
                .iter()
                .find(|p| p["name"] == name)
                .cloned()
                .unwrap()
        };
        let v = value(&room);
        assert_eq!(v["ms"], won, "{v}");
        assert_eq!(player(&v, "bob")["ms"], won, "{v}");
        assert_eq!(player(&v, "alice")["ms"], 1_500, "{v}");
        assert!(player(&v, "carol")["ms"].is_null(), "{v}");
        assert_eq!(
            (v["made"].clone(), v["ended"].clone()),
            (10.into(), 20.into())
        );
        // Carol's game ends later: her time is hers, and the race's stays the win's.
        room.apply_record(&at(2, Action::Reveal, mine, won + 5_000), now)
            .unwrap();
        let v = value(&room);
        assert_eq!(player(&v, "carol")["ms"], won + 5_000, "{v}");
        assert_eq!(v["ms"], won, "{v}");
    }
}
