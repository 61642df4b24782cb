"""A table with a clock through the Lobby's form: Ana creates a public Mariage table with 15 s a
move and a 1 min bank (chosen by their labels), the invitation page and the Lobby's list show
the clock to others (in their language), Bea sits down from the list, and the seat to act
sees its move time count down."""

from __future__ import annotations

from browser_helpers import open_lobby, shot, sit_down, tid, wait_playing


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
