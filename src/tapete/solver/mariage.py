"""The exact Mariage solver for the strict phase (stock exhausted or closed).

Alpha-beta on game points over the engine's own :class:`tapete.mariage.State` (``apply`` and
``pop``), so the rules searched are the engine's: following, heading and trumping, marriages
announced before, claims and the closing's scoring. Every card is open: the caller puts the
hidden cards it sampled into the state (see :func:`tapete.bots.mariage.tracker.build_state`).

Claims are searched only where they can matter: claiming as soon as one has 66 is never worse
(the opponent's points and tricks only grow), and a false claim is never better than playing
on.

>>> from tapete.cards import CardSet
>>> from tapete.mariage.state import State
>>> st = State.from_position(hands=(CardSet.parse("AH").mask, CardSet.parse("TH").mask),
...     stock=[], trump=0, leader=0, points=(50, 40), tricks=(3, 3))
>>> solve_strict(st, 0)[0]  # the ace takes the ten and the last trick: 71 to 40, 1 game point
1
"""

from __future__ import annotations

import time

from tapete.cards import card_points
from tapete.mariage.actions import CLAIM, Action, Claim, Play
from tapete.mariage.state import WIN_POINTS, State

__all__ = ["game_value", "root_values", "solve_strict"]


def game_value(st: State, me: int) -> int:
    """Game points for ``me`` of a finished hand (negative when the opponent won)."""
    r = st.result
    assert r is not None
    if r.winner is None:
        return 0
    return r.game_points if r.winner == me else -r.game_points


def _search_moves(st: State) -> list[Action]:
    """The moves worth searching: a claim as soon as it is correct, never a false one."""
    if st.lead_card is not None:
        return st.legal_actions()
    s = st.turn
    assert s is not None
    if st.points[s] >= WIN_POINTS and st.trick_number:
        return [CLAIM]
    acts = [a for a in st.legal_actions() if type(a) is not Claim]
    return acts or [CLAIM]


def _order(acts: list[Action]) -> list[Action]:
    if len(acts) < 3:
        return acts
    return sorted(acts, key=lambda a: -card_points(a.card) if type(a) is Play else -100)


def solve_strict(st: State, me: int, deadline: float | None = None) -> tuple[int, Action | None]:
    """Exact game-point value for ``me`` of a strict-phase position, and the best move.

    ``deadline`` (a ``time.perf_counter()`` value): raise :class:`TimeoutError` past it, with
    ``st`` restored."""
    memo: dict[tuple[int, ...], int] = {}

    def ab(alpha: int, beta: int) -> int:
        if st.done:
            return game_value(st, me)
        s = st.turn
        assert s is not None
        lead = st.lead_card
        key = (
            st.hands[0],
            st.hands[1],
            st.points[0],
            st.points[1],
            min(st.tricks[0], 1),
            min(st.tricks[1], 1),
            s,
            -1 if lead is None else lead,
        )
        hit = memo.get(key)
        if hit is not None:
            return hit
        if deadline is not None and time.perf_counter() > deadline:
            raise TimeoutError
        maxing = s == me
        best = -99 if maxing else 99
        a0, b0 = alpha, beta
        for a in _order(_search_moves(st)):
            st.apply(a)
            v = ab(alpha, beta)
            st.pop()
            if maxing:
                if v > best:
                    best = v
                alpha = max(alpha, v)
            else:
                if v < best:
                    best = v
                beta = min(beta, v)
            if alpha >= beta:
                break
        if a0 < best < b0:
            memo[key] = best
        return best

    if st.done:
        return game_value(st, me), None
    depth = len(st.history)
    best_v = -99
    best_a: Action | None = None
    try:
        for a in _order(_search_moves(st)):
            st.apply(a)
            v = ab(best_v, 99)
            st.pop()
            if v > best_v:
                best_v, best_a = v, a
    except TimeoutError:
        while len(st.history) > depth:
            st.pop()
        raise
    return best_v, best_a


def root_values(
    st: State, me: int, acts: list[Action], deadline: float | None = None
) -> dict[Action, int]:
    """The exact game-point value for ``me`` of each of ``acts`` from ``st``."""
    out: dict[Action, int] = {}
    for a in acts:
        st.apply(a)
        v = solve_strict(st, me, deadline)[0] if not st.done else game_value(st, me)
        st.pop()
        out[a] = v
    return out
