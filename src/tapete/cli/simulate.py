"""``tapete simulate``: play many games between bots and write their records (JSON Lines)."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tapete.cli.common import (
    Progress,
    add_game_options,
    check_output,
    check_players,
    count,
    fail,
    play_game,
    positive_int,
    seed_number,
)
from tapete.games import kind

if TYPE_CHECKING:
    from tapete.bots import FaultCount

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "simulate",
        help="play many games between bots and write their records",
        description="Play many games between bots and write their tapete/1 records, one a "
        "line, to a JSON Lines file (check them with 'tapete replay').",
    )
    add_game_options(p)
    p.add_argument(
        "--games", type=positive_int, default=10, help="how many games to play (default: 10)"
    )
    p.add_argument(
        "--seed",
        type=seed_number,
        default=0,
        help="game i is dealt from seed S + i, S 0 or more (default: 0)",
    )
    p.add_argument(
        "--players",
        default=None,
        help=(
            "comma-separated bots, one per seat: random, beginner, rules, search, or "
            "module:name for a bot of your own (default: random)"
        ),
    )
    p.add_argument("--out", required=True, help="the JSON Lines file to write")
    p.add_argument(
        "--max-deals",
        type=positive_int,
        default=1000,
        help="end a game after K deals (winner null; default: 1000)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    game_kind = kind(args.game)
    if args.players is None:
        args.players = ",".join(["random"] * game_kind.seats)
    bots = [b.strip() for b in args.players.split(",")]
    out = Path(args.out)
    problem = check_players(args.game, bots) or check_output(out, "--out")
    if problem:
        return fail("simulate", problem)
    tmp = out.with_name(out.name + ".tmp")
    progress = Progress(args.games, "simulate")
    deals = finished = 0
    fault_counts: dict[str, FaultCount] = {}  # (per player over the run: one traceback each)
    t0 = time.perf_counter()
    try:
        fp = tmp.open("w", encoding="utf-8")
    except OSError as exc:
        return fail("simulate", f"cannot write {out}: {exc.strerror or exc}")
    try:
        with fp, progress:  # the bar's line ends before the summary
            for i in range(args.games):
                game = play_game(
                    args.game,
                    args.profile,
                    args.seed + i,
                    bots,
                    game_index=i,
                    max_deals=args.max_deals,
                    fault_counts=fault_counts,
                )
                rec = game.to_record()
                fp.write(json.dumps(rec, ensure_ascii=False) + "\n")
                deals += len(rec["deals"])
                finished += rec["winner"] is not None
                progress.update(i + 1, f"deals={deals}")
    except BaseException:  # (Ctrl-C, a stop): nothing half-written left behind, not even .tmp
        tmp.unlink(missing_ok=True)
        raise
    try:
        tmp.replace(out)
    except OSError as exc:
        return fail("simulate", f"cannot write {out}: {exc.strerror or exc}")
    secs = time.perf_counter() - t0
    print(
        f"simulated {count(args.games, args.game + ' game')} "
        f"({args.profile or game_kind.profiles[0]}), {count(deals, 'deal')}, "
        f"{finished} finished, {deals / max(args.games, 1):.1f} deals per game, "
        f"{secs:.1f} s -> {out}"
    )
    return 0
