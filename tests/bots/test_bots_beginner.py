"""The ``beginner`` level: the rules player's bids and claims, some random card plays."""

from __future__ import annotations

import random

import pytest

from tapete.bots import BOT_NAMES, make_bot
from tapete.bots.beginner import BeginnerBot
from tapete.bots.registry import game_bots
from tapete.games import new_game


def _play(game_name: str, profile: str | None, players: list, seed: int, steps: int) -> list:
    game = new_game(game_name, profile, seed=seed) if profile else new_game(game_name, seed=seed)
    rng = random.Random(seed)
    chosen = []
    for _ in range(steps):
        if game.over:
            break
        seat = game.turn
        view = game.view(seat)
        action = players[seat].act(view, rng)
        assert action.to_json() in view["legal"]
        chosen.append(action.to_json())
        game.apply(action)
    return chosen


@pytest.mark.parametrize(("game", "profile", "seats"), [("mil", "club", 3), ("mariage", None, 2)])
def test_beginner_is_a_registered_level_that_plays_legally(game, profile, seats) -> None:
    assert "beginner" in BOT_NAMES and "beginner" in game_bots(game).LEVELS
    bots = [make_bot(game, "beginner", profile=profile) for _ in range(seats)]
    assert {b.name for b in bots} == {"beginner"}
    assert len(_play(game, profile, bots, seed=4, steps=120)) > 30


@pytest.mark.parametrize(("game", "profile", "seats"), [("mil", "club", 3), ("mariage", None, 2)])
def test_beginner_without_slips_is_the_rules_player(game, profile, seats) -> None:
    package = game_bots(game)
    rules = [package.make_bot("rules", profile) for _ in range(seats)]
    calm = [package.make_bot("beginner", profile, slip=0.0) for _ in range(seats)]
    assert _play(game, profile, rules, 7, 150) == _play(game, profile, calm, 7, 150)


def test_a_beginner_slips_only_on_card_plays() -> None:
    package = game_bots("mil")
    rules = package.make_bot("rules", "club")
    sloppy = package.make_bot("beginner", "club", slip=1.0)
    assert isinstance(sloppy, BeginnerBot)
    game = new_game("mil", "club", seed=3)
    differ = 0
    for step in range(200):
        if game.over:
            break
        view = game.view(game.turn)
        mine = sloppy.act(view, random.Random(step)).to_json()
        theirs = rules.act(view, random.Random(step)).to_json()
        if mine["type"] != "play":
            assert mine == theirs  # bids, talon, gifts, contracts: the rules player's
        differ += mine != theirs
        game.apply(rules.act(view, random.Random(step)))
    assert differ > 5
    with pytest.raises(ValueError, match="slip"):
        BeginnerBot(rules, slip=2.0)
