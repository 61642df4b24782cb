// A player's page (GET /api/players/{name}): statistics per game and profile, the rating in
// each pool with its history drawn as a line (SVG), the finished games with links to see
// each again and to download its record, and the abandonments. Pools are the Ranking's
// boards (kinds.js), so their names come from the registry too.

import { fmtMinus, h, hideDialog, openDialog } from "./dom.js";
import { t, tCount } from "./i18n.js";
import { profileLabel, rankingBoards } from "./kinds.js";
import { api } from "./session.js";
import { el } from "./chart.js";
import { localDate, statsTables } from "./stats.js";

const W = 520;
const H = 160;
const PAD = { left: 40, right: 10, top: 10, bottom: 22 };

function playerDialog() {
  let d = document.getElementById("player");
  if (!d) {
    d = h("dialog", { id: "player", testid: "player", class: "player", "aria-labelledby": "player-title" });
    document.body.append(d);
  }
  return d;
}

export const poolLabel = (pool) => rankingBoards().find((b) => b.id === pool)?.label ?? pool;

// the rating after each game, from the one before the first (a line; a dot per game)
export function ratingChart(history) {
  if (!history.length) return null;
  const pts = [history[0].before, ...history.map((g) => g.ordinal)];
  const lo = Math.min(...pts);
  const hi = Math.max(...pts);
  const x = (i) => PAD.left + (i * (W - PAD.left - PAD.right)) / Math.max(1, pts.length - 1);
  const y = (n) => PAD.top + ((hi - n) * (H - PAD.top - PAD.bottom)) / (hi - lo || 1);
  const label = tCount("rating_chart", history.length, { n: history.length, from: ratingText(pts[0]), to: ratingText(pts.at(-1)) });
  const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, class: "chart", role: "img", "aria-label": label, "data-testid": "rating-chart" });
  svg.append(el("title", {}, label));
  svg.append(el("line", { x1: PAD.left, x2: W - PAD.right, y1: H - PAD.bottom, y2: H - PAD.bottom, class: "axis" }));
  svg.append(el("text", { x: PAD.left - 4, y: y(hi) + 4, "text-anchor": "end" }, ratingText(hi)));
  if (hi !== lo) svg.append(el("text", { x: PAD.left - 4, y: y(lo) + 4, "text-anchor": "end" }, ratingText(lo)));
  svg.append(el("text", { x: (PAD.left + W) / 2, y: H - 6, "text-anchor": "middle", class: "caption" }, t("rating_chart_games")));
  svg.append(el("polyline", { points: pts.map((n, i) => `${x(i).toFixed(1)},${y(n).toFixed(1)}`).join(" "),
    fill: "none", stroke: "#1565c0", "stroke-width": 2, "data-points": pts.length }));
  pts.slice(1).forEach((n, i) => svg.append(el("circle", { cx: x(i + 1), cy: y(n), r: 3, fill: history[i].abandoned ? "#c62828" : "#1565c0" })));
  return svg;
}

// a rating as the pages show it: one decimal (the player page and the game-over window), a
// negative one with the minus sign of the changes shown beside it
export const round = (n) => Math.round(n * 10) / 10;
export const ratingText = (n) => fmtMinus(round(n));

function ratingsBox(ratings) {
  if (!ratings.length) return h("p", { class: "note" }, t("ratings_none"));
  return ratings.map((r) => h("section", { testid: `rating-${r.pool}` },
    h("h4", {}, poolLabel(r.pool)),
    h("p", {}, tCount("rating_line", r.games, { rating: ratingText(r.ordinal), games: r.games }), " ",
      r.provisional ? h("span", { class: "chip provisional", title: t("provisional_note") }, t("provisional")) : null),
    ratingChart(r.history || [])));
}

function gamesBox(games) {
  if (!games.length) return h("p", { class: "note" }, t("nothing_yet"));
  return h("ul", { class: "saved", testid: "player-games" }, games.map((g) => {
    const what = `${g.finished_at ? localDate(g.finished_at) : "—"} · ${profileLabel(g.profile, g.game)} · ${(g.players || []).join(", ")}`;
    // (each link names its game: a screen reader's list of links read "See again" n times)
    return h("li", {}, what,
      typeof g.winner === "number" && g.players?.[g.winner] ? ` · ${t("won_by", { name: g.players[g.winner] })}` : "",
      " ",
      h("a", { class: "btnlink", href: g.replay, testid: `player-replay-${g.table}`, "aria-label": `${t("see_again")}: ${what}` }, t("see_again")),
      " ",
      h("a", { class: "btnlink", href: g.record, download: `tapete-${g.table}.json`, testid: `player-record-${g.table}`, "aria-label": `${t("download_record")}: ${what}` }, t("download_record")));
  }));
}

export async function showPlayer(name) {
  const d = playerDialog();
  const closeBtn = h("button", { type: "button", testid: "close-player", onclick: () => hideDialog("player") }, t("close"));
  const title = (shown) => h("h2", { id: "player-title" }, shown);
  d.replaceChildren(title(name), h("p", {}, t("loading")), closeBtn);
  openDialog("player");
  const res = await api(`/api/players/${encodeURIComponent(name)}`).catch(() => ({ ok: false, body: null }));
  if (!res.ok || !res.body) {
    d.replaceChildren(title(name), h("p", { class: "error" }, t("unavailable")), closeBtn);
    return;
  }
  const p = res.body;
  d.replaceChildren(title(p.name),
    h("p", { class: "note", testid: "player-kind" }, t(p.account ? "player_account" : "player_guest")),
    h("section", { testid: "player-ratings" }, h("h3", {}, t("ratings")), ratingsBox(p.ratings || [])),
    h("section", { testid: "player-stats" }, h("h3", {}, t("stats")), (p.stats || []).length ? statsTables(p.stats) : h("p", { class: "note" }, t("nothing_yet"))),
    h("section", {}, h("h3", {}, t("finished_games")), gamesBox(p.games || [])),
    h("p", { testid: "player-abandonments" }, t("abandonments", { n: p.abandonments ?? 0 })),
    closeBtn);
}
