"""A reconnection's catch-up at a real table of three people, with a move arriving live before
it: the page lists the missed move before the live one, each once.

Ana creates a Mil table with two invited seats, Bea and Carla sit down (three browser
contexts, no computer, so that nothing moves on its own). In the auction, right after Bea's
bid, Bea's connection drops and stays away (her page's reconnections fail at once)
while the next person bids: a move Bea misses. Then she connects again: the server's first
view of the connection is already a version on, and her page's ``sync`` is held back in the
page while the third person bids: a move that reaches her live. Only then is the ``sync``
sent, and the server's ``events`` answer brings the missed move. What happened on Bea's page
must then end as Ana's (who never left): Bea's bid, the missed bid, the live bid, each once.
test_browser_views.py has the same order with crafted messages; here every part is real.
"""

from __future__ import annotations

import time
from typing import Any

from browser_helpers import (
    create_invited_table,
    sit_down,
    state,
    table_states,
    tid,
    wait_playing,
    wait_until,
    wait_version,
)

#: Bea's page: each reconnection fails at once while ``__offline``; a ``sync`` waits in
#: ``__heldSync`` while ``__holdSync``, until ``__release()`` sends it
CUT_OFF = """() => {
  const Real = window.WebSocket;
  const Cut = function (url, protocols) {
    if (!window.__offline) return new Real(url, protocols);
    const away = { readyState: 3, send() {}, close() {} };  // a connection that fails at once
    setTimeout(() => away.onclose && away.onclose({ code: 1006 }), 20);
    return away;
  };
  Cut.prototype = Real.prototype;
  Object.assign(Cut, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
  window.WebSocket = Cut;
  const send = Real.prototype.send;
  window.__sent = []; window.__heldSync = null; window.__holdSync = true; window.__offline = true;
  Real.prototype.send = function (m) {
    const o = JSON.parse(m);
    if (window.__holdSync && o.type === 'sync') { window.__heldSync = [this, m]; return; }
    window.__sent.push(o); return send.call(this, m);
  };
  window.__release = () => {
    const [ws, m] = window.__heldSync; window.__holdSync = false;
    window.__sent.push(JSON.parse(m)); send.call(ws, m);
  };
  window.tapete.ws.close();
}"""


def version(page: Any) -> int:
    return int(state(page)["version"])


def my_turn(page: Any) -> bool:
    s = state(page)
    return s["myTurn"] == "true" and s["pending"] == "false"


def mover(pages: dict[str, Any], seconds: float = 15) -> Any:
    """The page whose turn it is (bounded wait: the pages' state on a timeout)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        for page in pages.values():
            if my_turn(page):
                return page
        time.sleep(0.05)
    raise AssertionError({"waiting for": "someone's turn", **table_states(pages)})


def act(page: Any) -> None:
    """A move of the page whose turn it is: keep a deal it may refuse, else bid the least
    (never pass: everyone stays in the auction, so that the turn goes round)."""
    before = version(page)
    page.click(tid("keep") if page.locator(tid("keep")).count() else tid("bid"))
    wait_version(page, before + 1)


#: What happened in words, as the page shows it (its lines hold the events: history.js)
LOG_WORDS = """async () => { const { lineText } = await import('/static/js/history.js');
    window.__lineText = lineText; return window.tapete.log.map(lineText); }"""


def log(page: Any) -> list[str]:
    return list(page.evaluate(LOG_WORDS))


def test_a_missed_move_comes_before_a_live_one_at_a_real_table(new_page, live_server) -> None:
    ana = new_page(locale="en-GB")
    link = create_invited_table(ana, live_server.url, "mil-club", ["me", "invited", "invited"])
    bea, carla = new_page(locale="en-GB"), new_page(locale="en-GB")
    sit_down(bea, link, "Bea", host="Ana")
    sit_down(carla, link, "Carla", host="Ana")
    wait_playing(ana, bea, carla)
    everyone, others = {"ana": ana, "bea": bea, "carla": carla}, {"ana": ana, "carla": carla}

    # moves (never a pass) until Bea bids in the auction: the next two turns are the others'
    for _ in range(12):
        page = mover(everyone)
        bidding = state(page)["phase"] == "bidding"
        act(page)
        if page is bea and bidding:
            break
    else:
        raise AssertionError({"waiting for": "Bea's bid", **table_states(everyone)})
    wait_version(ana, version(bea))
    held = version(bea)

    # Bea's connection drops; the next person bids while she is away
    bea.evaluate(CUT_OFF)
    bea.wait_for_function("() => document.querySelector('#table').dataset.offline === 'true'")
    missed_by = mover(others)
    act(missed_by)
    wait_version(ana, held + 1)

    # back: the connection's first view is a version on, and the sync waits in the page
    bea.evaluate("() => { window.__offline = false; }")
    wait_until({"bea": bea}, "the reconnection", "() => window.__heldSync !== null", 30)
    wait_version(bea, held + 1)
    assert version(bea) == held + 1
    assert not any(m["type"] == "sync" for m in bea.evaluate("() => window.__sent"))

    # the third person bids: it reaches Bea live, before her catch-up
    live_by = mover(others)
    assert live_by is not missed_by
    act(live_by)
    wait_version(bea, held + 2)

    # now the sync: the missed bid takes its place before the live one
    bea.evaluate("() => window.__release()")
    assert {"type": "sync", "since": held} in bea.evaluate("() => window.__sent")
    expected = log(ana)[-3:]
    assert len(expected) == 3 and len(set(expected)) == 3, expected
    log(bea)  # (history.js's lineText is now loaded for the wait)
    bea.wait_for_function(
        "([line]) => window.tapete.log.map(window.__lineText).includes(line)",
        arg=[expected[1]],
        timeout=10_000,
    )
    lines = log(bea)
    assert lines[-3:] == expected, (lines, expected)
    for line in expected:
        assert lines.count(line) == 1, (line, lines)
    for page in (ana, bea, carla):
        assert page.js_errors == []
