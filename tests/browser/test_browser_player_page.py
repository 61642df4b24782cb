"""A player's page: on a phone (390x844) the statistics of a Mil player fill nine columns,
wider than the screen; they scroll sideways in their own box (they were cut off at the
window's edge, the last columns out of reach). On a desktop (1280x800) the window is wide
enough for them, and so is the Statistics window. After one rated game its words are
singular."""

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


def show_player(page, url: str, body: dict[str, object]) -> None:  # type: ignore[no-untyped-def]
    """Open the page and the player page of ``body`` (the server's answer, given here) as a
    name in the end window or the leaderboard opens it."""
    page.route("**/api/players/*", lambda route: route.fulfill(json=body))
    page.goto(url)
    page.wait_for_selector(f"{tid('newgame')}[open]")
    page.keyboard.press("Escape")
    page.evaluate("() => import('/static/js/player.js').then((m) => m.showPlayer('Rosário'))")


def test_the_statistics_scroll_sideways_on_a_phone(new_page, live_server, artifacts) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="es-ES", width=390, height=844)
    show_player(page, live_server.url, PLAYER)
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


#: a script: each sideways-scrolling box of the open windows, [its width, its table's]
WIDE_BOXES = """() => [...document.querySelectorAll('dialog[open] .widetable')]
  .map((b) => [b.clientWidth, b.scrollWidth])"""


def test_the_statistics_fit_a_desktop_window(new_page, live_server, artifacts) -> None:  # type: ignore[no-untyped-def]
    """At 1280 px Mil's columns (699 px) were cut in a 634 px box, the last one ("Pérdida
    media por mano") out of sight: the player page and the Statistics window show them whole."""
    page = new_page(locale="es-ES", width=1280, height=800)
    show_player(page, live_server.url, PLAYER)
    page.locator(f"{tid('player')}[open] {tid('stats-mil')} table").wait_for()
    shot(page, artifacts, "player-page-desktop-es")
    boxes = page.evaluate(WIDE_BOXES)
    assert boxes and all(table <= box for box, table in boxes), boxes
    page.click(tid("close-player"))
    page.route("**/api/stats?*", lambda route: route.fulfill(json=[MIL]))
    page.evaluate("() => localStorage.setItem('tapete.name', 'Rosário')")
    page.click(tid("open-stats"))
    page.locator(f"{tid('stats')}[open] {tid('stats-mil')} table").wait_for()
    shot(page, artifacts, "stats-desktop-es")
    boxes = page.evaluate(WIDE_BOXES)
    assert boxes and all(table <= box for box, table in boxes), boxes
    assert page.js_errors == []


def test_one_rated_game_is_said_in_the_singular(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    one = {"date": "2026-12-04T10:00:00", "ordinal": 3.44, "before": 0.0, "place": 1}
    rating = {
        "pool": "mariage",
        "ordinal": 3.44,
        "mu": 28.1,
        "sigma": 8.2,
        "games": 1,
        "provisional": True,
        "history": [{**one, "players": 2, "table": 5, "abandoned": False}],
    }
    page = new_page(locale="pt-PT")
    show_player(page, live_server.url, {**PLAYER, "stats": [], "ratings": [rating]})
    chart = page.locator(f"{tid('rating-mariage')} {tid('rating-chart')}")
    chart.wait_for()
    assert chart.get_attribute("aria-label") == "Classificação em 1 jogo pontuável, de 0 a 3,4"
    assert "após 1 jogo pontuável" in page.inner_text(tid("rating-mariage"))
    assert page.js_errors == []


#: a Mariage player's statistics row: no contracts, no barrel
MARIAGE = {"game": "mariage", "profile": "mariage", "games": 3, "wins": 2, "analysed_deals": 25,
           "average_loss": 0.4, "games_waiting_analysis": 0}  # fmt: skip


def test_mariage_statistics_count_hands_in_english(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """English Mariage calls its deals hands (docs/web.md), and so do its statistics: the
    player page said "Analysed deals" and "Average loss per deal" for them, as for Mil's."""
    page = new_page(locale="en-GB")
    show_player(page, live_server.url, {**PLAYER, "stats": [MIL, MARIAGE]})
    page.locator(f"{tid('player')}[open] {tid('stats-mariage')} table").wait_for()
    heads = {
        game: page.locator(f"{tid('player')}[open] {tid(f'stats-{game}')} th").all_inner_texts()
        for game in ("mil", "mariage")
    }
    assert {"Analysed hands", "Average loss per hand"} <= set(heads["mariage"]), heads
    assert not any("deal" in x for x in heads["mariage"]), heads
    assert {"Analysed deals", "Average loss per deal"} <= set(heads["mil"]), heads
    assert page.js_errors == []
