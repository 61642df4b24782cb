// The Lobby window: the open tables listed there (live over /ws/lobby), a quick game, and a
// new table with a choice per seat (you, open to anyone, an invited person, a computer of a
// level) and its options (public, rated, spectators and their delay, the clock: a time per
// move, a time bank and the time to reconnect). The invitation page (?join=CODE) with its
// "Sit down" button is here too; both it and the list show each table's clock. Games, seats and levels come from
// /api/config (kinds.js).

import { dialog, h, hideDialog, oneAtATime, openDialog, replaceKeepingFocus } from "./dom.js";
import { S, STORE_NAME, resetTableState, screen } from "./state.js";
import { refusal, t, tCount, tMaybe } from "./i18n.js";
import { gameChoices, kindOf, profileLabel } from "./kinds.js";
import { connect, resumeTable } from "./connection.js";
import { seatLabel } from "./room.js";
import { api, leaveWatchUrl, rememberTable, savedTables, storeSession } from "./session.js";

const SEAT_KINDS = ["me", "open", "invited", "computer"];
// the clock choices (seconds; docs/server.md, "Clocks and dropped seats"); the server's
// default clock (/api/config's default_clock) is where the form starts, and is added when
// it is none of these
const MOVES = [null, 15, 30, 60];
const BANKS = [0, 60, 120];
const GRACES = [15, 30, 60, 120];
const form = { seats: null, game: null, profile: null, public: false, rated: false, spectators: true, delay: 0, clock: null };
let lobbyWs = null;
let tables = [];
let saidCount = null; // the number of open tables the window last said (its live line)

// signed in, a person plays under the account's name (the server seats them so): the field shows it, read-only
const typedName = () => S.user?.name || (document.getElementById("lobby-name")?.value || localStorage.getItem(STORE_NAME) || "").trim() || t("default_name");

// the person's name field: signed in, the account's name, read-only (the server seats the
// account so); else the name this browser played under last
function nameField(id) {
  const input = h("input", { id, testid: id, type: "text", maxlength: "24", autocomplete: "nickname", placeholder: t("default_name") });
  input.value = S.user?.name || localStorage.getItem(STORE_NAME) || "";
  if (S.user) { input.readOnly = true; input.title = t("name_of_account"); }
  return input;
}

// sit down at (or start) a table: this browser keeps the seat's token, as for any table
export function enterTable(res, meta) {
  storeSession({ table: res.table, token: res.token, seat: res.seat, ranked: res.ranked !== false });
  leaveWatchUrl();
  // (the name the server seated: a guest's numbered at a quick table, "Jugador 2")
  rememberTable({ ...S.session, game: meta.game, profile: meta.profile, name: res.name ?? meta.name, started: Date.now() });
  resetTableState();
  S.invite = res.invite ?? null;
  hideDialog("lobby"); hideDialog("join");
  screen.table();
  connect();
}

async function post(path, body) {
  const res = await api(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(refusal(res, path.endsWith("/seats")));
  return res.body;
}

function openLobbySocket() {
  if (lobbyWs) return;
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${proto}://${location.host}/ws/lobby`);
  lobbyWs = ws;
  ws.onmessage = (m) => {
    let msg; try { msg = JSON.parse(m.data); } catch { return; }
    if (msg.type === "lobby" && Array.isArray(msg.tables)) { tables = msg.tables; renderTablesList(); sayCount(); }
  };
  ws.onclose = () => { if (lobbyWs === ws) lobbyWs = null; };
}
function closeLobbySocket() {
  if (lobbyWs) { const ws = lobbyWs; lobbyWs = null; ws.close(); }
}

export function showLobby() {
  saidCount = null; // (the first list that comes is said)
  renderLobby();
  openDialog("lobby");
  openLobbySocket();
}

// "30 s", "2 min", "90 s"
const seconds = (s) => (s >= 60 && s % 60 === 0 ? `${s / 60} min` : `${s} s`);

// a table's clock as the list and the invitation show it: "clock: 30 s + 2 min", "no clock"
export function clockText(clock) {
  const move = clock?.move_s;
  if (move === null || move === undefined) return t("clock_none");
  return t("clock_shown", { c: clock.bank_s ? `${seconds(move)} + ${seconds(clock.bank_s)}` : seconds(move) });
}

// the form's clock: the server's default at first (kept once /api/config has come)
function formClock() {
  if (form.clock) return form.clock;
  const d = S.config?.default_clock || {};
  const clock = { move_s: d.move_s ?? null, bank_s: d.bank_s ?? 0, grace_s: d.grace_s ?? 30, abandon_s: d.abandon_s ?? 300 };
  if (S.config) form.clock = clock;
  return clock;
}

// one choice of the clock: a labelled <select> of ``values`` (plus the current one)
function clockSelect(key, values, label, disabled) {
  const clock = formClock();
  const all = values.includes(clock[key]) ? values : [...values, clock[key]].sort((a, b) => (a ?? -1) - (b ?? -1));
  const sel = h("select", { id: `clock-${key}`, testid: `clock-${key}`, disabled, onchange: (e) => {
    clock[key] = e.target.value === "" ? null : Number(e.target.value);
    if (key === "move_s") {
      const bank = document.getElementById("clock-bank_s");
      if (bank) bank.disabled = clock.move_s === null;
    }
  } }, all.map((v) => h("option", { value: v === null ? "" : String(v), selected: v === clock[key] }, v === null ? t("clock_none_option") : seconds(v))));
  return h("div", { class: "levelrow" }, h("label", { for: `clock-${key}` }, label), sel);
}

// the number of open tables, for the window's live line
const countText = (n) => (n ? tCount("lobby_count", n, { n }) : t("lobby_empty"));

// the live line says the number of open tables when it changes, not the list at every seat
// taken (a busy lobby would talk all the time; the list is read when the person goes to it)
function sayCount() {
  const line = document.querySelector('[data-testid="lobby-count"]');
  if (!line || tables.length === saidCount) return;
  saidCount = tables.length;
  line.textContent = countText(saidCount);
}

function renderTablesList() {
  const list = document.querySelector('[data-testid="lobby-tables"]');
  if (!list) return;
  const err = document.querySelector('[data-testid="lobby-error"]');
  // (the list is drawn again at every message: the focus stays on the "Sit down" it was on)
  replaceKeepingFocus(list, tables.length ? tables.map((r) => {
    const people = r.seats.filter((s) => s.kind === "person").map((s) => s.name).join(", ");
    const what = `${profileLabel(r.profile, r.game)} · ${people} · ${tCount("free_seats", r.free, { n: r.free })}${r.rated ? ` · ${t("rated")}` : ""}`;
    // (each button named by its table: several "Sit down: Mil · club" could not be told apart)
    return h("li", {},
      h("button", { type: "button", testid: `sit-${r.table}`, "aria-label": `${t("sit_down")}: ${what} · ${clockText(r.clock)}`, onclick: oneAtATime("enter-table", async () => {
        // a table where this browser already sits (the person's own, listed while it waits):
        // back to that seat, as its invitation link does (a second sit-down was refused as
        // "someone at this table already has that name")
        const mine = savedTables().find((e) => e.table === r.table && e.token);
        if (mine) { hideDialog("lobby"); resumeTable(mine); return; }
        const name = typedName();
        try { enterTable(await post(`/api/tables/${r.table}/seats`, { name }), { game: r.game, profile: r.profile, name }); } catch (e) { err.textContent = e.message; }
      }) }, t("sit_down")), " ", what,
      h("span", { testid: `lobby-clock-${r.table}` }, ` · ${clockText(r.clock)}`));
  }) : [h("li", { class: "note" }, t("lobby_empty"))]);
}

function seatChoice(i, kind) {
  const levels = S.config?.levels || [];
  const current = form.seats[i];
  const options = SEAT_KINDS.flatMap((k) => (k === "computer"
    ? levels.map((lv) => ({ value: `computer:${lv}`, label: `${t("seat_computer")} · ${tMaybe(`level_${lv}`) ?? lv}` }))
    : [{ value: k, label: t(`seat_${k}`) }]));
  const sel = h("select", { id: `seat-${i}`, testid: `seat-choice-${i}`, onchange: (e) => { form.seats[i] = e.target.value; } },
    options.map((o) => h("option", { value: o.value, selected: o.value === current }, o.label)));
  return h("div", { class: "levelrow" }, h("label", { for: `seat-${i}` }, t("seat_n", { n: i + 1 })), sel);
}

export function renderLobby() {
  const d = dialog("lobby");
  const choices = gameChoices();
  if (!form.game && choices.length) Object.assign(form, choices[0]);
  const k = kindOf(form.game);
  const count = k?.seats ?? 0;
  if (!form.seats || form.seats.length !== count) form.seats = ["me", ...Array(Math.max(0, count - 1)).fill("invited")];
  const err = h("p", { class: "error", testid: "lobby-error", role: "alert" });
  const nameInput = nameField("lobby-name");
  nameInput.addEventListener("input", () => { const v = nameInput.value.trim(); if (v) localStorage.setItem(STORE_NAME, v); });
  const check = (key, label) => h("label", { class: "check" },
    h("input", { type: "checkbox", testid: `opt-${key}`, checked: form[key], onchange: (e) => { form[key] = e.target.checked; } }), ` ${label}`);
  const delay = h("input", { id: "opt-delay", testid: "opt-delay", type: "number", min: "0", max: "100", step: "1", value: String(form.delay),
    oninput: (e) => { form.delay = Number(e.target.value) || 0; },
    // (typed past the field's bounds: brought back inside them once the field is left)
    onchange: (e) => { form.delay = Math.min(100, Math.max(0, Math.trunc(Number(e.target.value) || 0))); e.target.value = String(form.delay); } });
  // (drawn again when a game is chosen: the focus stays on the chosen game's button)
  replaceKeepingFocus(d, [h("form", { method: "dialog", class: "newgame", onsubmit: (e) => e.preventDefault() },
    h("h2", { id: "lobby-title" }, t("lobby")),
    h("fieldset", {}, h("legend", {}, t("you")), h("label", { for: "lobby-name" }, t("your_name")), nameInput),
    h("fieldset", {}, h("legend", {}, t("open_tables")),
      // (tabindex -1: the focus can wait on the list when the table it was on leaves it)
      h("ul", { class: "saved", testid: "lobby-tables", tabindex: "-1", "aria-label": t("open_tables") }, h("li", { class: "note" }, t("loading"))),
      h("p", { class: "sr-only", role: "status", testid: "lobby-count" }, saidCount === null ? "" : countText(saidCount))),
    h("fieldset", {}, h("legend", {}, t("choose_game")),
      h("div", { class: "choices" }, choices.map((o) => h("button", {
        type: "button", testid: `lobby-choose-${o.game}-${o.profile}`, "aria-pressed": String(form.game === o.game && form.profile === o.profile),
        onclick: () => { Object.assign(form, o); renderLobby(); renderTablesList(); },
      }, profileLabel(o.profile, o.game)))),
      h("button", { type: "button", class: "primary", testid: "quick-game", onclick: oneAtATime("enter-table", async () => {
        const name = typedName();
        try { enterTable(await post("/api/quick", { game: form.game, profile: form.profile, name, language: S.lang }), { ...form, name }); } catch (e) { err.textContent = e.message; }
      }) }, t("quick_game")), h("p", { class: "note" }, t("quick_game_note"))),
    h("fieldset", {}, h("legend", {}, t("create_table")),
      Array.from({ length: count }, (_, i) => seatChoice(i)),
      // (who sits left and right: two seats face each other, three need saying)
      count > 2 ? h("p", { class: "note", testid: "seats-order-note" }, t("seats_order_note")) : null,
      check("public", t("opt_public")), check("rated", t("opt_rated")), check("spectators", t("opt_spectators")),
      h("div", { class: "levelrow" }, h("label", { for: "opt-delay" }, t("opt_delay")), delay),
      h("fieldset", { testid: "clock-choice" }, h("legend", {}, t("clock_legend")),
        clockSelect("move_s", MOVES, t("clock_move_time")),
        clockSelect("bank_s", BANKS, t("clock_bank_time"), formClock().move_s === null),
        clockSelect("grace_s", GRACES, t("clock_grace_time")),
        h("p", { class: "note" }, t("clock_note"))),
      h("button", { type: "button", class: "primary", testid: "create-table", onclick: oneAtATime("enter-table", async () => {
        const name = typedName();
        const seats = form.seats.map((v) => (v.startsWith("computer:") ? { kind: "computer", level: v.slice(9) } : { kind: v }));
        const clock = formClock();
        const body = { game: form.game, profile: form.profile, name, language: S.lang, seats,
          public: form.public, rated: form.rated, spectators: form.spectators, spectator_delay: form.delay,
          clock: { ...clock, bank_s: clock.move_s === null ? 0 : clock.bank_s } };
        try { enterTable(await post("/api/tables", body), { ...form, name }); } catch (e) { err.textContent = e.message; }
      }) }, t("create_table"))),
    err,
    h("div", { class: "dlgbuttons" }, h("button", { type: "button", testid: "lobby-close", onclick: () => hideDialog("lobby") }, t("close"))))]);
  d.onclose = closeLobbySocket;
  renderTablesList();
}

// the invitation page: the table the code leads to, who sits there, and "Sit down"
export async function showJoin(code) {
  const d = dialog("join");
  // Escape does what Cancel (or Close) does: it left the /?join= address and a page with no
  // window open, where Cancel goes back to the Games window
  d.oncancel = (e) => { e.preventDefault(); hideDialog("join"); leaveWatchUrl(); screen.newGame(); };
  const res = await api(`/api/invitations/${encodeURIComponent(code)}`).catch(() => ({ ok: false }));
  const err = h("p", { class: "error", testid: "join-error", role: "alert" });
  if (!res.ok) {
    d.replaceChildren(h("h2", {}, t("invitation")), h("p", { class: "error", role: "alert", testid: "join-error" }, t("no_such_invitation")),
      h("div", { class: "dlgbuttons" }, h("button", { type: "button", onclick: () => { hideDialog("join"); leaveWatchUrl(); screen.newGame(); } }, t("close"))));
    openDialog("join");
    return;
  }
  const info = res.body;
  // the link opened again in a browser that holds a seat there: back to that seat
  const mine = savedTables().find((e) => e.table === info.table && e.token);
  if (mine) { hideDialog("join"); resumeTable(mine); return; }
  const nameInput = nameField("join-name");
  const free = info.seats.some((s) => s.kind === "open" || s.kind === "invited");
  d.replaceChildren(h("form", { method: "dialog", class: "newgame", onsubmit: (e) => e.preventDefault() },
    h("h2", { id: "join-title" }, t("invitation")),
    h("p", { testid: "join-table" }, profileLabel(info.profile, info.game), info.rated ? ` · ${t("rated")}` : "",
      h("span", { testid: "join-clock" }, ` · ${clockText(info.clock)}`)),
    h("ul", { class: "saved", testid: "join-seats" }, info.seats.map((s) => h("li", {},
      t("seat_n", { n: s.seat + 1 }), ": ", seatLabel(s)))),
    free ? h("fieldset", {}, h("legend", {}, t("you")), h("label", { for: "join-name" }, t("your_name")), nameInput)
      : h("p", { class: "note" }, t("table_full")),
    err,
    h("div", { class: "dlgbuttons" },
      h("button", { type: "button", testid: "join-cancel", onclick: () => { hideDialog("join"); leaveWatchUrl(); screen.newGame(); } }, t("cancel")),
      free ? h("button", { type: "submit", class: "primary", testid: "sit-down", onclick: oneAtATime("enter-table", async () => {
        const typed = nameInput.value.trim();
        const name = typed || t("default_name");
        if (typed && !S.user) localStorage.setItem(STORE_NAME, typed); // (a guest's name, not the account's)
        try { enterTable(await post(`/api/tables/${info.table}/seats`, { name, invite: code }), { game: info.game, profile: info.profile, name }); } catch (e) { err.textContent = e.message; }
      }) }, t("sit_down")) : null)));
  openDialog("join");
}
