"""What a caller hands the public game API, checked before anything changes: an action
object, a seed, a seat to view from.

The deal level (``State``) checks the rules, not the types a caller passed, so that search
stays fast; the game level (``MilGame``, ``MariageGame``) is what bots, the server and
scripts call, once per action or view, where a check costs nothing measurable. Each check
refuses a wrong value with one sentence saying what is wrong and what is expected
(docs/dev/contract.md). They live here, outside the engine modules compiled with mypyc
(``tapete._compiled``) and the sources those import, so that changing one needs no rebuild.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterable, Sequence
from typing import Any, Final

from tapete.cards import shown

__all__ = [
    "SEED_RULE",
    "ActionTypes",
    "check_max_deals",
    "check_players",
    "check_seat",
    "check_seats",
    "check_seed",
    "json_copy",
    "valid_seed",
]

#: what a game's (and a record's) ``seed`` may be, in the record reader's words
SEED_RULE: Final = "seed must be an integer or null"

#: how a message names the type a field must have
_TYPE_WORDS: Final = {int: "an int", bool: "a bool", str: "a str"}


class ActionTypes:
    """One game's action classes, each with its fields and their declared types.

    ``problem(action)`` is why ``action`` is no well-formed action of this game, or None. A
    field must hold exactly its declared type: an ``int`` field no bool, float or other
    number type (``Bid(100.0)`` equals ``Bid(100)`` but breaks the views later on, and a
    numpy integer is no ``int``), a ``bool`` field a bool, a ``str`` field a str. The
    compiled build refuses some of these when the action is built, the pure one none: this
    check makes both builds refuse them at ``Game.apply``.
    """

    def __init__(self, title: str, classes: Iterable[type]) -> None:
        self.title = title
        # (the annotations are strings in the pure build and may name an alias, ``Card``)
        self._fields: dict[type, tuple[tuple[str, type], ...]] = {
            cls: tuple(
                (f.name, typing.get_type_hints(cls)[f.name]) for f in dataclasses.fields(cls)
            )
            for cls in classes
        }
        self._names = ", ".join(sorted(cls.__name__ for cls in self._fields))

    def problem(self, action: object) -> str | None:
        """None when ``action`` is one of this game's actions with well-typed fields, else
        the sentence saying what is wrong."""
        fields = self._fields.get(action.__class__)
        if fields is None:
            if isinstance(action, dict):  # (the likeliest slip: a view's legal entry as is)
                return (
                    f"{shown(action)} is not a {self.title} action object: to apply an entry "
                    "of a view's 'legal' list, pass game.parse_action(entry)"
                )
            return (
                f"{shown(action)} is not a {self.title} action object "
                f"(expected one of {self._names}; game.parse_action builds one from JSON)"
            )
        for name, expected in fields:
            value = getattr(action, name)
            if value.__class__ is not expected:
                return (
                    f"{action.__class__.__name__}.{name} must be {_TYPE_WORDS[expected]}, "
                    f"got {shown(value)} of type {type(value).__name__}"
                )
        return None


def valid_seed(seed: object) -> bool:
    """Whether ``seed`` may seed a game and be written in its record: an int (not a bool) or
    None."""
    return seed is None or type(seed) is int


def check_seed(seed: object) -> None:
    """Refuse (``ValueError``) a new game's ``seed`` that its record could not hold, in the
    words the record reader would refuse that record with."""
    if not valid_seed(seed):
        raise ValueError(f"{SEED_RULE}, got {shown(seed)}")


def check_seat(seat: object, seats: int) -> None:
    """Refuse (``ValueError``) a seat to view from that is neither None (a spectator) nor an
    int in ``range(seats)``: ``-1`` would index from the end and show a hidden hand, and
    ``True`` would pass for seat 1."""
    if seat is not None and (type(seat) is not int or not 0 <= seat < seats):
        raise ValueError(
            f"seat must be {', '.join(map(str, range(seats)))} or None (a spectator), "
            f"got {shown(seat)}"
        )


def check_seats(seats: Sequence[object], count: int) -> None:
    """:func:`check_seat` for each of ``seats`` (a broadcast's: one range check a seat)."""
    for seat in seats:
        check_seat(seat, count)


def check_players(players: object, count: int, game: str) -> list[str] | None:
    """``players`` as a game keeps them: None (the game's default names) or a list of
    ``count`` strings, the names its record writes; ``ValueError`` otherwise (a string was
    taken letter by letter as names, numbers made a game whose record its reader refused)."""
    if players is None:
        return None
    if isinstance(players, (str, bytes)) or not isinstance(players, Sequence):
        raise ValueError(f"players must be a list of {count} names, got {shown(players)}")
    names = list(players)
    if len(names) != count:
        raise ValueError(f"{game} needs {count} players, got {len(names)}")
    for name in names:
        if not isinstance(name, str):
            raise ValueError(f"players must be names (str), got {shown(name)}")
    return names


def check_max_deals(max_deals: object, least: int = 1) -> int | None:
    """``max_deals`` as a game keeps it: None (no cap of its own) or a whole number of at
    least ``least`` (Mil's record reader makes a game of a record's deals, 0 when it has
    none); ``ValueError`` otherwise (2.5 and -1 were taken, "x" raised a bare TypeError)."""
    if max_deals is None:
        return None
    if type(max_deals) is not int or max_deals < least:
        raise ValueError(
            f"max_deals must be a whole number of at least {least}, got {shown(max_deals)}"
        )
    return max_deals


def json_copy(value: Any) -> Any:
    """A copy of a JSON value that shares no list or dict with it (what a game keeps of a
    caller's value, and what it hands out of its own)."""
    if isinstance(value, dict):
        return {k: json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) for v in value]
    return value
