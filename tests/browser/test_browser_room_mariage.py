"""A rated Mariage match of two people with accounts through an invitation link (two browser
contexts): Ana and Bea each sign up, Ana creates a rated table in the Lobby with a seat for an
invited person, Bea opens the link and sits down, they play the first hand by clicking (both
pages then hold the same hand on the score sheet) and their pages' drivers (autoplay) play
the match to its end. Both game-over windows show the same new ratings (after the game, the
change, *provisional*: a first rated game) in each page's language, as the server stored
them; each person's page shows the rating, its history and the game."""

from __future__ import annotations

import math
import random
import time

import autoplay
from browser_helpers import (
    PLAYER_GAMES,
    create_invited_table,
    first_deal_over,
    play_until,
    shot,
    sign_up,
    sit_down,
    tid,
    view,
    wait_playing,
    wait_until,
)
from browser_server import LiveServer

PROVISIONAL = {"pt": "provisória", "es": "provisional"}
AFTER = {"pt": "após este jogo", "es": "tras esta partida"}
UP = {"pt": "sobe", "es": "sube"}
DOWN = {"pt": "desce", "es": "baja"}


def _round(n: float) -> float:
    """As the page rounds: ``Math.round(n * 10) / 10`` (halves up, also below 0)."""
    return math.floor(n * 10 + 0.5) / 10


def _fmt(n: float, lang: str = "pt") -> str:
    """A rating as the page writes it in ``lang`` (rounded, then ``dom.fmtMinus``: a decimal
    comma in Portuguese and Spanish, a point in English, a true minus as the change's)."""
    r = _round(n)
    text = str(int(abs(r))) if r == int(r) else f"{abs(r):.1f}"
    text = text if lang == "en" else text.replace(".", ",")
    return f"\u2212{text}" if r < 0 else text


def _change(n: float) -> str:
    """A change as the window writes it: a sign, a true minus."""
    r = _round(n)
    return f"(+{_fmt(r)})" if r > 0 else f"(\u2212{_fmt(-r)})" if r < 0 else "(±0)"


def test_a_rated_mariage_match_of_two_accounts_shows_the_new_ratings(
    new_page, tmp_path, artifacts
) -> None:  # type: ignore[no-untyped-def]
    began = time.monotonic()
    server = LiveServer(tmp_path / "rated.sqlite").start()
    try:
        ana = new_page(locale="pt-PT")
        sign_up(ana, server.url, "Ana_rated")
        link = create_invited_table(
            ana, None, "mariage-mariage", ["me", "invited"], name="Ana", options=("rated",)
        )
        # until Bea sits down Ana's own cards lie face down: the page got no card
        ana.wait_for_selector("section[data-testid='seat-0'] .card.back")
        assert ana.locator("section[data-testid='seat-0'] .card.back").count() == 6
        assert ana.locator(tid("hand")).count() == 0
        bea = new_page(locale="es-ES")
        sign_up(bea, server.url, "Bea_rated")
        sit_down(bea, link, host="Ana_rated")
        wait_playing(ana, bea)
        pages = {"ana": ana, "bea": bea}
        assert view(ana)["game"] == "mariage"
        assert view(ana)["players"] == ["Ana_rated", "Bea_rated"]  # the accounts' names
        assert {view(ana)["seat"], view(bea)["seat"]} == {0, 1}

        # the first hand by clicking: both pages hold the same finished hand on the sheet
        rng = random.Random(21)
        logs: dict[str, list[str]] = {"ana": [], "bea": []}
        play_until(pages, rng, logs, lambda: first_deal_over(ana, bea), seconds=60)
        assert logs["ana"] and logs["bea"], logs
        rows = [view(p)["sheet"][:1] for p in (ana, bea)]
        assert rows[0] == rows[1] and len(rows[0]) == 1
        assert sum(rows[0][0]["match"]) == rows[0][0]["game_points"]
        shot(bea, artifacts, "room-mariage-hand-over")

        # the rest of the match
        played = time.monotonic()
        autoplay.play_to_end(pages, seconds=90)
        autoplay_s = time.monotonic() - played
        wait_until(
            pages,
            "the new ratings in the game-over window",
            "() => Boolean(document.querySelector('#over[open] [data-testid=\"over-ratings\"]'))",
        )
        table = ana.evaluate("() => window.tapete.session.table")
        stored = ana.evaluate(f"() => fetch('/api/tables/{table}/ratings').then((r) => r.json())")
        assert stored["rated"] and stored["pool"] == "mariage", stored
        by_seat = {s["seat"]: s for s in stored["seats"]}
        assert sorted(by_seat) == [0, 1]
        winner = view(ana)["winner"]
        assert by_seat[winner]["change"] > 0 > by_seat[1 - winner]["change"], stored
        assert [view(p)["match"] for p in (ana, bea)] == [view(ana)["match"]] * 2

        for page, lang in ((ana, "pt"), (bea, "es")):
            lines = []
            for seat, entry in by_seat.items():
                li = page.locator(f"{tid('over-rating-' + str(seat))}")
                text = li.inner_text()
                assert entry["name"] in text and _change(entry["change"]) in text, text
                assert PROVISIONAL[lang] in text  # a first rated game
                label = li.get_attribute("aria-label") or ""
                word = UP[lang] if entry["change"] > 0 else DOWN[lang]
                assert label.startswith(f"{entry['name']}: ") and AFTER[lang] in label, label
                assert word in label and label.endswith(PROVISIONAL[lang]), label
                lines.append(li.locator(tid("over-rating-value")).inner_text())
            assert lines == [_fmt(by_seat[s]["ordinal"]) for s in (0, 1)], lines
        finals = [p.locator(f"{tid('over')} ul.final li").all_inner_texts() for p in (ana, bea)]
        assert finals[0] == finals[1], finals
        for page in (ana, bea):  # (a part left out was once written as "null")
            assert "null" not in page.inner_text(tid("over"))
        shot(ana, artifacts, "room-mariage-rated-over-pt")
        shot(bea, artifacts, "room-mariage-rated-over-es")

        # each person's page, from the name in that window: the rating, its history, the game
        for page, seat, lang in ((ana, view(ana)["seat"], "pt"), (bea, view(bea)["seat"], "es")):
            page.click(tid(f"over-player-{seat}"))
            wait_until({lang: page}, "the player's page", PLAYER_GAMES, 30, pages)
            box = page.locator(tid("rating-mariage"))
            assert PROVISIONAL[lang] in box.inner_text()
            assert _fmt(by_seat[seat]["ordinal"]) in box.inner_text()
            assert box.locator("polyline").get_attribute("data-points") == "2"  # before, after
            assert page.locator(tid(f"player-replay-{table}")).count() == 1
        shot(bea, artifacts, "room-mariage-player-page-es")

        # in English, after a reload: the window shows the same ratings again
        ana.click(tid("close-player"))
        ana.click(tid("over-close"))
        ana.click(tid("lang-en"))
        ana.reload()
        wait_until(
            {"ana": ana},
            "the ratings after a reload",
            "() => Boolean(document.querySelector('#over[open] [data-testid=\"over-ratings\"]'))",
        )
        assert ana.inner_text("#over-ratings-title") == "Ratings after this game · Mariage"
        for seat, entry in by_seat.items():
            word = "up" if entry["change"] > 0 else "down"
            assert ana.get_attribute(tid(f"over-rating-{seat}"), "aria-label") == (
                f"{entry['name']}: rating {_fmt(entry['ordinal'], 'en')} after this game, "
                f"{word} {_fmt(abs(_round(entry['change'])), 'en')}, provisional"
            )
        assert not ana.js_errors and not bea.js_errors
        print(
            f"\nrated Mariage through the room: {len(view(ana)['sheet'])} hands, "
            f"autoplay {autoplay_s:.1f} s, whole test {time.monotonic() - began:.1f} s"
        )
    finally:
        server.stop()
