"""Browser tests: the real app under uvicorn in a thread, driven by Debian's Chromium.

Never skipped: without /usr/bin/chromium (apt package `chromium`) every test fails with a
message saying so. No network beyond 127.0.0.1.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

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


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """create_app(db_url, delay_ms=0) served by uvicorn on 127.0.0.1:port in a thread."""

    def __init__(self, db_path: Path, port: int | None = None) -> None:
        self.db_path = db_path
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._server = None
        self._thread: threading.Thread | None = None

    def start(self) -> LiveServer:
        import uvicorn

        from tapete.server.app import create_app

        app = create_app(db_url=f"sqlite:///{self.db_path}", delay_ms=0)
        config = uvicorn.Config(
            app, host="127.0.0.1", port=self.port, log_level="warning", lifespan="on"
        )
        server = uvicorn.Server(config)
        self._server = server
        self._thread = threading.Thread(target=server.run, name=f"uvicorn-{self.port}", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 20
        while not server.started:
            if not self._thread.is_alive():
                raise RuntimeError(f"the test server on port {self.port} did not start")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the test server on port {self.port} took over 20 s to start")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=15)
        self._server = None
        self._thread = None


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
