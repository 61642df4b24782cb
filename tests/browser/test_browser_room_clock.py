"""A table with a clock through the Lobby's form: Ana creates a public Mariage table with 15 s a
move and a 1 min bank (chosen by their labels), the invitation page and the Lobby's list show
the clock to others (in their language), Bea sits down from the list, and the seat to act
sees its move time count down."""

from __future__ import annotations

from typing import Any

from browser_helpers import ana_table, open_lobby, open_seat, shot, sit_down, tid, wait_playing


def test_a_clock_chosen_in_the_lobby_is_shown_and_counts_down(
    new_page, live_server, artifacts
) -> None:  # type: ignore[no-untyped-def]
    ana = new_page(locale="en-GB")
    open_lobby(ana, live_server.url, "Ana")
    ana.click(tid("lobby-choose-mariage-mariage"))
    ana.select_option(tid("seat-choice-1"), "open")
    ana.check(tid("opt-public"))
    # no clock at first (the server has no default one): the bank waits for a move time
    assert ana.get_by_label("Time per move").input_value() == ""
    assert ana.get_by_label("Time bank (per deal)").is_disabled()
    ana.get_by_label("Time per move").select_option("15")
    assert ana.get_by_label("Time bank (per deal)").is_enabled()
    ana.get_by_label("Time bank (per deal)").select_option("60")
    ana.get_by_label("Time to reconnect").select_option("60")
    shot(ana, artifacts, "room-clock-form")
    ana.click(tid("create-table"))
    ana.wait_for_selector(tid("waiting"))
    link = ana.input_value(tid("invite-link"))

    # the invitation page shows the clock
    cid = new_page(locale="pt-PT")
    cid.goto(link)
    cid.wait_for_selector(f"{tid('join')}[open]")
    assert cid.inner_text(tid("join-clock")).strip() == "· relógio: 15 s + 1 min"

    # the Lobby's list too; Bea sits down from it (the list may hold tables other tests of
    # this server left waiting: Ana's is found by its number)
    table_id = ana.evaluate("() => window.tapete.session.table")
    bea = new_page(locale="es-ES")
    open_lobby(bea, live_server.url, "Bea")
    listed = bea.locator(tid(f"lobby-clock-{table_id}"))
    listed.wait_for()
    assert listed.inner_text().strip() == "· reloj: 15 s + 1 min"
    shot(bea, artifacts, "room-clock-lobby")
    bea.click(tid(f"sit-{table_id}"))
    wait_playing(ana, bea)

    # the table's clock: the setting, and the move time of the seat to act counting down
    for page in (ana, bea):
        page.wait_for_function("() => window.tapete.clocks && window.tapete.clocks.seats")
        clock = page.evaluate("() => window.tapete.clocks.clock")
        assert clock == {"move_s": 15, "bank_s": 60, "grace_s": 60, "abandon_s": 300}, clock
    turn = ana.evaluate("() => window.tapete.view.turn")
    note = f"{tid(f'clock-{turn}')}"
    ana.wait_for_selector(note)
    first = ana.inner_text(note)
    assert "to move (bank 1:00)" in first, first  # (the Lobby said "1 min")
    seconds = int(first.split("·")[1].split()[0])
    assert 0 < seconds <= 15
    ana.wait_for_function(
        """([sel, s]) => { const el = document.querySelector(sel);
            return el && parseInt(el.textContent.split('·')[1]) < s; }""",
        arg=[note, seconds],
        timeout=5_000,
    )
    shot(ana, artifacts, "room-clock-running")
    assert not ana.js_errors and not bea.js_errors and not cid.js_errors


def test_a_clock_without_a_bank_says_nothing_of_one(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """15 s a move and no time bank: the seat to act sees its move time alone (it said
    "bank 0 s" at every move), in its language."""
    ana = new_page(locale="es-ES")
    open_lobby(ana, live_server.url, "Ana")
    ana.click(tid("lobby-choose-mariage-mariage"))
    ana.select_option(tid("seat-choice-1"), "invited")
    ana.get_by_label("Tiempo por jugada").select_option("15")
    ana.click(tid("create-table"))
    ana.wait_for_selector(tid("waiting"))
    bea = new_page(locale="pt-PT")
    sit_down(bea, ana.input_value(tid("invite-link")), "Bea")
    wait_playing(ana, bea)
    turn = ana.evaluate("() => window.tapete.view.turn")
    for page, yes, no in ((ana, "s para jugar", "reserva"), (bea, "s para jogar", "reserva")):
        page.wait_for_function("() => window.tapete.clocks && window.tapete.clocks.seats")
        assert page.evaluate("() => window.tapete.clocks.clock.bank_s") == 0
        note = tid(f"clock-{turn}")
        page.wait_for_selector(note)
        text = page.inner_text(note)
        assert yes in text and no not in text, text
        assert not page.js_errors


def _seat_clock(taken: str | None, abandoned: bool = False) -> dict[str, Any]:
    """A person's seat in the clocks as the server sends them once the game is over (no
    ``back_by``: the clocks stopped with the game)."""
    return {
        "connected": False,
        "taken": taken,
        "abandoned": abandoned,
        "running": False,
        "move": None,
        "bank": None,
        "grace": None,
        "back_by": None,
    }


def test_a_finished_game_offers_no_i_am_back(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """A seat a computer was playing (not yet abandoned) when the game ended: reopened, the
    room said "Ana (you) · a computer plays (back within 0 s)" and offered **I am back**
    behind the end window. Over, the game has no clock note of that kind and no button; an
    abandoned seat still says so."""
    table_id, token = ana_table(live_server.db_path, "mariage", seed=7, level="random")
    page = new_page(locale="en-GB")
    open_seat(page, f"{live_server.url}/?lang=en", table_id, token)
    # (the live table's own messages stop: the page is fed a table of two people by hand)
    page.evaluate(
        "() => { const ws = window.tapete.ws; ws.send = () => {}; ws.onmessage = () => {}; }"
    )
    clocks = {"clock": None, "seats": [_seat_clock("time"), _seat_clock(None, abandoned=True)]}
    seats = [
        {"seat": 0, "kind": "person", "name": "Ana", "user": False, "level": None, "connected": 1},
        {"seat": 1, "kind": "person", "name": "Bea", "user": False, "level": None, "connected": 0},
    ]
    presence = {"type": "presence", "status": "playing", "seats": seats, "spectators": 0}
    v = page.evaluate("() => window.tapete.view")
    feed = "([m]) => window.tapete.receive(m)"
    page.evaluate(feed, [{**presence, "clocks": clocks}])
    playing = {"type": "view", "version": 10**6, "view": v, "events": [], "clocks": clocks}
    page.evaluate(feed, [playing])
    # while the game goes on: the computer plays Ana's seat, and she may take it back
    clock = {**clocks, "seats": [{**clocks["seats"][0], "back_by": 250.0}, clocks["seats"][1]]}
    page.evaluate(feed, [{**playing, "version": 10**6 + 1, "clocks": clock}])
    assert "a computer plays" in page.inner_text(tid("clock-0"))
    assert page.locator(tid("i-am-back")).is_visible()
    assert page.inner_text(tid("clock-1")) == " · abandoned"
    # over: the end window, and behind it no clock note nor button for a game to come back to
    over = {**v, "over": True, "winner": 1, "turn": None, "legal": []}
    page.evaluate(feed, [{**playing, "version": 10**6 + 2, "view": over}])
    page.wait_for_selector(f"{tid('over')}[open]")
    assert page.locator(tid("i-am-back")).count() == 0
    assert page.locator(tid("clock-0")).count() == 0
    assert "computer plays" not in page.inner_text(tid("seat-0"))
    assert page.inner_text(tid("clock-1")) == " · abandoned"
    # a second of the clocks later, the same (the tick draws the strip anew on a change)
    page.wait_for_timeout(1200)
    assert page.locator(tid("i-am-back")).count() == 0
    assert page.locator(tid("clock-0")).count() == 0
    assert page.js_errors == []
