// The games the server offers, from GET /api/config: its `kinds` list, one object per game
// ({name, title, seats, profiles: [{name, target}], default_players, score_key}). The client
// knows no game by name: seats, profiles, targets and the final standing all come from here.

import { S } from "./state.js";
import { t, tMaybe } from "./i18n.js";

export const kinds = () => (Array.isArray(S.config?.kinds) ? S.config.kinds : []);
export const kindOf = (name) => kinds().find((k) => k.name === name) || null;

// a game's final standing in a view ("scores" for one game, "match" for another: the kind says)
export const standingOf = (v) => v?.[kindOf(v?.game)?.score_key ?? "scores"];

// the id of a game-and-profile choice (test ids): the game's name alone when its only profile
// carries its name, else game-profile
export const choiceId = (game, profile) => (profile === game ? game : `${game}-${profile}`);

// every (game, profile) the Games window offers, in the server's order
export const gameChoices = () => kinds().flatMap((k) => k.profiles.map((p) => ({ game: k.name, profile: p.name })));

// the labels of the computer seats of a new table (seat 0 is the person), by where they sit
export function computerSeatLabels(kind) {
  const n = kind?.seats ?? 0;
  if (n === 2) return [t("opponent")];
  if (n === 3) return [t("left_player"), t("right_player")];
  return Array.from({ length: Math.max(0, n - 1) }, (_, i) => t("computer_n", { n: i + 1 }));
}

// the Ranking's boards: one per game and target ("Mil to 1000", "Mil to 500", "Mariage")
export function rankingBoards() {
  return kinds().flatMap((k) => {
    const targets = [...new Set(k.profiles.map((p) => p.target))];
    return targets.map((target) => ({
      game: k.name,
      target,
      id: targets.length === 1 ? k.name : `${k.name}-${target}`,
      label: targets.length === 1 ? k.title : t("ranking_to", { title: k.title, target }),
    }));
  });
}

// a profile's name for people (its own string when the client has one, else the game's title)
export function profileLabel(profile, game = null) {
  return tMaybe(`profile_${profile}`) ?? kindOf(game)?.title ?? String(profile);
}
