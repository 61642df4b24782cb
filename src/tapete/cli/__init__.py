"""The ``tapete`` command: play, simulate, replay, solve, arena, serve.

Each sub-command is one module of this package (``add_parser(sub)`` declares its options,
``run(args) -> int`` does the work as a thin layer over the public API: engine, records, bots,
server); :mod:`tapete.cli.common` holds what they share. See docs/cli.md for examples.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any, NoReturn

__all__ = ["build_parser", "main", "play_game", "seat_rng"]


def _commands() -> tuple[ModuleType, ...]:
    """The sub-commands, in the order ``tapete --help`` lists them. Imported when ``main``
    runs, inside its Ctrl-C handling: imported with this module, a Ctrl-C in the first
    moments printed a traceback of the imports instead of "interrupted"."""
    from tapete.analysis import command as analyse
    from tapete.cli import arena, play, replay, serve, simulate, solve

    return (serve, play, simulate, replay, solve, analyse, arena)


def __getattr__(name: str) -> Any:
    """``play_game`` and ``seat_rng`` (:mod:`tapete.cli.common`), imported when first used."""
    if name in ("play_game", "seat_rng"):
        from tapete.cli import common

        return getattr(common, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _stopped(signum: int, frame: object) -> None:
    """SIGTERM (``timeout``, ``kill``) ends a command as Ctrl-C does: what it was writing is
    cleaned up (``simulate`` leaves no ``.tmp`` file)."""
    raise KeyboardInterrupt


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose error line cuts a long quoted argument (its own messages
    quoted a 5,000-character ``--profile`` whole); the sub-commands' parsers are of this
    class too (``add_subparsers`` makes them of their parent's)."""

    def error(self, message: str) -> NoReturn:
        from tapete.cli.common import cut_quotes

        super().error(cut_quotes(message))


def build_parser() -> argparse.ArgumentParser:
    return _parsers()[0]


def _parsers() -> tuple[argparse.ArgumentParser, Mapping[str, argparse.ArgumentParser]]:
    """The ``tapete`` parser and each sub-command's own (whose errors show its usage)."""
    parser = _Parser(
        prog="tapete", description="Mil (Thousand) and Mariage (66): play, simulate, replay."
    )
    from tapete import __version__, compiled_modules

    engine = "compiled engine" if compiled_modules() else "pure Python engine"
    parser.add_argument("--version", action="version", version=f"tapete {__version__} ({engine})")
    sub = parser.add_subparsers(dest="command", required=True)
    for command in _commands():
        command.add_parser(sub)
    for choice in sub._choices_actions:  # (argparse keeps each command's help here)
        own = sub.choices[choice.dest]
        if own.description is None:  # `tapete COMMAND --help` says what it does
            own.description = choice.help
    return parser, sub.choices


def main(argv: Sequence[str] | None = None) -> int:
    try:
        parser, commands = _parsers()
        # (parse_args would report arguments left over by a command as `tapete`'s own, with
        # the usage of `tapete`: they are the command's, and so is the error)
        args, extra = parser.parse_known_args(argv)
        if extra:
            commands[args.command].error(f"unrecognized arguments: {' '.join(extra)}")
        from tapete.cli.common import check_profile

        # (--profile against the game chosen, known only once the whole line is parsed)
        problem = check_profile(args.game, args.profile) if "profile" in vars(args) else None
        if problem:
            commands[args.command].error(problem)  # that command's usage, then its error
        if args.command != "serve":  # (the server stops on SIGTERM its own way)
            signal.signal(signal.SIGTERM, _stopped)
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
