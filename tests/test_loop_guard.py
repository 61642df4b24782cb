"""The suite's own guard (``tests/loop_guard.py``): a test that does not drive the browser
starts with no event loop marked as running in its thread, whatever a browser test before it
in the same worker left, and the mark is given back after it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from loop_guard import running_loop_cleared

pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parent


def test_asyncio_run_starts_in_a_borrowed_loops_thread_once_the_mark_is_off() -> None:
    borrowed = asyncio.new_event_loop()
    try:
        asyncio._set_running_loop(borrowed)  # what Playwright's sync API leaves between calls
        try:
            refused = asyncio.sleep(0)
            with pytest.raises(RuntimeError, match="running event loop"):
                asyncio.run(refused)
            refused.close()
            with running_loop_cleared():
                assert asyncio.run(asyncio.sleep(0, "ran")) == "ran"
            assert asyncio._get_running_loop() is borrowed  # given back
        finally:
            asyncio._set_running_loop(None)
    finally:
        borrowed.close()


def test_a_test_after_a_browser_test_can_run_its_own_loop(pytester: pytest.Pytester) -> None:
    """A suite in miniature, in one process, in this order: a "browser" test leaves its loop
    marked as running (as Playwright's session-wide one does), the next test runs
    ``asyncio.run``, and a second "browser" test finds its loop marked again."""
    pytester.makeconftest(
        f"""
import asyncio, sys
sys.path.insert(0, {str(TESTS)!r})
import pytest
from loop_guard import no_borrowed_loop

LOOP = asyncio.new_event_loop()

@pytest.fixture(scope="session")
def browser():
    asyncio._set_running_loop(LOOP)
    yield LOOP
"""
    )
    pytester.makepyfile(
        test_a="def test_browser(browser): pass",
        test_b="import asyncio\ndef test_plain(): assert asyncio.run(asyncio.sleep(0, 7)) == 7",
        test_c="import asyncio\n"
        "def test_browser_again(browser): assert asyncio._get_running_loop() is browser",
    )
    result = pytester.runpytest("-p", "no:randomly", "-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=3)
