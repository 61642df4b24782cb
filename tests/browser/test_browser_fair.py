"""Fair deals in the page: the current deal's commitment beside the deal number (a practice
deal says so), and the fairness page in every language, from the top bar."""

from __future__ import annotations

from browser_helpers import start_game, tid, view, wait_turn

WAITING = {
    "es": "Antes de que todos se sienten",
    "pt": "Antes de todos se sentarem",
    "en": "Before everyone sits down",
}


def test_the_commitment_is_shown_and_the_fairness_page_is_reachable(new_page, live_server) -> None:
    page = new_page(locale="en-GB")
    start_game(page, live_server.url, "mariage", levels=("random",))
    wait_turn(page)
    committed = view(page)["commitment"]
    assert isinstance(committed, str) and len(committed) == 64
    mark = page.locator(tid("commitment"))
    # a padlock drawn (no emoji: a machine without an emoji font showed a box), the hash's start
    assert mark.inner_text().strip() == committed[:8]
    assert mark.locator("svg.lock[aria-hidden='true']").count() == 1
    assert committed in (mark.get_attribute("aria-label") or "")
    titles = {"es": "Reparto justo", "pt": "Distribuição justa", "en": "Fair deals"}
    for lang, title in titles.items():
        page.click(tid(f"lang-{lang}"))
        page.wait_for_function("([l]) => document.documentElement.lang === l", arg=[lang])
        link = page.locator(tid("fairness-link"))
        assert link.inner_text() == title
        href = link.get_attribute("href")
        assert href == f"/static/fair/fairness.{lang}.html"
        other = page.context.new_page()
        other.goto(live_server.url + href)
        assert other.locator("h1").inner_text() == title
        words = other.locator("main").inner_text()
        assert "tapete replay game.json" in words
        # a waiting table shows nobody a card (the deal is made when it is created)
        assert WAITING[lang] in other.locator("h2").all_inner_texts()
        # the table's padlock, drawn here too (no emoji: a box without an emoji font)
        assert "\U0001f512" not in words
        assert other.locator("main svg.lock[aria-hidden='true']").count() == 1
        if lang == "es":  # the table's own words: "Jugadores del ordenador", "Mano 1"
            assert "computadora" not in words and "Jugadores del ordenador" in words
            assert "junto al número de mano" in words
        other.close()


def test_a_chosen_game_number_is_marked_practice(new_page, live_server) -> None:
    page = new_page(locale="pt-PT")
    start_game(page, live_server.url, "mariage", levels=("random",), seed=5)
    wait_turn(page)
    assert view(page)["commitment"] is None
    mark = page.locator(tid("commitment"))
    assert mark.inner_text() == "treino"
    assert "não verificável" in (mark.get_attribute("aria-label") or "")
