"""Issue 10, a hostile client over real sockets: the server under uvicorn with the settings
of ``tapete serve`` (loopback only, short limits so that every test takes a few seconds).
Every test failed on the server before the fix."""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import http.client
import json
import logging
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from server_helpers import MakeApp

from serving import free_port, uvicorn_thread
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
    gc_tick_s=None,  # (the collector of the serving process: test_collector.py)
)

# (HTTP limits of the server under uvicorn, before the database: SQLite only)
pytestmark = pytest.mark.sqlite_only


@pytest.fixture
def port(make_app: MakeApp) -> Iterator[int]:
    with serving(make_app, LIMITS) as free:
        yield free


@contextlib.contextmanager
def serving(make_app: MakeApp, limits: Limits, **options: Any) -> Iterator[int]:
    """The app under uvicorn as ``tapete serve`` runs it, on a free port of 127.0.0.1."""
    free = free_port()
    app = make_app(limits=limits, **options)
    config = uvicorn_config(app, "127.0.0.1", free, limits, log_level="warning")
    # (a test reads what the stop did, the collector's unfreeze among them: uvicorn_thread
    # waits long for the stop, and fails when it does not end)
    with uvicorn_thread(config) as server:
        app.state.uvicorn_server = server  # (a test may run a callback in its loop)
        yield free


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
        for _ in range(5):  # 20 KiB, and the body never ends
            try:
                s.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except OSError:  # (the server answered and closed already: what it said counts)
                break
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


def test_a_flood_of_frames_and_upgrades_uvicorn_refuses_writes_a_few_lines(port: int) -> None:
    """uvicorn logs a text frame that is no UTF-8 (an ERROR with its traceback) and an
    ``Upgrade`` to anything but a WebSocket (a WARNING) once per attempt: a client wrote
    the server's log as fast as it sent them."""
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    uvicorn_log = logging.getLogger("uvicorn.error")
    uvicorn_log.addHandler(handler)
    try:
        for _ in range(20):
            with _sock(port) as s:
                s.sendall(
                    b"GET /ws/lobby HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                    b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                    b"Sec-WebSocket-Version: 13\r\n\r\n"
                )
                assert s.recv(12) == b"HTTP/1.1 101"
                s.sendall(bytes((0x81, 0x80 | 3)) + b"\0\0\0\0" + b'"\xff"')  # (masked by 0)
                s.settimeout(3)
                while s.recv(65536):  # (the lobby, then the close 1007)
                    pass
            with _sock(port) as s:
                s.sendall(
                    b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: h2c\r\n"
                    b"Connection: Upgrade, close\r\n\r\n"
                )
                assert _response(s)[0] == 200
    finally:
        uvicorn_log.removeHandler(handler)
    lines = [r.getMessage() for r in records]
    assert len(lines) <= 2, lines  # (once a minute each, and none if let through just now)
    assert all(r.exc_info is None for r in records)


# ---------------------------------------------------------------------- behind a proxy

#: two new tables per client address, then none for ten minutes
FEW_TABLES = dataclasses.replace(LIMITS, create_burst=2, create_refill_s=600)


def _create(port: int, source: str, forwarded: str | None = None) -> int:
    """POST a new table from ``source`` (with that ``X-Forwarded-For``); the status."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(source, 0))
    headers = {"content-type": "application/json"}
    if forwarded is not None:
        headers["x-forwarded-for"] = forwarded
    try:
        body = json.dumps({"game": "mariage", "name": "Ana", "levels": ["random"]})
        conn.request("POST", "/api/tables", body=body, headers=headers)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


def test_a_forwarded_for_header_from_a_client_is_ignored(make_app: MakeApp) -> None:
    """No trusted proxy (the default): a client that names another address in
    ``X-Forwarded-For`` at every request still has one bucket of new tables. Before,
    uvicorn believed the header from any loopback peer: every made-up address got a fresh
    bucket, and the limit was no limit."""
    with serving(make_app, FEW_TABLES) as port:
        statuses = [_create(port, "127.0.0.1", f"10.0.0.{i}") for i in range(4)]
    assert statuses == [201, 201, 429, 429]


def test_behind_a_trusted_proxy_each_client_has_its_own_limits(make_app: MakeApp) -> None:
    """``trusted_proxies=["127.0.0.1"]``: the proxy's ``X-Forwarded-For`` names the client.
    The right-most address not a proxy counts (what a client writes on the left is not
    believed); another peer's header is ignored; the proxy's own connections are not
    capped per address (each carries many clients)."""
    with serving(make_app, FEW_TABLES, trusted_proxies=["127.0.0.1"]) as port:
        first = [_create(port, "127.0.0.1", "10.0.0.1") for _ in range(3)]
        assert first == [201, 201, 429]
        assert _create(port, "127.0.0.1", "10.0.0.2") == 201  # another client
        # a client of the proxy that puts another address first is still 10.0.0.1
        assert _create(port, "127.0.0.1", "10.9.9.9, 10.0.0.1") == 429
        # a peer that is no trusted proxy: its header names nobody
        untrusted = [_create(port, "127.0.0.2", f"10.1.0.{i}") for i in range(3)]
        assert untrusted == [201, 201, 429]
        held = [_sock(port) for _ in range(FEW_TABLES.max_connections_per_client + 2)]
        try:
            with _sock(port) as s:
                s.sendall(b"GET /api/config HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                assert _response(s)[0] == 200
        finally:
            for s in held:
                s.close()


@pytest.mark.parametrize("deflate", [False, True])
def test_websocket_compression_is_offered_only_when_asked(make_app: MakeApp, deflate: bool) -> None:
    """``Limits.ws_deflate``: off by default (compressing every 1-2.5 KB view cost the server
    about 8 % of its CPU per action, and a compressor per socket), so a client's
    permessage-deflate offer is declined; on, it is accepted."""
    from websockets.sync.client import connect

    limits = dataclasses.replace(LIMITS, ws_deflate=deflate)
    assert Limits().ws_deflate is False
    with serving(make_app, limits) as port, connect(f"ws://127.0.0.1:{port}/ws/lobby") as ws:
        assert json.loads(ws.recv(timeout=10))["type"] == "lobby"
        names = [type(e).__name__ for e in ws.protocol.extensions]
    assert names == (["PerMessageDeflate"] if deflate else [])


@pytest.mark.parametrize("thresholds", [(50_000, 20, 100), (1_234, 5, 6), None])
def test_the_serving_process_collects_garbage_rarely(
    make_app: MakeApp, thresholds: tuple[int, int, int] | None
) -> None:
    """``Limits.gc_thresholds``: the serving process's collector thresholds, set with its
    uvicorn settings (at 1,000 tables Python's own made a full collection of a million
    objects, about a second, every few seconds); None leaves them as they were."""
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        limits = dataclasses.replace(LIMITS, gc_thresholds=thresholds)
        uvicorn_config(make_app(limits=limits), "127.0.0.1", 0, limits)
        assert gc.get_threshold() == (thresholds or (700, 10, 10))
        assert Limits().gc_thresholds == (50_000, 20, 100)
    finally:
        gc.set_threshold(*before)


# ---------------------------------------------------------------------- a client not reading


def _post(port: int, path: str, body: dict[str, Any]) -> dict[str, Any]:
    s = _sock(port)
    with s:
        data = json.dumps(body).encode()
        s.sendall(
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        status, _, answer = _response(s)
    assert status == 201, answer
    out: dict[str, Any] = json.loads(answer)
    return out


def _silent_socket(port: int, table: int, token: str) -> socket.socket:
    """A WebSocket opened by hand with a small receive buffer, which then reads nothing."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.settimeout(10)
    s.connect(("127.0.0.1", port))
    s.sendall(
        f"GET /ws/{table}?token={token} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += s.recv(1)
    assert head.startswith(b"HTTP/1.1 101"), head
    return s


def test_a_client_that_stops_reading_is_closed_and_its_seat_taken_over(
    make_app: MakeApp,
) -> None:
    """Ana's socket reads nothing while the server has megabytes for her: once its buffers
    are full and its writing has stayed paused ``ws_write_stall_s`` it is closed (1008, the
    reason after what she has not read, and the connection dropped as long again later),
    and Bea sees Ana's seat disconnected, then a computer take it after the grace. The pings
    are off, so nothing else closes it: before the bound, the socket and its seat stayed
    connected for good (uvicorn's own close waits for the unsent bytes, and its ping
    timeout never told the app)."""
    from websockets.sync.client import connect

    limits = dataclasses.replace(LIMITS, ws_write_stall_s=0.5, ws_ping_interval_s=3600.0)
    apps: list[Any] = []

    def made(**options: Any) -> Any:
        apps.append(make_app(**options))
        return apps[-1]

    with serving(made, limits) as port:
        [app] = apps
        seats = [{"kind": "me"}, {"kind": "invited"}]
        body = {"game": "mariage", "name": "Ana", "seats": seats, "clock": {"grace_s": 1}}
        ana = _post(port, "/api/tables", body)
        table = ana["table"]
        bea = _post(port, f"/api/tables/{table}/seats", {"name": "Bea", "invite": ana["invite"]})
        with (
            connect(f"ws://127.0.0.1:{port}/ws/{table}?token={bea['token']}") as ws,
            _silent_socket(port, table, ana["token"]) as silent,
        ):

            def next_message(wanted: Any) -> dict[str, Any]:
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    message: dict[str, Any] = json.loads(ws.recv(timeout=30))
                    if wanted(message):
                        return message
                raise AssertionError("no such message came")

            next_message(lambda m: m["type"] == "presence" and m["seats"][0]["connected"] == 1)
            big = "x" * 200_000  # (64 of them: more than any socket buffer holds)

            def flood() -> None:
                listeners = app.state.manager.tables[table].listeners
                for conn in [c for c in listeners if c.seat == 0]:
                    for _ in range(64):
                        conn.push(big)

            loop = app.state.uvicorn_server.servers[0].get_loop()
            loop.call_soon_threadsafe(flood)
            next_message(lambda m: m["type"] == "presence" and m["seats"][0]["connected"] == 0)
            taken = next_message(lambda m: m["type"] == "takeover")
            assert (taken["seat"], taken["reason"]) == (0, "disconnected")
            # Ana's socket is gone: what the system had taken for her, then the end
            silent.settimeout(30)
            with contextlib.suppress(ConnectionResetError):
                while silent.recv(1 << 20):
                    pass
        assert app.state.refusals.kinds.keys() >= {"ws_not_reading"}
