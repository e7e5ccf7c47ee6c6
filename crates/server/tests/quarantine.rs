//! A start that no damaged room can stop: each kind of damage found under `rooms/` is moved
//! to `quarantine/NAME-UNIXTIME/` with its cause and counted at `/metrics`, and the healthy
//! room beside it is served with its moves. Only a data folder the server cannot write stops
//! the start, with one line.

mod support;

use std::fs;
use std::path::PathBuf;

use bitmines_server::protocol::{Action, ChunkRect, ClientMsg, ServerMsg, cell};
use bitmines_server::server::Server;
use support::{Recorder, TestServer, config, start, start_in};

/// A small co-op room: one view, so a move shows to everyone who joins later.
const QUERY: &str = "preset=beginner&mode=coop";

/// Joins room `name` and watches its one chunk.
async fn watch(server: &TestServer, name: &str) -> Recorder {
    let mut player = Recorder::join(&server.url(name, QUERY)).await;
    player
        .send(ClientMsg::Subscribe(ChunkRect::one(0, 0)))
        .await;
    player.until(|m| matches!(m, ServerMsg::Chunk { .. })).await;
    player
}

/// Joins room `name` and flags its first hidden cell; gives that cell.
async fn flag_one(server: &TestServer, name: &str) -> (usize, usize) {
    let mut player = watch(server, name).await;
    let (row, col) = (0..9)
        .flat_map(|r| (0..9).map(move |c| (r, c)))
        .find(|&(r, c)| player.picture.cell(0, r, c) == Some(cell::HIDDEN))
        .expect("a hidden cell after the first click");
    let answer = player
        .act(ClientMsg::Move {
            seq: 1,
            action: Action::Flag,
            row: row as u32,
            col: col as u32,
        })
        .await;
    assert!(
        matches!(answer, ServerMsg::Ack { flagged: true, .. }),
        "{answer:?}"
    );
    (row, col)
}

/// A data folder that a server left with two co-op rooms, `good` and `bad`, a flag placed in
/// each; gives the folder and the cell flagged in `good`.
async fn two_rooms() -> (tempfile::TempDir, (usize, usize)) {
    let server = start().await;
    let good = flag_one(&server, "good").await;
    flag_one(&server, "bad").await;
    (server.stop().await, good)
}

/// Starts a server on `data`, damaged by the test, and checks what every kind of damage
/// comes to: `entry` is gone from `rooms/` and is the one thing under `quarantine/`, as
/// `ENTRY-UNIXTIME` holding `holds` and a file `cause` that says `cause`; `/metrics` counts
/// one room quarantined; and the room `good` is served with its flag at `flagged`. Gives
/// the data folder once the server stopped, and the quarantined folder in it.
async fn check_quarantined(
    data: tempfile::TempDir,
    flagged: (usize, usize),
    entry: &str,
    cause: &str,
    holds: &[&str],
) -> (tempfile::TempDir, PathBuf) {
    let server = start_in(data, |c| c).await;
    let root = server.data.path();
    assert!(
        fs::symlink_metadata(root.join("rooms").join(entry)).is_err(),
        "{entry} is still under rooms/"
    );
    let found: Vec<_> = fs::read_dir(root.join("quarantine"))
        .expect("a quarantine folder")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    let moved = found[0].clone();
    let name = moved.file_name().unwrap().to_string_lossy().into_owned();
    let stamp = name
        .strip_prefix(&format!("{entry}-"))
        .unwrap_or_else(|| panic!("{name} is not {entry}-UNIXTIME"));
    assert!(
        stamp.parse::<u64>().is_ok(),
        "{name} is not {entry}-UNIXTIME"
    );
    let written = fs::read_to_string(moved.join("cause")).expect("a cause file");
    assert!(written.contains(cause), "cause {written:?}, not {cause:?}");
    for file in holds {
        assert!(
            fs::symlink_metadata(moved.join(file)).is_ok(),
            "{file} is not in {}",
            moved.display()
        );
    }
    let metrics = server.metrics().await;
    assert!(
        metrics
            .lines()
            .any(|l| l == "bitmines_rooms_quarantined_total 1"),
        "{metrics}"
    );
    let player = watch(&server, "good").await;
    assert_eq!(
        player.picture.cell(0, flagged.0, flagged.1),
        Some(cell::FLAGGED),
        "the healthy room lost its flag at {flagged:?}"
    );
    drop(player);
    (server.stop().await, moved)
}

/// The room `bad`'s folder in `data`.
fn bad(data: &tempfile::TempDir) -> PathBuf {
    data.path().join("rooms").join("bad")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stray_file_under_rooms_is_quarantined() {
    let (data, flagged) = two_rooms().await;
    fs::write(data.path().join("rooms").join("notes.txt"), "a note\n").unwrap();
    check_quarantined(
        data,
        flagged,
        "notes.txt",
        "not a room folder",
        &["notes.txt"],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_room_folder_is_quarantined() {
    let (data, flagged) = two_rooms().await;
    fs::create_dir(data.path().join("rooms").join("empty")).unwrap();
    check_quarantined(data, flagged, "empty", "an empty room folder", &[]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_whose_meta_is_garbage_is_quarantined() {
    let (data, flagged) = two_rooms().await;
    fs::write(bad(&data).join("meta"), "rows=many\ncols=\n").unwrap();
    check_quarantined(
        data,
        flagged,
        "bad",
        "not a bitmines room file",
        &["meta", "log"],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_whose_only_snapshot_is_corrupt_and_no_log_is_quarantined() {
    let (data, flagged) = two_rooms().await;
    let room = bad(&data);
    let mut snapshots: Vec<_> = fs::read_dir(&room)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().contains("snapshot-"))
        .collect();
    snapshots.sort();
    assert!(!snapshots.is_empty(), "no snapshot in {}", room.display());
    // Keep the oldest (the room as it was made, before any record), so that nothing but its
    // damage can refuse it, and take away the log that recovery could replay.
    for later in &snapshots[1..] {
        fs::remove_file(later).unwrap();
    }
    let only = &snapshots[0];
    let mut bytes = fs::read(only).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    fs::write(only, bytes).unwrap();
    fs::remove_file(room.join("log")).unwrap();
    let name = only.file_name().unwrap().to_string_lossy().into_owned();
    let (_data, moved) = check_quarantined(
        data,
        flagged,
        "bad",
        "its CRC does not match",
        &["meta", &name],
    )
    .await;
    // Recovery wrote nothing to the room before it gave up: no new log.
    assert!(fs::symlink_metadata(moved.join("log")).is_err());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_log_from_an_unknown_format_version_is_quarantined() {
    let (data, flagged) = two_rooms().await;
    let log = bad(&data).join("log");
    let mut bytes = fs::read(&log).unwrap();
    assert!(bytes.starts_with(b"BMLOG04\n"), "{:?}", &bytes[..8]);
    bytes[5..7].copy_from_slice(b"99");
    fs::write(&log, &bytes).unwrap();
    let (_data, moved) = check_quarantined(
        data,
        flagged,
        "bad",
        "log format version 99",
        &["meta", "log"],
    )
    .await;
    // The log is kept whole, not cut back as a damaged tail would be.
    assert_eq!(fs::read(moved.join("log")).unwrap(), bytes);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_with_an_unreadable_file_is_quarantined() {
    let (data, flagged) = two_rooms().await;
    // The tests run as root, whom `chmod 000` does not stop from reading; a folder where the
    // log should be cannot be read as a file by anyone.
    let log = bad(&data).join("log");
    fs::remove_file(&log).unwrap();
    fs::create_dir(&log).unwrap();
    check_quarantined(data, flagged, "bad", "Is a directory", &["meta", "log"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_data_folder_that_cannot_be_written_stops_the_start_with_one_line() {
    // A regular file where the data folder should be: nothing can be made in it, whoever
    // the user is (a read-only folder would not stop root).
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    fs::write(&data, "not a folder\n").unwrap();
    let refused = match Server::bind(config(data.clone())).await {
        Ok(_) => panic!("a server started on the file {}", data.display()),
        Err(e) => e,
    };
    assert!(!refused.contains('\n'), "{refused:?}");
    assert!(
        refused.contains(&data.display().to_string()),
        "the line names no folder: {refused}"
    );
    assert!(
        refused.contains("cannot write the data folder") && refused.contains("--data"),
        "the line says nothing to do: {refused}"
    );
    let left = fs::read_to_string(&data).unwrap();
    assert_eq!(left, "not a folder\n", "the file was changed");
}

/// Two damaged rooms at once: each is quarantined and counted, and the server starts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_damaged_room_is_quarantined_and_counted() {
    let (data, flagged) = two_rooms().await;
    fs::write(bad(&data).join("meta"), "garbage").unwrap();
    fs::create_dir(data.path().join("rooms").join("empty")).unwrap();
    let server = start_in(data, |c| c).await;
    let quarantined = fs::read_dir(server.data.path().join("quarantine"))
        .unwrap()
        .count();
    assert_eq!(quarantined, 2);
    let metrics = server.metrics().await;
    assert!(
        metrics
            .lines()
            .any(|l| l == "bitmines_rooms_quarantined_total 2"),
        "{metrics}"
    );
    let player = watch(&server, "good").await;
    assert_eq!(
        player.picture.cell(0, flagged.0, flagged.1),
        Some(cell::FLAGGED)
    );
    drop(player);
    server.stop().await;
}
