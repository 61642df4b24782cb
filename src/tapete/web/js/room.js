// The room at a table of several people: who sits where and who is connected (the server's
// `presence` messages), the invitation link with its Copy button, and the table chat (lines
// drawn as text only, a mute toggle per player name kept in this browser). See
// docs/dev/protocol.md, "The online room".

import { h } from "./dom.js";
import { S, STORE_MUTED, screen } from "./state.js";
import { t, tMaybe } from "./i18n.js";
import { send } from "./connection.js";
import { api, seatHeaders } from "./session.js";

const CHAT_LINES = 30;
export const CHAT_MAX = 300;

export const inviteUrl = (code) => `${location.origin}/?join=${encodeURIComponent(code)}`;

export function mutedNames() {
  try { const l = JSON.parse(localStorage.getItem(STORE_MUTED) || "[]"); return Array.isArray(l) ? l : []; } catch { return []; }
}
function toggleMute(name) {
  const list = mutedNames();
  const next = list.includes(name) ? list.filter((n) => n !== name) : [...list, name];
  localStorage.setItem(STORE_MUTED, JSON.stringify(next));
  renderRoom();
}

// who sits where, in one string: a change (someone sat down at a waiting table) renames a seat
const seating = (p) => (p?.seats || []).map((s) => `${s.kind}:${s.name ?? ""}`).join("|");

export function takePresence(msg) {
  const before = S.presence?.status;
  const seated = seating(S.presence);
  S.presence = msg;
  takeClocks(msg.clocks);
  // a waiting table opened from "your games" or a second tab: its description has the code
  const sess = S.session;
  if (msg.status === "waiting" && !S.invite && sess?.token && asked !== sess.table) {
    asked = sess.table;
    api(`/api/tables/${encodeURIComponent(sess.table)}`, { headers: seatHeaders(sess.token) })
      .then((res) => { if (res.ok && S.session?.table === sess.table) { S.invite = res.body.invite ?? null; renderRoom(); } })
      .catch(() => {});
  }
  // the table started (its view came just before): the status line and the turn marks
  // (or someone sat down: the board and the sheet name them)
  if (S.view && ((before === "waiting" && msg.status !== "waiting") || seating(msg) !== seated)) screen.table();
  renderRoom();
}
let asked = null;

export function takeChat(msg) {
  // our line is back from the server: it was taken, the input is cleared (unless the person
  // has already changed what it holds)
  const mine = chat && msg.seat === S.view?.seat ? chat.sending.findIndex((l) => l.text === msg.text) : -1;
  if (mine >= 0) {
    chat.sending.splice(mine, 1);
    if (oneLine(chat.input.value) === msg.text) chat.input.value = "";
  }
  if (S.chat.some((c) => c.version === msg.version && c.seat === msg.seat && c.text === msg.text)) return;
  S.chat.push(msg);
  if (S.chat.length > CHAT_LINES) S.chat.shift();
  renderRoom();
}

// the seat clocks (docs/server.md, "Clocks and dropped seats"): the last snapshot, counted
// down on screen between messages
let ticker = null;
export function takeClocks(clocks) {
  if (clocks === undefined) return;
  S.clocks = clocks || null;
  S.clocksAt = performance.now();
  if (S.clocks && !ticker) ticker = setInterval(() => { if (S.clocks) tickClocks(); else { clearInterval(ticker); ticker = null; } }, 1000);
}

// a second of the clocks: only their texts change (drawing the whole strip anew each second
// threw the chat's reader back to its top and the writer's cursor to the end of the line)
function tickClocks() {
  const room = document.getElementById("room");
  if (!room || room.hidden) return;
  for (const s of S.presence?.seats || []) {
    const text = clockText(s.seat);
    const note = room.querySelector(`[data-testid="clock-${s.seat}"]`);
    if (Boolean(note) !== Boolean(text)) { renderRoom(); return; } // a clock came or went
    if (note && note.textContent !== ` · ${text}`) note.textContent = ` · ${text}`;
  }
}

// a computer took a seat, gave it back, or the person abandoned it: told to everyone
export function takeSeatNews(msg) {
  const key = { takeover: `seat_taken_${msg.reason}`, giveback: "seat_given_back", abandoned: "seat_abandoned" }[msg.type];
  S.seatNews = { type: msg.type, seat: msg.seat, text: t(key, { name: msg.name }) };
  renderRoom();
}

const left = (seconds) => Math.max(0, Math.ceil(seconds - (performance.now() - S.clocksAt) / 1000));
// a time bank counting down: "1:30" from a minute on (the Lobby offered "1 min", and the
// strip said "60 s"), then "59 s"
const bankText = (s) => (s >= 60 ? `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}` : `${s} s`);

// a seat's person is away and their grace runs (no computer plays the seat yet), the game on
const inGrace = (c) => Boolean(c) && !c.abandoned && !S.view?.over && !c.taken && c.grace != null;

function clockText(seat) {
  const c = S.clocks?.seats?.[seat];
  if (!c) return "";
  let text = "";
  if (c.abandoned) text = t("clock_abandoned");
  // a finished game has no clock: a seat a computer played when it ended said "a computer
  // plays (back within 0 s)" behind the end window (an abandoned seat stays so)
  else if (S.view?.over) text = "";
  else if (c.taken) text = t("clock_computer_plays", { s: left(c.back_by ?? 0) });
  else if (inGrace(c)) text = t("clock_grace", { s: left(c.grace) });
  else if (c.running && c.move !== null) {
    const gone = (performance.now() - S.clocksAt) / 1000;
    // a table without a time bank says nothing of one (a bank used up still says 0 s)
    text = S.clocks.clock?.bank_s
      ? t("clock_move", { s: left(c.move), bank: bankText(Math.max(0, Math.ceil((c.bank ?? 0) - Math.max(0, gone - c.move)))) })
      : t("clock_move_only", { s: left(c.move) });
  }
  return text;
}

function clockNote(seat) {
  const text = clockText(seat);
  return text ? h("span", { class: "clocknote", testid: `clock-${seat}` }, ` · ${text}`) : null;
}

function newsBox() {
  const news = S.seatNews ? S.seatNews.text : "";
  const me = S.view?.seat;
  const mine = me !== null && me !== undefined ? S.clocks?.seats?.[me] : null;
  return h("div", { class: "seatnews" },
    h("p", { role: "status", "aria-live": "polite", testid: "seat-news" }, news),
    mine && mine.taken && !mine.abandoned && !S.view?.over // (nothing to come back to)
      ? h("button", { type: "button", testid: "i-am-back", onclick: () => send({ type: "back" }) }, t("i_am_back"))
      : null);
}

// a seat in words: its person, what kind of free seat it is, or the computer with its level
// (the room strip, and the invitation page in lobby.js)
export function seatLabel(s) {
  if (s.kind === "open") return t("seat_open");
  if (s.kind === "invited") return t("seat_invited");
  if (s.kind === "computer") return `${s.name} · ${tMaybe(`level_${s.level}`) ?? s.level}`;
  return s.name;
}

function seatsBox(p) {
  const me = S.view?.seat ?? S.session?.seat;
  return h("ul", { class: "seats", testid: "seats", "aria-label": t("seats") }, p.seats.map((s) => {
    // (a person whose grace runs is said disconnected by the clock's note: not twice)
    const grace = !s.connected && inGrace(S.clocks?.seats?.[s.seat]);
    const online = s.kind === "person" && !grace ? (s.connected > 0 ? t("online", { n: s.connected }) : t("offline")) : "";
    return h("li", { class: `seatchip ${s.kind} ${s.connected ? "on" : ""}`, testid: `seat-${s.seat}` },
      h("span", { class: "dot", "aria-hidden": "true" }, s.kind === "person" ? (s.connected ? "●" : "○") : ""),
      seatLabel(s), s.seat === me ? ` (${t("you_short")})` : "",
      online ? h("span", { class: "sr-only" }, ` — ${online}`) : null,
      clockNote(s.seat));
  }));
}

function inviteBox() {
  if (!S.invite) return null;
  const url = inviteUrl(S.invite);
  const note = h("span", { class: "note", role: "status", testid: "copy-note" });
  return h("div", { class: "invite", testid: "invite" },
    h("label", { for: "invite-link" }, t("invite_link")),
    h("input", { id: "invite-link", testid: "invite-link", type: "text", readonly: true, value: url, onfocus: (e) => e.target.select() }),
    h("button", { type: "button", testid: "copy-invite", onclick: async () => {
      try { await navigator.clipboard.writeText(url); note.textContent = t("copied"); } catch {
        const input = document.getElementById("invite-link"); input.select(); note.textContent = t("copy_by_hand");
      }
    } }, t("copy")), note);
}

// a line as the server sends it on (its whitespace runs made single spaces)
const oneLine = (text) => text.trim().split(/\s+/).join(" ");
// the refusals of a chat line: said under the input, which keeps the line
const CHAT_REFUSALS = new Set(["rate_limited", "chat_too_long", "bad_message", "not_saved", "not_seated"]);
// (a line waits this long for its echo before the same line may be sent again; one with no
// answer for longer is forgotten: a lost connection)
const CHAT_WAIT_MS = 5000;
const CHAT_FORGET_MS = 30000;

// an error that answers a line we sent (the server answers a connection's messages in turn:
// the oldest line on its way): true when it was the chat's. The line stays in the input (put
// back if the input was emptied meanwhile), the sentence under it (a polite live region);
// it was lost, the input cleared as it was sent
export function takeChatRefusal(msg) {
  if (!chat?.sending.length || !CHAT_REFUSALS.has(msg.code)) return false;
  const line = chat.sending.shift();
  if (!chat.input.value.trim()) chat.input.value = line.text;
  chat.note.textContent = msg.message || msg.code;
  return true;
}

// the chat is built once per table and updated in place, never drawn anew: the input keeps
// its text, focus, cursor, selection and composition (IME, dead keys), the log its scroll
let chat = null;

function makeChat() {
  const input = h("input", { id: "chat-text", testid: "chat-text", type: "text", maxlength: String(CHAT_MAX), autocomplete: "off" });
  // the input keeps the line until the server sends it back (takeChat) or refuses it
  const submit = () => {
    const text = input.value.trim();
    if (!text) return;
    const line = oneLine(text);
    const now = performance.now();
    c.sending = c.sending.filter((l) => now - l.at < CHAT_FORGET_MS);
    if (c.sending.some((l) => l.text === line && now - l.at < CHAT_WAIT_MS)) return; // (on its way)
    if (send({ type: "chat", text })) { c.sending.push({ text: line, at: now }); c.note.textContent = ""; }
  };
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.isComposing) { e.preventDefault(); e.stopPropagation(); submit(); }
  });
  const c = {
    table: S.session?.table, input, key: null, mutesKey: null, atEnd: true, sending: [], // (the lines on their way)
    note: h("p", { class: "note chatnote", role: "status", testid: "chat-note" }),
    summary: h("summary", {}),
    log: h("ol", { class: "chatlog", testid: "chat-log", "aria-live": "polite" }),
    label: h("label", { for: "chat-text", class: "sr-only" }),
    send: h("button", { type: "button", testid: "chat-send", onclick: submit }),
    mutes: h("div", { class: "mutes", role: "group" }),
  };
  // the reader at the newest line stays there as lines come; one who scrolled up to older
  // lines stays where they are
  c.log.addEventListener("scroll", () => {
    c.atEnd = c.log.scrollTop + c.log.clientHeight >= c.log.scrollHeight - 4;
  }, { passive: true });
  c.details = h("details", { class: "chat", testid: "chat", open: S.ui.chatOpen, ontoggle: () => {
    S.ui.chatOpen = c.details.open;
    if (c.details.open) toNewest(c); // (opened, or reopened after a reload: the newest line)
  } }, c.summary, h("div", { class: "chatpanel" }, c.log,
    h("div", { class: "row" }, c.label, input, c.send), c.note, c.mutes));
  return c;
}

// Escape closes the open chat (it lies over the table) wherever the focus is on the page, but
// in a window, which Escape closes first; the focus goes to the chat's title
document.addEventListener("keydown", (e) => {
  if (e.key !== "Escape" || e.isComposing || e.defaultPrevented || !chat?.details.open) return;
  if (document.querySelector("dialog[open]")) return;
  e.preventDefault();
  chat.details.open = false;
  chat.summary.focus();
});

function toNewest(c) {
  c.log.scrollTop = c.log.scrollHeight;
  c.atEnd = true;
}

const setText = (el, text) => { if (el.textContent !== text) el.textContent = text; };

function chatBox() {
  if (S.view?.seat === null || S.view?.seat === undefined) { chat = null; return null; } // spectators neither write nor read
  if (!chat || chat.table !== S.session?.table) chat = makeChat();
  const c = chat;
  const muted = new Set(mutedNames());
  const names = [...new Set((S.presence?.seats || []).filter((s) => s.kind === "person" && s.seat !== S.view.seat).map((s) => s.name))];
  const lines = S.chat.filter((l) => !muted.has(l.name));
  setText(c.summary, `${t("chat")}${lines.length ? ` (${lines.length})` : ""}`);
  setText(c.label, t("chat_say"));
  setText(c.send, t("send"));
  const key = JSON.stringify(lines.map((l) => [l.version, l.seat, l.name, l.text]));
  if (key !== c.key) {
    const top = c.log.scrollTop;
    c.log.replaceChildren(...lines.map((l) => h("li", {}, h("strong", {}, l.name), ": ", l.text)));
    c.key = key;
    if (c.atEnd) toNewest(c); else c.log.scrollTop = top;
  }
  const mutesKey = JSON.stringify([S.lang, names, [...muted]]);
  if (mutesKey !== c.mutesKey) {
    c.mutesKey = mutesKey;
    c.mutes.setAttribute("aria-label", t("mute"));
    c.mutes.hidden = !names.length;
    const focused = c.mutes.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
    c.mutes.replaceChildren(...names.map((n) => h("button", {
      type: "button", class: "small", testid: `mute-${n}`, "aria-pressed": String(muted.has(n)),
      onclick: () => toggleMute(n),
    }, t("mute_name", { name: n }))));
    if (focused) c.mutes.querySelector(`[data-testid="${CSS.escape(focused)}"]`)?.focus();
  }
  return c.details;
}

// the row of seats where it was scrolled to; when the turn passes, the acting seat's clock
// brought into sight, and kept there as its chip grows (its clock's text comes a tick later)
// until the person scrolls the row themselves
let follow = { turn: undefined, left: null };
function keepSeatsInSight(row, scrolled) {
  if (!row) return;
  row.scrollLeft = scrolled;
  const turn = S.view?.turn;
  if (turn !== follow.turn) follow = { turn, left: scrolled }; // (a new turn: follow its seat)
  if (follow.left === null || Math.abs(scrolled - follow.left) > 1) { follow.left = null; return; }
  const chip = turn === null || turn === undefined ? null : row.querySelector(`[data-testid="seat-${turn}"]`);
  if (chip) {
    const box = row.getBoundingClientRect();
    const at = chip.getBoundingClientRect();
    // its right end first (the clock), then as much of its start as fits
    if (at.right > box.right) row.scrollLeft += at.right - box.right;
    else if (at.left < box.left) row.scrollLeft -= Math.min(box.left - at.left, box.right - at.right);
  }
  follow.left = row.scrollLeft;
}

export function renderRoom() {
  const el = document.getElementById("room");
  if (!el) return;
  const p = S.presence;
  if (!S.session || !p) { el.replaceChildren(); el.hidden = true; chat = null; return; }
  el.hidden = false;
  const waiting = p.status === "waiting";
  const focused = el.contains(document.activeElement) && !chat?.details.contains(document.activeElement) ? document.activeElement.id : null;
  // (a phone scrolls the row of seats sideways: drawn anew with every message of the table, a
  // move or a chat line, it went back to its start, and the acting seat's clock past the edge
  // could not be read)
  const scrolled = el.querySelector(".roomrow")?.scrollLeft ?? 0;
  const parts = [
    h("div", { class: "roomrow" },
      waiting ? h("strong", { class: "waiting", testid: "waiting" }, t("waiting_players")) : null,
      seatsBox(p),
      p.spectators ? h("span", { class: "note", testid: "spectators" }, t("spectators_n", { n: p.spectators })) : null),
    waiting ? inviteBox() : null,
    S.clocks || S.seatNews ? newsBox() : null,
    chatBox()].filter(Boolean);
  // the parts before the chat are drawn anew; the chat's node is never taken out of the page
  // (taking it out loses the focus, the cursor and the log's scroll)
  for (const child of [...el.children]) if (!parts.includes(child)) child.remove();
  parts.forEach((part, i) => { if (el.children[i] !== part) el.insertBefore(part, el.children[i] ?? null); });
  if (chat?.atEnd && chat.details.open) toNewest(chat); // (a log first drawn while out of the page)
  keepSeatsInSight(el.querySelector(".roomrow"), scrolled);
  if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
}
