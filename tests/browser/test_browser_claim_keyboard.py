"""Claim 66 by keyboard, below the points a claim needs: Enter on "Claim 66" puts the focus on
its question's Cancel (the safe answer), and Enter on Cancel puts it back on "Claim 66". The
focus went to the first playable card both times, so a keyboard user's next Enter, meant for
the question, played that card."""

from __future__ import annotations

import random

from browser_helpers import start_game, state, take_turn, tid, view, wait_turn

ACTIVE = "() => document.activeElement?.dataset?.testid ?? null"


def test_the_claim_question_takes_the_focus_and_gives_it_back(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="es-ES")
    start_game(page, f"{live_server.url}/?lang=es", "mariage", levels=("rules",), seed=4)
    rng, log = random.Random(4), []  # type: ignore[var-annotated]
    for _ in range(40):
        assert wait_turn(page) == "turn", log
        v = view(page)
        claimable = any(a["type"] == "claim" for a in v["legal"])
        if claimable and v["points"][v["seat"]] < 66 and page.locator(tid("claim")).count():
            break
        take_turn(page, rng, log)
    else:
        raise AssertionError(f"no claim below 66 was offered: {log}")
    version = state(page)["version"]
    page.focus(tid("claim"))
    page.keyboard.press("Enter")
    page.wait_for_selector(tid("claim-confirm-box"))
    assert page.evaluate(ACTIVE) == "claim-cancel"
    page.keyboard.press("Enter")
    page.wait_for_selector(tid("claim"))
    assert page.evaluate(ACTIVE) == "claim"
    assert state(page)["version"] == version  # nothing was played
    assert page.js_errors == []
