// The bitmines protocol, version 1 (crates/server/PROTOCOL.md), for the browser: client
// frames encoded into ArrayBuffers, server frames decoded from them with a DataView. Every
// integer is little-endian.

export const CHUNK = 64;
export const NOBODY = 0xffffffff;
// No time: a race whose racers are not all ready, a series with no win yet.
export const NO_TIME = 0xffffffff;

// Cell states as chunk and delta frames carry them.
export const HIDDEN = 9;
export const FLAGGED = 10;
export const EXPLODED = 11;
export const MINE = 12;
export const WRONG_FLAG = 13;

export const ERROR_NAMES = {
  1: "bad frame",
  2: "off the board",
  3: "not allowed",
  4: "rate limited",
  5: "game over",
  6: "too many chunks",
  7: "room mismatch",
  8: "limit",
  9: "bad token",
  10: "bad parameter",
  11: "shutting down",
  12: "busy",
  13: "storage",
  14: "no such player",
  16: "not over",
  17: "not started",
};

// The most chunks one summaries request may cover (a 10^8-cell board is 157x157 chunks).
export const MAX_SUMMARY_CHUNKS = 32768;

export const EVENT = { MINE_HIT: 1, JOINED: 2, LEFT: 3, WON: 4, LOST: 5 };

function cellFrame(type, seq, row, col) {
  const b = new ArrayBuffer(13);
  const v = new DataView(b);
  v.setUint8(0, type);
  v.setUint32(1, seq, true);
  v.setUint32(5, row, true);
  v.setUint32(9, col, true);
  return b;
}

function rectFrame(type, rect) {
  const b = new ArrayBuffer(13);
  const v = new DataView(b);
  v.setUint8(0, type);
  v.setUint32(1, rect.row, true);
  v.setUint32(5, rect.col, true);
  v.setUint16(9, rect.rows, true);
  v.setUint16(11, rect.cols, true);
  return b;
}

export const encode = {
  subscribe: (rect) => rectFrame(0x01, rect),
  unsubscribe: (rect) => rectFrame(0x02, rect),
  summaries: (rect) => rectFrame(0x0d, rect),
  reveal: (seq, row, col) => cellFrame(0x03, seq, row, col),
  flag: (seq, row, col) => cellFrame(0x04, seq, row, col),
  chord: (seq, row, col) => cellFrame(0x05, seq, row, col),
  hint: (seq, row, col) => cellFrame(0x06, seq, row, col),
  odds: (seq, row, col) => cellFrame(0x07, seq, row, col),
  cursor(row, col) {
    const b = new ArrayBuffer(9);
    const v = new DataView(b);
    v.setUint8(0, 0x08);
    v.setUint32(1, row, true);
    v.setUint32(5, col, true);
    return b;
  },
  watch(player) {
    const b = new ArrayBuffer(5);
    const v = new DataView(b);
    v.setUint8(0, 0x09);
    v.setUint32(1, player, true);
    return b;
  },
  ping(nonce) {
    const b = new ArrayBuffer(9);
    const v = new DataView(b);
    v.setUint8(0, 0x0a);
    v.setBigUint64(1, BigInt(nonce), true);
    return b;
  },
  wrongFlags: (seq, row, col) => cellFrame(0x0b, seq, row, col),
  rematch: (seq) => seqFrame(0x0c, seq),
  ready: (seq) => seqFrame(0x0e, seq),
};

// A frame of its type and a seq alone.
function seqFrame(type, seq) {
  const b = new ArrayBuffer(5);
  const v = new DataView(b);
  v.setUint8(0, type);
  v.setUint32(1, seq, true);
  return b;
}

const utf8 = new TextDecoder();

// Reads fields in order; a read past the end throws, so a short frame is an error.
class Reader {
  constructor(buffer) {
    this.v = new DataView(buffer);
    this.at = 1;
  }
  u8() {
    return this.v.getUint8(this.at++);
  }
  u16() {
    const x = this.v.getUint16(this.at, true);
    this.at += 2;
    return x;
  }
  u32() {
    const x = this.v.getUint32(this.at, true);
    this.at += 4;
    return x;
  }
  u64() {
    const x = this.v.getBigUint64(this.at, true);
    this.at += 8;
    return Number(x);
  }
  bytes(n) {
    if (this.at + n > this.v.byteLength) throw new RangeError("frame too short");
    const out = new Uint8Array(this.v.buffer, this.at, n);
    this.at += n;
    return out;
  }
  rest() {
    return this.bytes(this.v.byteLength - this.at);
  }
  text(n) {
    return utf8.decode(this.bytes(n));
  }
}

// The cells of a chunk frame's payload, row by row (height x width of them).
function chunkCells(r, encoding, count) {
  const cells = new Uint8Array(count);
  if (encoding === 0) {
    cells.fill(HIDDEN);
  } else if (encoding === 1) {
    const bytes = r.bytes(Math.ceil(count / 2));
    for (let i = 0; i < count; i++) {
      const b = bytes[i >> 1];
      cells[i] = i & 1 ? b >> 4 : b & 15;
    }
  } else if (encoding === 2) {
    let i = 0;
    const end = r.v.byteLength;
    while (r.at < end) {
      const state = r.u8();
      const len = r.u16();
      if (len === 0 || i + len > count) throw new RangeError(`a run of ${len} past the chunk`);
      cells.fill(state, i, i + len);
      i += len;
    }
    if (i !== count) throw new RangeError(`runs cover ${i} of ${count} cells`);
  } else {
    throw new RangeError(`chunk encoding ${encoding}`);
  }
  return cells;
}

// Decodes one server frame into a plain object with a `type` name.
export function decode(buffer) {
  const r = new Reader(buffer);
  const kind = new DataView(buffer).getUint8(0);
  switch (kind) {
    case 0x81: {
      const m = { type: "welcome", version: r.u8(), spectator: r.u8() !== 0, player: r.u32() };
      m.token = Array.from(r.bytes(16), (b) => b.toString(16).padStart(2, "0")).join("");
      m.rows = r.u32();
      m.cols = r.u32();
      m.mines = r.u64();
      m.mode = r.u8() === 0 ? "race" : "coop";
      m.rule = r.u8() === 0 ? "classic" : "endless";
      m.noguess = r.u8() !== 0;
      // Both 0xffffffff: the board is made around the first cell a player reveals.
      const first = [r.u32(), r.u32()];
      m.first = first[0] === 0xffffffff && first[1] === 0xffffffff ? null : first;
      m.maxChunks = r.u32();
      m.view = r.u32();
      m.elapsedMs = r.u32();
      m.clockRunning = r.u8() !== 0;
      m.game = r.u32();
      return m;
    }
    case 0x82:
      return {
        type: "ack",
        seq: r.u32(),
        opened: r.u32(),
        exploded: r.u32(),
        status: r.u8(),
        flagged: r.u8() !== 0,
      };
    case 0x83: {
      const seq = r.u32();
      const code = r.u16();
      return { type: "error", seq, code, message: utf8.decode(r.rest()) };
    }
    case 0x84: {
      const m = { type: "chunk", view: r.u32(), chunkRow: r.u32(), chunkCol: r.u32() };
      m.height = r.u8();
      m.width = r.u8();
      m.cells = chunkCells(r, r.u8(), m.height * m.width);
      return m;
    }
    case 0x85: {
      const m = { type: "delta", view: r.u32(), chunkRow: r.u32(), chunkCol: r.u32() };
      const n = r.u16();
      m.cells = new Array(n);
      for (let i = 0; i < n; i++) m.cells[i] = [r.u16(), r.u8()];
      return m;
    }
    case 0x86: {
      const n = r.u16();
      const players = [];
      for (let i = 0; i < n; i++) {
        const p = { id: r.u32(), online: r.u8() !== 0, status: r.u8() };
        p.revealed = r.u64();
        p.minesHit = r.u32();
        p.flags = r.u32();
        p.elapsedMs = r.u32();
        p.name = r.text(r.u8());
        players.push(p);
      }
      return { type: "players", players };
    }
    case 0x87: {
      const n = r.u16();
      const cursors = [];
      for (let i = 0; i < n; i++) cursors.push({ player: r.u32(), row: r.u32(), col: r.u32() });
      return { type: "cursors", cursors };
    }
    case 0x88: {
      const m = { type: "over", view: r.u32(), status: r.u8(), elapsedMs: r.u32() };
      m.bbbv = r.u32();
      m.clicks = r.u32();
      const n = r.u16();
      m.correctFlags = [];
      for (let i = 0; i < n; i++) m.correctFlags.push({ player: r.u32(), correct: r.u32() });
      return m;
    }
    case 0x89: {
      const seq = r.u32();
      if (r.u8() === 0) return { type: "hint", seq, found: null };
      const row = r.u32();
      const col = r.u32();
      return { type: "hint", seq, found: { row, col, reason: utf8.decode(r.rest()) } };
    }
    case 0x8a: {
      const m = { type: "odds", seq: r.u32(), row: r.u32(), col: r.u32() };
      m.height = r.u16();
      m.width = r.u16();
      m.cells = r.bytes(m.height * m.width).slice();
      return m;
    }
    case 0x8b: {
      const seq = r.u32();
      const n = r.u16();
      const cells = [];
      for (let i = 0; i < n; i++) cells.push([r.u32(), r.u32()]);
      return { type: "wrongFlags", seq, cells };
    }
    case 0x8c:
      return { type: "pong", nonce: r.u64() };
    case 0x8d:
      return { type: "event", kind: r.u8(), player: r.u32(), row: r.u32(), col: r.u32() };
    case 0x8e:
      return { type: "clock", view: r.u32(), elapsedMs: r.u32(), running: r.u8() !== 0 };
    case 0x8f:
      // The share of the board made, in ten-thousandths.
      return { type: "progress", share: r.u16() };
    case 0x90:
      return { type: "newGame", game: r.u32() };
    case 0x91: {
      // A race room's series: wins and best winning time (0xffffffff: none yet) a player.
      const n = r.u16();
      const series = [];
      for (let i = 0; i < n; i++) series.push({ player: r.u32(), wins: r.u32(), bestMs: r.u32() });
      return { type: "series", series };
    }
    case 0x92:
      // A co-op room's view: the cells open in it, the first click's opening included.
      return { type: "team", opened: r.u64() };
    case 0x94:
      // A race with a countdown: racers ready of those online, and the milliseconds to the
      // start (0 once started, 0xffffffff while not every racer is ready).
      return { type: "start", ready: r.u32(), racers: r.u32(), startsInMs: r.u32() };
    case 0x93: {
      // What the view shows of each chunk of a rectangle, row by row, four bytes a chunk:
      // share opened (255ths, rounded up), mines set off, flags, co-op players' cursors.
      const m = { type: "summaries", view: r.u32(), chunkRow: r.u32(), chunkCol: r.u32() };
      m.rows = r.u16();
      m.cols = r.u16();
      m.chunks = r.bytes(m.rows * m.cols * 4).slice();
      if (r.at !== r.v.byteLength) throw new RangeError("summaries frame too long");
      return m;
    }
    default:
      throw new RangeError(`unknown message type 0x${kind.toString(16)}`);
  }
}
