"""Two servers flat out at the same time: this tree's and another tree's, each with its own
tables and clients (``bench_room.py`` twice, side by side), so that the machine's moods hit
both alike.

Not a test. The machine this runs on changes speed from one minute to the next (the same
server gave 2,200 and 3,700 actions/s within an hour), so two runs taken one after the
other differ by more than most changes do. Run at once, both servers share the cores and
the moment: their CPU per action is comparable, pair by pair. Each pair: ``--tables`` Mil
tables of three people and two spectators per server, flat out, games of ``--deals``
deals, ``--seconds`` measured, one client process each. Run from the repository root::

    .venv/bin/python benchmarks/baseline_tree.py <commit> /tmp/old   # its own compiled build
    .venv/bin/python benchmarks/compare_room.py /tmp/old --pairs 3

Both trees' builds are printed first; a compiled tree against a pure Python one is refused
(``--mixed-builds`` to compare anyway): see ``baseline_tree.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from baseline_tree import check_builds

ROOT = Path(__file__).resolve().parents[1]


def start(src: Path, out: Path, args: argparse.Namespace) -> subprocess.Popen[bytes]:
    argv = [sys.executable, str(ROOT / "benchmarks" / "bench_room.py"), "--flat-out"]
    argv += ["--tables", str(args.tables), "--seconds", str(args.seconds)]
    argv += ["--deals", str(args.deals), "--clients", "1", "--baseline-seconds", "0"]
    argv += ["--progress-every", "0", "--server-src", str(src), "--json", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("other", type=Path, help="the folder of the other tree's tapete package")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--tables", type=int, default=15, help="tables per server")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--deals", type=int, default=20)
    parser.add_argument("--mixed-builds", action="store_true", help="compiled against pure too")
    args = parser.parse_args()
    check_builds(ROOT / "src", args.other, mixed=args.mixed_builds)
    ratios = []
    with tempfile.TemporaryDirectory(prefix="tapete-compare-") as tmp:
        for n in range(args.pairs):
            runs = {}
            for label, src in (("other", args.other), ("this", ROOT / "src")):
                out = Path(tmp) / f"{label}-{n}.json"
                runs[label] = (start(src, out, args), out)
            figures = {}
            for label, (process, out) in runs.items():
                _, err = process.communicate()
                if process.returncode != 0:
                    raise SystemExit(f"{label}: bench_room.py failed:\n{err.decode()[-2000:]}")
                run = json.loads(out.read_text())["run"]
                figures[label] = run
            other, this = figures["other"], figures["this"]
            ratio = this["server_cpu_ms_per_action"] / other["server_cpu_ms_per_action"]
            ratios.append(ratio)
            print(
                f"pair {n + 1}: other {other['actions_per_s']:7.1f}/s "
                f"{other['server_cpu_ms_per_action']:.3f} ms per action; this "
                f"{this['actions_per_s']:7.1f}/s {this['server_cpu_ms_per_action']:.3f} ms per "
                f"action; CPU per action this/other {ratio:.2f}",
                flush=True,
            )
    print(
        f"server CPU per action, this/other: median {statistics.median(ratios):.2f} of "
        f"{len(ratios)} pairs (range {min(ratios):.2f}-{max(ratios):.2f})"
    )


if __name__ == "__main__":
    main()
