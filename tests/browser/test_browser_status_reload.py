"""A reload keeps the status line's news: it said what just happened (a computer's bid, the
last card), and after a reload it was empty until the next move, while the history list
below it came back from the tab's storage. When the server's view has moved on meanwhile,
the old news is not said again."""

from __future__ import annotations

import random

from browser_helpers import LOCALES, start_game, state, take_turn, wait_turn

NEWS = "() => document.getElementById('status').textContent.split(' — ')[0]"


def test_a_reload_says_the_last_news_again(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale=LOCALES["es"])
    start_game(page, live_server.url, "mil-club", seed=3)
    rng = random.Random(2)
    log: list[str] = []
    for _ in range(3):
        wait_turn(page)
        take_turn(page, rng, log)
    wait_turn(page)
    news = page.evaluate(NEWS)
    version = state(page)["version"]
    assert news and "—" not in news, news
    page.reload()
    page.wait_for_function(
        "([v]) => document.querySelector('#table')?.dataset.version === v", arg=[version]
    )
    wait_turn(page)
    assert page.evaluate(NEWS) == news
    # a tab whose kept history is older than the table: nothing old is said as news
    table = page.evaluate("() => window.tapete.session.table")
    page.evaluate(
        "([t]) => sessionStorage.setItem(`tapete.history.${t}.version`, '1')", arg=[table]
    )
    page.reload()
    page.wait_for_function(
        "([v]) => document.querySelector('#table')?.dataset.version === v", arg=[version]
    )
    wait_turn(page)
    assert page.evaluate(NEWS) != news
    assert page.js_errors == []
