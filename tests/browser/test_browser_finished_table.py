"""The table of a finished game ("See the table" in the end window): its middle shows the last
deal as it ended, from the view the server sends (the client works nothing out): the last
trick with each card at the seat that played it and who took it, the deal's result (Mil: its
talon face up too). The same for the player's browser opening the finished game again and
for a spectator. Before, a finished Mil game's view had no deal at all: an empty middle."""

from __future__ import annotations

from typing import Any

import pytest
from browser_helpers import LOCALES, open_seat, shot, tid
from test_browser_replay import finished_table

from tapete.cards import CARD_NAMES
from tapete.replay import replay

#: Mil club: both computer players in the barrel; Mariage: the next hand decides the match
MIL_START = {"scores": [500, 880, 880], "in_barrel": [False, True, True], "bolts": [2, 0, 0]}
MARIAGE_START = {"game_points": [6, 6]}
#: where each seat's card lies in the trick, seen from seat 0 (a spectator sits there too)
PLACES = {"mil": ["bottom", "left", "right"], "mariage": ["bottom", "top"]}
#: the last trick's cards, each at its seat: [seat, card, where]
SLOTS = """(area) => [...area.querySelectorAll('.slot')].map((s) => [
  Number(s.dataset.seat), s.querySelector('.card').dataset.card,
  ['bottom', 'left', 'right', 'top'].find((p) => s.classList.contains(p))])"""


def last_trick(record: dict[str, Any]) -> tuple[list[list[Any]], int]:
    """The last trick of the record's last deal, from the engine's replay of the record (not
    from any view): ``[seat, card, place]`` in play order, and the seat that took it."""
    game: Any = replay(record)
    if record["game"] == "mil":
        leader, cards, winner = game.deals[-1][0].tricks[-1]
        played = [((leader + i) % 3, CARD_NAMES[c]) for i, c in enumerate(cards)]
    else:
        leader, lead, follow, winner = game.state.last_trick
        played = [(leader, CARD_NAMES[lead]), (1 - leader, CARD_NAMES[follow])]
    return [[s, c, PLACES[record["game"]][s]] for s, c in played], winner


def check_centre(page: Any, record: dict[str, Any]) -> None:
    """The middle of the table shows the last deal's last trick, who took it, and (Mil) the
    deal's result and its talon."""
    cards, winner = last_trick(record)
    centre = page.locator(tid("center"))
    trick = centre.locator(tid("last-trick"))
    assert trick.get_attribute("aria-label") == "Last trick"
    assert trick.evaluate(SLOTS) == cards
    assert f"Taken by {record['players'][winner]}" in centre.inner_text()
    if record["game"] == "mil":
        deal = record["deals"][-1]
        result = centre.locator(tid("last-deal"))
        assert result.locator(".label").inner_text() == f"Deal {len(record['deals'])}"
        declarer = record["players"][deal["result"]["declarer"]]
        assert result.locator("strong").inner_text().startswith(declarer)
        talon = centre.locator(f"{tid('talon')} .card")
        assert sorted(talon.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(
            deal["talon"]
        )
    else:  # the last hand's result: who won it, its game points and why (the record's)
        result = record["deals"][-1]["result"]
        box = centre.locator(tid("last-hand")).locator("strong").inner_text()
        winner = record["players"][result["winner"]]
        assert box.startswith(f"{winner} wins the hand: +{result['game_points']} ("), box


@pytest.mark.parametrize(
    ("game", "start", "seed"), [("mil", MIL_START, 5), ("mariage", MARIAGE_START, 4)]
)
def test_see_the_table_shows_the_last_trick_of_the_finished_game(
    new_page, live_server, artifacts, game: str, start: dict[str, Any], seed: int
) -> None:  # type: ignore[no-untyped-def]
    table_id, token = finished_table(live_server.db_path, game, seed, None, start, "rules")
    page = new_page(locale=LOCALES["en"])
    record = page.request.get(f"{live_server.url}/api/tables/{table_id}/record").json()
    assert record.get("winner") is not None, record
    if game == "mil":  # (a deal conceded with a rospis has no trick to show)
        assert record["deals"][-1]["result"]["rospis"] is False, "choose another seed"
    # the person's browser opens its finished game: the end window, then the table
    open_seat(page, live_server.url, table_id, token, ready=f"{tid('over')}[open]")
    page.focus(tid("over-close"))
    assert page.evaluate("() => document.activeElement.textContent") == "See the table"
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{tid('over')}:not([open])", state="attached")
    check_centre(page, record)
    # this page saw none of the moves: What happened says where they are, not nothing
    empty = page.locator(tid("log-empty")).inner_text()
    assert empty.startswith("This page did not see the game's moves"), empty
    assert page.locator(f"{tid('log')} li").count() == 0
    shot(page, artifacts, f"finished-table-{game}")
    # the Last trick button (reached with Tab, pressed with Enter) shows it at full strength
    page.focus(tid("toggle-last"))
    page.keyboard.press("Enter")
    page.wait_for_selector(f'{tid("toggle-last")}[aria-pressed="true"]')
    assert page.locator(f"{tid('center')} {tid('last-trick')}.open").count() == 1
    # the Games window gives no spectators' link for a game that is over (it gave one)
    page.click(tid("open-newgame"))
    page.wait_for_selector(f"{tid('live-games')} li")
    assert page.locator(tid("share-link")).count() == 0
    page.click(tid("newgame-cancel"))
    assert page.js_errors == []

    # a spectator sees the same middle (the last trick is public), here on a phone
    watcher = new_page(locale=LOCALES["en"], width=390, height=844)
    watcher.goto(f"{live_server.url}/?watch={table_id}")
    watcher.wait_for_selector(f"{tid('over')}[open]")
    watcher.click(tid("over-close"))
    check_centre(watcher, record)
    shot(watcher, artifacts, f"finished-table-{game}-phone")
    assert watcher.js_errors == []


def test_the_end_window_keeps_the_focus_when_the_ratings_come(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """The end window is drawn again when the table's ratings come: a keyboard user who has
    reached "See the table" stays there (the button drawn again took the focus to the page's
    body; the ratings are held back here until the focus is on the button)."""
    made = finished_table(live_server.db_path, "mariage", 4, None, MARIAGE_START, "rules")
    table_id, token = made
    page = new_page(locale=LOCALES["en"])
    held: list[Any] = []
    page.route("**/ratings", lambda route: held.append(route))
    open_seat(page, live_server.url, table_id, token, ready=f"{tid('over')}[open]")
    page.focus(tid("over-close"))
    for _ in range(100):  # (the request is made with the window: held once it is asked)
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1
    with page.expect_response("**/ratings"):
        held[0].continue_()
    page.wait_for_timeout(100)  # (the window is drawn again once the answer is read)
    assert page.evaluate("() => document.activeElement.dataset.testid") == "over-close"
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{tid('over')}:not([open])", state="attached")
    assert page.js_errors == []
