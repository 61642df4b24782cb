"""The ``beginner`` player: the rules player with a beginner's slips.

It bids, gives, claims and closes as the rules player does (so it never sinks into the
barrel the way the random player does), but a part of its card plays (``slip``, 35 % by
default) is a legal card picked at random instead of the rules player's choice: a real,
sensible opponent that a new player can beat. One class for every game: it wraps the game's
rules player (``make_bot("beginner")`` in each bot package)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from tapete.bots.base import Bot, parse_action
from tapete.game import JSON

__all__ = ["SLIP", "BeginnerBot"]

#: the share of card plays a beginner makes at random
SLIP = 0.35


class BeginnerBot:
    """``inner`` (a rules player) decides; a card play is replaced by a random legal card
    with probability ``slip``. The inner player always decides first, so a player with a
    memory of the hand (Mariage) keeps it whole."""

    name = "beginner"

    def __init__(self, inner: Bot, *, slip: float = SLIP) -> None:
        if not 0.0 <= slip <= 1.0:
            raise ValueError(f"slip must be between 0 and 1, not {slip!r}")
        self.inner = inner
        self.slip = slip

    def act(self, view: JSON, rng: random.Random) -> Any:
        action = self.inner.act(view, rng)
        if action.to_json().get("type") != "play":
            return action
        plays = [a for a in view["legal"] if a.get("type") == "play"]
        if self.slip > 0 and len(plays) > 1 and rng.random() < self.slip:
            return parse_action(view["game"], plays[rng.randrange(len(plays))])
        return action

    @property
    def remember(self) -> Callable[[JSON], None] | None:
        """The inner player's ``remember(view)`` (None when it keeps no memory)."""
        fn: Callable[[JSON], None] | None = getattr(self.inner, "remember", None)
        return fn
