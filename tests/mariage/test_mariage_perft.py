"""Perft: counts of legal action sequences from fixed positions (tests/data/perft_mariage.txt).

``scripts/perft_mariage.py`` regenerates the file; a change in any count means a change in
the rules the engine applies (legal actions, phases, the end of the hand).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from mariage_helpers import action, cards

from tapete.mariage import State

DATA = Path(__file__).resolve().parents[1] / "data" / "perft_mariage.txt"


def perft(state: State, depth: int) -> int:
    if depth == 0:
        return 1
    legal = state.legal_actions()
    if depth == 1:
        return len(legal)
    total = 0
    for a in legal:
        state.apply(a)
        total += perft(state, depth - 1)
        assert state.pop() == a
    return total


def positions() -> list[tuple[str, State, list[tuple[int, int]]]]:
    found: list[tuple[str, State, list[tuple[int, int]]]] = []
    fields: dict[str, str] = {}
    counts: list[tuple[int, int]] = []

    def flush() -> None:
        if fields:
            state = State(
                [cards(fields["hand0"]), cards(fields["hand1"])],
                cards(fields["stock"]),
                int(fields["dealer"]),
            )
            for t in fields.get("prefix", "").split():
                state.apply(action(t))
            found.append((fields["position"], state, list(counts)))

    for line in DATA.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        key, _, value = line.partition(" ")
        if key == "position":
            flush()
            fields.clear()
            counts.clear()
        if key == "perft":
            d, n = value.split()
            counts.append((int(d), int(n)))
        else:
            fields[key] = value
    flush()
    return found


POSITIONS = positions()


def test_the_file_has_positions() -> None:
    assert len(POSITIONS) >= 5 and all(counts for _, _, counts in POSITIONS)


@pytest.mark.parametrize(("name", "state", "counts"), POSITIONS, ids=[p[0] for p in POSITIONS])
def test_perft(name: str, state: State, counts: list[tuple[int, int]]) -> None:
    before = state.view(None)
    for depth, expected in counts:
        assert perft(state, depth) == expected, f"{name}: perft({depth})"
    assert state.view(None) == before
