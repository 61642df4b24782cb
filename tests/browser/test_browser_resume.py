"""Stop the server mid-deal, start a new one on the same database: the page resumes the hand."""

from __future__ import annotations

import contextlib
import random
import sqlite3

from browser_helpers import LOCALES, shot, start_game, state, take_turn, tid, view, wait_turn
from browser_server import LiveServer


def test_restart_and_resume(new_page, tmp_path, artifacts) -> None:
    db = tmp_path / "resume.sqlite"
    first = LiveServer(db).start()
    try:
        page = new_page(locale=LOCALES["en"])
        # every address the page asks for, sockets too: the seat's token is in none of them
        urls: list[str] = []
        page.on("request", lambda r: urls.append(r.url))
        page.on("websocket", lambda ws: urls.append(ws.url))
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
        token = page.evaluate("() => window.tapete.session.token")
        sockets = [u for u in urls if u.startswith("ws")]
        assert len(token) >= 32 and len(sockets) >= 2  # (before the restart and after it)
        assert [u for u in urls if token in u] == []
    finally:
        second.stop()


def test_a_server_back_with_fewer_actions_is_followed(new_page, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A server whose database lost its last writes (SQLite's ``synchronous=NORMAL`` after a
    power cut keeps the file whole but may lose the last moves): the page held a later
    version, yet it takes the new connection's first view, the server's word, by itself (it
    used to ignore every view older than its own: stuck until a reload), and play goes on."""
    db = tmp_path / "behind.sqlite"
    first = LiveServer(db).start()
    try:
        page = new_page(locale=LOCALES["en"])
        start_game(page, first.url, "mariage", levels=("random",), seed=2)
        rng = random.Random(3)
        log: list[str] = []
        while int(state(page)["version"]) < 6:
            wait_turn(page)
            take_turn(page, rng, log)
        wait_turn(page)
        held = int(state(page)["version"])
        table_id = page.evaluate("() => window.tapete.session.table")
        page.evaluate("() => { window.__same_page = true; }")
    finally:
        first.stop()
    # the moves from the person's last one are lost (so the computer has none to make again:
    # from the same position it would make the same ones)
    with contextlib.closing(sqlite3.connect(db)) as c, c:
        (lost,) = c.execute(
            "SELECT max(n) FROM actions WHERE table_id = ? AND seat = 0", (table_id,)
        ).fetchone()
        c.execute("DELETE FROM actions WHERE table_id = ? AND n >= ?", (table_id, lost))
    assert lost < held

    second = LiveServer(db, port=first.port).start()
    try:
        page.wait_for_function(
            "([v]) => { const m = document.querySelector('#table');"
            " return m.dataset.offline === 'false' && m.dataset.version === v; }",
            arg=[str(lost)],
        )
        assert page.evaluate("() => window.__same_page === true")
        wait_turn(page)
        version = int(state(page)["version"])
        take_turn(page, rng, log)
        assert int(state(page)["version"]) > version
        assert page.js_errors == []
    finally:
        second.stop()
