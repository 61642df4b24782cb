"""Issue 10, a hostile client (in-process): each finding of the hostile-client test of
``tapete serve``, reproduced. Every test failed on the server before the fix."""

from __future__ import annotations

import dataclasses
import logging
import random
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from db_helpers import write_lock
from server_helpers import TEST_LIMITS, MakeApp, Session, new_table, wait_until
from starlette.applications import Starlette
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from test_server_room import make_table

from tapete.server.app import create_app
from tapete.server.limits import Limits, RefusalLog

# ---------------------------------------------------------------------- 5. no 500s


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("max_deals", 2**63, "'max_deals' must be a whole number from 1 to"),
        ("max_deals", 10**30, "'max_deals' must be a whole number from 1 to"),
        ("game", ["mil"], "'game' must be one of"),
        ("game", {"mil": 1}, "'game' must be one of"),
        ("profile", ["club"], "'profile' must be one of"),
        ("language", {"es": 1}, "'language' must be one of"),
    ],
)
@pytest.mark.sqlite_only
def test_odd_fields_get_a_400_that_names_them(
    client: TestClient, field: str, value: Any, words: str
) -> None:
    body: dict[str, Any] = {"game": "mil", "name": "Ana", field: value}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 400, r.text
    assert words in r.json()["error"]


@pytest.mark.sqlite_only
@pytest.mark.parametrize("raw", ["²", "١", "1²", "٣", "𝟏", "１"])
def test_a_table_id_is_ascii_digits_only(client: TestClient, raw: str) -> None:
    new_table(client)  # table 1 exists: a Unicode digit one must not alias it
    for path in (f"/api/tables/{raw}", f"/api/tables/{raw}/record"):
        r = client.get(path)
        assert r.status_code == 404 and r.json() == {"error": "there is no such table"}, path


@pytest.mark.sqlite_only
@pytest.mark.parametrize("raw", ["²", "١", "-1", "0", "101", "1e3", ""])
def test_ranking_limit_must_be_ascii_in_range(client: TestClient, raw: str) -> None:
    r = client.get("/api/ranking", params={"limit": raw})
    assert r.status_code == 400 and "'limit' must be a whole number" in r.json()["error"]


@pytest.mark.sqlite_only
@pytest.mark.parametrize("raw", ["²", "١", "x"])
def test_a_websocket_to_no_table_is_closed_with_a_code(client: TestClient, raw: str) -> None:
    new_table(client)
    with client.websocket_connect(f"/ws/{raw}") as ws:
        assert ws.receive_json()["code"] == "unknown_table"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == 4404


#: JSON bodies whose strings hold a lone UTF-16 surrogate (an escape no partner follows):
#: valid JSON to ``json.loads``, but no text; (path, body, the place the 400 names)
_LONE_SURROGATES = [
    ("/api/tables/{table}/seats", r'{"name": "Bea", "invite": "ab\ud800c"}', "invite"),
    ("/api/signup", r'{"name": "Bea_1", "password": "abcdefghij\udfff"}', "password"),
    ("/api/signin", r'{"name": "Be\ud800", "password": "abcdefghij"}', "name"),
    ("/api/signin", r'{"name": "Bea_1", "password": "abcdefghij\ud800"}', "password"),
    ("/api/tables", r'{"game": "mil", "name": "Ana", "\ud800": 1}', "a key of the body"),
    (
        "/api/tables",
        r'{"game": "mil", "name": "A", "seats": [{"kind": "\ud800"}]}',
        "seats[0].kind",
    ),
    ("/api/quick", r'{"game": "mil", "name": "Ana\udc00"}', "name"),
]


SEATS = ("me", "invited", "open")


@pytest.mark.sqlite_only
@pytest.mark.parametrize(("path", "body", "where"), _LONE_SURROGATES)
def test_a_lone_surrogate_in_a_body_gets_a_400_that_names_its_place(
    client: TestClient, path: str, body: str, where: str
) -> None:
    """Hashing the password, comparing the invitation code with ``compare_digest`` (which
    encodes it) raised UnicodeEncodeError: a 500 with a traceback."""
    r = client.post(
        "/api/tables",
        json={"game": "mil", "name": "Ana", "seats": [{"kind": k} for k in SEATS]},
    )
    assert r.status_code == 201, r.text
    url = path.format(table=r.json()["table"])
    r = client.post(url, content=body.encode(), headers={"Content-Type": "application/json"})
    assert r.status_code == 400, r.text
    assert r.json()["error"] == (
        f"the request body is not valid JSON text: {where} holds a lone surrogate "
        f"({body[body.index(chr(92) + 'u') :][:6]}), which is no character"
    )
    # a pair of escapes that makes one character is that character
    r = client.post(
        "/api/tables",
        content=rb'{"game": "mil", "name": "Ana \ud83c\udccf"}',
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 201, r.text
    assert client.get(f"/api/tables/{r.json()['table']}").json()["players"][0] == "Ana \U0001f0cf"


def test_a_nul_in_an_invitation_code_or_a_user_name_is_no_such_one(client: TestClient) -> None:
    """PostgreSQL refuses a NUL in a query's text (psycopg's DataError): looking up such an
    invitation code, or signing in under such a name, was a 500 there (SQLite found
    nothing). Both are refused before the database is asked."""
    r = client.post(
        "/api/tables", json={"game": "mil", "name": "Ana", "seats": [{"kind": k} for k in SEATS]}
    )
    code = r.json()["invite"]
    assert client.get(f"/api/invitations/{code}").status_code == 200
    for odd in (f"{code}%00", "a%00b", "%00", "a b", "%C3%A9t%C3%A9"):
        r = client.get(f"/api/invitations/{odd}")
        assert r.status_code == 404 and r.json() == {"error": "there is no such invitation"}, odd
    signed = client.post("/api/signup", json={"name": "Bea_1", "password": "abcdefghij"})
    assert signed.status_code == 201, signed.text
    client.cookies.clear()  # (a guest again: no session, no CSRF token to send)
    for name in ("Bea_1\x00", "\x00", "Be\x00a_1"):
        r = client.post("/api/signin", json={"name": name, "password": "abcdefghij"})
        assert r.status_code == 401 and r.json() == {"error": "wrong user name or password"}
    r = client.post("/api/signin", json={"name": "bea_1", "password": "abcdefghij"})
    assert r.status_code == 200, r.text


# ---------------------------------------------------------------------- 9. cross-site


@pytest.mark.sqlite_only
def test_a_websocket_from_another_site_is_refused(client: TestClient) -> None:
    table_id, _ = new_table(client)
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect(f"/ws/{table_id}", headers={"origin": "http://evil.example"}),
    ):
        pass
    assert refused.value.code == 1008
    # the server's own page, and a client that is no browser (no Origin), may connect
    for headers in ({"origin": "http://testserver"}, {}):
        with client.websocket_connect(f"/ws/{table_id}", headers=headers) as ws:
            assert ws.receive_json()["type"] == "view"


@pytest.mark.sqlite_only
@pytest.mark.parametrize("origin", ["http://[::1", "http://[testserver]x", "http://]["])
def test_an_origin_that_is_no_url_is_refused(client: TestClient, origin: str) -> None:
    """``urlsplit`` raises on a bracket that does not close an IPv6 address: the origin
    check let that through as a 500 with a traceback, on a POST and on a handshake."""
    table_id, _ = new_table(client)
    r = client.post("/api/tables", json={"game": "mil", "name": "Ana"}, headers={"origin": origin})
    assert r.status_code == 403, r.text
    assert "may not change anything here" in r.json()["error"]
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect(f"/ws/{table_id}", headers={"origin": origin}),
    ):
        pass
    assert refused.value.code == 1008


@pytest.mark.sqlite_only
def test_an_allowed_origin_may_connect(make_app: MakeApp) -> None:
    app = make_app(allowed_origins=["https://club.example"])
    with TestClient(app) as client:
        table_id, _ = new_table(client)
        with client.websocket_connect(
            f"/ws/{table_id}", headers={"origin": "https://club.example"}
        ) as ws:
            assert ws.receive_json()["type"] == "view"


@pytest.mark.parametrize(
    "ctype", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data", None]
)
@pytest.mark.sqlite_only
def test_a_post_must_be_json(client: TestClient, ctype: str | None) -> None:
    body = b'{"game": "mil", "name": "Ana"}'
    headers = {} if ctype is None else {"content-type": ctype}
    r = client.post("/api/tables", content=body, headers=headers)
    assert r.status_code == 415 and "Content-Type: application/json" in r.json()["error"]
    assert client.get("/api/tables/live").json() == []
    # the sit-down too (it answered 400, "not valid JSON", to a body of JSON sent as text)
    seats = [{"kind": "me"}, {"kind": "invited"}, {"kind": "computer", "level": "random"}]
    made = client.post("/api/tables", json={"game": "mil", "name": "Ana", "seats": seats}).json()
    sit = b'{"name": "Bea", "invite": "%s"}' % made["invite"].encode()
    r = client.post(f"/api/tables/{made['table']}/seats", content=sit, headers=headers)
    assert r.status_code == 415 and "Content-Type: application/json" in r.json()["error"]
    assert client.get(f"/api/invitations/{made['invite']}").json()["status"] == "waiting"


@pytest.mark.sqlite_only
def test_the_host_header_is_checked(make_app: MakeApp) -> None:
    app = make_app(trusted_hosts=["127.0.0.1", "localhost"])
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        assert client.get("/api/config").status_code == 200
        r = client.get("/api/config", headers={"host": "rebind.evil.example:8000"})
        assert r.status_code == 400 and "--trusted-hosts" in r.json()["error"]
        with (
            pytest.raises(WebSocketDisconnect),
            client.websocket_connect("/ws/1", headers={"host": "rebind.evil.example"}),
        ):
            pass


@pytest.mark.sqlite_only
def test_a_trusted_address_may_be_written_in_brackets(make_app: MakeApp) -> None:
    # (the Host header's [::1] is compared without its brackets: "[::1]" never matched)
    app = make_app(trusted_hosts=["[::1]", "Club.Example "])
    with TestClient(app, base_url="http://127.0.0.1:8000") as client:
        for host in ("[::1]:8000", "[::1]", "club.example", "CLUB.example:8443"):
            assert client.get("/api/config", headers={"host": host}).status_code == 200, host
        assert client.get("/api/config", headers={"host": "evil.example"}).status_code == 400


HOST_ENTRIES: list[tuple[str, str | None]] = [
    ("http://club.example", "'http://club.example' is a URL: name the host alone"),
    ("club.example:8000", "'club.example:8000' has a port: name the host alone (club.example)"),
    ("a b", "'a b' is not a host name"),
    ("club..example", "is not a host name"),
    ("-club.example", "is not a host name"),
    ("x" * 64 + ".example", "is not a host name"),
    ("*", None),
    ("*.club.example", None),
    ("club.example", None),
    ("Club-1.example", None),
    ("127.0.0.1", None),
    ("::1", None),
    ("[::1]", None),
    ("localhost", None),
]
ORIGIN_ENTRIES: list[tuple[str, str | None]] = [
    ("club.example", "'club.example' is not an origin: a scheme (http or https) and a host"),
    ("ftp://club.example", "is not an origin: a scheme (http or https)"),
    ("https://club.example/play", "only a scheme and a host, no path"),
    ("https://club.example?x=1", "only a scheme and a host, no path"),
    ("https://ana@club.example", "only a scheme and a host, no path"),
    ("https://club.example:443", "leave out the port 443, which browsers leave out"),
    ("http://club.example:80", "leave out the port 80"),
    ("https://[::1", "is not an origin (for example"),
    ("https://club.example:99999", "is not an origin (for example"),
    ("*", None),
    ("https://club.example", None),
    ("https://club.example/", None),
    ("http://club.example:8080", None),
    ("http://[::1]:8000", None),
]


@pytest.mark.parametrize(
    ("check", "entry", "said"),
    [("host", *row) for row in HOST_ENTRIES] + [("origin", *row) for row in ORIGIN_ENTRIES],
)
def test_a_host_or_origin_that_could_never_match_is_told(
    check: str, entry: str, said: str | None
) -> None:
    from tapete.server.security import allowed_origin_problem, trusted_host_problem

    problem = (trusted_host_problem if check == "host" else allowed_origin_problem)(entry)
    assert problem is None if said is None else problem is not None and said in problem, problem


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--trusted-hosts", "club.example,http://club.example"], "--trusted-hosts: 'http://"),
        (["--trusted-hosts", " , "], "--trusted-hosts: no name given (use '*' for any)"),
        (["--allowed-origins", "club.example"], "--allowed-origins: 'club.example' is not an"),
    ],
)
def test_serve_refuses_hosts_and_origins_that_could_never_match(
    capsys: pytest.CaptureFixture[str], args: list[str], said: str
) -> None:
    # (they were taken: then every request, or every page of the other site, was refused)
    from tapete.cli import main

    assert main(["serve", "--port", "0", *args]) == 2
    out, err = capsys.readouterr()
    assert err.startswith(f"tapete serve: error: {said}") and out == "", err


def test_an_app_is_not_made_with_a_host_or_origin_that_could_never_match() -> None:
    with pytest.raises(ValueError, match=r"'club\.example:8000' has a port"):
        create_app("sqlite://", 0, trusted_hosts=["club.example:8000"])
    with pytest.raises(ValueError, match=r"'club\.example' is not an origin"):
        create_app("sqlite://", 0, allowed_origins=["club.example"])


def test_serve_trusts_loopback_names_when_bound_to_loopback() -> None:
    from tapete.server.app import default_trusted_hosts

    assert set(default_trusted_hosts("127.0.0.1") or ()) >= {"127.0.0.1", "localhost", "::1"}
    assert default_trusted_hosts("0.0.0.0") is None


@pytest.mark.parametrize(
    "path", ["/", "/api/config", "/static/app.js", "/rules/club?lang=en", "/api/tables/9"]
)
@pytest.mark.sqlite_only
def test_every_answer_has_the_security_headers(client: TestClient, path: str) -> None:
    r = client.get(path)
    csp = r.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp
    assert r.headers["x-content-type-options"] == "nosniff"
    assert r.headers["referrer-policy"] == "no-referrer"
    assert r.headers["x-frame-options"] == "DENY"


@pytest.mark.parametrize(
    ("peer", "forwarded", "client"),
    [
        ("127.0.0.1", "10.0.0.1", "10.0.0.1"),
        ("127.0.0.1", "6.6.6.6, 10.0.0.1", "10.0.0.1"),  # the left entry is the client's
        ("127.0.0.1", "10.0.0.1, 127.0.0.2", "10.0.0.1"),  # two proxies in a row
        ("127.0.0.1", "127.0.0.3", "127.0.0.3"),  # only proxies: the first of them
        ("127.0.0.1", "10.0.0.1, not-an-ip", "127.0.0.1"),  # no address: the last proxy
        ("127.0.0.1", "", "127.0.0.1"),
        ("10.0.0.9", "6.6.6.6", "10.0.0.9"),  # no trusted proxy: the header names nobody
        ("testclient", "6.6.6.6", "testclient"),
        ("::1", "2001:db8::1", "2001:db8::1"),
    ],
)
def test_the_client_behind_trusted_proxies(peer: str, forwarded: str, client: str) -> None:
    from tapete.server.security import TrustedProxies

    proxies = TrustedProxies(["127.0.0.0/8", "::1"])
    assert proxies.client(peer, forwarded) == client
    assert TrustedProxies().client(peer, forwarded) == peer  # none trusted: the default


def test_a_trusted_proxy_that_is_no_address_is_refused() -> None:
    from tapete.cli.serve import check_proxies
    from tapete.server.security import TrustedProxies

    with pytest.raises(ValueError, match=r"'proxy\.example' is not an IP address or network"):
        TrustedProxies(["proxy.example"])
    assert check_proxies("127.0.0.1, 10.0.0.0/8") is None
    assert "not an IP address" in (check_proxies("10.0.0.1,nginx") or "")


# ---------------------------------------------------------------------- 4. sockets


@pytest.mark.sqlite_only
def test_websockets_per_client_and_per_table_are_bounded(make_app: MakeApp) -> None:
    app = make_app(limits=Limits(max_sockets_per_client=3, max_sockets_per_table=2))
    with TestClient(app) as client:
        table_id, _ = new_table(client)
        with (
            client.websocket_connect(f"/ws/{table_id}") as a,
            client.websocket_connect(f"/ws/{table_id}") as b,
        ):
            a.receive_json(), b.receive_json()
            with client.websocket_connect(f"/ws/{table_id}") as c:
                assert c.receive_json()["code"] == "too_many"
                with pytest.raises(WebSocketDisconnect) as closed:
                    c.receive_json()
                assert closed.value.code == 1013
            # a third socket on another table is accepted, a fourth is refused at the door
            other, _ = new_table(client)
            with client.websocket_connect(f"/ws/{other}") as d:
                d.receive_json()
                with (
                    pytest.raises(WebSocketDisconnect) as refused,
                    client.websocket_connect(f"/ws/{other}"),
                ):
                    pass
                assert refused.value.code == 1008


@pytest.mark.sqlite_only
def test_each_kind_of_refusal_is_logged_once(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="tapete.server"):
        for _ in range(200):
            client.post("/api/tables", content=b"x", headers={"content-type": "text/plain"})
    lines = [r for r in caplog.records if "refused" in r.getMessage()]
    assert len(lines) == 1, [r.getMessage() for r in lines]
    assert client.app.state.refusals.count("content_type") == 199  # type: ignore[attr-defined]


def test_refusals_noted_from_several_threads_are_all_counted() -> None:
    """The failed writes' log is noted from the event loop and from the write thread at
    once: no refusal is lost between reading its kind's count and writing it back (without
    the log's lock, 4 threads of 20,000 lost about a tenth here)."""
    refusals = RefusalLog(period_s=1e9)
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # (threads swap as often as they can)
    try:
        threads = [
            threading.Thread(target=lambda: [refusals.note("x", "c", "d") for _ in range(20_000)])
            for _ in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(switch)
    assert refusals.count("x") == 4 * 20_000 - 1  # (the first is logged, not counted)


# ---------------------------------------------------------------------- 1. chosen deals


def _play_out(client: TestClient, table_id: int, token: str) -> dict[str, Any]:
    with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
        return Session(ws, random.Random(1)).play()


def test_a_chosen_deal_is_neither_ranked_nor_counted(client: TestClient) -> None:
    r = client.post(
        "/api/tables",
        json={"game": "mariage", "name": "Eve", "levels": ["random"], "seed": 123},
    )
    assert r.status_code == 201 and r.json()["ranked"] is False
    table_id, token = r.json()["table"], r.json()["token"]
    info = client.get(f"/api/tables/{table_id}", params={"token": token}).json()
    assert info["ranked"] is False and info["seed_chosen"] is True
    assert _play_out(client, table_id, token)["over"]
    assert client.get("/api/stats", params={"name": "Eve"}).json() == []
    assert client.get("/api/ranking", params={"game": "mariage"}).json() == []
    listed = client.get("/api/tables", params={"name": "Eve"}).json()
    assert listed[0]["ranked"] is False
    # a table on a deal the server drew counts
    r = client.post("/api/tables", json={"game": "mariage", "name": "Eve", "levels": ["random"]})
    assert r.json()["ranked"] is True
    assert _play_out(client, r.json()["table"], r.json()["token"])["over"]
    assert client.get("/api/stats", params={"name": "Eve"}).json()[0]["games"] == 1


def _bot_moves(db_url: str) -> list[Any]:
    """Seed 7, the same person's moves: the actions of the computer seat."""
    app = create_app(db_url, delay_ms=0, rate_limit=10_000, limits=TEST_LIMITS)
    with TestClient(app) as client:
        table_id, token = new_table(client, game="mariage", seed=7, levels=["random"])
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            me = Session(ws, random.Random(2))
            me.play(max_actions=12)
    with app.state.manager.sessions() as s:
        from sqlalchemy import select

        from tapete.server.db import ActionRow

        rows = s.execute(
            select(ActionRow.seat, ActionRow.action).where(ActionRow.table_id == table_id)
        )
        return [a for seat, a in rows if seat == 1]


def test_computer_choices_are_not_predictable_from_the_seed(
    new_db_url: Callable[[], str],
) -> None:
    """Two servers, the same seed and the same person's moves: the computer players choose
    differently (their numbers come from each server's secret, not from the seed)."""
    first = _bot_moves(new_db_url())
    second = _bot_moves(new_db_url())
    assert first and second and first != second


# ---------------------------------------------------------------------- 2. cheap floods


@pytest.mark.sqlite_only
def test_table_creation_is_rate_limited_per_client(make_app: MakeApp) -> None:
    app = make_app(limits=Limits(create_burst=3, create_refill_s=60))
    with TestClient(app) as client:
        for _ in range(3):
            new_table(client)
        r = client.post("/api/tables", json={"game": "mil", "name": "Ana"})
        assert r.status_code == 429 and 1 <= int(r.headers["retry-after"]) <= 60
        assert "requests for a new table" in r.json()["error"]
    # a refused request counts too (a flood of bad ones costs the server as much), and the
    # message says so
    app = make_app(limits=Limits(create_burst=3, create_refill_s=60))
    with TestClient(app) as client:
        for _ in range(3):
            assert client.post("/api/tables", json={"game": "poker"}).status_code == 400
        r = client.post("/api/tables", json={"game": "mil", "name": "Ana"})
        assert r.status_code == 429 and "(refused ones count)" in r.json()["error"]


@pytest.mark.parametrize("path", ["/api/tables?name=Ana", "/api/tables/live"])
def test_lists_come_in_bounded_pages(client: TestClient, path: str) -> None:
    ids = [new_table(client)[0] for _ in range(5)]
    sep = "&" if "?" in path else "?"
    page = client.get(f"{path}{sep}limit=2").json()
    assert [t["table"] for t in page] == ids[::-1][:2]
    after = client.get(f"{path}{sep}limit=2&before={page[-1]['table']}").json()
    assert [t["table"] for t in after] == ids[::-1][2:4]
    for bad in ("limit=101", "limit=0", "before=²", "limit=²"):
        r = client.get(f"{path}{sep}{bad}")
        assert r.status_code == 400, bad


def test_ranking_pages(client: TestClient) -> None:
    assert client.get("/api/ranking", params={"offset": 5, "limit": 5}).json() == []
    r = client.get("/api/ranking", params={"offset": "x"})
    assert r.status_code == 400 and "'offset'" in r.json()["error"]


def test_table_info_does_not_rebuild_the_game(
    app: Starlette, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    table_id, token = new_table(client, game="mariage")
    with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
        Session(ws).play(max_actions=6)
    manager = app.state.manager
    manager.tables.clear()
    expected = client.get(f"/api/tables/{table_id}", params={"token": token}).json()

    def no_rebuild(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("GET /api/tables/{id} rebuilt the table")

    monkeypatch.setattr(manager, "get", no_rebuild)
    for _ in range(20):
        info = client.get(f"/api/tables/{table_id}", params={"token": token}).json()
        assert info == expected and info["version"] > 0


@pytest.mark.sqlite_only
def test_a_refused_sit_down_or_socket_leaves_no_table_in_memory(
    app: Starlette, client: TestClient
) -> None:
    """A sit-down at a table whose seats are all taken, and a spectator's socket at a table
    without spectators, rebuilt the table from its log and kept it in memory for good: a
    client walking through the table ids held every table of the database in memory."""
    ids = [new_table(client, spectators=False)[0] for _ in range(3)]
    manager = app.state.manager
    manager.tables.clear()
    for table_id in ids:
        r = client.post(f"/api/tables/{table_id}/seats", json={"name": "Zed"})
        assert r.status_code == 409 and r.json()["code"] == "table_full", r.text
        with client.websocket_connect(f"/ws/{table_id}") as ws:
            assert ws.receive_json()["code"] == "no_spectators"
            with pytest.raises(WebSocketDisconnect) as closed:
                ws.receive_json()
        assert closed.value.code == 4403
    assert manager.tables == {}


def test_a_refused_sit_down_does_not_rebuild_the_game(
    app: Starlette, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A sit-down at a table not in memory that seats nobody (under way, or finished) is
    refused from the table's row, with the refusal the table itself gives: its game is not
    rebuilt from its log for it (a client walking through old tables' ids made a worker
    thread replay each)."""
    playing, token = new_table(client, game="mariage")
    with client.websocket_connect(f"/ws/{playing}?token={token}") as ws:
        Session(ws).play(max_actions=6)
    finished, token = new_table(client, game="mariage", seed=5)
    with client.websocket_connect(f"/ws/{finished}?token={token}") as ws:
        assert Session(ws, random.Random(5)).play()["over"]
    waiting = make_table(client, game="mariage", seats=[{"kind": "me"}, {"kind": "invited"}])
    manager = app.state.manager
    manager.tables.clear()

    def no_rebuild(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a refused sit-down rebuilt the table")

    monkeypatch.setattr(manager, "get", no_rebuild)
    for table_id in (playing, finished):
        path = f"/api/tables/{table_id}/seats"
        r = client.post(path, json={"name": "Zed"})
        assert r.status_code == 409 and r.json()["code"] == "table_full", r.text
        r = client.post(path, json={"name": "Zed", "invite": waiting["invite"]})
        assert r.status_code == 403 and r.json()["code"] == "bad_invite", r.text
        r = client.post(path, json={"name": "Zed", "seat": 9})
        assert r.status_code == 400 and r.json()["code"] == "bad_seat", r.text
    r = client.post("/api/tables/999999/seats", json={"name": "Zed"})
    assert r.status_code == 404 and r.json()["code"] == "unknown_table", r.text
    assert manager.tables == {}
    # a table that may seat someone is read whole, as before: the sit-down is taken
    monkeypatch.undo()
    path = f"/api/tables/{waiting['table']}/seats"
    r = client.post(path, json={"name": "Bea", "invite": waiting["invite"]})
    assert r.status_code == 201, r.text


@pytest.mark.sqlite_only
def test_start_up_answers_before_rebuilding_unfinished_tables(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    with TestClient(make_app(delay_ms=60_000)) as client:
        for _ in range(4):
            new_table(client, seed=1)  # seed 1: a computer seat bids first
    from tapete.server.tables import TableManager

    real = TableManager.get

    def slow_get(self: TableManager, *args: Any, **kwargs: Any) -> Any:
        time.sleep(0.5)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(TableManager, "get", slow_get)
    started = time.monotonic()
    with TestClient(make_app()) as client:
        assert client.get("/api/config").status_code == 200
        answered = time.monotonic() - started
    assert answered < 1.0, f"the first answer took {answered:.2f} s"


def test_tables_nobody_opened_or_plays_expire(app: Starlette, client: TestClient) -> None:
    from datetime import timedelta

    from tapete.server.db import utcnow

    manager = app.state.manager
    unopened, _ = new_table(client, game="mariage")
    opened, token = new_table(client, game="mariage")
    with client.websocket_connect(f"/ws/{opened}?token={token}") as ws:
        ws.receive_json()
    wait_until("the table to be opened", lambda: opened in manager.opened)  # (beside it)
    hour = timedelta(seconds=manager.limits.unopened_ttl_s + 1)
    assert manager.sweep(utcnow() + hour) == 1
    assert client.get(f"/api/tables/{unopened}").json()["status"] == "expired"
    assert client.get(f"/api/tables/{opened}").json()["status"] == "playing"
    assert [t["table"] for t in client.get("/api/tables/live").json()] == [opened]
    week = timedelta(seconds=manager.limits.abandoned_after_s + 1)
    assert manager.sweep(utcnow() + week) == 1
    assert client.get(f"/api/tables/{opened}").json()["status"] == "abandoned"
    assert client.get("/api/tables/live").json() == []


def test_a_table_is_idle_from_its_last_action_not_its_first(
    app: Starlette, client: TestClient
) -> None:
    """The sweep finds a table's last action through the key's index (the highest ``n``):
    an action long ago followed by a recent one leaves the table playing."""
    from datetime import timedelta

    from sqlalchemy import update

    from tapete.server.db import ActionRow, utcnow

    manager = app.state.manager
    table_id, token = new_table(client, game="mariage", seed=3)
    with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
        Session(ws, random.Random(4)).play(max_actions=2)
    week = timedelta(seconds=manager.limits.abandoned_after_s)
    with manager.sessions.begin() as session:
        session.execute(update(ActionRow).values(created_at=utcnow() - 2 * week))
        last = max(session.scalars(ActionRow.__table__.select().with_only_columns(ActionRow.n)))
        session.execute(
            update(ActionRow).where(ActionRow.n == last).values(created_at=utcnow() - week / 2)
        )
    assert manager.sweep() == 0
    assert manager.sweep(utcnow() + week) == 1


def test_the_tables_to_watch_are_those_played_lately(app: Starlette, client: TestClient) -> None:
    """``GET /api/tables/live`` lists the unfinished tables with an action (before the
    first: the table's creation) within ``live_idle_s``: the Games window listed every
    unfinished table of the server, games left an hour or a day ago among them. A table
    played again is listed again."""
    from datetime import timedelta

    from sqlalchemy import update

    from tapete.server.db import ActionRow, TableRow, utcnow

    manager = app.state.manager
    idle = timedelta(seconds=manager.limits.live_idle_s + 60)
    played, token = new_table(client, game="mariage", seed=3)
    with client.websocket_connect(f"/ws/{played}?token={token}") as ws:
        me = Session(ws, random.Random(4))
        me.play(max_actions=2)
        fresh, _ = new_table(client, game="mariage", seed=5)  # (no action yet: just made)
        live = lambda: [t["table"] for t in client.get("/api/tables/live").json()]  # noqa: E731
        assert live() == [fresh, played]
        with manager.sessions.begin() as session:
            session.execute(update(ActionRow).values(created_at=utcnow() - idle))
            session.execute(update(TableRow).values(created_at=utcnow() - 2 * idle))
        assert live() == []
        me.play(max_actions=1)  # (played again: listed again)
    assert live() == [played]


def test_the_servers_own_sweep_reads_the_rows_off_the_event_loop(make_app: MakeApp) -> None:
    """Its query reads every unfinished table's last action (tens to hundreds of
    milliseconds at thousands of tables): a worker thread runs it, the loop only stops the
    tables it closed."""
    app = make_app(limits=dataclasses.replace(TEST_LIMITS, sweep_every_s=0.05))
    manager = app.state.manager
    rows, close = manager._sweep_rows, manager._close_swept
    threads: dict[str, threading.Thread] = {}
    swept = threading.Event()

    def rows_in(now: Any) -> Any:
        threads["rows"] = threading.current_thread()
        return rows(now)

    def close_in(closed: Any) -> Any:
        threads["close"] = threading.current_thread()
        swept.set()
        return close(closed)

    manager._sweep_rows, manager._close_swept = rows_in, close_in
    with TestClient(app):
        assert swept.wait(10)
    assert threads["rows"] is not threads["close"]


# ---------------------------------------------------------------------- 8. a locked database


def test_an_external_lock_neither_freezes_nor_drops_the_person(
    app: Starlette, client: TestClient, db_url: str
) -> None:
    table_id, token = new_table(client, game="mariage", seed=3)
    with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
        me = Session(ws, random.Random(4))
        view = me.wait_turn()
        version = me.version
        with write_lock(db_url):  # another program holds the write lock
            started = time.monotonic()
            me.act(view["legal"][0])
            error = me.error()
            took = time.monotonic() - started
            assert error["code"] == "not_saved", error
            assert error["detail"] == "the server could not save this action: try again"
            assert took < 1.5, f"the refusal took {took:.2f} s"
            r = client.post("/api/tables", json={"game": "mil", "name": "Ana"})
            assert r.status_code == 503 and "try again" in r.json()["error"]
            # a second connection of the person opens meanwhile
            app.state.manager.opened.clear()
            with client.websocket_connect(f"/ws/{table_id}?token={token}") as again:
                assert again.receive_json()["type"] == "view"
        # the same connection, the same version: the action goes through now
        me.waiting = False
        me.version = version
        me.act(view["legal"][0])
        while (m := me.receive())["type"] != "view" or m["version"] <= version:
            assert m["type"] != "error", m
        assert m["version"] > version


@pytest.mark.sqlite_only
def test_a_refused_write_logs_no_card(
    client: TestClient, db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The log of a refused write named the action whole, and the database's error held the
    statement's parameters: the card of a play that was then not applied, still in the
    person's hand (docs/server.md: nothing logged holds a card in play). It names the
    action's kind, and the error its statement without the parameters."""
    table_id, token = new_table(client, game="mariage", seed=3)
    with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
        me = Session(ws, random.Random(4))
        view = me.wait_turn()
        play = next(a for a in view["legal"] if a["type"] == "play")
        with caplog.at_level(logging.INFO, logger="tapete.server"), write_lock(db_url):
            me.act(play)
            assert me.error()["code"] == "not_saved"
    logged = [r.getMessage() for r in caplog.records if "refused (write)" in r.getMessage()]
    assert logged and f"action {me.version} (play)" in logged[0], logged
    card = play["card"]
    assert all(f'"{card}"' not in line and f"'{card}'" not in line for line in logged), logged


# ---------------------------------------------------------------------- 10. hints


@pytest.mark.sqlite_only
def test_hints_are_budgeted_per_seat(make_app: MakeApp) -> None:
    app = make_app(
        limits=Limits(hint_burst=3, hint_refill_s=60, create_burst=100, hint_processes=0)
    )
    with TestClient(app) as client:
        table_id, token = new_table(client, game="mariage", seed=3)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            me = Session(ws)
            me.wait_turn()
            answers = []
            for _ in range(6):
                ws.send_json({"type": "hint"})
                while (m := me.receive())["type"] not in ("hint", "error"):
                    pass
                answers.append(m.get("code", "hint"))
    assert answers == ["hint"] * 3 + ["rate_limited"] * 3


@pytest.mark.sqlite_only
def test_a_hint_flood_leaves_the_computer_players_their_moves(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The finding: 40 sockets asking for hints slowed every other table's computer moves.
    Here every hint hangs (a worker that blocks, so the test does not depend on how fast
    the machine is): the hints fill their own bounded pool and queue, the ones past the
    queue are refused at once, and another table's computer players go on making their
    moves, counted as moves served (before the fix hints and computer moves shared one
    thread pool, so the blocked hints left the computers no thread: 0 moves)."""
    release = threading.Event()

    def blocked(*args: Any, **kwargs: Any) -> Any:
        release.wait(30)
        raise RuntimeError("released")

    import tapete.bots

    monkeypatch.setattr(tapete.bots, "suggest", blocked)
    limits = dataclasses.replace(TEST_LIMITS, max_sockets_per_client=100)
    app = make_app(hint_timeout_s=30, limits=limits)
    flood = 40
    answers: list[str] = []
    with TestClient(app) as client:
        sockets = []
        try:
            for _ in range(flood):
                tid, tok = new_table(client, game="mariage", seed=3, levels=["random"])
                ws = client.websocket_connect(f"/ws/{tid}?token={tok}").__enter__()
                sockets.append(ws)
                Session(ws).wait_turn()
                ws.send_json({"type": "hint"})
            time.sleep(0.3)
            # another table: the person plays at once when it is their turn; the computer
            # players (rules, in their worker threads) must keep making their moves
            table_id, token = new_table(client, game="mil", seed=1, levels=["rules", "rules"])
            mine = 0
            with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
                me = Session(ws, random.Random(2))
                started = time.monotonic()
                while me.version - mine < 12 and time.monotonic() - started < 10:
                    v = me.wait_turn()
                    if v["over"]:
                        break
                    me.act(me.rng.choice(v["legal"]))
                    mine += 1
                computer_moves = me.version - mine
            release.set()
            for ws in sockets:
                while (m := ws.receive_json())["type"] not in ("hint", "error"):
                    pass
                answers.append(m.get("code", "hint"))
        finally:
            release.set()
            for ws in sockets:
                ws.__exit__(None, None, None)
    assert computer_moves >= 12, f"{computer_moves} computer moves in 10 s"
    # the hints past the bounded queue were refused at once, not queued without limit
    assert answers.count("rate_limited") >= flood - limits.max_pending_hints, answers


# ---------------------------------------------------------------------- 11. idle games


def test_computers_wait_for_the_person_when_nobody_is_connected(
    app: Starlette, client: TestClient
) -> None:
    """A table runs only while its person plays: with nobody connected the computer seats
    stop at the person's turn (at most one deal goes by), and the table is closed as
    abandoned after ``abandoned_after_s`` with no action."""
    table_id, token = new_table(client, game="mil", seed=1)
    with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
        Session(ws).wait_turn()
    manager = app.state.manager
    time.sleep(0.3)
    table = manager.tables.get(table_id)
    assert table is None or table.bot_task is None
    version = client.get(f"/api/tables/{table_id}").json()["version"]
    time.sleep(0.3)
    assert client.get(f"/api/tables/{table_id}").json()["version"] == version


def test_a_game_nobody_plays_to_the_end_stops_at_the_cap_on_deals(make_app: MakeApp) -> None:
    """Random play in casa-500 reached 180 deals: with no ``max_deals`` of its own a table
    stops after the cap (``Limits.max_game_deals``, else the game's ``GameKind.max_deals``)
    with no winner, and is closed as abandoned: no statistics, no Ranking, also after a
    restart."""
    limits = dataclasses.replace(TEST_LIMITS, max_game_deals=2)
    with TestClient(make_app(limits=limits)) as client:
        table_id, token = new_table(client, game="mil", profile="casa-500", seed=5, counted=True)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            last = Session(ws, random.Random(1)).play(max_actions=300)  # (2 deals: about 20)
        assert last["over"] and last["winner"] is None and len(last["sheet"]) == 2
        info = client.get(f"/api/tables/{table_id}").json()
        assert info["status"] == "abandoned" and info["winner"] is None, info
        assert info["ranked"] is False, info  # (it said true: no Ranking for it)
        assert client.get("/api/stats", params={"name": "Ana"}).json() == []
        # the player page lists it among the finished games, and it is nobody's abandonment
        # (a walkthrough's creator was charged with one for it)
        page = client.get("/api/players/Ana").json()
        assert [g["table"] for g in page["games"]] == [table_id], page
        assert page["games"][0]["winner"] is None and page["abandonments"] == 0, page
        # a table that sets its own max_deals plays them, and finishes
        other, other_token = new_table(client, game="mil", seed=5, max_deals=3, counted=True)
        assert len(_play_out(client, other, other_token)["sheet"]) == 3
        assert client.get(f"/api/tables/{other}").json()["status"] == "finished"
    with TestClient(make_app(limits=limits)) as client:  # restarted: still over, abandoned
        table = client.app.state.manager.get(table_id)  # type: ignore[attr-defined]
        assert table.game.over and table.status == "abandoned" and table.capped


def test_a_table_played_past_a_lowered_cap_still_opens(make_app: MakeApp) -> None:
    """A table with more deals than the cap (lowered since it began) is rebuilt without it."""
    with TestClient(make_app()) as client:
        table_id, token = new_table(client, game="mil", seed=5)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            me = Session(ws, random.Random(1))
            while len(me.wait_turn()["sheet"]) < 3:
                me.act(me.rng.choice(me.wait_turn()["legal"]))
            version = me.version
    limits = dataclasses.replace(TEST_LIMITS, max_game_deals=2)
    with TestClient(make_app(limits=limits)) as client:
        table = client.app.state.manager.get(table_id)  # type: ignore[attr-defined]
        assert table is not None and table.version == version and not table.game.over


@pytest.mark.sqlite_only
def test_hints_run_in_a_worker_process(make_app: MakeApp) -> None:
    """The default: a hint is computed in a worker process (not holding the event loop's
    interpreter lock); it is the same legal suggestion."""
    app = make_app(limits=Limits(hint_processes=1, create_burst=100))
    with TestClient(app) as client:
        table_id, token = new_table(client, game="mariage", seed=3)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            me = Session(ws)
            view = me.wait_turn()
            ws.send_json({"type": "hint"})
            while (m := me.receive())["type"] != "hint":
                assert m["type"] != "error", m
    assert m["action"] in view["legal"] and m["reason_key"] != "no_suggestion", m
    assert app.state.server.hint_pool.processes == 1


@pytest.mark.sqlite_only
def test_a_flood_of_the_same_list_costs_one_query(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(limits=Limits(list_cache_s=60, create_burst=100))
    with TestClient(app) as client:
        new_table(client)
        manager = app.state.manager
        calls = []
        real = manager.live_tables
        monkeypatch.setattr(
            manager, "live_tables", lambda *a, **k: calls.append(1) or real(*a, **k)
        )
        pages = [client.get("/api/tables/live").json() for _ in range(50)]
    assert len(calls) == 1 and all(p == pages[0] and len(p) == 1 for p in pages)


def test_serve_takes_trusted_hosts_and_allowed_origins() -> None:
    from tapete.cli import build_parser
    from tapete.cli.serve import _names

    args = build_parser().parse_args(
        ["serve", "--trusted-hosts", "tapete.example, localhost", "--allowed-origins", "*"]
    )
    assert _names(args.trusted_hosts) == ("tapete.example", "localhost")
    assert _names(args.allowed_origins) == ("*",)
    assert _names(build_parser().parse_args(["serve"]).trusted_hosts) is None


def test_flood_messages_of_asyncio_and_uvicorn_are_let_through_once_a_minute() -> None:
    from tapete.server.limits import OnceFilter

    now = [0.0]
    once = OnceFilter("Exceeded concurrency limit.", clock=lambda: now[0])

    def record(msg: str) -> logging.LogRecord:
        return logging.LogRecord("uvicorn.error", logging.WARNING, "x", 1, msg, None, None)

    passed = [once.filter(record("Exceeded concurrency limit.")) for _ in range(1000)]
    assert passed.count(True) == 1 and once.filter(record("something else"))
    now[0] = 61.0
    later = record("Exceeded concurrency limit.")
    assert once.filter(later) and "999 more like it" in str(later.msg)


def test_a_locked_write_holds_up_no_other_table(make_app: MakeApp, db_url: str) -> None:
    """While one table's write waits for a database another program has locked, the server
    goes on answering: another table's page and its socket answer at once (the write waits
    in the write thread, not on the event loop), and the waiting action is then refused with
    ``not_saved`` as before."""
    limits = Limits(create_burst=100_000, hint_processes=0, list_cache_s=0, busy_timeout_s=2.0)
    app = make_app(limits=limits)
    with TestClient(app) as client:
        locked_id, locked_token = new_table(client, game="mariage", seed=3)
        free_id, free_token = new_table(client, game="mariage", seed=4)
        with (
            client.websocket_connect(f"/ws/{locked_id}?token={locked_token}") as ws,
            client.websocket_connect(f"/ws/{free_id}?token={free_token}") as ws2,
        ):
            me = Session(ws, random.Random(4))
            view = me.wait_turn()
            other_me = Session(ws2, random.Random(5))
            other_me.wait_turn()
            with write_lock(db_url):  # another program holds the write lock
                started = time.monotonic()
                me.act(view["legal"][0])
                time.sleep(0.3)  # the server is in the write now, waiting for the lock
                r = client.get(f"/api/tables/{free_id}")
                page = time.monotonic() - started
                assert r.status_code == 200 and r.json()["status"] == "playing"
                ws2.send_json({"type": "sync"})
                while other_me.receive()["type"] != "view":
                    pass
                answered = time.monotonic() - started
                error = me.error()
                refused = time.monotonic() - started
        assert error["code"] == "not_saved", error
        # the other table answered while the write still waited (it gives up after 2 s)
        assert refused >= 1.8, f"the write gave up after {refused:.2f} s"
        assert page < 1.0 and answered < 1.2, (page, answered, refused)
