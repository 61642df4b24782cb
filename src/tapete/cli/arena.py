"""``tapete arena``: duplicate matches between bots (the work is :func:`tapete.arena.run_arena`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tapete.cli.common import (
    check_output,
    check_players,
    default_game,
    fail,
    game_names,
    positive_int,
    profile_help,
)

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser("arena", help="duplicate matches between bots")
    p.add_argument("--game", choices=game_names(), default=default_game())
    # (checked against the game by tapete.cli.main: check_profile)
    p.add_argument("--profile", default=None, help=profile_help())
    p.add_argument("--players", required=True, help="comma-separated bot names, one per seat")
    p.add_argument(
        "--deals", type=positive_int, default=100, help="at least this many deals (whole games)"
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--duplicate", action="store_true", help="play each game in every seat rotation")
    p.add_argument(
        "--deals-per-game",
        type=positive_int,
        default=None,
        help="stop each game after this many deals (1 with --duplicate: paired single deals)",
    )
    p.add_argument("--json", default=None, help="also write the figures to this JSON file")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tapete.arena import run_arena

    players = [p.strip() for p in args.players.split(",")]
    problem = check_players(args.game, players)
    if problem is None and args.json is not None:
        problem = check_output(Path(args.json), "--json")
    if problem:
        return fail("arena", problem)
    return run_arena(
        args.game,
        args.profile,
        players,
        args.deals,
        args.seed,
        args.duplicate,
        args.json,
        deals_per_game=args.deals_per_game,
    )
