"""Tables begun from a position (a record's ``start``): only through the table manager (tests,
administrators), replayed exactly after a restart, never ranked nor counted in statistics."""

from __future__ import annotations

import random

import pytest
from server_helpers import MakeApp, Session, check_no_leak
from starlette.testclient import TestClient

from tapete.replay import replay

NEAR_END = {
    "scores": [500, 880, 880],
    "in_barrel": [False, True, True],
    "bolts": [2, 0, 0],
    "dealer": 2,
}


def test_a_mil_game_from_a_position_ends_and_its_record_replays(make_app: MakeApp) -> None:
    app = make_app()
    with TestClient(app) as client:
        table = app.state.manager.create(
            game="mil",
            profile="club",
            name="Ana",
            language="en",
            levels=["rules", "rules"],
            seed=5,
            start=NEAR_END,
        )
        with client.websocket_connect(f"/ws/{table.id}?token={table.token}") as ws:
            me = Session(ws, random.Random(3))
            first = me.wait_turn()
            assert first["scores"][:1] == [500] and first["in_barrel"] == [False, True, True]
            assert first["bolts"] == [2, 0, 0] and first["barrel_attempts_max"] == 3
            last = me.play()
        assert last["over"] and last["winner"] is not None
        assert check_no_leak(app, table.id, me.log, 0) > 10
        record = client.get(f"/api/tables/{table.id}/record").json()
        assert record["start"] == NEAR_END and record["winner"] == last["winner"]
        assert replay(record).view(None)["scores"] == last["scores"]
        # no statistics, no Ranking for a game that did not start at 0
        assert client.get("/api/stats", params={"name": "Ana"}).json() == []
        assert client.get("/api/ranking").json() == []


def test_a_table_from_a_position_resumes_after_a_restart(make_app: MakeApp) -> None:
    app = make_app()
    start = {"game_points": [6, 5], "dealer": 1}
    with TestClient(app) as client:
        table = app.state.manager.create(
            game="mariage",
            profile="mariage",
            name="Ana",
            language="es",
            levels=["rules"],
            seed=8,
            start=start,
        )
        with client.websocket_connect(f"/ws/{table.id}?token={table.token}") as ws:
            me = Session(ws, random.Random(1))
            before = me.play(max_actions=2)
            version = me.version
    with (
        TestClient(make_app()) as client,
        client.websocket_connect(f"/ws/{table.id}?token={table.token}") as ws,
    ):
        m = ws.receive_json()
        assert m["version"] == version and m["view"] == before
        assert m["view"]["match"] == [6, 5]


@pytest.mark.parametrize(
    "start",
    [
        {"dealer": 5},
        {"scores": [1, 2]},
        "990",
        {"game_points": [7, -1]},
        {"scores": [900, 0, 0]},  # (club: 900 is in the barrel, which this start denies)
    ],
)
def test_a_bad_position_is_refused(make_app: MakeApp, start: object) -> None:
    app = make_app()
    game = "mariage" if "game_points" in str(start) else "mil"
    with TestClient(app), pytest.raises(ValueError):
        app.state.manager.create(
            game=game,
            profile="club" if game == "mil" else "mariage",
            name="Ana",
            language="en",
            levels=["rules"] * (2 if game == "mil" else 1),
            start=start,
        )
