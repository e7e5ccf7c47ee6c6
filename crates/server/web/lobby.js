// The lobby: a form that makes a room's link, and the list of open rooms from /rooms.

const $ = (id) => document.getElementById(id);

// A room name nobody is likely to have taken: two words and a number.
function freshName() {
  const a = ["quiet", "brave", "lucky", "swift", "calm", "bold", "sly", "wise"];
  const b = ["otter", "falcon", "badger", "heron", "lynx", "moth", "orca", "wren"];
  const pick = (list) => list[Math.floor(Math.random() * list.length)];
  return `${pick(a)}-${pick(b)}-${Math.floor(Math.random() * 1000)}`;
}

// The hash of a room's link: its name and the parameters that make it.
export function roomHash(form) {
  const data = new FormData(form);
  const p = new URLSearchParams();
  p.set("room", data.get("room"));
  const preset = data.get("preset");
  if (preset === "custom") {
    p.set("rows", data.get("rows"));
    p.set("cols", data.get("cols"));
    if (data.get("mines")) p.set("mines", data.get("mines"));
    else p.set("density", data.get("density"));
  } else {
    p.set("preset", preset);
  }
  const mode = data.get("mode");
  p.set("mode", mode);
  // A co-op board is made around the first cell a player reveals; racers start equal, from
  // one opening the server makes, together after a countdown once all are ready.
  if (mode === "coop") {
    p.set("rule", data.get("rule"));
    p.set("first", "player");
  } else {
    p.set("countdown", "1");
  }
  p.set("noguess", data.get("noguess") ? "1" : "0");
  return `#${p}`;
}

function roomRow(room) {
  const tr = document.createElement("tr");
  const cell = (text) => {
    const td = document.createElement("td");
    td.textContent = text;
    tr.append(td);
    return td;
  };
  cell(room.name);
  const mode = room.mode === "race" ? "race" : `co-op, ${room.rule}`;
  cell(`${room.rows}x${room.cols}, ${room.mines.toLocaleString("en-US")} mines${room.noguess ? ", no guessing" : ""}; ${mode}`);
  cell(String(room.players));
  const actions = cell("");
  actions.className = "actions";
  const join = document.createElement("a");
  join.className = "button";
  join.href = `#room=${encodeURIComponent(room.name)}`;
  join.textContent = "Join";
  const watch = document.createElement("a");
  watch.className = "button";
  watch.href = `#room=${encodeURIComponent(room.name)}&spectate=1`;
  watch.textContent = "Watch";
  actions.append(join, watch);
  return tr;
}

let timer = null;

async function refresh(onError) {
  try {
    const response = await fetch("/rooms", { cache: "no-store" });
    if (!response.ok) throw new Error(`the server answered ${response.status} for /rooms`);
    const rooms = await response.json();
    const body = $("rooms").tBodies[0];
    body.replaceChildren(...rooms.map(roomRow));
    $("no-rooms").hidden = rooms.length > 0;
    onError(null);
  } catch (e) {
    onError(`The list of rooms could not be loaded: ${e.message}. Is the server running?`);
  }
}

// Shows the lobby and keeps its list of rooms fresh; `onError` shows or clears a message.
export function showLobby(onError) {
  $("lobby").hidden = false;
  const form = $("create");
  if (!form.elements.room.value) form.elements.room.value = freshName();
  const savedName = localStorage.getItem("bitmines:name");
  if (savedName && !form.elements.name.value) form.elements.name.value = savedName;
  const sync = () => {
    form.elements.preset.value === "custom"
      ? $("custom").removeAttribute("disabled")
      : $("custom").setAttribute("disabled", "");
    const race = form.querySelector("input[name=mode][value=race]").checked;
    for (const r of form.querySelectorAll("input[name=rule]")) r.disabled = race;
  };
  form.onchange = sync;
  sync();
  form.onsubmit = (e) => {
    e.preventDefault();
    const name = form.elements.name.value.trim();
    if (name) localStorage.setItem("bitmines:name", name);
    else localStorage.removeItem("bitmines:name");
    location.hash = roomHash(form);
    form.elements.room.value = freshName();
  };
  refresh(onError);
  clearInterval(timer);
  timer = setInterval(() => refresh(onError), 2000);
}

export function hideLobby() {
  $("lobby").hidden = true;
  clearInterval(timer);
  timer = null;
}
