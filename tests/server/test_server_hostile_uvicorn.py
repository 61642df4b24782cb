"""Issue 10, a hostile client over real sockets: the server under uvicorn with the settings
of ``tapete serve`` (loopback only, short limits so that every test takes a few seconds).
Every test failed on the server before the fix."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from server_helpers import MakeApp

from tapete.server.app import uvicorn_config
from tapete.server.limits import Limits

LIMITS = Limits(
    create_burst=1000,
    hint_burst=1000,
    hint_processes=0,
    list_cache_s=0,
    max_connections_per_client=8,
    request_timeout_s=0.5,
    keep_alive_s=1,
)


@pytest.fixture
def port(make_app: MakeApp) -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        free = int(s.getsockname()[1])
    app = make_app(limits=LIMITS)
    server = uvicorn.Server(uvicorn_config(app, "127.0.0.1", free, LIMITS, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    yield free
    server.should_exit = True
    thread.join(timeout=10)


def _sock(port: int, source: str = "127.0.0.1") -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    return s


def _response(s: socket.socket, timeout: float = 3.0) -> tuple[int, dict[str, str], bytes]:
    """Read one HTTP response (the server closes after a refusal)."""
    s.settimeout(timeout)
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(lines[0].split()[1]), headers, body


def _closed_within(s: socket.socket, seconds: float) -> bool:
    s.settimeout(seconds)
    try:
        return s.recv(1) == b""
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True


# ---------------------------------------------------------------------- 3. bodies


def test_a_huge_content_length_is_refused_before_the_body(port: int) -> None:
    with _sock(port) as s:
        s.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nContent-Length: 314572800\r\n\r\n" + b"{" * 1000
        )
        started = time.monotonic()
        status, _, body = _response(s)
    assert status == 413 and time.monotonic() - started < 2
    assert "larger than 16384 bytes" in json.loads(body)["error"]


def test_a_chunked_body_is_cut_off_past_the_limit(port: int) -> None:
    with _sock(port) as s:
        s.sendall(
            b"POST /api/tables HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b"x" * 4096
        for _ in range(8):  # 32 KiB, and the body never ends
            s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        status, _, body = _response(s)
    assert status == 413 and "larger than 16384 bytes" in json.loads(body)["error"]


# ---------------------------------------------------------------------- 4. connections


def test_a_connection_that_sends_nothing_is_closed(port: int) -> None:
    with _sock(port) as s:
        assert _closed_within(s, 3), "an idle connection stayed open"


def test_a_slow_request_head_is_closed(port: int) -> None:
    with _sock(port) as s:
        started = time.monotonic()
        closed = False
        for byte in b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 40:
            try:
                s.sendall(bytes([byte]))
            except OSError:
                closed = True
                break
            if _closed_within(s, 0.1):
                closed = True
                break
        assert closed and time.monotonic() - started < 3


def test_connections_per_client_are_bounded(port: int) -> None:
    flood = [_sock(port, "127.0.0.2") for _ in range(LIMITS.max_connections_per_client + 4)]
    try:
        time.sleep(0.2)
        refused = sum(_closed_within(s, 0.2) for s in flood[-4:])
        assert refused == 4
        # another address is served meanwhile
        with _sock(port, "127.0.0.3") as s:
            s.sendall(b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            status, headers, _ = _response(s)
        assert status == 200 and "frame-ancestors 'none'" in headers["content-security-policy"]
    finally:
        for s in flood:
            s.close()
