"""Mil engine speed: random deals per second, push/pop pairs, and the play fast path.

Not a test. One core, pure Python; rates use the CPU time of the process
(``time.process_time``), so other load on the machine disturbs them less. Run from the
repository root::

    .venv/bin/python benchmarks/bench_mil.py            # about 30 s
    .venv/bin/python benchmarks/bench_mil.py --seconds 1 # a quick look

    # before/after in one process: random deals/s of an older engine copy and of this one,
    # measured in alternating rounds (so machine load hits both alike)
    git archive <commit> src | tar -x -C /tmp/old
    .venv/bin/python benchmarks/bench_mil.py --compare /tmp/old/src

Measures, per profile:

* ``deals/s``: whole deals from the deal to the last trick (or annulment / rospis) through the
  public API only: ``State(...)``, ``legal_actions()`` and ``apply()`` with a uniform random
  choice among the legal actions (the dealing itself included);
* ``push+pop/s``: ``push(a)`` then ``pop()`` pairs for every legal action along random deals;
* ``fast deals/s``: the play phase only (from the first lead to the last trick) through
  ``play_mask()`` / ``play_card()`` without action objects or checks.

The target (issue 2) is at least 10,000 random deals/s through the public API.
"""

from __future__ import annotations

import argparse
import importlib
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tapete.cards import bits
from tapete.mil import PROFILES, Phase, Play, Profile, State, deal_cards

TARGET = 10_000


def random_deal(profile: Profile, rng: random.Random) -> State:
    """One whole deal through the public API with uniform random choices."""
    hands, talon = deal_cards(rng)
    st = State(profile, rng.randrange(3), hands, talon)
    random = rng.random  # int(random() * n) is uniform enough here and cheaper than randrange
    while not st.done:
        legal = st.legal_actions()
        st.apply(legal[int(random() * len(legal))])
    return st


def to_first_lead(profile: Profile, rng: random.Random) -> State:
    """A random deal advanced to its first lead (redeals and rospis are refused)."""
    while True:
        hands, talon = deal_cards(rng)
        st = State(profile, rng.randrange(3), hands, talon)
        while not st.done and st.phase is not Phase.PLAY:
            legal = [
                a for a in st.legal_actions() if a.to_json()["type"] not in ("redeal", "rospis")
            ]
            st.apply(legal[rng.randrange(len(legal))])
        if st.phase is Phase.PLAY:
            return st


def timed(label: str, seconds: float, step: Callable[[], int]) -> tuple[int, float]:
    """Call ``step`` (which returns how many units it did) until ``seconds`` have passed."""
    done = 0
    start = time.process_time()
    next_report = start + 1.0
    while True:
        done += step()
        now = time.process_time()
        if now >= next_report:
            print(
                f"  {label}: {done} in {now - start:.1f} s", end="\r", file=sys.stderr, flush=True
            )
            next_report = now + 1.0
        if now - start >= seconds:
            break
    elapsed = time.process_time() - start
    print(" " * 70, end="\r", file=sys.stderr)
    return done, elapsed


def bench_deals(profile: Profile, seconds: float, rng: random.Random) -> float:
    def step() -> int:
        for _ in range(50):
            random_deal(profile, rng)
        return 50

    n, t = timed(f"{profile.name} deals", seconds, step)
    return n / t


def bench_push_pop(profile: Profile, seconds: float, rng: random.Random) -> float:
    def step() -> int:
        hands, talon = deal_cards(rng)
        st = State(profile, rng.randrange(3), hands, talon)
        pairs = 0
        while not st.done:
            legal = st.legal_actions()
            for a in legal:
                st.push(a)
                st.pop()
            pairs += len(legal)
            st.apply(legal[rng.randrange(len(legal))])
        return pairs

    n, t = timed(f"{profile.name} push+pop", seconds, step)
    return n / t


def bench_fast(profile: Profile, seconds: float, rng: random.Random) -> float:
    """Play-outs from 200 first leads: play_mask/play_card, one push() of a first card and
    pop() to go back to the lead (the only checked action of a play-out)."""
    starts = [to_first_lead(profile, rng) for _ in range(200)]

    rand = rng.random

    def play_out(st: State) -> None:
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
        for _ in range(50):
            play_out(starts[i % len(starts)])
            i += 1
        return 50

    n, t = timed(f"{profile.name} fast play", seconds, step)
    return n / t


def load_engine_from(src: str) -> tuple[object, object]:
    """Import ``tapete.mil`` from ``src`` under other module names; returns (old, new)."""
    saved = {k: v for k, v in sys.modules.items() if k == "tapete" or k.startswith("tapete.")}
    for k in saved:
        del sys.modules[k]
    sys.path.insert(0, src)
    try:
        old = importlib.import_module("tapete.mil")
        for k in [k for k in sys.modules if k == "tapete" or k.startswith("tapete.")]:
            sys.modules["old_" + k] = sys.modules.pop(k)
    finally:
        sys.path.remove(src)
    sys.modules.update(saved)
    new = importlib.import_module("tapete.mil")
    return old, new


def compare(src: str, seconds: float, seed: int) -> None:
    old, new = load_engine_from(src)
    print(f"random deals/s through the public API, {src} (before) vs this tree (after),")
    print("alternating rounds of 0.5 s; median of the rounds")
    for name in PROFILES:
        rates: dict[str, list[float]] = {"before": [], "after": []}
        rng = random.Random(seed)
        spent = 0.0
        while spent < 2 * seconds:
            for label, mod in (("before", old), ("after", new)):
                profile = mod.PROFILES[name]  # type: ignore[attr-defined]
                state_cls = mod.State  # type: ignore[attr-defined]
                n = 0
                t0 = time.process_time()
                while time.process_time() - t0 < 0.5:
                    for _ in range(20):
                        hands, talon = deal_cards(rng)
                        st = state_cls(profile, rng.randrange(3), hands, talon)
                        rand = rng.random
                        while not st.done:
                            legal = st.legal_actions()
                            st.apply(legal[int(rand() * len(legal))])
                    n += 20
                dt = time.process_time() - t0
                spent += dt
                rates[label].append(n / dt)
        b, a = statistics.median(rates["before"]), statistics.median(rates["after"])
        print(f"{name:9} before {b:8,.0f}  after {a:8,.0f}  ratio {a / b:.2f}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="time per measure (default 3)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--compare", metavar="SRC", help="also time the engine found in SRC/tapete")
    args = ap.parse_args(argv)
    if args.compare:
        compare(args.compare, args.seconds, args.seed)
        return 0
    rng = random.Random(args.seed)
    print(
        f"Mil engine benchmark: Python {platform.python_version()}, {platform.machine()}, "
        f"{args.seconds:g} s per measure, seed {args.seed}"
    )
    rows = []
    for profile in PROFILES.values():
        deals = bench_deals(profile, args.seconds, rng)
        pairs = bench_push_pop(profile, args.seconds, rng)
        fast = bench_fast(profile, args.seconds, rng)
        rows.append((profile.name, deals, pairs, fast))
        print(
            f"{profile.name:9} {deals:10,.0f} deals/s {pairs:12,.0f} push+pop/s "
            f"{fast:10,.0f} fast play-outs/s",
            flush=True,
        )
    worst = min(r[1] for r in rows)
    print()
    print("| profile | random deals/s (public API) | push+pop pairs/s | fast play-outs/s |")
    print("|---|---:|---:|---:|")
    for name, deals, pairs, fast in rows:
        print(f"| {name} | {deals:,.0f} | {pairs:,.0f} | {fast:,.0f} |")
    verdict = "meets" if worst >= TARGET else "is below"
    print(f"\nslowest profile: {worst:,.0f} deals/s, which {verdict} the target of {TARGET:,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
