"""The databases of the server tests: a SQLite file, or a PostgreSQL database of the test's own.

Every server test that touches the database runs on both (``conftest.py`` parametrizes the
``db_url`` fixture). PostgreSQL: the server at ``TAPETE_TEST_POSTGRESQL`` (default
``postgresql://postgres@127.0.0.1:5432/postgres``, trust authentication; the database named
there is only used to create and drop others). Each test gets a database with a name of its
own (``tapete_test_<pid>_<random>``: the pytest-xdist workers never meet) and drops it at
the end, after ending the connections still open to it. A server that does not answer makes
the tests fail, never skip: CI runs every test on both databases.

The Alembic helpers (``revisions``, ``upgrade_to``) read the migration chain from the
script directory, so that the migration tests follow any chain of revisions.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from sqlalchemy import URL, make_url
from sqlalchemy.engine import Engine

from tapete.server.db import MIGRATIONS_DIR

#: the maintenance database of the PostgreSQL server the tests use (a libpq URL)
ADMIN_URL = os.environ.get(
    "TAPETE_TEST_POSTGRESQL", "postgresql://postgres@127.0.0.1:5432/postgres"
)

#: the prefix of every database the tests make
PREFIX = "tapete_test_"


def admin_connection() -> psycopg.Connection[Any]:
    """A connection to the maintenance database (autocommit: CREATE and DROP DATABASE run
    outside a transaction); fails the test with what and where when the server does not
    answer."""
    try:
        return psycopg.connect(ADMIN_URL, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        reason = " ".join(str(exc).split())
        pytest.fail(
            f"the PostgreSQL server for the server tests does not answer at {ADMIN_URL} "
            f"({reason}). The server tests run on SQLite and on PostgreSQL: start PostgreSQL "
            "there (trust authentication for the user), or set TAPETE_TEST_POSTGRESQL to the "
            "URL of a maintenance database of a server that the tests may create databases on",
            pytrace=False,
        )


def database_url(name: str) -> str:
    """The SQLAlchemy URL (psycopg 3) of database ``name`` on the tests' server."""
    admin = make_url(ADMIN_URL)
    url: URL = admin.set(drivername="postgresql+psycopg", database=name)
    return url.render_as_string(hide_password=False)


def create_database(admin: psycopg.Connection[Any]) -> str:
    """A new empty database with a name nobody else uses; its name."""
    name = f"{PREFIX}{os.getpid()}_{uuid.uuid4().hex[:12]}"
    admin.execute(f"CREATE DATABASE \"{name}\" TEMPLATE template0 ENCODING 'UTF8'")
    return name


def drop_database(admin: psycopg.Connection[Any], name: str) -> None:
    """Drop ``name`` after ending the connections still open to it (an app a test did not
    close, a pool the garbage collector has not reached)."""
    admin.execute(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
        "WHERE datname = %s AND pid <> pg_backend_pid()",
        [name],
    )
    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def drop_leftovers(admin: psycopg.Connection[Any]) -> list[str]:
    """Drop the test databases of test processes of this machine that are gone (a run
    killed before its teardown); the databases of running processes stay."""
    host = make_url(ADMIN_URL).host or "localhost"
    if host not in ("127.0.0.1", "localhost", "::1"):
        return []  # another machine's processes cannot be told apart from ours
    dropped = []
    rows = admin.execute(
        "SELECT datname FROM pg_database WHERE datname LIKE %s", [PREFIX.replace("_", r"\_") + "%"]
    ).fetchall()
    for (name,) in rows:
        pid = name.removeprefix(PREFIX).split("_")[0]
        if pid.isdigit() and not _alive(int(pid)):
            try:
                drop_database(admin, name)
            except psycopg.Error:  # (another worker dropping it at the same moment)
                continue
            dropped.append(name)
    return dropped


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class Databases:
    """Makes the databases of one test and drops them at its end."""

    def __init__(self, admin: psycopg.Connection[Any]) -> None:
        self.admin = admin
        self.names: list[str] = []

    def new(self) -> str:
        """The URL of a new empty PostgreSQL database."""
        name = create_database(self.admin)
        self.names.append(name)
        return database_url(name)

    def drop_all(self) -> None:
        for name in self.names:
            drop_database(self.admin, name)
        self.names.clear()


# ---------------------------------------------------------------------- another program's lock


@contextlib.contextmanager
def write_lock(db_url: str) -> Iterator[None]:
    """Another program holds the database's write lock meanwhile: SQLite ``BEGIN
    IMMEDIATE``; PostgreSQL ``LOCK TABLE ... IN EXCLUSIVE MODE`` on every table of the
    schema (reads go on, writes wait), the nearest to SQLite's write lock."""
    if db_url.startswith("sqlite"):
        import sqlite3

        other = sqlite3.connect(db_url.removeprefix("sqlite:///"), isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            other.execute("ROLLBACK")
            other.close()
        return
    url = make_url(db_url).set(drivername="postgresql")
    with psycopg.connect(url.render_as_string(hide_password=False)) as other:
        names = [
            n
            for (n,) in other.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"
            )
        ]
        other.execute(f"LOCK TABLE {', '.join(names)} IN EXCLUSIVE MODE")
        try:
            yield
        finally:
            other.rollback()


# ---------------------------------------------------------------------- Alembic


def _config() -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    return cfg


def revisions() -> list[str]:
    """The revisions of the migration chain, oldest first (as the script directory holds
    them: any chain, not a list written here)."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory.from_config(_config())
    heads = script.get_heads()
    assert len(heads) == 1, f"the migrations have {len(heads)} heads: {heads}"
    return [s.revision for s in reversed(list(script.walk_revisions("base", heads[0])))]


def upgrade_to(engine: Engine, revision: str) -> None:
    """``alembic upgrade <revision>`` on ``engine``'s database."""
    from alembic import command

    cfg = _config()
    with engine.begin() as connection:
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, revision)


def current_revision(engine: Engine) -> str | None:
    from alembic.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()
