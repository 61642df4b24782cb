// Tapete web client: renders the server's per-seat views and sends actions back.
// Plain ES module, no build step, no dependencies. The client holds no rule logic:
// every enabled control comes from `view.legal` (see docs/dev/protocol.md, contract.md).

const LANGS = ["es", "pt", "en"];
const STORE_TABLE = "tapete.table";
const STORE_LANG = "tapete.lang";
const STORE_NAME = "tapete.name";
const STORE_POINTS = "tapete.showPoints";
const STORE_TABLES = "tapete.tables";
const SUIT_SYMBOL = { S: "♠", C: "♣", D: "♦", H: "♥" };
const RANK_SHOWN = { A: "A", T: "10", K: "K", Q: "Q", J: "J", 9: "9", 8: "8", 7: "7" };

const S = {
  config: null,
  lang: "en",
  dict: {},
  fallback: {},
  session: null, // {table, token, seat}
  ws: null,
  wsAttempts: 0,
  version: null,
  view: null,
  event: null,
  hint: null,
  error: null,
  pending: false,
  log: [],
  ui: {
    bid: null, contract: null, giveCard: null, sing: true, showLast: false,
    showPoints: localStorage.getItem(STORE_POINTS) !== "0",
    choice: { game: "mil", profile: "club", levels: ["rules", "rules"] },
  },
};

// ---------------------------------------------------------------- helpers
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "testid") el.dataset.testid = v;
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}
const $ = (sel, root = document) => root.querySelector(sel);

function t(key, params = {}) {
  let s = S.dict[key] ?? S.fallback[key] ?? key;
  for (const [k, v] of Object.entries(params)) s = s.split(`{${k}}`).join(String(v));
  return s;
}
const rankOf = (c) => c[0];
const suitOf = (c) => c[1];
function cardName(c) {
  return t("card_name", { rank: t(`rank_${rankOf(c)}`), suit: t(`suit_${suitOf(c)}`) });
}
const cardShort = (c) => `${RANK_SHOWN[rankOf(c)]}${SUIT_SYMBOL[suitOf(c)]}`;
const suitLabel = (s) => `${t(`suit_${s}`)} ${SUIT_SYMBOL[s]}`;
const playerName = (seat) => (S.view?.players?.[seat] ?? `#${seat}`);
const fmt = (n) => (typeof n === "number" ? (Number.isInteger(n) ? String(n) : n.toFixed(1)) : String(n ?? "—"));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// ---------------------------------------------------------------- i18n
async function loadLang(lang) {
  if (!LANGS.includes(lang)) lang = "en";
  const get = async (l) => (await fetch(`/static/i18n/${l}.json`)).json();
  if (!Object.keys(S.fallback).length) S.fallback = await get("en");
  S.dict = lang === "en" ? S.fallback : await get(lang);
  S.lang = lang;
  localStorage.setItem(STORE_LANG, lang);
  document.documentElement.lang = lang;
  document.title = t("app_title");
}
function initialLang() {
  const stored = localStorage.getItem(STORE_LANG);
  if (LANGS.includes(stored)) return stored;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const base = String(l).slice(0, 2).toLowerCase();
    if (LANGS.includes(base)) return base;
  }
  return "en";
}
async function setLang(lang) {
  await loadLang(lang);
  renderAll();
}

// ---------------------------------------------------------------- network
async function api(path, opts = {}) {
  const res = await fetch(path, opts);
  let body = null;
  try { body = await res.json(); } catch { body = null; }
  return { ok: res.ok, status: res.status, body };
}

function storeSession(sess) {
  S.session = sess;
  if (sess) S.notice = null;
  if (sess) localStorage.setItem(STORE_TABLE, JSON.stringify(sess));
  else localStorage.removeItem(STORE_TABLE);
}

async function startTable(choice, name, seed = null) {
  const body = { game: choice.game, profile: choice.profile, name, language: S.lang,
    levels: choice.levels.slice(0, choice.game === "mil" ? 2 : 1) };
  if (seed !== null) body.seed = seed;
  const res = await api("/api/tables", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(res.body?.error || `HTTP ${res.status}`);
  storeSession({ table: res.body.table, token: res.body.token, seat: res.body.seat ?? 0, ranked: res.body.ranked !== false });
  leaveWatchUrl();
  rememberTable({ ...S.session, game: choice.game, profile: choice.profile, name, started: Date.now() });
  resetTableState();
  connect();
}

// every table this browser started, newest first (the token is the seat's secret: it stays here)
function savedTables() {
  try { const l = JSON.parse(localStorage.getItem(STORE_TABLES) || "[]"); return Array.isArray(l) ? l : []; } catch { return []; }
}
function rememberTable(entry) {
  const list = [entry, ...savedTables().filter((e) => e.table !== entry.table)].slice(0, 12);
  localStorage.setItem(STORE_TABLES, JSON.stringify(list));
}
function forgetTable(table) {
  localStorage.setItem(STORE_TABLES, JSON.stringify(savedTables().filter((e) => e.table !== table)));
}
function resumeTable(entry) {
  storeSession({ table: entry.table, token: entry.token, seat: entry.seat ?? 0 });
  leaveWatchUrl();
  resetTableState();
  hideDialog("newgame");
  renderTable();
  connect();
}

function savedGamesBox() {
  const others = savedTables().filter((e) => !S.session || e.table !== S.session.table);
  if (!others.length) return null;
  const list = h("ul", { class: "saved", testid: "saved-games" });
  for (const e of others) {
    const when = new Date(e.started || 0).toLocaleString(S.lang, { dateStyle: "short", timeStyle: "short" });
    const status = h("span", { class: "note" });
    const li = h("li", {}, h("button", { type: "button", testid: `resume-${e.table}`, onclick: () => resumeTable(e) },
      `${t(`profile_${e.profile}`)} · ${e.name || ""} · ${when}`), " ", status);
    list.append(li);
    api(`/api/tables/${encodeURIComponent(e.table)}?token=${encodeURIComponent(e.token)}`).then((res) => {
      if (res.status === 404 || res.status === 403) { forgetTable(e.table); li.remove(); return; }
      if (res.ok) status.textContent = res.body.status === "finished" ? t("finished") : t("in_progress");
    }).catch(() => {});
  }
  return h("fieldset", {}, h("legend", {}, t("your_games")), list);
}

// ---- watching: a spectator's connection has no token and gets the public view (seat null)
const watching = () => Boolean(S.session?.watch);
const watchUrl = (table) => `${location.origin}/?watch=${encodeURIComponent(table)}`;
function watchTable(table) {
  S.session = { table, token: null, seat: null, watch: true }; // never stored: it is no seat
  S.notice = null;
  resetTableState();
  connect();
}
function leaveWatchUrl() {
  if (location.search) history.replaceState(null, "", location.pathname);
}

// the running tables anyone may watch, with shareable links (the Games window)
function liveGamesBox() {
  const list = h("ul", { class: "saved", testid: "live-games" }, h("li", { class: "note" }, t("loading")));
  const box = h("fieldset", {}, h("legend", {}, t("watch_title")));
  if (S.session && !watching()) {
    const url = watchUrl(S.session.table);
    box.append(h("p", { class: "note" }, t("watch_share"), " ", h("a", { href: url, testid: "share-link" }, url)));
  }
  box.append(list);
  api("/api/tables/live").then((res) => {
    const rows = (res.ok && Array.isArray(res.body) ? res.body : [])
      .filter((r) => !S.session || watching() || r.table !== S.session.table);
    list.replaceChildren(...(rows.length ? rows.map((r) => h("li", {},
      h("a", { class: "btnlink", href: watchUrl(r.table), testid: `watch-${r.table}` }, t("watch_btn")), " ",
      `${t(`profile_${r.profile}`)} · ${(r.players || []).join(", ")}`))
      : [h("li", { class: "note" }, t("watch_none"))]));
  }).catch(() => list.replaceChildren(h("li", { class: "note" }, t("unavailable"))));
  return box;
}

function resetTableState() {
  S.view = null; S.version = null; S.event = null; S.hint = null; S.error = null;
  S.pending = false; S.log = []; S.overDismissed = false; S.finalTrick = null;
  Object.assign(S.ui, { bid: null, contract: null, giveCard: null, sing: true, showLast: false });
}

function connect() {
  if (!S.session) return;
  if (S.ws) { S.ws.onclose = null; S.ws.close(); }
  const proto = location.protocol === "https:" ? "wss" : "ws";
  const { table, token } = S.session;
  const query = token ? `token=${encodeURIComponent(token)}` : `lang=${S.lang}`; // no token: watch
  const ws = new WebSocket(`${proto}://${location.host}/ws/${encodeURIComponent(table)}?${query}`);
  S.ws = ws;
  ws.onopen = () => { S.wsAttempts = 0; ws.send(JSON.stringify({ type: "sync" })); };
  ws.onmessage = (m) => {
    let msg;
    try { msg = JSON.parse(m.data); } catch { return; }
    onMessage(msg);
  };
  ws.onclose = () => {
    if (S.ws !== ws || !S.session) return;
    S.wsAttempts += 1;
    setStatus(t("reconnecting"));
    setTimeout(() => { if (S.ws === ws) connect(); }, Math.min(500 * S.wsAttempts, 4000));
  };
}

function send(msg) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) { S.ws.send(JSON.stringify(msg)); return true; }
  return false;
}

function act(action) {
  if (S.pending || !S.view) return;
  if (send({ type: "act", version: S.version, action })) {
    S.pending = true; S.hint = null;
    renderTable();
  }
}

function onMessage(msg) {
  if (msg.type === "view") {
    const newDeal = S.view && msg.view.deal_number !== S.view.deal_number;
    if (S.version !== null && msg.version < S.version) return; // an older view
    S.version = msg.version; S.pending = false; S.error = null;
    const prev = S.view;
    if (msg.event) {
      S.event = msg.event; logEvent(msg.event);
      // keep the trick that ended the deal: the next view already belongs to the new deal
      const a = msg.event.action;
      if (msg.event.deal_end && a && a.type === "play" && prev && Array.isArray(prev.trick)) {
        S.finalTrick = [...prev.trick, { seat: msg.event.seat, card: a.card }];
      } else if (msg.event.deal_end) S.finalTrick = null;
    }
    S.view = msg.view;
    if (msg.version !== S.lastHintVersion) S.hint = null;
    if (newDeal) Object.assign(S.ui, { bid: null, contract: null, giveCard: null });
    if (S.ui.giveCard && !S.view.hand.includes(S.ui.giveCard)) S.ui.giveCard = null;
    if (!prev) hideDialog("newgame");
    renderTable();
  } else if (msg.type === "hint") {
    S.hint = { action: msg.action, reason: msg.reason, key: msg.reason_key, args: msg.reason_args };
    S.lastHintVersion = S.version;
    // put the controls on the suggestion (the person still has to press)
    const a = msg.action || {};
    if (a.type === "bid" || a.type === "contract") S.ui[a.type] = a.value;
    if (a.type === "give") S.ui.giveCard = a.card;
    renderTable();
  } else if (msg.type === "error") {
    S.pending = false;
    if (msg.code === "unknown_table" || msg.code === "bad_token") {
      if (watching()) { S.notice = msg.message || t("no_such_table"); S.session = null; leaveWatchUrl(); } else storeSession(null);
      resetTableState();
      if (S.ws) { S.ws.onclose = null; S.ws.close(); S.ws = null; }
      renderTable(); showNewGame(); return;
    }
    S.error = msg.message || msg.code;
    if (msg.code === "stale_version") send({ type: "sync" });
    renderTable();
  }
}

// ---------------------------------------------------------------- text for actions and events
function actionText(action, seat, who) {
  // who: "ev" (someone did it) or "do" (a suggestion to you)
  const p = { name: seat === null || seat === undefined ? "" : playerName(seat) };
  const a = action || {};
  switch (a.type) {
    case "bid": return t(`${who}_bid`, { ...p, value: a.value });
    case "pass": return t(`${who}_pass`, p);
    case "redeal": return t(`${who}_redeal`, { ...p, reason: t(`reason_${a.reason}`) });
    case "keep": case "keep_deal": return t(`${who}_keep`, p);
    case "rospis": return t(`${who}_rospis`, p);
    case "give": return t(`${who}_give`, { ...p, card: a.card ? cardName(a.card) : t("a_card"), to: playerName(a.to) });
    case "contract": return t(`${who}_contract`, { ...p, value: a.value });
    case "play": return t(a.marriage ? `${who}_play_marriage` : `${who}_play`, { ...p, card: cardName(a.card) });
    case "exchange": return t(`${who}_exchange`, p);
    case "marriage": return t(`${who}_marriage`, { ...p, suit: t(`suit_${a.suit}`) });
    case "close": return t(`${who}_close`, p);
    case "claim": return t(`${who}_claim`, p);
    case "decline": return t(`${who}_decline`, p);
    default: return `${p.name} ${JSON.stringify(a)}`;
  }
}

function eventText(ev) {
  if (!ev) return "";
  if (ev.deal_end) return [ev.action ? `${actionText(ev.action, ev.seat, "ev")}.` : "", dealEndText(ev.deal_end)].filter(Boolean).join(" ");
  if (ev.action) return actionText(ev.action, ev.seat, "ev");
  return "";
}

function dealEndText(r) {
  const v = S.view;
  if (!v) return t("ev_deal_end");
  if (v.game === "mariage") {
    if (r.winner === null || r.winner === undefined) return t("ev_hand_tie");
    return t("ev_hand_won", { name: playerName(r.winner), points: r.game_points, reason: t(`why_${r.reason}`) });
  }
  if (r.annulled) return t("ev_annulled");
  const scores = (r.scores || []).map((s, i) => `${playerName(i)} ${fmt(s)}`).join(" · ");
  return `${t("ev_deal_end")} ${scores}`;
}

function logEvent(ev) {
  const text = eventText(ev);
  if (!text) return;
  S.log.push(text);
  if (S.log.length > 8) S.log.shift();
}

function setStatus(text) {
  const el = $("#status");
  if (el.textContent !== text) el.textContent = text;
}

function turnText() {
  const v = S.view;
  if (!v) return "";
  if (v.over) return v.winner === null || v.winner === undefined ? t("game_over") : t("game_over_status", { name: playerName(v.winner) });
  if (v.turn === null || v.turn === undefined) return "";
  if (v.turn !== v.seat) return t("waiting_for", { name: playerName(v.turn) });
  const types = new Set((v.legal || []).map((a) => a.type));
  if (types.has("bid") || (types.has("pass") && v.game === "mil")) return t("your_turn_bid");
  if (types.has("redeal")) return t("your_turn_redeal");
  if (types.has("give")) return t("your_turn_give");
  if (types.has("contract")) return t("your_turn_contract");
  return t("your_turn_play");
}

// ---------------------------------------------------------------- cards
function cardEl(c, { enabled = false, onclick = null, cls = "", testid = null, pressed = null } = {}) {
  const red = suitOf(c) === "H" || suitOf(c) === "D";
  const b = h("button", {
    type: "button", class: `card ${red ? "red" : "black"} ${cls}`.trim(), "data-card": c,
    "aria-label": cardName(c), disabled: !enabled, onclick, testid,
    "aria-pressed": pressed === null ? null : String(pressed),
  },
  h("span", { class: "corner", "aria-hidden": "true" }, RANK_SHOWN[rankOf(c)], h("br"), SUIT_SYMBOL[suitOf(c)]),
  h("span", { class: "pip", "aria-hidden": "true" }, SUIT_SYMBOL[suitOf(c)]),
  h("span", { class: "corner bottom", "aria-hidden": "true" }, RANK_SHOWN[rankOf(c)], h("br"), SUIT_SYMBOL[suitOf(c)]));
  return b;
}
// A face-up card nobody can act on (trick, talon): still a button for uniform naming.
const shownCard = (c, cls = "") => cardEl(c, { enabled: false, cls: `shown ${cls}` });
function backs(n, cls = "") {
  const wrap = h("div", { class: `backs ${cls}`, "aria-hidden": "true" });
  for (let i = 0; i < n; i++) wrap.append(h("div", { class: "card back" }));
  return wrap;
}

// ---------------------------------------------------------------- rendering
function renderAll() {
  renderChrome();
  renderTable();
  if (dialogOpen("newgame")) renderNewGame();
  if (dialogOpen("stats")) showStats();
  if (dialogOpen("ranking")) showRanking(S.rankingTarget);
}

function renderChrome() {
  const bar = $("#topbar");
  const v = S.view;
  const profile = v?.profile || (S.ui.choice.game === "mil" ? S.ui.choice.profile : "mariage");
  bar.replaceChildren(
    h("h1", { class: "brand" }, "Tapete"),
    h("nav", { class: "tools", "aria-label": t("tools") },
      h("button", { type: "button", testid: "open-newgame", onclick: showNewGame }, t("games")),
      h("button", { type: "button", testid: "hint", onclick: askHint,
        disabled: !(v && !v.over && v.turn === v.seat) }, t("hint")),
      h("a", { class: "btnlink", testid: "rules-link", href: `/rules/${profile}?lang=${S.lang}`, target: "_blank", rel: "noopener" }, t("rules")),
      h("button", { type: "button", testid: "open-stats", onclick: showStats }, t("stats")),
      h("button", { type: "button", testid: "open-ranking", onclick: () => showRanking(S.rankingTarget || "1000") }, t("ranking")),
      langButtons("lang")),
    ...(watching() ? [h("span", { class: "chip watching", testid: "watching" }, t("watching", { n: S.session.table }))] : []),
  );
}

function langButtons(prefix) {
  return h("div", { class: "langs", role: "group", "aria-label": t("language") },
    LANGS.map((l) => h("button", {
      type: "button", testid: `${prefix}-${l}`, lang: l, "aria-pressed": String(S.lang === l),
      "aria-label": `${t(`lang_name_${l}`)} (${l.toUpperCase()})`, onclick: () => setLang(l),
    }, l.toUpperCase())));
}

function renderTable() {
  renderChrome();
  const main = $("#table");
  const active = document.activeElement;
  const focusKey = active && main.contains(active)
    ? (active.dataset.card ? `[data-card="${active.dataset.card}"]` : active.dataset.testid ? `[data-testid="${active.dataset.testid}"]` : null)
    : null;
  const wasCard = Boolean(active?.dataset?.card);
  const v = S.view;
  if (!v) {
    main.replaceChildren(h("div", { class: "empty" }, S.session ? t("connecting") : t("no_game")));
    setStatus(S.session ? t("connecting") : t("no_game"));
    return;
  }
  main.replaceChildren(v.game === "mariage" ? renderMariage(v) : renderMil(v));
  // machine-readable state for tests and assistive tools
  Object.assign(main.dataset, { version: String(S.version), phase: v.phase, game: v.game,
    myTurn: String(myTurn()), pending: String(S.pending), over: String(Boolean(v.over)),
    deals: String((v.sheet || []).length) });
  // keep keyboard focus where it was (or on the first playable card)
  if (focusKey) {
    let el = main.querySelector(focusKey);
    if ((!el || el.disabled) && wasCard) el = main.querySelector('[data-testid="hand"] .card:not([disabled])');
    if (el && !el.disabled) el.focus();
    else S.refocus = true; // the focused control went away (we acted): come back on our turn
  }
  if (S.refocus && myTurn() && !S.pending && (document.activeElement === document.body || !document.activeElement)) {
    const el = main.querySelector('[data-testid="hand"] .card:not([disabled])')
      || main.querySelector('[data-testid="actions"] button.primary:not([disabled])')
      || main.querySelector('[data-testid="actions"] button:not([disabled])');
    if (el) { el.focus(); S.refocus = false; }
  }
  const parts = [];
  if (S.error) parts.push(S.error);
  else if (S.event) parts.push(eventText(S.event));
  parts.push(turnText());
  setStatus(parts.filter(Boolean).join(" — "));
  if (v.over) showOver(); else hideDialog("over");
}

function legalOf(type) { return (S.view?.legal || []).filter((a) => a.type === type); }
const myTurn = () => S.view && !S.view.over && S.view.turn === S.view.seat;
const hintIs = (pred) => Boolean(S.hint && S.hint.action && pred(S.hint.action));

function relPos(seat) {
  const v = S.view;
  const n = v.players.length;
  const rel = (seat - (v.seat ?? 0) + n) % n; // a watcher sees the table from seat 0
  if (n === 2) return rel === 0 ? "bottom" : "top";
  return ["bottom", "left", "right"][rel];
}

// ---- hand (shared): enabled cards come from legal play/give actions
function renderHand(v) {
  const plays = legalOf("play");
  const gives = legalOf("give");
  const pairs = new Set(v.pair_cards || []);
  const choosing = myTurn() && (plays.length > 0 || gives.length > 0);
  const hand = h("div", { class: `hand ${choosing ? "choosing" : "idle"}`, testid: "hand", role: "group", "aria-label": t("your_hand") });
  v.hand.forEach((c) => {
    let enabled = false;
    let onclick = null;
    let pressed = null;
    if (!S.pending && plays.some((a) => a.card === c)) {
      enabled = true;
      onclick = () => playCard(c);
    } else if (!S.pending && gives.some((a) => a.card === c)) {
      enabled = true;
      pressed = S.ui.giveCard === c;
      onclick = () => { S.ui.giveCard = S.ui.giveCard === c ? null : c; renderTable(); };
    }
    let cls = "";
    if (pairs.has(c)) cls += " pair";
    if (S.redealJustify && S.redealJustify(c)) cls += " justify";
    if (hintIs((a) => a.card === c)) cls += " hinted";
    if (pressed) cls += " selected";
    const el = cardEl(c, { enabled, onclick, cls, pressed });
    if (cls.includes("pair")) el.title = t("pair_mark");
    hand.append(el);
  });
  return hand;
}

function playCard(c) {
  const variants = legalOf("play").filter((a) => a.card === c);
  if (!variants.length) return;
  let chosen = variants[0];
  if (variants.length > 1) chosen = variants.find((a) => Boolean(a.marriage) === S.ui.sing) || variants[0];
  act(chosen);
  S.ui.sing = true; // each lead of a pair offers the announcement again
}

function trickArea(trick, label, cls = "") {
  const area = h("div", { class: `trick ${cls}`, testid: cls.includes("last") ? "last-trick" : "trick", role: "group", "aria-label": label });
  for (const p of trick) {
    area.append(h("div", { class: `slot ${relPos(p.seat)}`, "data-seat": p.seat }, shownCard(p.card)));
  }
  return area;
}

function lastTrickOf(v) {
  if (v.game === "mil") {
    const tr = v.tricks || [];
    return tr.length ? tr[tr.length - 1] : null;
  }
  const lt = v.last_trick;
  if (!lt) return null;
  if (Array.isArray(lt)) return lt.length ? { cards: lt, winner: null } : null;
  return lt;
}

function centerTricks(v) {
  const wrap = h("div", { class: "trickwrap" });
  const last = lastTrickOf(v);
  const current = v.trick || [];
  if (S.ui.showLast && last) {
    wrap.append(trickArea(last.cards, t("last_trick"), "last open"));
    if (last.winner !== null && last.winner !== undefined) wrap.append(h("div", { class: "caption" }, t("trick_taken_by", { name: playerName(last.winner) })));
  } else if (current.length) {
    wrap.append(trickArea(current, t("current_trick")));
  } else if (last && (v.game === "mariage" || v.phase === "play")) {
    // the trick just taken stays visible, faded, until the next lead
    wrap.append(trickArea(last.cards, t("last_trick"), "last faded"));
    if (last.winner !== null && last.winner !== undefined) wrap.append(h("div", { class: "caption" }, t("trick_taken_by", { name: playerName(last.winner) })));
  } else if (!last && !current.length && S.finalTrick && (v.game === "mariage" || ["bidding", "redeal_offer"].includes(v.phase))) {
    wrap.append(trickArea(S.finalTrick, t("final_trick"), "last faded final"));
    wrap.append(h("div", { class: "caption" }, t("final_trick")));
  }
  if (last) {
    wrap.append(h("button", { type: "button", class: "small", testid: "toggle-last", "aria-pressed": String(S.ui.showLast),
      onclick: () => { S.ui.showLast = !S.ui.showLast; renderTable(); } }, t("last_trick")));
  }
  return wrap;
}

// ---- Mil
function renderMil(v) {
  const root = h("div", { class: `board mil profile-${v.profile}` });
  // the cards that justify a redeal this seat may ask for come with the view
  const justify = new Set(legalOf("redeal").flatMap((a) => v.redeal_cards?.[a.reason] || []));
  S.redealJustify = justify.size ? (c) => justify.has(c) : null;

  const base = v.seat ?? 0;
  for (const seat of [1, 2].map((d) => (base + d) % 3)) root.append(milOpponent(v, seat));
  root.append(milCenter(v));
  root.append(v.seat === null ? milOpponent(v, base, "me bottom") : milMe(v));
  root.append(milSide(v));
  return root;
}

function seatBadges(v, seat) {
  const b = [];
  if (v.dealer === seat) b.push(h("span", { class: "badge dealer", title: t("dealer") }, t("dealer_short")));
  if (v.declarer === seat) b.push(h("span", { class: "badge declarer" }, t("declarer")));
  if (v.in_barrel?.[seat]) b.push(h("span", { class: "badge barrel", title: t("barrel") }, v.barrel_attempts_max ? `${t("barrel")} ${v.barrel_attempts?.[seat] ?? 0}/${v.barrel_attempts_max}` : t("barrel")));
  if (v.bolts?.[seat]) b.push(h("span", { class: "badge bolt", title: t("bolts") }, `⚡ ${v.bolts[seat]}`));
  if (v.turn === seat && !v.over) b.push(h("span", { class: "badge turn" }, t("turn_badge")));
  return b;
}

function lastBidOf(v, seat) {
  const bids = (v.bids || []).filter((b) => b.seat === seat);
  if (!bids.length) return null;
  const b = bids[bids.length - 1];
  return b.type === "pass" ? t("pass_said") : String(b.value);
}

function marriagesOf(v, seat) {
  return (v.marriages || []).filter((m) => m.seat === seat)
    .map((m) => h("span", { class: `chip marriage suit-${m.suit}`, title: t("announced") }, `${SUIT_SYMBOL[m.suit]} ${m.value}`));
}

function giveTarget(v, seat) {
  const gives = legalOf("give");
  if (!gives.length || S.pending) return null;
  const card = S.ui.giveCard;
  const ok = card && gives.some((a) => a.card === card && a.to === seat);
  const anyTo = gives.some((a) => a.to === seat);
  if (!anyTo) return null;
  const hinted = hintIs((a) => a.type === "give" && a.card === card && a.to === seat);
  return h("button", { type: "button", class: `give-to primary ${hinted ? "hinted" : ""}`, testid: `give-to-${seat}`, disabled: !ok,
    onclick: () => { if (ok) { S.ui.giveCard = null; act({ type: "give", card, to: seat }); } } },
  card ? t("give_card_to", { card: cardShort(card), name: playerName(seat) }) : t("give_to", { name: playerName(seat) }));
}

// another seat (or, for a watcher, any seat): face-down cards only
function milOpponent(v, seat, place = null) {
  const pos = place || relPos(seat);
  const bid = v.phase === "bidding" ? lastBidOf(v, seat) : null;
  const got = (v.given || []).filter((g) => g.to === seat);
  return h("section", { class: `seat opp ${pos} ${v.turn === seat ? "active" : ""}`, testid: `seat-${seat}`, "aria-label": playerName(seat) },
    h("div", { class: "who" },
      h("span", { class: "name" }, playerName(seat)),
      h("span", { class: "score", title: t("score") }, fmt(v.scores?.[seat] ?? 0))),
    h("div", { class: "badges" }, seatBadges(v, seat)),
    backs(v.hand_counts?.[seat] ?? 0, "fan"),
    h("div", { class: "meta" }, t("cards_count", { n: v.hand_counts?.[seat] ?? 0 }),
      v.phase === "play" ? ` · ${t("tricks_count", { n: v.tricks_won?.[seat] ?? 0 })}` : ""),
    bid ? h("div", { class: "bubble", testid: `bid-of-${seat}` }, bid) : null,
    got.length ? h("div", { class: "meta" }, got.map((g) => t("received", { card: g.card ? cardShort(g.card) : "🂠" })).join(" ")) : null,
    h("div", { class: "chips" }, marriagesOf(v, seat)),
    giveTarget(v, seat));
}

function milCenter(v) {
  const c = h("section", { class: "center", testid: "center", "aria-label": t("table_center") });
  const info = h("div", { class: "info" },
    h("span", { class: "trump", testid: "trump" }, v.trump ? t("trump_is", { suit: suitLabel(v.trump) }) : t("no_trump")),
    v.contract ? h("span", { testid: "contract-info" }, t("contract_of", { name: playerName(v.declarer), value: v.contract }))
      : (v.high_bid ? h("span", {}, t("high_bid", { value: v.high_bid })) : null),
    h("span", { class: "dealno" }, t("deal_no", { n: v.deal_number ?? 1 })));
  c.append(info);
  if (v.marriages?.length) {
    c.append(h("div", { class: "announced", testid: "marriages" },
      v.marriages.map((m) => h("span", { class: `chip marriage suit-${m.suit}` }, t("marriage_by", { name: playerName(m.seat), suit: suitLabel(m.suit), value: m.value })))));
  }
  // a redeal asked by someone: the cards that justify it, when the server shows them
  const ev = S.event;
  const shownCards = ev && ev.action && ev.action.type === "redeal" ? (ev.shown || ev.action.shown) : null;
  if (Array.isArray(shownCards) && shownCards.length && v.phase !== "play") {
    c.append(h("div", { class: "dealresult", testid: "redeal-shown" },
      h("div", { class: "label" }, actionText(ev.action, ev.seat, "ev")),
      h("div", { class: "cards" }, shownCards.map((x) => shownCard(x, "justify")))));
  }
  // the previous deal's result stays in the middle while the next auction runs
  const prevRow = (v.sheet || [])[v.sheet.length - 1];
  if (prevRow && (v.phase === "bidding" || v.phase === "redeal_offer")) c.append(dealResultBox(v, prevRow));
  // talon: face down until revealed, then shown to everyone for the rest of the deal
  const talon = h("div", { class: `talon ${v.phase === "play" ? "small" : ""}`, testid: "talon", role: "group", "aria-label": t("talon") },
    h("div", { class: "label" }, v.talon && v.declarer !== null && v.declarer !== undefined ? t("talon_of", { name: playerName(v.declarer) }) : t("talon")));
  if (v.talon) talon.append(h("div", { class: "cards" }, v.talon.map((x) => shownCard(x, S.redealJustify && S.redealJustify(x) ? "justify" : ""))));
  else if (v.talon_count) talon.append(backs(v.talon_count));
  if (v.talon || v.talon_count) c.append(talon);
  c.append(centerTricks(v));
  return c;
}

function dealResultBox(v, r) {
  const n = v.sheet.length;
  let head;
  if (r.annulled) head = t("annulled");
  else if (r.rospis) head = `${playerName(r.declarer)}: ${t("rospis")} (${r.bid})`;
  else head = t(r.made ? "contract_made" : "contract_failed", { name: playerName(r.declarer), value: r.contract });
  return h("div", { class: "dealresult", testid: "last-deal" },
    h("div", { class: "label" }, t("previous_deal", { n })),
    h("strong", {}, head),
    r.annulled ? null : h("ul", {}, v.players.map((name, s) => {
      const d = r.deltas?.[s] ?? 0;
      const raw = r.raw ? ` ${t("raw_points", { n: fmt(r.raw[s]) })} →` : "";
      return h("li", {}, `${name}:${raw} ${d >= 0 ? "+" : ""}${fmt(d)}`);
    })));
}

function stepper(kind, values, label, submitLabel, makeAction, extra = []) {
  // −/+ over the legal values (never computed here: they come from view.legal)
  let cur = S.ui[kind];
  if (!values.includes(cur)) cur = values[0];
  S.ui[kind] = cur;
  const i = values.indexOf(cur);
  const step = (d) => { S.ui[kind] = values[Math.max(0, Math.min(values.length - 1, i + d))]; renderTable(); };
  const hinted = hintIs((a) => a.type === kind && a.value === cur);
  return h("div", { class: "panel stepper", role: "group", "aria-label": label },
    h("div", { class: "range", testid: `${kind}-range` }, t("range", { min: values[0], max: values[values.length - 1] })),
    h("div", { class: "row" },
      h("button", { type: "button", class: "round", testid: `${kind}-minus`, "aria-label": t("minus"), disabled: i <= 0 || S.pending, onclick: () => step(-1) }, "−"),
      h("output", { class: "value", testid: `${kind}-value`, "aria-live": "polite" }, String(cur)),
      h("button", { type: "button", class: "round", testid: `${kind}-plus`, "aria-label": t("plus"), disabled: i >= values.length - 1 || S.pending, onclick: () => step(1) }, "+"),
      h("button", { type: "button", class: `primary ${hinted ? "hinted" : ""}`, testid: kind, disabled: S.pending,
        "aria-label": `${submitLabel} ${cur}`, onclick: () => act(makeAction(S.ui[kind])) }, submitLabel),
      extra));
}

function actionButton(action, label, testid, cls = "") {
  const hinted = hintIs((a) => same(a, action));
  return h("button", { type: "button", class: `${cls} ${hinted ? "hinted" : ""}`.trim(), testid, disabled: S.pending, onclick: () => act(action) }, label);
}

function milActions(v) {
  const panel = h("div", { class: "actions", testid: "actions" });
  if (!myTurn()) return panel;
  const legal = v.legal || [];
  const bids = legal.filter((a) => a.type === "bid").map((a) => a.value).sort((a, b) => a - b);
  const pass = legal.find((a) => a.type === "pass");
  if (bids.length || pass) {
    const passBtn = pass ? actionButton(pass, t("pass"), "pass") : null;
    if (bids.length) panel.append(stepper("bid", bids, t("bidding"), t("bid_btn"), (value) => ({ type: "bid", value }), [passBtn]));
    else panel.append(h("div", { class: "panel" }, passBtn));
  }
  const redeals = legal.filter((a) => a.type === "redeal");
  const keep = legal.find((a) => a.type === "keep" || a.type === "keep_deal");
  if (redeals.length || keep) {
    const box = h("div", { class: "panel redeal", testid: "redeal-panel" });
    for (const r of redeals) {
      let why = t(`reason_${r.reason}`);
      // the points come from the view (the client knows no card values)
      if (r.reason === "low_points" && typeof v.hand_points === "number") why += ` (${t("hand_points", { n: v.hand_points })})`;
      if (r.reason === "low_talon" && typeof v.talon_points === "number") why += ` (${t("talon_points", { n: v.talon_points })})`;
      box.append(h("p", {}, t("redeal_offer", { reason: why })));
      box.append(actionButton(r, t("redeal_btn"), `redeal-${r.reason}`, "primary"));
    }
    if (keep) box.append(actionButton(keep, t("keep_btn"), "keep"));
    panel.append(box);
  }
  const rospis = legal.find((a) => a.type === "rospis");
  if (rospis) panel.append(h("div", { class: "panel" }, actionButton(rospis, t("rospis_btn"), "rospis", "warn"), h("span", { class: "note" }, t("rospis_note"))));
  if (legal.some((a) => a.type === "give")) {
    panel.append(h("div", { class: "panel note", testid: "give-help" }, S.ui.giveCard ? t("give_choose_player", { card: cardName(S.ui.giveCard) }) : t("give_choose_card")));
  }
  const contracts = legal.filter((a) => a.type === "contract").map((a) => a.value).sort((a, b) => a - b);
  if (contracts.length) panel.append(stepper("contract", contracts, t("contract"), t("play_btn"), (value) => ({ type: "contract", value })));
  const plays = legal.filter((a) => a.type === "play");
  const choice = plays.some((a) => a.marriage) && plays.some((a) => !a.marriage && plays.some((b) => b.card === a.card && b.marriage));
  if (choice) {
    panel.append(h("div", { class: "panel" },
      h("button", { type: "button", class: "toggle", testid: "sing", "aria-pressed": String(S.ui.sing),
        onclick: () => { S.ui.sing = !S.ui.sing; renderTable(); } }, `${S.ui.sing ? "✓ " : ""}${t("sing")}`),
      h("span", { class: "note" }, t("sing_note"))));
  }
  legal.filter((a) => !["bid", "pass", "redeal", "keep", "keep_deal", "rospis", "give", "contract", "play"].includes(a.type))
    .forEach((a, i) => panel.append(actionButton(a, actionText(a, null, "do"), `other-${i}`)));
  return panel;
}

function milMe(v) {
  const seat = v.seat;
  const got = (v.given || []).filter((g) => g.to === seat && g.card);
  return h("section", { class: `seat me bottom ${v.turn === seat ? "active" : ""}`, testid: `seat-${seat}`, "aria-label": t("you") },
    h("div", { class: "who" },
      h("span", { class: "name" }, playerName(seat)),
      h("span", { class: "score", title: t("score") }, fmt(v.scores?.[seat] ?? 0)),
      h("span", { class: "badges" }, seatBadges(v, seat)),
      v.phase === "bidding" && lastBidOf(v, seat) ? h("span", { class: "bubble" }, lastBidOf(v, seat)) : null,
      v.phase === "play" ? h("span", { class: "meta" }, t("tricks_count", { n: v.tricks_won?.[seat] ?? 0 })) : null,
      got.length ? h("span", { class: "meta" }, got.map((g) => t("received_from", { card: cardShort(g.card), name: playerName(g.from) })).join(" ")) : null,
      h("span", { class: "chips" }, marriagesOf(v, seat))),
    milActions(v),
    hintBox(),
    renderHand(v));
}

function hintBox() {
  if (!S.hint) return null;
  return h("div", { class: "hintbox", testid: "hint-text", role: "note" },
    h("strong", {}, t("hint_is", { action: actionText(S.hint.action, null, "do") })), " ", hintReason(S.hint));
}

// the hint's reason in the table's language when the server sent a key for it (see
// docs/dev/protocol.md), else the English sentence; cards as "A♥", suits as symbols/names
function hintReason(hint) {
  const key = typeof hint.key === "string" ? `hint_reason_${hint.key}` : null;
  if (!key || !(key in S.fallback) || !hint.args || typeof hint.args !== "object") return hint.reason || "";
  const args = {};
  for (const [k, v] of Object.entries(hint.args)) {
    if ((k === "card" || k === "lead") && typeof v === "string" && v.length === 2) args[k] = cardShort(v);
    else if (k === "suit" && SUIT_SYMBOL[v]) args[k] = SUIT_SYMBOL[v];
    else if (k === "suit_name" && SUIT_SYMBOL[v]) args[k] = t(`suit_${v}`);
    else args[k] = String(v);
  }
  let text = t(key, args);
  if (args.sampled_avg !== undefined) {
    text = t("hint_reason_sampled_avg", { text: text.replace(/\.$/, ""), sampled_avg: args.sampled_avg });
  }
  return text;
}

function milSide(v) {
  const side = h("aside", { class: "side" });
  side.append(h("h2", {}, t("sheet")));
  const names = v.players;
  const table = h("table", { class: "sheet", testid: "sheet" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("contract")),
      names.map((n) => h("th", { scope: "col" }, n)))));
  const body = h("tbody");
  (v.sheet || []).forEach((row, i) => {
    const r = row.result || row;
    let what;
    if (r.annulled) what = t("annulled");
    else if (r.rospis) what = `${playerName(r.declarer)} ${r.bid} · ${t("rospis")}`;
    else what = `${playerName(r.declarer)} ${r.contract}`;
    const scores = r.scores || [];
    body.append(h("tr", { testid: "sheet-row" },
      h("td", {}, String(i + 1)), h("td", {}, what),
      names.map((_, s) => {
        const d = r.deltas?.[s] ?? 0;
        const marks = [];
        if (r.in_barrel?.[s]) marks.push(`${t("barrel_mark")}${r.barrel_attempts?.[s] ?? 0}`);
        if (r.bolts?.[s]) marks.push(`⚡${r.bolts[s]}`);
        return h("td", {}, h("span", { class: "total" }, fmt(scores[s])),
          r.annulled ? null : h("span", { class: `delta ${d < 0 ? "neg" : ""}` }, ` (${d >= 0 ? "+" : ""}${fmt(d)})`),
          marks.length ? h("span", { class: "marks" }, ` ${marks.join(" ")}`) : null);
      })));
  });
  table.append(body);
  side.append(table);
  side.append(h("p", { class: "legend" }, t("sheet_legend", { target: v.target, barrel: v.barrel_from })));
  side.append(logBox());
  return side;
}

function logBox() {
  return h("div", { class: "log" }, h("h2", {}, t("log")),
    h("ol", { testid: "log" }, S.log.map((x) => h("li", {}, x))));
}

// ---- Mariage
function renderMariage(v) {
  S.redealJustify = null;
  const me = v.seat ?? 0; // a watcher sees the table from seat 0, with no hand
  const opp = 1 - me;
  const root = h("div", { class: "board mariage" });
  root.append(h("section", { class: `seat opp top ${v.turn === opp ? "active" : ""}`, testid: `seat-${opp}`, "aria-label": playerName(opp) },
    h("div", { class: "who" }, h("span", { class: "name" }, playerName(opp)),
      h("span", { class: "score", title: t("game_points") }, `${v.match?.[opp] ?? 0}/${v.target}`)),
    h("div", { class: "badges" }, v.dealer === opp ? h("span", { class: "badge dealer" }, t("dealer_short")) : null,
      v.turn === opp && !v.over ? h("span", { class: "badge turn" }, t("turn_badge")) : null),
    backs(v.hand_counts?.[opp] ?? 0, "fan"),
    h("div", { class: "meta" }, t("tricks_count", { n: v.tricks_won?.[opp] ?? 0 }),
      S.ui.showPoints ? ` · ${t("points_n", { n: v.points?.[opp] ?? 0 })}` : ""),
    h("div", { class: "chips" }, (v.marriages || []).filter((m) => m.seat === opp).map((m) => h("span", { class: "chip marriage" }, `${SUIT_SYMBOL[m.suit]} ${m.value}`)))));

  const center = h("section", { class: "center", testid: "center", "aria-label": t("table_center") });
  center.append(h("div", { class: "info" },
    h("span", { class: "trump", testid: "trump" }, t("trump_is", { suit: suitLabel(v.trump) })),
    v.closed ? h("span", { class: "chip", testid: "closed" }, t("closed_by", { name: playerName(v.closed_by) })) : null,
    v.pending_marriage ? h("span", { class: "chip marriage" }, t("marriage_shown", { suit: suitLabel(v.pending_marriage) })) : null,
    h("span", { class: "dealno" }, t("hand_no", { n: v.deal_number ?? 1 }))));
  const stock = h("div", { class: "stock", testid: "stock", role: "group", "aria-label": t("stock") });
  if (v.stock_count > 0) {
    if (v.indicator) stock.append(h("div", { class: "indicator" }, shownCard(v.indicator)));
    else if (v.closed) stock.append(h("div", { class: "indicator closed" }, h("div", { class: "card back", title: t("closed") })));
    stock.append(h("div", { class: "pile" }, h("div", { class: "card back" }), h("span", { class: "count", testid: "stock-count" }, String(v.stock_count))));
  } else {
    stock.append(h("div", { class: "note" }, t("stock_empty")));
  }
  center.append(stock);
  center.append(centerTricks(v));
  root.append(center);

  const actions = h("div", { class: "actions", testid: "actions" });
  if (myTurn()) {
    const legal = v.legal || [];
    const row = h("div", { class: "panel" });
    const ex = legal.find((a) => a.type === "exchange");
    if (ex) row.append(actionButton(ex, t("exchange_btn"), "exchange"));
    legal.filter((a) => a.type === "marriage").forEach((a) =>
      row.append(actionButton(a, t("marriage_btn", { suit: suitLabel(a.suit) }), `marriage-${a.suit}`, "gold")));
    const close = legal.find((a) => a.type === "close");
    if (close) row.append(actionButton(close, t("close_btn"), "close"));
    const claim = legal.find((a) => a.type === "claim");
    if (claim) row.append(actionButton(claim, t("claim_btn"), "claim", "primary"));
    const decline = legal.find((a) => a.type === "decline");
    if (decline) row.append(actionButton(decline, t("decline_btn"), "decline"));
    legal.filter((a) => !["exchange", "marriage", "close", "claim", "decline", "play"].includes(a.type))
      .forEach((a, i) => row.append(actionButton(a, actionText(a, null, "do"), `other-${i}`)));
    if (row.childNodes.length) actions.append(row);
  }
  root.append(h("section", { class: `seat me bottom ${v.turn === me ? "active" : ""}`, testid: `seat-${me}`, "aria-label": v.seat === null ? playerName(me) : t("you") },
    h("div", { class: "who" }, h("span", { class: "name" }, playerName(me)),
      h("span", { class: "score", title: t("game_points") }, `${v.match?.[me] ?? 0}/${v.target}`),
      v.dealer === me ? h("span", { class: "badge dealer" }, t("dealer_short")) : null,
      h("span", { class: "meta" }, t("tricks_count", { n: v.tricks_won?.[me] ?? 0 })),
      h("span", { class: "meta points", testid: "my-points" }, S.ui.showPoints ? t("points_n", { n: v.points?.[me] ?? 0 }) : ""),
      h("button", { type: "button", class: "small toggle", testid: "toggle-points", "aria-pressed": String(S.ui.showPoints),
        onclick: () => { S.ui.showPoints = !S.ui.showPoints; localStorage.setItem(STORE_POINTS, S.ui.showPoints ? "1" : "0"); renderTable(); } },
      S.ui.showPoints ? t("hide_points") : t("show_points")),
      h("span", { class: "chips" }, (v.marriages || []).filter((m) => m.seat === me).map((m) => h("span", { class: "chip marriage" }, `${SUIT_SYMBOL[m.suit]} ${m.value}`)))),
    ...(v.seat === null ? [backs(v.hand_counts?.[me] ?? 0, "fan")] : [actions, hintBox(), renderHand(v)])));

  const side = h("aside", { class: "side" });
  side.append(h("h2", {}, t("match_to", { n: v.target })));
  side.append(h("div", { class: "matchscore", testid: "match" }, `${playerName(0)} ${v.match?.[0] ?? 0} – ${v.match?.[1] ?? 0} ${playerName(1)}`));
  const table = h("table", { class: "sheet", testid: "sheet" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("hand_winner")), h("th", { scope: "col" }, t("game_points")), h("th", { scope: "col" }, t("card_points")))));
  const body = h("tbody");
  (v.sheet || []).forEach((row, i) => {
    const r = row.result || row;
    body.append(h("tr", { testid: "sheet-row" }, h("td", {}, String(i + 1)),
      h("td", {}, r.winner === null || r.winner === undefined ? t("tie") : `${playerName(r.winner)} · ${t(`why_${r.reason}`)}`),
      h("td", {}, `+${r.game_points ?? 0} (${(r.match || []).join("–")})`),
      h("td", {}, (r.points || []).join("–"))));
  });
  table.append(body);
  side.append(table, logBox());
  root.append(side);
  return root;
}

// ---------------------------------------------------------------- hint, dialogs
function askHint() {
  if (myTurn()) send({ type: "hint" });
}

function dialog(id) { return document.getElementById(id); }
function dialogOpen(id) { return Boolean(dialog(id)?.open); }
function openDialog(id) { const d = dialog(id); if (!d.open) d.showModal(); }
function hideDialog(id) { const d = dialog(id); if (d?.open) d.close(); }

function showNewGame() {
  renderNewGame();
  openDialog("newgame");
}

function renderNewGame() {
  const d = dialog("newgame");
  const ch = S.ui.choice;
  const cfg = S.config || { games: { mil: ["club", "casa", "casa-500"], mariage: ["mariage"] }, levels: ["random", "rules", "search"] };
  const options = [];
  for (const p of cfg.games.mil || []) options.push({ game: "mil", profile: p });
  for (const p of cfg.games.mariage || []) options.push({ game: "mariage", profile: p });
  const nComputers = ch.game === "mil" ? 2 : 1;
  const nameInput = h("input", { id: "player-name", testid: "name", type: "text", maxlength: "24", autocomplete: "nickname",
    value: localStorage.getItem(STORE_NAME) || "", placeholder: t("name_placeholder") });
  const err = h("p", { class: "error", testid: "newgame-error", role: "alert" });
  const seedInput = h("input", { id: "game-seed", testid: "seed", type: "text", inputmode: "numeric", pattern: "[0-9]*", maxlength: "9" });
  const seatsLabel = ch.game === "mil" ? [t("left_player"), t("right_player")] : [t("opponent")];
  d.replaceChildren(h("form", { method: "dialog", class: "newgame", onsubmit: (e) => e.preventDefault() },
    h("h2", { id: "newgame-title" }, t("games")),
    S.notice ? h("p", { class: "error", testid: "notice", role: "alert" }, S.notice) : null,
    savedGamesBox(),
    h("fieldset", {}, h("legend", {}, t("choose_game")),
      h("div", { class: "choices" }, options.map((o) => h("button", {
        type: "button", testid: `choose-${o.game === "mil" ? `mil-${o.profile}` : "mariage"}`,
        "aria-pressed": String(ch.game === o.game && ch.profile === o.profile),
        onclick: () => { ch.game = o.game; ch.profile = o.profile; renderNewGame(); },
      }, h("strong", {}, t(`profile_${o.profile}`)), h("small", {}, t(`profile_${o.profile}_desc`)))))),
    h("fieldset", {}, h("legend", {}, t("computer_levels")),
      seatsLabel.map((label, i) => h("div", { class: "levelrow", role: "group", "aria-label": label },
        h("span", { class: "lbl" }, label),
        cfg.levels.map((lv) => h("button", { type: "button", testid: `level-${i}-${lv}`, "aria-pressed": String(ch.levels[i] === lv),
          "aria-label": `${label}: ${t(`level_${lv}`)}`,
          onclick: () => { ch.levels[i] = lv; renderNewGame(); } }, t(`level_${lv}`))))).slice(0, nComputers)),
    h("fieldset", {}, h("legend", {}, t("you")),
      h("label", { for: "player-name" }, t("your_name")), nameInput),
    h("fieldset", {}, h("legend", {}, t("language")), langButtons("dlg-lang")),
    liveGamesBox(),
    h("details", { class: "more" }, h("summary", {}, t("more_options")),
      h("label", { for: "game-seed" }, t("game_number")), seedInput,
      h("p", { class: "note" }, t("game_number_note"))),
    err,
    h("div", { class: "dlgbuttons" },
      S.session ? h("button", { type: "button", testid: "newgame-cancel", onclick: () => hideDialog("newgame") }, t("cancel")) : null,
      h("button", { type: "submit", class: "primary", testid: "start", onclick: async () => {
        const name = nameInput.value.trim() || t("default_name");
        localStorage.setItem(STORE_NAME, name);
        const seedText = seedInput.value.trim();
        const seed = /^[0-9]{1,9}$/.test(seedText) ? Number(seedText) : null;
        try { await startTable(ch, name, seed); hideDialog("newgame"); renderTable(); } catch (e) { err.textContent = `${t("start_failed")} ${e.message}`; }
      } }, t("start")))));
}

function dataTable(rows, cols) {
  return h("table", { class: "data" },
    h("thead", {}, h("tr", {}, cols.map((c) => h("th", { scope: "col" }, t(`col_${c}`))))),
    h("tbody", {}, rows.map((r) => h("tr", {}, cols.map((c) => h("td", {}, cellText(c, r[c])))))));
}

function cellText(col, x) {
  if (typeof x === "number") return fmt(x);
  if (x === null || x === undefined) return "—";
  if (col === "profile" && S.dict[`profile_${x}`]) return t(`profile_${x}`);
  if (col === "game" && S.dict[`col_${x}`]) return t(`col_${x}`);
  if (col === "date" && /^\d{4}-\d\d-\d\dT/.test(String(x))) return new Date(x).toLocaleDateString(S.lang);
  return String(x);
}

function renderAny(data) {
  // statistics come as nested objects/lists; show them as tables without guessing rules
  if (Array.isArray(data)) {
    if (!data.length) return h("p", {}, t("nothing_yet"));
    if (typeof data[0] === "object") {
      const cols = [...new Set(data.flatMap((r) => Object.keys(r)))];
      return dataTable(data, cols);
    }
    return h("p", {}, data.join(", "));
  }
  if (data && typeof data === "object") {
    const scalars = Object.entries(data).filter(([, x]) => x === null || typeof x !== "object");
    const nested = Object.entries(data).filter(([, x]) => x !== null && typeof x === "object");
    const wrap = h("div", { class: "stats" });
    if (scalars.length) {
      wrap.append(h("dl", {}, scalars.map(([k, x]) => [h("dt", {}, t(`col_${k}`)), h("dd", {}, typeof x === "number" ? fmt(x) : String(x ?? "—"))])));
    }
    for (const [k, x] of nested) {
      wrap.append(h("section", {}, h("h3", {}, t(`profile_${k}`) !== `profile_${k}` ? t(`profile_${k}`) : t(`col_${k}`) !== `col_${k}` ? t(`col_${k}`) : k), renderAny(x)));
    }
    if (!scalars.length && !nested.length) wrap.append(h("p", {}, t("nothing_yet")));
    return wrap;
  }
  return h("p", {}, String(data));
}

async function showStats() {
  const d = dialog("stats");
  const name = S.view?.players?.[S.view.seat] || localStorage.getItem(STORE_NAME) || "";
  const closeBtn = h("button", { type: "button", testid: "close-stats", onclick: () => hideDialog("stats") }, t("close"));
  d.replaceChildren(h("h2", {}, t("stats_of", { name })), h("p", {}, t("loading")), closeBtn);
  openDialog("stats");
  const res = await api(`/api/stats?name=${encodeURIComponent(name)}`);
  d.replaceChildren(h("h2", {}, t("stats_of", { name })), h("div", { testid: "stats-body" }, res.ok ? renderAny(res.body) : h("p", { class: "error" }, res.body?.error || t("unavailable"))), closeBtn);
}

async function showRanking(target) {
  S.rankingTarget = target;
  const d = dialog("ranking");
  const tabs = h("div", { class: "choices tabs", role: "group", "aria-label": t("ranking") },
    [["1000", t("ranking_1000")], ["500", t("ranking_500")], ["mariage", t("ranking_mariage")]].map(([k, label]) =>
      h("button", { type: "button", testid: `ranking-${k}`, "aria-pressed": String(k === target), onclick: () => showRanking(k) }, label)));
  const closeBtn = h("button", { type: "button", testid: "close-ranking", onclick: () => hideDialog("ranking") }, t("close"));
  d.replaceChildren(h("h2", {}, t("ranking")), tabs, h("p", {}, t("loading")), closeBtn);
  openDialog("ranking");
  const q = target === "mariage" ? "game=mariage" : `target=${target}`;
  const res = await api(`/api/ranking?${q}`);
  const rows = Array.isArray(res.body) ? res.body : (res.body?.ranking || []);
  const body = res.ok
    ? (rows.length ? dataTable(rows.map((r, i) => ({ pos: i + 1, ...r })), ["pos", "name", "score", "profile", "date"]) : h("p", {}, t("nothing_yet")))
    : h("p", { class: "error" }, res.body?.error || t("unavailable"));
  d.replaceChildren(h("h2", {}, t("ranking")), tabs, h("div", { testid: "ranking-body" }, body), closeBtn);
}

function showOver() {
  const v = S.view;
  const d = dialog("over");
  const scores = v.game === "mariage" ? v.match : v.scores;
  const rec = `/api/tables/${encodeURIComponent(S.session.table)}/record${S.session.token ? `?token=${encodeURIComponent(S.session.token)}` : ""}`;
  d.replaceChildren(
    h("h2", { testid: "winner" }, v.winner === null || v.winner === undefined ? t("game_over") : (v.winner === v.seat ? t("you_won") : t("winner_is", { name: playerName(v.winner) }))),
    h("ul", { class: "final" }, v.players.map((n, i) => h("li", {}, h("strong", {}, n), ` ${fmt(scores?.[i] ?? 0)}`))),
    S.session?.ranked === false ? h("p", { class: "note", testid: "not-ranked" }, t("not_ranked")) : null,
    h("div", { class: "dlgbuttons" },
      h("a", { class: "btnlink", testid: "download-record", href: rec, download: `tapete-${S.session.table}.json` }, t("download_record")),
      h("button", { type: "button", testid: "over-close", onclick: () => hideDialog("over") }, t("see_table")),
      h("button", { type: "button", class: "primary", testid: "over-newgame", onclick: () => { hideDialog("over"); showNewGame(); } }, t("new_game"))));
  if (!d.open && !S.overDismissed) d.showModal();
  d.onclose = () => { S.overDismissed = true; };
}

// ---------------------------------------------------------------- keyboard
function onKey(e) {
  if (e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement) return;
  if (document.querySelector("dialog[open]")) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const cards = [...document.querySelectorAll('[data-testid="hand"] .card')];
  const enabled = cards.filter((c) => !c.disabled);
  if (/^[1-9]$/.test(e.key) || e.key === "0") {
    const n = e.key === "0" ? 10 : Number(e.key);
    const el = enabled[n - 1];
    if (el) { e.preventDefault(); el.focus(); el.click(); }
  } else if ((e.key === "ArrowRight" || e.key === "ArrowLeft") && enabled.length) {
    const i = enabled.indexOf(document.activeElement);
    const next = i < 0 ? 0 : (i + (e.key === "ArrowRight" ? 1 : enabled.length - 1)) % enabled.length;
    e.preventDefault();
    enabled[next].focus();
  } else if (e.key === "h" || e.key === "?") {
    askHint();
  }
}

// ---------------------------------------------------------------- start
async function main() {
  await loadLang(initialLang());
  try { const c = await api("/api/config"); if (c.ok) S.config = c.body; } catch { /* offline: defaults */ }
  const lv = S.config?.levels?.includes("rules") ? "rules" : (S.config?.levels?.[0] || "random");
  S.ui.choice.levels = [lv, lv];
  document.addEventListener("keydown", onKey);
  const watch = new URLSearchParams(location.search).get("watch");
  if (watch !== null) {
    if (/^[0-9]{1,18}$/.test(watch)) { watchTable(Number(watch)); renderAll(); return; }
    S.notice = t("no_such_table");
    leaveWatchUrl();
  }
  let stored = null;
  try { stored = JSON.parse(localStorage.getItem(STORE_TABLE) || "null"); } catch { stored = null; }
  if (stored?.table && stored?.token) {
    const res = await api(`/api/tables/${encodeURIComponent(stored.table)}?token=${encodeURIComponent(stored.token)}`).catch(() => ({ ok: false, status: 0 }));
    if (res.ok || res.status === 0 || res.status >= 500) {
      S.session = { ...stored, seat: res.body?.seat ?? stored.seat ?? 0, ranked: res.body?.ranked ?? stored.ranked };
      renderAll();
      connect();
      return;
    }
    storeSession(null);
  }
  renderAll();
  showNewGame();
}

window.tapete = S; // for debugging in the console and for the browser tests
S.receive = onMessage; // feed a server message by hand (debugging, tests)
main();
