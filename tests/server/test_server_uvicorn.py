"""The app under a real uvicorn on loopback, with a real WebSocket client: one Mariage hand
is played, oversized frames are refused, and the connection survives bad input."""

from __future__ import annotations

import json
import random
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn
from server_helpers import MakeApp
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect


@pytest.fixture
def base_url(make_app: MakeApp) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    config = uvicorn.Config(
        make_app(), host="127.0.0.1", port=port, log_level="warning", ws_max_size=65536
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield f"127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


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
