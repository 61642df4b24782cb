"""``tapete serve``: the web server (the work is :func:`tapete.server.app.run_serve`)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from tapete.cli.common import port_number

__all__ = ["add_parser", "check_db", "check_listen", "check_proxies", "run"]


def add_parser(sub: Any) -> None:
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


def check_listen(host: str, port: int) -> str | None:
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


def run(args: argparse.Namespace) -> int:
    from tapete.server.app import run_serve

    problem = None if args.db is None else check_db(args.db)
    problem = problem or check_proxies(args.trusted_proxies)
    problem = problem or check_listen(args.host, args.port)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    from tapete.server.db import DatabaseError

    try:
        return run_serve(
            host=args.host,
            port=args.port,
            db=args.db,
            delay_ms=args.delay_ms,
            trusted_hosts=_names(args.trusted_hosts),
            allowed_origins=_names(args.allowed_origins) or (),
            secure_cookies=args.secure_cookies,
            trusted_proxies=_names(args.trusted_proxies) or (),
        )
    except DatabaseError as exc:  # unreachable, or a driver missing: what and where
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _names(text: str | None) -> tuple[str, ...] | None:
    """A comma-separated list option (None when not given)."""
    if text is None:
        return None
    return tuple(n.strip() for n in text.split(",") if n.strip())
