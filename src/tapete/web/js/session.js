// What this browser keeps: the seat it plays (its token, so that a reload resumes the game),
// the tables it started (the Games window lists them), and api() for the HTTP calls.

import { S, STORE_TABLE, STORE_TABLES } from "./state.js";

export async function api(path, opts = {}) {
  const res = await fetch(path, opts);
  let body = null;
  try { body = await res.json(); } catch { body = null; }
  return { ok: res.ok, status: res.status, body };
}

// the seat being played (null: none); a spectator's session is never stored (it is no seat)
export function storeSession(sess) {
  S.session = sess;
  if (sess) S.notice = null;
  if (sess) localStorage.setItem(STORE_TABLE, JSON.stringify(sess));
  else localStorage.removeItem(STORE_TABLE);
}

export function storedSession() {
  try { return JSON.parse(localStorage.getItem(STORE_TABLE) || "null"); } catch { return null; }
}

// every table this browser started, newest first (the token is the seat's secret: it stays here)
export function savedTables() {
  try { const l = JSON.parse(localStorage.getItem(STORE_TABLES) || "[]"); return Array.isArray(l) ? l : []; } catch { return []; }
}
export function rememberTable(entry) {
  const list = [entry, ...savedTables().filter((e) => e.table !== entry.table)].slice(0, 12);
  localStorage.setItem(STORE_TABLES, JSON.stringify(list));
}
export function forgetTable(table) {
  localStorage.setItem(STORE_TABLES, JSON.stringify(savedTables().filter((e) => e.table !== table)));
}

export const watchUrl = (table) => `${location.origin}/?watch=${encodeURIComponent(table)}`;
// the link to a finished game's replay (every hand face up)
export const replayUrl = (table) => `${location.origin}/?replay=${encodeURIComponent(table)}`;
export function leaveWatchUrl() {
  if (location.search) history.replaceState(null, "", location.pathname);
}
