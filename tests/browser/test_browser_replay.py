"""The replay of a finished game in the page: reached from the end window of a game played
by clicking, from the Games window's finished games and by its link (``/?replay=ID``); every
hand face up, stepped with the keyboard (←/→, Home/End, PageUp/PageDown), the moves with the
current one marked, the score sheet up to the deal and the end-of-game chart; refused with a
message while the game is on."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from browser_helpers import (
    LOCALES,
    admin_table,
    ana_table,
    card_label,
    keep_seat,
    open_seat,
    play_until_deal_ends,
    shot,
    state,
    tid,
    view,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tapete.games import kind
from tapete.server.db import make_engine
from tapete.server.tables import TableManager

REPLAY = tid("replay")
STEP = {"es": "Paso {n} de {total}", "pt": "Passo {n} de {total}", "en": "Step {n} of {total}"}
DEAL = {"es": "Mano {n} de {total}", "en": "Deal {n} of {total}"}


def finished_table(
    db_path: Path,
    game: str,
    seed: int,
    max_deals: int | None,
    start: dict[str, Any] | None = None,
    level: str = "random",
) -> tuple[int, str]:
    """A table played to its end, the person's seat by random choices and the others by
    computers of ``level``, made by a second manager on the live server's database (as an
    administrator would; the live server reads it from there): stopped after ``max_deals``
    deals, or (None) played until someone wins, from the position ``start`` if given. The
    same ``seed`` plays the same game every run: the computer seats' choices are seeded from
    it too (each run played, replayed and reviewed another game, so a failure could not be
    played again)."""

    async def play() -> tuple[int, str]:
        engine = make_engine(f"sqlite:///{db_path}")
        manager = TableManager(engine, delay_ms=0)
        try:
            table = manager.create(
                game=game,
                profile=kind(game).profiles[0],
                name="Ana",
                language="en",
                levels=[level] * (kind(game).seats - 1),
                seed=seed,
                max_deals=max_deals,
                start=start,
            )

            # (a computer's random numbers come from the server's secret and the table's id,
            # which depends on the tests run before: here from the seed alone)
            def bot_seed(seat: int | None, version: int) -> int:
                return hash((seed, seat or 0, version))

            table.bot_seed = bot_seed  # type: ignore[method-assign]
            rng = random.Random(seed)
            while not table.game.over:
                await manager.settled(table)
                if table.game.turn == 0:
                    action = rng.choice(table.game.legal_actions()).to_json()
                    await manager.act(table, 0, table.version, action)
                else:
                    manager.ensure_bots(table)
                    await asyncio.sleep(0.005)
            await manager.settled(table)
            return table.id, table.token
        finally:
            await manager.close()
            engine.dispose()

    # (Playwright's sync API holds an event loop in this thread: the play gets its own)
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, play()).result(timeout=120)


#: what the page asked the review endpoint and got: (start, duration in ms, status)
REVIEW_REQUESTS = """() => performance.getEntriesByType("resource")
    .filter((e) => e.name.includes("/review/"))
    .map((e) => [Math.round(e.startTime), Math.round(e.duration), e.responseStatus])"""


def wait_for_review(page: Any, part: str, timeout_ms: int) -> None:
    """Wait for the open review window to show ``part``. If it does not, fail with what the
    window shows and the review requests the page made (each one's start, duration and
    status): "still preparing" (no answer, or 202 over and over), an error, or the review
    without ``part``, instead of only "Timeout exceeded"."""
    try:
        page.wait_for_selector(f"{tid('review')}[open] {tid(part)}", timeout=timeout_ms)
    except PlaywrightTimeoutError:
        shown = page.evaluate("() => document.getElementById('review')?.innerText")
        asked = page.evaluate(REVIEW_REQUESTS)
        raise AssertionError(
            f"no {part} in the review window after {timeout_ms / 1000:g} s; it shows "
            f"{shown!r}; the review requests (start ms, duration ms, status): {asked}"
        ) from None


def frame_no(page: Any) -> int:
    return int(page.get_attribute(tid("replay-position"), "data-frame"))


def press(page: Any, key: str, frame: int) -> None:
    page.keyboard.press(key)
    page.wait_for_selector(f'{tid("replay-position")}[data-frame="{frame}"]')


def check_frame(page: Any, frames: list[dict[str, Any]], n: int, lang: str) -> None:
    """What the window shows at frame ``n``: every hand face up (cards named in the
    language), the step count, and the frame's move marked in the list."""
    pos = frames[n]["position"]
    # (the step count to see; its whole text, for a screen reader, also says the move)
    assert page.inner_text(tid("replay-step-no")) == STEP[lang].format(n=n + 1, total=len(frames))
    for seat, hand in enumerate(pos["hands"]):
        cards = page.locator(f"{REPLAY} {tid(f'replay-hand-{seat}')} .card")
        assert cards.evaluate_all("els => els.map(e => e.dataset.card)") == hand
        if hand:
            assert cards.first.get_attribute("aria-label") == card_label(hand[0], lang)
    hidden = page.locator(f"{REPLAY} {tid('replay-hidden')} .card")
    assert hidden.evaluate_all("els => els.map(e => e.dataset.card)") == pos["hidden"]
    current = page.locator(f'{REPLAY} {tid("replay-move")}[aria-selected="true"]')
    assert current.count() == 1
    moves = page.locator(f"{REPLAY} {tid('replay-move')}")
    assert moves.count() == len(frames)
    assert moves.nth(n).get_attribute("aria-selected") == "true"


def test_the_replay_from_the_end_window_steps_with_the_keyboard(
    new_page, live_server, artifacts
) -> None:  # type: ignore[no-untyped-def]
    # a Mariage match at 6–6: the next hand, played by clicking, decides it
    table_id, token = ana_table(
        live_server.db_path, "mariage", seed=8, level="rules", start={"game_points": [6, 6]}
    )
    page = new_page(locale=LOCALES["en"])
    open_seat(page, live_server.url, table_id, token)
    log: list[str] = []
    rng = random.Random(8)
    for _ in range(4):
        play_until_deal_ends(page, rng, log, bid_more=False)
        if state(page)["over"] == "true":
            break
    assert view(page)["over"], log
    page.wait_for_selector(f"{tid('over')}[open]")
    # English Mariage says "hand" where Mil says "deal", in the reviews and the replay too
    assert page.inner_text(tid("over-review")) == "Review the hands"
    page.click(tid("over-replay"))
    page.wait_for_selector(f"{REPLAY}[open] {tid('replay-position')}")
    assert not page.is_visible(f"{tid('over')}[open]")
    assert page.inner_text(f"{REPLAY} {tid('replay-review')}") == "Review this hand"
    assert page.inner_text(f"{REPLAY} {tid('replay-deal-no')}").startswith("Hand 1 of ")
    record = page.request.get(f"{live_server.url}/api/tables/{table_id}/record").json()
    body = page.request.get(f"{live_server.url}/api/tables/{table_id}/replay/0").json()
    frames = body["frames"]
    assert len(frames) == len(record["deals"][0]["actions"]) + 1
    # the deal as dealt: both hands face up, the stock's cards too, nothing played yet
    check_frame(page, frames, 0, "en")
    assert [len(h) for h in frames[0]["position"]["hands"]] == [6, 6]
    assert page.locator(f"{REPLAY} {tid('replay-indicator')} .card").count() == 1
    assert page.locator(f"{REPLAY} {tid('replay-sheet')} {tid('sheet-row')}").count() == 0
    # the end-of-game chart, one point per hand after the start
    chart = page.locator(f"{REPLAY} {tid('score-chart')}")
    assert chart.count() == 1
    assert chart.locator(tid("chart-line-0")).get_attribute("data-points") == str(
        len(record["deals"]) + 1
    )
    page.focus(tid("replay-step"))
    press(page, "ArrowRight", 1)
    check_frame(page, frames, 1, "en")
    played = frames[1]["action"]
    if played["type"] == "play":  # the card left the hand of the seat that played it
        seat = frames[1]["seat"]
        hand = page.locator(f"{REPLAY} {tid(f'replay-hand-{seat}')} .card")
        assert played["card"] not in hand.evaluate_all("els => els.map(e => e.dataset.card)")
    press(page, "ArrowLeft", 0)
    press(page, "End", len(frames) - 1)
    check_frame(page, frames, len(frames) - 1, "en")
    # at the end of the hand: its result, and its row in the sheet
    assert page.locator(f"{REPLAY} {tid('replay-result')}").count() == 1
    assert page.locator(f"{REPLAY} {tid('replay-sheet')} {tid('sheet-row')}").count() == 1
    press(page, "Home", 0)
    page.click(f"{REPLAY} {tid('replay-move')} >> nth=2")
    page.wait_for_selector(f'{tid("replay-position")}[data-frame="2"]')
    shot(page, artifacts, "replay-mariage-en")
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{REPLAY}:not([open])", state="attached")
    assert page.js_errors == []


def test_the_replay_by_its_link_and_from_the_games_window(new_page, live_server, artifacts) -> None:  # type: ignore[no-untyped-def]
    table_id, token = finished_table(live_server.db_path, "mil", seed=21, max_deals=2)
    record = live_record(new_page, live_server, table_id)
    assert len(record["deals"]) == 2
    page = new_page(locale=LOCALES["es"])
    page.goto(f"{live_server.url}/?replay={table_id}")
    page.wait_for_selector(f"{REPLAY}[open] {tid('replay-position')}")
    assert page.inner_text(tid("replay-deal-no")) == DEAL["es"].format(n=1, total=2)
    deal0 = page.request.get(f"{live_server.url}/api/tables/{table_id}/replay/0").json()
    check_frame(page, deal0["frames"], 0, "es")
    # the talon lies face down, shown face up in the replay
    assert page.locator(f"{REPLAY} {tid('replay-hidden')} .card").count() == 3
    page.focus(tid("replay-step"))
    press(page, "End", len(deal0["frames"]) - 1)
    assert page.locator(f"{REPLAY} {tid('replay-sheet')} {tid('sheet-row')}").count() == 1
    page.keyboard.press("PageDown")
    page.wait_for_selector(f'{tid("replay-position")}[data-deal="1"][data-frame="0"]')
    assert page.inner_text(tid("replay-deal-no")) == DEAL["es"].format(n=2, total=2)
    deal1 = page.request.get(f"{live_server.url}/api/tables/{table_id}/replay/1").json()
    assert len(deal1["frames"]) == len(record["deals"][1]["actions"]) + 1
    check_frame(page, deal1["frames"], 0, "es")
    assert page.locator(f"{REPLAY} {tid('replay-sheet')} {tid('sheet-row')}").count() == 1
    page.keyboard.press("PageUp")
    page.wait_for_selector(f'{tid("replay-position")}[data-deal="0"][data-frame="0"]')
    assert page.locator(f"{REPLAY} {tid('score-chart')}").count() == 1
    shot(page, artifacts, "replay-mil-es")
    # the deal review of the deal on screen opens from the replay (issue 12), over it
    page.click(tid("replay-review"))
    wait_for_review(page, "review-curve", 120_000)
    assert page.inner_text(tid("review-deal-no")) == DEAL["es"].format(n=1, total=2)
    page.click(f"{tid('review')} {tid('review-close')}")
    page.wait_for_selector(f"{tid('review')}:not([open])", state="attached")
    assert page.is_visible(f"{REPLAY}[open]")
    # closing leaves the replay's address and, with no game of this browser's, opens Juegos
    page.click(tid("replay-close"))
    page.wait_for_selector(f"{tid('newgame')}[open]")
    assert "replay" not in page.url
    assert page.js_errors == []

    # the Games window (on a phone): this browser's finished game has its Replay button
    page = new_page(locale=LOCALES["en"], width=390, height=844)
    page.goto(live_server.url)
    entry = {"table": table_id, "token": token, "seat": 0, "game": "mil", "profile": "club"}
    page.evaluate("(e) => localStorage.setItem('tapete.tables', JSON.stringify([e]))", entry)
    page.reload()
    page.click(tid(f"replay-{table_id}"))
    page.wait_for_selector(f"{REPLAY}[open] {tid('replay-position')}")
    assert not page.is_visible(f"{tid('newgame')}[open]")
    assert page.inner_text(tid("replay-deal-no")) == DEAL["en"].format(n=1, total=2)
    # the window fits the phone's width: nothing to scroll sideways
    assert page.evaluate("() => document.getElementById('replay').scrollWidth") <= 390
    shot(page, artifacts, "replay-mil-phone")
    assert page.js_errors == []


def test_a_replay_link_stays_over_the_end_of_this_browsers_game(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """A browser whose own game is over opens a replay by its link: the replay stays on top
    and takes the keys (the end window used to open over it and catch them); once the replay
    is closed, the end window of the browser's game comes."""
    table_id, token = finished_table(live_server.db_path, "mil", seed=23, max_deals=2)
    page = new_page(locale=LOCALES["en"])
    page.goto(live_server.url)
    keep_seat(page, table_id, token)
    page.goto(f"{live_server.url}/?replay={table_id}")
    page.wait_for_selector(f"{REPLAY}[open] {tid('replay-position')}")
    page.wait_for_selector("#table[data-over='true']", state="attached")  # the game is drawn
    assert not page.is_visible(f"{tid('over')}[open]")
    page.focus(tid("replay-step"))
    press(page, "ArrowRight", 1)
    page.click(tid("replay-close"))
    page.wait_for_selector(f"{tid('over')}[open]")
    assert page.js_errors == []


def test_an_unfinished_game_is_not_replayed(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    table_id, _ = admin_table(
        live_server.db_path,
        game="mil",
        profile="club",
        name="Ana",
        language="pt",
        levels=["random"] * 2,
        seed=4,
    )
    page = new_page(locale=LOCALES["pt"])
    page.goto(f"{live_server.url}/?replay={table_id}")
    page.wait_for_selector(f"{REPLAY}[open] {tid('replay-error')}")
    assert page.inner_text(tid("replay-error")) == (
        "A repetição abre quando o jogo acaba: mostra todas as mãos."
    )
    assert page.locator(f"{REPLAY} .card").count() == 0
    assert page.js_errors == []


def live_record(new_page, live_server, table_id: int) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    page = new_page()
    res = page.request.get(f"{live_server.url}/api/tables/{table_id}/record")
    assert res.status == 200
    return dict(res.json())


def test_the_review_over_a_replay_is_of_that_games_players(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    """The review opened over the replay of a game that is not the one on screen names that
    game's players (it named the table on screen's, or "Open to anyone" with no table) and
    marks nobody's decisions as "yours" (the seat held on screen is another game's)."""
    own_id, own_token = finished_table(live_server.db_path, "mariage", seed=31, max_deals=1)
    other_id, _ = finished_table(live_server.db_path, "mariage", seed=32, max_deals=1)
    review = live_server.url + f"/api/tables/{other_id}/review/0"
    record = live_record(new_page, live_server, other_id)

    def open_review(page: Any, own_table: bool = False) -> dict[str, Any]:
        page.goto(f"{live_server.url}/?replay={other_id}")
        page.wait_for_selector(f"{REPLAY}[open] {tid('replay-position')}")
        if own_table:  # the browser's game is drawn under the replay
            page.wait_for_selector("#table[data-over='true']", state="attached")
        page.click(tid("replay-review"))
        wait_for_review(page, "review-action", 120_000)
        data: dict[str, Any] = page.request.get(review).json()
        return data

    # a browser with no table: the first step is said with the mover's name
    page = new_page(locale=LOCALES["en"])
    first = open_review(page)["steps"][0]
    mover = record["players"][first["seat"]]
    assert page.inner_text(tid("review-action")).startswith(f"{mover} plays "), mover
    assert page.js_errors == []

    # a browser holding its own finished game at seat 0: the other game's marks are not its
    page = new_page(locale=LOCALES["en"])
    page.goto(live_server.url)
    keep_seat(page, own_id, own_token)
    open_review(page, own_table=True)
    assert page.inner_text(tid("review-marks-title")) == "Inaccuracies, mistakes and blunders"
    assert page.js_errors == []


def test_a_review_that_fails_for_a_moment_is_asked_again_then_offers_try_again(
    new_page, live_server
) -> None:  # type: ignore[no-untyped-def]
    """A review request that gets no answer or a 5xx is asked again twice before the window
    says so; then "Try again" (it stopped at the first failure, for good)."""
    table_id, _ = finished_table(live_server.db_path, "mil", seed=21, max_deals=1)
    page = new_page(locale=LOCALES["en"])
    failures = {"left": 3, "seen": 0}

    def flaky(route) -> None:  # type: ignore[no-untyped-def]
        if failures["left"]:
            failures["left"] -= 1
            failures["seen"] += 1
            route.fulfill(status=503 if failures["left"] == 1 else 500, body="{}")
        else:
            route.continue_()

    page.route("**/api/tables/*/review/*", flaky)
    page.goto(f"{live_server.url}/?replay={table_id}")
    page.wait_for_selector(f"{REPLAY}[open] {tid('replay-position')}")
    page.click(tid("replay-review"))
    # 500 and 500 (asked again after 2 s, then 4 s), 503 ("being prepared": asked again as
    # ever), then the real answer
    wait_for_review(page, "review-curve", 60_000)
    assert failures["seen"] == 3

    # failing for good: after the third failure the window says so, with "Try again"
    page.click(tid("review-close"))
    page.route("**/api/tables/*/review/*", lambda route: route.fulfill(status=500, body="{}"))
    page.click(tid("replay-review"))
    page.wait_for_selector(tid("review-retry"), timeout=30_000)
    assert page.inner_text(tid("review-error")) == "Not available right now."
    page.unroute("**/api/tables/*/review/*")
    page.click(tid("review-retry"))
    wait_for_review(page, "review-curve", 60_000)
    assert page.locator(tid("review-retry")).count() == 0
