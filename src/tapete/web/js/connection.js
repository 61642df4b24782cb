// The table's WebSocket: start, resume or watch a table; the messages in (view, hint, error)
// and out (act, hint, sync). See docs/dev/protocol.md for the messages.

import { hideDialog } from "./dom.js";
import { S, blocked, myTurn, resetTableState, screen, watching } from "./state.js";
import { refusal, t } from "./i18n.js";
import { kindOf } from "./kinds.js";
import { loadHistory, takeEvents, takeMissed, takeRestored } from "./history.js";
import { holdDealEnd, keepUpWithTheClock, noteTalon } from "./deal_end.js";
import { takeHint } from "./hints.js";
import { api, leaveWatchUrl, rememberTable, storeSession } from "./session.js";
import { takeChat, takeChatRefusal, takeClocks, takePresence, takeSeatNews } from "./room.js";

// how long a refused move's "The table has changed: look again and choose again." stays in
// the status line: the sync it asks for brings a view at once (another tab's card, a
// computer's), and a view wipes the error; the person saw another card played with no word why
const STALE_KEEP_MS = 4000;

export function setStatus(text) {
  const el = document.getElementById("status");
  if (el.textContent !== text) el.textContent = text;
}

// a new table: the person at seat 0, one level per computer seat (the kind says how many)
export async function startTable(choice, name, seed = null) {
  const computers = (kindOf(choice.game)?.seats ?? 1) - 1;
  const body = { game: choice.game, profile: choice.profile, name, language: S.lang,
    levels: choice.levels.slice(0, computers) };
  if (seed !== null) body.seed = seed;
  const res = await api("/api/tables", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(refusal(res));
  storeSession({ table: res.body.table, token: res.body.token, seat: res.body.seat ?? 0, ranked: res.body.ranked !== false });
  leaveWatchUrl();
  rememberTable({ ...S.session, game: choice.game, profile: choice.profile, name, started: Date.now() });
  resetTableState();
  connect();
}

export function resumeTable(entry) {
  storeSession({ table: entry.table, token: entry.token, seat: entry.seat ?? 0 });
  leaveWatchUrl();
  resetTableState();
  hideDialog("newgame");
  screen.table();
  connect();
}

// watching: a spectator's connection has no token and gets the public view (seat null)
export function watchTable(table) {
  S.session = { table, token: null, seat: null, watch: true }; // never stored: it is no seat
  S.notice = null;
  resetTableState();
  connect();
  // a table whose spectators see it some moves behind says so beside "Watching table n"
  api(`/api/tables/${encodeURIComponent(table)}`).then((res) => {
    if (res.ok && S.session?.table === table) { S.watchDelay = res.body.spectator_delay || 0; screen.table(); }
  }).catch(() => {});
}

export function connect() {
  if (!S.session) return;
  if (S.ws) { S.ws.onclose = null; S.ws.close(); }
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const { table, token } = S.session;
  // (patches=1: after the first view, only what changed in it: docs/dev/protocol.md, "Patches")
  // the seat's token is offered as a subprotocol, out of the address (no token: watch)
  const protocols = token ? ["tapete", `tapete.token.${token}`] : ["tapete"];
  const ws = new WebSocket(`${proto}://${location.host}/ws/${encodeURIComponent(table)}?lang=${S.lang}&patches=1`, protocols);
  S.ws = ws;
  if (!S.log.length) loadHistory(); // a reload: What happened comes back from this tab's storage
  // back after a lost connection: ask for the events missed since the version we hold
  ws.onopen = () => {
    S.wsAttempts = 0; S.resynced = true;
    const since = S.view && S.version !== null ? S.version : null;
    S.catchUp = since === null ? null : { since, first: null, live: 0 };
    ws.send(JSON.stringify(since !== null ? { type: "sync", since } : { type: "sync" }));
  };
  ws.onmessage = (m) => {
    let msg;
    try { msg = JSON.parse(m.data); } catch { return; }
    onMessage(msg);
  };
  ws.onclose = () => {
    if (S.ws !== ws || !S.session) return;
    S.wsAttempts += 1;
    // play waits while the server is away, and the table says so (no silent clicks)
    if (!S.offline) { S.offline = true; S.pending = false; screen.table(); }
    setStatus(t("reconnecting"));
    setTimeout(() => { if (S.ws === ws) connect(); }, Math.min(500 * S.wsAttempts, 4000));
  };
}

// a tab's first view of a game under way, with no history of it kept: the moves made before
// this page connected (the computers' first bids while the page opened, a game followed on
// another device) come as the events since version 0, put in their place in What happened
// (the server sends only the view when its history no longer reaches back that far)
function askEarlierMoves(msg) {
  if (S.log.length || S.catchUp || msg.version < 1 || msg.view?.over) return;
  S.catchUp = { since: 0, first: msg.version, live: 0 };
  send({ type: "sync", since: 0 });
}

export function send(msg) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) { S.ws.send(JSON.stringify(msg)); return true; }
  return false;
}

// send one of view.legal (the version says which view the choice was made on)
export function act(action) {
  if (blocked() || !S.view) return;
  if (send({ type: "act", version: S.version, action })) {
    S.pending = true; S.hint = null; S.errorUntil = 0; // (the view that answers it says the rest)
    screen.table();
  }
}

// the whole score sheet of a view message: the server sends it whole once (sheet_from 0: the
// first message of a connection, an answer to sync) and then only its rows from sheet_from on,
// which follow the rows this client holds; null when rows are missing (ask for the whole view)
export function wholeSheet(msg, prev) {
  const rows = Array.isArray(msg.view?.sheet) ? msg.view.sheet : null;
  const from = msg.sheet_from || 0;
  if (!rows || !from) return rows;
  const held = prev?.sheet || [];
  return held.length < from ? null : held.slice(0, from).concat(rows);
}

// a patch message as the view message it stands for: the view of version patch_of that this
// page holds (prev, at version), without the keys removed, with the patch's keys put over it,
// and the sheet's new rows after the ones held (docs/dev/protocol.md, "Patches"); null when
// this page does not hold that view (ask for the whole view)
export function patchedView(msg, prev, version) {
  if (!prev || version !== msg.patch_of) return null;
  const view = { ...prev };
  for (const key of msg.removed || []) delete view[key];
  Object.assign(view, msg.view);
  if (Array.isArray(msg.view?.sheet)) {
    const sheet = wholeSheet(msg, prev);
    if (!sheet) return null;
    view.sheet = sheet;
  }
  return { type: "view", version: msg.version, view, sheet_from: 0, events: msg.events, clocks: msg.clocks };
}

export function onMessage(msg) {
  if (msg.type === "patch") {
    const whole = patchedView(msg, S.view, S.version);
    if (!whole) { send({ type: "sync" }); return; }
    msg = whole;
  }
  if (msg.type === "view") {
    // an older view; but a connection's first view is the server's word, even behind what
    // this page held (a server whose database lost its last writes)
    if (S.version !== null && msg.version < S.version && !S.resynced) return;
    const prev = S.view;
    const sheet = wholeSheet(msg, prev);
    if (msg.sheet_from && sheet === null) { send({ type: "sync" }); return; }
    if (sheet) msg.view.sheet = sheet;
    const newDeal = prev && msg.view.deal_number !== prev.deal_number;
    // back after a reconnection with things we did not see: the last words are no longer news
    if (S.resynced && S.version !== null && msg.version !== S.version && !msg.events?.length) S.said = [];
    S.resynced = false;
    const wasOffline = S.offline;
    S.version = msg.version; S.pending = false; S.offline = false;
    if (performance.now() >= S.errorUntil) S.error = null; // (but a refused move's, a while)
    takeClocks(msg.clocks);
    if (!watching()) holdDealEnd(prev, msg); // the end of a deal waits for the player
    const c = S.catchUp;
    if (c && c.first === null) c.first = msg.version; // the versions after c.since it skips come in the catch-up
    const lines = takeEvents(msg.events);
    takeRestored(msg, lines);
    if (lines && c && c.first !== msg.version) c.live += lines;
    S.view = msg.view;
    noteTalon(msg.view, msg.events);
    keepUpWithTheClock(); // (a held deal's end while this seat's move clock runs)
    if (msg.version !== S.lastHintVersion) S.hint = null;
    if (newDeal) Object.assign(S.ui, { bid: null, contract: null, giveCard: null });
    S.ui.confirmClaim = S.ui.confirmRospis = false; // a question is about the view it was asked on
    // "Last trick" shows it until the next card, not until it is switched off
    if ((msg.events || []).some((e) => e.type === "action")) S.ui.showLast = false;
    if (S.ui.giveCard && !S.view.hand.includes(S.ui.giveCard)) S.ui.giveCard = null;
    if (!prev) hideDialog("newgame");
    if (!prev) askEarlierMoves(msg);
    if (!prev || wasOffline) screen.table(); else screen.soon();
  } else if (msg.type === "events") {
    // the events missed while away, version by version (the current view follows): those
    // the connection's first view jumped over, in their place before the moves seen since
    const c = S.catchUp;
    if (c && msg.since === c.since) {
      const upto = c.first === null ? msg.version : c.first;
      takeMissed((msg.steps || []).filter((st) => st.version > c.since && st.version <= upto), c.live);
      S.catchUp = null; S.resynced = false;
    }
  } else if (msg.type === "presence") {
    takePresence(msg);
  } else if (msg.type === "chat") {
    takeChat(msg);
  } else if (msg.type === "takeover" || msg.type === "giveback" || msg.type === "abandoned") {
    takeSeatNews(msg);
  } else if (msg.type === "hint") {
    takeHint(msg);
    screen.table();
  } else if (msg.type === "error") {
    if (takeChatRefusal(msg)) return; // (a chat line's: said in the chat, under the line kept)
    S.pending = false;
    if (msg.code === "unknown_table" || msg.code === "bad_token" || msg.code === "no_spectators") {
      if (watching()) { S.notice = msg.message || t("no_such_table"); S.session = null; leaveWatchUrl(); } else storeSession(null);
      resetTableState();
      if (S.ws) { S.ws.onclose = null; S.ws.close(); S.ws = null; }
      screen.table(); screen.newGame(); return;
    }
    S.error = msg.message || msg.code;
    // (the view of the table as it is now comes at once: the sentence stays over it, read
    // politely by the status line, until the person acts again or some seconds have passed)
    S.errorUntil = msg.code === "stale_version" ? performance.now() + STALE_KEEP_MS : 0;
    if (msg.code === "stale_version") send({ type: "sync" });
    screen.table();
  }
}

// ask the strongest computer player for a move (only the seat to act may)
export function askHint() {
  if (myTurn()) send({ type: "hint" });
}
