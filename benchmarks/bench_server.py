"""Load benchmark of the web server (not a test).

Starts the app with uvicorn on 127.0.0.1 (a free port, a temporary SQLite file) in a child
process, opens N tables at once, and drives each table's seat 0 over a real WebSocket with
random legal actions while the server's computer players take the other seats. Reports the
action latency (client send -> the view of that action received: parse, engine, one SQLite
transaction, views for every listener, JSON, loopback), and the server's CPU seconds per
table and per action. Only loopback traffic.

    .venv/bin/python benchmarks/bench_server.py --tables 20 --game mil --deals 2
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import sys
import time
from dataclasses import dataclass, field

from server_harness import ChildServer, http_json, percentile


@dataclass
class Totals:
    latencies: list[float] = field(default_factory=list)
    actions: int = 0  # every action applied at the tables (all seats)
    sent: int = 0
    finished: int = 0
    done: int = 0
    errors: int = 0
    messages: int = 0  # messages the benchmark's seats received
    bytes: int = 0
    largest: int = 0


async def drive(
    base: str, ws_base: str, index: int, args: argparse.Namespace, totals: Totals, deadline: float
) -> None:
    import websockets

    levels = ["random"] * (2 if args.game == "mil" else 1)
    if args.levels:
        levels = args.levels.split(",")
    body = {
        "game": args.game,
        "name": f"bench{index}",
        "levels": levels,
        **({"profile": args.profile} if args.profile else {}),
        "seed": args.seed + index,
        "max_deals": args.deals,
    }
    created = await asyncio.to_thread(http_json, f"{base}/api/tables", body)
    rng = random.Random(args.seed * 1000 + index)
    url = f"{ws_base}/ws/{created['table']}"
    version = 0
    try:
        seat = {"X-Tapete-Token": created["token"]}  # (docs/dev/protocol.md: not in the address)
        async with websockets.connect(url, max_size=2**22, additional_headers=seat) as ws:
            sent_at: float | None = None
            sent_version = -1
            while time.monotonic() < deadline:
                try:
                    text = await asyncio.wait_for(ws.recv(), timeout=deadline - time.monotonic())
                except TimeoutError:
                    break
                size = len(text if isinstance(text, bytes) else text.encode())
                totals.messages += 1
                totals.bytes += size
                totals.largest = max(totals.largest, size)
                m = json.loads(text)
                if m["type"] != "view":
                    totals.errors += 1
                    continue
                version = m["version"]
                if sent_at is not None and version > sent_version:
                    totals.latencies.append(time.perf_counter() - sent_at)
                    sent_at = None
                view = m["view"]
                if view["over"]:
                    totals.finished += 1
                    break
                if sent_at is None and view["turn"] == 0 and view["legal"]:
                    if args.think_ms:
                        await asyncio.sleep(rng.uniform(0.5, 1.5) * args.think_ms / 1000)
                    sent_at = time.perf_counter()
                    sent_version = version
                    await ws.send(
                        json.dumps(
                            {"type": "act", "version": version, "action": rng.choice(view["legal"])}
                        )
                    )
                    totals.sent += 1
    finally:
        totals.actions += version
        totals.done += 1


async def progress(totals: Totals, n: int, start: float, stop: asyncio.Event) -> None:
    while not stop.is_set():
        print(
            f"\r{time.monotonic() - start:6.1f} s  tables done {totals.done}/{n}  "
            f"person actions {totals.sent}  latencies {len(totals.latencies)}",
            end="",
            file=sys.stderr,
            flush=True,
        )
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=1.0)
    print(file=sys.stderr)


async def run(args: argparse.Namespace, port: int, pid: int) -> Totals:
    base = f"http://127.0.0.1:{port}"
    ws_base = f"ws://127.0.0.1:{port}"
    totals = Totals()
    start = time.monotonic()
    deadline = start + args.time_limit
    stop = asyncio.Event()
    ticker = asyncio.create_task(progress(totals, args.tables, start, stop))
    results = await asyncio.gather(
        *(drive(base, ws_base, i, args, totals, deadline) for i in range(args.tables)),
        return_exceptions=True,
    )
    stop.set()
    await ticker
    failures = [r for r in results if isinstance(r, BaseException)]
    if failures:
        print(f"{len(failures)} table driver(s) failed: {failures[0]!r}", file=sys.stderr)
    return totals


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=20, help="concurrent tables (1..500)")
    p.add_argument("--game", choices=("mil", "mariage"), default="mil")
    p.add_argument("--profile", default="", help="the game's profile (default: its first)")
    p.add_argument("--deals", type=int, default=2, help="deals per table (max_deals)")
    p.add_argument("--levels", default="", help="computer levels, e.g. random,rules")
    p.add_argument("--delay-ms", type=int, default=0, help="the server's bot delay")
    p.add_argument(
        "--think-ms", type=int, default=0, help="seat 0 waits 0.5..1.5 times this before acting"
    )
    p.add_argument("--time-limit", type=float, default=120.0, help="seconds")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    if not 1 <= args.tables <= 500:
        p.error("--tables must be from 1 to 500")

    with ChildServer(delay_ms=args.delay_ms) as server:
        cpu0 = server.cpu()
        wall0 = time.monotonic()
        client0 = time.process_time()
        totals = asyncio.run(run(args, server.port, server.pid))
        client_cpu = time.process_time() - client0
        wall = time.monotonic() - wall0
        cpu = server.cpu() - cpu0

    lat = sorted(totals.latencies)
    if not lat:
        print("no action was measured", file=sys.stderr)
        return 1
    p99 = percentile(lat, 0.99)
    print(
        f"{args.tables} {args.game} tables ({args.deals} deal(s) each, computer levels "
        f"{args.levels or 'random'}, bot delay {args.delay_ms} ms, think {args.think_ms} ms): "
        f"{totals.finished} finished, {totals.actions} actions "
        f"({totals.sent} by the benchmark's seat 0) in {wall:.1f} s"
    )
    print(
        f"latency (send -> view of that action): median {statistics.median(lat) * 1000:.1f} ms, "
        f"p99 {p99 * 1000:.1f} ms, max {lat[-1] * 1000:.1f} ms over {len(lat)} actions"
    )
    print(
        f"server CPU: {cpu:.2f} s = {cpu / args.tables:.3f} s per table, "
        f"{cpu / max(1, totals.actions) * 1000:.2f} ms per action; "
        f"{totals.actions / wall:.0f} actions/s; error messages {totals.errors}"
    )
    print(
        f"messages to seat 0: {totals.messages}, {totals.bytes / max(1, totals.messages):.0f} "
        f"bytes each on average, largest {totals.largest} bytes"
    )
    print(
        f"benchmark client CPU: {client_cpu:.2f} s; load average {os.getloadavg()[0]:.1f} "
        f"on {os.cpu_count()} cores (latency includes waiting for a core)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
