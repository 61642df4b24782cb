// The window at the end of a game: the winner, the final standing (the kind's score_key),
// the record to download, the reviews and the replay of the game, and a new game; each
// person's name opens their page. At a rated
// table also each seat's rating after the game, its change and whether it is provisional
// (GET /api/tables/{id}/ratings, stored with the game's end: docs/server.md, "Ratings").

import { dialog, fmt, h, hideDialog, isNone, replaceKeepingFocus } from "./dom.js";
import { reviewButton } from "./review.js";
import { replayButton } from "./replay.js";
import { S, playerName, screen } from "./state.js";
import { t, tOwn } from "./i18n.js";
import { kindOf, standingOf } from "./kinds.js";
import { scoreChart } from "./chart.js";
import { api } from "./session.js";
import { poolLabel, ratingText, round } from "./player.js";

const signed = (n) => (n > 0 ? `+${fmt(n)}` : n < 0 ? `\u2212${fmt(-n)}` : "±0");

// the table's rating changes: asked once per table, the window drawn again when they come
function tableRatings(table) {
  if (S.overRatings?.table === table) return S.overRatings.body;
  S.overRatings = { table, body: null };
  api(`/api/tables/${encodeURIComponent(table)}/ratings`).then((res) => {
    if (!res.ok || S.overRatings?.table !== table) return;
    S.overRatings.body = res.body;
    if (S.view?.over && S.session?.table === table) showOver();
  }).catch(() => {});
  return null;
}

// the table's description (GET /api/tables/{id}): why a game is not ranked. Asked once per
// table, the window drawn again when it comes; null until then ({failed: true} if it never does)
function tableInfo(table) {
  if (S.overInfo?.table === table) return S.overInfo.body;
  S.overInfo = { table, body: null };
  const done = (body) => {
    if (S.overInfo?.table !== table) return;
    S.overInfo.body = body;
    if (S.view?.over && S.session?.table === table) showOver();
  };
  api(`/api/tables/${encodeURIComponent(table)}`).then((res) => done(res.ok ? res.body : { failed: true }))
    .catch(() => done({ failed: true }));
  return null;
}

// why nobody won and why the game is not ranked, each in its own true sentence
// (docs/server.md, "Statistics"): a chosen deal (neither ranked nor in the statistics), a
// game its creator limited to some deals (`max_deals`: not ranked, in the statistics), one
// the server stopped at its cap on deals (in neither), one begun from a set position (in
// neither). (It said "chosen deal" for every game not ranked.)
function whyNotes(v, info) {
  if (!info) return [];
  const note = (testid, text) => h("p", { class: "note", testid }, text);
  if (info.failed) {
    return [isNone(v.winner) ? note("no-winner", tOwn("over_no_winner", v.game)) : null,
      S.session?.ranked === false ? note("not-ranked", t("not_ranked")) : null];
  }
  const limit = info.max_deals ?? null; // (null: the server's own cap)
  const limited = (key) => tOwn(limit === 1 ? `${key}_one` : key, v.game, { n: fmt(limit) });
  const capped = isNone(v.winner) && limit === null;
  return [
    isNone(v.winner) ? note("no-winner", tOwn(limit === null ? "over_no_winner" : "over_no_winner_limit", v.game)) : null,
    info.seed_chosen ? note("not-ranked", t("not_ranked"))
      : limit !== null ? note("not-ranked", limited("not_ranked_limit"))
        : capped ? note("not-ranked", t("not_ranked_capped"))
          : info.ranked === false ? note("not-ranked", t("not_ranked_start")) : null,
  ];
}

function ratingsBox(body) {
  if (!body?.rated || !(body.seats || []).length) return null;
  return h("section", { class: "over-ratings", testid: "over-ratings", "aria-labelledby": "over-ratings-title" },
    h("h3", { id: "over-ratings-title" }, `${t("over_ratings")} · ${poolLabel(body.pool)}`),
    h("ul", {}, body.seats.map((r) => {
      const change = round(r.change);
      const changeText = change > 0 ? t("rating_up", { n: fmt(change) }) : change < 0 ? t("rating_down", { n: fmt(-change) }) : t("rating_same");
      const label = t("over_rating_label", { name: r.name, rating: ratingText(r.ordinal), change: changeText }) + (r.provisional ? `, ${t("provisional")}` : "");
      return h("li", { testid: `over-rating-${r.seat}`, "aria-label": label },
        h("strong", {}, r.name), " ", h("span", { testid: "over-rating-value" }, ratingText(r.ordinal)), " ",
        h("span", { class: change > 0 ? "up" : change < 0 ? "down" : "", testid: "over-rating-change" }, `(${signed(change)})`),
        r.provisional ? [" ", h("span", { class: "chip provisional", title: t("provisional_note") }, t("provisional"))] : null);
    })));
}

// a person's name opens their page (their finished games, their ratings); a computer's is text
function playerLink(v, name, seat) {
  const person = S.presence?.seats ? S.presence.seats[seat]?.kind === "person" : seat === v.seat;
  const strong = h("strong", {}, name);
  return person ? h("button", { type: "button", class: "linkish", testid: `over-player-${seat}`,
    "aria-label": t("my_page", { name }), onclick: () => screen.player(name) }, strong) : strong;
}

// the review and the replay open in the end window's place: it comes back when they close,
// the focus on the button that opened them (`S.overAside`: that button's testid meanwhile)
const aside = (testid) => () => { S.overAside = testid; hideDialog("over"); };
const covered = () => ["replay", "review"].some((id) => document.getElementById(id)?.open);

export function showOver() {
  const v = S.view;
  const d = dialog("over");
  const scores = standingOf(v);
  const rec = `/api/tables/${encodeURIComponent(S.session.table)}/record`; // (a finished game's: no token)
  // (replaceChildren would write a null as the text "null": the parts left out are dropped;
  // drawn again when the ratings come, the focus stays on the button it was on: a keyboard
  // user who had reached "See the table" was left on the page's body)
  replaceKeepingFocus(d, [
    h("h2", { id: "over-title", testid: "winner" }, isNone(v.winner) ? t("game_over") : (v.winner === v.seat ? t("you_won") : t("winner_is", { name: playerName(v.winner) }))),
    h("ul", { class: "final" }, v.players.map((n, i) => h("li", {}, playerLink(v, n, i), ` ${fmt(scores?.[i] ?? 0)}`))),
    ratingsBox(tableRatings(S.session.table)),
    // (a game ends without a winner only at a cap on deals: the end window says so, it read
    // "Game over" above the scores with no word of why nobody had won)
    ...whyNotes(v, tableInfo(S.session.table)),
    scoreChart(v, kindOf(v.game)?.score_key ?? "scores"),
    h("div", { class: "dlgbuttons" },
      (v.sheet || []).length ? reviewButton(0, { label: tOwn("review_game", v.game), testid: "over-review", before: aside("over-review") }) : null,
      (v.sheet || []).length ? replayButton(S.session.table, { testid: "over-replay", before: aside("over-replay") }) : null,
      h("a", { class: "btnlink", testid: "download-record", href: rec, download: `tapete-${S.session.table}.json` }, t("download_record")),
      h("button", { type: "button", testid: "over-close", onclick: () => hideDialog("over") }, t("see_table")),
      h("button", { type: "button", class: "primary", testid: "over-newgame", onclick: () => { hideDialog("over"); screen.newGame(); } }, t("new_game")))].filter(Boolean));
  // (a replay opened by its link stays on top: the end window waits until it is closed)
  if (!d.open && !S.overDismissed && !covered()) {
    d.showModal();
    if (S.overAside) d.querySelector(`[data-testid="${S.overAside}"]`)?.focus();
    S.overAside = null;
  }
  d.onclose = () => { if (!S.overAside) S.overDismissed = true; };
}
