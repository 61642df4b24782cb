"""``tapete solve FILE.jsonl --game G --deal D [--trick T] [--json]``.

Replays a record with the engine up to deal ``D``'s position after trick ``T`` (default:
before the first lead) and prints the open-hand value: the declarer's final raw points with
both sides playing optimally, everyone seeing every hand. The answer names whose value it is
(the declarer's seat and name; ``--json``: ``whose``, ``declarer``, ``declarer_name``).
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING

from tapete.solver.position import MilPosition

if TYPE_CHECKING:
    from tapete.mil.state import State

__all__ = ["SolveError", "position_at", "position_from_state", "run_solve"]


class SolveError(ValueError):
    """A ``tapete solve`` request that cannot be answered (the message says why)."""


def position_from_state(st: State) -> MilPosition:
    """The open-hand position of a Mil deal in its play phase (or just done)."""
    if st.declarer < 0 or st.leader < 0:
        raise SolveError("the deal has not reached the card play")
    return MilPosition(
        hands=(st.hands[0], st.hands[1], st.hands[2]),
        declarer=st.declarer,
        leader=st.leader,
        trick=tuple(st.trick),
        trump=None if st.trump < 0 else st.trump,
        points=st.raw(),
        tricks_played=len(st.tricks),
        profile=st.profile,
    )


def position_at(path: str, game: int, deal: int, trick: int | None) -> MilPosition:
    """Deal ``deal`` of game ``game`` of the record file ``path``, after ``trick`` tricks."""
    return _position_and_players(path, game, deal, trick)[0]


def _position_and_players(
    path: str, game: int, deal: int, trick: int | None
) -> tuple[MilPosition, list[str]]:
    """:func:`position_at` with the game's player names (by seat)."""
    from tapete.cli.common import UnreadableFile, iter_numbered_record_file
    from tapete.errors import RecordError
    from tapete.mil.game import MilGame
    from tapete.mil.state import Phase
    from tapete.replay import iter_replay

    try:
        numbered = list(iter_numbered_record_file(path))
    except UnreadableFile as exc:
        raise SolveError(str(exc)) from None
    except RecordError as exc:
        raise SolveError(f"{path}: {exc}") from None
    if not numbered:
        raise SolveError(f"{path} holds no game")
    records = [record for _, record in numbered]
    if not 0 <= game < len(records):
        raise SolveError(
            f"{path} holds {len(records)} game(s): --game must be in 0..{len(records) - 1}, "
            f"not {game}"
        )
    record = records[game]
    if record.get("game") != "mil":
        raise SolveError(f"game {game} of {path} is {record.get('game')!r}, not a Mil game")
    want = 0 if trick is None else trick
    if not 0 <= want <= 8:
        raise SolveError(f"--trick must be in 0..8 (tricks already played), not {want}")
    # the whole record is replayed (and checked); the position is kept on the way
    found: MilPosition | None = None
    replayed: MilGame | None = None
    try:
        for g, _ in iter_replay(record, index=game):
            assert isinstance(g, MilGame)
            replayed, st = g, g.state
            if (
                found is None
                and st is not None
                and len(g.deals) == deal
                and st.phase is Phase.PLAY
                and len(st.tricks) == want
                and not st.trick
            ):
                found = position_from_state(st)
    except RecordError as exc:  # (with the line the record starts on, as replay says it)
        raise SolveError(f"{path}: {exc.located(line=numbered[game][0])}") from None
    deals = replayed.deals if replayed is not None else []
    if not deals:
        raise SolveError(f"game {game} of {path} has no deal")
    if not 0 <= deal < len(deals):
        raise SolveError(
            f"game {game} has {len(deals)} deal(s): --deal must be in 0..{len(deals) - 1}, "
            f"not {deal}"
        )
    done, _ = deals[deal]
    if done.annulled:
        raise SolveError(f"deal {deal} of game {game} was annulled (redeal): no card play")
    if done.rospis:
        raise SolveError(f"deal {deal} of game {game} was conceded (rospis): no card play")
    if found is None:  # after the last trick: the deal's final position
        found = position_from_state(done)
    return found, [str(name) for name in replayed.players] if replayed is not None else []


def run_solve(path: str, game: int, deal: int, trick: int | None, as_json: bool) -> int:
    """The ``tapete solve`` command; returns the exit code (2 on a bad request)."""
    from tapete.cli.common import fail
    from tapete.solver import BACKEND, solve

    try:
        pos, players = _position_and_players(path, game, deal, trick)
    except SolveError as exc:
        return fail("solve", str(exc))
    start = time.perf_counter()
    value = solve(pos)
    ms = (time.perf_counter() - start) * 1000
    seat = pos.declarer
    name = players[seat] if seat < len(players) else f"seat {seat}"
    if as_json:
        # value: the declarer's final raw points (the one side the solver counts for)
        answer = {"value": value, "whose": "declarer", "declarer": seat, "declarer_name": name}
        print(json.dumps({**answer, "ms": round(ms, 3)}, ensure_ascii=False))
    else:
        after = (
            "before the first lead"
            if not pos.tricks_played
            else (f"after trick {pos.tricks_played}")
        )
        print(
            f"game {game} deal {deal} {after}: declarer seat {seat} ({name}, "
            f"raw so far {pos.points[pos.declarer]}) ends with {value} raw points "
            f"with open hands and best play ({ms:.1f} ms, {BACKEND} solver)"
        )
    return 0
