"""Statistics and Ranking arithmetic, computer-player faults, rules pages and static files,
migrations, and a check that the card oracle of the other tests does catch a leak."""

from __future__ import annotations

import json
import logging
import random
import time
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from server_helpers import MakeApp, Oracle, Received, Session, check_no_leak, new_table
from sqlalchemy import event, select
from sqlalchemy.orm import Session as DBSession
from starlette.applications import Starlette
from starlette.testclient import TestClient

import tapete.bots
from tapete.cards import CARD_NAMES, bits
from tapete.server import stats
from tapete.server.db import TableRow, make_engine, upgrade


def _result(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "annulled": False,
        "declarer": None,
        "bid": None,
        "contract": None,
        "rospis": False,
        "raw": None,
        "scores": [0, 0, 0],
        "bolts": [0, 0, 0],
        "in_barrel": [False, False, False],
        "barrel_attempts": [0, 0, 0],
        "failed_visits": [0, 0, 0],
    }
    base.update(kw)
    return base


MIL_RECORD: dict[str, Any] = {
    "format": "tapete/1",
    "game": "mil",
    "profile": "club",
    "seed": 1,
    "players": ["Ana", "Bruno", "Carla"],
    "start": {"in_barrel": [True, False, False]},
    "deals": [
        # made 120 (raw 130); seat 0 leaves the barrel? no: still in it
        {
            "result": _result(
                declarer=0, contract=120, raw=[130, 0, 0], in_barrel=[True, False, False]
            )
        },
        # failed 140: leaves the barrel
        {"result": _result(declarer=0, contract=140, raw=[100, 10, 10])},
        # annulled deal (redeal): not a contract
        {"result": _result(annulled=True, declarer=0)},
        # rospis: counts as failed
        {"result": _result(declarer=0, bid=100, contract=100, rospis=True)},
        # someone else declares; seat 0 enters the barrel again
        {
            "result": _result(
                declarer=1, contract=100, raw=[40, 110, 0], in_barrel=[True, False, False]
            )
        },
        {
            "result": _result(
                declarer=0, contract=110, raw=[150, 0, 0], in_barrel=[False, False, False]
            )
        },
        {
            "result": _result(
                declarer=2, contract=100, raw=[0, 0, 120], in_barrel=[True, False, True]
            )
        },
    ],
    "scores": [1010, 200, 880],
    "winner": 0,
}


def test_summarize_mil() -> None:
    s = stats.summarize(MIL_RECORD, 0)
    assert (s.contracts_made, s.contracts_failed) == (2, 2)
    # the start already had seat 0 in the barrel: entries at deals 4 and 6 only
    assert s.barrel_visits == 2
    assert s.won and s.points == 1010
    s2 = stats.summarize(MIL_RECORD, 2)
    assert (s2.contracts_made, s2.contracts_failed, s2.barrel_visits) == (1, 0, 1)
    assert not s2.won and s2.points == 880


def _insert_table(session: DBSession, game: str, profile: str) -> int:
    row = TableRow(
        game=game,
        profile=profile,
        seed=1,
        players=["Ana", "Bruno", "Carla"],
        levels=[None, "rules", "rules"],
        token="t" * 32,
        language="es",
        status="finished",
        created_at=datetime.now(UTC),
        owner="Ana",
    )
    session.add(row)
    session.flush()
    return row.id


def test_ranking_boards_are_apart(db_url: str) -> None:
    engine = make_engine(db_url)
    upgrade(engine)
    upgrade(engine)  # idempotent
    now = datetime.now(UTC)
    with DBSession(engine) as session, session.begin():
        for profile, score, name in [
            ("club", 1010, "Ana"),
            ("casa", 1040, "Bea"),
            ("casa-500", 510, "Ana"),
            ("club", 1000, "Bea"),
        ]:
            rec = dict(MIL_RECORD, profile=profile, scores=[score, 0, 0])
            tid = _insert_table(session, "mil", profile)
            stats.record_game(session, table_id=tid, name=name, seat=0, record=rec, when=now)
        lost = dict(MIL_RECORD, winner=1)
        tid = _insert_table(session, "mil", "club")
        stats.record_game(session, table_id=tid, name="Ana", seat=0, record=lost, when=now)
        mar = {"game": "mariage", "profile": "mariage", "deals": [], "match": [8, 3], "winner": 0}
        tid = _insert_table(session, "mariage", "mariage")
        stats.record_game(session, table_id=tid, name="Ana", seat=0, record=mar, when=now)
    with DBSession(engine) as session:
        board = stats.ranking(session, "mil", 1000)
        assert [(e["name"], e["score"], e["profile"]) for e in board] == [
            ("Bea", 1040, "casa"),
            ("Ana", 1010, "club"),
            ("Bea", 1000, "club"),
        ]
        assert [e["score"] for e in stats.ranking(session, "mil", 500)] == [510]
        assert [e["score"] for e in stats.ranking(session, "mariage", 7)] == [8]
        rows = {(r["game"], r["profile"]): r for r in stats.player_stats(session, "Ana")}
        club = rows["mil", "club"]
        assert club["games"] == 2 and club["wins"] == 1 and club["average_points"] == 1010
        assert club["contracts_made"] == 4 and club["barrel_visits"] == 4
        assert rows["mariage", "mariage"]["wins"] == 1
    engine.dispose()


def test_ranking_endpoint_defaults(client: TestClient) -> None:
    assert client.get("/api/ranking").json() == []
    assert client.get("/api/ranking?game=mariage").json() == []
    assert client.get("/api/ranking?target=500&limit=5").json() == []
    assert client.get("/api/stats?name=Nobody").json() == []


class _Boom:
    name = "boom"

    def act(self, view: dict[str, Any], rng: random.Random) -> Any:
        raise RuntimeError("the bot fell over")


class _Slow:
    name = "slow"

    def act(self, view: dict[str, Any], rng: random.Random) -> Any:
        time.sleep(0.5)
        raise AssertionError("never used: the server stops waiting first")


@pytest.mark.parametrize("bot", [_Boom(), _Slow()], ids=["raises", "times out"])
def test_a_faulty_bot_never_stalls_the_game(
    make_app: MakeApp,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    bot: Any,
) -> None:
    monkeypatch.setattr(tapete.bots, "make_bot", lambda *a, **k: bot)
    app = make_app(bot_timeout_s=0.05)
    caplog.set_level(logging.WARNING, logger="tapete.server")
    with TestClient(app) as client:
        table_id, token = new_table(client, game="mariage", seed=3, max_deals=1)
        with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
            last = Session(ws, random.Random(1)).play()
    assert last["over"]
    assert "playing the first legal action" in caplog.text


@pytest.mark.sqlite_only
def test_rules_pages_index_and_static(make_app: MakeApp, tmp_path: Path) -> None:
    web = tmp_path / "web"
    (web / "rules").mkdir(parents=True)
    (web / "index.html").write_text("<!doctype html><title>Tapete</title>", encoding="utf-8")
    (web / "app.js").write_text("console.log('hi')", encoding="utf-8")
    (web / "rules" / "club.es.html").write_text("<h1>Mil</h1>", encoding="utf-8")
    with TestClient(make_app(web_dir=web)) as client:
        r = client.get("/")
        assert r.status_code == 200 and "Tapete" in r.text
        assert client.get("/static/app.js").text == "console.log('hi')"
        r = client.get("/rules/club?lang=es")
        assert r.status_code == 200 and r.text == "<h1>Mil</h1>"
        assert r.headers["content-type"].startswith("text/html")
        r = client.get("/rules/club?lang=pt")
        assert r.status_code == 404 and "not written yet" in r.text
        assert client.get("/static/nothing.js").status_code == 404
    with TestClient(make_app(web_dir=tmp_path / "missing")) as client:
        assert client.get("/").status_code == 404
        config = client.get("/api/config").json()
        assert "games" not in config  # replaced by "kinds" (one object per registered game)
        assert {k["name"]: [p["name"] for p in k["profiles"]] for k in config["kinds"]} == {
            "mil": ["club", "casa", "casa-500"],
            "mariage": ["mariage"],
        }
        assert config["levels"] == ["random", "beginner", "rules", "search"]
        assert config["languages"] == ["es", "pt", "en"] and config["default_delay_ms"] == 0
        assert config["default_clock"] is None  # (create_app's clock: none given)


@pytest.mark.sqlite_only
def test_the_oracle_catches_a_leak(app: Starlette, client: TestClient) -> None:
    table_id, _ = new_table(client, game="mil", seed=9)
    oracle = Oracle(app, table_id, 0)
    hidden = sorted(oracle.forbidden(0))
    assert len(hidden) == 17  # 7 + 7 cards of the others and the 3 of the talon
    state = app.state.manager.get(table_id).game.state
    assert {CARD_NAMES[c] for c in bits(state.hands[1])} <= set(hidden)
    leak = Received(0, {"type": "view", "version": 0, "view": {"hand": [hidden[0]]}, "events": []})
    with pytest.raises(AssertionError, match="was sent"):
        check_no_leak(app, table_id, [leak], 0)
    give = Received(
        0,
        {
            "type": "view",
            "version": 0,
            "view": {},
            "events": [
                {"type": "action", "seat": 1, "action": {"type": "give", "card": "9S", "to": 2}}
            ],
        },
    )
    with pytest.raises(AssertionError, match="give card leaked"):
        check_no_leak(app, table_id, [give], 0)
    # a card in an event is checked too (here: another seat's card as a "drawn" one)
    drawn = Received(
        0,
        {
            "type": "view",
            "version": 0,
            "view": {},
            "events": [{"type": "draw", "seats": [1, 0], "card": hidden[0]}],
        },
    )
    with pytest.raises(AssertionError, match="was sent"):
        check_no_leak(app, table_id, [drawn], 0)


@pytest.mark.sqlite_only
def test_the_real_web_client_is_served(client: TestClient) -> None:
    r = client.get("/")
    assert r.status_code == 200 and "<html" in r.text.lower()
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/i18n/es.json").status_code == 200
    for profile in ("club", "casa", "casa-500", "mariage"):
        for lang in ("es", "pt", "en"):
            r = client.get(f"/rules/{profile}", params={"lang": lang})
            assert r.status_code == 200, (profile, lang)
            assert r.headers["content-type"].startswith("text/html")


def test_a_failed_write_changes_nothing(app: Starlette, client: TestClient) -> None:
    """A write that fails (a full disk) leaves the table as the database holds it: the
    person is told the action was not saved, the connection stays, and the same action
    at the same version is accepted once the disk is back."""
    from server_helpers import action_count

    table_id, token = new_table(client, seed=5)
    manager = app.state.manager
    with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
        me = Session(ws)
        view = me.wait_turn()
        version = me.version

        def broken_disk(_conn: Any, _cursor: Any, statement: str, *args: Any) -> None:
            # (every statement that writes an action: on whatever connection the write uses)
            if statement.lstrip().upper().startswith("INSERT INTO ACTIONS"):
                raise OSError("disk full")

        event.listen(manager.engine, "before_cursor_execute", broken_disk)
        me.act(view["legal"][0])
        error = me.error()
        assert error["code"] == "not_saved" and "try again" in error["detail"], error
        event.remove(manager.engine, "before_cursor_execute", broken_disk)
        assert action_count(app, table_id) == version
        ws.send_json({"type": "sync"})
        while (m := me.receive())["type"] != "view":
            pass
        assert m["version"] == version and m["view"] == view
        me.rng = random.Random(3)
        me.waiting = False
        me.play(max_actions=5)
    assert action_count(app, table_id) == me.version > version


@pytest.mark.sqlite_only
def test_casa_rules_pages_take_their_numbers_from_the_profile(client: TestClient) -> None:
    from dataclasses import replace

    from tapete.mil.profiles import get_profile
    from tapete.server.app import WEB_DIR
    from tapete.server.rules import render_rules

    for lang in ("es", "pt", "en"):
        full = client.get("/rules/casa", params={"lang": lang})
        short = client.get("/rules/casa-500", params={"lang": lang})
        assert full.status_code == short.status_code == 200
        assert full.headers["content-type"].startswith("text/html")
        for page in (full.text, short.text):
            assert "{{" not in page and "<!--short" not in page and "current:" not in page
        assert "1000" in full.text and "990" in full.text and "490" not in full.text
        assert "500" in short.text and "490" in short.text and "990" not in short.text
        assert short.text.count('aria-current="page"') == 2  # its link and its language
        assert '<a href="/rules/casa-500?lang=' + lang + '" aria-current="page">' in short.text
        template = (WEB_DIR / "rules" / f"casa.{lang}.template.html").read_text(encoding="utf-8")
        casa = get_profile("casa")
        odd = render_rules(template, replace(casa, name="casa-700", target=700), casa)
        assert "700" in odd and "1000" not in odd
    with pytest.raises(ValueError, match="unknown field"):
        render_rules("{{colour}}", get_profile("casa"), get_profile("casa"))


class _Listener:
    seat: int | None = None
    patches = False

    def __init__(self) -> None:
        self.texts: list[str] = []

    def push(self, text: str) -> None:
        self.texts.append(text)

    def close(self) -> None:
        pass


@pytest.mark.sqlite_only
def test_a_connection_listens_to_the_table_in_memory(app: Starlette, client: TestClient) -> None:
    """A table that left memory while a connection waited for it (its computer players had
    just finished and nobody listened yet) is put back when the connection joins it, or the
    one loaded since is joined instead: the connection hears of every later action."""
    table_id, _ = new_table(client, game="mariage", seed=3)
    manager = app.state.manager
    first = manager.get(table_id)
    manager.tables.pop(table_id, None)  # evicted while the connection waited (or already)
    assert manager.attach(first, _Listener()) is first and manager.tables[table_id] is first
    del manager.tables[table_id]
    second = manager.get(table_id)  # loaded by another connection meanwhile
    assert second is not first
    listener = _Listener()
    assert manager.attach(first, listener) is second
    assert listener in second.listeners and listener not in first.listeners


def test_times_are_kept_in_utc_and_read_alike(db_url: str) -> None:
    """A moment is stored as UTC whatever its time zone (SQLite keeps none; PostgreSQL's
    ``timestamptz`` answers in the session's), and read back the same on both databases:
    naive UTC, as the API shows it."""
    engine = make_engine(db_url)
    upgrade(engine)
    lisbon_summer = datetime(2026, 7, 1, 13, 30, tzinfo=timezone(timedelta(hours=1)))
    with DBSession(engine) as session, session.begin():
        table_id = _insert_table(session, "mil", "club")
        row = session.get(TableRow, table_id)
        assert row is not None
        row.created_at, row.finished_at = lisbon_summer, datetime(2026, 7, 1, 12, 45)
    with DBSession(engine) as session:
        row = session.get(TableRow, table_id)
        assert row is not None
        assert row.created_at == datetime(2026, 7, 1, 12, 30) and row.created_at.tzinfo is None
        assert row.finished_at == datetime(2026, 7, 1, 12, 45)
        before = datetime(2026, 7, 1, 12, 40, tzinfo=UTC)
        earlier = session.scalars(select(TableRow.id).where(TableRow.created_at < before))
        assert list(earlier) == [table_id]
    engine.dispose()


def test_every_refusal_code_of_the_http_api_has_words_in_every_language() -> None:
    """A ``400`` with a ``code`` is one a person meets in normal use: the page words it in
    its language (``err_<code>``), or shows the server's English sentence instead, as it did
    for "exactly one seat must be yours: {"kind": "me"}" on a Spanish page."""
    import re

    import tapete.names
    import tapete.server.accounts
    import tapete.server.app as app_module

    # (the codes given where a refusal is made: code="...", and a name's MixedScriptsError)
    modules = (app_module, tapete.server.accounts, tapete.names)
    source = "\n".join(Path(m.__file__ or "").read_text(encoding="utf-8") for m in modules)
    codes = set(re.findall(r'code ?= ?"([a-z_]+)"', source))
    assert {"public_needs_open", "one_seat_yours", "bad_spectator_delay", "rated_computer"} <= codes
    assert {"name_scripts", "name_look_alike"} <= codes
    # and the refusals of a sit-down, made by the table manager (seat_taken: the web
    # client showed "seat 1 was taken by someone else just now: try again" on every page)
    manager = Path(app_module.__file__).with_name("tables.py").read_text(encoding="utf-8")
    sit_down = manager[manager.index("def _seat_wanted(") : manager.index("def _lock_seats(")]
    made = set(re.findall(r'TableError\(\s*"([a-z_]+)"', sit_down))
    assert {"table_full", "name_taken", "seat_taken", "bad_invite", "already_seated"} <= made
    codes |= made
    web = Path(app_module.__file__).parent.parent / "web" / "i18n"
    for language in ("es", "pt", "en"):
        words = json.loads((web / f"{language}.json").read_text(encoding="utf-8"))
        missing = sorted(c for c in codes if not words.get(f"err_{c}"))
        assert not missing, (language, missing)


def test_no_word_of_the_web_client_is_written_twice() -> None:
    """A key written twice in a language's file is read as its last value: "game_number",
    the label of the Games window's number field, was once given a second meaning further
    down ("game {table}") and the label said that instead."""
    import tapete.server.app as app_module

    web = Path(app_module.__file__).parent.parent / "web" / "i18n"
    for language in ("es", "pt", "en"):
        seen: list[str] = []

        def keys(pairs: list[tuple[str, Any]], seen: list[str] = seen) -> dict[str, Any]:
            seen.extend(k for k, _ in pairs)
            return dict(pairs)

        json.loads((web / f"{language}.json").read_text(encoding="utf-8"), object_pairs_hook=keys)
        twice = sorted({k for k in seen if seen.count(k) > 1})
        assert not twice, (language, twice)


def test_every_penalty_of_the_engine_has_its_words() -> None:
    """The web client says why a deal's end took points (``penalty_<why>``, board_mil.js) for
    every reason the engine gives (``mil.scoring.PENALTIES``), in every language."""
    import tapete.server.app as app_module
    from tapete.mil.scoring import PENALTIES

    web = Path(app_module.__file__).parent.parent / "web" / "i18n"
    for language in ("es", "pt", "en"):
        words = json.loads((web / f"{language}.json").read_text(encoding="utf-8"))
        missing = [why for why in PENALTIES if not words.get(f"penalty_{why}")]
        assert not missing, (language, missing)
