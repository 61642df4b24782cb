"""Browser tests: the real app under uvicorn in a thread, driven by Debian's Chromium.

Never skipped: without /usr/bin/chromium (apt package `chromium`) every test fails with a
message saying so. No network beyond 127.0.0.1.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_server import LiveServer

CHROMIUM = os.environ.get("TAPETE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "tests/browser/" in str(item.fspath).replace(os.sep, "/"):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = LiveServer(tmp_path_factory.mktemp("db") / "tapete.sqlite").start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium is missing at {CHROMIUM}: install Debian's package "
            "(apt-get install chromium). The browser tests never download a browser.",
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def new_page(browser):  # type: ignore[no-untyped-def]
    """Open a page in a fresh context: new_page(locale="es-ES", width=1280, height=860)."""
    contexts = []

    def make(locale: str = "en-US", width: int = 1280, height: int = 860):  # type: ignore[no-untyped-def]
        ctx = browser.new_context(
            locale=locale, viewport={"width": width, "height": height}, reduced_motion="reduce"
        )
        ctx.set_default_timeout(15_000)
        contexts.append(ctx)
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.js_errors = errors
        return page

    yield make
    for ctx in contexts:
        ctx.close()
