"""The bot interface: a bot sees one seat's view and returns an action.

Bots never see the full state: ``act(view, rng)`` gets the JSON view dict that the engine
builds for the bot's seat (``game.view(seat)``), the same one a person's browser gets.
"""

from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable

from tapete.cards import parse_card
from tapete.game import JSON
from tapete.games import kind

__all__ = ["Bot", "cards_mask", "parse_action"]


@runtime_checkable
class Bot(Protocol):
    name: str

    def act(self, view: JSON, rng: random.Random) -> Any:
        """Choose one of ``view["legal"]`` and return it as an engine action object."""
        ...


# A bot that keeps a memory between decisions (the Mariage players remember the tricks of the
# hand, which the view does not repeat) may also have ``remember(view) -> None``: take in a
# view it decided on earlier without deciding again. The server calls it to rebuild that
# memory after a restart; a bot without it is asked to ``act`` again instead.


def parse_action(game: str, data: JSON) -> Any:
    """The engine action for a record/wire dict of ``game`` (the game's registry entry)."""
    return kind(game).parse_action(data)


def cards_mask(names: Any) -> int:
    """Bitmask of a list of card strings from a view (``None`` entries are skipped)."""
    m = 0
    for n in names or ():
        if n is not None:
            m |= 1 << parse_card(n)
    return m
