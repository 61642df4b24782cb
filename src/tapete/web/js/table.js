// The table: picks the board that draws the view (from the view's own keys, never the game's
// name), keeps keyboard focus across redraws, and writes the status line.

import { focusIdle, focusTableWhenIdle, h, hideDialog, isNone } from "./dom.js";
import { S, myTurn, playerName } from "./state.js";
import { t, tOwn } from "./i18n.js";
import { setStatus } from "./connection.js";
import { renderChrome } from "./chrome.js";
import { eventsText } from "./history.js";
import { showOver } from "./game_over.js";
import * as milBoard from "./board_mil.js";
import * as mariageBoard from "./board_mariage.js";
import { pausedView } from "./deal_end.js";
import { renderRoom } from "./room.js";

// each board says which views it draws (fits); the first that fits draws the view
const BOARDS = [mariageBoard, milBoard];

function turnText() {
  const v = S.view;
  if (!v) return "";
  if (S.pause) return tOwn("deal_over_go_on", v.game);
  if (S.offline) return t("offline_wait");
  if (S.presence?.status === "waiting") return t("waiting_players"); // a seat is still free
  if (v.over) return isNone(v.winner) ? t("game_over") : t("game_over_status", { name: playerName(v.winner) });
  if (isNone(v.turn)) return "";
  if (v.turn !== v.seat) return t("waiting_for", { name: playerName(v.turn) });
  const legal = v.legal || [];
  const types = new Set(legal.map((a) => a.type));
  const bids = legal.filter((a) => a.type === "bid");
  if (bids.length && types.has("pass")) return t("your_turn_bid");
  if (bids.length === 1) return t("your_turn_bid_forced", { value: bids[0].value });
  if (bids.length) return t("your_turn_bid_no_pass");
  if (types.has("pass") && types.size === 1) return t("your_turn_pass_only");
  // (the declarer's offer after the auction has no "keep": giving the cards goes on)
  if (types.has("redeal")) return t(types.has("keep") ? "your_turn_redeal" : types.has("give") ? "your_turn_redeal_or_give" : "your_turn_redeal_or_go_on");
  if (types.has("give")) return t("your_turn_give");
  if (types.has("contract")) return t("your_turn_contract");
  return t("your_turn_play");
}

// the selector of the focused control, to find it again after a redraw
function focusKeyOf(main) {
  const active = document.activeElement;
  if (!active || !main.contains(active)) return null;
  if (active.dataset.card) return `[data-card="${active.dataset.card}"]`;
  return active.dataset.testid ? `[data-testid="${active.dataset.testid}"]` : null;
}

// the panels that scroll on their own (the score sheet, the history): each stays on its newest
// line unless the player scrolled up to read older ones (then it stays where they left it),
// across redraws and changes of the window's size
const SCROLLERS = [".sheetwrap", ".log ol"];
const scrolled = {}; // selector -> {atEnd, top}, from the player's own scrolling
function watchScrolls(main) {
  for (const sel of SCROLLERS) {
    const el = main.querySelector(sel);
    if (!el) continue;
    el.addEventListener("scroll", () => {
      scrolled[sel] = { atEnd: el.scrollTop + el.clientHeight >= el.scrollHeight - 4, top: el.scrollTop };
    }, { passive: true });
  }
}
export function restoreScrolls() {
  const main = document.getElementById("table");
  for (const sel of SCROLLERS) {
    const el = main.querySelector(sel);
    if (!el) continue;
    const was = scrolled[sel];
    const atEnd = !was || was.atEnd;
    if (atEnd && sel === ".log ol") wholeLines(el);
    el.scrollTop = atEnd ? el.scrollHeight : was.top;
  }
}

// What happened on its newest line shows whole lines, none cut in half at the top: the list's
// box gets shorter by what it would show of the line it cuts (it is drawn anew with each change)
function wholeLines(list) {
  list.style.maxHeight = "";
  list.scrollTop = list.scrollHeight;
  const top = list.getBoundingClientRect().top + list.clientTop;
  const cut = [...list.children].slice(0, -1).map((li) => li.getBoundingClientRect()) // (never the newest line)
    .find((r) => r.top < top - 0.5 && r.bottom > top + 0.5);
  if (cut) list.style.maxHeight = `${list.clientHeight - (cut.bottom - top)}px`;
}

// the height the board may take: the window below the top bar and the status line (the side
// panel never makes the table taller than that)
export function fitBoard() {
  fitHeight();
  restoreScrolls();
}
function fitHeight() {
  const main = document.getElementById("table");
  const top = main.getBoundingClientRect().top + window.scrollY;
  const style = getComputedStyle(main);
  const below = (parseFloat(style.paddingTop) || 0) + (parseFloat(style.paddingBottom) || 0);
  document.documentElement.style.setProperty("--board-h", `${Math.max(320, Math.floor(window.innerHeight - top - below - 2))}px`);
}

// a control that gives way to another in its place: the focus follows it there (Claim 66 or
// Rospis to its question's Cancel, the safe answer; Cancel back to it), not to the first playable
// card, where the next Enter of a keyboard user played that card instead of answering
const FOCUS_NEXT = { claim: "claim-cancel", "claim-cancel": "claim", rospis: "rospis-cancel", "rospis-cancel": "rospis" };

export function renderTable() {
  renderChrome();
  renderRoom();
  const main = document.getElementById("table");
  const focusKey = focusKeyOf(main);
  const wasCard = Boolean(document.activeElement?.dataset?.card);
  const next = main.contains(document.activeElement) ? FOCUS_NEXT[document.activeElement.dataset?.testid] : undefined;
  const v = S.pause ? pausedView() : S.view;
  if (!v) {
    main.replaceChildren(h("div", { class: "empty" }, S.session ? t("connecting") : t("no_game")));
    setStatus(S.session ? t("connecting") : t("no_game"));
    return;
  }
  const board = BOARDS.find((b) => b.fits(v));
  main.replaceChildren(board ? board.render(v) : h("div", { class: "empty error" }, t("unknown_game", { game: v.game })));
  // machine-readable state for tests and assistive tools
  Object.assign(main.dataset, { version: String(S.version), phase: v.phase, game: v.game,
    myTurn: String(myTurn()), pending: String(S.pending), over: String(Boolean(v.over)),
    deals: String((v.sheet || []).length), paused: String(Boolean(S.pause)), offline: String(S.offline) });
  // keep keyboard focus where it was (or on the first playable card)
  if (focusKey) {
    let el = main.querySelector(focusKey);
    if ((!el || el.disabled) && next) el = main.querySelector(`[data-testid="${next}"]`);
    if ((!el || el.disabled) && wasCard) el = main.querySelector('[data-testid="hand"] .card:not([disabled])');
    if (el && !el.disabled) el.focus();
    else S.refocus = true; // the focused control went away (we acted): come back on our turn
  }
  // (nothing focused: the page, or the table itself, where the focus waits between turns)
  if (S.refocus && myTurn() && !S.pending && focusIdle()) {
    const el = main.querySelector('[data-testid="hand"] .card:not([disabled])')
      || main.querySelector('[data-testid="actions"] button.primary:not([disabled])')
      || main.querySelector('[data-testid="actions"] button:not([disabled])');
    if (el) { el.focus(); S.refocus = false; }
  }
  // a deal's end held for the player: "Next deal" takes the focus the played card left
  if (S.pause && focusIdle()) {
    main.querySelector('[data-testid="next-deal"]')?.focus();
  }
  // nothing to do now (another's turn, a table that waits, a spectator) and the focus left
  // with the window or the button that brought us here: the table takes it
  focusTableWhenIdle();
  setStatus([S.error || eventsText(S.pause ? S.pause.said : S.said), turnText()].filter(Boolean).join(" — "));
  fitHeight();
  restoreScrolls();
  watchScrolls(main);
  if (S.view.over) showOver(); else hideDialog("over");
}
