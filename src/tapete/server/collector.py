"""The serving process's garbage collection: short, regular passes over the objects made
since the last one, instead of rare ones over the whole room.

Why (docs/server.md, "Scaling"): a room of 1,000 tables holds about a million objects that
Python's cyclic collector tracks (the connections', the games'), and they almost all die by
reference count: the collector finds next to no garbage. Left to itself it still stops the
event loop to look through them. Its young generation is counted in allocations *less
deallocations*, so while finished games free old objects as fast as new ones are made, a
young pass comes only every 15 to 50 s and finds hundreds of thousands of objects in the
young generation (892 ms at 1,000 tables), and the middle pass that moves them on stops
the loop as long (662 ms; docs/benchmarks.md, "The collector on the loop's clock").

:class:`Collector` runs on the event loop instead: every ``tick_s`` a pass over the two young
generations (the objects made since the last tick that still live), after which
``gc.freeze()`` moves the survivors out of the collector's sight. Each object is looked at
once, a pause lasts as long as one tick's survivors take. A cycle of objects that became
garbage after its tick would stay frozen, so the whole heap is collected again (unfrozen,
collected, frozen) when the memory in Python's small blocks has grown ``growth`` times since
the last such pass (while the room fills, and where garbage cycles pile up), and at least
every ``full_every_s`` (an hour: cycles that hold large buffers, outside the small blocks,
are freed within it). Python's own thresholds (``Limits.gc_thresholds``) stay as a backstop
between ticks.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import sys
import time
from collections.abc import Callable

__all__ = ["Collector", "tune_gc"]

log = logging.getLogger("tapete.server.gc")


def tune_gc(thresholds: tuple[int, int, int] | list[int] | None) -> None:
    """Set the serving process's garbage-collector thresholds (``Limits.gc_thresholds``;
    None: leave Python's)."""
    if thresholds is not None:
        young, middle, old = (int(n) for n in thresholds)
        gc.set_threshold(young, middle, old)


class Collector:
    """Young passes every ``tick_s`` on the running loop, survivors frozen; a whole-heap pass
    when the small-block memory has grown ``growth`` times (at least ``floor_blocks``) since
    the last one, or ``full_every_s`` after it (on ``clock``). :meth:`start` on the loop,
    :meth:`stop` to unfreeze and end."""

    def __init__(
        self,
        tick_s: float,
        *,
        growth: float = 2.0,
        floor_blocks: int = 2_000_000,
        full_every_s: float = 3600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not tick_s > 0 or not growth > 1:
            raise ValueError(
                f"Collector: tick_s must be > 0 and growth > 1 (got {tick_s}, {growth})"
            )
        self.tick_s = tick_s
        self.growth = growth
        self.floor_blocks = floor_blocks
        self.full_every_s = full_every_s
        self.clock = clock
        #: when the last whole-heap pass ended (``clock``)
        self.last_full = clock()
        #: small blocks in use after the last whole-heap pass
        self.base_blocks = 0
        #: counts since :meth:`start`: ticks, whole-heap passes, seconds spent in each kind
        self.ticks = 0
        self.full_passes = 0
        self.tick_seconds = 0.0
        self.full_seconds = 0.0
        self.longest_tick_s = 0.0
        self._handle: asyncio.TimerHandle | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """A whole-heap pass now (what start-up made is frozen), then ticks on ``loop``
        (the running one by default)."""
        self._loop = loop or asyncio.get_running_loop()
        self.full(announce=False)
        self._handle = self._loop.call_later(self.tick_s, self._run)

    def stop(self) -> None:
        """No more ticks; the frozen objects go back to the collector. Logs :meth:`summary`
        (level DEBUG: the benchmarks' server prints it)."""
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
            log.debug("garbage collection: %s", self.summary())
        gc.unfreeze()

    def summary(self) -> str:
        """The passes so far, in a line."""
        mean_ms = self.tick_seconds / self.ticks * 1000 if self.ticks else 0.0
        return (
            f"{self.ticks} young passes (mean {mean_ms:.2f} ms, longest"
            f" {self.longest_tick_s * 1000:.1f} ms), {self.full_passes} whole-heap passes"
            f" ({self.full_seconds * 1000:.0f} ms in all, start-up's included)"
        )

    def _run(self) -> None:
        try:
            self.tick()
        finally:
            if self._handle is not None and self._loop is not None:
                self._handle = self._loop.call_later(self.tick_s, self._run)

    def tick(self) -> None:
        """One young pass and freeze, or a whole-heap pass when the memory has grown."""
        if (
            sys.getallocatedblocks() > max(self.base_blocks * self.growth, self.floor_blocks)
            or self.clock() - self.last_full >= self.full_every_s
        ):
            self.full()
            return
        began = time.perf_counter()
        gc.collect(1)
        gc.freeze()
        spent = time.perf_counter() - began
        self.ticks += 1
        self.tick_seconds += spent
        self.longest_tick_s = max(self.longest_tick_s, spent)

    def full(self, *, announce: bool = True) -> int:
        """Unfreeze, collect the whole heap, freeze what lives; return the objects freed."""
        began = time.perf_counter()
        before = sys.getallocatedblocks()
        gc.unfreeze()
        freed = gc.collect()
        gc.freeze()
        self.base_blocks = sys.getallocatedblocks()
        self.last_full = self.clock()
        spent = time.perf_counter() - began
        self.full_seconds += spent
        if announce:
            self.full_passes += 1
            log.info(
                "whole-heap garbage collection: %d objects freed, small blocks %d -> %d, %.0f ms",
                freed,
                before,
                self.base_blocks,
                spent * 1000,
            )
        return freed
