"""``tapete replay FILE [FILE ...]``: replay every record of each file through the engine
and check it."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tapete.cli.common import Progress, RecordFile, UnreadableFile, count, fail
from tapete.errors import RecordError

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "replay",
        help="check a file of tapete/1 records",
        description="Replay every record of each file through the engine: each action must "
        "be legal for the seat whose turn it is, and every deal's result, the final scores "
        "and the winner must come out as recorded. Prints a summary per file, or the file's "
        "first problem; every file is checked (status 1 if a record does not replay, 2 if a "
        "file cannot be read). See docs/records.md for the format.",
    )
    p.add_argument(
        "file",
        nargs="+",
        help="a JSON Lines file of records (or one pretty-printed record); several may be named",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Check each file in turn (a file's problem does not stop the next file's check); with
    several files, a last line counts those that replayed and names those that did not. The
    status is the worst file's: 2 (a file that cannot be read), 1 (a record that does not
    replay) or 0."""
    paths = [Path(name) for name in args.file]
    statuses = [check_file(path) for path in paths]
    if len(paths) > 1:
        failed = [str(path) for path, status in zip(paths, statuses, strict=True) if status]
        line = f"{count(len(paths), 'file')}: {len(paths) - len(failed)} replayed"
        if failed:
            line += f", {len(failed)} did not ({', '.join(failed)})"
        print(line)
    return max(statuses)


def check_file(path: Path) -> int:
    """Replay every record of ``path``: print its summary (0) or its first problem (1; 2 if
    the file cannot be read)."""
    from tapete.replay import replay

    games = deals = finished = fair = 0
    kinds: dict[str, int] = {}
    # a record at a time (one record's memory, whatever the file's size), in one reading
    # that the progress bar follows in bytes (a pipe's size is not known, 0: no bar); the
    # bar's line ends before the summary or the error
    file = RecordFile(path)
    with Progress(file.size, "replay", in_bytes=True) as progress:
        try:
            for i, (line, rec) in enumerate(file):
                try:
                    game = replay(rec, index=i)
                except RecordError as exc:
                    if exc.game in (None, i):  # (the line of the record it is in)
                        exc = exc.located(game=i, line=line)
                    raise exc from None
                games += 1
                deals += len(rec["deals"])
                # the reader checked every deal's ``fair`` field (seed, commitment, cards)
                fair += sum(1 for d in rec["deals"] if isinstance(d, dict) and "fair" in d)
                finished += game.winner is not None
                key = f"{rec['game']}/{rec['profile']}"
                kinds[key] = kinds.get(key, 0) + 1
                progress.update(file.read_so_far(), count(games, "game"))
            if file.read_so_far() < file.size:  # (a file that grew meanwhile: the bar ends)
                progress.update(file.size, count(games, "game"))
        except UnreadableFile as exc:
            progress.close()
            return fail("replay", str(exc))
        except RecordError as exc:
            progress.close()
            return fail("replay", f"{path}: {exc}", 1)
    if games == 0:
        return fail("replay", f"{path}: the file holds no record", 1)
    summary = ", ".join(f"{k}: {n}" for k, n in sorted(kinds.items()))
    print(
        f"OK {path}: {count(games, 'game')} ({summary}), {count(deals, 'deal')}, "
        f"{finished} won; every action legal, every result reproduced"
    )
    print(fairness_line(deals, fair))
    return 0


def fairness_line(deals: int, fair: int) -> str:
    """What the replay proved of the deals' fairness (docs/records.md, "Fair deals")."""
    if fair == 0:
        return (
            "no deal carries a fair-deal commitment: the cards cannot be verified "
            "(a chosen deal number, or a program that does not commit to its deals)"
        )
    verified = (
        f"{count(fair, 'deal')} verified fair: each revealed seed matches the commitment "
        "published before its deal and deals exactly the recorded cards"
    )
    if fair == deals:
        return verified
    return f"{verified}; {count(deals - fair, 'deal')} without a commitment (not verifiable)"
