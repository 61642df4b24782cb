"""Helpers shared by the bot tests."""

from __future__ import annotations

import random
from typing import Any

from tapete.bots import bot_options, make_bot
from tapete.games import new_game

FAST = {"budget": 0.05, "samples": 4, "bid_samples": 4}
#: few samples and a budget that never runs out: the work done does not depend on the clock
STEADY = {"budget": 30.0, "samples": 4, "bid_samples": 4}


def fitting(game: str, name: str, options: dict[str, Any]) -> dict[str, Any]:
    """The ``options`` that the bot ``name`` of ``game`` takes (``make_bot`` refuses any
    other): one set of test options serves every game and level."""
    return {k: v for k, v in options.items() if k in bot_options(game, name)}


def strong(game: str, name: str, profile: str | None = None, *, steady: bool = False) -> Any:
    """The bot without its safety wrapper, so that a fault fails the test."""
    opts = fitting(game, name, STEADY if steady else FAST) if name == "search" else {}
    return make_bot(game, name, profile=profile, **opts).inner


def random_positions(game: str, profile: str, n: int, seed: int) -> list[Any]:
    """Games driven by random players, stopped at ``n`` random decision points."""
    rng = random.Random(seed)
    out = []
    g_seed = seed
    while len(out) < n:
        g: Any = new_game(game, profile, seed=g_seed, max_deals=3)
        g_seed += 1
        stop = rng.randrange(1, 120)
        steps = 0
        while not g.over and steps < stop:
            g.apply(rng.choice(g.legal_actions()))
            steps += 1
        if not g.over:
            out.append(g)
    return out
