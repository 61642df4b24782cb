"""Rare moments of Mil deals on a phone (390×844) and a desktop (1280×800): all in the window.

The long-game test (test_browser_long_game.py) plays against random computers, so which rare
moments it meets differs from run to run (a redeal offer after a played deal, one for two
reasons, a deal annulled by a redeal, a redeal asked in the next deal while a deal's end is
held, a marriage with the talon and the "Announce" toggle: each once overflowed the phone's
screen, and a later deal's redeal was drawn on the held deal's end). Here the moments are
certain: seeded engine games, random moves for every seat, each message seat 0 would receive
fed to the page as the server sends it, the screen measured after every message (autoplay.js's
check). A deal's end is held while three more messages arrive, as when the server plays on
before the player presses "Next deal", or until seat 0 must act.

Each game is played only as far as its moments (``GAMES``): 195 messages in all instead of
the 1,005 of twelve deals of seeds 7, 48 and 123 (85 s a screen size on the 2-core VM, now
about 11 s). An offer for two reasons is rare: one seed in 360 has one in its first 150
actions; seed 798 has it at its first view.
"""

from __future__ import annotations

import random
from typing import Any

import autoplay
import pytest
from browser_helpers import shot, start_game, tid
from test_browser_views import Feeder

from tapete.games import new_game

PLAYERS = ["Ana", "Bruno", "Carla"]
HELD = 3  # messages that arrive while a deal's end is held
MOMENTS = (
    "offer after a played deal",
    "offer for two reasons",
    "annulled by a redeal",
    "redeal while held",
)
#: (seed, deals played): the redeal while held in seed 7's fourth deal, the offer after a
#: played deal and the annulled deal in seed 48's second and third, two reasons in 798's first
GAMES = ((7, 4), (48, 3), (798, 2))


def stream(seed: int, deals: int) -> list[dict[str, Any]]:
    """Seat 0's messages of a seeded club game with random moves, for `deals` deals."""
    g = new_game("mil", "club", seed=seed, players=PLAYERS)
    rng = random.Random(seed)
    out = [{"view": g.view(0), "events": []}]
    while not g.over and len(g.view(0)["sheet"]) < deals:
        events = g.apply(rng.choice(g.legal_actions()))
        out.append({"view": g.view(0), "events": [e.for_viewer(0) for e in events]})
    return out


@pytest.mark.parametrize(
    ("locale", "width", "height"),
    [("es-ES", 390, 844), ("pt-PT", 390, 844), ("pt-PT", 1280, 800)],  # (pt: the longest words)
)
def test_rare_moments_of_mil_deals_fit_the_screen(
    new_page, live_server, artifacts, locale, width, height
) -> None:
    page = new_page(locale=locale, width=width, height=height)
    start_game(page, live_server.url, "mil-club", name="Ana")
    feed = Feeder(page)  # (the live table's own messages: not now)
    autoplay.start(page)
    autoplay.pause(page)  # (only its measure is used here)
    seen = dict.fromkeys(MOMENTS, 0)  # each moment, counted as the page showed it
    shots = 0
    for seed, deals in GAMES:
        held = None  # the message at which a deal's end began to be held
        for i, m in enumerate(stream(seed, deals)):
            mine = m["view"].get("turn") == 0 and bool(m["view"].get("legal"))
            if held is not None and i - held >= HELD:
                page.click(tid("next-deal"))
                held = None
            feed.events(m["view"], m["events"])
            where = f"seed {seed}, message {i}"
            page.evaluate("(w) => window.__fitCheck(w)", where)
            if len(autoplay.problems(page)) > shots and shots < 8:
                shot(page, artifacts, f"fit-{width}x{height}-{locale}-{seed}-{i}")
                shots = len(autoplay.problems(page))
            redeal = any(e.get("action", {}).get("type") == "redeal" for e in m["events"])
            if page.locator(tid("deal-end")).count():
                if held is None:
                    held = i
                    seen["annulled by a redeal"] += page.locator(tid("deal-end-redeal")).count()
                elif redeal:
                    seen["redeal while held"] += 1
                    later = page.locator(tid("redeal-shown")).count()
                    assert not later, f"{where}: a later redeal's cards on a held deal's end"
            if held is not None and mine:  # the player goes on to act at once
                page.click(tid("next-deal"))
                held = None
                page.evaluate("(w) => window.__fitCheck(w)", f"{where}, next deal")
            offers = page.locator(f"{tid('redeal-panel')} button.primary").count()
            if offers and page.locator(".trick.final").count():
                seen["offer after a played deal"] += 1
            seen["offer for two reasons"] += offers > 1
    assert all(v > 0 for v in seen.values()), seen
    assert autoplay.problems(page) == []
    assert page.js_errors == []


#: a name with no space, longer than the sheet's Contract column at 1280 px
LONG_NAME = "Maximiliano1987"
#: a script: per score-sheet part, the cells where it shows on more than one line or sticks
#: out of its cell (a deal's number "1" over "0", a name broken "Maximil / iano1987", a
#: word "distrib / uição"), and the names and words cut short
SHEET_PARTS = """() => {
  const rangeLines = (r) => {
    const tops = [...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top));
    return new Set(tops).size; };
  const lines = (el) => { const r = document.createRange(); r.selectNodeContents(el);
    return rangeLines(r); };
  // the lines of a cell's first word (the declarer's name)
  const nameLines = (td) => { const node = document.createTreeWalker(td, NodeFilter.SHOW_TEXT)
      .nextNode();
    const r = document.createRange(); r.setStart(node, 0);
    r.setEnd(node, node.textContent.split(' ')[0].length); return rangeLines(r); };
  const right = (el) => el.getBoundingClientRect().right;
  const out = (el) => right(el) > right(el.closest('td')) + 0.5;
  const sheet = document.querySelector('[data-testid="sheet"]');
  const all = (sel) => [...sheet.querySelectorAll(sel)];
  const numbers = all('[data-testid="sheet-row"] td:first-child');
  const words = all('.word');
  const cut = words.filter((e) => e.scrollWidth > e.clientWidth);
  return {
    rows: numbers.length,
    number: numbers.filter((e) => lines(e) > 1 || e.scrollWidth > e.clientWidth)
      .map((e) => e.textContent),
    value: all('.num, .total, .delta').filter((e) => lines(e) > 1 || out(e))
      .map((e) => e.textContent),
    name: all('[data-testid="sheet-row"] td:nth-child(2)').filter((e) => nameLines(e) > 1)
      .map((e) => e.textContent).concat(words.filter((e) => lines(e) > 1).map((e) => e.title)),
    cut: cut.map((e) => [e.title, e.textContent, getComputedStyle(e).textOverflow]),
  };
}"""


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)])
def test_a_long_score_sheet_keeps_numbers_and_names_whole(
    new_page, live_server, artifacts, width, height
) -> None:
    """Deal 10 on, the sheet's "#" wrote its numbers on two lines, and a name without a space
    broke inside the word in the Contract column: a sheet of 12, then 105 deals."""
    page = new_page(locale="pt-PT", width=width, height=height)
    start_game(page, live_server.url, "mil-club", name="Ana")
    feed = Feeder(page)
    g = new_game("mil", "club", seed=1, players=[LONG_NAME, "Bruno", "Carla"])
    rng = random.Random(1)
    for deals in (12, 105):
        while len(g.view(0)["sheet"]) < deals:
            g.apply(rng.choice(g.legal_actions()))
        feed.show(g.view(0))
        page.locator(tid("sheet-scroll")).evaluate("(e) => { e.scrollTop = 0; }")
        shot(page, artifacts, f"sheet-{deals}-deals-{width}x{height}")
        # the Contract column says the whole of each deal (only the look of it is cut)
        players = g.view(0)["players"]
        wanted = [
            "nova distribuição"
            if r["annulled"]
            else f"{players[r['declarer']]} {r['bid']} · rospis"
            if r["rospis"]
            else f"{players[r['declarer']]} {r['contract']}"
            for r in g.view(0)["sheet"]
        ]
        contracts = page.locator(f"{tid('sheet')} {tid('sheet-row')} td:nth-child(2)")
        assert contracts.all_text_contents() == wanted
        parts = page.evaluate(SHEET_PARTS)
        assert parts["rows"] == deals
        assert parts["number"] == [] and parts["value"] == [] and parts["name"] == [], parts
        # a name or word cut short says so (an ellipsis) and is whole in its title
        cut = parts["cut"]
        assert all(title == text and end == "ellipsis" for title, text, end in cut), cut
        assert LONG_NAME in {title for title, _, _ in cut}, cut  # (it is longer than its column)
    assert page.js_errors == []
