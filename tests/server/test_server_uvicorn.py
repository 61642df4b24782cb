"""The app under a real uvicorn on loopback, with a real WebSocket client: one Mariage hand
is played, oversized frames are refused, and the connection survives bad input."""

from __future__ import annotations

import json
import random
import urllib.request
from typing import Any

import pytest
from server_helpers import stored_actions
from starlette.applications import Starlette
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tapete.server.tables import build_game


@pytest.fixture
def base_url(served: tuple[str, Starlette]) -> str:
    return served[0]


def _post(url: str, body: dict[str, Any]) -> Any:
    req = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read())


def test_a_hand_over_a_real_socket(base_url: str) -> None:
    created = _post(
        f"http://{base_url}/api/tables",
        {"game": "mariage", "name": "Ana", "levels": ["random"], "seed": 2, "max_deals": 1},
    )
    rng = random.Random(4)
    url = f"ws://{base_url}/ws/{created['table']}?token={created['token']}"
    with connect(url) as ws:
        m = json.loads(ws.recv(timeout=10))
        assert m["type"] == "view"
        ws.send("not json")
        assert json.loads(ws.recv(timeout=10))["code"] == "bad_json"
        ws.send("x" * 10_000)
        assert json.loads(ws.recv(timeout=10))["code"] == "too_large"
        acted = -1
        while True:
            if m["type"] == "view":
                v = m["view"]
                if v["over"]:
                    break
                if v["turn"] == 0 and v["legal"] and m["version"] > acted:
                    acted = m["version"]
                    action = rng.choice(v["legal"])
                    ws.send(json.dumps({"type": "act", "version": acted, "action": action}))
            m = json.loads(ws.recv(timeout=10))
        assert v["sheet"] and acted > 0
    with connect(url) as ws:
        json.loads(ws.recv(timeout=10))
        ws.send("y" * 100_000)  # above the 64 KiB frame limit: the server closes
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=10)


@pytest.mark.sqlite_only
def test_the_sheet_is_sent_once_then_row_by_row(served: tuple[str, Starlette]) -> None:
    """A 20-deal casa-500 game of random players over a real socket: the first message carries
    the whole sheet, every later one only the rows the client does not hold yet
    (``sheet_from``), the client's sheet (first sheet + the rows appended) equals the game's at
    every version, and every message stays small however long the game; a spectator who
    connects at the end gets the whole sheet at once."""
    base_url, app = served
    body = {"game": "mil", "profile": "casa-500", "name": "Ana", "levels": ["random", "random"]}
    created = _post(f"http://{base_url}/api/tables", {**body, "seed": 11, "max_deals": 20})
    table_id = created["table"]
    rng = random.Random(5)
    sheets: dict[int, list[Any]] = {}  # version -> the sheet the client holds
    sizes: list[int] = []
    held: list[Any] | None = None
    with connect(f"ws://{base_url}/ws/{table_id}?token={created['token']}") as ws:
        acted = -1
        while True:
            text = ws.recv(timeout=30)
            assert isinstance(text, str)
            m = json.loads(text)
            assert m["type"] == "view", m
            sizes.append(len(text.encode()))
            v = m["view"]
            if held is None:
                assert m["sheet_from"] == 0  # the first message: the whole sheet
                held = list(v["sheet"])
            else:
                # no old row again: the rows from exactly the number the client holds
                assert m["sheet_from"] == len(held), (m["sheet_from"], len(held))
                assert len(v["sheet"]) <= 1
                held = held + v["sheet"]
                ends = [e["row"] for e in m["events"] if e["type"] == "deal_end"]
                assert v["sheet"] == ends  # the new row is the deal_end event's
            sheets[m["version"]] = held
            if v["over"]:
                break
            if v["turn"] == 0 and v["legal"] and m["version"] > acted:
                acted = m["version"]
                action = rng.choice(v["legal"])
                ws.send(json.dumps({"type": "act", "version": acted, "action": action}))
    assert held is not None and len(held) >= 2
    # the game's own sheet at every version the client saw, from the stored log
    info = json.loads(urllib.request.urlopen(f"http://{base_url}/api/tables/{table_id}").read())
    game = build_game("mil", "casa-500", seed=11, players=info["players"], max_deals=20)
    actions = stored_actions(app, table_id)
    for n, action in enumerate(actions):
        if n in sheets:
            assert sheets[n] == game.view(0)["sheet"], n
        game.apply(game.parse_action(action))
    assert sheets[len(actions)] == game.view(0)["sheet"] == held
    with connect(f"ws://{base_url}/ws/{table_id}") as ws:
        m = json.loads(ws.recv(timeout=10))
        assert m["sheet_from"] == 0 and m["view"]["sheet"] == game.view(None)["sheet"]
    print(f"{len(sizes)} messages over {len(held)} deals: largest {max(sizes)} bytes")
    assert max(sizes) < 8192, max(sizes)
