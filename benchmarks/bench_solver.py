"""Mil open-hand solver speed: whole 8-trick solves from the first lead.

Run: ``.venv/bin/python benchmarks/bench_solver.py [--deals 1000] [--python-deals 60] [--seed 1]``
Larger correctness run (what the tests do, bigger): ``--verify 20000`` compares the C core
and the Python search with the reference minimax on that many random play positions (1 to 4
cards left, profiles at random) and with a plain alpha-beta on ``--verify // 200`` whole
deals, then stops.

Each deal is dealt as in a game (:func:`tapete.solver.samples.random_deal_position`): 7 cards
each and a talon of 3 that a random declarer takes, then gives two random cards of the 10
away, one to each opponent; profiles alternate club and casa (``--profile`` to fix one).
Every deal is solved exactly (:func:`tapete.solver.solve_counting`) from the first lead.
Reported: median and 95th percentile milliseconds per solve (wall clock,
``time.perf_counter``; CPU time, ``time.process_time``, alongside since other work on the
machine inflates the wall clock), nodes per CPU second; then the same for the pure Python
search on the first ``--python-deals`` deals, the values checked equal, and the ratio.
Not a test: it prints numbers for docs/benchmarks.md.

``--compare SRC`` times the C core of another tree too (e.g. an older commit's ``src`` from
``git archive``, its ``_core`` built in place), on the same deals in alternating chunks of
50 so that load on the machine hits both alike, and checks that the values are equal.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import tapete.solver
from tapete.solver import MilPosition, reference_solve, solve, solve_counting
from tapete.solver.fast import PySearch, root_args
from tapete.solver.samples import random_deal_position, random_play_position


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by the nearest-rank method."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))]


def run(positions: list[MilPosition], backend: str, label: str) -> dict[str, object]:
    wall: list[float] = []
    cpu: list[float] = []
    nodes: list[int] = []
    values: list[int] = []
    step = max(1, len(positions) // 10)
    for i, pos in enumerate(positions, 1):
        w0, c0 = time.perf_counter(), time.process_time()
        value, n = solve_counting(pos, backend=backend)
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
        nodes.append(n)
        values.append(value)
        if i % step == 0 or i == len(positions):
            print(
                f"  {label}: {i}/{len(positions)} deals, median {statistics.median(wall):.2f} ms "
                f"so far",
                file=sys.stderr,
                flush=True,
            )
    return {
        "deals": len(positions),
        "median_ms": statistics.median(wall),
        "p95_ms": percentile(wall, 0.95),
        "max_ms": max(wall),
        "median_cpu_ms": statistics.median(cpu),
        "p95_cpu_ms": percentile(cpu, 0.95),
        "median_nodes": statistics.median(nodes),
        "p95_nodes": percentile([float(n) for n in nodes], 0.95),
        "nodes_per_s": sum(nodes) / (sum(cpu) / 1000) if sum(cpu) else float("nan"),
        "values": values,
    }


def show(label: str, r: dict[str, object]) -> None:
    print(
        f"{label:>7}: {r['deals']} deals  median {r['median_ms']:.2f} ms  "
        f"p95 {r['p95_ms']:.2f} ms  max {r['max_ms']:.1f} ms  "
        f"(CPU median {r['median_cpu_ms']:.2f} ms, p95 {r['p95_cpu_ms']:.2f} ms)  "
        f"nodes median {r['median_nodes']:.0f} p95 {r['p95_nodes']:.0f}  "
        f"{float(str(r['nodes_per_s'])) / 1e6:.2f} M nodes/s"
    )


def verify(count: int, seed: int) -> int:
    """Fast solvers against the reference (positions) and plain alpha-beta (whole deals)."""
    rng = random.Random(seed)
    backends = ["c", "python"] if tapete.solver.BACKEND == "c" else ["python"]
    start = time.perf_counter()
    for i in range(1, count + 1):
        pos = random_play_position(rng, rng.randint(1, 4))
        want = reference_solve(pos)
        for backend in backends:
            got = solve(pos, backend=backend)
            if got != want:
                print(f"MISMATCH {backend}: {got} != {want} for {pos!r}")
                return 1
        if i % max(1, count // 10) == 0:
            print(f"  verify: {i}/{count} positions agree", file=sys.stderr, flush=True)
    deals = count // 200
    for i in range(1, deals + 1):
        pos = random_deal_position(rng, ("club", "casa")[i % 2])
        args = root_args(pos)
        plain = PySearch(pos.declarer, pos.rules, plain=True)
        plain.h = [args[0], args[1], args[2]]
        want = plain.solve(args[4], args[6], args[7], args[5])
        for backend in backends:
            if solve(pos, backend=backend) != want:
                print(f"MISMATCH {backend} vs plain alpha-beta: {pos!r}")
                return 1
        if i % max(1, deals // 10) == 0:
            print(f"  verify: {i}/{deals} whole deals agree", file=sys.stderr, flush=True)
    print(
        f"verify: {count} positions equal to the reference and {deals} whole deals equal to "
        f"plain alpha-beta ({'+'.join(backends)}), {time.perf_counter() - start:.0f} s"
    )
    return 0


def compare(src: str, deals: int, seed: int, profiles: list[str]) -> int:
    """The C core of the tree in ``src`` ("before") against this one ("after")."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from tapete._compiled import import_copy

    import_copy("tapete.solver.samples", "before_", src=src)
    builds = {
        "before": (
            sys.modules["before_tapete.solver"],
            sys.modules["before_tapete.solver.samples"],
        ),
        "after": (tapete.solver, sys.modules["tapete.solver.samples"]),
    }
    positions: dict[str, list[Any]] = {}
    for label, (solver, samples) in builds.items():
        if solver.BACKEND != "c":
            print(f"the C core of {label} is not built")
            return 1
        rng = random.Random(seed)
        positions[label] = [
            samples.random_deal_position(rng, profiles[i % len(profiles)]) for i in range(deals)
        ]
    results: dict[str, dict[str, list[float]]] = {
        k: {"wall": [], "cpu": [], "nodes": [], "values": []} for k in builds
    }
    for start in range(0, deals, 50):
        for label, (solver, _) in builds.items():
            r = results[label]
            for pos in positions[label][start : start + 50]:
                w0, c0 = time.perf_counter(), time.process_time()
                value, n = solver.solve_counting(pos, backend="c")
                r["cpu"].append((time.process_time() - c0) * 1000)
                r["wall"].append((time.perf_counter() - w0) * 1000)
                r["nodes"].append(n)
                r["values"].append(value)
        print(f"  compare: {min(start + 50, deals)}/{deals} deals", file=sys.stderr, flush=True)
    for label, r in results.items():
        print(
            f"{label:>7}: {deals} deals  median {statistics.median(r['wall']):.2f} ms  "
            f"p95 {percentile(r['wall'], 0.95):.2f} ms  (CPU median "
            f"{statistics.median(r['cpu']):.2f} ms, p95 {percentile(r['cpu'], 0.95):.2f} ms)  "
            f"nodes median {statistics.median(r['nodes']):.0f}  "
            f"{sum(r['nodes']) / (sum(r['cpu']) / 1000) / 1e6:.2f} M nodes/s"
        )
    same = results["before"]["values"] == results["after"]["values"]
    nodes_same = results["before"]["nodes"] == results["after"]["nodes"]
    ratio = statistics.median(results["after"]["cpu"]) / statistics.median(results["before"]["cpu"])
    print(
        f"  after / before = {ratio:.2f} by median CPU time; values "
        f"{'equal' if same else 'DIFFER'}; node counts {'equal' if nodes_same else 'differ'}"
    )
    return 0 if same else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--python-deals", type=int, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", choices=["club", "casa", "both"], default="both")
    parser.add_argument("--verify", type=int, default=0, metavar="N")
    parser.add_argument("--compare", metavar="SRC", help="time the C core found in SRC/tapete too")
    args = parser.parse_args(argv)
    if args.verify:
        return verify(args.verify, args.seed)
    profiles = ["club", "casa"] if args.profile == "both" else [args.profile]
    if args.compare:
        return compare(args.compare, args.deals, args.seed, profiles)

    rng = random.Random(args.seed)
    positions = [random_deal_position(rng, profiles[i % len(profiles)]) for i in range(args.deals)]
    print(
        f"Mil solver: {args.deals} deals (seed {args.seed}, profiles {'+'.join(profiles)}), "
        f"default backend {tapete.solver.BACKEND}"
    )
    results: dict[str, dict[str, object]] = {}
    if tapete.solver.BACKEND == "c":
        results["c"] = run(positions, "c", "C core")
        show("C core", results["c"])
    else:
        print("the C core is not built: only the pure Python search runs")
    sample = positions[: args.python_deals]
    if sample:
        results["python"] = run(sample, "python", "Python")
        show("Python", results["python"])
    if "c" in results and "python" in results:
        c_values = results["c"]["values"]
        py_values = results["python"]["values"]
        assert isinstance(c_values, list) and isinstance(py_values, list)
        if c_values[: len(py_values)] != py_values:
            print("ERROR: the C core and the Python search disagree", file=sys.stderr)
            return 1
        c_same = run(sample, "c", "C core, Python's sample")
        ratio = float(str(results["python"]["median_ms"])) / float(str(c_same["median_ms"]))
        cpu_ratio = float(str(results["python"]["median_cpu_ms"])) / float(
            str(c_same["median_cpu_ms"])
        )
        print(
            f"  ratio on the same {len(sample)} deals: Python / C = {ratio:.0f}x by median "
            f"wall time ({cpu_ratio:.0f}x by median CPU time); values equal"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
