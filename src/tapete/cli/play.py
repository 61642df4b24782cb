"""``tapete play GAME``: one person at seat 0 against computer players, in the terminal.

The game's terminal front-end is the module its registry entry names (``kind.terminal``); it
provides ``play_terminal(profile, level, seed, *, name, show_points, input_fn, output_fn)``
and ``OPTIONS``, the optional arguments it honours.
"""

from __future__ import annotations

import argparse
import importlib
import random
from types import ModuleType
from typing import Any

from tapete.cli.common import fail, game_names, profile_help, seed_number
from tapete.games import kind, kinds
from tapete.names import MAX_NAME_CHARS, player_name

__all__ = ["add_parser", "run", "terminal_of"]


def add_parser(sub: Any) -> None:
    from tapete.bots import BOT_NAMES

    p = sub.add_parser(
        "play",
        help="play in the terminal against computer players",
        description="Play a game in the terminal: you at seat 0 against computer players. "
        "Type 'help' at the prompt for the commands, 'quit' (or Ctrl-D) to leave. Nothing is "
        "recorded (simulate writes records).",
    )
    p.add_argument("game", choices=game_names(), help="the game to play")
    # (checked against the game by tapete.cli.main: check_profile)
    p.add_argument("--profile", default=None, help=profile_help())
    p.add_argument(
        "--level",
        choices=list(BOT_NAMES),
        default="rules",
        help="the computer players (default: rules); the web page calls rules 'Club player' "
        "and search 'Strong'",
    )
    p.add_argument("--seed", type=seed_number, default=None, help="deal the same cards again")
    p.add_argument(
        "--name", default=None, help="your name at the table (mil: the table names its seats)"
    )
    p.add_argument(
        "--hide-points",
        action="store_true",
        help="do not show the card points (where counting them is part of the game)",
    )
    p.set_defaults(func=run)


def terminal_of(game: str) -> ModuleType:
    """The terminal front-end module of ``game``."""
    return importlib.import_module(kind(game).terminal)


def run(args: argparse.Namespace) -> int:
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    game = kind(args.game)
    terminal = terminal_of(game.name)
    if args.hide_points and "show_points" not in terminal.OPTIONS:
        which = [k.name for k in kinds() if "show_points" in terminal_of(k.name).OPTIONS]
        return fail("play", f"--hide-points is for {' and '.join(which)}")
    if args.name is not None and "name" not in terminal.OPTIONS:
        which = [k.name for k in kinds() if "name" in terminal_of(k.name).OPTIONS]
        return fail("play", f"--name is for {' and '.join(which)}")
    name = "You" if args.name is None else player_name(args.name)
    if name is None:
        return fail(
            "play",
            f"--name must be 1 to {MAX_NAME_CHARS} printable characters, got {args.name!r}",
        )
    code: int = terminal.play_terminal(
        args.profile or game.profiles[0],
        args.level,
        seed,
        name=name,
        show_points=not args.hide_points,
    )
    return code
