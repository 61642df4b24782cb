"""Fixtures for the server tests: an app on a temporary database, with no bot delay.

Every test that uses the database (``db_url``, and so ``make_app``, ``app``, ``client``) runs
twice: on a SQLite file (``[sqlite]``) and on a PostgreSQL database of its own
(``[postgresql]``, db_helpers.py). A test marked ``sqlite_only`` (HTTP and message checks that
the database does not change) runs on SQLite alone.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import uvicorn
from starlette.applications import Starlette

with warnings.catch_warnings():
    # Starlette 1.x prefers httpx2 for its test client; httpx works the same here.
    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from starlette.testclient import TestClient

from db_helpers import Databases, admin_connection, drop_leftovers
from server_helpers import TEST_LIMITS, MakeApp, set_secret

from serving import free_port, uvicorn_thread
from tapete.server.app import create_app
from tapete.server.review import ReviewSettings

DATABASES = ("sqlite", "postgresql")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Run every test that uses ``db_url`` on each database (the ``sqlite_only`` ones on
    SQLite only)."""
    if "db_url" not in metafunc.fixturenames:
        return
    only = metafunc.definition.get_closest_marker("sqlite_only") is not None
    metafunc.parametrize("db_url", ["sqlite"] if only else DATABASES, indirect=True)


@pytest.fixture(scope="session")
def postgres_admin() -> Iterator[psycopg.Connection[Any]]:
    """A connection to the PostgreSQL server's maintenance database (the test fails when the
    server does not answer); the databases of killed runs are dropped first."""
    admin = admin_connection()
    drop_leftovers(admin)
    yield admin
    admin.close()


@pytest.fixture
def postgres_databases(postgres_admin: psycopg.Connection[Any]) -> Iterator[Databases]:
    """``postgres_databases.new()``: the URL of a new empty PostgreSQL database, dropped at
    the end of the test."""
    databases = Databases(postgres_admin)
    yield databases
    databases.drop_all()


@pytest.fixture
def new_db_url(db_url: str, request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], str]:
    """``new_db_url()``: the URL of another new empty database of the test's kind (besides
    ``db_url``)."""
    count = iter(range(1_000_000))

    def new() -> str:
        if db_url.startswith("postgresql"):
            databases: Databases = request.getfixturevalue("postgres_databases")
            return databases.new()
        return f"sqlite:///{tmp_path / f'tapete-{next(count)}.sqlite3'}"

    return new


@pytest.fixture
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of the test's empty database: a SQLite file, or (``[postgresql]``) a
    PostgreSQL database of the test's own."""
    if request.param == "postgresql":
        databases: Databases = request.getfixturevalue("postgres_databases")
        return databases.new()
    return f"sqlite:///{tmp_path / 'tapete.sqlite3'}"


@pytest.fixture
def make_app(db_url: str) -> MakeApp:
    """``make_app(**options)``: a new app on the test's database (delay 0; automated
    players act faster than a person, so the rate limits on messages, hints and new tables
    are lifted unless given; no background analysis of finished games unless ``review``
    asks for it: the tests that count analyses decide when they happen)."""

    def make(**options: Any) -> Starlette:
        options.setdefault("delay_ms", 0)
        options.setdefault("review", ReviewSettings(background=False))
        options.setdefault("rate_limit", 10_000)
        options.setdefault("limits", TEST_LIMITS)
        app = create_app(db_url, **options)
        set_secret(app)  # the computer players' choices are the same in every run
        return app

    return make


@pytest.fixture
def app(make_app: MakeApp) -> Starlette:
    return make_app()


@pytest.fixture
def client(app: Starlette) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


@pytest.fixture
def served(make_app: MakeApp) -> Iterator[tuple[str, Starlette]]:
    """An app under uvicorn on loopback: its ``host:port`` and the app."""
    port = free_port()
    app = make_app()
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", ws_max_size=65536
    )
    with uvicorn_thread(config):
        yield f"127.0.0.1:{port}", app
