"""The server's work per action, without sockets: the parts of an action's path that
docs/benchmarks.md ("The path of an action") measured one by one.

Not a test. CPU time of this process (``time.process_time``: the write thread's too), each
measure beside its baseline taken in the same run, and the ratio. Run from the repository
root (about ten seconds)::

    .venv/bin/python benchmarks/bench_actions.py
    .venv/bin/python benchmarks/bench_actions.py --quick     # a few seconds

1. **views**: the four views of a broadcast (three seats and the spectators) at positions of
   random Mil games, one by one (``game.view``, the baseline) and at once (``game.views``);
   then their messages encoded as the server did before (orjson with ``OPT_NON_STR_KEYS``,
   the baseline) and as it does (``tables.message_text``).
2. **inserts**: action rows into SQLite, the ORM's insert in a transaction of a pooled
   connection (the baseline: the server's write before) and ``db.insert_actions`` on a kept
   connection (now), per row, for batches of 1, 3, 10 and 30.
3. **act**: ``TableManager.act`` at 30 Mil tables of three people, each with five listeners
   that only count (three seats, two spectators), the writes real (SQLite in a temporary
   directory): the tables acting one after the other, each waiting for its own write (the
   baseline), and all together, as a busy room acts (one transaction a round).
4. **frames**: a view message (about 1.9 KB) framed for the wire by the ``websockets``
   library (the baseline) and by ``connections.text_frame``; an action's frame from a
   client read by the library (``LeanWebSocket.FAST_READ`` off, the baseline) and by the
   protocol's own reading, up to the message waiting for the app.
5. **clocks**: the seat clocks' inputs of one action at a calm table of three people (no
   move clock, everybody connected: ``active``, ``acted``, ``turn_started``, the driver's
   ``next_deadline`` and the message's ``snapshot``), with the deadlines and the snapshot
   worked out from every seat each time (the baseline: ``_all_deadlines``,
   ``snapshot_at``) and with the calm table's shortcuts.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import gc
import random
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

import uvicorn  # noqa: E402
from sqlalchemy import insert  # noqa: E402
from uvicorn.server import ServerState  # noqa: E402
from websockets.frames import Frame, Opcode  # noqa: E402
from websockets.protocol import OPEN  # noqa: E402
from websockets.server import ServerProtocol  # noqa: E402

from tapete.server.app import create_app  # noqa: E402
from tapete.server.clock import ClockSettings, SeatClocks  # noqa: E402
from tapete.server.connections import LeanWebSocket, text_frame  # noqa: E402
from tapete.server.db import ActionRow, insert_actions, utcnow  # noqa: E402
from tapete.server.tables import Table, TableManager, build_game, message_text  # noqa: E402

SEATS: tuple[int | None, ...] = (0, 1, 2, None)


def cpu_per_call(run: Callable[[], object], calls: int) -> float:
    """Microseconds of CPU per call of ``run`` over ``calls`` calls."""
    start = time.process_time()
    for _ in range(calls):
        run()
    return 1e6 * (time.process_time() - start) / calls


def line(what: str, base: float, now: float, unit: str) -> None:
    print(f"  {what:<52} {base:8.1f} {unit} -> {now:8.1f} {unit}   now/base {now / base:.2f}")


def positions(count: int, seed: int) -> list[Any]:
    """``count`` Mil games stopped at random points (auction, talon, play), club and casa."""
    rng = random.Random(seed)
    games = []
    for n in range(count):
        game = build_game(
            "mil",
            ("club", "casa")[n % 2],
            seed=rng.randrange(2**32),
            players=["Ana", "Bea", "Cid"],
            max_deals=20,
        )
        for _ in range(rng.randrange(20, 200)):
            if game.over:
                break
            game.apply(rng.choice(game.legal_actions()))
        games.append(game)
    return games


def bench_views(rounds: int) -> None:
    print("1. views and their messages (per broadcast: four views)")
    games = positions(20, 1)

    def one_by_one() -> None:
        for game in games:
            [game.view(s) for s in SEATS]

    def at_once() -> None:
        for game in games:
            game.views(SEATS)

    base = cpu_per_call(one_by_one, rounds) / len(games)
    now = cpu_per_call(at_once, rounds) / len(games)
    line("build: view() x4 -> views()", base, now, "us")
    messages = [
        [{"type": "view", "version": 1, "view": v, "events": []} for v in game.views(SEATS)]
        for game in games
    ]

    def encode_before() -> None:
        for four in messages:
            for m in four:
                orjson.dumps(m, option=orjson.OPT_NON_STR_KEYS).decode()

    def encode_now() -> None:
        for four in messages:
            for m in four:
                message_text(m)

    base = cpu_per_call(encode_before, rounds) / len(games)
    now = cpu_per_call(encode_now, rounds) / len(games)
    line("encode x4: OPT_NON_STR_KEYS -> message_text", base, now, "us")


def bench_inserts(rows: int, directory: Path) -> None:
    print("2. action rows into SQLite, CPU per row")
    app = create_app(f"sqlite:///{directory / 'inserts.sqlite3'}", 0)
    manager: TableManager = app.state.manager
    engine = manager.engine
    # the tables the rows belong to (a person and two computers, never started here)
    table_ids = [
        manager.create(
            game="mil", profile="club", name="Ana", language="en", levels=["random"] * 2, seed=n
        ).id
        for n in range(30)
    ]
    action = {"type": "play", "card": "QH", "marriage": True}
    counter = iter(range(10**9))

    def batch_rows(size: int) -> list[tuple[int, int, int, dict[str, Any]]]:
        return [(table_ids[k % 30], next(counter), 0, action) for k in range(size)]

    kept = engine.connect()
    for size in (1, 3, 10, 30):
        rounds = max(1, rows // size)

        def orm(size: int = size) -> None:
            with engine.begin() as connection:
                connection.execute(
                    insert(ActionRow),
                    [
                        {"table_id": t, "n": n, "seat": s, "action": a, "created_at": utcnow()}
                        for t, n, s, a in batch_rows(size)
                    ],
                )

        def driver(size: int = size) -> None:
            with kept.begin():
                insert_actions(kept, batch_rows(size), utcnow())

        base = cpu_per_call(orm, rounds) / size
        now = cpu_per_call(driver, rounds) / size
        line(f"batch of {size}: ORM, pooled -> insert_actions, kept", base, now, "us")
    kept.close()
    engine.dispose()


class Counter:
    """A table listener that only counts what it is sent."""

    def __init__(self, seat: int | None, patches: bool = False) -> None:
        self.seat, self.patches = seat, patches
        self.messages = 0
        self.bytes = 0

    def push(self, text: str) -> None:
        self.messages += 1
        self.bytes += len(text)

    def close(self) -> None:
        pass


def people_table(manager: TableManager, seed: int, max_deals: int) -> Table:
    """A Mil club table of three people (Ana, Bea and Cid), its game about to start."""
    table = manager.create(
        game="mil",
        profile="club",
        name="Ana",
        language="en",
        seats=[("me", None), ("open", None), ("open", None)],
        seed=seed,
        max_deals=max_deals,
        listed=True,
    )
    manager.join(table.id, name="Bea")
    manager.join(table.id, name="Cid")
    return table


async def act_cost(
    directory: Path, name: str, actions: int, *, together: bool = True, patches: bool = False
) -> tuple[float, int, int, int]:
    """``TableManager.act`` at 30 Mil tables of three people, five listeners each (three
    seats, two spectators; ``patches``: they take patches), random legal actions, a round of
    one action a table at a time (``together``: at once, as the server's clients send them)
    until ``actions``: the CPU time per action in ms (this process's), the messages to the
    listeners, their bytes, and the actions applied. The server's own work for an action
    without sockets; ``bench_room.py`` times it beside its runs, as the machine's speed."""
    app = create_app(f"sqlite:///{directory / name}", 0)
    manager: TableManager = app.state.manager
    tables, listeners = [], []
    for n in range(30):
        table = people_table(manager, n, max_deals=20)
        loaded = await manager.load(table.id)
        assert loaded is not None
        for seat in (0, 1, 2, None, None):
            listener = Counter(seat, patches)
            manager.attach(loaded, listener)
            listeners.append(listener)
        tables.append(loaded)
    rng = random.Random(7)
    done = 0
    start = time.process_time()
    last = start
    while done < actions:
        moves = [
            (t, t.game.turn, t.version, rng.choice(t.game.legal_actions()).to_json())
            for t in tables
            if not t.game.over
        ]
        if not moves:
            break
        if together:
            await asyncio.gather(*(manager.act(*m) for m in moves))
        else:
            for m in moves:
                await manager.act(*m)
        done += len(moves)
        if time.process_time() - last > 2:
            last = time.process_time()
            print(f"    {name}: {done}/{actions} actions", flush=True)
    cpu = time.process_time() - start
    await manager.close()
    manager.engine.dispose()
    sent = sum(x.messages for x in listeners)
    return 1e3 * cpu / done, sent, sum(x.bytes for x in listeners), done


def bench_act(actions: int, directory: Path) -> None:
    print("3. TableManager.act at 30 tables of three people, five listeners each")

    def run(together: bool, name: str, patches: bool = False) -> tuple[float, int, int, int]:
        return asyncio.run(act_cost(directory, name, actions, together=together, patches=patches))

    base, _, _, _ = run(False, "one-by-one.sqlite3")
    now, sent, size, done = run(True, "together.sqlite3")
    line("per action: one table at a time -> together", base * 1000, now * 1000, "us")
    print(f"  ({done} actions together, {sent} messages to the listeners)")
    patched, psent, psize, _ = run(True, "patches.sqlite3", patches=True)
    line("per action together: whole views -> patches", now * 1000, patched * 1000, "us")
    line("bytes per message: whole views -> patches", size / sent, psize / psent, "B")


def bench_broadcasts(games: int, directory: Path) -> None:
    print("3b. a broadcast's messages (Table.view_texts), four seats, whole Mil games")
    # (without Python's own collector, as in the server, whose collector runs on the loop's
    # clock: its passes over the heap the benchmarks before left landed in one side or the
    # other, 0.97-1.31 from one run to the next)
    gc.collect()
    gc.disable()
    app = create_app(f"sqlite:///{directory / 'broadcasts.sqlite3'}", 0)
    manager: TableManager = app.state.manager
    seats: list[int | None] = [0, 1, 2, None]
    spent = {False: 0.0, True: 0.0}
    count = 0
    for seed in range(games):
        # two tables of the same deal and moves: one sends whole views, one patches
        whole, patched = (people_table(manager, seed, max_deals=3) for _ in range(2))
        rng = random.Random(seed)
        while not whole.game.over:
            action = rng.choice(whole.game.legal_actions())
            steps = {
                False: (whole, whole.game.apply(action)),
                True: (patched, patched.game.apply(patched.game.parse_action(action.to_json()))),
            }
            for patches in (True, False) if count % 2 else (False, True):  # (in turn first)
                table, events = steps[patches]
                table.version += 1
                start = time.process_time()
                if patches:
                    table.view_texts((), events, table.sheet_sent, None, patches=seats)
                else:
                    table.view_texts(seats, events, table.sheet_sent, None, keep=False)
                spent[patches] += time.process_time() - start
                table.sheet_sent = len(table.game.view(None).get("sheet") or [])
            count += 1
    gc.enable()
    manager.engine.dispose()
    line(
        "per broadcast: whole views -> patches",
        spent[False] / count * 1e6,
        spent[True] / count * 1e6,
        "us",
    )
    print(f"  ({count} broadcasts each)")


class NullTransport(asyncio.Transport):
    """A socket that takes every write and never closes (the frames benchmark)."""

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": ("127.0.0.1", 5555), "sockname": ("127.0.0.1", 8000)}.get(name)

    def write(self, data: Any) -> None:
        pass

    def is_closing(self) -> bool:
        return False

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def close(self) -> None:
        pass


def bench_frames(rounds: int) -> None:
    print("4. frames of the wire, CPU per frame")
    game = positions(1, 3)[0]
    view = game.views(SEATS)[0]
    text = message_text({"type": "view", "version": 140, "view": view, "events": []})
    library = ServerProtocol()
    library.state = OPEN

    def framed_by_library() -> None:
        library.send_text(text.encode())
        b"".join(library.data_to_send())

    base = cpu_per_call(framed_by_library, rounds * 200)
    now = cpu_per_call(lambda: text_frame(text.encode()), rounds * 200)
    line(f"write a view of {len(text)} bytes: websockets -> text_frame", base, now, "us")

    async def read(fast: bool) -> float:
        class Reading(LeanWebSocket):
            FAST_READ = fast

        done = asyncio.Event()

        async def app(scope: Any, receive: Any, send: Any) -> None:
            await receive()
            await send({"type": "websocket.accept"})
            await done.wait()

        config = uvicorn.Config(
            app, ws=Reading, ws_ping_interval=None, lifespan="off", log_level="warning"
        )
        config.load()
        protocol = Reading(config, ServerState(), {}, asyncio.get_running_loop())
        protocol.connection_made(NullTransport())
        key = base64.b64encode(b"0123456789abcdef").decode()
        protocol.data_received(
            "GET /ws/1 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        while not protocol.handshake_complete:
            await asyncio.sleep(0)
        action = {"type": "act", "version": 140, "action": {"type": "play", "card": "KH"}}
        frame = Frame(Opcode.TEXT, orjson.dumps(action)).serialize(mask=True)

        def one() -> None:
            protocol.data_received(frame)
            protocol.queue.get_nowait()

        cpu = cpu_per_call(one, rounds * 100)
        done.set()  # (the app ends: uvicorn closes the socket)
        await asyncio.gather(*protocol.tasks)
        return cpu

    base = asyncio.run(read(False))
    now = asyncio.run(read(True))
    line("read an action: websockets -> LeanWebSocket", base, now, "us")


class EverySeat(SeatClocks):
    """Seat clocks that work out the deadlines and the snapshot from every seat each time."""

    def _deadlines(self) -> list[tuple[float, int, int]]:
        return self._all_deadlines()

    def snapshot(self, now: float) -> Any:
        return self.snapshot_at(now)


def bench_clocks(rounds: int) -> None:
    print("5. seat clocks, CPU per action at a calm table of three people")

    def actions(kind: type[SeatClocks]) -> Callable[[], None]:
        clocks = kind(ClockSettings(), seats=3, people=[0, 1, 2], now=0.0)
        for seat in range(3):
            clocks.connected(seat, 0.0)
        clocks.turn_started(0, 0.0)
        state = {"now": 0.0, "seat": 0}

        def one() -> None:
            now = state["now"] = state["now"] + 0.001
            seat = state["seat"]
            clocks.active(seat, now)
            clocks.acted(seat, now)
            state["seat"] = seat = (seat + 1) % 3
            clocks.turn_started(seat, now)
            clocks.next_deadline()
            clocks.snapshot(now)

        return one

    base = cpu_per_call(actions(EverySeat), rounds * 100)
    now = cpu_per_call(actions(SeatClocks), rounds * 100)
    line("one action: every seat -> calm shortcuts", base, now, "us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few seconds, fewer repetitions")
    args = parser.parse_args()
    rounds, rows, actions = (20, 300, 1500) if args.quick else (300, 3000, 9000)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tapete-bench-actions-") as tmp:
        bench_views(rounds)
        bench_inserts(rows, Path(tmp))
        bench_act(actions, Path(tmp))
        bench_broadcasts(3 if args.quick else 30, Path(tmp))
    bench_frames(rounds)
    bench_clocks(rounds)
    print(f"done in {time.perf_counter() - started:.0f} s (CPU times of this process)")


if __name__ == "__main__":
    main()
