// Hints: the suggestion the server sends for the seat to act, put on the controls and shown
// with its reason in the table's language. (Asking is connection.js's askHint.)

import { decimalText, h } from "./dom.js";
import { S } from "./state.js";
import { t, tMaybe } from "./i18n.js";
import { SUIT_SYMBOL, cardShort } from "./cards.js";
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

// the reasons that do not say the move ("The only legal move."): told after it
const GENERIC = new Set(["only_legal", "first_legal", "safe_legal", "no_suggestion"]);
const upperFirst = (text) => text.charAt(0).toLocaleUpperCase(S.lang) + text.slice(1);
const lowerFirst = (text) => text.charAt(0).toLocaleLowerCase(S.lang) + text.slice(1);

// the hint with its move said once: the other reasons begin with the move ("Pass: your hand is
// too weak…", "Lead the Q♠."), and the line said it twice ("Hint: pass. Pass: your hand…").
// "Move: why" keeps the move's own words (they name a give's receiver) and adds only the why;
// a reason that is the move in full ("Take the trick with the Q♠ (10 points on it).") is the
// move, unless it leaves out the move's card ("Give a card you can spare.")
function hintLine(hint) {
  const head = t("hint_is", { action: actionText(hint.action, null, "do") });
  const reason = hintReason(hint);
  if (typeof hint.key !== "string" || GENERIC.has(hint.key) || !reason) return [head, reason];
  const colon = reason.indexOf(": ");
  if (colon > 0) return [head, upperFirst(reason.slice(colon + 2))];
  const card = hint.action?.card;
  if (card && !reason.includes(cardShort(card))) return [head, reason];
  return [t("hint_is", { action: lowerFirst(reason.replace(/\.$/, "")) }), null];
}

// a card with its article and pronouns in the language's gender for its rank (es: "la Q♠",
// "sin ella"; "el K♠", "sin él"; pt: "a Q♠", "o K♠"): {card_the}, {card_it}, {card_lo}
function gendered(k, card, shown) {
  const pick = (key) => tMaybe(`${key}_${card[0]}`) ?? t(key);
  return {
    [`${k}_the`]: pick("card_the").split("{card}").join(shown),
    [`${k}_it`]: pick("card_it"),
    [`${k}_lo`]: pick("card_lo"),
  };
}

// the hint's reason in the table's language when the server sent a key for it (see
// docs/dev/protocol.md), else the English sentence; cards as "A♥", suits as symbols/names
export function hintReason(hint) {
  const key = typeof hint.key === "string" ? `hint_reason_${hint.key}` : null;
  if (!key || !(key in S.fallback) || !hint.args || typeof hint.args !== "object") return hint.reason || "";
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
  let text = t(key, args);
  if (args.sampled_avg !== undefined) {
    text = t("hint_reason_sampled_avg", { text: text.replace(/\.$/, ""), sampled_avg: args.sampled_avg });
  }
  return text;
}
