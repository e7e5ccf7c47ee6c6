//! The wire format: every message survives encoding and decoding, client frames have one
//! spelling, and no bytes make a decoder panic.

use bitmines_server::protocol::{
    Action, ChunkRect, ChunkSummary, ClientMsg, DecodeError, EventKind, MineRule, Mode, Over,
    PROGRESS_DONE, PlayerInfo, SeriesEntry, ServerMsg, Welcome,
};
use proptest::prelude::*;

fn client_msg() -> impl Strategy<Value = ClientMsg> {
    let rect = (any::<u32>(), any::<u32>(), 1..=u16::MAX, 1..=u16::MAX).prop_map(
        |(row, col, rows, cols)| ChunkRect {
            row,
            col,
            rows,
            cols,
        },
    );
    let action = prop_oneof![
        Just(Action::Reveal),
        Just(Action::Flag),
        Just(Action::Chord)
    ];
    prop_oneof![
        rect.clone().prop_map(ClientMsg::Subscribe),
        rect.clone().prop_map(ClientMsg::Unsubscribe),
        rect.prop_map(ClientMsg::Summaries),
        (any::<u32>(), action, any::<u32>(), any::<u32>()).prop_map(|(seq, action, row, col)| {
            ClientMsg::Move {
                seq,
                action,
                row,
                col,
            }
        }),
        (any::<u32>(), any::<u32>(), any::<u32>()).prop_map(|(seq, row, col)| ClientMsg::Hint {
            seq,
            row,
            col
        }),
        (any::<u32>(), any::<u32>(), any::<u32>()).prop_map(|(seq, row, col)| ClientMsg::Odds {
            seq,
            row,
            col
        }),
        (any::<u32>(), any::<u32>()).prop_map(|(row, col)| ClientMsg::Cursor { row, col }),
        any::<u32>().prop_map(|player| ClientMsg::Watch { player }),
        any::<u64>().prop_map(|nonce| ClientMsg::Ping { nonce }),
        (any::<u32>(), any::<u32>(), any::<u32>())
            .prop_map(|(seq, row, col)| { ClientMsg::WrongFlags { seq, row, col } }),
        any::<u32>().prop_map(|seq| ClientMsg::Rematch { seq }),
        any::<u32>().prop_map(|seq| ClientMsg::Ready { seq }),
    ]
}

fn server_msg() -> impl Strategy<Value = ServerMsg> {
    let chunk = (1u8..=64, 1u8..=64, any::<u64>()).prop_flat_map(|(h, w, seed)| {
        let n = usize::from(h) * usize::from(w);
        // Mostly one state with a few others, the way real chunks look, or anything.
        prop_oneof![
            proptest::collection::vec(0u8..=13, n),
            proptest::collection::vec(prop_oneof![9 => Just(9u8), 1 => 0u8..=13], n),
        ]
        .prop_map(move |cells| ServerMsg::Chunk {
            view: (seed % 9) as u32,
            chunk_row: (seed >> 8) as u32,
            chunk_col: (seed >> 40) as u32,
            height: h,
            width: w,
            cells,
        })
    });
    let name = "[a-z ]{0,32}";
    prop_oneof![
        (
            any::<bool>(),
            any::<u32>(),
            any::<[u8; 16]>(),
            any::<u32>(),
            any::<u32>(),
            any::<u64>(),
            any::<bool>(),
            any::<bool>(),
            (any::<bool>(), any::<u32>(), any::<bool>(), any::<u32>())
        )
            .prop_map(
                |(
                    spectator,
                    player,
                    token,
                    rows,
                    cols,
                    mines,
                    race,
                    endless,
                    (no_guess, elapsed_ms, clock_running, game),
                )| {
                    ServerMsg::Welcome(Welcome {
                        version: 1,
                        spectator,
                        player,
                        token,
                        rows,
                        cols,
                        mines,
                        mode: if race { Mode::Race } else { Mode::Coop },
                        rule: if endless {
                            MineRule::Endless
                        } else {
                            MineRule::Classic
                        },
                        no_guess,
                        first: (rows % 2 == 0).then_some((rows / 2, cols / 2)),
                        max_chunks: 256,
                        view: player,
                        elapsed_ms,
                        clock_running,
                        game,
                    })
                }
            ),
        (
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            0u8..=2,
            any::<bool>()
        )
            .prop_map(|(seq, opened, exploded, status, flagged)| ServerMsg::Ack {
                seq,
                opened,
                exploded,
                status,
                flagged
            }),
        (any::<u32>(), any::<u16>(), ".{0,80}").prop_map(|(seq, code, message)| ServerMsg::Error {
            seq,
            code,
            message
        }),
        chunk,
        (
            any::<u32>(),
            proptest::collection::vec((0u16..4096, 0u8..=13), 0..200)
        )
            .prop_map(|(view, cells)| ServerMsg::Delta {
                view,
                chunk_row: 1,
                chunk_col: 2,
                cells
            }),
        proptest::collection::vec(
            (
                any::<u32>(),
                name,
                any::<bool>(),
                0u8..=2,
                any::<u64>(),
                any::<u32>()
            ),
            0..10
        )
        .prop_map(|list| ServerMsg::Players(
            list.into_iter()
                .map(|(id, name, online, status, revealed, n)| PlayerInfo {
                    id,
                    name,
                    online,
                    status,
                    revealed,
                    mines_hit: n,
                    flags: n / 2,
                    elapsed_ms: n / 3,
                })
                .collect()
        )),
        proptest::collection::vec((any::<u32>(), any::<u32>(), any::<u32>()), 0..20)
            .prop_map(ServerMsg::Cursors),
        (
            any::<u32>(),
            1u8..=2,
            any::<u32>(),
            proptest::collection::vec((any::<u32>(), any::<u32>()), 0..9)
        )
            .prop_map(|(view, status, n, correct_flags)| ServerMsg::Over(Over {
                view,
                status,
                elapsed_ms: n,
                bbbv: n / 7,
                clicks: n / 3,
                correct_flags
            })),
        (
            any::<u32>(),
            proptest::option::of((any::<u32>(), any::<u32>(), ".{0,100}"))
        )
            .prop_map(|(seq, found)| ServerMsg::Hint { seq, found }),
        (any::<u32>(), 1u16..48, 1u16..48, any::<u8>()).prop_map(|(seq, height, width, fill)| {
            ServerMsg::Odds {
                seq,
                row: 3,
                col: 4,
                height,
                width,
                cells: vec![fill; usize::from(height) * usize::from(width)],
            }
        }),
        (
            any::<u32>(),
            proptest::collection::vec((any::<u32>(), any::<u32>()), 0..64)
        )
            .prop_map(|(seq, cells)| ServerMsg::WrongFlags { seq, cells }),
        any::<u64>().prop_map(|nonce| ServerMsg::Pong { nonce }),
        (
            prop_oneof![
                Just(EventKind::MineHit),
                Just(EventKind::Joined),
                Just(EventKind::Left),
                Just(EventKind::Won),
                Just(EventKind::Lost)
            ],
            any::<u32>(),
            any::<u32>(),
            any::<u32>()
        )
            .prop_map(|(kind, player, row, col)| ServerMsg::Event {
                kind,
                player,
                row,
                col
            }),
        (any::<u32>(), any::<u32>(), any::<bool>()).prop_map(|(view, elapsed_ms, running)| {
            ServerMsg::Clock {
                view,
                elapsed_ms,
                running,
            }
        }),
        (0..=PROGRESS_DONE).prop_map(|share| ServerMsg::Progress { share }),
        any::<u32>().prop_map(|game| ServerMsg::NewGame { game }),
        any::<u64>().prop_map(|opened| ServerMsg::Team { opened }),
        (any::<u32>(), any::<u32>(), any::<u32>()).prop_map(|(ready, racers, starts_in_ms)| {
            ServerMsg::Start {
                ready,
                racers,
                starts_in_ms,
            }
        }),
        (
            any::<u32>(),
            any::<u32>(),
            any::<u32>(),
            1u16..=40,
            1u16..=40,
            any::<u64>()
        )
            .prop_map(|(view, row, col, rows, cols, seed)| {
                let n = usize::from(rows) * usize::from(cols);
                let chunks = (0..n as u64)
                    .map(|i| {
                        let [opened, exploded, flags, players, ..] =
                            seed.wrapping_mul(i + 1).rotate_left(i as u32).to_le_bytes();
                        ChunkSummary {
                            opened,
                            exploded,
                            flags,
                            players,
                        }
                    })
                    .collect();
                let rect = ChunkRect {
                    row,
                    col,
                    rows,
                    cols,
                };
                ServerMsg::Summaries { view, rect, chunks }
            }),
        proptest::collection::vec((any::<u32>(), any::<u32>(), any::<u32>()), 0..9).prop_map(
            |entries| ServerMsg::Series(
                entries
                    .into_iter()
                    .map(|(player, wins, best_ms)| SeriesEntry {
                        player,
                        wins,
                        best_ms
                    })
                    .collect()
            )
        ),
    ]
}

proptest! {
    #[test]
    fn client_messages_round_trip(msg in client_msg()) {
        let bytes = msg.encode();
        prop_assert!(bytes.len() <= bitmines_server::protocol::MAX_CLIENT_FRAME);
        prop_assert_eq!(ClientMsg::decode(&bytes), Ok(msg));
    }

    #[test]
    fn server_messages_round_trip(msg in server_msg()) {
        prop_assert_eq!(ServerMsg::decode(&msg.encode()), Ok(msg));
    }

    #[test]
    fn any_bytes_decode_or_fail_cleanly(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        if let Ok(msg) = ClientMsg::decode(&bytes) {
            let again = msg.encode();
            prop_assert_eq!(again.as_ref(), &bytes[..]);
        }
        if let Ok(msg) = ServerMsg::decode(&bytes) {
            prop_assert_eq!(ServerMsg::decode(&msg.encode()), Ok(msg));
        }
    }

    #[test]
    fn cut_frames_are_refused(msg in server_msg(), cut in any::<prop::sample::Index>()) {
        let bytes = msg.encode();
        let at = cut.index(bytes.len());
        // Every message of fixed layout refuses a shorter frame; messages ending in text or
        // runs may decode a prefix, but never as the same message.
        if let Ok(shorter) = ServerMsg::decode(&bytes[..at]) {
            prop_assert_ne!(shorter, msg);
        }
    }
}

#[test]
fn errors_name_what_is_wrong() {
    let client: Vec<(Vec<u8>, DecodeError)> = vec![
        (vec![], DecodeError::Empty),
        (vec![0x42], DecodeError::UnknownType(0x42)),
        (
            vec![0x0a, 1, 2],
            DecodeError::Length {
                kind: 0x0a,
                got: 3,
                expected: 9,
            },
        ),
        (
            vec![0x02, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0],
            DecodeError::Field {
                kind: 0x02,
                what: "a rectangle of 3x0 chunks is empty".into(),
            },
        ),
    ];
    for (bytes, want) in client {
        assert_eq!(ClientMsg::decode(&bytes), Err(want), "{bytes:?}");
    }
    let server: Vec<(Vec<u8>, DecodeError)> = vec![
        (vec![0x03], DecodeError::UnknownType(0x03)),
        (
            vec![0x82, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 0],
            DecodeError::Field {
                kind: 0x82,
                what: "status 7 is not 0, 1 or 2".into(),
            },
        ),
        (
            vec![0x84, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 65, 1, 0],
            DecodeError::Field {
                kind: 0x84,
                what: "a chunk of 65x1 cells".into(),
            },
        ),
        (
            vec![0x8e, 0, 0, 0, 0, 1, 0, 0, 0, 2],
            DecodeError::Field {
                kind: 0x8e,
                what: "running 2 is not 0 or 1".into(),
            },
        ),
        (
            vec![0x8f, 0x11, 0x27],
            DecodeError::Field {
                kind: 0x8f,
                what: "share 10001 is over 10000 ten-thousandths".into(),
            },
        ),
        (
            vec![0x8f, 0x10],
            DecodeError::Length {
                kind: 0x8f,
                got: 2,
                expected: 3,
            },
        ),
    ];
    for (bytes, want) in server {
        assert_eq!(ServerMsg::decode(&bytes), Err(want), "{bytes:?}");
    }
}
