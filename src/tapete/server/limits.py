"""What one client may make the server spend: the limits, token buckets, and a log that
names each kind of refusal once instead of once per attempt.

Every number a limit owns lives in :class:`Limits` (one frozen value, a comment per knob);
docs/server.md, "Running Tapete on a network", lists them with their options.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "Limits",
    "OnceFilter",
    "RefusalLog",
    "TokenBucket",
    "TokenBuckets",
    "parse_count",
    "path_number",
    "retry_after",
]

log = logging.getLogger("tapete.server")


@dataclass(frozen=True, slots=True)
class Limits:
    """The server's resource limits (defaults fit a club on a small machine)."""

    #: the largest request body (bytes); refused by Content-Length before it is read, and a
    #: chunked body is cut off as soon as it grows past it
    max_body_bytes: int = 16384
    #: table creation per client address: a bucket of ``create_burst`` tables that refills
    #: one table every ``create_refill_s`` seconds
    create_burst: int = 10
    create_refill_s: float = 6.0
    #: open TCP connections from one client address (HTTP and WebSocket together)
    max_connections_per_client: int = 64
    #: open connections and running requests in all (uvicorn's ``limit_concurrency``: 503
    #: past it)
    max_connections: int = 1000
    #: open WebSockets from one client address, and on one table
    max_sockets_per_client: int = 32
    max_sockets_per_table: int = 64
    #: a new connection must send a whole request head (and a request its whole body) within
    #: this time, or it is closed (slow and idle clients)
    request_timeout_s: float = 10.0
    #: an idle keep-alive connection is closed after this time (uvicorn's
    #: ``timeout_keep_alive``)
    keep_alive_s: int = 5
    #: WebSocket pings: a peer that does not answer within the timeout is closed
    ws_ping_interval_s: float = 20.0
    ws_ping_timeout_s: float = 20.0
    #: a WebSocket whose writing has stayed paused this long (its buffer full: the client
    #: reads nothing) is closed with 1008, its person then disconnected; the close frame goes
    #: after the bytes not yet read, and the connection is dropped if they are still
    #: not read as long again. The same bound drops a socket the ping timeout closed whose
    #: unsent bytes never go. None: never (a client that stops reading then keeps its socket,
    #: and its seat connected, for as long as its system answers for it)
    ws_write_stall_s: float | None = 10.0
    #: the largest WebSocket frame the server reads (bigger ones close the socket)
    ws_max_size: int = 65536
    #: offer permessage-deflate on WebSockets (uvicorn's ``ws_per_message_deflate``). Off by
    #: default: compressing every 1-2.5 KB message cost about 8 % of the server's CPU per
    #: action and holds a compressor of about 32 KB per socket (docs/benchmarks.md, "Online
    #: room load"); on, a view after an action crosses the network in about 0.1 KB (each
    #: socket's compressor remembers the last messages, which differ little): for a server
    #: short of bandwidth
    ws_deflate: bool = False
    #: the garbage collector's thresholds in the serving process (``gc.set_threshold``).
    #: Python's (700, 10, 10) make a full collection of the whole heap every few seconds
    #: under load, and at 1,000 tables (about a million objects) each one holds the event
    #: loop for about a second: the p99 latency (docs/benchmarks.md, "Online room load").
    #: Most of a server's objects die young or by reference count, so collections can be
    #: far rarer; None keeps Python's
    gc_thresholds: tuple[int, int, int] | None = (50_000, 20, 100)
    #: a pass over the young objects every so many seconds, its survivors then frozen
    #: (``collector.Collector``): pauses of one tick's survivors instead of rare passes
    #: over the whole room; None: Python's collector alone
    gc_tick_s: float | None = 0.5
    #: hints per seat: a bucket of ``hint_burst`` that refills one hint every
    #: ``hint_refill_s`` seconds
    hint_burst: int = 5
    hint_refill_s: float = 3.0
    #: worker threads for the computer players, and for hints worker processes (0: threads,
    #: ``hint_workers`` of them): separate pools, so that a flood of hints never delays a
    #: computer move, and hints in processes do not hold the event loop's interpreter lock
    bot_workers: int = 4
    #: worker threads for the database work of requests (``db.DatabaseThreads``): a request
    #: that finds them all busy waits for one, and the event loop never waits
    db_workers: int = 4
    hint_processes: int = 1
    hint_workers: int = 2
    #: hints waiting for a worker; past this a new one is refused at once
    max_pending_hints: int = 16
    #: the longest page of any list (tables, live tables, ranking)
    max_page: int = 100
    #: a page of a list is answered from memory for this long (a flood of the same list
    #: costs one query a second; 0: no cache)
    list_cache_s: float = 1.0
    #: a table whose person never opened it is closed (status ``expired``) after this time
    unopened_ttl_s: float = 3600.0
    #: an unfinished table with no action for this long is closed (status ``abandoned``)
    abandoned_after_s: float = 7 * 24 * 3600.0
    #: how often the server looks for such tables
    sweep_every_s: float = 60.0
    #: the tables to watch (``GET /api/tables/live``) are those with an action this recent:
    #: a game left unfinished an hour ago is nobody's to watch (the Games window listed
    #: every unfinished table of the server)
    live_idle_s: float = 600.0
    #: how long a write waits for a database locked by another program (SQLite)
    busy_timeout_s: float = 0.25
    #: the largest ``max_deals`` a table accepts
    max_deals: int = 10_000
    #: a game nobody plays to the end (random or unattended play) stops after this many
    #: deals when the table sets no ``max_deals``: the table is then ``abandoned`` (no
    #: winner, no statistics). None: the game's ``GameKind.max_deals`` (Mil 80, Mariage 60)
    max_game_deals: int | None = None
    #: the online room: how many actions' events a table keeps for reconnecting clients
    #: (older: one whole view), open lobby WebSockets, and chat lines per connection (a
    #: bucket of ``chat_burst`` that refills one line every ``chat_refill_s`` seconds)
    history_actions: int = 400
    max_lobby_sockets: int = 256
    #: open lobby WebSockets from one client address, so that a few addresses cannot take
    #: every one of ``max_lobby_sockets`` (a page holds one only while its lobby is open;
    #: a club's players behind one address share these; a trusted proxy's clients count by
    #: the address it names)
    max_lobby_sockets_per_client: int = 16
    chat_burst: int = 5
    chat_refill_s: float = 2.0


def parse_count(raw: str | None, what: str, *, low: int, high: int, default: int) -> int:
    """A whole number from a query parameter or a path: ASCII digits only (``²`` or ``١``
    are not numbers here), from ``low`` to ``high``; raise ``ValueError`` with the sentence."""
    if raw is None:
        return default
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 18 or not low <= int(raw) <= high:
        raise ValueError(f"'{what}' must be a whole number from {low} to {high}, got {raw!r}")
    return int(raw)


class TokenBucket:
    """``capacity`` tokens that refill one every ``refill_s`` seconds."""

    __slots__ = ("capacity", "refill_s", "stamp", "tokens")

    def __init__(self, capacity: int, refill_s: float, now: float) -> None:
        self.capacity = capacity
        self.refill_s = refill_s
        self.tokens = float(capacity)
        self.stamp = now

    def _fill(self, now: float) -> None:
        if now > self.stamp:
            self.tokens = min(self.capacity, self.tokens + (now - self.stamp) / self.refill_s)
        self.stamp = now

    def take(self, now: float) -> float:
        """Take a token: 0.0 if there was one, else the seconds until there is one."""
        self._fill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) * self.refill_s

    def full(self, now: float) -> bool:
        self._fill(now)
        return self.tokens >= self.capacity


class TokenBuckets:
    """One :class:`TokenBucket` per key (a client address, a seat), at most ``max_keys`` of
    them: full buckets are forgotten first (they hold nothing), then the oldest."""

    def __init__(
        self,
        capacity: int,
        refill_s: float,
        *,
        max_keys: int = 10_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.capacity = capacity
        self.refill_s = refill_s
        self.max_keys = max_keys
        self.clock = clock
        self.buckets: OrderedDict[object, TokenBucket] = OrderedDict()

    def take(self, key: object) -> float:
        """0.0 if ``key`` may go on now, else the seconds it must wait."""
        now = self.clock()
        bucket = self.buckets.get(key)
        if bucket is None:
            if len(self.buckets) >= self.max_keys:
                self._prune(now)
            bucket = self.buckets[key] = TokenBucket(self.capacity, self.refill_s, now)
        else:
            self.buckets.move_to_end(key)
        return bucket.take(now)

    def _prune(self, now: float) -> None:
        for key in [k for k, b in self.buckets.items() if b.full(now)]:
            del self.buckets[key]
        while len(self.buckets) >= self.max_keys:
            self.buckets.popitem(last=False)


def retry_after(wait_s: float) -> str:
    """A ``Retry-After`` header value: whole seconds, at least 1."""
    return str(max(1, math.ceil(wait_s)))


class RefusalLog:
    """Log each kind of refusal once, then at most one summary a period: a flood of
    refused attempts writes a few lines, not one per attempt. Safe to note from several
    threads (the event loop's and the write thread's): no refusal is counted twice or lost."""

    def __init__(
        self, period_s: float = 60.0, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.period_s = period_s
        self.clock = clock
        #: kind -> (time of the last line, refusals since)
        self.kinds: dict[str, tuple[float, int]] = {}
        self._lock = threading.Lock()

    def note(self, kind: str, client: str, detail: str) -> None:
        with self._lock:
            self._note(kind, client, detail)

    def _note(self, kind: str, client: str, detail: str) -> None:
        now = self.clock()
        seen = self.kinds.get(kind)
        if seen is None:
            self.kinds[kind] = (now, 0)
            log.warning(
                "refused (%s) from %s: %s (further refusals of this kind are counted, "
                "not logged one by one)",
                kind,
                client,
                detail,
            )
            return
        last, count = seen
        count += 1
        if now - last >= self.period_s:
            log.warning(
                "refused (%s): %d more in the last %.0f s, the latest from %s: %s",
                kind,
                count,
                now - last,
                client,
                detail,
            )
            self.kinds[kind] = (now, 0)
        else:
            self.kinds[kind] = (last, count)

    def count(self, kind: str) -> int:
        """Refusals of ``kind`` not yet logged (tests)."""
        seen = self.kinds.get(kind)
        return -1 if seen is None else seen[1]


class OnceFilter(logging.Filter):
    """A logging filter that lets a message that starts with ``prefix`` through once a
    period (asyncio's "socket.accept() out of system resource" under a descriptor flood)."""

    def __init__(
        self, prefix: str, period_s: float = 60.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.prefix = prefix
        self.period_s = period_s
        self.clock = clock
        self.last = -math.inf
        self.dropped = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith(self.prefix):
            return True
        now = self.clock()
        if now - self.last < self.period_s:
            self.dropped += 1
            return False
        if self.dropped:
            record.msg = f"{record.msg} ({self.dropped} more like it not logged)"
        record.exc_info = None
        self.last = now
        self.dropped = 0
        return True


def path_number(raw: str, max_digits: int) -> int | None:
    """A number from a URL path: 1 to ``max_digits`` ASCII digits, else None (``str.isdigit``
    alone takes ``²`` and ``١``, which ``int`` refuses or reads as another number).

    >>> [path_number(raw, 6) for raw in ("42", "\u00b9", "\u0661", "1234567")]
    [42, None, None, None]
    """
    if raw.isascii() and raw.isdigit() and len(raw) <= max_digits:
        return int(raw)
    return None
