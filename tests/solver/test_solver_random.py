"""The fast solvers (C core and its pure Python twin) against the reference minimax on
random positions: random deals, declarers and profiles, random legal play (marriages
announced often) to a random point, at trick boundaries and inside tricks."""

from __future__ import annotations

import random

import pytest

import tapete.solver
from tapete.solver import (
    best_moves,
    can_reach,
    reference_best_moves,
    reference_solve,
    solve,
    solve_counting,
)
from tapete.solver.fast import PySearch, root_args
from tapete.solver.samples import random_deal_position, random_play_position

BACKENDS = ["c", "python"] if tapete.solver.BACKEND == "c" else ["python"]

#: (cards left to the leader of the current trick, positions, seed)
SIZES = [(1, 300, 1), (2, 700, 2), (3, 900, 3), (4, 120, 4), (5, 5, 5)]


@pytest.mark.parametrize(("left", "count", "seed"), SIZES)
def test_fast_equals_reference(left: int, count: int, seed: int) -> None:
    rng = random.Random(seed)
    for i in range(count):
        pos = random_play_position(rng, left)
        want = reference_solve(pos)
        for backend in BACKENDS:
            got = solve(pos, backend=backend)
            assert got == want, f"#{i} {backend}: {got} != {want} for {pos!r}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_best_moves_equal_reference(backend: str) -> None:
    rng = random.Random(10)
    for _ in range(300):
        pos = random_play_position(rng, rng.randint(1, 3))
        assert best_moves(pos, backend=backend) == reference_best_moves(pos), pos


@pytest.mark.parametrize("backend", BACKENDS)
def test_can_reach_is_the_threshold_of_solve(backend: str) -> None:
    rng = random.Random(11)
    for _ in range(150):
        pos = random_play_position(rng, rng.randint(2, 5))
        value = solve(pos, backend=backend)
        assert can_reach(pos, value, backend=backend), pos
        assert not can_reach(pos, value + 1, backend=backend), pos
        assert can_reach(pos, pos.points[pos.declarer], backend=backend)


@pytest.mark.skipif(tapete.solver.BACKEND != "c", reason="the C core is not built")
def test_c_core_equals_python_twin_on_deeper_positions() -> None:
    rng = random.Random(12)
    for _ in range(150):
        pos = random_play_position(rng, rng.randint(5, 6))
        assert solve(pos, backend="c") == solve(pos, backend="python"), pos


@pytest.mark.skipif(tapete.solver.BACKEND != "c", reason="the C core is not built")
def test_c_core_equals_python_twin_on_whole_deals() -> None:
    rng = random.Random(13)
    for i in range(6):
        pos = random_deal_position(rng, ("club", "casa")[i % 2])
        c_value, c_nodes = solve_counting(pos, backend="c")
        py_value, py_nodes = solve_counting(pos, backend="python")
        assert c_value == py_value, pos
        # the same search: node counts differ only by the C table's replacements
        assert abs(c_nodes - py_nodes) <= max(50, py_nodes // 50), (c_nodes, py_nodes)


def test_results_do_not_depend_on_what_was_solved_before() -> None:
    rng = random.Random(14)
    positions = [random_play_position(rng, 4) for _ in range(30)]
    first = [solve(p) for p in positions]
    assert [solve(p) for p in reversed(positions)] == first[::-1]


def test_shortcuts_agree_with_plain_alpha_beta_on_whole_deals() -> None:
    """The sure-points and equivalent-card bounds against a plain alpha-beta (table and
    points-left cut-off only) on whole deals, where the reference is too slow."""
    rng = random.Random(15)
    for i in range(5):
        pos = random_deal_position(rng, ("club", "casa")[i % 2])
        args = root_args(pos)
        plain = PySearch(pos.declarer, pos.rules, plain=True)
        plain.h = [args[0], args[1], args[2]]
        assert plain.solve(args[4], args[6], args[7], args[5]) == solve(pos), pos
