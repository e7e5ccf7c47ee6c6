//! A client of the protocol, for tests, the load tester and the terminal game: a socket that
//! speaks [`ClientMsg`] and [`ServerMsg`]; [`Link`], the same on a thread of its own that joins
//! again when the connection drops, for a program that never waits on the network;
//! [`Picture`], a client's copy of the chunks it watches, kept up to date from chunk and delta
//! frames; and what a frame's bytes mean to a player ([`cell_of`], [`status_of`],
//! [`OddsWindow`]).

mod link;

pub use link::{Link, NetEvent};

use std::collections::HashMap;

use bitmines_core::{Cell, Status};

use futures_util::{SinkExt, StreamExt};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async_with_config};

use crate::protocol::{CHUNK, ClientMsg, DecodeError, ServerMsg, Welcome, cell};

/// What went wrong on a client's connection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// The connection could not be made.
    #[error("cannot connect to {url}: {reason}")]
    Connect {
        /// The address.
        url: String,
        /// Why.
        reason: String,
    },
    /// The server refused the join.
    #[error("refused (code {code}): {message}")]
    Refused {
        /// The error code.
        code: u16,
        /// The server's words.
        message: String,
    },
    /// The connection closed, with the server's close code and reason if it gave them.
    #[error("the connection closed{}", .0.as_ref().map(|(c, r)| format!(" ({c}: {r})")).unwrap_or_default())]
    Closed(Option<(u16, String)>),
    /// A frame from the server did not decode.
    #[error("a frame from the server does not decode: {0}")]
    Decode(#[from] DecodeError),
    /// The socket failed.
    #[error("socket: {0}")]
    Io(String),
}

/// A connection to a room.
pub struct Client {
    ws: WebSocketStream<MaybeTlsStream<TcpStream>>,
    welcome: Welcome,
    /// Bytes of frames received, the welcome included.
    pub bytes_in: u64,
}

impl Client {
    /// Connects to `url` (`ws://HOST:PORT/room/NAME?...`) and waits for the welcome.
    pub async fn connect(url: &str) -> Result<Client, ClientError> {
        Client::connect_with_progress(url, |_| {}).await
    }

    /// [`Client::connect`], handing `progress` the share of the room's board made (in
    /// ten-thousandths, see [`ServerMsg::Progress`]) each time the server says, while a new
    /// room's board is being generated before the welcome.
    pub async fn connect_with_progress(
        url: &str,
        mut progress: impl FnMut(u16),
    ) -> Result<Client, ClientError> {
        // The read buffer is zeroed before every read (and every read that finds nothing):
        // 4 KiB holds a move's frames (a chunk is about 2 KiB; a larger burst takes two
        // reads) and costs a thirty-second of the default 128 KiB.
        let config = WebSocketConfig::default().read_buffer_size(4 << 10);
        let connected = connect_async_with_config(url, Some(config), true).await;
        let (mut ws, _) = connected.map_err(|e| ClientError::Connect {
            url: url.to_string(),
            reason: e.to_string(),
        })?;
        loop {
            match ws.next().await {
                Some(Ok(Message::Binary(b))) => {
                    return match ServerMsg::decode(&b)? {
                        ServerMsg::Welcome(welcome) => Ok(Client {
                            ws,
                            welcome,
                            bytes_in: b.len() as u64,
                        }),
                        ServerMsg::Error { code, message, .. } => {
                            Err(ClientError::Refused { code, message })
                        }
                        ServerMsg::Progress { share } => {
                            progress(share);
                            continue;
                        }
                        other => Err(ClientError::Io(format!(
                            "the first frame is not a welcome: {other:?}"
                        ))),
                    };
                }
                Some(Ok(Message::Close(frame))) => {
                    return Err(ClientError::Closed(
                        frame.map(|f| (u16::from(f.code), f.reason.to_string())),
                    ));
                }
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(ClientError::Io(e.to_string())),
                None => return Err(ClientError::Closed(None)),
            }
        }
    }

    /// The welcome the server sent.
    pub fn welcome(&self) -> &Welcome {
        &self.welcome
    }

    /// The player's token as 32 hexadecimal digits, for a reconnect's `token=`.
    pub fn token_hex(&self) -> String {
        self.welcome
            .token
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// Sends one message.
    pub async fn send(&mut self, msg: &ClientMsg) -> Result<(), ClientError> {
        self.send_raw(msg.encode().to_vec()).await
    }

    /// Sends any bytes as one binary frame (for tests of bad input).
    pub async fn send_raw(&mut self, bytes: Vec<u8>) -> Result<(), ClientError> {
        self.ws
            .send(Message::Binary(bytes.into()))
            .await
            .map_err(|e| ClientError::Io(e.to_string()))
    }

    /// Sends a text frame (for tests of bad input).
    pub async fn send_text(&mut self, text: &str) -> Result<(), ClientError> {
        self.ws
            .send(Message::Text(text.into()))
            .await
            .map_err(|e| ClientError::Io(e.to_string()))
    }

    /// The next message, or the close with its reason.
    pub async fn recv(&mut self) -> Result<ServerMsg, ClientError> {
        loop {
            match self.ws.next().await {
                Some(Ok(Message::Binary(b))) => {
                    self.bytes_in += b.len() as u64;
                    return Ok(ServerMsg::decode(&b)?);
                }
                Some(Ok(Message::Close(frame))) => {
                    return Err(ClientError::Closed(
                        frame.map(|f| (u16::from(f.code), f.reason.to_string())),
                    ));
                }
                Some(Ok(_)) => continue,
                Some(Err(e)) => return Err(ClientError::Io(e.to_string())),
                None => return Err(ClientError::Closed(None)),
            }
        }
    }

    /// Closes the connection.
    pub async fn close(mut self) {
        let _ = self.ws.close(None).await;
    }
}

/// A client's copy of the chunks it was sent, by view and chunk.
#[derive(Debug, Clone, Default)]
pub struct Picture {
    chunks: HashMap<(u32, u32, u32), Chunk>,
}

#[derive(Debug, Clone)]
struct Chunk {
    width: usize,
    cells: Vec<u8>,
}

impl Picture {
    /// Takes in a chunk or delta frame; other messages are ignored. A delta for a chunk
    /// never sent whole is ignored too, as the protocol says.
    pub fn apply(&mut self, msg: &ServerMsg) {
        match msg {
            ServerMsg::Chunk {
                view,
                chunk_row,
                chunk_col,
                width,
                cells,
                ..
            } => {
                self.chunks.insert(
                    (*view, *chunk_row, *chunk_col),
                    Chunk {
                        width: usize::from(*width),
                        cells: cells.clone(),
                    },
                );
            }
            ServerMsg::Delta {
                view,
                chunk_row,
                chunk_col,
                cells,
            } => {
                if let Some(chunk) = self.chunks.get_mut(&(*view, *chunk_row, *chunk_col)) {
                    for &(offset, state) in cells {
                        let (r, c) = (usize::from(offset) / CHUNK, usize::from(offset) % CHUNK);
                        if let Some(slot) = chunk.cells.get_mut(r * chunk.width + c) {
                            *slot = state;
                        }
                    }
                }
            }
            _ => {}
        }
    }

    /// Drops what is held of chunk `(chunk_row, chunk_col)` of `view`, for a client that
    /// stopped watching it: its deltas stop coming, so what is held would go stale.
    pub fn forget(&mut self, view: u32, chunk_row: u32, chunk_col: u32) {
        self.chunks.remove(&(view, chunk_row, chunk_col));
    }

    /// Drops every chunk held, for a client that starts watching another view.
    pub fn clear(&mut self) {
        self.chunks.clear();
    }

    /// The state of cell `(row, col)` of `view`, if its chunk was sent.
    pub fn cell(&self, view: u32, row: usize, col: usize) -> Option<u8> {
        let chunk = self
            .chunks
            .get(&(view, (row / CHUNK) as u32, (col / CHUNK) as u32))?;
        chunk
            .cells
            .get((row % CHUNK) * chunk.width + col % CHUNK)
            .copied()
    }

    /// The states of the `height x width` cells from `(row, col)` of `view`, row by row, or
    /// `None` if a chunk they lie in was not sent.
    pub fn rect(
        &self,
        view: u32,
        (row, col): (usize, usize),
        (height, width): (usize, usize),
    ) -> Option<Vec<u8>> {
        let mut out = Vec::with_capacity(height * width);
        for r in row..row + height {
            let mut c = col;
            while c < col + width {
                let chunk = self
                    .chunks
                    .get(&(view, (r / CHUNK) as u32, (c / CHUNK) as u32))?;
                let offset = c % CHUNK;
                if offset >= chunk.width {
                    return None; // Past the chunk's last column: off the board.
                }
                let start = (r % CHUNK) * chunk.width + offset;
                let take = (chunk.width - offset).min(col + width - c);
                out.extend_from_slice(chunk.cells.get(start..start + take)?);
                c += take;
            }
        }
        Some(out)
    }

    /// Every cell held, as `(view, row, col, state)`.
    pub fn cells(&self) -> impl Iterator<Item = (u32, usize, usize, u8)> + '_ {
        self.chunks.iter().flat_map(|(&(view, cr, cc), chunk)| {
            chunk.cells.iter().enumerate().map(move |(i, &state)| {
                (
                    view,
                    cr as usize * CHUNK + i / chunk.width,
                    cc as usize * CHUNK + i % chunk.width,
                    state,
                )
            })
        })
    }

    /// Whether a state is a revealed number.
    pub fn is_open(state: u8) -> bool {
        state <= cell::OPEN_MAX
    }
}

/// A cell state as chunk and delta frames carry it, as the engine's [`Cell`].
pub fn cell_of(state: u8) -> Cell {
    match state {
        n @ 0..=cell::OPEN_MAX => Cell::Open(n),
        cell::FLAGGED => Cell::Flagged,
        cell::EXPLODED => Cell::Exploded,
        cell::MINE => Cell::Mine,
        cell::WRONG_FLAG => Cell::WrongFlag,
        _ => Cell::Hidden,
    }
}

/// A game's status as frames carry it: 1 won, 2 lost, else playing.
pub fn status_of(code: u8) -> Status {
    match code {
        1 => Status::Won,
        2 => Status::Lost,
        _ => Status::Playing,
    }
}

/// The mine probabilities of a window of the board, as an odds frame gives them: its
/// top-left cell, its height and width, and a state a cell (half-percents up to 200).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OddsWindow {
    /// The window's top-left cell, `(row, col)`.
    pub corner: (u32, u32),
    /// The window's `(height, width)`.
    pub size: (u16, u16),
    /// A state a cell, row by row.
    pub cells: Vec<u8>,
}

impl OddsWindow {
    /// The chance of a mine on `(row, col)`, if the window holds it and it was hidden.
    pub fn mine(&self, row: usize, col: usize) -> Option<f64> {
        let ((top, left), (height, width)) = (self.corner, self.size);
        let dr = row.checked_sub(top as usize)?;
        let dc = col.checked_sub(left as usize)?;
        let width = usize::from(width);
        if dr >= usize::from(height) || dc >= width {
            return None;
        }
        match self.cells.get(dr * width + dc) {
            Some(&half_percent) if half_percent <= 200 => Some(f64::from(half_percent) / 200.0),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each state and status as frames carry them, and a window's odds: a hidden cell's
    /// chance in half-percents, none for an open cell or a cell outside the window.
    #[test]
    fn frames_bytes_read_as_cells_statuses_and_odds() {
        #[rustfmt::skip]
        let cells = [(0, Cell::Open(0)), (8, Cell::Open(8)), (cell::HIDDEN, Cell::Hidden),
            (cell::FLAGGED, Cell::Flagged), (cell::EXPLODED, Cell::Exploded),
            (cell::MINE, Cell::Mine), (cell::WRONG_FLAG, Cell::WrongFlag)];
        for (state, expected) in cells {
            assert_eq!(cell_of(state), expected, "{state}");
        }
        let statuses = [Status::Playing, Status::Won, Status::Lost];
        assert_eq!([0, 1, 2].map(status_of), statuses);
        let cells = vec![0, 100, 200, 255, 1, 199];
        let window = OddsWindow {
            corner: (10, 20),
            size: (2, 3),
            cells,
        };
        #[rustfmt::skip]
        let odds = [((10, 20), Some(0.0)), ((10, 21), Some(0.5)), ((10, 22), Some(1.0)),
            ((11, 20), None), ((11, 22), Some(0.995)), ((9, 20), None), ((10, 23), None),
            ((12, 20), None)];
        for ((row, col), expected) in odds {
            assert_eq!(window.mine(row, col), expected, "({row}, {col})");
        }
    }

    #[test]
    fn a_rectangle_reads_as_its_cells_across_chunks() {
        let mut picture = Picture::default();
        for (cr, cc, width) in [(0u32, 0u32, 64u8), (0, 1, 10), (1, 0, 64), (1, 1, 10)] {
            let cells = (0..usize::from(width) * 3)
                .map(|i| ((i + cr as usize * 5 + cc as usize * 3) % 14) as u8)
                .collect();
            picture.apply(&ServerMsg::Chunk {
                view: 2,
                chunk_row: cr,
                chunk_col: cc,
                height: if cr == 0 { 64 } else { 3 },
                width,
                cells,
            });
        }
        // Chunk (0, x) claims 64 rows but holds 3: only rows 0 to 2 and 64 to 66 are whole.
        for (row, col, h, w) in [(0, 0, 3, 74), (1, 60, 2, 10), (64, 5, 3, 60), (2, 63, 1, 2)] {
            let rect = picture.rect(2, (row, col), (h, w)).unwrap();
            let cells: Vec<u8> = (row..row + h)
                .flat_map(|r| (col..col + w).map(move |c| (r, c)))
                .map(|(r, c)| picture.cell(2, r, c).unwrap())
                .collect();
            assert_eq!(rect, cells, "({row}, {col}) {h}x{w}");
        }
        assert_eq!(
            picture.rect(2, (0, 70), (1, 10)),
            None,
            "past the chunk's cells"
        );
        assert_eq!(picture.rect(3, (0, 0), (1, 1)), None, "another view");
    }
}
