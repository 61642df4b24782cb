"""Persistence: SQLAlchemy models, the engine, and the Alembic upgrade run at start-up.

The schema (docs/dev/protocol.md, "Persistence"): ``tables`` (one row a table), ``actions``
(the append-only log: one row per applied action, in order), ``player_stats`` (one row per
player name, game and profile), ``table_seats`` (one row per seat of a table made since
the online room), ``ranking`` (one row per won game), ``deal_reviews`` (one
row per analysed finished deal of a table, docs/server.md "Deal reviews"),
``review_queue`` (one row per finished table: how far its background analysis got) and
``table_chat`` (a table's last chat lines).

Two databases are supported (docs/server.md, "PostgreSQL"): SQLite, the embedded default, and
PostgreSQL through psycopg 3 (``postgresql+psycopg://user@host/tapete``). The models use
SQLAlchemy's generic types only; what differs between the two is in :func:`make_engine`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import os
import sqlite3
import threading
import time
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

import orjson
from sqlalchemy import (
    JSON,
    URL,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    create_engine,
    event,
    insert,
    make_url,
)
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection, Dialect, Engine, ExceptionContext
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
from sqlalchemy.types import TypeDecorator

__all__ = [
    "BUSY_ERRORS",
    "ActionRow",
    "Base",
    "ChatRow",
    "DatabaseError",
    "DatabaseThreads",
    "DealReviewRow",
    "RankingRow",
    "ReviewQueueRow",
    "SeatRow",
    "SecretRow",
    "StatRow",
    "TableRow",
    "UTCDateTime",
    "database_url",
    "default_db_path",
    "default_db_url",
    "insert_actions",
    "make_engine",
    "shown_url",
    "upgrade",
    "utcnow",
]

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


def utcnow() -> datetime:
    return datetime.now(UTC)


_P = ParamSpec("_P")
_T = TypeVar("_T")


class DatabaseThreads:
    """The worker threads that run the database work of the server's requests (reading a
    table that is not in memory, the lobby, the lists, a player's page, a session cookie;
    creating a table, taking a seat): the event loop never waits for the database, so a
    slow query, a PostgreSQL server that stops answering or a SQLite file another program
    holds locked delays that request only, not every table's moves (docs/server.md, "The
    event loop never waits for the database"). The actions have their own write thread
    (``ActionWriter.pool``, :mod:`tapete.server.writes`), the computer players theirs.

    Reads (:meth:`run`) go to ``workers`` threads. Writes (:meth:`write`) go to the one
    thread that ``writer()`` gives (the server's: the actions' write thread), one transaction
    at a time, so that the process never races itself for SQLite's one write lock: the
    loser waits at most ``Limits.busy_timeout_s`` and its request fails (at 1,000 tables a
    wave of new games, each made by sit-downs, had the request threads and the action writer
    racing for the lock, and a few seatings got 503 and an action ``not_saved``).

    The threads are made when first used, and again after :meth:`shutdown` (an app may serve
    again after its lifespan)."""

    def __init__(self, workers: int, writer: Callable[[], Executor] | None = None) -> None:
        self.workers = max(1, workers)
        self._pool: ThreadPoolExecutor | None = None
        self._writer = writer
        self._own_writer: ThreadPoolExecutor | None = None

    async def run(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """``fn(*args, **kwargs)`` (database reads) in one of the threads; its result or
        exception."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="tapete-db")
        call = functools.partial(fn, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(self._pool, call)

    async def read(
        self,
        sessions: Callable[[], Session],
        fn: Callable[Concatenate[Session, _P], _T],
        /,
        *args: _P.args,
        **kwargs: _P.kwargs,
    ) -> _T:
        """``fn(session, *args, **kwargs)`` in a session of ``sessions`` (a query that reads:
        a page's, a list's), in one of the threads."""

        def call() -> _T:
            with sessions() as session:
                return fn(session, *args, **kwargs)

        return await self.run(call)

    async def write(self, fn: Callable[_P, _T], /, *args: _P.args, **kwargs: _P.kwargs) -> _T:
        """``fn(*args, **kwargs)`` (a transaction that writes) in the writes' thread, after
        the writes asked for before it."""
        if self._writer is not None:
            writer: Executor = self._writer()
        else:
            if self._own_writer is None:
                self._own_writer = ThreadPoolExecutor(1, thread_name_prefix="tapete-db-write")
            writer = self._own_writer
        call = functools.partial(fn, *args, **kwargs)
        return await asyncio.get_running_loop().run_in_executor(writer, call)

    def shutdown(self) -> None:
        """Drop the threads (not ``writer()``'s: its owner's). The reads waiting for a
        thread are cancelled and those under way end on their own (the server stops without
        waiting for a database that no longer answers); the writes under way end first."""
        reads, writes, self._pool, self._own_writer = self._pool, self._own_writer, None, None
        if reads is not None:
            reads.shutdown(wait=False, cancel_futures=True)
        if writes is not None:
            writes.shutdown(wait=True, cancel_futures=True)


class UTCDateTime(TypeDecorator[datetime]):
    """A moment in UTC (``DateTime(timezone=True)`` in the schema), the same on both
    databases: stored as UTC (a naive value is taken as UTC), read back as a naive UTC
    datetime. SQLite keeps no time zone and gives naive values back; PostgreSQL's
    ``timestamptz`` gives aware ones in the session's time zone: both read the same here."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None or value.tzinfo is None:
            return value
        return value.astimezone(UTC).replace(tzinfo=None)


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    __tablename__ = "tables"
    __table_args__ = (Index("ix_tables_invite", "invite", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game: Mapped[str] = mapped_column(String(16))
    profile: Mapped[str] = mapped_column(String(16))
    seed: Mapped[int] = mapped_column(BigInteger)
    players: Mapped[list[str]] = mapped_column(JSON)
    #: one entry per seat: null for a person, the bot level for a computer seat
    levels: Mapped[list[str | None]] = mapped_column(JSON)
    token: Mapped[str] = mapped_column(String(64))
    language: Mapped[str] = mapped_column(String(8))
    status: Mapped[str] = mapped_column(String(16), index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    winner: Mapped[int | None] = mapped_column(Integer, nullable=True)
    final_scores: Mapped[list[float] | None] = mapped_column(JSON, nullable=True)
    #: the person's name (seat 0), to list a player's tables
    owner: Mapped[str] = mapped_column(String(64), index=True)
    #: a limit on the number of deals (tests, benchmarks); such games are not ranked
    max_deals: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: the position the game starts from (a record's ``start``); None for a new game
    start: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    #: the person chose the seed (the deal): the game is not ranked and adds no statistics
    seed_chosen: Mapped[bool] = mapped_column(Boolean, default=False)
    #: when the person first connected (None: never; such tables expire)
    opened_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    #: the invitation code (``/?join=CODE``); None for a table with no seat to take
    invite: Mapped[str | None] = mapped_column(String(64), nullable=True)
    #: a rated table: every seat a signed-in person (the ratings helper reads it)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    #: whether tokenless sockets may watch, and how many actions behind they see the game
    spectators: Mapped[bool] = mapped_column(Boolean, default=True)
    spectator_delay: Mapped[int] = mapped_column(Integer, default=0)
    #: listed in the lobby (a public table); private tables are reached by the invitation only
    listed: Mapped[bool] = mapped_column(Boolean, default=False)
    #: made by ``POST /api/quick`` (others may join it from there); computers fill its free
    #: seats ``fill_after_s`` seconds after it was made (None: never)
    quick: Mapped[bool] = mapped_column(Boolean, default=False)
    fill_after_s: Mapped[float | None] = mapped_column(Float, nullable=True)
    #: the clock settings (``tapete.server.clock.ClockSettings`` JSON; None: the defaults)
    clock: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    #: the seats whose person abandoned the game (counted last in a rated game)
    abandoned_seats: Mapped[list[int] | None] = mapped_column(JSON, nullable=True)


class SeatRow(Base):
    """One seat of a table: ``kind`` is ``person`` (taken: ``name``, ``token``, perhaps
    ``user_id``), ``open`` (anyone may take it), ``reserved`` (for an invited person: only with
    the invitation code) or ``computer`` (``level``). Tables made before these rows existed
    have none: their seats come from ``tables.levels`` and ``tables.token``."""

    __tablename__ = "table_seats"
    #: a player page lists the tables where its name sat (tapete.server.players)
    __table_args__ = (Index("ix_table_seats_name", "name"),)

    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    user_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: the seat's secret (compared with ``hmac.compare_digest``; never listed)
    token: Mapped[str | None] = mapped_column(String(64), nullable=True)
    level: Mapped[str | None] = mapped_column(String(16), nullable=True)
    joined_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)


class SecretRow(Base):
    """The server's secrets, made once per database (``bot_rng``: the key of the computer
    players' random numbers). Never sent to a client."""

    __tablename__ = "server_secrets"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[str] = mapped_column(String(128))


class ActionRow(Base):
    __tablename__ = "actions"

    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    n: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    action: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class StatRow(Base):
    __tablename__ = "player_stats"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    game: Mapped[str] = mapped_column(String(16), primary_key=True)
    profile: Mapped[str] = mapped_column(String(16), primary_key=True)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    points_total: Mapped[float] = mapped_column(Float, default=0.0)
    contracts_made: Mapped[int] = mapped_column(Integer, default=0)
    contracts_failed: Mapped[int] = mapped_column(Integer, default=0)
    barrel_visits: Mapped[int] = mapped_column(Integer, default=0)


class RankingRow(Base):
    __tablename__ = "ranking"
    __table_args__ = (Index("ix_ranking_board", "game", "target", "score"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64), index=True)
    game: Mapped[str] = mapped_column(String(16))
    profile: Mapped[str] = mapped_column(String(16))
    #: 1000 or 500 for Mil, the match target (7) for Mariage
    target: Mapped[int] = mapped_column(Integer)
    score: Mapped[float] = mapped_column(Float)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id"), unique=True)
    date: Mapped[datetime] = mapped_column(UTCDateTime)


class DealReviewRow(Base):
    """The review of one finished deal of a table (``tapete.server.review``): written once,
    when its analysis is done, and never changed."""

    __tablename__ = "deal_reviews"

    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    #: the deal's index in the table's record (from 0)
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    #: judged open-handed only (``analyse_deal(quick=True)``)
    quick: Mapped[bool] = mapped_column(Boolean)
    seed: Mapped[int] = mapped_column(Integer)
    #: per seat, the loss its statistics count (the expected loss; the open loss when quick)
    seat_losses: Mapped[list[float]] = mapped_column(JSON)
    #: what ``GET /api/tables/{id}/review/{deal}`` answers: the report and the deal's steps
    review: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


class ReviewQueueRow(Base):
    """How far the background analysis of one finished table's deals got
    (``tapete.server.review``): a row is added when the server first sees the table finished,
    and ``next_deal`` moves on as its deals are analysed and stored in ``deal_reviews``."""

    __tablename__ = "review_queue"

    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    #: the number of the table's deals (None: not counted yet, the record is read first)
    deals: Mapped[int | None] = mapped_column(Integer, nullable=True)
    #: the first deal not analysed yet
    next_deal: Mapped[int] = mapped_column(Integer, default=0)
    #: failed analyses of ``next_deal`` in a row (past a few, the deal is skipped)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    #: deals given up after failing again and again (logged)
    skipped: Mapped[int] = mapped_column(Integer, default=0)
    added_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    #: when the last deal was done (None: still waiting)
    done_at: Mapped[datetime | None] = mapped_column(
        DateTime(timezone=True), nullable=True, index=True
    )


class ChatRow(Base):
    """One chat line of a table (``TableManager.say``): the table keeps its last
    ``CHAT_LINES`` lines (the older ones are deleted as new ones come), so that a rebuilt
    table, after a restart too, sends them to a seat that (re)connects."""

    __tablename__ = "table_chat"
    __table_args__ = (Index("ix_table_chat_table", "table_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(Text)
    #: the table's version when the line was said
    version: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)


def default_db_path() -> Path:
    """``<user data dir>/tapete.sqlite3`` (e.g. ``~/.local/share/tapete/`` on Linux)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("tapete")) / "tapete.sqlite3"


def default_db_url() -> str:
    return f"sqlite:///{default_db_path()}"


#: the errors that mean "the database cannot be used just now" (SQLite locked by another
#: program; PostgreSQL unreachable, restarting, a lock or statement timeout, a deadlock or a
#: serialization failure; every pooled connection in use): the request may be tried again
BUSY_ERRORS: tuple[type[Exception], ...] = (sa_exc.OperationalError, sa_exc.TimeoutError)

#: ``insert_actions``'s statement per dialect (the driver's placeholders)
_INSERT_ACTIONS_SQL = {
    "sqlite": "INSERT INTO actions (table_id, n, seat, action, created_at) VALUES (?, ?, ?, ?, ?)",
    "postgresql": "INSERT INTO actions (table_id, n, seat, action, created_at) "
    "VALUES (%s, %s, %s, %s::json, %s)",
}


def insert_actions(
    connection: Connection, rows: list[tuple[int, int, int, dict[str, Any]]], when: datetime
) -> None:
    """Store action rows ``(table_id, n, seat, action)`` written at ``when``: the write of
    every action of every table, so it goes through the driver's ``executemany`` as plain
    SQL (``exec_driver_sql``: SQLAlchemy's events, errors and transaction, without the ORM
    statement's compilation and per-value processing, which cost more than SQLite's insert
    itself: docs/benchmarks.md, "Online room load"). The stored values are those the ORM
    would store: the action as JSON text, the moment through the column's own type."""
    sql = _INSERT_ACTIONS_SQL.get(connection.dialect.name)
    if sql is None:  # (another database: the ORM's statement)
        connection.execute(
            insert(ActionRow),
            [
                {"table_id": t, "n": n, "seat": seat, "action": a, "created_at": when}
                for t, n, seat, a in rows
            ],
        )
        return
    # (the moment as the ORM binds it: the column type's own processing, once a batch)
    process = ActionRow.__table__.c.created_at.type.bind_processor(connection.dialect)
    stamp = when if process is None else process(when)
    connection.exec_driver_sql(
        sql,
        [(t, n, seat, orjson.dumps(a).decode(), stamp) for t, n, seat, a in rows],
    )


#: the dialects Tapete's schema is tested on
_DIALECTS = {"sqlite": "SQLite", "postgresql": "PostgreSQL"}
_EXAMPLES = (
    "for example sqlite:////home/ana/tapete.db or postgresql+psycopg://tapete@localhost/tapete"
)

#: the key of the PostgreSQL advisory lock held while the migrations run (two servers that
#: start at once on one database upgrade it one after the other); "tapete" in ASCII
_MIGRATION_LOCK = 0x746170657465


class DatabaseError(RuntimeError):
    """The database cannot be used: a malformed URL, an unsupported database, a missing
    driver, a server that does not answer. The message says what and where (the URL with
    its password hidden)."""


def shown_url(url: str | URL) -> str:
    """``url`` as it may be printed: with its password hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (sa_exc.ArgumentError, ValueError):
        return repr(str(url))


def database_url(url: str | URL) -> URL:
    """The parsed URL of a database Tapete supports; raise :class:`DatabaseError` when it
    is not one. ``postgresql://`` and ``postgres://`` mean psycopg 3 (the driver the
    ``postgresql`` extra installs)."""
    try:
        parsed = make_url(url)
    except (sa_exc.ArgumentError, ValueError):  # (ValueError: a port that is no number)
        raise DatabaseError(f"{str(url)!r} is not a database URL ({_EXAMPLES})") from None
    if parsed.drivername in ("postgres", "postgresql"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    backend = parsed.get_backend_name()
    if backend not in _DIALECTS:
        raise DatabaseError(
            f"{shown_url(parsed)}: Tapete runs on SQLite or PostgreSQL, not {backend!r} "
            f"({_EXAMPLES})"
        )
    if backend == "postgresql" and not parsed.database:
        raise DatabaseError(
            f"{shown_url(parsed)} names no database: add it after the host, as in "
            "postgresql+psycopg://tapete@localhost/tapete"
        )
    return parsed


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


log = logging.getLogger("tapete.server")

#: a transaction looks whether the SQLite file is still there at most this often
#: (:class:`WatchedFile`)
FILE_CHECK_EVERY_S = 1.0


class WatchedFile:
    """The file of a SQLite database, watched while a server uses it. Deleted or replaced
    (its data folder removed, another file moved in its place), the server's open
    connections would go on writing to the deleted file, which the next start cannot find,
    and each new connection would make an empty one. So from the moment a transaction
    begins (:meth:`check`) or a connection opens on a file that is no longer the one first
    opened, every one is refused with an ``OperationalError`` (the server's usual answer to
    a database it cannot use: ``503``, ``unavailable``, ``not_saved``), and one ERROR line
    says what happened and how to save what the deleted file holds while the server runs.

    A look is one ``stat`` (15-60 microseconds on a busy machine), so a transaction looks
    only when :data:`FILE_CHECK_EVERY_S` has gone by since the last look: what is written
    meanwhile goes to the deleted file, which the line tells how to copy."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.identity: tuple[int, int] | None = None  # (device, inode) first opened
        self.lost: str | None = None  # the refusal, once the file is lost
        #: the file's own path, its links and ``..`` resolved, as ``/proc`` names the open
        #: file (a data folder reached through a link, ``--db sqlite:///../data/t.sqlite3``)
        self.real = str(path)
        self.every_s = FILE_CHECK_EVERY_S
        self._looked = -math.inf
        self._losing = threading.Lock()

    def _now(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino)

    def opened(self, *_: Any) -> None:
        """A connection opened (SQLAlchemy's ``connect``): the first sets the file's
        identity (a fresh install makes the file then)."""
        if self.identity is None:
            self.identity = self._now()
            self.real = os.path.realpath(self.path)

    def _look(self) -> str | None:
        """Look at the file now (a file first opened): the refusal once it is lost, the
        loss logged once."""
        if self.lost is None and self._now() != self.identity:
            with self._losing:  # (threads that notice it together: one line)
                if self.lost is None:
                    self.lost = (
                        f"the database file {self.path} was deleted or replaced while the "
                        "server ran: restart the server"
                    )
                    log.error("%s%s", self.lost, self._rescue())
        return self.lost

    def check(self, *_: Any) -> None:
        """Raise ``OperationalError`` if the file is lost (SQLAlchemy's ``begin``), looking
        at most every :attr:`every_s`."""
        if self.lost is None and self.identity is not None:
            now = time.monotonic()
            if now - self._looked < self.every_s:
                return
            self._looked = now
            self._look()
        if self.lost is not None:
            raise sa_exc.OperationalError("BEGIN", None, sqlite3.OperationalError(self.lost))

    def connecting(self, *_: Any) -> None:
        """Refuse to open a connection (SQLAlchemy's ``do_connect``) once the file is lost:
        SQLite would make an empty one. (A new connection always looks.)"""
        if self.identity is not None and self._look() is not None:
            raise sqlite3.OperationalError(self.lost)

    def _rescue(self) -> str:
        """How to keep what the deleted file holds (on Linux, while this process runs)."""
        fds = Path("/proc/self/fd")
        copies = []
        with contextlib.suppress(OSError):
            for fd in sorted(fds.iterdir(), key=lambda p: int(p.name)):
                with contextlib.suppress(OSError):
                    target = os.readlink(fd)
                    for end in ("", "-wal"):
                        if target == f"{self.real}{end} (deleted)":
                            copies.append(f"/proc/{os.getpid()}/fd/{fd.name} to {self.path}{end}")
        if not copies:
            return ". Every read and write is refused until then."
        return (
            ". Every read and write is refused until then, so that nothing more is written "
            "where the next start will not find it. Until this server stops, what the deleted "
            f"file holds can be saved: copy {' and '.join(dict.fromkeys(copies))}, then "
            "restart."
        )


#: libpq's connection parameters that :func:`make_engine` sets unless the URL sets them: a
#: 10 s connection timeout, the program's name, and TCP keepalives with a 20 s user timeout,
#: so that a database server that vanishes from the network (no answer, no reset) fails a
#: statement after about 20 s, where the kernel's retransmissions took about 15 minutes
#: (the request or write that meets it waits meanwhile; the event loop never does)
_POSTGRESQL_DEFAULTS: tuple[tuple[str, str | int], ...] = (
    ("connect_timeout", 10),
    ("application_name", "tapete"),
    ("keepalives", 1),
    ("keepalives_idle", 10),
    ("keepalives_interval", 5),
    ("keepalives_count", 2),
    ("tcp_user_timeout", 20_000),
)


def _why_no_folder(folder: Path, exc: OSError) -> str:
    """Why ``folder`` could not be made, for a person: a part of its path that is a file
    ("File exists" or "Not a directory" named no path), else the system's words."""
    try:
        for part in (folder, *folder.parents):
            if part.exists() and not part.is_dir():
                return f"{part} is a file, not a folder"
    except OSError:  # (a name too long to look at: the system's words say so)
        pass
    return str(exc.strerror or exc)


def make_engine(url: str | URL, *, busy_timeout_s: float = 5.0) -> Engine:
    """A SQLAlchemy engine for ``url`` (:func:`database_url`; raise :class:`DatabaseError`).

    ``busy_timeout_s``: how long a statement waits for a lock another program holds before
    it fails (the server uses a short one: a write that cannot happen is refused and tried
    again, rather than freezing every table): SQLite's busy timeout, PostgreSQL's
    ``lock_timeout``.

    SQLite: the file's directory is made, WAL, ``synchronous=NORMAL``, foreign keys on.
    PostgreSQL: a pool of 8 connections (up to 16 at busy moments; a request waits at most
    10 s for one), each checked before use and renewed after 30 minutes (a server restart or
    a firewall's idle cut costs no request), a 10 s connection timeout, TCP keepalives and
    a 20 s TCP user timeout (a server gone silent fails a statement in about 20 s, not 15
    minutes: :data:`_POSTGRESQL_DEFAULTS`), the session in UTC.
    Options given in the URL's query (``?connect_timeout=3``) win over these.

    Both: an error's text leaves out its statement's parameters (``hide_parameters``): a
    refused write is logged, and its parameters held what the log must not (the card of an
    action not applied, a seat's token, a chat line)."""
    parsed = database_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = parsed.database or ""
        engine = create_engine(
            parsed,
            connect_args={"check_same_thread": False, "timeout": busy_timeout_s},
            hide_parameters=True,
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        if path and path != ":memory:" and not path.startswith("file:"):
            try:
                Path(path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:  # (it ended the start in a traceback)
                raise DatabaseError(
                    f"cannot make the folder of the database {shown_url(url)}: "
                    f"{_why_no_folder(Path(path).parent, exc)}"
                ) from None
            watch = WatchedFile(Path(path).absolute())
            event.listen(engine, "connect", watch.opened)
            event.listen(engine, "begin", watch.check)
            event.listen(engine, "do_connect", watch.connecting)
        return engine
    settings = f"-c lock_timeout={max(1, round(busy_timeout_s * 1000))} -c TimeZone=UTC"
    query = parsed.query
    connect_args: dict[str, Any] = {
        "options": f"{settings} {query['options']}" if "options" in query else settings,
    }
    for key, value in _POSTGRESQL_DEFAULTS:
        if key not in query:
            connect_args[key] = value
    try:
        engine = create_engine(
            parsed,
            connect_args=connect_args,
            pool_size=8,
            max_overflow=8,
            pool_timeout=10,
            pool_recycle=1800,
            pool_pre_ping=True,
            pool_use_lifo=True,
            hide_parameters=True,
        )
    except (ImportError, sa_exc.NoSuchModuleError) as exc:
        raise DatabaseError(
            f"{shown_url(parsed)}: the database driver is missing ({exc}); PostgreSQL needs "
            "psycopg 3: pip install 'tapete[postgresql]' (in a checkout, as the README says: "
            ".venv/bin/pip install -c constraints.txt -e '.[postgresql]')"
        ) from None
    event.listen(engine, "handle_error", _failed_ping_is_a_lost_connection)
    return engine


def _failed_ping_is_a_lost_connection(context: ExceptionContext) -> None:
    """A pooled connection whose check before use fails, whatever the error, is thrown
    away and another one made (the pool does so for the errors the dialect knows as a lost
    connection). psycopg's check of a connection the database server had closed could fail
    with "can't change 'autocommit' now: connection in transaction status ACTIVE" (a
    ProgrammingError, while it put the connection back as it was): the request got a 500
    instead of a new connection, or the 503 of a database that is away."""
    if context.is_pre_ping:
        context.is_disconnect = True


def _reason(exc: BaseException) -> str:
    """The driver's own sentence for a failed connection, on one line."""
    orig = getattr(exc, "orig", None) or exc
    lines = [line.strip() for line in str(orig).splitlines() if line.strip()]
    return " ".join(lines) or type(orig).__name__


def upgrade(engine: Engine) -> None:
    """Bring the database to the newest schema (``alembic upgrade head``), in one
    transaction. Raise :class:`DatabaseError` when the database cannot be reached or
    opened. On PostgreSQL the upgrade holds an advisory lock (servers that start together
    take turns) and waits up to 60 s for the locks its changes need."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    try:
        connection = engine.connect()
    except sa_exc.DBAPIError as exc:
        raise DatabaseError(
            f"cannot connect to the database {shown_url(engine.url)}: {_reason(exc)}"
        ) from None
    with connection, connection.begin():
        if connection.dialect.name == "postgresql":
            connection.exec_driver_sql("SET LOCAL lock_timeout = '60s'")
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({_MIGRATION_LOCK})")
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "head")
