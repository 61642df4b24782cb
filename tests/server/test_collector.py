"""The serving process's garbage collection (``collector.Collector``): young passes on the
event loop's clock, survivors frozen, the whole heap again when memory has grown. These
tests use the real collector of the test process, and leave it unfrozen."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import json
import random
import time
import urllib.request
import weakref
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from server_helpers import MakeApp, RealSocket, Session
from starlette.applications import Starlette
from test_server_hostile_uvicorn import LIMITS, serving
from websockets.sync.client import connect

from tapete.server.app import uvicorn_config
from tapete.server.collector import Collector
from tapete.server.limits import Limits

pytestmark = pytest.mark.sqlite_only


class Node:
    """A cycle's member (a class instance: weakly referable, tracked by the collector)."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> tuple[Node, weakref.ref[Node]]:
    a, b = Node(), Node()
    a.other, b.other = b, a
    return a, weakref.ref(a)


@pytest.fixture
def collector() -> Iterator[Collector]:
    made = Collector(0.01, floor_blocks=10**12)  # no whole-heap pass unless a test asks
    made.base_blocks = 10**12
    try:
        yield made
    finally:
        made.stop()
        assert gc.get_freeze_count() == 0


@pytest.fixture
def recorded(make_app: MakeApp) -> tuple[MakeApp, list[Starlette]]:
    """``make_app``, and the apps it made (the tests reach the app ``serving`` makes)."""
    apps: list[Starlette] = []

    def made(**options: Any) -> Starlette:
        apps.append(make_app(**options))
        return apps[-1]

    return made, apps


def test_a_tick_freezes_what_lives_and_collects_young_cycles(collector: Collector) -> None:
    gc.unfreeze()
    kept = [Node() for _ in range(1000)]
    dead = cycle()[1]  # garbage before the tick: collected by it, not frozen
    collector.tick()
    assert dead() is None
    assert gc.get_freeze_count() >= len(kept)
    assert all(gc.is_tracked(node) for node in kept)
    assert gc.get_count()[0] < 100  # the young generation starts again
    assert collector.ticks == 1 and collector.full_passes == 0


def test_cycles_that_die_frozen_wait_for_the_whole_heap_pass(collector: Collector) -> None:
    """A cycle that became garbage after its tick survives ticks (it is frozen) until the
    memory has grown ``growth`` times since the last whole-heap pass."""
    head, dead = cycle()
    collector.tick()  # frozen while it lived
    del head
    collector.tick()
    gc.collect()  # Python's own pass does not see frozen objects either
    assert dead() is not None
    collector.base_blocks = 1  # the memory has "grown": the next tick is a whole-heap pass
    collector.floor_blocks = 0
    collector.tick()
    assert dead() is None
    assert collector.full_passes == 1 and collector.base_blocks > 1
    assert gc.get_freeze_count() > 0  # what lives is frozen again


def test_a_whole_heap_pass_comes_at_least_every_hour() -> None:
    """Memory that grows outside Python's small blocks (a cycle holding a large buffer) is
    not seen by the growth rule: such a cycle is freed within ``full_every_s``."""
    now = [0.0]
    collector = Collector(0.5, floor_blocks=10**12, clock=lambda: now[0])
    try:
        head, dead = cycle()
        collector.tick()
        del head
        now[0] = 3599.0
        collector.tick()
        assert dead() is not None and collector.full_passes == 0
        now[0] = 3600.0
        collector.tick()
        assert dead() is None and collector.full_passes == 1
        now[0] = 7199.0
        collector.tick()
        assert collector.full_passes == 1  # (the hour counts from the last one)
    finally:
        collector.stop()


def test_the_loop_ticks_and_stop_unfreezes() -> None:
    async def run() -> Collector:
        made = Collector(0.01)
        made.start()
        assert gc.get_freeze_count() > 0  # start-up's objects, frozen by the first pass
        await asyncio.sleep(0.2)
        made.stop()
        return made

    made = asyncio.run(run())
    assert made.ticks >= 3
    assert made.full_passes == 0  # (start-up's pass is not counted as one)
    assert gc.get_freeze_count() == 0
    assert "young passes" in made.summary()


@pytest.mark.parametrize("tick_s, growth", [(0, 2.0), (-1, 2.0), (0.5, 1.0), (float("nan"), 2.0)])
def test_bad_settings_are_refused(tick_s: float, growth: float) -> None:
    with pytest.raises(ValueError, match="tick_s must be > 0 and growth > 1"):
        Collector(tick_s, growth=growth)


def test_the_serving_process_runs_the_collector_and_stops_it(
    make_app: MakeApp, recorded: tuple[MakeApp, list[Starlette]]
) -> None:
    """``Limits.gc_tick_s``: ``tapete serve``'s uvicorn settings give the app a collector,
    started with the server and stopped (everything unfrozen) when it stops; None: none."""
    assert Limits().gc_tick_s == 0.5
    made, apps = recorded
    limits = dataclasses.replace(LIMITS, gc_tick_s=0.02)
    with serving(made, limits) as port:
        collector = apps[0].state.collector
        assert isinstance(collector, Collector) and collector.tick_s == 0.02
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/config", timeout=10) as r:
            assert json.loads(r.read())
        deadline = time.monotonic() + 10
        while collector.ticks < 2:
            assert time.monotonic() < deadline, "the collector did not tick"
            time.sleep(0.05)
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
    none = dataclasses.replace(LIMITS, gc_tick_s=None)
    unticked = make_app(limits=none)
    uvicorn_config(unticked, "127.0.0.1", 0, none)
    assert getattr(unticked.state, "collector", None) is None


def test_no_garbage_is_left_frozen_by_games_and_sockets(
    recorded: tuple[MakeApp, list[Starlette]],
) -> None:
    """Whatever a game and its sockets leave behind dies by reference count or within a
    tick: after 20 games, 20 requests and 80 WebSockets under a real uvicorn, the objects
    the collector froze hold no garbage of theirs (a reference cycle kept by a closed
    connection would be found here once per socket: the protocol's send extension in its
    own scope, which ``LeanWebSocket.connection_lost`` breaks, left about a thousand)."""
    made, apps = recorded
    limits = dataclasses.replace(LIMITS, gc_tick_s=0.02)
    rng = random.Random(3)
    with serving(made, limits) as port:
        base = f"127.0.0.1:{port}"
        for _ in range(20):
            body = {"game": "mariage", "name": "Ana", "levels": ["random"], "max_deals": 1}
            request = urllib.request.Request(
                f"http://{base}/api/tables",
                data=json.dumps(body).encode(),
                headers={"content-type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=10) as r:
                created = json.loads(r.read())
            url = f"ws://{base}/ws/{created['table']}?token={created['token']}"
            with connect(url) as ws:
                assert Session(RealSocket(ws), rng).play()["over"]
            for _ in range(3):
                with connect(url) as ws:
                    ws.recv(timeout=10)
        time.sleep(0.1)  # (a tick after the last socket's close)
        frozen = gc.get_freeze_count()
    assert frozen > 0 and gc.get_freeze_count() == 0  # (stopped: unfrozen)
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        found = gc.collect()
        kinds = Counter(type(o).__name__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    # (the server's own end leaves a few dozen: its protocol class, a few transports)
    assert found < 150, kinds.most_common(10)
    sockets = {"LeanWebSocket", "ServedWebSocket", "GuardedH11", "WebSocket", "Connection"}
    assert not kinds.keys() & sockets
    apps.clear()  # (the app itself, frozen with it, is garbage only now)
