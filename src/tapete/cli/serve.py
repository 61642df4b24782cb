"""``tapete serve``: the web server (the work is :func:`tapete.server.app.run_serve`)."""

from __future__ import annotations

import argparse
import io
import re
import socket
import sys
from typing import TYPE_CHECKING, Any

from tapete.cli.common import bounded_int, fail, port_number

__all__ = ["add_parser", "check_clock", "check_db", "check_listen", "check_proxies", "run"]

if TYPE_CHECKING:
    from tapete.server.clock import ClockSettings


#: the computer's pause, 0 to 60,000 ms (a negative one was taken)
delay_ms = bounded_int(0, 60_000, "a whole number of ms", "must be 0 to 60000 ms")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "serve",
        help="start the web server (play in the browser)",
        description="Start the web server: play in the browser, at tables of people and "
        "computer players. Prints the address to open (see docs/server.md).",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default: 127.0.0.1, this machine only; 0.0.0.0 for "
        "the network)",
    )
    p.add_argument(
        "--port",
        type=port_number,
        default=8000,
        help="the port to listen on, 0 to 65535 (default: 8000; 0: a free one, printed)",
    )
    p.add_argument(
        "--db", default=None, help="SQLAlchemy URL (default: SQLite in your data folder)"
    )
    p.add_argument(
        "--delay-ms",
        type=delay_ms,
        default=700,
        help="pause before each computer move (default: 700)",
    )
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
    p.add_argument(
        "--secure-cookies",
        action="store_true",
        help="mark the session cookie Secure even when requests arrive over plain http "
        "(behind an https proxy)",
    )
    p.add_argument(
        "--trusted-proxies",
        default=None,
        metavar="ADDRESSES",
        help="comma-separated addresses or networks of reverse proxies whose "
        "X-Forwarded-For names the client (default: none; the per-address limits then "
        "count the proxy's address)",
    )
    p.add_argument(
        "--clock",
        default=None,
        metavar="MOVE[+BANK]",
        help="the clock of the tables created without one: seconds per move and a time "
        "bank in seconds, e.g. 30+120 (default: none, moves are not timed)",
    )
    p.add_argument(
        "--grace-seconds",
        default=None,
        metavar="S",
        help="seconds a person's seat may be without a connection before a computer "
        "plays it, at the tables created without a clock of their own (default: 30)",
    )
    p.add_argument(
        "--abandon-seconds",
        default=None,
        metavar="S",
        help="seconds after a takeover for the person to come back before the seat is "
        "abandoned, at those tables (default: 300)",
    )
    p.set_defaults(func=run)


def check_db(url: str) -> str | None:
    """Why ``--db URL`` cannot work (None: it may, as far as the URL says): it is not a
    database URL, or not one of a database Tapete runs on."""
    from tapete.server.db import DatabaseError, database_url

    try:
        database_url(url)
    except DatabaseError as exc:
        return f"--db {exc}"
    return None


def check_proxies(text: str | None) -> str | None:
    """Why ``--trusted-proxies`` cannot work (None: it may): an entry is no address."""
    from tapete.server.security import TrustedProxies

    try:
        TrustedProxies(_names(text) or ())
    except ValueError as exc:
        return f"--trusted-proxies: {exc}"
    return None


def check_hosts_and_origins(hosts: str | None, origins: str | None) -> str | None:
    """Why ``--trusted-hosts`` or ``--allowed-origins`` cannot work (None: they may): an
    entry that no request could ever match, which would refuse every request quietly."""
    from tapete.server.security import host_and_origin_problems

    for flag, text in (("--trusted-hosts", hosts), ("--allowed-origins", origins)):
        if text is not None and not _names(text):
            return f"{flag}: no name given (use '*' for any)"
    found = host_and_origin_problems(_names(hosts), _names(origins) or ())
    if found:
        which, why = found[0]
        return f"--{which.replace('_', '-')}: {why}"
    return None


def check_clock(
    clock: str | None, grace: str | None = None, abandon: str | None = None
) -> tuple[ClockSettings | None, str | None]:
    """The default clock that ``--clock MOVE[+BANK]``, ``--grace-seconds`` and
    ``--abandon-seconds`` give (None when none is given), or why they cannot work: a sentence
    naming the option and its bounds."""
    from tapete.server.clock import BOUNDS, ClockSettings

    if clock is None and grace is None and abandon is None:
        return None, None
    values: dict[str, float | None] = {}
    given = [("--grace-seconds", "grace_s", grace), ("--abandon-seconds", "abandon_s", abandon)]
    if clock is not None:
        text = clock.strip().casefold()
        if text in ("none", "off"):
            values["move_s"] = None
        else:
            move, plus, bank = text.partition("+")
            if not _number(move) or (plus and not _number(bank)):
                return None, (
                    f"--clock must be MOVE or MOVE+BANK in seconds (for example 30+120: 30 s "
                    f"a move and a 2 min bank) or 'none', got {clock!r}"
                )
            given += [("--clock's time per move", "move_s", move)]
            given += [("--clock's time bank", "bank_s", bank or "0")]
    for option, name, raw in given:
        if raw is None:
            continue
        low, high = BOUNDS[name]
        value = float(raw) if _number(raw) else None
        if value is None or not low <= value <= high:
            return None, (
                f"{option} must be a number of seconds from {low:g} to {high:g}, got {raw!r}"
            )
        values[name] = int(value) if value.is_integer() else value
    return ClockSettings.from_json(values), None


def _number(text: str) -> bool:
    """Whether ``text`` is a decimal number of seconds (``30``, ``2.5``)."""
    return re.fullmatch(r"\s*[0-9]{1,9}(\.[0-9]{1,3})?\s*", text) is not None


def check_listen(host: str, port: int) -> socket.socket | str:
    """The socket the server will listen on, bound to ``host:port`` now (before the server
    prints that it is running), or why it cannot be (a sentence). ``--port 0`` asks the system for a
    free port: the banner names the one this socket got, and the server serves on this
    very socket, so no other program can take the port in between."""
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except OSError:
        return f"--host {host!r} is not an address of this machine"
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(addr)
    except OSError as exc:
        sock.close()
        reason = exc.strerror or str(exc)
        return f"cannot listen on {host} port {port}: {reason} (try another --port)"
    return sock


def run(args: argparse.Namespace) -> int:
    from tapete.server.app import run_serve

    problem = None if args.db is None else check_db(args.db)
    clock, clock_problem = check_clock(args.clock, args.grace_seconds, args.abandon_seconds)
    problem = problem or clock_problem or check_proxies(args.trusted_proxies)
    problem = problem or check_hosts_and_origins(args.trusted_hosts, args.allowed_origins)
    if problem:
        return fail("serve", problem)
    sock = check_listen(args.host, args.port)
    if isinstance(sock, str):
        return fail("serve", sock)
    from tapete.server.db import DatabaseError

    if isinstance(sys.stdout, io.TextIOWrapper):
        # the banner reaches a pipe at once (a service's log, a script that reads the port
        # of --port 0), not when the buffer fills or the server stops
        sys.stdout.reconfigure(line_buffering=True)

    try:
        return run_serve(
            host=args.host,
            port=sock.getsockname()[1],
            sock=sock,
            db=args.db,
            delay_ms=args.delay_ms,
            trusted_hosts=_names(args.trusted_hosts),
            allowed_origins=_names(args.allowed_origins) or (),
            secure_cookies=args.secure_cookies,
            trusted_proxies=_names(args.trusted_proxies) or (),
            clock=clock,
        )
    except DatabaseError as exc:  # unreachable, or a driver missing: what and where
        return fail("serve", str(exc))
    finally:
        sock.close()


def _names(text: str | None) -> tuple[str, ...] | None:
    """A comma-separated list option (None when not given)."""
    if text is None:
        return None
    return tuple(n.strip() for n in text.split(",") if n.strip())
