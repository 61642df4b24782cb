"""A move refused as stale is explained: two tabs on one seat choose at the same moment, the
server takes one tab's move and tells the other `stale_version` ("The table has changed: look
again and choose again."). That tab asks for the table as it is now; the view that answers
wiped the sentence, and the person saw another card played with no word why
(`window.tapete.error` ended null). The sentence now stays in the status line (a polite live
region) over the views that follow, until the person acts again."""

from __future__ import annotations

import random

from browser_helpers import ana_table, open_seat, state, take_turn, view, wait_turn

STALE = "The table has changed: look again and choose again."

#: the second tab's choice, made on the view it held before the first tab's move came: sent
#: through its own socket with that view's version; resolves with what the page shows once
#: the view that answers its sync has come and been drawn
SEND_STALE = """([version, action]) => new Promise((resolve) => {
  const ws = window.tapete.ws;
  const types = [];
  ws.addEventListener("message", (m) => {
    const msg = JSON.parse(m.data);
    types.push(msg.type);
    if (msg.type === "view" && types.includes("error")) {
      // (the page draws a view at the next frame)
      requestAnimationFrame(() => requestAnimationFrame(() => resolve({
        types, error: window.tapete.error,
        status: document.getElementById("status").textContent,
        live: document.getElementById("status").getAttribute("aria-live"),
      })));
    }
  });
  ws.send(JSON.stringify({ type: "act", version, action }));
})"""


def test_a_move_refused_as_stale_says_why_after_the_table_is_shown_again(
    new_page, live_server
) -> None:  # type: ignore[no-untyped-def]
    table_id, token = ana_table(live_server.db_path, "mariage", seed=31, level="random")
    first = new_page(locale="en-GB")
    second = new_page(locale="en-GB")
    for page in (first, second):
        open_seat(page, f"{live_server.url}/?lang=en", table_id, token)
    assert wait_turn(first) == "turn" and wait_turn(second) == "turn"
    before = view(second)
    version = int(state(second)["version"])
    assert before["legal"]
    # the first tab's move is taken; the second tab's, made on the same view, comes after it
    take_turn(first, random.Random(1), [])
    second.wait_for_function(
        "([v]) => Number(document.querySelector('#table').dataset.version) > v", arg=[version]
    )
    shown = second.evaluate(SEND_STALE, [version, before["legal"][0]])
    assert "error" in shown["types"]
    assert shown["error"] == STALE
    assert shown["status"].startswith(STALE), shown["status"]
    assert shown["live"] == "polite"
    # still there a moment later, whatever views came meanwhile (the computer's moves)
    second.wait_for_timeout(300)
    assert second.evaluate("() => window.tapete.error") == STALE
    assert second.inner_text("#status").startswith(STALE)
    # the person's next move answers it: the view that follows says what happened instead
    what = wait_turn(second)
    if what == "turn":
        take_turn(second, random.Random(2), [])
        second.wait_for_function("() => window.tapete.error === null")
        assert STALE not in second.inner_text("#status")
    assert first.evaluate("() => window.tapete.error") is None
    assert first.js_errors == [] and second.js_errors == []
