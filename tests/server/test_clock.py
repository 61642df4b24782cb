"""Seat clocks and dropped seats (``tapete.server.clock``) with a fake clock: every
transition, the settings, the snapshot, the asyncio driver, and random event sequences."""

from __future__ import annotations

import asyncio
import heapq
import json
import logging
import math
import re
import time
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as hst

from tapete.server.clock import (
    Abandoned,
    ClockDriver,
    ClockSettings,
    ClockSettingsError,
    Decision,
    GiveBack,
    SeatClocks,
    TakeOver,
)

TIMED = ClockSettings(move_s=30, bank_s=120)  # grace 30 s, abandonment 5 min (defaults)


def clocks_at(
    settings: ClockSettings = TIMED,
    *,
    people: tuple[int, ...] = (0, 1),
    seats: int = 3,
    connected: tuple[int, ...] | None = None,
) -> SeatClocks:
    """Clocks at t=0 with each person connected once (or only ``connected``)."""
    clocks = SeatClocks(settings, seats=seats, people=people, now=0.0)
    for seat in people if connected is None else connected:
        assert clocks.connected(seat, 0.0) == []
    return clocks


# ---------------------------------------------------------------------- settings


def test_default_settings_have_no_clock_a_30_s_grace_and_5_minutes_to_come_back() -> None:
    default = ClockSettings()
    assert (default.move_s, default.bank_s, default.grace_s, default.abandon_s) == (
        None,
        0.0,
        30.0,
        300.0,
    )
    assert not default.timed and TIMED.timed


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"move_s": 0}, "clock.move_s must be null (no clock) or a number of seconds from 1 to"),
        ({"move_s": 3601}, "clock.move_s must be null (no clock) or a number of seconds"),
        ({"move_s": "30"}, "clock.move_s must be null (no clock) or a number of seconds"),
        ({"move_s": True}, "got True"),
        ({"move_s": math.nan}, "got nan"),
        ({"move_s": 30, "bank_s": -1}, "clock.bank_s must be a number of seconds from 0 to 3600"),
        ({"move_s": 30, "bank_s": math.inf}, "clock.bank_s must be"),
        ({"bank_s": 60}, "clock.bank_s must be 0 without a time per move"),
        ({"grace_s": 0}, "clock.grace_s must be a number of seconds from 1 to 3600, got 0"),
        ({"abandon_s": 86401}, "clock.abandon_s must be a number of seconds from 1 to 86400"),
        ({"abandon_s": None}, "clock.abandon_s must be a number of seconds"),
    ],
)
def test_bad_settings_are_refused_with_the_field_and_its_bounds(
    fields: dict[str, Any], message: str
) -> None:
    with pytest.raises(ClockSettingsError, match=re.escape(message)):
        ClockSettings(**fields)
    with pytest.raises(ClockSettingsError) as caught:
        ClockSettings.from_json(fields, "body.clock")
    assert str(caught.value).startswith("body.clock.")


def test_settings_json_must_be_an_object_with_known_fields() -> None:
    with pytest.raises(ClockSettingsError, match=r"^clock must be a JSON object, got \[30\]"):
        ClockSettings.from_json([30])
    with pytest.raises(ClockSettingsError, match=r"clock has unknown field.*'move'.*known: move_s"):
        ClockSettings.from_json({"move": 30})
    assert ClockSettings.from_json({}) == ClockSettings()
    assert ClockSettings.from_json({"move_s": 20}) == ClockSettings(move_s=20)


@pytest.mark.parametrize(
    "value",
    [
        ClockSettings(),
        TIMED,
        ClockSettings(move_s=1, bank_s=0, grace_s=1, abandon_s=1),
        ClockSettings(move_s=12.5, bank_s=3600, grace_s=3600, abandon_s=86400),
    ],
)
def test_settings_round_trip_through_json_text(value: ClockSettings) -> None:
    text = json.dumps(value.to_json())
    assert ClockSettings.from_json(json.loads(text)) == value
    assert set(json.loads(text)) == {"move_s", "bank_s", "grace_s", "abandon_s"}


# ---------------------------------------------------------------------- time


def test_a_move_within_the_move_time_leaves_the_bank_whole() -> None:
    clocks = clocks_at()
    clocks.turn_started(0, 10.0)
    assert clocks.next_deadline() == 10.0 + 30 + 120
    assert clocks.acted(0, 39.5) == []
    clocks.turn_started(0, 40.0)
    assert clocks.next_deadline() == 40.0 + 30 + 120


def test_time_past_the_move_time_comes_off_the_bank() -> None:
    clocks = clocks_at()
    clocks.turn_started(1, 0.0)
    clocks.acted(1, 45.0)  # 15 s over
    clocks.turn_started(1, 50.0)
    assert clocks.next_deadline() == 50.0 + 30 + 105
    snap = clocks.snapshot(90.0)["seats"][1]
    assert (snap["move"], snap["bank"], snap["running"]) == (0.0, 95.0, True)


def test_turn_started_without_acted_charges_the_running_clock() -> None:
    clocks = clocks_at()
    clocks.turn_started(0, 0.0)
    clocks.turn_started(1, 50.0)  # seat 0 used 20 s of its bank
    assert clocks.snapshot(50.0)["seats"][0]["bank"] == 100.0


def test_move_time_then_bank_run_out_and_the_computer_takes_the_seat() -> None:
    clocks = clocks_at()
    clocks.turn_started(0, 0.0)
    assert clocks.tick(149.9) == []
    assert clocks.tick(150.0) == [TakeOver(0, "time", 150.0)]
    assert clocks.computer_plays(0) and not clocks.computer_plays(1)
    snap = clocks.snapshot(150.0)["seats"][0]
    assert (snap["taken"], snap["bank"], snap["running"], snap["back_by"]) == (
        "time",
        0.0,
        False,
        300.0,
    )
    # the computer's moves cost the seat nothing: its clock is stopped
    assert clocks.next_deadline() == 150.0 + 300


def test_a_computer_seat_and_nobody_to_act_run_no_clock() -> None:
    clocks = clocks_at()
    clocks.turn_started(2, 0.0)  # seat 2 is a computer's
    assert clocks.next_deadline() is None
    assert clocks.tick(10_000.0) == []
    clocks.acted(2, 10_000.0)
    clocks.turn_started(None, 10_001.0)
    assert clocks.next_deadline() is None


def test_without_a_clock_nobody_is_taken_over_for_time() -> None:
    clocks = clocks_at(ClockSettings())
    clocks.turn_started(0, 0.0)
    assert clocks.next_deadline() is None
    assert clocks.tick(1e6) == []
    snap = clocks.snapshot(1e6)["seats"][0]
    assert (snap["move"], snap["bank"], snap["running"]) == (None, None, False)


def test_after_a_takeover_for_time_a_connection_alone_does_not_give_the_seat_back() -> None:
    clocks = clocks_at()
    clocks.turn_started(0, 0.0)
    clocks.tick(150.0)
    clocks.disconnected(0, 160.0)
    assert clocks.connected(0, 170.0) == []  # e.g. the client reconnected by itself
    assert clocks.connected(0, 171.0) == []  # a second tab
    assert clocks.computer_plays(0)
    assert clocks.active(0, 180.0) == [GiveBack(0, 180.0)]
    assert not clocks.computer_plays(0)


def test_given_back_during_its_turn_the_person_gets_a_fresh_move_time_and_no_bank() -> None:
    clocks = clocks_at()
    clocks.turn_started(0, 0.0)
    clocks.tick(150.0)
    clocks.active(0, 200.0)
    assert clocks.next_deadline() == 230.0  # move time from now; the bank was used up
    assert clocks.tick(230.0) == [TakeOver(0, "time", 230.0)]


def test_a_new_deal_fills_every_bank_again() -> None:
    clocks = clocks_at()
    clocks.turn_started(0, 0.0)
    clocks.acted(0, 100.0)  # 70 s of the bank used
    clocks.turn_started(1, 100.0)
    clocks.tick(250.0)  # seat 1 taken over for time: bank 0
    clocks.acted(1, 251.0)
    assert clocks.deal_started(251.0) == []
    clocks.turn_started(0, 251.0)
    assert clocks.next_deadline() == 251.0 + 30 + 120
    seats = clocks.snapshot(251.0)["seats"]
    assert (seats[0]["bank"], seats[1]["bank"]) == (120.0, 120.0)


def test_deal_started_while_a_clock_runs_is_a_wiring_error() -> None:
    clocks = clocks_at()
    clocks.turn_started(1, 0.0)
    with pytest.raises(ValueError, match="deal_started: seat 1's clock is running"):
        clocks.deal_started(1.0)


# ---------------------------------------------------------------------- connections


def test_a_seat_that_reconnects_within_the_grace_is_not_taken_over() -> None:
    clocks = clocks_at()
    clocks.disconnected(1, 10.0)
    assert clocks.next_deadline() == 40.0
    assert clocks.snapshot(25.0)["seats"][1]["grace"] == 15.0
    assert clocks.connected(1, 39.9) == []
    assert clocks.next_deadline() is None
    assert clocks.tick(1000.0) == []
    assert not clocks.computer_plays(1)


def test_a_seat_with_several_connections_is_connected_until_the_last_one_closes() -> None:
    clocks = clocks_at(ClockSettings())
    clocks.connected(0, 1.0)
    clocks.connected(0, 2.0)  # three in all
    clocks.disconnected(0, 3.0)
    clocks.disconnected(0, 4.0)
    assert clocks.next_deadline() is None
    assert clocks.snapshot(5.0)["seats"][0]["connected"] is True
    clocks.disconnected(0, 5.0)
    assert clocks.snapshot(5.0)["seats"][0]["connected"] is False
    assert clocks.next_deadline() == 35.0
    with pytest.raises(ValueError, match="disconnected: seat 0 has no open connection"):
        clocks.disconnected(0, 6.0)


def test_nobody_connected_at_the_start_has_the_grace_from_the_start() -> None:
    clocks = clocks_at(connected=(0,))
    assert clocks.next_deadline() == 30.0
    assert clocks.tick(30.0) == [TakeOver(1, "disconnected", 30.0)]


def test_disconnected_past_the_grace_is_taken_over_whoever_is_to_act() -> None:
    clocks = clocks_at()
    clocks.turn_started(0, 0.0)
    clocks.disconnected(1, 5.0)
    assert clocks.tick(35.0) == [TakeOver(1, "disconnected", 35.0)]
    # seat 0's own clock is unaffected
    assert clocks.next_deadline() == 150.0


def test_a_takeover_for_a_lost_connection_ends_when_the_person_connects() -> None:
    clocks = clocks_at()
    clocks.turn_started(1, 0.0)
    clocks.disconnected(1, 20.0)
    assert clocks.tick(50.0) == [TakeOver(1, "disconnected", 50.0)]
    assert clocks.next_deadline() == 350.0  # its clock stopped; the abandonment counts
    assert clocks.connected(1, 80.0) == [GiveBack(1, 80.0)]
    # a fresh move time; the bank less the 20 s used before the takeover
    assert clocks.next_deadline() == 80.0 + 30 + 100


def test_time_and_grace_at_once_take_the_seat_over_once() -> None:
    clocks = clocks_at(ClockSettings(move_s=30, grace_s=30))
    clocks.disconnected(0, 0.0)
    clocks.turn_started(0, 0.0)
    assert clocks.tick(31.0) == [TakeOver(0, "time", 30.0)]
    assert clocks.tick(400.0) == [Abandoned(0, 330.0)]


def test_every_input_first_fires_the_deadlines_due_at_the_instant_they_fell_due() -> None:
    clocks = clocks_at()
    clocks.disconnected(1, 0.0)
    # nobody ticked at 30: the connection at 35 finds the takeover, then gives the seat back
    assert clocks.connected(1, 35.0) == [TakeOver(1, "disconnected", 30.0), GiveBack(1, 35.0)]


# ---------------------------------------------------------------------- abandonment


def test_a_person_not_back_within_the_limit_has_abandoned_for_good() -> None:
    clocks = clocks_at()
    clocks.disconnected(0, 0.0)
    assert clocks.tick(30.0) == [TakeOver(0, "disconnected", 30.0)]
    assert clocks.tick(329.9) == []
    assert clocks.tick(330.0) == [Abandoned(0, 330.0)]
    assert clocks.abandoned == {0}
    assert clocks.next_deadline() is None
    assert clocks.connected(0, 400.0) == []
    assert clocks.active(0, 401.0) == []
    assert clocks.computer_plays(0)
    clocks.turn_started(0, 402.0)
    assert clocks.next_deadline() is None  # no clock for the computer
    snap = clocks.snapshot(402.0)["seats"][0]
    assert (snap["connected"], snap["taken"], snap["abandoned"], snap["back_by"]) == (
        True,
        None,
        True,
        None,
    )


def test_one_late_tick_fires_takeover_and_abandonment_in_order() -> None:
    clocks = clocks_at()
    clocks.disconnected(0, 0.0)
    clocks.turn_started(1, 0.0)
    assert clocks.tick(10_000.0) == [
        TakeOver(0, "disconnected", 30.0),
        TakeOver(1, "time", 150.0),
        Abandoned(0, 330.0),
        Abandoned(1, 450.0),
    ]


def test_each_takeover_starts_its_own_count_to_abandonment() -> None:
    clocks = clocks_at()
    clocks.disconnected(0, 0.0)
    clocks.tick(30.0)
    clocks.connected(0, 300.0)  # back 30 s before abandoning
    clocks.disconnected(0, 301.0)
    assert clocks.tick(331.0) == [TakeOver(0, "disconnected", 331.0)]
    assert clocks.next_deadline() == 631.0


def test_seats_abandoned_before_a_restart_stay_abandoned() -> None:
    clocks = SeatClocks(TIMED, seats=3, people=(0, 1), now=1000.0, abandoned=[1])
    assert clocks.abandoned == {1} and clocks.computer_plays(1)
    assert clocks.connected(1, 1001.0) == []
    assert clocks.active(1, 1002.0) == []
    # seat 0 nobody reconnected after the restart: the grace runs from it
    assert clocks.tick(1030.0) == [TakeOver(0, "disconnected", 1030.0)]


def test_after_the_game_no_decision_follows() -> None:
    clocks = clocks_at()
    clocks.disconnected(0, 0.0)
    clocks.tick(30.0)
    clocks.turn_started(1, 40.0)
    clocks.acted(1, 41.0)
    assert clocks.game_over(41.0) == []
    assert clocks.next_deadline() is None
    assert clocks.tick(1e6) == []
    assert clocks.connected(0, 1e6) == []
    assert clocks.active(0, 1e6) == []
    assert clocks.disconnected(1, 1e6) == []
    snap = clocks.snapshot(1e6)["seats"]
    assert snap[0]["back_by"] is None and snap[1]["grace"] is None


# ---------------------------------------------------------------------- bad input


def test_wiring_mistakes_are_refused_with_what_and_where() -> None:
    clocks = clocks_at()
    with pytest.raises(ValueError, match="connected: seat 2 is a computer's seat"):
        clocks.connected(2, 1.0)
    with pytest.raises(ValueError, match="connected: no seat 3 at a table of 3 seats"):
        clocks.connected(3, 1.0)
    with pytest.raises(ValueError, match="turn_started: no seat True"):
        clocks.turn_started(True, 1.0)
    with pytest.raises(ValueError, match="acted: seat 1 acted but nobody is to act"):
        clocks.acted(1, 1.0)
    clocks.turn_started(0, 2.0)
    with pytest.raises(ValueError, match="acted: seat 1 acted but seat 0 is to act"):
        clocks.acted(1, 2.0)
    with pytest.raises(ValueError, match=r"tick: time went backwards \(now=1.0 after 2.0\)"):
        clocks.tick(1.0)
    with pytest.raises(ValueError, match="tick: now must be a finite number of seconds"):
        clocks.tick(math.nan)
    with pytest.raises(ValueError, match=r"connected: time went backwards \(now=0.5 after 2.0"):
        clocks.connected(0, 0.5)
    clocks.disconnected(1, 3.0)
    with pytest.raises(ValueError, match="active: seat 1 has no open connection"):
        clocks.active(1, 3.0)
    with pytest.raises(ValueError, match="people names seat 0 twice"):
        SeatClocks(TIMED, seats=3, people=(0, 0), now=0.0)
    with pytest.raises(ValueError, match="seats must be a whole number of at least 1"):
        SeatClocks(TIMED, seats=0, people=(), now=0.0)
    with pytest.raises(ValueError, match="abandoned: seat 2 is a computer's seat"):
        SeatClocks(TIMED, seats=3, people=(0,), now=0.0, abandoned=(2,))


# ---------------------------------------------------------------------- for the wire


def test_whole_seconds_are_written_as_whole_numbers() -> None:
    # (the defaults read "grace_s": 30.0 beside a client's "move_s": 30 in /api/config)
    assert json.dumps(ClockSettings().to_json()) == (
        '{"move_s": null, "bank_s": 0, "grace_s": 30, "abandon_s": 300}'
    )
    text = json.dumps(ClockSettings(move_s=15.0, bank_s=2.5, grace_s=10).to_json())
    assert text == '{"move_s": 15, "bank_s": 2.5, "grace_s": 10, "abandon_s": 300}'


def test_the_snapshot_is_the_json_the_view_message_carries() -> None:
    clocks = clocks_at(people=(0, 2))
    clocks.turn_started(0, 0.0)
    clocks.disconnected(2, 10.0)
    person = {"connected": True, "taken": None, "abandoned": False, "running": False}
    person |= {"move": 30, "bank": 120.0, "grace": None, "back_by": None}
    snap = clocks.snapshot(39.04)
    assert json.loads(json.dumps(snap)) == snap
    assert snap == {
        "clock": {"move_s": 30, "bank_s": 120, "grace_s": 30.0, "abandon_s": 300.0},
        "seats": [
            person | {"running": True, "move": 0.0, "bank": 111.0},
            None,
            person | {"connected": False, "grace": 1.0},
        ],
    }
    clocks.tick(45.0)  # seat 2 taken over at 40
    seats = clocks.snapshot(45.0)["seats"]
    assert seats[2] == person | {"connected": False, "taken": "disconnected", "back_by": 295.0}
    assert seats[0]["bank"] == 105.0
    # a snapshot changes nothing, and one past an unticked deadline shows zero, not less
    assert (
        clocks.snapshot(10_000.0)["seats"][0] | {"bank": 0.0}
        == clocks.snapshot(10_000.0)["seats"][0]
    )
    assert clocks.snapshot(10_000.0)["seats"][0]["bank"] == 0.0
    assert clocks.next_deadline() == 150.0


def test_a_calm_table_keeps_its_snapshot_until_a_seat_changes() -> None:
    """No move clock and everybody connected: the snapshot is built once and given again
    (it does not depend on the time); a closed connection changes it at once, and its grace
    then counts down in every snapshot."""
    clocks = SeatClocks(ClockSettings(grace_s=30.0), seats=3, people=[0, 1], now=0.0)
    clocks.connected(0, 0.0)
    assert clocks.snapshot(1.0) is not clocks.snapshot(1.5)  # (seat 1's grace runs)
    clocks.connected(1, 2.0)
    clocks.turn_started(0, 2.0)
    calm = clocks.snapshot(3.0)
    assert calm is clocks.snapshot(9.0)
    assert clocks.next_deadline() is None
    clocks.acted(0, 10.0)
    clocks.turn_started(1, 10.0)
    assert clocks.snapshot(11.0) is calm
    clocks.disconnected(1, 12.0)
    assert clocks.next_deadline() == 42.0
    assert [s["grace"] for s in clocks.snapshot(20.0)["seats"][:2]] == [None, 22.0]
    assert clocks.snapshot(21.0)["seats"][1]["grace"] == 21.0
    clocks.connected(1, 22.0)
    back = clocks.snapshot(23.0)
    assert back == calm and back is clocks.snapshot(30.0)


def test_decisions_announce_themselves_as_json() -> None:
    assert TakeOver(1, "time", 5.0).to_json() == {"type": "takeover", "seat": 1, "reason": "time"}
    assert GiveBack(2, 5.0).to_json() == {"type": "giveback", "seat": 2}
    assert Abandoned(0, 5.0).to_json() == {"type": "abandoned", "seat": 0}


# ---------------------------------------------------------------------- random sequences

#: (an op that does not apply at that moment, and "wait", only let time pass)
OPS = ("turn", "turn", "acted", "connect", "disconnect", "active", "active", "deal", "tick", "wait")


@settings(max_examples=200, deadline=None)
@given(hst.data())
def test_random_event_sequences_keep_the_invariants(data: hst.DataObject) -> None:
    """No TakeOver of a taken seat, no GiveBack of a seat not taken or abandoned, nothing at
    all for a seat after it was abandoned; decisions in time order and never after the input
    that made them; the next deadline always later than the latest input; and the same
    events give the same decisions however often the clock ticked in between."""
    seats = data.draw(hst.integers(2, 3))
    people = data.draw(hst.sets(hst.integers(0, seats - 1), min_size=1).map(sorted))
    move = data.draw(hst.sampled_from([None, 1.0, 2.5]))
    clock = ClockSettings(
        move_s=move,
        bank_s=0.0 if move is None else data.draw(hst.sampled_from([0.0, 1.5, 4.0])),
        grace_s=data.draw(hst.sampled_from([1.0, 2.0, 3.5])),
        abandon_s=data.draw(hst.sampled_from([1.0, 3.0, 6.0])),
    )
    clocks = SeatClocks(clock, seats=seats, people=people, now=0.0)
    calls: list[tuple[str, tuple[Any, ...]]] = []  # every input but the ticks
    produced: list[Decision] = []
    taken: set[int] = set()
    abandoned: set[int] = set()
    conns = dict.fromkeys(people, 0)
    turn: int | None = None
    now = last_at = 0.0

    def feed(name: str, *args: Any) -> None:
        nonlocal last_at
        decisions: list[Decision] = getattr(clocks, name)(*args, now)
        if name != "tick":
            calls.append((name, (*args, now)))
        produced.extend(decisions)
        for d in decisions:
            event(f"{type(d).__name__} {d.reason}" if isinstance(d, TakeOver) else type(d).__name__)
            assert d.seat not in abandoned, d
            assert last_at <= d.at <= now, d
            last_at = d.at
            if isinstance(d, TakeOver):
                assert d.seat not in taken, d
                assert d.reason == "disconnected" or clock.timed
                taken.add(d.seat)
            elif isinstance(d, GiveBack):
                assert d.seat in taken, d
                taken.discard(d.seat)
            else:
                assert d.seat in taken, d
                abandoned.add(d.seat)
        deadline = clocks.next_deadline()
        assert deadline is None or deadline > now
        for seat in people:
            assert clocks.computer_plays(seat) == (seat in taken)
        assert clocks.abandoned == abandoned
        snapshot = clocks.snapshot(now)
        for entry in snapshot["seats"]:
            assert entry is None or all(
                v is None or v >= 0 for k, v in entry.items() if k in ("move", "bank", "grace")
            )
        # what is kept for a calm table (no move clock, nothing counting down) is what the
        # seats show now
        assert snapshot == clocks.snapshot_at(now)
        assert sorted(clocks._deadlines()) == sorted(clocks._all_deadlines())

    for seat in data.draw(hst.sets(hst.sampled_from(people))):
        conns[seat] += 1
        feed("connected", seat)
    for _ in range(data.draw(hst.integers(1, 40))):
        now += data.draw(hst.sampled_from([0.0, 0.5, 1.0, 1.5, 4.0]))
        op = data.draw(hst.sampled_from(OPS))
        if op == "turn":
            turn = data.draw(hst.sampled_from([None, *range(seats), *people, *people]))
            feed("turn_started", turn)
        elif op == "acted" and turn is not None:
            feed("acted", turn)
            turn = None
        elif op == "connect":
            seat = data.draw(hst.sampled_from(people))
            conns[seat] += 1
            feed("connected", seat)
        elif op in ("disconnect", "active"):
            online = [s for s in people if conns[s]]
            if online:
                seat = data.draw(hst.sampled_from(online))
                if op == "disconnect":
                    conns[seat] -= 1
                    feed("disconnected", seat)
                else:
                    feed("active", seat)
        elif op == "deal" and turn is None:
            feed("deal_started")
        elif op == "tick":
            feed("tick")
    now += 20.0
    feed("tick")

    # the same inputs without a tick in between: the same decisions
    again = SeatClocks(clock, seats=seats, people=people, now=0.0)
    replayed: list[Decision] = []
    for name, args in calls:
        replayed += getattr(again, name)(*args)
    replayed += again.tick(now)
    assert replayed == produced


# ---------------------------------------------------------------------- the asyncio driver


class FakeTime:
    """A fake monotonic clock with an asyncio sleep that waits for :meth:`advance`."""

    def __init__(self) -> None:
        self.t = 0.0
        self.sleeps: list[float] = []
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, delay: float) -> None:
        self.sleeps.append(delay)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self.t + delay, len(self.sleeps), future))
        await future

    async def advance(self, delay: float) -> None:
        target = self.t + delay
        while self._sleepers and self._sleepers[0][0] <= target:
            when, _, future = heapq.heappop(self._sleepers)
            self.t = max(self.t, when)
            if not future.done():
                future.set_result(None)
            await settle()
        self.t = target
        await settle()

    @property
    def waiting(self) -> int:
        return sum(not f.done() for _, _, f in self._sleepers)


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def driven(
    fake: FakeTime, clocks: SeatClocks, on: Callable[[list[Decision]], object]
) -> ClockDriver:
    return ClockDriver(clocks, on, now=fake.now, sleep=fake.sleep)


def test_the_driver_fires_each_deadline_when_it_falls_due() -> None:
    async def main() -> None:
        fake = FakeTime()
        clocks = clocks_at()
        got: list[Decision] = []
        driver = driven(fake, clocks, got.extend)
        clocks.disconnected(0, fake.now())
        driver.reschedule()
        assert driver.armed == 30.0
        await fake.advance(29.0)
        assert got == []
        await fake.advance(1.0)
        assert got == [TakeOver(0, "disconnected", 30.0)]
        assert driver.armed == 330.0  # re-armed for the abandonment
        await fake.advance(300.0)
        assert got[1:] == [Abandoned(0, 330.0)]
        assert driver.armed is None
        driver.close()

    asyncio.run(main())


def test_the_driver_rearms_for_a_nearer_deadline_and_keeps_a_nearer_wait() -> None:
    async def main() -> None:
        fake = FakeTime()
        clocks = clocks_at()
        got: list[Decision] = []
        driver = driven(fake, clocks, got.extend)
        clocks.turn_started(0, 0.0)
        driver.reschedule()
        assert driver.armed == 150.0
        await fake.advance(10.0)
        clocks.disconnected(1, fake.now())  # grace ends at 40: nearer
        driver.reschedule()
        assert driver.armed == 40.0
        await settle()
        assert fake.waiting == 1  # the wait for 150 was cancelled
        clocks.acted(0, 12.0)
        clocks.turn_started(0, 12.0)  # deadline 162, later than the wait: kept
        driver.reschedule()
        assert driver.armed == 40.0
        await fake.advance(30.0)
        assert got == [TakeOver(1, "disconnected", 40.0)]
        assert driver.armed == 162.0
        # an early wake-up (the armed deadline went away) fires nothing and re-arms
        clocks.connected(1, fake.now())
        clocks.acted(0, fake.now())
        driver.reschedule()
        assert driver.armed == 162.0
        await fake.advance(200.0)
        assert got == [TakeOver(1, "disconnected", 40.0)]  # (the GiveBack went to the caller)
        assert driver.armed is None
        driver.close()

    asyncio.run(main())


def test_a_closed_driver_fires_nothing() -> None:
    async def main() -> None:
        fake = FakeTime()
        clocks = clocks_at()
        got: list[Decision] = []
        driver = driven(fake, clocks, got.extend)
        clocks.disconnected(0, 0.0)
        driver.reschedule()
        driver.close()
        driver.reschedule()
        await fake.advance(1000.0)
        assert got == [] and driver.armed is None and fake.waiting == 0

    asyncio.run(main())


def test_a_failing_callback_is_logged_and_the_driver_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def main() -> None:
        fake = FakeTime()
        clocks = clocks_at()
        got: list[list[Decision]] = []

        def on(decisions: list[Decision]) -> None:
            got.append(decisions)
            if len(got) == 1:
                raise RuntimeError("boom")

        driver = driven(fake, clocks, on)
        clocks.disconnected(0, 0.0)
        driver.reschedule()
        await fake.advance(30.0)
        await fake.advance(300.0)
        assert got == [[TakeOver(0, "disconnected", 30.0)], [Abandoned(0, 330.0)]]
        driver.close()

    with caplog.at_level(logging.ERROR, logger="tapete.server"):
        asyncio.run(main())
    assert "were not carried out" in caplog.text


def test_the_driver_on_the_real_clock_and_sleep() -> None:
    """Default ``now`` and ``sleep`` (time.monotonic, asyncio.sleep): a 1 s grace fires."""

    async def main() -> None:
        start = time.monotonic()
        clocks = SeatClocks(ClockSettings(grace_s=1.0), seats=2, people=(0,), now=start)
        fired = asyncio.Event()
        got: list[Decision] = []

        def on(decisions: list[Decision]) -> None:
            got.extend(decisions)
            fired.set()

        driver = ClockDriver(clocks, on)
        driver.reschedule()
        await asyncio.wait_for(fired.wait(), timeout=10)
        assert got == [TakeOver(0, "disconnected", start + 1.0)]
        assert time.monotonic() >= start + 1.0
        driver.close()

    asyncio.run(main())
