"""The real Tapete app for the browser tests: served by uvicorn in a background thread
(``LiveServer``), or ``tapete serve`` in a child process (``ChildServer``)."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import TYPE_CHECKING, Any

from serving import free_port, uvicorn_thread

if TYPE_CHECKING:
    from tapete.server.clock import ClockSettings
    from tapete.server.review import ReviewSettings


class LiveServer:
    """create_app(db_url, delay_ms=0) served by uvicorn on 127.0.0.1:port in a thread, with
    the settings of ``tapete serve`` (the Host check, the security headers and the
    Content-Security-Policy, the connection limits); only the per-client rate limits on
    new tables and hints are lifted (the tests play fast)."""

    def __init__(
        self,
        db_path: Path,
        port: int | None = None,
        clock: ClockSettings | None = None,
        review: ReviewSettings | None = None,
    ) -> None:
        #: ``clock``: a ``ClockSettings`` for the tables created without one
        self.clock = clock
        #: the deal reviews; by default no background analysis of the games the tests
        #: finish (a review asked for from the page would wait behind one), quick ones
        #: (open-handed only, as test_browser_review's) and in a thread of the server: these
        #: tests check the pages, not the analysis nor its process. In a worker process the
        #: replay test's review still waited over 120 s in a whole CI run (2026-12-04, four
        #: times in about ten runs: a full review at niceness 10 and at 0, then a quick one at
        #: niceness 10): a new process spawned at niceness 10 has to import Tapete with a few
        #: per cent of a core while both xdist workers keep the cores busy. The worker process
        #: is covered by test_server_review's and test_browser_review's own servers.
        if review is None:
            from tapete.server.review import ReviewSettings

            review = ReviewSettings(background=False, quick=True, process=False)
        self.review = review
        self.db_path = db_path
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._serving = contextlib.ExitStack()

    def start(self) -> LiveServer:
        from tapete.server.app import create_app, default_trusted_hosts, uvicorn_config
        from tapete.server.limits import Limits

        # (no collector: its gc.freeze is the whole test process's, and this server lives
        # in the process for the whole session; a server test run after a browser test in
        # the same worker, test_collector's, found objects frozen by it)
        limits = Limits(create_burst=100_000, hint_burst=100_000, list_cache_s=0, gc_tick_s=None)
        app = create_app(
            db_url=f"sqlite:///{self.db_path}",
            delay_ms=0,
            limits=limits,
            review=self.review,
            trusted_hosts=default_trusted_hosts("127.0.0.1"),
            clock=self.clock,
        )
        config = uvicorn_config(
            app, "127.0.0.1", self.port, limits, log_level="warning", lifespan="on"
        )
        # (the server tests' way: the start and the stop are waited for, and a stop that
        # does not come fails the test; a second server on this port may follow at once)
        self._serving.enter_context(uvicorn_thread(config))
        return self

    def stop(self) -> None:
        self._serving.close()


class ChildServer:
    """``python -m tapete serve`` in a child process on a database (a SQLite file's path, or
    a database URL such as a PostgreSQL one): the real server as it is run, which a test
    stops cleanly (:meth:`stop`: SIGTERM, uvicorn's shutdown) or kills (:meth:`kill`:
    SIGKILL, a crash: nothing of the server's own code runs after it). Its output goes to
    ``log_path`` (shown when it does not start)."""

    def __init__(
        self, db: Path | str, log_path: Path, port: int | None = None, delay_ms: int = 0
    ) -> None:
        #: the database's URL
        self.db_url = db if isinstance(db, str) else f"sqlite:///{db}"
        self.log_path = log_path
        self.port = port or free_port()
        self.delay_ms = delay_ms
        self.url = f"http://127.0.0.1:{self.port}"
        self._proc: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 30) -> ChildServer:
        command = [sys.executable, "-m", "tapete", "serve", "--port", str(self.port)]
        command += ["--db", self.db_url, "--delay-ms", str(self.delay_ms)]
        with self.log_path.open("ab") as out:
            self._proc = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while True:
            if self._proc.poll() is not None:
                raise RuntimeError(
                    f"`tapete serve` exited ({self._proc.returncode}):\n{self.log()}"
                )
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"`tapete serve` took over {timeout} s to start:\n{self.log()}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/config", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.05)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def get(self, path: str) -> Any:
        """``GET path`` on the server: the JSON answer."""
        with urllib.request.urlopen(f"{self.url}{path}", timeout=10) as r:
            return json.loads(r.read())

    def _end(self, sig: int) -> None:
        if self._proc is None:
            return
        if self._proc.poll() is None:
            self._proc.send_signal(sig)
            try:
                self._proc.wait(20)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(10)
                raise AssertionError(
                    f"`tapete serve` did not stop within 20 s:\n{self.log()}"
                ) from None
        self._proc = None

    def stop(self) -> None:
        self._end(signal.SIGTERM)

    def kill(self) -> None:
        self._end(signal.SIGKILL)
