"""Statistics without a name: a browser that never played and is not signed in asks for one
(in the page's language) instead of asking the server for the statistics of "" (the window
read "Estatísticas de" over the server's English "'name' must not be empty"); signed in, the
window opens on the account's name."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

from browser_helpers import sign_up, tid

HINT = "Ainda não há nome: jogue um jogo, entre na sua conta ou escreva o nome de quem quer ver."


def _stats_names(requests: list[str]) -> list[str]:
    """The names the page asked /api/stats for ("" for an empty or missing one)."""
    return [
        parse_qs(urlparse(u).query, keep_blank_values=True).get("name", [""])[0]
        for u in requests
        if urlparse(u).path == "/api/stats"
    ]


def test_statistics_in_a_fresh_browser_ask_for_a_name(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="pt-PT")
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url))
    page.goto(live_server.url)
    page.wait_for_selector(f"{tid('newgame')}[open]")
    page.keyboard.press("Escape")  # no game: close the Games window
    page.wait_for_selector(f"{tid('newgame')}:not([open])", state="attached")
    page.click(tid("open-stats"))
    page.wait_for_selector(f"{tid('stats')}[open] {tid('stats-ask')}")
    text = page.inner_text(tid("stats"))
    assert "must not be empty" not in text and "'name'" not in text, text
    assert page.inner_text(f"{tid('stats')} h2") == "Estatísticas"
    assert page.inner_text(tid("stats-no-name")) == HINT
    assert page.evaluate("() => document.activeElement.id") == "stats-name"
    # an empty field asks nothing either
    page.click(tid("stats-look"))
    assert _stats_names(sent) == []
    # a typed name: its statistics (a name never played: nothing yet, in Portuguese)
    page.fill(tid("stats-name"), "  Ninguém  ")
    page.press(tid("stats-name"), "Enter")
    page.wait_for_selector(tid("stats-body"))
    assert page.inner_text(f"{tid('stats')} h2") == "Estatísticas de Ninguém"
    # a change of language keeps the name asked for
    page.evaluate("async () => (await import('/static/js/i18n.js')).setLang('en')")
    page.wait_for_function(
        "() => document.querySelector('#stats h2')?.textContent === 'Statistics of Ninguém'"
    )
    assert "" not in _stats_names(sent) and "Ninguém" in _stats_names(sent)
    assert page.js_errors == []


def test_statistics_signed_in_open_on_the_account(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="pt-PT")
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url))
    sign_up(page, live_server.url, "Estat_browser")
    page.click(tid("open-stats"))
    page.wait_for_selector(tid("stats-body"))
    assert page.inner_text(f"{tid('stats')} h2") == "Estatísticas de Estat_browser"
    assert page.locator(tid("stats-ask")).count() == 0
    assert _stats_names(sent) == ["Estat_browser"]
    assert page.js_errors == []
