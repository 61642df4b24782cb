"""The real Tapete app served by uvicorn in a background thread, for the browser tests."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tapete.server.clock import ClockSettings


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """create_app(db_url, delay_ms=0) served by uvicorn on 127.0.0.1:port in a thread, with
    the settings of ``tapete serve`` (the Host check, the security headers and the
    Content-Security-Policy, the connection limits); only the per-client rate limits on
    new tables and hints are lifted (the tests play fast)."""

    def __init__(
        self, db_path: Path, port: int | None = None, clock: ClockSettings | None = None
    ) -> None:
        #: ``clock``: a ``ClockSettings`` for the tables created without one
        self.clock = clock
        self.db_path = db_path
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._server = None
        self._thread: threading.Thread | None = None

    def start(self) -> LiveServer:
        import uvicorn

        from tapete.server.app import create_app, default_trusted_hosts, uvicorn_config
        from tapete.server.limits import Limits

        limits = Limits(create_burst=100_000, hint_burst=100_000, list_cache_s=0)
        app = create_app(
            db_url=f"sqlite:///{self.db_path}",
            delay_ms=0,
            limits=limits,
            trusted_hosts=default_trusted_hosts("127.0.0.1"),
            clock=self.clock,
        )
        config = uvicorn_config(
            app, "127.0.0.1", self.port, limits, log_level="warning", lifespan="on"
        )
        server = uvicorn.Server(config)
        self._server = server
        self._thread = threading.Thread(target=server.run, name=f"uvicorn-{self.port}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 20
        while not server.started:
            if not self._thread.is_alive():
                raise RuntimeError(f"the test server on port {self.port} did not start")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the test server on port {self.port} took over 20 s to start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=15)
        self._server = None
        self._thread = None
