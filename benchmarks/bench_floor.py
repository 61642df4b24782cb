"""The floor under the room's flat-out figure (issue 13, item 13; not a test): what the
transport alone costs a server per action, with no game, no database and no JSON.

The server is the one ``tapete serve`` runs (uvicorn on uvloop, Tapete's WebSocket protocol
``LeanWebSocket``, its ``send_text`` extension), serving a bare ASGI app instead of Tapete:
sockets in groups of ``--listeners`` (the room's 3 seats and 2 spectators), and each text a
socket sends makes the server write one fixed text of ``--bytes`` (the room's median message)
to every socket of its group. The clients (the room benchmark's, ``ws_client``, in
``--clients`` processes) play each group's first ``--seats`` sockets in turn, flat out: the
socket whose turn it is sends as soon as it has read the previous action's text. So an
action costs the server what it costs in the room without Tapete's own work: one frame read,
``--listeners`` frames written, the event loop's wake-ups.

Run (figures in docs/benchmarks.md, "The transport's floor"):

    PYTHONPATH=src .venv/bin/python benchmarks/bench_floor.py --groups 30 --seconds 15

and compare with ``bench_room.py --tables 30 --flat-out`` run just before or after it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import ws_client
from server_harness import ROOT, cpu_seconds, free_port

ACT = '{"type":"act"}'

#: the child process: the bare app on the room server's transport
SERVER_CODE = """
import sys, uvicorn
from tapete.server.connections import SEND_TEXT, LeanWebSocket
port, size = int(sys.argv[1]), int(sys.argv[2])
text = '{"pad":"' + "x" * (size - 10) + '"}'
groups = {}

async def app(scope, receive, send):
    if scope["type"] != "websocket":
        return
    group = groups.setdefault(scope["path"].rsplit("/", 1)[-1], [])
    await receive()
    await send({"type": "websocket.accept"})
    send_now = scope["extensions"][SEND_TEXT]
    group.append(send_now)
    try:
        while True:
            message = await receive()
            if message["type"] != "websocket.receive":
                return
            for member in group:
                member(text)
    finally:
        group.remove(send_now)

uvicorn.Server(uvicorn.Config(
    app, host="127.0.0.1", port=port, ws=LeanWebSocket, loop="uvloop", lifespan="off",
    ws_per_message_deflate=False, ws_ping_interval=None, log_level="warning",
)).run()
"""


async def play_group(sockets: list[ws_client.Connection], seats: int, until: float) -> int:
    """One group flat out until ``until`` (the loop's clock); the actions its seats sent."""
    loop = asyncio.get_running_loop()
    actions = turn = 0
    await sockets[0].send(ACT)
    while True:
        # every socket reads the action's text; the next seat then acts
        for ws in sockets:
            await ws.recv()
        actions += 1
        if loop.time() >= until:
            return actions
        turn = (turn + 1) % seats
        await sockets[turn].send(ACT)


def client_process(
    base: str,
    groups: list[int],
    seats: int,
    listeners: int,
    start_at: float,
    seconds: float,
    out: Any,
) -> None:
    """(A client process) open every socket of ``groups``, then play them from ``start_at``
    (the wall clock: every process starts at once) for ``seconds``; put the actions sent."""

    async def main() -> int:
        loop = asyncio.get_running_loop()
        sockets = []
        for g in groups:
            group = [ws_client.connect(f"{base}/floor/{g}") for _ in range(listeners)]
            for ws in group:
                await ws.__aenter__()
            sockets.append(group)
        await asyncio.sleep(max(0.0, start_at - time.time()))
        until = loop.time() + seconds
        counts = await asyncio.gather(*(play_group(group, seats, until) for group in sockets))
        for group in sockets:
            for ws in group:
                await ws.close()
        return sum(counts)

    out.put(asyncio.run(main()))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--groups", type=int, default=30, help="tables (groups of sockets)")
    p.add_argument("--seats", type=int, default=3, help="sockets a group that act in turn")
    p.add_argument("--listeners", type=int, default=5, help="sockets a group (seats first)")
    p.add_argument("--bytes", type=int, default=1940, help="the text written to each")
    p.add_argument("--seconds", type=float, default=15.0, help="the measured window")
    p.add_argument("--clients", type=int, default=2, help="client processes")
    p.add_argument("--json", metavar="FILE", help="also write the summary as JSON")
    args = p.parse_args(argv)
    if not (1 <= args.seats <= args.listeners and args.groups >= 1 and args.bytes >= 10):
        p.error("need 1 <= --seats <= --listeners, --groups >= 1, --bytes >= 10")

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER_CODE, str(port), str(args.bytes)],
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    print("the floor server did not start", file=sys.stderr)
                    return 1
                time.sleep(0.1)
        base = f"ws://127.0.0.1:{port}"
        context = multiprocessing.get_context("fork")
        out = context.Queue()
        start_at = time.time() + 3.0 + args.groups * args.listeners * 0.005
        shards = [list(range(k, args.groups, args.clients)) for k in range(args.clients)]
        workers = [
            context.Process(
                target=client_process,
                args=(base, shard, args.seats, args.listeners, start_at, args.seconds, out),
            )
            for shard in shards
            if shard
        ]
        for w in workers:
            w.start()
        print(
            f"[floor] {args.groups} groups of {args.listeners} sockets ({args.seats} acting),"
            f" {args.bytes} bytes a text, {len(workers)} client process(es); measuring"
            f" {args.seconds:.0f} s ...",
            file=sys.stderr,
            flush=True,
        )
        time.sleep(max(0.0, start_at - time.time()))
        cpu0, t0 = cpu_seconds(server.pid), time.monotonic()
        time.sleep(args.seconds)
        cpu1, t1 = cpu_seconds(server.pid), time.monotonic()
        actions = sum(out.get(timeout=60) for _ in workers)
        for w in workers:
            w.join(30)
    finally:
        server.terminate()
        server.wait(30)
    wall = t1 - t0
    cpu = cpu1 - cpu0
    summary = {
        "groups": args.groups,
        "listeners": args.listeners,
        "seats": args.seats,
        "bytes": args.bytes,
        "seconds": round(wall, 2),
        "actions": actions,
        "actions_per_s": round(actions / wall, 1),
        "server_cpu_s": round(cpu, 3),
        "cpu_ms_per_action": round(cpu / actions * 1000, 4) if actions else None,
        "core_share": round(cpu / wall, 3),
    }
    print(
        f"floor: {actions} actions in {wall:.1f} s = {summary['actions_per_s']}/s;"
        f" server CPU {cpu:.2f} s = {summary['cpu_ms_per_action']} ms per action"
        f" ({cpu / wall:.0%} of a core); {args.listeners} texts of {args.bytes} bytes"
        " written an action"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
