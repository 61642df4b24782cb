"""The ``tapete`` command: play, simulate, replay, solve, arena, serve.

Each sub-command is a thin layer over the public API (engine, records, bots, server); see
docs/cli.md for examples.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tapete.errors import RecordError
from tapete.games import PROFILES, new_game

__all__ = ["main", "play_game", "seat_rng"]


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def port_number(text: str) -> int:
    """An argparse type: a TCP port, 0 to 65535 (0: any free port)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, got {value}")
    return value


def _count(n: int, noun: str) -> str:
    """``1 game``, ``2 games``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _check_players(game: str, names: Sequence[str]) -> str | None:
    """Why a comma-separated list of bot names cannot play ``game`` (None: it can)."""
    from tapete.bots import BOT_NAMES

    need = 3 if game == "mil" else 2
    if len(names) != need:
        return f"--players needs {need} names for {game}, got {len(names)}"
    for b in names:
        if b not in BOT_NAMES:
            return f"unknown player {b!r} (expected {', '.join(BOT_NAMES)})"
    return None


def _check_output(path: Path, flag: str) -> str | None:
    """Why ``path`` cannot be written (None: its folder exists and it is not a folder)."""
    if path.is_dir():
        return f"{flag} {path} is a folder, not a file"
    folder = path.parent
    if not folder.is_dir():
        return f"{flag} {path}: the folder {folder} does not exist"
    return None


def seat_rng(seed: int | None, game_index: int, seat: int) -> random.Random:
    """The private random stream of one bot seat (independent of the dealing stream)."""
    base = 0 if seed is None else seed
    return random.Random(base * 1_000_003 + game_index * 101 + seat + 7)


class Progress:
    """A one-line progress bar on stderr (quiet when stderr is not a terminal, except every 10%)."""

    def __init__(self, total: int, label: str) -> None:
        self.total = max(total, 1)
        self.label = label
        self.start = time.perf_counter()
        self.tty = sys.stderr.isatty()
        self.last_tenth = -1

    def update(self, done: int, extra: str = "") -> None:
        frac = done / self.total
        tenth = int(frac * 10)
        if not self.tty and tenth == self.last_tenth and done != self.total:
            return
        self.last_tenth = tenth
        bar = "#" * int(frac * 30)
        rate = done / max(time.perf_counter() - self.start, 1e-9)
        line = f"{self.label} [{bar:<30}] {done}/{self.total} {rate:.1f}/s {extra}"
        if self.tty:
            sys.stderr.write("\r" + line)
            if done == self.total:
                sys.stderr.write("\n")
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()


def play_game(
    game_name: str,
    profile: str | None,
    seed: int,
    bots: Sequence[str],
    *,
    game_index: int = 0,
    max_deals: int | None = None,
    players: list[str] | None = None,
) -> Any:
    """Play one whole game between bots; the cards depend only on ``seed``."""
    from tapete.bots import make_bot

    game = new_game(game_name, profile, seed=seed, players=players, max_deals=max_deals)
    seat_bots = [make_bot(game_name, b, profile=game.profile_name) for b in bots]
    rngs = [seat_rng(seed, game_index, s) for s in range(len(bots))]
    while not game.over:
        seat = game.turn
        assert seat is not None
        action = seat_bots[seat].act(game.view(seat), rngs[seat])
        game.apply(action)
    return game


# ---------------------------------------------------------------------- simulate
def cmd_simulate(args: argparse.Namespace) -> int:
    bots = [b.strip() for b in args.players.split(",")]
    out = Path(args.out)
    problem = _check_players(args.game, bots) or _check_output(out, "--out")
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    tmp = out.with_name(out.name + ".tmp")
    progress = Progress(args.games, "simulate")
    deals = finished = 0
    t0 = time.perf_counter()
    try:
        fp = tmp.open("w", encoding="utf-8")
    except OSError as exc:
        print(f"error: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    with fp:
        for i in range(args.games):
            game = play_game(
                args.game,
                args.profile,
                args.seed + i,
                bots,
                game_index=i,
                max_deals=args.max_deals,
            )
            rec = game.to_record()
            fp.write(json.dumps(rec, ensure_ascii=False) + "\n")
            deals += len(rec["deals"])
            finished += rec["winner"] is not None
            progress.update(i + 1, f"deals={deals}")
    try:
        tmp.replace(out)
    except OSError as exc:
        print(f"error: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    secs = time.perf_counter() - t0
    print(
        f"simulated {_count(args.games, args.game + ' game')} "
        f"({args.profile or PROFILES[args.game][0]}), {_count(deals, 'deal')}, "
        f"{finished} finished, {deals / max(args.games, 1):.1f} deals per game, "
        f"{secs:.1f} s -> {out}"
    )
    return 0


# ---------------------------------------------------------------------- replay
def cmd_replay(args: argparse.Namespace) -> int:
    from tapete import records

    path = Path(args.file)
    try:
        text = path.read_text(encoding="utf-8-sig")  # a byte-order mark is tolerated
    except (OSError, UnicodeDecodeError) as exc:
        print(f"error: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if len(lines) > 1 and lines[0].strip() == "{":
        # one pretty-printed record (as records.loads accepts it), not JSON Lines
        try:
            single = json.loads(text)
        except json.JSONDecodeError:
            single = None
        if isinstance(single, dict):
            lines = [json.dumps(single, ensure_ascii=False)]
    if not lines:
        print(f"error: {path}: the file holds no record", file=sys.stderr)
        return 1
    games = deals = finished = 0
    kinds: dict[str, int] = {}
    progress = Progress(len(lines), "replay")
    for i, line in enumerate(lines):
        try:
            (rec,) = records.loads(line)
            game = records.replay(rec, index=i)
        except RecordError as exc:
            if exc.game is None:
                exc = exc.located(game=i)
            print(f"error: {path}: {exc}", file=sys.stderr)
            return 1
        games += 1
        deals += len(rec["deals"])
        finished += game.winner is not None
        key = f"{rec['game']}/{rec['profile']}"
        kinds[key] = kinds.get(key, 0) + 1
        progress.update(i + 1)
    summary = ", ".join(f"{k}: {n}" for k, n in sorted(kinds.items()))
    print(
        f"OK {path}: {_count(games, 'game')} ({summary}), {_count(deals, 'deal')}, {finished} won; "
        "every action legal, every result reproduced"
    )
    return 0


# ---------------------------------------------------------------------- play
def cmd_play(args: argparse.Namespace) -> int:
    from tapete.bots import make_bot

    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    if args.game == "mariage" and args.profile is not None:
        print("error: --profile is for mil (Mariage has one rule set)", file=sys.stderr)
        return 2
    if args.game == "mil" and args.hide_points:
        print("error: --hide-points is for mariage", file=sys.stderr)
        return 2
    if args.game == "mariage":
        from tapete.mariage.terminal import play_terminal

        play_terminal(
            seat=0,
            bot_factory=lambda: make_bot("mariage", args.level),
            seed=seed,
            show_points=not args.hide_points,
        )
        return 0
    from tapete.terminal_mil import play_mil_terminal

    return play_mil_terminal(args.profile or "club", args.level, seed, name=args.name)


# ---------------------------------------------------------------------- others
def cmd_solve(args: argparse.Namespace) -> int:
    from tapete.solver.command import run_solve

    return run_solve(args.file, args.game_index, args.deal, args.trick, args.json)


def cmd_arena(args: argparse.Namespace) -> int:
    from tapete.arena import run_arena

    players = [p.strip() for p in args.players.split(",")]
    problem = _check_players(args.game, players)
    if problem is None and args.json is not None:
        problem = _check_output(Path(args.json), "--json")
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
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


def _check_db(url: str) -> str | None:
    """Why ``--db URL`` cannot work (None: it may): it is not a database URL."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        make_url(url)
    except ArgumentError:
        return f"--db {url!r} is not a database URL (for example sqlite:////home/ana/tapete.db)"
    return None


def _check_listen(host: str, port: int) -> str | None:
    """Why the server could not listen on ``host:port`` (None: it can, as far as we know now);
    checked before the server prints that it is running."""
    import socket

    if port == 0:
        return None
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except OSError:
        return f"--host {host!r} is not an address of this machine"
    with socket.socket(family, kind, proto) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(addr)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            return f"cannot listen on {host} port {port}: {reason} (try another --port)"
    return None


def cmd_serve(args: argparse.Namespace) -> int:
    from tapete.server.app import run_serve

    problem = None if args.db is None else _check_db(args.db)
    problem = problem or _check_listen(args.host, args.port)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    return run_serve(
        host=args.host,
        port=args.port,
        db=args.db,
        delay_ms=args.delay_ms,
        trusted_hosts=_names(args.trusted_hosts),
        allowed_origins=_names(args.allowed_origins) or (),
    )


def _names(text: str | None) -> tuple[str, ...] | None:
    """A comma-separated list option (None when not given)."""
    if text is None:
        return None
    return tuple(n.strip() for n in text.split(",") if n.strip())


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tapete", description="Mil (Thousand) and Mariage (66): play, simulate, replay."
    )
    from tapete import __version__, compiled_modules

    engine = "compiled engine" if compiled_modules() else "pure Python engine"
    parser.add_argument("--version", action="version", version=f"tapete {__version__} ({engine})")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("serve", help="start the web server (play in the browser)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=port_number, default=8000)
    p.add_argument(
        "--db", default=None, help="SQLAlchemy URL (default: SQLite in your data folder)"
    )
    p.add_argument("--delay-ms", type=int, default=700, help="pause before each computer move")
    p.add_argument(
        "--trusted-hosts",
        default=None,
        metavar="NAMES",
        help="comma-separated host names the server answers to (default: the loopback "
        "names when --host is loopback, else any; '*' for any)",
    )
    p.add_argument(
        "--allowed-origins",
        default=None,
        metavar="ORIGINS",
        help="comma-separated origins (https://club.example) of other sites whose pages "
        "may open the table WebSocket (the server's own always may)",
    )
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("play", help="play in the terminal against computer players")
    p.add_argument("game", choices=list(PROFILES))
    p.add_argument(
        "--profile", choices=PROFILES["mil"], default=None, help="Mil rule set (default: club)"
    )
    p.add_argument(
        "--level",
        choices=["random", "rules", "search"],
        default="rules",
        help="the computer players (default: rules)",
    )
    p.add_argument("--seed", type=int, default=None, help="deal the same cards again")
    p.add_argument("--name", default="You", help="Mil: your name at the table")
    p.add_argument("--hide-points", action="store_true", help="Mariage: do not show the count")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("simulate", help="play many games between bots and write their records")
    p.add_argument("--game", choices=list(PROFILES), default="mil")
    p.add_argument("--profile", default=None, help="Mil: club, casa or casa-500 (default: club)")
    p.add_argument("--games", type=positive_int, default=10)
    p.add_argument("--seed", type=int, default=0, help="game i is dealt from seed S + i")
    p.add_argument(
        "--players",
        default=None,
        help="comma-separated bot names, one per seat: random, rules, search (default: random)",
    )
    p.add_argument("--out", required=True, help="the JSON Lines file to write")
    p.add_argument(
        "--max-deals",
        type=positive_int,
        default=1000,
        help="end a game after K deals (winner null)",
    )
    p.set_defaults(func=cmd_simulate)

    p = sub.add_parser("replay", help="check a file of tapete/1 records")
    p.add_argument("file")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("solve", help="open-hand value of a Mil deal in a record")
    p.add_argument("file")
    p.add_argument(
        "--game", dest="game_index", type=int, default=0, help="which game of the file (from 0)"
    )
    p.add_argument("--deal", type=int, default=0, help="which deal of that game (from 0)")
    p.add_argument(
        "--trick",
        type=int,
        default=None,
        help="solve after this many tricks as played (default: before the first lead)",
    )
    p.add_argument("--json", action="store_true", help="print the answer as JSON")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("arena", help="duplicate matches between bots")
    p.add_argument("--game", choices=list(PROFILES), default="mil")
    p.add_argument("--profile", default=None, help="Mil: club, casa or casa-500 (default: club)")
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
    p.set_defaults(func=cmd_arena)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if (
        getattr(args, "profile", None) is not None
        and args.command in ("simulate", "arena")
        and args.profile not in PROFILES[args.game]
    ):
        parser.error(
            f"unknown profile {args.profile!r} for {args.game} "
            f"(expected one of: {', '.join(PROFILES[args.game])})"
        )
    if args.command == "simulate" and args.players is None:
        args.players = ",".join(["random"] * (3 if args.game == "mil" else 2))
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


if __name__ == "__main__":
    raise SystemExit(main())
