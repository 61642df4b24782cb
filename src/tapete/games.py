"""The game registry: the only place outside the game packages that knows which games exist.

>>> [k.name for k in kinds()]
['mil', 'mariage']
>>> kind("mil").seats, kind("mil").target("casa-500")
(3, 500)
>>> new_game("mariage", seed=4000).turn
0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tapete.errors import RecordError
from tapete.game import JSON, Game, GameKind
from tapete.mariage.kind import KIND as MARIAGE
from tapete.mil.kind import KIND as MIL

__all__ = ["GAMES", "PROFILES", "game_from_record", "kind", "kinds", "new_game"]

_KINDS: dict[str, GameKind] = {k.name: k for k in (MIL, MARIAGE)}

#: game name -> its rule profiles (the first one is the default)
PROFILES: dict[str, tuple[str, ...]] = {k.name: k.profiles for k in _KINDS.values()}
GAMES = tuple(_KINDS)


def kinds() -> tuple[GameKind, ...]:
    """Every registered game, in a stable order."""
    return tuple(_KINDS.values())


def kind(name: object) -> GameKind:
    """The registered game called ``name``; ``ValueError`` naming the known ones otherwise."""
    found = _KINDS.get(name) if isinstance(name, str) else None
    if found is None:
        raise ValueError(f"unknown game {name!r} (expected one of: {', '.join(GAMES)})")
    return found


def new_game(
    game: str,
    profile: str | None = None,
    *,
    seed: int | None = None,
    players: list[str] | None = None,
    max_deals: int | None = None,
    start: JSON | None = None,
    deal_seeds: Callable[[int], bytes | None] | None = None,
) -> Game:
    """A new game of ``game`` dealt from ``seed`` (or begun from a record's ``start``);
    ``deal_seeds`` (deal index -> seed): fair deals (:mod:`tapete.fair`).

    ``ValueError`` for a negative ``seed``: ``random.Random(-n)`` deals as ``n`` does, so
    seed -5 dealt seed 5's cards. (The game classes themselves take one: a record written
    with a negative seed still replays.)"""
    if type(seed) is int and seed < 0:
        raise ValueError(f"seed must be 0 or more (a seed of -S deals the cards of S), got {seed}")
    return kind(game).new(
        profile, seed=seed, players=players, max_deals=max_deals, start=start, deal_seeds=deal_seeds
    )


def game_from_record(record: JSON, *, check_results: bool = True) -> Game:
    """Replay a tapete/1 record through the engine; raise :class:`RecordError` on a problem."""
    name: Any = record.get("game") if isinstance(record, dict) else None
    try:
        k = kind(name)
    except ValueError as exc:
        raise RecordError(str(exc)) from None
    return k.replay(record, check_results=check_results)
