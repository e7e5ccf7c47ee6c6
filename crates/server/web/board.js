// The board as this page knows it (the chunks it watches) and its drawing on a canvas.
//
// Only the cells in view are drawn, each as one drawImage from an atlas of the fourteen cell
// pictures rendered once per zoom level, so a frame costs the same on a 9x9 board and on a
// 10000x10000 one.

import { CHUNK, HIDDEN, FLAGGED, EXPLODED, MINE, WRONG_FLAG } from "./protocol.js";

// The classic number colours, and brighter twins that read on a dark background.
// The digits' colours, each at 4.5:1 or more against an open cell (`THEMES[t].open`): the
// classic hues, darkened where the classic ones fall short on light grey (2, 3, 6, 8).
export const NUMBERS = {
  light: ["", "#0000ff", "#006400", "#c00000", "#00007b", "#7b0000", "#006060", "#000000", "#555555"],
  dark: ["", "#7aa7ff", "#5fd35f", "#ff6b6b", "#b59cff", "#ff9f70", "#4fd6d6", "#e8e8e8", "#a8a8a8"],
};
export const THEMES = {
  light: { open: "#d9d9d9", line: "#b0b0b0", hidden: "#bdbdbd", hi: "#f4f4f4", lo: "#7b7b7b", unknown: "#c8c8c8", mine: "#000", text: "#000" },
  dark: { open: "#2a2d33", line: "#3a3e46", hidden: "#4a505b", hi: "#666d7a", lo: "#2a2e35", unknown: "#3a3f48", mine: "#e8e8e8", text: "#e8e8e8" },
};
// A chunk drawn from its summary (a board too large for cells): the unplayed sea, a chunk
// all open, a mine set off, a flag, a player's cursor; the sea and "all open" echo the
// hidden and open cells, further apart so a small opening shows.
export const SUMMARY_COLOURS = {
  light: { sea: [150, 155, 165], open: [250, 250, 250], hit: [220, 20, 20], flag: [235, 140, 0], player: "#1f4fff" },
  dark: { sea: [74, 80, 91], open: [20, 22, 26], hit: [255, 70, 70], flag: [255, 170, 40], player: "#42d4f4" },
};
// The most played chunks drawn larger than their size on a minimap (past that many, the
// play shows without it).
const MARKED = 2000;
export const PLAYER_COLOURS = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#9a6324"];
export const UNKNOWN = 255;

// What the page holds of one view: the chunks it watches, 64x64 cells each (stride 64).
export class Store {
  constructor(rows, cols) {
    this.rows = rows;
    this.cols = cols;
    this.chunkRows = Math.ceil(rows / CHUNK);
    this.chunkCols = Math.ceil(cols / CHUNK);
    this.chunks = new Map();
    this.version = 0;
    // The chunks' summaries, four bytes a chunk (see the summaries frame), and which chunks
    // have had one; null until the first arrives.
    this.summaries = null;
    this.summarized = null;
    this.summaryVersion = 0;
  }
  // Keeps a summaries frame's chunks.
  setSummaries(msg) {
    if (!this.summaries) {
      this.summaries = new Uint8Array(this.chunkRows * this.chunkCols * 4);
      this.summarized = new Uint8Array(this.chunkRows * this.chunkCols);
    }
    for (let r = 0; r < msg.rows; r++) {
      const cr = msg.chunkRow + r;
      if (cr >= this.chunkRows) break;
      const cols = Math.min(msg.cols, this.chunkCols - msg.chunkCol);
      if (cols <= 0) break;
      const at = this.key(cr, msg.chunkCol);
      this.summaries.set(msg.chunks.subarray(r * msg.cols * 4, (r * msg.cols + cols) * 4), at * 4);
      this.summarized.fill(1, at, at + cols);
    }
    this.summaryVersion++;
  }
  key(cr, cc) {
    return cr * this.chunkCols + cc;
  }
  chunk(cr, cc) {
    return this.chunks.get(this.key(cr, cc));
  }
  get(row, col) {
    const c = this.chunks.get(this.key(Math.floor(row / CHUNK), Math.floor(col / CHUNK)));
    return c ? c.cells[(row % CHUNK) * CHUNK + (col % CHUNK)] : UNKNOWN;
  }
  setChunk(msg) {
    const cells = new Uint8Array(CHUNK * CHUNK).fill(HIDDEN);
    for (let r = 0; r < msg.height; r++) {
      cells.set(msg.cells.subarray(r * msg.width, (r + 1) * msg.width), r * CHUNK);
    }
    const chunk = { cells, height: msg.height, width: msg.width, open: 0 };
    count(chunk);
    this.chunks.set(this.key(msg.chunkRow, msg.chunkCol), chunk);
    this.version++;
  }
  applyDelta(msg) {
    const chunk = this.chunk(msg.chunkRow, msg.chunkCol);
    if (!chunk) return false;
    for (const [offset, state] of msg.cells) chunk.cells[offset] = state;
    count(chunk);
    this.version++;
    return true;
  }
  drop(cr, cc) {
    this.chunks.delete(this.key(cr, cc));
    this.version++;
  }
  clear() {
    this.chunks.clear();
    this.summaries = null;
    this.summarized = null;
    this.summaryVersion++;
    this.version++;
  }
  // Every cell as a string row by row ('#' unknown): the test hook's picture.
  cells() {
    const out = [];
    for (let r = 0; r < this.rows; r++) {
      const row = new Array(this.cols);
      for (let c = 0; c < this.cols; c++) row[c] = this.get(r, c);
      out.push(row);
    }
    return out;
  }
}

function count(chunk) {
  let open = 0;
  for (let r = 0; r < chunk.height; r++) {
    for (let c = 0; c < chunk.width; c++) if (chunk.cells[r * CHUNK + c] <= 8) open++;
  }
  chunk.open = open;
}

function drawFlag(g, x, y, s, colour) {
  g.fillStyle = colour;
  g.beginPath();
  g.moveTo(x + s * 0.6, y + s * 0.14);
  g.lineTo(x + s * 0.6, y + s * 0.54);
  g.lineTo(x + s * 0.16, y + s * 0.34);
  g.closePath();
  g.fill();
  g.fillStyle = "#000";
  g.fillRect(x + s * 0.56, y + s * 0.14, Math.max(1, s * 0.08), s * 0.6);
  g.fillRect(x + s * 0.42, y + s * 0.68, s * 0.36, Math.max(1, s * 0.07));
  g.fillRect(x + s * 0.28, y + s * 0.75, s * 0.64, Math.max(1, s * 0.09));
}

function drawMine(g, x, y, s, colour) {
  const cx = x + s / 2;
  const cy = y + s / 2;
  g.strokeStyle = colour;
  g.lineWidth = Math.max(1, s * 0.07);
  g.beginPath();
  for (let i = 0; i < 4; i++) {
    const a = (i * Math.PI) / 4;
    g.moveTo(cx - Math.cos(a) * s * 0.34, cy - Math.sin(a) * s * 0.34);
    g.lineTo(cx + Math.cos(a) * s * 0.34, cy + Math.sin(a) * s * 0.34);
  }
  g.stroke();
  g.fillStyle = colour;
  g.beginPath();
  g.arc(cx, cy, s * 0.24, 0, Math.PI * 2);
  g.fill();
  g.fillStyle = "#fff";
  g.fillRect(cx - s * 0.11, cy - s * 0.11, Math.max(1, s * 0.07), Math.max(1, s * 0.07));
}

// The fifteen pictures (states 0 to 13 and "not received") at `size` device pixels.
function makeAtlas(size, themeName) {
  const t = THEMES[themeName];
  const numbers = NUMBERS[themeName];
  const atlas = document.createElement("canvas");
  atlas.width = size * 15;
  atlas.height = size;
  const g = atlas.getContext("2d");
  const raised = (x) => {
    g.fillStyle = t.hidden;
    g.fillRect(x, 0, size, size);
    if (size >= 8) {
      const b = Math.max(1, Math.round(size / 12));
      g.fillStyle = t.hi;
      g.fillRect(x, 0, size, b);
      g.fillRect(x, 0, b, size);
      g.fillStyle = t.lo;
      g.fillRect(x, size - b, size, b);
      g.fillRect(x + size - b, 0, b, size);
    }
  };
  const open = (x, fill) => {
    g.fillStyle = fill || t.open;
    g.fillRect(x, 0, size, size);
    g.fillStyle = t.line;
    g.fillRect(x, 0, size, 1);
    g.fillRect(x, 0, 1, size);
  };
  g.textAlign = "center";
  g.textBaseline = "middle";
  g.font = `bold ${Math.round(size * 0.68)}px "DejaVu Sans", "Liberation Sans", Arial, sans-serif`;
  for (let n = 0; n <= 8; n++) {
    const x = n * size;
    open(x);
    if (n > 0) {
      if (size >= 7) {
        g.fillStyle = numbers[n];
        g.fillText(String(n), x + size / 2, size / 2 + size * 0.04);
      } else {
        g.fillStyle = numbers[n];
        g.globalAlpha = 0.6;
        g.fillRect(x + 1, 1, size - 2, size - 2);
        g.globalAlpha = 1;
      }
    }
  }
  raised(HIDDEN * size);
  raised(FLAGGED * size);
  drawFlag(g, FLAGGED * size, 0, size, "#e00000");
  open(EXPLODED * size, "#ff3030");
  drawMine(g, EXPLODED * size, 0, size, "#000");
  open(MINE * size);
  drawMine(g, MINE * size, 0, size, t.mine);
  raised(WRONG_FLAG * size);
  drawFlag(g, WRONG_FLAG * size, 0, size, "#e00000");
  g.strokeStyle = "#000";
  g.lineWidth = Math.max(1.5, size * 0.1);
  g.beginPath();
  g.moveTo(WRONG_FLAG * size + size * 0.2, size * 0.2);
  g.lineTo(WRONG_FLAG * size + size * 0.8, size * 0.8);
  g.moveTo(WRONG_FLAG * size + size * 0.8, size * 0.2);
  g.lineTo(WRONG_FLAG * size + size * 0.2, size * 0.8);
  g.stroke();
  // Not received yet: a flat hidden cell.
  g.fillStyle = t.unknown;
  g.fillRect(14 * size, 0, size, size);
  return atlas;
}

// The colour of a mine chance in half percents (0 green, 200 red), with some transparency; the
// square root spreads the common chances (10% to 30%) over yellow rather than green.
// The odds overlay's colour for a cell of mine chance p/200 over a hidden cell of `theme`:
// green (safe) through red (a mine), 55% over the cell, as [r, g, b] from 0 to 255.
export function oddsRgb(p, theme) {
  const f = Math.sqrt(p / 200);
  const hue = 120 * (1 - f);
  // hsl(hue, 90%, 45%) to rgb.
  const a = 0.9 * Math.min(0.45, 0.55);
  const channel = (n) => {
    const k = (n + hue / 30) % 12;
    return 0.45 - a * Math.max(-1, Math.min(k - 3, 9 - k, 1));
  };
  const under = THEMES[theme].hidden.match(/[0-9a-f]{2}/gi).map((h) => parseInt(h, 16));
  return [channel(0), channel(8), channel(4)].map((c, i) => Math.round(0.55 * c * 255 + 0.45 * under[i]));
}

// A colour's relative luminance (WCAG 2), from [r, g, b] or "#rrggbb".
export function luminance(colour) {
  const rgb = typeof colour === "string" ? colour.match(/[0-9a-f]{2}/gi).map((h) => parseInt(h, 16)) : colour;
  const [r, g, b] = rgb.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

// The contrast ratio of two colours (WCAG 2): 1 to 21.
export function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

// The ink of the odds' digits over `rgb`: black or white, whichever reads better (one of
// them is always at 4.5:1 or more).
export function oddsInk(rgb) {
  return contrast(rgb, "#000000") >= contrast(rgb, "#ffffff") ? "#000000" : "#ffffff";
}

// The colour a share `t` (0 to 1) of the way from [r, g, b] `a` to `b`.
function mix(a, b, t) {
  return [0, 1, 2].map((i) => Math.round(a[i] + (b[i] - a[i]) * t));
}

// A canvas that shows a view of a Store: scroll offset, zoom, overlays.
export class BoardView {
  constructor(canvas, store) {
    this.canvas = canvas;
    this.g = canvas.getContext("2d", { alpha: false });
    this.store = store;
    this.cell = 24;
    this.x = 0; // board pixels scrolled out of view on the left
    this.y = 0;
    this.theme = "light";
    this.atlas = null;
    this.atlasKey = "";
    this.width = 0; // CSS pixels
    this.height = 0;
    this.dpr = 1;
    this.cursor = null; // [row, col] of the keyboard cursor
    this.others = new Map(); // player -> {row, col, name, colour}
    this.odds = null; // {row, col, height, width, cells, digits}
    this.wrong = []; // [[row, col]]
    this.hint = null; // [row, col]
    this.finders = new Map(); // "row,col" -> colour of who set the mine off
    this.won = false; // whether the view shown is a won game
    // The bottom-right corner of the canvas that the minimap covers, {w, h} in CSS pixels,
    // or null: the view scrolls past the board's edge by as much, so no cell stays under it.
    this.corner = null;
    this.marks = null; // Set of "row,col": the question marks, drawn on hidden cells
  }

  resize(width, height, dpr) {
    this.width = width;
    this.height = height;
    this.dpr = dpr;
    this.canvas.width = Math.round(width * dpr);
    this.canvas.height = Math.round(height * dpr);
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${height}px`;
    this.clamp();
  }

  boardWidth() {
    return this.store.cols * this.cell;
  }
  boardHeight() {
    return this.store.rows * this.cell;
  }

  // Keeps the board on screen; a board smaller than the canvas is centred. A board larger
  // than the canvas scrolls past its right and bottom edges by the corner the minimap covers.
  clamp() {
    const bw = this.boardWidth();
    const bh = this.boardHeight();
    const cw = this.corner ? this.corner.w : 0;
    const ch = this.corner ? this.corner.h : 0;
    // A board that fits beside the minimap's corner is centred in the room left of it.
    const room = bw <= this.width - cw ? this.width - cw : this.width;
    this.x = bw <= this.width ? -(room - bw) / 2 : Math.min(Math.max(this.x, 0), bw - this.width + cw);
    this.y = bh <= this.height ? -(this.height - bh) / 2 : Math.min(Math.max(this.y, 0), bh - this.height + ch);
  }

  // Whether cell (row, col) lies, even in part, under the corner the minimap covers.
  underCorner(row, col) {
    if (!this.corner) return false;
    const s = this.cell;
    const right = (col + 1) * s - this.x;
    const bottom = (row + 1) * s - this.y;
    return right > this.width - this.corner.w && bottom > this.height - this.corner.h;
  }

  scrollBy(dx, dy) {
    this.x += dx;
    this.y += dy;
    this.clamp();
  }

  // Sets the cell size, keeping the board point under (px, py) where it is. Cells are whole
  // pixels down to the smallest the server lets the page watch (`minCell`); below it the
  // board is drawn from chunk summaries, in any size down to the whole board on screen.
  zoomTo(cell, px = this.width / 2, py = this.height / 2) {
    const least = this.minCell();
    cell = Math.min(64, cell);
    cell = cell < least ? Math.max(this.minZoom(), cell) : Math.round(cell);
    const bx = (this.x + px) / this.cell;
    const by = (this.y + py) / this.cell;
    this.cell = cell;
    this.x = bx * cell - px;
    this.y = by * cell - py;
    this.clamp();
  }

  // The smallest cells that keep the chunks in view (and a margin) within what the server
  // lets one connection watch.
  minCell(maxChunks = this.maxChunks || 256) {
    for (let cell = 4; cell < 64; cell++) {
      const span = CHUNK * cell;
      const n = (Math.ceil(this.width / span) + 2) * (Math.ceil(this.height / span) + 2);
      if (n <= maxChunks) return cell;
    }
    return 64;
  }

  // The smallest cell size: the whole board on screen, or `minCell` for a board that fits
  // in cells of that size.
  minZoom() {
    const fit = Math.min(this.width / this.store.cols, this.height / this.store.rows);
    return Math.min(this.minCell(), Math.max(fit, 0.001));
  }

  // Whether the board is drawn from chunk summaries: cells smaller than the page may watch.
  summaryMode() {
    return this.cell < this.minCell();
  }

  // The cell under the canvas point (px, py), or null off the board.
  cellAt(px, py) {
    const col = Math.floor((this.x + px) / this.cell);
    const row = Math.floor((this.y + py) / this.cell);
    if (row < 0 || col < 0 || row >= this.store.rows || col >= this.store.cols) return null;
    return [row, col];
  }

  // The range of cells in view: [row0, col0, row1, col1) clipped to the board.
  visibleCells() {
    const s = this.cell;
    const r0 = Math.max(0, Math.floor(this.y / s));
    const c0 = Math.max(0, Math.floor(this.x / s));
    const r1 = Math.min(this.store.rows, Math.ceil((this.y + this.height) / s));
    const c1 = Math.min(this.store.cols, Math.ceil((this.x + this.width) / s));
    return [r0, c0, r1, c1];
  }

  // The chunks in view, with `margin` chunks around: [cr0, cc0, cr1, cc1).
  visibleChunks(margin = 0) {
    const [r0, c0, r1, c1] = this.visibleCells();
    return [
      Math.max(0, Math.floor(r0 / CHUNK) - margin),
      Math.max(0, Math.floor(c0 / CHUNK) - margin),
      Math.min(this.store.chunkRows, Math.ceil(r1 / CHUNK) + margin),
      Math.min(this.store.chunkCols, Math.ceil(c1 / CHUNK) + margin),
    ];
  }

  // Scrolls the least that brings the cell into view.
  reveal(row, col) {
    const s = this.cell;
    const left = col * s;
    const top = row * s;
    if (left < this.x) this.x = left - s;
    if (left + s > this.x + this.width) this.x = left + 2 * s - this.width;
    if (top < this.y) this.y = top - s;
    if (top + s > this.y + this.height) this.y = top + 2 * s - this.height;
    this.clamp();
    if (this.underCorner(row, col)) {
      // Left of the minimap if the board scrolls sideways, else above it.
      if (this.boardWidth() > this.width) this.x = left + 2 * s - (this.width - this.corner.w);
      else this.y = top + 2 * s - (this.height - this.corner.h);
      this.clamp();
    }
  }

  centreOn(row, col) {
    this.x = (col + 0.5) * this.cell - this.width / 2;
    this.y = (row + 0.5) * this.cell - this.height / 2;
    this.clamp();
  }

  // The summaries as a picture of one pixel a chunk (a canvas of chunkCols x chunkRows),
  // made again only when new summaries came; with the chunks that hold a player's cursor.
  summaryImage() {
    const store = this.store;
    if (!store.summaries) return null;
    const key = `${store.summaryVersion}/${this.theme}`;
    if (this.summaryKey === key) return this.summaryPicture;
    const colours = SUMMARY_COLOURS[this.theme];
    const unknown = THEMES[this.theme].unknown.match(/[0-9a-f]{2}/gi).map((h) => parseInt(h, 16));
    const canvas = this.summaryPicture?.canvas ?? document.createElement("canvas");
    canvas.width = store.chunkCols;
    canvas.height = store.chunkRows;
    const g = canvas.getContext("2d");
    const image = g.createImageData(store.chunkCols, store.chunkRows);
    const px = image.data;
    const sums = store.summaries;
    const players = [];
    const touched = [];
    for (let i = 0; i < store.summarized.length; i++) {
      let rgb = unknown;
      if (store.summarized[i]) {
        const [opened, hit, flags, here] = sums.subarray(i * 4, i * 4 + 4);
        // Any opening at all shows: half the way to "all open" at least.
        const share = opened === 0 ? 0 : 0.5 + (0.5 * opened) / 255;
        rgb = mix(colours.sea, colours.open, share);
        if (hit) rgb = mix(rgb, colours.hit, Math.min(1, 0.6 + hit / 20));
        else if (flags) rgb = mix(rgb, colours.flag, Math.min(0.9, 0.5 + flags / 40));
        if (here) players.push([Math.floor(i / store.chunkCols), i % store.chunkCols]);
        if ((opened || hit || flags) && touched.length <= MARKED) touched.push([i, rgb]);
      }
      px.set(rgb, i * 4);
      px[i * 4 + 3] = 255;
    }
    g.putImageData(image, 0, 0);
    this.summaryKey = key;
    this.summaryPicture = { canvas, players, touched: touched.length <= MARKED ? touched : [] };
    return this.summaryPicture;
  }

  // Draws picture `pic` of the summaries onto `g`, the board's top left at (ox, oy) device
  // pixels and `cell` device pixels a cell, clipped to the board; players' chunks ringed.
  paintSummaries(g, pic, ox, oy, cell, ring) {
    const store = this.store;
    const span = CHUNK * cell;
    g.save();
    g.beginPath();
    g.rect(ox, oy, store.cols * cell, store.rows * cell);
    g.clip();
    g.imageSmoothingEnabled = false;
    g.drawImage(pic.canvas, ox, oy, store.chunkCols * span, store.chunkRows * span);
    // Chunks smaller than three pixels: the few played ones drawn three pixels a side, so
    // that a little play shows on a large board.
    if (span < 3) {
      for (const [i, rgb] of pic.touched) {
        const [cr, cc] = [Math.floor(i / store.chunkCols), i % store.chunkCols];
        g.fillStyle = `rgb(${rgb.join(", ")})`;
        g.fillRect(Math.round(ox + (cc + 0.5) * span - 1.5), Math.round(oy + (cr + 0.5) * span - 1.5), 3, 3);
      }
    }
    g.restore();
    g.strokeStyle = SUMMARY_COLOURS[this.theme].player;
    g.lineWidth = Math.max(1.5, ring / 3);
    for (const [cr, cc] of pic.players) {
      g.beginPath();
      g.arc(ox + (cc + 0.5) * span, oy + (cr + 0.5) * span, Math.max(ring, span * 0.7), 0, Math.PI * 2);
      g.stroke();
    }
  }

  // The whole view drawn from the chunks' summaries, for cells too small to draw.
  drawSummaries() {
    const g = this.g;
    const dpr = this.dpr;
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.fillStyle = this.theme === "dark" ? "#16181c" : "#eceff3";
    g.fillRect(0, 0, this.canvas.width, this.canvas.height);
    const ox = -this.x * dpr;
    const oy = -this.y * dpr;
    const pic = this.summaryImage();
    if (pic) {
      this.paintSummaries(g, pic, ox, oy, this.cell * dpr, 6 * dpr);
    } else {
      g.fillStyle = THEMES[this.theme].unknown;
      g.fillRect(ox, oy, this.store.cols * this.cell * dpr, this.store.rows * this.cell * dpr);
    }
  }

  draw() {
    if (this.summaryMode()) {
      this.drawSummaries();
      return;
    }
    const g = this.g;
    const dpr = this.dpr;
    const size = Math.round(this.cell * dpr);
    const key = `${size}/${this.theme}`;
    if (key !== this.atlasKey) {
      this.atlas = makeAtlas(size, this.theme);
      this.atlasKey = key;
      this.patterns = [];
      for (let i = 0; i < 15; i++) {
        const tile = document.createElement("canvas");
        tile.width = size;
        tile.height = size;
        tile.getContext("2d").drawImage(this.atlas, i * size, 0, size, size, 0, 0, size, size);
        this.patterns.push(g.createPattern(tile, "repeat"));
      }
    }
    const theme = THEMES[this.theme];
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.fillStyle = this.theme === "dark" ? "#16181c" : "#eceff3";
    g.fillRect(0, 0, this.canvas.width, this.canvas.height);
    const [r0, c0, r1, c1] = this.visibleCells();
    const atlas = this.atlas;
    const ox = Math.round(-this.x * dpr);
    const oy = Math.round(-this.y * dpr);
    // Runs of one state (the hidden sea of a big board, open fields of zeros, chunks not
    // received yet) are one fillRect with a pattern of the cell's picture; the rest are one
    // drawImage a cell.
    const shift = new DOMMatrix([1, 0, 0, 1, ox, oy]);
    for (const p of this.patterns) p.setTransform(shift);
    const patterns = this.patterns;
    const store = this.store;
    // A won view's hidden cells are all mines: shown flagged, as the classic game does.
    const won = this.won;
    for (let cr = Math.floor(r0 / CHUNK); cr * CHUNK < r1; cr++) {
      const ra = Math.max(r0, cr * CHUNK);
      const rb = Math.min(r1, (cr + 1) * CHUNK);
      for (let cc = Math.floor(c0 / CHUNK); cc * CHUNK < c1; cc++) {
        const ca = Math.max(c0, cc * CHUNK);
        const cb = Math.min(c1, (cc + 1) * CHUNK);
        const chunk = store.chunk(cr, cc);
        if (!chunk) {
          g.fillStyle = patterns[14];
          g.fillRect(ox + ca * size, oy + ra * size, (cb - ca) * size, (rb - ra) * size);
          continue;
        }
        const cells = chunk.cells;
        for (let r = ra; r < rb; r++) {
          const y = oy + r * size;
          const base = (r - cr * CHUNK) * CHUNK - cc * CHUNK;
          let c = ca;
          while (c < cb) {
            const raw = cells[base + c];
            const state = won && raw === HIDDEN ? FLAGGED : raw;
            let end = c + 1;
            while (end < cb && cells[base + end] === raw) end++;
            if (end - c >= 3) {
              g.fillStyle = patterns[state];
              g.fillRect(ox + c * size, y, (end - c) * size, size);
            } else {
              for (let k = c; k < end; k++) {
                g.drawImage(atlas, state * size, 0, size, size, ox + k * size, y, size, size);
              }
            }
            c = end;
          }
        }
      }
    }
    g.setTransform(dpr, 0, 0, dpr, -this.x * dpr, -this.y * dpr);
    const s = this.cell;
    if (this.odds) this.drawOdds(g, s, r0, c0, r1, c1);
    for (const [key, colour] of this.finders) {
      const [r, c] = key.split(",").map(Number);
      if (r < r0 || r >= r1 || c < c0 || c >= c1) continue;
      g.fillStyle = colour;
      g.beginPath();
      g.arc(c * s + s * 0.82, r * s + s * 0.18, Math.max(2, s * 0.14), 0, Math.PI * 2);
      g.fill();
    }
    g.lineWidth = Math.max(2, s / 10);
    for (const [r, c] of this.wrong) {
      g.strokeStyle = "#ff00ff";
      g.strokeRect(c * s + 1, r * s + 1, s - 2, s - 2);
      g.beginPath();
      g.moveTo(c * s + 3, r * s + 3);
      g.lineTo(c * s + s - 3, r * s + s - 3);
      g.stroke();
    }
    if (this.hint) {
      const [r, c] = this.hint;
      g.strokeStyle = "#00b000";
      g.lineWidth = Math.max(2, s / 8);
      g.strokeRect(c * s + 1.5, r * s + 1.5, s - 3, s - 3);
    }
    if (this.marks && this.marks.size && s >= 8) {
      // Question marks, on the hidden cells that carry one (in the theme's ink: 10:1 and
      // more on a hidden cell in both themes).
      g.font = `bold ${Math.round(s * 0.62)}px sans-serif`;
      g.textAlign = "center";
      g.textBaseline = "middle";
      g.fillStyle = theme.text;
      for (const key of this.marks) {
        const [r, c] = key.split(",").map(Number);
        if (r < r0 || r >= r1 || c < c0 || c >= c1 || this.store.get(r, c) !== HIDDEN) continue;
        g.fillText("?", c * s + s / 2, r * s + s / 2 + s * 0.04);
      }
    }
    g.font = `bold ${Math.max(10, Math.min(14, s * 0.5))}px sans-serif`;
    g.textAlign = "left";
    g.textBaseline = "bottom";
    for (const o of this.others.values()) {
      g.strokeStyle = o.colour;
      g.lineWidth = Math.max(2, s / 10);
      g.strokeRect(o.col * s + 1, o.row * s + 1, s - 2, s - 2);
      g.fillStyle = o.colour;
      g.fillText(o.name, o.col * s + s, o.row * s);
    }
    if (this.cursor) {
      const [r, c] = this.cursor;
      g.strokeStyle = theme.text;
      g.lineWidth = Math.max(2, s / 12);
      g.setLineDash([4, 3]);
      g.strokeRect(c * s + 1, r * s + 1, s - 2, s - 2);
      g.setLineDash([]);
    }
    g.setTransform(1, 0, 0, 1, 0, 0);
  }

  drawOdds(g, s, r0, c0, r1, c1) {
    const o = this.odds;
    g.textAlign = "center";
    g.textBaseline = "middle";
    g.font = `bold ${Math.max(8, s * 0.38)}px sans-serif`;
    for (let wr = 0; wr < o.height; wr++) {
      const r = o.row + wr;
      if (r < r0 || r >= r1) continue;
      for (let wc = 0; wc < o.width; wc++) {
        const c = o.col + wc;
        if (c < c0 || c >= c1) continue;
        const p = o.cells[wr * o.width + wc];
        if (p === 255) continue;
        // Hidden cells only: nothing is painted over a flag.
        if (this.store.get(r, c) !== HIDDEN) continue;
        const rgb = oddsRgb(p, this.theme);
        g.fillStyle = `rgb(${rgb.join(", ")})`;
        g.fillRect(c * s + 2, r * s + 2, s - 4, s - 4);
        if (o.digits && s >= 18) {
          g.fillStyle = oddsInk(rgb);
          const pct = p / 2;
          g.fillText(pct < 1 && pct > 0 ? "<1" : String(Math.round(pct)), c * s + s / 2, r * s + s / 2);
        }
      }
    }
  }
}

// The board in small, and the view's rectangle: drawn from the chunks' summaries when the
// page has them (every chunk shaded as the main view draws it when zoomed far out), else
// every watched chunk shaded by how much of it is open. Drawn only for boards larger than
// the screen.
export function drawMinimap(canvas, view) {
  const store = view.store;
  const g = canvas.getContext("2d");
  const scale = Math.min(canvas.width / store.cols, canvas.height / store.rows);
  g.fillStyle = view.theme === "dark" ? "#3a3f48" : "#b8bcc4";
  g.fillRect(0, 0, canvas.width, canvas.height);
  g.fillStyle = view.theme === "dark" ? "#4a505b" : "#9da2ab";
  g.fillRect(0, 0, store.cols * scale, store.rows * scale);
  const pic = view.summaryImage();
  if (pic) view.paintSummaries(g, pic, 0, 0, scale, 4);
  for (const [key, chunk] of pic ? [] : store.chunks) {
    const cr = Math.floor(key / store.chunkCols);
    const cc = key % store.chunkCols;
    const share = chunk.open / (chunk.height * chunk.width);
    g.fillStyle = `rgba(255, 255, 255, ${0.15 + 0.7 * share})`;
    g.fillRect(cc * CHUNK * scale, cr * CHUNK * scale, Math.max(1, chunk.width * scale), Math.max(1, chunk.height * scale));
  }
  const [r0, c0, r1, c1] = view.visibleCells();
  g.strokeStyle = "#e00000";
  g.lineWidth = 2;
  g.strokeRect(c0 * scale, r0 * scale, Math.max(3, (c1 - c0) * scale), Math.max(3, (r1 - r0) * scale));
  return scale;
}
