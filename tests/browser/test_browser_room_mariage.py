"""Two people play a Mariage hand through an invitation link (two browser contexts): Ana
creates the table in the Lobby with a seat for an invited person, Bea opens the link and sits
down, and they play the whole hand by clicking; both pages then show the hand's score."""

from __future__ import annotations

import random

from browser_helpers import (
    create_invited_table,
    first_deal_over,
    play_until,
    shot,
    sit_down,
    view,
    wait_playing,
)


def test_two_people_play_a_mariage_hand_through_an_invitation(
    new_page, live_server, artifacts
) -> None:  # type: ignore[no-untyped-def]
    ana = new_page(locale="pt-PT")
    link = create_invited_table(ana, live_server.url, "mariage-mariage", ["me", "invited"])

    bea = new_page(locale="es-ES")
    sit_down(bea, link, "Bea", host="Ana")
    wait_playing(ana, bea)
    assert view(ana)["game"] == "mariage" and view(ana)["players"] == ["Ana", "Bea"]
    assert {view(ana)["seat"], view(bea)["seat"]} == {0, 1}

    rng = random.Random(21)
    logs: dict[str, list[str]] = {"ana": [], "bea": []}
    play_until({"ana": ana, "bea": bea}, rng, logs, lambda: first_deal_over(ana, bea), seconds=240)
    assert logs["ana"] and logs["bea"], logs
    # both pages hold the same finished hand on the score sheet
    rows = [view(p)["sheet"] for p in (ana, bea)]
    assert rows[0] == rows[1] and len(rows[0]) == 1
    assert sum(rows[0][0]["match"]) == rows[0][0]["game_points"]
    shot(bea, artifacts, "room-mariage-hand-over")
    assert not ana.js_errors and not bea.js_errors
