"""A whole Mil game of two people through the page (two browser contexts, a server whose
tables have a 4 s grace): Ana creates a Mil-to-500 table in the Lobby with a seat for an
invited person and a computer, Bea opens the invitation link and sits down, they chat (Bea
mutes Ana) and play a whole deal by clicking; Bea's connection drops and the page catches up
(``sync``); in the next deal Bea closes her tab mid-trick, a computer takes her seat (Ana's
page says so) and plays for her, Bea opens the invitation link again and takes the seat back;
then both pages' drivers (autoplay) play the game to its end. Both pages show the game-over
window with the same final scores (no ratings: the table is not rated), and each person's
page, opened from that window, lists the game."""

from __future__ import annotations

import random
import time

import autoplay
from browser_helpers import (
    HOLDS_HAND,
    PLAYER_GAMES,
    create_invited_table,
    deals_over,
    first_deal_over,
    play_until,
    shot,
    sit_down,
    state,
    table_states,
    tid,
    view,
    wait_playing,
    wait_until,
)
from browser_server import LiveServer

from tapete.server.clock import ClockSettings

MID_TRICK = """() => { const v = window.tapete.view;
  return Boolean(v) && v.phase === 'play' && v.trick.length > 0 && v.trick.length < 3; }"""


def test_two_people_play_a_whole_mil_game_through_an_invitation(
    new_page, tmp_path, artifacts
) -> None:  # type: ignore[no-untyped-def]
    began = time.monotonic()
    server = LiveServer(tmp_path / "room.sqlite", clock=ClockSettings(grace_s=4)).start()
    try:
        ana = new_page(locale="en-GB")
        seats = ["me", "invited", "computer:rules"]
        link = create_invited_table(ana, server.url, "mil-casa-500", seats)
        assert ana.locator(tid("copy-invite")).get_attribute("type") == "button"
        # the Lobby's window went with the focus: the table takes it, not the page's body
        # (a keyboard user started again from the top bar)
        focused = "() => document.activeElement && document.activeElement.id"
        ana.wait_for_function(f"() => ({focused})() === 'table'")
        shot(ana, artifacts, "room-waiting")
        # until everyone sits down Ana's own cards lie face down: the page got no card
        ana.wait_for_selector("section[data-testid='seat-0'] .card.back")
        assert ana.locator("section[data-testid='seat-0'] .card.back").count() == 7
        assert ana.locator(tid("hand")).count() == 0
        assert ana.evaluate("() => window.tapete.view.hand") == []
        # and no seat is marked to play: nobody can
        assert ana.locator(".badge.turn").count() == 0
        assert ana.locator("section.seat.active").count() == 0
        # the free seat is named for what the Lobby made it, short enough for the sheet's
        # columns ("For an invited person" was cut to "For an..."), on the board and the sheet
        ana.wait_for_selector("section[data-testid='seat-1'] .name")
        assert ana.inner_text("section[data-testid='seat-1'] .name") == "(invited)"
        headers = ana.locator(f"{tid('sheet')} th").all_inner_texts()
        assert "(invited)" in headers and "" not in headers, headers

        bea = new_page(locale="en-GB")
        sit_down(bea, link, "Bea", host="Ana")
        wait_playing(ana, bea)
        # not her turn yet: the table has the focus the "Sit down" button left
        if not bea.evaluate("() => document.querySelector('#table').dataset.myTurn === 'true'"):
            bea.wait_for_function(f"() => ({focused})() === 'table'")
        pages = {"ana": ana, "bea": bea}
        # both see who sits where and that both are connected, and the table's clock
        ana.wait_for_function(
            "() => window.tapete.presence.seats"
            ".filter(s => s.kind === 'person' && s.connected).length === 2"
        )
        assert "Bea" in ana.inner_text(tid("seats")) and "Ana" in bea.inner_text(tid("seats"))
        assert ana.locator(tid("waiting")).count() == 0
        # the start redraws the board and the status line, which said "Waiting for everyone"
        for page in (ana, bea):
            page.wait_for_selector("section.seat.active .badge.turn")
            assert "Waiting for everyone" not in page.inner_text("#status")
        assert ana.evaluate("() => window.tapete.clocks.clock.grace_s") == 4

        # the chat: a line rendered as text, and a mute per name
        ana.click(f"{tid('chat')} summary")
        ana.fill(tid("chat-text"), "<b>hola</b> Bea")
        ana.click(tid("chat-send"))
        bea.click(f"{tid('chat')} summary")
        bea.wait_for_function(
            "() => document.querySelector('[data-testid=\"chat-log\"]')"
            ".textContent.includes('<b>hola</b>')"
        )
        assert bea.locator(f"{tid('chat-log')} b").count() == 0  # never parsed as HTML
        bea.click(tid("mute-Ana"))
        assert "hola" not in bea.inner_text(tid("chat-log"))
        assert bea.evaluate("() => JSON.parse(localStorage.getItem('tapete.muted'))") == ["Ana"]
        shot(bea, artifacts, "room-bea")

        # both play the first deal to its end by clicking (whoever's turn it is)
        rng = random.Random(13)
        logs: dict[str, list[str]] = {"ana": [], "bea": []}
        play_until(pages, rng, logs, lambda: first_deal_over(ana, bea), seconds=60)
        assert logs["ana"] and logs["bea"], logs
        assert all("play" in log for log in logs.values()), logs
        shot(ana, artifacts, "room-deal-over")

        # a lost connection: the page reconnects and asks for what it missed since its version
        bea.evaluate(
            """() => { window.__sent = []; const send = WebSocket.prototype.send;
                WebSocket.prototype.send = function (m) {
                  window.__sent.push(m); return send.call(this, m); };
                window.tapete.ws.close(); }"""
        )
        held = int(state(bea)["version"])
        bea.wait_for_function("() => window.__sent.some(m => JSON.parse(m).type === 'sync')")
        syncs = bea.evaluate("() => window.__sent.map(m => JSON.parse(m))")
        assert {"type": "sync", "since": held} in syncs, syncs
        bea.wait_for_function("() => document.querySelector('#table').dataset.offline === 'false'")
        assert int(state(bea)["version"]) >= held

        # the next deals, by clicking, until a trick is under way on Bea's table: a deal can
        # end with no trick played (a redeal asked for at the bidding; the deals are a fresh
        # draw each run), and then the one after it is played
        deal = 1
        while True:
            play_until(
                pages,
                rng,
                logs,
                lambda d=deal: bool(bea.evaluate(MID_TRICK)) or deals_over(d + 1, ana, bea),
                seconds=60,
                deal=deal,
            )
            if not deals_over(deal + 1, ana, bea):
                break  # (a trick under way; a computer may have ended it since: it goes on)
            assert deal < 4 and state(ana)["over"] != "true", table_states(pages)
            deal += 1
        context = bea.context
        bea_errors = list(bea.js_errors)
        bea.close()

        # past the grace a computer plays Bea's seat; Ana's page says so
        wait_until(
            {"ana": ana},
            "a computer taking Bea's seat",
            "() => window.tapete.clocks.seats[1] && "
            "window.tapete.clocks.seats[1].taken === 'disconnected'",
        )
        news = ana.inner_text(tid("seat-news"))
        assert "Bea" in news and "computer" in news, news
        assert ana.get_attribute(tid("seat-news"), "aria-live") == "polite"
        assert "computer plays" in ana.inner_text(tid("clock-1"))
        shot(ana, artifacts, "takeover-ana")

        # the game goes on through Bea's seat without her: Ana moves three more times (in
        # Mil's turn order Bea's seat acts between two of Ana's moves), or the deal ends
        moves = len(logs["ana"])
        play_until(
            {"ana": ana},
            rng,
            logs,
            lambda: len(logs["ana"]) >= moves + 3 or deals_over(deal + 1, ana),
            seconds=60,
            deal=deal,
        )

        # Bea opens the invitation link again: the seat is hers again, and Ana's page says so
        bea = context.new_page()
        bea.on("pageerror", lambda e: bea_errors.append(str(e)))
        bea.goto(link)
        pages["bea"] = bea
        wait_until({"bea": bea}, "Bea's hand, the link opened again", HOLDS_HAND, 30, pages)
        assert bea.locator(f"{tid('join')}[open]").count() == 0
        assert view(bea)["seat"] == 1
        wait_until(
            {"ana": ana},
            "Bea's seat given back",
            "() => window.tapete.clocks.seats[1] && window.tapete.clocks.seats[1].taken === null"
            " && window.tapete.clocks.seats[1].connected"
            " && document.querySelector('[data-testid=\"seat-news\"]')"
            ".textContent.includes('back')",
        )
        assert "Bea" in ana.inner_text(tid("seat-news"))
        shot(bea, artifacts, "takeover-bea-back")

        # the rest of the game: both pages' drivers click for their person
        played = time.monotonic()
        autoplay.play_to_end(pages, seconds=90)
        autoplay_s = time.monotonic() - played
        # Bea's own page moved for her again (the driver notes each phase it acted in)
        assert any("play" in c for c in autoplay.checks(bea)), autoplay.checks(bea)
        over = "() => Boolean(document.querySelector('#over[open]'))"
        wait_until(pages, "the game-over window", over)
        finals = [p.locator(f"{tid('over')} ul.final li").all_inner_texts() for p in (ana, bea)]
        assert finals[0] == finals[1] and len(finals[0]) == 3, finals
        scores = [view(p)["scores"] for p in (ana, bea)]
        assert scores[0] == scores[1] and max(scores[0]) >= 500, scores
        assert [view(p)["winner"] for p in (ana, bea)] == [view(ana)["winner"]] * 2
        for page in (ana, bea):
            assert page.locator(tid("over-ratings")).count() == 0  # an unrated table
            assert "null" not in page.inner_text(tid("over"))  # (once written for a part left out)
        shot(ana, artifacts, "room-game-over-ana")

        # each person's page, from the name in that window, lists the game
        table = ana.evaluate("() => window.tapete.session.table")
        assert bea.evaluate("() => window.tapete.session.table") == table
        assert ana.locator(tid("over-player-2")).count() == 0  # the computer's name is text
        for page, seat, name in ((ana, 0, "Ana"), (bea, 1, "Bea")):
            page.click(tid(f"over-player-{seat}"))
            wait_until({name: page}, f"{name}'s page", PLAYER_GAMES, 30, pages)
            assert page.inner_text("#player-title") == name
            assert page.locator(tid(f"player-replay-{table}")).count() == 1
            # (each link names its game for a screen reader, not "See again" alone)
            label = page.get_attribute(tid(f"player-replay-{table}"), "aria-label") or ""
            assert label.startswith("See again: ") and "Ana, Bea" in label, label
        shot(bea, artifacts, "room-player-page-bea")
        assert not ana.js_errors and not bea_errors
        print(
            f"\nMil to 500 through the room: {len(view(ana)['sheet'])} deals, "
            f"autoplay {autoplay_s:.1f} s, whole test {time.monotonic() - began:.1f} s"
        )
    finally:
        server.stop()


def test_the_invitation_says_which_seats_computers_play(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """The invitation page names a computer seat with its level, as the table's strip does:
    "Lugar 3: Bruno · Jugador de club", not a bare "Bruno" that a newcomer takes for a
    person who will sit down too."""
    ana = new_page(locale="es-ES")
    seats = ["me", "invited", "computer:rules"]
    link = create_invited_table(ana, live_server.url, "mil-casa-500", seats)
    strip = ana.inner_text(tid("seat-2"))
    assert "Jugador de club" in strip, strip
    bea = new_page(locale="pt-PT")
    bea.goto(link)
    bea.wait_for_selector(f"{tid('join')}[open]")
    lines = bea.locator(f"{tid('join-seats')} li").all_inner_texts()
    assert lines[0] == "Lugar 1: Ana", lines
    assert lines[1] == "Lugar 2: Para uma pessoa convidada", lines
    assert lines[2].startswith("Lugar 3: ") and lines[2].endswith(" · Jogador de clube"), lines
    assert ana.js_errors == [] and bea.js_errors == []


def test_a_person_who_sits_down_is_named_on_the_waiting_board(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """While a table waits for its last seat, a person who sits down is named at once on the
    board and the score sheet of those already seated, as in the strip above them (the board
    went on saying "(invited)" until the game began)."""
    ana = new_page(locale="en-GB")
    link = create_invited_table(ana, live_server.url, "mil-club", ["me", "invited", "open"])
    ana.wait_for_selector("section[data-testid='seat-1'] .name")
    assert ana.inner_text("section[data-testid='seat-1'] .name") == "(invited)"
    bea = new_page(locale="en-GB")
    sit_down(bea, link, "Bea", host="Ana")
    ana.wait_for_function(
        "() => (window.tapete.presence?.seats || []).some((s) => s.name === 'Bea')"
    )
    ana.wait_for_function(
        """() => document.querySelector("section[data-testid='seat-1'] .name")
            .textContent === 'Bea'"""
    )
    headers = ana.locator(f"{tid('sheet')} th").all_inner_texts()
    assert "Bea" in headers and "(free seat)" in headers, headers
    assert ana.locator(tid("waiting")).count() == 1  # the third seat is still free
    assert ana.js_errors == [] and bea.js_errors == []
