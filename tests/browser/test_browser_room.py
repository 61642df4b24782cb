"""Two people at one Mil table through the page (two browser contexts): Ana creates a table
in the Lobby with a seat for an invited person and a computer, Bea opens the invitation link
and sits down, they chat (Bea mutes Ana), and both play a whole deal by clicking."""

from __future__ import annotations

import random

from browser_helpers import (
    create_invited_table,
    first_deal_over,
    play_until,
    shot,
    sit_down,
    state,
    tid,
    wait_playing,
)


def test_two_people_play_a_mil_deal_through_an_invitation(new_page, live_server, artifacts) -> None:
    ana = new_page(locale="en-GB")
    seats = ["me", "invited", "computer:random"]
    link = create_invited_table(ana, live_server.url, "mil-club", seats)
    assert ana.locator(tid("copy-invite")).get_attribute("type") == "button"
    shot(ana, artifacts, "room-waiting")

    bea = new_page(locale="en-GB")
    sit_down(bea, link, "Bea", host="Ana")
    wait_playing(ana, bea)
    # both see who sits where and that both are connected
    ana.wait_for_function(
        "() => window.tapete.presence.seats"
        ".filter(s => s.kind === 'person' && s.connected).length === 2"
    )
    assert "Bea" in ana.inner_text(tid("seats")) and "Ana" in bea.inner_text(tid("seats"))
    assert ana.locator(tid("waiting")).count() == 0

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
    play_until({"ana": ana, "bea": bea}, rng, logs, lambda: first_deal_over(ana, bea), seconds=240)
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
    assert not ana.js_errors and not bea.js_errors
