"""The replay with the keyboard and a screen reader, in the three languages: the list of moves
is one Tab stop (a listbox: ↑/↓, Home/End go from move to move and to that step), a step taken
with the ◀/▶ buttons is said by one status that stays in the page (a status drawn anew with
every step may be dropped by a screen reader), and closing a replay opened from another
window gives the focus back to the button that opened it, or to the table."""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import LOCALES, open_seat, tid
from playwright.sync_api import Page, expect
from test_browser_replay import finished_table
from test_browser_windows_keyboard import FOCUSED, LANGS, check_ring, say, tab_to

REPLAY = tid("replay")
MOVES = f"{REPLAY} {tid('replay-move')}"
STATUS = f"{REPLAY} {tid('replay-step')}"


@pytest.fixture(scope="module")
def finished_mil(live_server) -> int:  # type: ignore[no-untyped-def]
    table_id, _ = finished_table(live_server.db_path, "mil", seed=43, max_deals=2)
    return table_id


def open_replay(new_page, url: str, table: int, lang: str) -> Page:  # type: ignore[no-untyped-def]
    page: Page = new_page(locale=LOCALES[lang])
    page.goto(f"{url}/?replay={table}")
    page.wait_for_selector(f"{REPLAY}[open] {tid('replay-position')}")
    return page


def wait_frame(page: Page, frame: int) -> None:
    page.wait_for_selector(f'{tid("replay-position")}[data-frame="{frame}"]')


def focused_move(page: Page) -> int | None:
    """The index of the focused move in the list (None: the focus is not on a move)."""
    return page.evaluate(  # type: ignore[no-any-return]
        """() => { const a = document.activeElement;
            if (!a || a.dataset.testid !== 'replay-move') return null;
            return [...a.parentElement.children].indexOf(a); }"""
    )


def said(page: Page, lang: str, frame: int, total: int) -> str:
    move = page.inner_text(f"{tid('replay-action')} strong")
    return f"{say(lang, 'review_step_of', n=frame + 1, total=total)}: {move}"


@pytest.mark.parametrize("lang", LANGS)
def test_the_moves_are_one_tab_stop(new_page, live_server, finished_mil, lang: str) -> None:  # type: ignore[no-untyped-def]
    page = open_replay(new_page, live_server.url, finished_mil, lang)
    total = page.locator(MOVES).count()
    assert total > 3
    # a listbox named in the language, one option per move, the current one selected
    moves = page.get_by_role("listbox", name=say(lang, "replay_moves"))
    expect(moves).to_have_count(1)
    expect(moves.get_by_role("option")).to_have_count(total)
    expect(moves.get_by_role("option", selected=True)).to_have_count(1)
    # one Tab stop: the current move alone is reached by Tab
    stops = page.locator(f"{MOVES}[tabindex='0']")
    expect(stops).to_have_count(1)
    assert page.locator(f"{REPLAY} {tid('replay-moves')} button").count() == 0

    # Tab enters the list on the current move
    tab_to(page, "replay-move")
    assert focused_move(page) == 0
    for key, frame in (
        ("ArrowDown", 1),
        ("ArrowDown", 2),
        ("ArrowUp", 1),
        ("End", total - 1),
        ("Home", 0),
        ("ArrowDown", 1),
    ):
        page.keyboard.press(key)
        wait_frame(page, frame)
        assert focused_move(page) == frame, key
        check_ring(page)
        option = page.locator(":focus")
        expect(option).to_have_attribute("aria-selected", "true")
        expect(option).to_have_attribute("tabindex", "0")
        expect(stops).to_have_count(1)
    # ←/→ (the window's keys) step there too: the focus follows the current move
    page.keyboard.press("ArrowRight")
    wait_frame(page, 2)
    assert focused_move(page) == 2
    # Tab leaves the list at once, and Close is a few presses away
    page.keyboard.press("Tab")
    assert focused_move(page) is None
    tab_to(page, "replay-close", limit=3)
    # Shift+Tab comes back into the list on the current move
    tab_to(page, "replay-move", key="Shift+Tab", limit=4)
    assert focused_move(page) == 2
    # a click on a move still goes to its step
    page.click(f"{MOVES} >> nth=4")
    wait_frame(page, 4)
    expect(page.locator(f"{MOVES}[aria-selected='true']")).to_have_count(1)
    assert page.locator(MOVES).nth(4).get_attribute("aria-selected") == "true"
    assert focused_move(page) == 4
    # the next deal (Page Down) from the list: the focus stays in it, on the deal's first move,
    # which says itself; the status changes quietly
    page.keyboard.press("PageDown")
    page.wait_for_selector(f'{tid("replay-position")}[data-deal="1"][data-frame="0"]')
    page.wait_for_function("() => document.activeElement?.dataset.testid === 'replay-move'")
    assert focused_move(page) == 0
    status = page.locator(STATUS)
    expect(status).to_have_attribute("aria-live", "off")
    deal = say(lang, "review_deal_of", n=2, total=2)
    expect(status).to_contain_text(f"{deal} · {say(lang, 'review_step_of', n=1, total='')}")
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{REPLAY}:not([open])", state="attached")
    assert page.js_errors == []


KEEP = """(el) => { el.kept = true; window.gone = false; window.said = [];
    new MutationObserver((records) => { for (const r of records) for (const n of r.removedNodes)
        if (n === el || n.contains(el)) window.gone = true; })
      .observe(document.body, {childList: true, subtree: true});
    new MutationObserver(() => window.said.push(el.textContent))
      .observe(el, {childList: true, characterData: true, subtree: true}); }"""


@pytest.mark.parametrize("lang", LANGS)
def test_a_step_with_the_buttons_is_said_by_one_status(  # type: ignore[no-untyped-def]
    new_page, live_server, finished_mil, lang: str
) -> None:
    page = open_replay(new_page, live_server.url, finished_mil, lang)
    total = page.locator(MOVES).count()
    # one status in the window, polite; its words are its text (no name that would change
    # too and be said a second time)
    status = page.locator(REPLAY).get_by_role("status")
    expect(status).to_have_count(1)
    assert status.evaluate("(el) => el.dataset.testid") == "replay-step"
    expect(status).to_have_attribute("aria-live", "polite")
    expect(status).to_have_attribute("aria-atomic", "true")
    assert status.get_attribute("aria-label") is None
    status.evaluate(KEEP)

    tab_to(page, "replay-next")
    for frame in (1, 2):
        page.keyboard.press("Enter")
        wait_frame(page, frame)
        # the focus stays on ▶, the same status says the step and its move
        assert page.evaluate(FOCUSED) == "replay-next"
        expect(status).to_have_text(said(page, lang, frame, total))
        expect(status).to_have_attribute("aria-live", "polite")
    tab_to(page, "replay-prev", key="Shift+Tab")
    page.keyboard.press("Space")
    wait_frame(page, 1)
    expect(status).to_have_text(said(page, lang, 1, total))
    # « to the start: the button goes disabled, the focus waits on the step count
    tab_to(page, "replay-first", key="Shift+Tab")
    page.keyboard.press("Enter")
    wait_frame(page, 0)
    assert page.evaluate(FOCUSED) == "replay-step"
    expect(status).to_have_text(said(page, lang, 0, total))
    # the keys on the step count: the same status, each step said once
    page.evaluate("() => { window.said = []; }")
    page.keyboard.press("ArrowRight")
    wait_frame(page, 1)
    expect(status).to_have_text(said(page, lang, 1, total))
    assert page.evaluate("() => window.said") == [said(page, lang, 1, total)]
    # in the list of moves the focused move says itself: the status stays quiet
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    tab_to(page, "replay-move")
    page.keyboard.press("ArrowDown")
    wait_frame(page, 2)
    expect(status).to_have_attribute("aria-live", "off")
    expect(status).to_have_text(said(page, lang, 2, total))
    # the status was never taken out of the page, nor drawn anew
    assert status.evaluate("(el) => el.kept === true && el.isConnected")
    assert page.evaluate("() => window.gone") is False
    assert page.js_errors == []


def own_finished_game(page: Page, url: str, table: int, token: str) -> None:
    open_seat(page, url, table, token, ready="#table[data-over='true']", state="attached")


def escape_replay(page: Page) -> None:
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{REPLAY}:not([open])", state="attached")


def test_closing_a_replay_gives_the_focus_back(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    table_id, token = finished_table(live_server.db_path, "mil", seed=45, max_deals=1)
    other_id, other_token = finished_table(live_server.db_path, "mil", seed=46, max_deals=1)

    # from the Games window of a browser with no game on the table: the window comes back,
    # with the focus on the Replay button (listed once the server has said the game is over)
    page: Page = new_page(locale=LOCALES["es"])
    page.goto(live_server.url)
    entry: dict[str, Any] = {"table": table_id, "token": token, "seat": 0, "game": "mil"}
    page.evaluate("(e) => localStorage.setItem('tapete.tables', JSON.stringify([e]))", entry)
    page.reload()
    page.wait_for_selector(f"{tid('newgame')}[open] {tid(f'replay-{table_id}')}")
    tab_to(page, f"replay-{table_id}")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{REPLAY}[open] {tid('replay-position')}")
    escape_replay(page)
    page.wait_for_selector(f"{tid('newgame')}[open]")
    page.wait_for_function(
        "(t) => document.activeElement?.dataset.testid === t", arg=f"replay-{table_id}"
    )
    check_ring(page)
    assert page.js_errors == []

    # from the end window of this browser's game: the end window comes back (the replay only
    # took its place), the focus on its Replay button; the same after the game's review
    page = new_page(locale=LOCALES["pt"])
    own_finished_game(page, live_server.url, table_id, token)
    page.wait_for_selector(f"{tid('over')}[open]")
    for opener, window in (("over-replay", REPLAY), ("over-review", tid("review"))):
        tab_to(page, opener)
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{window}[open]")
        assert not page.is_visible(f"{tid('over')}[open]")
        if window == REPLAY:
            page.wait_for_selector(f"{REPLAY} {tid('replay-position')}")
            escape_replay(page)
        else:
            page.keyboard.press("Escape")
            page.wait_for_selector(f"{window}:not([open])", state="attached")
        page.wait_for_selector(f"{tid('over')}[open]")
        page.wait_for_function("(t) => document.activeElement?.dataset.testid === t", arg=opener)
        check_ring(page)
    # closed by its own button, it stays closed: the table has the focus, and Tab goes on
    # from the table (the page's top bar), not from an empty page
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{tid('over')}:not([open])", state="attached")
    page.wait_for_function("() => document.activeElement?.id === 'table'")
    page.keyboard.press("Tab")
    assert page.evaluate(FOCUSED) not in ("BODY", None)

    # from the Games window of a browser with its game on the table: the Games window is not
    # shown again, the table has the focus
    page = new_page(locale=LOCALES["en"])
    page.goto(live_server.url)
    other: dict[str, Any] = {"table": other_id, "token": other_token, "seat": 0, "game": "mil"}
    page.evaluate("(e) => localStorage.setItem('tapete.tables', JSON.stringify([e]))", other)
    own_finished_game(page, live_server.url, table_id, token)
    page.wait_for_selector(f"{tid('over')}[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{tid('over')}:not([open])", state="attached")
    tab_to(page, "open-newgame", key="Shift+Tab")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{tid('newgame')}[open] {tid(f'replay-{other_id}')}")
    tab_to(page, f"replay-{other_id}")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{REPLAY}[open] {tid('replay-position')}")
    escape_replay(page)
    page.wait_for_function("() => document.activeElement?.id === 'table'")
    assert not page.is_visible(f"{tid('newgame')}[open]")
    assert page.js_errors == []
