"""Load benchmark of the online room (issue 13, item 13; not a test).

Starts the server in a child process (server_harness.py: 127.0.0.1, a free port, a temporary
SQLite file) and plays N tables at once with scripted clients over real WebSockets: at each
table every person's seat is a client of its own (three for Mil, two for Mariage) that plays
a random legal action 1-3 s after it becomes its turn (``--think``; ``--flat-out``: at once),
a few spectators watch it, and a fraction of the clients drop their socket now and then and
reconnect with their last version (``sync`` with ``since``). A game over, the table's
clients sit down at a new one.

Seating (``--seating``): ``room`` seats the people by the invitation API (the creator's
``{"kind": "me"}`` and invited seats, ``POST /api/tables/{id}/seats``); ``solo`` is the
server before the room, one person at seat 0 and ``random`` computers elsewhere (reconnection
without ``since``: the first view); ``auto`` (default) picks ``room`` when the server's
OpenAPI document has the seats route.

Measured over a window of ``--seconds`` that starts once every table is seated: action
latency (a client's send -> the message of that action received by that client), actions
applied per second, the server's CPU time per action (from /proc), bytes per message (the
first message of each connection, later ``view`` messages, ``sync`` answers: the length of
the JSON text, before the wire's permessage-deflate), errors; before it, a baseline: the
same clients at one table, flat out, on a server of its own. Figures and commands:
docs/benchmarks.md, "Online room load".

    PYTHONPATH=src .venv/bin/python benchmarks/bench_room.py --tables 200 --seconds 60 --clients 2
    PYTHONPATH=src .venv/bin/python benchmarks/bench_room.py --tables 100 --flat-out --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import multiprocessing
import multiprocessing.process
import os
import queue
import random
import re
import statistics
import sys
import tempfile
import threading
import time
from array import array
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import bench_actions
import httpx
import orjson
import ws_client
from server_harness import ChildServer, percentile

from tapete.server.security import TOKEN_HEADER

#: the issue's targets for one process on a 2-core machine
TARGET_TABLES = 1000
TARGET_P99_MS = 50.0
TARGET_ACTIONS_PER_S = 5000.0
TARGET_MEDIAN_BYTES = 2048

#: message kinds in the byte counts
CATEGORIES = ("first", "later", "sync", "other")


@dataclass
class Settings:
    """One run of the benchmark (the command line's options)."""

    game: str = "mil"
    tables: int = 50
    seconds: float = 60.0
    think: tuple[float, float] = (1.0, 3.0)
    #: a game over, the table's people wait this long before the next one (not flat out)
    pause: tuple[float, float] = (5.0, 20.0)
    flat_out: bool = False
    #: the clients ask for patches after the first view (``patches=1``); False: whole views
    patches: bool = True
    spectators: int = 2
    reconnect: float = 0.1
    drop_every: tuple[float, float] = (10.0, 30.0)
    deals: int = 2
    seating: str = "auto"
    ramp: float = -1.0  # seconds over which the tables sit down; < 0: tables / 50
    baseline_seconds: float = 5.0
    seed: int = 1
    progress_every: float = 5.0
    delay_ms: int = -1  # the computers' pause (solo seating); < 0: computer_delay_ms()
    clients: int = 1  # client shards: 1 a thread, more processes
    seat_timeout: float = 120.0  # the window starts at the latest this long after the ramp
    #: ``Limits`` fields for both servers over the harness's (e.g. {"gc_thresholds": [...]})
    server_limits: dict[str, Any] = field(default_factory=dict)
    settle: float = 5.0  # then this long before the window (the last connections' tail)


@dataclass
class Stats:
    """What the clients saw in one phase."""

    latencies: array[float] = field(default_factory=lambda: array("d"))
    sizes: dict[str, array[int]] = field(
        default_factory=lambda: {c: array("I") for c in CATEGORIES}
    )
    actions: int = 0  # actions applied at the tables (every seat), seen by the clients
    sent: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    reconnects: int = 0
    reconnect_latencies: array[float] = field(default_factory=lambda: array("d"))
    connections: int = 0
    open_sockets: int = 0
    seated: int = 0
    finished: int = 0
    lag: array[float] = field(default_factory=lambda: array("d"))

    def merge(self, other: Stats) -> None:
        """Add another shard's counters to these."""
        self.latencies.extend(other.latencies)
        for c in CATEGORIES:
            self.sizes[c].extend(other.sizes[c])
        self.reconnect_latencies.extend(other.reconnect_latencies)
        self.lag.extend(other.lag)
        self.errors.update(other.errors)
        for name in ("actions", "sent", "reconnects", "connections", "seated", "finished"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Client:
    """A person's client across its sockets: the last version it holds; on the current
    socket, the action sent and not yet seen applied (``pending``)."""

    seat: int
    rng: random.Random
    since: int | None = None
    opened: bool = False  # received its first message (on any socket)
    pending: bool = False
    sent_at: float = 0.0
    sent_version: int = -1

    def saw(self, run: Run, table: Table, version: int, now: float) -> None:
        """A message of ``version`` arrived at ``now``: the table's count, the version to
        ask from after a drop, and the latency of the pending action once it is applied."""
        run.saw(table, version)
        self.since = version if self.since is None else max(self.since, version)
        if self.pending and version > self.sent_version:
            self.pending = False
            if run.measuring:
                run.stats.latencies.append(now - self.sent_at)


@dataclass
class Table:
    id: int
    tokens: list[tuple[int, str]]  # (seat, token) of every person's seat
    version: int = 0
    over: bool = False
    #: the table's first game: sockets still to receive their first message (0: seated)
    unopened: int = -1


class Board:
    """Counters the client shards share with the parent (a shared-memory array, so that
    shards may be processes), and the window's start that the parent sets."""

    SLOTS = ("seated", "sockets", "actions", "errors", "reconnects", "p50", "p99")

    def __init__(self, shards: int) -> None:
        self.values = multiprocessing.Array("d", shards * len(self.SLOTS), lock=False)
        self.start = multiprocessing.Value("d", 0.0, lock=False)

    def put(self, shard: int, **values: float) -> None:
        for name, value in values.items():
            self.values[shard * len(self.SLOTS) + self.SLOTS.index(name)] = value

    def column(self, name: str) -> list[float]:
        n, i = len(self.SLOTS), self.SLOTS.index(name)
        return [self.values[k] for k in range(i, len(self.values), n)]

    def total(self, name: str) -> float:
        return sum(self.column(name))


class Run:
    """One shard of a phase: its tables (every ``shards``-th from ``shard``), the server's
    addresses and the counters."""

    def __init__(
        self,
        settings: Settings,
        base: str,
        ws_base: str,
        seating: str,
        shard: int = 0,
        shards: int = 1,
        board: Board | None = None,
    ) -> None:
        self.s = settings
        self.base, self.ws_base = base, ws_base
        self.seating = seating
        self.shard, self.shards = shard, shards
        self.board = board or Board(1)
        self.seats = 3 if settings.game == "mil" else 2
        self.stats = Stats()
        self.stopping = False
        self.start = math.inf
        self.deadline = math.inf
        self.client_cpu = 0.0
        self.http: httpx.AsyncClient | None = None
        self.watch = Watch(self)

    @property
    def measuring(self) -> bool:
        return self.start <= time.monotonic() < self.deadline

    def active(self) -> bool:
        return not self.stopping and time.monotonic() < self.deadline

    def saw(self, table: Table, version: int) -> None:
        if version > table.version:
            if self.measuring:
                self.stats.actions += version - table.version
            table.version = version

    def opened(self, table: Table, *, every: bool = False) -> None:
        """A socket of ``table`` received its first message (``every``: the game is over,
        so the rest never will): the table counts as seated once every one of its sockets
        has."""
        if table.unopened > 0:
            table.unopened = 0 if every else table.unopened - 1
            if not table.unopened:
                self.stats.seated += 1

    def size(self, category: str, n: int) -> None:
        self.stats.sizes[category].append(n)

    def error(self, code: str) -> None:
        self.stats.errors[code] += 1

    async def post(self, path: str, body: dict[str, Any]) -> Any:
        assert self.http is not None
        for attempt in range(3):  # a kept-alive connection the server closed meanwhile
            try:
                r = await self.http.post(path, json=body)
                break
            except httpx.TransportError:
                if attempt == 2:
                    raise
        if r.status_code >= 300:
            raise RuntimeError(f"POST {path}: {r.status_code} {r.text[:200]}")
        return r.json()


# ---------------------------------------------------------------------------- seating


async def detect_seating(server: ChildServer) -> str:
    """``room`` when the server has the invitation API, else ``solo``."""
    async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
        paths = (await client.get("/api/openapi.json")).json().get("paths", {})
    return "room" if any(p.endswith("/seats") for p in paths) else "solo"


async def seat_table(run: Run, index: int, round_: int) -> Table:
    """Sit the people of table ``index`` (its ``round_``-th game) down; the one place that
    knows how a table is made (``room``: the invitation API; ``solo``: seat 0 only)."""
    name = f"t{index}g{round_}"
    body: dict[str, Any] = {
        "game": run.s.game,
        "name": f"{name}a",
        "seed": (run.s.seed * 1_000_003 + index * 1009 + round_) % 2**62,
        "max_deals": run.s.deals,
    }
    if run.seating == "solo":
        created = await run.post("/api/tables", {**body, "levels": ["random"] * (run.seats - 1)})
        return Table(created["table"], [(created["seat"], created["token"])])
    seats = [{"kind": "me"}] + [{"kind": "invited"}] * (run.seats - 1)
    created = await run.post("/api/tables", {**body, "seats": seats})
    table = Table(created["table"], [(created["seat"], created["token"])])
    for n in range(1, run.seats):
        joined = await run.post(
            f"/api/tables/{table.id}/seats",
            {"name": f"{name}{'abc'[n]}", "invite": created["invite"]},
        )
        table.tokens.append((joined["seat"], joined["token"]))
    return table


# ---------------------------------------------------------------------------- clients


def _connect(url: str, token: str | None = None) -> Any:
    """A socket to ``url``; with a seat's ``token`` in its header, as a client should carry it
    (docs/dev/protocol.md, "Where the token travels")."""
    headers = {TOKEN_HEADER: token} if token else None
    return ws_client.connect(url, max_size=2**22, open_timeout=120, headers=headers)


class Person:
    """A person of a table index, from one game there to the next: a share ``reconnect`` of
    them drop their socket every ``drop_every`` seconds and come back with ``since``. The
    schedule goes on across games, so that flat out, where a game can end before the next
    drop, people still drop as often as at a person's pace (a schedule begun afresh at every
    game hardly ever came due: 0-1 reconnections in 15 s at 30 tables)."""

    def __init__(self, run: Run, rng: random.Random) -> None:
        self.run, self.rng = run, rng
        self.drops = rng.random() < run.s.reconnect
        self.drop_at = math.inf
        self.dropped()

    def dropped(self) -> None:
        """(At the start, and after each drop) when this person next drops."""
        if self.drops:
            self.drop_at = time.monotonic() + self.rng.uniform(*self.run.s.drop_every)


async def player(
    run: Run, table: Table, seat: int, token: str, rng: random.Random, person: Person
) -> None:
    """One person's seat: play until the game is over or the run stops, dropping the socket
    when ``person`` is due to."""
    st = run.stats
    url = f"{run.ws_base}/ws/{table.id}?patches={int(run.s.patches)}"
    client = Client(seat, rng)
    if person.drop_at <= time.monotonic():  # (fell due between two games: from now on)
        person.dropped()
    while not table.over and run.active():
        dropped = False
        try:
            async with _connect(url, token) as ws:
                st.connections += 1
                st.open_sockets += 1
                try:
                    dropped = await _play_socket(run, ws, table, client, person.drop_at)
                finally:
                    st.open_sockets -= 1
        except (OSError, TimeoutError) as exc:
            run.error(f"socket: {type(exc).__name__}")
            await asyncio.sleep(0.5)
            continue
        if dropped:
            st.reconnects += 1
            person.dropped()
            await asyncio.sleep(rng.uniform(0.1, 0.5))


#: the head of a view or patch message as the server writes it (``tables.message_text``:
#: compact JSON, ``type`` then ``version`` first); a message that does not match is read whole
_VIEW_HEAD = re.compile(r'\{"type":"(view|patch)","version":(\d+),')


def view_version(text: str, seat: int | None, my_turn: bool = False) -> int | None:
    """The version of a ``view`` or ``patch`` message that needs no reading (so not parsed: a
    client's JSON and its freeing were a third of the clients' CPU), else None: the game is
    not over in it and, for ``seat``, it is not that seat's turn. A filter on the text that
    may only say "read it" wrongly (``"turn":0`` inside an event, say), never "skip it"
    wrongly: a view whose turn is ``seat`` holds ``"turn":seat``, an ended game
    ``"over":true``. A patch holds only what changed: one that neither makes it ``seat``'s
    turn, nor gives it legal actions (``"legal":[{``: a seat's are empty but on its turn),
    nor ends the game, needs no reading, unless it was ``seat``'s turn (``my_turn``) and the
    patch leaves the turn as it was: the seat acts again on the same choices."""
    head = _VIEW_HEAD.match(text)
    if head is None or '"over":true' in text:
        return None
    if seat is not None and f'"turn":{seat}' in text:
        return None
    if head.group(1) == "patch" and ('"legal":[{' in text or (my_turn and '"turn":' not in text)):
        return None
    return int(head.group(2))


class Watch:
    """When the clients of a shard stop waiting: ``recv`` is interrupted (``Connection.
    interrupt``) instead of a timer around every message. Every tenth of a second the
    sockets that have a drop time are looked at, every second the spectators (whose game
    may be over without their seeing it), and at the window's end all of them: at 1,000
    tables (5,000 sockets) looking at every socket ten times a second cost the clients more
    than the timers it replaced."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.sockets: dict[Any, Table | None] = {}  # every socket; a spectator's: its table
        self.timed: dict[Any, float] = {}  # the sockets that drop at a time

    def add(self, ws: Any, drop_at: float, table: Table | None = None) -> None:
        self.sockets[ws] = table
        if drop_at < math.inf:
            self.timed[ws] = drop_at

    def remove(self, ws: Any) -> None:
        del self.sockets[ws]
        self.timed.pop(ws, None)

    def due(self, drop_at: float, table: Table | None) -> bool:
        run = self.run
        return (
            run.stopping
            or time.monotonic() >= min(drop_at, run.deadline)
            or (table is not None and table.over)
        )

    async def loop(self) -> None:
        run, ticks = self.run, 0
        while not run.stopping:
            await asyncio.sleep(0.1)
            ticks += 1
            now = time.monotonic()
            if now >= run.deadline:
                due = list(self.sockets)
            else:
                due = [ws for ws, at in self.timed.items() if now >= at]
                if ticks % 10 == 0:
                    due += [ws for ws, t in self.sockets.items() if t is not None and t.over]
            for ws in due:
                ws.interrupt()
        for ws in list(self.sockets):
            ws.interrupt()


async def _play_socket(
    run: Run,
    ws: Any,
    table: Table,
    client: Client,
    drop_at: float,
) -> bool:
    """Play over one socket; True when the client dropped it on purpose."""
    run.watch.add(ws, drop_at)
    try:
        return await _play(run, ws, table, client, drop_at)
    finally:
        run.watch.remove(ws)


async def _play(run: Run, ws: Any, table: Table, client: Client, drop_at: float) -> bool:
    s, st = run.s, run.stats
    seat, rng = client.seat, client.rng
    opened = time.perf_counter()
    waiting_sync = False
    if client.since is not None and run.seating == "room":
        await ws.send(orjson.dumps({"type": "sync", "since": client.since}))
        waiting_sync = True
    first = True
    in_sync = False
    client.pending = False
    latest = -1
    #: what the client acts on, of the view it holds (a patch changes some of it)
    held: dict[str, Any] = {}
    while True:
        if run.watch.due(drop_at, None):
            return drop_at <= run.deadline and not run.stopping
        try:
            text = await ws.recv()
        except TimeoutError:
            continue
        now = time.perf_counter()
        if not (first or in_sync or waiting_sync):
            # (the common message: another seat's action, or ours; the same bookkeeping as
            # a view read whole below, which would find it neither over nor our turn)
            my_turn = held.get("turn") == seat and bool(held.get("legal"))
            known = view_version(text, seat, my_turn)
            if known is not None:
                held = {}  # (neither over nor our turn: all the client acts on)
                run.size("later", len(text))
                client.saw(run, table, known, now)
                latest = max(latest, known)
                continue
        m = orjson.loads(text)
        kind = m.get("type")
        if first:
            category = "first"
            if not client.opened:
                client.opened = True
                run.opened(table)
        elif kind == "events" or (kind == "view" and in_sync):
            category = "sync"
        else:
            category = "later" if kind in ("view", "patch") else "other"
        first = False
        run.size(category, len(text))
        if kind == "error":
            run.error(str(m.get("code")))
            if client.pending and m.get("code") in ("stale_version", "not_your_turn", "illegal"):
                client.pending = False
            continue
        if kind == "events":
            in_sync = True
            if waiting_sync:
                st.reconnect_latencies.append(now - opened)
        if kind not in ("view", "patch", "events"):
            continue
        version = int(m["version"])
        client.saw(run, table, version, now)
        if kind == "events":
            continue
        if in_sync:  # the view after the events ends the sync answer
            in_sync = waiting_sync = False
        elif waiting_sync:
            continue  # the connection's first view: act on the sync answer's
        if version < latest:
            continue
        latest = version
        # (a patch holds only what changed)
        view = held = m["view"] if kind == "view" else {**held, **m["view"]}
        if view.get("over"):
            table.over = True
            return False
        if client.pending or view.get("turn") != seat or not view.get("legal"):
            continue
        if not s.flat_out:
            await asyncio.sleep(rng.uniform(*s.think))
            if run.watch.due(drop_at, None):
                continue
        action = rng.choice(view["legal"])
        client.sent_at = time.perf_counter()
        client.sent_version = version
        client.pending = True
        await ws.send(orjson.dumps({"type": "act", "version": version, "action": action}))
        st.sent += 1


async def spectator(run: Run, table: Table) -> None:
    """A watcher of the table: counts what it receives until the game is over."""
    url = f"{run.ws_base}/ws/{table.id}?patches={int(run.s.patches)}"
    try:
        async with _connect(url) as ws:
            run.stats.connections += 1
            run.stats.open_sockets += 1
            run.watch.add(ws, math.inf, table)
            first = True
            try:
                while not run.watch.due(math.inf, table):
                    try:
                        text = await ws.recv()
                    except TimeoutError:
                        continue
                    if not first and view_version(text, None) is not None:
                        run.size("later", len(text))
                        continue
                    m = orjson.loads(text)
                    kind = m.get("type")
                    later = kind in ("view", "patch")
                    run.size("first" if first else "later" if later else "other", len(text))
                    if first:
                        run.opened(table)
                    first = False
                    if kind == "error":
                        run.error(str(m.get("code")))
                    elif later and m["view"].get("over"):
                        break
            finally:
                run.watch.remove(ws)
                run.stats.open_sockets -= 1
    except (OSError, TimeoutError) as exc:
        run.error(f"spectator socket: {type(exc).__name__}")


async def table_driver(run: Run, index: int, ramp: float) -> None:
    """Table ``index``: sit down, play the game with its clients, and again, until the end."""
    await asyncio.sleep(ramp * index / max(1, run.s.tables))
    round_ = 0
    first = True
    people_rng = random.Random(f"{run.s.seed}/{index}/people")
    people = [Person(run, random.Random(people_rng.random())) for _ in range(run.seats)]
    while not run.stopping:
        try:
            table = await seat_table(run, index, round_)
        except (httpx.HTTPError, RuntimeError, KeyError) as exc:
            run.error(f"seating: {str(exc)[:60] or type(exc).__name__}")
            await asyncio.sleep(1.0)
            continue
        if first:
            first = False
            table.unopened = len(table.tokens) + run.s.spectators  # (then seated: opened())
        rng = random.Random(f"{run.s.seed}/{index}/{round_}")
        await asyncio.gather(
            *(
                player(run, table, seat, token, random.Random(rng.random()), person)
                for (seat, token), person in zip(table.tokens, people, strict=True)
            ),
            *(spectator(run, table) for _ in range(run.s.spectators)),
        )
        # (a game can be over before a late socket's first message: two redeals in a row
        # end a 2-deal game in a few actions)
        run.opened(table, every=True)
        if table.over and run.measuring:
            run.stats.finished += 1
        round_ += 1
        if not run.s.flat_out:  # (people read the score sheet before they sit down again)
            until = time.monotonic() + people_rng.uniform(*run.s.pause)
            while not run.stopping and time.monotonic() < until:
                await asyncio.sleep(min(0.5, until - time.monotonic()))


# ---------------------------------------------------------------------------- a phase


async def lag_probe(run: Run) -> None:
    """The client's own event-loop lag (a 50 ms sleep's overshoot): latency the server did
    not cause."""
    while not run.stopping:
        before = time.perf_counter()
        await asyncio.sleep(0.05)
        if run.measuring:
            run.stats.lag.append(time.perf_counter() - before - 0.05)


async def board_sync(run: Run) -> None:
    """Publish this shard's counters, learn the window from the parent, and stop the shard
    at the window's end (taking the shard's CPU time over the window)."""
    st = run.stats
    last_n, last_p = 0, time.monotonic()
    cpu0 = 0.0
    while True:
        await asyncio.sleep(0.1)
        now = time.monotonic()
        if run.start == math.inf and run.board.start.value:
            run.start = run.board.start.value
            run.deadline = run.start + run.s.seconds
        if not cpu0 and now >= run.start:
            cpu0 = time.process_time()
        if now >= run.deadline:
            run.client_cpu = time.process_time() - cpu0
            run.stopping = True
            return
        values: dict[str, float] = {
            "seated": st.seated,
            "sockets": st.open_sockets,
            "actions": st.actions,
            "errors": sum(st.errors.values()),
            "reconnects": st.reconnects,
        }
        if now - last_p >= max(1.0, run.s.progress_every):
            recent = st.latencies[last_n:]
            values["p50"] = statistics.median(recent) * 1000 if recent else 0.0
            values["p99"] = percentile(recent, 0.99) * 1000
            last_n, last_p = len(st.latencies), now
        run.board.put(run.shard, **values)


async def play_shard(run: Run) -> None:
    """Seat and play this shard's tables until the parent's window is over."""
    ramp = run.s.ramp if run.s.ramp >= 0 else run.s.tables / 50
    async with httpx.AsyncClient(
        base_url=run.base, timeout=120, limits=httpx.Limits(max_connections=16)
    ) as http:
        run.http = http
        helpers = [asyncio.create_task(lag_probe(run)), asyncio.create_task(run.watch.loop())]
        sync = asyncio.create_task(board_sync(run))
        drivers = [
            asyncio.create_task(table_driver(run, i, ramp))
            for i in range(run.shard, run.s.tables, run.shards)
        ]
        await sync
        results = await asyncio.gather(*drivers, return_exceptions=True)
        for h in helpers:
            h.cancel()
        await asyncio.gather(*helpers, return_exceptions=True)
    for r in results:
        if isinstance(r, BaseException):
            run.error(f"client crashed: {type(r).__name__}: {r}")


def run_loop(main: Any) -> Any:
    """Run a shard's coroutine on uvloop where it is installed (as the server runs: the
    clients' own CPU shares the machine's two cores with the server), else asyncio's loop."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


def shard_main(run: Run, results: Any) -> None:
    """A shard's thread or process: play, then hand the counters back. A shard process
    runs without the cyclic garbage collector (a run lasts minutes, and the clients' own
    objects die by reference count): its pauses were the clients' loop lag, which the
    latencies would count as the server's."""
    if run.shards > 1:
        gc.disable()
    try:
        run_loop(play_shard(run))
    except BaseException as exc:  # the parent reports it
        run.error(f"shard crashed: {type(exc).__name__}: {exc}")
    results.put((run.shard, run.stats, run.client_cpu))


def phase(settings: Settings, server: ChildServer, seating: str, label: str) -> dict[str, Any]:
    """Play ``settings`` against ``server`` with ``settings.clients`` client shards (one:
    a thread of this process; more: processes); the phase's summary. The window starts
    once every table is seated (or ``seat_timeout`` after the ramp) and lasts
    ``settings.seconds``."""
    shards = max(1, min(settings.clients, settings.tables))
    board = Board(shards)
    results: Any
    workers: list[threading.Thread | multiprocessing.process.BaseProcess]
    runs = [
        Run(settings, server.base, server.ws_base, seating, k, shards, board) for k in range(shards)
    ]
    if shards == 1:
        results = queue.Queue()
        workers = [threading.Thread(target=shard_main, args=(runs[0], results), daemon=True)]
    else:
        context = multiprocessing.get_context("fork")
        results = context.Queue()
        workers = [context.Process(target=shard_main, args=(r, results)) for r in runs]
    for w in workers:
        w.start()
    ramp = settings.ramp if settings.ramp >= 0 else settings.tables / 50
    started = time.monotonic()
    ticker = Ticker(settings, board, label, started)
    # every table seated, each of its sockets open with its first view: the window measures
    # play, not the connections' storm
    while (
        board.total("seated") < settings.tables
        and time.monotonic() - started < ramp + settings.seat_timeout
    ):
        time.sleep(0.1)
        ticker.tick(False)
    seated = int(board.total("seated"))
    settle = time.monotonic() + settings.settle
    while time.monotonic() < settle:
        time.sleep(0.1)
        ticker.tick(False)
    start = time.monotonic() + 0.2
    board.start.value = start
    time.sleep(max(0.0, start - time.monotonic()))
    user0, system0 = server.cpu_times()
    rss0 = server.rss()
    while time.monotonic() < start + settings.seconds:
        time.sleep(min(0.1, max(0.0, start + settings.seconds - time.monotonic())))
        ticker.tick(True)
    user1, system1 = server.cpu_times()
    cpu = (user1 - user0) + (system1 - system0)
    rss1 = server.rss()
    wall = time.monotonic() - start
    stats, client_cpu = Stats(), 0.0
    for _ in workers:
        _, part, part_cpu = results.get(timeout=300)
        stats.merge(part)
        client_cpu += part_cpu
    for w in workers:
        w.join(timeout=30)
    summary = summarise(runs[0], stats, wall, cpu, client_cpu)
    summary["seated_at_start"] = seated
    # (the kernel's share: the sockets' writes and reads, loopback's both ends)
    summary["server_system_cpu_s"] = round(system1 - system0, 3)
    summary["server_rss_mb"] = [round(rss0 / 2**20, 1), round(rss1 / 2**20, 1)]
    summary["client_shards"] = shards
    summary["computer_delay_ms"] = server.delay_ms if seating == "solo" else None
    return summary


class Ticker:
    """The progress lines, every ``progress_every`` seconds, from the shards' counters."""

    def __init__(self, settings: Settings, board: Board, label: str, started: float) -> None:
        self.s, self.board, self.label, self.started = settings, board, label, started
        self.last_t, self.last_actions = started, 0.0

    def tick(self, measuring: bool) -> None:
        now = time.monotonic()
        if self.s.progress_every <= 0 or now - self.last_t < self.s.progress_every:
            return
        b = self.board
        actions = b.total("actions")
        rate = (actions - self.last_actions) / (now - self.last_t)
        p50s = [x for x in b.column("p50") if x]
        print(
            f"[{self.label} {now - self.started:6.1f} s {'measuring' if measuring else 'seating'}]"
            f" seated {b.total('seated'):.0f}/{self.s.tables} sockets {b.total('sockets'):.0f}"
            f" actions {actions:.0f} ({rate:.0f}/s) latency p50"
            f" {statistics.median(p50s) if p50s else 0:.1f} ms p99 {max(b.column('p99')):.1f} ms"
            f" errors {b.total('errors'):.0f} reconnects {b.total('reconnects'):.0f}"
            f" load {os.getloadavg()[0]:.1f}",
            file=sys.stderr,
            flush=True,
        )
        self.last_t, self.last_actions = now, actions


def _ms(values: array[float]) -> dict[str, Any]:
    return {
        "count": len(values),
        "median": round(statistics.median(values) * 1000, 2) if values else None,
        "p99": round(percentile(values, 0.99) * 1000, 2) if values else None,
        # (the collector's longest passes freeze every socket at once: 1.3 s once in 90 s
        # at 1,000 tables on a slow machine, under 1 % of the actions; docs/benchmarks.md)
        "p999": round(percentile(values, 0.999) * 1000, 2) if values else None,
        "max": round(max(values) * 1000, 2) if values else None,
    }


def _bytes(values: list[int] | array[int]) -> dict[str, Any]:
    return {
        "count": len(values),
        "median": statistics.median(values) if values else None,
        "p99": percentile(values, 0.99) if values else None,
        "max": max(values) if values else None,
    }


def summarise(run: Run, st: Stats, wall: float, cpu: float, client: float) -> dict[str, Any]:
    everything = [n for c in CATEGORIES for n in st.sizes[c]]
    return {
        "tables": run.s.tables,
        "game": run.s.game,
        "seating": run.seating,
        "people_per_table": run.seats if run.seating == "room" else 1,
        "flat_out": run.s.flat_out,
        "window_s": round(wall, 2),
        "actions": st.actions,
        "actions_per_s": round(st.actions / wall, 1) if wall else 0.0,
        "sent": st.sent,
        "latency_ms": _ms(st.latencies),
        "server_cpu_s": round(cpu, 3),
        "server_cpu_ms_per_action": round(cpu / st.actions * 1000, 3) if st.actions else None,
        "server_cpu_share": round(cpu / wall, 3) if wall else None,
        "client_cpu_s": round(client, 3),
        "client_lag_ms": _ms(st.lag),
        "bytes": {"all": _bytes(everything), **{c: _bytes(st.sizes[c]) for c in CATEGORIES}},
        "errors": dict(st.errors),
        "error_count": sum(st.errors.values()),
        "connections": st.connections,
        "reconnects": st.reconnects,
        "reconnect_ms": _ms(st.reconnect_latencies),
        "games_finished": st.finished,
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "cores": os.cpu_count(),
    }


def targets(main: dict[str, Any]) -> dict[str, Any]:
    """The issue's targets beside this run's figures (``met``: None when the run was not
    one that can tell: too few tables, or not flat out)."""
    p99 = main["latency_ms"]["p99"]
    later = main["bytes"]["later"]["median"]
    enough = main["tables"] >= TARGET_TABLES and not main["flat_out"]
    return {
        "p99_at_1000_tables": {
            "target": f"{TARGET_TABLES} tables at p99 <= {TARGET_P99_MS:g} ms",
            "measured": f"{main['tables']} tables at p99 {p99} ms",
            "met": (p99 is not None and p99 <= TARGET_P99_MS) if enough else None,
        },
        "actions_per_s_flat_out": {
            "target": f">= {TARGET_ACTIONS_PER_S:g} actions/s flat out",
            "measured": f"{main['actions_per_s']} actions/s"
            + (" flat out" if main["flat_out"] else " at human pace"),
            "met": main["actions_per_s"] >= TARGET_ACTIONS_PER_S if main["flat_out"] else None,
        },
        "median_message": {
            "target": f"median later message <= {TARGET_MEDIAN_BYTES} bytes",
            "measured": f"{later} bytes",
            "met": later is not None and later <= TARGET_MEDIAN_BYTES,
        },
    }


def ratios(main: dict[str, Any], base: dict[str, Any]) -> dict[str, float | None]:
    def ratio(a: float | None, b: float | None) -> float | None:
        return round(a / b, 2) if a is not None and b else None

    return {
        "latency_median": ratio(main["latency_ms"]["median"], base["latency_ms"]["median"]),
        "latency_p99": ratio(main["latency_ms"]["p99"], base["latency_ms"]["p99"]),
        "server_cpu_per_action": ratio(
            main["server_cpu_ms_per_action"], base["server_cpu_ms_per_action"]
        ),
        "actions_per_s": ratio(main["actions_per_s"], base["actions_per_s"]),
    }


def machine_reference(actions: int = 4500) -> float:
    """This machine's speed now: microseconds of this process's CPU time for the server's own
    work for an action without its sockets (``bench_actions.act_cost``: ``TableManager.act``
    at 30 tables of three people and two spectators taking patches, the views, the patches,
    the SQLite writes). Shared machines change speed from one hour to the next, and the
    server's work slows more than a small loop's (a large working set: the host's other
    tenants share its caches); the run's CPU per action divided by this figure is what runs
    of different days can be compared by."""
    with tempfile.TemporaryDirectory(prefix="tapete-reference-") as directory:
        ms, _, _, _ = asyncio.run(
            bench_actions.act_cost(Path(directory), "reference.sqlite3", actions, patches=True)
        )
    return round(ms * 1000, 1)


def computer_delay_ms(settings: Settings) -> int:
    """The server's pause before a computer's move (``solo`` seating only): none flat out,
    else the middle of the think time, so that a table of one person and two computers
    goes at the pace of a table of three people."""
    if settings.delay_ms >= 0:
        return settings.delay_ms
    return 0 if settings.flat_out else round(sum(settings.think) / 2 * 1000)


def measure(
    settings: Settings, src: Path | None = None, profile: Path | None = None
) -> dict[str, Any]:
    """The whole benchmark: the baseline (one table of the same clients, flat out, no
    drops, on a server of its own), then the run on a fresh server; the summary with the
    targets and the ratios to the baseline. ``src``: the server's source folder;
    ``profile``: where the run's server writes a cProfile of its event loop."""
    seating = settings.seating
    out: dict[str, Any] = {"settings": asdict(settings)}
    reference = [machine_reference()]
    if settings.baseline_seconds > 0:
        base_settings = Settings(
            **{
                **asdict(settings),
                "tables": 1,
                "seconds": settings.baseline_seconds,
                "flat_out": True,
                "reconnect": 0.0,
                "ramp": 0.0,
                "seed": settings.seed + 7919,
            }
        )
        with ChildServer(delay_ms=0, src=src, limits=settings.server_limits) as server:
            if seating == "auto":
                seating = asyncio.run(detect_seating(server))
            out["baseline"] = phase(base_settings, server, seating, "baseline")
    with ChildServer(
        delay_ms=computer_delay_ms(settings),
        src=src,
        profile=profile,
        limits=settings.server_limits,
    ) as server:
        if seating == "auto":
            seating = asyncio.run(detect_seating(server))
        out["run"] = phase(settings, server, seating, "run")
    reference.append(machine_reference())
    per_action = out["run"]["server_cpu_ms_per_action"]
    out["machine"] = {
        "reference_us": reference,
        "server_cpu_per_action_in_references": (
            round(per_action * 1000 / statistics.mean(reference), 2) if per_action else None
        ),
    }
    out["targets"] = targets(out["run"])
    if "baseline" in out:
        out["ratio_to_baseline"] = ratios(out["run"], out["baseline"])
    return out


# ---------------------------------------------------------------------------- report


def report(out: dict[str, Any]) -> str:
    r = out["run"]
    lines = []
    pace = (
        "flat out"
        if r["flat_out"]
        else "think {}-{} s".format(*out["settings"]["think"])
        + ", {}-{} s between games".format(*out["settings"]["pause"])
    )
    lines.append(
        f"{r['tables']} {r['game']} tables, seating {r['seating']} "
        f"({r['people_per_table']} person client(s) a table"
        + (f", computers {r['computer_delay_ms']} ms" if r["computer_delay_ms"] is not None else "")
        + f"), {out['settings']['spectators']} "
        f"spectator(s) a table, {out['settings']['reconnect']:.0%} of clients dropping, {pace}; "
        f"window {r['window_s']} s from {r['seated_at_start']} tables seated; "
        f"{r['client_shards']} client process(es)"
    )

    def figures(name: str, x: dict[str, Any]) -> str:
        lat, b = x["latency_ms"], x["bytes"]
        return (
            f"{name}: latency median {lat['median']} ms, p99 {lat['p99']} ms, p99.9 "
            f"{lat['p999']} ms, max {lat['max']} ms "
            f"({lat['count']} actions timed); {x['actions']} actions = {x['actions_per_s']}/s; "
            f"server CPU {x['server_cpu_s']} s ({x['server_system_cpu_s']} s in the kernel) = "
            f"{x['server_cpu_ms_per_action']} ms per action "
            f"({x['server_cpu_share']:.0%} of a core); bytes per message median "
            f"{b['all']['median']}, p99 {b['all']['p99']}; errors {x['error_count']}"
        )

    if "baseline" in out:
        lines.append(figures("baseline (1 table, flat out)", out["baseline"]))
    lines.append(figures("run", r))
    b = r["bytes"]
    lines.append(
        "messages: "
        + "; ".join(
            f"{c} {b[c]['count']} (median {b[c]['median']}, p99 {b[c]['p99']}, max {b[c]['max']})"
            for c in CATEGORIES
        )
    )
    lines.append(
        f"connections {r['connections']}, reconnections {r['reconnects']} (connect -> missed "
        f"events: median {r['reconnect_ms']['median']} ms, p99 {r['reconnect_ms']['p99']} ms), "
        f"games finished {r['games_finished']}, errors {r['errors'] or 'none'}; server memory "
        f"{r['server_rss_mb'][0]} MB at the window's start, {r['server_rss_mb'][1]} MB at its end"
    )
    lines.append(
        f"client CPU {r['client_cpu_s']} s, client loop lag p99 {r['client_lag_ms']['p99']} ms; "
        f"load average {r['load_average']} on {r['cores']} cores shared with other jobs "
        "(latency includes waiting for a core)"
    )
    m = out["machine"]
    lines.append(
        "machine: the server's work for an action without sockets (TableManager.act in this "
        f"process) {m['reference_us'][0]} us before the run, {m['reference_us'][1]} us after "
        f"it; the run's server CPU per action is {m['server_cpu_per_action_in_references']} "
        "times that"
    )
    for t in out["targets"].values():
        met = {True: "met", False: "NOT met", None: "not measured by this run"}[t["met"]]
        lines.append(f"target {t['target']}: {t['measured']} -> {met}")
    if "ratio_to_baseline" in out:
        lines.append(
            "run / baseline: " + ", ".join(f"{k} {v}" for k, v in out["ratio_to_baseline"].items())
        )
    return "\n".join(lines)


def _pair(text: str) -> tuple[float, float]:
    low, _, high = text.partition("-")
    a, b = float(low), float(high or low)
    if not 0 <= a <= b:
        raise argparse.ArgumentTypeError(
            f"expected LOW-HIGH seconds with 0 <= LOW <= HIGH, got {text!r}"
        )
    return a, b


def parse_args(argv: list[str] | None = None) -> tuple[Settings, argparse.Namespace]:
    p = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    p.add_argument("--tables", type=int, default=50, help="concurrent tables (1..5000)")
    p.add_argument("--game", choices=("mil", "mariage"), default="mil")
    p.add_argument("--seconds", type=float, default=60.0, help="the measured window")
    p.add_argument("--think", type=_pair, default=(1.0, 3.0), help="think time LOW-HIGH s")
    p.add_argument(
        "--pause", type=_pair, default=(5.0, 20.0), help="between a table's games LOW-HIGH s"
    )
    p.add_argument("--flat-out", action="store_true", help="no think time, no pause")
    p.add_argument(
        "--whole-views",
        action="store_true",
        help="the clients ask for whole views, not patches (patches=0: the protocol before)",
    )
    p.add_argument("--spectators", type=int, default=2, help="spectators a table")
    p.add_argument("--reconnect", type=float, default=0.1, help="share of dropping clients")
    p.add_argument("--drop-every", type=_pair, default=(10.0, 30.0), help="LOW-HIGH s")
    p.add_argument("--deals", type=int, default=2, help="deals a game (max_deals)")
    p.add_argument("--seating", choices=("auto", "room", "solo"), default="auto")
    p.add_argument("--ramp", type=float, default=-1.0, help="seating time (default tables/50 s)")
    p.add_argument("--baseline-seconds", type=float, default=5.0, help="0: no baseline")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--delay-ms", type=int, default=-1, help="computers' pause, solo seating (default: auto)"
    )
    p.add_argument("--progress-every", type=float, default=5.0, help="0: no progress lines")
    p.add_argument("--clients", type=int, default=1, help="client processes (1: in-process)")
    p.add_argument(
        "--seat-timeout", type=float, default=120.0, help="longest wait for seating after the ramp"
    )
    p.add_argument(
        "--settle",
        type=float,
        default=5.0,
        help="seconds between every socket open and the window (default 5)",
    )
    p.add_argument("--json", metavar="FILE", help="also write the summary as JSON (- : stdout)")
    p.add_argument("--server-src", type=Path, help="run the server from this src folder")
    p.add_argument(
        "--server-limits",
        type=json.loads,
        default={},
        metavar="JSON",
        help="Limits fields for the servers, e.g. '{\"gc_thresholds\": [5000, 20, 100]}'",
    )
    p.add_argument("--profile-server", type=Path, help="cProfile of the run's server, to FILE")
    a = p.parse_args(argv)
    if not 1 <= a.tables <= 5000:
        p.error("--tables must be from 1 to 5000")
    if not 0 <= a.reconnect <= 1:
        p.error("--reconnect must be from 0 to 1")
    if a.seconds <= 0 or a.spectators < 0 or a.deals < 1:
        p.error("--seconds must be > 0, --spectators >= 0, --deals >= 1")
    settings = Settings(
        game=a.game,
        tables=a.tables,
        seconds=a.seconds,
        think=a.think,
        pause=a.pause,
        flat_out=a.flat_out,
        patches=not a.whole_views,
        spectators=a.spectators,
        reconnect=a.reconnect,
        drop_every=a.drop_every,
        deals=a.deals,
        seating=a.seating,
        ramp=a.ramp,
        baseline_seconds=a.baseline_seconds,
        seed=a.seed,
        progress_every=a.progress_every,
        delay_ms=a.delay_ms,
        clients=a.clients,
        seat_timeout=a.seat_timeout,
        settle=a.settle,
        server_limits=a.server_limits,
    )
    return settings, a


def main(argv: list[str] | None = None) -> int:
    settings, a = parse_args(argv)
    out = measure(settings, a.server_src, a.profile_server)
    print(report(out))
    if a.json == "-":
        print(json.dumps(out, indent=1))
    elif a.json:
        Path(a.json).write_text(json.dumps(out, indent=1) + "\n")
    return 0 if out["run"]["latency_ms"]["count"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
