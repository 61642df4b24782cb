"""A small WebSocket client for the load benchmarks (not a benchmark itself, not part of
Tapete): the RFC 6455 client side on an asyncio ``Protocol``, with just what the room's
scripted clients use: ``connect`` (an ``async with``), ``recv`` and ``send`` of text
frames, ``close``.

Why not the ``websockets`` package: the benchmark's clients share the machine's two cores
with the server they measure, and at 1,000 tables (5,000 sockets) its per-message work (a
sans-I/O parser of generators, an assembler, a keepalive task per socket) took more CPU than
the server itself, so the latencies measured were the clients' own queueing. Here a frame is
parsed in ``data_received`` straight from one buffer and handed to the one waiting ``recv``.

What it checks: the ``101`` answer and its ``Sec-WebSocket-Accept``; a frame from the
server must not be masked; a message is at most ``max_size`` bytes. It answers pings,
takes fragmented messages, and answers a close frame; anything else wrong ends the
connection with :class:`ConnectionClosedError` (an ``OSError``).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
from collections import deque
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_TEXT, _BINARY, _CLOSE, _PING, _PONG, _CONTINUATION = 1, 2, 8, 9, 10, 0


class ConnectionClosedError(ConnectionError):
    """The connection is closed (by either side, or for a protocol error: ``str`` says)."""


def frame(opcode: int, payload: bytes) -> bytes:
    """A client frame: FIN, ``opcode``, masked ``payload`` (a client must mask)."""
    n = len(payload)
    if n < 126:
        head = bytes((0x80 | opcode, 0x80 | n))
    elif n < 65536:
        head = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
    mask = os.urandom(4)
    if not n:
        return head + mask
    key = (mask * (n // 4 + 1))[:n]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(key, "big")).to_bytes(n, "big")
    return head + mask + masked


def accept_key(key: str) -> str:
    """The ``Sec-WebSocket-Accept`` a server must answer to ``key``."""
    return base64.b64encode(hashlib.sha1(key.encode() + _GUID).digest()).decode()


class _Protocol(asyncio.Protocol):
    def __init__(self, key: str, max_size: int) -> None:
        self.key = key
        self.max_size = max_size
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.opened: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.messages: deque[str] = deque()
        self.waiter: asyncio.Future[None] | None = None
        self.fragments: list[bytes] = []
        self.closed: str | None = None  # why, once closed
        self.interrupted = False  # Connection.interrupt(): the waiting recv raises TimeoutError
        self.lost: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    # ---------------------------------------------------------------- asyncio's side
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # (uvloop's is no subclass)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if not self.opened.done():
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buffer) > 65536:
                    self._fail("the handshake's answer is too long")
                return
            head = bytes(self.buffer[:end]).decode("latin-1")
            del self.buffer[: end + 4]
            lines = head.split("\r\n")
            if not lines[0].startswith("HTTP/1.1 101"):
                self._fail(f"the server refused the WebSocket: {lines[0]!r}")
                return
            headers = dict(
                (k.strip().lower(), v.strip())
                for k, _, v in (line.partition(":") for line in lines[1:])
            )
            if headers.get("sec-websocket-accept") != accept_key(self.key):
                self._fail("wrong Sec-WebSocket-Accept in the server's answer")
                return
            self.opened.set_result(None)
        self._frames()

    def connection_lost(self, exc: Exception | None) -> None:
        self._closed(f"the connection was lost{f': {exc}' if exc else ''}")
        if not self.lost.done():
            self.lost.set_result(None)

    # ---------------------------------------------------------------- frames
    def _frames(self) -> None:
        buf = self.buffer
        pos, end = 0, len(buf)
        while end - pos >= 2 and self.closed is None:
            b0, b1 = buf[pos], buf[pos + 1]
            if b1 & 0x80:
                self._fail("a masked frame from the server")
                return
            length, head = b1 & 0x7F, 2
            if length == 126:
                if end - pos < 4:
                    break
                length, head = int.from_bytes(buf[pos + 2 : pos + 4], "big"), 4
            elif length == 127:
                if end - pos < 10:
                    break
                length, head = int.from_bytes(buf[pos + 2 : pos + 10], "big"), 10
            if length > self.max_size:
                self._fail(f"a frame of {length} bytes (at most {self.max_size})")
                return
            if end - pos < head + length:
                break
            payload = bytes(buf[pos + head : pos + head + length])
            pos += head + length
            self._frame(b0 & 0x80, b0 & 0x0F, payload)
        del buf[:pos]

    def _frame(self, fin: int, opcode: int, payload: bytes) -> None:
        if opcode in (_TEXT, _BINARY, _CONTINUATION):
            if opcode != _CONTINUATION and self.fragments:
                self._fail("a new message inside a fragmented one")
                return
            self.fragments.append(payload)
            if sum(map(len, self.fragments)) > self.max_size:
                self._fail(f"a message of more than {self.max_size} bytes")
                return
            if fin:
                text = b"".join(self.fragments).decode("utf-8")
                self.fragments = []
                self.messages.append(text)
                self._wake()
        elif opcode == _PING:
            self._write(frame(_PONG, payload))
        elif opcode == _CLOSE:
            code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
            self._write(frame(_CLOSE, payload[:2]))
            self._closed(f"closed by the server (code {code})")
            if self.transport is not None:
                self.transport.close()
        elif opcode != _PONG:
            self._fail(f"unknown opcode {opcode}")

    # ---------------------------------------------------------------- helpers
    def _write(self, data: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(data)

    def _wake(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(None)

    def _closed(self, why: str) -> None:
        if self.closed is None:
            self.closed = why
        if not self.opened.done():
            self.opened.set_exception(ConnectionClosedError(why))
        self._wake()

    def _fail(self, why: str) -> None:
        self._closed(why)
        if self.transport is not None:
            self.transport.abort()


class Connection:
    """One WebSocket: ``await recv()`` the next text, ``await send(text)``, ``close()``.
    ``headers``: more headers of the opening handshake (a seat's ``X-Tapete-Token``)."""

    def __init__(
        self,
        url: str,
        *,
        max_size: int = 2**22,
        open_timeout: float = 120.0,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.url = url
        self.headers = headers or {}
        self.max_size = max_size
        self.open_timeout = open_timeout
        self.protocol: _Protocol | None = None

    async def __aenter__(self) -> Connection:
        parts = urlsplit(self.url)
        if parts.scheme != "ws" or parts.hostname is None:
            raise ValueError(f"a ws:// address, not {self.url!r}")
        port = parts.port or 80
        path = parts.path + (f"?{parts.query}" if parts.query else "")
        key = base64.b64encode(os.urandom(16)).decode()
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(self.open_timeout):
            _, protocol = await loop.create_connection(
                lambda: _Protocol(key, self.max_size), parts.hostname, port
            )
            self.protocol = protocol
            assert protocol.transport is not None
            extra = "".join(f"{name}: {value}\r\n" for name, value in self.headers.items())
            protocol.transport.write(
                f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                f"Sec-WebSocket-Version: 13\r\n{extra}\r\n".encode("latin-1")
            )
            try:
                await protocol.opened
            except BaseException:
                protocol.transport.abort()
                raise
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def recv(self) -> str:
        """The next text message; :class:`ConnectionClosedError` once the socket is closed."""
        p = self.protocol
        assert p is not None, "not connected"
        while not p.messages:
            if p.closed is not None:
                raise ConnectionClosedError(p.closed)
            if p.interrupted:
                p.interrupted = False
                raise TimeoutError("interrupted")
            p.waiter = asyncio.get_running_loop().create_future()
            try:
                await p.waiter
            finally:
                p.waiter = None
        return p.messages.popleft()

    def interrupt(self) -> None:
        """Make the waiting (or the next waiting) ``recv`` raise :class:`TimeoutError`: a
        caller's own deadline without a timer for every message (``asyncio.timeout`` around
        each ``recv`` cost the benchmark's clients a twelfth of their CPU)."""
        p = self.protocol
        if p is not None:
            p.interrupted = True
            p._wake()

    async def send(self, text: str | bytes) -> None:
        """Send a text frame (``bytes``: text already encoded as UTF-8)."""
        p = self.protocol
        assert p is not None, "not connected"
        if p.closed is not None:
            raise ConnectionClosedError(p.closed)
        p._write(frame(_TEXT, text.encode("utf-8") if isinstance(text, str) else text))

    async def close(self, code: int = 1000) -> None:
        """Send a close frame and wait (at most 2 s) for the server to close the socket."""
        p = self.protocol
        if p is None or p.transport is None:
            return
        if p.closed is None:
            p._write(frame(_CLOSE, code.to_bytes(2, "big")))
            p._closed("closed by the client")
        try:
            async with asyncio.timeout(2.0):
                await p.lost
        except TimeoutError:
            p.transport.abort()


def connect(url: str, **options: Any) -> Connection:
    """``async with connect("ws://127.0.0.1:8000/ws/1") as ws: ...``"""
    return Connection(url, **options)
