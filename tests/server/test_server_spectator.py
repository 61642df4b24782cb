"""Spectators: a connection without a token watches a table. It gets every change, never a
hand card (nor any card hidden from the players), cannot act or ask for hints, and finds the
running tables at ``GET /api/tables/live``."""

from __future__ import annotations

import random

import pytest
from server_helpers import Session, check_no_leak, new_table
from starlette.applications import Starlette
from starlette.testclient import TestClient

# (what a spectator sees is the engine's: SQLite only)
pytestmark = pytest.mark.sqlite_only


@pytest.mark.parametrize(("game", "seed"), [("mariage", 12), ("mil", 13)])
def test_a_spectator_never_gets_a_hand_card(
    app: Starlette, client: TestClient, game: str, seed: int
) -> None:
    table_id, token = new_table(
        client, game=game, seed=seed, max_deals=2, levels=["rules"] * (2 if game == "mil" else 1)
    )
    live = client.get("/api/tables/live").json()
    assert live[0]["table"] == table_id and live[0]["game"] == game
    assert set(live[0]) == {"table", "game", "profile", "players", "created_at"}
    with client.websocket_connect(f"/ws/{table_id}") as spec_ws:
        spectator = Session(spec_ws)
        first = spectator.receive()
        assert first["view"]["seat"] is None and first["view"]["hand"] == []
        spec_ws.send_json({"type": "hint"})
        assert spectator.error()["code"] == "not_your_turn"
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            me = Session(ws, random.Random(seed))
            last = me.play()
        assert last["over"]
        while spectator.version < me.version:
            m = spectator.receive()
            if m["type"] == "view":
                v = m["view"]
                assert v["hand"] == [] and v["legal"] == [] and v["seat"] is None
                if game == "mil":
                    assert v["hand_points"] is None and v["redeal_cards"] == {}
        assert spectator.view is not None and spectator.view["over"]
    # every card in every message to the spectator was public when it was sent
    assert check_no_leak(app, table_id, spectator.log, None) > 20
    assert all(r["table"] != table_id for r in client.get("/api/tables/live").json())
