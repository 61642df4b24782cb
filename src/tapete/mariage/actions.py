"""Mariage actions: small frozen dataclasses with a record form and a dense int id.

Ids are stable and dense, for learning code (OpenSpiel's action ids):

====================  ========
action                id
====================  ========
``Play(card)``        0..31 (the card int)
``Exchange()``        32
``Marriage(suit)``    33..36 (33 + suit)
``Close()``           37
``Claim()``           38
``Decline()``         39
====================  ========

``Decline`` exists only after the last trick of a closed hand, where the winner of that trick
may claim 66 or not (mariage.md). It is an engine action that the tapete/1 format does not
write (like Mil's ``KeepDeal``): a closed hand whose recorded actions stop after the last
trick declined, and the record reader re-inserts it.

>>> Play(parse_card("KH")).to_json()
{'type': 'play', 'card': 'KH'}
>>> action_from_json({"type": "marriage", "suit": "H"})
Marriage(suit=3)
>>> action_from_id(37)
Close()
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from tapete.cards import (
    CARD_NAMES,
    SUIT_LETTERS,
    Card,
    InvalidNotationError,
    parse_card,
    parse_suit,
    shown,
)
from tapete.game import JSON

__all__ = [
    "ACTION_COUNT",
    "CLAIM",
    "CLOSE",
    "DECLINE",
    "EXCHANGE",
    "MARRIAGES",
    "PLAYS",
    "Action",
    "Claim",
    "Close",
    "Decline",
    "Exchange",
    "Marriage",
    "Play",
    "action_from_id",
    "action_from_json",
]

#: Number of distinct action ids (0..39).
ACTION_COUNT: Final = 40


@dataclass(frozen=True, slots=True)
class Play:
    """Play ``card`` to the trick (a lead or a follow)."""

    card: Card

    def __post_init__(self) -> None:
        if type(self.card) is not int or not 0 <= self.card < 32:
            raise InvalidNotationError(f"{shown(self.card)} is not a card int (expected 0..31)")

    @property
    def id(self) -> int:
        return self.card

    def to_json(self) -> JSON:
        return {"type": "play", "card": CARD_NAMES[self.card]}

    def __str__(self) -> str:
        return f"play {CARD_NAMES[self.card]}"


@dataclass(frozen=True, slots=True)
class Exchange:
    """Swap the trump 7 from hand for the face-up trump indicator."""

    @property
    def id(self) -> int:
        return 32

    def to_json(self) -> JSON:
        return {"type": "exchange"}

    def __str__(self) -> str:
        return "exchange"


@dataclass(frozen=True, slots=True)
class Marriage:
    """Show K and Q of ``suit`` (20 points, 40 in trumps); then claim or lead K or Q."""

    suit: int

    def __post_init__(self) -> None:
        if type(self.suit) is not int or not 0 <= self.suit < 4:
            raise InvalidNotationError(f"{shown(self.suit)} is not a suit int (expected 0..3)")

    @property
    def id(self) -> int:
        return 33 + self.suit

    def to_json(self) -> JSON:
        return {"type": "marriage", "suit": SUIT_LETTERS[self.suit]}

    def __str__(self) -> str:
        return f"marriage {SUIT_LETTERS[self.suit]}"


@dataclass(frozen=True, slots=True)
class Close:
    """Close the stock (turn the indicator face down): the closer must reach 66 and claim."""

    @property
    def id(self) -> int:
        return 37

    def to_json(self) -> JSON:
        return {"type": "close"}

    def __str__(self) -> str:
        return "close"


@dataclass(frozen=True, slots=True)
class Claim:
    """Claim 66 (ends the hand, correctly or not)."""

    @property
    def id(self) -> int:
        return 38

    def to_json(self) -> JSON:
        return {"type": "claim"}

    def __str__(self) -> str:
        return "claim"


@dataclass(frozen=True, slots=True)
class Decline:
    """Decline to claim after the last trick of a closed hand (the closer has then failed).

    Not written to records: the reader re-inserts it.
    """

    @property
    def id(self) -> int:
        return 39

    def to_json(self) -> JSON:
        return {"type": "decline"}

    def __str__(self) -> str:
        return "decline"


Action = Play | Exchange | Marriage | Close | Claim | Decline

#: Shared instances, so hot paths never allocate actions.
PLAYS: Final = tuple(Play(c) for c in range(32))
EXCHANGE: Final = Exchange()
MARRIAGES: Final = tuple(Marriage(s) for s in range(4))
CLOSE: Final = Close()
CLAIM: Final = Claim()
DECLINE: Final = Decline()
_BY_ID: Final[tuple[Action, ...]] = (*PLAYS, EXCHANGE, *MARRIAGES, CLOSE, CLAIM, DECLINE)


def action_from_id(action_id: int) -> Action:
    """The action whose dense id is ``action_id`` (0..38)."""
    if (
        not isinstance(action_id, int)
        or isinstance(action_id, bool)
        or not (0 <= action_id < ACTION_COUNT)
    ):
        raise InvalidNotationError(
            f"{shown(action_id)} is not a Mariage action id (expected 0..39)"
        )
    return _BY_ID[action_id]


_FIELDS: Final = {
    "play": ("card",),
    "exchange": (),
    "marriage": ("suit",),
    "close": (),
    "claim": (),
    "decline": (),
}


def action_from_json(data: Any) -> Action:
    """Parse the record form of an action (with or without ``"seat"``).

    Raises :class:`InvalidNotationError` naming what is wrong.
    """
    if not isinstance(data, dict):
        raise InvalidNotationError(
            f"an action must be a JSON object such as {{'type': 'play', 'card': 'KH'}}, "
            f"not {shown(data)}"
        )
    kind = data.get("type")
    if kind not in _FIELDS:
        what = (
            "the action has no 'type'"
            if "type" not in data
            else f"unknown Mariage action type {shown(kind)}"
        )
        raise InvalidNotationError(f"{what} (expected one of: {', '.join(_FIELDS)})")
    for field in _FIELDS[kind]:
        if field not in data:
            raise InvalidNotationError(f"a {kind} action needs a {field!r} field: {shown(data)}")
    if kind == "play":
        return PLAYS[parse_card(data["card"])]
    if kind == "marriage":
        text = data["suit"]
        if not isinstance(text, str):
            raise InvalidNotationError(f"{shown(text)} is not a suit (expected one of S C D H)")
        return MARRIAGES[parse_suit(text)]
    if kind == "exchange":
        return EXCHANGE
    if kind == "close":
        return CLOSE
    if kind == "decline":
        return DECLINE
    return CLAIM
