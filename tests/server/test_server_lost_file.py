"""A SQLite file deleted or replaced while the server runs (docs/server.md, "The database
file lost"): the open connections would go on writing to the deleted file, which the next
start cannot find, and a new connection would make an empty one in its place. Every read and
write is refused instead, and one ERROR line says how to save the deleted file's data."""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from server_helpers import TEST_LIMITS, Session, new_table, set_secret
from sqlalchemy import exc as sa_exc
from starlette.applications import Starlette
from starlette.testclient import TestClient

from tapete.server import db
from tapete.server.app import create_app
from tapete.server.db import make_engine


@pytest.fixture(autouse=True)
def _look_at_every_transaction(monkeypatch: pytest.MonkeyPatch) -> None:
    """(A server looks at its file at most once a second; here at every transaction.)"""
    monkeypatch.setattr(db, "FILE_CHECK_EVERY_S", 0.0)


def _remove(path: Path) -> None:
    """The file and its WAL companions, as ``rm -r`` of the data folder removes them."""
    for name in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        name.unlink(missing_ok=True)


def test_a_deleted_file_refuses_every_transaction_and_makes_no_empty_one(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "data" / "t.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
        connection.exec_driver_sql("INSERT INTO t VALUES (1)")
    held = engine.connect()  # (a connection kept open, as the server's write thread keeps one)
    held.close()
    _remove(path)
    with (
        caplog.at_level(logging.ERROR, logger="tapete.server"),
        pytest.raises(sa_exc.OperationalError, match="was deleted or replaced") as refused,
        engine.begin() as connection,
    ):
        connection.exec_driver_sql("INSERT INTO t VALUES (2)")
    assert f"the database file {path} was deleted" in str(refused.value)
    engine.dispose()  # (every pooled connection closed: the next one opens the file anew)
    with pytest.raises(sa_exc.OperationalError, match="was deleted or replaced"):
        engine.connect()
    assert not path.exists()  # (SQLite would have made an empty one)
    [line] = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert line.startswith(f"the database file {path} was deleted or replaced")
    assert "Every read and write is refused" in line


def test_threads_that_notice_the_loss_together_log_it_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "t.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
    connections = [engine.connect(), engine.connect()]
    _remove(path)
    both = threading.Barrier(2, timeout=10)
    real_stat = db.os.stat

    def stat_together(name: Any) -> Any:  # (both threads past the first test at once)
        both.wait()
        return real_stat(name)

    monkeypatch.setattr(
        db,
        "os",
        SimpleNamespace(stat=stat_together, readlink=os.readlink, getpid=os.getpid, path=os.path),
    )
    refused: list[BaseException] = []

    def begin(connection: Any) -> None:
        try:
            connection.begin()
        except sa_exc.OperationalError as exc:
            refused.append(exc)

    with caplog.at_level(logging.ERROR, logger="tapete.server"):
        threads = [threading.Thread(target=begin, args=(c,)) for c in connections]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
    assert len(refused) == 2
    assert [r.levelno for r in caplog.records].count(logging.ERROR) == 1
    for connection in connections:
        connection.close()
    engine.dispose()


def test_a_file_moved_in_place_of_the_database_is_refused_too(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    with engine.begin() as connection:
        connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
    other = tmp_path / "other.sqlite3"
    other.write_bytes(path.read_bytes())
    os.replace(other, path)
    with pytest.raises(sa_exc.OperationalError, match="was deleted or replaced"):
        engine.connect().begin()
    engine.dispose()


def test_a_server_looks_at_its_file_once_a_second_at_most(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A look is a ``stat`` (15-60 microseconds here): transactions within a second of the
    last look do not look; what they write goes to the deleted file, which can be saved."""
    clock = [100.0]
    monkeypatch.setattr(db, "FILE_CHECK_EVERY_S", 1.0)
    monkeypatch.setattr(db, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    path = tmp_path / "t.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    connection = engine.connect()
    with connection.begin():  # (a look: the file is there)
        connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
    _remove(path)
    clock[0] += 0.9
    with connection.begin():  # (no look yet)
        connection.exec_driver_sql("INSERT INTO t VALUES (1)")
    clock[0] += 0.2
    with pytest.raises(sa_exc.OperationalError, match="was deleted or replaced"):
        connection.begin()
    connection.close()
    engine.dispose()


@pytest.mark.parametrize("how", ["as_is", "link", "dots"])
def test_the_error_line_says_where_the_deleted_data_can_be_copied_from(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, how: str
) -> None:
    """On Linux the deleted file stays readable through ``/proc/PID/fd`` while the server
    holds it open: the line names those copies. ``/proc`` names the file by its own path,
    links and ``..`` resolved: the line finds it also when the server was given another
    path to it (a data folder reached through a link, ``sqlite:///../data/t.sqlite3``;
    the line left the copies out), and says to copy it to the path the server was given."""
    (tmp_path / "data").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "data")
    path = {
        "as_is": tmp_path / "data" / "t.sqlite3",
        "link": tmp_path / "link" / "t.sqlite3",
        "dots": tmp_path / "data" / ".." / "data" / "t.sqlite3",
    }[how]
    engine = make_engine(f"sqlite:///{path}")
    connection = engine.connect()
    with connection.begin():
        connection.exec_driver_sql("CREATE TABLE t (x INTEGER)")
        connection.exec_driver_sql("INSERT INTO t VALUES (7)")
    _remove(path)
    with (
        caplog.at_level(logging.ERROR, logger="tapete.server"),
        pytest.raises(sa_exc.OperationalError),
    ):
        connection.begin()
    line = caplog.records[-1].getMessage()
    copies = [w for w in line.split() if w.startswith(f"/proc/{os.getpid()}/fd/")]
    assert copies and f"{copies[0]} to {path} and " in line, line
    saved = tmp_path / "saved.sqlite3"
    saved.write_bytes(Path(copies[0]).read_bytes())  # (what the operator is told to do)
    connection.close()
    engine.dispose()
    assert saved.stat().st_size > 0


def _app(path: Path) -> Starlette:
    app = create_app(f"sqlite:///{path}", delay_ms=0, rate_limit=10_000, limits=TEST_LIMITS)
    set_secret(app)
    return app


def test_a_server_whose_file_is_deleted_writes_nothing_and_its_data_can_be_saved(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "tapete.sqlite3"
    app = _app(path)
    with TestClient(app) as client, caplog.at_level(logging.ERROR, logger="tapete.server"):
        table_id, token = new_table(client)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            seated = Session(ws)
            seated.wait_turn()  # (the computers wait for the person: the version stays)
            version = seated.version
        _remove(path)
        r = client.post("/api/tables", json={"game": "mil", "name": "Bea"})
        assert r.status_code == 503 and "try again" in r.json()["error"], r.text
        app.state.manager.tables.pop(table_id, None)  # (not in memory: opening it reads it)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            assert ws.receive_json()["code"] == "unavailable"
        assert not path.exists()
        # the operator does what the line says, while the server still runs
        [line] = [r.getMessage() for r in caplog.records if "was deleted" in r.getMessage()]
        words = line.split()
        for at, word in enumerate(words):
            if word.startswith("/proc/"):
                Path(words[at + 2].rstrip(",")).write_bytes(Path(word).read_bytes())
        assert path.exists()
    with TestClient(_app(path)) as client:  # ... and restarts it: the table is back
        assert client.get(f"/api/tables/{table_id}").json()["status"] == "playing"
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            again = ws.receive_json()
        assert again["type"] == "view" and again["version"] == version
