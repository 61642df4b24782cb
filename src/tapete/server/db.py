"""Persistence: SQLAlchemy models, the engine, and the Alembic upgrade run at start-up.

The schema (docs/dev/protocol.md, "Persistence"): ``tables`` (one row a table), ``actions``
(the append-only log: one row per applied action, in order), ``player_stats`` (one row per
player name, game and profile), ``ranking`` (one row per won game), ``deal_reviews`` (one
row per analysed finished deal of a table, docs/server.md "Deal reviews") and
``review_queue`` (one row per finished table: how far its background analysis got).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    create_engine,
    event,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

__all__ = [
    "ActionRow",
    "Base",
    "DealReviewRow",
    "RankingRow",
    "ReviewQueueRow",
    "SecretRow",
    "StatRow",
    "TableRow",
    "default_db_path",
    "default_db_url",
    "make_engine",
    "upgrade",
    "utcnow",
]

MIGRATIONS_DIR = Path(__file__).with_name("migrations")


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    __tablename__ = "tables"

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
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
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
    opened_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


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
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


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
    date: Mapped[datetime] = mapped_column(DateTime(timezone=True))


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
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


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


def default_db_path() -> Path:
    """``<user data dir>/tapete.sqlite3`` (e.g. ``~/.local/share/tapete/`` on Linux)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("tapete")) / "tapete.sqlite3"


def default_db_url() -> str:
    return f"sqlite:///{default_db_path()}"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def make_engine(url: str, *, busy_timeout_s: float = 5.0) -> Engine:
    """A SQLAlchemy engine; for SQLite, create the file's directory and turn on WAL.
    ``busy_timeout_s``: how long a statement waits for a database another program has
    locked before it fails (the server uses a short one: a write that cannot happen is
    refused and tried again, rather than freezing every table)."""
    if url.startswith("sqlite"):
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": busy_timeout_s}
        )
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    return create_engine(url, pool_pre_ping=True)


def upgrade(engine: Engine) -> None:
    """Bring the database to the newest schema (``alembic upgrade head``)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as connection:
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "head")
