"""The deal review in the browser: a Mil deal played through the page, then "Review this
deal" in es, pt and en (the curve, a marked decision with the better choice, the talon, the
steps from the keyboard); and a finished Mariage game reviewed from the game-over window.

The server here analyses quickly (open-handed only, ``ReviewSettings(quick=True)``) in its
worker process, at the tests' own priority (a worker at the server's niceness 10, spawned
while both xdist workers keep the cores busy, starved: browser_server.py): the panel does
not depend on how the losses were judged."""

from __future__ import annotations

import importlib.util
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import (
    LOCALES,
    TABLE,
    ana_table,
    open_seat,
    play_until_deal_ends,
    shot,
    start_game,
    state,
    tid,
    view,
)
from browser_server import LiveServer
from playwright.sync_api import expect

from tapete.server.review import ReviewSettings, compute_review

TITLE = {"es": "Revisión de la mano {n}", "pt": "Revisão da mão {n}", "en": "Review of deal {n}"}
BUTTON = {"es": "Revisar esta mano", "pt": "Rever esta mão", "en": "Review this deal"}
TALON = {"es": "El talón tenía:", "pt": "O talão tinha:", "en": "The talon held:"}
AFTER_ONE = {"es": "Tras 1 baza", "pt": "Após 1 vaza", "en": "After 1 trick"}
CURVE = {
    "es": "Curva del valor con las cartas vistas",
    "pt": "Curva do valor com as cartas à vista",
    "en": "Open-hand value curve",
}
LABELS = {
    "es": {"inaccuracy": "imprecisión", "mistake": "error", "blunder": "error grave"},
    "pt": {"inaccuracy": "imprecisão", "mistake": "erro", "blunder": "erro grave"},
    "en": {"inaccuracy": "inaccuracy", "mistake": "mistake", "blunder": "blunder"},
}
#: how long the end of a deal waits when it goes on by itself (deal_end.js AUTO_NEXT_MS)
AUTO_NEXT_MS = 4000
STEP = {"es": "Paso {n} de {total}", "pt": "Passo {n} de {total}", "en": "Step {n} of {total}"}


@pytest.fixture(scope="module")
def review_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    path = tmp_path_factory.mktemp("review") / "tapete.sqlite"
    server = LiveServer(path, review=ReviewSettings(quick=True, wait_s=30, nice=0)).start()
    yield server
    server.stop()


def _open_table(page: Any, url: str, table_id: int, token: str) -> None:
    open_seat(page, url, table_id, token)


def _open_review(page: Any, button: str = "review-deal") -> dict[str, Any]:
    page.click(tid(button))
    page.wait_for_selector(f"{tid('review')}[open] {tid('review-curve')}", timeout=120_000)
    return page.evaluate(
        """async () => { const s = window.tapete.session;
            const r = await fetch(`/api/tables/${s.table}/review/0?token=${s.token || ''}`);
            return r.json(); }"""
    )


def _check_review(page: Any, lang: str, data: dict[str, Any], talon: list[str] | None) -> None:
    report, steps = data["report"], data["steps"]
    box = tid("review")
    assert page.inner_text(f"{box} #review-title") == TITLE[lang].format(n=1)
    assert "null" not in page.inner_text(box) and "undefined" not in page.inner_text(box)
    # the curve: one point per known value, named in the language
    curve = page.locator(f"{box} {tid('review-curve')}")
    assert curve.get_attribute("aria-label").startswith(CURVE[lang])
    known = [x for x in report["open_values"] if x is not None]
    assert len(known) >= 2
    assert curve.locator("circle").count() == len(known)
    assert curve.locator("path.line").get_attribute("d").startswith("M")
    # each point says after how many tricks, one trick in the singular
    if report["open_values"][1] is not None:
        titles = curve.locator("circle title").evaluate_all("els => els.map(e => e.textContent)")
        assert any(x.startswith(f"{AFTER_ONE[lang]}: ") for x in titles), titles
    # the talon as it was
    if talon is not None:
        group = page.locator(f"{box} {tid('review-talon')}")
        assert group.get_attribute("aria-label") == TALON[lang]
        shown = group.locator(".card").evaluate_all("els => els.map(e => e.dataset.card)")
        assert shown == talon
    # the person's marked decisions, each with its label, the card played and the better one
    mine = [d for d in report["decisions"] if d["label"] and d["seat"] == 0]
    assert mine, "the deal should hold at least one marked decision of the person"
    marks = page.locator(f"{box} {tid('review-mark')}")
    assert marks.count() == len(mine)
    first = mine[0]
    marks.first.click()
    at = next(i for i, s in enumerate(steps) if s["index"] == first["index"])
    assert page.inner_text(f"{box} {tid('review-step')}") == STEP[lang].format(
        n=at + 1, total=len(steps)
    )
    assert LABELS[lang][first["label"]] in page.inner_text(f"{box} {tid('review-step-label')}")
    if first["action"]["type"] == "play":
        card = page.locator(f'{box} {tid("review-hand-0")} [data-card="{first["action"]["card"]}"]')
        assert f"mark-{first['label']}" in card.get_attribute("class")
        assert LABELS[lang][first["label"]] in card.get_attribute("aria-label")
    if first["best"] and first["best"]["type"] == "play":
        assert page.locator(f'{box} .reviewjudged [data-card="{first["best"]["card"]}"]').count()
    # every hand open at the first step; ←/→ from the keyboard
    page.click(f"{box} {tid('review-first')}")
    for seat, hand in enumerate(steps[0]["hands"]):
        cards = page.locator(f"{box} {tid(f'review-hand-{seat}')} .card")
        assert sorted(cards.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(hand)
    page.focus(f"{box} {tid('review-step')}")
    page.keyboard.press("ArrowRight")
    assert page.inner_text(f"{box} {tid('review-step')}") == STEP[lang].format(
        n=2, total=len(steps)
    )
    page.keyboard.press("End")
    assert page.inner_text(f"{box} {tid('review-step')}") == STEP[lang].format(
        n=len(steps), total=len(steps)
    )


def test_review_a_mil_deal_in_three_languages(new_page, review_server, artifacts) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale=LOCALES["es"])
    start_game(page, review_server.url, "mil-club", seed=38)
    # while the first deal is on there is nothing to review
    assert page.locator(tid("review-deal")).count() == 0
    play_until_deal_ends(page, random.Random(38), [])
    assert int(state(page)["deals"]) == 1
    session = page.evaluate("() => window.tapete.session")
    record = page.request.get(
        f"{review_server.url}/api/tables/{session['table']}/record?token={session['token']}"
    ).json()
    deal = record["deals"][0]
    talon = deal["talon"] if not deal["result"].get("annulled") else None
    for lang in ("es", "pt", "en"):
        if lang != "es":
            page = new_page(locale=LOCALES[lang])
            _open_table(page, review_server.url, session["table"], session["token"])
        page.wait_for_selector(tid("review-deal"))
        assert page.inner_text(tid("review-deal")) == BUTTON[lang]
        data = _open_review(page)
        shot(page, artifacts, f"review-mil-{lang}")
        assert data["report"]["deal"] == 0 and not view(page)["over"]
        _check_review(page, lang, data, talon)
        page.click(tid("review-close"))
        assert page.locator(f"{tid('review')}[open]").count() == 0
        assert page.js_errors == []
    # the statistics count the reviewed deal and the person's average loss
    page.click(tid("open-stats"))
    page.wait_for_selector(tid("stats-body"))
    body = page.inner_text(tid("stats-body"))
    assert "Analysed deals" in body and "Average loss per deal" in body


def test_review_a_finished_game_from_the_game_over_window(
    new_page, review_server, artifacts
) -> None:  # type: ignore[no-untyped-def]
    # a Mariage match that the next hand decides, made as an administrator would
    table_id, token = ana_table(
        review_server.db_path, "mariage", seed=12, start={"game_points": [6, 6]}
    )
    page = new_page(locale=LOCALES["pt"])
    _open_table(page, review_server.url, table_id, token)
    rng = random.Random(5)
    for _ in range(3):
        if state(page)["over"] == "true":
            break
        play_until_deal_ends(page, rng, [])
    page.wait_for_selector(f"{tid('over')}[open]")
    data = _open_review(page, "over-review")
    assert page.locator(f"{tid('over')}[open]").count() == 0
    report = data["report"]
    assert report["kind"] == "mariage"
    assert page.inner_text(f"{tid('review')} #review-title") == TITLE["pt"].format(n=1)
    known = [x for x in report["open_values"] if x is not None]
    assert page.locator(f"{tid('review-curve')} circle").count() == len(known)
    assert page.inner_text(tid("review-head"))  # who won the hand and why
    shot(page, artifacts, "review-mariage-pt")
    assert page.js_errors == []


def _flat_curve_record() -> dict[str, Any]:
    """The record of tests/analysis/test_flat_curve.py (a 120 contract nothing could make)."""
    path = Path(__file__).parents[1] / "analysis" / "test_flat_curve.py"
    spec = importlib.util.spec_from_file_location("flat_curve", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return dict(module._seed_36_deal()[1])


def test_review_this_deal_from_the_end_of_deal_moment(new_page, review_server, artifacts) -> None:  # type: ignore[no-untyped-def]
    """The moment at the end of a deal offers its review: a named button, reached and pressed
    from the keyboard, in es, pt and en; the review opens on the deal just over, and while it
    is open the moment does not go on by itself."""
    page = new_page(locale=LOCALES["es"])
    start_game(page, review_server.url, "mil-club", seed=38)
    play_until_deal_ends(page, random.Random(38), [])
    page.wait_for_selector(f"{TABLE}[data-paused='true'] {tid('deal-end')}")
    for lang in ("es", "pt", "en"):
        page.click(tid(f"lang-{lang}"))
        button = page.locator(f"{tid('deal-end')} {tid('deal-end-review')}")
        # (the page redraws on the next frame, or within 100 ms: wait for the new language)
        expect(button).to_have_text(BUTTON[lang], timeout=10_000)
        assert page.get_by_role("button", name=BUTTON[lang]).count() >= 1
        if lang == "en":
            shot(page, artifacts, "deal-end-review-button-en")
        # from the keyboard: Tab from "Next deal" reaches it, Enter opens the review
        page.focus(tid("next-deal"))
        page.keyboard.press("Tab")
        assert page.evaluate("() => document.activeElement.dataset.testid") == "deal-end-review"
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{tid('review')}[open] {tid('review-curve')}", timeout=120_000)
        assert page.inner_text(f"{tid('review')} #review-title") == TITLE[lang].format(n=1)
        if lang == "en":
            shot(page, artifacts, "review-from-deal-end-en")
        page.keyboard.press("Escape")
        assert page.locator(f"{tid('review')}[open]").count() == 0
        assert state(page)["paused"] == "true"  # still the end of deal 1
    # a review with nothing makeable says so beside its flat curve (the seed-36 deal of
    # tests/analysis/test_flat_curve.py, served in place of this deal's review)
    body = {"table": 0, "deal": 0, **compute_review(_flat_curve_record(), 0, True, 0.5, 0)}
    page.route("**/api/tables/*/review/0*", lambda route: route.fulfill(json=body))
    page.click(tid("deal-end-review"))
    page.wait_for_selector(f"{tid('review')}[open] {tid('review-curve')}", timeout=120_000)
    assert page.inner_text(f"{tid('review')} {tid('review-best-contract')}") == (
        "With every card open no contract could be made: against the best defence the "
        "declarer takes 0 points at most."
    )
    page.click(tid("review-close"))
    # with "go on by itself" chosen, opening the review stops the countdown
    page.click(tid("auto-next"))
    page.click(tid("deal-end-review"))
    page.wait_for_selector(f"{tid('review')}[open] {tid('review-curve')}", timeout=120_000)
    page.wait_for_timeout(AUTO_NEXT_MS + 800)
    assert state(page)["paused"] == "true"
    page.click(tid("review-close"))
    page.click(tid("next-deal"))
    page.wait_for_selector(f"{TABLE}[data-paused='false']")
    assert page.js_errors == []
