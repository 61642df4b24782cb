"""Hint reasons in a language-neutral form: ``reason_i18n(reason) -> (key, args) | None``.

The bots explain their suggestions in English sentences (``suggest`` returns
``(action, reason)``). This module recognises the usual sentences and gives a key and its
arguments, so that a client can show the sentence in the table's language: the client's
string ``hint_reason_<key>`` with the arguments put in. A sentence it does not know gives
``None`` (the client then shows the English ``reason``).

Arguments: ``card`` and ``lead`` are card strings (``"AH"``, ``"TS"``); ``suit`` and
``suit_name`` are suit letters (``"H"``; shown as a symbol and as a name); the others are
shown as they are (numbers, ``"85%"``, ``"+1.2"``). ``sampled_avg`` (Mariage search) means
"followed by the average over sampled deals": string ``hint_reason_sampled_avg`` wraps the
sentence (``{text}`` is the sentence without its final full stop).

:data:`REASONS` holds the English templates; ``en.json`` holds the same strings (a test
checks that they agree and that every template gives back the bot's sentence).
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["REASONS", "SAMPLED_AVG", "reason_i18n"]

#: reason key -> the English sentence, ``{name}`` for an argument
REASONS: Final[dict[str, str]] = {
    # any game
    "only_legal": "The only legal move.",
    "first_legal": "The first legal move.",
    "safe_legal": "A safe legal move.",
    "no_suggestion": "No suggestion is available: this move is legal.",
    # Mil: auction
    "bid_justifies": "Bid {value}: your hand justifies up to {ceiling}.",
    "bid_likely": "Bid {value}: you make it in about {pct} of the likely deals.",
    "bid_opener": "Bid {value}: the opener must.",
    "pass_justifies": "Pass: your hand justifies at most {ceiling}.",
    "pass_no_higher": "Pass: no higher bid is allowed.",
    "pass_weak": "Pass: your hand is too weak to play for 100.",
    # Mil: redeal offers, talon, rospis
    "keep": "Keep the deal.",
    "keep_can_make": "Keep the deal: you can make the contract.",
    "keep_good_hand": "Keep the deal: the hand is good enough to play.",
    "keep_likely": "Keep the deal: you make {value} in {pct} of the likely deals.",
    "redeal_out_of_reach": "Ask for a redeal: the contract looks out of reach.",
    "redeal_takes_contract": "Ask for a redeal: it takes the declarer's contract away.",
    "redeal_weak": "Ask for a redeal: the hand is too weak to bid or defend.",
    "redeal_poor_talon": "Ask for a redeal: the talon is poor and the bid looks out of reach.",
    "redeal_unlikely": "Ask for a redeal: you make {value} in only {pct} of the likely deals.",
    "rospis_worth": "Concede (rospis): the hand is worth about {est}, far below {value}.",
    "rospis_out_of_reach": "Concede (rospis): {value} is out of reach in every likely deal.",
    # Mil: giving and the contract
    "give_spare": "Give the {card}: a card you can spare.",
    "give_any": "Give a card you can spare.",
    "give_plan": "Give the {card}: the plan made with the talon.",
    "give_likely": "Give the {card}: with it gone you make {value} in {pct} of the likely deals.",
    "contract_worth": "Play for {value}: the cards in hand are worth it.",
    "contract_bid": "Play for {value}, the bid: raise only with what is in hand.",
    "contract_likely": "Play for {value}: you make it in {pct} of the likely deals.",
    "contract_likely_enough": (
        "Play for {value}: you make it in {pct} of the likely deals; more is not worth the risk."
    ),
    # Mil: card play (rules player)
    "announce_marriage": (
        "Announce the {suit} marriage (+{value}) by leading the {card}: {suit_name} become trump."
    ),
    "lead_draw_trumps": "Lead the {card}: it draws the trumps still out.",
    "lead_master": "Lead the {card}: it wins the trick and keeps the lead.",
    "lead_spare": "Lead the {card}: the card you can best spare, keeping your winners.",
    "follow_partner_wins": "Play the {card}: your partner wins this trick.",
    "follow_side_wins": "Play the {card}: your side already wins this trick.",
    "take_points": "Take the trick with the {card} ({points} points on it).",
    "follow_cannot_win": "Play the {card}: you cannot win this trick, give little.",
    "take_partner_last": "Take the trick with the {card}: your partner plays last.",
    "follow_partner_may_win": "Play the {card}: your partner may still win it.",
    "take_unbeatable": "Take the trick with the {card}: nobody can beat it.",
    "follow_partner_card_wins": "Play the {card}: your partner's card wins this trick.",
    "follow_keep_high": "Play the {card}: keep your high cards for later.",
    # Mil: card play (search player)
    "lead_contract_safe": "Lead the {card}: the contract is safe with it.",
    "play_contract_safe": "Play the {card}: the contract is safe with it.",
    "announce_contract_safe": (
        "Announce the marriage with the {card}: the contract is safe with it."
    ),
    "lead_contract_lost": (
        "Lead the {card}: the contract is lost whatever you do; it saves the most points."
    ),
    "play_contract_lost": (
        "Play the {card}: the contract is lost whatever you do; it saves the most points."
    ),
    "announce_contract_lost": (
        "Announce the marriage with the {card}: the contract is lost whatever you do; "
        "it saves the most points."
    ),
    "lead_makes_pct": "Lead the {card}: it makes the contract in {pct} of the likely deals.",
    "play_makes_pct": "Play the {card}: it makes the contract in {pct} of the likely deals.",
    "announce_makes_pct": (
        "Announce the marriage with the {card}: it makes the contract in {pct} of the likely deals."
    ),
    "lead_beats_all": "Lead the {card}: it beats the contract in every likely deal.",
    "play_beats_all": "Play the {card}: it beats the contract in every likely deal.",
    "announce_beats_all": (
        "Announce the marriage with the {card}: it beats the contract in every likely deal."
    ),
    "lead_made_anyway": (
        "Lead the {card}: the contract is made anyway; it keeps the declarer's points lowest."
    ),
    "play_made_anyway": (
        "Play the {card}: the contract is made anyway; it keeps the declarer's points lowest."
    ),
    "announce_made_anyway": (
        "Announce the marriage with the {card}: the contract is made anyway; "
        "it keeps the declarer's points lowest."
    ),
    "lead_beats_pct": "Lead the {card}: it beats the contract in {pct} of the likely deals.",
    "play_beats_pct": "Play the {card}: it beats the contract in {pct} of the likely deals.",
    "announce_beats_pct": (
        "Announce the marriage with the {card}: it beats the contract in {pct} of the likely deals."
    ),
    # Mariage
    "claim": "Claim 66: you have {points} points.",
    "no_claim": "Do not claim: you have fewer than 66 points.",
    "lead_marriage_card": "Lead the {card} of the marriage you declared.",
    "exchange": "Exchange the trump 7 for the face-up trump card.",
    "marriage_and_claim": "Declare the {suit} marriage (+{value}) and claim 66.",
    "marriage_points": "Declare the {suit} marriage: +{value} points.",
    "marriage": "Declare the {suit} marriage (+{value}).",
    "close_trumps": "Close the stock: your trumps bring you to 66.",
    "close_reach": "Close the stock: you can reach 66 with your cards.",
    "take_both_score": "Take it with the {card}: both cards score for you.",
    "trump_lead": "Trump the {lead} with the {card}.",
    "beat_lead": "Beat the {lead} with the {card}.",
    "play_cheap": "Play the {card}: a cheap card, not worth a trump.",
    "lead_card": "Lead the {card}.",
    "play_on_lead": "Play the {card} on the {lead}.",
    "lead_exact": "Lead the {card}: best with exact play ({avg} game points on average).",
    "play_exact": "Play the {card}: best with exact play ({avg} game points on average).",
}

#: the wrapper of a Mariage search sentence: ``{text}`` is the sentence without its full stop
SAMPLED_AVG: Final = "{text} ({sampled_avg} game points on average over sampled deals)."

_SYMBOLS: Final = {"♠": "S", "♣": "C", "♦": "D", "♥": "H"}
_SUIT_NAMES: Final = {"spades": "S", "clubs": "C", "diamonds": "D", "hearts": "H"}
_PATTERNS: Final = {
    "card": r"(?:10|[789JQKA])[♠♣♦♥]",
    "lead": r"(?:10|[789JQKA])[♠♣♦♥]",
    "suit": r"[♠♣♦♥]",
    "suit_name": r"spades|clubs|diamonds|hearts",
}
_OTHER: Final = r"[+-]?\d+(?:\.\d+)?%?"
_SAMPLED: Final = re.compile(
    r"(?P<text>.+) \((?P<sampled_avg>[+-]?\d+(?:\.\d+)?) game points on average over "
    r"sampled deals\)\."
)


def _compile(template: str) -> re.Pattern[str]:
    out = []
    pos = 0
    for m in re.finditer(r"\{(\w+)\}", template):
        out.append(re.escape(template[pos : m.start()]))
        name = m.group(1)
        out.append(f"(?P<{name}>{_PATTERNS.get(name, _OTHER)})")
        pos = m.end()
    out.append(re.escape(template[pos:]))
    return re.compile("".join(out))


_COMPILED: Final = [(key, _compile(text)) for key, text in REASONS.items()]


def _arg(name: str, text: str) -> str:
    if name in ("card", "lead"):
        rank = "T" if text.startswith("10") else text[0]
        return rank + _SYMBOLS[text[-1]]
    if name == "suit":
        return _SYMBOLS[text]
    if name == "suit_name":
        return _SUIT_NAMES[text]
    return text


def _match(reason: str) -> tuple[str, dict[str, str]] | None:
    for key, pattern in _COMPILED:
        m = pattern.fullmatch(reason)
        if m is not None:
            return key, {k: _arg(k, v) for k, v in m.groupdict().items()}
    return None


def reason_i18n(reason: str) -> tuple[str, dict[str, str]] | None:
    """``(key, args)`` for a bot's English hint sentence, or ``None`` if it is not a known one.

    >>> reason_i18n("Lead the A♥: it wins the trick and keeps the lead.")
    ('lead_master', {'card': 'AH'})
    >>> reason_i18n("Lead the 10♠ (+0.8 game points on average over sampled deals).")
    ('lead_card', {'card': 'TS', 'sampled_avg': '+0.8'})
    >>> reason_i18n("Something new.") is None
    True
    """
    if not isinstance(reason, str):
        return None
    found = _match(reason)
    if found is not None:
        return found
    m = _SAMPLED.fullmatch(reason)
    if m is None:
        return None
    found = _match(m.group("text") + ".")
    if found is None:
        return None
    key, args = found
    args["sampled_avg"] = m.group("sampled_avg")
    return key, args


def render(key: str, args: dict[str, str]) -> str:
    """The English sentence for ``(key, args)`` (cards and suits as the bots write them);
    what a client does with its own strings."""
    labels = {v: k for k, v in _SYMBOLS.items()}
    names = {v: k for k, v in _SUIT_NAMES.items()}
    values: dict[str, str] = {}
    for name, value in args.items():
        if name in ("card", "lead"):
            values[name] = ("10" if value[0] == "T" else value[0]) + labels[value[1]]
        elif name == "suit":
            values[name] = labels[value]
        elif name == "suit_name":
            values[name] = names[value]
        else:
            values[name] = value
    text = REASONS[key]
    for name, value in values.items():
        text = text.replace("{" + name + "}", value)
    if "sampled_avg" in args:
        text = SAMPLED_AVG.replace("{text}", text[:-1]).replace(
            "{sampled_avg}", args["sampled_avg"]
        )
    return text
