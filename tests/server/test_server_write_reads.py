"""Reads that go around the table's actor (the record download, the deal review) while an
action of the same table is being written (issue 10, the write thread): they wait for the
write to end, so they never show an action the database may yet refuse, nor one fewer than
the database will hold. Each test slows the write down (a write thread that waits)."""

from __future__ import annotations

import asyncio
import threading
import time
import warnings
from typing import Any

import pytest
from server_helpers import MakeApp, Session, new_table, stored_actions
from starlette.applications import Starlette

from tapete.game import JSON
from tapete.server.app import Connection
from tapete.server.db import TableRow
from tapete.server.review import ReviewSettings
from tapete.server.tables import game_of

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from starlette.testclient import TestClient


def ends_the_deal(app: Starlette, table_id: int, action: JSON) -> bool:
    """Whether ``action``, played now at the table, ends its deal (the engine says so, on
    the table rebuilt from the stored actions)."""
    with app.state.manager.sessions() as s:
        row = s.get(TableRow, table_id)
        assert row is not None
        game = game_of(row)
    for data in stored_actions(app, table_id):
        game.apply(game.parse_action(data))
    before = len(game.finished_deals)
    game.apply(game.parse_action(action))
    return len(game.finished_deals) > before


def to_the_deal_end(app: Starlette, table_id: int, me: Session) -> JSON:
    """Play seat 0 at random until one of its legal actions ends the deal; return that one."""
    while True:
        view = me.wait_turn()
        assert not view["over"]
        for action in view["legal"]:
            if ends_the_deal(app, table_id, action):
                return dict(action)
        me.act(me.rng.choice(view["legal"]))


class SlowWrite:
    """The write of an action (``ActionWriter._write``), held until :meth:`finish` (then
    done, or failed with ``fail``)."""

    def __init__(self, app: Starlette, monkeypatch: pytest.MonkeyPatch, *, fail: bool) -> None:
        manager = app.state.manager
        self.real = manager.writer._write
        self.fail = fail
        self.started = threading.Event()
        self.released = threading.Event()
        #: set once the real write has committed
        self.done = threading.Event()
        monkeypatch.setattr(manager.writer, "_write", self)

    def __call__(self, *args: Any) -> None:
        self.started.set()
        self.released.wait(10)
        if self.fail:
            raise RuntimeError("the disk is gone")
        self.real(*args)
        self.done.set()

    def finish(self) -> None:
        self.released.set()


def during_the_write(client: TestClient, write: SlowWrite, url: str) -> Any:
    """GET ``url`` while the write waits; let the write go 0.3 s after the request began;
    the response."""
    assert write.started.wait(5), "the write did not start"
    out: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: out.update(r=client.get(url)))
    thread.start()
    time.sleep(0.3)  # the request is under way meanwhile
    write.finish()
    thread.join(15)
    return out["r"]


def during_a_refused_deal_end(
    app: Starlette, monkeypatch: pytest.MonkeyPatch, path: str
) -> tuple[Any, str]:
    """Play a Mariage table to the person's action that ends the deal, play it with a write
    that waits and then fails, and GET ``path`` (``{id}`` and ``{token}`` filled in) while
    the write waits; the response, and the error code the person got."""
    with TestClient(app) as client:
        table_id, token = new_table(client, game="mariage", seed=3, max_deals=2)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            me = Session(ws)
            last = to_the_deal_end(app, table_id, me)
            write = SlowWrite(app, monkeypatch, fail=True)
            me.act(last)
            url = path.format(id=table_id, token=token)
            return during_the_write(client, write, url), str(me.error()["code"])


def test_a_record_download_never_shows_an_action_the_database_refuses(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The deal's last action is applied, then its write fails. A record downloaded while the
    write was under way used to hold that deal as finished (it read the game in memory, one
    action ahead); now it is built after the write, from the table put back as stored."""
    path = "/api/tables/{id}/record?token={token}"
    r, code = during_a_refused_deal_end(make_app(), monkeypatch, path)
    assert code == "not_saved"
    assert r.status_code == 200, r.text
    assert r.json()["deals"] == []  # the deal is not over: its last action was refused


def test_a_review_never_starts_on_a_deal_end_the_database_refuses(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A review of the deal whose last action is being written waits for the write: when it
    fails, the deal is not over (409), and no review of it is computed or stored."""
    app = make_app(review=ReviewSettings(quick=True, process=False))
    path = "/api/tables/{id}/review/0?token={token}"
    r, code = during_a_refused_deal_end(app, monkeypatch, path)
    assert code == "not_saved"
    assert r.status_code == 409, r.text[:200]
    assert app.state.reviews.started == 0


def test_a_read_after_a_cancelled_write_waits_for_it(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A write cancelled while under way (the server stopping) drops the table from memory
    but still ends in the write thread. A record read meanwhile rebuilds the table from the
    database: it used to do so at once and saw one action fewer than the write stores; now
    it waits for that write."""
    app = make_app()
    manager = app.state.manager
    with TestClient(app) as client:
        table_id, _ = new_table(client, game="mariage", seed=3)

        async def scenario() -> tuple[int, int]:
            table = await manager.load(table_id)
            assert table is not None
            for _ in range(1000):  # the computer (random) plays at once
                # (the table in memory: the copy ``load`` gave may have been replaced since)
                table = manager.tables.get(table_id, table)
                # (not while the computer's action is being written: the game has applied it,
                # the version moves on when the write ends)
                idle = table.bot_task is None or table.bot_task.done()
                if table.game.turn == 0 and idle and not table.lock.locked():
                    break
                await asyncio.sleep(0.01)
            assert table.game.turn == 0, "the computer did not play within 10 s"
            version = table.version
            action = table.game.legal_actions()[0].to_json()
            write = SlowWrite(app, monkeypatch, fail=False)
            act = asyncio.create_task(manager.act(table, 0, version, action))
            for _ in range(1000):
                if write.started.is_set() or act.done():
                    break
                await asyncio.sleep(0.01)
            if act.done():
                act.result()  # (refused: say why)
            assert write.started.is_set(), "the write did not start within 10 s"
            act.cancel()
            with pytest.raises(asyncio.CancelledError):
                await act
            assert table_id not in manager.tables
            asyncio.get_running_loop().call_later(0.3, write.finish)
            loaded = await manager.record_of(table_id)
            assert loaded is not None
            return version, loaded[0].version

        version, seen = client.portal.call(scenario)  # type: ignore[union-attr]
    assert seen == version + 1 == len(stored_actions(app, table_id))


def test_a_connection_waiting_for_a_write_keeps_its_table_in_memory(make_app: MakeApp) -> None:
    """A connection waits for the write under way (the table's lock) before it attaches. When
    the computer players stop right then (the lock is free, nobody listens yet), the table
    used to be forgotten: the connection attached to a copy no longer in memory, and the next
    connection built a second one (two games for one table; the socket limit per table
    counted each apart). Now the waiting connection puts its table back."""
    app = make_app()
    manager = app.state.manager
    with TestClient(app) as client:
        table_id, _ = new_table(client, game="mariage", seed=3)

        async def scenario() -> bool:
            table = await manager.load(table_id)
            assert table is not None
            await table.lock.acquire()  # a write under way
            waiting = asyncio.create_task(manager.settled_in_memory(table))
            await asyncio.sleep(0.05)
            table.lock.release()  # the write ends, and the computer players' task stops:
            manager._maybe_evict(table)  # nobody listens yet, so it is forgotten
            attached = await waiting
            return attached is table and manager.tables.get(table_id) is table

        assert client.portal.call(scenario)  # type: ignore[union-attr]


def test_the_end_of_a_game_is_shown_only_once_it_is_stored(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The action that ends the game is written slowly (a server that dies now, before the
    transaction commits, never stores it). Meanwhile nothing may show it: no socket hears of
    it (every message of the new version is sent after the commit), and the table's
    description says what the database holds: still playing, the version before, no winner.
    The description used to name the winner of the game in memory, one action ahead: a
    crash then would have undone a win that someone had been shown."""
    app = make_app()
    sent: list[tuple[bool, str]] = []
    with TestClient(app) as client:
        table = app.state.manager.create(
            game="mariage",
            profile="mariage",
            name="Ana",
            language="en",
            levels=["random"],
            seed=3,
            start={"game_points": [6, 6], "dealer": 1},  # the next hand won ends the game
        )
        url = f"/api/tables/{table.id}?token={table.token}"
        with client.websocket_connect(f"/ws/{table.id}?token={table.token}") as ws:
            me = Session(ws)
            last = to_the_deal_end(app, table.id, me)
            version = me.version
            write = SlowWrite(app, monkeypatch, fail=False)
            push = Connection.push

            def noted(conn: Connection, text: str) -> None:
                sent.append((write.done.is_set(), text))
                push(conn, text)

            monkeypatch.setattr(Connection, "push", noted)
            me.act(last)
            during = during_the_write(client, write, url).json()
            shown = me.receive()
        after = client.get(url).json()
    assert shown["version"] == version + 1 and shown["view"]["over"]
    assert (during["status"], during["version"], during["winner"]) == ("playing", version, None)
    assert after["status"] == "finished" and after["version"] == version + 1
    assert after["winner"] in (0, 1)
    early = [text for done, text in sent if not done and f'"version":{version + 1}' in text]
    assert sent and early == []
