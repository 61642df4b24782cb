"""A Mil redeal's event shows the cards that justify it (issue 5), and nothing else hidden."""

from __future__ import annotations

import random

import pytest
from server_helpers import Session, check_no_leak, new_table
from starlette.applications import Starlette
from starlette.testclient import TestClient

from tapete.cards import card_name
from tapete.games import new_game

# (what a redeal shows is the engine's: SQLite only)
pytestmark = pytest.mark.sqlite_only

# seeds whose first turn is seat 0's (club profile), with that redeal legal
SEED_LOW_POINTS = 18
SEED_FOUR_NINES = 179


def _redeal_event(session: Session) -> dict:
    while True:
        m = session.receive()
        if m["type"] != "view":
            continue
        for e in m["events"]:
            if e["type"] == "action" and e["action"]["type"] == "redeal":
                return e


def _play_redeal(client: TestClient, seed: int, reason: str) -> tuple[int, Session, Session, list]:
    table_id, token = new_table(client, game="mil", profile="club", seed=seed, max_deals=1)
    with client.websocket_connect(f"/ws/{table_id}") as spec_ws:
        spectator = Session(spec_ws)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            me = Session(ws, random.Random(1))
            v = me.wait_turn()
            hand = list(v["hand"])
            action = {"type": "redeal", "reason": reason}
            assert action in v["legal"]
            me.act(action)
            event = _redeal_event(me)
            assert event["seat"] == 0
            spec_event = _redeal_event(spectator)
            assert spec_event["shown"] == event["shown"]
            me.play()
        while spectator.version < me.version:
            spectator.receive()
    return table_id, me, spectator, [event, hand]


def test_low_points_redeal_shows_the_askers_dealt_hand(app: Starlette, client: TestClient) -> None:
    table_id, me, spectator, (event, hand) = _play_redeal(client, SEED_LOW_POINTS, "low_points")
    assert sorted(event["shown"]) == sorted(hand) and len(hand) == 7
    assert check_no_leak(app, table_id, me.log, 0) > 0
    assert check_no_leak(app, table_id, spectator.log, None) > 0


def test_four_nines_redeal_shows_the_nines(app: Starlette, client: TestClient) -> None:
    table_id, me, spectator, (event, _hand) = _play_redeal(client, SEED_FOUR_NINES, "four_nines")
    # in hand order (hearts, spades, diamonds, clubs), as the view's redeal_cards
    assert event["shown"] == ["9H", "9S", "9D", "9C"]
    assert check_no_leak(app, table_id, me.log, 0) > 0
    assert check_no_leak(app, table_id, spectator.log, None) > 0


def test_other_actions_show_nothing_and_low_talon_shows_the_talon() -> None:
    # the engine's action events carry "shown" for a redeal only; low_talon shows the talon
    rng = random.Random(3)
    for seed in range(400):
        game = new_game("mil", "club", seed=seed, players=["a", "b", "c"])
        while not game.over and len(game.finished_deals) == 0:
            legal = game.legal_actions()
            low_talon = [a for a in legal if a.to_json().get("reason") == "low_talon"]
            action = low_talon[0] if low_talon else rng.choice(legal)
            talon = sorted(card_name(c) for c in game.state.dealt_talon)
            (event,) = [e for e in game.apply(action) if e.type == "action"]
            seen = event.for_viewer(None)
            assert ("shown" in seen) == (action.to_json()["type"] == "redeal")
            if low_talon:
                assert sorted(seen["shown"]) == talon
                return
    raise AssertionError("no low_talon redeal in 400 seeds")


def test_the_oracle_rejects_a_redeal_showing_more(app: Starlette, client: TestClient) -> None:
    table_id, me, _spectator, _ = _play_redeal(client, SEED_FOUR_NINES, "four_nines")
    for item in me.log:
        events = item.message.get("events", []) if item.message["type"] == "view" else []
        redeals = [e for e in events if e["type"] == "action" and e["action"]["type"] == "redeal"]
        if redeals:
            redeals[0]["shown"] = [*redeals[0]["shown"], "AS"]
            break
    try:
        check_no_leak(app, table_id, me.log, 0)
    except AssertionError as exc:
        assert "redeal showed" in str(exc)
    else:
        raise AssertionError("the oracle let an extra shown card through")
