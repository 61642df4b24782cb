"""The Mariage computer players: ``beginner`` (the rules player with slips,
:class:`tapete.bots.beginner.BeginnerBot`), ``rules`` (:mod:`.rules`) and ``search``
(:mod:`.search`),
with the memory of the hand's public cards (:mod:`.tracker`).

Found through the game's registry entry (``tapete.games.kind("mariage").bots``); generic
code calls :func:`tapete.bots.make_bot`, which wraps these players in
:class:`tapete.bots.SafeBot`.
"""

from __future__ import annotations

import random
from typing import Any

from tapete.bots.beginner import BeginnerBot
from tapete.bots.mariage.rules import MariageRulesBot
from tapete.bots.mariage.search import MariageSearchBot
from tapete.game import JSON
from tapete.mariage.actions import Action

__all__ = ["LEVELS", "OPTIONS", "MariageRulesBot", "MariageSearchBot", "fallback", "make_bot"]

#: the levels this package makes (``random`` is shared: :class:`tapete.bots.RandomBot`)
LEVELS = ("beginner", "rules", "search")
#: the options each level takes (:func:`tapete.bots.make_bot` refuses any other)
OPTIONS: dict[str, tuple[str, ...]] = {
    "beginner": ("slip", "strict_budget"),
    "rules": ("strict_budget",),
    "search": ("budget", "samples", "margin", "min_samples", "strict_samples"),
}


def make_bot(
    level: str, profile: str | None = None, **options: Any
) -> BeginnerBot | MariageRulesBot | MariageSearchBot:
    """The Mariage player of ``level`` (``beginner``, ``rules`` or ``search``), not wrapped.
    Mariage has one rule set: ``profile`` is accepted and ignored.

    ``beginner`` options: ``slip`` and the rules player's; ``rules`` options:
    ``strict_budget``; ``search``: ``budget``, ``samples``, ``margin``, ``min_samples``,
    ``strict_samples`` (:data:`OPTIONS`). Unknown options are ignored here,
    :func:`tapete.bots.make_bot` refuses them."""
    if level == "beginner":
        slip = options.pop("slip", None)
        inner = MariageRulesBot(**options)
        return BeginnerBot(inner) if slip is None else BeginnerBot(inner, slip=float(slip))
    if level == "rules":
        return MariageRulesBot(**options)
    if level == "search":
        return MariageSearchBot(**options)
    raise ValueError(f"unknown Mariage bot {level!r} (expected one of: {', '.join(LEVELS)})")


def fallback(view: JSON, rng: random.Random) -> Action:
    """The action :class:`tapete.bots.SafeBot` plays when a player fails: a fresh rules
    player's (without the failed player's memory of the hand)."""
    return MariageRulesBot().act(view, rng)
