"""Faults and timeouts fall back to a legal action without stalling; suggest() explains."""

from __future__ import annotations

import logging
import random
import time
from typing import Any

import pytest
from bots_helpers import random_positions

from tapete.bots import make_bot, suggest
from tapete.bots.reasons import REASONS, Reason
from tapete.bots.registry import SafeBot
from tapete.games import new_game


class Crashing:
    name = "crashing"

    def act(self, view: dict[str, Any], rng: random.Random) -> Any:
        raise RuntimeError("boom")


class Sleeping:
    name = "sleeping"

    def act(self, view: dict[str, Any], rng: random.Random) -> Any:
        time.sleep(30)
        raise AssertionError("not reached")


class Cheating:
    name = "cheating"

    def act(self, view: dict[str, Any], rng: random.Random) -> Any:
        from tapete.mil.actions import Bid

        return Bid(400)


@pytest.mark.parametrize("game", ["mil", "mariage"])
def test_exception_falls_back_to_a_legal_action(game: str, caplog: Any) -> None:
    bot = SafeBot(game, Crashing(), hard_limit=1.0)
    g: Any = new_game(game, seed=2)
    with caplog.at_level(logging.WARNING, logger="tapete.bots"):
        for _ in range(30):
            if g.over:
                break
            view = g.view(g.turn)
            action = bot.act(view, random.Random(0))
            assert action.to_json() in view["legal"]
            g.apply(action)
    assert bot.faults >= 1
    assert any("boom" in r.getMessage() for r in caplog.records)


def test_timeout_falls_back_quickly(caplog: Any) -> None:
    bot = SafeBot("mil", Sleeping(), hard_limit=0.2)
    g: Any = new_game("mil", "club", seed=3)
    view = g.view(g.turn)
    t0 = time.perf_counter()
    with caplog.at_level(logging.WARNING, logger="tapete.bots"):
        action = bot.act(view, random.Random(0))
    assert time.perf_counter() - t0 < 2.0
    assert action.to_json() in view["legal"]
    assert bot.faults == 1
    assert any("no decision within" in r.getMessage() for r in caplog.records)


def test_illegal_answer_falls_back() -> None:
    bot = SafeBot("mil", Cheating(), hard_limit=1.0)
    g: Any = new_game("mil", "club", seed=4)
    view = g.view(g.turn)
    assert bot.act(view, random.Random(0)).to_json() in view["legal"]
    assert bot.faults == 1


def test_search_bot_respects_its_budget() -> None:
    bot = make_bot("mil", "search", profile="club", budget=0.05, samples=1000, bid_samples=1000)
    worst = 0.0
    for i, g in enumerate(random_positions("mil", "club", 20, seed=71)):
        view = g.view(g.turn)
        # the work a decision does (CPU time of this thread): a wall clock on a shared machine
        # also counts the time other processes held the cores
        t0 = time.thread_time()
        bot.act(view, random.Random(i))
        worst = max(worst, time.thread_time() - t0)
    assert worst < 0.6
    assert bot.faults == 0


@pytest.mark.parametrize("game,profile", [("mil", "club"), ("mil", "casa"), ("mariage", None)])
def test_suggest_gives_a_legal_action_and_a_reason(game: str, profile: str | None) -> None:
    for g in random_positions(game, profile or "mariage", 8, seed=81):
        view = g.view(g.turn)
        action, reason = suggest(game, view)
        assert action.to_json() in view["legal"]
        assert isinstance(reason, Reason) and reason.key in REASONS
        assert str(reason).endswith(".") and len(str(reason)) > 8
