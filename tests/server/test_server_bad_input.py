"""Bad input: every malformed, misplaced or abusive message gets an error, changes nothing
(no stored action, same version), and leaves the connection and the game working."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from server_helpers import (
    TEST_LIMITS,
    MakeApp,
    Session,
    action_count,
    assert_hint_reason,
    new_table,
)
from starlette.applications import Starlette
from starlette.testclient import TestClient

NEVER_LEGAL = {"type": "bid", "value": 395}  # above any Mil bid limit

# (messages the server refuses before the database: SQLite only)
pytestmark = pytest.mark.sqlite_only


class Seated:
    def __init__(self, app: Starlette, client: TestClient, table_id: int, token: str) -> None:
        self.app, self.client, self.table_id, self.token = app, client, table_id, token

    def stored(self) -> int:
        return action_count(self.app, self.table_id)


@pytest.fixture
def seated(app: Starlette, client: TestClient) -> Seated:
    table_id, token = new_table(client, game="mil", seed=5, levels=["random", "random"])
    return Seated(app, client, table_id, token)


@pytest.fixture
def me(seated: Seated) -> Iterator[Session]:
    """Seat 0 after two of its own actions, at its turn (so the version is above 0)."""
    with seated.client.websocket_connect(f"/ws/{seated.table_id}?token={seated.token}") as ws:
        session = Session(ws)
        session.play(max_actions=2)
        assert session.version > 0
        yield session


def _assert_unchanged(seated: Seated, me: Session, version: int, stored: int) -> None:
    assert seated.stored() == stored == version
    me.ws.send_json({"type": "sync"})
    m = me.receive()
    assert m["type"] == "view" and m["version"] == version, m
    # and the game goes on: a legal action is accepted
    view = m["view"]
    me.act(view["legal"][0])
    me.wait_turn()
    assert me.version > version and seated.stored() == me.version


def _legal(me: Session) -> dict[str, Any]:
    assert me.view is not None
    return dict(me.view["legal"][0])


CASES: list[tuple[str, Any, str]] = [
    ("garbage", "not json{", "bad_json"),
    ("empty", "", "bad_json"),
    ("truncated", '{"type": "sync"', "bad_json"),
    ("nested", "[" * 2000 + "]" * 2000, "bad_json"),
    ("array", "[1, 2]", "bad_message"),
    ("number", "42", "bad_message"),
    ("string", '"act"', "bad_message"),
    ("null", "null", "bad_message"),
    ("no type", "{}", "bad_message"),
    ("type not a string", {"type": 5}, "bad_message"),
    ("unknown type", {"type": "dance"}, "bad_message"),
    ("sync extra field", {"type": "sync", "x": 1}, "bad_message"),
    ("hint extra field", {"type": "hint", "table": 1}, "bad_message"),
    ("act no version", {"type": "act", "action": "LEGAL"}, "bad_message"),
    ("act no action", {"type": "act", "version": "VERSION"}, "bad_message"),
    (
        "act extra field",
        {"type": "act", "version": "VERSION", "action": "LEGAL", "table": 1},
        "bad_message",
    ),
    ("version string", {"type": "act", "version": "3", "action": "LEGAL"}, "bad_message"),
    ("version bool", {"type": "act", "version": True, "action": "LEGAL"}, "bad_message"),
    ("version float", {"type": "act", "version": 1.5, "action": "LEGAL"}, "bad_message"),
    ("action list", {"type": "act", "version": "VERSION", "action": ["pass"]}, "bad_message"),
    ("action string", {"type": "act", "version": "VERSION", "action": "pass"}, "bad_message"),
    (
        "action unknown type",
        {"type": "act", "version": "VERSION", "action": {"type": "fly"}},
        "bad_message",
    ),
    ("action no type", {"type": "act", "version": "VERSION", "action": {}}, "bad_message"),
    (
        "action with seat",
        {"type": "act", "version": "VERSION", "action": "LEGAL+seat"},
        "bad_message",
    ),
    (
        "action extra field",
        {"type": "act", "version": "VERSION", "action": "LEGAL+extra"},
        "bad_message",
    ),
    (
        "bid value string",
        {"type": "act", "version": "VERSION", "action": {"type": "bid", "value": "120"}},
        "bad_message",
    ),
    (
        "bad card",
        {"type": "act", "version": "VERSION", "action": {"type": "play", "card": "ZZ"}},
        "bad_message",
    ),
    ("stale version", {"type": "act", "version": "VERSION-1", "action": "LEGAL"}, "stale_version"),
    ("future version", {"type": "act", "version": "VERSION+5", "action": "LEGAL"}, "stale_version"),
    ("illegal", {"type": "act", "version": "VERSION", "action": NEVER_LEGAL}, "illegal"),
    ("too large", '{"type": "sync", "pad": "' + "a" * 5000 + '"}', "too_large"),
]


def _fill(template: Any, me: Session) -> Any:
    if isinstance(template, str):
        return template
    out = dict(template)
    v = out.get("version")
    if isinstance(v, str) and v.startswith("VERSION"):
        out["version"] = me.version + (int(v[7:]) if len(v) > 7 else 0)
    a = out.get("action")
    if a == "LEGAL":
        out["action"] = _legal(me)
    elif a == "LEGAL+seat":
        out["action"] = {**_legal(me), "seat": 0}
    elif a == "LEGAL+extra":
        out["action"] = {**_legal(me), "colour": "red"}
    return json.dumps(out)


@pytest.mark.parametrize(("text", "code"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_message(seated: Seated, me: Session, text: Any, code: str) -> None:
    version, stored = me.version, seated.stored()
    me.ws.send_text(_fill(text, me))
    err = me.error()
    assert err["code"] == code, err
    assert isinstance(err["message"], str) and len(err["message"]) > 10
    assert isinstance(err["detail"], str) and len(err["detail"]) > 10
    _assert_unchanged(seated, me, version, stored)


def test_illegal_gets_the_engines_sentence(seated: Seated, me: Session) -> None:
    me.act({"type": "contract", "value": 395})
    err = me.error()
    assert err["code"] == "illegal" and "seat 0" in err["message"]


def test_binary_frames(seated: Seated, me: Session) -> None:
    version, stored = me.version, seated.stored()
    me.ws.send_bytes(b"\xff\xfe\x00garbage")
    assert me.error()["code"] == "bad_json"
    me.ws.send_bytes(b"x" * 5000)
    assert me.error()["code"] == "too_large"
    me.ws.send_bytes(b'{"type": "sync"}')  # UTF-8 JSON in a binary frame is read
    _assert_unchanged(seated, me, version - 0, stored)


def test_flood_is_rate_limited(make_app: MakeApp) -> None:
    app = make_app(rate_limit=20)
    with TestClient(app) as client:
        table_id, token = new_table(client, seed=5)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            me = Session(ws)
            me.wait_turn()
            version = me.version
            for _ in range(40):
                ws.send_text('{"type": "sync"}')
            codes = []
            for _ in range(40):
                m = me.receive()
                codes.append(m["type"] if m["type"] == "view" else m["code"])
            assert codes.count("rate_limited") >= 15, codes
            assert codes.count("view") <= 25
            assert action_count(app, table_id) == version
            time.sleep(1.05)
            ws.send_text('{"type": "sync"}')
            m = me.receive()
            assert m["type"] == "view" and m["version"] == version


def test_not_your_turn_and_other_tokens(make_app: MakeApp) -> None:
    # seed 1: seat 1 bids first; a long delay keeps it the computer's turn
    app = make_app(delay_ms=60_000)
    with TestClient(app) as client:
        table_id, token = new_table(client, seed=1)
        other_id, other_token = new_table(client, seed=2)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            me = Session(ws)
            first = me.receive()
            assert first["view"]["turn"] == 1 and first["view"]["legal"] == []
            me.act({"type": "pass"})  # seat 1's move, sent by seat 0
            assert me.error()["code"] == "not_your_turn"
            me.act({"type": "bid", "value": 100})
            assert me.error()["code"] == "not_your_turn"
            ws.send_json({"type": "hint"})
            assert me.error()["code"] == "not_your_turn"
            ws.send_json({"type": "sync"})
            assert me.receive()["version"] == 0
        # another table's token: an error, then a spectator who cannot act
        with client.websocket_connect(f"/ws/{table_id}?token={other_token}") as ws:
            me = Session(ws)
            assert me.receive()["code"] == "bad_token"
            m = me.receive()
            assert m["type"] == "view" and m["view"]["seat"] is None and m["view"]["hand"] == []
            me.act({"type": "pass"})
            assert me.error()["code"] == "not_your_turn"
        with client.websocket_connect(f"/ws/{table_id}") as ws:
            me = Session(ws)
            assert me.receive()["view"]["seat"] is None
            me.act({"type": "pass"})
            assert me.error()["code"] == "not_your_turn"
        assert action_count(app, table_id) == 0 and action_count(app, other_id) == 0
        r = client.get(f"/api/tables/{table_id}", params={"token": other_token})
        assert r.status_code == 403


def test_spectator_cannot_act_at_the_persons_turn(seated: Seated, me: Session) -> None:
    with seated.client.websocket_connect(f"/ws/{seated.table_id}") as ws:
        spectator = Session(ws)
        spectator.receive()
        spectator.ws.send_json({"type": "act", "version": me.version, "action": _legal(me)})
        assert spectator.error()["code"] == "not_your_turn"
        spectator.ws.send_json({"type": "hint"})
        assert spectator.error()["code"] == "not_your_turn"
    _assert_unchanged(seated, me, me.version, seated.stored())


@pytest.mark.parametrize("path", ["/ws/999999", "/ws/abc", "/ws/-1"])
def test_unknown_table(client: TestClient, path: str) -> None:
    with client.websocket_connect(path) as ws:
        m = ws.receive_json()
        assert m["type"] == "error" and m["code"] == "unknown_table"


def test_hint(seated: Seated, me: Session) -> None:
    me.ws.send_json({"type": "hint"})
    m = me.receive()
    assert m["type"] == "hint" and m["version"] == me.version
    assert me.view is not None and m["action"] in me.view["legal"]
    assert_hint_reason(m)
    assert set(m) == {"type", "version", "action", "reason", "reason_key", "reason_args"}
    assert seated.stored() == me.version


def test_hint_when_the_bot_fails(
    seated: Seated, me: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    import tapete.bots

    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("no bot today")

    monkeypatch.setattr(tapete.bots, "suggest", broken)
    me.ws.send_json({"type": "hint"})
    m = me.receive()
    assert me.view is not None and m["action"] == me.view["legal"][0]
    assert m["reason_key"] == "no_suggestion" and m["reason_args"] == {}
    assert m["reason"] == "No suggestion is available: this move is legal."


# ---------------------------------------------------------------------- HTTP

GOOD = {
    "game": "mil",
    "profile": "club",
    "name": "Ana",
    "language": "es",
    "levels": ["rules", "search"],
}

HTTP_CASES: list[tuple[str, bytes, int, str]] = [
    ("not json", b"{nope", 400, "not valid JSON: expecting property name"),
    ("empty", b"", 400, "not valid JSON: expecting value at line 1, column 1"),
    ("array", b"[]", 400, "JSON object"),
    ("nested", b"[" * 3000 + b"]" * 3000, 400, "not valid JSON: it nests too deep"),
    # (where: the line and column of the mistake)
    ("cut", b'{"game": "mil",\n "name": }', 400, "expecting value at line 2, column 10"),
    ("after the end", b'{"game": "mil"} x', 400, "extra data at line 1, column 17"),
    # (json.loads took these: the last of two values, silently; a number JSON has not)
    ("key twice", b'{"name": "Ana", "name": "Bea"}', 400, "the key 'name' is given twice"),
    ("NaN", b'{"seed": NaN}', 400, "NaN is not a JSON number"),
    ("Infinity", b'{"seed": -Infinity}', 400, "-Infinity is not a JSON number"),
    ("not UTF-8", b'{"name": "Jos\xe9"}', 400, "not UTF-8 text at byte 14"),
    ("too large", b'{"name": "' + b"a" * 20000 + b'"}', 413, "larger than"),
]


def _body(**change: Any) -> bytes:
    data = dict(GOOD)
    data.update(change)
    return json.dumps({k: v for k, v in data.items() if v is not ...}).encode()


HTTP_CASES += [
    ("unknown game", _body(game="poker"), 400, "'game'"),
    ("no game", _body(game=...), 400, "'game'"),
    ("bad profile", _body(profile="mariage"), 400, "'profile'"),
    ("no name", _body(name=...), 400, "'name'"),
    ("empty name", _body(name="   "), 400, "'name'"),
    ("name not a string", _body(name=7), 400, "'name'"),
    ("long name", _body(name="x" * 33), 400, "'name'"),
    ("control chars", _body(name="A\x07na"), 400, "'name'"),
    ("bad language", _body(language="de"), 400, "'language'"),
    ("levels count", _body(levels=["rules"]), 400, "'levels'"),
    ("levels unknown", _body(levels=["rules", "god"]), 400, "'levels'"),
    ("levels not list", _body(levels="rules"), 400, "'levels'"),
    ("mariage levels", _body(game="mariage", profile="mariage"), 400, "'levels'"),
    ("extra field", _body(colour="red"), 400, "unknown field"),
    ("seed string", _body(seed="7"), 400, "'seed'"),
    ("seed negative", _body(seed=-1), 400, "'seed'"),
    ("max_deals zero", _body(max_deals=0), 400, "'max_deals'"),
    ("max_deals bool", _body(max_deals=True), 400, "'max_deals'"),
    # a start position is for tests and administrators (TableManager.create), not clients
    ("start position", _body(start={"scores": [990, 0, 0]}), 400, "unknown field"),
]


@pytest.mark.parametrize(
    ("body", "status", "words"), [c[1:] for c in HTTP_CASES], ids=[c[0] for c in HTTP_CASES]
)
def test_create_table_rejects(
    app: Starlette, client: TestClient, body: bytes, status: int, words: str
) -> None:
    r = client.post("/api/tables", content=body, headers={"content-type": "application/json"})
    assert r.status_code == status, r.text
    assert words in r.json()["error"]
    assert client.get("/api/tables", params={"name": "Ana"}).json() == []


def test_create_table_accepts_defaults(client: TestClient) -> None:
    r = client.post("/api/tables", json={"game": "mariage", "name": "  Ana  "})
    assert r.status_code == 201
    info = client.get(f"/api/tables/{r.json()['table']}").json()
    assert info["players"][0] == "Ana" and info["seat"] is None and info["profile"] == "mariage"
    assert info["levels"] == [None, "rules"] and "seed" not in info


@pytest.mark.parametrize(
    ("url", "status"),
    [
        ("/api/tables", 400),
        ("/api/tables?name=", 400),
        ("/api/stats", 400),
        ("/api/stats?name=" + "x" * 40, 400),
        ("/api/ranking?target=900", 400),
        ("/api/ranking?game=poker", 400),
        ("/api/ranking?game=mariage&target=1000", 400),
        ("/api/ranking?limit=0", 400),
        ("/api/ranking?limit=x", 400),
        ("/api/ranking?colour=red", 400),
        ("/api/tables/999999", 404),
        ("/api/tables/abc", 404),
        ("/api/tables/999999/record", 404),
        ("/rules/poker?lang=es", 404),
        ("/rules/club?lang=de", 404),
        ("/rules/..%2Fapp?lang=es", 404),
    ],
)
def test_http_queries_rejected(client: TestClient, url: str, status: int) -> None:
    r = client.get(url)
    assert r.status_code == status, r.text
    if url.startswith("/api"):
        assert r.json()["error"]


@pytest.mark.parametrize(
    ("url", "known"),
    [
        ("/api/tables?name=Ana&limt=5", "name, limit, before"),
        ("/api/tables/live?limt=5", "limit, before"),
        ("/api/stats?name=Ana&game=mil", "name"),
        ("/api/ranking?limt=5", "target, game, limit, offset"),
    ],
)
def test_an_unknown_query_parameter_is_named(client: TestClient, url: str, known: str) -> None:
    """A mistyped parameter of a list (``limt=5``) gave the default page without a word;
    only the Ranking refused it."""
    r = client.get(url)
    assert r.status_code == 400, r.text
    unknown = url.split("&")[-1].split("?")[-1].split("=")[0]
    assert r.json() == {"error": f"unknown parameter(s) {unknown}: {known}"}


def test_error_messages_speak_the_tables_language(client: TestClient) -> None:
    for language, words in [
        ("es", "No es tu turno"),
        ("pt", "Não é a sua vez"),
        ("en", "not your turn"),
    ]:
        table_id, _ = new_table(client, seed=5, language=language)
        with client.websocket_connect(f"/ws/{table_id}") as ws:
            spectator = Session(ws)
            spectator.receive()
            spectator.act({"type": "pass"})
            err = spectator.error()
            assert err["code"] == "not_your_turn"
            assert words.lower() in err["message"].lower(), err
            assert err["detail"] == "spectators cannot act at this table"


def test_a_socket_a_table_refuses_is_told_in_the_tables_language(make_app: MakeApp) -> None:
    """``no_spectators`` and ``too_many`` come once the table is known: they were worded
    in the language of ``?lang=`` (English without it), not the table's."""
    limits = dataclasses.replace(TEST_LIMITS, max_sockets_per_table=1)
    with TestClient(make_app(limits=limits)) as c:
        table_id, token = new_table(c, seed=5, language="pt", spectators=False)
        with c.websocket_connect(f"/ws/{table_id}") as ws:
            err = ws.receive_json()
            assert err["code"] == "no_spectators"
            assert err["message"] == "Nesta mesa não se pode assistir.", err
        with c.websocket_connect(f"/ws/{table_id}?token={token}") as mine:
            Session(mine).receive()
            with c.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
                err = ws.receive_json()
                assert err["code"] == "too_many"
                assert err["message"] == "Há conexões demais: tente mais tarde.", err


def json_values(
    finite: bool = False, keys: st.SearchStrategy[Any] | None = None
) -> st.SearchStrategy[Any]:
    """JSON values (integers past 64 bits too); ``finite``: no NaN nor infinity; ``keys``:
    the dicts' keys (any text by default)."""
    return st.recursive(
        st.none()
        | st.booleans()
        | st.integers(min_value=-(10**40), max_value=10**40)
        | st.floats(allow_nan=not finite, allow_infinity=not finite)
        | st.text(),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(keys if keys is not None else st.text(), inner, max_size=4)
        ),
        max_leaves=12,
    )


@settings(max_examples=300, deadline=None)
@given(value=json_values(), spaced=st.booleans())
def test_a_message_is_read_as_the_standard_library_reads_it(value: Any, spaced: bool) -> None:
    """``app.read_json`` (orjson where it agrees with the standard library) gives the same
    values, types included (an integer of 20 digits stays an integer, NaN stays NaN)."""
    from tapete.server.app import read_json

    text = json.dumps(value) if spaced else json.dumps(value, separators=(",", ":"))
    assert repr(read_json(text)) == repr(json.loads(text))


@pytest.mark.parametrize(
    "text",
    [
        '{"a":"\\ud800"}',
        "[" * 3000 + "]" * 3000,
        '{"a":1,"a":2}',
        '{"a":',
        "NaN",
        "-0",
        "-9223372036854775809",  # (19 digits below -2**63: orjson read a float)
        '{"version":-9999999999999999999}',
        "18446744073709551616",
    ],
)
def test_odd_json_is_read_as_the_standard_library_reads_it(text: str) -> None:
    from tapete.server.app import read_json

    try:
        expected: Any = repr(json.loads(text))
    except (ValueError, RecursionError) as exc:
        expected = type(exc)
    try:
        got: Any = repr(read_json(text))
    except (ValueError, RecursionError) as exc:
        got = type(exc)
    assert got == expected


@settings(max_examples=200, deadline=None)
@given(value=json_values(finite=True, keys=st.text(alphabet="abñ€") | st.integers(-3, 3)))
def test_a_message_is_written_as_compact_json(value: Any) -> None:
    """``tables.message_text`` (orjson, then orjson with integer keys, then the standard
    library for integers past 64 bits) writes what ``json.dumps`` would mean: the same
    value read back, integer keys as strings, non-ASCII text as itself (UTF-8 on the wire)."""
    from tapete.server.tables import message_text

    message = {"type": "view", "value": value}
    text = message_text(message)
    assert json.loads(text) == json.loads(json.dumps(message))
    assert all(ch in text for ch in "ñ€" if ch in json.dumps(message, ensure_ascii=False))
    text.encode()  # (a frame's text is UTF-8: a lone surrogate goes escaped)


@pytest.mark.parametrize(
    "message",
    [{"text": "\ud800"}, {"text": "ñ\udfff", "n": 10**30}, {"n": 10**30, "text": "ñ"}, {1: "ñ"}],
)
def test_messages_orjson_refuses_are_still_written(message: dict[Any, Any]) -> None:
    from tapete.server.tables import message_text

    text = message_text(message)
    text.encode()
    assert json.loads(text) == json.loads(json.dumps(message))
