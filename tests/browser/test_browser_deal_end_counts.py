"""The end-of-deal pause counts the deal's last trick, and shows it however the deal ended.

The held deal is the view before the message that ended it: its seats' tricks and points must
still take in the last trick (Mil: 8 tricks, the declarer's points those of the result;
Mariage: 16 tricks, the result's card points). A Mariage hand ended by a decline after the
last trick of a closed hand shows that trick, which came one message before the decline.

The views and events come from seeded engine games, fed to the page as the server sends them
(``Feeder``): a decline is rare in a game played through the page.
"""

from __future__ import annotations

import random
import re
from typing import Any

from browser_helpers import start_game, state, tid
from test_browser_views import MIL_PLAYERS, Feeder, legal_types

from tapete.games import new_game

MARIAGE_PLAYERS = ["Ana", "Bruno"]


def _last_play(game: str, profile: str, players: list[str], declarer: int | None = None) -> Any:
    """A seeded game one card before a deal ends with a trick (in Mil with ``declarer`` as
    the declarer), and that card's action."""
    for seed in range(300):
        g = new_game(game, profile, seed=seed, players=players)
        rng = random.Random(seed)
        for _ in range(300):
            if g.over or g.view(None)["sheet"]:
                break
            skip = ("claim", "close", "rospis", "redeal")
            acts = [a for a in g.legal_actions() if a.to_json()["type"] not in skip]
            acts = acts or g.legal_actions()
            for a in acts:
                if a.to_json()["type"] != "play":
                    continue
                st = g.state  # push/pop try the card without playing it
                st.push(a)
                ends = st.done
                st.pop()
                if ends and (declarer is None or g.view(None)["declarer"] == declarer):
                    return g, a
            g.apply(rng.choice(acts))
    raise AssertionError("no deal ending with a trick in 300 seeds")


def _seat_numbers(page: Any, seats: int) -> tuple[list[int], list[int | None]]:
    """Each seat's tricks and shown points (None: not shown) as the paused table draws them."""
    tricks: list[int] = []
    points: list[int | None] = []
    for s in range(seats):
        text = page.inner_text(tid(f"seat-{s}"))
        found = re.search(r"Tricks: (\d+)", text)
        assert found, text
        tricks.append(int(found.group(1)))
        shown = re.search(r"Points: (\d+)", text)
        points.append(int(shown.group(1)) if shown else None)
    return tricks, points


def _end_deal(page: Any, g: Any, action: Any) -> tuple[Feeder, dict[str, Any], dict[str, Any]]:
    """Feed the view before ``action`` and then the message it causes; the deal's row and
    trick event."""
    feed = Feeder(page)
    feed.show(g.view(0))
    events = [e.for_viewer(0) for e in g.apply(action)]
    feed.events(g.view(0), events)
    assert state(page)["paused"] == "true"
    row = next(e for e in events if e["type"] == "deal_end")["row"]
    trick = next(e for e in events if e["type"] == "trick")
    return feed, row, trick


def test_mil_pause_counts_the_last_trick(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="en-GB")
    start_game(page, live_server.url, "mil-club", levels=("random", "random"))
    g, action = _last_play("mil", "club", MIL_PLAYERS, declarer=0)
    _, row, trick = _end_deal(page, g, action)
    assert row["declarer"] == 0 and not row["annulled"] and row["raw"], row
    tricks, points = _seat_numbers(page, 3)
    assert sum(tricks) == 8, tricks
    # the declarer's points on its seat are the result's (its cards and marriages)
    assert points[0] == row["raw"][0], (points, row)
    result = page.inner_text(tid("deal-end-result"))
    assert f"Ana: {row['raw'][0]} points" in result, result
    # the last trick is on the panel, the seats hold no cards
    shown = page.eval_on_selector_all(
        f"{tid('deal-end-trick')} .card", "els => els.map(e => e.dataset.card)"
    )
    assert shown == [c["card"] for c in trick["cards"]]
    assert all("Cards: 0" in page.inner_text(tid(f"seat-{s}")) for s in (1, 2))
    page.click(tid("next-deal"))
    assert state(page)["paused"] == "false"


def test_mariage_pause_counts_the_last_trick(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="en-GB")
    start_game(page, live_server.url, "mariage", levels=("random",))
    g, action = _last_play("mariage", "mariage", MARIAGE_PLAYERS)
    _, row, _ = _end_deal(page, g, action)
    tricks, points = _seat_numbers(page, 2)
    assert sum(tricks) == 16, tricks
    assert tricks == row["tricks"], (tricks, row)
    # the seats' points are the result's card points
    assert points == row["points"], (points, row)
    assert "–".join(map(str, row["points"])) in page.inner_text(tid("deal-end-result"))
    # in English a Mariage deal is a hand, as on the board ("Hand 1"): it said "Deal 1 is over"
    panel = page.inner_text(tid("deal-end"))
    assert "Hand 1 is over" in panel and "Deal" not in panel, panel
    assert page.inner_text(tid("next-deal")) == "Next hand"
    assert "Hand over: press Next hand to go on." in page.inner_text("body")


def _decline_position() -> tuple[Any, dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    """A seeded Mariage game whose hand was closed, at the decline the last trick's taker may
    make; the view (seat 0's) before that trick, the message (view, events) of the trick."""
    for seed in range(500):
        g = new_game("mariage", "mariage", seed=seed, players=MARIAGE_PLAYERS)
        rng = random.Random(seed)
        before: dict[str, Any] = {}
        after: dict[str, Any] = {}
        events: list[dict[str, Any]] = []
        for _ in range(100):
            if g.over or g.view(None)["sheet"]:
                break
            if "decline" in legal_types(g):
                if any(e["type"] == "trick" for e in events):
                    return g, before, after, events
                break
            acts = [a for a in g.legal_actions() if a.to_json()["type"] != "claim"]
            before = g.view(0)
            events = [e.for_viewer(0) for e in g.apply(rng.choice(acts or g.legal_actions()))]
            after = g.view(0)
    raise AssertionError("no decline in 500 seeds")


def test_mariage_decline_pause_shows_the_last_trick(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="en-GB")
    start_game(page, live_server.url, "mariage", levels=("random",))
    g, before, after, trick_events = _decline_position()
    trick = next(e for e in trick_events if e["type"] == "trick")
    feed = Feeder(page)
    feed.show(before)
    feed.events(after, trick_events)  # the last trick: no end yet, its taker may still claim
    assert state(page)["paused"] == "false"
    decline = next(a for a in g.legal_actions() if a.to_json()["type"] == "decline")
    events = [e.for_viewer(0) for e in g.apply(decline)]
    assert not any(e["type"] == "trick" for e in events)
    row = next(e for e in events if e["type"] == "deal_end")["row"]
    assert row["reason"] == "closer_failed", row
    feed.events(g.view(0), events)
    assert state(page)["paused"] == "true"
    assert "closing failed" in page.inner_text(tid("deal-end-result"))
    shown = page.eval_on_selector_all(
        f"{tid('deal-end-trick')} .card", "els => els.map(e => e.dataset.card)"
    )
    assert shown == [c["card"] for c in trick["cards"]]
    winner = MARIAGE_PLAYERS[trick["winner"]]
    assert f"Last trick, taken by {winner}" in page.inner_text(tid("deal-end"))
    # (a closed hand has fewer than 16 tricks: the stock's cards are never played)
    tricks, points = _seat_numbers(page, 2)
    assert tricks == row["tricks"] and points == row["points"], (tricks, points, row)
    # on to the next hand: its table shows that trick, faded, as the previous hand's last
    # (it showed none: the message that ended the hand held no trick)
    page.click(tid("next-deal"))
    assert state(page)["paused"] == "false"
    final = page.eval_on_selector_all(".final .card", "els => els.map(e => e.dataset.card)")
    assert final == [c["card"] for c in trick["cards"]]
    assert "Last trick of the previous hand" in page.inner_text("body")
