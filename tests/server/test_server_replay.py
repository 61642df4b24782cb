"""The replay of a finished game (``GET /api/tables/{id}/replay`` and ``.../replay/{deal}``):
one frame per recorded action plus the deal as dealt, every card accounted for at every
frame, the standing and the chart's data; refused while the game is on (it would show every
hand), 404 for what does not exist, and a cache that stays within its bounds."""

from __future__ import annotations

import dataclasses
import warnings
from datetime import timedelta
from typing import Any

import pytest
from server_helpers import CARD_RE, TEST_LIMITS, MakeApp, Session, new_table

from tapete.games import kind
from tapete.server.db import utcnow
from tapete.server.replay_view import ReplaySettings, replay_frames

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from starlette.testclient import TestClient


def finish(client: TestClient, table_id: int, token: str) -> dict[str, Any]:
    """Play seat 0 at random to the end of the game; the last view."""
    with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
        return Session(ws).play()


def record_of(client: TestClient, table_id: int) -> dict[str, Any]:
    r = client.get(f"/api/tables/{table_id}/record")
    assert r.status_code == 200, r.text
    return dict(r.json())


def check_deal(game: str, deal: dict[str, Any], frames: list[dict[str, Any]]) -> None:
    """The frames of one recorded deal: the deal as dealt, then one frame per action with
    that action; every card in a hand, face down, face up (an indicator) or played."""
    k = kind(game)
    assert k.reader is not None
    actions = deal["actions"]
    assert len(frames) == len(actions) + 1
    first = frames[0]
    assert first["seat"] is None and first["action"] is None and first["text"] is None
    assert [sorted(h) for h in first["position"]["hands"]] == [sorted(h) for h in deal["hands"]]
    dealt = sorted([c for h in deal["hands"] for c in h] + deal[k.reader.rest])
    played: list[str] = []
    for n, frame in enumerate(frames):
        if n:
            entry = dict(actions[n - 1])
            assert frame["seat"] == entry.pop("seat")
            assert frame["action"] == entry
            assert frame["text"].startswith(f"{{seat {frame['seat']} {entry['type']}")
            if entry["type"] == "play":
                played.append(entry["card"])
        pos = frame["position"]
        assert "legal" not in pos and "hand" not in pos
        face_up = [pos["indicator"]] if pos.get("indicator") else []
        held = [c for h in pos["hands"] for c in h] + pos["hidden"] + face_up
        assert sorted(held + played) == dealt, (n, frame)
        assert len(frame[k.score_key]) == k.seats
    # the last frame: the deal is over, with the standing of its row of the score sheet
    assert frames[-1]["position"]["turn"] is None


@pytest.mark.parametrize(("game", "deals"), [("mil", 2), ("mariage", 3)])
def test_a_finished_game_replays_every_deal(make_app: MakeApp, game: str, deals: int) -> None:
    app = make_app()
    with TestClient(app) as client:
        table_id, token = new_table(client, game=game, seed=11, max_deals=deals)
        last = finish(client, table_id, token)
        assert last["over"]
        record = record_of(client, table_id)
        key = kind(game).score_key
        r = client.get(f"/api/tables/{table_id}/replay")
        assert r.status_code == 200, r.text
        summary = r.json()
        assert summary["table"] == table_id and summary["game"] == game
        assert summary["players"] == record["players"]
        assert summary["winner"] == record["winner"] and summary["score_key"] == key
        assert [d["frames"] for d in summary["deals"]] == [
            len(d["actions"]) + 1 for d in record["deals"]
        ]
        # the score sheet and the chart's data: the final view's rows, one per deal
        sheet = summary["view"]["sheet"]
        assert len(sheet) == len(record["deals"]) == len(summary["deals"])
        assert summary["view"][key] == record[key]
        assert "legal" not in summary["view"] and "hand" not in summary["view"]
        for i, deal in enumerate(record["deals"]):
            r = client.get(f"/api/tables/{table_id}/replay/{i}")
            assert r.status_code == 200, r.text
            body = r.json()
            assert body["table"] == table_id and body["deal"] == i
            assert body["result"] == deal["result"]
            check_deal(game, deal, body["frames"])
            assert body["frames"][-1][key] == sheet[i][key]
            # the same frames as the engine's replay of the downloaded record
            assert body["frames"] == replay_frames(record, i, i)[i]
        missing = client.get(f"/api/tables/{table_id}/replay/{len(record['deals'])}")
        assert missing.status_code == 404
        assert missing.json()["error"].startswith("there is no deal")
        assert client.get(f"/api/tables/{table_id}/replay/x1").status_code == 400
        # digits that are not ASCII ('¹' passes str.isdigit, and int() refuses it)
        for raw in ("\u00b9", "\u0661"):
            assert client.get(f"/api/tables/{table_id}/replay/{raw}").status_code == 400
            assert client.get(f"/api/tables/{table_id}/review/{raw}").status_code == 400
            assert client.get(f"/api/tables/{raw}/replay").status_code == 404


def test_an_unfinished_game_is_not_replayed(make_app: MakeApp) -> None:
    app = make_app()
    with TestClient(app) as client:
        table_id, token = new_table(client, game="mil", seed=5)
        for path in ("replay", "replay/0"):
            for query in ("", f"?token={token}"):
                r = client.get(f"/api/tables/{table_id}/{path}{query}")
                assert r.status_code == 403, r.text
                assert r.json() == {
                    "error": "the replay of a game opens when the game is over: it shows every hand"
                }
                assert not CARD_RE.search(r.text)
        assert app.state.replays.computed == 0 and not app.state.replays.cache
        for path in ("/api/tables/999/replay", "/api/tables/999/replay/0", "/api/tables/x/replay"):
            r = client.get(path)
            assert r.status_code == 404 and r.json() == {"error": "there is no such table"}


def test_the_cache_stays_within_its_bounds(make_app: MakeApp) -> None:
    app = make_app(replay=ReplaySettings(block=1, cache_bytes=60_000, cache_entries=3))
    replays = app.state.replays
    with TestClient(app) as client:
        table_id, token = new_table(client, game="mil", seed=3, max_deals=4)
        finish(client, table_id, token)
        record = record_of(client, table_id)
        count = len(record["deals"])
        assert count == 4
        bodies = {}
        for i in range(count):
            bodies[i] = client.get(f"/api/tables/{table_id}/replay/{i}").content
            assert replays.cached_bytes <= 60_000 and len(replays.cache) <= 3
            assert replays.cached_bytes == sum(len(b) for b in replays.cache.values())
        assert replays.computed == count
        # the newest deal is answered from memory; the first was dropped and is made again
        again = client.get(f"/api/tables/{table_id}/replay/{count - 1}").content
        assert again == bodies[count - 1] and replays.computed == count
        assert (table_id, 0) not in replays.cache
        assert client.get(f"/api/tables/{table_id}/replay/0").content == bodies[0]
        assert replays.computed == count + 1
        assert replays.cached_bytes <= 60_000 and len(replays.cache) <= 3


def test_a_game_stopped_at_the_cap_on_deals_replays_and_downloads(make_app: MakeApp) -> None:
    """A game the cap on deals stopped (no winner, status ``abandoned``) is over: its end
    window offers "Replay this game" and "Download the record" (a link with no token), as a
    finished game's. Both were refused (403: "opens when the game is over", "an unfinished
    game needs the table's token"). A table closed for want of play (also ``abandoned``, its
    game not over) still shows nothing."""
    limits = dataclasses.replace(TEST_LIMITS, max_game_deals=1)
    app = make_app(limits=limits)
    with TestClient(app) as client:
        table_id, token = new_table(client, game="mariage", seed=11)
        last = finish(client, table_id, token)
        assert last["over"] and last["winner"] is None
        assert client.get(f"/api/tables/{table_id}").json()["status"] == "abandoned"
        record = record_of(client, table_id)  # (no token)
        assert record["winner"] is None and len(record["deals"]) == 1
        r = client.get(f"/api/tables/{table_id}/replay")
        assert r.status_code == 200, r.text
        assert r.json()["winner"] is None
        r = client.get(f"/api/tables/{table_id}/replay/0")
        assert r.status_code == 200, r.text
        check_deal("mariage", record["deals"][0], r.json()["frames"])
        # its reviews too (the end window and the replay offer them; they were 403), and a
        # deal past its last is none (it was 409: "not over yet")
        r = client.get(f"/api/tables/{table_id}/review/0")
        assert r.status_code in (200, 202), r.text
        r = client.get(f"/api/tables/{table_id}/review/5")
        assert r.status_code == 404 and "the game has 1 deal(s)" in r.json()["error"], r.text

        idle, _ = new_table(client, game="mil", seed=5)
        manager = app.state.manager
        assert manager.sweep(utcnow() + timedelta(days=30)) >= 1
        assert client.get(f"/api/tables/{idle}").json()["status"] in ("abandoned", "expired")
        assert client.get(f"/api/tables/{idle}/replay").status_code == 403
        assert client.get(f"/api/tables/{idle}/record").status_code == 403
        assert client.get(f"/api/tables/{idle}/review/0").status_code == 403
