"""Deal analysis speed: full and quick analysis of the reference records' deals.

Run: ``.venv/bin/python benchmarks/bench_analysis.py [--deals 30] [--hands 10] [--records DIR]``

For each Mil deal with card play in the reference records (club, casa and casa-500 in turn,
up to ``--deals``) it times, in the same run: the baseline, the exact solver alone (one solve
before the first lead, what ``tapete solve`` does); ``quick`` analysis (open-hand only); and
the full analysis (every decision judged from the seat's view, the default settings and a
``--budget`` of 10 s per deal, seed 0). Then the same (without the baseline) for ``--hands``
Mariage hands. Reported per deal: median and maximum seconds (wall clock; CPU time beside it,
since other work on the machine inflates the wall clock), and how many deals reached the time
budget. A progress line goes to standard error. Not a test: it prints the numbers for
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from tapete.analysis import analyse_deal
from tapete.game import JSON
from tapete.records import load
from tapete.replay import replay
from tapete.solver import solve
from tapete.solver.command import position_from_state

DEFAULT_RECORDS = Path(__file__).resolve().parents[1].parent / "shared" / "records"


def _mil_deals(folder: Path, n: int) -> list[tuple[JSON, int, Any]]:
    """Up to ``n`` (record, deal index, play-start state) with card play, profiles in turn."""
    per_file = []
    for name in ("mil-club.jsonl", "mil-casa.jsonl", "mil-casa-500.jsonl"):
        found = []
        for rec in load(folder / name):
            game = replay(rec)
            for k, (done, _) in enumerate(game.deals):  # type: ignore[attr-defined]
                if not done.annulled and not done.rospis and done.declarer >= 0:
                    found.append((rec, k, done))
            if len(found) >= n:
                break
        per_file.append(found)
    out = []
    i = 0
    while len(out) < n and any(per_file):
        lst = per_file[i % len(per_file)]
        if lst:
            out.append(lst.pop(0))
        i += 1
    return out


def _start_position(done: Any) -> Any:
    from tapete.mil.state import Phase, State

    st = State(done.profile, done.dealer, done.dealt_hands, done.dealt_talon, done.in_barrel)
    for _, a in done.history:
        if st.phase is Phase.PLAY:
            break
        st.apply(a)
    return position_from_state(st)


def _timed(fn: Any) -> tuple[float, float, Any]:
    w, c = time.perf_counter(), time.process_time()
    got = fn()
    return time.perf_counter() - w, time.process_time() - c, got


def _line(label: str, wall: list[float], cpu: list[float], extra: str = "") -> str:
    return (
        f"{label:<28} median {statistics.median(wall):7.3f} s  max {max(wall):7.3f} s   "
        f"(CPU median {statistics.median(cpu):7.3f} s, max {max(cpu):7.3f} s){extra}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=30, help="Mil deals")
    ap.add_argument("--hands", type=int, default=10, help="Mariage hands")
    ap.add_argument("--records", type=Path, default=DEFAULT_RECORDS)
    ap.add_argument("--budget", type=float, default=10.0)
    args = ap.parse_args()
    if not args.records.is_dir():
        args.records = Path("/work/shared/records")
    deals = _mil_deals(args.records, args.deals)
    times: dict[str, tuple[list[float], list[float]]] = {
        k: ([], []) for k in ("solver", "quick", "full", "m_quick", "m_full")
    }
    cut = 0
    decisions = 0
    start = time.perf_counter()
    total = len(deals) + args.hands
    for i, (rec, k, done) in enumerate(deals, 1):
        pos = _start_position(done)
        w, c, _ = _timed(lambda pos=pos: solve(pos))
        times["solver"][0].append(w)
        times["solver"][1].append(c)
        w, c, _ = _timed(lambda rec=rec, k=k: analyse_deal(rec, k, quick=True))
        times["quick"][0].append(w)
        times["quick"][1].append(c)
        w, c, rep = _timed(lambda rec=rec, k=k: analyse_deal(rec, k, budget=args.budget))
        times["full"][0].append(w)
        times["full"][1].append(c)
        cut += not rep["complete"]
        decisions += len(rep["decisions"])
        print(f"\r{i}/{total} deals  {time.perf_counter() - start:.0f} s", end="", file=sys.stderr)
    hands: list[tuple[JSON, int]] = []
    for rec in load(args.records / "mariage.jsonl"):
        for k in range(len(rec["deals"])):
            if "result" in rec["deals"][k] and len(hands) < args.hands:
                hands.append((rec, k))
    m_cut = 0
    for j, (rec, k) in enumerate(hands, 1):
        w, c, _ = _timed(lambda rec=rec, k=k: analyse_deal(rec, k, quick=True))
        times["m_quick"][0].append(w)
        times["m_quick"][1].append(c)
        w, c, rep = _timed(lambda rec=rec, k=k: analyse_deal(rec, k, budget=args.budget))
        times["m_full"][0].append(w)
        times["m_full"][1].append(c)
        m_cut += not rep["complete"]
        print(
            f"\r{len(deals) + j}/{total} deals  {time.perf_counter() - start:.0f} s",
            end="",
            file=sys.stderr,
        )
    print(file=sys.stderr)
    print(f"{len(deals)} Mil deals with card play ({decisions} decisions judged), per deal:")
    print(_line("  baseline: one solve", *times["solver"]))
    print(_line("  quick (open-hand only)", *times["quick"]))
    print(_line("  full", *times["full"], f"  {cut} reached the budget"))
    if hands:
        print(f"{len(hands)} Mariage hands, per hand:")
        print(_line("  quick (open-hand only)", *times["m_quick"]))
        print(_line("  full", *times["m_full"], f"  {m_cut} reached the budget"))
    print(f"total {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
