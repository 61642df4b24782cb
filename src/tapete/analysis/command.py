"""``tapete analyse FILE.jsonl [--game G] [--deal D] [--seat S] [--quick] [--json OUT] [--seed N]``.

A readable report per deal (costliest decisions first), a progress bar over many deals on a
terminal, and a summary at the end; ``--json OUT`` also writes one object per deal (the fields
of docs/analysis.md; ``-`` writes them to standard output instead of the report). Bad input
(a missing file, a record that does not replay, a game, deal or seat out of range) is one
error line and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import IO, Any

from tapete.analysis import _Replayed, summary
from tapete.analysis.text import render_report, render_summary
from tapete.cli.common import (
    Progress,
    UnreadableFile,
    check_output,
    fail,
    iter_numbered_record_file,
    whole_number,
)
from tapete.errors import RecordError
from tapete.game import JSON
from tapete.games import kind

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add the ``analyse`` sub-command to an argparse ``add_subparsers()`` object."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "analyse",
        help="what each decision of a recorded deal cost (deal review)",
        description="What each decision of the recorded deals cost: the open-hand value "
        "before and after it, judged over sampled deals of what the player could not see, "
        "with inaccuracies, mistakes and blunders marked (see docs/analysis.md).",
    )
    p.add_argument("file", help="a file of tapete/1 records (JSON Lines, or one record)")
    p.add_argument(
        "--game",
        dest="game_index",
        type=whole_number,
        default=None,
        help="only this game of the file",
    )
    p.add_argument(
        "--deal", type=whole_number, default=None, help="only this deal of each game (from 0)"
    )
    p.add_argument("--seat", type=whole_number, default=None, help="only this seat's decisions")
    p.add_argument("--quick", action="store_true", help="open-hand judgement only (fast)")
    p.add_argument(
        "--json",
        dest="json_out",
        default=None,
        help="write one JSON object per deal here (- : stdout)",
    )
    p.add_argument(
        "--seed",
        type=whole_number,
        default=0,
        help="the sampling seed (same seed, same report; default: 0)",
    )
    p.add_argument(
        "--budget",
        type=_positive_seconds,
        default=10.0,
        help="CPU seconds per deal before judging open-handed only (default 10)",
    )
    p.set_defaults(func=run)
    return p


def _positive_seconds(text: str) -> float:
    """An argparse type: a finite number of seconds above 0 (0 or less measured nothing and
    reported every loss as 0.0)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0, got {text}")
    return value


class _Bad(ValueError):
    pass


def _plan(args: argparse.Namespace) -> list[tuple[_Replayed, list[int]]]:
    path = args.file
    try:
        numbered = list(iter_numbered_record_file(path))
    except UnreadableFile as exc:
        raise _Bad(str(exc)) from None
    except RecordError as exc:
        raise _Bad(f"{path}: {exc}") from None
    if not numbered:
        raise _Bad(f"{path} holds no game")
    records = [record for _, record in numbered]
    if args.game_index is not None and not 0 <= args.game_index < len(records):
        raise _Bad(
            f"{path} holds {len(records)} game(s): --game must be in 0..{len(records) - 1}, "
            f"not {args.game_index}"
        )
    chosen = range(len(records)) if args.game_index is None else [args.game_index]
    plan = []
    for g in chosen:
        try:
            r = _Replayed(records[g], g)
        except RecordError as exc:  # (with the line the record starts on, as replay says it)
            raise _Bad(f"{path}: {exc.located(line=numbered[g][0])}") from None
        seats = kind(records[g]["game"]).seats
        if args.seat is not None and not 0 <= args.seat < seats:
            raise _Bad(
                f"game {g} has {seats} seats: --seat must be in 0..{seats - 1}, not {args.seat}"
            )
        if args.deal is not None:
            if not r.count:  # (the range said "0..-1")
                raise _Bad(f"game {g} has no finished deal: there is no deal {args.deal}")
            if not 0 <= args.deal < r.count:
                raise _Bad(
                    f"game {g} has {r.count} finished deal(s): --deal must be in "
                    f"0..{r.count - 1}, not {args.deal}"
                )
            deals = [args.deal]
        else:
            deals = list(range(r.count))
        plan.append((r, deals))
    return plan


def _same_file(one: str, other: str) -> bool:
    """Whether the paths ``one`` and ``other`` name one file (a link to it too)."""
    try:
        return os.path.samefile(one, other)
    except OSError:  # (one of them does not exist yet: not the same)
        return False


def run(args: argparse.Namespace) -> int:
    """The ``tapete analyse`` command; returns the exit status (2 on bad input)."""
    try:
        plan = _plan(args)
        json_out: IO[str] | None = None
        if args.json_out not in (None, "-"):
            # (the same words as simulate's --out and arena's --json: which folder is wrong)
            problem = check_output(Path(args.json_out), "--json")
            if problem is None and _same_file(args.json_out, args.file):
                # (opened to write, it was emptied before anything was read of it)
                problem = f"--json {args.json_out} is the record file being read: name another"
            if problem:
                raise _Bad(problem)
    except _Bad as exc:
        return fail("analyse", str(exc))
    total = sum(len(d) for _, d in plan)
    # (the shared progress: a bar on a terminal, else plain lines at every tenth; a bar of
    # its own showed nothing at all when stderr was not a terminal, for a job of minutes)
    progress: Progress | None = None
    to_stdout = args.json_out == "-"
    seats = None if args.seat is None else {args.seat}
    reports: list[JSON] = []
    start = time.perf_counter()
    if args.json_out not in (None, "-"):
        try:
            json_out = open(args.json_out, "w", encoding="utf-8")  # noqa: SIM115 - closed below
        except OSError as exc:
            return fail("analyse", f"cannot write {args.json_out}: {exc.strerror or exc}")
    if total > 1:
        progress = Progress(total, "analyse")
    try:
        for r, deals in plan:
            for d in deals:
                rep = r.analyse(
                    d, seed=args.seed, quick=args.quick, budget=args.budget, seats=seats
                )
                reports.append(rep)
                line = json.dumps(summary(rep), ensure_ascii=False)
                if to_stdout:
                    print(line)
                else:
                    if json_out is not None:
                        json_out.write(line + "\n")
                    print(render_report(rep, seat=args.seat))
                    print()
                if progress is not None:
                    progress.update(len(reports))
    finally:
        if progress is not None:
            progress.close()
        if json_out is not None:
            json_out.close()
    if not to_stdout:
        print(render_summary(reports, time.perf_counter() - start, seat=args.seat))
    return 0
