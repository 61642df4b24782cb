"""Deal reviews over HTTP: ``GET /api/tables/{id}/review/{deal}``.

The analysis of one finished deal of a table (:func:`tapete.analysis.analyse_deal`) with the
positions of the deal step by step (every hand open, from the engine's own views), computed
off the event loop by one worker (a process by default) behind a bounded queue, and stored
once in ``deal_reviews``: a second request, from anyone allowed, reads the stored answer.

Honesty (docs/server.md, "Deal reviews"): a deal is reviewed only once it is over. While the
game is on, only the seat's token opens a review, and only of a deal that has ended; the
deal being played is refused with 409 and nothing of it (the analysis works on the table's
record as :meth:`TableManager.record` gives it: no seed, no unfinished deal). A finished
table's deals are open to anyone, like its record.

In the background (``ReviewSettings.background``), the same worker analyses every deal of
every finished game, one deal at a time, so that the statistics' average loss covers all of a
person's deals, not only those someone asked to review. It yields: a request's review goes
first, a deal starts only when no table has acted for ``quiet_s`` seconds, the worker process
runs at a lower priority (``nice``), and its progress is kept in ``review_queue`` (one row per
finished table; migration 0008), so that it goes on after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from tapete.game import JSON
from tapete.server.db import DealReviewRow, ReviewQueueRow, TableRow, utcnow
from tapete.server.hints import WORKER_CONTEXT, stop_executor
from tapete.server.limits import path_number
from tapete.server.review_worker import compute_review, deal_steps, lower_priority
from tapete.server.security import TOKEN_PARAMETERS, seat_token
from tapete.server.tables import TableManager

__all__ = [
    "ReviewService",
    "ReviewSettings",
    "compute_review",
    "deal_steps",
    "openapi_path",
    "seat_losses",
]

log = logging.getLogger("tapete.server")


@dataclass(frozen=True)
class ReviewSettings:
    """How the server analyses deals (``create_app(review=...)``)."""

    #: judge open-handed only (``analyse_deal(quick=True)``): tests, slow machines
    quick: bool = False
    #: CPU seconds per deal (``analyse_deal(budget=...)``)
    budget: float = 10.0
    #: the sampling seed: the same deal always gets the same review
    seed: int = 0
    #: analyses queued or running at once; one more is refused with 503 and Retry-After
    max_pending: int = 8
    #: how long a request waits for its analysis before it answers 202 (ask again)
    wait_s: float = 20.0
    #: the Retry-After of a 202 or 503, in seconds
    retry_after_s: int = 3
    #: one worker process (True) or one worker thread (False: tests)
    process: bool = True
    #: analyse every deal of every finished game in the background, one at a time
    background: bool = True
    #: a background analysis starts only when no table has acted for this many seconds
    quiet_s: float = 3.0
    #: how often the background queue is looked at, in seconds
    poll_s: float = 2.0
    #: the worker process's niceness (how much lower its priority is than the games'; 0: none)
    nice: int = 10
    #: failed analyses of one deal in a row after which the background skips it
    max_failures: int = 3


def seat_losses(report: JSON) -> list[float]:
    """Per seat, the loss the statistics count: the expected loss, or the open loss of a
    quick (open-handed only) report."""
    key = "open_loss" if report.get("quick") else "expected_loss"
    return [float(s.get(key) or 0.0) for s in report["seats"]]


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


class ReviewService:
    """The endpoint, the queue in front of the one worker, and the storage of reviews."""

    def __init__(self, manager: TableManager, settings: ReviewSettings | None = None) -> None:
        self.manager = manager
        self.settings = settings or ReviewSettings()
        #: the analyses queued or running, by (table, deal); a second request for the same
        #: deal waits for the same one
        self.jobs: dict[tuple[int, int], asyncio.Task[JSON]] = {}
        #: how many analyses this server started (the tests count them)
        self.started = 0
        #: the function the worker runs (the tests may replace it in thread mode)
        self.compute: Callable[[JSON, int, bool, float, int], JSON] = compute_review
        self._executor: Executor | None = None
        #: the clock of the background's quiet check (the tests replace it)
        self.clock: Callable[[], float] = time.monotonic
        #: the background loop, and the background analysis under way (at most one)
        self._loop_task: asyncio.Task[None] | None = None
        self.background_job: asyncio.Task[None] | None = None
        #: the tables' action count at the last look, and when a table last acted
        self._seen = 0
        self._last_traffic = -math.inf
        #: the record of the table the background is going through (read once per table)
        self._record: tuple[int, JSON] | None = None

    def _pool(self) -> Executor:
        if self._executor is None:
            if self.settings.process:
                self._executor = ProcessPoolExecutor(
                    max_workers=1,
                    mp_context=WORKER_CONTEXT,
                    initializer=lower_priority,
                    initargs=(self.settings.nice,),
                )
            else:
                self._executor = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix="tapete-review"
                )
        return self._executor

    def _retry(self) -> dict[str, str]:
        return {"Retry-After": str(self.settings.retry_after_s)}

    def stored(self, table_id: int, deal: int) -> JSON | None:
        with self.manager.sessions() as session:
            row = session.get(DealReviewRow, (table_id, deal))
            return None if row is None else dict(row.review)

    def _store(self, table_id: int, deal: int, review: JSON) -> None:
        row = DealReviewRow(
            table_id=table_id,
            deal=deal,
            quick=bool(review["report"].get("quick")),
            seed=self.settings.seed,
            seat_losses=seat_losses(review["report"]),
            review=review,
            created_at=utcnow(),
        )
        try:
            with self.manager.sessions.begin() as session:
                session.add(row)
        except IntegrityError:
            pass  # another server process stored the same review first

    async def _run(self, key: tuple[int, int], record: JSON) -> JSON:
        table_id, deal = key
        s = self.settings
        try:
            # (an analysis of the same deal that ended while the request looked for one has
            # stored it: not computed twice)
            done = await self.manager.db.run(self.stored, table_id, deal)
            if done is not None:
                return done
            loop = asyncio.get_running_loop()
            self.started += 1
            pool = self._pool()
            try:
                review = await loop.run_in_executor(
                    pool, self.compute, record, deal, s.quick, s.budget, s.seed
                )
            except BrokenProcessPool:
                # the worker died (killed, out of memory): the next review starts a new one
                if self._executor is pool:
                    self._executor = None
                    pool.shutdown(wait=False, cancel_futures=True)
                raise
            # in the tables' write thread: after (never during) a game's own write
            await loop.run_in_executor(
                self.manager.writer.pool, self._store, table_id, deal, review
            )
            return review
        finally:
            self.jobs.pop(key, None)

    @staticmethod
    def _done(task: asyncio.Task[JSON]) -> None:
        if not task.cancelled() and task.exception() is not None:
            log.error("a deal review failed", exc_info=task.exception())

    def _answer(self, table_id: int, deal: int, review: JSON) -> JSONResponse:
        return JSONResponse({"table": table_id, "deal": deal, **review})

    async def endpoint(self, request: Request) -> Response:
        """``GET /api/tables/{table_id}/review/{deal}`` (the seat's token in
        ``X-Tapete-Token``, or ``?token=``)."""
        raw_id = request.path_params["table_id"]
        raw_deal = request.path_params["deal"]
        table_id, deal = path_number(raw_id, 18), path_number(raw_deal, 6)
        if table_id is None:
            return _error(404, "there is no such table")
        if deal is None:
            return _error(400, "the deal must be a whole number: its index in the game, from 0")
        # (a game stopped at the cap on deals is over too: its end window and replay offer
        # the reviews to anyone, as a finished game's)
        over = await self.manager.db.run(self.manager.stored_over, table_id)
        if over is None:
            return _error(404, "there is no such table")
        token = seat_token(request)
        seat = await self.manager.seat_of(table_id, token)
        if token and seat is None:
            return _error(403, "this token does not belong to this table")
        if not over and seat is None:
            return _error(403, "the review of a deal of an unfinished game needs the seat's token")
        # the stored review, or the table rebuilt from its log, read off the event loop
        review = await self.manager.db.run(self.stored, table_id, deal)
        if review is not None:
            return self._answer(table_id, deal, review)
        key = (table_id, deal)
        task = self.jobs.get(key)
        if task is None:
            # while playing: the finished deals only; never before a write under way ends
            loaded = await self.manager.record_of(table_id)
            if loaded is None:
                return _error(404, "there is no such table")
            table, record = loaded
            count = len(record.get("deals", []))
            if deal >= count:
                if not table.ended:
                    return _error(
                        409,
                        f"deal {deal} is not over yet: its review opens when the deal ends",
                    )
                return _error(404, f"there is no deal {deal}: the game has {count} deal(s), from 0")
            if len(self.jobs) >= self.settings.max_pending:
                return _error(
                    503,
                    f"{len(self.jobs)} deal reviews are being prepared: ask again in a moment",
                    self._retry(),
                )
            task = self.jobs.get(key)  # (started by another request while this one waited)
            if task is None:
                task = asyncio.get_running_loop().create_task(
                    self._run(key, record), name=f"tapete-review-{table_id}-{deal}"
                )
                task.add_done_callback(self._done)
                self.jobs[key] = task
        try:
            review = await asyncio.wait_for(asyncio.shield(task), self.settings.wait_s)
        except TimeoutError:
            return JSONResponse(
                {"status": "pending", "retry_after": self.settings.retry_after_s},
                status_code=202,
                headers=self._retry(),
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            return _error(500, f"the analysis of deal {deal} failed: see the server's log")
        return self._answer(table_id, deal, review)

    # ------------------------------------------------------------------ the background

    def start_background(self) -> None:
        """Start the background analysis of finished games (start-up; a no-op when the
        settings turn it off or it runs already)."""
        if self.settings.background and self._loop_task is None:
            self._loop_task = asyncio.get_running_loop().create_task(
                self._background_loop(), name="tapete-review-background"
            )

    async def _background_loop(self) -> None:
        while True:
            await asyncio.sleep(self.settings.poll_s)
            try:
                while await self.background_step() == "started":
                    assert self.background_job is not None
                    await asyncio.shield(self.background_job)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the background analysis of finished games failed")

    def _traffic(self) -> bool:
        """Whether a table acted in the last ``quiet_s`` seconds (the manager's count of
        applied actions moved since the last look, or since then)."""
        now = self.clock()
        if self.manager.actions_applied != self._seen:
            self._seen = self.manager.actions_applied
            self._last_traffic = now
        return now - self._last_traffic < self.settings.quiet_s

    async def background_step(self) -> str:
        """One look at the background queue. Starts the analysis of the next deal waiting
        and answers ``"started"`` (:attr:`background_job` is it), or says why not: ``"busy"``
        (a background analysis is under way), ``"requests"`` (reviews someone asked for are
        queued or running: they go first), ``"games"`` (a table acted in the last
        ``quiet_s`` seconds), ``"idle"`` (every finished deal is analysed)."""
        if self.background_job is not None and not self.background_job.done():
            return "busy"
        if self.jobs:
            return "requests"
        if self._traffic():
            return "games"
        loop = asyncio.get_running_loop()
        added = await asyncio.to_thread(self._unlisted)
        if added:
            await loop.run_in_executor(self.manager.writer.pool, self._enlist, added)
        item = await self._next_deal()
        if item is None:
            return "idle"
        table_id, deal, record = item
        key = (table_id, deal)
        if self.jobs:  # a request came in meanwhile: it goes first
            return "requests"
        task = loop.create_task(self._run(key, record), name=f"tapete-review-{table_id}-{deal}")
        task.add_done_callback(self._done)
        self.jobs[key] = task
        self.background_job = loop.create_task(
            self._background_done(table_id, deal, task), name="tapete-review-background-job"
        )
        return "started"

    def _unlisted(self) -> list[tuple[int, bool]]:
        """Finished tables not in the queue yet (games finished since the last look, or before
        the queue existed), oldest first, with whether they began from a position (such a
        table counts in no statistics: nothing to analyse)."""
        queued = select(ReviewQueueRow.table_id)
        with self.manager.sessions() as session:
            rows = session.execute(
                select(TableRow.id, TableRow.start)
                .where(TableRow.status == "finished", TableRow.id.not_in(queued))
                .order_by(TableRow.finished_at, TableRow.id)
                .limit(100)
            )
            return [(table_id, start is not None) for table_id, start in rows]

    def _enlist(self, tables: list[tuple[int, bool]]) -> None:
        now = utcnow()
        with self.manager.sessions.begin() as session:
            for table_id, from_position in tables:
                if session.get(ReviewQueueRow, table_id) is not None:
                    continue  # (another server process was first)
                session.add(
                    ReviewQueueRow(
                        table_id=table_id,
                        deals=0 if from_position else None,
                        next_deal=0,
                        failures=0,
                        skipped=0,
                        added_at=now,
                        done_at=now if from_position else None,
                    )
                )

    def _waiting(self) -> tuple[int, int | None, int] | None:
        """The first queue row not done: (table, deals or None, next deal)."""
        with self.manager.sessions() as session:
            row = session.scalars(
                select(ReviewQueueRow)
                .where(ReviewQueueRow.done_at.is_(None))
                .order_by(ReviewQueueRow.added_at, ReviewQueueRow.table_id)
                .limit(1)
            ).first()
            if row is None:
                return None
            deal = row.next_deal
            if row.deals is not None:
                while deal < row.deals:
                    if session.get(DealReviewRow, (row.table_id, deal)) is None:
                        break
                    deal += 1  # reviewed on request already
            return row.table_id, row.deals, deal

    def _record_of(self, table_id: int) -> JSON | None:
        """The finished table's record (kept for the next deal of the same table)."""
        if self._record is not None and self._record[0] == table_id:
            return self._record[1]
        got = self.manager.stored_record(table_id)
        if got is None:
            return None
        record = got[1]
        self._record = (table_id, record)
        return record

    async def _next_deal(self) -> tuple[int, int, JSON] | None:
        """The next deal to analyse in the background and its table's record; queue rows
        found complete on the way are closed."""
        loop = asyncio.get_running_loop()
        while True:
            waiting = await asyncio.to_thread(self._waiting)
            if waiting is None:
                return None
            table_id, deals, deal = waiting
            record = None
            if deals is None or deal < deals:
                record = await asyncio.to_thread(self._record_of, table_id)  # off the loop
            count = deals if record is None else len(record.get("deals", []))
            if deals is None or deal >= (count or 0):
                # the table's first look (its deals counted), or every deal done
                move = functools.partial(self._move_on, table_id, count or 0, deal, False)
                await loop.run_in_executor(self.manager.writer.pool, move)
            if record is not None and deal < (count or 0):
                return table_id, deal, record

    def _move_on(self, table_id: int, deals: int, next_deal: int, failed: bool) -> None:
        """Table ``table_id``'s queue row: ``deals`` deals, ``next_deal`` the next to analyse;
        with ``failed``, the analysis of ``next_deal`` failed: it is tried again, and skipped
        (logged) after ``max_failures`` failures in a row."""
        with self.manager.sessions.begin() as session:
            row = session.get(ReviewQueueRow, table_id)
            if row is None:
                return
            row.deals = deals
            if failed:
                row.failures += 1
                if row.failures < self.settings.max_failures:
                    return
                log.error(
                    "table %s: deal %s skipped after %d failed analyses",
                    table_id,
                    next_deal,
                    row.failures,
                )
                row.skipped += 1
                next_deal += 1
            row.failures = 0
            row.next_deal = max(row.next_deal, next_deal)
            if row.next_deal >= deals:
                row.done_at = utcnow()

    async def _background_done(self, table_id: int, deal: int, task: asyncio.Task[JSON]) -> None:
        """After a background analysis: the queue moves on (or counts the failure)."""
        try:
            await asyncio.shield(task)
            failed = False
        except asyncio.CancelledError:
            if not task.cancelled():
                raise
            return  # the server is stopping: the deal is analysed again after the restart
        except Exception:
            failed = True
        record = self._record[1] if self._record and self._record[0] == table_id else None
        count = len(record["deals"]) if record is not None else deal + 1
        move = functools.partial(
            self._move_on, table_id, count, deal if failed else deal + 1, failed
        )
        await asyncio.get_running_loop().run_in_executor(self.manager.writer.pool, move)

    async def close(self) -> None:
        """Stop the worker (shutdown): queued analyses are dropped, none is stored half."""
        for background in (self._loop_task, self.background_job):
            if background is not None:
                background.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await background
        self._loop_task = self.background_job = None
        await stop_jobs(self.jobs, self._executor)
        self._executor = None


async def stop_jobs(jobs: dict[Any, asyncio.Task[Any]], executor: Executor | None) -> None:
    """Cancel a worker's queued ``jobs`` and wait for them to end, then stop its ``executor``
    without waiting for work under way (shutdown: nothing is stored half)."""
    for task in list(jobs.values()):
        task.cancel()
    for task in list(jobs.values()):
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
    if executor is not None:
        stop_executor(executor)


def openapi_path() -> JSON:
    """The OpenAPI 3.1 path item of ``/api/tables/{table_id}/review/{deal}`` (for the
    hand-written document of the HTTP API, where there is one)."""

    def error(description: str) -> JSON:
        schema = {
            "type": "object",
            "required": ["error"],
            "properties": {"error": {"type": "string"}},
        }
        return {"description": description, "content": {"application/json": {"schema": schema}}}

    retry = {
        "Retry-After": {
            "description": "seconds to wait before asking again",
            "required": False,
            "schema": {"type": "string"},
        }
    }
    review = {
        "type": "object",
        "required": ["table", "deal", "report", "steps"],
        "properties": {
            "table": {"type": "integer"},
            "deal": {"type": "integer"},
            "report": {"type": "object", "description": "tapete.analysis's report (docs)"},
            "steps": {"type": "array", "items": {"type": "object"}},
        },
    }
    pending = {
        "type": "object",
        "required": ["status", "retry_after"],
        "properties": {"status": {"const": "pending"}, "retry_after": {"type": "integer"}},
    }

    def json_of(schema: JSON) -> JSON:
        return {"application/json": {"schema": schema}}

    return {
        "get": {
            "summary": "the review of a finished deal (its analysis and every position); "
            "while the game is on only for the seat's token, and never of a deal in play",
            "parameters": [
                {
                    "name": "table_id",
                    "in": "path",
                    "required": True,
                    "schema": {"type": "string"},
                    "description": "the table's id (ASCII digits; anything else is no table)",
                },
                {
                    "name": "deal",
                    "in": "path",
                    "required": True,
                    "schema": {"type": "string"},
                    "description": "the deal's index in the game, from 0 (ASCII digits)",
                },
                *TOKEN_PARAMETERS,
            ],
            "responses": {
                "200": {"description": "the review", "content": json_of(review)},
                "202": {
                    "description": "being analysed: ask again after Retry-After",
                    "headers": retry,
                    "content": json_of(pending),
                },
                "400": error("the deal is not a whole number"),
                "403": error("an unfinished game's review needs the seat's token"),
                "404": error("there is no such table, or no such deal in a finished game"),
                "409": error("the deal is not over yet"),
                "500": error("the analysis failed (logged)"),
                "503": {**error("the analysis queue is full: ask again"), "headers": retry},
            },
        }
    }
