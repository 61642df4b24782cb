"""A whole Mariage hand played through the page, in each language."""

from __future__ import annotations

import random

import pytest
from browser_helpers import LOCALES, card_label, play_until_deal_ends, shot, start_game, tid, view

STOCK = {"es": "Mazo", "pt": "Monte", "en": "Stock"}


@pytest.mark.parametrize("lang", ["es", "pt", "en"])
def test_full_mariage_hand(new_page, live_server, artifacts, lang: str) -> None:
    page = new_page(locale=LOCALES[lang], width=1100, height=820)
    start_game(page, live_server.url, "mariage", name=f"Eva-{lang}", levels=("random",))
    page.wait_for_selector(f"{tid('hand')} .card")
    v = view(page)
    assert v["game"] == "mariage" and len(v["hand"]) == 6
    # the indicator lies face up under the open stock
    ind = v["indicator"]
    assert page.get_attribute(f'{tid("stock")} [data-card="{ind}"]', "aria-label") == card_label(
        ind, lang
    )
    assert page.get_attribute(tid("stock"), "aria-label") == STOCK[lang]
    # the points counter can be hidden and shown again
    page.click(tid("toggle-points"))
    assert page.inner_text(tid("my-points")) == ""
    page.click(tid("toggle-points"))
    assert page.inner_text(tid("my-points")) != ""
    shot(page, artifacts, f"mariage-{lang}-start")
    # the sheet's headers are read whole (cut to "Puntos de…" both looked alike)
    heads = page.locator(f"{tid('sheet')} th")
    cut = heads.evaluate_all("els => els.filter(e => e.scrollWidth > e.clientWidth)")
    assert cut == [], heads.all_inner_texts()
    assert heads.nth(2).get_attribute("title") == heads.nth(2).inner_text().replace("\n", " ")
    log: list[str] = []
    play_until_deal_ends(page, random.Random(lang), log)
    assert "play" in log
    assert page.locator(f"{tid('sheet')} {tid('sheet-row')}").count() == 1
    row = view(page)["sheet"][0]
    assert sum(row["match"]) == row["game_points"]
    shot(page, artifacts, f"mariage-{lang}-hand-over")
    assert page.js_errors == []
