"""Every bot returns one of the legal actions, in every game, profile and phase."""

from __future__ import annotations

import random
from typing import Any

import pytest
from bots_helpers import FAST, fitting, random_positions, strong

from tapete.bots import make_bot
from tapete.games import new_game

MIL_PROFILES = ["club", "casa", "casa-500"]


@pytest.mark.parametrize("profile", MIL_PROFILES)
@pytest.mark.parametrize("name", ["rules", "search"])
def test_mil_bots_return_legal_actions(profile: str, name: str) -> None:
    bot = strong("mil", name, profile)
    phases = set()
    for i, g in enumerate(random_positions("mil", profile, 40, seed=100 + len(profile))):
        view = g.view(g.turn)
        action = bot.act(view, random.Random(i))
        assert action.to_json() in view["legal"], (view["phase"], action)
        phases.add(view["phase"])
    assert "play" in phases and "bidding" in phases


@pytest.mark.parametrize("name", ["rules", "search"])
def test_mariage_bots_return_legal_actions(name: str) -> None:
    phases = set()
    for i, g in enumerate(random_positions("mariage", "mariage", 60, seed=7)):
        bot = strong("mariage", name)  # fresh memory: it has seen nothing of this hand
        view = g.view(g.turn)
        action = bot.act(view, random.Random(i))
        assert action.to_json() in view["legal"], (view["phase"], action)
        phases.add(view["phase"])
    assert phases == {"open", "strict"}


def _play(game: str, profile: str, names: list[str], seed: int, max_deals: int) -> Any:
    g: Any = new_game(game, profile, seed=seed, max_deals=max_deals)
    bots = [
        make_bot(game, n, profile=profile, **(fitting(game, n, FAST) if n == "search" else {}))
        for n in names
    ]
    rngs = [random.Random(s) for s in range(len(names))]
    steps = 0
    while not g.over:
        seat = g.turn
        view = g.view(seat)
        action = bots[seat].act(view, rngs[seat])
        assert action.to_json() in view["legal"]
        g.apply(action)
        steps += 1
        assert steps < 20000
    for b in bots:
        assert getattr(b, "faults", 0) == 0
    return g


def test_full_mil_game_between_bots_completes() -> None:
    g = _play("mil", "casa-500", ["rules", "rules", "rules"], seed=3, max_deals=None)
    assert g.winner is not None


def test_mil_deals_with_the_search_bot_complete() -> None:
    g = _play("mil", "club", ["search", "rules", "random"], seed=5, max_deals=3)
    assert len(g.deals) == 3


def test_full_mariage_match_between_bots_completes() -> None:
    g = _play("mariage", "mariage", ["rules", "search"], seed=11, max_deals=None)
    assert g.winner is not None
