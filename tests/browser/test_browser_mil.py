"""A whole Mil deal played through the page, in each language (club and casa profiles)."""

from __future__ import annotations

import random

import pytest
from browser_helpers import (
    LOCALES,
    card_label,
    play_until_deal_ends,
    shot,
    start_game,
    state,
    tid,
    view,
)

TITLES = {"es": "Hoja de puntos", "pt": "Folha de pontos", "en": "Score sheet"}
BID = {"es": "Pujar", "pt": "Licitar", "en": "Bid"}


# game numbers (seeds) with which the person wins the first auction: the computers' random
# moves are seeded by the table too, so the deal is the same every run (if the engine's deals
# ever change, the test still plays on, deal after deal, until the person declares)
@pytest.mark.parametrize(
    ("lang", "profile", "seed"), [("es", "club", 8), ("pt", "casa", 11), ("en", "club", 12)]
)
def test_full_mil_deal(
    new_page, live_server, artifacts, lang: str, profile: str, seed: int
) -> None:
    page = new_page(locale=LOCALES[lang])
    start_game(page, live_server.url, f"mil-{profile}", name=f"Ana-{lang}", seed=seed)
    assert page.evaluate("document.documentElement.lang") == lang  # navigator.language
    page.wait_for_selector(f"{tid('hand')} .card")
    shot(page, artifacts, f"mil-{profile}-{lang}-start")
    v = view(page)
    assert v["profile"] == profile and v["seat"] == 0 and len(v["hand"]) == 7
    first = v["hand"][0]
    assert page.get_attribute(f'{tid("hand")} [data-card="{first}"]', "aria-label") == card_label(
        first, lang
    )
    assert page.locator(tid("sheet")).inner_text().count(TITLES[lang]) == 0
    assert TITLES[lang] in page.inner_text("#table")

    rng = random.Random(f"{lang}-{profile}")
    log: list[str] = []
    declared = False
    for deal in range(10):
        before = len(log)
        play_until_deal_ends(page, rng, log)
        moves = log[before:]
        rows = page.locator(f"{tid('sheet')} {tid('sheet-row')}").count()
        assert rows == int(state(page)["deals"]) >= deal + 1
        if "give" in moves and "contract" in moves:
            declared = True
            assert moves.count("give") == 2
            assert moves.count("play") == 8
            break
    assert declared, f"never became the declarer in 10 deals: {log}"
    shot(page, artifacts, f"mil-{profile}-{lang}-sheet")
    last = view(page)["sheet"][-1]
    assert last["declarer"] == 0 and last["contract"] >= 100
    assert page.js_errors == []
