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
  if (S.clocks && !ticker) ticker = setInterval(() => { if (S.clocks) renderRoom(); else { clearInterval(ticker); ticker = null; } }, 1000);
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

function clockNote(seat) {
  const c = S.clocks?.seats?.[seat];
  if (!c) return null;
  let text = "";
  if (c.abandoned) text = t("clock_abandoned");
  else if (c.taken) text = t("clock_computer_plays", { s: left(c.back_by ?? 0) });
  else if (c.grace !== null) text = t("clock_grace", { s: left(c.grace) });
  else if (c.running && c.move !== null) {
    const gone = (performance.now() - S.clocksAt) / 1000;
    // a table without a time bank says nothing of one (a bank used up still says 0 s)
    text = S.clocks.clock?.bank_s
      ? t("clock_move", { s: left(c.move), bank: bankText(Math.max(0, Math.ceil((c.bank ?? 0) - Math.max(0, gone - c.move)))) })
      : t("clock_move_only", { s: left(c.move) });
  }
  return text ? h("span", { class: "clocknote", testid: `clock-${seat}` }, ` · ${text}`) : null;
}

function newsBox() {
  const news = S.seatNews ? S.seatNews.text : "";
  const me = S.view?.seat;
  const mine = me !== null && me !== undefined ? S.clocks?.seats?.[me] : null;
  return h("div", { class: "seatnews" },
    h("p", { role: "status", "aria-live": "polite", testid: "seat-news" }, news),
    mine && mine.taken && !mine.abandoned
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
    const online = s.kind === "person" ? (s.connected > 0 ? t("online", { n: s.connected }) : t("offline")) : "";
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

function chatBox() {
  if (S.view?.seat === null || S.view?.seat === undefined) return null; // spectators neither write nor read
  const muted = new Set(mutedNames());
  const names = [...new Set((S.presence?.seats || []).filter((s) => s.kind === "person" && s.seat !== S.view.seat).map((s) => s.name))];
  const input = h("input", { id: "chat-text", testid: "chat-text", type: "text", maxlength: String(CHAT_MAX), autocomplete: "off" });
  const submit = () => {
    const text = input.value.trim();
    if (text && send({ type: "chat", text })) input.value = "";
  };
  input.addEventListener("keydown", (e) => { if (e.key === "Enter") { e.preventDefault(); e.stopPropagation(); submit(); } });
  const lines = S.chat.filter((c) => !muted.has(c.name));
  return h("details", { class: "chat", testid: "chat", open: S.ui.chatOpen, ontoggle: (e) => { S.ui.chatOpen = e.target.open; } },
    h("summary", {}, t("chat"), lines.length ? ` (${lines.length})` : ""),
    h("ol", { class: "chatlog", testid: "chat-log", "aria-live": "polite" },
      lines.map((c) => h("li", {}, h("strong", {}, c.name), ": ", c.text))),
    h("div", { class: "row" },
      h("label", { for: "chat-text", class: "sr-only" }, t("chat_say")), input,
      h("button", { type: "button", testid: "chat-send", onclick: submit }, t("send"))),
    names.length ? h("div", { class: "mutes", role: "group", "aria-label": t("mute") }, names.map((n) => h("button", {
      type: "button", class: "small", testid: `mute-${n}`, "aria-pressed": String(muted.has(n)),
      onclick: () => toggleMute(n),
    }, t("mute_name", { name: n })))) : null);
}

export function renderRoom() {
  const el = document.getElementById("room");
  if (!el) return;
  const p = S.presence;
  if (!S.session || !p) { el.replaceChildren(); el.hidden = true; return; }
  el.hidden = false;
  const waiting = p.status === "waiting";
  const focused = document.activeElement?.id;
  const typed = document.getElementById("chat-text")?.value ?? "";
  el.replaceChildren(...[
    h("div", { class: "roomrow" },
      waiting ? h("strong", { class: "waiting", testid: "waiting" }, t("waiting_players")) : null,
      seatsBox(p),
      p.spectators ? h("span", { class: "note", testid: "spectators" }, t("spectators_n", { n: p.spectators })) : null),
    waiting ? inviteBox() : null,
    S.clocks || S.seatNews ? newsBox() : null,
    chatBox()].filter(Boolean)); // (replaceChildren would write a null as text)
  const input = document.getElementById("chat-text");
  if (input) input.value = typed;
  if (focused && document.getElementById(focused)) document.getElementById(focused).focus();
}
