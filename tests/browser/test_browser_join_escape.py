"""The invitation window closed with Escape does what its Cancel does: the address leaves
``?join=`` and the Games window opens. Escape left the page with no window open under the
invitation's address (a reload opened the invitation again), where Cancel went back to the
Games window."""

from __future__ import annotations

import pytest
from browser_helpers import create_invited_table, tid


@pytest.mark.parametrize("how", ["escape", "cancel"])
def test_escape_on_the_invitation_is_its_cancel(new_page, live_server, how: str) -> None:  # type: ignore[no-untyped-def]
    ana = new_page(locale="es-ES")
    link = create_invited_table(
        ana, f"{live_server.url}/?lang=es", "mariage-mariage", ["me", "invited"]
    )
    bea = new_page(locale="es-ES")
    bea.goto(link)
    bea.wait_for_selector(f"{tid('join')}[open]")
    if how == "escape":
        bea.keyboard.press("Escape")
    else:
        bea.click(tid("join-cancel"))
    bea.wait_for_selector(f"{tid('newgame')}[open]")
    assert "join=" not in bea.url
    assert bea.locator(f"{tid('join')}[open]").count() == 0
    bea.reload()
    bea.wait_for_selector(f"{tid('newgame')}[open]")
    assert bea.locator(f"{tid('join')}[open]").count() == 0
    assert bea.js_errors == []
