"""Connection limits below the ASGI app, in uvicorn's HTTP protocol: at most so many open
connections from one client address, and a connection that does not send a whole request
(head and body) within the request timeout is closed (idle sockets and slow senders hold a
file descriptor each; uvicorn's own keep-alive timeout only starts after a response).

``guarded_h11(limits, refusals)`` is the protocol class to pass as ``uvicorn.Config(http=)``,
``lean_websocket(limits, refusals)`` (a :class:`LeanWebSocket`) the one for ``ws=``.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.protocol import OPEN

try:  # (the library's own C unmasking, as its frame parser uses)
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover (a build of websockets without its C part)
    from websockets.utils import apply_mask

from tapete.server.limits import Limits, OnceFilter, RefusalLog
from tapete.server.security import TrustedProxies

__all__ = [
    "SEND_TEXT",
    "STALLED_CLOSE",
    "LeanWebSocket",
    "guarded_h11",
    "lean_websocket",
    "quiet_accept_errors",
    "raise_file_limit",
    "text_frame",
]

#: the ASGI extension (``scope["extensions"]``) of a :class:`LeanWebSocket` connection: a
#: function that writes one text message at once (``app.Connection`` uses it when present)
SEND_TEXT = "tapete.send_text"

#: the close code of a WebSocket whose client stopped reading (RFC 6455's "policy
#: violation", as for a client whose queue of messages overflows: ``app.Connection``)
STALLED_CLOSE = 1008


def text_frame(payload: bytes) -> bytes:
    """A server's unfragmented, uncompressed WebSocket text frame of ``payload`` (RFC 6455,
    5.2: FIN and opcode 1, no mask, the length in 7, 7+16 or 7+64 bits), byte for byte the
    frame the ``websockets`` library writes for it on a connection without extensions."""
    n = len(payload)
    if n < 126:
        return bytes((0x81, n)) + payload
    if n < 65536:
        return b"\x81\x7e" + n.to_bytes(2, "big") + payload
    return b"\x81\x7f" + n.to_bytes(8, "big") + payload


def _whole_header(data: bytes, at: int) -> bool:
    """Whether ``data`` holds a frame's whole length field from ``at`` (2, 4 or 10 bytes)."""
    left = len(data) - at
    if left < 2:
        return False
    size = data[at + 1] & 0x7F
    return left >= (4 if size == 126 else 10 if size == 127 else 2)


#: closed transports an address's set may gather beyond twice its open ones before a sweep
SWEEP_SLACK = 8


def guarded_h11(
    limits: Limits, refusals: RefusalLog, trusted_proxies: TrustedProxies | None = None
) -> type[H11Protocol]:
    """An ``H11Protocol`` that counts connections per client address and closes slow ones.
    A trusted proxy's connections are not counted (each carries the requests of many
    clients; the guard counts those by the address the proxy names)."""
    proxies = trusted_proxies or TrustedProxies()
    #: client address -> its open transports (and some closed ones: a connection upgraded to
    #: a WebSocket is no longer this protocol's, so its end is only seen by ``is_closing``)
    open_by_client: dict[str, set[asyncio.BaseTransport]] = {}
    #: client address -> how many of its transports were open at the last sweep of the
    #: closed ones: the next sweep waits until the set has about doubled, so that a new
    #: connection costs O(1) on average, not a look at every socket of its address (all of
    #: a load test's thousands come from 127.0.0.1)
    open_at_sweep: dict[str, int] = {}

    class GuardedH11(H11Protocol):
        _timer: asyncio.TimerHandle | None = None
        _watched: Any = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            ip = self.client[0] if self.client else "unknown"
            if proxies.trusts(ip):
                self._arm(None)
                return
            mine = open_by_client.setdefault(ip, set())
            limit = limits.max_connections_per_client
            if len(mine) >= min(limit, 2 * open_at_sweep.get(ip, 0) + SWEEP_SLACK):
                for other in [t for t in mine if t.is_closing()]:
                    mine.discard(other)
                open_at_sweep[ip] = len(mine)
            if len(mine) >= limit:
                refusals.note(
                    "connections",
                    ip,
                    f"more than {limits.max_connections_per_client} open connections "
                    "from one address",
                )
                transport.abort()
                return
            mine.add(transport)
            self._arm(None)

        def _arm(self, cycle: Any) -> None:
            if self._timer is not None:
                self._timer.cancel()
            self._watched = cycle
            self._timer = self.loop.call_later(limits.request_timeout_s, self._expire)

        def _expire(self) -> None:
            self._timer = None
            transport = self.transport
            if transport.is_closing() or transport.get_protocol() is not self:
                return  # closed, or upgraded to a WebSocket (which has its own pings)
            cycle = self.cycle
            if cycle is self._watched and (cycle is None or cycle.more_body):
                ip = self.client[0] if self.client else "unknown"
                refusals.note(
                    "slow_request",
                    ip,
                    f"no whole request within {limits.request_timeout_s:g} s: closed",
                )
                transport.close()

        def handle_events(self) -> None:
            before = self.cycle
            super().handle_events()
            if self.cycle is not before and not self.transport.is_closing():
                self._arm(self.cycle)  # a new request: its body has the same time

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm(self.cycle)  # the next request's head has the same time

        def connection_lost(self, exc: Exception | None) -> None:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            ip = self.client[0] if self.client else "unknown"
            mine = open_by_client.get(ip)
            if mine is not None:
                mine.discard(self.transport)
                if not mine:
                    del open_by_client[ip]
                    open_at_sweep.pop(ip, None)
            super().connection_lost(exc)

    GuardedH11.open_by_client = open_by_client  # type: ignore[attr-defined]
    return GuardedH11


class LeanWebSocket(WebSocketsSansIOProtocol):
    """uvicorn's sans-I/O WebSocket protocol without three costs of every message
    (docs/benchmarks.md, "Online room load" and "Less work per action"):

    * uvicorn pauses the socket's reading after each message it receives and resumes it
      when the app has read it (two ``epoll_ctl`` system calls a message); here the reading
      pauses only once :data:`READ_QUEUE` messages wait for the app, so a client that
      floods still waits, with at most that many messages held;
    * a message the app sends goes through Starlette's ``WebSocket``, its exception
      wrapper, an ASGI message and a coroutine before uvicorn frames it; here the app may
      call the :data:`SEND_TEXT` extension instead, which frames and writes it at once,
      as uvicorn's ``websocket.send`` would (the same bytes as the ``websockets`` frame;
      the library's own framing when the socket has compression). It says False, writing
      nothing, when that send would not write at once: the socket's buffer is full
      (uvicorn's send then waits for it to drain) or the connection is closing or closed;
      the app then sends the ASGI way;
    * each received frame went through the library's parser (a generator reading from a
      stream object, a frame object, an event list); here a whole, unfragmented,
      uncompressed text frame from the client is unmasked and handed to the app at once
      (:meth:`data_received`); every other frame (pings, pongs, the close, binary,
      fragments) goes to the library alone, as if it came in a read of its own (a long
      frame that comes in pieces too: the library gets its bytes up to its end, and the
      fast reading goes on after it), and past a frame too big for the limit, the library
      reads everything.

    Two bounds uvicorn's protocol lacks (:attr:`WRITE_STALL_S`, the server's
    ``Limits.ws_write_stall_s``): a socket whose writing stays paused that long (its buffer
    full: the client reads nothing) is closed with :data:`STALLED_CLOSE`; and a socket the
    server closes (that one, or one whose pings went unanswered) whose unsent bytes do not
    go within that bound again is dropped. uvicorn's close waited for those bytes, for ever
    if the client never read them, and its ping timeout did not tell the app: the socket,
    and the seat it held, stayed connected.

    Everything else (the handshake, pings, the close, a message the app sends the ASGI
    way) is uvicorn's own."""

    #: how many received messages may wait for the app before the reading pauses
    READ_QUEUE = 8
    #: whether :meth:`data_received` reads the common frames itself (False: the library
    #: reads everything, as uvicorn's protocol does; the tests compare the two)
    FAST_READ = True

    #: the longest frame the fast path waits for when it comes in pieces (each piece is
    #: added to a copy of the start); a longer one leaves the reading to the library
    PARTIAL_MAX = 8192
    #: the start of a frame not yet wholly received (read by the fast path)
    _partial = b""
    #: bytes still to come of a long frame the library has begun to read (given it alone:
    #: given the next frames with it in one read, uvicorn drops the messages of a read
    #: that ends in a frame breaking a rule, and raises on a bad text before a close)
    _library_frame_left = 0
    #: the library reads all of this connection's bytes from now on
    _library_reads = False
    #: how long the writing may stay paused, and a close wait for its unsent bytes, in
    #: seconds (None: no bound, as in uvicorn's protocol; :func:`lean_websocket` sets the
    #: server's ``Limits.ws_write_stall_s``)
    WRITE_STALL_S: float | None = None
    #: where a client that stopped reading is noted (the server's log of refusals), if anywhere
    REFUSALS: RefusalLog | None = None
    #: the end of the time the paused writing has to resume (None: writing, or no bound)
    _stall: asyncio.TimerHandle | None = None

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if isinstance(scope, dict) and not self.close_sent:
            # (the app's task has not run yet: it finds the extension in its scope)
            scope.setdefault("extensions", {})[SEND_TEXT] = self.send_text_now

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_stall()
        super().connection_lost(exc)
        scope = getattr(self, "scope", None)
        if isinstance(scope, dict):
            # (the extension is a method of this protocol, kept in the protocol's own scope:
            # a reference cycle that only the collector's slow full passes would free)
            (scope.get("extensions") or {}).pop(SEND_TEXT, None)

    # ------------------------------------------------------------------ a client not reading

    def pause_writing(self) -> None:
        """(The transport's buffer is full) the client has :attr:`WRITE_STALL_S` to read."""
        super().pause_writing()
        if self._stall is None and self.WRITE_STALL_S is not None and not self.disconnected:
            self._stall = self.loop.call_later(self.WRITE_STALL_S, self._write_stalled)

    def resume_writing(self) -> None:
        super().resume_writing()
        self._stop_stall()

    def _stop_stall(self) -> None:
        if self._stall is not None:
            self._stall.cancel()
            self._stall = None

    def _write_stalled(self) -> None:
        """The writing stayed paused :attr:`WRITE_STALL_S`: close with :data:`STALLED_CLOSE`."""
        self._stall = None
        reason = f"not reading: nothing could be written for {self.WRITE_STALL_S:g} s"
        if self.REFUSALS is not None:
            client = self.client[0] if self.client else "unknown"
            self.REFUSALS.note("ws_not_reading", client, f"WebSocket closed, {reason}")
        self._close_within(STALLED_CLOSE, reason)

    def keepalive_timeout(self) -> None:
        """A ping unanswered in time: closed as uvicorn closes it (1011), and the app hears
        of it at once; dropped if its unsent bytes do not go (:meth:`_close_within`)."""
        self.pong_timer = None
        self.pending_ping_payload = None
        if self.close_sent or self.transport.is_closing():
            return
        self._close_within(1011, "keepalive ping timeout")

    def _close_within(self, code: int, reason: str) -> None:
        """Close from the server's side: the app gets its disconnect now (its person is
        gone: the seat's grace begins), the close frame goes after the bytes not yet sent
        (a client that reads again finds ``code`` and ``reason``), the transport closes once
        they are sent, and it is dropped (``abort``: what it still holds is thrown away) if
        they still are not :attr:`WRITE_STALL_S` later. A close the app sent before is not
        sent again. A paused writing's wait ends here: the socket is closing already."""
        self.stop_keepalive()
        self._stop_stall()
        if not self.close_sent:
            self.queue.put_nowait({"type": "websocket.disconnect", "code": code, "reason": reason})
            self.conn.fail(code, reason)
            self.transport.write(b"".join(self.conn.data_to_send()))
            self.close_sent = True
        self.transport.close()
        if self.close_timer is not None:
            self.close_timer.cancel()
            self.close_timer = None
        if self.WRITE_STALL_S is not None:
            self.close_timer = self.loop.call_later(self.WRITE_STALL_S, self.transport.abort)

    # ------------------------------------------------------------------ writing at once

    def send_text_now(self, text: str) -> bool:
        """Frame and write ``text`` now; False, writing nothing, when uvicorn's send would
        not write it at once (before the handshake's answer, the buffer full, a close sent,
        the transport closing or lost)."""
        if (
            self.disconnected
            or not self.handshake_complete
            or self.close_sent
            or not self.writable.is_set()
            or self.transport.is_closing()
        ):
            return False
        conn = self.conn
        if conn.extensions or conn.writes or conn.expect_continuation_frame:
            # (compression, or bytes of the library's own waiting: its framing, in order)
            try:
                conn.send_text(text.encode())
            except InvalidState:
                return False
            self.transport.write(b"".join(conn.data_to_send()))
            return True
        if conn.state is not OPEN:
            return False
        # the frame the library would make, without its frame object and checks (1.4-2.3 ->
        # 0.3-0.6 us a 2 KB message: docs/benchmarks.md, "Less work per action")
        self.transport.write(text_frame(text.encode()))
        return True

    def data_received(self, data: bytes) -> None:
        if self._partial:
            data, self._partial = self._partial + data, b""
        if self._library_frame_left:
            given = data[: self._library_frame_left]
            self._library_frame_left -= len(given)
            data = data[len(given) :]
            super().data_received(given)
            if not data:
                return
        conn = self.conn
        if not self._library_reads and conn.state is OPEN:
            if self.FAST_READ and not conn.reader.buffer and conn.max_message_size is not None:
                data = data[self._read_frames(data) :]
                if not data:
                    return
            self._library_reads = True  # (from here on, for good)
        super().data_received(data)

    def _read_frames(self, data: bytes) -> int:
        """Read ``data`` frame by frame from its start (RFC 6455, 5.2), the library being at
        a frame's start (it was only ever given whole frames): a whole text frame on a plain
        connection (FIN, opcode 1, no RSV bit, masked; no compression, no fragmented
        message under way, no close sent) straight to uvicorn's hand-over to the app (which
        checks the UTF-8), any other whole frame to the
        library alone, as if it came in a read of its own; a last frame not yet whole waits
        for the next bytes. Stop at a frame past the size limit (the library's error), at a
        frame longer than :data:`PARTIAL_MAX` not yet whole (the library gets what came
        of it, and counts in :attr:`_library_frame_left` what it is still owed), and at
        the socket's close (after an error, no byte more is read); return where (the
        library reads from there, and from then on everything)."""
        conn = self.conn
        limit = conn.max_message_size
        assert limit is not None
        end = len(data)
        at = 0
        while at < end:
            if not _whole_header(data, at):
                break
            first, second = data[at], data[at + 1]
            size, head = second & 0x7F, at + 2
            if size == 126:
                size, head = int.from_bytes(data[at + 2 : at + 4], "big"), at + 4
            elif size == 127:
                size, head = int.from_bytes(data[at + 2 : at + 10], "big"), at + 10
            if size > limit:
                return at
            masked = second & 0x80
            stop = head + (4 if masked else 0) + size
            if stop > end:
                if stop - at > self.PARTIAL_MAX:
                    # (the library's buffer grows without copying the start again)
                    self._library_frame_left = stop - end
                    super().data_received(data[at:])
                    return end
                break
            if first == 0x81 and masked and self._plain():
                # (as uvicorn's handle_text: the UTF-8 is checked, and a close with 1007 sent
                # for bad text, where the message goes to the app)
                self.curr_msg_data_type = "text"
                self.frames = [apply_mask(data[head + 4 : stop], data[head : head + 4])]
                self.send_receive_event_to_app()
            else:
                super().data_received(data[at:stop])
            at = stop
            if self.transport.is_closing():  # (closed on an error: nothing more is read)
                return end
        self._partial = data[at:]
        return end

    def _plain(self) -> bool:
        """Whether the app may get a text frame straight: the connection open, without
        compression, no fragmented message under way, no close sent."""
        conn = self.conn
        return (
            conn.state is OPEN
            and not conn.extensions
            and conn.current_size is None
            and not self.close_sent
        )

    def send_receive_event_to_app(self) -> None:
        paused = self.read_paused
        self.read_paused = True  # (so that uvicorn's method does not pause the reading)
        try:
            super().send_receive_event_to_app()
        finally:
            self.read_paused = paused
        if not paused and self.queue.qsize() >= self.READ_QUEUE:
            self.read_paused = True
            self.transport.pause_reading()


def lean_websocket(limits: Limits, refusals: RefusalLog | None = None) -> type[LeanWebSocket]:
    """:class:`LeanWebSocket` with the server's bound on a client that stops reading
    (``limits.ws_write_stall_s``), each one noted in ``refusals``."""

    class ServedWebSocket(LeanWebSocket):
        WRITE_STALL_S = limits.ws_write_stall_s
        REFUSALS = refusals

    return ServedWebSocket


def raise_file_limit() -> int:
    """Raise this process's soft limit on open files to the hard one; return it (0 where
    the system has no such limit)."""
    try:
        import resource
    except ImportError:  # Windows
        return 0
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 65536)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


#: what uvicorn logs once per refused request or frame, whoever sends them: a client can
#: write them as fast as it sends (its "Invalid UTF-8 sequence" with a traceback each time)
UVICORN_FLOOD_MESSAGES = (
    "Exceeded concurrency limit.",
    "Invalid HTTP request received.",
    "Unsupported upgrade request.",
    "Invalid UTF-8 sequence received from client.",
)


def quiet_accept_errors() -> None:
    """Messages logged once per attempt under a flood: asyncio's "socket.accept() out of
    system resource" (with a traceback, on every failed accept) and uvicorn's
    :data:`UVICORN_FLOOD_MESSAGES` (a request beyond the concurrency limit, one that is no
    HTTP, an ``Upgrade`` to anything but a WebSocket, a text frame that is no UTF-8): let
    each through once a minute, without its traceback. (Idempotent: the server's
    configuration may be made more than once in a process.)"""
    _once(logging.getLogger("asyncio"), "socket.accept() out of system resource")
    uvicorn_log = logging.getLogger("uvicorn.error")
    for message in UVICORN_FLOOD_MESSAGES:
        _once(uvicorn_log, message)


def _once(logger: logging.Logger, prefix: str) -> None:
    """Add a :class:`OnceFilter` of ``prefix`` to ``logger`` unless it has one."""
    if not any(isinstance(f, OnceFilter) and f.prefix == prefix for f in logger.filters):
        logger.addFilter(OnceFilter(prefix))
