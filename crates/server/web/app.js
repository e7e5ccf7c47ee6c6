// The bitmines web game: the page's controller. It joins a room over the protocol of
// PROTOCOL.md, keeps the chunks in view subscribed, draws them (board.js), turns mouse, touch
// and keys into moves, and shows every error and every lost connection in words. A board too
// large to watch whole is also asked for its chunks' summaries, about once a second, which
// the minimap and a view zoomed out past cells are drawn from.

import { encode, decode, ERROR_NAMES, EVENT, CHUNK, HIDDEN, FLAGGED, NOBODY, NO_TIME, MAX_SUMMARY_CHUNKS } from "./protocol.js";
import { Store, BoardView, drawMinimap, PLAYER_COLOURS, UNKNOWN } from "./board.js";
import { showLobby, hideLobby } from "./lobby.js";

const $ = (id) => document.getElementById(id);

// Everything that went wrong in the page's own code, for the tests and for the page.
const problems = [];
window.addEventListener("error", (e) => {
  problems.push(`error: ${e.message} at ${e.filename}:${e.lineno}`);
  showMessage(`Something went wrong in the page: ${e.message}`);
});
window.addEventListener("unhandledrejection", (e) => {
  problems.push(`unhandled rejection: ${e.reason}`);
  showMessage(`Something went wrong in the page: ${e.reason}`);
});

// Messages shown at the top of the page until dismissed or resolved; `key` replaces an
// earlier message of the same key.
function showMessage(text, key = null) {
  const box = $("messages");
  if (key) for (const old of box.querySelectorAll(`[data-key="${key}"]`)) old.remove();
  const div = document.createElement("div");
  div.className = "msg";
  if (key) div.dataset.key = key;
  div.textContent = text;
  const close = document.createElement("button");
  close.type = "button";
  close.textContent = "×";
  close.title = "dismiss";
  close.onclick = () => div.remove();
  div.append(close);
  box.append(div);
  while (box.children.length > 4) box.firstElementChild.remove();
}

function clearMessage(key) {
  for (const old of $("messages").querySelectorAll(`[data-key="${key}"]`)) old.remove();
}

// The theme: the browser's preference until the button picks one.
function applyTheme(theme) {
  document.documentElement.dataset.theme = theme;
  if (game) {
    game.view.theme = theme;
    game.dirty = true;
  }
}
function currentTheme() {
  return (
    localStorage.getItem("bitmines:theme") ||
    (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light")
  );
}
$("theme").onclick = () => {
  const next = currentTheme() === "dark" ? "light" : "dark";
  localStorage.setItem("bitmines:theme", next);
  applyTheme(next);
};

// The presets, to name a board in the personal bests.
const PRESETS = [
  ["beginner", 9, 9, 10],
  ["intermediate", 16, 16, 40],
  ["expert", 16, 30, 99],
];

// Where this browser keeps its best winning time for the welcome's kind of game: the preset
// (or the board's size and mines), the mode and whether it is no-guess.
function bestKey(w) {
  const preset = PRESETS.find(([, r, c, m]) => r === w.rows && c === w.cols && m === w.mines);
  const board = preset ? preset[0] : `${w.rows}x${w.cols}/${w.mines}`;
  return `bitmines:best:${board}:${w.mode}:${w.noguess ? "noguess" : "guess"}`;
}

// This player's best winning time for that kind of game, after a game that ended in
// `ms` (won or not): { ms, isNew } or null when there is none yet.
function personalBest(w, won, ms) {
  const key = bestKey(w);
  const old = Number(localStorage.getItem(key));
  const had = Number.isFinite(old) && old > 0 ? old : null;
  if (won && (had === null || ms < had)) {
    localStorage.setItem(key, String(Math.max(1, Math.round(ms))));
    return { ms, isNew: true };
  }
  return had === null ? null : { ms: had, isNew: false };
}

const ROOM_KEYS = ["preset", "rows", "cols", "mines", "density", "mode", "rule", "noguess", "first", "countdown"];
const STATUS = ["playing", "won", "lost"];
// The close code of a connection whose player joined again on another connection.
const CLOSE_TAKEN_OVER = 4000;
// What a close without a reason means, in words.
const CLOSE_WORDS = {
  1000: "closed",
  1001: "the server is going away",
  1006: "the connection dropped without a word: the server stopped or the network failed",
  1011: "the server hit an error",
  1013: "the server found this page too slow",
};
// A count with thousands separators: 20,625,000.
const count = (n) => n.toLocaleString("en-US");
const seconds = (ms) => (ms / 1000).toFixed(ms < 100000 ? 2 : 0);

// Groups a set of chunk keys into rectangles: runs along each row, then equal runs of
// consecutive rows merged, so a strip of chunks costs one frame.
function toRects(keys, chunkCols) {
  const rows = new Map();
  for (const k of [...keys].sort((a, b) => a - b)) {
    const r = Math.floor(k / chunkCols);
    const c = k % chunkCols;
    const runs = rows.get(r) || [];
    const last = runs[runs.length - 1];
    if (last && last[1] === c) last[1] = c + 1;
    else runs.push([c, c + 1]);
    rows.set(r, runs);
  }
  const open = new Map();
  const rects = [];
  for (const r of [...rows.keys()].sort((a, b) => a - b)) {
    const next = new Map();
    for (const [c0, c1] of rows.get(r)) {
      const id = `${c0},${c1}`;
      const rect = open.get(id);
      if (rect && rect.row + rect.rows === r && rect.rows < 65535) {
        rect.rows++;
        next.set(id, rect);
      } else {
        const made = { row: r, col: c0, rows: 1, cols: c1 - c0 };
        rects.push(made);
        next.set(id, made);
      }
    }
    open.clear();
    for (const [k, v] of next) open.set(k, v);
  }
  return rects;
}

class Game {
  constructor(name, hashParams) {
    this.name = name;
    this.spectate = hashParams.get("spectate") === "1";
    this.roomQuery = new URLSearchParams();
    for (const k of ROOM_KEYS) if (hashParams.has(k)) this.roomQuery.set(k, hashParams.get(k));
    this.welcome = null;
    this.store = null;
    this.view = new BoardView($("board"), new Store(1, 1));
    this.view.theme = currentTheme();
    this.subscribed = new Set();
    this.seq = 1;
    this.pending = new Map();
    this.players = [];
    this.playersAt = 0;
    this.status = 0;
    this.over = null;
    this.game = 1;
    this.series = [];
    this.oddsMode = 0;
    this.oddsAsked = null;
    this.showWrong = false;
    this.state = "connecting";
    this.attempt = 0;
    this.closedOnPurpose = false;
    this.fatal = null;
    // Why the connection was lost, kept through the tries to reconnect (null while live).
    this.lostWhy = null;
    // The games whose end this page has counted for the personal best, and the best shown.
    this.bestTaken = new Set();
    this.best = null;
    // Question marks: an option of this browser; the cells marked, "row,col", kept by the
    // page alone (the server has no such state).
    this.questionMarks = localStorage.getItem("bitmines:question-marks") === "1";
    $("marks").setAttribute("aria-pressed", String(this.questionMarks));
    this.marks = new Set();
    this.view.marks = this.marks;
    // Whether this page's own player has been said to have joined (once, not at each return).
    this.joinedSaid = false;
    this.dirty = true;
    this.lastSync = 0;
    this.lastSummaries = -Infinity;
    this.summariesLater = false;
    this.lastCursorSent = 0;
    this.cursorCell = null;
    this.frameTimes = null;
    this.firstPaint = null;
    this.connectStart = 0;
    this.watching = null;
    // The server's clock of the view watched: its play time, whether it runs, and when it
    // was told (the clock stands still before the room's first move).
    this.clock = null;
    this.events = [];
    this.names = new Map();
    this.pointers = new Map();
    this.ws = null;
    this.live = null;
    this.running = true;
    this.bindInput();
    this.layout();
    this.connect();
    this.ping = setInterval(() => this.send(encode.ping(Date.now())), 30000);
    this.clockTimer = setInterval(() => this.updateBar(), 250);
    requestAnimationFrame((t) => this.frame(t));
  }

  tokenKey() {
    return `bitmines:token:${this.name}`;
  }

  url() {
    const q = new URLSearchParams(this.roomQuery);
    const token = localStorage.getItem(this.tokenKey());
    if (this.spectate) q.set("spectate", "1");
    else if (token) q.set("token", token);
    const player = localStorage.getItem("bitmines:name");
    if (player && !this.spectate) q.set("name", player);
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}/room/${encodeURIComponent(this.name)}?${q}`;
  }

  connect() {
    this.connectStart = performance.now();
    this.setState(this.attempt === 0 ? "connecting" : "reconnecting");
    const ws = new WebSocket(this.url());
    ws.binaryType = "arraybuffer";
    this.ws = ws;
    let refused = null;
    ws.onmessage = (e) => {
      if (!(e.data instanceof ArrayBuffer)) return;
      let msg;
      try {
        msg = decode(e.data);
      } catch (err) {
        showMessage(`The server sent a frame this page cannot read: ${err.message}`);
        return;
      }
      if (!this.welcome || ws !== this.live) {
        if (msg.type === "error") refused = msg;
      }
      this.onMessage(msg, ws);
    };
    ws.onclose = (e) => {
      if (ws !== this.ws || this.closedOnPurpose) return;
      this.live = null;
      if (refused && [3, 7, 8, 10].includes(refused.code)) {
        this.fatal = refused;
        this.setState("refused");
        showMessage(
          `The server refused to let this page join room ${this.name} (${ERROR_NAMES[refused.code]}): ${refused.message}`,
          "connection",
        );
        return;
      }
      if (e.code === CLOSE_TAKEN_OVER) {
        // This player joined again elsewhere (another tab or device with the token), and
        // that connection plays on. Joining again from here by itself would take the player
        // back, and the two would pass it to and fro for ever: only a reload does.
        this.setState("elsewhere");
        showMessage(
          `This player joined room ${this.name} again from another tab or device, which plays on. Reload this page to play here instead.`,
          "connection",
        );
        return;
      }
      if (refused && refused.code === 9) {
        // The token names no player (a room made again under the same name): join afresh.
        localStorage.removeItem(this.tokenKey());
        showMessage(`The saved player of room ${this.name} is gone; joining as a new player.`, "token");
      }
      const why = e.reason ? `code ${e.code}: ${e.reason}` : CLOSE_WORDS[e.code] || `code ${e.code}`;
      // The reason the connection was lost stays in words while the page tries again: a
      // server shutting down is not "dropped without a word" once its address is dark.
      if (this.lostWhy === null) this.lostWhy = why;
      const text = this.welcome
        ? `The connection to the server was lost (${this.lostWhy}). Reconnecting…`
        : `The server cannot be reached (${why}). Trying again…`;
      showMessage(text, "connection");
      if (this.welcome) this.say("");
      this.attempt++;
      this.setState("reconnecting");
      const delay = Math.min(4000, 250 * 2 ** Math.min(this.attempt - 1, 4));
      this.retry = setTimeout(() => this.running && this.connect(), delay);
    };
  }

  setState(state) {
    this.state = state;
    const badge = $("connection");
    const words = {
      connecting: "connecting…",
      making: `making the board: ${this.making ?? 0}%`,
      reconnecting: `reconnecting… (try ${this.attempt})`,
      open: "",
      refused: "not joined",
      elsewhere: "playing elsewhere",
      left: "",
    };
    badge.textContent = words[state] ?? state;
    badge.hidden = !badge.textContent;
    badge.classList.toggle("down", ["reconnecting", "refused", "elsewhere"].includes(state));
  }

  send(frame) {
    if (this.live && this.live.readyState === WebSocket.OPEN) {
      this.live.send(frame);
      return true;
    }
    return false;
  }

  leave() {
    this.running = false;
    this.closedOnPurpose = true;
    clearTimeout(this.retry);
    clearInterval(this.ping);
    clearInterval(this.clockTimer);
    if (this.ws) this.ws.close(1000, "left the room");
    this.unbindInput();
  }

  onMessage(msg, ws) {
    switch (msg.type) {
      case "welcome":
        return this.onWelcome(msg, ws);
      case "progress":
        // Before the welcome, the room's board is still being made: no game, so no clock.
        // After it, a large room's next board, after a rematch (the game stays over until
        // the new game frame), or the board made around a first click (until its ack).
        this.making = Math.floor(msg.share / 100);
        this.setState("making");
        return;
      case "clock":
        if (msg.view === this.watching) this.setClock(msg.elapsedMs, msg.running, msg.view);
        return;
      case "chunk":
        if (msg.view !== this.watching) return;
        this.store.setChunk(msg);
        this.dirty = true;
        return;
      case "delta":
        if (msg.view !== this.watching) return;
        if (this.store.applyDelta(msg)) this.dirty = true;
        // When the last change came, in milliseconds since 1970: the tests time a move
        // from another client to this page with it.
        this.deltaAt = performance.timeOrigin + performance.now();
        return;
      case "start":
        return this.onStart(msg);
      case "summaries":
        if (msg.view !== this.watching) return;
        this.store.setSummaries(msg);
        this.dirty = true;
        return;
      case "ack":
        return this.onAck(msg);
      case "error":
        return this.onError(msg);
      case "players":
        this.players = msg.players;
        this.playersAt = performance.now();
        {
          // The reference player's time is the server's clock, newer than its last word.
          const ref = this.clockRef();
          if (ref && this.clock && this.clock.view === this.watching && this.clock.running) {
            this.setClock(ref.elapsedMs, ref.status === 0, this.watching);
          }
        }
        for (const p of msg.players) this.names.set(p.id, p.name);
        {
          const ref = this.welcome.mode === "coop" ? msg.players[0] : this.me();
          if (ref && !this.welcome.spectator) {
            this.status = ref.status;
            if (ref.status === 1 && !this.watchedPlayer && !this.view.won) {
              this.view.won = true;
              this.dirty = true;
            }
          }
        }
        if (this.watching === NOBODY && msg.players.length > 0) {
          // A spectator who came before the racers watches the first one.
          this.watchPlayer(msg.players[0].id);
          this.syncChunks(true);
        }
        this.renderPlayers();
        this.updateBar();
        return;
      case "cursors":
        for (const c of msg.cursors) {
          if (c.player === this.welcome.player) continue;
          this.view.others.set(c.player, {
            row: c.row,
            col: c.col,
            name: this.names.get(c.player) || `player ${c.player}`,
            colour: PLAYER_COLOURS[(c.player - 1) % PLAYER_COLOURS.length],
          });
        }
        this.dirty = true;
        return;
      case "over":
        return this.onOver(msg);
      case "newGame":
        return this.onNewGame(msg);
      case "series":
        this.series = msg.series;
        return;
      case "team":
        this.teamOpened = msg.opened;
        this.updateBar();
        return;
      case "hint":
        return this.onHint(msg);
      case "odds":
        this.view.odds = { ...msg, digits: this.oddsMode === 2 };
        this.dirty = true;
        return;
      case "wrongFlags":
        this.view.wrong = msg.cells;
        this.dirty = true;
        this.say(
          msg.cells.length === 0
            ? "No flag near the view is proven wrong by the numbers."
            : `${msg.cells.length} flag${msg.cells.length > 1 ? "s" : ""} proven wrong, marked in magenta.`,
        );
        return;
      case "event":
        return this.onEvent(msg);
      default:
        return;
    }
  }

  onWelcome(w, ws) {
    const again = this.welcome !== null;
    this.live = ws;
    this.welcome = w;
    this.attempt = 0;
    this.lostWhy = null;
    this.setState("open");
    clearMessage("connection");
    if (!w.spectator) localStorage.setItem(this.tokenKey(), w.token);
    if (!this.store || this.store.rows !== w.rows || this.store.cols !== w.cols) {
      this.store = new Store(w.rows, w.cols);
      this.view.store = this.store;
      this.view.maxChunks = w.maxChunks;
      this.layout();
      // A board that fits is shown whole, in cells as large as 36 pixels.
      const fit = Math.floor(Math.min(this.view.width / w.cols, this.view.height / w.rows));
      this.view.zoomTo(Math.min(36, Math.max(24, fit)));
      this.layout();
      const [fr, fc] = w.first ?? [Math.floor(w.rows / 2), Math.floor(w.cols / 2)];
      this.view.centreOn(fr, fc);
      if (!this.view.cursor) this.view.cursor = [fr, fc];
    } else {
      this.store.clear();
    }
    this.watching = w.view;
    this.watchedPlayer = null;
    // Ready again after a reconnection: the server may have restarted, and saying it twice
    // does no harm. The start frame after the welcome says where the race stands.
    this.readySent = false;
    this.startShown = false;
    $("start").hidden = true;
    // Back after a rematch this page missed: what it showed of the old game goes.
    if (again && w.game !== this.game) this.onNewGame({ game: w.game });
    this.game = w.game;
    this.view.won = false;
    this.setClock(w.elapsedMs, w.clockRunning, w.view);
    this.subscribed.clear();
    this.pending.clear();
    const mode = w.mode === "race" ? "race" : `co-op, ${w.rule}`;
    const who = w.spectator ? "watching" : `you are player ${w.player}`;
    $("room-title").textContent =
      `${this.name} · ${w.rows}x${w.cols}, ${count(w.mines)} mines · ${mode}${w.noguess ? " · no guessing" : ""} · ${who}`;
    for (const id of ["hint", "odds", "wrong"]) $(id).disabled = w.spectator;
    if (again) this.say("Reconnected: the same player, the same view.");
    else if (!w.first && !w.clockRunning && !w.spectator) {
      this.say("Click any cell to start: the board is made around it.");
    }
    if (w.view === NOBODY) {
      this.say("Nobody plays in this race yet: the board appears when someone joins.");
      return;
    }
    this.syncChunks(true);
    this.dirty = true;
  }

  onAck(a) {
    const move = this.pending.get(a.seq);
    this.pending.delete(a.seq);
    // A first click whose board was made aside: the game is on.
    if (this.state === "making") this.setState("open");
    this.status = a.status;
    if (move && a.exploded > 0 && this.welcome.rule === "endless") {
      this.say(`A mine at (${move.row}, ${move.col}): a penalty, and play goes on.`);
    }
    if (this.oddsMode) this.askOdds(true);
    if (this.showWrong && move && move.kind === "flag") this.askWrong();
  }

  onError(e) {
    const name = ERROR_NAMES[e.code] || `error ${e.code}`;
    // A rematch refused (a race where someone still plays): the button may be pressed again.
    if (e.seq !== 0 && e.seq === this.rematchSeq) $("end-rematch").disabled = false;
    const move = this.pending.get(e.seq);
    if (move) this.pending.delete(e.seq);
    const what = move ? `${move.kind} at (${move.row}, ${move.col}) refused` : "the server says";
    if (!this.welcome || this.live === null) return; // shown when the connection closes
    if (move && e.code === 5 && this.status !== 0) {
      // A click still on its way when the game ended: no alarm, a line.
      this.say(`The game is ${STATUS[this.status]}: ${what}.`);
      return;
    }
    showMessage(`${what} (${name}): ${e.message}`);
  }

  onOver(o) {
    if (o.view !== this.watching && this.welcome.mode === "race") return;
    this.over = o;
    this.status = o.status;
    const won = o.status === 1;
    this.view.won = won;
    const secs = o.elapsedMs / 1000;
    $("end-title").textContent = won ? "Cleared!" : "Boom: a mine.";
    $("end-title").className = won ? "won" : "lost";
    const rows = [
      ["time", `${seconds(o.elapsedMs)} s`],
      ["3BV", String(o.bbbv)],
      ["3BV/s", won && secs > 0 ? (o.bbbv / secs).toFixed(2) : "–"],
      ["clicks", String(o.clicks)],
      ["efficiency", won && o.clicks > 0 ? `${Math.round((100 * o.bbbv) / o.clicks)} %` : "–"],
    ];
    // The player's own games only: a spectator's, or another racer's, is not theirs.
    const w = this.welcome;
    if (!w.spectator && (w.mode === "coop" || o.view === w.view) && !this.bestTaken.has(this.game)) {
      this.bestTaken.add(this.game);
      this.best = personalBest(w, won, o.elapsedMs);
    }
    if (this.best) rows.push(["your best", `${seconds(this.best.ms)} s${this.best.isNew ? " (new)" : ""}`]);
    $("end-figures").replaceChildren(
      ...rows.map(([k, v]) => {
        const tr = document.createElement("tr");
        const a = document.createElement("td");
        const b = document.createElement("td");
        a.textContent = k;
        b.textContent = v;
        tr.append(a, b);
        return tr;
      }),
    );
    const name = (id) => this.names.get(id) || `player ${id}`;
    $("end-flags").replaceChildren(
      ...o.correctFlags.map(({ player, correct }) => {
        const li = document.createElement("li");
        li.textContent = `${name(player)}: ${correct} correct flag${correct === 1 ? "" : "s"}`;
        return li;
      }),
      // A race room's series across its games.
      ...this.series.map(({ player, wins, bestMs }) => {
        const li = document.createElement("li");
        const best = bestMs === 0xffffffff ? "" : `, best ${seconds(bestMs)} s`;
        li.textContent = `${name(player)}: ${wins} game${wins === 1 ? "" : "s"} won${best}`;
        return li;
      }),
    );
    // Any player may start the next game once this one is over; a spectator may not.
    $("end-rematch").hidden = this.welcome.spectator;
    $("end-rematch").disabled = false;
    const dialog = $("end");
    if (!dialog.open) dialog.showModal();
    this.view.odds = null;
    this.view.wrong = [];
    this.oddsMode = 0;
    this.showWrong = false;
    this.updateButtons();
    this.updateBar();
    this.dirty = true;
  }

  // The end screen's Rematch button: the room's next game. The server answers everyone with
  // the new game (or this page with why not, as in a race where someone still plays).
  // A race with a countdown, before it starts: who is ready, then 3-2-1 on the board; the
  // server's clock runs from the end of the count for every racer.
  onStart(m) {
    clearInterval(this.countTimer);
    const box = $("start");
    if (m.startsInMs === 0) {
      box.hidden = true;
      if (this.startShown) this.say("Go!");
      this.startShown = false;
      return;
    }
    this.startShown = true;
    box.hidden = false;
    const racer = !this.welcome.spectator;
    if (m.startsInMs === NO_TIME) {
      $("start-count").textContent = "";
      const amReady = this.readySent;
      $("start-words").textContent =
        `${m.ready} of ${m.racers} ${m.racers === 1 ? "racer" : "racers"} ready.` +
        (racer && !amReady ? " The race starts when everyone is." : " Waiting for the others…");
      $("start-ready").hidden = !racer || amReady;
      return;
    }
    // The countdown: shown from when it came, a whole second a step.
    const ends = performance.now() + m.startsInMs;
    $("start-ready").hidden = true;
    $("start-words").textContent = "Everyone is ready. The race starts in";
    this.say("");
    const show = () => {
      const left = Math.max(0, ends - performance.now());
      $("start-count").textContent = String(Math.max(1, Math.ceil(left / 1000)));
      if (left <= 0) clearInterval(this.countTimer);
    };
    show();
    this.countTimer = setInterval(show, 100);
  }

  ready() {
    this.readySent = true;
    $("start-ready").hidden = true;
    $("start-words").textContent = "Ready. Waiting for the others…";
    if (!this.send(encode.ready(this.seq++))) {
      this.readySent = false;
      $("start-ready").hidden = false;
    }
  }

  rematch() {
    $("end-rematch").disabled = true;
    this.rematchSeq = this.seq++;
    if (!this.send(encode.rematch(this.rematchSeq))) $("end-rematch").disabled = false;
  }

  // The room's next game began: a new board with the same settings. The chunks in view come
  // again with it, and the clock (stopped at 0).
  onNewGame(g) {
    this.game = g.game;
    this.readySent = false;
    this.over = null;
    this.status = 0;
    this.view.won = false;
    this.view.odds = null;
    this.view.wrong = [];
    this.view.hint = null;
    this.oddsMode = 0;
    this.showWrong = false;
    this.marks.clear();
    this.best = null;
    this.store.clear();
    const dialog = $("end");
    if (dialog.open) dialog.close();
    this.say(`Game ${g.game}: a new board.`);
    if (this.state === "making") this.setState("open");
    this.updateButtons();
    this.updateBar();
    this.dirty = true;
  }

  onHint(h) {
    if (!h.found) {
      const [r, c] = this.helpCentre();
      this.say(`No cell within 24 cells of (${r}, ${c}) is proven safe by the numbers around it. Try the odds (p).`);
      this.view.hint = null;
    } else {
      const { row, col, reason } = h.found;
      this.view.hint = [row, col];
      this.view.cursor = [row, col];
      this.view.reveal(row, col);
      this.say(`(${row}, ${col}) is safe: ${reason}`);
    }
    this.dirty = true;
  }

  onEvent(e) {
    const who = e.player === NOBODY ? "the team" : this.names.get(e.player) || `player ${e.player}`;
    let text;
    switch (e.kind) {
      case EVENT.MINE_HIT:
        text = `${who} found a mine at (${e.row}, ${e.col})`;
        this.view.finders.set(`${e.row},${e.col}`, PLAYER_COLOURS[(e.player - 1) % PLAYER_COLOURS.length]);
        this.dirty = true;
        break;
      case EVENT.JOINED:
        // A reconnection of this page is its player coming back, not news to itself.
        if (e.player === this.welcome?.player) {
          if (this.joinedSaid) return;
          this.joinedSaid = true;
        }
        text = `${who} joined`;
        break;
      case EVENT.LEFT:
        text = `${who} left`;
        this.view.others.delete(e.player);
        this.dirty = true;
        break;
      case EVENT.WON:
        text = `${who} won`;
        break;
      case EVENT.LOST:
        text = `${who} lost`;
        break;
      default:
        return;
    }
    const li = document.createElement("li");
    li.textContent = text;
    const list = $("events");
    list.prepend(li);
    while (list.children.length > 50) list.lastElementChild.remove();
  }

  say(text) {
    $("say").textContent = text;
  }

  // --- the bar and the players ---

  me() {
    return this.players.find((p) => p.id === this.welcome?.player);
  }

  // The player whose time the bar shows: the team's (all the same) in co-op, one's own or
  // the watched racer's in a race.
  clockRef() {
    const w = this.welcome;
    if (!w) return undefined;
    return w.mode === "coop" ? this.players[0] : this.shownPlayer();
  }

  // The racer whose board the page shows: the one watched, else this page's own player
  // (a spectator's is the racer whose view the server gave it: player N has view N - 1).
  shownPlayer() {
    const w = this.welcome;
    const id = this.watchedPlayer ?? (w?.spectator ? this.watching + 1 : w?.player);
    return this.players.find((p) => p.id === id);
  }

  setClock(ms, running, view) {
    this.clock = { ms, running, view, at: performance.now() };
    this.updateBar();
  }

  updateBar() {
    const w = this.welcome;
    if (!w) return;
    let flags = 0;
    let hit = 0;
    if (w.mode === "coop") {
      for (const p of this.players) {
        flags += p.flags;
        hit += p.minesHit;
      }
    } else {
      const shown = this.shownPlayer();
      if (shown) flags = shown.flags;
    }
    const left = this.view.won ? 0 : w.mines - flags - hit;
    $("mines-left").textContent = `${count(left)} mines left`;
    const c = this.clock;
    if (c && c.view === this.watching) {
      const ms = c.ms + (c.running ? performance.now() - c.at : 0);
      $("clock").textContent = `${Math.floor(ms / 1000)} s`;
    } else {
      const ref = this.clockRef();
      if (ref) $("clock").textContent = `${Math.floor(ref.elapsedMs / 1000)} s`;
    }
    const safe = w.rows * w.cols - w.mines;
    if (w.mode === "coop") {
      // The team frame counts the first click's opening and every player; the players' own
      // counts (all a server older than it sends) leave the opening out.
      const opened = this.teamOpened ?? this.players.reduce((n, p) => n + p.revealed, 0);
      $("progress-text").textContent = `${count(opened)} of ${count(safe)} safe cells open`;
    } else if (this.shownPlayer()) {
      $("progress-text").textContent = `${count(this.shownPlayer().revealed)} of ${count(safe)} safe cells`;
    }
  }

  renderPlayers() {
    const w = this.welcome;
    if (!w) return;
    const safe = w.rows * w.cols - w.mines;
    $("players-title").textContent = w.mode === "race" ? "Race" : "Team";
    const items = this.players.map((p) => {
      const li = document.createElement("li");
      li.dataset.player = p.id;
      if (!p.online) li.classList.add("off");
      const dot = document.createElement("span");
      dot.className = "dot";
      dot.style.background = PLAYER_COLOURS[(p.id - 1) % PLAYER_COLOURS.length];
      const name = document.createElement("span");
      name.textContent = `${p.name}${p.id === w.player ? " (you)" : ""}${p.online ? "" : " · away"}`;
      const stats = document.createElement("div");
      stats.className = "stats";
      if (w.mode === "race") {
        const share = Math.min(1, p.revealed / Math.max(1, safe));
        const status = STATUS[p.status];
        stats.textContent = `${p.revealed} / ${safe} · ${status}${p.status ? ` in ${seconds(p.elapsedMs)} s` : ""}`;
        const track = document.createElement("div");
        track.className = "bar-track";
        const fill = document.createElement("div");
        fill.className = "bar-fill";
        fill.style.width = `${(share * 100).toFixed(1)}%`;
        if (p.status === 2) fill.style.background = "var(--bad)";
        track.append(fill);
        li.append(dot, name, stats, track);
        const mayWatch = w.spectator || this.status !== 0;
        if (mayWatch) {
          li.style.cursor = "pointer";
          li.title = "watch this player's board";
          li.onclick = () => this.watchPlayer(p.id);
        }
        const watchedView = this.watchedPlayer === p.id || (!this.watchedPlayer && p.id === w.player);
        if (watchedView) li.classList.add("watching");
      } else {
        const n = (k, one, many) => `${k} ${k === 1 ? one : many}`;
        stats.textContent = `${n(p.revealed, "cell", "cells")} · ${n(p.minesHit, "mine", "mines")} hit · ${n(p.flags, "flag", "flags")}`;
        li.append(dot, name, stats);
      }
      return li;
    });
    $("players").replaceChildren(...items);
  }

  watchPlayer(id) {
    this.watchedPlayer = id;
    this.send(encode.watch(id));
    // The server sends fresh chunks of the new view for every chunk watched.
    const target = id === this.welcome.player ? this.welcome.view : null;
    this.watching = target ?? this.viewOfPlayer(id);
    // Question marks are this player's own: not drawn on another's board.
    this.view.marks = id === this.welcome.player ? this.marks : null;
    this.view.won = id === this.welcome.player && this.over?.status === 1;
    this.store.clear();
    this.dirty = true;
    this.renderPlayers();
  }

  // A racer's view is numbered by join order, as the server makes them: player N has view
  // N - 1.
  viewOfPlayer(id) {
    return id - 1;
  }

  // --- chunks in view ---

  syncChunks(force = false) {
    if (!this.store || !this.live) return;
    const now = performance.now();
    if (!force && now - this.lastSync < 60) {
      this.syncLater = true;
      return;
    }
    this.lastSync = now;
    this.syncLater = false;
    const want = new Set();
    const max = this.view.summaryMode() ? 0 : this.welcome.maxChunks;
    let [a0, b0, a1, b1] = this.view.visibleChunks(1);
    if ((a1 - a0) * (b1 - b0) > max) [a0, b0, a1, b1] = this.view.visibleChunks(0);
    for (let r = a0; r < a1; r++) {
      for (let c = b0; c < b1; c++) {
        if (want.size < max) want.add(this.store.key(r, c));
      }
    }
    const drop = [...this.subscribed].filter((k) => !want.has(k));
    const add = [...want].filter((k) => !this.subscribed.has(k));
    const cols = this.store.chunkCols;
    if (drop.length) {
      for (const rect of toRects(drop, cols)) this.send(encode.unsubscribe(rect));
      for (const k of drop) {
        this.subscribed.delete(k);
        this.store.drop(Math.floor(k / cols), k % cols);
      }
    }
    if (add.length) {
      for (const rect of toRects(add, cols)) this.send(encode.subscribe(rect));
      for (const k of add) this.subscribed.add(k);
    }
    if (this.oddsMode) this.askOdds(false);
  }

  layout() {
    const wrap = $("board-wrap");
    const rect = wrap.getBoundingClientRect();
    this.view.resize(Math.max(1, Math.floor(rect.width)), Math.max(1, Math.floor(rect.height)), devicePixelRatio || 1);
    if (this.store) {
      if (this.view.cell < this.view.minZoom()) this.view.zoomTo(this.view.minZoom());
      const big = this.view.boardWidth() > this.view.width || this.view.boardHeight() > this.view.height;
      const mini = $("minimap");
      mini.hidden = !big;
      this.view.corner = null;
      if (big) {
        // At most 180 px, and a third of a phone's narrow side.
        const most = Math.max(60, Math.min(180, Math.round(Math.min(rect.width, rect.height) / 3)));
        const ratio = this.store.rows / this.store.cols;
        mini.width = ratio > 1 ? Math.round(most / ratio) : most;
        mini.height = ratio > 1 ? most : Math.max(20, Math.round(most * ratio));
        // Its margin (10 px) and border (1 px each side), from the style sheet.
        this.view.corner = { w: mini.width + 12, h: mini.height + 12 };
      }
      this.view.clamp();
    }
    this.dirty = true;
    this.syncChunks(true);
  }

  // --- drawing ---

  frame(t) {
    if (!this.running) return;
    requestAnimationFrame((next) => this.frame(next));
    if (this.syncLater) this.syncChunks();
    this.askSummaries();
    if (this.oddsLater && this.oddsMode && this.status === 0) this.askOdds(true);
    if (this.wrongLater && this.showWrong && this.status === 0) this.askWrong();
    if (this.dirty) this.render();
  }

  render() {
    this.dirty = false;
    if (!this.store) {
      const g = this.view.g;
      g.fillStyle = this.view.theme === "dark" ? "#16181c" : "#eceff3";
      g.fillRect(0, 0, this.view.canvas.width, this.view.canvas.height);
      return;
    }
    const start = performance.now();
    this.view.draw();
    if (!$("minimap").hidden) drawMinimap($("minimap"), this.view);
    const end = performance.now();
    if (this.frameTimes) this.frameTimes.push(end - start);
    if (!this.firstPaint && this.allVisibleHere()) {
      this.firstPaint = { sincePageStart: end, sinceConnect: end - this.connectStart };
    }
  }

  allVisibleHere() {
    if (this.view.summaryMode()) return this.store.summaries !== null;
    const [a0, b0, a1, b1] = this.view.visibleChunks(0);
    for (let r = a0; r < a1; r++) for (let c = b0; c < b1; c++) if (!this.store.chunk(r, c)) return false;
    return true;
  }

  moved() {
    this.dirty = true;
    this.syncChunks();
    this.summariesLater = true;
  }

  // --- chunk summaries ---

  // Whether the page wants summaries: the view is drawn from them, or the minimap shows a
  // board with more chunks than the page may watch at once.
  wantsSummaries() {
    const st = this.store;
    if (this.view.summaryMode()) return true;
    return !$("minimap").hidden && st.chunkRows * st.chunkCols > this.welcome.maxChunks;
  }

  // The chunks to ask about: the whole board, or for a board of more than one request's
  // chunks, as many as one request takes around the view's centre.
  summaryRect() {
    const st = this.store;
    if (st.chunkRows * st.chunkCols <= MAX_SUMMARY_CHUNKS) {
      return { row: 0, col: 0, rows: st.chunkRows, cols: st.chunkCols };
    }
    const side = Math.floor(Math.sqrt(MAX_SUMMARY_CHUNKS));
    const rows = Math.min(st.chunkRows, side);
    const cols = Math.min(st.chunkCols, Math.floor(MAX_SUMMARY_CHUNKS / rows));
    const [a0, b0, a1, b1] = this.view.visibleChunks(0);
    const from = (centre, n, total) => Math.max(0, Math.min(total - n, Math.floor(centre - n / 2)));
    return { row: from((a0 + a1) / 2, rows, st.chunkRows), col: from((b0 + b1) / 2, cols, st.chunkCols), rows, cols };
  }

  // Asks for summaries once a second while they are wanted; sooner (every 300 ms at most)
  // when the view moved on a board larger than one request, or none came yet.
  askSummaries() {
    if (!this.store || !this.live || !this.welcome || !this.wantsSummaries()) return;
    const st = this.store;
    const since = performance.now() - this.lastSummaries;
    const partial = st.chunkRows * st.chunkCols > MAX_SUMMARY_CHUNKS;
    const soon = !st.summaries || (this.summariesLater && partial);
    if (since < 1000 && !(soon && since >= 300)) return;
    this.lastSummaries = performance.now();
    this.summariesLater = false;
    this.send(encode.summaries(this.summaryRect()));
  }

  // --- moves and help ---

  act(kind, row, col) {
    if (!this.welcome || this.welcome.spectator) {
      this.say("Spectators watch; join the room as a player to play.");
      return;
    }
    if (this.status !== 0) {
      this.say(`This game is ${STATUS[this.status]}.`);
      return;
    }
    if (this.startShown) {
      this.say(this.readySent ? "The race has not started yet." : "The race has not started: press Ready.");
      return;
    }
    const seq = this.seq++;
    if (!this.send(encode[kind](seq, row, col))) {
      this.say("Not connected: the move was not sent.");
      return;
    }
    this.pending.set(seq, { kind, row, col });
    this.view.hint = null;
    this.dirty = true;
  }

  // Left click or Space: reveal a hidden cell, chord an open number.
  primary(row, col) {
    const state = this.store.get(row, col);
    if (state >= 1 && state <= 8) this.act("chord", row, col);
    else if (state === HIDDEN) this.act("reveal", row, col);
  }

  // Right click, long press or f: blank, flag, then (with question marks on) a question
  // mark, then blank again. The mark is the page's own: setting or clearing it sends nothing.
  flag(row, col) {
    const state = this.store.get(row, col);
    const key = `${row},${col}`;
    if (state === HIDDEN && this.marks.delete(key)) {
      this.dirty = true;
      return;
    }
    if (state === FLAGGED && this.questionMarks && this.status === 0) this.marks.add(key);
    if (state === HIDDEN || state === FLAGGED) this.act("flag", row, col);
  }

  toggleQuestionMarks() {
    this.questionMarks = !this.questionMarks;
    localStorage.setItem("bitmines:question-marks", this.questionMarks ? "1" : "0");
    if (!this.questionMarks) this.marks.clear();
    this.say(this.questionMarks ? "Question marks on: a flag right-clicked again becomes a ?." : "Question marks off.");
    this.updateButtons();
    this.dirty = true;
  }

  helpCentre() {
    if (this.view.cursor) {
      const [r0, c0, r1, c1] = this.view.visibleCells();
      const [r, c] = this.view.cursor;
      if (r >= r0 && r < r1 && c >= c0 && c < c1) return this.view.cursor;
    }
    const [r0, c0, r1, c1] = this.view.visibleCells();
    return [Math.floor((r0 + r1) / 2), Math.floor((c0 + c1) / 2)];
  }

  askHint() {
    if (!this.welcome || this.welcome.spectator || this.status !== 0) return;
    const [r, c] = this.helpCentre();
    this.send(encode.hint(this.seq++, r, c));
  }

  cycleOdds() {
    if (!this.welcome || this.welcome.spectator || this.status !== 0) return;
    this.oddsMode = (this.oddsMode + 1) % 3;
    if (this.oddsMode === 0) {
      this.view.odds = null;
      this.say("Probabilities off.");
    } else {
      if (this.view.odds) this.view.odds.digits = this.oddsMode === 2;
      this.askOdds(true);
      this.say(
        this.oddsMode === 1
          ? "Mine probabilities near the view: green safe, red a mine (p again for digits)."
          : "Mine probabilities in percent (p again to hide): 0 only where the numbers prove a cell safe, as a hint would; <1 where it is unlikely but unproven, since the count of mines near the view is estimated.",
      );
    }
    this.updateButtons();
    this.dirty = true;
  }

  // Asks for the odds around the view's centre: always when `force`, else only when the
  // centre has left the window last asked for.
  askOdds(force) {
    const [r, c] = this.helpCentre();
    const o = this.view.odds;
    if (!force && o && r >= o.row + 8 && r < o.row + o.height - 8 && c >= o.col + 8 && c < o.col + o.width - 8) return;
    // The server answers 5 help requests a second: fast play asks again once it pauses.
    const now = performance.now();
    if (now - (this.oddsAt || 0) < 400) {
      this.oddsLater = true;
      return;
    }
    this.oddsLater = false;
    this.oddsAt = now;
    this.send(encode.odds(this.seq++, r, c));
  }

  toggleWrong() {
    if (!this.welcome || this.welcome.spectator || this.status !== 0) return;
    this.showWrong = !this.showWrong;
    if (this.showWrong) this.askWrong();
    else {
      this.view.wrong = [];
      this.say("Wrong flags hidden.");
    }
    this.updateButtons();
    this.dirty = true;
  }

  askWrong() {
    const now = performance.now();
    if (now - (this.wrongAt || 0) < 400) {
      this.wrongLater = true;
      return;
    }
    this.wrongLater = false;
    this.wrongAt = now;
    const [r, c] = this.helpCentre();
    this.send(encode.wrongFlags(this.seq++, r, c));
  }

  updateButtons() {
    $("marks").setAttribute("aria-pressed", String(this.questionMarks));
    $("odds").setAttribute("aria-pressed", String(this.oddsMode > 0));
    $("wrong").setAttribute("aria-pressed", String(this.showWrong));
  }

  sendCursor(cell) {
    if (!cell || !this.welcome || this.welcome.spectator || this.welcome.mode !== "coop") return;
    const now = performance.now();
    if (this.cursorCell && this.cursorCell[0] === cell[0] && this.cursorCell[1] === cell[1]) return;
    if (now - this.lastCursorSent < 100) return;
    this.lastCursorSent = now;
    this.cursorCell = cell;
    this.send(encode.cursor(cell[0], cell[1]));
  }

  // --- input ---

  // The cell under canvas point (x, y) that a move may name: none while the view is drawn
  // from summaries, whose cells are too small to aim at.
  pick(x, y) {
    return this.view.summaryMode() ? null : this.view.cellAt(x, y);
  }

  bindInput() {
    const canvas = $("board");
    const on = (target, type, fn, opts) => {
      target.addEventListener(type, fn, opts);
      (this.unbinders ||= []).push(() => target.removeEventListener(type, fn, opts));
    };
    const local = (e) => {
      const r = canvas.getBoundingClientRect();
      return [e.clientX - r.left, e.clientY - r.top];
    };
    on(canvas, "contextmenu", (e) => e.preventDefault());
    on(canvas, "pointerdown", (e) => {
      // No middle-button autoscroll: the middle button chords.
      if (e.button === 1) e.preventDefault();
      canvas.focus();
      canvas.setPointerCapture(e.pointerId);
      const [x, y] = local(e);
      const p = { x, y, sx: x, sy: y, button: e.button, buttons: e.buttons, type: e.pointerType, drag: false, done: false };
      this.pointers.set(e.pointerId, p);
      if (this.pointers.size === 2) {
        const [a, b] = [...this.pointers.values()];
        this.pinch = { d: Math.hypot(a.x - b.x, a.y - b.y), cell: this.view.cell };
        for (const q of this.pointers.values()) q.done = true;
      }
      if (e.pointerType === "touch") {
        p.timer = setTimeout(() => {
          if (!p.drag && !p.done) {
            p.done = true;
            const cell = this.pick(p.sx, p.sy);
            if (cell) this.flag(...cell);
            if (navigator.vibrate) navigator.vibrate(30);
          }
        }, 450);
      } else if (e.button === 2 && !(e.buttons & 1)) {
        p.done = true;
        const cell = this.pick(x, y);
        if (cell) this.flag(...cell);
      }
      // Both buttons at once: a chord when they are let go.
      if ((e.buttons & 3) === 3) {
        this.bothButtons = true;
        for (const q of this.pointers.values()) q.done = true;
      }
    });
    on(canvas, "pointermove", (e) => {
      const [x, y] = local(e);
      const p = this.pointers.get(e.pointerId);
      if (e.pointerType === "mouse" && !p) {
        const cell = this.pick(x, y);
        this.sendCursor(cell);
      }
      if (!p) return;
      if ((e.buttons & 3) === 3) this.bothButtons = true;
      if (this.pinch && this.pointers.size === 2) {
        p.x = x;
        p.y = y;
        const [a, b] = [...this.pointers.values()];
        const d = Math.hypot(a.x - b.x, a.y - b.y);
        this.view.zoomTo((this.pinch.cell * d) / Math.max(1, this.pinch.d), (a.x + b.x) / 2, (a.y + b.y) / 2);
        this.moved();
        return;
      }
      const dx = x - p.x;
      const dy = y - p.y;
      if (!p.drag && Math.hypot(x - p.sx, y - p.sy) > 6 && !this.bothButtons) p.drag = true;
      if (p.drag) {
        this.view.scrollBy(-dx, -dy);
        this.moved();
      }
      p.x = x;
      p.y = y;
    });
    const up = (e) => {
      const p = this.pointers.get(e.pointerId);
      if (!p) return;
      clearTimeout(p.timer);
      this.pointers.delete(e.pointerId);
      if (this.pointers.size < 2) this.pinch = null;
      if (e.type === "pointercancel") return;
      if (this.view.summaryMode()) {
        // Cells too small to aim at: a click zooms in on the point, to cells.
        if (!p.drag && !p.done && !this.bothButtons) {
          this.view.zoomTo(this.view.minCell(), p.sx, p.sy);
          this.moved();
        }
        if ((e.buttons & 3) === 0) this.bothButtons = false;
        return;
      }
      const cell = this.view.cellAt(p.sx, p.sy);
      if (this.bothButtons) {
        if ((e.buttons & 3) === 0) {
          this.bothButtons = false;
          if (cell) this.act("chord", ...cell);
        }
        return;
      }
      if (p.drag || p.done || !cell) return;
      this.view.cursor = cell;
      if (p.button === 0) this.primary(...cell);
      else if (p.button === 1) this.act("chord", ...cell);
      this.dirty = true;
    };
    on(canvas, "pointerup", up);
    on(canvas, "pointercancel", up);
    on(canvas, "auxclick", (e) => e.preventDefault());
    on(
      canvas,
      "wheel",
      (e) => {
        e.preventDefault();
        const unit = e.deltaMode === 1 ? this.view.cell : e.deltaMode === 2 ? this.view.height : 1;
        if (e.ctrlKey) {
          const [x, y] = local(e);
          this.view.zoomTo(this.view.cell * Math.exp((-e.deltaY * unit) / 300), x, y);
        } else if (e.shiftKey && !e.deltaX) {
          this.view.scrollBy(e.deltaY * unit, 0);
        } else {
          this.view.scrollBy(e.deltaX * unit, e.deltaY * unit);
        }
        this.moved();
      },
      { passive: false },
    );
    on(window, "resize", () => this.layout());
    on(document, "keydown", (e) => this.key(e));
    const mini = $("minimap");
    const jump = (e) => {
      if (!this.store) return;
      const r = mini.getBoundingClientRect();
      const scale = Math.min(mini.width / this.store.cols, mini.height / this.store.rows);
      this.view.centreOn((e.clientY - r.top) / scale, (e.clientX - r.left) / scale);
      this.moved();
    };
    on(mini, "pointerdown", (e) => {
      mini.setPointerCapture(e.pointerId);
      jump(e);
    });
    on(mini, "pointermove", (e) => e.buttons && jump(e));
    // The phone's menu: the toolbar's buttons, folded; a choice or a tap elsewhere closes it.
    const menu = $("menu");
    const tools = $("tools");
    const fold = (open) => {
      tools.classList.toggle("open", open);
      menu.setAttribute("aria-expanded", String(open));
    };
    on(menu, "click", () => fold(!tools.classList.contains("open")));
    on(tools, "click", (e) => e.target instanceof HTMLButtonElement && fold(false));
    on(document, "pointerdown", (e) => !menu.contains(e.target) && !tools.contains(e.target) && fold(false));
    on($("hint"), "click", () => this.askHint());
    on($("marks"), "click", () => this.toggleQuestionMarks());
    on($("end-rematch"), "click", () => this.rematch());
    on($("start-ready"), "click", () => this.ready());
    on($("odds"), "click", () => this.cycleOdds());
    on($("wrong"), "click", () => this.toggleWrong());
    on($("keys-button"), "click", () => $("keys").showModal());
    on($("copy-link"), "click", () => {
      const link = `${location.origin}/#room=${encodeURIComponent(this.name)}&${this.roomQuery}`;
      navigator.clipboard?.writeText(link).then(
        () => this.say(`Link copied: ${link}`),
        () => this.say(`The room's link: ${link}`),
      );
      if (!navigator.clipboard) this.say(`The room's link: ${link}`);
    });
  }

  unbindInput() {
    for (const f of this.unbinders || []) f();
    this.unbinders = [];
  }

  key(e) {
    if (!this.store || document.querySelector("dialog[open]")) return;
    if (e.target instanceof HTMLInputElement || e.altKey || e.metaKey) return;
    if (e.ctrlKey) return;
    const v = this.view;
    const cur = v.cursor || v.cellAt(v.width / 2, v.height / 2) || [0, 0];
    const pageRows = Math.max(1, Math.floor(v.height / v.cell) - 1);
    const pageCols = Math.max(1, Math.floor(v.width / v.cell) - 1);
    const move = (dr, dc) => {
      const r = Math.min(this.store.rows - 1, Math.max(0, cur[0] + dr));
      const c = Math.min(this.store.cols - 1, Math.max(0, cur[1] + dc));
      v.cursor = [r, c];
      v.reveal(r, c);
      this.sendCursor(v.cursor);
      this.moved();
    };
    const shift = e.shiftKey;
    switch (e.key) {
      case "ArrowUp":
        move(shift ? -pageRows : -1, 0);
        break;
      case "ArrowDown":
        move(shift ? pageRows : 1, 0);
        break;
      case "ArrowLeft":
        move(0, shift ? -pageCols : -1);
        break;
      case "ArrowRight":
        move(0, shift ? pageCols : 1);
        break;
      case "PageUp":
        move(-pageRows, 0);
        break;
      case "PageDown":
        move(pageRows, 0);
        break;
      case "Home":
        move(0, -cur[1]);
        break;
      case "End":
        move(0, this.store.cols - 1 - cur[1]);
        break;
      case "g":
        move(-cur[0], -cur[1]);
        break;
      case "G":
        move(this.store.rows - 1 - cur[0], this.store.cols - 1 - cur[1]);
        break;
      case "c":
        v.cursor = cur;
        v.centreOn(...cur);
        this.moved();
        break;
      case " ":
      case "Enter":
        v.cursor = cur;
        this.primary(...cur);
        break;
      case "f":
        v.cursor = cur;
        this.flag(...cur);
        break;
      case "h":
        this.askHint();
        break;
      case "p":
        this.cycleOdds();
        break;
      case "w":
        this.toggleWrong();
        break;
      case "+":
      case "=":
        v.zoomTo(v.cell * 1.25);
        this.moved();
        break;
      case "-":
        v.zoomTo(v.cell / 1.25);
        this.moved();
        break;
      case "?":
        $("keys").showModal();
        break;
      case "Escape":
        v.hint = null;
        this.say("");
        this.dirty = true;
        break;
      default:
        return;
    }
    e.preventDefault();
  }

  // Scrolls across the board for `frames` frames and times the drawing of each (the test's
  // frame-time figure): resolves to {draw: [ms], interval: [ms]}.
  measureScroll(frames, dx, dy) {
    return new Promise((resolve) => {
      const draw = [];
      const interval = [];
      let last = null;
      let n = 0;
      this.frameTimes = draw;
      const step = (t) => {
        if (last !== null) interval.push(t - last);
        last = t;
        if (n++ >= frames) {
          this.frameTimes = null;
          resolve({ draw, interval });
          return;
        }
        this.view.scrollBy(dx, dy);
        this.moved();
        requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    });
  }
}

let game = null;

function route() {
  const hash = new URLSearchParams(location.hash.slice(1));
  const room = hash.get("room");
  if (game && (!room || room !== game.name || (hash.get("spectate") === "1") !== game.spectate)) {
    game.leave();
    game = null;
  }
  for (const d of document.querySelectorAll("dialog[open]")) d.close();
  if (!room) {
    $("game").hidden = true;
    $("room-title").textContent = "";
    $("connection").hidden = true;
    document.title = "bitmines";
    showLobby((text) => (text ? showMessage(text, "lobby") : clearMessage("lobby")));
    return;
  }
  hideLobby();
  clearMessage("lobby");
  $("game").hidden = false;
  document.title = `bitmines · ${room}`;
  if (!game) {
    // Nothing of the room before stays: a room that refuses this page shows no other's.
    $("events").replaceChildren();
    $("players").replaceChildren();
    $("say").textContent = "";
    $("room-title").textContent = room;
    for (const id of ["mines-left", "clock", "progress-text"]) $(id).textContent = "";
    $("minimap").hidden = true;
    game = new Game(room, hash);
  }
}

applyTheme(currentTheme());
window.addEventListener("hashchange", route);
route();

// A read-only window on the page for the browser tests: the cells as the page holds them,
// where a cell is on screen, and what the page measured. Nothing here can make a move.
window.bitmines = {
  state: () => game?.state ?? "lobby",
  welcome: () => game?.welcome ?? null,
  status: () => game?.status ?? null,
  pending: () => game?.pending.size ?? 0,
  over: () => game?.over ?? null,
  game: () => game?.game ?? null,
  // The game clock as the page keeps it: { ms, running, view, at }.
  clock: () => game?.clock ?? null,
  players: () => game?.players ?? [],
  hint: () => game?.view.hint ?? null,
  odds: () => game?.view.odds ?? null,
  wrongFlags: () => game?.view.wrong ?? [],
  others: () => [...(game?.view.others.values() ?? [])],
  firstPaint: () => game?.firstPaint ?? null,
  // The last share done (in percent) a progress frame gave while a board was made.
  making: () => game?.making ?? null,
  // When the last delta frame came, in milliseconds since 1970.
  deltaAt: () => game?.deltaAt ?? null,
  // The view's scroll offset and cell size: [x, y, cell].
  offset: () => (game ? [game.view.x, game.view.y, game.view.cell] : null),
  problems: () => problems.slice(),
  messages: () => [...document.querySelectorAll("#messages .msg")].map((m) => m.firstChild.textContent),
  // The next move's seq: how many frames with a seq this page has sent, plus one.
  seq: () => game?.seq ?? null,
  // The cells this page marks with a question mark: ["row,col"].
  marks: () => [...(game?.marks ?? [])],
  // Cell (row, col) as the page holds it (255 for a chunk not received).
  cell: (row, col) => game?.store?.get(row, col) ?? null,
  // Every cell of the board row by row (255 for a chunk not received): for small boards.
  cells: () => (game?.store ? game.store.cells().map((row) => Array.from(row)) : null),
  // Whether every chunk in view has arrived.
  ready: () => Boolean(game?.store && game.live && game.allVisibleHere()),
  // The centre of cell (row, col) in the page's CSS pixels, scrolling it into view first.
  cellPoint(row, col) {
    if (!game?.store) return null;
    game.view.reveal(row, col);
    game.moved();
    game.render();
    const r = $("board").getBoundingClientRect();
    const s = game.view.cell;
    return [r.left + col * s - game.view.x + s / 2, r.top + row * s - game.view.y + s / 2];
  },
  measureScroll: (frames, dx, dy) => game.measureScroll(frames, dx, dy),
  // Whether the view is drawn from chunk summaries, and the summaries held (null or four
  // numbers a chunk, row by row over the whole board).
  summaryMode: () => Boolean(game?.view.summaryMode()),
  summaries: () => (game?.store?.summaries ? Array.from(game.store.summaries) : null),
  // The centre of chunk (row, col) in device pixels of the board's canvas and of the
  // minimap's (as getImageData reads them).
  chunkPixel(cr, cc) {
    if (!game?.store) return null;
    const v = game.view;
    const cx = Math.min(game.store.cols, cc * CHUNK + CHUNK / 2);
    const cy = Math.min(game.store.rows, cr * CHUNK + CHUNK / 2);
    const mini = $("minimap");
    const scale = Math.min(mini.width / game.store.cols, mini.height / game.store.rows);
    return {
      board: [Math.floor((cx * v.cell - v.x) * v.dpr), Math.floor((cy * v.cell - v.y) * v.dpr)],
      minimap: [Math.floor(cx * scale), Math.floor(cy * scale)],
    };
  },
  unknown: UNKNOWN,
  chunk: CHUNK,
};
