"""PostgreSQL as the server's database: what ``tapete serve --db postgresql+psycopg://…``
says when it cannot use one, the connection settings, two servers starting at once, and a
database server that goes away in the middle of a game and comes back."""

from __future__ import annotations

import os
import random
import socket
import threading
from typing import Any

import psycopg
import pytest
from db_helpers import Databases, current_revision, revisions
from server_helpers import Session, action_count, new_table
from sqlalchemy import make_url, text
from starlette.applications import Starlette
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tapete.cli import main
from tapete.server.app import create_app
from tapete.server.db import DatabaseError, make_engine, upgrade
from tapete.server.limits import Limits

LIMITS = Limits(create_burst=100_000, hint_processes=0, list_cache_s=0)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nothing listens there once the socket is closed


def _serve(capsys: pytest.CaptureFixture[str], url: str) -> str:
    assert main(["serve", "--port", "0", "--db", url]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tapete serve: error: ") and "Traceback" not in err, err
    return err


def test_an_unreachable_server_is_named_without_its_password(
    capsys: pytest.CaptureFixture[str],
) -> None:
    port = _closed_port()
    err = _serve(capsys, f"postgresql+psycopg://ana:s3cret@127.0.0.1:{port}/tapete")
    assert err.startswith(
        f"tapete serve: error: cannot connect to the database postgresql+psycopg://ana:***@127.0.0.1:{port}"
        "/tapete: "
    ), err
    assert "s3cret" not in err and "refused" in err.lower(), err


def test_a_database_that_does_not_exist_is_named(
    capsys: pytest.CaptureFixture[str], postgres_databases: Databases
) -> None:
    url = make_url(postgres_databases.new()).set(database="tapete_no_such_database")
    err = _serve(capsys, url.render_as_string(hide_password=False))
    assert "cannot connect to the database" in err
    assert 'database "tapete_no_such_database" does not exist' in err, err


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("mysql://ana@localhost/tapete", "Tapete runs on SQLite or PostgreSQL, not 'mysql'"),
        ("postgresql+psycopg://ana@localhost", "names no database"),
        ("postgresql+psycopg://ana@localhost:port/tapete", "is not a database URL"),
    ],
)
def test_a_url_of_no_usable_database_is_refused_before_anything(
    capsys: pytest.CaptureFixture[str], url: str, words: str
) -> None:
    err = _serve(capsys, url)
    assert err.startswith("tapete serve: error: --db ") and words in err, err
    with pytest.raises(DatabaseError, match=words):
        make_engine(url)


def test_the_connections_wait_briefly_for_locks_and_speak_utc(
    postgres_databases: Databases,
) -> None:
    """Each connection of the pool: ``lock_timeout`` is the busy timeout (another program's
    lock makes a write fail soon, as SQLite's busy timeout does), the session's time zone
    is UTC, and the URL's own options win; ``postgresql://`` means psycopg 3."""
    url = postgres_databases.new()
    engine = make_engine(url, busy_timeout_s=0.25)
    plain = make_engine(url.replace("postgresql+psycopg://", "postgresql://"))
    mine = make_engine(f"{url}?connect_timeout=3&application_name=club&options=-c%20work_mem=8MB")
    try:
        assert engine.pool.size() == 8 and engine.dialect.driver == "psycopg"
        assert plain.dialect.driver == "psycopg"
        with engine.connect() as c:
            assert c.execute(text("SHOW lock_timeout")).scalar_one() == "250ms"
            assert c.execute(text("SHOW TimeZone")).scalar_one() == "UTC"
            assert c.execute(text("SHOW application_name")).scalar_one() == "tapete"
            # a server that vanishes from the network fails a statement in about 20 s: TCP
            # keepalives and a user timeout on the socket (the kernel's retransmissions
            # took about 15 minutes, while every table waited)
            fd = c.connection.dbapi_connection.fileno()  # type: ignore[union-attr]
            with socket.socket(fileno=os.dup(fd)) as sock:
                assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
                assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == 20_000
                assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == 10
        with mine.connect() as c:
            assert c.execute(text("SHOW application_name")).scalar_one() == "club"
            assert c.execute(text("SHOW work_mem")).scalar_one() == "8MB"
            assert c.execute(text("SHOW lock_timeout")).scalar_one() == "5s"
    finally:
        for e in (engine, plain, mine):
            e.dispose()


def test_two_servers_starting_at_once_upgrade_one_after_the_other(
    postgres_databases: Databases,
) -> None:
    url = postgres_databases.new()
    engines = [make_engine(url) for _ in range(3)]
    start = threading.Barrier(len(engines))
    failures: list[BaseException] = []

    def run(engine: Any) -> None:
        start.wait()
        try:
            upgrade(engine)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=run, args=(e,)) for e in engines]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    try:
        assert failures == []
        assert current_revision(engines[0]) == revisions()[-1]
        with engines[0].connect() as c:
            assert c.execute(text("SELECT count(*) FROM server_secrets")).scalar_one() == 1
    finally:
        for e in engines:
            e.dispose()


def _connections(admin: psycopg.Connection[Any], name: str, *, allow: bool) -> None:
    """Let connections to database ``name`` in or not; when not, end the open ones (the
    database server has gone away, as far as the app can tell)."""
    admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {str(allow).lower()}')
    if not allow:
        admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            [name],
        )


def _app_on_a_new_database(databases: Databases) -> tuple[Starlette, str]:
    """The app (computers acting at once) on a new PostgreSQL database, and its name."""
    url = databases.new()
    name = make_url(url).database
    assert name
    return create_app(url, delay_ms=0, rate_limit=10_000, limits=LIMITS), name


def test_a_database_server_that_goes_away_loses_no_action(postgres_databases: Databases) -> None:
    """The database server goes away during a game: the person's action is refused (the
    table cannot even be read back, so the connection is closed for a reconnect), the HTTP
    API answers 503; when the server is back the table is rebuilt at the version the
    database holds and the same action goes through."""
    app, name = _app_on_a_new_database(postgres_databases)
    with TestClient(app) as client:
        table_id, token = new_table(client, game="mariage", seed=3)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            me = Session(ws, random.Random(4))
            view = me.wait_turn()
            version = me.version
            _connections(postgres_databases.admin, name, allow=False)
            try:
                me.act(view["legal"][0])
                error = me.error()
                assert error["code"] == "stale_version", error
                assert "reconnecting" in error["detail"], error
                with pytest.raises(WebSocketDisconnect):  # closed, for a reconnect
                    me.receive()
                r = client.get(f"/api/tables/{table_id}")
                assert r.status_code == 503 and "try again" in r.json()["error"]
                assert r.headers["retry-after"] == "1"
            finally:
                _connections(postgres_databases.admin, name, allow=True)
        assert table_id not in app.state.manager.tables  # dropped: rebuilt on the next access
        assert client.get(f"/api/tables/{table_id}").json()["version"] == version
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            again = Session(ws, random.Random(4))
            assert again.wait_turn() == view and again.version == version
            again.act(view["legal"][0])
            while (m := again.receive())["type"] != "view" or m["version"] <= version:
                assert m["type"] != "error", m
        assert action_count(app, table_id) > version


def test_sockets_and_sessions_meet_a_database_gone_with_a_try_again(
    postgres_databases: Databases,
) -> None:
    """While the database server is away: a table socket that must read its table, and the
    lobby socket, get ``unavailable`` and close 1013 (the page reconnects); a request or a
    handshake with a session cookie gets 503 or 1013. Before: a socket dropped without a
    close frame (the busy handler took the WebSocket for a request), and every request of
    a signed-in person, even the page, a 500 with a traceback (the session was read
    outside the app's handlers)."""
    app, name = _app_on_a_new_database(postgres_databases)
    with TestClient(app) as client:
        table_id, _ = new_table(client)
        app.state.manager.tables.pop(table_id, None)  # (not in memory: opening it reads it)
        with TestClient(app) as person:
            r = person.post("/api/signup", json={"name": "Bea_1", "password": "abcdefghij"})
            assert r.status_code == 201, r.text
            _connections(postgres_databases.admin, name, allow=False)
            try:
                for path, words in (
                    (f"/ws/{table_id}?lang=pt", "O servidor"),
                    ("/ws/lobby", "The"),
                ):
                    with client.websocket_connect(path) as ws:
                        error = ws.receive_json()
                        assert error["code"] == "unavailable", error
                        assert "try again" in error["detail"], error
                        assert error["message"].startswith(words), error  # (?lang=, else en)
                        with pytest.raises(WebSocketDisconnect) as closed:
                            ws.receive_json()
                        assert closed.value.code == 1013
                for path in ("/", "/api/me", f"/api/tables/{table_id}"):
                    r = person.get(path)
                    assert r.status_code == 503 and "try again" in r.json()["error"], path
                    assert r.headers["retry-after"] == "1"
                with (
                    pytest.raises(WebSocketDisconnect) as refused,
                    person.websocket_connect(f"/ws/{table_id}"),
                ):
                    pass
                assert refused.value.code == 1013
            finally:
                _connections(postgres_databases.admin, name, allow=True)
            assert person.get("/api/me").json()["user"]["name"] == "Bea_1"
            with person.websocket_connect(f"/ws/{table_id}") as ws:
                assert ws.receive_json()["type"] == "view"


def test_a_kept_write_connection_the_database_ends_is_replaced(
    postgres_databases: Databases,
) -> None:
    """The write thread keeps its connection while writes keep coming; when the database
    server ends it between two writes (a restart, an idle cut), the next action is stored
    on a new connection: nobody sees an error, no action is lost."""
    app, name = _app_on_a_new_database(postgres_databases)
    with TestClient(app) as client:
        table_id, token = new_table(client, game="mariage", seed=3)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            me = Session(ws, random.Random(4))
            me.play(max_actions=2)
            kept = app.state.manager.writer._connection
            assert kept is not None and not kept.closed  # (the thread kept its connection)
            # every connection to the database ends; new ones are let in again at once
            _connections(postgres_databases.admin, name, allow=False)
            _connections(postgres_databases.admin, name, allow=True)
            view = me.wait_turn()
            before = me.version
            me.act(view["legal"][0])
            while (m := me.receive())["type"] != "view" or m["version"] <= before:
                assert m["type"] != "error", m  # (not "not_saved", nor a reconnect)
            assert app.state.manager.writer._connection is not kept
            me.log.clear()
            me.play(max_actions=3)
            assert [r.message for r in me.log if r.message["type"] == "error"] == []
            version = me.version
        assert action_count(app, table_id) == version


def test_a_pooled_connection_whose_check_fails_oddly_is_replaced(
    postgres_databases: Databases,
) -> None:
    """psycopg's check before use of a connection the database server had closed could fail
    with a ProgrammingError ("can't change 'autocommit' now: connection in transaction status
    ACTIVE"), not an error the dialect knows as a lost connection: the request failed with a
    500 (CI, test_sockets_and_sessions_meet_a_database_gone_with_a_try_again). The pool now
    throws such a connection away and makes another."""
    engine = make_engine(postgres_databases.new())
    with engine.connect() as connection:  # (one connection in the pool)
        connection.exec_driver_sql("SELECT 1")
    real, checks = engine.dialect.do_ping, []

    def odd(dbapi_connection: Any) -> bool:
        checks.append(dbapi_connection)
        if len(checks) == 1:
            raise psycopg.ProgrammingError(
                "can't change 'autocommit' now: connection in transaction status ACTIVE"
            )
        return bool(real(dbapi_connection))

    engine.dialect.do_ping = odd  # type: ignore[method-assign]
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT 1").scalar() == 1
    assert len(checks) == 1  # (the new connection, just made, is not checked)
    engine.dispose()
