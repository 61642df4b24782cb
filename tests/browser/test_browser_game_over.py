"""The game-over screen of a whole game, reached through the page: a table begun near the end
(a start position, created the way an administrator would, never through the HTTP API),
played until someone wins; the winner, the final scores, the chart (its legend above the
plot), the barrel and bolts and the downloaded record, then the same screen in the other
languages (with a rated table's ratings, a negative one written with the change's minus)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from browser_helpers import (
    LOCALES,
    admin_table,
    open_seat,
    play_until_deal_ends,
    shot,
    state,
    tid,
    view,
)

from tapete.replay import replay

WON = {"es": "¡Has ganado!", "pt": "Ganhou!", "en": "You won!"}
WINS = {
    "es": "Gana la partida {name}",
    "pt": "{name} ganha o jogo",
    "en": "{name} wins the game",
}
DOWNLOAD = {
    "es": "Descargar la partida",
    "pt": "Descarregar o registo",
    "en": "Download the record",
}

#: the chart's name, as a screen reader says it (pt: a deal is a "mão", as everywhere else)
CHART_LABEL = {
    "es": "La puntuación de cada jugador tras cada una de las {n} manos",
    "pt": "A pontuação de cada jogador após cada uma das {n} mãos",
    "en": "Each player's score after each of the {n} deals",
}
#: a script: where the chart's legend is and where the plot's lines, marks and target begin
#: (SVG units, y down): the legend was drawn on the target line, the lines over the names
LEGEND_AND_PLOT = """(svg) => {
  const legend = svg.querySelector('g.legend').getBBox();
  const plot = [...svg.querySelectorAll('polyline, rect.barrel-mark, line.target')]
    .map((e) => e.getBBox().y);
  return {top: legend.y, bottom: legend.y + legend.height, plot: Math.min(...plot)};
}"""
#: why a hand was won, in English (the last hand of the Mariage match)
WHY = {
    "claim": "66 claimed",
    "false_claim": "false claim",
    "closer_failed": "the closing failed",
    "opponent_claimed_after_close": "claimed after the closing",
    "exhausted": "last trick",
}
#: a rated table's ratings after the game (GET /api/tables/{id}/ratings), one below zero
RATINGS = {
    "rated": True,
    "pool": "mariage",
    "seats": [
        {"seat": 0, "name": "Ana", "ordinal": -1.84, "change": -1.84, "provisional": True},
        {"seat": 1, "name": "Bea", "ordinal": 2.5, "change": 2.5, "provisional": False},
    ],
}
#: the first seat's rating line in each language: one minus sign (U+2212), value and change
RATED = {
    "es": ("\u22121,8", "(\u22121,8)", "Ana: clasificación \u22121,8 tras esta partida, baja 1,8"),
    "pt": ("\u22121,8", "(\u22121,8)", "Ana: classificação \u22121,8 após este jogo, desce 1,8"),
}

#: Mil club: both computer players in the barrel, the person with two bolts
MIL_START = {"scores": [500, 880, 880], "in_barrel": [False, True, True], "bolts": [2, 0, 0]}
#: Mariage: the next hand decides the match
MARIAGE_START = {"game_points": [6, 6]}


def _table(live_server: Any, game: str, start: dict[str, Any], seed: int) -> tuple[int, str]:
    """A table begun from ``start``, made by a second manager on the server's database (the
    live server rebuilds it from there when the page connects)."""
    return admin_table(
        live_server.db_path,
        game=game,
        profile="club" if game == "mil" else "mariage",
        name="Ana",
        language="en",
        levels=["rules"] * (2 if game == "mil" else 1),
        seed=seed,
        start=start,
    )


def _open(page: Any, url: str, table_id: int, token: str) -> None:
    open_seat(page, url, table_id, token)


def _winner_text(v: dict[str, Any], lang: str) -> str:
    if v["winner"] == v["seat"]:
        return WON[lang]
    return WINS[lang].format(name=v["players"][v["winner"]])


def _fmt(x: float, lang: str = "en") -> str:
    """A score as the page writes it in ``lang`` (a decimal comma in es and pt)."""
    text = str(int(x)) if float(x).is_integer() else f"{x:.1f}"
    return text if lang == "en" else text.replace(".", ",")


def _check_over_dialog(page: Any, v: dict[str, Any], lang: str) -> None:
    page.wait_for_selector(f"{tid('over')}[open]")
    assert page.inner_text(tid("winner")) == _winner_text(v, lang)
    # the window is named by its title, as a screen reader announces it
    assert page.get_by_role("dialog", name=_winner_text(v, lang)).get_attribute("id") == "over"
    assert page.locator(tid("no-winner")).count() == 0  # (only a game with nobody at the target)
    scores = v["scores"] if v["game"] == "mil" else v["match"]
    finals = page.locator(f"{tid('over')} ul.final li").all_inner_texts()
    assert finals == [f"{n} {_fmt(s, lang)}" for n, s in zip(v["players"], scores, strict=True)]
    assert page.inner_text(tid("download-record")) == DOWNLOAD[lang]
    chart = page.locator(f"{tid('over')} {tid('score-chart')}")
    assert chart.get_attribute("aria-label") == CHART_LABEL[lang].format(n=len(v["sheet"]))
    if lang == "pt":  # (the axis: Mil's deals and Mariage's hands alike)
        assert chart.locator(".caption").text_content() == "mãos"
    # the legend in a band of its own above the plot: nothing is drawn over it
    where = chart.evaluate(LEGEND_AND_PLOT)
    assert where["top"] >= 0 and where["bottom"] <= where["plot"], where


#: the size at which each text of a chart is drawn, in CSS pixels (its font size scaled as the
#: picture is)
TEXT_PX = """(svg) => {
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  return [...svg.querySelectorAll('text')].map(
    (e) => parseFloat(getComputedStyle(e).fontSize) * scale);
}"""


def _check_record(page: Any, url: str, v: dict[str, Any], start: dict[str, Any]) -> None:
    href = page.get_attribute(tid("download-record"), "href")
    res = page.request.get(f"{url}{href}")
    assert res.status == 200 and "attachment" in res.headers["content-disposition"]
    record = res.json()
    assert record["winner"] == v["winner"] and record["seed"] is not None
    assert all(record["start"][k] == x for k, x in start.items())
    again = replay(record).view(None)
    assert again["winner"] == v["winner"]
    if v["game"] == "mil":
        assert again["scores"] == v["scores"] and again["in_barrel"] == v["in_barrel"]
    else:
        assert again["match"] == v["match"]


def _play_to_the_end(page: Any, rng: random.Random, max_deals: int) -> dict[str, Any]:
    log: list[str] = []
    for _ in range(max_deals):
        play_until_deal_ends(page, rng, log, bid_more=False)
        if state(page)["over"] == "true":
            return view(page)
    raise AssertionError(f"no winner after {max_deals} deals: {log}")


@pytest.mark.parametrize(
    ("game", "start", "seed", "max_deals"),
    [("mil", MIL_START, 2, 15), ("mariage", MARIAGE_START, 3, 4)],
)
def test_game_over_screen_in_every_language(
    new_page, live_server, artifacts, game: str, start: dict[str, Any], seed: int, max_deals: int
) -> None:
    table_id, token = _table(live_server, game, start, seed)
    page = new_page(locale=LOCALES["en"])
    _open(page, live_server.url, table_id, token)
    first = view(page)
    if game == "mil":
        # the start position is on the table: the barrel and the bolts
        for seat in (1, 2):
            assert page.locator(f"{tid(f'seat-{seat}')} .badge.barrel").count() == 1
        assert page.inner_text(f"{tid('seat-0')} .badge.bolt") == "⚡ 2"
        assert first["scores"] == [500, 880, 880]
    else:
        assert first["match"] == [6, 6]
    v = _play_to_the_end(page, random.Random(seed), max_deals)
    assert v["over"] and v["winner"] is not None
    _check_over_dialog(page, v, "en")
    shot(page, artifacts, f"game-over-{game}-en")
    _check_record(page, live_server.url, v, start)
    page.click(tid("over-close"))
    if game == "mil":
        # after the dialog, the table: barrel and bolts as the last view says, on the seats
        # and in the sheet's last row
        last_row = page.locator(f"{tid('sheet')} {tid('sheet-row')}").last
        cells = last_row.locator("td").all_inner_texts()[2:]
        for seat in range(3):
            badge = page.locator(f"{tid(f'seat-{seat}')} .badge.barrel").count()
            assert badge == int(v["in_barrel"][seat])
            assert ("B" in cells[seat]) == v["in_barrel"][seat], cells
            bolts = v["bolts"][seat]
            assert (f"⚡{bolts}" in cells[seat]) == bool(bolts), cells
            assert cells[seat].startswith(_fmt(v["scores"][seat])), cells
        assert page.locator(f"{tid('seat-0')} .badge.bolt").count() == int(bool(v["bolts"][0]))
    else:
        # the hand's winner and why, the why's words each whole or cut short (never broken)
        row = v["sheet"][-1]
        winner = page.locator(f"{tid('sheet')} {tid('sheet-row')} td:nth-child(2)").last
        why = WHY.get(row["reason"], "")
        assert winner.text_content() == f"{v['players'][row['winner']]} · {why}"
    assert page.js_errors == []

    # the same finished table in the other languages: the end screen comes straight back
    # (Portuguese on a phone: the chart's words stay readable, drawn at 9 px or more; at the
    # desktop's 560 units they were 6 px)
    for lang in ("es", "pt"):
        size = {"width": 390, "height": 844} if lang == "pt" else {}
        other = new_page(locale=LOCALES[lang], **size)
        other.route("**/api/tables/*/ratings", lambda route: route.fulfill(json=RATINGS))
        _open(other, live_server.url, table_id, token)
        _check_over_dialog(other, v, lang)
        chart = other.locator(f"{tid('over')} {tid('score-chart')}")
        assert min(chart.evaluate(TEXT_PX)) >= 9, (lang, chart.evaluate(TEXT_PX))
        rating = other.locator(tid("over-rating-0"))
        value, change, label = RATED[lang]
        assert rating.locator(tid("over-rating-value")).inner_text() == value
        assert rating.locator(tid("over-rating-change")).inner_text() == change
        assert rating.get_attribute("aria-label").startswith(label)
        shot(other, artifacts, f"game-over-{game}-{lang}")
        assert other.js_errors == []


#: the end window of a game stopped at its cap on deals, with nobody at the target
NO_WINNER = {
    (
        "mil",
        "es",
    ): "Nadie ha ganado: la partida se detuvo al llegar al máximo de manos que puede durar.",
    ("mil", "en"): "Nobody won: the game stopped at the most deals a game may last.",
    ("mariage", "pt"): "Ninguém ganhou: o jogo parou ao chegar ao máximo de mãos que pode durar.",
    ("mariage", "en"): "Nobody won: the match stopped at the most hands a match may last.",
}
#: ...and why it is not ranked: stopped at the server's cap, it counts in nothing
CAPPED = {
    "es": "No entra en el Ranking ni cuenta en las estadísticas.",
    "pt": "Não entra no Ranking nem conta nas estatísticas.",
    "en": "It is not ranked and does not count in the statistics.",
}


def _over_page(new_page, live_server, game: str, lang: str, **options: Any):  # type: ignore[no-untyped-def]
    """A table of Ana against the computers made with ``options`` (``max_deals``, ``seed``),
    played through the page until its first deal ends: the game is then over."""
    table_id, token = admin_table(
        live_server.db_path,
        game=game,
        profile="club" if game == "mil" else "mariage",
        name="Ana",
        language=lang,
        levels=["rules"] * (2 if game == "mil" else 1),
        **options,
    )
    page = new_page(locale=LOCALES[lang])
    return page, table_id, token


def _play_to_over(page: Any, url: str, table_id: int, token: str) -> None:
    open_seat(page, url, table_id, token)
    play_until_deal_ends(page, random.Random(5), [], bid_more=False)
    assert state(page)["over"] == "true" and view(page)["winner"] is None
    page.wait_for_selector(f"{tid('over')}[open] {tid('not-ranked')}")


@pytest.mark.parametrize(("game", "lang"), list(NO_WINNER))
def test_a_game_stopped_at_its_cap_says_why_nobody_won(
    new_page, live_server, game: str, lang: str
) -> None:  # type: ignore[no-untyped-def]
    """A game that reaches its cap on deals (80 Mil deals, 60 Mariage hands when the table
    sets none, docs/server.md) ends with no winner: the end window says so and why, where it
    read "Game over" above the scores and nothing more, and that it counts in neither the
    Ranking nor the statistics. (The table here stops after one deal, ``max_deals=1``; its
    description is answered as the server's cap's, ``max_deals`` null.)"""
    page, table_id, token = _over_page(new_page, live_server, game, lang, max_deals=1)

    def as_capped(route: Any) -> None:
        info = route.fetch().json()
        assert info["max_deals"] == 1 and info["seed_chosen"] is False
        route.fulfill(json={**info, "max_deals": None, "ranked": True, "status": "abandoned"})

    page.route(f"**/api/tables/{table_id}", as_capped)
    _play_to_over(page, f"{live_server.url}/?lang={lang}", table_id, token)
    assert page.inner_text(tid("no-winner")) == NO_WINNER[(game, lang)]
    assert page.inner_text(tid("not-ranked")) == CAPPED[lang]
    assert page.js_errors == []


#: a game its creator limited to one deal (``max_deals``: not ranked, in the statistics), on
#: a deal the server drew or on a chosen one (in neither): (no winner, not ranked)
LIMITED = {
    ("mil", "en", False): (
        "Nobody won: the game stopped after the deals its creator set.",
        "Its creator limited this game to 1 deal: it is not ranked, but it counts in the "
        "statistics.",
    ),
    ("mariage", "en", False): (
        "Nobody won: the match stopped after the hands its creator set.",
        "Its creator limited this match to 1 hand: it is not ranked, but it counts in the "
        "statistics.",
    ),
    ("mariage", "es", False): (
        "Nadie ha ganado: la partida se detuvo tras las manos que fijó quien creó la mesa.",
        "Quien creó la mesa limitó esta partida a 1 mano: no entra en el Ranking, pero cuenta "
        "en las estadísticas.",
    ),
    ("mil", "pt", False): (
        "Ninguém ganhou: o jogo parou após as mãos que quem criou a mesa fixou.",
        "Quem criou a mesa limitou este jogo a 1 mão: não entra no Ranking, mas conta nas "
        "estatísticas.",
    ),
    ("mil", "en", True): (
        "Nobody won: the game stopped after the deals its creator set.",
        "This game was played on a chosen deal: it is not ranked and does not count in the "
        "statistics.",
    ),
}


@pytest.mark.parametrize(("game", "lang", "chosen"), list(LIMITED))
def test_a_game_limited_by_its_creator_says_so(
    new_page, live_server, game: str, lang: str, chosen: bool
) -> None:  # type: ignore[no-untyped-def]
    """A table made with ``max_deals`` (tests, benchmarks) is not ranked but counts in the
    statistics (docs/server.md): its end window said "This game was played on a chosen deal:
    it is not ranked and does not count in the statistics.", wrong on both counts, and that
    nobody won at "the most deals a game may last". Its own sentences now, from the table's
    description (``max_deals``, ``seed_chosen``); a chosen deal says so as before."""
    options: dict[str, Any] = {"max_deals": 1, "seed": 5} if chosen else {"max_deals": 1}
    page, table_id, token = _over_page(new_page, live_server, game, lang, **options)
    _play_to_over(page, f"{live_server.url}/?lang={lang}", table_id, token)
    no_winner, not_ranked = LIMITED[(game, lang, chosen)]
    assert page.inner_text(tid("no-winner")) == no_winner
    assert page.inner_text(tid("not-ranked")) == not_ranked
    assert page.locator(tid("not-ranked")).count() == 1
    assert page.js_errors == []
