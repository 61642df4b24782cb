"""An in-page driver that plays the person's seat quickly, for the long-game tests.

It presses, whenever the page offers them, "Next deal", "Keep playing", "Pass" (or the only
bid), the contract, the first card to give and its first receiver, and the first playable
card: real clicks on enabled buttons, run inside the page so that no round trip through
Playwright slows a 40-deal game. Before its first move in each phase of a deal (and on each
held end of a deal) it measures the screen: the hand, the trick, the talon, the controls and
the seats must lie inside the window, a wide page must not scroll, and the score sheet must
show its newest row; what it finds is in ``problems(page)``. ``stop_at`` halts it at the
person's turn in a phase (for a screenshot), ``resume`` lets it go on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from browser_helpers import wait_until
from playwright.sync_api import Page

_SOURCE = Path(__file__).with_name("autoplay.js").read_text(encoding="utf-8")
DRIVER = "\n".join(x for x in _SOURCE.splitlines() if not x.startswith("//"))


def start(page: Page) -> None:
    page.evaluate(DRIVER)


def pause(page: Page) -> None:
    page.evaluate("() => { window.__autoPaused = true; }")


def resume(page: Page) -> None:
    page.evaluate("() => { window.__stopAt = null; window.__autoPaused = false; }")


def problems(page: Page) -> list[str]:
    return list(page.evaluate("() => window.__problems"))


def checks(page: Page) -> list[str]:
    return list(page.evaluate("() => window.__checks"))


def stop_at(page: Page, phase: str, deals: int, timeout: float = 90_000) -> bool:
    """Run until it is the person's turn in `phase` with `deals` rows on the sheet (then stop
    there), or the sheet has more rows, or the game is over; True when stopped in the phase."""
    page.evaluate(
        """([p, d]) => { window.__stopped = null; window.__stopAt = p; window.__stopDeals = d;
            window.__autoPaused = false; }""",
        [phase, deals],
    )
    page.wait_for_function(
        """([d]) => { const m = document.querySelector('#table');
            return (Boolean(window.__stopped) && Number(m.dataset.deals) >= d)
              || Number(m.dataset.deals) > d || m.dataset.over === 'true'; }""",
        arg=[deals],
        timeout=timeout,
        polling=50,
    )
    stopped = bool(page.evaluate("() => Boolean(window.__stopped)"))
    state: dict[str, Any] = page.eval_on_selector("#table", "m => ({...m.dataset})")
    return stopped and int(state["deals"]) == deals


def wait_deals(page: Page, n: int, timeout: float = 90_000) -> int:
    """Wait until the sheet has n rows (or the game is over); the number of rows."""
    page.wait_for_function(
        """([n]) => { const m = document.querySelector('#table');
            return m && (Number(m.dataset.deals) >= n || m.dataset.over === 'true'); }""",
        arg=[n],
        timeout=timeout,
        polling=100,
    )
    return int(page.eval_on_selector("#table", "m => m.dataset.deals"))


def play_to_end(pages: dict[str, Page], seconds: float = 90) -> None:
    """At a table of several people (``pages`` by name): the driver plays every person's seat
    until the game is over on every page (bounded: the pages' state on a timeout)."""
    for page in pages.values():
        start(page)
    wait_until(
        pages,
        "the game's end",
        "() => document.querySelector('#table').dataset.over === 'true'",
        seconds,
    )
