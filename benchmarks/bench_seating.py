"""The server's CPU to seat a table of three people: ``TableManager.create`` (the creator's
seat and two invited ones), two ``join`` (the second starts the game), then the table built
for its first connection (``load``), on a SQLite file, without HTTP.

Not a test. A flat-out room seats a new table every time a game ends (about two a second
at 30 tables with games of 20 deals), so this is part of the room's CPU per action
("Seating without the ORM" in docs/benchmarks.md). CPU time of a child process per tree,
the trees in turn, ``--rounds`` times; a figure is the best of five batches of
``--tables`` tables, in milliseconds a table. With ``--other``, another tree (built by
``baseline_tree.py``) is timed the same way and the ratio printed::

    .venv/bin/python benchmarks/bench_seating.py
    .venv/bin/python benchmarks/baseline_tree.py af58d92 /tmp/old
    .venv/bin/python benchmarks/bench_seating.py --other /tmp/old
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def measure(tables: int) -> dict[str, float]:
    """(In the child) the best batch's milliseconds a table: create, two joins, load."""
    import asyncio
    import tempfile

    from tapete.server.app import create_app

    async def batch(manager: Any, first: int) -> dict[str, float]:
        spent = dict.fromkeys(("create", "joins", "load"), 0.0)
        for n in range(first, first + tables):
            a = time.process_time()
            table = manager.create(
                game="mil",
                profile="club",
                name="Ana",
                language="en",
                seats=[("me", None), ("invited", None), ("invited", None)],
                seed=n,
                max_deals=20,
            )
            b = time.process_time()
            manager.join(table.id, name="Bea", invite=table.invite)
            manager.join(table.id, name="Cid", invite=table.invite)
            c = time.process_time()
            await manager.load(table.id)
            d = time.process_time()
            spent["create"] += b - a
            spent["joins"] += c - b
            spent["load"] += d - c
        return {k: v / tables * 1e3 for k, v in spent.items()}

    async def run() -> dict[str, float]:
        with tempfile.TemporaryDirectory(prefix="tapete-bench-seating-") as tmp:
            app = create_app(f"sqlite:///{tmp}/seating.sqlite3", 0)
            manager = app.state.manager
            await batch(manager, 0)  # (warm: the statements' caches, the pool)
            batches = [await batch(manager, (k + 1) * tables) for k in range(5)]
            await manager.close()
            manager.engine.dispose()
        best = min(batches, key=lambda b: sum(b.values()))
        return {**best, "table": sum(best.values())}

    return asyncio.run(run())


#: the child: the tree's tapete first on the path, checked, then the measure
CHILD = """import sys
sys.path[:0] = [{src!r}, {bench!r}]
import tapete
assert tapete.__file__.startswith({src!r}), tapete.__file__
import bench_seating, json
print(json.dumps(bench_seating.measure({tables})))"""


def timed(src: Path, tables: int) -> dict[str, float]:
    code = CHILD.format(
        src=str(src.resolve()), bench=str(Path(__file__).resolve().parent), tables=tables
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"the seating of {src} failed:\n{out.stderr[-2000:]}")
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def line(label: str, figures: dict[str, float]) -> str:
    return (
        f"{label}: {figures['table']:6.2f} ms a table (create {figures['create']:.2f}, "
        f"two joins {figures['joins']:.2f}, load {figures['load']:.2f})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--other", type=Path, help="another tree's folder (baseline_tree.py)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tables", type=int, default=40, help="tables a batch")
    args = parser.parse_args()
    if args.other is not None:
        from baseline_tree import check_builds

        check_builds(ROOT / "src", args.other)
    ratios = []
    for n in range(args.rounds):
        other = timed(args.other, args.tables) if args.other is not None else None
        this = timed(ROOT / "src", args.tables)
        parts = [line("this", this)]
        if other is not None:
            ratios.append(this["table"] / other["table"])
            parts = [line("other", other), *parts, f"this/other {ratios[-1]:.2f}"]
        print(f"round {n + 1}/{args.rounds}: " + "; ".join(parts), flush=True)
    if ratios:
        print(f"this/other, median of {len(ratios)} rounds: {statistics.median(ratios):.2f}")
    print("done")


if __name__ == "__main__":
    main()
