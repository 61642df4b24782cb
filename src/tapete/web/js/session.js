// What this browser keeps: the seat it plays (its token, so that a reload resumes the game),
// the tables it started (the Games window lists them), who is signed in, and api() for the
// HTTP calls.

import { S, STORE_TABLE, STORE_TABLES } from "./state.js";

const SAFE = new Set(["GET", "HEAD"]);

async function call(path, opts) {
  const method = (opts.method || "GET").toUpperCase();
  const headers = { ...(opts.headers || {}) };
  // a signed-in browser proves every state-changing request is the page's own
  if (!SAFE.has(method) && S.csrf) headers["X-CSRF-Token"] = S.csrf;
  const res = await fetch(path, { ...opts, headers, credentials: "same-origin" });
  let body = null;
  try { body = await res.json(); } catch { body = null; }
  return { ok: res.ok, status: res.status, body };
}

// a seat's token travels in a header, never in the address (a proxy's log keeps addresses)
export const seatHeaders = (token) => (token ? { "X-Tapete-Token": token } : {});

export async function api(path, opts = {}) {
  const sent = S.csrf;
  const res = await call(path, opts);
  // another tab signed in or out meanwhile: learn the session's token and try once more
  if (res.status === 403 && !SAFE.has((opts.method || "GET").toUpperCase())) {
    await loadMe();
    if (S.csrf !== sent) return call(path, opts);
  }
  return res;
}

// who is signed in (GET /api/me): S.user ({id, name} or null) and the session's CSRF token;
// the session itself is an HttpOnly cookie the page never sees
export function setMe(body) {
  S.user = body?.user ?? null;
  S.csrf = body?.csrf ?? null;
}
export async function loadMe() {
  try { const res = await call("/api/me", {}); if (res.ok) setMe(res.body); } catch { /* offline: a guest for now */ }
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
