"""The online room: tables with several people (invitations, seats, presence), whole games
of two and three people with a spectator and a second tab over the real WebSocket (no
message holds a card its reader may not know; a forged or stale action from any seat changes
nothing), reconnection from every version, chat, and spectators refused or delayed."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import time
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from server_helpers import (
    TEST_LIMITS,
    MakeApp,
    Oracle,
    Session,
    action_count,
    check_no_leak,
    stored_actions,
)
from sqlalchemy.exc import OperationalError
from starlette.applications import Starlette
from starlette.testclient import TestClient

from tapete.server.db import TableRow
from tapete.server.limits import Limits
from tapete.server.messages import CLIENT, SERVER, schema_of
from tapete.server.tables import FILL_RETRY_S, game_of


def make_table(client: TestClient, **body: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"game": "mil", "name": "Ana"}
    data.update(body)
    r = client.post("/api/tables", json=data)
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def sit(client: TestClient, table: int, name: str, **body: Any) -> dict[str, Any]:
    r = client.post(f"/api/tables/{table}/seats", json={"name": name, **body})
    assert r.status_code == 201, r.text
    out: dict[str, Any] = r.json()
    return out


def next_of(session: Session, kind: str) -> dict[str, Any]:
    while True:
        m = session.receive()
        if m["type"] == kind:
            return m


def check_schemas(*sessions: Session) -> int:
    """Every message the sessions got matches its type's JSON Schema (docs/dev/protocol.md)."""
    count = 0
    for session in sessions:
        for item in session.log:
            schema = schema_of("server", item.message)
            jsonschema_rs.validate(schema, item.message)
            count += 1
        for message in session.patches:
            jsonschema_rs.validate(schema_of("server", message), message)
            count += 1
    return count


def live_steps(session: Session) -> dict[int, list[dict[str, Any]]]:
    """version -> the events a continuously connected client got for that version."""
    steps: dict[int, list[dict[str, Any]]] = {}
    for item in session.log:
        m = item.message
        if m["type"] == "view" and m["events"]:
            assert m["version"] not in steps, f"version {m['version']} twice"
            steps[m["version"]] = m["events"]
    return steps


class Room:
    """People (one session per connection) at one table, driven by random legal choices:
    the seat to act plays, everyone else reads up to the same version."""

    def __init__(self, app: Starlette, table: int, people: dict[int, list[Session]]) -> None:
        self.app = app
        self.table = table
        self.people = people
        self.watchers: list[Session] = []
        self.rng = random.Random(7)
        self.forged = 0

    def everyone(self) -> list[Session]:
        return [s for group in self.people.values() for s in group] + self.watchers

    def drain(self, session: Session, version: int) -> None:
        while session.version < version or session.view is None:
            session.receive()

    def play(self) -> dict[str, Any]:
        lead = self.people[min(self.people)][0]
        done = -1
        n = 0
        while True:
            # the lead connection reads until a person is to act at a version not yet played
            while True:
                v = lead.view
                if v is not None and (
                    v["over"] or (v["turn"] in self.people and lead.version > done)
                ):
                    break
                lead.receive()
            for s in self.everyone():
                self.drain(s, lead.version)
            if v["over"]:
                return v
            seat = v["turn"]
            version = lead.version
            tabs = self.people[seat]
            actor = tabs[n % len(tabs)]  # any tab of the seat may act
            legal = actor.view["legal"] if actor.view else []
            assert actor.view is not None and actor.view["seat"] == seat and legal
            if n % 7 == 0:
                self.forge(seat, version, legal)
            actor.act(self.rng.choice(legal))
            done = version
            n += 1
            # the action's own view, or a refusal (the database busy for a moment: not_saved),
            # after which the same seat chooses again
            while True:
                m = actor.receive()
                if m["type"] == "view" and m["version"] > version:
                    break
                if m["type"] == "error":
                    assert m["code"] in ("not_saved", "stale_version"), m
                    done = version - 1
                    break

    def forge(self, seat: int, version: int, legal: list[dict[str, Any]]) -> None:
        """Another seat acting, a stale version, a spectator acting: refused, nothing stored.
        Another seat's action at an old version (sent again from a second tab once the turn
        moved on) is told that the table changed, not that it is not its turn."""
        others = [s for s in self.people if s != seat]
        attempts: list[tuple[Session, int, str]] = []
        if others:
            attempts.append((self.people[others[0]][0], version, "not_your_turn"))
        if version > 0:
            attempts.append((self.people[seat][0], version - 1, "stale_version"))
            if others:
                attempts.append((self.people[others[0]][0], version - 1, "stale_version"))
        attempts += [(w, version, "not_your_turn") for w in self.watchers]
        for session, at, code in attempts:
            session.ws.send_json({"type": "act", "version": at, "action": legal[0]})
            assert session.error()["code"] == code
            self.forged += 1
        assert action_count(self.app, self.table) == version


def three_people_table(client: TestClient, **options: Any) -> tuple[dict[str, Any], str, str]:
    made = make_table(
        client,
        seats=[{"kind": "me"}, {"kind": "invited"}, {"kind": "open"}],
        max_deals=2,
        seed=21,
        **options,
    )
    assert made["status"] == "waiting" and made["seat"] == 0 and made["invite"]
    bea = sit(client, made["table"], "Bea", invite=made["invite"])
    assert bea["status"] == "waiting" and bea["seat"] == 1
    cid = sit(client, made["table"], "Cid", invite=made["invite"])
    assert cid["status"] == "playing" and cid["seat"] == 2
    return made, bea["token"], cid["token"]


def test_three_people_a_second_tab_and_a_spectator_play_a_whole_game(
    app: Starlette, client: TestClient
) -> None:
    made, bea, cid = three_people_table(client)
    tid = made["table"]
    tokens = {0: made["token"], 1: bea, 2: cid}
    assert len(set(tokens.values())) == 3
    info = client.get(f"/api/tables/{tid}?token={bea}").json()
    assert info["seat"] == 1 and info["players"] == ["Ana", "Bea", "Cid"]
    assert [s["kind"] for s in info["seats"]] == ["person"] * 3
    assert "token" not in json.dumps(info["seats"])
    with (
        client.websocket_connect(f"/ws/{tid}?token={tokens[0]}") as a,
        client.websocket_connect(f"/ws/{tid}?token={tokens[0]}&patches=1") as a2,
        client.websocket_connect(f"/ws/{tid}?token={tokens[1]}") as b,
        client.websocket_connect(f"/ws/{tid}?token={tokens[2]}&patches=1") as c,
        client.websocket_connect(f"/ws/{tid}?patches=1") as w,
    ):
        people = {0: [Session(a), Session(a2)], 1: [Session(b)], 2: [Session(c)]}
        room = Room(app, tid, people)
        room.watchers.append(Session(w))
        # the last connection's presence: who sits where and how many connections each has
        presence = next_of(room.watchers[0], "presence")
        assert [s["connected"] for s in presence["seats"]] == [2, 1, 1]
        assert presence["spectators"] == 1 and presence["status"] == "playing"
        last = room.play()
        assert last["over"] and room.forged > 5
        for s in room.everyone():
            room.drain(s, room.people[0][0].version)
    final = action_count(app, tid)
    assert final > 20
    # every card in every message to each connection was one its seat may know
    for seat, group in people.items():
        for s in group:
            assert s.view is not None and s.view["seat"] == seat and s.view["over"]
            assert check_no_leak(app, tid, s.log, seat) > 50
    assert check_no_leak(app, tid, room.watchers[0].log, None) > 20
    assert check_schemas(*room.everyone()) > 200
    # both tabs of seat 0 followed every version, the second by patches (patches=1): the
    # same events, and the same view at the end
    assert live_steps(people[0][0]) == live_steps(people[0][1])
    assert people[0][0].view == people[0][1].view
    for s in (people[0][1], people[2][0], room.watchers[0]):
        assert len(s.patches) > final // 2, len(s.patches)
        assert all(set(p["view"]) != set(s.view) for p in s.patches)  # (not whole views)
    assert not people[0][0].patches and not people[1][0].patches
    assert sorted(live_steps(people[0][0])) == list(range(1, final + 1))
    # the database holds the seats: names and tokens come back after a restart
    with app.state.manager.sessions() as session:
        row = session.get(TableRow, tid)
        assert row is not None and row.players == ["Ana", "Bea", "Cid"]


def check_reconnection(
    client: TestClient, tid: int, token: str | None, live: Session, final: int
) -> None:
    """From every version V, ``sync`` with ``since: V`` answers the events of V+1..final that
    the continuously connected client got, then the current view."""
    steps = live_steps(live)
    # (a computer may have played the first action before the live client connected)
    seen = min(steps)
    assert seen <= 2 and sorted(steps) == list(range(seen, final + 1))
    query = f"?token={token}" if token else ""
    with client.websocket_connect(f"/ws/{tid}{query}") as ws:
        s = Session(ws)
        first = next_of(s, "view")
        assert first["version"] == final
        for since in range(final + 1):
            ws.send_json({"type": "sync", "since": since})
            m = s.receive()
            while m["type"] == "presence":
                m = s.receive()
            assert m["type"] == "events", m
            assert m["since"] == since and m["version"] == final
            got = {step["version"]: step["events"] for step in m["steps"]}
            assert sorted(got) == list(range(since + 1, final + 1))
            assert {v: got[v] for v in got if v in steps} == {
                v: steps[v] for v in range(max(seen, since + 1), final + 1)
            }
            view = next_of(s, "view")
            assert view["version"] == final and view["view"] == first["view"]
        assert check_schemas(s) > final


@pytest.mark.parametrize("game", ["mariage", "mil"])
def test_reconnection_from_every_version_gives_what_was_missed(
    make_app: MakeApp, game: str
) -> None:
    app = make_app()
    seats = [{"kind": "me"}, {"kind": "invited"}]
    if game == "mil":
        seats.append({"kind": "computer", "level": "random"})
    with TestClient(app) as client:
        made = make_table(
            client, game=game, seats=seats, max_deals=1 if game == "mil" else 2, seed=5
        )
        bea = sit(client, made["table"], "Bea", invite=made["invite"])
        tid = made["table"]
        with (
            client.websocket_connect(f"/ws/{tid}?token={made['token']}") as a,
            client.websocket_connect(f"/ws/{tid}?token={bea['token']}") as b,
            client.websocket_connect(f"/ws/{tid}") as w,
        ):
            room = Room(app, tid, {0: [Session(a)], 1: [Session(b)]})
            room.watchers.append(Session(w))
            room.play()
            for s in room.everyone():
                room.drain(s, room.people[0][0].version)
        final = action_count(app, tid)
        lives = {0: made["token"], 1: bea["token"], None: None}
        sessions = {0: room.people[0][0], 1: room.people[1][0], None: room.watchers[0]}
        for seat, token in lives.items():
            check_reconnection(client, tid, token, sessions[seat], final)
    # after a restart the history is rebuilt from the stored actions: the same answers
    again = make_app()
    with TestClient(again) as client:
        check_reconnection(client, tid, bea["token"], sessions[1], final)


def test_a_client_too_far_behind_gets_one_whole_view(make_app: MakeApp) -> None:
    limits = Limits(create_burst=100_000, hint_processes=0, list_cache_s=0, history_actions=5)
    app = make_app(limits=limits)
    with TestClient(app) as client:
        # a chosen deal: a random one can end at its first action (a redeal is a deal)
        made = make_table(client, levels=["random", "random"], max_deals=1, seed=5)
        tid = made["table"]
        with client.websocket_connect(f"/ws/{tid}?token={made['token']}") as ws:
            me = Session(ws, random.Random(3))
            me.play()
            # the server's own last version (a plain sync answers after anything still queued
            # from the play: its view is the last message), then the answers to `since`
            ws.send_json({"type": "sync"})
            final = next_of(me, "view")["version"]
            assert final == me.version and final > 6, final
            ws.send_json({"type": "sync", "since": final - 5})
            m = me.receive()
            assert m["type"] == "events", (final, m)
            assert [s["version"] for s in m["steps"]] == list(range(final - 4, final + 1)), m
            m = me.receive()
            assert m["type"] == "view" and m["version"] == final, m
            ws.send_json({"type": "sync", "since": final - 6})
            m = me.receive()
            assert m["type"] == "view", (final, m)
            assert m["version"] == final and m["sheet_from"] == 0
            ws.send_json({"type": "sync", "since": "3"})
            assert me.error()["code"] == "bad_message"


def test_invitations_seats_and_waiting(app: Starlette, client: TestClient) -> None:
    made = make_table(
        client, seats=[{"kind": "invited"}, {"kind": "me"}, {"kind": "computer", "level": "rules"}]
    )
    tid, code = made["table"], made["invite"]
    assert made["seat"] == 1 and made["status"] == "waiting" and len(code) >= 20
    # the invitation shows the table and who sits where, never a token or a card
    shown = client.get(f"/api/invitations/{code}").json()
    assert shown["table"] == tid and shown["status"] == "waiting"
    assert [(s["kind"], s["name"]) for s in shown["seats"]] == [
        ("invited", None),
        ("person", "Ana"),
        ("computer", shown["players"][2]),
    ]
    assert client.get("/api/invitations/nope").status_code == 404
    # not in the lobby (private), and an invited seat needs the code
    assert all(t["table"] != tid for t in client.get("/api/lobby").json())
    r = client.post(f"/api/tables/{tid}/seats", json={"name": "Bea"})
    assert r.status_code == 403 and "invitation" in r.json()["error"]
    r = client.post(f"/api/tables/{tid}/seats", json={"name": "Bea", "invite": "x" * 22})
    assert r.status_code == 403
    r = client.post(f"/api/tables/{tid}/seats", json={"name": "ana", "invite": code})
    assert r.status_code == 409 and "called" in r.json()["error"]
    with client.websocket_connect(f"/ws/{tid}?token={made['token']}") as ws:
        me = Session(ws)
        first = next_of(me, "view")
        assert first["view"]["seat"] == 1
        presence = next_of(me, "presence")
        assert presence["status"] == "waiting"
        assert [s["connected"] for s in presence["seats"]] == [0, 1, 0]
        # nothing can be played before every seat is taken
        ws.send_json({"type": "act", "version": 0, "action": {"type": "pass"}})
        assert me.error()["code"] == "not_started"
        assert action_count(app, tid) == 0
        bea = sit(client, tid, "Bea", invite=code)
        assert bea["seat"] == 0 and bea["status"] == "playing"
        # the start reaches the seated person: a view with the new name, and the presence
        view = next_of(me, "view")
        assert view["view"]["players"][0] == "Bea"
        assert next_of(me, "presence")["status"] == "playing"
    r = client.post(f"/api/tables/{tid}/seats", json={"name": "Cid", "invite": code})
    assert r.status_code == 409 and "taken" in r.json()["error"]
    r = client.post(f"/api/tables/{tid}/seats", json={"name": 3, "invite": code})
    assert r.status_code == 400
    r = client.post("/api/tables/99999/seats", json={"name": "Cid"})
    assert r.status_code == 404
    info = client.get(f"/api/tables/{tid}?token={bea['token']}").json()
    assert info["seat"] == 0 and info["invite"] == code
    assert client.get(f"/api/tables/{tid}").json()["invite"] is None


def _strings(value: Any) -> set[str]:
    """Every string in a JSON value (keys too)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set(value) | {s for v in value.values() for s in _strings(v)}
    if isinstance(value, list):
        return {s for v in value for s in _strings(v)}
    return set()


@pytest.mark.parametrize("game", ["mil", "mariage"])
def test_a_waiting_table_shows_no_card_until_every_seat_is_taken(
    app: Starlette, client: TestClient, game: str
) -> None:
    """The deal is made when the table is created, but while a seat is free its people see
    what a spectator sees: nobody can look at a hand, leave, and open tables until a deal
    pleases them. The seat's number is in its view; a hint is refused (it would tell of the
    hand). When the last seat is taken every connection, a patch-taking one too, gets its
    whole view with its hand."""
    seats: list[dict[str, Any]] = [{"kind": "me"}, {"kind": "invited"}]
    seats += [{"kind": "computer", "level": "rules"}] if game == "mil" else []
    made = make_table(client, game=game, seats=seats)
    tid, token = made["table"], made["token"]
    hidden = Oracle(app, tid, None).forbidden(0)  # (what a spectator may not know)
    mine = Oracle(app, tid, 0).forbidden(0)
    assert hidden - mine, "the creator's own hand, which the test must not see shown"
    with (
        client.websocket_connect(f"/ws/{tid}?token={token}") as ws,
        client.websocket_connect(f"/ws/{tid}?token={token}&patches=1") as ws2,
    ):
        me, tab = Session(ws), Session(ws2)
        for s in (me, tab):
            first = next_of(s, "view")
            assert first["view"]["seat"] == 0 and first["view"]["hand"] == []
            assert first["view"]["legal"] == []
            next_of(s, "presence")
        ws.send_json({"type": "hint"})
        assert me.error()["code"] == "not_started"
        ws.send_json({"type": "sync"})
        assert next_of(me, "view")["view"]["hand"] == []
        before = [m.message for s in (me, tab) for m in s.log]
        assert not any(_strings(m) & hidden for m in before), before
        sit(client, tid, "Bea", invite=made["invite"])
        for s in (me, tab):
            started = next_of(s, "view")
            assert started["view"]["seat"] == 0 and len(started["view"]["hand"]) >= 6
            assert set(started["view"]["hand"]) == hidden - mine
        assert not tab.patches  # (the start's view came whole)


def test_seats_and_tokens_survive_a_restart(make_app: MakeApp) -> None:
    app = make_app()
    with TestClient(app) as client:
        made = make_table(client, game="mariage", seats=[{"kind": "me"}, {"kind": "invited"}])
    again = make_app()
    with TestClient(again) as client:
        assert client.get(f"/api/tables/{made['table']}?token={made['token']}").json()["seat"] == 0
        bea = sit(client, made["table"], "Bea", invite=made["invite"])
        assert bea["status"] == "playing"
    third = make_app()
    with TestClient(third) as client:
        info = client.get(f"/api/tables/{made['table']}?token={bea['token']}").json()
        assert info["seat"] == 1 and info["status"] == "playing"
        with client.websocket_connect(f"/ws/{made['table']}?token={bea['token']}") as ws:
            assert next_of(Session(ws), "view")["view"]["seat"] == 1


def test_bad_room_requests(client: TestClient) -> None:
    def refused(body: dict[str, Any]) -> str:
        r = client.post("/api/tables", json={"game": "mil", "name": "Ana", **body})
        assert r.status_code in (400, 403), r.text
        return str(r.json()["error"])

    assert "3 seat" in refused({"seats": [{"kind": "me"}]})
    assert "yours" in refused({"seats": [{"kind": "open"}] * 3})
    assert "kind" in refused({"seats": [{"kind": "me"}, {"kind": "x"}, {"kind": "open"}]})
    assert "level" in refused(
        {"seats": [{"kind": "me"}, {"kind": "open", "level": "rules"}, {"kind": "open"}]}
    )
    assert "not both" in refused({"seats": [{"kind": "me"}] * 3, "levels": ["rules"] * 2})
    assert "spectator_delay" in refused({"spectator_delay": -1})
    assert "true or false" in refused({"rated": "yes"})
    assert "sign in" in refused(
        {"rated": True, "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}]}
    )


class _User:
    def __init__(self, uid: int, name: str) -> None:
        self.id, self.name = uid, name


def signed_in(app: Starlette) -> Any:
    """The app with the identity contract's user from an ``x-test-user: id:name`` header (the
    accounts helper's middleware sets ``scope["state"]["user"]`` the same way)."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            for key, value in scope.get("headers", []):
                if key == b"x-test-user":
                    uid, name = value.decode().split(":")
                    scope.setdefault("state", {})["user"] = _User(int(uid), name)
        await app(scope, receive, send)

    return wrapped


def test_rated_tables_are_for_signed_in_people(app: Starlette) -> None:
    with TestClient(signed_in(app)) as client:
        ana = {"x-test-user": "1:Ana"}
        r = client.post(
            "/api/tables",
            json={
                "game": "mariage",
                "name": "x",
                "rated": True,
                "seats": [{"kind": "me"}, {"kind": "computer"}],
            },
            headers=ana,
        )
        assert r.status_code == 400 and "computer" in r.json()["error"]
        r = client.post(
            "/api/tables",
            json={
                "game": "mariage",
                "name": "x",
                "rated": True,
                "seats": [{"kind": "me"}, {"kind": "invited"}],
            },
            headers=ana,
        )
        assert r.status_code == 201
        made = r.json()
        tid = made["table"]
        r = client.post(f"/api/tables/{tid}/seats", json={"name": "Bea", "invite": made["invite"]})
        # (a refusal met in normal use names its code: the page words it in its language)
        assert r.status_code == 403 and "rated" in r.json()["error"]
        assert r.json()["code"] == "rated_guest"
        r = client.post(f"/api/tables/{tid}/seats", json={"invite": made["invite"]}, headers=ana)
        assert r.status_code == 409 and "already" in r.json()["error"]
        assert r.json()["code"] == "already_seated"
        r = client.post(
            f"/api/tables/{tid}/seats",
            json={"invite": made["invite"]},
            headers={"x-test-user": "2:Bea"},
        )
        assert r.status_code == 201 and r.json()["status"] == "playing"
        table = app.state.manager.get(tid)
        assert table.rated and table.user_ids == [1, 2] and table.players == ["Ana", "Bea"]
        assert table.abandoned == set()


def test_finish_hooks_run_in_the_transaction_of_the_end(app: Starlette, client: TestClient) -> None:
    seen: list[tuple[int, list[int | None], bool]] = []
    app.state.manager.finish_hooks.append(
        lambda session, table, record: seen.append((table.id, table.user_ids, "deals" in record))
    )
    made = make_table(client, levels=["random", "random"], max_deals=1)
    with client.websocket_connect(f"/ws/{made['table']}?token={made['token']}") as ws:
        Session(ws, random.Random(1)).play()
    assert seen == [(made["table"], [None, None, None], True)]


def test_chat(app: Starlette, client: TestClient) -> None:
    made = make_table(client, game="mariage", seats=[{"kind": "me"}, {"kind": "invited"}])
    tid = made["table"]
    bea = sit(client, tid, "Bea", invite=made["invite"])
    with (
        client.websocket_connect(f"/ws/{tid}?token={made['token']}") as a,
        client.websocket_connect(f"/ws/{tid}?token={bea['token']}") as b,
        client.websocket_connect(f"/ws/{tid}") as w,
    ):
        ana, bee, watcher = Session(a), Session(b), Session(w)
        a.send_json({"type": "chat", "text": "  hola   <b>Bea</b>\n"})
        for s in (ana, bee):
            m = next_of(s, "chat")
            assert m["seat"] == 0 and m["name"] == "Ana" and m["text"] == "hola <b>Bea</b>"
        w.send_json({"type": "chat", "text": "hi"})
        assert watcher.error()["code"] == "not_seated"
        # a line too long is told its limit, not "the message does not have the expected
        # form"; 300 characters once its whitespace runs are single spaces pass
        b.send_json({"type": "chat", "text": "x" * 301})
        error = bee.error()
        assert error["code"] == "chat_too_long" and "300" in error["detail"], error
        assert error["message"] == "Un mensaje del chat puede tener como mucho 300 caracteres."
        b.send_json({"type": "chat", "text": "y" * 299 + "  \n z"})
        assert bee.error()["code"] == "chat_too_long"
        b.send_json({"type": "chat", "text": "y " + "  " * 200 + "z" * 298})
        assert next_of(bee, "chat")["text"] == next_of(ana, "chat")["text"] == "y " + "z" * 298
        b.send_json({"type": "chat", "text": "a\u0007b"})
        assert bee.error()["code"] == "bad_message"
        b.send_json({"type": "chat", "text": 5})
        assert bee.error()["code"] == "bad_message"
        # (Ana has sent one line) a burst of lines per connection, then a refusal
        codes = []
        for n in range(8):
            a.send_json({"type": "chat", "text": f"line {n}"})
        while len(codes) < 8:
            m = ana.receive()
            if m["type"] in ("chat", "error"):
                codes.append(m["type"] if m["type"] == "chat" else m["code"])
        assert codes[:4] == ["chat"] * 4 and "rate_limited" in codes
        # a sync marks where the spectator is: it got no chat line at all
        w.send_json({"type": "sync"})
        next_of(watcher, "view")
        assert not [m for m in watcher.log if m.message["type"] == "chat"]
        # a new connection of a seat gets the last lines (kept in memory while the table is)
        with client.websocket_connect(f"/ws/{tid}?token={bea['token']}") as b2:
            again = Session(b2)
            assert next_of(again, "chat")["text"] == "hola <b>Bea</b>"


def test_spectators_refused(app: Starlette, client: TestClient) -> None:
    made = make_table(client, levels=["random", "random"], spectators=False)
    tid = made["table"]
    assert all(t["table"] != tid for t in client.get("/api/tables/live").json())
    with client.websocket_connect(f"/ws/{tid}") as ws:
        m = ws.receive_json()
        assert m["type"] == "error" and m["code"] == "no_spectators"
        assert ws.receive()["code"] == 4403
    # a seat still plays
    with client.websocket_connect(f"/ws/{tid}?token={made['token']}") as ws:
        assert next_of(Session(ws), "view")["view"]["seat"] == 0


def _watch_to_the_end(
    client: TestClient, made: dict[str, Any]
) -> tuple[Session, dict[str, Any], int]:
    """A spectator and the table's person (random play) until the spectator sees the game
    over: the spectator's session, the person's last view and the table's final version."""
    tid = made["table"]
    with (
        client.websocket_connect(f"/ws/{tid}") as w,
        client.websocket_connect(f"/ws/{tid}?token={made['token']}") as ws,
    ):
        watcher = Session(w)
        me = Session(ws, random.Random(5))
        last = me.play()
        while watcher.view is None or not watcher.view["over"]:
            watcher.receive()
    return watcher, last, me.version


def test_delayed_spectators_see_the_game_n_actions_behind(
    app: Starlette, client: TestClient
) -> None:
    delay = 3
    made = make_table(
        client, levels=["random", "random"], max_deals=1, spectator_delay=delay, seed=13
    )
    tid = made["table"]
    watcher, _, final = _watch_to_the_end(client, made)
    versions = [r.message["version"] for r in watcher.log if r.message["type"] == "view"]
    assert versions[-1] == final > delay + 10
    # nothing newer than N actions behind was shown while the game was on
    assert not set(versions) & set(range(final - delay + 1, final))
    assert max(v for v in versions if v != final) <= final - delay
    # each view is the public view of the game at its version, replayed from the log
    with app.state.manager.sessions() as session:
        row = session.get(TableRow, tid)
        assert row is not None
        game = game_of(row)
    actions = stored_actions(app, tid)
    at = 0
    for item in watcher.log:
        m = item.message
        if m["type"] != "view":
            continue
        while at < m["version"]:
            game.apply(game.parse_action(actions[at]))
            at += 1
        expected = game.view(None)
        assert m["view"] == expected, m["version"]
    assert check_no_leak(app, tid, watcher.log, None) > 10


def test_delayed_spectators_see_the_end_of_a_game_stopped_by_the_deal_cap(
    make_app: MakeApp,
) -> None:
    """A table with no ``max_deals`` of its own stops at the server's cap on deals; its
    delayed spectators' game is built with the same cap, so their last view says the game
    is over, with the table's final version (it used to go on without the cap: a phantom
    next deal, and no ``game_over`` event)."""
    app = make_app(limits=dataclasses.replace(TEST_LIMITS, max_game_deals=1))
    with TestClient(app) as client:
        made = make_table(client, levels=["random", "random"], spectator_delay=4, seed=13)
        watcher, last, final = _watch_to_the_end(client, made)
        assert last["over"] and len(last["sheet"]) == 1, last
        assert watcher.version == final > 4
        # the same end as the seats saw: no phantom next deal after the last one
        assert watcher.view["sheet"] == last["sheet"]
        assert watcher.view["deal_number"] == last["deal_number"]
        kinds = [e["type"] for e in watcher.log[-1].message["events"]]
        assert kinds[-2:] == ["deal_end", "game_over"], kinds


def test_lobby_lists_public_tables_and_pushes_changes(app: Starlette, client: TestClient) -> None:
    private = make_table(client, seats=[{"kind": "me"}, {"kind": "open"}, {"kind": "invited"}])
    with client.websocket_connect("/ws/lobby") as lobby:
        first = lobby.receive_json()
        assert first == {"type": "lobby", "tables": []}
        public = make_table(
            client,
            game="mariage",
            profile="mariage",
            seats=[{"kind": "open"}, {"kind": "me"}],
            public=True,
            spectators=False,
        )
        pushed = lobby.receive_json()
        assert [t["table"] for t in pushed["tables"]] == [public["table"]]
        entry = pushed["tables"][0]
        assert entry["game"] == "mariage" and entry["target"] == 7
        assert (entry["taken"], entry["free"], entry["rated"]) == (1, 1, False)
        assert entry["clock"] is None and entry["spectators"] is False
        assert "invite" not in entry and "token" not in json.dumps(entry)
        assert client.get("/api/lobby").json() == pushed["tables"]
        # an open seat of a listed table needs no code; the full table leaves the lobby
        seated = sit(client, public["table"], "Bea")
        assert seated["seat"] == 0 and seated["status"] == "playing"
        assert lobby.receive_json() == {"type": "lobby", "tables": []}
        lobby.send_text("hello")
        assert lobby.receive_json()["code"] == "bad_message"
    # the private table's open seat needs the code
    r = client.post(f"/api/tables/{private['table']}/seats", json={"name": "Bea"})
    assert r.status_code == 403
    assert sit(client, private["table"], "Bea", invite=private["invite"])["seat"] == 1


def test_a_seat_number_the_table_does_not_have_is_a_bad_request(client: TestClient) -> None:
    """``seat: 99`` was ``409 seat 99 is not free``, as if someone had taken it."""
    made = make_table(client, seats=[{"kind": "me"}, {"kind": "invited"}, {"kind": "open"}])
    for seat in (3, 99, -1):
        r = client.post(
            f"/api/tables/{made['table']}/seats",
            json={"name": "Bea", "invite": made["invite"], "seat": seat},
        )
        assert r.status_code == 400, r.text
        assert r.json()["code"] == "bad_seat"
        assert r.json()["error"] == f"this table's seats are 0 to 2, not {seat}"
    assert sit(client, made["table"], "Bea", invite=made["invite"], seat=2)["seat"] == 2


def test_lobby_sockets_are_bounded(make_app: MakeApp) -> None:
    limits = Limits(create_burst=100_000, hint_processes=0, list_cache_s=0, max_lobby_sockets=1)
    with (
        TestClient(make_app(limits=limits)) as client,
        client.websocket_connect("/ws/lobby") as one,
    ):
        assert one.receive_json()["type"] == "lobby"
        with client.websocket_connect("/ws/lobby") as two:
            assert two.receive_json()["code"] == "too_many"
        # (worded in the client's ?lang=, as a table's socket; it names no table)
        with client.websocket_connect("/ws/lobby?lang=es") as three:
            refused = three.receive_json()
            assert refused["message"] == "Hay demasiadas conexiones: prueba más tarde.", refused
            assert refused["detail"] == "the lobby already has 1 connections"


def test_one_address_holds_a_bounded_share_of_the_lobby_sockets(make_app: MakeApp) -> None:
    """A few addresses could take every lobby socket: each has at most its share, and gets
    it back as its sockets close; another address is served meanwhile."""
    limits = Limits(
        create_burst=100_000,
        hint_processes=0,
        list_cache_s=0,
        max_lobby_sockets=10,
        max_lobby_sockets_per_client=2,
    )
    app = make_app(limits=limits)
    with TestClient(app) as client, TestClient(app, client=("10.0.0.2", 50000)) as other:
        with client.websocket_connect("/ws/lobby") as one:
            assert one.receive_json()["type"] == "lobby"
            with client.websocket_connect("/ws/lobby") as two:
                assert two.receive_json()["type"] == "lobby"
                with client.websocket_connect("/ws/lobby") as three:
                    refused = three.receive_json()
                    assert refused["code"] == "too_many"
                    assert refused["detail"] == "your address already has 2 lobby connections"
                with other.websocket_connect("/ws/lobby") as theirs:
                    assert theirs.receive_json()["type"] == "lobby"
            with client.websocket_connect("/ws/lobby") as again:  # (two closed: a place)
                assert again.receive_json()["type"] == "lobby"
        assert app.state.server.lobby_by_client == {}


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _status(client: TestClient, table: int) -> str:
    return str(client.get(f"/api/tables/{table}").json()["status"])


def test_quick_game_joins_or_creates_and_computers_fill_after_the_wait(
    app: Starlette, client: TestClient, tmp_path: Path
) -> None:
    clock = FakeClock()
    manager = app.state.manager
    manager.now = clock
    r = client.post("/api/quick", json={"game": "mariage", "name": "Ana"})
    assert r.status_code == 201
    ana = r.json()
    assert ana["seat"] == 0 and ana["status"] == "waiting"
    lobby = client.get("/api/lobby").json()
    assert [(t["table"], t["quick"], t["free"]) for t in lobby] == [(ana["table"], True, 1)]
    bea = client.post("/api/quick", json={"game": "mariage", "name": "Bea"}).json()
    assert (bea["table"], bea["seat"], bea["status"]) == (ana["table"], 1, "playing")
    # a Mil quick game waits for two more people; nobody comes, computers sit down at 30 s
    cid = client.post("/api/quick", json={"game": "mil", "name": "Cid"}).json()
    assert cid["table"] != ana["table"] and cid["status"] == "waiting"
    clock.t += 29
    assert client.portal is not None
    assert client.portal.call(manager.fill_due) == 0
    assert _status(client, cid["table"]) == "waiting"
    dan = client.post("/api/quick", json={"game": "mil", "name": "Dan", "fill_after_s": 5}).json()
    assert (dan["table"], dan["seat"]) == (cid["table"], 1)
    time.sleep(1.5)  # the server's own once-a-second fill runs on the same (fake) clock
    assert _status(client, cid["table"]) == "waiting"
    clock.t += 1.5
    deadline = time.monotonic() + 10
    while _status(client, cid["table"]) == "waiting" and time.monotonic() < deadline:
        time.sleep(0.1)
    info = client.get(f"/api/tables/{cid['table']}?token={cid['token']}").json()
    assert info["status"] == "playing"
    assert [s["kind"] for s in info["seats"]] == ["person", "person", "computer"]
    assert info["levels"][2] == "rules" and info["players"][2] not in ("Cid", "Dan")
    # the computer plays when its turn comes: the game goes on
    with client.websocket_connect(f"/ws/{cid['table']}?token={cid['token']}") as ws:
        next_of(Session(ws), "view")
    r = client.post("/api/quick", json={"game": "mil", "name": "Eve", "fill_after_s": -1})
    assert r.status_code == 400
    r = client.post("/api/quick", json={"game": "chess", "name": "Eve"})
    assert r.status_code == 400


def test_guests_of_one_name_meet_at_a_quick_table_numbered(client: TestClient) -> None:
    # (two newcomers who both left the name empty, each "Jugador", never met: the second
    # was refused by the first's name and opened a table of its own)
    seated = [
        client.post("/api/quick", json={"game": "mil", "name": "Jugador"}).json() for _ in range(3)
    ]
    assert len({p["table"] for p in seated}) == 1 and [p["seat"] for p in seated] == [0, 1, 2]
    assert [p.get("name") for p in seated[1:]] == ["Jugador 2", "Jugador 3"]  # (the answer says so)
    info = client.get(f"/api/tables/{seated[0]['table']}").json()
    assert info["players"] == ["Jugador", "Jugador 2", "Jugador 3"]
    assert info["status"] == "playing"
    # a name at the length limit is cut to make room for its number
    long = "W" * 32
    first = client.post("/api/quick", json={"game": "mariage", "name": long}).json()
    second = client.post("/api/quick", json={"game": "mariage", "name": long.lower()}).json()
    assert second["table"] == first["table"]
    players = client.get(f"/api/tables/{first['table']}").json()["players"]
    assert players == [long, "w" * 30 + " 2"]


def test_a_quick_table_whose_fill_failed_is_filled_at_a_later_pass(app: Starlette) -> None:
    """The computers' fill of a quick table meets a database that cannot write (locked,
    unreachable): the table waits a few seconds more and computers sit down at a later pass.
    (Before, the table was taken off the waits first, and its person waited for ever.)"""
    manager = app.state.manager
    clock = FakeClock()
    manager.now = clock
    fill_seats = manager._fill_seats
    failures = [OperationalError("UPDATE tables", {}, Exception("database is locked"))]

    def flaky(*args: Any) -> Any:
        if failures:
            raise failures.pop()
        return fill_seats(*args)

    manager._fill_seats = flaky

    async def scenario() -> tuple[int, int, str]:
        table, _ = await manager.quick(
            game="mil", profile="club", name="Ana", language="en", fill_after_s=30
        )
        clock.t += 31
        first = await manager.fill_due()  # the write fails
        clock.t += FILL_RETRY_S
        second = await manager.fill_due()
        await manager.close()
        return first, second, table.status

    assert asyncio.run(scenario()) == (0, 1, "playing")
    assert manager.failed_writes.count("fill") == 0  # (the failure was logged)


def test_a_quick_table_that_computers_fill_tells_its_person_it_started(
    app: Starlette, client: TestClient
) -> None:
    """Alone at a quick table, Ana got a ``presence`` of the waiting table; when computers
    took the free seat, no other came (one person against computers gets none), so her page
    said "waiting for everyone to sit down" through the whole game. She now gets the
    presence of the started table."""
    clock = FakeClock()
    app.state.manager.now = clock
    ana = client.post("/api/quick", json={"game": "mariage", "name": "Ana"}).json()
    with client.websocket_connect(f"/ws/{ana['table']}?token={ana['token']}") as ws:
        session = Session(ws)
        assert next_of(session, "presence")["status"] == "waiting"
        clock.t += 31  # the server's once-a-second fill runs on the same (fake) clock
        deadline = time.monotonic() + 10
        while _status(client, ana["table"]) == "waiting" and time.monotonic() < deadline:
            time.sleep(0.1)
        # a chat line's answer (the line, or a refusal) comes after what the start sent
        ws.send_json({"type": "chat", "text": "hola"})
        got = []
        while not got or got[-1]["type"] not in ("chat", "error"):
            got.append(session.receive())
        presences = [m for m in got if m["type"] == "presence"]
        assert presences and presences[-1]["status"] == "playing"
        assert [s["kind"] for s in presences[-1]["seats"]] == ["person", "computer"]


def test_the_message_schemas_accept_the_protocol_and_refuse_the_rest() -> None:
    ok = [
        {"type": "act", "version": 3, "action": {"type": "bid", "value": 120}},
        {"type": "sync"},
        {"type": "sync", "since": 12},
        {"type": "chat", "text": "hola"},
        {"type": "hint"},
    ]
    for m in ok:
        assert jsonschema_rs.is_valid(CLIENT[m["type"]], m), m
    bad = [
        {"type": "act", "version": 3, "action": {"type": "pass", "seat": 1}},
        {"type": "sync", "since": -1},
        {"type": "chat", "text": "x" * 301},
        {"type": "hint", "extra": 1},
    ]
    for m in bad:
        assert not jsonschema_rs.is_valid(CLIENT[m["type"]], m), m
    lobby = {
        "type": "lobby",
        "tables": [
            {
                "table": 1,
                "game": "g",
                "profile": "p",
                "target": 7,
                "taken": 1,
                "free": 1,
                "seats": [],
                "invite": "secret",
            }
        ],
    }
    assert not jsonschema_rs.is_valid(SERVER["lobby"], lobby)


def test_the_protocol_page_prints_every_schema() -> None:
    """docs/dev/protocol.md holds each schema of tapete.server.messages, as JSON."""
    page = (Path(__file__).parents[2] / "docs" / "dev" / "protocol.md").read_text("utf-8")
    for direction, table in (("client", CLIENT), ("server", SERVER)):
        for kind, schema in table.items():
            marker = f"<!-- schema {direction} {kind} -->"
            assert marker in page, marker
            block = page.split(marker, 1)[1].split("```json", 1)[1].split("```", 1)[0]
            assert json.loads(block) == schema, (direction, kind)


def test_a_record_does_not_wait_behind_the_computers_moves(
    app: Starlette, client: TestClient
) -> None:
    """A record's download (and a deal review, which reads the same) was built in the
    computers' thread pool: at busy tables it waited behind every computer move queued there
    (a review in a test waited over 120 s). Every computer thread is held here."""
    import threading

    made = make_table(
        client,
        seats=[{"kind": "me"}] + [{"kind": "computer", "level": "random"}] * 2,
        seed=5,
    )
    manager = app.state.manager
    release = threading.Event()
    held = [manager.bot_pool.submit(release.wait, 30) for _ in range(manager.limits.bot_workers)]
    try:
        began = time.monotonic()
        url = f"/api/tables/{made['table']}/record"
        r = client.get(url, headers={"X-Tapete-Token": made["token"]})
        assert r.status_code == 200, r.text
        assert time.monotonic() - began < 10
    finally:
        release.set()
        for job in held:
            job.result(30)
