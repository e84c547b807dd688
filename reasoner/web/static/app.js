// The page of gdl-reasoner web: game library, play, watch, replay and inspect.
// Every text that comes from a game or a request is set as text, never as HTML.
"use strict";

const TOKEN = new URLSearchParams(location.search).get("token");
const STRATEGIES = ["human", "random", "mcts", "alphabeta", "bestfirst"];
const MAX_BUTTONS = 120;  // move buttons shown at most (amazons has thousands of moves)
const state = {
  game: null,          // the opened game (library view)
  match: null,         // the match shown
  info: null,          // the match's game info (board layout, heuristics)
  position: null,      // the position shown
  index: 0,
  follow: true,
  events: null,        // EventSource of the match
  selected: null,      // the squares of a move clicked so far
  overlay: null,       // {squareKey: value}
  overlayIndex: null,  // the position the overlay was made for
  uploadName: null,    // the name of the file chosen on Check a game
  pendingClick: null,  // time of the last click that played a move
  postedAt: null, eventAt: null, fetchedAt: null,  // when its answers came
};
window.moveTimings = [];  // click to drawn, in ms, for the page's own tests
window.moveSteps = [];    // per move: [move posted, event came, position fetched, drawn] in ms after the click

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === "class") node.className = value;
    else if (key.startsWith("data-")) node.setAttribute(key, value);
    else if (key === "onclick") node.addEventListener("click", value);
    else node[key] = value;
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function toast(text) {
  const box = document.getElementById("toast");
  box.textContent = text;
  box.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { box.hidden = true; }, 8000);
}

async function api(method, path, body, raw) {
  const headers = {};
  if (TOKEN) headers["X-Token"] = TOKEN;
  let payload;
  if (raw !== undefined) { payload = raw; headers["Content-Type"] = "text/plain; charset=utf-8"; }
  else if (body !== undefined) { payload = JSON.stringify(body); headers["Content-Type"] = "application/json"; }
  let response;
  try {
    response = await fetch(path, { method, headers, body: payload });
  } catch (error) {
    const failure = new Error("the page's server cannot be reached: " + error.message);
    failure.lost = true;
    throw failure;
  }
  let answer = {};
  try { answer = await response.json(); } catch (error) { answer = { error: response.statusText }; }
  if (!response.ok) {
    const failure = new Error(answer.error || response.statusText);
    failure.answer = answer;
    failure.status = response.status;
    throw failure;
  }
  return answer;
}

function withToken(path) {
  return TOKEN ? path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(TOKEN) : path;
}

// -- views -------------------------------------------------------------------------------

function show(view) {
  for (const section of document.querySelectorAll(".view")) section.hidden = section.id !== "view-" + view;
  for (const link of document.querySelectorAll("header nav a")) link.classList.toggle("active", link.id === "nav-" + view);
}

async function route() {
  const hash = location.hash || "#/library";
  const parts = hash.slice(2).split("/");
  if (parts[0] === "match" && parts[1]) { show("match"); await openMatch(decodeURIComponent(parts.slice(1).join("/"))); }
  else if (parts[0] === "matches") { show("matches"); await listMatches(); }
  else if (parts[0] === "check") { show("check"); }
  else { show("library"); await listGames(); }
}

// -- library -----------------------------------------------------------------------------

async function listGames() {
  const query = document.getElementById("search").value;
  let answer;
  try { answer = await api("GET", "/api/games?q=" + encodeURIComponent(query)); }
  catch (error) { toast(error.message); return; }
  const body = document.querySelector("#games tbody");
  body.replaceChildren();
  for (const game of answer.games) {
    const row = el("tr", { "data-id": game.id, onclick: () => openGame(game.id, row) },
      el("td", {}, game.name), el("td", {}, game.folder), el("td", {}, game.roles.join(", ")),
      el("td", {}, (game.size / 1024).toFixed(1) + " KB"), el("td", {}, game.backend || ""),
      el("td", {}, game.load_ms === null ? "" : Math.round(game.load_ms) + " ms"));
    body.append(row);
  }
  document.getElementById("game-count").textContent = answer.games.length + " games";
}

async function openGame(id, row) {
  for (const other of document.querySelectorAll("#games tr.selected")) other.classList.remove("selected");
  if (row) row.classList.add("selected");
  const panel = document.getElementById("game-panel");
  panel.hidden = false;
  document.getElementById("game-title").textContent = id + " (loading...)";
  document.getElementById("game-facts").replaceChildren();
  document.getElementById("seats").replaceChildren();
  let game;
  try { game = await api("POST", "/api/games/open/" + encodeURIComponent(id).replace(/%2F/g, "/")); }
  catch (error) {
    document.getElementById("game-title").textContent = id;
    document.getElementById("game-facts").replaceChildren(el("dd", { class: "error" }, where(error) + error.message));
    return;
  }
  showGame(game);
}

function where(error) {
  const a = error.answer || {};
  return a.line ? `line ${a.line}, column ${a.column}: ` : "";
}

function showGame(game) {
  state.game = game;
  document.getElementById("game-panel").hidden = false;
  document.getElementById("game-title").textContent = game.name;
  const facts = document.getElementById("game-facts");
  facts.replaceChildren();
  const add = (key, value) => facts.append(el("dt", {}, key), el("dd", {}, value));
  add("roles", game.roles.join(", "));
  add("backend", game.backend);
  add("load", Math.round(game.load_ms) + " ms");
  add("size", (game.size / 1024).toFixed(1) + " KB, " + game.fluents + " fluents, " + game.moves + " moves");
  add("board", game.board ? `${game.board.function}: ${game.board.columns.length} x ${game.board.rows.length}` : "none found (fluents shown as a list)");
  if (game.warnings.length) add("warnings", game.warnings.join("; "));
  const seats = document.getElementById("seats");
  seats.replaceChildren();
  game.roles.forEach((role, index) => {
    const select = el("select", { "data-role": role, id: "seat-" + index });
    for (const s of STRATEGIES) select.append(el("option", { value: s }, s));
    select.value = index === 0 ? "human" : "random";
    seats.append(el("div", { class: "row" }, el("label", {}, role + " "), select));
  });
}

async function startMatch() {
  if (!state.game) return;
  const seats = state.game.roles.map((_, index) => document.getElementById("seat-" + index).value);
  const clock = parseFloat(document.getElementById("clock").value);
  try {
    const match = await api("POST", "/api/matches", { game: state.game.id, seats, clock });
    location.hash = "#/match/" + encodeURIComponent(match.id);
  } catch (error) { toast(error.message); }
}

// -- check -------------------------------------------------------------------------------

async function checkGame() {
  const text = document.getElementById("gdl-text").value;
  const result = document.getElementById("check-result");
  const listing = document.getElementById("gdl-listing");
  result.replaceChildren(el("span", {}, "checking..."));
  listing.hidden = true;
  try {
    const game = await api("POST", "/api/check?name=" + encodeURIComponent(state.uploadName || "pasted"), undefined, text);
    result.replaceChildren(el("span", {}, `${game.name}: valid, ${game.roles.length} roles (${game.roles.join(", ")}), backend ${game.backend}. `),
      el("a", { href: "#/library", onclick: () => setTimeout(() => showGame(game), 50) }, "Play it"));
    document.getElementById("search").value = game.id;
  } catch (error) {
    const a = error.answer || {};
    result.replaceChildren(el("div", { class: "error", id: "check-error" }, where(error) + error.message));
    if (a.line) showListing(text, a.line, a.column);
  }
}

function showListing(text, line, column) {
  const listing = document.getElementById("gdl-listing");
  listing.replaceChildren();
  const lines = text.split("\n");
  const from = Math.max(0, line - 6), to = Math.min(lines.length, line + 5);
  for (let i = from; i < to; i++) {
    const number = el("span", { class: "lineno" }, String(i + 1).padStart(5) + "  ");
    const row = el("div", { class: i + 1 === line ? "error-line" : "", "data-line": i + 1 }, number, lines[i]);
    listing.append(row);
    if (i + 1 === line && column) listing.append(el("div", { class: "caret" }, " ".repeat(7 + column - 1) + "^"));
  }
  listing.hidden = false;
}

// -- matches -----------------------------------------------------------------------------

async function listMatches() {
  let answer;
  try { answer = await api("GET", "/api/matches"); } catch (error) { toast(error.message); return; }
  const body = document.querySelector("#matches tbody");
  body.replaceChildren();
  for (const m of answer.matches) {
    body.append(el("tr", { "data-id": m.id, onclick: () => { location.hash = "#/match/" + encodeURIComponent(m.id); } },
      el("td", {}, m.id), el("td", {}, m.game), el("td", {}, m.kind), el("td", {}, m.seats.join(", ")),
      el("td", {}, m.steps), el("td", {}, m.status)));
  }
}

async function replayRecord() {
  const file = document.getElementById("record-file").files[0];
  if (!file) { toast("choose a record file first"); return; }
  const text = await file.text();
  let record;
  try { record = JSON.parse(text); } catch (error) { toast("the file is not JSON: " + error.message); return; }
  const game = document.getElementById("record-game").value.trim();
  try {
    const match = await api("POST", "/api/records" + (game ? "?game=" + encodeURIComponent(game) : ""), record);
    location.hash = "#/match/" + encodeURIComponent(match.id);
  } catch (error) { toast(error.message); }
}

async function openMatch(id) {
  if (state.events) { state.events.close(); state.events = null; }
  let match;
  try { match = await api("GET", "/api/matches/" + encodeURIComponent(id)); }
  catch (error) { toast(error.message); return; }
  state.match = match;
  state.info = match.game_info;
  state.overlay = null;
  state.selected = null;
  state.follow = match.kind !== "replay";
  document.getElementById("follow").checked = state.follow;
  document.getElementById("match-title").textContent = `${match.game}: ${match.roles.map((r, i) => r + " (" + (match.seats[i] || "?") + ")").join(" vs ")}`;
  document.getElementById("undo").hidden = match.kind !== "play";
  const heuristics = document.getElementById("heuristic");
  heuristics.replaceChildren(...((state.info && state.info.heuristics) || []).map((h) => el("option", { value: h }, h)));
  const roles = document.getElementById("heuristic-role");
  roles.replaceChildren(...match.roles.map((r) => el("option", { value: r }, r)));
  document.getElementById("chart").replaceChildren();
  document.getElementById("overlay-table").replaceChildren();
  await showPosition(state.follow ? "last" : 0);
  const source = new EventSource(withToken("/api/matches/" + encodeURIComponent(id) + "/events"));
  source.onmessage = (event) => {
    if (state.pendingClick !== null && state.eventAt === null) state.eventAt = performance.now();
    const summary = JSON.parse(event.data);
    state.match = Object.assign(state.match, summary);
    if (state.follow) showPosition("last");
    else updateSlider(summary.steps);
  };
  source.onerror = () => { document.getElementById("status").textContent = "(reconnecting...)"; };
  state.events = source;
}

function updateSlider(last) {
  const slider = document.getElementById("slider");
  slider.max = last;
}

let showTicket = 0;
async function showPosition(which) {
  // Answers can come back out of order: only the latest request's answer is drawn.
  const match = state.match;
  if (!match) return;
  const ticket = ++showTicket;
  let position;
  try { position = await api("GET", `/api/matches/${encodeURIComponent(match.id)}/positions/${which}`); }
  catch (error) { if (ticket === showTicket) toast(error.message); return; }
  if (state.match !== match || ticket !== showTicket) return;
  state.fetchedAt = performance.now();
  if (!state.position || state.position.index !== position.index) document.getElementById("support").replaceChildren();
  state.position = position;
  state.index = position.index;
  state.selected = null;
  if (which !== "last" || position.index !== state.overlayIndex) { state.overlay = null; document.getElementById("overlay-table").replaceChildren(); }
  draw();
  if (state.pendingClick !== null && position.index > 0) {
    const now = performance.now(), click = state.pendingClick;
    window.moveTimings.push(now - click);
    window.moveSteps.push([state.postedAt, state.eventAt, state.fetchedAt, now].map((t) => t === null ? null : Math.round((t - click) * 10) / 10));
    state.pendingClick = null;
  }
}

// -- drawing -----------------------------------------------------------------------------

function drawPiece(name, style) {
  if (!style || style.empty) return null;
  if (style.glyph && style.colour === "#000000") return el("span", { class: "piece" }, style.glyph);
  if (style.glyph === "X" || style.glyph === "O") {
    const letter = el("span", { class: "piece letter" }, style.glyph);
    letter.style.color = style.colour;
    return letter;
  }
  const disc = el("span", { class: "disc" }, style.glyph);
  disc.style.background = style.colour;
  if (style.colour === "#f4f4f4") { disc.style.color = "#222"; disc.style.textShadow = "none"; }
  return disc;
}

function playableMoves() {
  // The moves of the people's roles that still have a choice in the last position.
  const p = state.position, m = state.match;
  if (!p || !m || m.kind !== "play" || p.index !== p.last || p.terminal) return [];
  const moves = [];
  m.roles.forEach((role, r) => {
    if (m.seats[r] === "human" && p.legal[r].length > 1) for (const move of p.legal[r]) moves.push({ role, ...move });
  });
  return moves;
}

function draw() {
  const p = state.position, m = state.match;
  const board = document.getElementById("board");
  const layout = state.info && state.info.board;
  board.replaceChildren();
  board.setAttribute("data-match", m.id);
  board.setAttribute("data-index", p.index);
  document.getElementById("legend").replaceChildren();
  const playable = playableMoves();
  if (layout) {
    const cols = layout.columns.length;
    board.style.gridTemplateColumns = `20px repeat(${cols}, 52px)`;
    const plain = !(cols >= 8 && layout.rows.length >= 8);
    layout.rows.forEach((rowName, row) => {
      board.append(el("div", { class: "coord side" }, rowName));
      layout.columns.forEach((colName, col) => {
        const key = col + "," + row;
        const content = p.board[key];
        const cls = ["sq", plain ? "plain" : ((col + row) % 2 === 0 ? "light" : "dark")];
        if (playable.some((mv) => mv.squares.length && mv.squares[0][0] === col && (mv.squares[0][1] === null || mv.squares[0][1] === row))) cls.push("playable");
        if (state.selected && state.selected.some((sq) => sq[0] === col && sq[1] === row)) cls.push("from");
        if (state.selected && following(playable, state.selected).some((mv) => sameSquare(mv.squares[state.selected.length], [col, row]))) cls.push("target");
        const square = el("div", { class: cls.join(" "), "data-col": col, "data-row": row,
          "data-square": colName + "," + rowName, "data-content": content || "",
          title: `${colName} ${rowName}${content ? ": " + content : ""}`,
          onclick: () => clickSquare(col, row) });
        const piece = content ? drawPiece(content, layout.styles[content]) : null;
        if (piece) square.append(piece);
        if (state.overlay && state.overlay[key] !== undefined) {
          const value = state.overlay[key];
          square.style.boxShadow = `inset 0 0 0 40px rgba(${Math.round(255 * (1 - value / 100))}, ${Math.round(200 * value / 100)}, 60, 0.45)`;
          square.append(el("span", { class: "value" }, Math.round(value)));
        }
        board.append(square);
      });
    });
    board.append(el("div", { class: "coord" }, ""));
    for (const colName of layout.columns) board.append(el("div", { class: "coord" }, colName));
    const legend = document.getElementById("legend");
    for (const [name, style] of Object.entries(layout.styles)) {
      if (style.empty) continue;
      const piece = drawPiece(name, style);
      legend.append(el("span", { class: "key", "data-marker": name }, piece, name));
    }
  } else {
    board.style.gridTemplateColumns = "auto";
    board.append(el("div", { class: "sq plain", style: "width:auto;height:auto;padding:0.5em" }, "no board found: the fluents are listed on the right"));
  }
  drawSide();
}

function sameSquare(a, b) {
  return a[0] === b[0] && (a[1] === null || a[1] === b[1]);
}

function drawSide() {
  const p = state.position, m = state.match;
  const slider = document.getElementById("slider");
  slider.max = p.last;
  slider.value = p.index;
  document.getElementById("step-label").textContent = `position ${p.index} of ${p.last}`;
  document.getElementById("status").textContent = p.status;
  const message = document.getElementById("message");
  message.hidden = !p.message;
  message.textContent = p.message;
  const goals = document.getElementById("goals");
  goals.textContent = p.terminal ? "Game over: " + m.roles.map((r, i) => `${r} ${p.goals[i] === null ? "none" : p.goals[i]}`).join(", ") : "";
  goals.id = "goals";
  const turn = document.getElementById("turn");
  const movers = m.roles.filter((_, r) => p.legal[r].length > 1);
  turn.textContent = p.terminal ? "" : (movers.length ? "to move: " + movers.join(", ") : "");
  const choices = document.getElementById("choices");
  choices.replaceChildren();
  const playable = playableMoves();
  for (const move of playable.slice(0, MAX_BUTTONS)) {
    choices.append(el("button", { "data-move": move.text, "data-role": move.role, title: move.role, onclick: () => playMove(move.role, move.text) }, move.text));
  }
  if (playable.length > MAX_BUTTONS) choices.append(el("div", { class: "hint" }, `and ${playable.length - MAX_BUTTONS} more: click them on the board`));
  document.getElementById("legal-summary").textContent = p.terminal ? "terminal" :
    m.roles.map((r, i) => `${r}: ${p.legal[i].length} legal`).join(", ");
  const others = document.getElementById("others");
  others.replaceChildren(...(state.info && state.info.board ? p.others : []).map((f) => el("li", {}, f)));
  const fluents = document.getElementById("fluents");
  fluents.replaceChildren(...p.fluents.map((f) => el("li", { class: p.others.includes(f) ? "other" : "on-board",
    "data-fluent": f, title: "why does it hold?", onclick: () => explain({ fluent: f }) }, f)));
  const why = document.getElementById("why-move");
  why.replaceChildren();
  m.roles.forEach((role, r) => {
    for (const move of p.legal[r]) why.append(el("option", { value: JSON.stringify([role, move.text]) }, `${role} ${move.text}`));
  });
  drawMovesPlayed();
}

function drawMovesPlayed() {
  // The move that led to the shown position, with its errors (IL, TO, CE) marked.
  const p = state.position, box = document.getElementById("moves-played");
  box.replaceChildren();
  if (!p.moves.length) return;
  const line = el("div", { class: "current" }, `step ${p.index}: `);
  p.moves.forEach((move, r) => {
    line.append(`${state.match.roles[r]} ${move}`);
    if (p.errors[r]) line.append(el("span", { class: "err", title: "replaced: " + p.errors[r], "data-error": p.errors[r] }, p.errors[r]));
    if (r < p.moves.length - 1) line.append("; ");
  });
  box.append(line);
}

function following(moves, path) {
  // The moves whose squares begin with the squares clicked so far.
  return moves.filter((mv) => mv.squares.length > path.length && path.every((sq, i) => sameSquare(mv.squares[i], sq)));
}

async function clickSquare(col, row) {
  // A move is clicked square by square (a chess move's from and to squares, an amazon's
  // from, to and arrow); once one move is left it is played.
  const moves = playableMoves();
  if (!moves.length) return;
  const at = [col, row];
  let path = state.selected || [];
  let next = following(moves, path).filter((mv) => sameSquare(mv.squares[path.length], at));
  if (!next.length && path.length) { path = []; next = following(moves, path).filter((mv) => sameSquare(mv.squares[0], at)); }
  if (!next.length) { state.selected = null; draw(); return; }
  path = [...path, at];
  if (next.length === 1) { state.selected = null; return playMove(next[0].role, next[0].text); }
  if (next.every((mv) => mv.squares.length === path.length)) { state.selected = null; draw(); offer(next); return; }
  state.selected = path;
  draw();
}

function offer(moves) {
  const choices = document.getElementById("choices");
  choices.replaceChildren(el("div", {}, "choose:"),
    ...moves.map((mv) => el("button", { "data-move": mv.text, "data-role": mv.role, onclick: () => playMove(mv.role, mv.text) }, mv.text)));
}

async function playMove(role, text) {
  state.pendingClick = performance.now();
  state.postedAt = state.eventAt = state.fetchedAt = null;
  state.selected = null;
  try {
    await api("POST", `/api/matches/${encodeURIComponent(state.match.id)}/move`, { role, move: text });
    state.postedAt = performance.now();
  } catch (error) {
    state.pendingClick = null;
    toast(error.message);
  }
}

async function undoMove() {
  try { await api("POST", `/api/matches/${encodeURIComponent(state.match.id)}/undo`); }
  catch (error) { toast(error.message); }
}

// -- inspecting --------------------------------------------------------------------------

async function showValues() {
  const p = state.position;
  const role = document.getElementById("heuristic-role").value;
  const heuristic = document.getElementById("heuristic").value;
  let answer;
  try { answer = await api("POST", `/api/matches/${encodeURIComponent(state.match.id)}/positions/${p.index}/heuristic`, { role, heuristic }); }
  catch (error) { toast(error.message); return; }
  const overlay = {};
  const r = state.match.roles.indexOf(role);
  const byId = new Map(p.legal[r].map((mv) => [mv.id, mv]));
  const table = el("table", { id: "values" });
  for (const entry of answer.values) {
    const move = byId.get(entry.id);
    if (move && move.squares.length) {
      const sq = move.squares[move.squares.length - 1];
      const rows = sq[1] === null ? state.info.board.rows.map((_, i) => i) : [sq[1]];
      for (const row of rows) {
        const key = sq[0] + "," + row;
        overlay[key] = Math.max(overlay[key] ?? -Infinity, entry.value);
      }
    }
    table.append(el("tr", {}, el("td", {}, entry.text), el("td", {}, entry.value.toFixed(1))));
  }
  state.overlay = overlay;
  state.overlayIndex = p.index;
  draw();
  document.getElementById("overlay-table").replaceChildren(table);
}

async function runPlayouts() {
  const p = state.position;
  const count = parseInt(document.getElementById("playouts-count").value, 10);
  const chart = document.getElementById("chart");
  chart.replaceChildren(el("span", {}, "playing..."));
  let answer;
  try { answer = await api("POST", `/api/matches/${encodeURIComponent(state.match.id)}/positions/${p.index}/playouts`, { count }); }
  catch (error) { chart.replaceChildren(); toast(error.message); return; }
  chart.replaceChildren(el("div", {}, `${answer.count} playouts, ${answer.updates} updates in ${answer.ms} ms` + (answer.unfinished ? `, ${answer.unfinished} unfinished` : "")));
  for (const [role, outcomes] of Object.entries(answer.outcomes)) {
    const table = el("table", { "data-role": role }, el("caption", {}, role));
    for (const [value, times] of Object.entries(outcomes)) {
      const bar = el("span", { class: "bar" });
      bar.style.width = Math.max(1, Math.round(200 * times / answer.count)) + "px";
      table.append(el("tr", { "data-goal": value }, el("td", {}, value), el("td", {}, bar), el("td", {}, times)));
    }
    chart.append(table);
  }
}

async function explain(question) {
  const p = state.position, box = document.getElementById("support");
  box.replaceChildren(el("div", {}, "looking for the rule (a large game takes seconds)..."));
  let answer;
  try { answer = await api("POST", `/api/matches/${encodeURIComponent(state.match.id)}/positions/${p.index}/support`, question); }
  catch (error) { box.replaceChildren(el("div", { class: "error" }, error.message)); return; }
  box.replaceChildren(el("div", {}, answer.supports.length ? answer.target + " holds by:" : answer.target + ": no rule holds"));
  for (const s of answer.supports) {
    box.append(el("div", { class: "rule" }, (s.line ? `line ${s.line}: ` : "") + s.rule),
      el("div", { class: "instance" }, s.instance));
  }
}

function unfollow() {
  // Moving back through a match stops following its last position.
  state.follow = false;
  document.getElementById("follow").checked = false;
}

// -- wiring ------------------------------------------------------------------------------

window.addEventListener("hashchange", route);
document.addEventListener("DOMContentLoaded", () => {
  let timer = null;
  document.getElementById("search").addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(listGames, 150); });
  document.getElementById("start").addEventListener("click", startMatch);
  document.getElementById("check").addEventListener("click", checkGame);
  document.getElementById("gdl-file").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (!file) return;
    if (file.size > 1 << 20) { toast("the file is over the 1 MiB cap"); return; }
    state.uploadName = file.name;
    document.getElementById("gdl-text").value = await file.text();
  });
  document.getElementById("record-load").addEventListener("click", replayRecord);
  document.getElementById("undo").addEventListener("click", undoMove);
  document.getElementById("overlay").addEventListener("click", showValues);
  document.getElementById("overlay-clear").addEventListener("click", () => { state.overlay = null; draw(); document.getElementById("overlay-table").replaceChildren(); });
  document.getElementById("playouts").addEventListener("click", runPlayouts);
  document.getElementById("why-legal").addEventListener("click", () => {
    const chosen = document.getElementById("why-move").value;
    if (!chosen) return;
    const [role, move] = JSON.parse(chosen);
    explain({ role, move });
  });
  document.getElementById("follow").addEventListener("change", (event) => { state.follow = event.target.checked; if (state.follow) showPosition("last"); });
  const slider = document.getElementById("slider");
  slider.addEventListener("input", () => { unfollow(); showPosition(slider.value); });
  document.getElementById("first").addEventListener("click", () => { unfollow(); showPosition(0); });
  document.getElementById("prev").addEventListener("click", () => { unfollow(); showPosition(Math.max(0, state.index - 1)); });
  document.getElementById("next").addEventListener("click", () => showPosition(Math.min(state.position ? state.position.last : 0, state.index + 1)));
  document.getElementById("last").addEventListener("click", () => showPosition("last"));
  route();
});
