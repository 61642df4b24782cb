// Hints: the suggestion the server sends for the seat to act, put on the controls and shown
// with its reason in the table's language. (Asking is connection.js's askHint.)

import { decimalText, h } from "./dom.js";
import { S } from "./state.js";
import { t, tMaybe, tOwn } from "./i18n.js";
import { SUIT_SYMBOL, cardShort, withArticle } from "./cards.js";
import { actionText } from "./history.js";

export function takeHint(msg) {
  S.hint = { action: msg.action, reason: msg.reason, key: msg.reason_key, args: msg.reason_args };
  S.lastHintVersion = S.version;
  // put the controls on the suggestion (the person still has to press)
  const a = msg.action || {};
  if (a.type === "bid" || a.type === "contract") S.ui[a.type] = a.value;
  if (a.type === "give") S.ui.giveCard = a.card;
}

export function hintBox() {
  if (!S.hint) return null;
  const [head, why] = hintLine(S.hint);
  return h("div", { class: "hintbox", testid: "hint-text", role: "note" }, h("strong", {}, head), why ? [" ", why] : null);
}

// the hint with its move said once: the head says the move in the client's own words (they
// name a give's receiver), then the why alone, hint_why_<key> (docs/dev/protocol.md; the
// generic reasons, "The only legal move.", are their own why); a reason that is only its move
// ("Keep the deal.") adds nothing but its average over sampled deals, if it has one; a key
// this client does not know, the server's English sentence. A hint is for the table on screen:
// its profile's own words where it has them (es: club announces a marriage, casa sings it)
function hintLine(hint) {
  return [t("hint_is", { action: actionText(hint.action, null, "do") }), hintWhy(hint)];
}

function hintWhy(hint) {
  const args = reasonArgs(hint);
  if (!args) return hint.reason || "";
  const key = `hint_why_${hint.key}`;
  if (key in S.fallback) return withSampledAvg(tOwn(key, S.view?.profile, args), args);
  return args.sampled_avg === undefined ? "" : t("hint_why_sampled_avg", { sampled_avg: args.sampled_avg });
}

// a card with its article and pronouns in the language's gender for its rank (es: "la Q♠",
// "sin ella"; "el K♠", "sin él"; pt: "a Q♠", "o K♠"): {card_the}, {card_it}, {card_lo}
function gendered(k, card, shown) {
  const pick = (key) => tMaybe(`${key}_${card[0]}`) ?? t(key);
  return {
    [`${k}_the`]: withArticle(card, shown),
    [`${k}_it`]: pick("card_it"),
    [`${k}_lo`]: pick("card_lo"),
  };
}

// the hint's reason in the table's language when the server sent a key for it (see
// docs/dev/protocol.md), else the English sentence; in the words of `profile` (the table's)
export function hintReason(hint, profile = S.view?.profile) {
  const args = reasonArgs(hint);
  return args ? withSampledAvg(tOwn(`hint_reason_${hint.key}`, profile, args), args) : hint.reason || "";
}

// the arguments of a hint's reason as its strings (hint_reason_<key>, hint_why_<key>) take
// them: cards as "A♥" with their article and pronouns, suits as symbols and names, numbers as
// the language writes them; null for a key this client does not know, or no arguments
function reasonArgs(hint) {
  if (typeof hint.key !== "string" || !(`hint_reason_${hint.key}` in S.fallback)) return null;
  if (!hint.args || typeof hint.args !== "object") return null;
  const args = {};
  for (const [k, v] of Object.entries(hint.args)) {
    if ((k === "card" || k === "lead") && typeof v === "string" && v.length === 2) {
      args[k] = cardShort(v);
      Object.assign(args, gendered(k, v, args[k]));
    }
    else if (k === "suit" && SUIT_SYMBOL[v]) args[k] = SUIT_SYMBOL[v];
    else if (k === "suit_name" && SUIT_SYMBOL[v]) args[k] = t(`suit_${v}`);
    else args[k] = decimalText(String(v)); // ("+1.2": es and pt "+1,2")
  }
  return args;
}

// a sentence of a reason followed by its average over sampled deals (Mariage search), if any
function withSampledAvg(text, args) {
  if (args.sampled_avg === undefined) return text;
  return t("hint_reason_sampled_avg", { text: text.replace(/\.$/, ""), sampled_avg: args.sampled_avg });
}
