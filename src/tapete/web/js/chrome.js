// The top bar: Games, Hint, Rules, Statistics, Ranking, the languages, the account (sign in,
// your page, sign out), and the watching mark.
// The top bar: Games, Hint, Rules, Fair deals, Statistics, Ranking, the languages, and the watching mark.

import { $, h } from "./dom.js";
import { S, myTurn, watching } from "./state.js";
import { langButtons, t } from "./i18n.js";
import { askHint } from "./connection.js";
import { showNewGame } from "./games_window.js";
import { showRanking, showStats } from "./stats.js";
import { accountTools } from "./account.js";
import { showLobby } from "./lobby.js";
import { fairnessUrl } from "./fairness.js";

// "Watching table n", and how many moves behind while the game goes on at a table that
// delays its spectators (the view is that many actions old: docs/server.md, "Spectators")
function watchingText() {
  const delay = S.watchDelay && !S.view?.over ? S.watchDelay : 0;
  return delay ? t("watching_delayed", { n: S.session.table, d: delay }) : t("watching", { n: S.session.table });
}

export function renderChrome() {
  const v = S.view;
  const profile = v?.profile || S.ui.choice.profile;
  $("#topbar").replaceChildren(
    h("h1", { class: "brand" }, "Tapete"),
    h("nav", { class: "tools", "aria-label": t("tools") },
      h("button", { type: "button", testid: "open-newgame", onclick: showNewGame }, t("games")),
      h("button", { type: "button", testid: "open-lobby", onclick: showLobby }, t("lobby")),
      h("button", { type: "button", testid: "hint", onclick: askHint, disabled: !myTurn() }, t("hint")),
      profile ? h("a", { class: "btnlink", testid: "rules-link", href: `/rules/${encodeURIComponent(profile)}?lang=${S.lang}`, target: "_blank", rel: "noopener" }, t("rules")) : null,
      h("a", { class: "btnlink", testid: "fairness-link", href: fairnessUrl(), target: "_blank", rel: "noopener" }, t("fairness")),
      h("button", { type: "button", testid: "open-stats", onclick: showStats }, t("stats")),
      h("button", { type: "button", testid: "open-ranking", onclick: () => showRanking(S.rankingBoard) }, t("ranking")),
      langButtons("lang"),
      accountTools()),
    ...(watching() ? [h("span", { class: "chip watching", testid: "watching" }, watchingText())] : []),
  );
}
