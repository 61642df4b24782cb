"""Seat clocks and dropped seats: when a computer plays a person's seat, and when the seat
is theirs again (the policy; issue 13, item 5).

:class:`SeatClocks` is a pure, deterministic state machine. It reads no clock and starts no
task: every input carries the time (``now``, seconds on a monotonic clock), and it answers
with a list of :data:`Decision` values for the table to carry out. :class:`ClockDriver` is
the small asyncio part that sleeps until :meth:`SeatClocks.next_deadline` and then calls
:meth:`SeatClocks.tick`. docs/server.md, "Clocks and dropped seats", states the rules for
people; the numbers live in :class:`ClockSettings`.

The rules
---------
- **Time.** With a clock, each turn of a person has ``move_s`` seconds; past them the seat's
  time bank (``bank_s``) drains. A turn that outlasts both is taken over: ``TakeOver(seat,
  "time")``. A computer's seat has no clock. The bank is full at the start of the game and
  again at the start of every deal (``deal_started``); it is not stored, so a restart of the
  server fills it too.
- **Connection.** A seat may have several connections (tabs, devices); it is disconnected
  when the last one closes. Disconnected for ``grace_s`` seconds (whether or not it is the
  seat's turn): ``TakeOver(seat, "disconnected")``. A connection within the grace: nothing.
- **Coming back.** After a takeover for a lost connection, a new connection gives the seat
  back (``GiveBack``). After a takeover for time the person is connected but away: only a
  message they send (``active``: an action, a chat line, the "I am back" button) gives it
  back; a connection alone does not (a client that reconnects by itself would otherwise take
  an empty chair back again and again). A message gives the seat back whatever the reason.
- **While a computer plays the seat** its clock is stopped: the computer's moves cost the
  person no time. When the seat is given back during its turn, the person gets a fresh move
  time from that moment, with the bank as it was (empty after a takeover for time, until
  the next deal).
- **Abandonment.** A seat still taken ``abandon_s`` seconds after its takeover is
  ``Abandoned``: final, the computer plays it to the end of the game, and no ``GiveBack``
  follows. Each takeover starts its own count.
- **Time only moves forward.** An input earlier than the one before it is refused
  (``ValueError``). Every input first fires the deadlines due by its time, as ``tick(now)``
  would, each at the instant it fell due (a takeover at the deadline, not when noticed); so
  the decisions never depend on how often ``tick`` runs, and after any input
  ``next_deadline()`` is ``None`` or later than its time.

Integration sketch (for TableManager, pending the multi-person tables)
----------------------------------------------------------------------
One :class:`SeatClocks` and one :class:`ClockDriver` per table in memory, built when the game
starts (every seat filled) or when the table is rebuilt after a restart:
``SeatClocks(settings, seats=len(table.players), people=[s for s, level in
enumerate(table.levels) if level is None], now=now(), abandoned=table.abandoned)``, then
``connected(s, now)`` for each person's connection already open and ``turn_started(
game.turn, now)``. The settings come from the table's row (``ClockSettings.from_json``).
After every input below, handle the returned decisions in order (under ``table.lock``) and
call ``driver.reschedule()``.

- ``attach`` of a person's connection to seat ``s``: ``connected(s, now)``; ``detach``:
  ``disconnected(s, now)`` (spectators: neither).
- A message from a person's connection that the person made (``act``, ``hint``, chat, the
  "I am back" button; not the client's automatic ``sync`` on reconnecting):
  ``active(s, now)``, before the message itself is handled, so that an action from a person
  whose seat was taken is theirs again and is then checked as usual.
- After each committed action (``_commit``, a person's or a computer's):
  ``acted(seat, now)``; if ``game.deal_number`` changed, ``deal_started(now)``; then
  ``game_over(now)`` if the game is over, else ``turn_started(game.turn, now)``.
- The driver's callback gets the decisions of ``tick`` (a deadline passed) and handles them
  the same way (it runs in the driver's task: take ``table.lock`` in a task of its own). The
  driver and the table read the same injected clock (``now``).
- A table with a deadline pending (``clocks.next_deadline()`` not None) stays in memory
  (``_maybe_evict`` must keep it, or nobody would fire the takeover); ``driver.close()`` when
  the table is closed, finished or evicted.

What each decision asks of the table:

- ``TakeOver(seat, reason)``: from now on the table's computer level plays ``seat``
  (``is_bot(seat)`` is true while ``clocks.computer_plays(seat)``); announce
  ``decision.to_json()`` to everyone (seat views and spectators) and record it in the event
  history; ``ensure_bots(table)``, so that the computer acts at once if it is that seat's
  turn (paced by ``delay_ms`` like any computer move). A seat that had no bot gets one of
  the table's level, with its memory of the current hand rebuilt as after a restart
  (``rebuild_memory``: a Mariage bot remembers the tricks it saw go by).
- ``GiveBack(seat)``: the person plays ``seat`` again; announce it to everyone. The bot loop
  must check under ``table.lock``, just before applying, that the seat is still a computer's
  (a ``GiveBack`` while the computer thought makes its move void, like a stale version).
- ``Abandoned(seat)``: add ``seat`` to ``table.abandoned`` and store it with the table
  (ratings count it as last place), announce it; the computer keeps the seat to the end.

Each view message carries ``clocks.snapshot(now)`` (remaining move time and bank per seat,
who is connected, who is taken over and why) for the clocks on screen.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal

__all__ = [
    "BOUNDS",
    "Abandoned",
    "ClockDriver",
    "ClockSettings",
    "ClockSettingsError",
    "Decision",
    "GiveBack",
    "Reason",
    "SeatClocks",
    "TakeOver",
]

JSON = dict[str, Any]

log = logging.getLogger("tapete.server")

#: why a computer plays a person's seat
Reason = Literal["time", "disconnected"]

#: the bounds of each setting (seconds): (low, high); ``tapete serve``'s options share them
BOUNDS: Final[dict[str, tuple[float, float]]] = {
    "move_s": (1.0, 3600.0),
    "bank_s": (0.0, 3600.0),
    "grace_s": (1.0, 3600.0),
    "abandon_s": (1.0, 86400.0),
}


def _whole(seconds: float | None) -> float | None:
    """``seconds``, as an int when it is a whole number."""
    if isinstance(seconds, float) and seconds.is_integer():
        return int(seconds)
    return seconds


class ClockSettingsError(ValueError):
    """Clock settings that are not valid; the message names the field and the bounds."""


def _seconds(value: object, where: str, *, nullable: bool = False) -> None:
    """``value`` as seconds within the field's bounds, or raise with the sentence."""
    name = where.rsplit(".", 1)[-1]
    low, high = BOUNDS[name]
    what = f"a number of seconds from {low:g} to {high:g}"
    if nullable:
        what = f"null (no clock) or {what}"
    if value is None and nullable:
        return
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or not low <= value <= high
    ):
        raise ClockSettingsError(f"{where} must be {what}, got {value!r}")


@dataclass(frozen=True, slots=True)
class ClockSettings:
    """A table's clock and dropped-seat settings (defaults: no clock, 30 s grace, 5 min to
    come back). Stored with the table and shown in the lobby as :meth:`to_json`."""

    #: seconds for each move of a person; None: no clock (no takeover for time)
    move_s: float | None = None
    #: seconds a person may go past the move time, over a deal (refilled at each deal);
    #: only with a move time
    bank_s: float = 0.0
    #: seconds a seat may have no connection before a computer plays it
    grace_s: float = 30.0
    #: seconds after a takeover within which the person must come back, or abandon the seat
    abandon_s: float = 300.0

    def __post_init__(self) -> None:
        _check_settings(
            "clock",
            move_s=self.move_s,
            bank_s=self.bank_s,
            grace_s=self.grace_s,
            abandon_s=self.abandon_s,
        )

    @property
    def timed(self) -> bool:
        """Whether moves are timed."""
        return self.move_s is not None

    def to_json(self) -> JSON:
        """The settings as JSON, a whole number of seconds written as one (``30``, not
        ``30.0``: the defaults and a client's ``30`` were written two ways side by side)."""
        return {
            "move_s": _whole(self.move_s),
            "bank_s": _whole(self.bank_s),
            "grace_s": _whole(self.grace_s),
            "abandon_s": _whole(self.abandon_s),
        }

    @classmethod
    def from_json(cls, data: object, where: str = "clock") -> ClockSettings:
        """Settings from a JSON object (a table's row, a request's ``clock`` field; a field
        left out takes its default). Raise :class:`ClockSettingsError` naming ``where``."""
        if not isinstance(data, dict):
            raise ClockSettingsError(f"{where} must be a JSON object, got {data!r}")
        fields = tuple(BOUNDS)
        extra = sorted(str(k) for k in data if k not in fields)
        if extra:
            raise ClockSettingsError(
                f"{where} has unknown field(s) {', '.join(map(repr, extra))}; "
                f"known: {', '.join(fields)}"
            )
        default = cls()
        values = {name: data.get(name, getattr(default, name)) for name in fields}
        _check_settings(where, **values)
        return cls(**values)


def _check_settings(
    where: str, *, move_s: object, bank_s: object, grace_s: object, abandon_s: object
) -> None:
    """Raise :class:`ClockSettingsError` for the first setting out of bounds."""
    _seconds(move_s, f"{where}.move_s", nullable=True)
    _seconds(bank_s, f"{where}.bank_s")
    _seconds(grace_s, f"{where}.grace_s")
    _seconds(abandon_s, f"{where}.abandon_s")
    if move_s is None and bank_s:
        raise ClockSettingsError(
            f"{where}.bank_s must be 0 without a time per move ({where}.move_s is null), "
            f"got {bank_s!r}"
        )


# ---------------------------------------------------------------------- decisions


@dataclass(frozen=True, slots=True)
class TakeOver:
    """A computer plays ``seat`` from ``at`` on."""

    seat: int
    reason: Reason
    at: float

    def to_json(self) -> JSON:
        return {"type": "takeover", "seat": self.seat, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class GiveBack:
    """The person plays ``seat`` again from ``at`` on."""

    seat: int
    at: float

    def to_json(self) -> JSON:
        return {"type": "giveback", "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Abandoned:
    """The person did not come back to ``seat``: the computer keeps it to the end."""

    seat: int
    at: float

    def to_json(self) -> JSON:
        return {"type": "abandoned", "seat": self.seat}


Decision = TakeOver | GiveBack | Abandoned

# deadline kinds, in the order they fire when they fall due at the same instant
_TIME, _GRACE, _ABANDON = 0, 1, 2


@dataclass(slots=True)
class _Seat:
    """One person's seat."""

    bank: float
    connections: int = 0
    #: when its last connection closed (None while connected)
    gone_since: float | None = None
    #: why a computer plays it (None: the person does)
    taken: Reason | None = None
    taken_at: float = 0.0
    abandoned: bool = False


class SeatClocks:
    """The clocks and dropped-seat policy of one table (see the module's docstring)."""

    def __init__(
        self,
        settings: ClockSettings,
        *,
        seats: int,
        people: Iterable[int],
        now: float,
        abandoned: Iterable[int] = (),
    ) -> None:
        if isinstance(seats, bool) or not isinstance(seats, int) or seats < 1:
            raise ValueError(f"seats must be a whole number of at least 1, got {seats!r}")
        self.settings = settings
        self.seats = seats
        _finite(now, "SeatClocks")
        #: the time of the latest input (time never goes back)
        self._now: float = now
        self._people: dict[int, _Seat] = {}
        for seat in people:
            self._check_seat(seat, "people")
            if seat in self._people:
                raise ValueError(f"people names seat {seat} twice")
            # nobody is connected yet: the grace runs from the start
            self._people[seat] = _Seat(bank=settings.bank_s, gone_since=now)
        for seat in abandoned:
            person = self._person(seat, "abandoned")
            person.taken, person.taken_at, person.abandoned = "disconnected", now, True
        #: the seat to act (None: nobody), and when its clock (re)started
        self._turn: int | None = None
        self._turn_start = now
        self._over = False
        self._changed_seats()

    def _changed_seats(self) -> None:
        """(After any change of a person's connections, takeover or abandonment) note
        whether a grace or a return is counting down (``_waiting``), and drop the snapshot
        kept for a table without a move clock where nothing counts down (``_calm``): the
        state of nearly every table, at every action, which then costs no deadline and
        no snapshot to build."""
        self._waiting = any(
            not p.abandoned and (p.taken is not None or p.gone_since is not None)
            for p in self._people.values()
        )
        self._calm: JSON | None = None

    # ------------------------------------------------------------------ checks

    def _advance(self, now: float, what: str) -> None:
        _finite(now, what)
        if now < self._now:
            raise ValueError(
                f"{what}: time went backwards (now={now!r} after {self._now!r}); use a "
                "monotonic clock"
            )
        self._now = now

    def _check_seat(self, seat: object, what: str) -> int:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.seats:
            raise ValueError(f"{what}: no seat {seat!r} at a table of {self.seats} seats")
        return seat

    def _person(self, seat: object, what: str) -> _Seat:
        person = self._people.get(self._check_seat(seat, what))
        if person is None:
            raise ValueError(f"{what}: seat {seat} is a computer's seat, not a person's")
        return person

    # ------------------------------------------------------------------ queries

    def computer_plays(self, seat: int) -> bool:
        """Whether a computer plays the person's ``seat`` now (taken over or abandoned)."""
        person = self._people.get(seat)
        return person is not None and person.taken is not None

    @property
    def abandoned(self) -> frozenset[int]:
        return frozenset(s for s, p in self._people.items() if p.abandoned)

    def _running(self) -> int | None:
        """The person's seat whose clock runs now, if any."""
        if self._over or self.settings.move_s is None or self._turn is None:
            return None
        person = self._people.get(self._turn)
        return self._turn if person is not None and person.taken is None else None

    def _deadlines(self) -> list[tuple[float, int, int]]:
        """Every pending deadline as (when, seat, kind)."""
        if self._over or (self.settings.move_s is None and not self._waiting):
            return []  # (no move clock, no grace or return counting down)
        return self._all_deadlines()

    def _all_deadlines(self) -> list[tuple[float, int, int]]:
        """:meth:`_deadlines` worked out from every seat (the tests compare the two)."""
        if self._over:
            return []
        found: list[tuple[float, int, int]] = []
        running = self._running()
        if running is not None:
            assert self.settings.move_s is not None
            bank = self._people[running].bank
            found.append((self._turn_start + self.settings.move_s + bank, running, _TIME))
        for seat, person in self._people.items():
            if person.abandoned:
                continue
            if person.taken is not None:
                found.append((person.taken_at + self.settings.abandon_s, seat, _ABANDON))
            elif person.gone_since is not None:
                found.append((person.gone_since + self.settings.grace_s, seat, _GRACE))
        return found

    def next_deadline(self) -> float | None:
        """When the next decision may fall due without any input (None: never)."""
        deadlines = self._deadlines()
        return min(deadlines)[0] if deadlines else None

    def snapshot(self, now: float) -> JSON:
        """The clocks for the view message at ``now`` (seconds left, rounded to 0.1 s; a
        computer's seat is ``null``). Changes nothing. Without a move clock and with
        nothing counting down it does not depend on ``now``: it is built once and the
        same object is given until a seat's connections, takeover or abandonment change
        (a caller must not change it)."""
        if self.settings.move_s is None and not self._waiting:
            if self._calm is None:
                self._calm = self.snapshot_at(now)
            return self._calm
        return self.snapshot_at(now)

    def snapshot_at(self, now: float) -> JSON:
        """:meth:`snapshot` worked out from every seat (the tests compare the two)."""
        settings = self.settings
        running = self._running()
        elapsed = max(0.0, now - self._turn_start)
        seats: list[JSON | None] = []
        for seat in range(self.seats):
            person = self._people.get(seat)
            if person is None:
                seats.append(None)
                continue
            move: float | None = None
            bank: float | None = None
            if settings.move_s is not None:
                move, bank = settings.move_s, person.bank
                if seat == running:
                    move = max(0.0, settings.move_s - elapsed)
                    bank = max(0.0, person.bank - max(0.0, elapsed - settings.move_s))
            grace = back_by = None
            if person.taken is None and person.gone_since is not None and not self._over:
                grace = max(0.0, person.gone_since + settings.grace_s - now)
            if person.taken is not None and not person.abandoned and not self._over:
                back_by = max(0.0, person.taken_at + settings.abandon_s - now)
            seats.append(
                {
                    "connected": person.connections > 0,
                    "taken": None if person.abandoned else person.taken,
                    "abandoned": person.abandoned,
                    "running": seat == running,
                    "move": _tenths(move),
                    "bank": _tenths(bank),
                    "grace": _tenths(grace),
                    "back_by": _tenths(back_by),
                }
            )
        return {"clock": settings.to_json(), "seats": seats}

    # ------------------------------------------------------------------ inputs

    def tick(self, now: float) -> list[Decision]:
        """Fire the deadlines due by ``now``."""
        return self._fire(now, "tick")

    def _fire(self, now: float, what: str) -> list[Decision]:
        """Move the time to ``now`` (``what``: the input, for errors), firing every deadline
        due by then at the instant it fell due, in order."""
        self._advance(now, what)
        decisions: list[Decision] = []
        while True:
            deadlines = self._deadlines()
            if not deadlines:
                return decisions
            at, seat, kind = min(deadlines)
            if at > now:
                return decisions
            person = self._people[seat]
            if kind == _ABANDON:
                person.abandoned = True
                decisions.append(Abandoned(seat, at))
                self._changed_seats()
                continue
            if seat == self._running():
                self._stop(at)  # the time up to the takeover is the person's
            reason: Reason = "time" if kind == _TIME else "disconnected"
            person.taken, person.taken_at = reason, at
            decisions.append(TakeOver(seat, reason, at))
            self._changed_seats()

    def turn_started(self, seat: int | None, now: float) -> list[Decision]:
        """``seat`` is to act (None: nobody is); its clock starts if it is a person's. A
        clock still running is stopped as by :meth:`acted`."""
        decisions = self._fire(now, "turn_started")
        if seat is not None:
            self._check_seat(seat, "turn_started")
        self._stop(now)
        self._turn, self._turn_start = seat, now
        return decisions

    def acted(self, seat: int, now: float) -> list[Decision]:
        """``seat``'s action was applied (a person's, or a computer's at any seat): its clock
        stops, and the time past the move time comes off the bank."""
        decisions = self._fire(now, "acted")
        self._check_seat(seat, "acted")
        if seat != self._turn and not self._over:
            whose = "nobody" if self._turn is None else f"seat {self._turn}"
            raise ValueError(
                f"acted: seat {seat} acted but {whose} is to act "
                "(call turn_started when a turn begins)"
            )
        self._stop(now)
        self._turn = None
        return decisions

    def _stop(self, now: float) -> None:
        running = self._running()
        if running is not None:
            assert self.settings.move_s is not None
            person = self._people[running]
            over = now - self._turn_start - self.settings.move_s
            if over > 0:
                person.bank = max(0.0, person.bank - over)

    def connected(self, seat: int, now: float) -> list[Decision]:
        """A connection of the person at ``seat`` opened."""
        decisions = self._fire(now, "connected")
        person = self._person(seat, "connected")
        person.connections += 1
        person.gone_since = None
        if person.taken == "disconnected":
            decisions += self._give_back(seat, person, now)
        self._changed_seats()
        return decisions

    def disconnected(self, seat: int, now: float) -> list[Decision]:
        """A connection of the person at ``seat`` closed."""
        decisions = self._fire(now, "disconnected")
        person = self._person(seat, "disconnected")
        if person.connections == 0:
            raise ValueError(f"disconnected: seat {seat} has no open connection to close")
        person.connections -= 1
        if person.connections == 0:
            person.gone_since = now
        self._changed_seats()
        return decisions

    def active(self, seat: int, now: float) -> list[Decision]:
        """The person at ``seat`` sent a message of their own (they are at the table)."""
        decisions = self._fire(now, "active")
        person = self._person(seat, "active")
        if person.connections == 0:
            raise ValueError(f"active: seat {seat} has no open connection to send from")
        if person.taken is not None:
            decisions += self._give_back(seat, person, now)
        return decisions

    def _give_back(self, seat: int, person: _Seat, now: float) -> list[Decision]:
        if person.abandoned or self._over:
            return []
        person.taken = None
        self._changed_seats()
        if seat == self._turn:
            self._turn_start = now  # a fresh move time from now
        return [GiveBack(seat, now)]

    def deal_started(self, now: float) -> list[Decision]:
        """A new deal began: every bank is full again. Call it between :meth:`acted` and
        :meth:`turn_started` (no clock running)."""
        decisions = self._fire(now, "deal_started")
        running = self._running()
        if running is not None:
            raise ValueError(
                f"deal_started: seat {running}'s clock is running; call it after acted and "
                "before turn_started"
            )
        for person in self._people.values():
            person.bank = self.settings.bank_s
        return decisions

    def game_over(self, now: float) -> list[Decision]:
        """The game ended: no clock runs and no decision follows (connections are still
        counted for the snapshot)."""
        decisions = self._fire(now, "game_over")
        self._stop(now)
        self._turn = None
        self._over = True
        return decisions


def _finite(now: object, what: str) -> None:
    if now.__class__ is float and math.isfinite(now):
        return  # (the common case, first: every input of every action passes here)
    if isinstance(now, bool) or not isinstance(now, int | float) or not math.isfinite(now):
        raise ValueError(f"{what}: now must be a finite number of seconds, got {now!r}")


def _tenths(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


# ---------------------------------------------------------------------- asyncio driver


def _closed(decisions: list[Decision]) -> None:
    """(A closed driver's ``on_decisions``: it never fires.)"""


class ClockDriver:
    """Sleep until ``clocks.next_deadline()``, then hand ``clocks.tick(now())``'s decisions
    to ``on_decisions`` (a plain function: it runs in the driver's task and must not block;
    it may feed ``clocks`` and call :meth:`reschedule`). Call :meth:`reschedule` after every
    input to ``clocks``: a nearer deadline re-arms the wait; a later one keeps it (an early
    wake-up fires nothing and re-arms). ``now`` and ``sleep`` are injectable for tests."""

    def __init__(
        self,
        clocks: SeatClocks,
        on_decisions: Callable[[list[Decision]], object],
        *,
        now: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    ) -> None:
        self.clocks = clocks
        self.on_decisions = on_decisions
        self.now = now
        self.sleep = sleep
        self._task: asyncio.Task[None] | None = None
        self._armed: float | None = None
        self._closed = False

    @property
    def armed(self) -> float | None:
        """The deadline the driver waits for (None: it waits for nothing)."""
        return self._armed

    def reschedule(self) -> None:
        """(Re)arm the wait for the next deadline (needs a running event loop)."""
        deadline = self.clocks.next_deadline()
        if self._closed or deadline is None:
            return
        if self._task is not None and self._armed is not None and self._armed <= deadline:
            return
        if self._task is not None:
            self._task.cancel()
        self._armed = deadline
        self._task = asyncio.get_running_loop().create_task(
            self._wait(deadline), name="tapete-clock"
        )

    async def _wait(self, deadline: float) -> None:
        while (delay := deadline - self.now()) > 0:
            await self.sleep(delay)
        # from here on no await: reschedule() called from the callback arms a new task
        self._task = self._armed = None
        decisions = self.clocks.tick(self.now())
        if decisions:
            try:
                self.on_decisions(decisions)
            except Exception:
                log.exception("the clock's decisions %s were not carried out", decisions)
        self.reschedule()

    def close(self) -> None:
        """Stop waiting (the table is closed or evicted), and let go of ``on_decisions``: it
        holds the table, which holds this driver; the reference cycle would keep every
        closed table (its whole game) in memory until the collector's rare full pass."""
        self._closed = True
        if self._task is not None:
            self._task.cancel()
        self._task = self._armed = None
        self.on_decisions = _closed
