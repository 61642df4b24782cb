"""The page under the server's security headers (issue 10): the Content-Security-Policy
allows everything the client does (its script, styles, fonts, images, the table WebSocket)
and nothing is reported as a violation while a game is played; the page may not be framed."""

from __future__ import annotations

import random
from typing import Any

from browser_helpers import start_game, state, take_turn, wait_turn

COLLECT = """
window.__csp = [];
document.addEventListener('securitypolicyviolation',
  (e) => window.__csp.push(`${e.violatedDirective} ${e.blockedURI}`));
"""


def test_the_page_satisfies_its_content_security_policy(live_server: Any, new_page: Any) -> None:
    page = new_page()
    page.add_init_script(COLLECT)
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text))
    response = page.goto(live_server.url)
    headers = response.headers
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    start_game(page, live_server.url, "mariage", levels=("random",), seed=5)
    rng = random.Random(1)
    log: list[str] = []
    for _ in range(6):
        if wait_turn(page) == "over":
            break
        take_turn(page, rng, log)
    assert int(state(page)["version"]) > 0  # the WebSocket works under connect-src 'self'
    page.reload()
    page.wait_for_selector("#table[data-version]")
    assert page.evaluate("window.__csp") == []
    assert not [m for m in console if "Content Security Policy" in m], console
    assert page.js_errors == []
