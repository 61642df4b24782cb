// The replay of a finished game: a window that steps through every action of every deal with
// every hand face up, the moves of the deal with the current one marked, the score sheet up
// to that deal and the end-of-game chart. Everything comes from the server: GET
// /api/tables/{id}/replay (the deals, the final view: its sheet is the chart's data) and
// /replay/{deal} (the frames, the engine's open view after each action); the client computes
// no rule. Keys in the window: ←/→ a step, Home/End the deal's start and end, PageUp/PageDown
// the previous and next deal. openReplay(table) opens it; replayButton(table) is its button.

import { fmt, h, hideDialog, isNone, openDialog } from "./dom.js";
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
const P = { table: null, game: null, deal: 0, frame: 0, frames: null, error: null, ask: 0, timer: null, deals: new Map() };

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
}

// "Replay this game": a button for a finished table (the end window, the Games window)
export function replayButton(table, { label = t("replay_game"), testid = "replay-open", before = null } = {}) {
  return h("button", { type: "button", testid, onclick: () => { if (before) before(); openReplay(table); } }, label);
}

export async function openReplay(table) {
  Object.assign(P, { table, game: null, deal: 0, frame: 0, frames: null, error: null });
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

function onKey(e) {
  if (!P.game || e.ctrlKey || e.metaKey || e.altKey) return;
  const steps = { ArrowRight: P.frame + 1, ArrowLeft: P.frame - 1, Home: 0, End: Infinity };
  if (e.key in steps) {
    e.preventDefault();
    goFrame(steps[e.key]);
  } else if (e.key === "PageDown" || e.key === "PageUp") {
    e.preventDefault();
    goDeal(P.deal + (e.key === "PageDown" ? 1 : -1));
  } else {
    return;
  }
  replayDialog().querySelector('[data-testid="replay-step"]')?.focus();
}

// the focus stays in the window across redraws (the keys work on the window): on the same
// control, the current move, or the step count; the window itself while a deal loads
function keepFocus(d, render) {
  const active = document.activeElement;
  const had = d.contains(active);
  const testid = had ? active.dataset?.testid : null;
  render();
  if (!had) return;
  const again = testid === "replay-move" ? d.querySelector('[aria-current="step"]')
    : (testid ? d.querySelector(`[data-testid="${testid}"]:not([disabled])`) : null);
  (again || d.querySelector('[data-testid="replay-step"]') || d).focus();
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

function movesList() {
  const frames = P.frames;
  const list = h("ol", { class: "replaymoves", testid: "replay-moves", "aria-label": t("replay_moves") });
  frames.forEach((f, i) => {
    const text = i === 0 ? t("replay_dealt") : actionText(f.action, f.seat, "ev", nameOf);
    const current = i === P.frame;
    list.append(h("li", { class: current ? "current" : "" },
      h("button", { type: "button", class: "small", testid: "replay-move", "aria-current": current ? "step" : null,
        onclick: () => goFrame(i) }, text)));
  });
  return list;
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

function draw(d) {
  const closeBtn = h("button", { type: "button", testid: "replay-close", onclick: () => hideDialog("replay") }, t("close"));
  const g = P.game;
  const title = h("h2", { id: "replay-title" }, t("replay_title", { table: P.table }),
    g ? h("small", {}, ` · ${profileLabel(g.profile, g.game)} · ${(g.players || []).join(", ")}`) : null);
  if (!g || !P.frames) {
    const body = P.error ? h("p", { class: "error", role: "alert", testid: "replay-error" }, P.error)
      : h("p", { role: "status", testid: "replay-loading" }, t("loading"));
    d.replaceChildren(title, body, h("div", { class: "dlgbuttons" }, closeBtn));
    return;
  }
  const n = P.frames.length;
  const frame = P.frames[P.frame];
  const pos = frame.position;
  const lastFrame = P.frame === n - 1;
  const said = P.frame === 0 ? t("replay_dealt") : actionText(frame.action, frame.seat, "ev", nameOf);
  const stepText = t("review_step_of", { n: P.frame + 1, total: n });
  const dealNav = h("div", { class: "panel reviewdeals", role: "group", "aria-label": t("review_deals") },
    h("button", { type: "button", testid: "replay-prev-deal", disabled: P.deal <= 0, onclick: () => goDeal(P.deal - 1) }, t("review_prev_deal")),
    h("span", { testid: "replay-deal-no" }, t("review_deal_of", { n: P.deal + 1, total: dealCount() })),
    h("button", { type: "button", testid: "replay-next-deal", disabled: P.deal >= dealCount() - 1, onclick: () => goDeal(P.deal + 1) }, t("review_next_deal")),
    // the deal review (review.js) of the deal on screen: a finished game's reviews are anyone's
    h("button", { type: "button", testid: "replay-review", onclick: () => openReview(P.deal, { table: P.table, token: null, deals: dealCount() }) }, t("review_this_deal")));
  const stepper = h("div", { class: "panel reviewsteps", role: "group", "aria-label": t("review_steps") },
    h("button", { type: "button", testid: "replay-first", disabled: P.frame <= 0, onclick: () => goFrame(0), "aria-label": t("review_first") }, "«"),
    h("button", { type: "button", testid: "replay-prev", disabled: P.frame <= 0, onclick: () => goFrame(P.frame - 1), "aria-label": t("review_prev") }, "◀"),
    // the keys bring the focus back here after each step: its name says the move too (a
    // screen reader said "Step 5 of 33" and never what was played)
    h("span", { tabindex: "0", testid: "replay-step", role: "status", "aria-live": "polite", "aria-label": `${stepText}: ${said}` }, stepText),
    h("button", { type: "button", testid: "replay-next", disabled: lastFrame, onclick: () => goFrame(P.frame + 1), "aria-label": t("review_next") }, "▶"),
    h("button", { type: "button", testid: "replay-last", disabled: lastFrame, onclick: () => goFrame(n - 1), "aria-label": t("review_last") }, "»"));
  const row = (g.view.sheet || [])[P.deal];
  const what = h("p", { class: "reviewaction", testid: "replay-action" },
    h("strong", {}, said),
    lastFrame && row ? h("span", { testid: "replay-result" }, ` · ${dealEndText(row, nameOf)}`) : null);
  const seats = pos.hands.map((_, seat) => seatRow(pos, frame, seat));
  d.replaceChildren(title, dealNav,
    h("div", { class: "replaybody" },
      h("section", { class: "replaypos", testid: "replay-position", "data-frame": String(P.frame), "data-deal": String(P.deal) },
        stepper, what, seats, center(pos), h("p", { class: "note" }, t("replay_keys"))),
      h("section", { class: "replayside" }, h("h3", {}, t("replay_moves")), movesList(), sheetUpTo(lastFrame))),
    h("section", { class: "replaychart" }, h("h3", {}, t("replay_chart")), scoreChart(g.view, scoreKey()) ?? ""),
    h("div", { class: "dlgbuttons" },
      h("a", { href: replayUrl(P.table), testid: "replay-link", class: "btnlink" }, t("replay_link")), closeBtn));
  d.querySelector(".replaymoves li.current")?.scrollIntoView?.({ block: "nearest" });
}
