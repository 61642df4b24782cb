"""A table connection's writes (``app.Connection``): a message goes out at once when nothing
waits before it; a send that suspends (the socket's buffer is full) goes on in a task, and
later messages wait behind it in order; a client that does not read is closed with 1008;
a failed send ends the connection."""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from starlette.websockets import WebSocket

from tapete.server.app import Connection
from tapete.server.connections import SEND_TEXT


class FakeSocket:
    """A WebSocket whose sends suspend while ``paused`` is clear (as uvicorn's do while the
    transport's buffer is full)."""

    def __init__(self, direct: bool = False) -> None:
        self.sent: list[str] = []
        self.closed: int | None = None
        self.writable = asyncio.Event()
        self.writable.set()
        self.fail = False
        #: with ``direct``, the server's write-at-once extension (connections.LeanWebSocket)
        self.scope: dict[str, Any] = {"extensions": {SEND_TEXT: self.send_now} if direct else {}}
        self.direct: list[str] = []

    def send_now(self, text: str) -> bool:
        if not self.writable.is_set() or self.fail:
            return False  # (as LeanWebSocket: a full buffer or a closed socket)
        self.sent.append(text)
        self.direct.append(text)
        return True

    async def send_text(self, text: str) -> None:
        await self.writable.wait()
        if self.fail:
            raise RuntimeError("the client is gone")
        self.sent.append(text)

    async def close(self, code: int = 1000) -> None:
        await self.writable.wait()
        self.closed = code


def connection(max_queue: int = 4, direct: bool = False) -> tuple[Connection, FakeSocket]:
    socket = FakeSocket(direct)
    return Connection(cast(WebSocket, socket), max_queue), socket


def test_the_servers_write_at_once_is_used_and_a_full_buffer_keeps_the_order() -> None:
    """Served by uvicorn with LeanWebSocket, a message is written by the extension; when it
    cannot write (a full buffer) the ASGI send waits in a task, and the messages after it
    queue behind that one, even once the extension could write again."""

    async def main() -> None:
        conn, socket = connection(direct=True)
        conn.push("a")
        assert socket.direct == ["a"] and conn.draining is None
        socket.writable.clear()
        conn.push("b")
        assert conn.draining is not None
        socket.writable.set()  # (the extension could write "c" now: it must not)
        conn.push("c")
        await conn.draining
        assert socket.sent == ["a", "b", "c"] and socket.direct == ["a"]
        conn.push("d")
        assert socket.direct == ["a", "d"]
        socket.fail = True  # a closed socket: the ASGI send fails, the connection ends
        conn.push("e")
        await asyncio.sleep(0)
        assert conn.ended and socket.sent == ["a", "b", "c", "d"]

    asyncio.run(main())


def test_an_idle_connection_writes_at_once_without_a_task() -> None:
    async def main() -> None:
        conn, socket = connection()
        tasks = len(asyncio.all_tasks())
        conn.push("a")
        conn.push("b")
        assert socket.sent == ["a", "b"]  # (before any await)
        assert conn.draining is None and len(asyncio.all_tasks()) == tasks

    asyncio.run(main())


def test_a_suspended_send_goes_on_in_a_task_and_later_messages_keep_their_order() -> None:
    async def main() -> None:
        conn, socket = connection()
        socket.writable.clear()
        conn.push("a")
        conn.push("b")
        conn.push_json({"type": "c"})
        assert socket.sent == [] and conn.draining is not None
        await asyncio.sleep(0)
        assert socket.sent == []
        socket.writable.set()
        task = conn.draining
        await task
        assert socket.sent == ["a", "b", '{"type":"c"}']
        assert conn.draining is None and not conn.ended
        conn.push("d")  # idle again: at once
        assert socket.sent[-1] == "d"

    asyncio.run(main())


def test_a_client_that_does_not_read_is_closed_after_the_queue() -> None:
    async def main() -> None:
        conn, socket = connection(max_queue=3)
        socket.writable.clear()
        for n in range(10):
            conn.push(str(n))
        assert conn.overflowed
        socket.writable.set()
        assert conn.draining is not None
        await conn.draining
        assert socket.sent == ["0", "1", "2", "3"]  # the one under way, then max_queue
        assert socket.closed == 1008 and conn.ended
        conn.push("late")
        assert socket.sent[-1] == "3"

    asyncio.run(main())


@pytest.mark.parametrize("busy", [False, True])
def test_close_goes_after_the_queued_messages(busy: bool) -> None:
    async def main() -> None:
        conn, socket = connection()
        if busy:
            socket.writable.clear()
            conn.push("a")
        conn.close(1011)
        socket.writable.set()
        assert conn.draining is not None
        await conn.draining
        assert socket.sent == (["a"] if busy else [])
        assert socket.closed == 1011 and conn.ended

    asyncio.run(main())


def test_a_failed_send_ends_the_connection() -> None:
    async def main() -> None:
        conn, socket = connection()
        socket.fail = True
        conn.push("a")
        assert conn.ended and conn.overflowed and conn.draining is None
        socket.fail = False
        conn.push("b")
        assert socket.sent == []

    asyncio.run(main())


def test_finish_cancels_a_send_still_under_way() -> None:
    async def main() -> None:
        conn, socket = connection()
        socket.writable.clear()
        conn.push("a")
        task: Any = conn.draining
        await conn.finish()
        assert task.cancelled() or task.done()
        assert socket.sent == [] and conn.draining is None

    asyncio.run(main())
