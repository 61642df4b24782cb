"""``benchmarks/bench_actions.py`` (docs/benchmarks.md, "The path of an action") runs and
prints every measure with its ratio: the quick run, in a process of its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_quick_run_prints_every_measure() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "bench_actions.py"), "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    ratios = [line for line in done.stdout.splitlines() if "now/base" in line]
    assert len(ratios) == 10, done.stdout
    assert "done in" in done.stdout
