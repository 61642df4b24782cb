"""The web client takes patches (``patches=1``, docs/dev/protocol.md "Patches"): after its first
views the table sends only what changed, the page puts it over the view it holds, and holds
exactly the view the server would send whole; a patch of a view it does not hold makes it
ask for the whole view again."""

from __future__ import annotations

import json
import random
from typing import Any

from browser_helpers import start_game, take_turn, view, wait_turn, wait_version_after


def test_the_page_follows_patches_and_asks_again_for_a_view_it_does_not_hold(  # type: ignore[no-untyped-def]
    new_page, live_server
) -> None:
    page = new_page(locale="en-GB")
    received: list[dict[str, Any]] = []
    sent: list[dict[str, Any]] = []
    urls: list[str] = []

    def on_socket(ws) -> None:  # type: ignore[no-untyped-def]
        if "/ws/lobby" not in ws.url:
            urls.append(ws.url)
            ws.on("framereceived", lambda text: received.append(json.loads(text)))
            ws.on("framesent", lambda text: sent.append(json.loads(text)))

    page.on("websocket", on_socket)
    start_game(page, live_server.url, "mil-club")
    assert urls and all("patches=1" in url for url in urls)
    rng, log = random.Random(3), list[str]()
    for _ in range(12):
        if wait_turn(page) == "over":
            break
        take_turn(page, rng, log)
    assert wait_turn(page) == "turn"
    kinds = [m["type"] for m in received]
    assert kinds.count("patch") > 5 and "view" in kinds, kinds
    held = view(page)
    version = page.evaluate("() => window.tapete.version")
    assert received[-1]["type"] == "patch" and received[-1]["version"] == version

    # a patch of a view the page does not hold: it asks for the whole view, which is the one
    # it had made of the patches (nothing moves on seat 0's turn)
    syncs = sum(m["type"] == "sync" for m in sent)
    forged = {
        "type": "patch",
        "version": version + 1,
        "patch_of": version - 1,
        "view": {"hand": []},
        "removed": [],
        "sheet_from": 0,
        "events": [],
    }
    views = sum(m["type"] == "view" for m in received)
    page.evaluate("(m) => window.tapete.receive(m)", forged)
    for _ in range(100):  # (the frames reach these lists as the page's events come)
        if sum(m["type"] == "view" for m in received) > views:
            break
        page.wait_for_timeout(50)
    assert sum(m["type"] == "sync" for m in sent) == syncs + 1
    whole = received[-1]
    assert whole["type"] == "view", whole
    assert whole["version"] == version and whole["sheet_from"] == 0
    assert whole["view"] == held
    assert view(page) == held and page.evaluate("() => window.tapete.version") == version
    # and the game goes on
    before = str(version)
    take_turn(page, rng, log)
    wait_version_after(page, before)
