"""``tapete solve FILE``: the open-hand value of a deal in a record (the work is
:func:`tapete.solver.command.run_solve`)."""

from __future__ import annotations

import argparse
from typing import Any

from tapete.cli.common import whole_number

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "solve",
        help="open-hand value of a Mil deal in a record",
        description="The open-hand value of a Mil deal of a record: the declarer's final raw "
        "points with every card seen and best play by all, before the first lead or after "
        "some tricks as played.",
    )
    p.add_argument("file", help="a JSON Lines file of records (as simulate writes)")
    p.add_argument(
        "--game",
        dest="game_index",
        type=whole_number,
        default=0,
        help="which game of the file (from 0; default: 0)",
    )
    p.add_argument(
        "--deal", type=whole_number, default=0, help="which deal of that game (from 0; default: 0)"
    )
    p.add_argument(
        "--trick",
        type=whole_number,
        default=None,
        help="solve after this many tricks as played (default: before the first lead)",
    )
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from tapete.solver.command import run_solve

    return run_solve(args.file, args.game_index, args.deal, args.trick, args.json)
