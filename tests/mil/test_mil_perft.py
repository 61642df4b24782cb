"""Perft: the counts in tests/data/perft_mil.txt (written by scripts/perft_mil.py) recomputed
to a modest depth, and cross-checked without push/pop by replaying from the deal."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from tapete.mil import State

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("perft_mil", ROOT / "scripts" / "perft_mil.py")
assert _spec is not None and _spec.loader is not None
perft_mil = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("perft_mil", perft_mil)  # dataclasses look their module up
_spec.loader.exec_module(perft_mil)

POSITIONS, ROWS = perft_mil.read(ROOT / "tests" / "data" / "perft_mil.txt")
BY_NAME = {p.name: p for p in POSITIONS}
MAX_DEPTH = {"start": 6, "lead": 7}
CHECKED = [r for r in ROWS if r[2] <= MAX_DEPTH[r[1]]]


def test_the_file_covers_every_profile_and_both_starts() -> None:
    assert {p.profile for p in POSITIONS} == {"club", "casa", "casa-500"}
    assert {(n, w) for n, w, _, _ in ROWS} == {
        (p.name, w) for p in POSITIONS for w in ("start", "lead")
    }
    # the club-30 and casa-30 deals open with a redeal offer; club-10 has a talon under 5
    assert len(perft_mil.start_state(BY_NAME["club-30"], "start").offers) == 1
    assert len(perft_mil.start_state(BY_NAME["casa-30"], "start").offers) == 1


@pytest.mark.parametrize(("name", "where"), sorted({(n, w) for n, w, _, _ in CHECKED}))
def test_perft_counts(name, where) -> None:
    st = perft_mil.start_state(BY_NAME[name], where)
    for n, w, depth, count in CHECKED:
        if (n, w) == (name, where):
            assert perft_mil.perft(st, depth) == count, (name, where, depth)
    assert not st._undo  # every push was popped


def perft_by_replay(pos, prefix: list, depth: int) -> int:
    """The same count without push/pop: every node is rebuilt from the dealt cards."""
    st: State = pos.state()
    for a in prefix:
        st.apply(a)
    if depth == 0:
        return 1
    return sum(perft_by_replay(pos, [*prefix, a], depth - 1) for a in st.legal_actions())


@pytest.mark.parametrize("name", ["club-10", "casa-30", "casa-500-5"])
def test_perft_without_push_pop_agrees(name) -> None:
    pos = BY_NAME[name]
    for where, depth in (("start", 4), ("lead", 4)):
        st = perft_mil.start_state(pos, where)
        prefix = [a for _, a in st.history]
        want = next(c for n, w, d, c in ROWS if (n, w, d) == (name, where, depth))
        assert perft_by_replay(pos, prefix, depth) == want
