"""Floods against a Tapete server on 127.0.0.1 (issue 10), each bounded in time, while a
probe measures how long a plain request (``GET /api/config`` on a new connection) takes.
Target: every probe answered within 1 s.

    PYTHONPATH=src python benchmarks/bench_flood.py [--seconds 5] [--port 8765]

The server runs in a child process with the settings of ``tapete serve`` (default limits),
on a temporary SQLite file, computer delay 0. Flood clients use other loopback addresses
(127.0.0.2 and up) than the probe (127.0.0.1), as hostile clients on other machines would;
Linux routes all of 127/8 to loopback. Prints one line per flood.
"""

from __future__ import annotations

import argparse
import http.client
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from websockets.sync.client import connect

SERVER = """
import sys
from tapete.server.app import run_serve
run_serve("127.0.0.1", int(sys.argv[1]), sys.argv[2], 0)
"""


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def request(
    port: int, method: str, path: str, body: Any = None, source: str = "127.0.0.1"
) -> tuple[int, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    try:
        headers = {"content-type": "application/json"} if body is not None else {}
        data = None if body is None else json.dumps(body)
        conn.request(method, path, body=data, headers=headers)
        r = conn.getresponse()
        raw = r.read()
        try:
            return r.status, json.loads(raw)
        except ValueError:
            return r.status, raw
    finally:
        conn.close()


class Probe(threading.Thread):
    """A plain request every 100 ms; the latencies in seconds (a failure counts as 10 s)."""

    def __init__(self, port: int) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.latencies: list[float] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            started = time.monotonic()
            try:
                status, _ = request(self.port, "GET", "/api/config")
                took = time.monotonic() - started if status == 200 else 10.0
            except OSError:
                took = 10.0
            self.latencies.append(took)
            time.sleep(0.1)


def run_flood(
    port: int, seconds: float, workers: int, work: Callable[[int, float], Counter[str]]
) -> tuple[Counter[str], list[float]]:
    probe = Probe(port)
    probe.start()
    deadline = time.monotonic() + seconds
    totals: Counter[str] = Counter()
    lock = threading.Lock()

    def worker(i: int) -> None:
        counts = work(i, deadline)
        with lock:
            totals.update(counts)

    threads = [threading.Thread(target=worker, args=(i,), daemon=True) for i in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 30)
    probe.stop.set()
    probe.join(15)
    return totals, probe.latencies


def source(i: int) -> str:
    return f"127.0.{2 + i // 250}.{2 + i % 250}"


def flood_create(port: int) -> Callable[[int, float], Counter[str]]:
    def work(i: int, deadline: float) -> Counter[str]:
        counts: Counter[str] = Counter()
        while time.monotonic() < deadline:
            body = {"game": "mariage", "name": "Flood", "levels": ["random"]}
            try:
                status, _ = request(port, "POST", "/api/tables", body, source(i % 4))
                counts[str(status)] += 1
            except OSError as exc:
                counts[type(exc).__name__] += 1
        return counts

    return work


def flood_lists(port: int) -> Callable[[int, float], Counter[str]]:
    paths = ["/api/tables?name=Flood&limit=100", "/api/tables/live?limit=100", "/api/ranking"]

    def work(i: int, deadline: float) -> Counter[str]:
        counts: Counter[str] = Counter()
        while time.monotonic() < deadline:
            try:
                status, _ = request(port, "GET", paths[i % 3], source=source(i))
                counts[str(status)] += 1
            except OSError as exc:
                counts[type(exc).__name__] += 1
        return counts

    return work


def flood_body(port: int) -> Callable[[int, float], Counter[str]]:
    """Announce 300 MiB, or stream a chunked body that never ends."""

    def work(i: int, deadline: float) -> Counter[str]:
        counts: Counter[str] = Counter()
        chunk = b"x" * 65536
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(
                    ("127.0.0.1", port), timeout=10, source_address=(source(i), 0)
                ) as s:
                    head = b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    head += b"Content-Type: application/json\r\n"
                    if i % 2:
                        s.sendall(head + b"Content-Length: 314572800\r\n\r\n" + chunk)
                    else:
                        s.sendall(head + b"Transfer-Encoding: chunked\r\n\r\n")
                        for _ in range(64):
                            s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    status = s.recv(64).split(b" ")[1].decode()
                    counts[status] += 1
            except (OSError, IndexError) as exc:
                counts[type(exc).__name__] += 1
        return counts

    return work


def flood_idle(port: int) -> Callable[[int, float], Counter[str]]:
    """Each worker opens 30 sockets that never send a byte and holds them."""

    def work(i: int, deadline: float) -> Counter[str]:
        counts: Counter[str] = Counter()
        held = []
        for _ in range(30):
            try:
                held.append(
                    socket.create_connection(
                        ("127.0.0.1", port), timeout=5, source_address=(source(i), 0)
                    )
                )
                counts["opened"] += 1
            except OSError:
                counts["refused"] += 1
        for s in held:
            s.settimeout(max(0.1, deadline - time.monotonic()))
        closed = 0
        for s in held:
            try:
                if s.recv(1) == b"":
                    closed += 1
            except TimeoutError:
                pass
            except OSError:
                closed += 1
            finally:
                s.close()
        counts["closed by the server"] += closed
        return counts

    return work


def flood_hints(port: int, tables: list[tuple[int, str]]) -> Callable[[int, float], Counter[str]]:
    def work(i: int, deadline: float) -> Counter[str]:
        counts: Counter[str] = Counter()
        table_id, token = tables[i]
        sock = socket.create_connection(
            ("127.0.0.1", port), timeout=10, source_address=(source(i), 0)
        )
        seat = {"X-Tapete-Token": token}  # (docs/dev/protocol.md: not in the address)
        with connect(
            f"ws://127.0.0.1:{port}/ws/{table_id}", sock=sock, additional_headers=seat
        ) as ws:
            ws.recv(timeout=10)
            while time.monotonic() < deadline:
                ws.send('{"type": "hint"}')
                while True:
                    m = json.loads(ws.recv(timeout=20))
                    if m["type"] in ("hint", "error"):
                        counts[m.get("code", "hint")] += 1
                        break
        return counts

    return work


def figures(latencies: list[float]) -> str:
    if not latencies:
        return "no probe"
    ms = sorted(x * 1000 for x in latencies)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return (
        f"probe n={len(ms)} median {statistics.median(ms):.0f} ms, p95 {p95:.0f} ms, "
        f"max {ms[-1]:.0f} ms"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    port = args.port
    folder = Path(tempfile.mkdtemp(prefix="tapete-flood-"))
    db = f"sqlite:///{folder / 'flood.sqlite3'}"
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(port), db],
        stdout=subprocess.DEVNULL,
        stderr=open(folder / "server.log", "w"),  # noqa: SIM115
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                request(port, "GET", "/api/config")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        print(f"server pid {server.pid}, {rss_mb(server.pid):.0f} MB, {args.seconds:g} s a flood")
        worst = 0.0
        # hint tables first (made from many addresses: one bucket of new tables each)
        tables = []
        for i in range(40):
            body = {"game": "mariage", "name": f"Hint{i}", "levels": ["rules"]}
            status, out = request(port, "POST", "/api/tables", body, source(100 + i))
            if status == 201:
                tables.append((out["table"], out["token"]))
        floods: list[tuple[str, int, Callable[[int, float], Counter[str]]]] = [
            ("creation", 8, flood_create(port)),
            ("lists", 20, flood_lists(port)),
            ("bodies", 8, flood_body(port)),
            ("idle sockets", 10, flood_idle(port)),
            ("hints", len(tables), flood_hints(port, tables)),
        ]
        for name, workers, work in floods:
            before = rss_mb(server.pid)
            totals, latencies = run_flood(port, args.seconds, workers, work)
            worst = max([worst, *latencies])
            outcome = ", ".join(f"{k}: {v}" for k, v in sorted(totals.items()))
            print(
                f"{name:13} {workers:3} clients | {figures(latencies)} | "
                f"RSS {before:.0f} -> {rss_mb(server.pid):.0f} MB | {outcome}"
            )
        log = (folder / "server.log").read_text()
        print(f"server log: {len(log.splitlines())} lines, {len(log)} bytes")
        print(f"worst probe {worst * 1000:.0f} ms: {'OK' if worst < 1.0 else 'OVER 1 s'}")
        return 0 if worst < 1.0 else 1
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    sys.exit(main())
