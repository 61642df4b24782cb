"""Mariage engine speed: random-play hands per second, and apply+pop pairs per second.

Run: ``.venv/bin/python benchmarks/bench_mariage.py [--seconds 5] [--seed 1] [--compare SRC]``

Everything goes through the public API of :class:`tapete.mariage.State`: ``State.deal``
(shuffle and deal), ``legal_actions`` and ``apply`` (and ``pop`` for the undo benchmark).
One process, one core; rates are per CPU second (``time.process_time``), so that other work
on the machine disturbs them less. Not a test: it prints numbers for docs/benchmarks.md.

The engine this process runs is compiled with mypyc at install (``bash scripts/setup``); every
measure is also taken on the pure Python sources of the same tree (or, with ``--compare SRC``,
on an older copy, built by ``baseline_tree.py``), in alternating rounds (see
``side_by_side.py``), with the ratio.
``TAPETE_PURE=1`` times the pure Python engine alone.

Two kinds of random play: *random* picks uniformly among the legal actions (such players
claim early and often, so hands are short); *full* never claims while another action is
legal, so hands run to the last trick or the end of a closed stock.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable
from typing import Any

from side_by_side import Build, alternate, builds, describe, figures


def hands_step(build: Build, seed: int, full: bool, count: list[int]) -> Callable[[], int]:
    """Deal and play 50 random hands per call; ``count`` adds up [actions, hands]."""
    mariage = build.module("tapete.mariage")
    rng = random.Random(seed)
    choice = rng.choice
    if full:
        claim = mariage.Claim

        def choice(legal: list[Any]) -> Any:
            if type(legal[-1]) is claim and len(legal) > 1:
                return rng.choice(legal[:-1])
            return rng.choice(legal)

    dealer = 0

    def step() -> int:
        nonlocal dealer
        actions = 0
        for _ in range(50):
            state = mariage.State.deal(rng, dealer)
            dealer ^= 1
            legal = state.legal_actions()
            while legal:
                state.apply(choice(legal))
                actions += 1
                legal = state.legal_actions()
        count[0] += actions
        count[1] += 50
        return 50

    return step


def apply_pop_step(build: Build, seed: int) -> Callable[[], int]:
    """Apply then pop every legal action at every position of a random hand."""
    mariage = build.module("tapete.mariage")
    rng = random.Random(seed)
    hands = 0

    def step() -> int:
        nonlocal hands
        pairs = 0
        state = mariage.State.deal(rng, hands & 1)
        hands += 1
        legal = state.legal_actions()
        while legal:
            for a in legal:
                state.apply(a)
                state.pop()
            pairs += len(legal)
            state.apply(rng.choice(legal))
            legal = state.legal_actions()
        return pairs

    return step


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU time per measure and build")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--compare", metavar="SRC", help="time the engine found in SRC/tapete too")
    parser.add_argument(
        "--mixed-builds", action="store_true", help="with --compare: compiled against pure too"
    )
    args = parser.parse_args(argv)
    timed = builds("tapete.mariage", args.compare, mixed=args.mixed_builds)
    print(f"Mariage engine, {args.seconds:g} CPU seconds per measure and build, seed {args.seed}")
    print(describe(args.compare), flush=True)
    for full in (False, True):
        counts = {b.label: [0, 0] for b in timed}
        steps = {b.label: hands_step(b, args.seed, full, counts[b.label]) for b in timed}
        rates = alternate(steps, args.seconds)
        actions, hands = counts[timed[0].label]
        per_hand = actions / hands
        kind = "full hands" if full else "random play"
        print(f"{kind} (hands/s, {per_hand:.1f} actions a hand): {figures(rates)}", flush=True)
    rates = alternate({b.label: apply_pop_step(b, args.seed) for b in timed}, args.seconds)
    print(f"apply+pop (pairs/s): {figures(rates)}")


if __name__ == "__main__":
    main()
