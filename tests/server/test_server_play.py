"""Whole games over the WebSocket: seat 0 plays random legal actions, computer players the
rest; no message to a seat ever holds a card that seat may not know; the downloaded record
replays; statistics and the Ranking follow finished games."""

from __future__ import annotations

import random

from server_helpers import Session, check_no_leak, new_table, stored_actions
from starlette.applications import Starlette
from starlette.testclient import TestClient

from tapete.replay import replay


def _play(client: TestClient, table_id: int, token: str, seed: int, **kw: object) -> Session:
    with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
        me = Session(ws, random.Random(seed))
        last = me.play(**kw)  # type: ignore[arg-type]
        assert last["over"]
    return me


def test_mil_game_no_leaks_and_record(app: Starlette, client: TestClient) -> None:
    table_id, token = new_table(
        client, game="mil", profile="club", seed=11, max_deals=4, levels=["random", "rules"]
    )
    spectator_log = []
    with client.websocket_connect(f"/ws/{table_id}") as spec_ws:
        spectator = Session(spec_ws)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            me = Session(ws, random.Random(5))
            last = me.play(hint_every=7)
        assert last["over"] and last["seat"] == 0
        # the spectator got every change too, and no hand
        while spectator.version < me.version:
            m = spectator.receive()
            if m["type"] == "view":
                assert m["view"]["hand"] == [] and m["view"]["legal"] == []
        spectator_log = spectator.log
    assert me.version == len(stored_actions(app, table_id)) > 30
    assert check_no_leak(app, table_id, me.log, 0) > 100
    assert check_no_leak(app, table_id, spectator_log, None) > 10
    views = [r.message for r in me.log if r.message["type"] == "view"]
    events = [e for m in views for e in m["events"]]
    assert any(e["type"] == "deal_end" for e in events)
    assert any(e["type"] == "action" and e["action"]["type"] == "give" for e in events)

    info = client.get(f"/api/tables/{table_id}", params={"token": token}).json()
    assert info["status"] == "finished" and info["seat"] == 0 and info["version"] == me.version
    r = client.get(f"/api/tables/{table_id}/record")
    assert r.status_code == 200
    assert "attachment" in r.headers["content-disposition"]
    record = r.json()
    assert record["format"] == "tapete/1" and record["game"] == "mil"
    assert len(record["deals"]) == 4 and record["players"][0] == "Ana"
    game = replay(record)
    assert game.view(None)["scores"] == last["scores"]


def test_mariage_match_no_leaks_stats_and_ranking(app: Starlette, client: TestClient) -> None:
    wins = games = 0
    total = 0.0
    for seed in range(1, 9):
        table_id, token = new_table(
            client, game="mariage", profile="mariage", seed=seed, counted=True
        )
        me = _play(client, table_id, token, seed)
        assert check_no_leak(app, table_id, me.log, 0) > 20
        record = client.get(f"/api/tables/{table_id}/record").json()
        game = replay(record)
        assert game.over and record["winner"] in (0, 1)
        games += 1
        wins += record["winner"] == 0
        total += record["match"][0]
        if 0 < wins < games:
            break
    assert 0 < wins < games, "expected both a won and a lost match in 8 seeds"
    stats = client.get("/api/stats", params={"name": "Ana"}).json()
    assert stats == [
        {
            "game": "mariage",
            "profile": "mariage",
            "games": games,
            "wins": wins,
            "average_points": stats[0]["average_points"],
            "contracts_made": 0,
            "contracts_failed": 0,
            "barrel_visits": 0,
            "analysed_deals": 0,
            "average_loss": None,
            "games_waiting_analysis": games,  # (this app analyses nothing in the background)
        }
    ]
    assert abs(stats[0]["average_points"] - total / games) < 0.01
    board = client.get("/api/ranking", params={"game": "mariage"}).json()
    assert len(board) == wins
    assert all(e["name"] == "Ana" and e["profile"] == "mariage" and e["score"] >= 7 for e in board)
    assert client.get("/api/ranking", params={"target": 1000}).json() == []


def test_mil_stats_after_a_game(app: Starlette, client: TestClient) -> None:
    table_id, token = new_table(
        client, game="mil", profile="casa-500", name="Bea", seed=21, max_deals=5, counted=True
    )
    _play(client, table_id, token, 3)
    record = client.get(f"/api/tables/{table_id}/record").json()
    made = failed = 0
    for deal in record["deals"]:
        res = deal["result"]
        if res["declarer"] == 0 and not res["annulled"]:
            if res["rospis"] or res["raw"][0] < res["contract"]:
                failed += 1
            else:
                made += 1
    [row] = client.get("/api/stats", params={"name": "Bea"}).json()
    assert row["game"] == "mil" and row["profile"] == "casa-500" and row["games"] == 1
    assert row["contracts_made"] == made and row["contracts_failed"] == failed
    assert row["average_points"] == record["scores"][0]
    # a game cut short by max_deals is not ranked
    assert client.get("/api/ranking", params={"target": 500}).json() == []
    listed = client.get("/api/tables", params={"name": "Bea"}).json()
    assert [t["table"] for t in listed] == [table_id]
    assert listed[0]["status"] == "finished" and listed[0]["scores"] == record["scores"]
