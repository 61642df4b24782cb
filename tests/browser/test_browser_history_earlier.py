"""What happened lists the moves made before the page connected: a tab that opens a game
under way with no history of it (the computers bid or lead while the page opens; a game
followed on a second device or by an invited person whose table just started) asks the
server for the events since version 0 and puts them in the list, as a page that saw them
live has them. Before, the list stayed empty while the table showed a bid or a card that no
line explained."""

from __future__ import annotations

import random

from browser_helpers import (
    LOCALES,
    ana_table,
    open_seat,
    shot,
    state,
    take_turn,
    tid,
    wait_turn,
)

LOG = tid("log")


def _mil_table(live_server, seed: int = 3) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    """A Mil club table of Ana and two random computers, dealt from ``seed`` (3: the
    computers bid before Ana's first turn); its id and Ana's token."""
    return ana_table(live_server.db_path, seed=seed)


def _lines(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.locator(f"{LOG} li").all_inner_texts()


def _numbered(page) -> list[list[str | None]]:  # type: ignore[no-untyped-def]
    """The list's lines as [number, text] (None: a line without a number)."""
    return page.locator(f"{LOG} li").evaluate_all(  # type: ignore[no-any-return]
        "els => els.map((e) => [e.getAttribute('value'), e.innerText])"
    )


def test_a_new_tab_lists_the_moves_made_before_it_opened(new_page, live_server, artifacts) -> None:  # type: ignore[no-untyped-def]
    table_id, token = _mil_table(live_server)
    first = new_page(locale=LOCALES["en"])
    open_seat(first, live_server.url, table_id, token)
    rng, log = random.Random(3), []
    # play until the computers have moved since Ana's last move (or before her first)
    assert wait_turn(first) == "turn"
    while int(state(first)["version"]) < 3:
        take_turn(first, rng, log, bid_more=False)
        assert wait_turn(first) == "turn", log
    version = state(first)["version"]
    seen = _lines(first)
    assert any("Bruno" in line or "Carla" in line for line in seen), seen

    # a second device: another browser context, nothing of this table in its storage
    second = new_page(locale=LOCALES["en"])
    open_seat(second, live_server.url, table_id, token)
    second.wait_for_function(
        "([n]) => document.querySelectorAll('[data-testid=\"log\"] li').length >= n",
        arg=[len(seen)],
    )
    assert state(second)["version"] == version
    assert _lines(second) == seen
    shot(second, artifacts, "history-earlier-second-device")
    assert not second.js_errors and not first.js_errors


def test_a_game_over_opened_again_still_says_its_moves_were_seen_elsewhere(
    new_page, live_server
) -> None:  # type: ignore[no-untyped-def]
    """(No earlier moves are asked for a game that is over: its page says this page saw
    none of them, as before.)"""
    table_id, token = ana_table(live_server.db_path, "mariage", seed=4)
    page = new_page(locale=LOCALES["en"])
    open_seat(page, live_server.url, table_id, token)
    rng, log = random.Random(4), []
    while wait_turn(page) != "over":
        take_turn(page, rng, log)
    other = new_page(locale=LOCALES["en"])
    open_seat(other, live_server.url, table_id, token)
    other.wait_for_selector(tid("log-empty"))
    assert _lines(other) == []


def test_the_first_deal_has_its_line_1_as_the_next_deals_do(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """The first deal's list began at "2. Bruno bids 100": its line 1, "Deal 1", which the
    next deals get from the event that starts them, had no event to come from."""
    table_id, token = _mil_table(live_server)
    page = new_page(locale=LOCALES["en"])
    open_seat(page, live_server.url, table_id, token)
    assert wait_turn(page) == "turn"
    numbered = _numbered(page)
    assert numbered[0] == ["1", "Deal 1"], numbered
    assert [int(n) for n, _ in numbered] == list(range(1, len(numbered) + 1)), numbered


def test_the_first_deal_has_its_line_1_after_a_kept_hand(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """Seed 18 deals Ana a hand she may have redealt: the game's first move is her "keep",
    which the deal's record leaves out (its event's index is null, not 0). The list began at
    "Ana keeps the deal" without its "1. Deal 1"."""
    table_id, token = _mil_table(live_server, seed=18)
    page = new_page(locale=LOCALES["en"])
    open_seat(page, live_server.url, table_id, token)
    assert wait_turn(page) == "turn"
    assert page.locator(tid("keep")).count() == 1  # (the offer comes first)
    assert _lines(page) == []
    page.click(tid("keep"))
    page.wait_for_function(
        "sel => document.querySelectorAll(sel).length >= 2", arg=f"{LOG} li", timeout=10_000
    )
    numbered = _numbered(page)
    assert numbered[0] == ["1", "Deal 1"], numbered
    # (a kept hand is not in the record: its line has no number, the bids go on from 2)
    assert numbered[1:3] == [[None, "Ana keeps the deal"], ["2", numbered[2][1]]], numbered
