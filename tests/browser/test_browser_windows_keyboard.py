"""The Statistics, Ranking and Lobby windows and the replay used with the keyboard alone and
read by a screen reader, in the three languages: the focus goes into a window when it opens,
stays on the control it was on when the window draws itself again (its data come, a board is
chosen, the Lobby's list changes live), and Escape gives it back to the button that opened
the window; every focused control shows a ring that can be seen on the window's light paper;
the windows are named, the Lobby's "Sit down" buttons say which table, its live line says
the number of open tables only when it changes, and a step of the replay says its move."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import LOCALES, contrast, tid
from playwright.sync_api import Page, expect
from test_browser_player_page import MIL, PLAYER
from test_browser_replay import finished_table

LANGS = ("es", "pt", "en")
I18N = Path(__file__).resolve().parents[2] / "src" / "tapete" / "web" / "i18n"
WORDS = {lang: json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8")) for lang in LANGS}

MARIAGE = {"game": "mariage", "profile": "mariage", "games": 3, "wins": 1, "average_points": 50.5}
BEST = [
    {"name": "Ana", "score": 1020, "profile": "club", "date": "2026-01-02"},
    {"name": "Bruno", "score": 1000, "profile": "casa", "date": "2026-01-03"},
]
RATINGS = [
    {"place": 1, "name": "Ana", "ordinal": 25.3, "games": 4, "provisional": True},
    {"place": 2, "name": "Bruno", "ordinal": 20.1, "games": 12, "provisional": False},
]

FOCUSED = """() => { const a = document.activeElement;
    return a ? (a.dataset.testid || a.id || a.tagName) : null; }"""
#: the focused control's ring and the paper of the window around it
RING = """() => { const a = document.activeElement; const s = getComputedStyle(a);
    const d = a.closest('dialog');
    return {style: s.outlineStyle, width: parseFloat(s.outlineWidth), color: s.outlineColor,
            paper: d ? getComputedStyle(d).backgroundColor : null}; }"""


def say(lang: str, key: str, **params: object) -> str:
    text = WORDS[lang][key]
    for k, v in params.items():
        text = text.replace(f"{{{k}}}", str(v))
    return text


def check_ring(page: Page) -> None:
    """The focused control (in a window) shows a ring of at least 3:1 against the paper
    (WCAG 1.4.11); the accent yellow there was about 1.3:1."""
    ring = page.evaluate(RING)
    if ring["paper"] is None:
        return
    where = page.evaluate(FOCUSED)
    assert ring["style"] != "none" and ring["width"] >= 2, (where, ring)
    assert contrast(ring["color"], 1.0, ring["paper"]) >= 3, (where, ring)


def tab_to(page: Page, testid: str, limit: int = 40, key: str = "Tab") -> None:
    """Press Tab until the control ``testid`` has the focus (checking every ring passed)."""
    seen = []
    for _ in range(limit):
        page.keyboard.press(key)
        seen.append(page.evaluate(FOCUSED))
        if seen[-1] != "BODY":
            check_ring(page)
        if seen[-1] == testid:
            return
    raise AssertionError(f"{testid} never reached with {key}: {seen}")


def inside(page: Page, dialog: str) -> bool:
    return bool(
        page.evaluate(
            "(id) => document.getElementById(id).contains(document.activeElement)", dialog
        )
    )


def page_without_games_window(new_page, url: str, lang: str, name: str | None) -> Page:  # type: ignore[no-untyped-def]
    page: Page = new_page(locale=LOCALES[lang])
    page.route("**/api/stats?*", lambda route: route.fulfill(json=[MIL, MARIAGE]))
    page.route("**/api/ranking?*", lambda route: route.fulfill(json=BEST))
    page.route("**/api/ratings/*", lambda route: route.fulfill(json=RATINGS))
    page.route("**/api/players/*", lambda route: route.fulfill(json={**PLAYER, "name": "Ana"}))
    page.goto(url)
    if name:
        page.evaluate("(n) => localStorage.setItem('tapete.name', n)", name)
        page.reload()
    page.wait_for_selector(f"{tid('newgame')}[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{tid('newgame')}:not([open])", state="attached")
    return page


def close_with_escape(page: Page, dialog: str, opener: str) -> None:
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{tid(dialog)}:not([open])", state="attached")
    assert page.evaluate(FOCUSED) == opener


@pytest.mark.parametrize("lang", LANGS)
def test_statistics_and_ranking_with_the_keyboard(new_page, live_server, lang: str) -> None:  # type: ignore[no-untyped-def]
    page = page_without_games_window(new_page, live_server.url, lang, "Ana")

    # Statistics: named by its title; the focus is in the window once the tables came (it
    # was left on the page's body by the window drawn again)
    tab_to(page, "open-stats")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{tid('stats')}[open] {tid('stats-body')} table")
    expect(page.get_by_role("dialog", name=say(lang, "stats_of", name="Ana"))).to_be_visible()
    assert inside(page, "stats"), page.evaluate(FOCUSED)
    # every table has its column headers, each in a box named by its game
    for game in ("mil", "mariage"):
        box = page.locator(f"{tid(f'stats-{game}')} [role='region']")
        assert box.get_attribute("aria-label") == say(lang, f"col_{game}")
        assert box.locator("th[scope='col']").count() >= 4
    # Tab and Shift+Tab go round the window's controls, each with its ring
    tab_to(page, "close-stats")
    tab_to(page, "close-stats", key="Shift+Tab")
    close_with_escape(page, "stats", "open-stats")

    # Ranking: choosing a board keeps the focus on its button (it fell to the body)
    tab_to(page, "open-ranking")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{tid('ranking')}[open] {tid('ranking-body')} table")
    expect(page.get_by_role("dialog", name=say(lang, "ranking"))).to_be_visible()
    assert inside(page, "ranking"), page.evaluate(FOCUSED)
    tab_to(page, "rating-mil-1000")
    page.keyboard.press("Space")
    page.wait_for_selector(f"{tid('ranking')} {tid('leaderboard')}")
    assert page.evaluate(FOCUSED) == "rating-mil-1000"
    assert page.get_attribute(tid("rating-mil-1000"), "aria-pressed") == "true"
    tab_to(page, "rating-mariage")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{tid('ranking')} {tid('ranking-body')} p")
    assert page.evaluate(FOCUSED) == "rating-mariage"
    tab_to(page, "rating-mil-1000", key="Shift+Tab")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{tid('ranking')} {tid('leaderboard')}")
    # a name in the leaderboard opens the player's page; Escape comes back to the name
    tab_to(page, "leader-Ana")
    expect(page.locator(":focus")).to_have_accessible_name(say(lang, "my_page", name="Ana"))
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{tid('player')}[open] {tid('player-stats')}")
    close_with_escape(page, "player", "leader-Ana")
    close_with_escape(page, "ranking", "open-ranking")
    assert page.js_errors == []


def test_statistics_asked_by_name_keep_the_focus_in_the_window(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    page = page_without_games_window(new_page, live_server.url, "pt", None)
    tab_to(page, "open-stats")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{tid('stats')}[open] {tid('stats-ask')}")
    assert page.evaluate(FOCUSED) == "stats-name"
    expect(page.get_by_role("dialog", name=say("pt", "stats"))).to_be_visible()
    page.keyboard.type("Ana")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{tid('stats')} {tid('stats-body')} table")
    assert inside(page, "stats"), page.evaluate(FOCUSED)
    close_with_escape(page, "stats", "open-stats")
    assert page.js_errors == []


def lobby_table(table: int, people: list[str], free: int, profile: str = "club") -> dict[str, Any]:
    seats = [{"kind": "person", "name": n} for n in people] + [{"kind": "open"}] * free
    game = "mariage" if profile == "mariage" else "mil"
    return {"table": table, "game": game, "profile": profile, "seats": seats, "free": free}


@pytest.mark.parametrize("lang", LANGS)
def test_the_lobby_with_the_keyboard_and_its_live_list(new_page, live_server, lang: str) -> None:  # type: ignore[no-untyped-def]
    """The list comes from /ws/lobby (played here by the test, so that no table of other
    tests shows up): a message that changes it keeps the focus on its "Sit down"."""
    page = page_without_games_window(new_page, live_server.url, lang, "Eva")
    sockets: list[Any] = []
    page.route_web_socket("**/ws/lobby", lambda ws: sockets.append(ws))

    def send(*tables: dict[str, Any]) -> None:
        sockets[-1].send(json.dumps({"type": "lobby", "tables": list(tables)}))

    tab_to(page, "open-lobby")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{tid('lobby')}[open]")
    expect(page.get_by_role("dialog", name=say(lang, "lobby"))).to_be_visible()
    assert page.evaluate(FOCUSED) == "lobby-name"
    for _ in range(100):
        if sockets:
            break
        page.wait_for_timeout(50)
    send(lobby_table(7, ["Ana"], 2))
    page.wait_for_selector(tid("sit-7"))
    count = page.locator(f"{tid('lobby')} [role='status']")
    expect(count).to_have_text(say(lang, "lobby_count_one", n=1))
    count.evaluate(
        """(el) => { window.said = [];
            new MutationObserver(() => window.said.push(el.textContent))
              .observe(el, {childList: true, characterData: true, subtree: true}); }"""
    )

    # the button names its table: game, people, free seats and clock
    tab_to(page, "sit-7")
    club = say(lang, "profile_club")
    sit = say(lang, "sit_down")
    none = say(lang, "clock_none")
    expect(page.locator(":focus")).to_have_accessible_name(
        f"{sit}: {club} · Ana · {say(lang, 'free_seats', n=2)} · {none}"
    )
    # someone sits at 7 and a table 8 of the same game opens: the focus stays on 7's button,
    # the two buttons read apart, the live line says 2 tables
    send(lobby_table(7, ["Ana", "Bea"], 1), lobby_table(8, ["Carla"], 2))
    page.wait_for_selector(tid("sit-8"))
    assert page.evaluate(FOCUSED) == "sit-7"
    expect(page.get_by_role("button", name=re.compile(f"^{sit}: .*Ana, Bea"))).to_have_count(1)
    expect(page.get_by_role("button", name=re.compile(f"^{sit}: .*Carla"))).to_have_count(1)
    expect(count).to_have_text(say(lang, "lobby_count", n=2))
    # a seat taken says nothing (the number of tables is the same)
    send(lobby_table(7, ["Ana", "Bea"], 1), lobby_table(8, ["Carla", "Dora"], 1))
    expect(page.locator(tid("lobby-tables"))).to_contain_text("Dora")
    assert page.evaluate("() => window.said") == [say(lang, "lobby_count", n=2)]
    # the table the focus was on leaves the list: the focus stays in the list
    send(lobby_table(8, ["Carla", "Dora"], 1))
    page.wait_for_selector(tid("sit-7"), state="detached")
    assert page.evaluate(FOCUSED) == "sit-8"
    expect(count).to_have_text(say(lang, "lobby_count_one", n=1))

    # choosing a game draws the window again: the focus stays on the chosen game
    tab_to(page, "lobby-choose-mariage-mariage")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{tid('lobby-choose-mariage-mariage')}[aria-pressed='true']")
    assert page.evaluate(FOCUSED) == "lobby-choose-mariage-mariage"
    # the form's controls, each with its ring, up to the window's Close button
    tab_to(page, "lobby-close")
    close_with_escape(page, "lobby", "open-lobby")
    assert page.js_errors == []


@pytest.fixture(scope="module")
def finished_mil(live_server) -> int:  # type: ignore[no-untyped-def]
    table_id, _ = finished_table(live_server.db_path, "mil", seed=41, max_deals=1)
    return table_id


@pytest.mark.parametrize("lang", LANGS)
def test_a_step_of_the_replay_says_its_move(new_page, live_server, finished_mil, lang: str) -> None:  # type: ignore[no-untyped-def]
    page: Page = new_page(locale=LOCALES[lang])
    page.goto(f"{live_server.url}/?replay={finished_mil}")
    page.wait_for_selector(f"{tid('replay')}[open] {tid('replay-position')}")
    assert page.evaluate(FOCUSED) == "replay-step"
    total = page.locator(tid("replay-move")).count()
    for frame in (1, 2):
        page.keyboard.press("ArrowRight")
        page.wait_for_selector(f'{tid("replay-position")}[data-frame="{frame}"]')
        assert page.evaluate(FOCUSED) == "replay-step"
        check_ring(page)
        move = page.inner_text(f"{tid('replay-action')} strong")
        assert move == page.locator(tid("replay-move")).nth(frame).inner_text()
        step = say(lang, "review_step_of", n=frame + 1, total=total)
        # (its text: a status's name is not read with it, and one changing with the text
        # would be said twice)
        expect(page.locator(":focus")).to_have_text(f"{step}: {move}")
    # the stepper's buttons with their rings, named in the language
    tab_to(page, "replay-first", key="Shift+Tab")
    expect(page.locator(":focus")).to_have_accessible_name(say(lang, "review_first"))
    page.keyboard.press("Enter")
    page.wait_for_selector(f'{tid("replay-position")}[data-frame="0"]')
    # (the button it was on is disabled now: the focus waits on the step count)
    assert page.evaluate(FOCUSED) == "replay-step"
    tab_to(page, "replay-last")
    expect(page.locator(":focus")).to_have_accessible_name(say(lang, "review_last"))
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{tid('replay')}:not([open])", state="attached")
    assert page.js_errors == []


def test_the_games_window_keeps_the_focus_on_each_choice(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """The Games window is drawn anew at each choice (a game, a level, a language): Enter on
    Mariage sent the focus to the page's body, and the next Tab started the window over."""
    page = new_page(locale=LOCALES["en"])
    page.goto(live_server.url)
    page.wait_for_selector(f"{tid('newgame')}[open]")
    focused = "() => document.activeElement.dataset.testid || document.activeElement.tagName"
    for choice in ("choose-mariage", "choose-mil-casa", "dlg-lang-es"):
        page.focus(tid(choice))
        page.keyboard.press("Enter")
        expect(page.locator(tid(choice))).to_have_attribute("aria-pressed", "true")
        assert page.evaluate(focused) == choice
    level = page.locator(f"{tid('newgame')} [data-testid^='level-1-']").last
    testid = level.get_attribute("data-testid")
    level.focus()
    page.keyboard.press("Enter")
    assert page.evaluate(focused) == testid
