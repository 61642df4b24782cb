// The moment at the end of a deal: the client holds the finished deal on the table (its result,
// its last trick and its talon, also when a declarer conceded) until the player presses
// "Next deal", or for a few seconds when they chose so ("Review this deal" opens its review
// and stops the countdown). The server keeps playing meanwhile;
// when the player goes on, the table shows the newest view. Purely a matter of display.

import { h } from "./dom.js";
import { S, STORE_AUTO_NEXT, playerName, screen } from "./state.js";
import { t, tOwn } from "./i18n.js";
import { shownCard } from "./cards.js";
import { dealEndReview } from "./review.js";
import { actionText, redealProof } from "./history.js";

export const AUTO_NEXT_MS = 4000;
let timer = null;

// a message that ends a deal (its events carry deal_end) holds the deal that `prev` showed;
// not at the end of the game (the end window takes over), and one pause at a time
export function holdDealEnd(prev, msg) {
  const events = Array.isArray(msg.events) ? msg.events : [];
  const end = events.find((e) => e.type === "deal_end");
  if (!end || !prev || msg.view?.over || S.pause) return;
  const nextDeal = events.findIndex((e) => e.type === "deal");
  // the trick of the card that ended the deal, which `prev` does not count yet
  let late = null;
  for (const ev of events) if (ev.type === "trick" && Array.isArray(ev.cards)) late = ev;
  // a deal ended by an action after its last trick (a Mariage claim, or a decline after the
  // last trick of a closed hand): that trick came with an earlier message, `prev` shows it
  const trick = late || (Array.isArray(prev.last_trick?.cards) ? prev.last_trick : null);
  S.pause = {
    view: prev,
    deal: typeof end.deal === "number" ? end.deal : (prev.deal_number ?? 1) - 1,
    row: end.row || {},
    trick: trick ? { cards: trick.cards, winner: trick.winner } : null,
    late: late ? { cards: late.cards, winner: late.winner, points: late.points } : null,
    talon: S.dealTalon || prev.talon || null,
    // a redeal that ended this deal: its cards belong to the held deal (a redeal asked in the
    // next deal while this one is held is not shown here)
    proof: redealProof(events),
    // what the status line says meanwhile: the end of this deal, not the next one's moves
    // (those of this message after its new deal, and of the messages to come)
    said: events.slice(0, nextDeal < 0 ? events.length : nextDeal),
  };
  schedule();
}

// the talon of the deal being played, once it is face up (a talon event or the view's talon)
export function noteTalon(view, events) {
  const evs = Array.isArray(events) ? events : [];
  if (evs.some((e) => e.type === "deal")) S.dealTalon = null;
  for (const ev of evs) if (ev.type === "talon" && Array.isArray(ev.cards)) S.dealTalon = ev.cards;
  if (Array.isArray(view?.talon) && view.talon.length) S.dealTalon = view.talon;
}

function schedule() {
  clearTimeout(timer);
  timer = S.pause && S.ui.autoNext ? setTimeout(goOn, AUTO_NEXT_MS) : null;
  keepUpWithTheClock();
}

// a table with a move clock: the person's time runs on the server while the page holds the
// deal's end, so once their turn has come the held end goes on by itself as after its few
// seconds, whether or not they chose so (a 15 s clock took seats over while a page showed a
// deal long over). Called again with each message's clocks (connection.js).
export function keepUpWithTheClock() {
  const me = S.view?.seat;
  const mine = me === null || me === undefined ? null : S.clocks?.seats?.[me];
  if (S.pause && !timer && mine?.running && mine.move !== null && mine.move !== undefined) timer = setTimeout(goOn, AUTO_NEXT_MS);
}

// the player looks at something (the deal's review): no going on by itself meanwhile
function holdOn() {
  clearTimeout(timer);
  timer = null;
}

export function goOn() {
  clearTimeout(timer);
  timer = null;
  if (!S.pause) return;
  S.pause = null;
  S.refocus = true; // back on the first playable card (or the main button) of the new deal
  screen.table();
}

// what the table draws while a deal's end is held: the finished deal as the player last saw
// it, without the cards of its last trick and with nobody to act, and the newest sheet/totals;
// the seats' tricks and points are the deal's final ones, as its result says them
export function pausedView() {
  const p = S.pause;
  const v = S.view || p.view;
  const late = p.late;
  const lateCards = late?.cards || [];
  const played = new Set(lateCards.map((x) => x.card));
  const counts = (p.view.hand_counts || []).map((n, s) => Math.max(0, n - lateCards.filter((x) => x.seat === s).length));
  // the last trick's taker: one trick more and the trick's card points (the server's numbers)
  const taken = (list, n) => (Array.isArray(list) && late && typeof n === "number" ? list.map((x, s) => (s === late.winner ? x + n : x)) : list);
  const r = p.row;
  return {
    ...p.view, legal: [], turn: null, trick: [], last_trick: null, tricks: [],
    hand: (p.view.hand || []).filter((c) => !played.has(c)), hand_counts: counts,
    // the hand's result has each seat's tricks and points (Mariage); else the held view's
    // numbers with the last trick added (Mil)
    tricks_won: Array.isArray(r.tricks) ? r.tricks : taken(p.view.tricks_won, 1),
    captured_points: taken(p.view.captured_points, late?.points),
    points: Array.isArray(r.points) ? r.points : p.view.points,
    sheet: v.sheet, scores: v.scores, match: v.match, in_barrel: v.in_barrel,
    barrel_attempts: v.barrel_attempts, bolts: v.bolts, paused: true,
  };
}

// the panel in the middle of the table: the result (drawn by the board), the last trick, the
// cards of a redeal that annulled the deal, the talon, and the buttons to go on
export function pausePanel(result) {
  const p = S.pause;
  const n = p.deal + 1;
  const labelled = (c, what, how = "") => { const el = shownCard(c, how); el.setAttribute("aria-label", `${what}: ${el.getAttribute("aria-label")}`); return el; };
  const said = p.proof ? actionText(p.proof.action, p.proof.seat, "ev") : null;
  // the talon only when it is not the very cards that justified the redeal
  const talon = p.talon?.length && !(p.proof && p.talon.every((c) => p.proof.shown.includes(c))) ? p.talon : null;
  const talonWord = tOwn("talon", p.view.profile);
  const title = tOwn("deal_end_title", p.view.game, { n });
  return h("div", { class: "dealend", testid: "deal-end", role: "group", "aria-label": title },
    h("h2", {}, title),
    result,
    p.trick ? h("div", { class: "part" },
      h("div", { class: "label" }, t("deal_end_trick", { name: playerName(p.trick.winner) })),
      h("div", { class: "cards", testid: "deal-end-trick" }, p.trick.cards.map((x) => labelled(x.card, playerName(x.seat))))) : null,
    p.proof ? h("div", { class: "part" },
      h("div", { class: "label" }, said),
      h("div", { class: "cards proof", testid: "deal-end-redeal" }, p.proof.shown.map((c) => labelled(c, said, "justify")))) : null,
    talon ? h("div", { class: "part" },
      h("div", { class: "label" }, talonWord),
      h("div", { class: "cards", testid: "deal-end-talon" }, talon.map((c) => labelled(c, talonWord)))) : null,
    h("div", { class: "row" },
      h("button", { type: "button", class: "primary", testid: "next-deal", onclick: goOn }, tOwn("next_deal", p.view.game)),
      // the review of the deal just over; while it is open the moment waits for "Next deal"
      dealEndReview(p.deal, holdOn),
      h("button", { type: "button", class: "small toggle", testid: "auto-next", "aria-pressed": String(S.ui.autoNext),
        onclick: () => {
          S.ui.autoNext = !S.ui.autoNext;
          localStorage.setItem(STORE_AUTO_NEXT, S.ui.autoNext ? "1" : "0");
          schedule();
          screen.table();
        } }, t("auto_next", { s: AUTO_NEXT_MS / 1000 }))));
}
