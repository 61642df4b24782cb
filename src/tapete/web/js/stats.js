// Statistics (the player's games per game and profile), the Ranking (best won games, one
// board per game and target, from kinds.js) and beside it the rating leaderboards (one pool
// per board: GET /api/ratings/{board id}).

import { dialog, fmt, fmtMinus, h, hideDialog, isNone, openDialog, replaceKeepingFocus } from "./dom.js";
import { S, STORE_NAME, screen } from "./state.js";
import { t, tMaybe, tOwn } from "./i18n.js";
import { kindOf, rankingBoards } from "./kinds.js";
import { api } from "./session.js";

// (owner: the game whose own words head its columns where it has them, col_<name>_<game>:
// English Mariage's analysed "hands", where Mil's are "deals")
function dataTable(rows, cols, owner = null) {
  return h("table", { class: "data" },
    h("thead", {}, h("tr", {}, cols.map((c) => h("th", { scope: "col" }, tOwn(`col_${c}`, owner))))),
    h("tbody", {}, rows.map((r) => h("tr", {}, cols.map((c) => h("td", {}, cellText(c, r[c])))))));
}

// a date as people of the language write it ("1/12/2026", "01/12/2026", "01/12/2026" or
// "12/1/2026"...); a day without a time is that day wherever the browser is
export function localDate(x) {
  const day = /^(\d{4})-(\d\d)-(\d\d)$/.exec(x);
  const d = day ? new Date(Number(day[1]), Number(day[2]) - 1, Number(day[3])) : new Date(x);
  return Number.isNaN(d.getTime()) ? x : d.toLocaleDateString(S.lang, { dateStyle: "medium" });
}

// a player's statistics, one table per game, without the columns that game never fills
// (Mariage has no contracts and no barrel: all its counts there are 0)
const ALWAYS = new Set(["profile", "games", "wins"]);
export function statsTables(rows) {
  const games = [...new Set(rows.map((r) => r.game))];
  return h("div", { class: "stats" }, games.map((game) => {
    const mine = rows.filter((r) => r.game === game);
    const cols = [...new Set(mine.flatMap((r) => Object.keys(r)))].filter((c) => c !== "game")
      .filter((c) => ALWAYS.has(c) || mine.some((r) => !isNone(r[c]) && r[c] !== 0));
    const title = kindOf(game)?.title ?? tMaybe(`col_${game}`) ?? game;
    return h("section", { testid: `stats-${game}` }, h("h3", {}, title), wideTable(dataTable(mine, cols, game), title));
  }));
}

// a table that may be wider than a phone (Mil's nine columns need about 500 px): it scrolls
// sideways inside its own box, reachable with Tab and the arrow keys, instead of being cut off
// at the window's edge
const wideTable = (table, label) => h("div", { class: "widetable", role: "region", tabindex: "0", "aria-label": label }, table);

function cellText(col, x) {
  if (typeof x === "number") return fmt(x);
  if (isNone(x)) return "—";
  if (col === "profile") return tMaybe(`profile_${x}`) ?? String(x);
  if (col === "game") return tMaybe(`col_${x}`) ?? String(x);
  if (col === "date") return localDate(String(x));
  return String(x);
}

// statistics come as nested objects/lists; show them as tables without guessing rules
function renderAny(data) {
  if (Array.isArray(data)) {
    if (!data.length) return h("p", {}, t("nothing_yet"));
    if (typeof data[0] === "object") {
      const cols = [...new Set(data.flatMap((r) => Object.keys(r)))];
      return dataTable(data, cols);
    }
    return h("p", {}, data.join(", "));
  }
  if (data && typeof data === "object") {
    const scalars = Object.entries(data).filter(([, x]) => x === null || typeof x !== "object");
    const nested = Object.entries(data).filter(([, x]) => x !== null && typeof x === "object");
    const wrap = h("div", { class: "stats" });
    if (scalars.length) {
      wrap.append(h("dl", {}, scalars.map(([k, x]) => [h("dt", {}, t(`col_${k}`)), h("dd", {}, typeof x === "number" ? fmt(x) : String(x ?? "—"))])));
    }
    for (const [k, x] of nested) {
      wrap.append(h("section", {}, h("h3", {}, tMaybe(`profile_${k}`) ?? tMaybe(`col_${k}`) ?? k), renderAny(x)));
    }
    if (!scalars.length && !nested.length) wrap.append(h("p", {}, t("nothing_yet")));
    return wrap;
  }
  return h("p", {}, String(data));
}

const isStatRows = (x) => Array.isArray(x) && x.length > 0 && x.every((r) => r && typeof r === "object" && "game" in r);

// whose statistics: the seat's name at the table on screen, else the account's, else the name
// this browser last played with, else the one typed in the window (none: it asks for one)
let typedName = "";
const statsName = () => [S.view?.players?.[S.view.seat], S.user?.name, localStorage.getItem(STORE_NAME), typedName]
  .map((x) => (typeof x === "string" ? x.trim() : "")).find(Boolean) || "";

export async function showStats() {
  const d = dialog("stats");
  const name = statsName();
  const closeBtn = h("button", { type: "button", testid: "close-stats", onclick: () => hideDialog("stats") }, t("close"));
  // (the window's name: index.html's aria-labelledby)
  const title = (text) => h("h2", { id: "stats-title" }, text);
  if (!name) { // no game played, not signed in: ask (an empty name is no one's statistics)
    d.replaceChildren(title(t("stats")), askName(), closeBtn);
    openDialog("stats");
    d.querySelector("input")?.focus();
    return;
  }
  replaceKeepingFocus(d, [title(t("stats_of", { name })), h("p", {}, t("loading")), closeBtn]);
  openDialog("stats");
  const res = await api(`/api/stats?name=${encodeURIComponent(name)}`);
  replaceKeepingFocus(d, [title(t("stats_of", { name })), h("div", { testid: "stats-body" }, res.ok ? (isStatRows(res.body) ? statsTables(res.body) : renderAny(res.body)) : h("p", { class: "error" }, res.body?.error || t("unavailable"))), closeBtn]);
}

// the window without a name: a hint and a field for the name to look up
function askName() {
  const input = h("input", { id: "stats-name", testid: "stats-name", type: "text", maxlength: "24", autocomplete: "nickname", required: true });
  const look = (e) => {
    e.preventDefault();
    const typed = input.value.trim();
    if (!typed) { input.focus(); return; }
    typedName = typed;
    showStats();
  };
  return h("form", { testid: "stats-ask", onsubmit: look },
    h("p", { testid: "stats-no-name" }, t("stats_no_name")),
    h("p", {}, h("label", { for: "stats-name" }, t("stats_whose")), input, " ",
      h("button", { type: "submit", class: "primary", testid: "stats-look" }, t("stats_look"))));
}

// a leaderboard's rows: the names open the player's page
function leaderboardTable(rows) {
  const cols = ["pos", "name", "rating", "games"];
  return h("table", { class: "data", testid: "leaderboard" },
    h("thead", {}, h("tr", {}, cols.map((c) => h("th", { scope: "col" }, t(`col_${c}`))))),
    h("tbody", {}, rows.map((r) => h("tr", {},
      h("td", {}, String(r.place)),
      h("td", {}, h("button", { type: "button", class: "linkish", testid: `leader-${r.name}`, "aria-label": t("my_page", { name: r.name }),
        onclick: () => screen.player(r.name) }, r.name)),
      h("td", {}, fmtMinus(Math.round(r.ordinal * 10) / 10), " ",
        r.provisional ? h("span", { class: "chip provisional", title: t("provisional_note") }, t("provisional")) : null),
      h("td", {}, String(r.games))))));
}

// the Ranking on one board, or a rating leaderboard ("rating:" + a board id); the id comes
// from kinds.js (null: the first board)
export async function showRanking(id) {
  const boards = rankingBoards();
  const rated = typeof id === "string" && id.startsWith("rating:");
  const wanted = rated ? id.slice("rating:".length) : id;
  // the board last chosen, else the one of the game on the table (a 500 game opens Mil to 500)
  const here = boards.find((b) => b.game === S.view?.game && b.target === S.view?.target);
  const board = boards.find((b) => b.id === wanted) || here || boards[0];
  S.rankingBoard = board ? (rated ? `rating:${board.id}` : board.id) : null;
  const d = dialog("ranking");
  const tab = (b, isRating) => h("button", { type: "button", testid: `${isRating ? "rating" : "ranking"}-${b.id}`,
    "aria-pressed": String(b === board && rated === isRating), onclick: () => showRanking(isRating ? `rating:${b.id}` : b.id) }, b.label);
  const tabs = h("div", { class: "tabsets" },
    h("h3", { id: "ranking-best" }, t("ranking_best")),
    h("div", { class: "choices tabs", role: "group", "aria-labelledby": "ranking-best" }, boards.map((b) => tab(b, false))),
    h("h3", { id: "ranking-ratings" }, t("ratings")),
    h("div", { class: "choices tabs", role: "group", "aria-labelledby": "ranking-ratings" }, boards.map((b) => tab(b, true))));
  const closeBtn = h("button", { type: "button", testid: "close-ranking", onclick: () => hideDialog("ranking") }, t("close"));
  const title = () => h("h2", { id: "ranking-title" }, t("ranking")); // (the window's name: index.html)
  // (a board chosen with the keyboard keeps the focus on its button across both redraws)
  replaceKeepingFocus(d, [title(), tabs, h("p", {}, t("loading")), closeBtn]);
  openDialog("ranking");
  if (!board) { replaceKeepingFocus(d, [title(), h("p", { class: "error" }, t("unavailable")), closeBtn]); return; }
  const res = await api(rated ? `/api/ratings/${encodeURIComponent(board.id)}` : `/api/ranking?game=${encodeURIComponent(board.game)}&target=${board.target}`);
  const rows = res.ok && Array.isArray(res.body) ? res.body : [];
  let body;
  if (!res.ok) body = h("p", { class: "error" }, res.body?.error || t("unavailable"));
  else if (!rows.length) body = h("p", {}, t(rated ? "ratings_empty" : "nothing_yet"));
  else body = rated ? leaderboardTable(rows) : dataTable(rows.map((r, i) => ({ pos: i + 1, ...r })), ["pos", "name", "score", "profile", "date"]);
  replaceKeepingFocus(d, [title(), tabs, h("div", { testid: "ranking-body" }, body,
    rated ? h("p", { class: "note" }, t("ratings_note")) : null), closeBtn]);
}
