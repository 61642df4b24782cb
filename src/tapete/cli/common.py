"""What several ``tapete`` commands share: argument types, checks, the progress bar, and one
bot-against-bot game.

Nothing here knows which games exist: seats, profiles and defaults come from the game
registry (:mod:`tapete.games`).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from rich.console import Console
from rich.progress import BarColumn, TaskID, TextColumn
from rich.progress import Progress as RichProgress

from tapete.game import Game
from tapete.games import kind, kinds, new_game
from tapete.records import Utf8Text, open_text, unreadable

if TYPE_CHECKING:
    from tapete.bots import FaultCount

__all__ = [
    "Progress",
    "RecordFile",
    "UnreadableFile",
    "check_output",
    "check_players",
    "check_profile",
    "count",
    "default_game",
    "fail",
    "game_names",
    "iter_numbered_record_file",
    "play_game",
    "port_number",
    "positive_int",
    "profile_help",
    "read_record_file",
    "seat_rng",
    "seed_number",
    "size_text",
]


def game_names() -> list[str]:
    """The registered games, for ``choices=``."""
    return [k.name for k in kinds()]


def default_game() -> str:
    """The game a command plays when ``--game`` is left out: the first registered one."""
    return kinds()[0].name


def profile_help() -> str:
    """``club, casa or casa-500 (Mil; default: club)``: the games with a choice of rules."""
    parts = []
    for k in kinds():
        if len(k.profiles) > 1:
            *head, last = k.profiles
            parts.append(f"{', '.join(head)} or {last} ({k.title}; default: {k.profiles[0]})")
    return "; ".join(parts)


def add_game_options(p: argparse.ArgumentParser) -> None:
    """``--game`` and ``--profile``, as the commands that play whole games take them (the
    profile is checked against the game once the line is parsed: :func:`check_profile`)."""
    p.add_argument(
        "--game",
        choices=game_names(),
        default=default_game(),
        help=f"the game (default: {default_game()})",
    )
    p.add_argument("--profile", default=None, help=profile_help())


def check_profile(game: str, profile: str | None) -> str | None:
    """Why ``--profile`` cannot go with ``game`` (None: it can, or it is left out), in
    argparse's words for a wrong choice; for a game with one rule set (whose name is
    accepted), the games ``--profile`` is for, as ``--name is for mil`` says. Checked once
    the whole line is parsed (``--game`` may come after ``--profile``) and raised through the
    sub-command's own parser, so the error shows that command's usage and names the profiles
    of the game chosen."""
    if profile is None:
        return None
    k = kind(game)
    if profile in k.profiles:
        return None
    if len(k.profiles) == 1:  # (a profile of another game, most likely)
        several = [other.name for other in kinds() if len(other.profiles) > 1]
        return f"--profile is for {' and '.join(several)} ({k.title} has one rule set)"
    choose = f"choose from {', '.join(k.profiles)}"
    return f"argument --profile: unknown {k.title} profile {profile!r} ({choose})"


def fail(command: str, message: str, status: int = 2) -> int:
    """Print ``tapete COMMAND: error: MESSAGE`` on stderr, the form argparse gives its own
    errors (a long quoted value cut: :func:`cut_quotes`), and return ``status`` (2: a usage
    error, as argparse's)."""
    print(f"tapete {command}: error: {cut_quotes(message)}", file=sys.stderr)
    return status


def quoted(text: str, limit: int = 40) -> str:
    """``text`` quoted for an error line, cut past ``limit`` characters (with its length):
    argparse's own message echoed a 5,000-character argument whole."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[: limit - 3]!r}... ({len(text):,} characters)"


def cut_quotes(message: str) -> str:
    """``message`` with each quoted value of over 60 characters cut (:func:`quoted`): an
    error line stays a line, whatever was typed."""
    # (a quote after a letter is an apostrophe: "the action's 'type'" is left as it is)
    return re.sub(r"(?<!\w)'([^'\n]{61,})'(?!\w)", lambda m: quoted(m.group(1)), message)


def _many_digits(text: str) -> str:
    """A number typed too long to show, said by its length."""
    return f"a number of {len(text.strip()):,} digits"


def _whole(text: str, expected: str) -> int:
    try:
        return int(text)
    except ValueError:
        if text.strip().lstrip("+-").isdigit():  # (Python reads at most 4,300 digits)
            raise argparse.ArgumentTypeError(
                f"expected {expected}, got {_many_digits(text)}"
            ) from None
        raise argparse.ArgumentTypeError(f"expected {expected}, got {quoted(text)}") from None


def whole_number(text: str) -> int:
    """An argparse type: any whole number (a seed, an index checked later), its error line
    bounded whatever the argument's length."""
    return _whole(text, "a whole number")


def bounded_int(low: int, high: int | None, expected: str, bounds: str) -> Callable[[str], int]:
    """An argparse type: a whole number from ``low`` to ``high`` (None: no top); the errors
    say what was expected and, past the bounds, ``bounds``."""

    def parse(text: str) -> int:
        value = _whole(text, expected)
        if value < low or (high is not None and value > high):
            shown = str(value) if len(text) <= 40 else _many_digits(text)
            raise argparse.ArgumentTypeError(f"{bounds}, got {shown}")
        return value

    return parse


#: a whole number of at least 1
positive_int = bounded_int(1, None, "a whole number", "must be at least 1")
#: the seed of a game's cards, 0 or more: Python's ``random.Random(-n)`` deals as ``n`` does,
#: so ``--seed -5`` dealt seed 5's cards (and ``simulate --seed -1`` games 0 and 2 alike)
seed_number = bounded_int(
    0, None, "a whole number", "must be 0 or more (a seed of -S deals the cards of S)"
)
#: a TCP port, 0 to 65535 (0: any free port)
port_number = bounded_int(0, 65535, "a port number", "a port is 0 to 65535")


def count(n: int, noun: str) -> str:
    """``1 game``, ``2 games``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def check_players(game: str, names: Sequence[str]) -> str | None:
    """Why a comma-separated list of bot names cannot play ``game`` (None: it can): the
    built-in levels, or ``module:name`` for a bot of your own (``make_bot``)."""
    from tapete.bots import BOT_NAMES

    need = kind(game).seats
    if len(names) != need:
        return f"--players needs {need} names for {game}, got {len(names)}"
    for b in names:
        if ":" in b:  # a bot of your own: made once here, so that a mistake stops the run now
            from tapete.bots import make_bot

            try:
                make_bot(game, b)
            except ValueError as exc:
                return str(exc)
        elif b not in BOT_NAMES:
            return f"unknown player {b!r} (expected {', '.join(BOT_NAMES)}, or module:name)"
    return None


def check_output(path: Path, flag: str) -> str | None:
    """Why ``path`` cannot be written (None: its folder exists and it is not a folder).
    ``-`` is refused: it would make a file named ``-`` where standard output was meant
    (``analyse --json -`` is the one that writes there, and does not ask this)."""
    if str(path) == "-":
        return f"{flag} -: this command writes to a file, not to standard output; name one"
    try:
        if path.is_dir():
            return f"{flag} {path} is a folder, not a file"
        folder = path.parent
        if not folder.is_dir():
            return f"{flag} {path}: the folder {folder} does not exist"
    except OSError as exc:  # (a name too long: is_dir raised it, ending in a traceback)
        return f"cannot write {path}: {exc.strerror or exc}"
    # a folder that exists may still refuse the file (read-only, /proc): found out now, not
    # after the whole run (arena's and analyse's --json then ended in a traceback); opened
    # to append, so that nothing already there is lost, and a file made here is removed
    existed = path.exists()
    try:
        with path.open("a", encoding="utf-8"):
            pass
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror or exc}"
    if not existed:
        path.unlink(missing_ok=True)
    return None


class UnreadableFile(ValueError):
    """A file named on the command line that cannot be read; the message names the path and
    what is wrong with it, in one sentence (a usage error: exit status 2)."""


def read_record_file(path: str | Path) -> list[dict[str, Any]]:
    """The records of the file ``path``, all read: :func:`iter_numbered_record_file`
    without the line numbers (``solve`` and ``analyse``)."""
    return [record for _, record in iter_numbered_record_file(path)]


def iter_numbered_record_file(path: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """The records of the file ``path`` (JSON Lines or one pretty-printed record, UTF-8; a
    byte-order mark is tolerated), each with the line it starts on, for every command that
    reads one (``replay``, ``solve``, ``analyse``): :class:`RecordFile` without the count
    of bytes read."""
    return iter(RecordFile(path))


class RecordFile:
    """A record file read lazily, a line at a time, never more of a line than a record may
    hold (``records.iter_load_numbered``): a file of any size costs the memory of one
    record, and ``/dev/zero`` or a file of one endless line is refused as soon as it passes
    a record's length (it was read whole first, until the memory ran out). Iterating gives
    each record with the line it starts on; :attr:`size` and :meth:`read_so_far` say how
    far the reading has come, for a progress bar without a first reading to count the
    records.

    The iteration raises :class:`UnreadableFile` when the file cannot be read, also part
    way (Python's own message, ``[Errno 21] Is a directory: '/tmp/x'``, neither said what
    was expected nor read as a sentence), and :class:`~tapete.errors.RecordError` at the
    first record that is not valid or the first byte that is not UTF-8 (``line 6: not
    UTF-8 text at byte 123 ...``: ``records.Utf8Text``)."""

    def __init__(self, path: str | Path) -> None:
        self.path = path
        try:  # (0 for what is no regular file: a pipe, /dev/zero, a folder)
            self.size = Path(path).stat().st_size if Path(path).is_file() else 0
        except OSError:
            self.size = 0  # (the reading says why)
        self._text: _Checked | None = None

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        from tapete import records

        with _open_record_file(self.path) as fp:
            self._text = _Checked(fp, self.path)
            yield from records.iter_load_numbered(Utf8Text(self._text))

    def read_so_far(self) -> int:
        """The bytes read from the file so far: :attr:`size` once it is read to its end.
        The text is decoded a block at a time (8 KiB), so the count runs up to a block
        ahead of the records given. (What is no regular file, a pipe, counts the characters
        read instead.)"""
        return 0 if self._text is None else self._text.bytes


def _open_record_file(path: str | Path) -> TextIO:
    try:
        return open_text(path)
    except OSError as exc:
        raise UnreadableFile(unreadable(path, exc)) from None


class _Checked:
    """A record file's text as ``records.iter_load_numbered`` reads it, its reading errors
    as :class:`UnreadableFile` (which the reader lets through), not as a record's error."""

    def __init__(self, fp: TextIO, path: str | Path) -> None:
        self._fp = fp
        self._path = path
        #: bytes read so far (characters where the file cannot tell its place: a pipe)
        self.bytes = 0

    def readline(self, size: int = -1, /) -> str:
        return self._guarded(self._fp.readline, size)

    def read(self, size: int = -1, /) -> str:
        return self._guarded(self._fp.read, size)

    def _guarded(self, read: Callable[[int], str], size: int) -> str:
        try:
            text = read(size)
        except OSError as exc:
            raise UnreadableFile(unreadable(self._path, exc)) from None
        try:
            self.bytes = self._fp.buffer.tell()
        except (AttributeError, OSError):
            self.bytes += len(text)
        return text


def size_text(size: int) -> str:
    """A count of bytes as people read it: ``512 B``, ``12.3 kB``, ``3.2 MB``, ``1.1 GB``."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"


def seat_rng(seed: int | None, game_index: int, seat: int) -> random.Random:
    """The private random stream of one bot seat (independent of the dealing stream)."""
    base = 0 if seed is None else seed
    return random.Random(base * 1_000_003 + game_index * 101 + seat + 7)


#: without a terminal, a progress line at least this often (seconds) between the tenths: a
#: slow run (search players in a pipe) said nothing until its first tenth
PIPE_EVERY_S = 30.0


class Progress:
    """Progress on stderr through ``rich``: a bar while stderr is a terminal, else one plain
    line at every tenth of the way (and at the end), and every :data:`PIPE_EVERY_S` seconds
    between them.

    ``update(done)`` may pass ``total`` (a command that plays whole games to reach at least
    ``total`` deals): the bar is then full and the count says ``78 (at least 60)``. A
    ``total`` of 0 (nothing known to follow: a pipe's size) shows nothing at all. Call
    :meth:`close` (or use the object as a context manager) before printing the summary: it
    ends the bar's line, so the summary never lands on it.
    """

    def __init__(
        self, total: int, label: str, *, stream: TextIO | None = None, in_bytes: bool = False
    ) -> None:
        #: something to follow (a total of 0 shows no bar and no line)
        self.shown = total > 0
        self.total = max(total, 1)
        self.label = label
        self.in_bytes = in_bytes
        self.stream = stream if stream is not None else sys.stderr
        self.start = time.perf_counter()
        self.tty = self.stream.isatty()
        self.last_tenth = -1
        self.last_line = self.start
        self._bar: RichProgress | None = None
        self._task: TaskID | None = None
        if self.tty and self.shown:
            self._bar = RichProgress(
                # markup=False: a label such as "[arena] ..." is text, not a style tag
                TextColumn("{task.description}", markup=False),
                BarColumn(),
                TextColumn("{task.fields[count]}", markup=False),
                TextColumn("{task.fields[rate]}", markup=False),
                TextColumn("{task.fields[extra]}", markup=False),
                console=Console(file=self.stream),
                transient=False,
            )
            self._bar.start()
            self._task = self._bar.add_task(label, total=self.total, count="", rate="", extra="")

    def _count(self, done: int) -> str:
        if self.in_bytes:  # (a pipe's size is not known)
            return (
                size_text(done)
                if done > self.total
                else f"{size_text(done)}/{size_text(self.total)}"
            )
        if done > self.total:
            return f"{done} (at least {self.total})"
        return f"{done}/{self.total}"

    def _rate(self, done: int) -> str:
        rate = done / max(time.perf_counter() - self.start, 1e-9)
        return f"{size_text(round(rate))}/s" if self.in_bytes else f"{rate:.1f}/s"

    def update(self, done: int, extra: str = "") -> None:
        if not self.shown:
            return
        frac = min(done / self.total, 1.0)
        if self._bar is not None and self._task is not None:
            self._bar.update(
                self._task,
                completed=min(done, self.total),
                count=self._count(done),
                rate=self._rate(done),
                extra=extra,
            )
            if done >= self.total:
                self.close()
            return
        if self._bar is None and self.tty:
            return  # closed
        tenth = int(frac * 10)
        now = time.perf_counter()
        if tenth == self.last_tenth and done < self.total and now - self.last_line < PIPE_EVERY_S:
            return
        self.last_tenth, self.last_line = tenth, now
        bar = "#" * int(frac * 30)
        line = f"{self.label} [{bar:<30}] {self._count(done)} {self._rate(done)} {extra}".rstrip()
        self.stream.write(line + "\n")
        self.stream.flush()

    def close(self) -> None:
        """End the bar's line (idempotent; nothing to do without a terminal)."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def play_game(
    game_name: str,
    profile: str | None,
    seed: int,
    bots: Sequence[str],
    *,
    game_index: int = 0,
    max_deals: int | None = None,
    players: list[str] | None = None,
    fault_counts: dict[str, FaultCount] | None = None,
) -> Game:
    """Play one whole game between bots; the cards depend only on ``seed``.
    ``fault_counts``: each bot name's :class:`~tapete.bots.FaultCount` over a run of
    several games (filled in here), so that a failing bot is logged in full once per run."""
    from tapete.bots import make_bots

    game = new_game(game_name, profile, seed=seed, players=players, max_deals=max_deals)
    seat_bots = make_bots(game_name, bots, profile=game.profile_name, fault_counts=fault_counts)
    rngs = [seat_rng(seed, game_index, s) for s in range(len(bots))]
    while not game.over:
        seat = game.turn
        assert seat is not None
        action = seat_bots[seat].act(game.view(seat), rngs[seat])
        game.apply(action)
    return game
