// The replay of a finished game: a window that steps through every action of every deal with
// every hand face up, the moves of the deal with the current one marked, the score sheet up
// to that deal and the end-of-game chart. Everything comes from the server: GET
// /api/tables/{id}/replay (the deals, the final view: its sheet is the chart's data) and
// /replay/{deal} (the frames, the engine's open view after each action); the client computes
// no rule. Keys in the window: ←/→ a step, Home/End the deal's start and end, PageUp/PageDown
// the previous and next deal; in the list of moves (a listbox, one Tab stop) ↑/↓ and Home/End.
// openReplay(table) opens it; replayButton(table) is its button (the focus comes back to it).

import { fmt, focusTableWhenIdle, h, hideDialog, isNone, openDialog } from "./dom.js";
import { t, tOwn } from "./i18n.js";
import { shownCard, suitLabel } from "./cards.js";
import { actionText, dealEndText } from "./history.js";
import { S, screen } from "./state.js";
import { api, leaveWatchUrl, replayUrl } from "./session.js";
import { scoreChart } from "./chart.js";
import { matchTable, scoreTable } from "./sheet.js";
import { profileLabel } from "./kinds.js";
import { openReview } from "./review.js";

const KEEP_DEALS = 12; // deals kept in the page (going back is instant)
const P = { table: null, game: null, deal: 0, frame: 0, frames: null, error: null, ask: 0, timer: null, deals: new Map(),
  opener: null, // the button of another window that opened the replay: {testid, window}
  refocus: null, // {testid, parked}: the control a deal's loading took the focus from, and where it waits
  ui: null }; // the parts of the window that stay in the page while it is open (parts())

function replayDialog() {
  let d = document.getElementById("replay");
  if (!d) {
    d = h("dialog", { id: "replay", testid: "replay", class: "review replay", "aria-labelledby": "replay-title", tabindex: "-1" });
    d.addEventListener("keydown", onKey);
    d.addEventListener("close", afterClose);
    document.body.append(d);
  }
  return d;
}

// closing the window: stop loading, leave a /?replay= address, and without a game of this
// browser's on the table, back to the Games window
function afterClose() {
  clearTimeout(P.timer);
  P.ask += 1;
  if (new URLSearchParams(location.search).has("replay")) leaveWatchUrl();
  if (!S.session) screen.newGame();
  else if (S.view?.over) screen.table(); // the end window the replay kept back
  giveFocusBack(P.opener);
  P.opener = null;
}

// the window that opened the replay was closed first: the focus, left on the page's body (a
// screen reader says nothing, the next Tab starts the page over), goes back to the button
// that opened it when its window is shown again, else to the table (as after the other windows)
function giveFocusBack(opener) {
  const win = opener?.window ? document.getElementById(opener.window) : null;
  if (win?.open) {
    const find = () => win.querySelector(`[data-testid="${CSS.escape(opener.testid)}"]:not([disabled])`);
    const found = find();
    if (found) { found.focus(); return; }
    // (the Games window lists a finished game's Replay button once the server has said so:
    // the focus goes there when it comes, unless the person has moved it meanwhile)
    const start = document.activeElement;
    const watch = new MutationObserver(() => {
      const el = find();
      if (!el) return;
      stop();
      if (win.open && document.activeElement === start) el.focus();
    });
    const timer = setTimeout(() => stop(), 10000);
    const stop = () => { watch.disconnect(); clearTimeout(timer); };
    watch.observe(win, { childList: true, subtree: true });
    return;
  }
  // (another window shown meanwhile, the end window of the game, has the focus already)
  focusTableWhenIdle();
}

// "Replay this game": a button for a finished table (the end window, the Games window)
export function replayButton(table, { label = t("replay_game"), testid = "replay-open", before = null } = {}) {
  const button = h("button", { type: "button", testid, onclick: () => {
    const opener = { testid, window: button.closest("dialog")?.id ?? null };
    if (before) before();
    openReplay(table, opener);
  } }, label);
  return button;
}

// `opener`: the button of another window that opened the replay (the focus goes back there)
export async function openReplay(table, opener = null) {
  Object.assign(P, { table, game: null, deal: 0, frame: 0, frames: null, error: null, opener, refocus: null, ui: null });
  P.deals = new Map();
  openDialog(replayDialog().id);
  render();
  const ask = ++P.ask;
  let res;
  try { res = await api(`/api/tables/${encodeURIComponent(table)}/replay`); } catch { res = { ok: false, status: 0, body: null }; }
  if (ask !== P.ask) return;
  if (!res.ok) { P.error = errorText(res.status); render(); return; }
  P.game = res.body;
  render();
  loadDeal(0, 0);
}

function errorText(status) {
  if (status === 403) return t("replay_not_over");
  if (status === 404) return t("no_such_table");
  return t("unavailable");
}

// the frames of `deal`, then frame `frame` of it (Infinity: its last)
async function loadDeal(deal, frame) {
  const ask = ++P.ask;
  clearTimeout(P.timer);
  P.deal = deal;
  const kept = P.deals.get(deal);
  if (kept) { show(kept, frame); return; }
  P.frames = null; P.error = null;
  render();
  let res;
  try { res = await api(`/api/tables/${encodeURIComponent(P.table)}/replay/${deal}`); } catch { res = { ok: false, status: 0, body: null }; }
  if (ask !== P.ask) return; // another deal was asked for meanwhile, or the window closed
  if (res.status === 503) { // the server is busy preparing replays: ask again
    P.timer = setTimeout(() => loadDeal(deal, frame), 1500);
    return;
  }
  if (!res.ok) { P.error = errorText(res.status); render(); return; }
  P.deals.set(deal, res.body);
  if (P.deals.size > KEEP_DEALS) P.deals.delete(P.deals.keys().next().value);
  show(res.body, frame);
}

function show(body, frame) {
  P.frames = body.frames || [];
  P.frame = Math.max(0, Math.min(frame, P.frames.length - 1));
  P.error = null;
  render();
}

const dealCount = () => (P.game?.deals || []).length;

function goDeal(deal, frame = 0) {
  if (deal < 0 || deal >= dealCount() || (deal === P.deal && P.frames)) return;
  loadDeal(deal, frame);
}

function goFrame(frame) {
  const n = P.frames?.length || 0;
  if (!n) return;
  P.frame = Math.max(0, Math.min(frame, n - 1));
  render();
}

const inMoves = (el) => Boolean(el?.closest?.('[data-testid="replay-moves"]'));

function onKey(e) {
  if (!P.game || e.ctrlKey || e.metaKey || e.altKey) return;
  const steps = { ArrowRight: P.frame + 1, ArrowLeft: P.frame - 1, Home: 0, End: Infinity };
  if (!(e.key in steps) && e.key !== "PageDown" && e.key !== "PageUp") return;
  e.preventDefault();
  // the keys bring the focus to the step count, which then says the step (in the list of
  // moves it stays there, on the current move); moved first, so that the step is said once
  const d = replayDialog();
  if (!inMoves(document.activeElement)) d.querySelector('[data-testid="replay-step"]')?.focus();
  if (e.key in steps) goFrame(steps[e.key]);
  else goDeal(P.deal + (e.key === "PageDown" ? 1 : -1));
}

// the keys of the list of moves (a listbox, one Tab stop): ↑/↓ the previous and next move,
// Home/End the first and the last, each going to its step; the focus follows the current move
function onMovesKey(e) {
  if (e.ctrlKey || e.metaKey || e.altKey || !P.frames) return;
  const steps = { ArrowDown: P.frame + 1, ArrowUp: P.frame - 1, Home: 0, End: Infinity };
  if (!(e.key in steps)) return;
  e.preventDefault();
  e.stopPropagation();
  goFrame(steps[e.key]);
}

// the focus stays in the window across redraws (the keys work on the window): on the same
// control when it is still there and enabled, else on the control of the same testid (the
// current move for a move), else the step count; the window itself while a deal loads, and
// once it has come, back on the control the loading took it from
function keepFocus(d, render) {
  const active = document.activeElement;
  const had = d.contains(active);
  const parked = P.refocus && P.refocus.parked === active;
  const testid = had ? (parked ? P.refocus.testid : active.dataset?.testid) : null;
  render();
  if (!had) return;
  const now = document.activeElement;
  const move = d.querySelector('[data-testid="replay-move"][aria-selected="true"]');
  if (now === active && now !== d && !now.disabled && d.contains(now) && !parked) {
    if (testid === "replay-move" && move && now !== move) move.focus();
    return;
  }
  const again = testid === "replay-move" ? move
    : (testid ? d.querySelector(`[data-testid="${CSS.escape(testid)}"]:not([disabled])`) : null);
  const to = again || d.querySelector('[data-testid="replay-step"]') || d;
  P.refocus = again || !testid ? null : { testid, parked: to };
  to.focus();
}

// ------------------------------------------------------------------ the pieces

const nameOf = (seat) => P.game?.players?.[seat] ?? `#${seat}`;
const scoreKey = () => P.game?.score_key ?? "scores";
// the word for the cards in no hand: the view's own keys say which pile the game has
function pileWord(pos) {
  if ("stock_count" in pos) return t("stock");
  return tOwn("talon", P.game?.profile);
}

function group(label, testid, cards, extra = null) {
  return h("div", { class: "reviewtalon", role: "group", "aria-label": label, testid },
    h("span", { class: "lbl" }, label), cards.map((c) => {
      const el = shownCard(c);
      el.setAttribute("aria-label", `${label}: ${el.getAttribute("aria-label")}`);
      return el;
    }), extra);
}

function seatRow(pos, frame, seat) {
  const marks = [];
  if (pos.dealer === seat) marks.push(t("dealer"));
  if (!isNone(pos.declarer) && pos.declarer === seat) marks.push(t("declarer"));
  const standing = frame[scoreKey()]?.[seat];
  const acting = pos.turn === seat;
  return h("div", { class: `reviewhand${acting ? " acting" : ""}`, role: "group", testid: `replay-hand-${seat}`,
    "aria-label": t("review_hand_of", { name: nameOf(seat) }) },
  h("span", { class: "lbl" }, nameOf(seat), h("small", {}, ` ${fmt(standing)}${marks.length ? ` · ${marks.join(" · ")}` : ""}`),
    acting ? h("small", { class: "note" }, ` · ${t("replay_to_act")}`) : null),
  (pos.hands[seat] || []).map((c) => shownCard(c)));
}

// the trick on the table, or (none led yet) the last one taken, faded
function trickEl(pos) {
  const tricks = pos.tricks || [];
  const last = pos.last_trick || (tricks.length ? tricks[tricks.length - 1] : null);
  const current = pos.trick || [];
  const shown = current.length ? current : (last?.cards || []);
  const label = current.length || !last ? t("current_trick") : t("last_trick");
  return h("div", { class: `reviewtrick${current.length ? "" : " faded"}`, role: "group", "aria-label": label, testid: "replay-trick" },
    h("span", { class: "lbl" }, label),
    shown.length ? shown.map((p) => h("span", { class: "played" }, shownCard(p.card), h("small", {}, nameOf(p.seat)))) : h("span", { class: "note" }, "—"),
    !current.length && last && !isNone(last.winner) ? h("small", { class: "note" }, t("trick_taken_by", { name: nameOf(last.winner) })) : null);
}

function center(pos) {
  const facts = [];
  if (pos.trump) facts.push(t("trump_is", { suit: suitLabel(pos.trump) }));
  if (!isNone(pos.contract)) facts.push(`${t("contract")}: ${pos.contract}`);
  const parts = [facts.length ? h("p", { testid: "replay-facts" }, facts.join(" · ")) : null];
  if (Array.isArray(pos.talon) && pos.talon.length) parts.push(group(pileWord(pos), "replay-talon", pos.talon));
  if (pos.indicator) parts.push(group(t("replay_indicator"), "replay-indicator", [pos.indicator]));
  if ((pos.hidden || []).length) {
    parts.push(group(`${pileWord(pos)} (${t("replay_face_down")})`, "replay-hidden", pos.hidden));
  }
  parts.push(trickEl(pos));
  return parts;
}

// the moves of the deal: a listbox, one Tab stop (the current move), ↑/↓ from move to move
// (onMovesKey); the options are made once per deal, the current one marked at each step
function updateMoves(list) {
  if (list.frames !== P.frames) {
    list.frames = P.frames;
    list.replaceChildren(...P.frames.map((f, i) => h("li", { role: "option", testid: "replay-move",
      onclick: () => goFrame(i) }, i === 0 ? t("replay_dealt") : actionText(f.action, f.seat, "ev", nameOf, P.game?.profile))));
  }
  [...list.children].forEach((li, i) => {
    const current = i === P.frame;
    li.className = current ? "current" : "";
    li.setAttribute("aria-selected", String(current));
    li.tabIndex = current ? 0 : -1;
  });
}

function sheetUpTo(lastFrame) {
  const v = P.game.view;
  const rows = (v.sheet || []).slice(0, P.deal + (lastFrame ? 1 : 0));
  const isMatch = (v.sheet || []).some((r) => "game_points" in r);
  const table = (isMatch ? matchTable : scoreTable)(v, rows, nameOf, "replay-sheet");
  return h("section", {}, h("h3", {}, t("sheet")),
    h("div", { class: "sheetwrap replaysheet", tabindex: "0", role: "region", "aria-label": t("sheet") }, table));
}

function render() {
  const d = replayDialog();
  keepFocus(d, () => draw(d));
}

// parent's children become `kids`, in order, without taking out of the page the ones it keeps
// (the step count, a live region, would be dropped by a screen reader; a focused button would
// lose the focus and be said again)
function place(parent, kids) {
  const keep = new Set(kids);
  for (const c of [...parent.childNodes]) if (!keep.has(c)) c.remove();
  let at = parent.firstChild;
  for (const k of kids) {
    if (k === at) at = at.nextSibling;
    else parent.insertBefore(k, at);
  }
}

// the parts that stay while the window is open: the stepper and its step count (the window's
// one status: it says each step, "Step 5 of 33: Bruno bids 100"), the list of moves, the frame
// of the body and the window's buttons; drawn again in place
function parts() {
  if (P.ui) return P.ui;
  const btn = (testid, label, text, go) => h("button", { type: "button", testid, "aria-label": t(label), onclick: () => go() }, text);
  const step = h("span", { tabindex: "0", testid: "replay-step", role: "status", "aria-live": "polite", "aria-atomic": "true" });
  const moves = h("ol", { class: "replaymoves", testid: "replay-moves", role: "listbox", onkeydown: onMovesKey });
  const ui = {
    first: btn("replay-first", "review_first", "«", () => goFrame(0)),
    prev: btn("replay-prev", "review_prev", "◀", () => goFrame(P.frame - 1)),
    step,
    next: btn("replay-next", "review_next", "▶", () => goFrame(P.frame + 1)),
    last: btn("replay-last", "review_last", "»", () => goFrame(Infinity)),
    moves,
    said: null, // the deal the step count last named
  };
  ui.stepper = h("div", { class: "panel reviewsteps", role: "group" }, ui.first, ui.prev, step, ui.next, ui.last);
  ui.movesTitle = h("h3", {});
  ui.side = h("section", { class: "replayside" });
  ui.pos = h("section", { class: "replaypos" }); // ("replay-position" while a frame is shown)
  ui.body = h("div", { class: "replaybody" }, ui.pos, ui.side);
  ui.link = h("a", { testid: "replay-link", class: "btnlink" });
  ui.close = h("button", { type: "button", testid: "replay-close", onclick: () => hideDialog("replay") });
  ui.buttons = h("div", { class: "dlgbuttons" }, ui.link, ui.close);
  P.ui = ui;
  return ui;
}

// the step count: "Step 5 of 33" to see, the move (and a new deal's number) for a screen
// reader too, as its text (a name changing with it would be said a second time). In the list of
// moves the focused move says itself: the status then changes without a word (aria-live off)
// the replay's words in its game's own (English Mariage says "hand" where Mil says "deal")
const tr = (key, params) => tOwn(key, P.game?.game, params);

function updateStep(ui, said, quiet) {
  const n = P.frames?.length || 0;
  const stepText = n ? t("review_step_of", { n: P.frame + 1, total: n }) : t("loading");
  const newDeal = n && ui.said !== P.deal ? `${tr("review_deal_of", { n: P.deal + 1, total: dealCount() })} · ` : "";
  if (n) ui.said = P.deal;
  const words = [newDeal ? h("span", { class: "sr-only" }, newDeal) : null,
    h("span", { testid: "replay-step-no" }, stepText), n ? h("span", { class: "sr-only" }, `: ${said}`) : null].filter(Boolean);
  const text = words.map((w) => w.textContent).join("");
  ui.step.setAttribute("aria-live", quiet ? "off" : "polite");
  if (ui.step.textContent !== text) ui.step.replaceChildren(...words);
  const last = P.frame >= n - 1;
  ui.first.disabled = ui.prev.disabled = !n || P.frame <= 0;
  ui.next.disabled = ui.last.disabled = !n || last;
}

function draw(d) {
  const g = P.game;
  // (asked before the list is drawn again: its move had the focus, or will have it back)
  const quiet = inMoves(document.activeElement) || P.refocus?.testid === "replay-move";
  const ui = parts();
  ui.close.textContent = t("close");
  ui.link.href = replayUrl(P.table);
  ui.link.textContent = t("replay_link");
  const title = h("h2", { id: "replay-title" }, t("replay_title", { table: P.table }),
    g ? h("small", {}, ` · ${profileLabel(g.profile, g.game)} · ${(g.players || []).join(", ")}`) : null);
  const message = P.error ? h("p", { class: "error", role: "alert", testid: "replay-error" }, P.error)
    : h("p", { role: g ? null : "status", testid: "replay-loading" }, t("loading"));
  if (!g) { place(d, [title, message, ui.buttons]); return; }
  const dealNav = h("div", { class: "panel reviewdeals", role: "group", "aria-label": tr("review_deals") },
    h("button", { type: "button", testid: "replay-prev-deal", disabled: P.deal <= 0, onclick: () => goDeal(P.deal - 1) }, tr("review_prev_deal")),
    h("span", { testid: "replay-deal-no" }, tr("review_deal_of", { n: P.deal + 1, total: dealCount() })),
    h("button", { type: "button", testid: "replay-next-deal", disabled: P.deal >= dealCount() - 1, onclick: () => goDeal(P.deal + 1) }, tr("review_next_deal")),
    // the deal review (review.js) of the deal on screen: a finished game's reviews are anyone's
    h("button", { type: "button", testid: "replay-review", onclick: () => openReview(P.deal, { table: P.table, token: null, deals: dealCount(), game: P.game?.game, profile: P.game?.profile }) }, tr("review_this_deal")));
  ui.stepper.setAttribute("aria-label", t("review_steps"));
  ui.moves.setAttribute("aria-label", t("replay_moves"));
  ui.movesTitle.textContent = t("replay_moves");
  const chart = h("section", { class: "replaychart" }, h("h3", {}, t("replay_chart")), scoreChart(g.view, scoreKey()) ?? "");
  if (!P.frames) { // the deal is loading (or could not be loaded)
    updateStep(ui, "", quiet);
    for (const k of ["testid", "frame", "deal"]) delete ui.pos.dataset[k];
    place(ui.pos, [ui.stepper, P.error ? message : null].filter(Boolean));
    place(ui.side, []);
    place(d, [title, dealNav, ui.body, chart, ui.buttons]);
    return;
  }
  const n = P.frames.length;
  const frame = P.frames[P.frame];
  const pos = frame.position;
  const lastFrame = P.frame === n - 1;
  const said = P.frame === 0 ? t("replay_dealt") : actionText(frame.action, frame.seat, "ev", nameOf, P.game?.profile);
  const row = (g.view.sheet || [])[P.deal];
  const what = h("p", { class: "reviewaction", testid: "replay-action" },
    h("strong", {}, said),
    lastFrame && row ? h("span", { testid: "replay-result" }, ` · ${dealEndText(row, nameOf)}`) : null);
  const seats = pos.hands.map((_, seat) => seatRow(pos, frame, seat));
  updateMoves(ui.moves);
  Object.assign(ui.pos.dataset, { testid: "replay-position", frame: String(P.frame), deal: String(P.deal) });
  place(ui.pos, [ui.stepper, what, ...seats, ...center(pos).filter(Boolean),
    h("p", { class: "note" }, `${t("replay_keys")} ${t("replay_moves_keys")}`)]);
  place(ui.side, [ui.movesTitle, ui.moves, sheetUpTo(lastFrame)]);
  place(d, [title, dealNav, ui.body, chart, ui.buttons]);
  updateStep(ui, said, quiet);
  ui.moves.querySelector("li.current")?.scrollIntoView?.({ block: "nearest" });
}
