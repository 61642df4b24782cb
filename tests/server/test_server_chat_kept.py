"""Table chat kept in the database (``table_chat``, migration 0010): a table's last lines
survive the table leaving memory and a restart of the server on the same database, and a
seat that (re)connects gets them as before; a flood keeps only the last ``CHAT_LINES``;
spectators never get a line, stored or live."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from server_helpers import TEST_LIMITS, MakeApp
from sqlalchemy import func, select
from starlette.applications import Starlette
from starlette.testclient import TestClient

from tapete.server.db import ChatRow
from tapete.server.room import CHAT_LINES

#: the server's test limits, with room for a flood of chat lines from one connection
FLOOD = dataclasses.replace(TEST_LIMITS, chat_burst=1000)


def lines_on_connect(client: TestClient, table: int, token: str | None) -> list[str]:
    """The chat lines a new connection of ``token``'s seat (None: a spectator) gets: every
    message up to the answer to a ``sync`` sent at once (the server answers in order)."""
    url = f"/ws/{table}" if token is None else f"/ws/{table}?token={token}"
    with client.websocket_connect(url) as ws:
        assert ws.receive_json()["type"] == "view"
        ws.send_json({"type": "sync"})
        texts: list[str] = []
        while (m := ws.receive_json())["type"] != "view":
            if m["type"] == "chat":
                texts.append(m["text"])
        return texts


def say(ws: Any, *texts: str) -> None:
    """Send chat lines and read up to their echo (each is stored before it is sent on)."""
    for text in texts:
        ws.send_json({"type": "chat", "text": text})
    left = list(texts)
    while left:
        m = ws.receive_json()
        assert m["type"] != "error", m
        if m["type"] == "chat" and m["text"] == left[0]:
            left.pop(0)


def stored(app: Starlette, table: int) -> list[str]:
    with app.state.manager.sessions() as session:
        return list(
            session.scalars(
                select(ChatRow.text).where(ChatRow.table_id == table).order_by(ChatRow.id)
            )
        )


def wait_evicted(app: Starlette, table: int) -> None:
    """Wait (a condition, 20 s at most) until the table has left the server's memory."""
    deadline = time.monotonic() + 20
    while table in app.state.manager.tables:
        assert time.monotonic() < deadline, "the table stayed in memory"
        time.sleep(0.01)


def test_chat_survives_leaving_memory_and_a_restart(make_app: MakeApp) -> None:
    first = make_app()
    with TestClient(first) as client:
        # a table of two people (its clocks keep it in memory until the restart)
        made = client.post(
            "/api/tables",
            json={"game": "mariage", "name": "Ana", "seats": [{"kind": "me"}, {"kind": "invited"}]},
        ).json()
        shared, ana = made["table"], made["token"]
        bea = client.post(
            f"/api/tables/{shared}/seats", json={"name": "Bea", "invite": made["invite"]}
        ).json()["token"]
        with (
            client.websocket_connect(f"/ws/{shared}?token={ana}") as a,
            client.websocket_connect(f"/ws/{shared}?token={bea}") as b,
        ):
            say(a, "hola Bea")
            say(b, "hola Ana", "¿otra mano?")
        assert stored(first, shared) == ["hola Bea", "hola Ana", "¿otra mano?"]

        # one person against a computer: the table leaves memory when the page closes
        alone = client.post(
            "/api/tables", json={"game": "mariage", "name": "Cid", "levels": ["random"]}
        ).json()
        with client.websocket_connect(f"/ws/{alone['table']}?token={alone['token']}") as c:
            say(c, "suerte, Bruno")
        wait_evicted(first, alone["table"])
        assert lines_on_connect(client, alone["table"], alone["token"]) == ["suerte, Bruno"]
        assert lines_on_connect(client, alone["table"], None) == []

    # a restart on the same database: the tables are rebuilt with their lines
    second = make_app()
    with TestClient(second) as client:
        assert lines_on_connect(client, shared, bea) == ["hola Bea", "hola Ana", "¿otra mano?"]
        assert lines_on_connect(client, shared, None) == []  # a spectator: none
        assert lines_on_connect(client, alone["table"], alone["token"]) == ["suerte, Bruno"]
        # and the chat goes on from there, spectators still outside it
        with (
            client.websocket_connect(f"/ws/{shared}?token={ana}") as a,
            client.websocket_connect(f"/ws/{shared}") as w,
        ):
            assert w.receive_json()["type"] == "view"
            say(a, "de vuelta")
            w.send_json({"type": "sync"})
            while (m := w.receive_json())["type"] != "view":
                assert m["type"] != "chat", m
        assert lines_on_connect(client, shared, ana)[-2:] == ["¿otra mano?", "de vuelta"]


def test_a_chat_flood_keeps_the_last_lines(make_app: MakeApp) -> None:
    first = make_app(limits=FLOOD)
    lines = [f"line {n}" for n in range(CHAT_LINES + 15)]
    with TestClient(first) as client:
        made = client.post(
            "/api/tables", json={"game": "mariage", "name": "Ana", "levels": ["random"]}
        ).json()
        table, token = made["table"], made["token"]
        with client.websocket_connect(f"/ws/{table}?token={token}") as ws:
            say(ws, *lines)
        assert stored(first, table) == lines[-CHAT_LINES:]
        with first.state.manager.sessions() as session:
            assert session.scalar(select(func.count()).select_from(ChatRow)) == CHAT_LINES
        assert lines_on_connect(client, table, token) == lines[-CHAT_LINES:]
    second = make_app(limits=FLOOD)
    with TestClient(second) as client:
        assert lines_on_connect(client, table, token) == lines[-CHAT_LINES:]
        assert lines_on_connect(client, table, None) == []
