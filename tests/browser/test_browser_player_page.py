"""A player's page on a phone (390x844): the statistics of a Mil player fill nine columns,
wider than the screen; they scroll sideways in their own box (they were cut off at the
window's edge, the last columns out of reach)."""

from __future__ import annotations

from browser_helpers import shot, tid

MIL = {
    "game": "mil",
    "profile": "club",
    "games": 12,
    "wins": 5,
    "average_points": 612.5,
    "contracts_made": 30,
    "contracts_failed": 9,
    "barrel_visits": 4,
    "analysed_deals": 240,
    "average_loss": 6.2,
    "games_waiting_analysis": 1,
}
PLAYER = {
    "name": "Rosário",
    "account": True,
    "stats": [MIL],
    "ratings": [],
    "games": [],
    "abandonments": 0,
}


def test_the_statistics_scroll_sideways_on_a_phone(new_page, live_server, artifacts) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="es-ES", width=390, height=844)
    page.route("**/api/players/*", lambda route: route.fulfill(json=PLAYER))
    page.goto(live_server.url)
    page.wait_for_selector(f"{tid('newgame')}[open]")
    page.keyboard.press("Escape")
    # (the page's own way to a player: a name in the end window, the leaderboard...)
    page.evaluate("() => import('/static/js/player.js').then((m) => m.showPlayer('Rosário'))")
    table = page.locator(f"{tid('player')}[open] {tid('stats-mil')} table")
    table.wait_for()
    shot(page, artifacts, "player-page-phone-es")
    # nothing sticks out of the window; the last column can be scrolled into sight
    assert page.evaluate("() => document.getElementById('player').scrollWidth") <= 390
    last = table.locator("th").last
    last.scroll_into_view_if_needed()
    right = last.evaluate("(e) => e.getBoundingClientRect().right")
    assert right <= 390, right
    # by a box of its own, named and reached with Tab (its arrow keys scroll it)
    box = page.locator(f"{tid('stats-mil')} [role='region']")
    assert box.get_attribute("aria-label") == "Mil"
    assert box.get_attribute("tabindex") == "0"
    widths = box.evaluate("(e) => [e.scrollWidth, e.clientWidth]")
    assert widths[0] > widths[1], widths
    assert page.js_errors == []
