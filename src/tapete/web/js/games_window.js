// The Games window (Juegos, Jogos): your games in this browser (a finished one has its
// replay), a new game (game and profile,
// the computer players' levels, your name, the language, a game number), and the tables
// anyone may watch. Games, profiles and seats come from /api/config (kinds.js).

import { dialog, h, hideDialog, oneAtATime, openDialog, replaceKeepingFocus } from "./dom.js";
import { S, STORE_NAME, screen, watching } from "./state.js";
import { langButtons, t, tMaybe } from "./i18n.js";
import { choiceId, computerSeatLabels, gameChoices, kindOf, kinds, profileLabel } from "./kinds.js";
import { resumeTable, startTable } from "./connection.js";
import { api, forgetTable, savedTables, seatHeaders, watchUrl } from "./session.js";
import { replayButton } from "./replay.js";
import { showLobby } from "./lobby.js";

export function showNewGame() {
  renderNewGame();
  openDialog("newgame");
}

// the first choice: the first game and profile the server lists, "rules" players if offered
export function defaultChoice() {
  const levels = S.config?.levels || [];
  const level = levels.includes("rules") ? "rules" : (levels[0] || "random");
  const first = gameChoices()[0] || { game: null, profile: null };
  const seats = Math.max(0, ...kinds().map((k) => k.seats));
  Object.assign(S.ui.choice, { ...first, levels: Array(Math.max(0, seats - 1)).fill(level) });
}

function savedGamesBox() {
  const others = savedTables().filter((e) => !S.session || e.table !== S.session.table);
  if (!others.length) return null;
  const list = h("ul", { class: "saved", testid: "saved-games" });
  for (const e of others) {
    const when = new Date(e.started || 0).toLocaleString(S.lang, { dateStyle: "short", timeStyle: "short" });
    const status = h("span", { class: "note" });
    const li = h("li", {}, h("button", { type: "button", testid: `resume-${e.table}`, onclick: () => resumeTable(e) },
      `${profileLabel(e.profile, e.game)} · ${e.name || ""} · ${when}`), " ", status);
    list.append(li);
    api(`/api/tables/${encodeURIComponent(e.table)}`, { headers: seatHeaders(e.token) }).then((res) => {
      if (res.status === 404 || res.status === 403) { forgetTable(e.table); li.remove(); return; }
      if (!res.ok) return;
      const finished = res.body.status === "finished";
      status.textContent = finished ? t("finished") : t("in_progress");
      // a finished game can be replayed with every hand face up
      if (finished) li.append(" ", replayButton(e.table, { label: t("replay_btn"), testid: `replay-${e.table}`, before: () => hideDialog("newgame") }));
    }).catch(() => {});
  }
  return h("fieldset", {}, h("legend", {}, t("your_games")), list);
}

// the running tables anyone may watch, with shareable links
function liveGamesBox() {
  const list = h("ul", { class: "saved", testid: "live-games" }, h("li", { class: "note" }, t("loading")));
  const box = h("fieldset", {}, h("legend", {}, t("watch_title")));
  const mine = S.session && !watching();
  box.append(list);
  // your own table's link comes after the others (which never list it), while its game is on
  if (mine && !S.view?.over) {
    const url = watchUrl(S.session.table);
    box.append(h("p", { class: "note" }, t("watch_share"), " ", h("a", { href: url, testid: "share-link" }, url)));
  }
  api("/api/tables/live?limit=10").then((res) => { // (the ten newest: a list to pick from)
    const rows = (res.ok && Array.isArray(res.body) ? res.body : [])
      .filter((r) => !S.session || watching() || r.table !== S.session.table);
    list.replaceChildren(...(rows.length ? rows.map((r) => h("li", {},
      h("a", { class: "btnlink", href: watchUrl(r.table), testid: `watch-${r.table}` }, t("watch_btn")), " ",
      // (the game's number: two tables of the same players read alike)
      `${profileLabel(r.profile, r.game)} · ${(r.players || []).join(", ")} · ${t("watch_game_number", { table: r.table })}`))
      : [h("li", { class: "note" }, t(mine ? "watch_none_other" : "watch_none"))]));
  }).catch(() => list.replaceChildren(h("li", { class: "note" }, t("unavailable"))));
  return box;
}

// a level's name for people (how strong it plays); a level the client has no words for yet
// (the server may offer more) shows its own name
const levelLabel = (lv) => tMaybe(`level_${lv}`) ?? lv;

// what the person has typed or opened in the window: it survives the window being drawn again
// (a click on a game, a level or a language) until a game starts
const draft = { name: null, seed: "", more: false };

// the name the window offers: what the person typed, else the one they played with last; the
// default name is never stored (it is the current language's, as its placeholder says)
function storedName() {
  const name = localStorage.getItem(STORE_NAME) || "";
  return name === t("default_name") ? "" : name;
}

export function renderNewGame() {
  const d = dialog("newgame");
  const ch = S.ui.choice;
  const levels = S.config?.levels || [];
  const seatsLabel = computerSeatLabels(kindOf(ch.game));
  const nameInput = h("input", { id: "player-name", testid: "name", type: "text", maxlength: "24", autocomplete: "nickname",
    placeholder: t("default_name"), oninput: (e) => { draft.name = e.target.value; } });
  nameInput.value = draft.name ?? storedName();
  // signed in, the account's name, read-only, as in the Lobby and the invitation: the server
  // seats the account under its own name (a name typed here was silently replaced by it)
  if (S.user) { nameInput.value = S.user.name; nameInput.readOnly = true; nameInput.title = t("name_of_account"); }
  const err = h("p", { class: "error", testid: "newgame-error", role: "alert" });
  const seedInput = h("input", { id: "game-seed", testid: "seed", type: "text", inputmode: "numeric", pattern: "[0-9]*", maxlength: "9",
    oninput: (e) => { draft.seed = e.target.value; } });
  seedInput.value = draft.seed;
  const choices = gameChoices();
  // (drawn anew at each choice: the keyboard's focus stays on the button pressed, it went to
  // the page's body and the next Tab started the window over)
  replaceKeepingFocus(d, [h("form", { method: "dialog", class: "newgame", onsubmit: (e) => e.preventDefault() },
    h("h2", { id: "newgame-title" }, t("games")),
    S.notice ? h("p", { class: "error", testid: "notice", role: "alert" }, S.notice) : null,
    !choices.length ? h("p", { class: "error", testid: "no-config", role: "alert" }, t("unavailable")) : null,
    savedGamesBox(),
    h("fieldset", {}, h("legend", {}, t("choose_game")),
      h("div", { class: "choices", testid: "game-choices" }, choices.map((o) => h("button", {
        type: "button", testid: `choose-${choiceId(o.game, o.profile)}`,
        "aria-pressed": String(ch.game === o.game && ch.profile === o.profile),
        onclick: () => { ch.game = o.game; ch.profile = o.profile; renderNewGame(); },
      }, h("strong", {}, profileLabel(o.profile, o.game)), h("small", {}, tMaybe(`profile_${o.profile}_desc`) ?? ""))))),
    h("fieldset", {}, h("legend", {}, t("computer_levels")),
      seatsLabel.map((label, i) => h("div", { class: "levelrow", role: "group", "aria-label": label },
        h("span", { class: "lbl" }, label),
        levels.map((lv) => h("button", { type: "button", testid: `level-${i}-${lv}`, "aria-pressed": String(ch.levels[i] === lv),
          "aria-label": `${label}: ${levelLabel(lv)}`, title: tMaybe(`level_${lv}_desc`),
          onclick: () => { ch.levels[i] = lv; renderNewGame(); } }, levelLabel(lv))))),
      h("p", { class: "note", testid: "level-notes" }, levels.map((lv) => tMaybe(`level_${lv}_desc`)).filter(Boolean).join(" · "))),
    h("fieldset", {}, h("legend", {}, t("you")),
      h("label", { for: "player-name" }, t("your_name")), nameInput),
    h("fieldset", {}, h("legend", {}, t("language")), langButtons("dlg-lang")),
    liveGamesBox(),
    h("details", { class: "more", open: draft.more, ontoggle: (e) => { draft.more = e.target.open; } }, h("summary", {}, t("more_options")),
      h("label", { for: "game-seed" }, t("game_number")), seedInput,
      h("p", { class: "note" }, t("game_number_note"))),
    err,
    h("div", { class: "dlgbuttons" },
      S.session ? h("button", { type: "button", testid: "newgame-cancel", onclick: () => hideDialog("newgame") }, t("cancel")) : null,
      h("button", { type: "button", testid: "newgame-lobby", onclick: () => { hideDialog("newgame"); showLobby(); } }, t("lobby")),
      h("button", { type: "submit", class: "primary", testid: "start", disabled: !ch.game, onclick: oneAtATime("enter-table", async () => {
        const typed = nameInput.value.trim();
        const name = typed || t("default_name");
        // (a guest's name is kept for the next game, not the account's)
        if (!S.user) { if (typed) localStorage.setItem(STORE_NAME, typed); else localStorage.removeItem(STORE_NAME); }
        const seedText = seedInput.value.trim();
        const seed = /^[0-9]{1,9}$/.test(seedText) ? Number(seedText) : null;
        try {
          await startTable(ch, name, seed);
          Object.assign(draft, { name: null, seed: "", more: false });
          hideDialog("newgame"); screen.table();
        } catch (e) { err.textContent = `${t("start_failed")} ${e.message}`; }
      }) }, t("start"))))]);
}
