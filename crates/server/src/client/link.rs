//! A connection to a room for a program that must never wait on the network (the terminal
//! game, `bitmines play --connect`): a tokio runtime on a thread of its own holds the
//! WebSocket and joins again with the token when the connection drops (not when the player
//! joined elsewhere), and two channels join it to the program's loop.

use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::Duration;

use super::{Client, ClientError};
use crate::protocol::{CLOSE_TAKEN_OVER, ClientMsg, ErrorCode, ServerMsg, Welcome};
use tokio::sync::mpsc as tmpsc;
use tokio::time::timeout;

/// Failed tries in a row after which a lost connection is given up.
const GIVE_UP_AFTER: u32 = 20;

/// How often a ping keeps a quiet connection from the server's idle timeout.
const PING_EVERY: Duration = Duration::from_secs(30);

/// What the network thread tells the program.
#[derive(Debug)]
pub enum NetEvent {
    /// The room took the join (the first time, or again after a drop): the welcome, and the
    /// token to come back with (`None` for a spectator).
    Joined {
        /// The welcome frame.
        welcome: Welcome,
        /// The player's token in hexadecimal.
        token: Option<String>,
    },
    /// A frame from the server.
    Frame(ServerMsg),
    /// The connection dropped; joining again is being tried.
    Reconnecting {
        /// Tries so far, from 1.
        attempt: u32,
        /// Why the last connection ended, in words.
        reason: String,
    },
    /// The connection is gone for good: refused, or lost and not recovered. Nothing follows.
    Closed(String),
}

/// How to join: the room's address and who joins.
#[derive(Debug, Clone)]
struct Join {
    /// `ws://HOST:PORT/room/NAME`, with any room parameters in its query.
    url: String,
    /// Join as a spectator.
    spectate: bool,
    /// Resume the player of this token (32 hex digits).
    token: Option<String>,
}

impl Join {
    /// The address to connect to: the room's, with `spectate=1` or `token=` added and any
    /// `token` or `spectate` of the given query replaced.
    fn address(&self, token: Option<&str>) -> String {
        let (base, query) = self.url.split_once('?').unwrap_or((&self.url, ""));
        let kept = query.split('&').filter(|pair| {
            let key = pair.split('=').next().unwrap_or("");
            !pair.is_empty() && key != "token" && key != "spectate"
        });
        let added = match token {
            _ if self.spectate => Some("spectate=1".to_owned()),
            token => token.map(|token| format!("token={token}")),
        };
        let pairs: Vec<String> = kept.map(str::to_owned).chain(added).collect();
        let query = if pairs.is_empty() { "" } else { "?" };
        format!("{base}{query}{}", pairs.join("&"))
    }
}

/// The program's end of the connection. Dropping it stops the network thread.
pub struct Link {
    out: Option<tmpsc::UnboundedSender<ClientMsg>>,
    events: mpsc::Receiver<NetEvent>,
    thread: Option<JoinHandle<()>>,
}

impl Link {
    /// Starts the network thread, which joins `url` at once: as a spectator, or as the player
    /// of `token`, or as a new player.
    pub fn open(url: &str, spectate: bool, token: Option<String>) -> std::io::Result<Link> {
        let url = url.to_owned();
        let join = Join {
            url,
            spectate,
            token,
        };
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        let (out, out_rx) = tmpsc::unbounded_channel();
        let (events_tx, events) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("bitmines-net".into())
            .spawn(move || runtime.block_on(run(join, out_rx, events_tx)))?;
        Ok(Link {
            out: Some(out),
            events,
            thread: Some(thread),
        })
    }

    /// Sends a message; while the connection is down it is dropped (the program knows, from the
    /// events, and says so).
    pub fn send(&self, msg: ClientMsg) {
        if let Some(out) = &self.out {
            let _ = out.send(msg);
        }
    }

    /// What the server said since the last call, without waiting.
    pub fn poll(&self) -> Vec<NetEvent> {
        self.events.try_iter().collect()
    }

    /// Waits up to `timeout` for the next event.
    pub fn wait(&self, timeout: Duration) -> Option<NetEvent> {
        self.events.recv_timeout(timeout).ok()
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        // Closing the channel ends the network task, which closes the socket politely.
        self.out = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Joins, pumps frames both ways, and joins again with the token when the connection drops.
async fn run(
    join: Join,
    mut out: tmpsc::UnboundedReceiver<ClientMsg>,
    events: mpsc::Sender<NetEvent>,
) {
    let mut resume = join.token.clone();
    let mut joined_once = false;
    let mut failures = 0;
    loop {
        let address = join.address(resume.as_deref());
        // A connection that takes long to make (a far host that does not answer) must not
        // hold up quitting: the program going away ends the try.
        let connected = tokio::select! {
            // While a new room's board is made, its share done comes before the welcome.
            connected = Client::connect_with_progress(&address, |share| {
                let _ = events.send(NetEvent::Frame(ServerMsg::Progress { share }));
            }) => connected,
            () = closed(&mut out) => return,
        };
        let reason = match connected {
            Ok(client) => {
                failures = 0;
                joined_once = true;
                let welcome = client.welcome().clone();
                let token = (!welcome.spectator).then(|| client.token_hex());
                resume = token.clone().or(resume);
                if events.send(NetEvent::Joined { welcome, token }).is_err() {
                    client.close().await;
                    return;
                }
                let Some(reason) = pump(client, &mut out, &events).await else {
                    return;
                };
                reason
            }
            Err(ClientError::Refused { code, message }) => {
                let name = ErrorCode::name(code);
                let why = format!("the server refused the join: {name} ({message})");
                let _ = events.send(NetEvent::Closed(why));
                return;
            }
            Err(error) if !joined_once => {
                let _ = events.send(NetEvent::Closed(error.to_string()));
                return;
            }
            Err(error) => error.to_string(),
        };
        failures += 1;
        if failures > GIVE_UP_AFTER {
            let _ = events.send(NetEvent::Closed(format!(
                "the connection was lost and {GIVE_UP_AFTER} tries to join again failed: {reason}"
            )));
            return;
        }
        let attempt = failures;
        let event = NetEvent::Reconnecting { attempt, reason };
        // Wait a little longer after each failure, dropping what the program sends meanwhile,
        // and stop at once if the program goes.
        let pause = Duration::from_millis(250 * u64::from(failures.min(8)));
        if events.send(event).is_err() || timeout(pause, closed(&mut out)).await.is_ok() {
            return;
        }
    }
}

/// Returns once the program has dropped its end, discarding what it sends meanwhile (there is
/// no connection to send it on).
async fn closed(out: &mut tmpsc::UnboundedReceiver<ClientMsg>) {
    while out.recv().await.is_some() {}
}

/// Forwards the program's messages to the socket and the socket's frames to it until one
/// side ends. Returns why the connection dropped, or `None` to stop for good: the program is
/// gone, or the player joined again elsewhere with the token and the server closed this
/// connection for it.
async fn pump(
    mut client: Client,
    out: &mut tmpsc::UnboundedReceiver<ClientMsg>,
    events: &mpsc::Sender<NetEvent>,
) -> Option<String> {
    let mut ping = tokio::time::interval(PING_EVERY);
    ping.tick().await;
    let mut nonce = 0;
    loop {
        tokio::select! {
            msg = out.recv() => match msg {
                Some(msg) => {
                    if let Err(error) = client.send(&msg).await {
                        return Some(error.to_string());
                    }
                }
                None => {
                    client.close().await;
                    return None;
                }
            },
            frame = client.recv() => match frame {
                Ok(frame) => {
                    if events.send(NetEvent::Frame(frame)).is_err() {
                        client.close().await;
                        return None;
                    }
                }
                Err(ClientError::Closed(Some((code, reason)))) if code == CLOSE_TAKEN_OVER => {
                    // The other connection plays on: joining again from here would take the
                    // player back from it, and the two would pass the player to and fro.
                    let reason = format!("{reason}; not joining again from here");
                    let _ = events.send(NetEvent::Closed(reason));
                    return None;
                }
                Err(error) => return Some(error.to_string()),
            },
            _ = ping.tick() => {
                nonce += 1;
                if let Err(error) = client.send(&ClientMsg::Ping { nonce }).await {
                    return Some(error.to_string());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_join_address_carries_the_token_or_spectate() {
        let join = |url: &str, spectate| Join {
            url: url.into(),
            spectate,
            token: None,
        };
        #[rustfmt::skip]
        let cases: &[(&str, bool, Option<&str>, &str)] = &[
            // the url given, spectate, token -> the address
            ("ws://h:1/room/a", false, None, "ws://h:1/room/a"),
            ("ws://h:1/room/a", false, Some("ab"), "ws://h:1/room/a?token=ab"),
            ("ws://h:1/room/a?mode=race", false, Some("ab"), "ws://h:1/room/a?mode=race&token=ab"),
            ("ws://h:1/room/a?token=00&mode=race", false, Some("ab"), "ws://h:1/room/a?mode=race&token=ab"),
            ("ws://h:1/room/a?mode=race", true, Some("ab"), "ws://h:1/room/a?mode=race&spectate=1"),
            ("ws://h:1/room/a?spectate=1", true, None, "ws://h:1/room/a?spectate=1"),
            ("ws://h:1/room/a?", false, None, "ws://h:1/room/a"),
        ];
        for &(url, spectate, token, address) in cases {
            assert_eq!(join(url, spectate).address(token), address, "{url}");
        }
    }
}
