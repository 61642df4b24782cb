"""The game-over screen of a whole game, reached through the page: a table begun near the end
(a start position, created the way an administrator would, never through the HTTP API),
played until someone wins; the winner, the final scores, the barrel and bolts and the
downloaded record, then the same screen in the other languages."""

from __future__ import annotations

import random
from typing import Any

import pytest
from browser_helpers import LOCALES, open_seat, play_until_deal_ends, shot, state, tid, view

from tapete.replay import replay
from tapete.server.db import make_engine
from tapete.server.tables import TableManager

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

#: Mil club: both computer players in the barrel, the person with two bolts
MIL_START = {"scores": [500, 880, 880], "in_barrel": [False, True, True], "bolts": [2, 0, 0]}
#: Mariage: the next hand decides the match
MARIAGE_START = {"game_points": [6, 6]}


def _table(live_server: Any, game: str, start: dict[str, Any], seed: int) -> tuple[int, str]:
    """A table begun from ``start``, made by a second manager on the server's database (the
    live server rebuilds it from there when the page connects)."""
    engine = make_engine(f"sqlite:///{live_server.db_path}")
    try:
        manager = TableManager(engine)
        table = manager.create(
            game=game,
            profile="club" if game == "mil" else "mariage",
            name="Ana",
            language="en",
            levels=["rules"] * (2 if game == "mil" else 1),
            seed=seed,
            start=start,
        )
    finally:
        engine.dispose()
    return table.id, table.token


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
    scores = v["scores"] if v["game"] == "mil" else v["match"]
    finals = page.locator(f"{tid('over')} ul.final li").all_inner_texts()
    assert finals == [f"{n} {_fmt(s, lang)}" for n, s in zip(v["players"], scores, strict=True)]
    assert page.inner_text(tid("download-record")) == DOWNLOAD[lang]


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
    assert page.js_errors == []

    # the same finished table in the other languages: the end screen comes straight back
    for lang in ("es", "pt"):
        other = new_page(locale=LOCALES[lang])
        _open(other, live_server.url, table_id, token)
        _check_over_dialog(other, v, lang)
        shot(other, artifacts, f"game-over-{game}-{lang}")
        assert other.js_errors == []
