"""A held end of a deal goes on by itself once the person's move clock runs: the server's
clock does not wait for the page, and a person reading the last deal's result at a table
with a 15 s clock lost the seat to a computer while the page still showed a deal long over
(the switch "go on by itself" was off, as it is by default). Seat clocks run at tables of
several people only."""

from __future__ import annotations

import random
import time

from browser_helpers import LOCALES, keep_seat, state, take_turn, tid, wait_turn

from tapete.server.db import make_engine
from tapete.server.tables import TableManager


def test_the_held_deal_end_goes_on_once_the_persons_clock_runs(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    engine = make_engine(f"sqlite:///{live_server.db_path}")
    try:  # (Ana and Bea at a Mariage table with a 2-minute move clock)
        manager = TableManager(engine)
        table = manager.create(
            game="mariage",
            profile="mariage",
            name="Ana",
            language="en",
            seats=[("me", None), ("open", None)],
            seed=4,
            listed=True,
            clock={"move_s": 120},
        )
        joined, _ = manager.join(table.id, name="Bea")
        tokens = [joined.seats[0].token, joined.seats[1].token]
    finally:
        engine.dispose()
    pages = []
    for seat, token in enumerate(tokens):
        page = new_page(locale=LOCALES["en"])
        page.goto(live_server.url)
        keep_seat(page, table.id, token, seat)
        page.reload()
        page.wait_for_selector("#table[data-version]")
        pages.append(page)
    ana, bea = pages
    assert ana.evaluate("() => localStorage.getItem('tapete.autoNext')") is None  # (off)
    rng, log = random.Random(4), []

    def one_move(until: str) -> None:
        """A move by whichever page's turn it is (Bea goes on past a deal's end)."""
        deadline = time.monotonic() + 30
        while True:
            assert time.monotonic() < deadline, log
            if ana.evaluate(until):
                return
            for page in (ana, bea):
                st = state(page)
                if page is bea and st.get("paused") == "true":
                    page.click(tid("next-deal"))
                elif (
                    st["myTurn"] == "true"
                    and st["pending"] == "false"
                    and st.get("paused") != "true"
                ):
                    take_turn(page, rng, log)
                    return
            ana.wait_for_timeout(50)

    held = "() => document.querySelector('#table').dataset.paused === 'true'"
    while not ana.evaluate(held):  # the first hand, played to its end: Ana's page holds it
        one_move(held)
    assert state(ana)["deals"] == "1", log
    # Bea goes on and plays until it is Ana's turn: Ana's clock runs, and her held end goes
    # on by itself a few seconds later
    her_turn = "() => window.tapete.view.turn === 0"
    while not ana.evaluate(her_turn):
        one_move(her_turn)
    assert ana.evaluate(held)
    ana.wait_for_function(
        "() => document.querySelector('#table').dataset.paused !== 'true'", timeout=15_000
    )
    assert wait_turn(ana) == "turn"
