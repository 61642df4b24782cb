// The Mariage board: two seats, a stock with its trump indicator, the tricks and the buttons
// of the game's own actions. It draws any view that carries a stock (`stock_count`); table.js
// picks it from the view's keys.

import { h, spoken } from "./dom.js";
import { S, blocked, handHidden, myTurn, playerName, screen, toAct } from "./state.js";
import { t } from "./i18n.js";
import { SUIT_SYMBOL, backs, shownCard, suitLabel } from "./cards.js";
import { actionText, closingText } from "./history.js";
import { hintBox } from "./hints.js";
import { actionButton, centerTricks, dealerMark, pointsShown, pointsToggle, renderHand } from "./play.js";
import { matchSheet } from "./sheet.js";
import { pausePanel } from "./deal_end.js";
import { commitmentMark } from "./fairness.js";
import { dealEndText } from "./history.js";

export const fits = (v) => "stock_count" in v;

const marriageChips = (v, seat) => (v.marriages || []).filter((m) => m.seat === seat)
  .map((m) => h("span", { class: "chip marriage" }, `${SUIT_SYMBOL[m.suit]} ${m.value}`));

// a seat's game points of the match's target ("0/7", read "0 of 7 game points")
const gamePoints = (v, seat) => h("span", { class: "score", title: t("game_points") },
  spoken(`${v.match?.[seat] ?? 0}/${v.target}`, t("game_points_of", { n: v.match?.[seat] ?? 0, target: v.target })));

export function render(v) {
  const me = v.seat ?? 0; // a watcher sees the table from seat 0, with no hand
  const opp = 1 - me;
  const root = h("div", { class: `board seats-${v.players.length} profile-${v.profile}` });
  root.append(h("section", { class: `seat opp top ${toAct(v, opp) ? "active" : ""}`, testid: `seat-${opp}`, "aria-label": playerName(opp) },
    h("div", { class: "who" }, h("span", { class: "name" }, playerName(opp)),
      gamePoints(v, opp)),
    h("div", { class: "badges" }, v.dealer === opp ? dealerMark() : null,
      toAct(v, opp) ? h("span", { class: "badge turn" }, t("turn_badge")) : null),
    backs(v.hand_counts?.[opp] ?? 0, "fan"),
    h("div", { class: "meta" }, t("tricks_count", { n: v.tricks_won?.[opp] ?? 0 }),
      pointsShown() ? ` · ${t("points_n", { n: v.points?.[opp] ?? 0 })}` : ""),
    h("div", { class: "chips" }, marriageChips(v, opp))));
  root.append(center(v));
  root.append(h("section", { class: `seat me bottom ${toAct(v, me) ? "active" : ""}`, testid: `seat-${me}`, "aria-label": v.seat === null ? playerName(me) : t("you") },
    h("div", { class: "who" }, h("span", { class: "name" }, playerName(me)),
      gamePoints(v, me),
      v.dealer === me ? dealerMark() : null,
      h("span", { class: "meta" }, t("tricks_count", { n: v.tricks_won?.[me] ?? 0 })),
      h("span", { class: "meta points", testid: "my-points" }, pointsShown() ? t("points_n", { n: v.points?.[me] ?? 0 }) : ""),
      pointsToggle(),
      h("span", { class: "chips" }, marriageChips(v, me))),
    ...(handHidden(v) ? [backs(v.hand_counts?.[me] ?? 0, "fan")] : [actions(v), hintBox(), renderHand(v)])));
  root.append(matchSheet(v));
  return root;
}

function center(v) {
  const c = h("section", { class: "center has-stock", testid: "center", "aria-label": t("table_center") });
  c.append(h("div", { class: "info" },
    h("span", { class: "trump", testid: "trump" }, t("trump_is", { suit: suitLabel(v.trump) })),
    v.closed ? h("span", { class: "chip", testid: "closed" }, t("closed_by", { name: playerName(v.closed_by) })) : null,
    v.pending_marriage ? h("span", { class: "chip marriage" }, t("marriage_shown", { suit: suitLabel(v.pending_marriage) })) : null,
    h("span", { class: "dealno" }, t("hand_no", { n: v.deal_number ?? 1 })), commitmentMark(v)));
  // the indicator lies face up under the stock while it is open, face down once closed
  if (S.pause) { // the end of a hand, held until the player goes on
    c.classList.remove("has-stock");
    c.append(pausePanel(handResult(S.pause.row)));
    return c;
  }
  // the match is over: its last hand's result stays in the middle, above how the hand ended
  // (the view shows that hand: its stock and its last trick)
  const lastRow = v.over ? (v.sheet || [])[v.sheet.length - 1] : null;
  if (lastRow) { c.classList.add("has-result"); c.append(handResult(lastRow, "last-hand")); }
  const stock = h("div", { class: "stock", testid: "stock", role: "group", "aria-label": t("stock") });
  if (v.stock_count > 0) {
    if (v.indicator) stock.append(h("div", { class: "indicator" }, shownCard(v.indicator)));
    else if (v.closed) stock.append(h("div", { class: "indicator closed" }, h("div", { class: "card back", title: t("closed") })));
    stock.append(h("div", { class: "pile" }, h("div", { class: "card back" }), h("span", { class: "count", testid: "stock-count" }, String(v.stock_count))));
  } else {
    stock.append(h("div", { class: "note" }, t("stock_empty")));
  }
  c.append(stock, centerTricks(v));
  return c;
}

// how a hand ended, from its row of the match sheet
function handResult(r, testid = "deal-end-result") {
  return h("div", { class: "dealresult", testid }, h("strong", {}, dealEndText(r)),
    Array.isArray(r.points) ? h("div", {}, `${t("card_points")}: ${r.points.join("–")}`) : null,
    // a closed hand: the opponent's position at the closing counted, not the cards above
    closingText(r) ? h("div", { class: "note", testid: "deal-end-closing" }, closingText(r)) : null);
}

// Claim 66 is never the recommended button; with the points shown, a claim below the points a
// claim needs (view.claim_points) asks first (when the view does not say them: every claim)
function claimButton(v, claim) {
  const mine = v.points?.[v.seat] ?? 0;
  const needs = typeof v.claim_points === "number" ? v.claim_points : null;
  const ask = S.ui.showPoints && (needs === null || mine < needs);
  if (!ask) return actionButton(claim, t("claim_btn"), "claim");
  if (!S.ui.confirmClaim) {
    return h("button", { type: "button", testid: "claim", disabled: blocked(),
      onclick: () => { S.ui.confirmClaim = true; screen.table(); } }, t("claim_btn"));
  }
  return h("div", { class: "confirm", testid: "claim-confirm-box", role: "alertdialog", "aria-label": t("claim_btn") },
    h("span", {}, needs === null ? t("claim_confirm_any", { n: mine }) : t("claim_confirm", { n: mine, need: needs })),
    actionButton(claim, t("claim_yes"), "claim-confirm", "warn"),
    h("button", { type: "button", testid: "claim-cancel", onclick: () => { S.ui.confirmClaim = false; screen.table(); } }, t("cancel")));
}

function actions(v) {
  const panel = h("div", { class: "actions", testid: "actions" });
  if (!myTurn()) return panel;
  const legal = v.legal || [];
  const row = h("div", { class: "panel" });
  const ex = legal.find((a) => a.type === "exchange");
  if (ex) row.append(actionButton(ex, t("exchange_btn"), "exchange"));
  legal.filter((a) => a.type === "marriage").forEach((a) =>
    row.append(actionButton(a, t("marriage_btn", { suit: suitLabel(a.suit) }), `marriage-${a.suit}`, "gold")));
  const close = legal.find((a) => a.type === "close");
  if (close) row.append(actionButton(close, t("close_btn"), "close"));
  const claim = legal.find((a) => a.type === "claim");
  if (claim) row.append(claimButton(v, claim));
  const decline = legal.find((a) => a.type === "decline");
  if (decline) row.append(actionButton(decline, t("decline_btn"), "decline"));
  legal.filter((a) => !["exchange", "marriage", "close", "claim", "decline", "play"].includes(a.type))
    .forEach((a, i) => row.append(actionButton(a, actionText(a, null, "do"), `other-${i}`)));
  if (row.childNodes.length) panel.append(row);
  return panel;
}
