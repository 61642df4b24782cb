"""The room strip and the table chat at a table of several people with a clock.

Newcomers found: the strip (the seats, their clocks, the chat) wrapped to three lines on a
phone and pushed the hand under the window's edge (it ended at y=855 in 844); the open chat
with a dozen lines did the same at 1280x800; the chat box showed its first eight lines and
never its newest; and the clock's tick, every second, drew the whole strip anew, which threw
the reader of the chat back to its top and the cursor of someone typing to the end of their
line ("hello world", cursor after "hello", "," typed: "hello world,").
"""

from __future__ import annotations

import random
from typing import Any

from browser_helpers import (
    LOCALES,
    ana_table,
    open_lobby,
    open_seat,
    shot,
    sit_down,
    start_game,
    state,
    tid,
    wait_playing,
)
from test_browser_views import Feeder, _last_play_of_a_deal, legal_types

#: the bottom of the hand and the window's height
HAND = """() => ({
  hand: document.querySelector('[data-testid="hand"]').getBoundingClientRect().bottom,
  window: innerHeight, page: document.documentElement.scrollHeight })"""
#: the newest chat line lies inside the log's box (and the window)
NEWEST_SHOWN = """() => { const log = document.querySelector('[data-testid="chat-log"]');
  const last = log && log.lastElementChild;
  if (!last) return false;
  const l = log.getBoundingClientRect(), b = last.getBoundingClientRect();
  return b.height > 0 && b.top >= l.top - 1 && b.bottom <= l.bottom + 1
    && b.bottom <= innerHeight; }"""
#: the chat log's scroll position
LOG_TOP = "() => document.querySelector('[data-testid=\"chat-log\"]').scrollTop"
#: the chat log holds at least n lines
LINES = "([n]) => document.querySelectorAll('[data-testid=\"chat-log\"] li').length >= n"
#: the chat log holds a text
HOLDS = "([t]) => document.querySelector('[data-testid=\"chat-log\"]').textContent.includes(t)"
#: a clock tick has passed: a seat's clock text has changed
TICKED = """([sel, before]) => { const el = document.querySelector(sel);
  return Boolean(el) && el.textContent !== before; }"""


def clock_table(new_page, url: str, sizes: list[tuple[int, int]]) -> list[Any]:  # type: ignore[no-untyped-def]
    """A Mil table of three people (Ana, Bea, Cid: pages of the window ``sizes``) with
    60 s a move and a 2 min bank, made in the Lobby; every page holds its hand."""
    ana = new_page(locale="en-GB", width=sizes[0][0], height=sizes[0][1])
    open_lobby(ana, url, "Ana")
    ana.click(tid("lobby-choose-mil-club"))
    for seat, what in enumerate(["me", "invited", "invited"]):
        ana.select_option(tid(f"seat-choice-{seat}"), what)
    ana.get_by_label("Time per move").select_option("60")
    ana.get_by_label("Time bank (per deal)").select_option("120")
    ana.click(tid("create-table"))
    ana.wait_for_selector(tid("waiting"))
    link = ana.input_value(tid("invite-link"))
    others = []
    for name, (width, height) in zip(("Bea", "Cid"), sizes[1:], strict=True):
        page = new_page(locale="en-GB", width=width, height=height)
        sit_down(page, link, name, host="Ana")
        others.append(page)
    pages = [ana, *others]
    wait_playing(*pages)
    for page in pages:
        page.wait_for_selector(f"{tid('seats')} .clocknote")
    return pages


def say(page, text: str) -> None:  # type: ignore[no-untyped-def]
    """Send a chat line (the chat opened if it was closed)."""
    if page.locator(f"{tid('chat')}[open]").count() == 0:
        page.click(f"{tid('chat')} summary")
    page.fill(tid("chat-text"), text)
    page.keyboard.press("Enter")


def wait_tick(page) -> None:  # type: ignore[no-untyped-def]
    """Wait for the clock to count down one second on the page."""
    note = f"{tid('seats')} .clocknote"
    before = page.inner_text(note)
    page.wait_for_function(TICKED, arg=[note, before], timeout=5_000)


def test_a_table_of_three_with_a_clock_keeps_the_hand_on_a_phone(
    new_page, live_server, artifacts
) -> None:  # type: ignore[no-untyped-def]
    ana, bea, cid = clock_table(new_page, live_server.url, [(390, 844), (1280, 800), (1280, 800)])
    shot(ana, artifacts, "room-fit-phone")
    fit = ana.evaluate(HAND)
    assert fit["hand"] <= fit["window"], fit
    # the strip is one line: the seats, their clocks and the chat's title
    strip = ana.eval_on_selector("#room", "e => e.getBoundingClientRect().height")
    assert strip < 40, strip
    # the seats scroll sideways on a phone: where the person scrolled them stays when the
    # strip is drawn anew (with every message: it went back to its start), and the acting
    # seat, its clock running, is in sight when the turn comes to it
    row = ana.locator("#room .roomrow")
    width = row.evaluate("(e) => [e.scrollWidth, e.clientWidth]")
    assert width[0] > width[1], width  # (three names and a running clock: wider than 390)
    # (the clock of the seat to act: its chip may be wider than what the row shows)
    clock = f"#room [data-testid='seat-{ana.evaluate('() => window.tapete.view.turn')}'] .clocknote"
    in_sight = f"""() => {{
      const r = document.querySelector('#room .roomrow').getBoundingClientRect();
      const c = document.querySelector("{clock}");
      if (!c) return false;
      const b = c.getBoundingClientRect();
      return b.width > 0 && b.left >= r.left - 1 && b.right <= r.right + 1; }}"""
    ana.wait_for_function(in_sight, timeout=5_000)
    row.evaluate("(e) => { e.scrollLeft = 7; }")
    say(bea, "hola")  # (a chat line: Ana's strip is drawn anew)
    ana.wait_for_function(
        "() => document.querySelector('[data-testid=\"chat\"] summary').textContent.includes('(1)')"
    )
    wait_tick(ana)
    assert row.evaluate("(e) => e.scrollLeft") == 7
    assert not ana.js_errors and not bea.js_errors and not cid.js_errors


def test_twelve_chat_lines_keep_the_hand_in_a_desktop_window(
    new_page, live_server, artifacts
) -> None:  # type: ignore[no-untyped-def]
    pages = clock_table(new_page, live_server.url, [(1280, 800)] * 3)
    for n in range(12):  # (the server lets each person say 5 lines at once)
        say(pages[n % 3], f"line {n + 1}")
    ana = pages[0]
    ana.wait_for_function(LINES, arg=[12])
    shot(ana, artifacts, "room-fit-chat-1280")
    fit = ana.evaluate(HAND)
    assert fit["hand"] <= fit["window"] and fit["page"] <= fit["window"], fit
    assert ana.evaluate(NEWEST_SHOWN)
    assert all(not p.js_errors for p in pages)


def test_the_chat_shows_its_newest_line_and_keeps_the_reader_and_the_writer(
    new_page, live_server, artifacts
) -> None:  # type: ignore[no-untyped-def]
    ana, bea, cid = clock_table(new_page, live_server.url, [(1280, 800)] * 3)
    for n in range(12):
        say((ana, bea, cid)[n % 3], f"line {n + 1}")
    for page in (ana, bea, cid):  # the sender and the receivers see the newest line
        page.wait_for_function(LINES, arg=[12])
        page.wait_for_function(NEWEST_SHOWN)

    # a reader who scrolls up to older lines stays there while the clock ticks and lines come
    log = ana.locator(tid("chat-log"))
    log.evaluate("(e) => { e.scrollTop = 0; e.__kept = true; }")
    ana.wait_for_function(f"() => ({LOG_TOP})() === 0")
    wait_tick(ana)
    wait_tick(ana)
    say(bea, "line 13")
    ana.wait_for_function(HOLDS, arg=["line 13"])
    wait_tick(ana)
    assert ana.evaluate(LOG_TOP) == 0
    assert log.evaluate("(e) => e.__kept === true")  # (the same list, never drawn anew)
    # back at the bottom, the next line shows
    log.evaluate("(e) => { e.scrollTop = e.scrollHeight; }")
    say(cid, "line 14")
    ana.wait_for_function(HOLDS, arg=["line 14"])
    ana.wait_for_function(NEWEST_SHOWN)

    # the writer: the cursor moved back into the line and a selection stay through the ticks
    # and a line that arrives
    ana.fill(tid("chat-text"), "hello world")
    ana.locator(tid("chat-text")).evaluate("(e) => e.setSelectionRange(5, 5)")
    wait_tick(ana)
    say(bea, "line 15")
    ana.wait_for_function(HOLDS, arg=["line 15"])
    wait_tick(ana)
    ana.keyboard.type(",")
    assert ana.input_value(tid("chat-text")) == "hello, world"
    ana.locator(tid("chat-text")).evaluate("(e) => e.setSelectionRange(0, 6)")
    wait_tick(ana)
    selection = ana.locator(tid("chat-text")).evaluate(
        "(e) => [e.selectionStart, e.selectionEnd, document.activeElement === e]"
    )
    assert selection == [0, 6, True], selection
    shot(ana, artifacts, "room-chat-typing")
    # Escape closes the chat, which lies over the table, and leaves the focus on its title;
    # what was typed stays for later
    ana.keyboard.press("Escape")
    assert ana.locator(f"{tid('chat')}[open]").count() == 0
    assert ana.evaluate("() => document.activeElement.tagName") == "SUMMARY"
    ana.click(f"{tid('chat')} summary")
    assert ana.input_value(tid("chat-text")) == "hello, world"
    # and so it does with the focus on the table (a player who clicked there could not)
    ana.focus("#table")
    ana.keyboard.press("Escape")
    assert ana.locator(f"{tid('chat')}[open]").count() == 0

    # reopened (a reload), the chat starts at its newest line
    bea.reload()
    bea.wait_for_selector(tid("chat"))
    if bea.locator(f"{tid('chat')}[open]").count() == 0:
        bea.click(f"{tid('chat')} summary")
    bea.wait_for_function(LINES, arg=[15])
    bea.wait_for_function(NEWEST_SHOWN)
    assert all(not p.js_errors for p in (ana, bea, cid))


def test_a_solo_auction_with_the_last_deal_fits_a_laptop(new_page, live_server, artifacts) -> None:  # type: ignore[no-untyped-def]
    """1366x768, the next auction under way while the previous deal's result is shown in
    the middle: the page was 786 px tall, the hand's bottom cut."""
    page = new_page(locale="pt-PT", width=1366, height=768)
    start_game(page, live_server.url, "mil-club", levels=("random", "random"))
    players = ["Ana", "Bartolomeu de Gusmão", "Carlota Joaquina Bourbon"]
    g, action = _last_play_of_a_deal("mil", "club", players)
    feed = Feeder(page)
    feed.show(g.view(0))
    # the last card, the deal's end and the computers' bids come in one message, as the live
    # table sends them: the status line says all of it (on two lines)
    events = [e.for_viewer(0) for e in g.apply(action)]
    rng = random.Random(0)
    while g.turn != 0 or "bid" not in legal_types(g):
        acts = [a for a in g.legal_actions() if a.to_json()["type"] != "redeal"]
        events += [e.for_viewer(0) for e in g.apply(rng.choice(acts))]
    feed.events(g.view(0), events)
    if state(page).get("paused") == "true":
        page.click(tid("next-deal"))
    assert page.locator(tid("last-deal")).count() == 1
    shot(page, artifacts, "table-auction-1366x768")
    fit = page.evaluate(HAND)
    assert fit["hand"] <= fit["window"] and fit["page"] <= fit["window"], fit
    assert page.js_errors == []


#: the room strip drawn from a presence and clocks given here: Ana here, Rui gone 4 s ago
#: with his grace running
DISCONNECTED = """async () => {
  const { S } = await import('/static/js/state.js');
  const { renderRoom } = await import('/static/js/room.js');
  S.presence = { status: 'playing', spectators: 0, seats: [
    { seat: 0, kind: 'person', name: 'Ana', connected: 1 },
    { seat: 1, kind: 'person', name: 'Rui', connected: 0 },
    { seat: 2, kind: 'computer', name: 'Carla', level: 'random', connected: 0 }] };
  S.clocks = { clock: { move_s: 30, bank_s: 0 }, seats: [
    { running: false, move: null, grace: null },
    { running: false, move: null, grace: 26 },
    null] };
  S.clocksAt = performance.now();
  renderRoom();
}"""


def test_a_disconnected_seat_is_said_disconnected_once(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """A screen reader read a dropped person's seat as "Rui — disconnected · disconnected
    (26 s)": the grace's clock note says it, the seat's hidden words no longer do too."""
    table_id, token = ana_table(live_server.db_path, seed=3)
    page = new_page(locale=LOCALES["en"])
    open_seat(page, live_server.url, table_id, token)
    page.evaluate(DISCONNECTED)
    rui = page.locator(f"#room {tid('seat-1')}").aria_snapshot()
    assert rui.count("disconnected") == 1 and "not connected" not in rui, rui
    ana = page.locator(f"#room {tid('seat-0')}").aria_snapshot()
    assert "connected" in ana, ana  # (a connected person is still said connected)
    assert page.js_errors == []
