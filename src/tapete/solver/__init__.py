"""Exact open-hand (double-dummy) solvers: Mil card play here, the Mariage strict phase in
:mod:`tapete.solver.mariage`.

The value of a :class:`MilPosition` is the declarer's final raw points (captured card points
plus their announced marriages) when the declarer maximises them and the two defenders,
as a coalition, minimise them, everyone seeing every hand.

>>> from tapete.cards import CardSet
>>> pos = MilPosition(
...     hands=(CardSet.parse("AH").mask, CardSet.parse("TH").mask, CardSet.parse("9S").mask),
...     declarer=0, leader=0, tricks_played=7)
>>> solve(pos)
21
>>> can_reach(pos, 22)
False

:func:`solve`, :func:`can_reach` and :func:`best_moves` use the compiled core when it is
built (``BACKEND == "c"``) and a pure Python port of the same search otherwise;
:func:`reference_solve` is the slow, obviously correct minimax the fast ones are tested
against. The rules of the card play come from the position's profile (:func:`play_rules`);
a profile the solvers cannot play raises :class:`UnsolvableProfileError`.
"""

from __future__ import annotations

from tapete.solver.fast import BACKEND, Session
from tapete.solver.position import (
    MARRIAGE_VALUES,
    MilPosition,
    Move,
    PlayRules,
    UnsolvableProfileError,
    legal_moves,
    play,
    play_rules,
    to_move,
)
from tapete.solver.reference import reference_best_moves, reference_solve

__all__ = [
    "BACKEND",
    "MARRIAGE_VALUES",
    "MilPosition",
    "Move",
    "PlayRules",
    "UnsolvableProfileError",
    "best_moves",
    "can_reach",
    "legal_moves",
    "play",
    "play_rules",
    "reference_best_moves",
    "reference_solve",
    "solve",
    "solve_counting",
    "to_move",
]


def _session(pos: MilPosition, backend: str | None) -> Session:
    return Session(pos.declarer, pos.rules, backend or BACKEND)


def solve_counting(pos: MilPosition, *, backend: str | None = None) -> tuple[int, int]:
    """``(value, nodes searched)``: :func:`solve` plus the search effort."""
    session = _session(pos, backend)
    value = pos.points[pos.declarer] + session.gain(pos)
    return value, session.nodes


def solve(pos: MilPosition, *, backend: str | None = None) -> int:
    """The declarer's final raw points under optimal play by both sides."""
    return pos.points[pos.declarer] + _session(pos, backend).gain(pos)


def can_reach(pos: MilPosition, target: int, *, backend: str | None = None) -> bool:
    """Whether the declarer can end with at least ``target`` raw points (one zero-window
    search, cheaper than :func:`solve`)."""
    need = target - pos.points[pos.declarer]
    if need <= 0:
        return True
    return _session(pos, backend).search(pos, need - 1, need) >= need


def best_moves(pos: MilPosition, *, backend: str | None = None) -> list[tuple[int, bool, int]]:
    """``(card, announces_marriage, value)`` for every legal move of the seat to play, in
    :func:`legal_moves` order; ``value`` is the declarer's final raw points after that move
    with optimal play from there. The declarer's best move has the largest value, a
    defender's the smallest. ``[]`` when every card has been played."""
    session = _session(pos, backend)
    out = []
    for card, announce in legal_moves(pos):
        child = play(pos, card, announce)
        out.append((card, announce, child.points[pos.declarer] + session.gain(child)))
    return out
