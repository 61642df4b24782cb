"""The Mil computer players: ``beginner`` (the rules player with slips,
:class:`tapete.bots.beginner.BeginnerBot`), ``rules`` (:mod:`.rules`) and ``search``
(:mod:`.search`), over
what a seat may know from its view (:mod:`.sampling`).

Found through the game's registry entry (``tapete.games.kind("mil").bots``); generic code
calls :func:`tapete.bots.make_bot`, which wraps these players in :class:`tapete.bots.SafeBot`.
"""

from __future__ import annotations

import random
from typing import Any

from tapete.bots.beginner import BeginnerBot
from tapete.bots.mil.rules import MilRulesBot, rules_decision
from tapete.bots.mil.search import MilSearchBot
from tapete.game import JSON
from tapete.mil.actions import MilAction

__all__ = ["LEVELS", "OPTIONS", "MilRulesBot", "MilSearchBot", "fallback", "make_bot"]

#: the levels this package makes (``random`` is shared: :class:`tapete.bots.RandomBot`)
LEVELS = ("beginner", "rules", "search")
#: the options each level takes (:func:`tapete.bots.make_bot` refuses any other)
OPTIONS: dict[str, tuple[str, ...]] = {
    "beginner": ("slip",),
    "rules": (),
    "search": ("budget", "samples", "bid_samples", "rospis"),
}


def make_bot(
    level: str, profile: str | None = None, **options: Any
) -> BeginnerBot | MilRulesBot | MilSearchBot:
    """The Mil player of ``level`` (``beginner``, ``rules`` or ``search``), not wrapped.

    ``beginner`` options: ``slip`` (the share of random card plays); ``search`` options:
    ``budget`` (seconds per decision), ``samples``, ``bid_samples``, ``rospis``
    (:data:`OPTIONS`); unknown options are ignored here, :func:`tapete.bots.make_bot`
    refuses them."""
    if level == "beginner":
        slip = options.pop("slip", None)
        inner = MilRulesBot(profile, **options)
        return BeginnerBot(inner) if slip is None else BeginnerBot(inner, slip=float(slip))
    if level == "rules":
        return MilRulesBot(profile, **options)
    if level == "search":
        return MilSearchBot(profile, **options)
    raise ValueError(f"unknown Mil bot {level!r} (expected one of: {', '.join(LEVELS)})")


def fallback(view: JSON, rng: random.Random) -> MilAction:
    """The action :class:`tapete.bots.SafeBot` plays when a player fails: the rules player's
    (it keeps no memory, so one made now decides as the table's own would)."""
    return rules_decision(view, rng)[0]
