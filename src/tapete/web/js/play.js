// The pieces every board shares: where a seat sits, the hand, the trick on the table (and the
// last one), the −/+ steppers and the action buttons. Enabled controls come from view.legal
// only: the client holds no rule.

import { h, isNone, same, spoken } from "./dom.js";
import { S, STORE_POINTS, blocked, hintIs, legalOf, myTurn, playerName, screen, watching } from "./state.js";
import { t, tOwn } from "./i18n.js";
import { cardEl, shownCard } from "./cards.js";
import { act } from "./connection.js";

// where a seat sits on the screen, seen from the viewer's seat (a watcher sits at seat 0)
export function relPos(seat) {
  const v = S.view;
  const n = v.players.length;
  const rel = (seat - (v.seat ?? 0) + n) % n;
  if (n === 2) return rel === 0 ? "bottom" : "top";
  return ["bottom", "left", "right"][rel] ?? `seat${rel}`;
}

// whether the running points are shown: the player's choice; a spectator, who has no
// switch, always sees them
// the dealer's mark on a seat, Mil's and Mariage's: "D", read "dealer"
export const dealerMark = () => h("span", { class: "badge dealer", title: t("dealer") }, spoken(t("dealer_short"), t("dealer")));

export const pointsShown = () => S.ui.showPoints || watching();

// the switch of the player's running points (both boards): a toggle button whose name stays
// "Show points" and whose pressed state (its highlight) says whether they are shown (its
// name said "Hide points" while pressed: read aloud "Hide points, pressed" with the points
// shown); the choice is kept for the next visit. No "✓" before the name, unlike the "sing"
// toggle's: the label is then no wider than "Hide points" was (on a phone, the seat's line
// of a held deal end wrapped once more and left the window)
export function pointsToggle() {
  if (watching()) return null; // (a spectator counts nobody's own points: nothing to hide)
  return h("button", { type: "button", class: "small toggle", testid: "toggle-points", "aria-pressed": String(S.ui.showPoints),
    onclick: () => { S.ui.showPoints = !S.ui.showPoints; localStorage.setItem(STORE_POINTS, S.ui.showPoints ? "1" : "0"); screen.table(); } },
  t("show_points"));
}

// the viewer's hand: the cards of legal play/give actions are enabled; `justify` marks the
// cards that justify a redeal (a predicate or null)
export function renderHand(v, justify = null) {
  const plays = legalOf("play");
  const gives = legalOf("give");
  const pairs = new Set(v.pair_cards || []);
  const choosing = myTurn() && (plays.length > 0 || gives.length > 0);
  const hand = h("div", { class: `hand ${choosing ? "choosing" : "idle"}`, testid: "hand", role: "group", "aria-label": t("your_hand") });
  v.hand.forEach((c) => {
    let enabled = false;
    let onclick = null;
    let pressed = null;
    if (!blocked() && plays.some((a) => a.card === c)) {
      enabled = true;
      onclick = () => playCard(c);
    } else if (!blocked() && gives.some((a) => a.card === c)) {
      enabled = true;
      pressed = S.ui.giveCard === c;
      onclick = () => {
        S.ui.giveCard = S.ui.giveCard === c ? null : c;
        screen.table();
        // the card chosen, the next step is a seat's Give button (above the hand): the
        // keyboard goes there instead of leaving it to be found with Shift+Tab
        if (S.ui.giveCard) document.querySelector(".give-to:not([disabled])")?.focus();
      };
    }
    let cls = "";
    if (pairs.has(c)) cls += " pair";
    if (justify && justify(c)) cls += " justify";
    if (hintIs((a) => a.card === c)) cls += " hinted";
    if (pressed) cls += " selected";
    const el = cardEl(c, { enabled, onclick, cls, pressed });
    if (pairs.has(c)) el.title = tOwn("pair_mark", v.profile);
    hand.append(el);
  });
  return hand;
}

// a card with two legal plays (with and without announcing the marriage): the Announce toggle decides
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

// the last trick taken in this deal ({cards, winner}): the view's last_trick, or the last of its tricks
function lastTrickOf(v) {
  if (v.last_trick) return v.last_trick;
  const tr = v.tricks || [];
  return tr.length ? tr[tr.length - 1] : null;
}

// the trick on the table; the one just taken stays, faded, until the next lead; before the
// first card of a deal (and until its talon is up) the trick that ended the previous deal
export function centerTricks(v) {
  const wrap = h("div", { class: "trickwrap" });
  const last = lastTrickOf(v);
  const current = v.trick || [];
  const taken = (tr) => (isNone(tr.winner) ? null : h("div", { class: "caption" }, t("trick_taken_by", { name: playerName(tr.winner) })));
  // under the trick, in one row: who took it and the button that shows the last trick
  const foot = h("div", { class: "trickfoot" });
  if (S.ui.showLast && last) {
    wrap.append(trickArea(last.cards, t("last_trick"), "last open"));
    foot.append(taken(last) ?? "");
  } else if (current.length) {
    wrap.append(trickArea(current, t("current_trick")));
  } else if (last) {
    wrap.append(trickArea(last.cards, t("last_trick"), "last faded"));
    foot.append(taken(last) ?? "");
  } else if (S.finalTrick && !v.talon) {
    const said = tOwn("final_trick", v.game);
    wrap.append(trickArea(S.finalTrick, said, "last faded final"));
    foot.append(h("div", { class: "caption" }, said));
  }
  if (last) {
    foot.append(h("button", { type: "button", class: "small", testid: "toggle-last", "aria-pressed": String(S.ui.showLast),
      onclick: () => { S.ui.showLast = !S.ui.showLast; screen.table(); } }, t("last_trick")));
  }
  if (foot.childNodes.length) wrap.append(foot);
  return wrap;
}

// −/+ over the legal values (never computed here: they come from view.legal)
// `note` (optional): a short reason shown on the range line (no extra line on a phone)
export function stepper(kind, values, label, submitLabel, makeAction, extra = [], note = null) {
  let cur = S.ui[kind];
  if (!values.includes(cur)) cur = values[0];
  S.ui[kind] = cur;
  const i = values.indexOf(cur);
  const step = (d) => { S.ui[kind] = values[Math.max(0, Math.min(values.length - 1, i + d))]; screen.table(); };
  const hinted = hintIs((a) => a.type === kind && a.value === cur);
  const range = values.length === 1 ? t("only_value", { value: values[0] }) : t("range", { min: values[0], max: values[values.length - 1] });
  return h("div", { class: "panel stepper", role: "group", "aria-label": label },
    h("div", { class: "range" }, h("span", { testid: `${kind}-range` }, range),
      note ? h("span", { class: "note", testid: `${kind}-limit-note` }, ` · ${note}`) : null),
    h("div", { class: "row" },
      h("button", { type: "button", class: "round", testid: `${kind}-minus`, "aria-label": t("minus"), disabled: i <= 0 || blocked(), onclick: () => step(-1) }, "−"),
      h("output", { class: "value", testid: `${kind}-value`, "aria-live": "polite" }, String(cur)),
      h("button", { type: "button", class: "round", testid: `${kind}-plus`, "aria-label": t("plus"), disabled: i >= values.length - 1 || blocked(), onclick: () => step(1) }, "+"),
      h("button", { type: "button", class: `primary ${hinted ? "hinted" : ""}`, testid: kind, disabled: blocked(),
        "aria-label": `${submitLabel} ${cur}`, onclick: () => act(makeAction(S.ui[kind])) }, submitLabel),
      extra));
}

export function actionButton(action, label, testid, cls = "") {
  const hinted = hintIs((a) => same(a, action));
  return h("button", { type: "button", class: `${cls} ${hinted ? "hinted" : ""}`.trim(), testid, disabled: blocked(), onclick: () => act(action) }, label);
}
