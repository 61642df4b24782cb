"""A Tapete app served by uvicorn in a thread of the test process, for the tests that need a
real socket (the server tests' ``served`` fixture and hostile clients, the Node client's): a
free port of 127.0.0.1 and the serving itself (the browser tests' ``LiveServer`` takes both
here too)."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import uvicorn


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on (for a server under uvicorn)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def uvicorn_thread(config: uvicorn.Config) -> Iterator[uvicorn.Server]:
    """Serve ``config`` in a thread of this process while the block runs; the stop is
    waited for (up to 60 s, else the test fails: a later test may read what it undid)."""
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        assert thread.is_alive(), "uvicorn ended before it started serving"
        time.sleep(0.02)
    try:
        yield server
    finally:
        server.should_exit = True
        thread.join(timeout=60)
        if thread.is_alive():
            raise AssertionError("uvicorn did not stop within 60 s")
