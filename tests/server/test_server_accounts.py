"""Accounts (tapete.server.accounts) through the app: argon2id hashes, sign up / in / out,
the session cookie and its flags, expiry, the CSRF token and origin checks, the sign-in
rate limits and the one generic error, the identity middleware for HTTP and WebSocket, the
player page and the rating leaderboards, and the migration."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from argon2 import PasswordHasher
from db_helpers import write_lock
from server_helpers import MakeApp, Session, new_table
from sqlalchemy import inspect, select
from starlette.applications import Starlette
from starlette.testclient import TestClient

from tapete.server import ratings
from tapete.server.accounts import (
    COOKIE_NAME,
    Accounts,
    Identity,
    SessionRow,
    User,
    UserRow,
    check_user_name,
)
from tapete.server.db import Base, utcnow
from tapete.server.limits import TokenBuckets

PASSWORD = "correct horse"


class CountingHasher(PasswordHasher):
    """argon2id with the cheapest parameters (tests), counting verifications."""

    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=8, parallelism=1)
        self.verified = 0

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        self.verified += 1
        return super().verify(hash, password)


@pytest.fixture
def app(make_app: MakeApp) -> Starlette:
    app = make_app()
    app.state.accounts.hasher = CountingHasher()
    return app


@pytest.fixture
def client(app: Starlette) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def _accounts(app: Starlette) -> Accounts:
    accounts = app.state.accounts
    assert isinstance(accounts, Accounts)
    return accounts


def sign_up(client: TestClient, name: str = "Ana", password: str = PASSWORD) -> dict[str, Any]:
    """A new account, signed in (in place of any account signed in before)."""
    client.cookies.clear()
    r = client.post("/api/signup", json={"name": name, "password": password})
    assert r.status_code == 201, r.text
    body: dict[str, Any] = r.json()
    return body


def test_sign_up_stores_an_argon2id_hash_and_signs_in(app: Starlette, client: TestClient) -> None:
    body = sign_up(client, "Ana")
    assert body["user"]["name"] == "Ana" and body["csrf"]
    with _accounts(app).sessions() as s:
        row = s.scalars(select(UserRow)).one()
        sessions = list(s.scalars(select(SessionRow)))
    assert row.password_hash.startswith("$argon2id$") and PASSWORD not in row.password_hash
    assert PasswordHasher().verify(row.password_hash, PASSWORD)
    # the database keeps the cookie's hash, not the cookie
    cookie = client.cookies[COOKIE_NAME]
    assert len(sessions) == 1 and sessions[0].id_hash != cookie and len(cookie) >= 43
    assert client.get("/api/me").json() == {"user": body["user"], "csrf": body["csrf"]}


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("an", "3 to 24 characters"),
        ("x" * 25, "3 to 24 characters"),
        ("Ana Lu", "found ' '"),
        ("ana<b>", "found '<'"),
        ("_ana", "begin with a letter or a digit"),
        ("x²y", "found '²'"),
        # (24 ligatures: a case-folded key of 72 characters, a 500 on PostgreSQL)
        ("\ufb03" * 24, "must write 'ﬃ' as 'ffi', its plain form"),
        ("Ａna", "must write 'Ａ' as 'A'"),
        (7, "must be a string"),
    ],
)
def test_bad_user_names_are_refused_with_the_reason(
    client: TestClient, name: Any, message: str
) -> None:
    r = client.post("/api/signup", json={"name": name, "password": PASSWORD})
    assert r.status_code == 400 and message in r.json()["error"], r.text


def test_user_names_of_any_alphabet_and_unique_in_any_case(client: TestClient) -> None:
    assert check_user_name("João.Silva-2") == "João.Silva-2"
    sign_up(client, "João")
    client.cookies.clear()
    r = client.post("/api/signup", json={"name": "JOÃO", "password": PASSWORD})
    assert r.status_code == 409 and "taken" in r.json()["error"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"name": "Ana", "password": "short"}, "8 to 256 characters"),
        ({"name": "Anabela1", "password": "ANABELA1"}, "must not be the user name"),
        ({"name": "Ana"}, "missing field(s) 'password'"),
        ({"name": "Ana", "password": PASSWORD, "admin": True}, "unknown field(s) 'admin'"),
    ],
)
def test_bad_sign_up_bodies(client: TestClient, body: dict[str, Any], message: str) -> None:
    r = client.post("/api/signup", json=body)
    assert r.status_code == 400 and message in r.json()["error"], r.text


def test_a_form_post_is_refused(client: TestClient) -> None:
    r = client.post(
        "/api/signin",
        content=b"name=Ana&password=x",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 415


def test_wrong_password_and_unknown_name_give_the_same_answer_after_the_same_work(
    app: Starlette, client: TestClient
) -> None:
    sign_up(client, "Ana")
    client.post("/api/signout", headers={"x-csrf-token": client.get("/api/me").json()["csrf"]})
    hasher = _accounts(app).hasher
    assert isinstance(hasher, CountingHasher)
    before = hasher.verified
    wrong = client.post("/api/signin", json={"name": "Ana", "password": "not it at all"})
    unknown = client.post("/api/signin", json={"name": "Nobody", "password": "not it at all"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() == {"error": "wrong user name or password"}
    assert hasher.verified - before == 2  # the unknown name was checked against a dummy hash
    assert COOKIE_NAME not in client.cookies
    # a password longer than any account's is wrong, even when it begins with the right one
    long = client.post("/api/signin", json={"name": "Ana", "password": PASSWORD + "x" * 300})
    assert long.status_code == 401 and hasher.verified - before == 3
    ok = client.post("/api/signin", json={"name": "ANA", "password": PASSWORD})
    assert ok.status_code == 200 and ok.json()["user"]["name"] == "Ana"


def test_sign_in_is_rate_limited_per_address_and_per_name(
    app: Starlette, client: TestClient
) -> None:
    sign_up(client, "Ana")
    client.cookies.clear()
    clock = [0.0]
    accounts = _accounts(app)
    accounts.by_address = TokenBuckets(100, 1.0, clock=lambda: clock[0])
    accounts.by_name = TokenBuckets(3, 30.0, clock=lambda: clock[0])
    for _ in range(3):
        r = client.post("/api/signin", json={"name": "ana", "password": "guess guess"})
        assert r.status_code == 401
    # the fourth attempt on this name is refused, even with the right password
    r = client.post("/api/signin", json={"name": "Ana", "password": PASSWORD})
    assert r.status_code == 429 and r.headers["retry-after"] == "30", r.text
    # another name from the same address is not held back by Ana's bucket
    assert client.post("/api/signin", json={"name": "Bea", "password": "x" * 8}).status_code == 401
    clock[0] += 30.0
    assert client.post("/api/signin", json={"name": "Ana", "password": PASSWORD}).status_code == 200
    # per address: many names from one address
    client.cookies.clear()
    accounts.by_address = TokenBuckets(2, 60.0, clock=lambda: clock[0])
    accounts.by_name = TokenBuckets(100, 1.0, clock=lambda: clock[0])
    for name in ("Caio", "Dora"):
        assert (
            client.post("/api/signin", json={"name": name, "password": "x" * 8}).status_code == 401
        )
    r = client.post("/api/signin", json={"name": "Eva", "password": "x" * 8})
    assert r.status_code == 429 and "sign-in attempts" in r.json()["error"]
    r = client.post("/api/signup", json={"name": "Eva", "password": PASSWORD})
    assert r.status_code == 429  # sign-ups take from the same address bucket


def test_a_session_expires(app: Starlette, client: TestClient, db_url: str) -> None:
    now = [utcnow()]
    _accounts(app).clock = lambda: now[0]
    sign_up(client)
    now[0] += timedelta(days=29)
    assert client.get("/api/me").json()["user"]["name"] == "Ana"
    now[0] += timedelta(days=1, seconds=1)
    assert client.get("/api/me").json() == {"user": None, "csrf": None}
    with _accounts(app).sessions() as s:
        assert s.scalars(select(SessionRow)).first() is None  # the expired one is gone
    # an expired session read while another program holds the write lock: signed out all
    # the same (its row is deleted at a later look), not a 503
    sign_up(client, "Dora")
    now[0] += timedelta(days=31)
    with write_lock(db_url):
        assert client.get("/api/me").json() == {"user": None, "csrf": None}
    assert client.get("/api/me").json() == {"user": None, "csrf": None}
    client.cookies.clear()
    # a session that expires unseen goes when another one is made
    sign_up(client, "Bea")
    now[0] += timedelta(days=31)
    caio = sign_up(client, "Caio")
    with _accounts(app).sessions() as s:
        assert [r.user_id for r in s.scalars(select(SessionRow))] == [caio["user"]["id"]]


def test_sign_out_ends_the_session_for_good(client: TestClient) -> None:
    csrf = sign_up(client)["csrf"]
    cookie = client.cookies[COOKIE_NAME]
    r = client.post("/api/signout", headers={"x-csrf-token": csrf})
    assert r.status_code == 200 and r.json() == {"user": None, "csrf": None}
    assert f"{COOKIE_NAME}=" in r.headers["set-cookie"] and "Max-Age=0" in r.headers["set-cookie"]
    # the old cookie, sent again, opens nothing
    client.cookies.set(COOKIE_NAME, cookie)
    assert client.get("/api/me").json()["user"] is None


def test_state_changing_requests_need_the_csrf_token(client: TestClient) -> None:
    body = {"game": "mariage", "name": "Ana", "levels": ["random"]}
    # a guest (no session) creates tables as before
    assert client.post("/api/tables", json=body).status_code == 201
    csrf = sign_up(client)["csrf"]
    for headers in ({}, {"x-csrf-token": "forged"}, {"x-csrf-token": csrf[:-1]}):
        r = client.post("/api/tables", json=body, headers=headers)
        assert r.status_code == 403 and "X-CSRF-Token" in r.json()["error"], headers
        r = client.post("/api/signout", headers=headers)
        assert r.status_code == 403
    assert client.get("/api/me").json()["user"] is not None  # still signed in
    assert client.post("/api/tables", json=body, headers={"x-csrf-token": csrf}).status_code == 201


def test_a_state_changing_request_from_another_site_is_refused(client: TestClient) -> None:
    evil = {"origin": "https://evil.example"}
    r = client.post("/api/signin", json={"name": "Ana", "password": PASSWORD}, headers=evil)
    assert r.status_code == 403 and "evil.example" in r.json()["error"]
    r = client.post("/api/tables", json={"game": "mariage", "name": "A"}, headers=evil)
    assert r.status_code == 403
    own = {"origin": "http://testserver"}
    assert (
        client.post(
            "/api/signup", json={"name": "Ana", "password": PASSWORD}, headers=own
        ).status_code
        == 201
    )


def test_cookie_flags_over_http_https_and_with_secure_cookies(
    make_app: MakeApp, app: Starlette
) -> None:
    with TestClient(app) as client:
        cookie = client.post("/api/signup", json={"name": "Ana", "password": PASSWORD}).headers[
            "set-cookie"
        ]
    flags = [f.strip().lower() for f in cookie.split(";")]
    assert "httponly" in flags and "samesite=lax" in flags and "path=/" in flags
    assert "secure" not in flags
    with TestClient(app, base_url="https://testserver") as client:
        cookie = client.post("/api/signup", json={"name": "Bea", "password": PASSWORD}).headers[
            "set-cookie"
        ]
    assert "secure" in [f.strip().lower() for f in cookie.split(";")]
    secure_app = make_app(secure_cookies=True)
    secure_app.state.accounts.hasher = CountingHasher()
    with TestClient(secure_app) as client:
        cookie = client.post("/api/signup", json={"name": "Caio", "password": PASSWORD}).headers[
            "set-cookie"
        ]
    assert "secure" in [f.strip().lower() for f in cookie.split(";")]


async def _run_identity(accounts: Accounts, scope: dict[str, Any]) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    async def inner(scope: Any, receive: Any, send: Any) -> None:
        seen.update(scope)

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    async def send(message: Any) -> None:
        seen["sent"] = message

    await Identity(inner, accounts=accounts)(scope, receive, send)
    return seen


def test_the_middleware_sets_the_user_for_http_and_websocket(
    app: Starlette, client: TestClient
) -> None:
    user = sign_up(client)["user"]
    cookie = client.cookies[COOKIE_NAME]
    accounts = _accounts(app)
    for kind in ("http", "websocket"):
        scope = {
            "type": kind,
            "method": "GET",
            "path": "/ws/1",
            "headers": [(b"cookie", f"{COOKIE_NAME}={cookie}".encode())],
            "state": {"other": 1},
        }
        seen = asyncio.run(_run_identity(accounts, scope))
        assert seen["state"]["user"] == User(user["id"], "Ana") and seen["state"]["other"] == 1
        scope["headers"] = [(b"cookie", f"{COOKIE_NAME}=not-a-session".encode())]
        scope["state"] = {"other": 1}  # (a new request's scope)
        assert asyncio.run(_run_identity(accounts, scope))["state"]["user"] is None
        scope["headers"] = []
        scope["state"] = {"other": 1}
        assert asyncio.run(_run_identity(accounts, scope))["state"]["user"] is None


def test_the_table_websocket_still_opens_with_a_session_cookie(client: TestClient) -> None:
    table_id, token = new_table(client, game="mariage", levels=["random"])
    sign_up(client)
    with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
        ws.send_json({"type": "sync"})
        assert ws.receive_json()["type"] == "view"


def test_player_page_and_leaderboards(app: Starlette, client: TestClient) -> None:
    ids = [sign_up(client, n)["user"]["id"] for n in ("Ana", "Bea", "Caio")]
    with app.state.manager.sessions.begin() as s:
        ratings.rate_game(s, "mil-1000", [ids[2], ids[0], ids[1]])
        ratings.rate_game(s, "mil-1000", [ids[2], ids[1], ids[0]], [0, 1, 1])
    board = client.get("/api/ratings/mil-1000").json()
    # Ana was 2nd, then 2nd with Bea (Bea was 3rd before)
    assert [r["name"] for r in board] == ["Caio", "Ana", "Bea"]
    assert board[0]["place"] == 1 and board[0]["games"] == 2 and board[0]["provisional"]
    assert board[0]["ordinal"] == pytest.approx(board[0]["mu"] - 3 * board[0]["sigma"], abs=0.02)
    assert client.get("/api/ratings/mil-500").json() == []
    r = client.get("/api/ratings/chess")
    assert r.status_code == 404 and "mil-1000" in r.json()["error"]
    assert client.get("/api/ratings/mariage?limit=0").status_code == 400
    page = client.get("/api/players/caio").json()
    assert page["name"] == "Caio" and page["account"] and page["abandonments"] == 0
    (rating,) = page["ratings"]
    assert rating["pool"] == "mil-1000" and [h["place"] for h in rating["history"]] == [1, 1]
    assert rating["history"][1]["before"] == rating["history"][0]["ordinal"]
    guest = client.get("/api/players/Someone").json()
    assert guest == {
        "name": "Someone",
        "account": False,
        "stats": [],
        "ratings": [],
        "games": [],
        "abandonments": 0,
    }


def test_player_page_lists_finished_games_with_links(client: TestClient) -> None:
    table_id, token = new_table(
        client, counted=True, game="mariage", seed=3, levels=["random"], name="Lia", max_deals=1
    )
    with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
        assert Session(ws).play()["over"]
    page = client.get("/api/players/Lia").json()
    (game,) = page["games"]
    assert game["table"] == table_id and game["record"] == f"/api/tables/{table_id}/record"
    assert game["replay"] == f"/?replay={table_id}"
    assert client.get(game["record"]).json()["format"].startswith("tapete")
    assert page["stats"][0]["games"] == 1


def test_the_migration_makes_the_tables_the_models_describe(app: Starlette) -> None:
    engine = app.state.manager.sessions.kw["bind"]
    mine = {"users", "sessions", "ratings", "rating_history"}
    assert mine <= set(inspect(engine).get_table_names())
    with engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    # (other tables' differences are their migrations' business)
    assert [d for d in diffs if any(f"'{t}'" in repr(d) for t in mine)] == []


def test_the_hook_is_registered_when_the_manager_has_finish_hooks(
    make_app: MakeApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tapete.server.tables import TableManager

    monkeypatch.setattr(TableManager, "finish_hooks", [], raising=False)
    app = make_app()
    assert app.state.manager.finish_hooks == [ratings.hook]


def test_serve_takes_secure_cookies() -> None:
    from tapete.cli import build_parser

    assert build_parser().parse_args(["serve", "--secure-cookies"]).secure_cookies is True
    assert build_parser().parse_args(["serve"]).secure_cookies is False


def test_a_player_page_refuses_a_name_no_one_can_have(client: TestClient) -> None:
    for bad in ("x" * 33, "%20", "a%07b"):
        r = client.get(f"/api/players/{bad}")
        assert r.status_code == 400 and "1 to 32 printable characters" in r.json()["error"], bad
    assert client.get("/api/players/Ana%20%20Lu").json()["name"] == "Ana Lu"  # as guests' names
