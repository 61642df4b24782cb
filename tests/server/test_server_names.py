"""Names that look alike through the server (docs/server.md, "Names that look alike"): every
path that takes a new name (sign-up, a new table, a sit-down from the Lobby or by an
invitation, a quick game) refuses one that mixes scripts, with the field, the letters and a
code the web client words in its language; a new account may not look like an older one
(a stored skeleton, unique, made for the accounts already there by the migration); nobody
sits down at a table under a name like a seated person's; finding a player takes any name.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from argon2 import PasswordHasher
from db_helpers import revisions, upgrade_to
from server_helpers import MakeApp
from starlette.applications import Starlette
from starlette.testclient import TestClient

from tapete.server.db import make_engine, upgrade
from tapete.server.tables import bot_names

PASSWORD = "correct horse"
#: "Ana" with a Cyrillic А
MIXED = "\u0410na"
WHY = "mixes Cyrillic and Latin letters ('А' is Cyrillic, 'n' is Latin)"


@pytest.fixture
def app(make_app: MakeApp) -> Starlette:
    app = make_app()
    app.state.accounts.hasher = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    return app


@pytest.fixture
def client(app: Starlette) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def _refused(r: Any, status: int, code: str, start: str) -> None:
    assert r.status_code == status, r.text
    body = r.json()
    assert body["code"] == code and body["error"].startswith(start), body


def _sign_up(client: TestClient, name: str) -> Any:
    client.cookies.clear()
    return client.post("/api/signup", json={"name": name, "password": PASSWORD})


def test_a_user_name_in_two_scripts_is_refused(client: TestClient) -> None:
    _refused(_sign_up(client, MIXED + "_x"), 400, "name_scripts", f"the user name {WHY}")
    assert _sign_up(client, "Мария").status_code == 201  # (one script: Cyrillic)


def test_a_new_account_may_not_look_like_an_older_one(client: TestClient) -> None:
    assert _sign_up(client, "Bob").status_code == 201
    for alike in ("\u0412\u041e\u0412", "B0b", "BOB".replace("O", "0")):  # Cyrillic ВОВ
        _refused(
            _sign_up(client, alike),
            409,
            "name_look_alike",
            f"the user name {alike!r} looks like the account name 'Bob'",
        )
    taken = _sign_up(client, "bob")  # (the same name in another case: taken, as before)
    assert taken.status_code == 409 and "code" not in taken.json()
    assert _sign_up(client, "Isa").status_code == 201
    _refused(_sign_up(client, "lsa"), 409, "name_look_alike", "the user name 'lsa' looks like")
    assert _sign_up(client, "Bobby").status_code == 201


def test_a_look_alike_account_made_meanwhile_is_named_as_the_check_names_it(
    app: Starlette, client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two sign-ups at once: the second passes the check before the first is stored, and the
    unique index on the skeleton refuses its row. Its answer is the check's (which account
    its name looks like, with the code), not a bare "taken"."""
    accounts = app.state.accounts
    real = accounts._name_refusal
    calls: list[str] = []

    def before_the_other_stored(session: Any, name: str) -> Any:
        calls.append(name)
        if len(calls) % 2:  # each sign-up's check, made before the other one's commit
            return None
        return real(session, name)  # (the answer once its row is refused)

    assert _sign_up(client, "Bob").status_code == 201
    monkeypatch.setattr(accounts, "_name_refusal", before_the_other_stored)
    r = _sign_up(client, "B0b")
    _refused(r, 409, "name_look_alike", "the user name 'B0b' looks like the account name 'Bob'")
    r = _sign_up(client, "BOB")  # (the same name: the name key's index, "taken")
    assert r.status_code == 409 and "is taken" in r.json()["error"], r.text
    assert calls == ["B0b", "B0b", "BOB", "BOB"]


def test_every_path_that_takes_a_guests_name_refuses_two_scripts(client: TestClient) -> None:
    mariage = {"game": "mariage", "profile": "mariage", "language": "en"}
    r = client.post("/api/tables", json={**mariage, "name": MIXED, "levels": ["random"]})
    _refused(r, 400, "name_scripts", f"'name' {WHY}")
    _refused(client.post("/api/quick", json={**mariage, "name": MIXED}), 400, "name_scripts", "")
    # a seat by an invitation, and an open seat of a table in the Lobby
    seats = [{"kind": "me"}, {"kind": "invited"}]
    made = client.post("/api/tables", json={**mariage, "name": "Bea", "seats": seats}).json()
    path = f"/api/tables/{made['table']}/seats"
    r = client.post(path, json={"name": MIXED, "invite": made["invite"]})
    _refused(r, 400, "name_scripts", f"'name' {WHY}")
    listed = {**mariage, "name": "Bea", "seats": [{"kind": "me"}, {"kind": "open"}]}
    lobby = client.post("/api/tables", json={**listed, "public": True}).json()
    r = client.post(f"/api/tables/{lobby['table']}/seats", json={"name": MIXED})
    _refused(r, 400, "name_scripts", "")
    assert client.post(path, json={"name": "Мария", "invite": made["invite"]}).status_code == 201
    # finding a player takes any name (names played under before the rule)
    assert client.get("/api/stats", params={"name": MIXED}).status_code == 200
    assert client.get("/api/tables", params={"name": MIXED}).status_code == 200


def test_nobody_sits_down_under_a_name_like_a_seated_persons(client: TestClient) -> None:
    seats = [{"kind": "me"}, {"kind": "invited"}]
    body = {"game": "mariage", "name": "Bob", "seats": seats}
    made = client.post("/api/tables", json=body).json()
    path = f"/api/tables/{made['table']}/seats"
    for alike in ("\u0412\u041e\u0412", "B0B", "bob"):
        r = client.post(path, json={"name": alike, "invite": made["invite"]})
        _refused(r, 409, "name_taken", "someone at this table is already called 'Bob'")
    assert client.post(path, json={"name": "Rob", "invite": made["invite"]}).status_code == 201


@pytest.mark.parametrize(("seated", "other"), [("IRIS", "Iris"), ("Ана", "АНА")])
def test_nobody_sits_down_under_a_seated_persons_name_in_another_case(
    client: TestClient, seated: str, other: str
) -> None:
    """The same name in another case is that name, as it was before the look-alikes (whose
    skeleton takes a capital I as an l, a Cyrillic Н as an H, and not their small letters:
    two cases of one name, two skeletons)."""
    seats = [{"kind": "me"}, {"kind": "invited"}]
    made = client.post("/api/tables", json={"game": "mariage", "name": seated, "seats": seats})
    path = f"/api/tables/{made.json()['table']}/seats"
    r = client.post(path, json={"name": other, "invite": made.json()["invite"]})
    _refused(r, 409, "name_taken", f"someone at this table is already called {seated!r}")


def test_the_computers_names_keep_clear_of_the_peoples() -> None:
    assert bot_names(["D0RA", "carla"], 4) == ["Bruno", "Emil"]
    assert bot_names(["EMIL"], 4) == ["Bruno", "Carla", "Dora"]  # (Emil in another case)


def test_the_migration_gives_each_older_account_its_skeleton(db_url: str) -> None:
    """A database of the revision before the skeleton, holding accounts whose names look
    alike: the oldest of them gets the skeleton, the later ones keep their names without
    one; the schema is then the models' (the migration tests compare them)."""
    engine = make_engine(db_url)
    try:
        chain = revisions()
        assert chain[-1] == "0012_user_skeleton"
        upgrade_to(engine, chain[-2])
        names = ["Ana", MIXED, "Bob", "B0b", "Мария"]
        with engine.begin() as connection:
            for name in names:
                connection.execute(
                    sa.text(
                        "INSERT INTO users (name, name_key, password_hash, created_at) "
                        "VALUES (:name, :key, 'x', CURRENT_TIMESTAMP)"
                    ),
                    {"name": name, "key": name.casefold()},
                )
        upgrade(engine)
        with engine.connect() as connection:
            rows = connection.execute(sa.text("SELECT name, skeleton FROM users ORDER BY id"))
            assert [tuple(row) for row in rows] == [
                ("Ana", "ana"),
                (MIXED, None),
                ("Bob", "bob"),
                ("B0b", None),
                ("Мария", "map\u0438\u044f"),  # (М, а and р as the Latin m, a and p)
            ]
            indexes = {i["name"]: i for i in sa.inspect(connection).get_indexes("users")}
            assert indexes["ix_users_skeleton"]["unique"]
    finally:
        engine.dispose()


def test_sign_up_after_the_migration_meets_the_older_accounts(
    db_url: str, make_app: MakeApp
) -> None:
    """Accounts made before the rule count: a new name like theirs is refused."""
    engine = make_engine(db_url)
    try:
        upgrade_to(engine, revisions()[-2])
        with engine.begin() as connection:
            connection.execute(
                sa.text(
                    "INSERT INTO users (name, name_key, password_hash, created_at) "
                    "VALUES ('Pop', 'pop', 'x', CURRENT_TIMESTAMP)"
                )
            )
    finally:
        engine.dispose()
    app = make_app()
    app.state.accounts.hasher = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
    with TestClient(app) as client:
        r = _sign_up(client, "\u0420\u043e\u0440")  # Cyrillic Рор
        _refused(r, 409, "name_look_alike", "the user name 'Рор' looks like the account name")
