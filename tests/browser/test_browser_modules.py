"""The client's ES modules: every one loads (with a JavaScript type, no console error), none
is left unused, and the Games window offers exactly the games /api/config lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from browser_helpers import tid

from tapete.games import kinds as registered

WEB = Path(__file__).resolve().parents[2] / "src" / "tapete" / "web"


def test_every_module_loads_without_errors(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="en-GB")
    console: list[str] = []
    scripts: dict[str, tuple[int, str]] = {}
    failed: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    page.on("requestfailed", lambda r: failed.append(r.url))

    def seen(response: Any) -> None:
        if response.url.endswith(".js"):
            scripts[response.url] = (response.status, response.headers.get("content-type", ""))

    page.on("response", seen)
    page.goto(live_server.url)
    page.wait_for_selector(f"{tid('newgame')}[open]")
    page.wait_for_load_state("networkidle")
    assert console == [] and page.js_errors == [] and failed == []
    base = f"{live_server.url}/static/"
    files = {"app.js", *(f"js/{p.name}" for p in (WEB / "js").glob("*.js"))}
    assert set(scripts) == {base + f for f in files}  # each loads; no file is left unused
    for url, (status, ctype) in scripts.items():
        assert status == 200 and ctype.startswith("text/javascript"), (url, status, ctype)
    assert page.evaluate("() => typeof window.tapete.receive") == "function"


def test_the_games_window_lists_exactly_the_kinds(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="en-GB")
    page.goto(live_server.url)
    page.wait_for_selector(f"{tid('newgame')}[open]")
    config = page.request.get(f"{live_server.url}/api/config").json()
    kinds = config["kinds"]
    assert kinds == [
        {
            "name": k.name,
            "title": k.title,
            "seats": k.seats,
            "profiles": [{"name": p, "target": k.targets[p]} for p in k.profiles],
            "default_players": list(k.default_players),
            "score_key": k.score_key,
        }
        for k in registered()
    ]
    wanted = [(k["name"], p["name"], k["seats"]) for k in kinds for p in k["profiles"]]
    ids = page.eval_on_selector_all(
        f"{tid('game-choices')} button", "els => els.map(e => e.dataset.testid)"
    )
    assert ids == [f"choose-{g}" if p == g else f"choose-{g}-{p}" for g, p, _ in wanted]
    for (_, _, seats), testid in zip(wanted, ids, strict=True):
        page.click(tid(testid))
        assert page.get_attribute(tid(testid), "aria-pressed") == "true"
        rows = page.locator(f"{tid('newgame')} .levelrow")
        assert rows.count() == seats - 1  # one row of levels per computer seat
        assert page.locator(f"{tid('newgame')} [data-testid^='level-0-']").count() == len(
            config["levels"]
        )
    # the Ranking and the ratings: one board per game and target
    page.keyboard.press("Escape")  # closes the Games window (no table yet, so no Cancel)
    page.wait_for_selector(f"{tid('newgame')}:not([open])", state="attached")
    page.click(tid("open-ranking"))
    tabs = page.eval_on_selector_all(
        f"{tid('ranking')} .tabs button", "els => els.map(e => e.dataset.testid)"
    )
    boards = []
    for k in kinds:
        targets = list(dict.fromkeys(p["target"] for p in k["profiles"]))
        boards += [
            f"ranking-{k['name']}" if len(targets) == 1 else f"ranking-{k['name']}-{t}"
            for t in targets
        ]
    # the best games' boards, then the rating leaderboards: one pool per board
    assert tabs == boards + [b.replace("ranking-", "rating-", 1) for b in boards]
    page.wait_for_selector(tid("ranking-body"))


def test_the_client_names_no_game() -> None:
    """No game's name is written in the client's code (no browser needed): what differs per
    game comes from /api/config's kinds or from the view's own keys."""
    files = [WEB / "app.js", *sorted((WEB / "js").glob("*.js"))]
    names = [k.name for k in registered()]
    assert len(files) > 10 and names
    found = [
        (f.name, n, q)
        for f in files
        for n in names
        for q in "\"'`"
        if f"{q}{n}{q}" in f.read_text(encoding="utf-8")
    ]
    assert found == []
