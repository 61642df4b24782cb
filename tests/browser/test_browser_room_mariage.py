"""Two people play a Mariage hand through an invitation link (two browser contexts): Ana
creates the table in the Lobby with a seat for an invited person, Bea opens the link and sits
down, and they play the whole hand by clicking; both pages then show the hand's score."""

from __future__ import annotations

import random
import time

from browser_helpers import shot, state, take_turn, tid, view


def test_two_people_play_a_mariage_hand_through_an_invitation(
    new_page, live_server, artifacts
) -> None:  # type: ignore[no-untyped-def]
    ana = new_page(locale="pt-PT")
    ana.goto(live_server.url)
    ana.wait_for_selector(f"{tid('newgame')}[open]")
    ana.click(tid("newgame-lobby"))
    ana.wait_for_selector(f"{tid('lobby')}[open]")
    ana.fill(tid("lobby-name"), "Ana")
    ana.click(tid("lobby-choose-mariage-mariage"))
    ana.select_option(tid("seat-choice-0"), "me")
    ana.select_option(tid("seat-choice-1"), "invited")
    ana.click(tid("create-table"))
    ana.wait_for_selector(tid("waiting"))
    link = ana.input_value(tid("invite-link"))
    assert "/?join=" in link

    bea = new_page(locale="es-ES")
    bea.goto(link)
    bea.wait_for_selector(f"{tid('join')}[open]")
    assert "Ana" in bea.inner_text(tid("join-seats"))
    bea.fill(tid("join-name"), "Bea")
    bea.click(tid("sit-down"))
    for page in (ana, bea):
        page.wait_for_selector(f"{tid('hand')} .card")
        page.wait_for_function(
            "() => window.tapete.presence && window.tapete.presence.status === 'playing'"
        )
    assert view(ana)["game"] == "mariage" and view(ana)["players"] == ["Ana", "Bea"]
    assert {view(ana)["seat"], view(bea)["seat"]} == {0, 1}

    rng = random.Random(21)
    logs: dict[str, list[str]] = {"ana": [], "bea": []}
    deadline = time.monotonic() + 240
    while True:
        states = {"ana": state(ana), "bea": state(bea)}
        if all(int(s["deals"]) >= 1 or s["paused"] == "true" for s in states.values()):
            break
        assert time.monotonic() < deadline, logs
        moved = False
        for who, page in (("ana", ana), ("bea", bea)):
            s = states[who]
            if s["paused"] == "true" or int(s["deals"]) >= 1:
                continue
            if s["myTurn"] == "true" and s["pending"] == "false":
                take_turn(page, rng, logs[who])
                moved = True
        if not moved:
            time.sleep(0.1)
    assert logs["ana"] and logs["bea"], logs
    # both pages hold the same finished hand on the score sheet
    rows = [view(p)["sheet"] for p in (ana, bea)]
    assert rows[0] == rows[1] and len(rows[0]) == 1
    assert sum(rows[0][0]["match"]) == rows[0][0]["game_points"]
    shot(bea, artifacts, "room-mariage-hand-over")
    assert not ana.js_errors and not bea.js_errors
