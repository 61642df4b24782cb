"""Restart and resume: a new app on the same database rebuilds every table from its seed and
stored actions; the view is identical and play goes on."""

from __future__ import annotations

import random

from server_helpers import MakeApp, Session, action_count, new_table
from starlette.testclient import TestClient

from tapete.replay import replay


def test_restart_resumes_exactly(make_app: MakeApp) -> None:
    app1 = make_app()
    with TestClient(app1) as client:
        table_id, token = new_table(client, game="mil", seed=7, max_deals=3)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            me = Session(ws, random.Random(1))
            before = me.play(max_actions=12)
            version = me.version
        info = client.get(f"/api/tables/{table_id}", params={"token": token}).json()
        assert info["status"] == "playing" and "seed" not in info
    assert action_count(app1, table_id) == version

    app2 = make_app()
    with TestClient(app2) as client:
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            me2 = Session(ws, random.Random(2))
            first = me2.receive()
            assert first == {
                "type": "view",
                "version": version,
                "view": before,
                "sheet_from": 0,
                "events": [],
            }
            last = me2.play()
        assert last["over"]
        record = client.get(f"/api/tables/{table_id}/record").json()
        assert len(record["deals"]) == 3
        replay(record)


def test_restart_lets_the_computer_players_go_on(make_app: MakeApp) -> None:
    # seed 1: seat 1 bids first; with a long delay the bots have not moved at shutdown
    app1 = make_app(delay_ms=60_000)
    with TestClient(app1) as client:
        table_id, token = new_table(client, game="mil", seed=1, max_deals=2)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            first = ws.receive_json()
            assert first["version"] == 0 and first["view"]["turn"] != 0
    assert action_count(app1, table_id) == 0
    app2 = make_app()
    with (
        TestClient(app2) as client,
        client.websocket_connect(f"/ws/{table_id}?token={token}") as ws,
    ):
        me = Session(ws)
        view = me.wait_turn()
        assert me.version > 0 and view["turn"] == 0


def test_unfinished_record_hides_the_current_deal_and_seed(make_app: MakeApp) -> None:
    with TestClient(make_app()) as client:
        table_id, token = new_table(client, game="mariage", seed=4)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            Session(ws).play(max_actions=3)
        assert client.get(f"/api/tables/{table_id}/record").status_code == 403
        bad = client.get(f"/api/tables/{table_id}/record", params={"token": "x" * 32})
        assert bad.status_code == 403
        record = client.get(f"/api/tables/{table_id}/record", params={"token": token}).json()
        assert record["seed"] is None
        assert all(d.get("result") is not None for d in record["deals"])
        replay(record)
