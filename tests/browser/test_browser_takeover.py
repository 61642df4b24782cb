"""A dropped seat through the page (two browser contexts, a server with a 2 s grace): Bea
closes her tab mid-deal, a computer takes her seat (Ana's page says so), Bea opens the table
again and takes the seat back, and the deal goes on to its end."""

from __future__ import annotations

import random
import time

from browser_helpers import shot, state, take_turn, tid
from browser_server import LiveServer

from tapete.server.clock import ClockSettings


def _play_until(pages, rng, logs, done, seconds: float = 120) -> None:  # type: ignore[no-untyped-def]
    """Whoever's turn it is clicks a move until ``done()``."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, logs
        moved = False
        for who, page in pages.items():
            s = state(page)
            if s["paused"] == "true" or int(s["deals"]) >= 1:
                continue
            if s["myTurn"] == "true" and s["pending"] == "false":
                take_turn(page, rng, logs.setdefault(who, []))
                moved = True
        if not moved:
            time.sleep(0.1)


def test_a_closed_tab_is_played_by_a_computer_until_its_person_is_back(
    new_page, tmp_path, artifacts
) -> None:  # type: ignore[no-untyped-def]
    server = LiveServer(tmp_path / "takeover.sqlite", clock=ClockSettings(grace_s=2)).start()
    try:
        ana = new_page(locale="en-GB")
        ana.goto(server.url)
        ana.wait_for_selector(f"{tid('newgame')}[open]")
        ana.click(tid("newgame-lobby"))
        ana.wait_for_selector(f"{tid('lobby')}[open]")
        ana.fill(tid("lobby-name"), "Ana")
        ana.click(tid("lobby-choose-mil-club"))
        ana.select_option(tid("seat-choice-0"), "me")
        ana.select_option(tid("seat-choice-1"), "invited")
        ana.select_option(tid("seat-choice-2"), "computer:random")
        ana.click(tid("create-table"))
        ana.wait_for_selector(tid("waiting"))
        link = ana.input_value(tid("invite-link"))

        bea = new_page(locale="en-GB")
        bea.goto(link)
        bea.wait_for_selector(f"{tid('join')}[open]")
        bea.fill(tid("join-name"), "Bea")
        bea.click(tid("sit-down"))
        for page in (ana, bea):
            page.wait_for_selector(f"{tid('hand')} .card")
            page.wait_for_function("() => window.tapete.clocks && window.tapete.clocks.seats")
        assert ana.evaluate("() => window.tapete.clocks.clock.grace_s") == 2

        # a few moves into the deal
        rng = random.Random(7)
        logs: dict[str, list[str]] = {}
        _play_until({"ana": ana, "bea": bea}, rng, logs, lambda: int(state(ana)["version"]) >= 4)
        back_url = bea.url
        context = bea.context
        bea.close()

        # past the grace a computer plays Bea's seat; Ana's page says so
        ana.wait_for_function(
            "() => window.tapete.clocks.seats[1] && "
            "window.tapete.clocks.seats[1].taken === 'disconnected'",
            timeout=20_000,
        )
        news = ana.inner_text(tid("seat-news"))
        assert "Bea" in news and "computer" in news, news
        assert ana.get_attribute(tid("seat-news"), "aria-live") == "polite"
        assert "computer plays" in ana.inner_text(tid("clock-1"))
        shot(ana, artifacts, "takeover-ana")

        # the game goes on through Bea's seat without her: Ana moves three more times (in
        # Mil's turn order Bea's seat acts between two of Ana's moves), or the deal ends
        moves = len(logs["ana"])
        _play_until(
            {"ana": ana},
            rng,
            logs,
            lambda: len(logs["ana"]) >= moves + 3 or int(state(ana)["deals"]) >= 1,
        )

        # Bea opens the table again: the seat is hers again, and Ana's page says so
        bea = context.new_page()
        errors: list[str] = []
        bea.on("pageerror", lambda e: errors.append(str(e)))
        bea.goto(back_url)
        bea.wait_for_selector(f"{tid('hand')} .card")
        ana.wait_for_function(
            "() => window.tapete.clocks.seats[1] && window.tapete.clocks.seats[1].taken === null"
            " && window.tapete.clocks.seats[1].connected"
        )
        ana.wait_for_function(
            "() => document.querySelector('[data-testid=\"seat-news\"]')"
            ".textContent.includes('back')"
        )
        assert "Bea" in ana.inner_text(tid("seat-news"))
        shot(bea, artifacts, "takeover-bea-back")

        # both play the deal to its end; Bea moves again herself
        before = len(logs.get("bea", []))
        _play_until(
            {"ana": ana, "bea": bea},
            rng,
            logs,
            lambda: all(
                int(state(p)["deals"]) >= 1 or state(p)["paused"] == "true" for p in (ana, bea)
            ),
            seconds=240,
        )
        assert len(logs.get("bea", [])) > before, logs
        assert not ana.js_errors and not errors
    finally:
        server.stop()
