"""A dropped seat through the page (two browser contexts, a server with a 4 s grace): Bea
closes her tab mid-deal, a computer takes her seat (Ana's page says so), Bea opens the table
again and takes the seat back, and the deal goes on to its end."""

from __future__ import annotations

import random

from browser_helpers import (
    create_invited_table,
    first_deal_over,
    play_until,
    shot,
    sit_down,
    state,
    tid,
)
from browser_server import LiveServer

from tapete.server.clock import ClockSettings


def test_a_closed_tab_is_played_by_a_computer_until_its_person_is_back(
    new_page, tmp_path, artifacts
) -> None:  # type: ignore[no-untyped-def]
    server = LiveServer(tmp_path / "takeover.sqlite", clock=ClockSettings(grace_s=4)).start()
    try:
        ana = new_page(locale="en-GB")
        seats = ["me", "invited", "computer:random"]
        link = create_invited_table(ana, server.url, "mil-club", seats)

        bea = new_page(locale="en-GB")
        sit_down(bea, link, "Bea")
        for page in (ana, bea):
            page.wait_for_selector(f"{tid('hand')} .card")
            page.wait_for_function("() => window.tapete.clocks && window.tapete.clocks.seats")
        assert ana.evaluate("() => window.tapete.clocks.clock.grace_s") == 4

        # a few moves into the deal
        rng = random.Random(7)
        logs: dict[str, list[str]] = {}
        play_until({"ana": ana, "bea": bea}, rng, logs, lambda: int(state(ana)["version"]) >= 4)
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
        play_until(
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
        play_until(
            {"ana": ana, "bea": bea},
            rng,
            logs,
            lambda: first_deal_over(ana, bea),
            seconds=240,
        )
        assert len(logs.get("bea", [])) > before, logs
        assert not ana.js_errors and not errors
    finally:
        server.stop()
