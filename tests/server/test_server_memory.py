"""Computer players keep their memory of the current hand across a restart: the server
replays the hand's views to them, so a resumed game is played exactly as an uninterrupted
one (same seeds, same decisions)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from server_helpers import Session, new_table, set_secret, stored_actions
from starlette.applications import Starlette
from starlette.testclient import TestClient

from tapete.bots import make_bot
from tapete.mariage.game import MariageGame
from tapete.server.app import create_app
from tapete.server.tables import rebuild_memory

SEED = 37  # a deal where a bot that forgot the tricks it saw plays differently


def _app(db_url: str) -> Starlette:
    app = create_app(db_url, delay_ms=0, rate_limit=10_000)
    set_secret(app)  # both databases: the same computer choices
    return app


def _choice(view: dict[str, Any], version: int) -> dict[str, Any]:
    """The person's move: a fixed function of the view's version, so both runs agree."""
    legal: list[dict[str, Any]] = view["legal"]
    return random.Random(f"person:{version}").choice(legal)


def _drive(me: Session, stop: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    while True:
        v = me.wait_turn()
        if v["over"] or stop(v):
            return v
        me.act(_choice(v, me.version))


def _mid_hand(v: dict[str, Any]) -> bool:
    """The second hand with three tricks played (so the bot has seen some go by)."""
    return v["deal_number"] == 2 and sum(v["tricks_won"]) >= 3 and not v["trick"]


def _play(db_url: str, *, interrupt: bool) -> list[dict[str, Any]]:
    app = _app(db_url)
    with TestClient(app) as client:
        table_id, token = new_table(
            client, game="mariage", seed=SEED, levels=["rules"], max_deals=3
        )
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            last = _drive(Session(ws), _mid_hand if interrupt else lambda v: False)
    if interrupt:
        assert not last["over"] and _mid_hand(last)
        app = _app(db_url)  # a restart: the table is rebuilt from the database
        with (
            TestClient(app) as client,
            client.websocket_connect(f"/ws/{table_id}?token={token}") as ws,
        ):
            last = _drive(Session(ws), lambda v: False)
    assert last["over"]
    return stored_actions(app, table_id)


def test_a_resumed_mariage_game_is_played_like_an_uninterrupted_one(
    new_db_url: Callable[[], str],
) -> None:
    straight = _play(new_db_url(), interrupt=False)
    resumed = _play(new_db_url(), interrupt=True)
    assert resumed == straight


@pytest.mark.sqlite_only  # (the memory rebuilt is the engine's and the bots')
def test_the_rebuilt_memory_equals_the_memory_of_a_bot_that_never_stopped(db_url: str) -> None:
    app = _app(db_url)
    with TestClient(app) as client:
        table_id, token = new_table(
            client, game="mariage", seed=SEED, levels=["rules"], max_deals=3
        )
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            _drive(Session(ws), _mid_hand)
    actions = stored_actions(app, table_id)

    # a bot that saw every view of the hand it decided on, as the server showed them
    manager = _app(db_url).state.manager
    table = manager.get(table_id, keep=False)
    assert table is not None and table.memory is not None
    fresh_game, stored, hand_start = table.memory
    assert stored == actions and 0 < hand_start < len(actions)
    witness = make_bot("mariage", "rules")
    ref = MariageGame(seed=SEED, players=list(table.players), max_deals=3)
    for n, data in enumerate(actions):
        if ref.turn == 1 and n >= hand_start:
            witness.act(ref.view(1), random.Random(f"{SEED}:1:{n}"))
        ref.apply(ref.parse_action(data))

    # (the tracker is the Mariage players' memory: tapete.bots.mariage.tracker.MariageTracker)
    fresh = vars(table.bots[1].inner.tracker).copy()
    rebuild_memory(table, fresh_game, stored, hand_start)
    rebuilt = vars(table.bots[1].inner.tracker)
    assert rebuilt == vars(witness.inner.tracker)  # type: ignore[attr-defined]
    assert rebuilt["played"] and rebuilt != fresh  # the tricks seen before the restart
