//! A room's parameters: read from a join's query string, checked against the server's limits,
//! and compared with an existing room's.
//!
//! A join's query is read whole (`Join`: an unknown key or a value its key does not take is
//! refused, naming it); a room's parameters come from it (presets, size, mines or density,
//! mode, rule, no-guess, first click); the server's limits refuse what is too large with its
//! numbers (a 10^12-cell request, for one); and a later join that asks for another room than
//! the one of that name is refused.

use std::collections::HashMap;

use crate::protocol::{ErrorCode, MineRule, Mode, VERSION};

/// Everything that makes a room's board and rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoomParams {
    /// Board rows.
    pub rows: usize,
    /// Board columns.
    pub cols: usize,
    /// Mines on the board.
    pub mines: usize,
    /// Race or co-op.
    pub mode: Mode,
    /// What a revealed mine does (co-op; a race is always classic).
    pub rule: MineRule,
    /// Whether the board is certified solvable without a guess from the first click.
    pub no_guess: bool,
    /// The first click every view starts from, which opens a region; `None` in a co-op room
    /// whose board is made around the first cell a player reveals.
    pub first: Option<(usize, usize)>,
    /// A race that starts once every racer online is ready, after a countdown
    /// ([`COUNTDOWN_MS`]), with one clock for all; moves wait for it.
    pub countdown: bool,
}

/// How long the countdown of a race made with `countdown=1` runs, in milliseconds.
pub const COUNTDOWN_MS: u32 = 3_000;

impl RoomParams {
    /// Cells on the board.
    pub fn cells(&self) -> u128 {
        self.rows as u128 * self.cols as u128
    }
}

/// What a join asked for; `None` where the query left the server's default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requested {
    rows: Option<usize>,
    cols: Option<usize>,
    mines: Option<usize>,
    density: Option<String>,
    mode: Option<Mode>,
    rule: Option<MineRule>,
    no_guess: Option<bool>,
    /// `Some(None)` for `first=player`.
    first: Option<Option<(usize, usize)>>,
    countdown: Option<bool>,
}

/// The keys a join's query may hold. Any other is refused, so that a misspelt key (`col=`
/// for `cols=`) is named to the client rather than left silently at its default.
pub const JOIN_KEYS: [&str; 14] = [
    "v",
    "preset",
    "rows",
    "cols",
    "mines",
    "density",
    "mode",
    "rule",
    "noguess",
    "first",
    "countdown",
    "token",
    "spectate",
    "name",
];

/// Everything a join's query says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Join {
    /// The token of the player to resume, if one was given.
    pub token: Option<[u8; 16]>,
    /// Whether the connection only watches.
    pub spectate: bool,
    /// The player's name, if one was given.
    pub name: Option<String>,
    /// The room parameters asked for.
    pub room: Requested,
}

impl Join {
    /// Reads a join's query string. A key that is not one of [`JOIN_KEYS`], or a value its
    /// key does not take, is [`ErrorCode::BadParameter`] (a malformed token
    /// [`ErrorCode::BadToken`]), with a message that names the key and the value.
    pub fn parse(query: &str) -> Result<Join, (ErrorCode, String)> {
        let bad = |message: String| (ErrorCode::BadParameter, message);
        let query = parse_query(query);
        let mut unknown: Vec<&String> = query
            .keys()
            .filter(|key| !JOIN_KEYS.contains(&key.as_str()))
            .collect();
        // The first in order, so that the same query always gets the same message.
        unknown.sort();
        if let Some(key) = unknown.first() {
            return Err(bad(format!(
                "{key:?} is not a query key of this server (it takes {})",
                JOIN_KEYS.join(", ")
            )));
        }
        if let Some(v) = query.get("v").filter(|v| **v != VERSION.to_string()) {
            return Err(bad(format!(
                "protocol version v={v} is not spoken here; this server speaks {VERSION}"
            )));
        }
        let token = match query.get("token") {
            None => None,
            Some(hex) => Some(parse_token(hex).ok_or_else(|| {
                (
                    ErrorCode::BadToken,
                    format!("token={hex:?} is not 32 hexadecimal digits"),
                )
            })?),
        };
        let spectate = match query.get("spectate").map(String::as_str) {
            None | Some("0" | "false") => false,
            Some("1" | "true") => true,
            Some(v) => return Err(bad(format!("spectate={v:?} is not 0 or 1"))),
        };
        Ok(Join {
            token,
            spectate,
            name: query.get("name").cloned(),
            room: Requested::from_query(&query).map_err(bad)?,
        })
    }
}

/// Reads a token given as 32 hexadecimal digits.
fn parse_token(hex: &str) -> Option<[u8; 16]> {
    if hex.len() != 32 {
        return None;
    }
    let mut out = [0u8; 16];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// The presets and their sizes.
const PRESETS: [(&str, usize, usize, usize); 3] = [
    ("beginner", 9, 9, 10),
    ("intermediate", 16, 16, 40),
    ("expert", 16, 30, 99),
];

fn number(key: &str, value: &str) -> Result<usize, String> {
    value
        .parse::<usize>()
        .map_err(|_| format!("{key}={value:?} is not a whole number"))
}

impl Requested {
    /// Reads the room parameters of a query (other keys are left to the caller). Every error
    /// names the key and its value.
    pub fn from_query(query: &HashMap<String, String>) -> Result<Requested, String> {
        let mut req = Requested::default();
        if let Some(preset) = query.get("preset") {
            let (_, rows, cols, mines) =
                PRESETS.iter().find(|p| p.0 == preset).ok_or_else(|| {
                    format!("preset={preset:?} is not beginner, intermediate or expert")
                })?;
            req.rows = Some(*rows);
            req.cols = Some(*cols);
            req.mines = Some(*mines);
        }
        if let Some(v) = query.get("rows") {
            req.rows = Some(number("rows", v)?);
        }
        if let Some(v) = query.get("cols") {
            req.cols = Some(number("cols", v)?);
        }
        match (query.get("mines"), query.get("density")) {
            (Some(_), Some(_)) => return Err("give mines or density, not both".into()),
            (Some(v), None) => req.mines = Some(number("mines", v)?),
            (None, Some(v)) => {
                let d: f64 = v
                    .parse()
                    .map_err(|_| format!("density={v:?} is not a number"))?;
                if !(0.0..1.0).contains(&d) {
                    return Err(format!("density={v} is not at least 0 and below 1"));
                }
                req.mines = None;
                req.density = Some(v.clone());
            }
            (None, None) => {}
        }
        if let Some(v) = query.get("mode") {
            req.mode = Some(match v.as_str() {
                "race" => Mode::Race,
                "coop" => Mode::Coop,
                _ => return Err(format!("mode={v:?} is not race or coop")),
            });
        }
        if let Some(v) = query.get("rule") {
            req.rule = Some(match v.as_str() {
                "classic" => MineRule::Classic,
                "endless" => MineRule::Endless,
                _ => return Err(format!("rule={v:?} is not classic or endless")),
            });
        }
        if let Some(v) = query.get("noguess") {
            req.no_guess = Some(match v.as_str() {
                "1" | "true" => true,
                "0" | "false" => false,
                _ => return Err(format!("noguess={v:?} is not 0 or 1")),
            });
        }
        if let Some(v) = query.get("countdown") {
            req.countdown = Some(match v.as_str() {
                "1" | "true" => true,
                "0" | "false" => false,
                _ => return Err(format!("countdown={v:?} is not 0 or 1")),
            });
        }
        if let Some(v) = query.get("first") {
            req.first = Some(if v == "player" {
                None
            } else {
                let (r, c) = v
                    .split_once(',')
                    .ok_or_else(|| format!("first={v:?} is neither ROW,COL nor player"))?;
                Some((number("first row", r)?, number("first col", c)?))
            });
        }
        Ok(req)
    }

    /// Whether the query named any room parameter.
    pub fn is_empty(&self) -> bool {
        *self == Requested::default()
    }

    /// The parameters of a new room: the request over the defaults (expert, co-op, classic,
    /// the first click in the middle; `first=player` makes a co-op room's board around the
    /// first cell a player reveals), checked against `limits`.
    pub fn resolve(&self, max_cells: u128) -> Result<RoomParams, String> {
        let rows = self.rows.unwrap_or(16);
        let cols = self.cols.unwrap_or(30);
        if rows == 0 || cols == 0 {
            return Err(format!("a {rows}x{cols} board has no cells"));
        }
        let cells = rows as u128 * cols as u128;
        if cells > max_cells {
            return Err(format!(
                "a {rows}x{cols} board has {cells} cells, over this server's limit of \
                 {max_cells} cells a room"
            ));
        }
        let mines = match (&self.mines, &self.density) {
            (Some(m), _) => *m,
            (None, Some(d)) => {
                let d: f64 = d.parse().unwrap_or(0.0);
                (cells as f64 * d).round() as usize
            }
            // The preset's density when only a size is given: expert's 99 in 480.
            (None, None) => ((cells * 99 + 240) / 480) as usize,
        };
        let mode = self.mode.unwrap_or(Mode::Coop);
        let first = self.first.unwrap_or(Some((rows / 2, cols / 2)));
        if first.is_none() && mode == Mode::Race {
            return Err(
                "first=player is for co-op rooms; every racer starts from one opening".into(),
            );
        }
        // The region kept clear: around the given first click, or, where a player makes it,
        // the largest there may be (a cell's eight neighbours and itself).
        let clear = match first {
            Some((first_row, first_col)) => {
                if first_row >= rows || first_col >= cols {
                    return Err(format!(
                        "first=({first_row}, {first_col}) is off a {rows}x{cols} board"
                    ));
                }
                (rows.min(first_row + 2) - first_row.saturating_sub(1))
                    * (cols.min(first_col + 2) - first_col.saturating_sub(1))
            }
            None => rows.min(3) * cols.min(3),
        };
        if mines as u128 > cells - clear as u128 {
            return Err(format!(
                "{mines} mines do not fit a {rows}x{cols} board with the {clear} cells around \
                 the first click kept clear"
            ));
        }
        let rule = self.rule.unwrap_or(MineRule::Classic);
        if mode == Mode::Race && rule == MineRule::Endless {
            return Err("rule=endless is for co-op rooms; a race is classic".into());
        }
        let countdown = self.countdown.unwrap_or(false);
        if countdown && mode == Mode::Coop {
            return Err("countdown=1 is for races; a co-op room starts at its first move".into());
        }
        Ok(RoomParams {
            rows,
            cols,
            mines,
            mode,
            rule,
            no_guess: self.no_guess.unwrap_or(false),
            first,
            countdown,
        })
    }

    /// The first parameter the request gives that differs from `room`'s, as a message.
    pub fn mismatch(&self, room: &RoomParams) -> Option<String> {
        let given = |name: &str, asked: String, has: String| {
            (asked != has).then(|| format!("the room has {name}={has}, the join asked {asked}"))
        };
        let checks = [
            self.rows
                .and_then(|r| given("rows", r.to_string(), room.rows.to_string())),
            self.cols
                .and_then(|c| given("cols", c.to_string(), room.cols.to_string())),
            self.mines
                .and_then(|m| given("mines", m.to_string(), room.mines.to_string())),
            self.density.as_ref().and_then(|d| {
                let d: f64 = d.parse().unwrap_or(0.0);
                let m = (room.cells() as f64 * d).round() as usize;
                given("mines", m.to_string(), room.mines.to_string())
            }),
            self.mode
                .and_then(|m| given("mode", mode_name(m).into(), mode_name(room.mode).into())),
            self.rule
                .and_then(|r| given("rule", rule_name(r).into(), rule_name(room.rule).into())),
            self.no_guess.and_then(|n| {
                given(
                    "noguess",
                    u8::from(n).to_string(),
                    u8::from(room.no_guess).to_string(),
                )
            }),
            self.first
                .and_then(|f| given("first", first_name(f), first_name(room.first))),
            self.countdown.and_then(|c| {
                given(
                    "countdown",
                    u8::from(c).to_string(),
                    u8::from(room.countdown).to_string(),
                )
            }),
        ];
        checks.into_iter().flatten().next()
    }
}

/// The query-string value of a first click: `ROW,COL`, or `player` where the board is
/// made around the first cell a player reveals.
pub fn first_name(first: Option<(usize, usize)>) -> String {
    match first {
        Some((r, c)) => format!("{r},{c}"),
        None => "player".into(),
    }
}

/// The query-string name of a mode.
pub fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Race => "race",
        Mode::Coop => "coop",
    }
}

/// The query-string name of a rule.
pub fn rule_name(rule: MineRule) -> &'static str {
    match rule {
        MineRule::Classic => "classic",
        MineRule::Endless => "endless",
    }
}

/// Splits a query string into its keys and values (percent-decoding `%XX` and `+`).
pub fn parse_query(query: &str) -> HashMap<String, String> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'+' => out.push(b' '),
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                if let Some(v) = hex {
                    out.push(v);
                    i += 2;
                } else {
                    out.push(b);
                }
            }
            _ => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(query: &str) -> Result<RoomParams, String> {
        Requested::from_query(&parse_query(query))?.resolve(1_000_000_000)
    }

    #[test]
    fn defaults_and_presets() {
        let p = req("").unwrap();
        assert_eq!(
            (p.rows, p.cols, p.mines, p.first),
            (16, 30, 99, Some((8, 15)))
        );
        let p = req("preset=beginner&mode=race").unwrap();
        assert_eq!((p.rows, p.cols, p.mines, p.mode), (9, 9, 10, Mode::Race));
        // A race opens in the middle for every racer; a co-op room may be told where, or to
        // make its board around the first cell a player reveals.
        assert_eq!(p.first, Some((4, 4)));
        assert_eq!(req("first=2,3").unwrap().first, Some((2, 3)));
        assert_eq!(req("first=player").unwrap().first, None);
        assert!(req("mode=race&countdown=1").unwrap().countdown);
        assert!(!req("mode=race").unwrap().countdown);
        let p = req("rows=10000&cols=10000&density=0.15&rule=endless").unwrap();
        assert_eq!((p.mines, p.rule), (15_000_000, MineRule::Endless));
    }

    #[test]
    fn errors_name_the_value() {
        let cases = [
            ("rows=-5", "rows=\"-5\" is not a whole number"),
            ("preset=huge", "preset=\"huge\" is not beginner"),
            (
                "rows=1000000&cols=1000000",
                "1000000000000 cells, over this server's limit",
            ),
            ("mode=race&rule=endless", "a race is classic"),
            ("first=99,0", "first=(99, 0) is off a 16x30 board"),
            (
                "first=middle",
                "first=\"middle\" is neither ROW,COL nor player",
            ),
            ("mode=race&first=player", "first=player is for co-op rooms"),
            ("countdown=1", "countdown=1 is for races"),
            ("mode=race&countdown=2", "countdown=\"2\" is not 0 or 1"),
            // Where the player clicks is not known: room is kept for a cell and all eight
            // of its neighbours.
            (
                "rows=4&cols=4&mines=8&first=player",
                "8 mines do not fit a 4x4 board with the 9 cells",
            ),
            ("mines=480", "480 mines do not fit"),
            ("density=1.5", "density=1.5 is not at least 0"),
        ];
        for (query, expected) in cases {
            let error = req(query).unwrap_err();
            assert!(error.contains(expected), "{query}: {error}");
        }
    }

    #[test]
    fn mismatch_names_the_parameter() {
        let room = req("preset=expert").unwrap();
        let asked = Requested::from_query(&parse_query("preset=beginner")).unwrap();
        assert_eq!(
            asked.mismatch(&room).unwrap(),
            "the room has rows=16, the join asked 9"
        );
        let same = Requested::from_query(&parse_query("rows=16&mode=coop")).unwrap();
        assert_eq!(same.mismatch(&room), None);
    }

    #[test]
    fn a_join_names_an_unknown_key_or_a_bad_value() {
        let cases = [
            (
                "colz=5",
                ErrorCode::BadParameter,
                "\"colz\" is not a query key",
            ),
            (
                "rows=9&x",
                ErrorCode::BadParameter,
                "\"x\" is not a query key",
            ),
            // The first unknown key in order, whatever the query's order.
            (
                "zz=1&aa=2",
                ErrorCode::BadParameter,
                "\"aa\" is not a query key",
            ),
            (
                "spectate=2",
                ErrorCode::BadParameter,
                "spectate=\"2\" is not 0 or 1",
            ),
            (
                "spectate=",
                ErrorCode::BadParameter,
                "spectate=\"\" is not 0 or 1",
            ),
            ("v=2", ErrorCode::BadParameter, "v=2 is not spoken here"),
            (
                "token=zz",
                ErrorCode::BadToken,
                "token=\"zz\" is not 32 hexadecimal",
            ),
            (
                "mode=solo",
                ErrorCode::BadParameter,
                "mode=\"solo\" is not race or coop",
            ),
        ];
        for (query, code, text) in cases {
            let (got, message) = Join::parse(query).unwrap_err();
            assert_eq!(got, code, "{query}: {message}");
            assert!(message.contains(text), "{query}: {message}");
        }
    }

    #[test]
    fn a_join_reads_every_key_it_knows() {
        let token = "0123456789abcdef0123456789ABCDEF";
        let join = Join::parse(&format!(
            "v=1&preset=beginner&mode=race&noguess=1&first=1,2&token={token}&name=Ada+B&spectate=0"
        ))
        .unwrap();
        assert_eq!(join.token.map(|t| (t[0], t[15])), Some((0x01, 0xef)));
        assert_eq!(
            (join.spectate, join.name.as_deref()),
            (false, Some("Ada B"))
        );
        let p = join.room.resolve(1_000_000).unwrap();
        assert_eq!(
            (p.rows, p.mode, p.no_guess, p.first),
            (9, Mode::Race, true, Some((1, 2)))
        );
        for (query, spectate) in [("spectate=1", true), ("spectate=true", true), ("", false)] {
            assert_eq!(Join::parse(query).unwrap().spectate, spectate, "{query}");
        }
    }

    #[test]
    fn query_decoding() {
        let q = parse_query("name=a%20b+c&x&first=1%2C2");
        assert_eq!(q["name"], "a b c");
        assert_eq!(q["x"], "");
        assert_eq!(q["first"], "1,2");
    }
}
