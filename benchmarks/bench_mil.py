"""Mil engine speed: random deals per second, push/pop pairs, and the play fast path.

Not a test. One core; rates use the CPU time of the process (``time.process_time``), so other
load on the machine disturbs them less. Run from the repository root::

    .venv/bin/python benchmarks/bench_mil.py            # about a minute
    .venv/bin/python benchmarks/bench_mil.py --seconds 1 # a quick look

    # before/after: an older engine (its own compiled build) against this one
    .venv/bin/python benchmarks/baseline_tree.py <commit> /tmp/old
    .venv/bin/python benchmarks/bench_mil.py --compare /tmp/old

The engine this process runs is compiled with mypyc at install (``bash scripts/setup``); every
measure is also taken on the pure Python sources of the same tree (or, with ``--compare``, on
the older copy), in alternating rounds in this process (see ``side_by_side.py``), and the
ratio is printed. ``TAPETE_PURE=1`` times the pure Python engine alone.

Measures, per profile:

* ``deals/s``: whole deals from the deal to the last trick (or annulment / rospis) through the
  public API only: ``State(...)``, ``legal_actions()`` and ``apply()`` with a uniform random
  choice among the legal actions (the dealing itself included);
* ``push+pop/s``: ``push(a)`` then ``pop()`` pairs for every legal action along random deals;
* ``fast deals/s``: the play phase only (from the first lead to the last trick) through
  ``play_mask()`` / ``play_card()`` without action objects or checks;
* ``4-seat views/s``: ``MilGame.views([0, 1, 2, None])``, what the server builds for every
  action at a table of three with spectators, at 40 points of random games of up to 20
  deals (auction, talon, play; later deals too).

The target (issue 2) is at least 10,000 random deals/s through the public API.
"""

from __future__ import annotations

import argparse
import platform
import random
from collections.abc import Callable
from typing import Any

from side_by_side import Build, alternate, builds, describe, figures, ratio

TARGET = 10_000
MEASURES = ("deals/s", "push+pop/s", "fast play-outs/s", "4-seat views/s")


def random_deal(mil: Any, profile: Any, rng: random.Random) -> Any:
    """One whole deal through the public API with uniform random choices."""
    hands, talon = mil.deal_cards(rng)
    st = mil.State(profile, rng.randrange(3), hands, talon)
    random = rng.random  # int(random() * n) is uniform enough here and cheaper than randrange
    while not st.done:
        legal = st.legal_actions()
        st.apply(legal[int(random() * len(legal))])
    return st


def to_first_lead(mil: Any, profile: Any, rng: random.Random) -> Any:
    """A random deal advanced to its first lead (redeals and rospis are refused)."""
    while True:
        hands, talon = mil.deal_cards(rng)
        st = mil.State(profile, rng.randrange(3), hands, talon)
        while not st.done and st.phase is not mil.Phase.PLAY:
            legal = [
                a for a in st.legal_actions() if a.to_json()["type"] not in ("redeal", "rospis")
            ]
            st.apply(legal[rng.randrange(len(legal))])
        if st.phase is mil.Phase.PLAY:
            return st


def deals_step(build: Build, name: str, seed: int) -> Callable[[], int]:
    mil = build.module("tapete.mil")
    profile = mil.PROFILES[name]
    rng = random.Random(seed)

    def step() -> int:
        for _ in range(20):
            random_deal(mil, profile, rng)
        return 20

    return step


def push_pop_step(build: Build, name: str, seed: int) -> Callable[[], int]:
    mil = build.module("tapete.mil")
    profile = mil.PROFILES[name]
    rng = random.Random(seed)

    def step() -> int:
        hands, talon = mil.deal_cards(rng)
        st = mil.State(profile, rng.randrange(3), hands, talon)
        pairs = 0
        while not st.done:
            legal = st.legal_actions()
            for a in legal:
                st.push(a)
                st.pop()
            pairs += len(legal)
            st.apply(legal[rng.randrange(len(legal))])
        return pairs

    return step


def fast_step(build: Build, name: str, seed: int) -> Callable[[], int]:
    """Play-outs from 200 first leads: play_mask/play_card, one push() of a first card and
    pop() to go back to the lead (the only checked action of a play-out)."""
    mil = build.module("tapete.mil")
    bits = build.module("tapete.cards").bits
    profile = mil.PROFILES[name]
    rng = random.Random(seed)
    starts = [to_first_lead(mil, profile, rng) for _ in range(200)]
    rand = rng.random
    Play = mil.Play

    def play_out(st: Any) -> None:
        cards = list(bits(st.play_mask()))
        st.push(Play(cards[int(rand() * len(cards))]))
        while not st.done:
            cards = list(bits(st.play_mask()))
            c = cards[int(rand() * len(cards))]
            st.play_card(c, not st.trick and st.can_announce(c) and rand() < 0.5)
        st.pop()

    i = 0

    def step() -> int:
        nonlocal i
        for _ in range(20):
            play_out(starts[i % len(starts)])
            i += 1
        return 20

    return step


def views_step(build: Build, name: str, seed: int) -> Callable[[], int]:
    mil = build.module("tapete.mil")
    rng = random.Random(seed)
    games = []
    for _ in range(40):
        game = mil.MilGame(name, seed=rng.randrange(2**32), max_deals=20)
        for _ in range(rng.randrange(20, 400)):
            if game.over:
                break
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
        games.append(game)
    seats = [0, 1, 2, None]

    def step() -> int:
        for game in games:
            game.views(seats)
        return len(games)

    return step


def table(rows: list[tuple[str, str, dict[str, float]]], labels: list[str]) -> str:
    """The figures as a markdown table (with the ratio column when two builds ran)."""
    two = len(labels) > 1
    lines = [
        f"| profile | measure | {' | '.join(labels)} |" + (" ratio |" if two else ""),
        "|---|---|" + "---:|" * (len(labels) + two),
    ]
    for name, measure, rates in rows:
        cells = [f"{rate:,.0f}" for rate in rates.values()] + ([ratio(rates)] if two else [])
        lines.append(f"| {name} | {measure} | {' | '.join(cells)} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--seconds", type=float, default=3.0, help="CPU time per measure and build (default 3)"
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--compare", metavar="SRC", help="time the engine found in SRC/tapete too")
    ap.add_argument(
        "--mixed-builds", action="store_true", help="with --compare: compiled against pure too"
    )
    args = ap.parse_args(argv)
    timed = builds("tapete.mil", args.compare, mixed=args.mixed_builds)
    labels = [b.label for b in timed]
    print(
        f"Mil engine benchmark: Python {platform.python_version()}, {platform.machine()}, "
        f"{args.seconds:g} CPU s per measure and build, seed {args.seed}"
    )
    print(describe(args.compare), flush=True)
    rows = []
    for name in timed[-1].module("tapete.mil").PROFILES:
        steps = (deals_step, push_pop_step, fast_step, views_step)
        for measure, make in zip(MEASURES, steps, strict=True):
            rates = alternate({b.label: make(b, name, args.seed) for b in timed}, args.seconds)
            rows.append((name, measure, rates))
            print(f"{name:9} {measure:17} {figures(rates)}", flush=True)
    print()
    print(table(rows, labels))
    worst = min(rates[labels[-1]] for _, measure, rates in rows if measure == MEASURES[0])
    verdict = "meets" if worst >= TARGET else "is below"
    print(
        f"\nslowest profile ({labels[-1]}): {worst:,.0f} deals/s, "
        f"which {verdict} the target of {TARGET:,}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
