"""Bots are thread-safe: the server decides and hints in worker threads (issue 9, item 6).

Several threads deciding the same views, with the interpreter switching threads as often as
it can, must give exactly the decisions of one thread: no bot keeps state that another
thread's decision can touch. Every bot level of both games; the search players get a fixed
number of samples and no time cut-off, so that a decision depends on the view and the random
numbers only.
"""

from __future__ import annotations

import random
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from bots_helpers import fitting

from tapete.bots import BOT_NAMES, make_bot, suggest
from tapete.games import kind, new_game

THREADS = 4
#: no time cut-off anywhere: the work done never depends on the clock
NO_CLOCK: dict[str, Any] = {"budget": 1e6, "hard_limit": None, "strict_budget": 1e6}
SEARCH: dict[str, dict[str, Any]] = {
    "mil": {"samples": 3, "bid_samples": 3},
    "mariage": {"samples": 6, "min_samples": 4, "strict_samples": 3},
}
CASES = [("mil", "club"), ("mil", "casa"), ("mariage", "mariage")]

View = dict[str, Any]


def _views(game: str, profile: str, games: int, seed: int) -> list[View]:
    """The views of the seat to act at every decision of seeded games between random players
    (every phase comes up: redeal offers, the auction, the talon, the play, closings)."""
    rng = random.Random(seed)
    out: list[View] = []
    for i in range(games):
        g: Any = new_game(game, profile, seed=seed + i, max_deals=3)
        while not g.over:
            out.append(g.view(g.turn))
            g.apply(rng.choice(g.legal_actions()))
    return out


_VIEWS: dict[tuple[str, str], list[View]] = {}


def views(game: str, profile: str) -> list[View]:
    key = (game, profile)
    if key not in _VIEWS:
        _VIEWS[key] = _views(game, profile, games=6, seed=900)
    return _VIEWS[key]


def _options(game: str, level: str) -> dict[str, Any]:
    """The options of :data:`NO_CLOCK` and :data:`SEARCH` this bot takes (it refuses others)."""
    return fitting(game, level, {**NO_CLOCK, **(SEARCH[game] if level == "search" else {})})


def decide_all(game: str, profile: str, level: str, vs: list[View]) -> list[Any]:
    """One player per seat (as a server table has), deciding every view in game order."""
    opts = _options(game, level)
    bots = [
        make_bot(game, level, profile=None if game == "mariage" else profile, **opts)
        for _ in range(kind(game).seats)
    ]
    out = [bots[v["seat"]].act(v, random.Random(i)).to_json() for i, v in enumerate(vs)]
    assert all(getattr(b, "faults", 0) == 0 for b in bots), "a bot fell back to a safe action"
    return out


def hint_all(game: str, table: object, vs: list[View]) -> list[Any]:
    """Hints for every view of one table (its suggesting bots remember what they saw)."""
    opts = _options(game, "search")  # (suggest asks the search player)
    out = []
    for v in vs:
        action, reason = suggest(game, v, key=table, **opts)
        out.append((action.to_json(), reason.key, reason.wire_args()))
    return out


def in_threads(work: Callable[[int], list[Any]]) -> Iterator[list[Any]]:
    """Run ``work(i)`` in :data:`THREADS` threads at once, switching threads every microsecond."""
    results: dict[int, list[Any]] = {}
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def run(i: int) -> None:
        try:
            start.wait()
            results[i] = work(i)
        except BaseException as exc:  # reported in the main thread
            errors.append(exc)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=run, args=(i,)) for i in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    if errors:
        raise errors[0]
    for i in range(THREADS):
        yield results[i]


@pytest.mark.parametrize("level", BOT_NAMES)
@pytest.mark.parametrize("game,profile", CASES)
def test_threads_decide_exactly_as_one_thread(game: str, profile: str, level: str) -> None:
    vs = views(game, profile)
    if level == "search":
        vs = vs[::4]  # the search players are slower: every fourth view (all phases still)
    serial = decide_all(game, profile, level, vs)
    assert len(serial) > 50
    for n, got in enumerate(in_threads(lambda i: decide_all(game, profile, level, vs))):
        diff = [i for i, (a, b) in enumerate(zip(got, serial, strict=True)) if a != b]
        assert not diff, f"thread {n}: {len(diff)} of {len(vs)} decisions differ, first {diff[:5]}"


@pytest.mark.parametrize("game,profile", CASES)
def test_threads_hint_exactly_as_one_thread(game: str, profile: str) -> None:
    vs = views(game, profile)[::6]
    serial = hint_all(game, ("serial", game, profile), vs)
    for n, got in enumerate(in_threads(lambda i: hint_all(game, ("thread", i, game, profile), vs))):
        diff = [i for i, (a, b) in enumerate(zip(got, serial, strict=True)) if a != b]
        assert not diff, f"thread {n}: {len(diff)} of {len(vs)} hints differ, first {diff[:5]}"


def test_one_bot_serves_one_thread_at_a_time() -> None:
    """Two threads asking the same bot (a hint asked twice at once, a server thread still
    thinking after its timeout) take turns: the inner bot never runs twice at once."""
    bot: Any = make_bot("mil", "rules", profile="club", hard_limit=None)
    inside = 0
    most = 0
    lock = threading.Lock()
    real = bot.inner.act

    def act(view: View, rng: random.Random) -> Any:
        nonlocal inside, most
        with lock:
            inside += 1
            most = max(most, inside)
        try:
            return real(view, rng)
        finally:
            with lock:
                inside -= 1

    bot.inner.act = act
    vs = views("mil", "club")[:40]
    list(in_threads(lambda i: [bot.act(v, random.Random(0)) for v in vs]))
    assert most == 1


@pytest.mark.parametrize("profile", ["club", "casa"])
def test_threads_read_views_exactly_as_one_thread(profile: str) -> None:
    """What a Mil player infers from a view (voids shown by play, located cards), the input
    of the rules and search players, is the same in every thread: the engine answers "was
    this card legal" with a pure function, not on a shared probe state."""
    from tapete.bots.mil.sampling import mil_info

    vs = [v for v in views("mil", profile) if v["phase"] == "play" and v.get("tricks")]
    assert len(vs) > 100

    def read(i: int) -> list[Any]:
        out = []
        for _ in range(3):
            for v in vs:
                info = mil_info(v)
                out.append((tuple(info.excluded), tuple(info.located), info.trump))
        return out

    serial = read(0)
    for n, got in enumerate(in_threads(read)):
        diff = sum(1 for a, b in zip(got, serial, strict=True) if a != b)
        assert not diff, f"thread {n}: {diff} of {len(serial)} readings differ"
