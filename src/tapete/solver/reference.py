"""The reference open-hand solver: plain minimax over :mod:`tapete.solver.position`.

Slow on purpose and written to be obviously right: every legal move is tried at every node,
the declarer maximises their final raw points and the two defenders minimise them. The only
shortcut is a memo of the points still to gain at trick boundaries, which depend only on the
cards left, the leader, the trump, whether marriages may still be announced and the
card-play rules. Use it on endgames (up to about five tricks left) and to test the fast
solvers.
"""

from __future__ import annotations

from tapete.solver.position import MilPosition, PlayRules, legal_moves, play, to_move

__all__ = ["reference_best_moves", "reference_solve"]

_Key = tuple[tuple[int, int, int], int, int | None, bool, int, PlayRules]


def _gain(pos: MilPosition, memo: dict[_Key, int]) -> int:
    """The declarer's points still to gain from ``pos`` under optimal play."""
    seat = to_move(pos)
    if seat is None:
        return 0
    key: _Key | None = None
    if not pos.trick:
        key = (pos.hands, pos.leader, pos.trump, pos.tricks_played >= 1, pos.declarer, pos.rules)
        if key in memo:
            return memo[key]
    before = pos.points[pos.declarer]
    values = [
        play(pos, c, a).points[pos.declarer] - before + _gain(play(pos, c, a), memo)
        for c, a in legal_moves(pos)
    ]
    best = max(values) if seat == pos.declarer else min(values)
    if key is not None:
        memo[key] = best
    return best


def reference_solve(pos: MilPosition) -> int:
    """The declarer's final raw points with both sides playing optimally."""
    return pos.points[pos.declarer] + _gain(pos, {})


def reference_best_moves(pos: MilPosition) -> list[tuple[int, bool, int]]:
    """``(card, announces, value)`` for every legal move of the seat to play."""
    memo: dict[_Key, int] = {}
    out = []
    for c, a in legal_moves(pos):
        child = play(pos, c, a)
        out.append((c, a, child.points[pos.declarer] + _gain(child, memo)))
    return out
