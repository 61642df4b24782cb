"""The ``tapete`` command: play, simulate, replay, solve, arena, serve.

Each sub-command is one module of this package (``add_parser(sub)`` declares its options,
``run(args) -> int`` does the work as a thin layer over the public API: engine, records, bots,
server); :mod:`tapete.cli.common` holds what they share. See docs/cli.md for examples.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from tapete.analysis import command as analyse
from tapete.cli import arena, play, replay, serve, simulate, solve
from tapete.cli.common import check_profile, play_game, seat_rng

__all__ = ["build_parser", "main", "play_game", "seat_rng"]

#: the sub-commands, in the order ``tapete --help`` lists them
COMMANDS = (serve, play, simulate, replay, solve, analyse, arena)


def build_parser() -> argparse.ArgumentParser:
    return _parsers()[0]


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The ``tapete`` parser and each sub-command's own (whose errors show its usage)."""
    parser = argparse.ArgumentParser(
        prog="tapete", description="Mil (Thousand) and Mariage (66): play, simulate, replay."
    )
    from tapete import __version__, compiled_modules

    engine = "compiled engine" if compiled_modules() else "pure Python engine"
    parser.add_argument("--version", action="version", version=f"tapete {__version__} ({engine})")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser, sub.choices


def main(argv: Sequence[str] | None = None) -> int:
    parser, commands = _parsers()
    args = parser.parse_args(argv)
    # (--profile against the game chosen, which is known only once the whole line is parsed)
    problem = check_profile(args.game, args.profile) if "profile" in vars(args) else None
    if problem:
        commands[args.command].error(problem)  # that command's usage, then its error
    try:
        code: int = args.func(args)
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # whoever reads our output went away (``tapete replay f | head``): stop quietly, and
        # keep Python from complaining again when it flushes stdout at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return code
