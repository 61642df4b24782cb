"""The Lobby lists a public table while it waits, the creator's own too: its Sit down, pressed
in the browser that already sits there, goes back to that seat, as the table's invitation link
does. It asked the server for a second seat, which refused it as "someone at this table
already has that name" (the window stayed open with that error)."""

from __future__ import annotations

from browser_helpers import create_invited_table, tid


def test_sit_down_at_your_own_listed_table_goes_back_to_your_seat(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="es-ES")
    failed: list[str] = []
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    create_invited_table(
        page, f"{live_server.url}/?lang=es", "mil-club", ["me", "open", "open"], "Olga", ("public",)
    )
    session = page.evaluate("() => window.tapete.session")
    page.click(tid("open-lobby"))
    page.wait_for_selector(f"{tid('lobby')}[open] {tid('sit-' + str(session['table']))}")
    page.click(tid(f"sit-{session['table']}"))
    page.wait_for_selector(f"{tid('lobby')}:not([open])", state="attached")
    assert page.inner_text(tid("lobby-error")) == ""
    now = page.evaluate("() => window.tapete.session")
    assert [now[k] for k in ("table", "token", "seat")] == [
        session[k] for k in ("table", "token", "seat")
    ]
    page.wait_for_selector(tid("waiting"))
    assert "Olga (tú)" in page.inner_text(tid("room"))
    assert failed == []
    assert page.js_errors == []
