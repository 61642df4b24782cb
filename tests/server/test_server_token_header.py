"""A seat's token out of the address: the ``X-Tapete-Token`` header on HTTP, the
``tapete.token.TOKEN`` subprotocol on the WebSocket (a browser cannot set a WebSocket's
headers), and the ``token`` query parameter still read for clients that can do neither."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from server_helpers import MakeApp, Session, action_count, new_table
from starlette.requests import HTTPConnection
from starlette.testclient import TestClient

from tapete.server.security import seat_token

WEB = Path(__file__).resolve().parents[2] / "src" / "tapete" / "web"


def _offer(token: str) -> list[str]:
    return ["tapete", f"tapete.token.{token}"]


def test_the_socket_takes_the_token_as_a_subprotocol(make_app: MakeApp) -> None:
    app = make_app(delay_ms=60_000)  # (the computers wait: nothing moves meanwhile)
    with TestClient(app) as client:
        table_id, token = new_table(client, seed=1)
        _, other_token = new_table(client, seed=2)
        with client.websocket_connect(f"/ws/{table_id}", subprotocols=_offer(token)) as ws:
            assert ws.accepted_subprotocol == "tapete"
            view = Session(ws).receive()["view"]
            assert view["seat"] == 0 and len(view["hand"]) == 7
        # another table's token: the error, then the public view (a spectator)
        with client.websocket_connect(f"/ws/{table_id}", subprotocols=_offer(other_token)) as ws:
            me = Session(ws)
            assert me.receive()["code"] == "bad_token"
            m = me.receive()
            assert m["view"]["seat"] is None and m["view"]["hand"] == []
            me.act({"type": "pass"})
            assert me.error()["code"] == "not_your_turn"
        # "tapete" alone: a spectator who speaks the protocol
        with client.websocket_connect(f"/ws/{table_id}", subprotocols=["tapete"]) as ws:
            assert ws.accepted_subprotocol == "tapete"
            assert Session(ws).receive()["view"]["seat"] is None
        # a client that offers nothing gets no subprotocol back, and the query still works
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            assert ws.accepted_subprotocol is None
            assert Session(ws).receive()["view"]["seat"] == 0
        assert action_count(app, table_id) == 0


def test_http_reads_the_token_from_its_header(make_app: MakeApp) -> None:
    app = make_app(delay_ms=60_000)
    with TestClient(app) as client:
        table_id, token = new_table(client, seed=1)
        _, other_token = new_table(client, seed=2)
        mine = {"X-Tapete-Token": token}
        assert client.get(f"/api/tables/{table_id}", headers=mine).json()["seat"] == 0
        r = client.get(f"/api/tables/{table_id}", headers={"X-Tapete-Token": other_token})
        assert r.status_code == 403 and "does not belong" in r.json()["error"]
        # the game so far: the seat's header opens it, nothing else does
        assert client.get(f"/api/tables/{table_id}/record", headers=mine).status_code == 200
        assert client.get(f"/api/tables/{table_id}/record").status_code == 403
        r = client.get(f"/api/tables/{table_id}/review/0", headers={"X-Tapete-Token": other_token})
        assert r.status_code == 403 and "does not belong" in r.json()["error"]
        # the header comes first: a right token in the query does not mend a wrong header
        r = client.get(
            f"/api/tables/{table_id}",
            params={"token": token},
            headers={"X-Tapete-Token": other_token},
        )
        assert r.status_code == 403


@pytest.mark.parametrize(
    ("headers", "subprotocols", "query", "expected"),
    [
        ([(b"x-tapete-token", b" abc ")], [], b"", "abc"),
        ([], ["tapete", "tapete.token.xyz"], b"token=q", "xyz"),
        ([(b"x-tapete-token", b"abc")], ["tapete.token.xyz"], b"", "abc"),
        ([], ["tapete"], b"lang=es&token=one&token=two", "two"),
        ([], [], b"token=", None),
        ([], [], b"", None),
    ],
)
def test_where_a_token_is_read(
    headers: list[tuple[bytes, bytes]], subprotocols: list[str], query: bytes, expected: str | None
) -> None:
    scope = {
        "type": "http",
        "headers": headers,
        "subprotocols": subprotocols,
        "query_string": query,
    }
    assert seat_token(HTTPConnection(scope)) == expected


def test_the_web_client_never_puts_a_token_in_an_address() -> None:
    """The page's own requests send the token in a header or a subprotocol: no source file
    builds an address with ``token=`` in it (a proxy's log keeps addresses)."""
    sources = [WEB / "app.js", *sorted((WEB / "js").glob("*.js"))]
    found = [
        f"{path.name}:{n}"
        for path in sources
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"[?&]token=", line)
    ]
    assert len(sources) > 10 and found == []
