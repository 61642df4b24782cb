"""Watching a game: the Games window lists the running tables with shareable links; the
spectator's page shows the table with no hand cards of anyone and follows the game live,
in every language."""

from __future__ import annotations

import random

from browser_helpers import (
    LOCALES,
    ana_table,
    open_seat,
    shot,
    start_game,
    state,
    take_turn,
    tid,
    view,
    wait_turn,
)

WATCHING = {"es": "Mirando la mesa", "pt": "A ver a mesa", "en": "Watching table"}
FACE_UP_AT_SEATS = ".seat .card:not(.back)"


def _no_hand_cards(page) -> None:  # type: ignore[no-untyped-def]
    v = view(page)
    assert v["seat"] is None and v["hand"] == [] and v["legal"] == []
    assert page.locator(tid("hand")).count() == 0
    assert page.locator(FACE_UP_AT_SEATS).count() == 0
    backs = page.locator(".seat .card.back").count()
    assert backs == sum(v["hand_counts"]), (backs, v["hand_counts"])
    assert not page.is_enabled(tid("hint"))


def test_watch_a_running_game(new_page, live_server, artifacts) -> None:
    player = new_page(locale=LOCALES["en"])
    start_game(player, live_server.url, "mil-club", name="Ana", levels=("random", "random"))
    table = player.evaluate("() => window.tapete.session.table")

    # the player's Games window gives the link for spectators
    player.click(tid("open-newgame"))
    link = player.get_attribute(tid("share-link"), "href")
    assert link == f"{live_server.url}/?watch={table}"
    player.click(tid("newgame-cancel"))

    # a spectator in Spanish opens the shared link
    es = new_page(locale=LOCALES["es"])
    es.goto(link)
    es.wait_for_selector("#table[data-version]")
    assert WATCHING["es"] in es.inner_text(tid("watching"))
    _no_hand_cards(es)
    # no switch for the points of a seat that is not the spectator's own
    assert es.locator(tid("toggle-points")).count() == 0
    shot(es, artifacts, "watch-mil-es")

    # live: the player's moves (and the computers') reach the spectator
    rng = random.Random(4)
    for _ in range(4):
        if wait_turn(player) != "turn":
            break
        take_turn(player, rng, [])
    target = state(player)["version"]
    es.wait_for_function(
        "([n]) => Number(document.querySelector('#table').dataset.version) >= n", arg=[int(target)]
    )
    _no_hand_cards(es)
    assert es.inner_text(tid("log"))  # what happened, as for a player

    # a spectator in Portuguese finds the table in the Games window
    pt = new_page(locale=LOCALES["pt"])
    pt.goto(live_server.url)
    pt.wait_for_selector(f"{tid('newgame')}[open]")
    pt.wait_for_selector(tid(f"watch-{table}"))
    # (the game's number tells apart two tables of the same players, which read alike)
    line = pt.locator(f"{tid('live-games')} li", has=pt.locator(tid(f"watch-{table}")))
    assert line.inner_text().endswith(f"Ana, Bruno, Carla · jogo {table}"), line.inner_text()
    shot(pt, artifacts, "watch-list-pt")
    pt.click(tid(f"watch-{table}"))
    pt.wait_for_selector("#table[data-version]")
    assert pt.url.endswith(f"/?watch={table}")
    assert WATCHING["pt"] in pt.inner_text(tid("watching"))
    _no_hand_cards(pt)
    # the spectator has no seat: the page kept nothing of it to resume
    assert pt.evaluate("() => localStorage.getItem('tapete.table')") is None

    # and one in English; an unknown table says so and offers the Games window
    en = new_page(locale=LOCALES["en"])
    en.goto(f"{live_server.url}/?watch={table}")
    en.wait_for_selector("#table[data-version]")
    assert WATCHING["en"] in en.inner_text(tid("watching"))
    _no_hand_cards(en)
    shot(en, artifacts, "watch-mil-en")
    en.goto(f"{live_server.url}/?watch=987654")
    en.wait_for_selector(f"{tid('newgame')}[open]")
    assert en.inner_text(tid("notice"))
    # a replay link that names no table at all says so too, and offers the Games window
    en.goto(f"{live_server.url}/?replay=abc")
    en.wait_for_selector(f"{tid('newgame')}[open]")
    assert en.inner_text(tid("notice"))
    assert "replay=" not in en.url
    for page in (player, es, pt, en):
        assert page.js_errors == []


def test_watch_a_mariage_game(new_page, live_server, artifacts) -> None:
    player = new_page(locale=LOCALES["pt"])
    start_game(player, live_server.url, "mariage", name="Rita", levels=("random",))
    table = player.evaluate("() => window.tapete.session.table")
    watcher = new_page(locale=LOCALES["en"])
    watcher.goto(f"{live_server.url}/?watch={table}")
    watcher.wait_for_selector("#table[data-version]")
    _no_hand_cards(watcher)
    assert watcher.locator(tid("stock")).count() == 1
    shot(watcher, artifacts, "watch-mariage-en")
    assert watcher.js_errors == []


def test_a_delayed_spectator_is_told_how_far_behind(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """At a table that shows its spectators the game some moves late, "Watching table n"
    says how many (a spectator saw the table 4 moves behind with nothing to say so), until
    the game ends (then the whole game is shown)."""
    table_id, token = ana_table(live_server.db_path, seed=6, spectator_delay=4)
    player = new_page(locale=LOCALES["en"])
    open_seat(player, live_server.url, table_id, token)
    spectator = new_page(locale=LOCALES["es"])
    spectator.goto(f"{live_server.url}/?watch={table_id}")
    spectator.wait_for_selector("#table[data-version]")
    chip = tid("watching")
    spectator.wait_for_function(
        "([s]) => document.querySelector(s).innerText.includes('jugadas por detrás')", arg=[chip]
    )
    said = spectator.inner_text(chip)
    behind = "4 jugadas por detrás de la partida (no se ve la mano de nadie)"
    assert said == f"Mirando la mesa {table_id}, {behind}"
    assert spectator.js_errors == [] and player.js_errors == []
