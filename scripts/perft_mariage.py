#!/usr/bin/env python3
"""Regenerate tests/data/perft_mariage.txt: counts of legal Mariage action sequences.

For a few fixed positions (a hand as dealt plus a prefix of actions), ``perft(d)`` is the
number of legal action sequences of length ``d`` (a sequence that ends the hand earlier is
not extended), counted with ``apply``/``pop``. The positions are found by seeded random
playouts and written out explicitly, so the file does not depend on the shuffle.

Usage: .venv/bin/python scripts/perft_mariage.py > tests/data/perft_mariage.txt
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

from tapete.cards import card_name, parse_card, parse_suit
from tapete.mariage import Action, Claim, Close, Decline, Exchange, Marriage, Play, State
from tapete.mariage.actions import CLAIM, CLOSE, DECLINE, EXCHANGE, MARRIAGES, PLAYS


def token(a: Action) -> str:
    if isinstance(a, Play):
        return card_name(a.card)
    if isinstance(a, Marriage):
        return "marriage:" + "SCDH"[a.suit]
    return {Exchange: "exchange", Close: "close", Claim: "claim", Decline: "decline"}[type(a)]


def parse_token(t: str) -> Action:
    fixed = {"exchange": EXCHANGE, "close": CLOSE, "claim": CLAIM, "decline": DECLINE}
    if t in fixed:
        return fixed[t]
    if t.startswith("marriage:"):
        return MARRIAGES[parse_suit(t[9:])]
    return PLAYS[parse_card(t)]


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
        state.pop()
    return total


def find(seed: int, want: Callable[[State], bool]) -> tuple[State, list[Action]]:
    """A seeded random playout (never claiming) stopped at the first position ``want`` likes."""
    rng = random.Random(seed)
    while True:
        state = State.deal(rng, rng.randrange(2))
        prefix: list[Action] = []
        while not state.done:
            if want(state):
                return state, prefix
            legal = [a for a in state.legal_actions() if not isinstance(a, Claim)]
            a = rng.choice(legal or state.legal_actions())
            state.apply(a)
            prefix.append(a)


def main() -> None:
    positions: list[tuple[str, Callable[[State], bool], int]] = [
        ("new hand", lambda s: True, 6),
        (
            "open stock, exchange and marriage possible",
            lambda s: (
                {EXCHANGE, CLOSE} <= set(s.legal_actions())
                and any(isinstance(a, Marriage) for a in s.legal_actions())
            ),
            5,
        ),
        (
            "just closed",
            lambda s: s.closed and s.hands[0].bit_count() == 6 and s.lead_card is None,
            8,
        ),
        (
            "stock exhausted",
            lambda s: s.stock_count == 0 and not s.closed and s.lead_card is None,
            9,
        ),
        (
            "closed, three tricks to go",
            lambda s: s.closed and s.hands[0].bit_count() == 3 and s.lead_card is None,
            8,
        ),
    ]
    out = sys.stdout
    out.write(
        "# Mariage perft: perft(d) = number of legal action sequences of length d from each\n"
        "# position (sequences that end the hand earlier are not extended).\n"
        "# Regenerate: .venv/bin/python scripts/perft_mariage.py > tests/data/perft_mariage.txt\n"
    )
    for n, (name, want, max_depth) in enumerate(positions):
        state, prefix = find(1000 + n, want)
        out.write(f"\nposition {name}\n")
        out.write(f"dealer {state.dealer}\n")
        for seat in (0, 1):
            out.write(f"hand{seat} {' '.join(card_name(c) for c in state.initial_hands[seat])}\n")
        out.write(f"stock {' '.join(card_name(c) for c in state.initial_stock)}\n")
        out.write(f"prefix {' '.join(token(a) for a in prefix)}\n".replace(" \n", "\n"))
        for d in range(1, max_depth + 1):
            out.write(f"perft {d} {perft(state, d)}\n")
            out.flush()


if __name__ == "__main__":
    main()
