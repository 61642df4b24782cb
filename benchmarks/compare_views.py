"""Four-seat Mil views (``MilGame.views([0, 1, 2, None])``, what the server builds at every
action) of this tree against another tree's, each as installed there (compiled or not).

Not a test. Each tree is timed in a process of its own, the two in turn, ``--rounds``
times; a figure is the best of nine rounds of CPU time in one process, in microseconds a
call, at 20 points of random games of up to 20 deals (club and casa). Run from the
repository root::

    git archive <commit> src | tar -x -C /tmp/old   # then copy its *.so and _compiled.json
    .venv/bin/python benchmarks/compare_views.py /tmp/old/src
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"


def measure() -> float:
    """(In the child) the best round's microseconds a four-seat views() call."""
    from tapete.mil import MilGame

    rng = random.Random(1)
    games = []
    for n in range(20):
        game = MilGame(("club", "casa")[n % 2], seed=rng.randrange(2**32), max_deals=20)
        for _ in range(rng.randrange(20, 200)):
            if game.over:
                break
            game.apply(rng.choice(game.legal_actions()))
        games.append(game)
    seats = [0, 1, 2, None]
    best = float("inf")
    for _ in range(9):
        start = time.process_time()
        for _ in range(150):
            for game in games:
                game.views(seats)
        best = min(best, (time.process_time() - start) / (150 * len(games)) * 1e6)
    return best


#: the child: the tree's src first on the path, checked, then the measure
CHILD = """import sys
sys.path[:0] = [{src!r}, {bench!r}]
import tapete
assert tapete.__file__.startswith({src!r}), tapete.__file__
import compare_views
print(compare_views.measure())"""


def timed(src: Path) -> float:
    code = CHILD.format(src=str(src.resolve()), bench=str(Path(__file__).resolve().parent))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("other", type=Path, help="the other tree's src folder")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    ratios = []
    for n in range(args.rounds):
        other, this = timed(args.other), timed(SRC)
        ratios.append(this / other)
        print(
            f"round {n + 1}: other {other:6.1f} us, this {this:6.1f} us, "
            f"this/other {ratios[-1]:.2f}",
            flush=True,
        )
    print(f"this/other, median of {len(ratios)} rounds: {statistics.median(ratios):.2f}")


if __name__ == "__main__":
    main()
