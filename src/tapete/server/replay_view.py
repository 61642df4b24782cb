"""The replay of a finished game over HTTP: ``GET /api/tables/{id}/replay`` (the deals, the
final score sheet and the chart's data) and ``GET /api/tables/{id}/replay/{deal}`` (every
position of one deal with every card face up).

The positions come from the engine only: the table's record is walked through
:func:`tapete.replay.iter_replay` and each position is the game kind's ``open_view`` of the
deal (every hand, the face-down talon or stock); nothing here knows a rule. Only a finished
table is replayed (a replay shows every hand: while the game is on it would show the cards of
the deal in play), and to anyone, like its record.

Bounded: the frames are computed off the event loop in one worker thread, a block of
``block`` deals at a time (one walk through the record), at most ``max_pending`` blocks queued
(one more is refused with 503 and ``Retry-After``), and kept encoded in a cache bounded in
bytes and entries (least recently used first out). A finished game never changes, so a cached
answer never goes stale.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from tapete.game import JSON
from tapete.games import kind
from tapete.reader import describe_action
from tapete.replay import iter_replay
from tapete.server.limits import path_number
from tapete.server.review import _error, stop_jobs
from tapete.server.review_worker import plain
from tapete.server.tables import TableManager

__all__ = ["ReplayService", "ReplaySettings", "openapi_paths", "replay_frames", "replay_summary"]

log = logging.getLogger("tapete.server")

#: the fields of a deal's open view that say nothing about the position (there are no legal
#: actions in a replay, and a spectator's own hand is empty)
_DROP = ("legal", "hand")


@dataclass(frozen=True)
class ReplaySettings:
    """How the server keeps replays (``create_app(replay=...)``)."""

    #: deals computed in one walk through a record (aligned blocks: 0-9, 10-19, ...)
    block: int = 10
    #: the encoded answers kept in memory, at most this many bytes ...
    cache_bytes: int = 32 * 1024 * 1024
    #: ... and this many answers
    cache_entries: int = 512
    #: blocks being computed or waiting; one more is refused with 503 and Retry-After
    max_pending: int = 8
    #: the Retry-After of a 503, in seconds
    retry_after_s: int = 2


def _frame(
    open_view: Any, state: Any, seat: int | None, action: JSON | None, key: str, standing: Any
) -> JSON:
    position = {k: v for k, v in open_view(state).items() if k not in _DROP}
    return {
        "seat": seat,
        "action": action,
        "text": None if action is None else describe_action({"seat": seat, **action}),
        key: list(standing),
        "position": position,
    }


def replay_frames(record: JSON, first: int = 0, last: int | None = None) -> dict[int, list[JSON]]:
    """The frames of deals ``first`` to ``last`` (inclusive; None: to the end) of a finished
    game's ``record``: per deal, the position as dealt and the position after each of its
    recorded actions (``len(actions) + 1`` frames), every card face up (the kind's
    ``open_view``). A frame holds the action that led to it (``seat``, ``action`` in record
    form, ``text`` in record notation; None for the first), the game's standing then (under
    the kind's ``score_key``) and ``position``. The engine actions a record leaves out (Mil's
    ``KeepDeal``, Mariage's ``Decline``) are applied without a frame of their own."""
    k = kind(record.get("game"))
    if k.open_view is None:
        raise ValueError(f"{k.title} has no open view to replay")
    open_view, key = k.open_view, k.score_key
    deals: list[JSON] = record["deals"]
    stop = len(deals) - 1 if last is None else min(last, len(deals) - 1)
    frames: dict[int, list[JSON]] = {d: [] for d in range(first, stop + 1)}
    # the deal's last recorded action whose position is not framed yet: (deal, state, seat, action)
    open_: tuple[int, Any, int | None, JSON] | None = None
    deal, j = -1, 0
    steps = iter_replay(record, check_results=False)
    game: Any = None
    try:
        for game, action in steps:
            done = len(game.finished_deals)
            if open_ is not None and open_[0] != done:
                # deal open_[0] ended with its last action: its state is finished now
                d, state, seat, data = open_
                frames[d].append(_frame(open_view, state, seat, data, key, game.scores))
                open_ = None
            if done > stop:
                break
            if done != deal:
                deal, j = done, 0
            data = action.to_json()
            seat = game.turn
            recorded: list[JSON] = deals[deal]["actions"]
            entry = recorded[j] if j < len(recorded) else {}
            if entry.get("seat") != seat or plain(entry) != plain(data):
                continue  # an engine action the record leaves out: applied, no frame
            j += 1
            if deal < first:
                continue
            # the position before this action: the deal as dealt, or after the previous one
            before = None if open_ is None else open_
            frames[deal].append(
                _frame(
                    open_view,
                    game.state,
                    None if before is None else before[2],
                    None if before is None else before[3],
                    key,
                    game.scores,
                )
            )
            open_ = (deal, game.state, seat, plain(data))
        else:
            if open_ is not None and game is not None:  # the game's last deal
                d, state, seat, data = open_
                frames[d].append(_frame(open_view, state, seat, data, key, game.scores))
    finally:
        steps.close()
    return frames


def replay_summary(table_id: int, record: JSON, final: JSON) -> JSON:
    """The answer of ``GET /api/tables/{id}/replay``: the game, its players and winner, the
    final spectator's view ``final`` (its ``sheet`` is the score sheet and the chart's data,
    its standing the final one) and, per deal, its dealer and number of frames."""
    k = kind(record.get("game"))
    view = {key: v for key, v in final.items() if key not in _DROP}
    return {
        "table": table_id,
        "game": k.name,
        "profile": record.get("profile"),
        "players": list(record.get("players") or []),
        "winner": record.get("winner"),
        "score_key": k.score_key,
        "view": view,
        "deals": [
            {"deal": i, "dealer": d.get("dealer"), "frames": len(d.get("actions") or []) + 1}
            for i, d in enumerate(record.get("deals") or [])
        ],
    }


def _encode(data: JSON) -> bytes:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()


class ReplayService:
    """The two endpoints, the worker that computes frames and the bounded cache."""

    def __init__(self, manager: TableManager, settings: ReplaySettings | None = None) -> None:
        self.manager = manager
        self.settings = settings or ReplaySettings()
        #: (table, deal) -> the encoded answer (deal -1: the summary), least recent first
        self.cache: OrderedDict[tuple[int, int], bytes] = OrderedDict()
        self.cached_bytes = 0
        #: blocks being computed, by (table, block): a second request waits for the same one
        self.jobs: dict[tuple[int, int], asyncio.Task[None]] = {}
        #: how many blocks this server computed (the tests count them)
        self.computed = 0
        self._executor: ThreadPoolExecutor | None = None

    # ------------------------------------------------------------------ the cache

    def _get(self, key: tuple[int, int]) -> bytes | None:
        hit = self.cache.get(key)
        if hit is not None:
            self.cache.move_to_end(key)
        return hit

    def _put(self, key: tuple[int, int], body: bytes) -> None:
        s = self.settings
        if len(body) > s.cache_bytes:
            return  # larger than the whole cache: answered, not kept
        old = self.cache.pop(key, None)
        if old is not None:
            self.cached_bytes -= len(old)
        self.cache[key] = body
        self.cached_bytes += len(body)
        while self.cached_bytes > s.cache_bytes or len(self.cache) > s.cache_entries:
            _, dropped = self.cache.popitem(last=False)
            self.cached_bytes -= len(dropped)

    # ------------------------------------------------------------------ the work

    def _compute(self, table_id: int, block: int) -> dict[int, bytes] | None:
        """In the worker thread: the summary (block 0) and the deals of ``block``, encoded;
        None when the table is gone."""
        loaded = self.manager.stored_record(table_id)
        if loaded is None:
            return None
        table, record = loaded
        out: dict[int, bytes] = {}
        if block == 0:
            out[-1] = _encode(replay_summary(table_id, record, table.game.view(None)))
        size = self.settings.block
        first = block * size
        for d, frames in replay_frames(record, first, first + size - 1).items():
            row = record["deals"][d].get("result")
            out[d] = _encode({"table": table_id, "deal": d, "result": row, "frames": frames})
        return out

    def _pool(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tapete-replay")
        return self._executor

    async def _run(self, table_id: int, block: int) -> None:
        try:
            loop = asyncio.get_running_loop()
            answers = await loop.run_in_executor(self._pool(), self._compute, table_id, block)
            self.computed += 1
            for deal, body in (answers or {}).items():
                self._put((table_id, deal), body)
        finally:
            self.jobs.pop((table_id, block), None)

    async def _answer(self, request: Request, summary: bool) -> Response:
        raw_id = request.path_params["table_id"]
        table_id = path_number(raw_id, 18)
        if table_id is None:
            return _error(404, "there is no such table")
        deal = -1
        if not summary:
            number = path_number(request.path_params["deal"], 6)
            if number is None:
                return _error(400, "the deal must be a whole number: its index in the game, from 0")
            deal = number
        hit = self._get((table_id, deal))
        if hit is not None:
            return Response(hit, media_type="application/json")
        # (a game stopped at the cap on deals is over too: the end window offers its replay)
        over = await self.manager.db.run(self.manager.stored_over, table_id)
        if over is None:
            return _error(404, "there is no such table")
        if not over:
            return _error(
                403,
                "the replay of a game opens when the game is over: it shows every hand",
            )
        block = 0 if summary else deal // self.settings.block
        key = (table_id, block)
        task = self.jobs.get(key)
        if task is None:
            if len(self.jobs) >= self.settings.max_pending:
                return _error(
                    503,
                    f"{len(self.jobs)} replays are being prepared: ask again in a moment",
                    {"Retry-After": str(self.settings.retry_after_s)},
                )
            task = asyncio.get_running_loop().create_task(
                self._run(table_id, block), name=f"tapete-replay-{table_id}-{block}"
            )
            self.jobs[key] = task
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: the replay of block %d failed", table_id, block)
            return _error(500, "the replay could not be prepared: see the server's log")
        body = self._get((table_id, deal))
        if body is not None:
            return Response(body, media_type="application/json")
        if deal >= 0:  # the block held no such deal (or the table went away)
            return _error(404, f"there is no deal {deal} in this game")
        return _error(404, "there is no such table")

    async def summary_endpoint(self, request: Request) -> Response:
        """``GET /api/tables/{table_id}/replay``."""
        return await self._answer(request, summary=True)

    async def deal_endpoint(self, request: Request) -> Response:
        """``GET /api/tables/{table_id}/replay/{deal}``."""
        return await self._answer(request, summary=False)

    async def close(self) -> None:
        """Stop the worker (shutdown)."""
        await stop_jobs(self.jobs, self._executor)
        self._executor = None


def openapi_paths(common: JSON, table_id: JSON) -> JSON:
    """The OpenAPI 3.1 path items of the two replay routes, with the answers ``common`` that
    every route may give and the ``table_id`` path parameter of every table route."""

    def error(description: str) -> JSON:
        return {
            "description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }

    def ok(schema: JSON, description: str) -> JSON:
        return {"description": description, "content": {"application/json": {"schema": schema}}}

    deal = {
        "name": "deal",
        "in": "path",
        "required": True,
        "schema": {"type": "string"},
        "description": "the deal's index in the game, from 0 (ASCII digits)",
    }
    busy = {
        **error("replays are being prepared for many people: ask again after Retry-After"),
        "headers": {"Retry-After": {"required": False, "schema": {"type": "string"}}},
    }
    answers = {
        "403": error("the game is not over (a replay shows every hand)"),
        "404": error("there is no such table"),
        "500": error("the replay failed (logged)"),
        "503": busy,
    }
    summary = {
        "type": "object",
        "required": ["table", "game", "profile", "players", "winner", "score_key", "view", "deals"],
        "properties": {
            "table": {"type": "integer"},
            "game": {"type": "string"},
            "profile": {"type": "string"},
            "players": {"type": "array", "items": {"type": "string"}},
            "winner": {"type": ["integer", "null"]},
            "score_key": {"type": "string", "description": "the key of the standing"},
            "view": {
                "type": "object",
                "description": "the finished game's spectator view: its sheet (one row per "
                "deal) is the score sheet and the chart's data",
            },
            "deals": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["deal", "dealer", "frames"],
                    "properties": {
                        "deal": {"type": "integer"},
                        "dealer": {"type": ["integer", "null"]},
                        "frames": {"type": "integer", "minimum": 1},
                    },
                },
            },
        },
    }
    frame = {
        "type": "object",
        "required": ["seat", "action", "text", "position"],
        "properties": {
            "seat": {"type": ["integer", "null"]},
            "action": {"type": ["object", "null"], "description": "record form, no seat"},
            "text": {"type": ["string", "null"], "description": "record notation"},
            "position": {
                "type": "object",
                "required": ["hands", "hidden"],
                "description": "the deal's spectator view with every hand and the face-down "
                "cards (the kind's open_view)",
            },
        },
        "additionalProperties": True,
    }
    deal_answer = {
        "type": "object",
        "required": ["table", "deal", "result", "frames"],
        "properties": {
            "table": {"type": "integer"},
            "deal": {"type": "integer"},
            "result": {"type": ["object", "null"]},
            "frames": {"type": "array", "items": frame, "minItems": 1},
        },
    }
    return {
        "/api/tables/{table_id}/replay": {
            "get": {
                "summary": "a finished game's replay: its deals, score sheet and chart data",
                "parameters": [table_id],
                "responses": {**common, "200": ok(summary, "the game"), **answers},
            }
        },
        "/api/tables/{table_id}/replay/{deal}": {
            "get": {
                "summary": "every position of one deal of a finished game, every card face up",
                "parameters": [table_id, deal],
                "responses": {
                    **common,
                    "200": ok(deal_answer, "the deal's frames"),
                    **answers,
                    "400": error("the deal is not a whole number"),
                    "404": error("there is no such table, or no such deal"),
                },
            }
        },
    }
