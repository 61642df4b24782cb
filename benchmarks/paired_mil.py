"""Paired single-deal comparison of Mil bots: are two versions of a bot different?

Whole-game arena intervals are about ±4-5 points per deal, too wide to see small changes.
This plays the same N deals (``MilGame(profile, seed=S * 100003 + i, max_deals=1)``, the
deals ``tapete arena --deals-per-game 1 --duplicate`` plays) three times each, with the
bot under test in each seat against two ``rules`` players, and writes one JSON line per
deal and seat. ``compare`` then averages, deal by deal, the difference between two such
files written by two versions of the code on the same deals, with a 95% interval (1.96
standard errors over the deals). Run from the repository root::

    .venv/bin/python benchmarks/paired_mil.py run --profile club --seed 31 --deals 200 \\
        --out /tmp/new.jsonl
    # the same deals with an older tree; copy this tree's built solver core into it, or the
    # old tree runs the pure Python solver, gets fewer samples in its time budget and loses
    # for that reason alone (the summary line names the solver backend and engine build)
    mkdir -p /tmp/old && git archive <commit> src | tar -x -C /tmp/old
    cp src/tapete/solver/_core*.so /tmp/old/src/tapete/solver/
    PYTHONPATH=/tmp/old/src .venv/bin/python benchmarks/paired_mil.py run --profile club \\
        --seed 31 --deals 200 --out /tmp/old.jsonl
    .venv/bin/python benchmarks/paired_mil.py compare /tmp/old.jsonl /tmp/new.jsonl

``run`` uses only ``make_bot`` and ``MilGame``, not the arena's internals, so that it runs
against an older tree too (the arena of this tree cannot load another tree's bots). ``run``
shows progress and ends with a summary; bot options are passed as JSON
(``--options '{"samples": 80}'``). The search bots' time budget makes results depend on the
machine's load when decisions run out of time; note the load with the figures.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from pathlib import Path


def run(
    profile: str, seed: int, deals: int, bot: str, options: dict[str, object], out: str
) -> None:
    import tapete
    from tapete.bots import make_bot
    from tapete.mil.game import MilGame
    from tapete.solver import BACKEND

    t0 = time.time()
    own: list[float] = []
    with open(out, "w", encoding="utf-8") as f:
        for i in range(deals):
            for seat in range(3):
                names = ["rules"] * 3
                names[seat] = bot
                game = MilGame(profile, seed=seed * 100003 + i, players=names, max_deals=1)
                bots = [
                    make_bot("mil", n, profile=profile, **(options if n == bot else {}))
                    for n in names
                ]
                rngs = [random.Random(f"{seed}:{i}:{seat}:{s}") for s in range(3)]
                while not game.over:
                    s = game.turn
                    assert s is not None
                    game.apply(bots[s].act(game.view(s), rngs[s]))
                scores = list(game.scores)
                others = [scores[k] for k in range(3) if k != seat]
                own.append(scores[seat])
                line = {"deal": i, "seat": seat, "score": scores[seat], "others": others}
                f.write(json.dumps(line) + "\n")
            f.flush()
            print(
                f"\r[paired] {i + 1}/{deals} deals, {time.time() - t0:.0f} s",
                end="",
                file=sys.stderr,
                flush=True,
            )
    print(file=sys.stderr)
    print(
        f"{bot} in each seat against two rules players, {profile}, seed {seed}: "
        f"{deals} deals x 3 seats, mean score change {statistics.fmean(own):+.2f} "
        f"per seat-deal, written to {out}"
    )
    build = "compiled engine" if tapete.compiled_modules() else "pure Python engine"
    print(f"tapete from {Path(tapete.__file__).parent}, solver backend {BACKEND!r}, {build}")


def _per_deal(path: str) -> dict[int, tuple[float, float]]:
    """deal -> (mean score of the tested seat, mean margin over the two others)."""
    rows: dict[int, list[tuple[float, float]]] = {}
    for n, text in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        try:
            r = json.loads(text)
            rows.setdefault(int(r["deal"]), []).append(
                (float(r["score"]), float(r["score"]) - statistics.fmean(r["others"]))
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise SystemExit(f"{path}, line {n}: not a paired_mil.py line ({exc})") from None
    return {
        d: (statistics.fmean(a for a, _ in v), statistics.fmean(b for _, b in v))
        for d, v in rows.items()
    }


def compare(before: str, after: str) -> None:
    a, b = _per_deal(before), _per_deal(after)
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        raise SystemExit(
            "the two files share fewer than 2 deals: were they run with the same seed?"
        )
    for label, k in (("points/deal", 0), ("margin over the rules players", 1)):
        diffs = [b[d][k] - a[d][k] for d in common]
        mean = statistics.fmean(diffs)
        half = 1.96 * statistics.stdev(diffs) / math.sqrt(len(diffs))
        changed = sum(1 for x in diffs if x)
        print(
            f"{label}: {mean:+.2f} ± {half:.2f} ({after} minus {before}, {len(common)} deals, "
            f"{changed} differ)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("run", help="play the deals and write one line per deal and seat")
    p.add_argument("--profile", default="club", choices=("club", "casa", "casa-500"))
    p.add_argument("--seed", type=int, default=31)
    p.add_argument("--deals", type=int, default=200)
    p.add_argument("--bot", default="search")
    p.add_argument("--options", default="{}", help="bot options as a JSON object")
    p.add_argument("--out", required=True)
    p = sub.add_parser("compare", help="paired difference of two run files (before, after)")
    p.add_argument("before")
    p.add_argument("after")
    args = parser.parse_args()
    if args.command == "run":
        run(args.profile, args.seed, args.deals, args.bot, json.loads(args.options), args.out)
    else:
        compare(args.before, args.after)


if __name__ == "__main__":
    main()
