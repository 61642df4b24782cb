"""Hint reasons in a structured form: :class:`Reason` (a key and its arguments).

The bots explain their decisions with a :class:`Reason` (``explain(view, rng) -> (action,
reason)``): a key of :data:`REASONS` and the arguments its template needs. ``str(reason)``
is the English sentence; :meth:`Reason.wire_args` gives the arguments a client puts into its
own string ``hint_reason_<key>``, so that the sentence is shown in the table's language.
A reason whose key has no template, or whose arguments do not fit the template, cannot be
built (``ValueError``).

Arguments: ``card`` and ``lead`` are card strings (``"AH"``, ``"TS"``; shown ``A♥``,
``10♠``); ``suit`` and ``suit_name`` are suit letters (``"H"``; shown as a symbol and as a
name); ``pct`` is a share (``0.85``, shown ``85%``); ``avg`` a number of game points (shown
``+1.2``); the others are shown as they are. ``sampled_avg`` (Mariage search) means
"followed by the average over sampled deals": template :data:`SAMPLED_AVG` (client string
``hint_reason_sampled_avg``) wraps the sentence (``{text}`` is the sentence without its
final full stop).

:data:`REASONS` holds the English templates; ``en.json`` holds the same strings, ``es.json``
and ``pt.json`` their translations (tests check the keys and the placeholders).

A reason mostly begins with its move ("Pass: your hand is too weak to play for {value}."), and
a client that says the move in its own words ("Hint: pass.") shows only the why after it:
:data:`WHYS` holds it, a whole sentence of its own ("Your hand is too weak to play for
{value}."; client string ``hint_why_<key>``, see :meth:`Reason.why`), with no placeholder
that the reason's template lacks. How the keys are cut:

- the generic reasons, which do not say the move (``only_legal``, ``first_legal``,
  ``safe_legal``, ``no_suggestion``), are their own why: the whole sentence;
- a reason that is the move and nothing more (``keep``: "Keep the deal."; ``lead_card``) has
  no why: the move alone is said, followed by :data:`SAMPLED_AVG_WHY` (client string
  ``hint_why_sampled_avg``) when the reason has ``sampled_avg``;
- a reason that says its why inside the move keeps that part ("Take the trick with {card_the}
  ({points} points on it)." -> "It takes the trick and its {points} points.";
  ``give_any`` -> "A card you can spare.");
- ``sampled_avg`` wraps a why as it wraps a reason (:data:`SAMPLED_AVG`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Final

from tapete.cards import SUIT_NAMES, SUITS, Suit

__all__ = ["REASONS", "SAMPLED_AVG", "SAMPLED_AVG_WHY", "WHYS", "Reason", "placeholders"]

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
    "pass_weak": "Pass: your hand is too weak to play for {value}.",
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
    "give_spare": "Give {card_the}: a card you can spare.",
    "give_any": "Give a card you can spare.",
    "give_plan": "Give {card_the}: the plan made with the talon.",
    "give_likely": (
        "Give {card_the}: with {card_it} gone you make {value} in {pct} of the likely deals."
    ),
    "give_least_bad": (
        "Give {card_the}: no gift makes {value} in the likely deals; with {card_it} gone you "
        "come closest."
    ),
    "contract_worth": "Play for {value}: the cards in hand are worth it.",
    "contract_bid": "Play for {value}, the bid: raise only with what is in hand.",
    "contract_likely": "Play for {value}: you make it in {pct} of the likely deals.",
    "contract_likely_enough": (
        "Play for {value}: you make it in {pct} of the likely deals; more is not worth the risk."
    ),
    "contract_out_of_reach": (
        "Play for {value}, the bid: you make no contract in the likely deals; the lowest "
        "loses the least."
    ),
    # Mil: card play (rules player)
    "announce_marriage": (
        "Announce the {suit} marriage (+{value}) by leading {card_the}: {suit_name} become trump."
    ),
    "lead_draw_trumps": "Lead {card_the}: it draws the trumps still out.",
    "lead_master": "Lead {card_the}: it wins the trick and keeps the lead.",
    "lead_spare": "Lead {card_the}: the card you can best spare, keeping your winners.",
    "follow_partner_wins": "Play {card_the}: your partner wins this trick.",
    "follow_side_wins": "Play {card_the}: your side already wins this trick.",
    "take_points": "Take the trick with {card_the} ({points} points on it).",
    "follow_cannot_win": "Play {card_the}: you cannot win this trick, give little.",
    "take_partner_last": "Take the trick with {card_the}: your partner plays last.",
    "follow_partner_may_win": "Play {card_the}: your partner may still win it.",
    "take_unbeatable": "Take the trick with {card_the}: nobody can beat {card_lo}.",
    "follow_partner_card_wins": "Play {card_the}: your partner's card wins this trick.",
    "follow_keep_high": "Play {card_the}: keep your high cards for later.",
    # Mil: card play (search player)
    "lead_contract_safe": "Lead {card_the}: the contract is safe with {card_it}.",
    "play_contract_safe": "Play {card_the}: the contract is safe with {card_it}.",
    "announce_contract_safe": (
        "Announce the marriage with {card_the}: the contract is safe with it."
    ),
    "lead_contract_lost": (
        "Lead {card_the}: the contract is lost whatever you do; it saves the most points."
    ),
    "play_contract_lost": (
        "Play {card_the}: the contract is lost whatever you do; it saves the most points."
    ),
    "announce_contract_lost": (
        "Announce the marriage with {card_the}: the contract is lost whatever you do; it "
        "saves the most points."
    ),
    "lead_makes_pct": "Lead {card_the}: it makes the contract in {pct} of the likely deals.",
    "play_makes_pct": "Play {card_the}: it makes the contract in {pct} of the likely deals.",
    "announce_makes_pct": (
        "Announce the marriage with {card_the}: it makes the contract in {pct} of the likely deals."
    ),
    "lead_beats_all": "Lead {card_the}: it beats the contract in every likely deal.",
    "play_beats_all": "Play {card_the}: it beats the contract in every likely deal.",
    "announce_beats_all": (
        "Announce the marriage with {card_the}: it beats the contract in every likely deal."
    ),
    "lead_made_anyway": (
        "Lead {card_the}: the contract is made anyway; it keeps the declarer's points lowest."
    ),
    "play_made_anyway": (
        "Play {card_the}: the contract is made anyway; it keeps the declarer's points lowest."
    ),
    "announce_made_anyway": (
        "Announce the marriage with {card_the}: the contract is made anyway; it keeps the"
        " declarer's points lowest."
    ),
    "lead_beats_pct": "Lead {card_the}: it beats the contract in {pct} of the likely deals.",
    "play_beats_pct": "Play {card_the}: it beats the contract in {pct} of the likely deals.",
    "announce_beats_pct": (
        "Announce the marriage with {card_the}: it beats the contract in {pct} of the likely deals."
    ),
    # Mariage
    "claim": "Claim 66: you have {points} points.",
    "no_claim": "Do not claim: you have fewer than 66 points.",
    "lead_marriage_card": "Lead {card_the} of the marriage you declared.",
    "exchange": "Exchange the trump 7 for the face-up trump card.",
    "marriage_and_claim": "Declare the {suit} marriage (+{value}) and claim 66.",
    "marriage_points": "Declare the {suit} marriage: +{value} points.",
    "marriage": "Declare the {suit} marriage (+{value}).",
    "close_trumps": "Close the stock: your trumps bring you to 66.",
    "close_reach": "Close the stock: you can reach 66 with your cards.",
    "take_both_score": "Take it with {card_the}: both cards score for you.",
    "trump_lead": "Trump {lead_the} with {card_the}.",
    "beat_lead": "Beat {lead_the} with {card_the}.",
    "play_cheap": "Play {card_the}: a cheap card, not worth a trump.",
    "lead_card": "Lead {card_the}.",
    "play_on_lead": "Play {card_the} on {lead_the}.",
    "lead_exact": "Lead {card_the}: best with exact play ({avg} game points on average).",
    "play_exact": "Play {card_the}: best with exact play ({avg} game points on average).",
}

#: the wrapper of a Mariage search sentence: ``{text}`` is the sentence without its full stop
SAMPLED_AVG: Final = "{text} ({sampled_avg} game points on average over sampled deals)."

#: reason key -> the English why without the move, a whole sentence (the generic reasons:
#: the whole sentence; a reason that is only its move has none; see the module's docstring)
WHYS: Final[dict[str, str]] = {
    # any game: said in full after the move
    "only_legal": REASONS["only_legal"],
    "first_legal": REASONS["first_legal"],
    "safe_legal": REASONS["safe_legal"],
    "no_suggestion": REASONS["no_suggestion"],
    # Mil: auction
    "bid_justifies": "Your hand justifies up to {ceiling}.",
    "bid_likely": "You make it in about {pct} of the likely deals.",
    "bid_opener": "The opener must.",
    "pass_justifies": "Your hand justifies at most {ceiling}.",
    "pass_no_higher": "No higher bid is allowed.",
    "pass_weak": "Your hand is too weak to play for {value}.",
    # Mil: redeal offers, talon, rospis ("keep" is only the move)
    "keep_can_make": "You can make the contract.",
    "keep_good_hand": "The hand is good enough to play.",
    "keep_likely": "You make {value} in {pct} of the likely deals.",
    "redeal_out_of_reach": "The contract looks out of reach.",
    "redeal_takes_contract": "It takes the declarer's contract away.",
    "redeal_weak": "The hand is too weak to bid or defend.",
    "redeal_poor_talon": "The talon is poor and the bid looks out of reach.",
    "redeal_unlikely": "You make {value} in only {pct} of the likely deals.",
    "rospis_worth": "The hand is worth about {est}, far below {value}.",
    "rospis_out_of_reach": "You cannot make {value} in any likely deal.",
    # Mil: giving and the contract
    "give_spare": "A card you can spare.",
    "give_any": "A card you can spare.",
    "give_plan": "The plan made with the talon.",
    "give_likely": "With {card_it} gone you make {value} in {pct} of the likely deals.",
    "give_least_bad": (
        "No gift makes {value} in the likely deals; with {card_it} gone you come closest."
    ),
    "contract_worth": "The cards in hand are worth it.",
    "contract_bid": "It is the bid: raise only with what is in hand.",
    "contract_likely": "You make it in {pct} of the likely deals.",
    "contract_likely_enough": (
        "You make it in {pct} of the likely deals; more is not worth the risk."
    ),
    "contract_out_of_reach": (
        "You make no contract in the likely deals; the lowest loses the least."
    ),
    # Mil: card play (rules player)
    "announce_marriage": "The marriage scores {value}, and {suit_name} become trump.",
    "lead_draw_trumps": "It draws the trumps still out.",
    "lead_master": "It wins the trick and keeps the lead.",
    "lead_spare": "The card you can best spare, keeping your winners.",
    "follow_partner_wins": "Your partner wins this trick.",
    "follow_side_wins": "Your side already wins this trick.",
    "take_points": "It takes the trick and its {points} points.",
    "follow_cannot_win": "You cannot win this trick, give little.",
    "take_partner_last": "It takes the trick: your partner plays last.",
    "follow_partner_may_win": "Your partner may still win it.",
    "take_unbeatable": "It takes the trick: nobody can beat {card_lo}.",
    "follow_partner_card_wins": "Your partner's card wins this trick.",
    "follow_keep_high": "Keep your high cards for later.",
    # Mil: card play (search player)
    "lead_contract_safe": "The contract is safe with {card_it}.",
    "play_contract_safe": "The contract is safe with {card_it}.",
    "announce_contract_safe": "The contract is safe with it.",
    "lead_contract_lost": "The contract is lost whatever you do; it saves the most points.",
    "play_contract_lost": "The contract is lost whatever you do; it saves the most points.",
    "announce_contract_lost": ("The contract is lost whatever you do; it saves the most points."),
    "lead_makes_pct": "It makes the contract in {pct} of the likely deals.",
    "play_makes_pct": "It makes the contract in {pct} of the likely deals.",
    "announce_makes_pct": "It makes the contract in {pct} of the likely deals.",
    "lead_beats_all": "It beats the contract in every likely deal.",
    "play_beats_all": "It beats the contract in every likely deal.",
    "announce_beats_all": "It beats the contract in every likely deal.",
    "lead_made_anyway": "The contract is made anyway; it keeps the declarer's points lowest.",
    "play_made_anyway": "The contract is made anyway; it keeps the declarer's points lowest.",
    "announce_made_anyway": ("The contract is made anyway; it keeps the declarer's points lowest."),
    "lead_beats_pct": "It beats the contract in {pct} of the likely deals.",
    "play_beats_pct": "It beats the contract in {pct} of the likely deals.",
    "announce_beats_pct": "It beats the contract in {pct} of the likely deals.",
    # Mariage ("exchange", "lead_card" and "play_on_lead" are only the move)
    "claim": "You have {points} points.",
    "no_claim": "You have fewer than 66 points.",
    "lead_marriage_card": "A card of the marriage you declared.",
    "marriage_and_claim": "With its {value} points you can claim 66.",
    "marriage_points": "It is worth {value} points.",
    "marriage": "It is worth {value} points.",
    "close_trumps": "Your trumps bring you to 66.",
    "close_reach": "You can reach 66 with your cards.",
    "take_both_score": "It takes the trick: both cards score for you.",
    "trump_lead": "It trumps {lead_the}.",
    "beat_lead": "It beats {lead_the}.",
    "play_cheap": "A cheap card, not worth a trump.",
    "lead_exact": "Best with exact play ({avg} game points on average).",
    "play_exact": "Best with exact play ({avg} game points on average).",
}

#: the why of a reason that is only its move, when it has ``sampled_avg``
SAMPLED_AVG_WHY: Final = "It averages {sampled_avg} game points over sampled deals."

_SYMBOLS: Final = {Suit(s).letter: Suit(s).symbol for s in SUITS}
_SUIT_NAMES: Final = {Suit(s).letter: SUIT_NAMES[s] for s in SUITS}


#: the forms of a card argument (``card``, ``lead``) a template may use besides the card
#: itself: ``{card_the}`` the card with its article, ``{card_it}`` and ``{card_lo}`` the
#: pronouns that stand for it (in Spanish and Portuguese they follow the gender of the card's
#: rank: "la Q♠", "sin ella"; the client renders them from its strings ``card_the`` ...)
CARD_FORMS: Final = ("the", "it", "lo")
_CARD_ARGS: Final = ("card", "lead")


def placeholders(template: str) -> set[str]:
    """The argument names of a template (``{name}``; ``{card_the}`` and the other
    :data:`CARD_FORMS` of a card argument count as that argument).

    >>> sorted(placeholders("Give {card_the}: with {card_it} gone you make {value}."))
    ['card', 'value']
    """
    names = set()
    for name in re.findall(r"\{(\w+)\}", template):
        base, _, form = name.rpartition("_")
        names.add(base if base in _CARD_ARGS and form in CARD_FORMS else name)
    return names


def _english_forms(args: Mapping[str, str | int | float]) -> dict[str, str]:
    """Every placeholder of an English template: the arguments and their card forms."""
    out = {k: _english(k, v) for k, v in args.items()}
    for k in _CARD_ARGS:
        if k in out:
            out.update({f"{k}_the": f"the {out[k]}", f"{k}_it": "it", f"{k}_lo": "it"})
    return out


def _wire(name: str, value: str | int | float) -> str:
    if name == "pct":
        return f"{value:.0%}"
    if name in ("avg", "sampled_avg"):
        return f"{value:+.1f}"
    return str(value)


def _english(name: str, value: str | int | float) -> str:
    if name in ("card", "lead"):
        text = str(value)
        return ("10" if text[0] == "T" else text[0]) + _SYMBOLS[text[1]]
    if name == "suit":
        return _SYMBOLS[str(value)]
    if name == "suit_name":
        return _SUIT_NAMES[str(value)]
    return _wire(name, value)


@dataclass(frozen=True)
class Reason:
    """Why a bot chose an action: ``key`` names a template of :data:`REASONS`, ``args`` fill
    its placeholders; ``sampled_avg`` (game points, Mariage search) adds the average over
    sampled deals (:data:`SAMPLED_AVG`).

    >>> str(Reason("lead_master", {"card": "AH"}))
    'Lead the A♥: it wins the trick and keeps the lead.'
    >>> str(Reason("lead_card", {"card": "TS"}, sampled_avg=0.8))
    'Lead the 10♠ (+0.8 game points on average over sampled deals).'
    >>> Reason("lead_card", {"card": "TS"}).with_sampled_avg(-0.4).wire_args()
    {'card': 'TS', 'sampled_avg': '-0.4'}
    """

    key: str
    args: Mapping[str, str | int | float] = field(default_factory=dict)
    sampled_avg: float | None = None

    def __post_init__(self) -> None:
        template = REASONS.get(self.key)
        if template is None:
            raise ValueError(f"no hint reason template {self.key!r}")
        if set(self.args) != placeholders(template):
            raise ValueError(
                f"hint reason {self.key!r} takes {sorted(placeholders(template))}, "
                f"not {sorted(self.args)}"
            )
        object.__setattr__(self, "args", MappingProxyType(dict(self.args)))

    def __hash__(self) -> int:
        return hash((self.key, tuple(sorted(self.args.items())), self.sampled_avg))

    def __str__(self) -> str:
        text = REASONS[self.key].format_map(_english_forms(self.args))
        if self.sampled_avg is not None:
            text = SAMPLED_AVG.format(
                text=text[:-1], sampled_avg=_wire("sampled_avg", self.sampled_avg)
            )
        return text

    def why(self) -> str | None:
        """The English why alone (:data:`WHYS`), for a line that has said the move in its own
        words; ``None`` for a reason that is only its move and has no ``sampled_avg``.

        >>> Reason("pass_weak", {"value": 105}).why()
        'Your hand is too weak to play for 105.'
        >>> Reason("only_legal").why()
        'The only legal move.'
        >>> Reason("lead_card", {"card": "TS"}).why() is None
        True
        >>> Reason("lead_card", {"card": "TS"}, sampled_avg=0.8).why()
        'It averages +0.8 game points over sampled deals.'
        """
        template = WHYS.get(self.key)
        avg = None if self.sampled_avg is None else _wire("sampled_avg", self.sampled_avg)
        if template is None:
            return None if avg is None else SAMPLED_AVG_WHY.format(sampled_avg=avg)
        text = template.format_map(_english_forms(self.args))
        return text if avg is None else SAMPLED_AVG.format(text=text[:-1], sampled_avg=avg)

    def with_sampled_avg(self, avg: float) -> Reason:
        """This reason followed by the average over sampled deals."""
        return Reason(self.key, self.args, sampled_avg=avg)

    def wire_args(self) -> dict[str, str]:
        """The arguments as a client gets them (``reason_args``, docs/dev/protocol.md)."""
        out = {k: _wire(k, v) for k, v in self.args.items()}
        if self.sampled_avg is not None:
            out["sampled_avg"] = _wire("sampled_avg", self.sampled_avg)
        return out
