// The Mil board: three seats around an auction, a talon and the tricks. It draws any view
// that carries a talon (`talon_count`); table.js picks it from the view's keys.

import { fmt, h, isNone, spoken } from "./dom.js";
import { S, blocked, handHidden, hintIs, legalOf, myTurn, playerName, screen, toAct } from "./state.js";
import { t, tOwn } from "./i18n.js";
import { SUIT_SYMBOL, backs, cardInText, cardShort, shownCard, suitLabel } from "./cards.js";
import { act } from "./connection.js";
import { actionText } from "./history.js";
import { hintBox } from "./hints.js";
import { actionButton, centerTricks, dealerMark, pointsShown, pointsToggle, relPos, renderHand, stepper } from "./play.js";
import { scoreSheet } from "./sheet.js";
import { pausePanel } from "./deal_end.js";
import { commitmentMark } from "./fairness.js";

export const fits = (v) => "talon_count" in v;

// the cards are being played, or the game is over and its view shows the last deal as it
// ended (its tricks): the seats count their tricks and points
const counting = (v) => v.phase === "play" || Boolean(v.over && v.tricks?.length);

export function render(v) {
  const root = h("div", { class: `board seats-${v.players.length} profile-${v.profile}` });
  // the cards that justify a redeal this seat may ask for come with the view
  const cards = new Set(legalOf("redeal").flatMap((a) => v.redeal_cards?.[a.reason] || []));
  const justify = cards.size ? (c) => cards.has(c) : null;

  const base = v.seat ?? 0;
  for (const seat of [1, 2].map((d) => (base + d) % 3)) root.append(opponent(v, seat));
  root.append(center(v, justify));
  root.append(handHidden(v) ? opponent(v, base, "me bottom") : me(v, justify));
  root.append(scoreSheet(v));
  return root;
}

function seatBadges(v, seat) {
  const b = [];
  if (v.dealer === seat) b.push(dealerMark());
  if (v.declarer === seat) b.push(h("span", { class: "badge declarer" }, t("declarer")));
  if (v.in_barrel?.[seat]) b.push(h("span", { class: "badge barrel", title: t("barrel") }, v.barrel_attempts_max ? `${t("barrel")} ${v.barrel_attempts?.[seat] ?? 0}/${v.barrel_attempts_max}` : t("barrel")));
  if (v.has_bolts !== false && v.bolts?.[seat]) b.push(h("span", { class: "badge bolt", title: t("bolts") }, `⚡ ${v.bolts[seat]}`));
  // (your own seat says it to you: es "te toca", not "le toca")
  if (toAct(v, seat)) b.push(h("span", { class: "badge turn" }, t(seat === v.seat ? "turn_badge_you" : "turn_badge")));
  return b;
}

// a seat's score, read in words with the target ("880 of 1000 points"; the bare number said
// nothing of what it counts)
function scoreMark(v, seat) {
  const n = fmt(v.scores?.[seat] ?? 0);
  return h("span", { class: "score", title: t("score") }, spoken(n, t("score_of", { n, target: v.target })));
}

function lastBidOf(v, seat) {
  const bids = (v.bids || []).filter((b) => b.seat === seat);
  if (!bids.length) return null;
  const b = bids[bids.length - 1];
  return b.type === "pass" ? t("pass_said") : String(b.value);
}

function marriagesOf(v, seat) {
  return (v.marriages || []).filter((m) => m.seat === seat)
    // (read in words: "Announced marriage: hearts, 100"; the symbol alone said "heart 100")
    .map((m) => h("span", { class: `chip marriage suit-${m.suit}`, title: tOwn("announced", v.profile) },
      spoken(`${SUIT_SYMBOL[m.suit]} ${m.value}`, `${tOwn("announced", v.profile)}: ${suitLabel(m.suit)}, ${m.value}`)));
}

// the button on a seat that gives it the chosen card (only where a legal give goes)
function giveTarget(v, seat) {
  const gives = legalOf("give");
  if (!gives.length || blocked()) return null;
  const card = S.ui.giveCard;
  const ok = card && gives.some((a) => a.card === card && a.to === seat);
  if (!gives.some((a) => a.to === seat)) return null;
  const hinted = hintIs((a) => a.type === "give" && a.card === card && a.to === seat);
  // (its name spells the card out, as the hand's cards do: "Give the ten of hearts to Bruno")
  const label = card ? t("give_card_to", { card: cardInText(card), name: playerName(seat) }) : null;
  return h("button", { type: "button", class: `give-to primary ${hinted ? "hinted" : ""}`, testid: `give-to-${seat}`, disabled: !ok, "aria-label": label,
    onclick: () => { if (ok) { S.ui.giveCard = null; act({ type: "give", card, to: seat }); } } },
  card ? t("give_card_to", { card: cardShort(card), name: playerName(seat) }) : t("give_to", { name: playerName(seat) }));
}

// another seat (or, for a watcher, any seat): face-down cards only
function opponent(v, seat, place = null) {
  const pos = place || relPos(seat);
  const bid = v.phase === "bidding" ? lastBidOf(v, seat) : null;
  const got = (v.given || []).filter((g) => g.to === seat);
  return h("section", { class: `seat opp ${pos} ${toAct(v, seat) ? "active" : ""}`, testid: `seat-${seat}`, "aria-label": playerName(seat) },
    h("div", { class: "who" },
      h("span", { class: "name" }, playerName(seat)),
      scoreMark(v, seat)),
    h("div", { class: "badges" }, seatBadges(v, seat)),
    backs(v.hand_counts?.[seat] ?? 0, "fan"),
    h("div", { class: "meta" }, t("cards_count", { n: v.hand_counts?.[seat] ?? 0 }),
      counting(v) ? ` · ${t("tricks_count", { n: v.tricks_won?.[seat] ?? 0 })}` : ""),
    bid ? h("div", { class: "bubble", testid: `bid-of-${seat}` }, bid) : null,
    got.length ? h("div", { class: "meta" }, got.map((g) => t("received", { card: g.card ? cardShort(g.card) : t("a_card") })).join(" ")) : null,
    h("div", { class: "chips" }, marriagesOf(v, seat)),
    giveTarget(v, seat));
}

// the talon's word: a profile may have its own (the house rules' "monte" in Spanish)
export const talonWord = (v) => tOwn("talon", v.profile);

function named(el, what) {
  el.setAttribute("aria-label", `${what}: ${el.getAttribute("aria-label")}`);
  return el;
}

function center(v, justify) {
  const c = h("section", { class: "center", testid: "center", "aria-label": t("table_center") });
  c.append(h("div", { class: "info" },
    h("span", { class: "trump", testid: "trump" }, v.trump ? t("trump_is", { suit: suitLabel(v.trump) }) : t("no_trump")),
    v.contract ? h("span", { testid: "contract-info" }, t("contract_of", { name: playerName(v.declarer), value: v.contract }))
      : (v.high_bid ? h("span", {}, t("high_bid", { value: v.high_bid })) : null),
    h("span", { class: "dealno" }, t("deal_no", { n: v.deal_number ?? 1 })), commitmentMark(v)));
  // a redeal asked by someone: the cards that justify it, from the redeal's event (while a
  // deal's end is held, its panel shows the redeal that ended it, and no later one)
  if (S.proof && v.phase !== "play" && !S.pause) {
    c.append(h("div", { class: "dealresult", testid: "redeal-shown" },
      h("div", { class: "label" }, actionText(S.proof.action, S.proof.seat, "ev")),
      h("div", { class: "cards" }, S.proof.shown.map((x) => shownCard(x, "justify")))));
  }
  // the end of a deal, held until the player goes on
  if (S.pause) {
    c.append(pausePanel(dealResultBox(v, S.pause.row, null)));
    return c;
  }
  if (v.marriages?.length) {
    c.append(h("div", { class: "announced", testid: "marriages" },
      v.marriages.map((m) => h("span", { class: `chip marriage suit-${m.suit}` }, tOwn("marriage_by", v.profile, { name: playerName(m.seat), suit: suitLabel(m.suit), value: m.value })))));
  }
  // the previous deal's result stays in the middle while the next auction runs, and the last
  // deal's once the game is over (the view then shows that deal as it ended)
  const prevRow = (v.sheet || [])[v.sheet.length - 1];
  if (prevRow && (v.phase === "bidding" || v.phase === "redeal_offer" || v.over)) c.append(dealResultBox(v, prevRow));
  // talon: face down until revealed, then shown to everyone for the rest of the deal
  const word = talonWord(v);
  const talon = h("div", { class: `talon ${counting(v) ? "small" : ""}`, testid: "talon", role: "group", "aria-label": word },
    h("div", { class: "label" }, v.talon && !isNone(v.declarer) ? `${word}, ${t("talon_for", { name: playerName(v.declarer) })}` : word));
  // the talon's cards are named as the talon's, not as the hand's
  if (v.talon) talon.append(h("div", { class: "cards" }, v.talon.map((x) => named(shownCard(x, justify && justify(x) ? "justify" : ""), word))));
  else if (v.talon_count) talon.append(backs(v.talon_count));
  if (v.talon || v.talon_count) c.append(talon);
  c.append(centerTricks(v));
  return c;
}

// the last finished deal, from its sheet row (deltas and made come with the view)
function dealResultBox(v, r, label = t("previous_deal", { n: v.sheet.length })) {
  let head;
  if (r.annulled) head = t("annulled");
  else if (r.rospis) head = `${playerName(r.declarer)}: ${t("rospis")} (${r.bid})`;
  else head = t(r.made ? "contract_made" : "contract_failed", { name: playerName(r.declarer), value: r.contract });
  return h("div", { class: `dealresult ${label ? "previous" : ""}`, testid: label ? "last-deal" : "deal-end-result" },
    label ? h("div", { class: "label" }, label) : null,
    h("strong", {}, head),
    r.annulled ? null : h("ul", {}, v.players.map((name, s) => {
      const d = r.deltas?.[s] ?? 0;
      const raw = r.raw ? ` ${t("raw_points", { n: fmt(r.raw[s]) })} →` : "";
      // (a cap cut the points short: the engine says whose, the score it held them at)
      const held = r.capped?.includes(s) ? ` (${t("capped_at", { n: fmt(r.scores[s]) })})` : "";
      // (a penalty struck: why, from the engine: 47 points and -120 read as a wrong sum)
      const whys = (r.penalties || []).filter((p) => p.seat === s).map((p) => t(`penalty_${p.why}`));
      const why = whys.length ? ` (${whys.join(", ")})` : "";
      return h("li", {}, `${name}:${raw} ${d >= 0 ? "+" : ""}${fmt(d)}${held}${why}`);
    })));
}

function actions(v) {
  const panel = h("div", { class: "actions", testid: "actions" });
  if (!myTurn()) return panel;
  const legal = v.legal || [];
  const bids = legal.filter((a) => a.type === "bid").map((a) => a.value).sort((a, b) => a - b);
  const pass = legal.find((a) => a.type === "pass");
  if (bids.length || pass) {
    const passBtn = pass ? actionButton(pass, t("pass"), "pass") : null;
    // why the bids stop at 120 (the engine says: no marriage in hand, or club's stop), on
    // the stepper's range line or the pass-only note: no extra line
    const why = v.bid_limit_reason && (!bids.length || bids[bids.length - 1] <= 120) ? tOwn(`bid_limit_${v.bid_limit_reason}`, v.profile) : null;
    if (bids.length) panel.append(stepper("bid", bids, t("bidding"), t("bid_btn"), (value) => ({ type: "bid", value }), [passBtn], why));
    else panel.append(h("div", { class: "panel" }, passBtn, h("span", { class: "note", testid: "pass-only" }, why ? `${t("pass_only_note")} ${why}` : t("pass_only_note"))));
  }
  const redeals = legal.filter((a) => a.type === "redeal");
  const keep = legal.find((a) => a.type === "keep");
  if (redeals.length || keep) {
    // one sentence with every reason, then the buttons in one row when they fit (a phone keeps
    // its hand in sight); with several reasons each button is named by its reason
    const box = h("div", { class: "panel redeal", testid: "redeal-panel" });
    const buttons = h("div", { class: "buttons" });
    const whys = [];
    for (const r of redeals) {
      let why = t(`reason_${r.reason}`);
      // the points come from the view (the client knows no card values)
      if (r.reason === "low_points" && typeof v.hand_points === "number") why += ` (${t("hand_points", { n: v.hand_points })})`;
      if (r.reason === "low_talon" && typeof v.talon_points === "number") why += ` (${t("talon_points", { n: v.talon_points })})`;
      whys.push(why);
      const b = actionButton(r, redeals.length > 1 ? t(`reason_short_${r.reason}`) : t("redeal_btn"), `redeal-${r.reason}`, "primary");
      if (redeals.length > 1) b.setAttribute("aria-label", `${t("redeal_btn")}: ${t(`reason_${r.reason}`)}`); // (the reason in full)
      buttons.append(b);
    }
    if (whys.length) box.append(h("p", {}, t("redeal_offer", { reason: whys.join("; ") })));
    if (keep) buttons.append(actionButton(keep, t("keep_btn"), "keep"));
    box.append(buttons);
    panel.append(box);
  }
  const rospis = legal.find((a) => a.type === "rospis");
  if (rospis) panel.append(rospisPanel(rospis));
  if (legal.some((a) => a.type === "give")) {
    panel.append(h("div", { class: "panel note", testid: "give-help" }, S.ui.giveCard ? t("give_choose_player", { card: cardInText(S.ui.giveCard) }) : t("give_choose_card")));
  }
  const contracts = legal.filter((a) => a.type === "contract").map((a) => a.value).sort((a, b) => a - b);
  if (contracts.length) panel.append(stepper("contract", contracts, t("contract"), t("play_btn"), (value) => ({ type: "contract", value })));
  const plays = legal.filter((a) => a.type === "play");
  const choice = plays.some((a) => a.marriage) && plays.some((a) => !a.marriage && plays.some((b) => b.card === a.card && b.marriage));
  if (choice) {
    panel.append(h("div", { class: "panel" },
      h("button", { type: "button", class: "toggle", testid: "sing", "aria-pressed": String(S.ui.sing),
        onclick: () => { S.ui.sing = !S.ui.sing; screen.table(); } }, `${S.ui.sing ? "✓ " : ""}${tOwn("sing", v.profile)}`),
      h("span", { class: "note" }, tOwn("sing_note", v.profile))));
  }
  legal.filter((a) => !["bid", "pass", "redeal", "keep", "rospis", "give", "contract", "play"].includes(a.type))
    .forEach((a, i) => panel.append(actionButton(a, actionText(a, null, "do"), `other-${i}`)));
  return panel;
}

// Rospis ends the deal at once and costs the declarer the bid: the first click asks, as a
// Mariage claim short of its points does, and "Yes, concede" sends it
function rospisPanel(rospis) {
  if (!S.ui.confirmRospis) {
    return h("div", { class: "panel" },
      h("button", { type: "button", class: "warn", testid: "rospis", disabled: blocked(),
        onclick: () => { S.ui.confirmRospis = true; screen.table(); } }, t("rospis_btn")),
      h("span", { class: "note" }, t("rospis_note")));
  }
  return h("div", { class: "panel confirm", testid: "rospis-confirm-box", role: "alertdialog", "aria-label": t("rospis_btn") },
    h("span", {}, t("rospis_confirm")),
    actionButton(rospis, t("rospis_yes"), "rospis-confirm", "warn"),
    h("button", { type: "button", testid: "rospis-cancel", onclick: () => { S.ui.confirmRospis = false; screen.table(); } }, t("cancel")));
}

// the player's own points in this deal so far: the card points of their tricks and the
// marriages they announced (both numbers from the view), hideable like Mariage's
function runningPoints(v, seat) {
  const cards = v.captured_points?.[seat];
  if (typeof cards !== "number") return null;
  const sung = (v.marriages || []).filter((m) => m.seat === seat).reduce((sum, m) => sum + (m.value || 0), 0);
  return [
    h("span", { class: "meta points", testid: "my-points" }, pointsShown() ? t("points_n", { n: fmt(cards + sung) }) : ""),
    pointsToggle(),
  ];
}

function me(v, justify) {
  const seat = v.seat;
  const got = (v.given || []).filter((g) => g.to === seat && g.card);
  return h("section", { class: `seat me bottom ${toAct(v, seat) ? "active" : ""}`, testid: `seat-${seat}`, "aria-label": t("you") },
    h("div", { class: "who" },
      h("span", { class: "name" }, playerName(seat)),
      scoreMark(v, seat),
      h("span", { class: "badges" }, seatBadges(v, seat)),
      v.phase === "bidding" && lastBidOf(v, seat) ? h("span", { class: "bubble" }, lastBidOf(v, seat)) : null,
      counting(v) ? h("span", { class: "meta" }, t("tricks_count", { n: v.tricks_won?.[seat] ?? 0 })) : null,
      counting(v) ? runningPoints(v, seat) : null,
      got.length ? h("span", { class: "meta" }, got.map((g) => t("received_from", { card: cardShort(g.card), name: playerName(g.from) })).join(" ")) : null,
      h("span", { class: "chips" }, marriagesOf(v, seat))),
    actions(v),
    hintBox(),
    renderHand(v, justify));
}
