"""The event loop never waits for the database (docs/server.md, "The event loop never waits
for the database"): every request's query runs in a database thread (``db.DatabaseThreads``),
the actions in the write thread, the computer players' rebuilds in theirs. A slow or locked
database then delays the request that needs it, never another table's moves."""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from db_helpers import write_lock
from server_helpers import (
    TEST_LIMITS,
    MakeApp,
    Session,
    new_table,
    wait_until,
    waiting_table,
)
from sqlalchemy import event
from starlette.applications import Starlette
from starlette.testclient import TestClient
from test_server_room import make_table, sit

from tapete.server.limits import Limits


@contextmanager
def statements_on_the_loop(app: Starlette, client: TestClient) -> Iterator[list[str]]:
    """The SQL statements the server runs meanwhile on its event loop's thread."""
    assert client.portal is not None
    loop_thread = client.portal.call(threading.get_ident)
    seen: list[str] = []

    def check(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        if threading.get_ident() == loop_thread:
            seen.append(" ".join(statement.split())[:100])

    engine = app.state.manager.engine
    event.listen(engine, "before_cursor_execute", check)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", check)


def _get(client: TestClient, url: str, **options: Any) -> Any:
    r = client.get(url, **options)
    assert r.status_code == 200, (url, r.text)
    return r.json()


def test_no_request_queries_the_database_on_the_event_loop(
    app: Starlette, client: TestClient
) -> None:
    """The room's whole life through its HTTP API and its sockets (tables made, invitations
    opened, seats taken, quick games joined and filled by computers, games played to their
    end, chat, the lobby, the lists, the pages, replays and reviews, a table read back from
    the database, accounts signing in and out): not one query on the event loop."""
    manager = app.state.manager
    with statements_on_the_loop(app, client) as on_loop:
        # a private table: Ana invites Bea, a computer takes the third seat
        seats = [{"kind": "me"}, {"kind": "invited"}, {"kind": "computer", "level": "random"}]
        made = make_table(client, seats=seats, max_deals=1)
        tid, invite = made["table"], made["invite"]
        assert _get(client, f"/api/invitations/{invite}")["table"] == tid
        bea = sit(client, tid, "Bea", invite=invite)
        assert bea["status"] == "playing"
        # quick games: two people start one; alone, computers fill it after the wait
        cid = client.post("/api/quick", json={"game": "mariage", "name": "Cid"}).json()
        dan = client.post("/api/quick", json={"game": "mariage", "name": "Dan"}).json()
        assert dan["table"] == cid["table"] and dan["status"] == "playing"
        eve = client.post("/api/quick", json={"game": "mil", "name": "Eve", "fill_after_s": 0})
        eve_table = eve.json()["table"]
        wait_until(
            "the computers to fill Eve's table",
            lambda: _get(client, f"/api/tables/{eve_table}")["status"] == "playing",
        )
        # the lobby (and its socket), the lists and the pages
        with client.websocket_connect("/ws/lobby") as lobby:
            assert lobby.receive_json()["type"] == "lobby"
        _get(client, "/api/lobby")
        _get(client, "/api/tables", params={"name": "Ana"})
        _get(client, "/api/tables/live")
        _get(client, "/api/stats", params={"name": "Ana"})
        _get(client, "/api/ranking")
        _get(client, "/api/players/Ana")
        _get(client, "/api/ratings/mil-1000")
        # a game played to its end over the socket, with a chat line
        done_id, token = new_table(client, game="mariage", seed=3, max_deals=1)
        with client.websocket_connect(f"/ws/{done_id}?token={token}") as ws:
            me = Session(ws, random.Random(3))
            me.wait_turn()
            ws.send_json({"type": "chat", "text": "hola"})
            assert me.play()["over"]
        wait_until(
            "the game's end to be stored",
            lambda: _get(client, f"/api/tables/{done_id}/ratings")["table"] == done_id,
        )
        _get(client, f"/api/tables/{done_id}/replay")
        headers = {"X-Tapete-Token": token}
        assert client.get(f"/api/tables/{done_id}/review/0", headers=headers).status_code in (
            200,
            202,
        )
        _get(client, f"/api/tables/{done_id}/record")
        # a table that has left memory is read back from the database
        manager.tables.pop(done_id, None)
        assert _get(client, f"/api/tables/{done_id}", headers=headers)["seat"] == 0
        # an account: signed up (and in), its cookie read at each request, signed out
        r = client.post("/api/signup", json={"name": "Fay", "password": "a long passphrase 7"})
        assert r.status_code == 201, r.text
        csrf = _get(client, "/api/me")["csrf"]
        _get(client, "/api/players/Fay")
        assert client.post("/api/signout", headers={"x-csrf-token": csrf}).status_code == 200
        assert on_loop == [], on_loop


def test_a_sit_down_waiting_for_a_locked_database_holds_up_no_table(
    make_app: MakeApp, db_url: str
) -> None:
    """While another program holds the database's write lock, a sit-down waits for it in a
    database thread; meanwhile a table already playing answers its socket at once. (Before,
    the sit-down's transaction ran on the event loop: every table waited with it.)"""
    limits = Limits(
        create_burst=TEST_LIMITS.create_burst, hint_processes=0, list_cache_s=0, busy_timeout_s=2.0
    )
    app = make_app(limits=limits)
    with TestClient(app) as client:
        playing_id, token = new_table(client, game="mariage", seed=4)
        waiting = make_table(client, game="mariage", seats=[{"kind": "me"}, {"kind": "invited"}])
        with client.websocket_connect(f"/ws/{playing_id}?token={token}") as ws:
            me = Session(ws, random.Random(4))
            me.wait_turn()
            outcome: dict[str, Any] = {}

            def sit_down() -> None:
                started = time.monotonic()
                r = client.post(
                    f"/api/tables/{waiting['table']}/seats",
                    json={"name": "Bea", "invite": waiting["invite"]},
                )
                outcome.update(status=r.status_code, took=time.monotonic() - started)

            sitter = threading.Thread(target=sit_down)
            with write_lock(db_url):  # another program holds the write lock
                sitter.start()
                time.sleep(0.3)  # the sit-down is waiting for the lock now
                started = time.monotonic()
                ws.send_json({"type": "sync"})
                while me.receive()["type"] != "view":
                    pass
                answered = time.monotonic() - started
                still_waiting = sitter.is_alive()
            sitter.join(10)
        assert still_waiting, f"the sit-down ended before the lock did: {outcome}"
        assert answered < 1.0, f"the playing table answered after {answered:.2f} s: {outcome}"
        # SQLite gives up after busy_timeout_s (503, try again); PostgreSQL waits for the lock
        assert outcome["status"] in (201, 503), outcome


def test_a_sit_down_that_waited_reaches_the_table_memory_holds_now(app: Starlette) -> None:
    """A sit-down waits for the table's lock (another sit-down holds it) while the table
    leaves memory and is read again (a connection opens it): the waiting sit-down seats its
    person at the table memory holds now, not at the copy it first found (whose game would
    then start where nobody plays it)."""
    manager = app.state.manager

    async def scenario() -> None:
        first = waiting_table(manager, "mil")
        await first.lock.acquire()  # (another sit-down's)
        bea = asyncio.create_task(manager.sit(first.id, name="Bea"))
        # Bea waits for the lock (waited for, not slept for: a loaded machine may take longer)
        await until(lambda: bool(first.lock._waiters))
        manager.tables.pop(first.id)
        again = await manager.load(first.id)
        assert again is not None and again is not first
        first.lock.release()
        table, seat = await bea
        assert table is again and manager.tables[first.id] is again
        assert again.seats[seat].name == "Bea" and first.seats[seat].free
        await manager.close()

    asyncio.run(scenario())


def test_two_quick_games_asked_at_once_sit_at_one_table(app: Starlette) -> None:
    """Two people ask for a quick Mariage game at the same moment: they play each other. (With
    the quick tables looked up in one thread and the new table stored in another, both found
    none and each made a table of their own, waiting for computers.)"""
    manager = app.state.manager

    async def scenario() -> list[tuple[int, int, str]]:
        asked = [
            manager.quick(game="mariage", profile="mariage", name=name, language="en")
            for name in ("Ana", "Bea")
        ]
        seated = [(t.id, seat, t.status) for t, seat in await asyncio.gather(*asked)]
        await manager.close()
        return seated

    (first, seat_a, _), (second, seat_b, status) = asyncio.run(scenario())
    assert (first, second, {seat_a, seat_b}, status) == (first, first, {0, 1}, "playing")


def test_a_sit_down_cancelled_while_its_seat_is_written_still_reaches_memory(
    app: Starlette,
) -> None:
    """The request of a sit-down is cancelled while its transaction waits in the write
    thread: the seat is stored all the same, and the table in memory follows (it stayed
    "waiting" with the seat free while the database had started the game)."""
    manager = app.state.manager

    async def scenario() -> None:
        table = waiting_table(manager, "mariage")
        busy = threading.Event()
        manager.writer.pool.submit(busy.wait, 10)  # (the write thread is busy meanwhile)
        bea = asyncio.create_task(manager.sit(table.id, name="Bea"))
        # Bea's transaction waits for the write thread (queued behind the busy job)
        await until(lambda: manager.writer.pool._work_queue.qsize() > 0)
        bea.cancel()
        busy.set()
        await asyncio.wait([bea])
        for _ in range(200):  # (the transaction and what follows it in memory end)
            if not manager._side_tasks:
                break
            await asyncio.sleep(0.01)
        assert bea.cancelled()
        assert manager.tables[table.id] is table
        assert (table.seats[1].name, table.status) == ("Bea", "playing")
        assert manager._stored_info(table.id, None)["status"] == "playing"
        await manager.close()

    asyncio.run(scenario())


async def until(condition: Any, seconds: float = 10) -> None:
    """Wait on the event loop until ``condition()`` holds (fail after ``seconds``)."""
    for _ in range(int(seconds / 0.005)):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError(f"not within {seconds} s")


class Pages:
    """A lobby socket that keeps the pages it is sent (the tables' ids on each)."""

    seat: int | None = None
    patches = False

    def __init__(self) -> None:
        self.pages: list[list[int]] = []

    def push(self, text: str) -> None:
        self.pages.append([t["table"] for t in json.loads(text)["tables"]])

    def close(self) -> None:
        pass


def test_a_lobby_sockets_first_page_never_overtakes_a_newer_one(app: Starlette) -> None:
    """A lobby socket's first page is read slowly; meanwhile a table is made and the lobby
    pushed: the socket's last page holds that table (the push waits for the first page; its
    older page came last, and the socket showed a lobby without the new table)."""
    manager = app.state.manager
    real, slow, release = manager._lobby_rows, threading.Event(), threading.Event()
    read = threading.Event()

    def rows(limit: int) -> Any:
        found = real(limit)
        if slow.is_set():  # (the first page's read: as the database held it then)
            slow.clear()
            read.set()
            release.wait(10)
        return found

    manager._lobby_rows = rows
    waiting = [("me", None), ("open", None)]

    async def listed(name: str) -> int:  # (a table the lobby lists)
        new = manager.new_table(
            game="mariage", profile="mariage", name=name, language="en", seats=waiting, listed=True
        )
        return int((await manager.open_table(new)).id)

    async def scenario() -> None:
        ana = await listed("Ana")
        socket = Pages()
        slow.set()
        opening = asyncio.create_task(manager.open_lobby(socket))
        # its page is read, not yet sent (waited for: 50 ms of sleep were not always enough
        # on a loaded machine, and the page then held the next table too)
        assert await asyncio.to_thread(read.wait, 10)
        bea = await listed("Bea")
        await asyncio.sleep(0.4)  # (the lobby's push falls due)
        release.set()
        await opening
        await asyncio.sleep(0.4)
        await manager.close()
        assert socket.pages[0] == [ana] and socket.pages[-1] == [ana, bea], socket.pages

    asyncio.run(scenario())
