"""What happened numbers each line with the step of its deal's replay that shows its move (the
replay window's "Step n" and its numbered moves): line N is always the same move, however many
lines came before it or were dropped from the top of the list (it numbered its last eight
lines 1 to 8, whatever they were). A new deal's line is its step 1 (the deal as dealt); a move
the record leaves out (a declined redeal, "keeps the deal") has no number. Checked on a game of
two Mil deals played by clicking, after a reload, and against the replay of the game."""

from __future__ import annotations

import random
from typing import Any

from browser_helpers import (
    LOCALES,
    ana_table,
    open_seat,
    play_until_deal_ends,
    shot,
    state,
    tid,
)

LOG = tid("log")
REPLAY = tid("replay")
#: each line of What happened: its number (the li's value, None without one) and its words
LINES = "els => els.map((e) => [e.getAttribute('value'), e.innerText])"


def _lines(page: Any) -> list[tuple[int | None, str]]:
    return [
        (None if n is None else int(n), text)
        for n, text in page.locator(f"{LOG} li").evaluate_all(LINES)
    ]


def _check_deal(lines: list[tuple[int | None, str]], moves: list[str]) -> None:
    """Each numbered line is the replay's move of its number (its words begin the line: the
    deal's last one goes on with the deal's end), a new deal's line is step 1 (the deal as
    dealt), and a line without a number is a kept deal, which has no step of its own."""
    assert lines, "no line of this deal is in the list"
    for n, text in lines:
        if n is None:
            assert text.endswith(" keeps the deal"), lines
        elif n == 1:
            assert text.startswith("Deal "), lines
        else:
            assert text.startswith(moves[n - 1]), (n, text, moves)
    numbers = [n for n, _ in lines if n is not None]
    assert numbers == list(range(numbers[0], numbers[0] + len(numbers))), lines


def _replay_moves(page: Any, deal: int) -> list[str]:
    """The words of the replay window's moves of ``deal`` (its first: the deal as dealt)."""
    page.wait_for_selector(f'{REPLAY}[open] {tid("replay-position")}[data-deal="{deal}"]')
    return page.locator(f"{REPLAY} {tid('replay-move')}").all_inner_texts()


def test_the_history_numbers_its_lines_as_the_replay_steps(
    new_page, live_server, artifacts
) -> None:  # type: ignore[no-untyped-def]
    # a Mil game of two deals, Ana against two random computers
    table_id, token = ana_table(live_server.db_path, seed=11, max_deals=2)
    page = new_page(locale=LOCALES["en"])
    open_seat(page, live_server.url, table_id, token)
    rng = random.Random(11)
    log: list[str] = []
    play_until_deal_ends(page, rng, log, bid_more=False)
    assert state(page)["paused"] == "true", log  # (the first deal's end, held)
    # the end of deal 1 (its last moves: the list keeps eight lines), deal 2 from its step 1
    first = _lines(page)
    start = [i for i, (_, text) in enumerate(first) if text == "Deal 2"]
    assert len(start) == 1 and first[start[0]][0] == 1, first
    one, two = first[: start[0]], first[start[0] :]
    record = page.request.get(
        f"{live_server.url}/api/tables/{table_id}/record", headers={"X-Tapete-Token": token}
    ).json()
    done = len(record["deals"][0]["actions"])
    assert [n for n, _ in one if n is not None][-1] == done + 1, (one, done)
    assert one[0][0] is None or one[0][0] > 1, one  # (the list dropped the deal's first lines)
    shot(page, artifacts, "history-numbers-deal-end")

    page.click(tid("next-deal"))
    play_until_deal_ends(page, rng, log, bid_more=False)
    assert state(page)["over"] == "true", log
    last = _lines(page)
    assert last[0][0] is None or last[0][0] > 1, last
    # the numbers come back with the lines after a reload (this tab keeps them)
    page.reload()
    page.wait_for_selector(f"{LOG} li")
    assert _lines(page) == last

    # line N is move N of the replay of its deal
    page.wait_for_selector(f"{tid('over')}[open]")
    page.click(tid("over-replay"))
    moves_one = _replay_moves(page, 0)
    _check_deal(one, moves_one)
    page.click(tid("replay-next-deal"))
    moves = _replay_moves(page, 1)
    _check_deal(two, moves)
    # a short second deal (a concession after the bidding) leaves the end of deal 1 in the list
    start = [i for i, (_, text) in enumerate(last) if text == "Deal 2"]
    if start:
        if start[0]:
            _check_deal(last[: start[0]], moves_one)
        last = last[start[0] :]
    _check_deal(last, moves)
    assert page.js_errors == []
