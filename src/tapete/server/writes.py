"""The write path of the actions: the one thread that stores them, with group commit.

A person's action is applied in memory on the event loop (:meth:`TableManager._commit
<tapete.server.tables.TableManager._commit>`, under the table's lock) and handed here with
:meth:`ActionWriter.write_later`; its future is done once the database holds it, or failed
with the write's error. Everything below that runs in the write thread touches no game, only
the database: what a write needs of the game (its record and winner when it ended) is read
on the event loop before it is queued.

The write thread is also the one writer of the rest of the process (``DatabaseThreads.write``,
the chat, the reviews borrow :attr:`ActionWriter.pool`), so that the process never races
itself for SQLite's one write lock. docs/benchmarks.md ("Online room load") says why each
piece is as it is.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Generic, Protocol, TypeVar

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session

from tapete.game import JSON
from tapete.server.db import BUSY_ERRORS, insert_actions, utcnow

__all__ = ["KEEP_WRITE_CONNECTION_S", "ActionWriter", "Finish", "WriteItem"]

#: the write thread keeps its connection between transactions while they come at most this
#: many seconds apart (a busy room); an idle one goes back to the pool
KEEP_WRITE_CONNECTION_S = 5.0


class _Stored(Protocol):
    """What the writer reads of a table: its id (the rest is ``finish``'s)."""

    id: int


#: the tables' type (``tapete.server.tables.Table``, which this module does not import: the
#: tables import the writer)
_Table = TypeVar("_Table", bound=_Stored)

#: one action to store (``ActionWriter._write``): table, action number, seat, the action's
#: JSON and, when it ended the game, its record and winner
WriteItem = tuple[_Table, int, int, JSON, "tuple[JSON, Any] | None"]
#: a write's future and its outcome (None: stored)
Settled = tuple["asyncio.Future[None]", "Exception | None"]
#: ``finish(session, table, record, winner)``: the rows of a game's end, in the transaction
#: of its last action (``TableManager._finish``: the table's status, statistics, hooks)
Finish = Callable[[Session, _Table, JSON, Any], None]


class ActionWriter(Generic[_Table]):
    """The actions' write thread and its queue (group commit), for one :class:`TableManager
    <tapete.server.tables.TableManager>`."""

    def __init__(self, engine: Engine, finish: Finish[_Table]) -> None:
        self.engine = engine
        self._finish = finish
        #: the one thread that writes the actions (off the event loop, so that a database
        #: another program has locked holds up no other table; one thread: writes in order)
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="tapete-write")
        #: the actions waiting for the write thread (group commit, :meth:`write_later`):
        #: those that arrive while it writes go together in its next transaction
        self._queued: list[tuple[WriteItem[_Table], asyncio.Future[None]]] = []
        self._queue_lock = threading.Lock()
        self._draining = False
        #: the write thread's own connection, kept between its transactions (a pooled
        #: connection's checkout and reset cost more than a small transaction)
        self._connection: Connection | None = None
        self._connection_used = 0.0

    def write_later(self, item: WriteItem[_Table]) -> asyncio.Future[None]:
        """Queue an action for the write thread; the future is done once the database holds
        it (or failed with the write's error). Group commit: the actions queued while the
        thread writes go in its next transaction together, so that many tables acting at
        once cost one commit (and one wake-up of the thread) instead of one each; an idle
        server writes each action at once, alone."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        with self._queue_lock:
            self._queued.append((item, done))
            kick = not self._draining
        if kick:
            # the thread starts after this turn of the loop: the actions of every message
            # read in the same turn go in one transaction (a thread woken at the first one
            # wrote one or two an action at a time, at up to five times the CPU per action:
            # docs/benchmarks.md, "Online room load")
            loop.call_soon(self._kick)
        return done

    def close(self) -> None:
        """Let the writes under way end (none is cut), give the kept connection back, and
        make a fresh pool (no thread until used): the app may serve again after its
        lifespan."""
        self.pool.shutdown(wait=True)
        self._close_connection()  # (the write thread has ended)
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="tapete-write")

    def _kick(self) -> None:
        """(On the event loop, a turn after an action was queued) start the write thread on
        the queued actions, unless it has started already."""
        with self._queue_lock:
            start = bool(self._queued) and not self._draining
            self._draining = self._draining or start
        if start:
            self.pool.submit(self._drain)

    def _drain(self) -> None:
        """(The write thread) store the queued actions in one transaction and settle their
        futures, each on its event loop; queue itself again while more wait (behind the
        other jobs of the write thread, so that a busy room never starves them)."""
        while True:
            with self._queue_lock:
                batch, self._queued = self._queued, []
            outcomes = self._write_batch([item for item, _ in batch])
            by_loop: dict[asyncio.AbstractEventLoop, list[Settled]] = {}
            for (_, done), outcome in zip(batch, outcomes, strict=True):
                by_loop.setdefault(done.get_loop(), []).append((done, outcome))
            for loop, settled in by_loop.items():
                with contextlib.suppress(RuntimeError):  # (a loop closed: nobody waits)
                    loop.call_soon_threadsafe(_settle, settled)
            with self._queue_lock:
                if not self._queued:
                    self._draining = False
                    return
            try:
                self.pool.submit(self._drain)
                return
            except RuntimeError:  # the pool is shutting down: write the rest now
                continue

    def _write_batch(self, items: list[WriteItem[_Table]]) -> list[Exception | None]:
        """Store actions of several tables in one transaction; per action None or the error
        its own write would have met. When the transaction fails for another reason than a
        busy database, each action is written again alone, so that one table's refused
        write never refuses another's."""
        if len(items) == 1:
            return [self._attempt(items[0])]
        try:
            self._transaction(items)
            return [None] * len(items)
        except BUSY_ERRORS as exc:  # (locked, unreachable: every write alone would wait too)
            return [exc] * len(items)
        except Exception:
            return [self._attempt(item) for item in items]

    def _attempt(self, item: WriteItem[_Table]) -> Exception | None:
        try:
            self._write(*item)
        except Exception as exc:
            return exc
        return None

    def _write(
        self, table: _Table, n: int, seat: int, data: JSON, finished: tuple[JSON, Any] | None
    ) -> None:
        """Action ``n`` (and, with ``finished``, the game's end) in one transaction (in the
        write thread: it touches no game, only the database)."""
        self._transaction([(table, n, seat, data, finished)])

    def _transaction(self, items: list[WriteItem[_Table]]) -> None:
        """(The write thread) ``items`` stored in one transaction on the thread's kept
        connection. A connection idle for :data:`KEEP_WRITE_CONNECTION_S` is given back and
        a new one taken from the pool (checked there before use). A kept connection found
        dead before the commit (the database server restarted or cut it meanwhile: nothing
        was stored) is replaced once, as the pool's check would have done. After any error
        the connection is closed (its transaction rolled back) and the next write takes a
        new one."""
        connection = self._connection
        now = time.monotonic()
        if connection is not None and now - self._connection_used > KEEP_WRITE_CONNECTION_S:
            self._close_connection()
            connection = None
        kept = connection is not None and not connection.closed
        if not kept:
            connection = self._connection = self.engine.connect()
        assert connection is not None
        self._connection_used = now
        try:
            transaction = connection.begin()
            try:
                self._store(connection, items)
            except DBAPIError as exc:
                with contextlib.suppress(Exception):
                    transaction.rollback()
                if not (kept and exc.connection_invalidated):
                    raise
                # (dead before anything was stored: once more on a fresh connection)
                self._close_connection()
                connection = self._connection = self.engine.connect()
                transaction = connection.begin()
                self._store(connection, items)
            transaction.commit()
        except BaseException:
            self._close_connection()
            raise

    def _close_connection(self) -> None:
        """Give the kept connection back (after a failed write, when it was idle too long,
        and when the writer closes, once the write thread has ended)."""
        connection, self._connection = self._connection, None
        if connection is not None:
            with contextlib.suppress(Exception):
                connection.close()

    def _store(self, connection: Any, items: list[WriteItem[_Table]]) -> None:
        """The rows of ``items`` (actions, and the ends of the games they finished)."""
        insert_actions(
            connection, [(table.id, n, seat, data) for table, n, seat, data, _ in items], utcnow()
        )
        for table, _, _, _, finished in items:
            if finished is not None:
                with Session(bind=connection) as session:
                    self._finish(session, table, *finished)
                    session.flush()


def _settle(settled: list[Settled]) -> None:
    """(On the event loop) the writes' futures done: None, or failed with their errors."""
    for done, outcome in settled:
        if done.done():
            continue
        if outcome is None:
            done.set_result(None)
        else:
            done.set_exception(outcome)
