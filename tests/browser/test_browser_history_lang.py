"""What happened follows the language: a change of language says the history's lines again
in the new one (they stayed in the language they were said in: "Bruno echa el as de picas"
under an English table), after a reload too; and on its newest line the list shows whole
lines, none cut in half at its top."""

from __future__ import annotations

import random

from browser_helpers import start_game, take_turn, tid, wait_turn

LOG = tid("log")
#: the words of a card played, "{name} echa {card}" / "{name} plays the {card}"
PLAYS = {"es": " echa ", "en": " plays the "}
SPANISH_SUITS = ("picas", "tréboles", "diamantes", "corazones")
#: the list's top edge cuts a line (at its newest line, with more lines than fit)
CUT = """() => { const ol = document.querySelector('[data-testid="log"]');
    const top = ol.getBoundingClientRect().top + ol.clientTop;
    return { overflows: ol.scrollHeight > ol.clientHeight + 1,
             atEnd: ol.scrollTop + ol.clientHeight >= ol.scrollHeight - 1,
             cut: [...ol.children].some((li) => { const r = li.getBoundingClientRect();
                 return r.top < top - 0.5 && r.bottom > top + 0.5; }) }; }"""


def _lines(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.locator(f"{LOG} li").all_inner_texts()


def test_the_history_speaks_the_new_language(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="es-ES")
    start_game(page, live_server.url, "mil-club", name="Ana", levels=("random", "random"), seed=7)
    rng = random.Random(7)
    moves: list[str] = []
    for _ in range(40):  # until a card was played and the list holds more than it shows
        if wait_turn(page) == "over":
            break
        take_turn(page, rng, moves)
        lines = _lines(page)
        if len(lines) >= 8 and any(PLAYS["es"] in x for x in lines):
            break
    wait_turn(page)
    spanish = _lines(page)
    assert any(PLAYS["es"] in x for x in spanish), spanish

    page.click(tid("lang-en"))
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    english = _lines(page)
    assert len(english) == len(spanish)
    assert any(PLAYS["en"] in x for x in english), english
    assert not any(PLAYS["es"] in x or any(s in x for s in SPANISH_SUITS) for x in english), english
    # the status line too (it already did)
    assert PLAYS["es"] not in page.inner_text(tid("status"))

    # a reload brings the lines back from this tab's storage, still in English
    page.reload()
    page.wait_for_selector(f"{LOG} li")
    assert _lines(page) == english

    # the newest line shows, and no line is cut in half at the top: lines of one to four rows
    # (the words of a deal's end wrap in the side panel), in windows of several widths
    long = "Carla echa el as de corazones. Fin de la mano. Ana -180 · Bruno -165 · Carla 100. "
    boxes = []
    for lines in ([1, 3, 3, 1, 1, 1, 1, 1], [2, 1, 4, 1, 2, 1, 1, 1], [1, 1, 1, 1, 2, 2, 2, 2]):
        page.evaluate(
            """async (rows) => { window.tapete.log = rows;
                (await import('/static/js/state.js')).screen.table(); }""",
            [long * (n - 1) + "Bruno pasa" for n in lines],
        )
        for width in (1280, 1180, 1100, 1000):
            page.set_viewport_size({"width": width, "height": 700})
            page.wait_for_timeout(100)
            boxes.append((lines, width, page.evaluate(CUT)))
    assert sum(box["overflows"] for *_, box in boxes) > 4, boxes
    assert [x for x in boxes if not x[2]["atEnd"] or x[2]["cut"]] == []
    assert page.js_errors == []


#: how much of What happened shows: the list's height, its lines' heights, and whether its top
#: edge cuts a line (at its newest line)
SHOWN = """() => { const ol = document.querySelector('[data-testid="log"]');
    const top = ol.getBoundingClientRect().top + ol.clientTop;
    const wrap = document.querySelector('.side .sheetwrap');
    return { height: ol.clientHeight,
             line: Math.min(...[...ol.children].map((li) => li.getBoundingClientRect().height)),
             atEnd: ol.scrollTop + ol.clientHeight >= ol.scrollHeight - 1,
             cut: [...ol.children].some((li) => { const r = li.getBoundingClientRect();
                 return r.top < top - 0.5 && r.bottom > top + 0.5; }),
             sheet: wrap.clientHeight,
             side: document.querySelector('.side').scrollHeight
                 - document.querySelector('.side').clientHeight }; }"""


def test_a_long_sheet_leaves_the_history_its_lines(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """Late in a game the score sheet holds more rows than the side panel: it scrolls in its
    own box, and What happened keeps several whole lines beside it (it was squeezed with the
    sheet, down to a sliver of one line, or nothing, at 1280x800 after 14 deals)."""
    page = new_page(locale="es-ES", width=1280, height=800)
    start_game(page, live_server.url, "mil-club", name="Ana", levels=("random", "random"), seed=7)
    page.wait_for_selector(f"{tid('hand')} .card")
    row = {
        "dealer": 0,
        "declarer": 1,
        "bid": 100,
        "contract": 100,
        "scores": [25, 100, 40],
        "deltas": [25, 100, 40],
        "bolts": [1, 0, 0],
        "in_barrel": [False, False, False],
        "barrel_attempts": [0, 0, 0],
    }
    long = "Carla echa el as de corazones. Fin de la mano. Ana -180 · Bruno -165 · Carla 100. "
    page.evaluate(
        """async ([row, lines]) => { const t = window.tapete;
            t.view = { ...t.view, sheet: Array.from({ length: 20 }, () => row) };
            t.log = lines;
            (await import('/static/js/state.js')).screen.table(); }""",
        [row, [long * (n - 1) + "Bruno pasa" for n in (1, 1, 2, 1, 1, 3, 1, 1)]],
    )
    shown = []
    for height in (800, 720, 900):
        page.set_viewport_size({"width": 1280, "height": height})
        page.wait_for_timeout(100)
        shown.append((height, page.evaluate(SHOWN)))
    for height, box in shown:
        assert box["atEnd"] and not box["cut"], (height, box)
        assert box["height"] >= 3 * box["line"] - 1, (height, box)  # three rows at least
        assert box["sheet"] >= 96, (height, box)  # the sheet keeps its 6 rem
        assert box["side"] <= 1, (height, box)  # the panel overflows nothing
    assert page.js_errors == []
