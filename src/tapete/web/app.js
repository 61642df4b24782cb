// Tapete web client: renders the server's per-seat views and sends actions back. Plain ES
// modules, no build step, no dependencies; this file starts the page and wires the modules
// (the map of js/ is in docs/web.md). The client holds no rule logic and knows no game by
// name: every enabled control comes from `view.legal`, the games from /api/config
// (see docs/dev/protocol.md and contract.md).

import { dialogOpen } from "./js/dom.js";
import { S, screen } from "./js/state.js";
import { initialLang, loadLang, t } from "./js/i18n.js";
import { api, leaveWatchUrl, loadMe, seatHeaders, storeSession, storedSession } from "./js/session.js";
import { connect, onMessage, watchTable } from "./js/connection.js";
import { renderChrome } from "./js/chrome.js";
import { fitBoard, renderTable } from "./js/table.js";
import { defaultChoice, renderNewGame, showNewGame } from "./js/games_window.js";
import { showRanking, showStats } from "./js/stats.js";
import { showPlayer } from "./js/player.js";
import { onKey } from "./js/keyboard.js";
import { openReplay } from "./js/replay.js";
import { renderLobby, showJoin } from "./js/lobby.js";

function renderAll() {
  renderChrome();
  renderTable();
  if (dialogOpen("newgame")) renderNewGame();
  if (dialogOpen("stats")) showStats();
  if (dialogOpen("ranking")) showRanking(S.rankingBoard);
  if (dialogOpen("lobby")) renderLobby();
}

// a burst of server messages (computers playing at no delay) draws once, at the next frame
let drawing = false;
function renderSoon() {
  if (drawing) return;
  drawing = true;
  let done = false;
  const draw = () => { if (done) return; done = true; drawing = false; renderTable(); };
  if (!document.hidden) requestAnimationFrame(draw);
  // a hidden tab has no frames, and frames can stall in a page that is not in front: draw anyway
  setTimeout(draw, document.hidden ? 16 : 100);
}

Object.assign(screen, { table: renderTable, soon: renderSoon, all: renderAll, newGame: showNewGame, player: showPlayer,
  // (short: the name stands in the score sheet's narrow columns too)
  freeSeat: (kind) => t(kind === "invited" ? "seat_invited_short" : "seat_open_short") });

async function main() {
  await loadLang(initialLang());
  try { const c = await api("/api/config"); if (c.ok) S.config = c.body; } catch { /* offline: the Games window says so */ }
  await loadMe();
  defaultChoice();
  document.addEventListener("keydown", onKey);
  window.addEventListener("resize", fitBoard);
  // a link to a finished game's replay (/?replay=ID): the replay opens over whatever the page
  // shows (the game this browser plays, else the Games window once the replay is closed)
  let replay = new URLSearchParams(location.search).get("replay");
  if (replay !== null) {
    if (/^[0-9]{1,18}$/.test(replay)) openReplay(Number(replay));
    else { S.notice = t("no_such_table"); leaveWatchUrl(); replay = null; } // (as ?replay=999 says)
  }
  const join = new URLSearchParams(location.search).get("join");
  if (join !== null) { renderAll(); await showJoin(join); return; } // an invitation: "Sit down"
  const watch = new URLSearchParams(location.search).get("watch");
  if (watch !== null) {
    if (/^[0-9]{1,18}$/.test(watch)) { watchTable(Number(watch)); renderAll(); return; }
    S.notice = t("no_such_table");
    leaveWatchUrl();
  }
  const stored = storedSession();
  if (stored?.table && stored?.token) {
    const res = await api(`/api/tables/${encodeURIComponent(stored.table)}`, { headers: seatHeaders(stored.token) }).catch(() => ({ ok: false, status: 0 }));
    if (res.ok || res.status === 0 || res.status >= 500) {
      S.session = { ...stored, seat: res.body?.seat ?? stored.seat ?? 0, ranked: res.body?.ranked ?? stored.ranked };
      S.invite = res.body?.invite ?? null;
      renderAll();
      connect();
      return;
    }
    storeSession(null);
  }
  renderAll();
  if (replay === null) showNewGame();
}

window.tapete = S; // for debugging in the console and for the browser tests
S.receive = (msg) => { onMessage(msg); renderTable(); }; // feed a server message by hand and draw it at once (debugging, tests)
main();
