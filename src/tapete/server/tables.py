"""Tables: one game, its seats (a person at seat 0, computer players elsewhere) and its
append-only action log in the database.

The server is the authority. A person's action is parsed and checked here (token, turn,
version), applied by the engine, appended to the log in one transaction, and then every
connected listener gets its own view (``game.view(seat)``; spectators ``game.view(None)``)
with the events the action caused as its seat may see them (``event.for_viewer(seat)``: the
engine decides who sees a card, never the server). Nothing sent is ever built from the full
state. Computer seats play from an asyncio task
per table, paced by ``delay_ms``; a bot that raises or runs out of time plays the first
legal action instead, and the fault is logged, so a game never stalls.

A table is rebuilt from its seed and its stored actions (the engine deals only from the
seed), so a restart resumes every table exactly.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import json
import logging
import random
import secrets
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import func, insert, select, update
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session, sessionmaker

from tapete.errors import IllegalActionError, InvalidNotationError
from tapete.game import JSON, Event, Game
from tapete.games import kind, kinds
from tapete.replay import RecordError, replay_actions
from tapete.server import stats
from tapete.server.db import ActionRow, SecretRow, TableRow, utcnow
from tapete.server.i18n import error_text
from tapete.server.limits import Limits, RefusalLog

__all__ = [
    "Listener",
    "Table",
    "TableError",
    "TableManager",
    "bot_names",
    "build_game",
    "check_action_fields",
    "game_of",
    "rebuild_memory",
]

log = logging.getLogger("tapete.server")

_INSERT_ACTION = insert(ActionRow)

#: bots cheap enough to run on the event loop (the others think in a worker thread, with a
#: time limit)
_INLINE_BOTS = frozenset({"random"})

_BOT_NAMES = ("Bruno", "Carla", "Dora", "Emil")


def build_game(
    game: str,
    profile: str,
    *,
    seed: int,
    players: list[str],
    max_deals: int | None,
    start: JSON | None = None,
) -> Game:
    """A table's game: new from ``seed``, or from a position (a record's ``start``, as the
    game's registry entry reads it). Raises ``ValueError`` for a bad position."""
    return kind(game).new(profile, seed=seed, players=players, max_deals=max_deals, start=start)


def game_of(row: TableRow, cap: int | None = None) -> Game:
    """A stored table's game before any action (its seed, players and start position).
    ``cap``: the deals after which it stops when the table sets no ``max_deals`` of its own
    (:meth:`TableManager.deal_cap`)."""
    return build_game(
        row.game,
        row.profile,
        seed=row.seed,
        players=list(row.players),
        max_deals=row.max_deals if row.max_deals is not None else cap,
        start=row.start,
    )


def bot_names(person: str, count: int) -> list[str]:
    """Names for the computer seats that differ from the person's name."""
    names = [n for n in _BOT_NAMES if n.casefold() != person.casefold()]
    return names[:count]


class TableError(Exception):
    """A refused message: ``code`` is one of protocol.md's error codes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_json(self, language: str = "en") -> JSON:
        """The error message: ``message`` for a person in ``language``, ``detail`` the
        precise English sentence."""
        return {
            "type": "error",
            "code": self.code,
            "message": error_text(self.code, language, self.message),
            "detail": self.message,
        }


class Listener(Protocol):
    """A connection that receives a table's messages (a WebSocket in the app)."""

    seat: int | None

    def push(self, text: str) -> None: ...

    def close(self) -> None: ...


def check_action_fields(data: JSON, canonical: JSON) -> None:
    """Refuse fields the action does not have (``false`` flags such as
    ``"marriage": false`` are the same as leaving them out)."""
    if "seat" in data:
        raise TableError(
            "bad_message", "an action must not name a seat: the server knows whose it is"
        )
    extra = sorted(k for k, v in data.items() if k not in canonical and v is not False)
    if extra:
        raise TableError(
            "bad_message",
            f"unexpected field(s) {', '.join(map(repr, extra))} in a {data.get('type')} action",
        )


@dataclass(eq=False)
class Table:
    id: int
    game_name: str
    profile: str
    seed: int
    players: list[str]
    #: per seat: None for a person, else the bot level
    levels: list[str | None]
    token: str
    language: str
    max_deals: int | None
    game: Game
    start: JSON | None = None
    version: int = 0
    status: str = "playing"
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    listeners: set[Listener] = field(default_factory=set)
    bots: dict[int, Any] = field(default_factory=dict)
    rngs: dict[int, random.Random] = field(default_factory=dict)
    bot_task: asyncio.Task[None] | None = None
    #: set when the in-memory game can no longer be trusted (a failed write)
    broken: bool = False
    #: how many sheet rows every listener holds (the sheet's length at the last broadcast):
    #: the next broadcast sends only the rows from there (``sheet_from``)
    sheet_sent: int = 0
    #: after a rebuild from the database: the stored actions and the index of the current
    #: hand's first one, from which the computer seats' memory is rebuilt before they act
    memory: tuple[Game, list[JSON], int] | None = None
    #: the person chose the deal (the "game number"): not ranked, no statistics
    seed_chosen: bool = False
    #: the server's secret key for the computer players' random numbers (never sent)
    rng_key: bytes = field(default=b"", repr=False)

    @property
    def counts_in_stats(self) -> bool:
        """Whether the finished game adds to the players' statistics: not when it began
        from a position or the person chose its deal."""
        return self.start is None and not self.seed_chosen

    @property
    def capped(self) -> bool:
        """Whether the game stopped at the server's cap on deals with no winner (nobody
        played it to the end): the table is then ``abandoned``, not ``finished``."""
        return self.game.over and self.game.winner is None and self.max_deals is None

    @property
    def ranked(self) -> bool:
        """Whether a won game enters the Ranking: a whole game (no ``max_deals``) that
        counts in the statistics."""
        return self.counts_in_stats and self.max_deals is None

    def bot_seed(self, seat: int | None, version: int) -> int:
        """The seed of ``seat``'s random numbers at ``version``: an HMAC of the table, seat
        and version under the server's secret, so that nobody can predict the computer
        players' choices from what is public (the seed of a finished table, the moves),
        while the same server makes the same choices again after a restart."""
        message = f"tapete-bot:{self.id}:{self.seed}:{seat}:{version}".encode()
        digest = hmac.new(self.rng_key, message, hashlib.sha256).digest()
        return int.from_bytes(digest[:16], "big")

    def is_bot(self, seat: int | None) -> bool:
        return seat is not None and self.levels[seat] is not None

    def seat_for_token(self, token: str | None) -> int | None:
        """Seat 0 for the table's token, None for anything else."""
        if token and hmac.compare_digest(token.encode(), self.token.encode()):
            return 0
        return None

    def view_message(
        self, seat: int | None, events: list[Event] | None = None, sheet_from: int = 0
    ) -> JSON:
        """The ``view`` message for ``seat``: its view and what it may see of ``events``.
        With ``sheet_from`` N the view's ``sheet`` holds only its rows from index N (the
        listener holds the ones before: the sheet is sent whole once, then its new rows)."""
        view = self.game.view(seat)
        sheet = view.get("sheet")
        if sheet_from and isinstance(sheet, list):
            view = {**view, "sheet": sheet[sheet_from:]}
        return {
            "type": "view",
            "version": self.version,
            "view": view,
            "sheet_from": sheet_from,
            "events": [e.for_viewer(seat) for e in events or ()],
        }

    def info(self, seat: int | None) -> JSON:
        """The table's description for ``GET /api/tables/{id}`` (no seed while playing)."""
        out: JSON = {
            "table": self.id,
            "game": self.game_name,
            "profile": self.profile,
            "seat": seat,
            "status": self.status,
            "players": list(self.players),
            "levels": list(self.levels),
            "language": self.language,
            "version": self.version,
            "winner": self.game.winner if self.game.over else None,
            "ranked": self.ranked,
            "seed_chosen": self.seed_chosen,
        }
        if self.status == "finished":
            out["seed"] = self.seed
        return out


def rebuild_memory(table: Table, game: Game, actions: list[JSON], hand_start: int) -> None:
    """Give the computer seats back what they saw of the current hand before a restart.

    The hand is replayed through the engine from the stored actions; at every action that a
    computer seat made, that seat is shown the view it decided on then (``game.view(seat)``,
    nothing more), so that its memory (the Mariage players' record of the tricks seen) is
    what it would be had the server never stopped. A bot with ``remember(view)`` takes the
    view in without deciding; any other bot decides again with the same random numbers as
    the first time (``act``) and the decision is dropped. ``game``: the table's game before
    its first action (:func:`game_of`); ``actions``: the stored ones."""
    rng = random.Random()
    for n, _ in enumerate(replay_actions(game, actions)):
        if n < hand_start:
            continue
        seat = game.turn
        bot = table.bots.get(seat) if seat is not None else None
        if bot is not None and getattr(bot, "name", None) not in _INLINE_BOTS:
            view = game.view(seat)
            remember = getattr(bot, "remember", None)
            if callable(remember):
                remember(view)
            else:
                rng.seed(table.bot_seed(seat, n))
                bot.act(view, rng)


class TableManager:
    """Owns the tables of one server process: creation, loading, actions and bots."""

    def __init__(
        self,
        engine: Engine,
        *,
        delay_ms: int = 700,
        bot_timeout_s: float = 15.0,
        max_queue: int = 512,
        limits: Limits | None = None,
    ) -> None:
        self.engine = engine
        self.sessions = sessionmaker(engine, expire_on_commit=False)
        self.delay_s = max(0, delay_ms) / 1000
        self.bot_timeout_s = bot_timeout_s
        self.max_queue = max_queue
        self.tables: dict[int, Table] = {}
        self.limits = limits or Limits()
        #: the worker threads the computer players think in (and tables are rebuilt in)
        self.bot_pool = ThreadPoolExecutor(
            self.limits.bot_workers, thread_name_prefix="tapete-bot"
        )
        #: the one thread that writes the actions (off the event loop, so that a database
        #: another program has locked holds up no other table; one thread: writes in order)
        self.write_pool = ThreadPoolExecutor(1, thread_name_prefix="tapete-write")
        #: table id -> its latest write (done or under way): a read of that table from the
        #: database waits for it (:meth:`written`)
        self.writing: dict[int, Future[None]] = {}
        #: the tables whose person has opened them (no need to write it again)
        self.opened: set[int] = set()
        #: actions applied at any table since start (the background analysis of finished
        #: games waits while this moves: tapete.server.review)
        self.actions_applied = 0
        self.background: list[asyncio.Task[None]] = []
        self.failed_writes = RefusalLog()
        self._secret: bytes | None = None

    @property
    def secret(self) -> bytes:
        """The database's secret key for the computer players' random numbers (made by the
        migration that added it; read once)."""
        if self._secret is None:
            with self.sessions() as session:
                value = session.scalar(
                    select(SecretRow.value).where(SecretRow.name == "bot_rng")
                )
            if value is None:
                raise RuntimeError("the database has no bot_rng secret: run its migrations")
            self._secret = bytes.fromhex(value)
        return self._secret

    def deal_cap(self, game: str) -> int:
        """The deals after which a game nobody plays to the end stops (a table without its own
        ``max_deals``): ``Limits.max_game_deals``, else the game's ``GameKind.max_deals``."""
        cap = self.limits.max_game_deals
        return cap if cap is not None else kind(game).max_deals

    # ------------------------------------------------------------------ creation, loading

    def create(
        self,
        *,
        game: str,
        profile: str,
        name: str,
        language: str,
        levels: list[str],
        seed: int | None = None,
        max_deals: int | None = None,
        start: JSON | None = None,
    ) -> Table:
        """A new table with the person at seat 0 and computer players at the other seats.

        ``start`` (a record's start position) is for tests and administrators only: the
        HTTP API does not accept it. Such a table is not ranked and adds no statistics."""
        seats = kind(game).seats
        if len(levels) != seats - 1:
            raise ValueError(f"{game} needs {seats - 1} computer level(s), got {len(levels)}")
        players = [name, *bot_names(name, seats - 1)]
        seed_chosen = seed is not None
        if seed is None:
            seed = secrets.randbits(62)
        deals = max_deals if max_deals is not None else self.deal_cap(game)
        g = build_game(game, profile, seed=seed, players=players, max_deals=deals, start=start)
        token = secrets.token_urlsafe(24)
        seat_levels: list[str | None] = [None, *levels]
        with self.sessions.begin() as session:
            row = TableRow(
                game=game,
                profile=profile,
                seed=seed,
                players=players,
                levels=seat_levels,
                token=token,
                language=language,
                status="playing",
                created_at=utcnow(),
                owner=name,
                max_deals=max_deals,
                start=start,
                seed_chosen=seed_chosen,
            )
            session.add(row)
            session.flush()
            table_id = row.id
        table = self._make_table(table_id, row, g, 0)
        self.tables[table_id] = table
        return table

    def _make_table(self, table_id: int, row: TableRow, game: Game, version: int) -> Table:
        from tapete.bots import make_bot

        table = Table(
            id=table_id,
            game_name=row.game,
            profile=row.profile,
            seed=row.seed,
            players=list(row.players),
            levels=list(row.levels),
            token=row.token,
            language=row.language,
            max_deals=row.max_deals,
            game=game,
            version=version,
            status=row.status,
            start=row.start,
            seed_chosen=bool(row.seed_chosen),
            rng_key=self.secret,
        )
        for seat, level in enumerate(table.levels):
            if level is not None:
                table.bots[seat] = make_bot(row.game, level, profile=row.profile)
                table.rngs[seat] = random.Random()
        return table

    def get(self, table_id: int, *, keep: bool = True) -> Table | None:
        """The table, rebuilt from the database on first access; None if unknown. With
        ``keep=False`` a table that was not in memory is not kept there (HTTP look-ups)."""
        table = self.tables.get(table_id)
        if table is not None and not table.broken:
            return table
        with self.sessions() as session:
            row = session.get(TableRow, table_id)
            if row is None:
                return None
            actions = list(
                session.scalars(
                    select(ActionRow.action)
                    .where(ActionRow.table_id == table_id)
                    .order_by(ActionRow.n)
                )
            )
        cap: int | None = self.deal_cap(row.game)
        try:
            try:
                game, hand_start = self._replay(row, actions, cap)
            except RecordError:
                if row.max_deals is not None:
                    raise
                # played past the cap (lowered since the game began): no cap for this one
                cap = None
                game, hand_start = self._replay(row, actions, cap)
        except RecordError as exc:
            log.error("table %s: the stored actions do not replay: %s", table_id, exc)
            return None
        except ValueError as exc:
            log.error("table %s: its start position is refused: %s", table_id, exc)
            return None
        table = self._make_table(table_id, row, game, len(actions))
        if hand_start < len(actions) and not game.over:
            table.memory = (game_of(row, cap), actions, hand_start)
        if keep:
            self.tables[table_id] = table
        return table

    @staticmethod
    def _replay(row: TableRow, actions: list[JSON], cap: int | None) -> tuple[Game, int]:
        """The table's game after its stored actions, and the index of the current hand's
        first action; ``ValueError`` for a refused start, ``RecordError`` for actions that do
        not replay."""
        game = game_of(row, cap)
        hand_start = 0
        deal = game.deal_number
        for n, _ in enumerate(replay_actions(game, actions)):
            if game.deal_number != deal:  # action n - 1 began a new hand
                deal = game.deal_number
                hand_start = n
        if game.deal_number != deal:
            hand_start = len(actions)
        return game, hand_start

    def _maybe_evict(self, table: Table) -> None:
        """Forget a table nobody watches and no computer player is thinking at: the next
        access rebuilds it from the database, so memory holds only the active tables."""
        if table.listeners or table.lock.locked() or (
            table.bot_task is not None and not table.bot_task.done()
        ):
            return
        if self.tables.get(table.id) is table:
            del self.tables[table.id]

    def playing_ids(self) -> list[int]:
        with self.sessions() as session:
            return list(
                session.scalars(
                    select(TableRow.id).where(TableRow.status == "playing").order_by(TableRow.id)
                )
            )

    def resume_all(self) -> int:
        """Rebuild every unfinished table and let its computer players go on (start-up)."""
        count = 0
        for table_id in self.playing_ids():
            table = self.get(table_id)
            if table is not None:
                self.ensure_bots(table)
                self._maybe_evict(table)
                count += 1
        return count

    def live_tables(self, limit: int = 30, *, before: int | None = None) -> list[JSON]:
        """The unfinished tables, newest first, as anyone may see them (to watch one): no
        token, no seed, no card. A page of at most ``limit``; ``before``: only tables with a
        smaller id (the last id of the previous page)."""
        query = select(TableRow).where(TableRow.status == "playing")
        if before is not None:
            query = query.where(TableRow.id < before)
        with self.sessions() as session:
            rows = session.scalars(query.order_by(TableRow.id.desc()).limit(limit))
            return [
                {
                    "table": r.id,
                    "game": r.game,
                    "profile": r.profile,
                    "players": r.players,
                    "created_at": r.created_at.isoformat(),
                }
                for r in rows
            ]

    def list_tables(self, name: str, *, limit: int = 50, before: int | None = None) -> list[JSON]:
        """``name``'s tables, newest first: a page of at most ``limit``; ``before``: only
        tables with a smaller id (the last id of the previous page)."""
        query = select(TableRow).where(TableRow.owner == name)
        if before is not None:
            query = query.where(TableRow.id < before)
        with self.sessions() as session:
            rows = session.scalars(query.order_by(TableRow.id.desc()).limit(limit))
            return [
                {
                    "table": r.id,
                    "game": r.game,
                    "profile": r.profile,
                    "status": r.status,
                    "players": r.players,
                    "created_at": r.created_at.isoformat(),
                    "finished_at": r.finished_at.isoformat() if r.finished_at else None,
                    "winner": r.winner,
                    "scores": r.final_scores,
                    "ranked": r.start is None and not r.seed_chosen and r.max_deals is None,
                }
                for r in rows
            ]

    def describe(self, table_id: int, token: str | None) -> JSON | None:
        """``GET /api/tables/{id}``: the table's :meth:`Table.info` for the seat of
        ``token``, None if there is no such table. A table not in memory is described from
        its row and its number of actions, without rebuilding its game."""
        table = self.tables.get(table_id)
        if table is not None and not table.broken:
            return table.info(table.seat_for_token(token))
        with self.sessions() as session:
            row = session.get(TableRow, table_id)
            if row is None:
                return None
            version = session.scalar(
                select(func.count()).select_from(ActionRow).where(ActionRow.table_id == table_id)
            )
        seat = 0 if token and hmac.compare_digest(token.encode(), row.token.encode()) else None
        chosen = bool(row.seed_chosen)
        out: JSON = {
            "table": row.id,
            "game": row.game,
            "profile": row.profile,
            "seat": seat,
            "status": row.status,
            "players": list(row.players),
            "levels": list(row.levels),
            "language": row.language,
            "version": int(version or 0),
            "winner": row.winner,
            "ranked": row.start is None and not chosen and row.max_deals is None,
            "seed_chosen": chosen,
        }
        if row.status == "finished":
            out["seed"] = row.seed
        return out

    async def load(self, table_id: int) -> Table | None:
        """:meth:`get`, with the rebuild of a table not in memory done in a worker thread
        (a long log takes tens of milliseconds to replay: not on the event loop)."""
        table = self.tables.get(table_id)
        if table is not None and not table.broken:
            return table
        loop = asyncio.get_running_loop()
        await self.written(table_id)
        loaded = await loop.run_in_executor(
            self.bot_pool, functools.partial(self.get, table_id, keep=False)
        )
        if loaded is None:
            return None
        current = self.tables.get(table_id)
        if current is not None and not current.broken:
            return current  # loaded meanwhile by another connection
        self.tables[table_id] = loaded
        return loaded

    def stored_record(self, table_id: int) -> tuple[Table, JSON] | None:
        """The table and its :meth:`record`, read at once (for worker threads that read a
        finished game, whose last write has ended with its status: the replay viewer, the
        background analysis); None if there is no such table. Anything that may read a game
        still being played uses :meth:`record_of`, which waits for a write under way."""
        table = self.get(table_id, keep=False)
        if table is None:
            return None
        return table, self.record(table)

    async def record_of(self, table_id: int) -> tuple[Table, JSON] | None:
        """The table and its :meth:`record` as the database holds it, None if there is no
        such table. Never while an action of that table is being written: between the engine
        applying it and the write's end the game in memory is one action ahead of the
        database (an action the database may yet refuse), and the database one action behind
        it. The record is built in a worker thread: a table in memory holds its lock
        meanwhile (no action is applied there), one not in memory is rebuilt from the
        database once its last write has ended."""
        loop = asyncio.get_running_loop()
        table = self.tables.get(table_id)
        if table is not None and not table.broken:
            async with table.lock:
                if not table.broken:
                    record = await loop.run_in_executor(self.bot_pool, self.record, table)
                    done = table, record
                else:
                    done = None
            if done is not None:
                self._maybe_evict(table)  # (not forgotten while this held its lock)
                return done
        await self.written(table_id)
        loaded = await loop.run_in_executor(
            self.bot_pool, functools.partial(self.get, table_id, keep=False)
        )
        if loaded is None:
            return None
        return loaded, await loop.run_in_executor(self.bot_pool, self.record, loaded)

    async def written(self, table_id: int) -> None:
        """Wait until no write of ``table_id`` is under way (one whose table was dropped from
        memory meanwhile, e.g. a write cancelled while the server stops, still ends in the
        write thread: the database holds its action only then)."""
        pending = self.writing.get(table_id)
        if pending is not None and not pending.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(asyncio.wrap_future(pending))

    def mark_opened(self, table: Table) -> None:
        """The person connected to the table: it does not expire unopened."""
        if table.id in self.opened:
            return
        try:
            with self.sessions.begin() as session:
                session.execute(
                    update(TableRow)
                    .where(TableRow.id == table.id, TableRow.opened_at.is_(None))
                    .values(opened_at=utcnow())
                )
        except Exception as exc:  # a locked database: noted at the next connection
            self.failed_writes.note("opened", f"table {table.id}", str(exc))
            return
        self.opened.add(table.id)

    def _write_failed(self, table: Table, n: int, data: JSON, exc: Exception) -> bool:
        """After a failed write of action ``n``: put the table back as the database holds
        it (without that action), so that the connections stay and the person may try again.
        False if it cannot be rebuilt (the caller then drops it)."""
        self.failed_writes.note("write", f"table {table.id}", f"action {n} {data}: {exc}")
        table.broken = True  # so that get() rebuilds it from the database
        try:
            fresh = self.get(table.id, keep=False)
        finally:
            table.broken = False
        if fresh is None or fresh.version != n:
            log.error("table %s: not rebuilt after a failed write", table.id)
            return False
        table.game = fresh.game
        table.memory = fresh.memory
        table.status = fresh.status
        for listener in list(table.listeners):
            listener.push(json.dumps(table.view_message(listener.seat), separators=(",", ":")))
        # the computer players try again in a moment (their task ends on the failure)
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().call_later(1.0, self.ensure_bots, table)
        return True

    # ------------------------------------------------------------------ background work

    def start_background(self) -> None:
        """Start the lazy resumption of unfinished tables and the sweep of expired ones."""
        loop = asyncio.get_running_loop()
        self.background = [
            loop.create_task(self._resume_lazily(), name="tapete-resume"),
            loop.create_task(self._sweep_forever(), name="tapete-sweep"),
        ]

    async def _resume_lazily(self) -> None:
        """Rebuild the unfinished tables one at a time in a worker thread and let their
        computer players go on; a table opened meanwhile is rebuilt by its connection."""
        loop = asyncio.get_running_loop()
        count = 0
        for table_id in self.playing_ids():
            if table_id in self.tables:
                continue
            try:
                table = await loop.run_in_executor(
                    self.bot_pool, functools.partial(self.get, table_id, keep=False)
                )
            except Exception:
                log.exception("table %s: not resumed", table_id)
                continue
            if table is None or table_id in self.tables:
                continue
            if table.is_bot(table.game.turn) and not table.game.over:
                self.tables[table_id] = table
                self.ensure_bots(table)
                self._maybe_evict(table)
            count += 1
        if count:
            log.info("resumed %d unfinished table(s)", count)

    async def _sweep_forever(self) -> None:
        while True:
            try:
                self.sweep()
            except Exception:
                log.exception("the sweep of expired tables failed")
            await asyncio.sleep(self.limits.sweep_every_s)

    def sweep(self, now: datetime | None = None) -> int:
        """Close the tables nobody plays: a table its person never opened, after
        ``unopened_ttl_s`` (status ``expired``), and an unfinished table with no action for
        ``abandoned_after_s`` (status ``abandoned``). Their computer players stop; the rows
        and actions stay. Returns how many were closed."""
        now = now or utcnow()
        unopened = now - timedelta(seconds=self.limits.unopened_ttl_s)
        idle = now - timedelta(seconds=self.limits.abandoned_after_s)
        last_action = (
            select(func.max(ActionRow.created_at))
            .where(ActionRow.table_id == TableRow.id)
            .scalar_subquery()
        )
        closed: list[int] = []
        with self.sessions.begin() as session:
            for status, condition in (
                ("expired", (TableRow.opened_at.is_(None)) & (TableRow.created_at < unopened)),
                ("abandoned", func.coalesce(last_action, TableRow.created_at) < idle),
            ):
                ids = list(
                    session.scalars(
                        select(TableRow.id)
                        .where(TableRow.status == "playing", condition)
                        .limit(1000)
                    )
                )
                if ids:
                    session.execute(
                        update(TableRow)
                        .where(TableRow.id.in_(ids), TableRow.status == "playing")
                        .values(status=status, finished_at=now)
                    )
                    closed += ids
        for table_id in closed:
            table = self.tables.pop(table_id, None)
            if table is not None:
                table.status = "closed"
                table.broken = True
                if table.bot_task is not None:
                    table.bot_task.cancel()
                for listener in list(table.listeners):
                    listener.close()
        if closed:
            log.info("closed %d table(s) nobody plays", len(closed))
        return len(closed)

    def record(self, table: Table) -> JSON:
        """The tapete/1 record. While the game is on, only its finished deals, and no seed:
        the record must not reveal a card (or the seed that deals the next ones)."""
        rec = table.game.to_record()
        if table.status != "finished":
            rec = dict(rec)
            rec["seed"] = None
            rec["deals"] = [d for d in rec.get("deals", []) if d.get("result") is not None]
        return rec

    # ------------------------------------------------------------------ actions

    async def act(self, table: Table, seat: int | None, version: Any, data: Any) -> None:
        """A person's action from the wire; raises :class:`TableError` and changes nothing
        when it is refused."""
        if not isinstance(data, dict):
            raise TableError("bad_message", "'action' must be a JSON object")
        if isinstance(version, bool) or not isinstance(version, int):
            raise TableError("bad_message", "'version' must be a whole number")
        try:
            action = table.game.parse_action(data)
        except (InvalidNotationError, ValueError, KeyError, TypeError) as exc:
            raise TableError("bad_message", f"not an action: {exc}") from None
        canonical = action.to_json()
        check_action_fields(data, canonical)
        async with table.lock:
            if table.broken:
                raise TableError("stale_version", "this table is being reloaded: reconnect")
            if seat is None:
                raise TableError("not_your_turn", "spectators cannot act at this table")
            if table.game.over:
                raise TableError("not_your_turn", "the game is over")
            if table.game.turn != seat:
                raise TableError("not_your_turn", f"it is seat {table.game.turn}'s turn, not yours")
            if version != table.version:
                raise TableError(
                    "stale_version",
                    f"your view is version {version} but the table is at version "
                    f"{table.version}: look at the new view and choose again",
                )
            try:
                events = table.game.apply(action)
            except IllegalActionError as exc:
                raise TableError("illegal", str(exc)) from None
            await self._commit(table, seat, canonical, events)
        self.ensure_bots(table)

    async def _commit(self, table: Table, seat: int, data: JSON, events: list[Event]) -> None:
        """Store an applied action (``data``: its JSON, serialised once) and the end of the
        game in one transaction, then send the listeners the ``events`` it caused. The caller
        holds ``table.lock`` throughout (no other action at this table meanwhile); the write
        itself runs in the manager's write thread, so that other tables go on while the
        database is slow or locked. On a failed write the table is put back as the database
        holds it, or dropped from memory so that the next access rebuilds it."""
        n = table.version
        # what the write needs of the game is read here, on the event loop
        finished = (table.game.to_record(), table.game.winner) if table.game.over else None
        write = functools.partial(self._write, table, n, seat, data, finished)
        pending = self.writing[table.id] = self.write_pool.submit(write)
        try:
            await asyncio.wrap_future(pending)
        except asyncio.CancelledError:
            # (the server is stopping) the write may still happen: the game in memory can no
            # longer be trusted, the next access rebuilds it from the database
            table.broken = True
            if self.tables.get(table.id) is table:
                del self.tables[table.id]
            raise
        except Exception as exc:
            if self._write_failed(table, n, data, exc):
                raise TableError(
                    "not_saved", "the server could not save this action: try again"
                ) from None
            # the game in memory is one action ahead of the database: drop it, and close the
            # connections so that the clients reconnect to the table rebuilt from the log
            table.broken = True
            if self.tables.get(table.id) is table:
                del self.tables[table.id]
            for listener in list(table.listeners):
                listener.close()
            raise TableError(
                "stale_version", "the server could not save this action: reconnecting"
            ) from None
        finally:
            if pending.done() and self.writing.get(table.id) is pending:
                del self.writing[table.id]
        table.version = n + 1
        self.actions_applied += 1
        if table.game.over:
            table.status = "abandoned" if table.capped else "finished"
        self._broadcast(table, events)

    def _write(
        self, table: Table, n: int, seat: int, data: JSON, finished: tuple[JSON, Any] | None
    ) -> None:
        """Action ``n`` (and, with ``finished``, the game's end) in one transaction (in the
        write thread: it touches no game, only the database)."""
        with self.engine.begin() as connection:
            connection.execute(
                _INSERT_ACTION,
                {
                    "table_id": table.id,
                    "n": n,
                    "seat": seat,
                    "action": data,
                    "created_at": utcnow(),
                },
            )
            if finished is not None:
                with Session(bind=connection) as session:
                    self._finish(session, table, *finished)
                    session.flush()

    def _finish(self, session: Session, table: Table, record: JSON, winner: Any) -> None:
        scores = record.get(kind(table.game_name).score_key)
        now = utcnow()
        capped = winner is None and table.max_deals is None  # (Table.capped)
        session.execute(
            update(TableRow)
            .where(TableRow.id == table.id)
            .values(
                status="abandoned" if capped else "finished",
                finished_at=now,
                winner=winner,
                final_scores=scores,
            )
        )
        if capped or not table.counts_in_stats:
            # stopped at the cap on deals: nobody played it to the end; begun from a position
            # or on a chosen deal: no statistics, no Ranking
            return
        for seat, level in enumerate(table.levels):
            if level is None:
                stats.record_game(
                    session,
                    table_id=table.id,
                    name=table.players[seat],
                    seat=seat,
                    record=record,
                    when=now,
                    ranked=table.ranked,
                )

    def _broadcast(self, table: Table, events: list[Event]) -> None:
        """Send every listener its view and the events as its seat may see them (the engine
        decides who sees what: ``Event.for_viewer``); one message text per seat. Every
        listener already holds the sheet's first ``table.sheet_sent`` rows (it got them whole
        when it connected, or row by row since), so the view carries only the rows after them
        (the sheet only grows: a row, once written, never changes)."""
        texts: dict[int | None, str] = {}
        start = table.sheet_sent
        for listener in list(table.listeners):
            seat = listener.seat
            text = texts.get(seat)
            if text is None:
                message = table.view_message(seat, events, sheet_from=start)
                sheet = message["view"].get("sheet")
                if isinstance(sheet, list):
                    table.sheet_sent = start + len(sheet)
                text = texts[seat] = json.dumps(message, separators=(",", ":"))
            listener.push(text)

    async def settled(self, table: Table) -> None:
        """Wait until no action is being written at ``table``: between the engine applying it
        and the write thread storing it, the game in memory is one action ahead of the
        database and of ``table.version``; a view read after this (with no ``await`` in
        between) is one the database holds."""
        async with table.lock:
            pass

    async def settled_in_memory(self, table: Table) -> Table:
        """:meth:`settled`, for a connection about to :meth:`attach`: the table that is in
        memory for ``table.id`` once no write is under way there. While the connection waited
        for the lock, the table may have been forgotten (its computer players stopped and
        nobody was listening yet: :meth:`_maybe_evict`); it is put back then, so that no
        second copy of it is built for the next connection."""
        while True:
            await self.settled(table)
            current = self.tables.get(table.id)
            if current is table:
                return table
            if current is None or current.broken:
                if table.broken:
                    return table  # (dropped after a failed write: the caller's next access)
                self.tables[table.id] = table
                return table
            table = current  # another connection loaded it again meanwhile

    def attach(self, table: Table, listener: Listener) -> None:
        """Add a listener and send it the current view (with no events)."""
        table.listeners.add(listener)
        message = table.view_message(listener.seat)
        listener.push(json.dumps(message, separators=(",", ":")))

    def detach(self, table: Table, listener: Listener) -> None:
        table.listeners.discard(listener)
        self._maybe_evict(table)

    # ------------------------------------------------------------------ computer players

    def ensure_bots(self, table: Table) -> None:
        """Start the table's bot task if a computer seat is to act (needs a running loop)."""
        if table.game.over or not table.is_bot(table.game.turn) or table.broken:
            return
        if table.bot_task is not None and not table.bot_task.done():
            return
        table.bot_task = asyncio.get_running_loop().create_task(
            self._bot_loop(table), name=f"tapete-bots-{table.id}"
        )

    async def _bot_loop(self, table: Table) -> None:
        try:
            if table.memory is not None:
                fresh, actions, hand_start = table.memory
                table.memory = None
                try:
                    await asyncio.to_thread(rebuild_memory, table, fresh, actions, hand_start)
                except Exception:
                    log.exception("table %s: the bots' memory was not rebuilt", table.id)
            while not table.broken and not table.game.over and table.is_bot(table.game.turn):
                # pace the computer players (and always let other tables run first)
                await asyncio.sleep(self.delay_s)
                seat = table.game.turn
                assert seat is not None
                version = table.version
                view = table.game.view(seat)
                action = await self._choose(table, seat, view, version)
                async with table.lock:
                    if table.broken or table.version != version:
                        continue
                    try:
                        events = table.game.apply(action)
                    except IllegalActionError as exc:
                        log.warning(
                            "table %s: bot at seat %d chose an illegal action (%s); "
                            "playing the first legal action",
                            table.id,
                            seat,
                            exc,
                        )
                        action = table.game.legal_actions()[0]
                        events = table.game.apply(action)
                    try:
                        await self._commit(table, seat, action.to_json(), events)
                    except TableError:
                        return
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: the computer players stopped", table.id)
        finally:
            table.bot_task = None
            self._maybe_evict(table)

    async def _choose(self, table: Table, seat: int, view: JSON, version: int) -> Any:
        bot = table.bots[seat]
        rng = table.rngs[seat]
        # the same seat at the same version always draws the same numbers: reproducible
        # across restarts, and secret (Table.bot_seed)
        rng.seed(table.bot_seed(seat, version))
        try:
            if getattr(bot, "name", None) in _INLINE_BOTS:
                return bot.act(view, rng)
            loop = asyncio.get_running_loop()
            return await asyncio.wait_for(
                loop.run_in_executor(self.bot_pool, bot.act, view, rng),
                timeout=self.bot_timeout_s,
            )
        except asyncio.CancelledError:
            raise
        except TimeoutError:
            log.warning(
                "table %s: bot %s at seat %d took more than %.1f s; playing the first legal action",
                table.id,
                getattr(bot, "name", "?"),
                seat,
                self.bot_timeout_s,
            )
        except Exception:
            log.exception(
                "table %s: bot %s at seat %d failed; playing the first legal action",
                table.id,
                getattr(bot, "name", "?"),
                seat,
            )
        return table.game.legal_actions()[0]

    async def close(self) -> None:
        tasks = [t.bot_task for t in self.tables.values() if t.bot_task is not None]
        tasks += self.background
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        # a fresh pool (no thread until used): the app may serve again after its lifespan
        self.bot_pool.shutdown(wait=False, cancel_futures=True)
        self.bot_pool = ThreadPoolExecutor(self.limits.bot_workers, thread_name_prefix="tapete-bot")
        self.write_pool.shutdown(wait=True)  # (the writes under way end: none is cut)
        self.write_pool = ThreadPoolExecutor(1, thread_name_prefix="tapete-write")


def valid_profiles() -> Iterable[tuple[str, str]]:
    """Every (game, profile) a table may have."""
    for k in kinds():
        for profile in k.profiles:
            yield k.name, profile
