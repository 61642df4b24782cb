"""``connections.guarded_h11``, the connection count per client address, driven in process
with fake transports: the limit counts open connections only, and a new connection does not
look at every earlier socket of its address (a load test's thousands all come from
127.0.0.1; a look at each made every connection dearer as the room grew)."""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from uvicorn.server import ServerState

from tapete.server.connections import SWEEP_SLACK, guarded_h11
from tapete.server.limits import Limits, RefusalLog


class Transport(asyncio.Transport):
    """A socket of ``ip`` that counts how often the guard asks whether it is closing."""

    looks = 0

    def __init__(self, ip: str) -> None:
        super().__init__()
        self.ip = ip
        self.closing = False
        self.aborted = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": (self.ip, 5555)}.get(name, default)

    def is_closing(self) -> bool:
        Transport.looks += 1
        return self.closing

    def abort(self) -> None:
        self.aborted = self.closing = True

    def close(self) -> None:
        self.closing = True


async def _app(scope: Any, receive: Any, send: Any) -> None:
    raise AssertionError("no request in these tests")


def _guard(limit: int) -> Any:
    """``connect(ip)``: a new connection through a guard of ``limit`` per address."""
    guard = guarded_h11(Limits(max_connections_per_client=limit), RefusalLog())
    config = uvicorn.Config(_app, lifespan="off")
    config.load()
    state = ServerState()
    loop = asyncio.get_running_loop()

    def connect(ip: str) -> Transport:
        transport = Transport(ip)
        guard(config, state, {}, loop).connection_made(transport)
        return transport

    connect.open_by_client = guard.open_by_client  # type: ignore[attr-defined]
    return connect


def test_a_new_connection_does_not_look_at_every_socket_of_its_address() -> None:
    """3,000 sockets open from one address (a high limit, as the load benchmark sets):
    the guard sweeps the closed ones only when the set has about doubled since its last
    sweep, so a connection costs a few looks on average. Looking at every socket of the
    address at each connection cost 4.5 million looks here (3.9 % of the server's CPU in
    the 1,000-table benchmark)."""

    async def main() -> None:
        connect = _guard(100_000)
        Transport.looks = 0
        held = [connect("10.0.0.1") for _ in range(3000)]
        assert not any(t.aborted for t in held)
        assert Transport.looks < 3 * 3000, Transport.looks
        # closed ones are swept in time: the set stays within twice the open ones
        for t in held[:2000]:
            t.closing = True
        for _ in range(3000):
            connect("10.0.0.1").closing = True
        opened: set[Any] = connect.open_by_client["10.0.0.1"]
        assert len(opened) <= 2 * 1000 + SWEEP_SLACK + 1, len(opened)
        assert Transport.looks < 3 * 6000, Transport.looks

    asyncio.run(main())


def test_the_limit_counts_the_open_connections_of_an_address() -> None:
    async def main() -> None:
        limit = 50
        connect = _guard(limit)
        # WebSockets one after another, each ended before the next (an upgraded
        # connection's end is seen only by is_closing: no connection_lost reaches the guard)
        for _ in range(500):
            transport = connect("10.0.0.1")
            assert not transport.aborted
            transport.closing = True
        # 50 open: the 51st is refused at once; another address is not counted with them
        held = [connect("10.0.0.1") for _ in range(limit)]
        assert not any(t.aborted for t in held)
        assert connect("10.0.0.1").aborted
        assert not connect("10.0.0.2").aborted
        held[0].closing = True  # one ends: one more may come
        assert not connect("10.0.0.1").aborted
        assert connect("10.0.0.1").aborted

    asyncio.run(main())
