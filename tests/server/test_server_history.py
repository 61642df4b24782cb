"""A table's event history (``room.History``) keeps each step as encoded bytes and gives
back the same events: what every viewer may see of them is unchanged, private fields
stay with their seat, and what orjson cannot encode is kept as it is."""

from __future__ import annotations

import json
import random
import tracemalloc

from tapete.game import Event
from tapete.games import kind
from tapete.server.room import History


def _seen(events: list[Event]) -> list[str]:
    """What every viewer receives, as wire JSON."""
    return [
        json.dumps(e.for_viewer(seat), sort_keys=True) for e in events for seat in (None, 0, 1, 2)
    ]


def test_every_step_of_whole_games_comes_back_as_every_viewer_saw_it() -> None:
    for game_name, profile in (("mil", "club"), ("mariage", "mariage")):
        rng = random.Random(4)
        game = kind(game_name).new(profile, seed=11, players=None, max_deals=2, start=None)
        history = History(1000)
        live: list[tuple[int, list[Event]]] = []
        version = 0
        while not game.over:
            seat = game.turn
            assert seat is not None
            events = game.apply(game.parse_action(rng.choice(game.view(seat)["legal"])))
            version += 1
            history.add(version, events)
            live.append((version, events))
        steps = history.since(0, version)
        assert steps is not None and [v for v, _ in steps] == [v for v, _ in live]
        private = 0
        for (_, kept), (_, events) in zip(steps, live, strict=True):
            assert _seen(kept) == _seen(events)
            assert [e.type for e in kept] == [e.type for e in events]
            private += sum(len(e.private) for e in kept)
            assert all(isinstance(seat, int) for e in kept for seat in e.private)
        assert private > 0, game_name  # (the games' dealt hands are private events)
        # only what is asked for, and None once the history no longer reaches back
        assert [v for v, _ in history.since(version - 3, version) or []] == [
            version - 2,
            version - 1,
            version,
        ]
        assert history.since(version, version) == []


def test_a_step_that_orjson_refuses_is_kept_as_events() -> None:
    history = History(4)
    huge = Event("note", {"n": 2**70}, {1: {"secret": "KH"}})
    history.add(1, [huge])
    history.add(2, [Event("action", {"seat": 0}, {0: {"card": "AS"}})])
    steps = history.since(0, 2)
    assert steps is not None
    assert steps[0][1][0].for_viewer(1) == {"type": "note", "n": 2**70, "secret": "KH"}
    assert steps[1][1][0].for_viewer(0) == {"type": "action", "seat": 0, "card": "AS"}
    assert steps[1][1][0].for_viewer(None) == {"type": "action", "seat": 0}


def test_the_history_keeps_its_last_steps_only() -> None:
    history = History(3)
    for v in range(1, 8):
        history.add(v, [Event("action", {"seat": v % 3})])
    assert history.since(1, 7) is None  # version 2 is gone
    assert [v for v, _ in history.since(4, 7) or []] == [5, 6, 7]
    assert History(0).since(0, 1) is None  # (no history kept)


def test_a_kept_step_costs_its_own_size_in_memory() -> None:
    """A table keeps hundreds of steps: each is held in a ``bytes`` of its own size, not in
    the buffer orjson wrote it into (4 KB for a 60-byte step: 1.6 MB a table at 400 steps,
    most of a 1,000-table room's memory growth)."""
    game = kind("mil").new("club", seed=3, players=None, max_deals=None, start=None)
    steps = []
    for _ in range(200):
        seat = game.turn
        assert seat is not None
        steps.append(game.apply(game.parse_action(game.view(seat)["legal"][0])))
    history = History(len(steps))
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for version, events in enumerate(steps, 1):
            history.add(version, events)
        per_step = (tracemalloc.get_traced_memory()[0] - before) / len(steps)
    finally:
        tracemalloc.stop()
    longest = max(len(packed) for _, packed in history.steps if isinstance(packed, bytes))
    assert per_step < 400 + longest / 4, (per_step, longest)
