"""Stop the server mid-deal, start a new one on the same database: the page resumes the hand."""

from __future__ import annotations

import random

from browser_helpers import LOCALES, shot, start_game, state, take_turn, tid, view, wait_turn
from browser_server import LiveServer


def test_restart_and_resume(new_page, tmp_path, artifacts) -> None:
    db = tmp_path / "resume.sqlite"
    first = LiveServer(db).start()
    try:
        page = new_page(locale=LOCALES["en"])
        start_game(page, first.url, "mil-club", seed=1)
        rng = random.Random(5)
        log: list[str] = []
        # play until the cards are on the table (a few tricks into the deal)
        for _ in range(40):
            wait_turn(page)
            take_turn(page, rng, log)
            v = view(page)
            if v["phase"] == "play" and len(v["tricks"]) >= 2 and v["turn"] == v["seat"]:
                break
        wait_turn(page)
        before = view(page)
        version = state(page)["version"]
        assert before["phase"] == "play"
        table_id = page.evaluate("() => window.tapete.session.table")
    finally:
        first.stop()

    second = LiveServer(db, port=first.port).start()  # same origin: localStorage still holds it
    try:
        page.reload()
        page.wait_for_function(
            "([v]) => document.querySelector('#table').dataset.version === v", arg=[version]
        )
        after = view(page)
        assert page.evaluate("() => window.tapete.session.table") == table_id
        for key in ("hand", "trick", "tricks", "scores", "players", "dealer", "contract", "legal"):
            assert after[key] == before[key], key
        shown = page.eval_on_selector_all(
            f"{tid('hand')} .card", "els => els.map(e => e.dataset.card)"
        )
        assert shown == before["hand"]
        shot(page, artifacts, "resume-after-restart")
        # and the game goes on
        wait_turn(page)
        take_turn(page, rng, log)
        assert int(state(page)["version"]) > int(version)
        assert len(view(page)["hand"]) == len(before["hand"]) - 1 or view(page)["deal_number"] > 1
        assert page.js_errors == []
    finally:
        second.stop()
