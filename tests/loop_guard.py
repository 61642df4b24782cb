"""No borrowed event loop in a test that does not drive the browser (``no_borrowed_loop``,
autouse for every test through ``tests/conftest.py``).

The browser tests' session-wide Playwright (its sync API) leaves its event loop marked as
running in the worker's main thread between its calls, where ``asyncio.run`` then refuses to
start: a test that ran after one in the same pytest-xdist worker failed with "asyncio.run()
cannot be called from a running event loop" (CI, stop 21). Such a test runs with the mark
taken off, and gets it back after it for the next browser test."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import pytest


@contextlib.contextmanager
def running_loop_cleared() -> Iterator[None]:
    """Take the running-loop mark of this thread off for the block, and put it back."""
    held = asyncio._get_running_loop()
    asyncio._set_running_loop(None)
    try:
        yield
    finally:
        asyncio._set_running_loop(held)


@pytest.fixture(autouse=True)
def no_borrowed_loop(request: pytest.FixtureRequest) -> Iterator[None]:
    """Outside the browser tests (those that take the ``browser`` fixture), no event loop
    marked as running in this thread."""
    if "browser" in request.fixturenames:
        yield
        return
    with running_loop_cleared():
        yield
