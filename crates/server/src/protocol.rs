//! The wire format, version 1: every message as a value, with its encoder and its decoder.
//!
//! `PROTOCOL.md` beside this crate is the specification; this module is its one
//! implementation, used by the server, the test clients, the load tester and the terminal
//! client. Decoding takes arbitrary bytes and never panics: every malformed frame is a
//! [`DecodeError`] that names what was wrong.
//!
//! A client frame re-encodes to the same bytes and a server frame survives a round trip
//! (property tests in `tests/protocol.rs`), and the `protocol` fuzz target feeds the decoders
//! arbitrary bytes. Chunks are [`CHUNK`] x [`CHUNK`] (64x64) cells, so a chunk row is one word
//! of a plane; a chunk's cells go as the shortest of "all hidden", nibbles, or runs
//! ([`encode_cells`]).

use bytes::{BufMut, Bytes, BytesMut};

/// The protocol version this module speaks.
pub const VERSION: u8 = 1;

/// Cells on a side of a chunk: chunks are `CHUNK x CHUNK` cells, the last row and column of
/// chunks cut short by the board's edge.
pub const CHUNK: usize = 64;

/// The largest frame a client may send, in bytes.
pub const MAX_CLIENT_FRAME: usize = 64;

/// The view id of a co-op room's one shared view.
pub const SHARED_VIEW: u32 = 0;

/// A player id meaning "nobody" (a spectator's own id, or an empty choice).
pub const NOBODY: u32 = u32::MAX;

/// The close code of a connection whose player joined again on another connection (with
/// the player's token): the newer connection plays on, and a client that gets this code
/// must not join again by itself, or two clients of one player would take the player from
/// each other for ever. Codes 4000 to 4999 are the application's own (RFC 6455, 7.4.2).
pub const CLOSE_TAKEN_OVER: u16 = 4000;

/// The close reason that goes with [`CLOSE_TAKEN_OVER`].
pub const TAKEN_OVER: &str = "taken over by a newer connection with this player's token";

/// What a decoder found wrong with a frame.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The frame has no bytes.
    #[error("empty frame")]
    Empty,
    /// The first byte names no message of this version.
    #[error("unknown message type 0x{0:02x}")]
    UnknownType(u8),
    /// The frame is shorter or longer than its type allows.
    #[error("message 0x{kind:02x} has {got} bytes, expected {expected}")]
    Length {
        /// The message type.
        kind: u8,
        /// Bytes received.
        got: usize,
        /// Bytes the type needs (the least, for messages of variable length).
        expected: usize,
    },
    /// A field holds a value the protocol does not allow.
    #[error("message 0x{kind:02x}: {what}")]
    Field {
        /// The message type.
        kind: u8,
        /// What was wrong, naming the field and its value.
        what: String,
    },
}

/// A move on a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Reveal the cell.
    Reveal,
    /// Flag or unflag the cell.
    Flag,
    /// Chord on the cell.
    Chord,
}

impl Action {
    /// The action's byte in a log record, and its message type on the wire.
    pub fn code(self) -> u8 {
        match self {
            Action::Reveal => 0x03,
            Action::Flag => 0x04,
            Action::Chord => 0x05,
        }
    }

    /// The action of a code, if it is one.
    pub fn from_code(code: u8) -> Option<Action> {
        match code {
            0x03 => Some(Action::Reveal),
            0x04 => Some(Action::Flag),
            0x05 => Some(Action::Chord),
            _ => None,
        }
    }
}

/// A rectangle of chunks: `rows x cols` chunks from chunk `(row, col)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ChunkRect {
    /// The first chunk row.
    pub row: u32,
    /// The first chunk column.
    pub col: u32,
    /// Chunk rows, at least 1.
    pub rows: u16,
    /// Chunk columns, at least 1.
    pub cols: u16,
}

impl ChunkRect {
    /// The one chunk `(row, col)`.
    pub fn one(row: u32, col: u32) -> ChunkRect {
        ChunkRect {
            row,
            col,
            rows: 1,
            cols: 1,
        }
    }
}

/// A message from a client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientMsg {
    /// Watch the chunks of a rectangle (type 0x01).
    Subscribe(ChunkRect),
    /// Stop watching the chunks of a rectangle (type 0x02).
    Unsubscribe(ChunkRect),
    /// A move (types 0x03 reveal, 0x04 flag, 0x05 chord), answered by an ack or an error
    /// carrying `seq`.
    Move {
        /// The client's number for the move, echoed in the answer.
        seq: u32,
        /// What to do.
        action: Action,
        /// The cell's row.
        row: u32,
        /// The cell's column.
        col: u32,
    },
    /// Ask for a proven safe cell near `(row, col)` (type 0x06).
    Hint {
        /// Echoed in the answer.
        seq: u32,
        /// The row the window is centred on.
        row: u32,
        /// The column the window is centred on.
        col: u32,
    },
    /// Ask for the mine probabilities of the window centred on `(row, col)` (type 0x07).
    Odds {
        /// Echoed in the answer.
        seq: u32,
        /// The row the window is centred on.
        row: u32,
        /// The column the window is centred on.
        col: u32,
    },
    /// Where this player's cursor is (type 0x08).
    Cursor {
        /// The cursor's row.
        row: u32,
        /// The cursor's column.
        col: u32,
    },
    /// Watch another view: a race player's, by player id (type 0x09).
    Watch {
        /// The player whose view to watch.
        player: u32,
    },
    /// Keep the connection alive and measure the round trip (type 0x0a).
    Ping {
        /// Echoed in the pong.
        nonce: u64,
    },
    /// Ask which flags of the window centred on `(row, col)` the view proves wrong (type
    /// 0x0b).
    WrongFlags {
        /// Echoed in the answer.
        seq: u32,
        /// The row the window is centred on.
        row: u32,
        /// The column the window is centred on.
        col: u32,
    },
    /// Start the room's next game (type 0x0c), once the game is over: answered by an ack
    /// carrying `seq` (and a [`ServerMsg::NewGame`] to everyone) or an error carrying it.
    Rematch {
        /// Echoed in the answer.
        seq: u32,
    },
    /// The player is ready to race (type 0x0e), in a race room made with `countdown=1`:
    /// answered by an ack carrying `seq`. Once every racer online is ready, the race starts
    /// after a countdown ([`ServerMsg::Start`]).
    Ready {
        /// Echoed in the answer.
        seq: u32,
    },
    /// Ask for a summary of each chunk of a rectangle of the connection's view (type 0x0d),
    /// answered by one [`ServerMsg::Summaries`]: at most [`MAX_SUMMARY_CHUNKS`] chunks.
    Summaries(ChunkRect),
}

/// The most chunks one summaries request may cover: a 10^8-cell board is 157x157 chunks,
/// 24,649, so a whole board of that size fits in one answer of about 100 kB.
pub const MAX_SUMMARY_CHUNKS: usize = 32_768;

/// What a view shows of one chunk, in four bytes: what a picture of a board too large for
/// its cells draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub struct ChunkSummary {
    /// The share of the chunk's cells revealed, in 255ths rounded up: 0 only when none is,
    /// so a chunk with one cell open is told from an untouched one.
    pub opened: u8,
    /// Exploded mines shown in the chunk, at most 255.
    pub exploded: u8,
    /// Flags standing in the chunk, at most 255.
    pub flags: u8,
    /// Co-op players whose cursor is in the chunk as the cursors frames last told it, at
    /// most 255 (always 0 in a race).
    pub players: u8,
}

impl ChunkSummary {
    /// The summary of a chunk of `cells` cells with `revealed` of them revealed and the
    /// given counts, each held at 255.
    pub fn of(
        cells: usize,
        revealed: usize,
        exploded: usize,
        flags: usize,
        players: usize,
    ) -> ChunkSummary {
        let cap = |n: usize| u8::try_from(n).unwrap_or(u8::MAX);
        let opened = match cells {
            0 => 0,
            _ => cap((revealed.min(cells) * 255).div_ceil(cells)),
        };
        ChunkSummary {
            opened,
            exploded: cap(exploded),
            flags: cap(flags),
            players: cap(players),
        }
    }
}

/// The room's game mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Every player plays the same board on a view of their own; the first to clear it wins.
    Race,
    /// Every player moves on one shared view.
    Coop,
}

/// What a revealed mine does in a co-op room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MineRule {
    /// The first mine ends the game for everyone.
    Classic,
    /// A mine is shown exploded, its finder takes a penalty, and play goes on.
    Endless,
}

/// A welcome's first-click row and column where the room's board is made around the first
/// cell a player reveals.
pub const NO_FIRST: u32 = u32::MAX;

/// The first message on every connection: who this connection is and what the room is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Welcome {
    /// The protocol version.
    pub version: u8,
    /// Whether this connection only watches.
    pub spectator: bool,
    /// The player's id, or [`NOBODY`] for a spectator.
    pub player: u32,
    /// The player's secret token: reconnect with it to resume (all zero for a spectator).
    pub token: [u8; 16],
    /// Board rows.
    pub rows: u32,
    /// Board columns.
    pub cols: u32,
    /// Mines on the board.
    pub mines: u64,
    /// The mode.
    pub mode: Mode,
    /// The mine rule.
    pub rule: MineRule,
    /// Whether the board is certified solvable without a guess from the first click.
    pub no_guess: bool,
    /// The first click every view starts from, or `None` where the board is made around
    /// the first cell a player reveals (on the wire: both fields [`NO_FIRST`]).
    pub first: Option<(u32, u32)>,
    /// The most chunks this connection may watch at once.
    pub max_chunks: u32,
    /// The view this connection watches now.
    pub view: u32,
    /// The play time of that view's game, in milliseconds since the room's first move: 0
    /// before it, frozen once the game ended.
    pub elapsed_ms: u32,
    /// Whether that clock runs: from the room's first move until the view's game ends.
    pub clock_running: bool,
    /// The room's game this welcome shows: 1 for the first, one more at each rematch.
    pub game: u32,
}

/// How a chunk's cells are encoded in a [`ServerMsg::Chunk`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkEncoding {
    /// Every cell hidden; no payload.
    AllHidden = 0,
    /// Two cells a byte, the first in the low four bits.
    Nibbles = 1,
    /// Runs: a state byte and a `u16` length each.
    Runs = 2,
}

/// A player as others see them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlayerInfo {
    /// The player's id.
    pub id: u32,
    /// The player's name.
    pub name: String,
    /// Whether a connection holds the player now.
    pub online: bool,
    /// The player's game (race) or the shared game (co-op): 0 playing, 1 won, 2 lost.
    pub status: u8,
    /// Race: safe cells revealed on the player's view; co-op: cells this player opened.
    pub revealed: u64,
    /// Mines this player set off.
    pub mines_hit: u32,
    /// Flags this player placed and still stand.
    pub flags: u32,
    /// The play time of the player's game in milliseconds, from the room's first move,
    /// frozen when it ends.
    pub elapsed_ms: u32,
}

/// The end of a view's game, with its figures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Over {
    /// The view that ended.
    pub view: u32,
    /// 1 won, 2 lost.
    pub status: u8,
    /// The play time of the game, in milliseconds from the room's first move to the move
    /// that ended it (counted only while the server ran).
    pub elapsed_ms: u32,
    /// The board's 3BV.
    pub bbbv: u32,
    /// Left clicks, right clicks and chords made on the view.
    pub clicks: u32,
    /// Per player, flags on mines at the end: `(player, correct flags)`.
    pub correct_flags: Vec<(u32, u32)>,
}

/// Events worth a line on every client's screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    /// A player set off a mine at the cell.
    MineHit = 1,
    /// A player joined.
    Joined = 2,
    /// A player's connection closed.
    Left = 3,
    /// A player won (race) or the room's game was won (co-op).
    Won = 4,
    /// A player lost (race) or the room's game was lost (co-op).
    Lost = 5,
}

/// The most bytes of a player's name on the wire (a longer one is cut at a character).
pub const MAX_NAME: usize = 32;

/// A message from the server.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerMsg {
    /// The first message (type 0x81).
    Welcome(Welcome),
    /// A move was applied and is durable (type 0x82).
    Ack {
        /// The move's `seq`.
        seq: u32,
        /// Safe cells it opened.
        opened: u32,
        /// Mines it set off.
        exploded: u32,
        /// The view's status after it: 0 playing, 1 won, 2 lost.
        status: u8,
        /// For a flag: whether the cell is flagged now.
        flagged: bool,
    },
    /// A request was refused (type 0x83).
    Error {
        /// The request's `seq`, or 0.
        seq: u32,
        /// What kind of error ([`ErrorCode`]).
        code: u16,
        /// The error in words, naming the bad value.
        message: String,
    },
    /// Every cell of one chunk of a view (type 0x84).
    Chunk {
        /// The view.
        view: u32,
        /// The chunk's row.
        chunk_row: u32,
        /// The chunk's column.
        chunk_col: u32,
        /// Cell rows in the chunk (1 to 64).
        height: u8,
        /// Cell columns in the chunk (1 to 64).
        width: u8,
        /// The cells row by row, as cell states ([`cell`]).
        cells: Vec<u8>,
    },
    /// Cells of one chunk that changed (type 0x85).
    Delta {
        /// The view.
        view: u32,
        /// The chunk's row.
        chunk_row: u32,
        /// The chunk's column.
        chunk_col: u32,
        /// `(row * 64 + col within the chunk, state)` each.
        cells: Vec<(u16, u8)>,
    },
    /// Every player of the room (type 0x86).
    Players(Vec<PlayerInfo>),
    /// Other players' cursors (type 0x87): `(player, row, col)`.
    Cursors(Vec<(u32, u32, u32)>),
    /// A view's game ended (type 0x88).
    Over(Over),
    /// The answer to a hint (type 0x89).
    Hint {
        /// The request's `seq`.
        seq: u32,
        /// A proven safe cell and why, or `None` when the window proves none.
        found: Option<(u32, u32, String)>,
    },
    /// The answer to an odds request (type 0x8a).
    Odds {
        /// The request's `seq`.
        seq: u32,
        /// The window's first row.
        row: u32,
        /// The window's first column.
        col: u32,
        /// Window rows.
        height: u16,
        /// Window columns.
        width: u16,
        /// Per cell: 0 to 200 the mine probability in half percents, 255 not hidden.
        cells: Vec<u8>,
    },
    /// The answer to a wrong-flags request (type 0x8b): the flags of the window on cells
    /// the view proves safe, as `(row, col)`.
    WrongFlags {
        /// The request's `seq`.
        seq: u32,
        /// The flags proven wrong, row by row.
        cells: Vec<(u32, u32)>,
    },
    /// The answer to a ping (type 0x8c).
    Pong {
        /// The ping's nonce.
        nonce: u64,
    },
    /// Something happened in the room (type 0x8d).
    Event {
        /// What.
        kind: EventKind,
        /// Who.
        player: u32,
        /// Where (the mine's cell), or 0.
        row: u32,
        /// Where, or 0.
        col: u32,
    },
    /// A view's game clock started or stopped (type 0x8e): sent to the connections watching
    /// the view when the room's first move starts it, when the view's game ends, and when a
    /// connection starts watching another view. Between these a client runs the clock on
    /// from `elapsed_ms` itself.
    Clock {
        /// The view.
        view: u32,
        /// The view's play time, in milliseconds since the room's first move.
        elapsed_ms: u32,
        /// Whether the clock runs.
        running: bool,
    },
    /// How much of the room's board is made (type 0x8f): sent, before the welcome, to a
    /// connection waiting for a room whose board is still being generated.
    Progress {
        /// The share done, in ten-thousandths: 0 to [`PROGRESS_DONE`].
        share: u16,
    },
    /// The room's next game began on a new board (type 0x90), after a rematch: sent to
    /// every connection, followed by every chunk it watches (fresh) and its view's clock
    /// (stopped at 0). The parameters, players, tokens and views stay; scores start again.
    NewGame {
        /// The new game's number: 2 for the first rematch, and so on.
        game: u32,
    },
    /// A race room's series scoreboard across its games (type 0x91): sent to a connection
    /// when it joins a race room and to everyone when a racer wins a game.
    Series(Vec<SeriesEntry>),
    /// A co-op room's shared view (type 0x92), sent with every players frame of a co-op
    /// room: what the team has opened, the first click's opening included (the players
    /// frame counts each player's own moves only, and lists at most 32 players).
    Team {
        /// Safe cells open in the room's view.
        opened: u64,
    },
    /// Where a race made with `countdown=1` stands before it starts (type 0x94): sent to
    /// every connection when a racer gets ready, joins or leaves, when the countdown begins
    /// and when the race starts, and to a connection when it joins.
    Start {
        /// Racers online who are ready.
        ready: u32,
        /// Racers online.
        racers: u32,
        /// Milliseconds until the race starts once every racer online is ready (the
        /// countdown), 0 once it has started, or [`NO_TIME`] while racers are not ready.
        starts_in_ms: u32,
    },
    /// The answer to a summaries request (type 0x93): what the view shows of each chunk
    /// of a rectangle, row by row.
    Summaries {
        /// The view summed up.
        view: u32,
        /// The rectangle of chunks.
        rect: ChunkRect,
        /// One summary per chunk of the rectangle, row by row: `rect.rows * rect.cols`.
        chunks: Vec<ChunkSummary>,
    },
}

/// One racer's line of a race room's series scoreboard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeriesEntry {
    /// The player's id.
    pub player: u32,
    /// Games of the room this player won.
    pub wins: u32,
    /// The player's best winning time in milliseconds, or [`NO_TIME`] before a win.
    pub best_ms: u32,
}

/// A [`SeriesEntry::best_ms`] meaning the player has won no game yet.
pub const NO_TIME: u32 = u32::MAX;

/// A [`ServerMsg::Progress`] share meaning the whole board is made.
pub const PROGRESS_DONE: u16 = 10_000;

/// The kinds of error frame, by code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum ErrorCode {
    /// The frame could not be decoded.
    BadFrame = 1,
    /// A cell or chunk off the board.
    OffBoard = 2,
    /// Spectators cannot move, and nobody moves on a view that is not theirs.
    NotAllowed = 3,
    /// Too many requests: the connection's rate limit.
    RateLimited = 4,
    /// The view's game is over.
    GameOver = 5,
    /// Past the most chunks a connection may watch.
    TooManyChunks = 6,
    /// The room exists with other parameters.
    RoomMismatch = 7,
    /// Past a server limit (room size, rooms, cells, players).
    Limit = 8,
    /// The token names no player of the room.
    BadToken = 9,
    /// A query parameter is not understood.
    BadParameter = 10,
    /// The server is shutting down.
    ShuttingDown = 11,
    /// The room cannot take more requests now; try again.
    Busy = 12,
    /// The server could not keep the move (disk), so it was not applied.
    Storage = 13,
    /// No such player to watch.
    NoSuchPlayer = 14,
    /// The solver found no answer for the window asked about (its numbers contradict).
    NoAnswer = 15,
    /// A rematch asked for while the room's game is still being played.
    NotOver = 16,
    /// A move in a race that has not started: its racers are not all ready, or its
    /// countdown runs.
    NotStarted = 17,
}

impl ErrorCode {
    /// Error `code` in words, as a client shows it (the web game's `protocol.js` uses the
    /// same words); `error` for a code the protocol does not define.
    pub fn name(code: u16) -> &'static str {
        match code {
            1 => "bad frame",
            2 => "off the board",
            3 => "not allowed",
            4 => "rate limited",
            5 => "game over",
            6 => "too many chunks",
            7 => "room mismatch",
            8 => "limit",
            9 => "bad token",
            10 => "bad parameter",
            11 => "shutting down",
            12 => "busy",
            13 => "storage",
            14 => "no such player",
            15 => "no answer",
            16 => "not over",
            17 => "not started",
            _ => "error",
        }
    }
}

/// Cell states as they travel in chunk and delta frames.
pub mod cell {
    /// States 0 to 8: a revealed safe cell with that many neighbouring mines.
    pub const OPEN_MAX: u8 = 8;
    /// Not revealed.
    pub const HIDDEN: u8 = 9;
    /// Flagged.
    pub const FLAGGED: u8 = 10;
    /// A mine that was set off.
    pub const EXPLODED: u8 = 11;
    /// A mine, shown only to the players of a view whose game was lost.
    pub const MINE: u8 = 12;
    /// A flag on a safe cell, shown only to the players of a view whose game was lost.
    pub const WRONG_FLAG: u8 = 13;
}

fn put_cell_frame(out: &mut BytesMut, kind: u8, seq: u32, row: u32, col: u32) {
    out.put_u8(kind);
    out.put_u32_le(seq);
    out.put_u32_le(row);
    out.put_u32_le(col);
}

impl ClientMsg {
    /// The number the answer carries back: a move's or a help request's `seq`, and 0 for a
    /// message that has none.
    pub fn seq(&self) -> u32 {
        match self {
            ClientMsg::Move { seq, .. }
            | ClientMsg::Hint { seq, .. }
            | ClientMsg::Odds { seq, .. }
            | ClientMsg::WrongFlags { seq, .. }
            | ClientMsg::Rematch { seq }
            | ClientMsg::Ready { seq } => *seq,
            ClientMsg::Subscribe(_)
            | ClientMsg::Unsubscribe(_)
            | ClientMsg::Cursor { .. }
            | ClientMsg::Watch { .. }
            | ClientMsg::Ping { .. }
            | ClientMsg::Summaries(_) => 0,
        }
    }

    /// The message as one frame.
    pub fn encode(&self) -> Bytes {
        let mut out = BytesMut::with_capacity(16);
        match *self {
            ClientMsg::Subscribe(rect)
            | ClientMsg::Unsubscribe(rect)
            | ClientMsg::Summaries(rect) => {
                out.put_u8(match self {
                    ClientMsg::Subscribe(_) => 0x01,
                    ClientMsg::Unsubscribe(_) => 0x02,
                    _ => 0x0d,
                });
                out.put_u32_le(rect.row);
                out.put_u32_le(rect.col);
                out.put_u16_le(rect.rows);
                out.put_u16_le(rect.cols);
            }
            ClientMsg::Move {
                seq,
                action,
                row,
                col,
            } => put_cell_frame(&mut out, action.code(), seq, row, col),
            ClientMsg::Hint { seq, row, col } => put_cell_frame(&mut out, 0x06, seq, row, col),
            ClientMsg::Odds { seq, row, col } => put_cell_frame(&mut out, 0x07, seq, row, col),
            ClientMsg::WrongFlags { seq, row, col } => {
                put_cell_frame(&mut out, 0x0b, seq, row, col)
            }
            ClientMsg::Cursor { row, col } => {
                out.put_u8(0x08);
                out.put_u32_le(row);
                out.put_u32_le(col);
            }
            ClientMsg::Watch { player } => {
                out.put_u8(0x09);
                out.put_u32_le(player);
            }
            ClientMsg::Ping { nonce } => {
                out.put_u8(0x0a);
                out.put_u64_le(nonce);
            }
            ClientMsg::Rematch { seq } => {
                out.put_u8(0x0c);
                out.put_u32_le(seq);
            }
            ClientMsg::Ready { seq } => {
                out.put_u8(0x0e);
                out.put_u32_le(seq);
            }
        }
        out.freeze()
    }

    /// Decodes one frame from a client.
    pub fn decode(frame: &[u8]) -> Result<ClientMsg, DecodeError> {
        let (&kind, body) = frame.split_first().ok_or(DecodeError::Empty)?;
        let mut r = Reader { kind, body };
        let msg = match kind {
            0x01 | 0x02 | 0x0d => {
                r.exact(12)?;
                let rect = ChunkRect {
                    row: r.u32(),
                    col: r.u32(),
                    rows: r.u16(),
                    cols: r.u16(),
                };
                if rect.rows == 0 || rect.cols == 0 {
                    return Err(r.field(format!(
                        "a rectangle of {}x{} chunks is empty",
                        rect.rows, rect.cols
                    )));
                }
                match kind {
                    0x01 => ClientMsg::Subscribe(rect),
                    0x02 => ClientMsg::Unsubscribe(rect),
                    _ => ClientMsg::Summaries(rect),
                }
            }
            0x03..=0x07 => {
                r.exact(12)?;
                let (seq, row, col) = (r.u32(), r.u32(), r.u32());
                match Action::from_code(kind) {
                    Some(action) => ClientMsg::Move {
                        seq,
                        action,
                        row,
                        col,
                    },
                    None if kind == 0x06 => ClientMsg::Hint { seq, row, col },
                    None => ClientMsg::Odds { seq, row, col },
                }
            }
            0x08 => {
                r.exact(8)?;
                ClientMsg::Cursor {
                    row: r.u32(),
                    col: r.u32(),
                }
            }
            0x09 => {
                r.exact(4)?;
                ClientMsg::Watch { player: r.u32() }
            }
            0x0a => {
                r.exact(8)?;
                ClientMsg::Ping { nonce: r.u64() }
            }
            0x0b => {
                r.exact(12)?;
                ClientMsg::WrongFlags {
                    seq: r.u32(),
                    row: r.u32(),
                    col: r.u32(),
                }
            }
            0x0c => {
                r.exact(4)?;
                ClientMsg::Rematch { seq: r.u32() }
            }
            0x0e => {
                r.exact(4)?;
                ClientMsg::Ready { seq: r.u32() }
            }
            other => return Err(DecodeError::UnknownType(other)),
        };
        Ok(msg)
    }
}

/// Reads little-endian fields from a frame's body, after its length was checked.
struct Reader<'a> {
    kind: u8,
    body: &'a [u8],
}

impl Reader<'_> {
    fn exact(&self, len: usize) -> Result<(), DecodeError> {
        if self.body.len() == len {
            Ok(())
        } else {
            Err(self.length(len))
        }
    }

    fn at_least(&self, len: usize) -> Result<(), DecodeError> {
        if self.body.len() >= len {
            Ok(())
        } else {
            Err(self.length(len))
        }
    }

    fn length(&self, expected: usize) -> DecodeError {
        DecodeError::Length {
            kind: self.kind,
            got: self.body.len() + 1,
            expected: expected + 1,
        }
    }

    fn field(&self, what: String) -> DecodeError {
        DecodeError::Field {
            kind: self.kind,
            what,
        }
    }

    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0; N];
        if let Some((head, rest)) = self.body.split_at_checked(N) {
            out.copy_from_slice(head);
            self.body = rest;
        } else {
            self.body = &[];
        }
        out
    }

    fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }

    fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take())
    }

    fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }

    fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }

    fn bytes(&mut self, len: usize) -> Result<&[u8], DecodeError> {
        match self.body.split_at_checked(len) {
            Some((head, rest)) => {
                self.body = rest;
                Ok(head)
            }
            None => Err(self.field(format!("{len} bytes announced, {} left", self.body.len()))),
        }
    }

    fn text(&mut self, len: usize) -> Result<String, DecodeError> {
        let bytes = self.bytes(len)?.to_vec();
        String::from_utf8(bytes).map_err(|_| self.field("text is not UTF-8".into()))
    }

    fn rest_text(&mut self) -> Result<String, DecodeError> {
        let len = self.body.len();
        self.text(len)
    }

    fn done(&self) -> Result<(), DecodeError> {
        if self.body.is_empty() {
            Ok(())
        } else {
            Err(self.field(format!("{} trailing bytes", self.body.len())))
        }
    }

    fn status(&mut self) -> Result<u8, DecodeError> {
        match self.u8() {
            s @ 0..=2 => Ok(s),
            s => Err(self.field(format!("status {s} is not 0, 1 or 2"))),
        }
    }
}

/// Packs cell states into the shortest chunk payload.
pub fn encode_cells(cells: &[u8]) -> (ChunkEncoding, Vec<u8>) {
    if cells.iter().all(|&c| c == cell::HIDDEN) {
        return (ChunkEncoding::AllHidden, Vec::new());
    }
    let mut runs = Vec::new();
    let mut i = 0;
    while let Some(&state) = cells.get(i) {
        let len = cells[i..]
            .iter()
            .take(usize::from(u16::MAX))
            .take_while(|&&c| c == state)
            .count();
        runs.push(state);
        runs.extend_from_slice(&(len as u16).to_le_bytes());
        i += len;
        if runs.len() >= cells.len().div_ceil(2) {
            break;
        }
    }
    if i >= cells.len() && runs.len() < cells.len().div_ceil(2) {
        return (ChunkEncoding::Runs, runs);
    }
    let nibbles = cells
        .chunks(2)
        .map(|pair| pair[0] | pair.get(1).map_or(0, |&high| high << 4))
        .collect();
    (ChunkEncoding::Nibbles, nibbles)
}

fn decode_cells(r: &mut Reader<'_>, encoding: u8, count: usize) -> Result<Vec<u8>, DecodeError> {
    let cells = match encoding {
        0 => vec![cell::HIDDEN; count],
        1 => {
            let bytes = r.bytes(count.div_ceil(2))?;
            let mut cells = Vec::with_capacity(count);
            for &b in bytes {
                cells.push(b & 15);
                cells.push(b >> 4);
            }
            cells.truncate(count);
            cells
        }
        2 => {
            let mut cells = Vec::with_capacity(count);
            while !r.body.is_empty() {
                r.at_least(3)?;
                let state = r.u8();
                let len = usize::from(r.u16());
                if len == 0 || cells.len() + len > count {
                    return Err(r.field(format!(
                        "a run of {len} cells does not fit a chunk of {count}"
                    )));
                }
                cells.resize(cells.len() + len, state);
            }
            if cells.len() != count {
                return Err(r.field(format!(
                    "runs cover {} cells of a chunk of {count}",
                    cells.len()
                )));
            }
            cells
        }
        other => return Err(r.field(format!("chunk encoding {other} is not 0, 1 or 2"))),
    };
    if let Some(bad) = cells.iter().find(|&&c| c > cell::WRONG_FLAG) {
        return Err(r.field(format!("cell state {bad} is not 0 to 13")));
    }
    Ok(cells)
}

impl ServerMsg {
    /// The message as one frame.
    pub fn encode(&self) -> Bytes {
        let mut out = BytesMut::with_capacity(64);
        match self {
            ServerMsg::Welcome(w) => {
                out.put_u8(0x81);
                out.put_u8(w.version);
                out.put_u8(u8::from(w.spectator));
                out.put_u32_le(w.player);
                out.put_slice(&w.token);
                out.put_u32_le(w.rows);
                out.put_u32_le(w.cols);
                out.put_u64_le(w.mines);
                out.put_u8(match w.mode {
                    Mode::Race => 0,
                    Mode::Coop => 1,
                });
                out.put_u8(match w.rule {
                    MineRule::Classic => 0,
                    MineRule::Endless => 1,
                });
                out.put_u8(u8::from(w.no_guess));
                let (first_row, first_col) = w.first.unwrap_or((NO_FIRST, NO_FIRST));
                out.put_u32_le(first_row);
                out.put_u32_le(first_col);
                out.put_u32_le(w.max_chunks);
                out.put_u32_le(w.view);
                out.put_u32_le(w.elapsed_ms);
                out.put_u8(u8::from(w.clock_running));
                out.put_u32_le(w.game);
            }
            &ServerMsg::Ack {
                seq,
                opened,
                exploded,
                status,
                flagged,
            } => {
                out.put_u8(0x82);
                out.put_u32_le(seq);
                out.put_u32_le(opened);
                out.put_u32_le(exploded);
                out.put_u8(status);
                out.put_u8(u8::from(flagged));
            }
            ServerMsg::Error { seq, code, message } => {
                out.put_u8(0x83);
                out.put_u32_le(*seq);
                out.put_u16_le(*code);
                out.put_slice(message.as_bytes());
            }
            ServerMsg::Chunk {
                view,
                chunk_row,
                chunk_col,
                height,
                width,
                cells,
            } => {
                let (encoding, payload) = encode_cells(cells);
                out.reserve(payload.len() + 16);
                out.put_u8(0x84);
                out.put_u32_le(*view);
                out.put_u32_le(*chunk_row);
                out.put_u32_le(*chunk_col);
                out.put_u8(*height);
                out.put_u8(*width);
                out.put_u8(encoding as u8);
                out.put_slice(&payload);
            }
            ServerMsg::Delta {
                view,
                chunk_row,
                chunk_col,
                cells,
            } => {
                out.reserve(cells.len() * 3 + 16);
                out.put_u8(0x85);
                out.put_u32_le(*view);
                out.put_u32_le(*chunk_row);
                out.put_u32_le(*chunk_col);
                out.put_u16_le(cells.len() as u16);
                for &(offset, state) in cells {
                    out.put_u16_le(offset);
                    out.put_u8(state);
                }
            }
            ServerMsg::Players(players) => {
                out.put_u8(0x86);
                out.put_u16_le(players.len() as u16);
                for p in players {
                    let name = truncate_utf8(&p.name, MAX_NAME);
                    out.put_u32_le(p.id);
                    out.put_u8(u8::from(p.online));
                    out.put_u8(p.status);
                    out.put_u64_le(p.revealed);
                    out.put_u32_le(p.mines_hit);
                    out.put_u32_le(p.flags);
                    out.put_u32_le(p.elapsed_ms);
                    out.put_u8(name.len() as u8);
                    out.put_slice(name.as_bytes());
                }
            }
            ServerMsg::Cursors(cursors) => {
                out.put_u8(0x87);
                out.put_u16_le(cursors.len() as u16);
                for &(player, row, col) in cursors {
                    out.put_u32_le(player);
                    out.put_u32_le(row);
                    out.put_u32_le(col);
                }
            }
            ServerMsg::Over(o) => {
                out.put_u8(0x88);
                out.put_u32_le(o.view);
                out.put_u8(o.status);
                out.put_u32_le(o.elapsed_ms);
                out.put_u32_le(o.bbbv);
                out.put_u32_le(o.clicks);
                out.put_u16_le(o.correct_flags.len() as u16);
                for &(player, correct) in &o.correct_flags {
                    out.put_u32_le(player);
                    out.put_u32_le(correct);
                }
            }
            ServerMsg::Hint { seq, found } => {
                out.put_u8(0x89);
                out.put_u32_le(*seq);
                match found {
                    None => out.put_u8(0),
                    Some((row, col, reason)) => {
                        out.put_u8(1);
                        out.put_u32_le(*row);
                        out.put_u32_le(*col);
                        out.put_slice(reason.as_bytes());
                    }
                }
            }
            ServerMsg::Odds {
                seq,
                row,
                col,
                height,
                width,
                cells,
            } => {
                out.put_u8(0x8a);
                out.put_u32_le(*seq);
                out.put_u32_le(*row);
                out.put_u32_le(*col);
                out.put_u16_le(*height);
                out.put_u16_le(*width);
                out.put_slice(cells);
            }
            ServerMsg::WrongFlags { seq, cells } => {
                out.reserve(cells.len() * 8 + 8);
                out.put_u8(0x8b);
                out.put_u32_le(*seq);
                out.put_u16_le(cells.len() as u16);
                for &(row, col) in cells {
                    out.put_u32_le(row);
                    out.put_u32_le(col);
                }
            }
            ServerMsg::Pong { nonce } => {
                out.put_u8(0x8c);
                out.put_u64_le(*nonce);
            }
            ServerMsg::Event {
                kind,
                player,
                row,
                col,
            } => {
                out.put_u8(0x8d);
                out.put_u8(*kind as u8);
                out.put_u32_le(*player);
                out.put_u32_le(*row);
                out.put_u32_le(*col);
            }
            &ServerMsg::Clock {
                view,
                elapsed_ms,
                running,
            } => {
                out.put_u8(0x8e);
                out.put_u32_le(view);
                out.put_u32_le(elapsed_ms);
                out.put_u8(u8::from(running));
            }
            &ServerMsg::Progress { share } => {
                out.put_u8(0x8f);
                out.put_u16_le(share);
            }
            &ServerMsg::NewGame { game } => {
                out.put_u8(0x90);
                out.put_u32_le(game);
            }
            &ServerMsg::Team { opened } => {
                out.put_u8(0x92);
                out.put_u64_le(opened);
            }
            &ServerMsg::Start {
                ready,
                racers,
                starts_in_ms,
            } => {
                out.put_u8(0x94);
                out.put_u32_le(ready);
                out.put_u32_le(racers);
                out.put_u32_le(starts_in_ms);
            }
            ServerMsg::Summaries { view, rect, chunks } => {
                out.reserve(chunks.len() * 4);
                out.put_u8(0x93);
                out.put_u32_le(*view);
                out.put_u32_le(rect.row);
                out.put_u32_le(rect.col);
                out.put_u16_le(rect.rows);
                out.put_u16_le(rect.cols);
                for c in chunks {
                    out.put_slice(&[c.opened, c.exploded, c.flags, c.players]);
                }
            }
            ServerMsg::Series(entries) => {
                out.put_u8(0x91);
                let n = entries.len().min(usize::from(u16::MAX));
                out.put_u16_le(n as u16);
                for e in &entries[..n] {
                    out.put_u32_le(e.player);
                    out.put_u32_le(e.wins);
                    out.put_u32_le(e.best_ms);
                }
            }
        }
        out.freeze()
    }

    /// Decodes one frame from the server.
    pub fn decode(frame: &[u8]) -> Result<ServerMsg, DecodeError> {
        let (&kind, body) = frame.split_first().ok_or(DecodeError::Empty)?;
        let mut r = Reader { kind, body };
        let msg = match kind {
            0x81 => {
                r.exact(66)?;
                let version = r.u8();
                let spectator = r.u8() != 0;
                let player = r.u32();
                let token = r.take::<16>();
                let (rows, cols, mines) = (r.u32(), r.u32(), r.u64());
                let mode = match r.u8() {
                    0 => Mode::Race,
                    1 => Mode::Coop,
                    m => return Err(r.field(format!("mode {m} is not 0 or 1"))),
                };
                let rule = match r.u8() {
                    0 => MineRule::Classic,
                    1 => MineRule::Endless,
                    m => return Err(r.field(format!("rule {m} is not 0 or 1"))),
                };
                let no_guess = r.u8() != 0;
                let first = Some((r.u32(), r.u32())).filter(|&f| f != (NO_FIRST, NO_FIRST));
                ServerMsg::Welcome(Welcome {
                    version,
                    spectator,
                    player,
                    token,
                    rows,
                    cols,
                    mines,
                    mode,
                    rule,
                    no_guess,
                    first,
                    max_chunks: r.u32(),
                    view: r.u32(),
                    elapsed_ms: r.u32(),
                    clock_running: r.u8() != 0,
                    game: r.u32(),
                })
            }
            0x82 => {
                r.exact(14)?;
                ServerMsg::Ack {
                    seq: r.u32(),
                    opened: r.u32(),
                    exploded: r.u32(),
                    status: r.status()?,
                    flagged: r.u8() != 0,
                }
            }
            0x83 => {
                r.at_least(6)?;
                ServerMsg::Error {
                    seq: r.u32(),
                    code: r.u16(),
                    message: r.rest_text()?,
                }
            }
            0x84 => {
                r.at_least(15)?;
                let (view, chunk_row, chunk_col) = (r.u32(), r.u32(), r.u32());
                let (height, width) = (r.u8(), r.u8());
                if !(1..=CHUNK as u8).contains(&height) || !(1..=CHUNK as u8).contains(&width) {
                    return Err(r.field(format!("a chunk of {height}x{width} cells")));
                }
                let encoding = r.u8();
                let cells =
                    decode_cells(&mut r, encoding, usize::from(height) * usize::from(width))?;
                r.done()?;
                ServerMsg::Chunk {
                    view,
                    chunk_row,
                    chunk_col,
                    height,
                    width,
                    cells,
                }
            }
            0x85 => {
                r.at_least(14)?;
                let (view, chunk_row, chunk_col) = (r.u32(), r.u32(), r.u32());
                let count = usize::from(r.u16());
                r.exact(count * 3)?;
                let mut cells = Vec::with_capacity(count);
                for _ in 0..count {
                    let (offset, state) = (r.u16(), r.u8());
                    if usize::from(offset) >= CHUNK * CHUNK || state > cell::WRONG_FLAG {
                        return Err(r.field(format!("cell {offset} state {state}")));
                    }
                    cells.push((offset, state));
                }
                ServerMsg::Delta {
                    view,
                    chunk_row,
                    chunk_col,
                    cells,
                }
            }
            0x86 => {
                r.at_least(2)?;
                let count = r.u16();
                let mut players = Vec::new();
                for _ in 0..count {
                    r.at_least(27)?;
                    let id = r.u32();
                    let online = r.u8() != 0;
                    let status = r.status()?;
                    let revealed = r.u64();
                    let (mines_hit, flags, elapsed_ms) = (r.u32(), r.u32(), r.u32());
                    let len = usize::from(r.u8());
                    if len > MAX_NAME {
                        return Err(
                            r.field(format!("a player's name of {len} bytes, over {MAX_NAME}"))
                        );
                    }
                    let name = r.text(len)?;
                    players.push(PlayerInfo {
                        id,
                        name,
                        online,
                        status,
                        revealed,
                        mines_hit,
                        flags,
                        elapsed_ms,
                    });
                }
                r.done()?;
                ServerMsg::Players(players)
            }
            0x87 => {
                r.at_least(2)?;
                let count = usize::from(r.u16());
                r.exact(count * 12)?;
                ServerMsg::Cursors((0..count).map(|_| (r.u32(), r.u32(), r.u32())).collect())
            }
            0x88 => {
                r.at_least(19)?;
                let view = r.u32();
                let status = r.status()?;
                let (elapsed_ms, bbbv, clicks) = (r.u32(), r.u32(), r.u32());
                let count = usize::from(r.u16());
                r.exact(count * 8)?;
                ServerMsg::Over(Over {
                    view,
                    status,
                    elapsed_ms,
                    bbbv,
                    clicks,
                    correct_flags: (0..count).map(|_| (r.u32(), r.u32())).collect(),
                })
            }
            0x89 => {
                r.at_least(5)?;
                let seq = r.u32();
                let found = match r.u8() {
                    0 => {
                        r.done()?;
                        None
                    }
                    1 => {
                        r.at_least(8)?;
                        let (row, col) = (r.u32(), r.u32());
                        Some((row, col, r.rest_text()?))
                    }
                    f => return Err(r.field(format!("found {f} is not 0 or 1"))),
                };
                ServerMsg::Hint { seq, found }
            }
            0x8a => {
                r.at_least(16)?;
                let (seq, row, col) = (r.u32(), r.u32(), r.u32());
                let (height, width) = (r.u16(), r.u16());
                let count = usize::from(height) * usize::from(width);
                r.exact(count)?;
                ServerMsg::Odds {
                    seq,
                    row,
                    col,
                    height,
                    width,
                    cells: r.bytes(count)?.to_vec(),
                }
            }
            0x8b => {
                r.at_least(6)?;
                let seq = r.u32();
                let count = usize::from(r.u16());
                r.exact(count * 8)?;
                ServerMsg::WrongFlags {
                    seq,
                    cells: (0..count).map(|_| (r.u32(), r.u32())).collect(),
                }
            }
            0x8c => {
                r.exact(8)?;
                ServerMsg::Pong { nonce: r.u64() }
            }
            0x8d => {
                r.exact(13)?;
                let kind = match r.u8() {
                    1 => EventKind::MineHit,
                    2 => EventKind::Joined,
                    3 => EventKind::Left,
                    4 => EventKind::Won,
                    5 => EventKind::Lost,
                    k => return Err(r.field(format!("event kind {k} is not 1 to 5"))),
                };
                ServerMsg::Event {
                    kind,
                    player: r.u32(),
                    row: r.u32(),
                    col: r.u32(),
                }
            }
            0x8e => {
                r.exact(9)?;
                ServerMsg::Clock {
                    view: r.u32(),
                    elapsed_ms: r.u32(),
                    running: match r.u8() {
                        0 => false,
                        1 => true,
                        b => return Err(r.field(format!("running {b} is not 0 or 1"))),
                    },
                }
            }
            0x8f => {
                r.exact(2)?;
                let share = r.u16();
                if share > PROGRESS_DONE {
                    return Err(r.field(format!(
                        "share {share} is over {PROGRESS_DONE} ten-thousandths"
                    )));
                }
                ServerMsg::Progress { share }
            }
            0x90 => {
                r.exact(4)?;
                ServerMsg::NewGame { game: r.u32() }
            }
            0x91 => {
                r.at_least(2)?;
                let count = usize::from(r.u16());
                r.exact(count * 12)?;
                ServerMsg::Series(
                    (0..count)
                        .map(|_| SeriesEntry {
                            player: r.u32(),
                            wins: r.u32(),
                            best_ms: r.u32(),
                        })
                        .collect(),
                )
            }
            0x92 => {
                r.exact(8)?;
                ServerMsg::Team { opened: r.u64() }
            }
            0x94 => {
                r.exact(12)?;
                ServerMsg::Start {
                    ready: r.u32(),
                    racers: r.u32(),
                    starts_in_ms: r.u32(),
                }
            }
            0x93 => {
                r.at_least(16)?;
                let view = r.u32();
                let rect = ChunkRect {
                    row: r.u32(),
                    col: r.u32(),
                    rows: r.u16(),
                    cols: r.u16(),
                };
                let count = usize::from(rect.rows) * usize::from(rect.cols);
                if count == 0 || count > MAX_SUMMARY_CHUNKS {
                    return Err(r.field(format!(
                        "a summary of {}x{} chunks is not 1 to {MAX_SUMMARY_CHUNKS} chunks",
                        rect.rows, rect.cols
                    )));
                }
                r.exact(count * 4)?;
                let chunks = r
                    .body
                    .chunks_exact(4)
                    .map(|b| ChunkSummary {
                        opened: b[0],
                        exploded: b[1],
                        flags: b[2],
                        players: b[3],
                    })
                    .collect();
                ServerMsg::Summaries { view, rect, chunks }
            }
            other => return Err(DecodeError::UnknownType(other)),
        };
        Ok(msg)
    }
}

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub fn truncate_utf8(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_round_trip_in_every_encoding() {
        let cases: Vec<Vec<u8>> = vec![
            vec![cell::HIDDEN; 4096],
            vec![0; 4096],
            (0..4096).map(|i| (i % 14) as u8).collect(),
            vec![cell::HIDDEN, 1, 0],
            vec![3],
        ];
        for cells in cases {
            let msg = ServerMsg::Chunk {
                view: 0,
                chunk_row: 1,
                chunk_col: 2,
                height: 1,
                width: 1,
                cells: cells.clone(),
            };
            let (h, w) = if cells.len() == 4096 {
                (64, 64)
            } else {
                (1, cells.len() as u8)
            };
            let msg = match msg {
                ServerMsg::Chunk { cells, .. } => ServerMsg::Chunk {
                    view: 0,
                    chunk_row: 1,
                    chunk_col: 2,
                    height: h,
                    width: w,
                    cells,
                },
                other => other,
            };
            assert_eq!(ServerMsg::decode(&msg.encode()), Ok(msg));
        }
    }

    #[test]
    fn summaries_round_trip() {
        let rect = ChunkRect {
            row: 3,
            col: 150,
            rows: 2,
            cols: 3,
        };
        let ask = ClientMsg::Summaries(rect);
        let bytes = ask.encode();
        assert_eq!(bytes.len(), 13);
        assert_eq!(bytes[0], 0x0d);
        assert_eq!(ClientMsg::decode(&bytes), Ok(ask));
        let chunks: Vec<ChunkSummary> = (0..6u8)
            .map(|i| ChunkSummary {
                opened: i * 50,
                exploded: i,
                flags: 255 - i,
                players: i % 2,
            })
            .collect();
        let answer = ServerMsg::Summaries {
            view: 7,
            rect,
            chunks,
        };
        let bytes = answer.encode();
        assert_eq!(bytes.len(), 17 + 6 * 4);
        assert_eq!(&bytes[17..21], &[0, 0, 255, 0]);
        assert_eq!(ServerMsg::decode(&bytes), Ok(answer));
        // One byte short, or one over, is a length error; so is a rectangle past the cap.
        assert!(matches!(
            ServerMsg::decode(&bytes[..bytes.len() - 1]),
            Err(DecodeError::Length { kind: 0x93, .. })
        ));
        let mut long = bytes.to_vec();
        long.push(0);
        assert!(matches!(
            ServerMsg::decode(&long),
            Err(DecodeError::Length { kind: 0x93, .. })
        ));
        let mut huge = bytes[..17].to_vec();
        huge[13..15].copy_from_slice(&200u16.to_le_bytes());
        huge[15..17].copy_from_slice(&200u16.to_le_bytes());
        assert!(matches!(
            ServerMsg::decode(&huge),
            Err(DecodeError::Field { kind: 0x93, .. })
        ));
        let mut empty = ClientMsg::Summaries(rect).encode().to_vec();
        empty[9..11].copy_from_slice(&0u16.to_le_bytes());
        assert!(matches!(
            ClientMsg::decode(&empty),
            Err(DecodeError::Field { kind: 0x0d, .. })
        ));
    }

    #[test]
    fn a_summary_rounds_its_share_up_and_holds_its_counts() {
        assert_eq!(ChunkSummary::of(4096, 0, 0, 0, 0).opened, 0);
        assert_eq!(ChunkSummary::of(4096, 1, 0, 0, 0).opened, 1);
        assert_eq!(ChunkSummary::of(4096, 4095, 0, 0, 0).opened, 255);
        assert_eq!(ChunkSummary::of(4096, 2048, 0, 0, 0).opened, 128);
        assert_eq!(ChunkSummary::of(4096, 4096, 0, 0, 0).opened, 255);
        assert_eq!(ChunkSummary::of(0, 0, 0, 0, 0).opened, 0);
        let full = ChunkSummary::of(4096, 10, 300, 1000, 256);
        assert_eq!((full.exploded, full.flags, full.players), (255, 255, 255));
    }
}
