// What happened ("Lo que ha pasado"): the words for actions and events, the history list, and
// what the events of a message leave on the table (the trick that ended a deal, a redeal's
// proof). The events are the engine's for_viewer payloads (docs/dev/protocol.md).

import { fmt, h, isNone } from "./dom.js";
import { S, STORE_HISTORY, playerName } from "./state.js";
import { t, tCount, tOwn } from "./i18n.js";
import { cardInText } from "./cards.js";

const LOG_LINES = 8;

// who: "ev" (someone did it) or "do" (a suggestion to you, a button's label); nameOf names
// the players (the table's, unless a replay names its own); the profile's own words where it
// has them (es: club announces a marriage, casa sings it), the table's unless a replay's
export function actionText(action, seat, who, nameOf = playerName, profile = S.view?.profile) {
  const p = { name: isNone(seat) ? "" : nameOf(seat) };
  const a = action || {};
  const say = (key, params) => tOwn(`${who}_${key}`, profile, params);
  switch (a.type) {
    case "bid": return say("bid", { ...p, value: a.value });
    case "pass": return say("pass", p);
    case "redeal": return say("redeal", { ...p, reason: t(`reason_${a.reason}`) });
    case "keep": return say("keep", p);
    case "rospis": return say("rospis", p);
    case "give": return say("give", { ...p, card: a.card ? cardInText(a.card) : t("a_card"), to: nameOf(a.to) });
    case "contract": return say("contract", { ...p, value: a.value });
    case "play": return say(a.marriage ? "play_marriage" : "play", { ...p, card: cardInText(a.card) });
    case "exchange": return say("exchange", p);
    case "marriage": return say("marriage", { ...p, suit: t(`suit_${a.suit}`) });
    case "close": return say("close", p);
    case "claim": return say("claim", p);
    case "decline": return say("decline", p);
    default: return `${p.name} ${JSON.stringify(a)}`;
  }
}

// a finished deal in words, from its sheet row: a hand won for game points, or the new scores
export function dealEndText(row, nameOf = playerName) {
  const r = row || {};
  if ("game_points" in r) {
    if (isNone(r.winner)) return t("ev_hand_tie");
    return t("ev_hand_won", { name: nameOf(r.winner), points: r.game_points, reason: whyText(r, nameOf) });
  }
  if (r.annulled) return t("ev_annulled");
  const scores = (r.scores || []).map((s, i) => `${nameOf(i)} ${fmt(s)}`).join(" · ");
  return `${t("ev_deal_end")} ${scores}`;
}

// why a hand was won, from its sheet row: a false claim says whose, the loser's ("Bruno's
// false claim": the winner, named before it, did not make it)
function whyText(r, nameOf) {
  if (r.reason === "false_claim") return t("why_false_claim_by", { name: nameOf(1 - r.winner) });
  return t(`why_${r.reason}`);
}

// a closed hand's closing (the sheet row's closed_by, closed_points, closed_tricks) and what
// it did to the game points ("" for a hand not closed), as docs/rules-mariage.md scores it:
// the closer's claim by the opponent's points and tricks at the closing; a failed closing
// (the closer's, or the opponent's claim first) gives the opponent 2, or 3 with no trick at
// the closing, whatever the points; the opponent's false claim gives the closer a fixed 2
export function closingText(row, nameOf = playerName) {
  const r = row || {};
  if (isNone(r.closed_by)) return "";
  const p = { closer: nameOf(r.closed_by), name: nameOf(1 - r.closed_by), points: r.closed_points,
    tricks: r.closed_tricks, game_points: r.game_points };
  if (r.reason === "claim") return tCount("closing_count", r.closed_tricks, p);
  if (r.reason === "false_claim") return t("closing_false_claim", p);
  if (r.reason === "closer_failed" || r.reason === "opponent_claimed_after_close") {
    return r.closed_tricks ? tCount("closing_failed", r.closed_tricks, p) : t("closing_failed_none", p);
  }
  return "";
}

// one event in words, or "" for those the history does not list (tricks, talons, ...); a new
// deal is its number ("Deal 2:"), the start of its lines in the history
function eventText(ev, nameOf = playerName) {
  if (ev.type === "action") return actionText(ev.action, ev.seat, "ev", nameOf);
  if (ev.type === "deal_end") return dealEndText(ev.row, nameOf);
  if (ev.type === "deal" && typeof ev.deal_number === "number") return tOwn("ev_new_deal", S.view?.game, { n: ev.deal_number });
  return "";
}

// the events of one message in words, as one line ("Bruno plays the 9♠. Deal over. …")
export function eventsText(events, nameOf = playerName) {
  const lines = (events || []).map((ev) => eventText(ev, nameOf)).filter(Boolean);
  // (a line that is only a new deal's number ends without its colon)
  return lines.map((x, i) => (i < lines.length - 1 && !/[.!?:]$/.test(x) ? `${x}.` : x)).join(" ").replace(/:$/, "");
}

// the events that say something split where a new deal starts: the history gives each deal's
// first line its number, not the end of the line of the deal before
function byDeal(said) {
  const parts = [];
  for (const ev of said) {
    if (ev.type === "deal" || !parts.length) parts.push([]);
    parts[parts.length - 1].push(ev);
  }
  return parts;
}

// a line of the history: the events that say something and the players' names when they were
// said, put in words when it is drawn (a change of language says it again in the new one)
// (``said``: the events that say something, already found by takeEvents)
function logLine(said) {
  const kept = said.map((ev) => (ev.type === "action" ? { type: ev.type, seat: ev.seat, action: ev.action, index: ev.index }
    : ev.type === "deal" ? { type: ev.type, deal_number: ev.deal_number } : { type: ev.type, row: ev.row }));
  return { events: kept, names: [...(S.view?.players || [])] };
}

// a line in the page's language (a line kept by an older page is its words, as they were said)
export function lineText(line) {
  if (typeof line === "string") return line;
  return eventsText(line.events, (seat) => line.names?.[seat] || playerName(seat));
}

// the events of one server message: they join the history as one line, or one per deal (and the status line
// says them until the next ones); a deal's end keeps its last trick; a redeal keeps the cards
// that justify it. Returns the number of lines it added (a new deal starts a line of its own).
export function takeEvents(events) {
  if (!Array.isArray(events) || !events.length) return 0; // a sync or a first view: nothing new
  const said = events.filter((ev) => eventText(ev)); // (each event put in words once)
  S.said = events;
  const parts = byDeal(said);
  // the game's first moves: the first deal has no "deal" event (the next ones come with the
  // end of the deal before), so its line 1, "Deal 1", is put before them as the next
  // deals' are (the list began at "2. Bruno bids 100"). The game's first action is the first
  // its deal records (index 0), or a kept hand that could have been redealt (a "keep" is not
  // recorded: index null), which only ever comes before the deal's first recorded action
  const v = S.view;
  const first = parts[0]?.[0];
  const opening = first?.type === "action" && (first.index === 0 || (first.index === null && first.action?.type === "keep"));
  if (!S.log.length && opening && v?.deal_number === 1 && !(v.sheet || []).length) {
    parts.unshift([{ type: "deal", deal_number: 1 }]);
  }
  if (parts.length) {
    for (const part of parts) S.log.push(logLine(part));
    S.log.splice(0, Math.max(0, S.log.length - LOG_LINES));
    saveHistory();
  }
  S.proof = redealProof(events);
  for (const ev of events) {
    if (ev.type === "trick") S.lastTrick = Array.isArray(ev.cards) && ev.cards.length ? ev.cards : null;
    else if (ev.type === "deal_end") {
      // (a deal ended by an action after its last trick, a Mariage claim or decline: that
      // trick came with an earlier message)
      S.finalTrick = S.lastTrick;
      S.lastTrick = null;
    }
  }
  return parts.length;
}

// a redeal among a message's events, with the cards that justify it: {seat, action, shown}
export function redealProof(events) {
  const ev = (events || []).find((e) => e.type === "action" && e.action?.type === "redeal" && Array.isArray(e.shown) && e.shown.length);
  return ev ? { seat: ev.seat, action: ev.action, shown: ev.shown } : null;
}

// the steps ({version, events}) missed while the connection was away, taken in their place:
// before the last ``live`` lines (the moves that came live after the reconnection), which
// keep saying what is newest
export function takeMissed(steps, live) {
  if (!steps.length) return;
  const newest = live ? S.log.splice(-live) : [];
  const kept = { said: S.said, proof: S.proof, finalTrick: S.finalTrick };
  for (const step of steps) takeEvents(step.events);
  if (newest.length) {
    Object.assign(S, kept);
    S.log.push(...newest);
    S.log.splice(0, Math.max(0, S.log.length - LOG_LINES));
    saveHistory();
  }
}

// What happened survives a reload or a reconnection: this tab keeps it per table
// (sessionStorage; each line's events and names, said in the page's language when drawn)
const historyKey = () => (S.session?.table === undefined || S.session?.table === null ? null : `${STORE_HISTORY}${S.session.table}`);
// (with the version the list is at: a reload's first view of that same version says the last
// line again in the status line, which a reload left empty; a newer one does not: it is old news)
function saveHistory() {
  const key = historyKey();
  if (!key) return;
  try {
    sessionStorage.setItem(key, JSON.stringify(S.log));
    sessionStorage.setItem(`${key}.version`, String(S.version));
  } catch { /* full or disabled: the list stays in memory */ }
}
export function loadHistory() {
  const key = historyKey();
  if (!key) return;
  try {
    const lines = JSON.parse(sessionStorage.getItem(key) || "[]");
    const line = (x) => typeof x === "string" || (Array.isArray(x?.events) && x.events.every((e) => e && typeof e === "object"));
    if (Array.isArray(lines)) S.log = lines.filter(line).slice(-LOG_LINES);
    const last = S.log[S.log.length - 1];
    const version = Number(sessionStorage.getItem(`${key}.version`));
    S.restored = last && typeof last !== "string" && Number.isInteger(version) ? { version, said: last.events } : null;
  } catch { /* unreadable: start empty */ }
}

// a first view after a reload (no events): the status line says the history's last line again
// when the view is the version that line was kept at
export function takeRestored(msg, lines) {
  const kept = S.restored;
  S.restored = null;
  if (kept && !lines && !msg.events?.length && msg.version === kept.version) S.said = kept.said;
}

// a line's number: the step of its deal's replay that shows it (the replay window's "Step n"
// and its numbered moves: frame f is step f + 1), so that line N means the same move however
// many lines came before or were dropped: a new deal's line is the deal as dealt (frame 0,
// step 1), an action the record's actions[index] (frame index + 1, step index + 2: the index
// comes with the event); none for an action the record leaves out (its index null: Mil's
// keep, Mariage's decline, which have no frame of their own) or a line kept by an older page
function lineStep(line) {
  const first = typeof line === "string" ? null : line.events?.[0];
  if (first?.type === "deal") return 1;
  if (first?.type === "action" && typeof first.index === "number") return first.index + 2;
  return null;
}

export function logBox() {
  // (a game opened again once it is over has no lines here: this page saw none of its moves)
  const empty = !S.log.length && S.view?.over;
  return h("div", { class: "log" }, h("h2", {}, t("log")),
    empty ? h("p", { class: "note", testid: "log-empty" }, t("log_over_elsewhere")) : null,
    h("ol", { testid: "log" }, S.log.map((x) => {
      const n = lineStep(x);
      return h("li", { value: n, class: n === null ? "unnumbered" : null }, lineText(x));
    })));
}
