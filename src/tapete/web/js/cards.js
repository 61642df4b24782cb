// Cards: their names in the current language, their short form (A♥, 10♠) and their elements.
// A card is a two-letter string from the view: rank (A T K Q J 9 8 7) and suit (S C D H).

import { h } from "./dom.js";
import { t, tMaybe } from "./i18n.js";

export const SUIT_SYMBOL = { S: "♠", C: "♣", D: "♦", H: "♥" };
const RANK_SHOWN = { A: "A", T: "10", K: "K", Q: "Q", J: "J", 9: "9", 8: "8", 7: "7" };

const rankOf = (c) => c[0];
const suitOf = (c) => c[1];

export const cardName = (c) => t("card_name", { rank: t(`rank_${rankOf(c)}`), suit: t(`suit_${suitOf(c)}`) });
// a card named in a sentence, with its article in the language's gender for its rank and
// its name as running text has it (es "la reina de corazones", pt "o ás de copas", en "the
// Queen of Hearts"): what happened, and what a hint or a button says to do
export function cardInText(c) {
  return withArticle(c, t("card_name_in_text", { rank: t(`rank_in_text_${rankOf(c)}`), suit: t(`suit_${suitOf(c)}`) }));
}
// `shown` (the card c's name, or its short form "Q♠") after the article of c's rank in the
// language ({card_the}: es "la" for Q and J, pt "a" for Q, "the" in English)
export const withArticle = (c, shown) => (tMaybe(`card_the_${rankOf(c)}`) ?? t("card_the")).split("{card}").join(shown);
export const cardShort = (c) => `${RANK_SHOWN[rankOf(c)]}${SUIT_SYMBOL[suitOf(c)]}`;
export const suitLabel = (s) => `${t(`suit_${s}`)} ${SUIT_SYMBOL[s]}`;

// a card is a button (named in the current language), enabled only when it may be played
export function cardEl(c, { enabled = false, onclick = null, cls = "", testid = null, pressed = null } = {}) {
  const red = suitOf(c) === "H" || suitOf(c) === "D";
  const corner = (extra) => h("span", { class: `corner${extra}`, "aria-hidden": "true" },
    RANK_SHOWN[rankOf(c)], h("br"), SUIT_SYMBOL[suitOf(c)]);
  return h("button", {
    type: "button", class: `card ${red ? "red" : "black"} ${cls}`.trim(), "data-card": c,
    "aria-label": cardName(c), disabled: !enabled, onclick, testid,
    "aria-pressed": pressed === null ? null : String(pressed),
  },
  corner(""),
  h("span", { class: "pip", "aria-hidden": "true" }, SUIT_SYMBOL[suitOf(c)]),
  corner(" bottom"));
}

// a face-up card nobody can act on (trick, talon): still a button for uniform naming
export const shownCard = (c, cls = "") => cardEl(c, { enabled: false, cls: `shown ${cls}` });

export function backs(n, cls = "") {
  const wrap = h("div", { class: `backs ${cls}`, "aria-hidden": "true" });
  for (let i = 0; i < n; i++) wrap.append(h("div", { class: "card back" }));
  return wrap;
}
