"""``benchmarks/bench_actions.py`` (docs/benchmarks.md, "The path of an action") runs and
prints every measure with its ratio: the quick run, in a process of its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def run_benchmark(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``benchmarks/SCRIPT ARGS...`` in a process of its own; it must end well."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def test_the_quick_run_prints_every_measure() -> None:
    done = run_benchmark("bench_actions.py", "--quick")
    ratios = [line for line in done.stdout.splitlines() if "now/base" in line]
    assert len(ratios) == 13, done.stdout
    assert "done in" in done.stdout


def test_the_seating_benchmark_times_this_tree_and_another(tmp_path: Path) -> None:
    """``benchmarks/bench_seating.py --other``: both trees timed, the ratio printed (the
    other tree here: a copy of this one, with its build)."""
    import shutil

    shutil.copytree(ROOT / "src" / "tapete", tmp_path / "tapete")
    done = run_benchmark(
        "bench_seating.py", "--other", str(tmp_path), "--rounds", "1", "--tables", "3"
    )
    assert "other: compiled" in done.stdout and "this: compiled" in done.stdout
    assert "ms a table (create" in done.stdout and "this/other, median of 1 rounds" in done.stdout


def test_the_sweep_benchmark_times_both_queries() -> None:
    """``benchmarks/bench_sweep.py`` (docs/benchmarks.md, "The sweep of idle tables"): both
    queries find no idle table, each timed, the ratio printed."""
    done = run_benchmark("bench_sweep.py", "--tables", "30", "--actions", "5", "--rounds", "2")
    assert "round 2/2" in done.stdout and "baseline (latest created_at): median" in done.stdout
    assert "summary: 30 tables x 5 actions, 2 rounds: the sweep's query takes" in done.stdout
