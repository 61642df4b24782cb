"""Mil actions: small frozen dataclasses with their record form and a dense int id.

Ids (stable, for learning code): Pass 0, KeepDeal 1, Rospis 2, Redeal 3..5, Bid(100..400)
6..66, Contract(100..400) 67..127, Give(card, to) 128..199, Play(card, marriage) 200..247.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Final

from tapete.cards import (
    MIL_DECK,
    NINE,
    InvalidNotationError,
    card_name,
    parse_card,
    rank,
    shown,
    suit,
)

__all__ = [
    "NUM_ACTIONS",
    "REDEAL_REASONS",
    "Bid",
    "Contract",
    "Give",
    "KeepDeal",
    "MilAction",
    "Pass",
    "Play",
    "Redeal",
    "Rospis",
    "action_from_id",
    "action_from_json",
    "dense_card",
]

REDEAL_REASONS: Final = ("four_nines", "low_points", "low_talon")
_MIN_VALUE: Final = 100
_MAX_VALUE: Final = 400
_VALUES: Final = (_MAX_VALUE - _MIN_VALUE) // 5 + 1


def dense_card(c: int) -> int:
    """A Mil card's index in 0..23 (suit * 6 + rank from the nine up)."""
    return suit(c) * 6 + rank(c) - NINE


def _card_from_dense(i: int) -> int:
    return (i // 6) * 8 + i % 6 + NINE


class _Value:
    """Copy and pickle an action through its constructor: by default a frozen instance is
    restored field by field, which the mypyc-compiled classes refuse."""

    __slots__ = ()

    def __reduce__(self) -> tuple[type[_Value], tuple[object, ...]]:
        return type(self), tuple(getattr(self, f.name) for f in fields(self))  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class Pass(_Value):
    def to_json(self) -> dict[str, Any]:
        return {"type": "pass"}

    @property
    def id(self) -> int:
        return 0

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class KeepDeal(_Value):
    """Decline an offered redeal (an engine action; records do not write it)."""

    def to_json(self) -> dict[str, Any]:
        return {"type": "keep"}

    @property
    def id(self) -> int:
        return 1

    def __str__(self) -> str:
        return "keep"


@dataclass(frozen=True, slots=True)
class Rospis(_Value):
    def to_json(self) -> dict[str, Any]:
        return {"type": "rospis"}

    @property
    def id(self) -> int:
        return 2

    def __str__(self) -> str:
        return "rospis"


@dataclass(frozen=True, slots=True)
class Redeal(_Value):
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"type": "redeal", "reason": self.reason}

    @property
    def id(self) -> int:
        return 3 + REDEAL_REASONS.index(self.reason)

    def __str__(self) -> str:
        return f"redeal {self.reason}"


@dataclass(frozen=True, slots=True)
class Bid(_Value):
    value: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "bid", "value": self.value}

    @property
    def id(self) -> int:
        return 6 + (self.value - _MIN_VALUE) // 5

    def __str__(self) -> str:
        return f"bid {self.value}"


@dataclass(frozen=True, slots=True)
class Contract(_Value):
    value: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "contract", "value": self.value}

    @property
    def id(self) -> int:
        return 6 + _VALUES + (self.value - _MIN_VALUE) // 5

    def __str__(self) -> str:
        return f"contract {self.value}"


@dataclass(frozen=True, slots=True)
class Give(_Value):
    card: int
    to: int

    def to_json(self) -> dict[str, Any]:
        return {"type": "give", "card": card_name(self.card), "to": self.to}

    @property
    def id(self) -> int:
        return 6 + 2 * _VALUES + dense_card(self.card) * 3 + self.to

    def __str__(self) -> str:
        return f"give {card_name(self.card)} {self.to}"


@dataclass(frozen=True, slots=True)
class Play(_Value):
    card: int
    marriage: bool = False

    def to_json(self) -> dict[str, Any]:
        if self.marriage:
            return {"type": "play", "card": card_name(self.card), "marriage": True}
        return {"type": "play", "card": card_name(self.card)}

    @property
    def id(self) -> int:
        return 6 + 2 * _VALUES + 72 + dense_card(self.card) * 2 + int(self.marriage)

    def __str__(self) -> str:
        return f"play {card_name(self.card)}" + (" marriage" if self.marriage else "")


MilAction = Pass | KeepDeal | Rospis | Redeal | Bid | Contract | Give | Play
NUM_ACTIONS: Final = 6 + 2 * _VALUES + 72 + 48


def action_from_id(i: int) -> MilAction:
    if not 0 <= i < NUM_ACTIONS:
        raise ValueError(f"{i} is not a Mil action id (0..{NUM_ACTIONS - 1})")
    if i < 3:
        return (Pass(), KeepDeal(), Rospis())[i]
    if i < 6:
        return Redeal(REDEAL_REASONS[i - 3])
    i -= 6
    if i < _VALUES:
        return Bid(_MIN_VALUE + 5 * i)
    i -= _VALUES
    if i < _VALUES:
        return Contract(_MIN_VALUE + 5 * i)
    i -= _VALUES
    if i < 72:
        return Give(_card_from_dense(i // 3), i % 3)
    i -= 72
    return Play(_card_from_dense(i // 2), bool(i % 2))


#: the largest number a bid, contract or seat field may hold (no Mil number reaches it)
_MAX_FIELD: Final = 10_000


def _int_field(data: dict[str, Any], key: str, top: int = _MAX_FIELD) -> int:
    """A whole-number field: a JSON integer (not a bool, not a float such as 120.0, Infinity
    or NaN) from 0 to ``top``, else InvalidNotationError with a sentence."""
    value = data.get(key)
    if type(value) is not int or not 0 <= value <= top:
        raise InvalidNotationError(
            f"{data.get('type')} needs a whole number {key!r} from 0 to {top}, got {shown(value)}"
        )
    return value


def _card_field(data: dict[str, Any]) -> int:
    c = parse_card(data.get("card"), MIL_DECK)
    if rank(c) < NINE:
        raise InvalidNotationError(f"{card_name(c)} is not a Mil card (Mil uses A T K Q J 9)")
    return c


def action_from_json(data: Any) -> MilAction:
    """The action of a record or wire dict (``seat`` is ignored); clear error when malformed."""
    if not isinstance(data, dict):
        raise InvalidNotationError(f"an action must be a JSON object, not {shown(data)}")
    kind = data.get("type")
    if kind == "pass":
        return Pass()
    if kind == "keep":
        return KeepDeal()
    if kind == "rospis":
        return Rospis()
    if kind == "redeal":
        reason = data.get("reason")
        if reason not in REDEAL_REASONS:
            raise InvalidNotationError(
                f"redeal reason {shown(reason)} is not one of {', '.join(REDEAL_REASONS)}"
            )
        return Redeal(reason)
    if kind == "bid":
        return Bid(_int_field(data, "value"))
    if kind == "contract":
        return Contract(_int_field(data, "value"))
    if kind == "give":
        to = _int_field(data, "to", 2)
        if to not in (0, 1, 2):
            raise InvalidNotationError(f"give 'to' must be a seat 0, 1 or 2, got {shown(to)}")
        return Give(_card_field(data), to)
    if kind == "play":
        marriage = data.get("marriage", False)
        if not isinstance(marriage, bool):
            raise InvalidNotationError(
                f"play 'marriage' must be true or false, got {shown(marriage)}"
            )
        return Play(_card_field(data), marriage)
    expected = "pass, keep, rospis, redeal, bid, contract, give or play"
    if "type" not in data:
        raise InvalidNotationError(f"the action has no 'type' (expected {expected})")
    raise InvalidNotationError(f"unknown Mil action type {shown(kind)} (expected {expected})")
