"""The solver against the Mil engine (tapete.mil): random deals played through the engine's
own auction and card play; at every card the solver's legal moves must be the engine's
legal Play actions, and at random points its values must equal a brute-force minimax over
the engine's push/pop."""

from __future__ import annotations

import random

import pytest

import tapete.solver
from tapete.mil import Play, Redeal, Rospis, State
from tapete.mil.game import MilGame
from tapete.mil.state import Phase
from tapete.solver import legal_moves, reference_solve, solve
from tapete.solver.command import position_from_state

BACKENDS = ["c", "python"] if tapete.solver.BACKEND == "c" else ["python"]


def deal_to_play(rng: random.Random, profile: str) -> State:
    """An engine deal in its play phase: random auction, gifts and contract (no redeal)."""
    while True:
        game = MilGame(profile, seed=rng.randrange(1 << 30))
        st = game.state
        assert st is not None
        while st.phase not in (Phase.PLAY, Phase.DONE):
            options = [a for a in st.legal_actions() if not isinstance(a, Redeal | Rospis)]
            st.apply(rng.choice(options))
        if st.phase is Phase.PLAY:
            return st


def engine_value(st: State, declarer: int) -> int:
    """The declarer's final raw points by plain minimax over the engine's push/pop."""
    if st.phase is Phase.DONE:
        return st.raw()[declarer]
    values = []
    for action in st.legal_actions():
        st.push(action)
        values.append(engine_value(st, declarer))
        st.pop()
    return max(values) if st.turn == declarer else min(values)


def engine_moves(st: State) -> list[tuple[int, bool]]:
    moves = []
    for a in st.legal_actions():
        assert isinstance(a, Play)
        moves.append((a.card, a.marriage))
    return sorted(moves)


@pytest.mark.parametrize("profile", ["club", "casa", "casa-500"])
def test_legal_moves_match_the_engine_at_every_card(profile: str) -> None:
    rng = random.Random(f"legal {profile}")
    checked = 0
    for _ in range(60):
        st = deal_to_play(rng, profile)
        while st.phase is Phase.PLAY:
            pos = position_from_state(st)
            assert sorted(legal_moves(pos)) == engine_moves(st), pos
            assert pos.points == st.raw()
            checked += 1
            moves = st.legal_actions()
            marriages = [a for a in moves if isinstance(a, Play) and a.marriage]
            st.apply(rng.choice(marriages if marriages and rng.random() < 0.7 else moves))
        assert st.raw() == position_from_state(st).points
    assert checked == 60 * 24


@pytest.mark.parametrize("profile", ["club", "casa"])
def test_values_match_engine_minimax(profile: str) -> None:
    rng = random.Random(f"value {profile}")
    for i in range(100):
        st = deal_to_play(rng, profile)
        # random play to a point with 3 (sometimes 4) cards left to the trick's leader,
        # at a trick boundary or inside a trick
        left = 4 if i % 8 == 0 else 3
        table = rng.randint(0, 2)
        while True:
            lead_left = st.hands[st.leader].bit_count() + (1 if st.trick else 0)
            if lead_left <= left and len(st.trick) == table:
                break
            moves = st.legal_actions()
            marriages = [a for a in moves if isinstance(a, Play) and a.marriage]
            st.apply(rng.choice(marriages if marriages and rng.random() < 0.7 else moves))
        pos = position_from_state(st)
        want = engine_value(st, st.declarer)
        assert reference_solve(pos) == want, pos
        for backend in BACKENDS:
            assert solve(pos, backend=backend) == want, (backend, pos)
