"""Mariage engine speed: random-play hands per second, and apply+pop pairs per second.

Run: ``.venv/bin/python benchmarks/bench_mariage.py [--seconds 5] [--seed 1]``

Everything goes through the public API of :class:`tapete.mariage.State`: ``State.deal``
(shuffle and deal), ``legal_actions`` and ``apply`` (and ``pop`` for the undo benchmark).
One process, one core; rates are per CPU second (``time.process_time``), so that other work
on the machine disturbs them less. Not a test: it prints numbers for docs/benchmarks.md.

Two kinds of random play: *random* picks uniformly among the legal actions (such players
claim early and often, so hands are short); *full* never claims while another action is
legal, so hands run to the last trick or the end of a closed stock.
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from tapete.mariage import Action, State
from tapete.mariage.actions import CLAIM


def random_hands(seconds: float, seed: int, full: bool = False) -> tuple[int, int, float]:
    """Deal and play random hands for about ``seconds``; (hands, actions, elapsed)."""
    rng = random.Random(seed)
    choice = rng.choice
    if full:

        def choice(legal: list[Action]) -> Action:
            if legal[-1] is CLAIM and len(legal) > 1:
                return rng.choice(legal[:-1])
            return rng.choice(legal)

    hands = actions = 0
    start = time.process_time()
    deadline = start + seconds
    next_report = start + 1.0
    while True:
        for _ in range(200):
            state = State.deal(rng, hands & 1)
            legal = state.legal_actions()
            while legal:
                state.apply(choice(legal))
                actions += 1
                legal = state.legal_actions()
            hands += 1
        now = time.process_time()
        if now >= next_report:
            rate = hands / (now - start)
            print(
                f"  {'full' if full else 'random'}: {hands:>9,} hands {rate:>10,.0f} hands/s",
                file=sys.stderr,
                flush=True,
            )
            next_report = now + 1.0
        if now >= deadline:
            return hands, actions, now - start


def apply_pop(seconds: float, seed: int) -> tuple[int, float]:
    """Apply then pop every legal action at every position of random hands; (pairs, elapsed)."""
    rng = random.Random(seed)
    pairs = 0
    start = time.process_time()
    deadline = start + seconds
    while time.process_time() < deadline:
        for _ in range(50):
            state = State.deal(rng, pairs & 1)
            legal = state.legal_actions()
            while legal:
                for a in legal:
                    state.apply(a)
                    state.pop()
                pairs += len(legal)
                state.apply(rng.choice(legal))
                legal = state.legal_actions()
    return pairs, time.process_time() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per benchmark")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(f"Mariage engine, {args.seconds:g} CPU seconds each, seed {args.seed}", flush=True)
    for full in (False, True):
        hands, actions, elapsed = random_hands(args.seconds, args.seed, full)
        print(
            f"{'full hands' if full else 'random play'}: {hands / elapsed:,.0f} hands/s, "
            f"{actions / elapsed:,.0f} actions/s ({hands:,} hands, "
            f"{actions / hands:.1f} actions a hand, {elapsed:.1f} s)",
            flush=True,
        )
    pairs, elapsed = apply_pop(args.seconds, args.seed)
    print(f"apply+pop: {pairs / elapsed:,.0f} pairs/s ({pairs:,} pairs, {elapsed:.1f} s)")


if __name__ == "__main__":
    main()
