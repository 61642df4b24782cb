"""A name of 24 wide letters with no space (what the name field takes: "WWWW…") on a phone
(390×844): the seat that shows it, and the end window's list of players, break it inside
their boxes. The seat's name pushed the seat, and with it the whole page, past the window's
width (428 px: the table scrolled sideways); the end window cut it at its edge; the replay
window scrolled sideways, and so did the Games window that lists the table to watch."""

from __future__ import annotations

import random

from browser_helpers import admin_table, open_seat, play_until_deal_ends, state, tid

LONG = "W" * 24
#: how far the page, and each element of ``sel``, reach past the window's right edge
PAST_RIGHT = """(sel) => Math.max(document.documentElement.scrollWidth - innerWidth,
  ...[...document.querySelectorAll(sel)]
    .map((e) => e.getBoundingClientRect().right - innerWidth))"""


def test_a_long_name_stays_inside_a_phone_window(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    table_id, token = admin_table(
        live_server.db_path,
        game="mil",
        profile="club",
        name=LONG,
        language="pt",
        levels=["rules", "rules"],
        seed=11,
        max_deals=1,
    )
    page = new_page(locale="pt-PT", width=390, height=844)
    open_seat(page, f"{live_server.url}/?lang=pt", table_id, token)
    assert page.evaluate(PAST_RIGHT, "#table .name") <= 0
    # another browser's Games window lists the table under "Watch a game", with its players
    other = new_page(locale="es-ES", width=390, height=844)
    other.goto(live_server.url)
    other.wait_for_selector(f"{tid('newgame')}[open] {tid('watch-' + str(table_id))}")
    wide = other.eval_on_selector("#newgame", "(d) => [d.scrollWidth, d.clientWidth]")
    assert wide[0] <= wide[1], wide
    play_until_deal_ends(page, random.Random(11), [], bid_more=False)
    assert state(page)["over"] == "true"
    page.wait_for_selector(f"{tid('over')}[open]")
    assert page.evaluate(PAST_RIGHT, "#over .final li, #over .final button") <= 0
    # the game's replay names the players in its title, its hands and its moves
    page.click(tid("over-replay"))
    page.wait_for_selector(f"{tid('replay')}[open] {tid('replay-move')}")
    wide = page.eval_on_selector("#replay", "(d) => [d.scrollWidth, d.clientWidth]")
    assert wide[0] <= wide[1], wide
    assert page.js_errors == []
