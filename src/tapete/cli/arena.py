"""``tapete arena``: duplicate matches between bots (the work is :func:`tapete.arena.run_arena`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from tapete.cli.common import (
    add_game_options,
    check_output,
    check_players,
    fail,
    positive_int,
    seed_number,
)

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "arena",
        help="duplicate matches between bots",
        description="Duplicate matches between bots: whole games until at least --deals "
        "deals are played, then a table per bot with the points per deal and the share of "
        "game points and matches, with their intervals (see docs/bots.md).",
    )
    add_game_options(p)
    p.add_argument(
        "--players",
        required=True,
        help="comma-separated bots, one per seat: random, beginner, rules, search, or "
        "module:name for a bot of your own (docs/bots.md)",
    )
    p.add_argument(
        "--deals",
        type=positive_int,
        default=100,
        help="at least this many deals (whole games; default: 100)",
    )
    p.add_argument(
        "--seed",
        type=seed_number,
        default=0,
        help="the seed of the deals and of the bots' choices: the same seed, the same run "
        "(default: 0)",
    )
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
