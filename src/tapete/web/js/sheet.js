// The side panel's score sheets, one row per finished deal (view.sheet), with the history
// under them: points per player (a game to 1000) or game points of a match (to 7).

import { fmt, h, isNone } from "./dom.js";
import { playerName } from "./state.js";
import { reviewBar } from "./review.js";
import { t } from "./i18n.js";
import { logBox } from "./history.js";

// the sheet scrolls inside the side panel (the table never grows with it): table.js keeps it
// on the newest row unless the player scrolled up to read older ones
const sheetScroll = (table) => h("div", { class: "sheetwrap", testid: "sheet-scroll", tabindex: "0", role: "region", "aria-label": t("sheet") }, table);

// a word in a narrow column (a name, "distribuição"): on one line, cut with an ellipsis when
// longer than the column (whole in its title), never broken inside ("QAcas / a500")
const word = (text) => h("span", { class: "word", title: text }, text);
// words that wrap at their spaces, each one whole or cut as above ("nova / distribu…")
const words = (text) => text.split(" ").flatMap((w, i) => (i ? [" ", word(w)] : [word(w)]));
// a player's name atop a narrow column: a short last word (the server's "Jugador 2" beside
// "Jugador", an initial) stays in sight and the rest is cut ("Jug… 2"): both read "Jugad…"
const headName = (name) => {
  const at = name.lastIndexOf(" ");
  if (at < 1 || name.length - at - 1 > 3) return name;
  return h("span", { class: "hname" }, h("span", { class: "base" }, name.slice(0, at)), h("span", { class: "tail" }, name.slice(at)));
};
// a number of the sheet (a deal's number, a bid, a score), never split over two lines
const num = (n) => h("span", { class: "num" }, fmt(n));

// each player's total with the deal's change, barrel and bolt marks (rows with `scores`)
export function scoreSheet(v) {
  const side = h("aside", { class: "side" });
  side.append(h("h2", {}, t("sheet")));
  side.append(reviewBar(v) ?? "");
  side.append(sheetScroll(scoreTable(v)));
  side.append(h("p", { class: "legend", testid: "sheet-legend" }, legend(v)));
  side.append(logBox());
  return side;
}

// the table of a score sheet: `rows` (the view's sheet, or the first rows of it in a replay),
// the players named by `nameOf`
export function scoreTable(v, rows = v.sheet || [], nameOf = playerName, testid = "sheet") {
  const names = v.players;
  const table = h("table", { class: "sheet", testid },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("contract")),
      names.map((_, s) => h("th", { scope: "col", title: nameOf(s) }, headName(nameOf(s)))))));
  const body = h("tbody");
  rows.forEach((r, i) => {
    let what;
    if (r.annulled) what = words(t("annulled"));
    else if (r.rospis) what = [word(nameOf(r.declarer)), " ", num(r.bid), " · ", ...words(t("rospis"))];
    else what = [word(nameOf(r.declarer)), " ", num(r.contract)];
    const scores = r.scores || [];
    body.append(h("tr", { testid: "sheet-row" },
      h("td", {}, String(i + 1)), h("td", {}, what),
      names.map((_, s) => {
        const d = r.deltas?.[s] ?? 0;
        const marks = [];
        // attempts only where the profile counts them (the view's barrel_attempts_max)
        if (r.in_barrel?.[s]) marks.push(v.barrel_attempts_max ? `${t("barrel_mark")}${r.barrel_attempts?.[s] ?? 0}` : t("barrel_mark"));
        if (r.bolts?.[s]) marks.push(`⚡${r.bolts[s]}`);
        // (the spaces between the parts are where a narrow column wraps: outside the spans,
        // which keep each number whole)
        return h("td", {}, h("span", { class: "total" }, fmt(scores[s])),
          r.annulled ? null : [" ", h("span", { class: `delta ${d < 0 ? "neg" : ""}` }, `(${d >= 0 ? "+" : ""}${fmt(d)})`)],
          marks.length ? [" ", h("span", { class: "marks" }, marks.join(" "))] : null);
      })));
  });
  table.append(body);
  return table;
}

// the legend says only the marks this game can show: attempts where the profile counts them
// (barrel_attempts_max), bolts once any seat has one
function legend(v) {
  const bolts = (v.bolts || []).some(Boolean) || (v.sheet || []).some((r) => (r.bolts || []).some(Boolean));
  const parts = [v.barrel_attempts_max ? t("legend_barrel_attempts") : t("legend_barrel")];
  if (bolts) parts.push(t("legend_bolts"));
  parts.push(t("legend_target", { target: v.target, barrel: v.barrel_from }));
  return parts.join(" · ");
}

// the match score and, per hand, who won it, why, its game points and card points
export function matchSheet(v) {
  const side = h("aside", { class: "side" });
  side.append(h("h2", {}, t("match_to", { n: v.target })));
  side.append(h("div", { class: "matchscore", testid: "match" }, `${playerName(0)} ${v.match?.[0] ?? 0} – ${v.match?.[1] ?? 0} ${playerName(1)}`));
  side.append(reviewBar(v) ?? "");
  side.append(sheetScroll(matchTable(v)), logBox());
  return side;
}

// the reasons whose words already say the stock was closed (no "stock closed" after them)
const SAYS_CLOSED = new Set(["closer_failed", "opponent_claimed_after_close"]);

// the table of a match's hands (rows with `game_points`), as scoreTable
export function matchTable(v, rows = v.sheet || [], nameOf = playerName, testid = "sheet") {
  const table = h("table", { class: "sheet match", testid },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"),
      ["hand_winner", "game_points", "card_points"].map((k) => h("th", { scope: "col", title: t(k) }, t(k))))));
  const body = h("tbody");
  rows.forEach((r, i) => {
    body.append(h("tr", { testid: "sheet-row" }, h("td", {}, String(i + 1)),
      h("td", {}, isNone(r.winner) ? t("tie") : [word(nameOf(r.winner)), " · ", ...words(t(`why_${r.reason}`))],
        isNone(r.closed_by) || SAYS_CLOSED.has(r.reason) ? null : [" · ", ...words(t("sheet_closed"))]),
      h("td", {}, `+${r.game_points ?? 0} (${(r.match || []).join("–")})`),
      h("td", {}, (r.points || []).join("–"))));
  });
  table.append(body);
  return table;
}
