"""Fixtures for the server tests: an app on a temporary SQLite file, with no bot delay."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette

with warnings.catch_warnings():
    # Starlette 1.x prefers httpx2 for its test client; httpx works the same here.
    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from starlette.testclient import TestClient

from server_helpers import MakeApp, set_secret

from tapete.server.app import create_app
from tapete.server.limits import Limits
from tapete.server.review import ReviewSettings

#: the server's limits with the per-client rate limits lifted (tests play fast)
TEST_LIMITS = Limits(create_burst=100_000, hint_burst=100_000, hint_processes=0, list_cache_s=0)


@pytest.fixture
def db_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'tapete.sqlite3'}"


@pytest.fixture
def make_app(db_url: str) -> MakeApp:
    """``make_app(**options)``: a new app on the test's database (delay 0; automated
    players act faster than a person, so the rate limits on messages, hints and new tables
    are lifted unless given; no background analysis of finished games unless ``review``
    asks for it: the tests that count analyses decide when they happen)."""

    def make(**options: Any) -> Starlette:
        options.setdefault("delay_ms", 0)
        options.setdefault("review", ReviewSettings(background=False))
        options.setdefault("rate_limit", 10_000)
        options.setdefault("limits", TEST_LIMITS)
        app = create_app(db_url, **options)
        set_secret(app)  # the computer players' choices are the same in every run
        return app

    return make


@pytest.fixture
def app(make_app: MakeApp) -> Starlette:
    return make_app()


@pytest.fixture
def client(app: Starlette) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c
