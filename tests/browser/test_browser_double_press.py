"""A double click on a button that opens or takes a seat sends one request: Play (Games
window), Quick game and Create table (Lobby), Sit down (invitation). Each of them made a table
per click, the first one left behind with the person seated at it (a computer game listed
among the person's games and on the Watch list; a quick table in the Lobby with a seated
person who never comes)."""

from __future__ import annotations

import json
import sqlite3
import uuid
from pathlib import Path

from browser_helpers import fill_sign_up, open_lobby, tid

# two presses before the first one's request can have come back (a real double click can
# be slower than a local server; this one cannot)
PRESS_TWICE = "(sel) => { const b = document.querySelector(sel); b.click(); b.click(); }"


def tables_of(db_path: Path, name: str) -> int:
    """How many tables have a seat named ``name``."""
    con = sqlite3.connect(db_path)
    try:
        rows = con.execute("SELECT players FROM tables").fetchall()
    finally:
        con.close()
    return sum(name in json.loads(players) for (players,) in rows)


def unique_name() -> str:
    return f"D{uuid.uuid4().hex[:8]}"


def test_double_click_on_play_starts_one_game(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="en-GB")
    name = unique_name()
    page.goto(live_server.url)
    page.wait_for_selector(f"{tid('newgame')}[open]")
    page.fill(tid("name"), name)
    page.evaluate(PRESS_TWICE, tid("start"))
    page.wait_for_selector("#table[data-version]")
    page.wait_for_timeout(500)
    assert tables_of(live_server.db_path, name) == 1
    # the Games window lists one game of this browser, not two
    saved = page.evaluate("() => JSON.parse(localStorage.getItem('tapete.tables') || '[]')")
    assert len(saved) == 1
    assert page.js_errors == []


def test_double_click_on_quick_game_and_create_table_opens_one_table(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    for button in ("quick-game", "create-table"):
        page = new_page(locale="es-ES")
        name = unique_name()
        open_lobby(page, f"{live_server.url}/?lang=es", name)
        page.click(tid("lobby-choose-mariage-mariage"))
        page.evaluate(PRESS_TWICE, tid(button))
        page.wait_for_selector(tid("waiting"))
        page.wait_for_timeout(500)
        assert tables_of(live_server.db_path, name) == 1, button
        assert page.js_errors == []


def test_double_press_on_sign_up_sends_one_request(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    # (the second request was refused 409 "taken": a console error behind a signed-in page)
    page = new_page(locale="en-GB")
    fill_sign_up(page, live_server.url, unique_name())
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.url.endswith("/api/signup") else None)
    page.evaluate(PRESS_TWICE, tid("account-submit"))
    page.wait_for_selector(tid("my-page"))
    page.wait_for_timeout(500)
    assert len(sent) == 1, sent
    assert page.url.rstrip("/") == live_server.url.rstrip("/")  # (no form sent by the browser)
    assert page.js_errors == []
