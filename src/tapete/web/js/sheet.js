// The side panel's score sheets, one row per finished deal (view.sheet), with the history
// under them: points per player (a game to 1000) or game points of a match (to 7).

import { fmt, h, isNone } from "./dom.js";
import { playerName } from "./state.js";
import { reviewBar } from "./review.js";
import { t } from "./i18n.js";
import { logBox } from "./history.js";

// each player's total with the deal's change, barrel and bolt marks (rows with `scores`)
export function scoreSheet(v) {
  const side = h("aside", { class: "side" });
  side.append(h("h2", {}, t("sheet")));
  side.append(reviewBar(v) ?? "");
  const names = v.players;
  const table = h("table", { class: "sheet", testid: "sheet" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("contract")),
      names.map((n) => h("th", { scope: "col" }, n)))));
  const body = h("tbody");
  (v.sheet || []).forEach((r, i) => {
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

// the match score and, per hand, who won it, why, its game points and card points
export function matchSheet(v) {
  const side = h("aside", { class: "side" });
  side.append(h("h2", {}, t("match_to", { n: v.target })));
  side.append(h("div", { class: "matchscore", testid: "match" }, `${playerName(0)} ${v.match?.[0] ?? 0} – ${v.match?.[1] ?? 0} ${playerName(1)}`));
  side.append(reviewBar(v) ?? "");
  const table = h("table", { class: "sheet", testid: "sheet" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("hand_winner")),
      h("th", { scope: "col" }, t("game_points")), h("th", { scope: "col" }, t("card_points")))));
  const body = h("tbody");
  (v.sheet || []).forEach((r, i) => {
    body.append(h("tr", { testid: "sheet-row" }, h("td", {}, String(i + 1)),
      h("td", {}, isNone(r.winner) ? t("tie") : `${playerName(r.winner)} · ${t(`why_${r.reason}`)}`),
      h("td", {}, `+${r.game_points ?? 0} (${(r.match || []).join("–")})`),
      h("td", {}, (r.points || []).join("–"))));
  });
  table.append(body);
  side.append(table, logBox());
  return side;
}
