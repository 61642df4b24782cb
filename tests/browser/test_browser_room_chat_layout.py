"""The room strip with the table chat open: the seats stay on the first line, beside the
chat's title, instead of sinking to the middle of the open chat (the strip centred its
items: with the chat's lines, box and Mute buttons open, the seat chips were drawn some
40 px down, away from the top of the page)."""

from __future__ import annotations

from browser_helpers import create_invited_table, shot, sit_down, tid, wait_playing

TOPS = """() => {
  const top = (sel) => document.querySelector(sel).getBoundingClientRect().top;
  return { seats: top('#room [data-testid="seats"]'),
           chat: top('#room [data-testid="chat"] summary') };
}"""


def test_the_seats_stay_on_the_chat_title_line(new_page, live_server, artifacts) -> None:  # type: ignore[no-untyped-def]
    ana = new_page(locale="es-ES")
    link = create_invited_table(
        ana, live_server.url, "mil-club", ["me", "invited", "computer:rules"]
    )
    bea = new_page(locale="es-ES")
    sit_down(bea, link, "Bea", host="Ana")
    wait_playing(ana, bea)
    ana.click(f"{tid('chat')} summary")
    ana.fill(tid("chat-text"), "hola")
    ana.keyboard.press("Enter")
    ana.wait_for_selector(f"{tid('chat-log')} li")
    shot(ana, artifacts, "room-chat-open")
    tops = ana.evaluate(TOPS)
    assert abs(tops["seats"] - tops["chat"]) < 8, tops


#: the page's width, the window's and where the first chat line ends
WIDTHS = """() => ({ page: document.documentElement.scrollWidth, window: innerWidth,
  line: document.querySelector('[data-testid="chat-log"] li').getBoundingClientRect().right })"""


def test_a_long_chat_line_without_spaces_keeps_the_phone_page_its_width(
    new_page, live_server
) -> None:  # type: ignore[no-untyped-def]
    """A chat line with no space to break at (a link, a word typed long: up to 300 characters)
    wraps inside the chat: it made the page as wide as the line (some 2500 px at 390 px), the
    whole table scrolling sideways on the phone of everyone at the table."""
    ana = new_page(locale="es-ES", width=390, height=844)
    link = create_invited_table(ana, live_server.url, "mariage-mariage", ["me", "invited"])
    bea = new_page(locale="pt-PT", width=1280, height=860)
    sit_down(bea, link, "Bea", host="Ana")
    wait_playing(ana, bea)
    bea.click(f"{tid('chat')} summary")
    bea.fill(tid("chat-text"), "https://example.org/" + "a" * 280)
    bea.keyboard.press("Enter")
    ana.click(f"{tid('chat')} summary")
    for page in (ana, bea):
        page.wait_for_selector(f"{tid('chat-log')} li")
        widths = page.evaluate(WIDTHS)
        assert widths["page"] <= widths["window"], widths
        assert widths["line"] <= widths["window"], widths
    assert ana.js_errors == [] and bea.js_errors == []


def test_a_refused_chat_line_stays_in_the_input_with_the_reason(
    new_page, live_server, artifacts
) -> None:  # type: ignore[no-untyped-def]
    """The input was cleared as a line was sent: a line the server refused (past the rate
    limit: "Too many messages in a row: wait a moment.") was lost. It stays in the input until
    the server sends it back, a refused one with the reason under it (a polite live region).
    A line over 300 characters (the input's maxlength stops typing, not a paste by a script)
    is told the limit, where it read "The message does not have the expected form."."""
    ana = new_page(locale="en-GB")
    link = create_invited_table(ana, live_server.url, "mariage-mariage", ["me", "invited"])
    bea = new_page(locale="en-GB")
    sit_down(bea, link, "Bea", host="Ana")
    wait_playing(ana, bea)
    ana.click(f"{tid('chat')} summary")
    note = tid("chat-note")
    assert ana.get_attribute(note, "role") == "status"
    # too long: kept, the limit said
    ana.locator(tid("chat-text")).evaluate("(e) => { e.value = 'x'.repeat(400); }")
    ana.click(tid("chat-send"))
    ana.wait_for_function("(sel) => document.querySelector(sel).textContent !== ''", arg=note)
    assert ana.inner_text(note) == "A chat message may have at most 300 characters."
    assert ana.input_value(tid("chat-text")) == "x" * 400
    assert ana.evaluate("() => window.tapete.error") is None  # (said in the chat only)
    # accepted: the input is cleared once the line comes back, and the note with it
    ana.fill(tid("chat-text"), "hola")
    ana.keyboard.press("Enter")
    ana.wait_for_selector(f"{tid('chat-log')} li")
    ana.wait_for_function(
        "() => document.querySelector('[data-testid=\"chat-text\"]').value === ''"
    )
    assert ana.inner_text(note) == ""
    # past the rate limit (5 lines at once per connection, then one every 2 s): the page's
    # socket sends a burst of its own (their answers go to the status line: no line of the
    # chat's input), then the person's line is refused and stays, with the reason
    ana.evaluate(
        """() => { for (let n = 0; n < 8; n++)
            window.tapete.ws.send(JSON.stringify({ type: "chat", text: `line ${n}` })); }"""
    )
    ana.fill(tid("chat-text"), "one too many")
    ana.keyboard.press("Enter")
    ana.wait_for_function("(sel) => document.querySelector(sel).textContent !== ''", arg=note)
    assert ana.inner_text(note) == "Too many messages in a row: wait a moment."
    assert ana.input_value(tid("chat-text")) == "one too many"
    shot(ana, artifacts, "room-chat-refused")
    log = ana.locator(f"{tid('chat-log')} li").all_inner_texts()
    assert "Ana: one too many" not in log
    # sent again once the bucket has a line for it: taken, the input cleared
    ana.wait_for_timeout(2200)
    ana.keyboard.press("Enter")
    ana.wait_for_function(
        "() => document.querySelector('[data-testid=\"chat-text\"]').value === ''"
    )
    assert ana.inner_text(note) == ""
    bea.click(f"{tid('chat')} summary")
    bea.wait_for_function(
        "() => document.querySelector('[data-testid=\"chat-log\"]').textContent"
        ".includes('one too many')"
    )
    assert ana.js_errors == [] and bea.js_errors == []
