"""Hints computed away from the event loop: in worker processes (default) or threads.

A hint runs the strongest bot on the seat's view; that is CPU work, and in a thread of the
server process it holds the interpreter lock that the event loop needs (a flood of hints
then slows every table). In a worker process it does not. The pool is bounded, and so is
the queue in front of it: past ``max_pending`` waiting hints a new one is refused at once.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.connection
import multiprocessing.context
import os
import signal
import threading
from collections.abc import Hashable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final

__all__ = ["HintPool", "hint_payload", "init_worker", "stop_executor"]


def hint_payload(game: str, view: dict[str, Any], key: Hashable | None) -> dict[str, Any]:
    """The ``hint`` message's fields for ``view`` (plain data: it crosses processes)."""
    from tapete.bots import suggest

    action, reason = suggest(game, view, key=key)
    return {
        "action": action if isinstance(action, dict) else action.to_json(),
        "reason": str(reason),
        "reason_key": reason.key,
        "reason_args": reason.wire_args(),
    }


class _QuietSpawnProcess(multiprocessing.context.SpawnProcess):
    """A spawned worker that ignores Ctrl-C from its first instruction: it is started with
    SIGINT ignored, which the new interpreter inherits and keeps (Python puts its
    ``KeyboardInterrupt`` handler in place only over the default). The initializer's
    :func:`ignore_interrupts` came too late for a worker still importing when Ctrl-C
    reached the server's process group: it printed a ``KeyboardInterrupt`` traceback."""

    def start(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            super().start()  # (signal handlers can be set in the main thread only)
            return
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            super().start()
        finally:
            signal.signal(signal.SIGINT, previous)


class _QuietSpawnContext(multiprocessing.context.SpawnContext):
    Process = _QuietSpawnProcess


#: the start method of the hints' and the reviews' worker processes: spawn, Ctrl-C ignored
WORKER_CONTEXT: Final = _QuietSpawnContext()


def init_worker() -> None:
    """A worker process's initializer (the hints' and the reviews' pools): Ctrl-C is the
    server's, and the worker ends with the server however the server ends."""
    ignore_interrupts()
    follow_parent()


def ignore_interrupts() -> None:
    """Ctrl-C at the terminal reaches every process of the server's group, and the server
    ends its workers itself, so a worker ignores it (each printed a ``KeyboardInterrupt``
    traceback as ``tapete serve`` stopped)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def follow_parent() -> None:
    """End this worker process at once when its parent ends. A server that stops cleanly
    ends its workers itself; one that is killed (SIGKILL, the out-of-memory killer, a
    crash) cannot, and its idle workers waited for work for ever: each holds both ends of
    its pool's queues, so it never sees the server's end close. The parent's sentinel (the
    pipe multiprocessing starts the worker through) becomes readable when the parent is
    gone."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    sentinel = parent.sentinel

    def watch() -> None:
        multiprocessing.connection.wait([sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="tapete-follow-parent", daemon=True).start()


def _ready() -> bool:
    """Import the bots in a new worker (so that the first hint does not wait for it)."""
    import tapete.bots  # noqa: F401

    return True


class HintPool:
    """``processes`` worker processes (0: ``threads`` worker threads) for hints."""

    def __init__(self, *, processes: int, threads: int, max_pending: int) -> None:
        self.processes = processes
        self.threads = threads
        self.max_pending = max_pending
        self.pending = 0
        self._executor: Executor | None = None

    def _pool(self) -> Executor:
        if self._executor is None:
            if self.processes > 0:
                self._executor = ProcessPoolExecutor(
                    self.processes,
                    mp_context=WORKER_CONTEXT,
                    initializer=init_worker,
                )
            else:
                self._executor = ThreadPoolExecutor(self.threads, thread_name_prefix="tapete-hint")
        return self._executor

    def warm(self) -> None:
        """Start the workers now (at start-up) rather than on the first hint."""
        if self.processes > 0:
            self._pool().submit(_ready)

    def busy(self) -> bool:
        return self.pending >= self.max_pending

    async def hint(
        self, game: str, view: dict[str, Any], key: Hashable | None, timeout_s: float
    ) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        self.pending += 1
        pool = self._pool()
        try:
            future = loop.run_in_executor(pool, hint_payload, game, view, key)
            return await asyncio.wait_for(future, timeout=timeout_s)
        except BrokenProcessPool:
            # the worker died (killed, out of memory): the next hint starts a new pool. A
            # broken pool refuses every job, so every later hint failed until a restart.
            if self._executor is pool:
                self._executor = None
                pool.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            self.pending -= 1

    def shutdown(self) -> None:
        if self._executor is not None:
            stop_executor(self._executor)  # (a worker in the middle of a hint: terminated)
            self._executor = None


def stop_executor(executor: Executor) -> None:
    """Shut ``executor`` down without waiting for work under way. A worker process in the
    middle of a job (a deal's analysis, a hint) is terminated: ``shutdown(wait=False)`` alone
    left it running, and at exit Python joins it, so a stopped server waited for the analysis
    to end (up to its CPU budget, at the worker's lower priority). Nothing of that job is
    stored."""
    processes = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()
