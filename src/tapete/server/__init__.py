"""The web server: tables, persistence and the browser protocol (docs/dev/protocol.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

__all__ = ["create_app", "run_serve"]

if TYPE_CHECKING:
    from starlette.applications import Starlette


def create_app(db_url: str | None = None, delay_ms: int = 700, **options: object) -> Starlette:
    """See :func:`tapete.server.app.create_app`."""
    from tapete.server.app import create_app as _create_app

    return _create_app(db_url, delay_ms, **options)  # type: ignore[arg-type]


def run_serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str | None = None,
    delay_ms: int = 700,
    **options: object,
) -> int:
    """``tapete serve``: print the address and the database path, then run uvicorn
    (options: see :func:`tapete.server.app.run_serve`)."""
    from tapete.server.app import run_serve as _run_serve

    return _run_serve(host, port, db, delay_ms, **options)  # type: ignore[arg-type]
