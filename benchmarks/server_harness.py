"""What the server benchmarks share (not a benchmark itself): a Tapete server in a child
process on 127.0.0.1 (a free port, a temporary SQLite file, limits raised so that one
benchmark client on one address may open thousands of sockets), its CPU time from /proc,
small HTTP helpers and percentiles.

Used by ``bench_server.py`` (one person against computers) and ``bench_room.py`` (tables of
people), and by ``tests/server/test_bench_room.py``.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: the child process: the app with the given limits (fields this checkout's ``Limits`` does
#: not have are left out), served with the settings of ``tapete serve`` (``uvicorn_config``)
SERVER_CODE = """
import dataclasses, json, logging, sys, uvicorn
# the collector's passes (whole-heap ones, and a summary when the server stops)
logging.basicConfig(format="server: %(message)s")
logging.getLogger("tapete.server.gc").setLevel(logging.DEBUG)
from tapete.server.app import create_app, uvicorn_config
from tapete.server.limits import Limits
url, raw = sys.argv[1], sys.argv[5]
port, delay, rate = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
known = {f.name for f in dataclasses.fields(Limits)}
limits = Limits(**{k: v for k, v in json.loads(raw).items() if k in known})
app = create_app(url, delay, rate_limit=rate, limits=limits)
server = uvicorn.Server(uvicorn_config(app, "127.0.0.1", port, limits, log_level="warning"))
if len(sys.argv) > 6:  # a cProfile of the event loop's thread, written when it stops
    import cProfile, signal, time
    # uvicorn raises the signal again after its shutdown: exit through Python then
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    # the thread's CPU time, not the wall clock: time spent waiting for a core on a shared
    # machine (or for the interpreter lock, held by the write thread) is not counted
    profile = cProfile.Profile(time.thread_time)
    try:
        profile.runcall(server.run)
    finally:
        profile.dump_stats(sys.argv[6])
else:
    server.run()
"""

#: a benchmark is one client address with many tables: the per-address bounds are lifted
#: (the floods benchmark, bench_flood.py, measures them instead)
BENCH_LIMITS: dict[str, Any] = {
    "create_burst": 1_000_000,
    "create_refill_s": 0.001,
    "max_connections_per_client": 100_000,
    "max_connections": 19_000,
    "max_sockets_per_client": 100_000,
    "request_timeout_s": 60.0,
    "keep_alive_s": 120,
    "ws_ping_interval_s": 60.0,
    "ws_ping_timeout_s": 60.0,
    "unopened_ttl_s": 24 * 3600.0,
    "sweep_every_s": 3600.0,
    "chat_burst": 1_000,
    "hint_processes": 0,  # no hints asked: no worker process to start
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def cpu_times(pid: int) -> tuple[float, float]:
    """User and system CPU time of a process, in seconds (Linux /proc, no psutil)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / ticks, int(fields[12]) / ticks


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process."""
    return sum(cpu_times(pid))


def rss_bytes(pid: int) -> int:
    """Resident memory of a process (Linux /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def http_json(url: str, body: dict[str, Any] | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0..1) of ``values`` by the nearest rank; 0.0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return float(ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))])


class ChildServer:
    """The server in a child process for the length of a ``with`` block: ``port``, ``pid``,
    ``base`` (http://...), ``ws_base`` (ws://...) and ``cpu()``, its CPU seconds so far.

    ``src``: the ``src`` folder to run (default this checkout's); ``limits``: ``Limits``
    fields over :data:`BENCH_LIMITS`; ``profile``: write a cProfile of the server's event
    loop thread there when it stops."""

    def __init__(
        self,
        *,
        delay_ms: int = 0,
        rate_limit: int = 1_000_000,
        limits: dict[str, Any] | None = None,
        src: Path | None = None,
        quiet: bool = False,
        profile: Path | None = None,
    ) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.ws_base = f"ws://127.0.0.1:{self.port}"
        self.delay_ms = delay_ms
        self.rate_limit = rate_limit
        self.limits = {**BENCH_LIMITS, **(limits or {})}
        self.src = src or ROOT / "src"
        self.quiet = quiet
        self.profile = profile
        self.tmp: tempfile.TemporaryDirectory[str] | None = None
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.process is not None, "the server is not running"
        return self.process.pid

    def cpu(self) -> float:
        return cpu_seconds(self.pid)

    def cpu_times(self) -> tuple[float, float]:
        return cpu_times(self.pid)

    def rss(self) -> int:
        return rss_bytes(self.pid)

    def __enter__(self) -> ChildServer:
        self.tmp = tempfile.TemporaryDirectory(prefix="tapete-bench-")
        url = f"sqlite:///{Path(self.tmp.name) / 'bench.sqlite3'}"
        env = dict(os.environ)
        env["PYTHONPATH"] = str(self.src) + os.pathsep + env.get("PYTHONPATH", "")
        argv = [sys.executable, "-c", SERVER_CODE, url, str(self.port), str(self.delay_ms)]
        argv += [str(self.rate_limit), json.dumps(self.limits)]
        argv += [str(self.profile)] if self.profile else []
        out = subprocess.DEVNULL if self.quiet else None
        self.process = subprocess.Popen(argv, env=env, stdout=out, stderr=out)
        for _ in range(600):
            try:
                http_json(f"{self.base}/api/config")
                return self
            except OSError:
                if self.process.poll() is not None:
                    self.__exit__(None, None, None)
                    raise RuntimeError("the benchmark's server did not start") from None
                time.sleep(0.1)
        self.__exit__(None, None, None)
        raise RuntimeError("the benchmark's server did not answer within 60 s")

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        if self.tmp is not None:
            self.tmp.cleanup()
            self.tmp = None
