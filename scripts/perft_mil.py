#!/usr/bin/env python3
"""Perft for the Mil engine: count the legal action sequences from fixed deals.

``perft(position, d)`` is the number of sequences of exactly ``d`` legal actions from the
position (a deal that ends earlier contributes nothing), walked with ``State.push``/``pop``.
Each fixed deal is counted from two starting points: ``start`` (the dealt cards, before any
redeal offer or bid) and ``lead`` (the first lead, reached by a fixed path: every redeal
offer declined, the opener's forced 100 and two passes, the first two gives offered, the
lowest contract, any four-nines offer declined).

    .venv/bin/python scripts/perft_mil.py                  # print the counts
    .venv/bin/python scripts/perft_mil.py --write          # regenerate tests/data/perft_mil.txt
    .venv/bin/python scripts/perft_mil.py --check          # recompute the file, compare

tests/mil/test_mil_perft.py recomputes the file's counts up to a modest depth.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from tapete.cards import card_name, parse_card  # noqa: E402
from tapete.mil import (  # noqa: E402
    PROFILES,
    Bid,
    Contract,
    Give,
    KeepDeal,
    Pass,
    Phase,
    State,
    deal_cards,
)

DATA = ROOT / "tests" / "data" / "perft_mil.txt"
#: (profile, seed): the fixed deals; the dealer is seed % 3
DEALS = [
    ("club", 1),
    ("club", 2),
    ("club", 10),
    ("club", 30),
    ("casa", 3),
    ("casa", 30),
    ("casa-500", 5),
]
DEPTH = {"start": 7, "lead": 8}


@dataclass(frozen=True)
class Position:
    name: str
    profile: str
    dealer: int
    hands: tuple[tuple[int, ...], ...]
    talon: tuple[int, ...]

    def line(self) -> str:
        hands = " | ".join(" ".join(card_name(c) for c in h) for h in self.hands)
        talon = " ".join(card_name(c) for c in self.talon)
        return f"deal {self.name} {self.profile} {self.dealer} {hands} | {talon}"

    @classmethod
    def parse(cls, line: str) -> Position:
        head, *groups = line.split("|")
        _, name, profile, dealer, *first = head.split()
        cards = [first, *(g.split() for g in groups)]
        hands = tuple(tuple(parse_card(c) for c in h) for h in cards[:3])
        return cls(name, profile, int(dealer), hands, tuple(parse_card(c) for c in cards[3]))

    def state(self) -> State:
        return State(PROFILES[self.profile], self.dealer, self.hands, self.talon)


def fixed_deal(profile: str, seed: int) -> Position:
    hands, talon = deal_cards(random.Random(seed))
    return Position(f"{profile}-{seed}", profile, seed % 3, tuple(map(tuple, hands)), tuple(talon))


def to_first_lead(st: State) -> State:
    """Advance along the fixed path described in the module docstring."""
    while st.phase is not Phase.PLAY:
        legal = st.legal_actions()
        if st.phase in (Phase.REDEAL_OFFER, Phase.NINES_OFFER):
            st.apply(KeepDeal())
        elif st.phase is Phase.BIDDING:
            st.apply(Bid(100) if st.high == 0 else Pass())
        elif st.phase in (Phase.TALON, Phase.GIVE):
            st.apply(next(a for a in legal if isinstance(a, Give)))
        elif st.phase is Phase.CONTRACT:
            st.apply(min((a for a in legal if isinstance(a, Contract)), key=lambda a: a.value))
        else:  # pragma: no cover - the fixed path never ends a deal
            raise RuntimeError(f"unexpected phase {st.phase}")
    return st


def start_state(pos: Position, where: str) -> State:
    st = pos.state()
    return to_first_lead(st) if where == "lead" else st


def perft(st: State, depth: int) -> int:
    if depth == 0:
        return 1
    legal = st.legal_actions()
    if depth == 1:
        return len(legal)
    total = 0
    for a in legal:
        st.push(a)
        total += perft(st, depth - 1)
        st.pop()
    return total


def compute(positions: list[Position], depths: dict[str, int]) -> list[tuple[str, str, int, int]]:
    rows = []
    for pos in positions:
        for where, max_depth in depths.items():
            st = start_state(pos, where)
            for d in range(1, max_depth + 1):
                rows.append((pos.name, where, d, perft(st, d)))
    return rows


def render(positions: list[Position], rows: list[tuple[str, str, int, int]]) -> str:
    out = [
        "# Mil perft: number of legal action sequences of exactly <depth> actions.",
        "# Regenerate with: .venv/bin/python scripts/perft_mil.py --write",
        "# Checked by tests/mil/test_mil_perft.py. Format:",
        "#   deal <name> <profile> <dealer> <hand 0> | <hand 1> | <hand 2> | <talon>",
        "#   perft <name> <start|lead> <depth> <count>",
        "# start: the dealt position; lead: the first lead after the fixed path of",
        "# scripts/perft_mil.py (redeals declined, 100 and two passes, first gives, lowest",
        "# contract).",
    ]
    out += [p.line() for p in positions]
    out += [f"perft {n} {w} {d} {c}" for n, w, d, c in rows]
    return "\n".join(out) + "\n"


def read(path: Path = DATA) -> tuple[list[Position], list[tuple[str, str, int, int]]]:
    positions, rows = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("deal "):
            positions.append(Position.parse(line))
        elif line.startswith("perft "):
            _, name, where, d, c = line.split()
            rows.append((name, where, int(d), int(c)))
    return positions, rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Mil perft counts")
    ap.add_argument("--write", action="store_true", help=f"write {DATA.relative_to(ROOT)}")
    ap.add_argument("--check", action="store_true", help="recompute the file and compare")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    if args.check:
        positions, want = read()
        depths = {w: max(d for _, ww, d, _ in want if ww == w) for w in DEPTH}
        got = compute(positions, depths)
        bad = [(g, w) for g, w in zip(got, want, strict=True) if g != w]
        for g, w in bad:
            print(f"MISMATCH {w[0]} {w[1]} depth {w[2]}: file {w[3]}, engine {g[3]}")
        print(f"{len(want) - len(bad)}/{len(want)} counts agree ({time.perf_counter() - t0:.1f} s)")
        return 1 if bad else 0
    positions = [fixed_deal(p, s) for p, s in DEALS]
    rows = compute(positions, DEPTH)
    text = render(positions, rows)
    if args.write:
        DATA.parent.mkdir(parents=True, exist_ok=True)
        DATA.write_text(text, encoding="utf-8")
        print(f"wrote {len(rows)} counts to {DATA} ({time.perf_counter() - t0:.1f} s)")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
