"""``remember(view)``: a bot with a memory takes in past views without deciding again."""

from __future__ import annotations

import random

import pytest
from bots_helpers import fitting

from tapete.bots.registry import make_safe_bot
from tapete.games import new_game

#: few samples for the search player (the rules player takes none)
FEW = {"samples": 2, "strict_samples": 2}


@pytest.mark.parametrize("name", ["rules", "search"])
def test_mariage_bots_remember_what_acting_would_have_taught_them(name: str) -> None:
    # one hand played by two rules players; a watcher of seat 0 either acts on each of the
    # seat's views (and drops the decision) or only remembers them: the memory is the same
    game = new_game("mariage", seed=11)
    players = [make_safe_bot("mariage", "rules") for _ in range(2)]
    actor = make_safe_bot("mariage", name, **fitting("mariage", name, FEW))
    watcher = make_safe_bot("mariage", name)
    rng = random.Random(3)
    seen = 0
    while game.deal_number == 1:  # the first hand only
        seat = game.turn
        assert seat is not None
        view = game.view(seat)
        if seat == 0:
            actor.act(view, random.Random(seen))
            assert watcher.remember is not None
            watcher.remember(view)
            seen += 1
        game.apply(players[seat].act(view, rng))
    assert seen >= 3
    assert vars(watcher.inner.tracker) == vars(actor.inner.tracker)  # type: ignore[attr-defined]


def test_bots_without_a_memory_have_no_remember() -> None:
    for name in ("rules", "search"):
        assert make_safe_bot("mil", name, profile="club").remember is None


def test_the_hard_limit_follows_the_bots_own_budget() -> None:
    search = make_safe_bot("mariage", "search")
    assert search.hard_limit == pytest.approx(4 * search.inner.budget + 1)  # type: ignore[attr-defined]
    assert make_safe_bot("mariage", "search", budget=2).hard_limit == pytest.approx(9)
    assert make_safe_bot("mariage", "rules").hard_limit == pytest.approx(3)
    assert make_safe_bot("mil", "rules", profile="club", hard_limit=None).hard_limit is None
