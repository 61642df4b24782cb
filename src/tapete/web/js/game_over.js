// The window at the end of a game: the winner, the final standing (the kind's score_key),
// the record to download, the reviews and the replay of the game, and a new game.

import { dialog, fmt, h, hideDialog, isNone } from "./dom.js";
import { reviewButton } from "./review.js";
import { replayButton } from "./replay.js";
import { S, playerName, screen } from "./state.js";
import { t } from "./i18n.js";
import { kindOf, standingOf } from "./kinds.js";
import { scoreChart } from "./chart.js";

export function showOver() {
  const v = S.view;
  const d = dialog("over");
  const scores = standingOf(v);
  const rec = `/api/tables/${encodeURIComponent(S.session.table)}/record${S.session.token ? `?token=${encodeURIComponent(S.session.token)}` : ""}`;
  d.replaceChildren(
    h("h2", { testid: "winner" }, isNone(v.winner) ? t("game_over") : (v.winner === v.seat ? t("you_won") : t("winner_is", { name: playerName(v.winner) }))),
    h("ul", { class: "final" }, v.players.map((n, i) => h("li", {}, h("strong", {}, n), ` ${fmt(scores?.[i] ?? 0)}`))),
    S.session?.ranked === false ? h("p", { class: "note", testid: "not-ranked" }, t("not_ranked")) : null,
    scoreChart(v, kindOf(v.game)?.score_key ?? "scores"),
    h("div", { class: "dlgbuttons" },
      (v.sheet || []).length ? reviewButton(0, { label: t("review_game"), testid: "over-review", before: () => hideDialog("over") }) : null,
      (v.sheet || []).length ? replayButton(S.session.table, { testid: "over-replay", before: () => hideDialog("over") }) : null,
      h("a", { class: "btnlink", testid: "download-record", href: rec, download: `tapete-${S.session.table}.json` }, t("download_record")),
      h("button", { type: "button", testid: "over-close", onclick: () => hideDialog("over") }, t("see_table")),
      h("button", { type: "button", class: "primary", testid: "over-newgame", onclick: () => { hideDialog("over"); screen.newGame(); } }, t("new_game"))));
  if (!d.open && !S.overDismissed) d.showModal();
  d.onclose = () => { S.overDismissed = true; };
}
