"""Computer players. ``make_bot(game, name)`` builds one by name; see docs/bots.md."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from tapete.bots.base import Bot, parse_action
from tapete.bots.random_bot import RandomBot
from tapete.bots.reasons import Reason
from tapete.bots.registry import (
    FaultCount,
    bot_options,
    check_bot,
    make_strong_bot,
    make_user_bot,
)
from tapete.bots.registry import suggest as strong_suggest

__all__ = [
    "BOT_NAMES",
    "Bot",
    "FaultCount",
    "RandomBot",
    "Reason",
    "bot_options",
    "make_bot",
    "make_bots",
    "parse_action",
    "suggest",
]

BOT_NAMES: tuple[str, ...] = ("random", "beginner", "rules", "search")


def make_bot(
    game: str,
    name: str,
    *,
    profile: str | None = None,
    fault_count: FaultCount | None = None,
    **options: Any,
) -> Bot:
    """A bot for ``game`` (a registered game name) by level name: random, beginner, rules,
    search (the last three from the game's bot package, ``kind(game).bots``, wrapped in
    ``SafeBot``). ``ValueError`` for a profile the game does not have or an option the bot
    does not take (:func:`bot_options` lists them; ``random`` takes none). A ``module:name``
    is a bot of your own (:func:`tapete.bots.registry.make_user_bot`), made with no option.
    ``fault_count`` (a :class:`FaultCount`) is shared by the bots one player is made over a
    run (a new one each game), so that its faults are logged once per run, not once per
    game (``random``, never wrapped, ignores it)."""
    if ":" in name:
        if options:
            raise ValueError(f"player {name!r} is your own bot: it takes no options here")
        return make_user_bot(game, name, fault_count=fault_count)
    if name == "random":
        check_bot(game, name, profile, options)
        return RandomBot()
    if name in ("beginner", "rules", "search"):
        return make_strong_bot(game, name, profile=profile, fault_count=fault_count, **options)
    raise ValueError(
        f"unknown bot {name!r} (expected one of: {', '.join(BOT_NAMES)}, or module:name for "
        "a bot of your own)"
    )


def suggest(
    game: str, view: dict[str, Any], *, key: Hashable | None = None, **options: Any
) -> tuple[Any, Reason]:
    """The best available bot's action for this view, with its :class:`Reason` (``str()``:
    a one-line English sentence for a person).

    ``key`` (e.g. the table id) keeps one suggesting bot per table: see
    :func:`tapete.bots.registry.suggest`."""
    result: tuple[Any, Reason] = strong_suggest(game, view, key=key, **options)
    return result


def make_bots(
    game: str,
    names: Sequence[str],
    *,
    profile: str | None = None,
    fault_counts: dict[str, FaultCount] | None = None,
) -> list[Bot]:
    """:func:`make_bot` for each of ``names`` (one a seat). ``fault_counts``: each name's
    :class:`FaultCount` over a run of several games, filled in here (the arena and
    ``simulate`` make new bots each game: a failing player is logged in full once per run);
    None: each bot counts alone."""
    counts = {} if fault_counts is None else fault_counts
    return [
        make_bot(game, n, profile=profile, fault_count=counts.setdefault(n, FaultCount()))
        for n in names
    ]
