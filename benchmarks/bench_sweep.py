"""The sweep's query at many unfinished tables: how long finding the idle ones takes.

Not a test. Every minute the server looks for the tables nobody plays
(``TableManager.sweep``): an unfinished table is idle from its last action. Finding that
action by the latest ``created_at`` (the baseline, the query before 2026-12-07) reads every
action of every unfinished table; by the highest ``n`` (now) it is one step down the primary
key's index a table. Both run here on the same SQLite database, in turns, and the summary
gives their medians and the ratio. (The server runs the query in a worker thread now, so
either way the event loop does not wait for it.) Run from the repository root::

    .venv/bin/python benchmarks/bench_sweep.py                    # 1,000 tables x 100 actions
    .venv/bin/python benchmarks/bench_sweep.py --tables 5000 --actions 200 --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from sqlalchemy import func, insert, select

from tapete.server.db import ActionRow, TableRow, make_engine, upgrade, utcnow
from tapete.server.tables import TableManager


def build(path: Path, tables: int, actions: int) -> Any:
    """A database of ``tables`` playing tables of ``actions`` actions each, a day old."""
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    now = utcnow()
    with engine.begin() as connection:
        connection.execute(
            insert(TableRow),
            [
                {
                    "id": i + 1,
                    "game": "mil",
                    "profile": "club",
                    "seed": i,
                    "players": ["Ana", "Bea", "Cid"],
                    "levels": [None, None, None],
                    "token": "t" * 32,
                    "language": "en",
                    "status": "playing",
                    "created_at": now - timedelta(days=1),
                    "opened_at": now - timedelta(days=1),
                    "owner": "Ana",
                }
                for i in range(tables)
            ],
        )
        rows = [
            {
                "table_id": i + 1,
                "n": n,
                "seat": n % 3,
                "action": {"type": "bid", "value": 100},
                "created_at": now - timedelta(hours=1),
            }
            for i in range(tables)
            for n in range(actions)
        ]
        for start in range(0, len(rows), 50_000):
            connection.execute(insert(ActionRow), rows[start : start + 50_000])
    return engine


def by_latest_time(connection: Any, idle: Any) -> list[int]:
    """The baseline: the latest ``created_at`` of each table's actions."""
    last = (
        select(func.max(ActionRow.created_at))
        .where(ActionRow.table_id == TableRow.id)
        .scalar_subquery()
    )
    query = select(TableRow.id).where(
        TableRow.status.in_(("playing", "waiting")),
        func.coalesce(last, TableRow.created_at) < idle,
    )
    return list(connection.scalars(query.limit(1000)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=1000)
    parser.add_argument("--actions", type=int, default=100, help="actions a table")
    parser.add_argument("--rounds", type=int, default=7, help="measures of each query")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="tapete-sweep-"))
    print(f"building {args.tables:,} playing tables of {args.actions} actions ...", flush=True)
    engine = build(folder / "sweep.sqlite3", args.tables, args.actions)
    manager = TableManager(engine)
    idle = utcnow() - timedelta(seconds=manager.limits.abandoned_after_s)
    times: dict[str, list[float]] = {"baseline (latest created_at)": [], "now (sweep rows)": []}
    for r in range(args.rounds):
        with engine.connect() as connection:
            start = time.perf_counter()
            assert by_latest_time(connection, idle) == []
            times["baseline (latest created_at)"].append(time.perf_counter() - start)
        start = time.perf_counter()
        assert manager._sweep_rows(utcnow()) == []
        times["now (sweep rows)"].append(time.perf_counter() - start)
        print(f"round {r + 1}/{args.rounds}", flush=True)
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    for name, ts in times.items():
        low, high = min(ts) * 1000, max(ts) * 1000
        print(f"{name}: median {medians[name] * 1000:.1f} ms (range {low:.1f}-{high:.1f} ms)")
    base, now = medians.values()
    print(
        f"summary: {args.tables:,} tables x {args.actions} actions, {args.rounds} rounds: "
        f"the sweep's query takes {now / base:.2f} of the baseline's time"
    )
    engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
