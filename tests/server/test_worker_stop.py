"""Stopping the server's worker pools (the deal reviews', the hints') does not wait for a job
under way: at exit Python joins a pool's worker process, so a server stopped during a
background analysis waited for the analysis to end (seen as a stop that took over 10 s). A
hint worker that dies is replaced."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from tapete.games import new_game
from tapete.server.hints import HintPool, stop_executor


def test_a_worker_in_the_middle_of_a_job_is_stopped_at_once() -> None:
    pool = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    job = pool.submit(time.sleep, 60)
    deadline = time.monotonic() + 60
    while not job.running():  # (the worker has started and taken the job)
        assert time.monotonic() < deadline, "the worker never took the job"
        time.sleep(0.05)
    time.sleep(0.5)
    workers = list(pool._processes.values())  # (what the stop must end)
    assert workers and all(w.is_alive() for w in workers)
    began = time.monotonic()
    stop_executor(pool)
    for w in workers:
        # (not ``w.is_alive()``: the pool's own thread reaps its workers too, and a process
        # another thread reaped answers "alive" to a ``poll`` that finds no child)
        while _running(w.pid) and time.monotonic() - began < 10:
            time.sleep(0.05)
        assert not _running(w.pid), "the worker still runs its job"
    assert time.monotonic() - began < 10  # (a minute's job: not waited for)
    job.exception(10)  # (the job ends too, as failed: nothing of it is stored)
    assert job.done()


def _running(pid: int | None) -> bool:
    """Whether the process runs (neither gone nor a zombie waiting to be reaped)."""
    if pid is None:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:  # (reaped meanwhile, or a system without /proc)
        return Path("/proc/self").exists() is False
    return state != "Z"


def test_a_thread_pool_is_shut_down_as_before() -> None:
    pool = ThreadPoolExecutor(max_workers=1)
    assert pool.submit(sum, [1, 2]).result() == 3
    stop_executor(pool)
    assert pool._shutdown


def _interrupts() -> str:
    """How a new worker takes Ctrl-C, before any initializer has run."""
    import signal

    handler = signal.getsignal(signal.SIGINT)
    return "ignored" if handler == signal.SIG_IGN else repr(handler)


def test_a_worker_ignores_ctrl_c_from_its_start() -> None:
    # (Ctrl-C at the terminal reaches every process of the server's group; a worker still
    # importing its modules printed a KeyboardInterrupt traceback as `tapete serve` ended)
    import signal

    from tapete.server.hints import WORKER_CONTEXT

    before = signal.getsignal(signal.SIGINT)
    with ProcessPoolExecutor(max_workers=1, mp_context=WORKER_CONTEXT) as pool:
        assert pool.submit(_interrupts).result(60) == "ignored"
    assert signal.getsignal(signal.SIGINT) is before  # (the server's own is put back)


def test_a_hint_worker_that_dies_is_replaced_by_the_next_hint() -> None:
    """A hint worker process that died (killed, out of memory) broke its pool for good: a
    broken pool refuses every job, so every later hint failed (the seat was shown its first
    legal action, "no suggestion") until the server restarted. The hint under way when the
    worker dies fails; the next one starts a new worker."""
    game = new_game("mil", "club", seed=3)
    view = game.view(game.turn)
    pool = HintPool(processes=1, threads=1, max_pending=4)

    async def run() -> None:
        first = await pool.hint("mil", view, None, 120)
        assert first["action"] in view["legal"]
        assert isinstance(pool._executor, ProcessPoolExecutor)
        (worker,) = pool._executor._processes.values()
        worker.kill()
        worker.join(10)
        with pytest.raises(BrokenProcessPool):
            await pool.hint("mil", view, None, 120)
        again = await pool.hint("mil", view, None, 120)
        assert again["action"] in view["legal"]
        assert pool.pending == 0

    try:
        asyncio.run(run())
    finally:
        pool.shutdown()
