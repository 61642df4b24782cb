"""The seat clocks wired into the tables (docs/server.md, "Clocks and dropped seats"): a
fake clock (``TableManager.now``) and ``TableManager.tick_clocks`` decide when a deadline
passes, so nothing here waits for real time to go by."""

from __future__ import annotations

import asyncio
import gc
import json
import random
import time
import weakref
from collections.abc import Callable
from typing import Any

import jsonschema_rs
import pytest
from server_helpers import CARD_RE, MakeApp, Session, check_no_leak, wait_until
from sqlalchemy import select
from starlette.applications import Starlette
from starlette.testclient import TestClient
from test_server_room import FakeClock, make_table, next_of, sit

from tapete.server.db import ActionRow, TableRow
from tapete.server.messages import schema_of
from tapete.server.tables import Table, TableManager


def _live(app: Starlette, tid: int) -> Table:
    table: Table = app.state.manager.tables[tid]
    return table


def _tick(client: TestClient, app: Starlette, tid: int) -> None:
    """What the clock driver does when its wait ends, on the server's event loop."""
    assert client.portal is not None
    client.portal.call(app.state.manager.tick_clocks, _live(app, tid))


def _seats_of(app: Starlette, tid: int, since: int = 0) -> list[int]:
    with app.state.manager.sessions() as s:
        return list(
            s.scalars(
                select(ActionRow.seat)
                .where(ActionRow.table_id == tid, ActionRow.n >= since)
                .order_by(ActionRow.n)
            )
        )


def _until(message: str, session: Session) -> dict[str, Any]:
    return next_of(session, message)


def play(
    app: Starlette,
    tid: int,
    sessions: dict[int, Session],
    stop: Callable[[], bool],
    rng: random.Random,
    limit: int = 2000,
) -> None:
    """The people at ``sessions`` play random legal actions when it is their turn (and the
    seat is not a computer's now) until ``stop()`` or the game's end."""
    for _ in range(limit):
        if stop():
            return
        table = _live(app, tid)
        if table.game.over:
            return
        turn, version = table.game.turn, table.version
        if turn in sessions and not table.is_bot(turn):
            s = sessions[turn]
            while s.view is None or s.version < version:
                s.receive()
            if s.version != version or s.view["turn"] != turn or not s.view["legal"]:
                # (the game in memory is one action ahead while that action is written)
                time.sleep(0.01)
                continue
            s.act(rng.choice(s.view["legal"]))
        wait_until("the next action", lambda v=version: _live(app, tid).version > v or stop())
    raise AssertionError("the game did not reach the expected point")


def _bea_drops(
    client: TestClient,
    app: Starlette,
    tid: int,
    token: str,
    ana: Session,
    clock: FakeClock,
    grace: float,
) -> dict[str, Any]:
    """Bea (seat 1, ``token``) opens the table and closes it; past the ``grace`` a computer
    takes her seat: the ``takeover`` Ana hears."""
    with client.websocket_connect(f"/ws/{tid}?token={token}") as wb:
        _until("view", Session(wb))
    wait_until("the lost connection", lambda: _live(app, tid).connected().get(1, 0) == 0)
    clock.t += grace + 1
    _tick(client, app, tid)
    return _until("takeover", ana)


def _ana_and_bea(client: TestClient, **body: Any) -> tuple[dict[str, Any], int, dict[str, Any]]:
    """A Mariage table of Ana (seat 0) and Bea, invited, who sits down (``body``: the rest of
    the table's settings): the table as made, its id, and Bea's seat."""
    made = make_table(client, game="mariage", seats=[{"kind": "me"}, {"kind": "invited"}], **body)
    tid = made["table"]
    return made, tid, sit(client, tid, "Bea", invite=made["invite"])


def _drain(session: Session, version: int) -> None:
    while session.view is None or session.version < version:
        session.receive()


def test_a_dropped_seat_is_played_by_a_computer_and_given_back(
    app: Starlette, client: TestClient
) -> None:
    clock = FakeClock()
    app.state.manager.now = clock
    made = make_table(
        client,
        seats=[{"kind": "me"}, {"kind": "invited"}, {"kind": "invited"}],
        seed=5,
        max_deals=1,
        clock={"grace_s": 30},
    )
    tid = made["table"]
    bea = sit(client, tid, "Bea", invite=made["invite"])
    cid = sit(client, tid, "Cid", invite=made["invite"])
    assert cid["status"] == "playing"
    rng = random.Random(1)
    with (
        client.websocket_connect(f"/ws/{tid}?token={made['token']}") as wa,
        client.websocket_connect(f"/ws/{tid}?token={bea['token']}") as wb,
        client.websocket_connect(f"/ws/{tid}") as ww,
    ):
        a, b, w = Session(wa), Session(wb), Session(ww)
        with client.websocket_connect(f"/ws/{tid}?token={cid['token']}") as wc:
            c = Session(wc)
            first = _until("view", c)
            assert first["clocks"]["clock"]["grace_s"] == 30
            assert first["clocks"]["seats"][2]["connected"]
        # Cid closed the tab: within the grace nothing happens
        wait_until("the lost connection", lambda: _live(app, tid).connected().get(2, 0) == 0)
        clock.t += 29
        _tick(client, app, tid)
        assert not _live(app, tid).is_bot(2)
        while (presence := _until("presence", a))["clocks"]["seats"][2]["connected"]:
            pass
        assert presence["clocks"]["seats"][2]["grace"] == 30.0
        clock.t += 2
        _tick(client, app, tid)
        assert _live(app, tid).is_bot(2)
        # everyone hears of it (seats and spectators), and no card is in the announcement
        for s in (a, b, w):
            news = _until("takeover", s)
            assert news == {
                "type": "takeover",
                "seat": 2,
                "reason": "disconnected",
                "name": "Cid",
                "version": news["version"],
            }
            assert not CARD_RE.search(json.dumps(news))
            jsonschema_rs.validate(schema_of("server", news), news)
        # the computer plays Cid's seat when its turn comes
        taken_at = _live(app, tid).version
        people = {0: a, 1: b}
        play(app, tid, people, lambda: 2 in _seats_of(app, tid, taken_at), rng)
        # Cid reopens the table: the seat is his again, announced
        with client.websocket_connect(f"/ws/{tid}?token={cid['token']}") as wc:
            c = Session(wc)
            for s in (a, b, w):
                news = _until("giveback", s)
                assert (news["seat"], news["name"]) == (2, "Cid")
            assert not _live(app, tid).is_bot(2)
            back_at = _live(app, tid).version
            people[2] = c
            rng2 = random.Random(2)
            play(app, tid, people, lambda: 2 in _seats_of(app, tid, back_at), rng2)
            # (seat 2's action since the giveback was Cid's: no computer plays it now)
            assert not _live(app, tid).is_bot(2)
            version = _live(app, tid).version
            for s in (a, b, c, w):
                _drain(s, version)
        for seat, s in ((0, a), (1, b), (None, w)):
            assert check_no_leak(app, tid, s.log, seat) > 0
            for item in s.log:
                jsonschema_rs.validate(schema_of("server", item.message), item.message)


def test_abandonment_is_stored_and_survives_a_restart(make_app: MakeApp) -> None:
    app = make_app()
    clock = FakeClock()
    app.state.manager.now = clock
    with TestClient(app) as client:
        made, tid, bea = _ana_and_bea(
            client, seed=3, max_deals=1, clock={"grace_s": 10, "abandon_s": 60}
        )
        with client.websocket_connect(f"/ws/{tid}?token={made['token']}") as wa:
            a = Session(wa)
            assert _bea_drops(client, app, tid, bea["token"], a, clock, 10)["seat"] == 1
            clock.t += 58  # (the takeover fell due at 10 s: 60 s from then)
            _tick(client, app, tid)
            assert 1 not in _live(app, tid).abandoned
            clock.t += 2
            _tick(client, app, tid)
            news = _until("abandoned", a)
            assert (news["seat"], news["name"]) == (1, "Bea")
            assert _live(app, tid).abandoned == {1}

            def stored() -> list[int] | None:  # (written by the write thread, in order)
                with app.state.manager.sessions() as s:
                    return s.get(TableRow, tid).abandoned_seats  # type: ignore[no-any-return]

            wait_until("the abandoned seat to be stored", lambda: stored() == [1])
            # Bea coming back now changes nothing: the computer keeps the seat
            with client.websocket_connect(f"/ws/{tid}?token={bea['token']}") as wb:
                view = _until("view", Session(wb))
                assert view["clocks"]["seats"][1]["abandoned"] is True
            assert _live(app, tid).is_bot(1)
    # a restart keeps the abandonment: the computer plays the seat to the end
    again = make_app()
    with TestClient(again) as client:
        table = again.state.manager.get(tid)
        assert table is not None and table.abandoned == {1} and table.is_bot(1)
        with client.websocket_connect(f"/ws/{tid}?token={made['token']}") as wa:
            a = Session(wa)
            play(again, tid, {0: a}, lambda: False, random.Random(3), limit=200)
            assert _live(again, tid).game.over
        assert 1 in _seats_of(again, tid)


def test_the_computers_wait_while_every_person_is_away(app: Starlette, client: TestClient) -> None:
    """Both people of a Mariage table leave: past the grace computers take both seats, but
    they do not play the match out unseen; Ana back, they play Bea's seat again; once both
    have abandoned, the computers finish the game (docs/server.md, "Clocks and dropped
    seats")."""
    clock = FakeClock()
    app.state.manager.now = clock
    made, tid, bea = _ana_and_bea(client, seed=3, clock={"grace_s": 10, "abandon_s": 60})
    for token in (made["token"], bea["token"]):
        with client.websocket_connect(f"/ws/{tid}?token={token}") as ws:
            _until("view", Session(ws))
    wait_until("the lost connections", lambda: not _live(app, tid).connected())
    clock.t += 11
    _tick(client, app, tid)
    table = _live(app, tid)
    assert table.is_bot(0) and table.is_bot(1) and table.awaits_people
    version = table.version
    time.sleep(0.5)  # (the computers play at once in these tests: delay_ms 0)
    assert _live(app, tid).version == version and table.bot_task is None
    # Ana is back: her seat is hers, and the computer plays Bea's again
    with client.websocket_connect(f"/ws/{tid}?token={made['token']}") as wa:
        a = Session(wa)
        assert not _live(app, tid).is_bot(0) and not _live(app, tid).awaits_people
        play(app, tid, {0: a}, lambda: 1 in _seats_of(app, tid, version), random.Random(6))
        wait_until("the last write", lambda: not _live(app, tid).lock.locked())
    wait_until("the lost connection", lambda: not _live(app, tid).connected())
    # away again: past her grace and both abandonments, the computers play to the end
    clock.t += 11
    _tick(client, app, tid)
    assert _live(app, tid).awaits_people
    clock.t += 61
    _tick(client, app, tid)
    assert _live(app, tid).abandoned == {0, 1}

    def over() -> bool:
        with app.state.manager.sessions() as session:
            return bool(session.get(TableRow, tid).status == "finished")

    wait_until("the end of the game", over)


def test_move_time_and_bank_then_back(app: Starlette, client: TestClient) -> None:
    clock = FakeClock()
    app.state.manager.now = clock
    made, tid, bea = _ana_and_bea(client, seed=4, max_deals=1, clock={"move_s": 5, "bank_s": 10})
    lobby_clock = client.get(f"/api/tables/{tid}").json()["clock"]
    assert lobby_clock == {"move_s": 5, "bank_s": 10, "grace_s": 30.0, "abandon_s": 300.0}
    with (
        client.websocket_connect(f"/ws/{tid}?token={made['token']}") as wa,
        client.websocket_connect(f"/ws/{tid}?token={bea['token']}") as wb,
    ):
        sessions = {0: Session(wa), 1: Session(wb)}
        for s in sessions.values():
            _until("view", s)
        turn = _live(app, tid).game.turn
        assert turn is not None
        other = 1 - turn
        clock.t += 14.5  # the move time and most of the bank
        _tick(client, app, tid)
        assert not _live(app, tid).is_bot(turn)
        clock.t += 1
        _tick(client, app, tid)
        news = _until("takeover", sessions[other])
        assert (news["seat"], news["reason"]) == (turn, "time")
        # the computer plays the turn; the bank is spent
        wait_until("the computer's move", lambda: _seats_of(app, tid)[:1] == [turn])
        snap = _live(app, tid).clocks
        assert snap is not None and snap.snapshot(clock.t)["seats"][turn]["bank"] == 0.0
        # a connection alone does not give the seat back after a takeover for time; a
        # message of the person's own does ("I am back")
        assert _live(app, tid).is_bot(turn)
        sessions[turn].ws.send_json({"type": "back"})
        assert _until("giveback", sessions[other])["seat"] == turn
        assert not _live(app, tid).is_bot(turn)


def test_one_person_against_computers_has_no_clocks(app: Starlette, client: TestClient) -> None:
    clock = FakeClock()
    app.state.manager.now = clock
    made = make_table(client, game="mariage", levels=["random"], seed=2, max_deals=1)
    tid = made["table"]
    with client.websocket_connect(f"/ws/{tid}?token={made['token']}") as wa:
        view = _until("view", Session(wa))
        assert "clocks" not in view
    clock.t += 10_000
    table = app.state.manager.get(tid)
    assert table is not None and table.clocks is None and not table.is_bot(0)


def test_clock_settings_are_checked_and_shown_in_the_lobby(client: TestClient) -> None:
    base = {
        "game": "mil",
        "name": "Ana",
        "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "computer"}],
    }
    for clock, words in (
        ({"move_s": 0}, "clock.move_s must be"),
        ({"bank_s": 5}, "clock.bank_s must be 0 without a time per move"),
        ({"grace": 5}, "unknown field"),
        ("fast", "clock must be a JSON object"),
    ):
        r = client.post("/api/tables", json={**base, "clock": clock})
        assert r.status_code == 400 and words in r.json()["error"], (clock, r.text)
    made = make_table(client, **{**base, "public": True, "clock": {"move_s": 20, "bank_s": 60}})
    lobby = {t["table"]: t for t in client.get("/api/lobby").json()}
    assert lobby[made["table"]]["clock"] == {
        "move_s": 20,
        "bank_s": 60,
        "grace_s": 30.0,
        "abandon_s": 300.0,
    }


def test_a_rated_mil_game_of_three_users_with_an_abandonment_changes_their_ratings(
    app: Starlette, client: TestClient
) -> None:
    from tapete.server.ratings import RatingHistoryRow

    clock = FakeClock()
    app.state.manager.now = clock

    def sign_up(name: str) -> dict[str, Any]:
        client.cookies.clear()
        r = client.post("/api/signup", json={"name": name, "password": "correct horse 7"})
        assert r.status_code == 201, r.text
        body: dict[str, Any] = r.json()
        return body

    ana = sign_up("Ana")
    r = client.post(
        "/api/tables",
        json={
            "game": "mil",
            "name": "Ana",
            "rated": True,
            "max_deals": 1,
            "seats": [{"kind": "me"}, {"kind": "invited"}, {"kind": "invited"}],
            "clock": {"grace_s": 5, "abandon_s": 20},
        },
        headers={"x-csrf-token": ana["csrf"]},
    )
    assert r.status_code == 201, r.text
    made = r.json()
    tid, tokens = made["table"], {0: made["token"]}
    for seat, name in ((1, "Bea"), (2, "Cid")):
        me = sign_up(name)
        r = client.post(
            f"/api/tables/{tid}/seats",
            json={"invite": made["invite"]},
            headers={"x-csrf-token": me["csrf"]},
        )
        assert r.status_code == 201 and r.json()["seat"] == seat, r.text
        tokens[seat] = r.json()["token"]
    users = _live(app, tid).user_ids
    assert None not in users and _live(app, tid).rated
    with (
        client.websocket_connect(f"/ws/{tid}?token={tokens[0]}") as wa,
        client.websocket_connect(f"/ws/{tid}?token={tokens[1]}") as wb,
    ):
        people = {0: Session(wa), 1: Session(wb)}
        # Cid never comes: a computer takes his seat after the grace, then he has abandoned
        clock.t += 6
        _tick(client, app, tid)
        clock.t += 21
        _tick(client, app, tid)
        assert _until("abandoned", people[0])["seat"] == 2
        play(app, tid, people, lambda: False, random.Random(9))
        assert _live(app, tid).game.over

    def stored_status() -> str | None:
        with app.state.manager.sessions() as s:
            row = s.get(TableRow, tid)
            return None if row is None else row.status

    wait_until("the game's end to be stored", lambda: stored_status() == "finished")
    with app.state.manager.sessions() as s:
        rows = {r.user_id: r for r in s.scalars(select(RatingHistoryRow))}
        stored = s.get(TableRow, tid)
        assert stored is not None and stored.abandoned_seats == [2]
    assert set(rows) == set(users)
    cid = rows[users[2]]
    assert cid.abandoned == 1 and cid.place == 3 and cid.ordinal < cid.before
    winner = min(rows.values(), key=lambda r: r.place)
    assert winner.place == 1 and winner.ordinal > winner.before and winner.abandoned == 0

    # the table's rating changes, per seat, as the game-over window reads them
    r = client.get(f"/api/tables/{tid}/ratings")
    assert r.status_code == 200, r.text
    shown = r.json()
    assert (shown["table"], shown["rated"], shown["pool"]) == (tid, True, "mil-1000")
    assert [s["seat"] for s in shown["seats"]] == [0, 1, 2]
    assert [s["name"] for s in shown["seats"]] == ["Ana", "Bea", "Cid"]
    for seat, uid in enumerate(users):
        row, entry = rows[uid], shown["seats"][seat]
        assert entry["ordinal"] == round(row.ordinal, 2) and entry["before"] == 0.0
        assert entry["change"] == round(round(row.ordinal, 2) - 0.0, 2)
        assert (entry["place"], entry["games"], entry["provisional"]) == (row.place, 1, True)
        assert entry["abandoned"] == (seat == 2)
    assert client.get("/api/tables/999999/ratings").status_code == 404


@pytest.mark.parametrize("seed", [3])
def test_an_abandoned_seat_that_a_computer_wins_earns_its_person_no_win(
    app: Starlette, client: TestClient, seed: int
) -> None:
    """Bea sits down at Ana's Mariage table and never comes: a computer plays her seat
    after the grace, she has abandoned after the limit, and the computer wins the match for
    her. The game counts as one she played and nothing more: no win, no points, no Ranking
    entry (else leaving games to a strong computer would earn its wins); Ana's loss counts
    as usual."""
    from tapete.server.db import RankingRow, StatRow

    clock = FakeClock()
    app.state.manager.now = clock
    seats = [{"kind": "me"}, {"kind": "invited"}]
    made = make_table(client, game="mariage", seats=seats, clock={"grace_s": 5, "abandon_s": 20})
    tid = made["table"]
    sit(client, tid, "Bea", invite=made["invite"])
    with client.websocket_connect(f"/ws/{tid}?token={made['token']}") as wa:
        ana = Session(wa)
        clock.t += 6
        _tick(client, app, tid)
        clock.t += 21
        _tick(client, app, tid)
        assert _until("abandoned", ana)["seat"] == 1
        play(app, tid, {0: ana}, lambda: False, random.Random(seed))
        table = _live(app, tid)
        assert table.game.over and table.ranked
        assert table.game.winner == 1, "the seed must let Bea's computer win"

    def stored(name: str) -> StatRow | None:
        with app.state.manager.sessions() as s:
            return s.get(StatRow, (name, "mariage", "mariage"))

    wait_until("the game's statistics", lambda: stored("Bea") is not None)
    bea, ana_row = stored("Bea"), stored("Ana")
    assert bea is not None and ana_row is not None
    assert (bea.games, bea.wins, bea.points_total, bea.contracts_made) == (1, 0, 0.0, 0)
    assert (ana_row.games, ana_row.wins) == (1, 0)
    with app.state.manager.sessions() as s:
        assert not list(s.scalars(select(RankingRow).where(RankingRow.table_id == tid)))


def test_an_unrated_table_has_no_rating_changes(client: TestClient) -> None:
    r = client.post("/api/tables", json={"game": "mariage", "name": "Ana", "levels": ["random"]})
    assert r.status_code == 201, r.text
    tid = r.json()["table"]
    shown = client.get(f"/api/tables/{tid}/ratings").json()
    assert shown == {"table": tid, "rated": False, "pool": None, "seats": []}


def test_an_invited_persons_page_lists_the_game_they_sat_at(
    app: Starlette, client: TestClient
) -> None:
    made, tid, bea = _ana_and_bea(client, max_deals=1)
    with (
        client.websocket_connect(f"/ws/{tid}?token={made['token']}") as wa,
        client.websocket_connect(f"/ws/{tid}?token={bea['token']}") as wb,
    ):
        play(app, tid, {0: Session(wa), 1: Session(wb)}, lambda: False, random.Random(4))
    wait_until(
        "the game's end to be stored",
        lambda: [g["table"] for g in client.get("/api/players/Bea").json()["games"]] == [tid],
    )
    assert [g["table"] for g in client.get("/api/players/Ana").json()["games"]] == [tid]
    assert client.get("/api/players/Cid").json()["games"] == []


def test_a_restart_builds_the_clocks_again_and_the_computers_play_on(make_app: MakeApp) -> None:
    """A Mil table of two people and a computer, Bea's seat taken over for a lost
    connection, then the server restarted. The takeover lived in memory only: on the new
    server the seat is Bea's again with a fresh grace from the rebuild (docs/server.md, "What
    survives a restart"); past that grace a computer takes it over again, and both it and
    the table's own computer play on the new server."""
    app, clock = make_app(), FakeClock()
    app.state.manager.now = clock
    with TestClient(app) as client:
        made = make_table(
            client,
            seats=[{"kind": "me"}, {"kind": "invited"}, {"kind": "computer", "level": "random"}],
            seed=5,
            clock={"grace_s": 10, "abandon_s": 600},
        )
        tid = made["table"]
        bea = sit(client, tid, "Bea", invite=made["invite"])
        with client.websocket_connect(f"/ws/{tid}?token={made['token']}") as wa:
            a = Session(wa)
            assert _bea_drops(client, app, tid, bea["token"], a, clock, 10)["seat"] == 1
            assert _live(app, tid).is_bot(1)
            # play on to Ana's turn (the computers, Bea's seat too, play theirs)
            play(app, tid, {0: a}, lambda: _live(app, tid).game.turn == 0, random.Random(4))
            wait_until("the last write", lambda: not _live(app, tid).lock.locked())
            before = _live(app, tid).version

    again, clock = make_app(), FakeClock()
    again.state.manager.now = clock
    with (
        TestClient(again) as client,
        client.websocket_connect(f"/ws/{tid}?token={made['token']}") as wa,
    ):
        a = Session(wa)
        first = _until("view", a)
        assert first["version"] == before
        seats = first["clocks"]["seats"]
        assert seats[0]["connected"] and seats[2] is None
        bea_seat = (seats[1]["taken"], seats[1]["grace"], seats[1]["connected"])
        assert bea_seat == (None, 10, False)  # hers again, the grace from the rebuild
        assert not _live(again, tid).is_bot(1)
        clock.t += 11
        _tick(client, again, tid)
        news = _until("takeover", a)
        assert (news["seat"], news["reason"]) == (1, "disconnected")
        both = lambda: {1, 2} <= set(_seats_of(again, tid, before))  # noqa: E731
        play(again, tid, {0: a}, both, random.Random(5))


class _Ear:
    """A listener that keeps nothing."""

    patches = False

    def __init__(self, seat: int | None) -> None:
        self.seat = seat

    def push(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


async def _three_people(manager: TableManager, max_deals: int | None = None) -> list[_Ear]:
    """A Mil table of three people in memory (so with clocks), a listener at each seat."""
    table = manager.create(
        game="mil",
        profile="club",
        name="Ana",
        language="en",
        seats=[("me", None), ("open", None), ("open", None)],
        seed=3,
        listed=True,
        max_deals=max_deals,
    )
    manager.join(table.id, name="Bea")
    manager.join(table.id, name="Cid")
    loaded = await manager.load(table.id)
    assert loaded is not None
    ears = [_Ear(seat) for seat in (0, 1, 2)]
    for ear in ears:
        manager.attach(loaded, ear)
    assert loaded.driver is not None and loaded.clocks is not None
    return ears


def test_a_forgotten_table_with_clocks_is_freed_without_the_collector(make_app: MakeApp) -> None:
    """A table of several people has seat clocks and a driver whose callback holds the table;
    once its game is over and nobody listens, the table is forgotten and the driver closed,
    and the table (its whole game) is freed at once, not at the collector's rare full pass
    (the reference cycle kept every finished game of a busy room in memory:
    docs/benchmarks.md)."""
    app = make_app(delay_ms=0)
    manager: TableManager = app.state.manager

    async def main() -> weakref.ref[Table]:
        ears = await _three_people(manager, max_deals=1)
        (loaded,) = manager.tables.values()
        while not loaded.game.over:  # (a finished game: no clock deadline keeps the table)
            game = loaded.game
            await manager.act(loaded, game.turn, loaded.version, game.legal_actions()[0].to_json())
        for ear in ears:
            manager.detach(loaded, ear)
        assert loaded.id not in manager.tables
        # the write thread is done with the last action (its one worker runs this after it)
        await asyncio.wrap_future(manager.writer.pool.submit(lambda: None))
        await asyncio.sleep(0)  # (the driver's cancelled task ends)
        await asyncio.sleep(0)
        return weakref.ref(loaded)

    gc.collect()
    gc.disable()
    try:
        gone = asyncio.run(main())
        assert gone() is None, [type(r).__name__ for r in gc.get_referrers(gone())]
    finally:
        gc.enable()


def test_a_forgotten_table_put_back_in_memory_gets_clocks_that_fire(make_app: MakeApp) -> None:
    """A table forgotten while a connection waited for it is put back in memory by that
    connection; its clocks are built again then, so that a person who drops afterwards is
    still taken over after the grace period (the old clocks' driver was closed for good)."""
    app = make_app(delay_ms=0)
    manager: TableManager = app.state.manager

    async def main() -> None:
        ears = await _three_people(manager)
        (loaded,) = manager.tables.values()
        for ear in ears:
            manager.detach(loaded, ear)  # (kept in memory: the grace periods run)
        old = loaded.driver
        # (as if Bea's seat had been taken over meanwhile, and Cid had abandoned his)
        cid = object()
        loaded.bots[1], loaded.bots[2] = object(), cid
        loaded.abandoned.add(2)
        manager._forget(loaded)  # (what _maybe_evict does once nothing holds the table)
        # Bea's seat is hers again with the new clocks; Cid's computer plays on
        assert loaded.bots == {2: cid}
        loaded.abandoned.discard(2)
        del loaded.bots[2]
        assert old is not None and old.armed is None and loaded.id not in manager.tables
        back = await manager.settled_in_memory(loaded)
        assert back is loaded and manager.tables[loaded.id] is loaded
        for ear in ears:
            manager.attach(loaded, ear)
        assert loaded.driver is not None and loaded.driver is not old
        manager.detach(loaded, ears[1])  # Bea drops: her grace period runs
        assert loaded.driver.armed is not None
        for ear in (ears[0], ears[2]):
            manager.detach(loaded, ear)
        await manager.close()

    asyncio.run(main())


def test_delayed_spectators_get_no_clocks_of_the_live_game(
    app: Starlette, client: TestClient
) -> None:
    """The seat clocks say whose move it is now (the clock that runs), at the live game: a
    spectator who sees the game N actions behind would see a clock run for a seat that is not
    the one to act in their view, and learn from it who has passed (docs/dev/protocol.md:
    never anything newer). Their views and presence carry no clocks; the seats' do."""
    app.state.manager.now = FakeClock()
    made = make_table(
        client,
        seats=[{"kind": "me"}, {"kind": "invited"}, {"kind": "invited"}],
        seed=4,
        max_deals=1,
        spectator_delay=3,
        clock={"move_s": 60},
    )
    tid = made["table"]
    tokens = [made["token"]] + [
        sit(client, tid, name, invite=made["invite"])["token"] for name in ("Bea", "Cid")
    ]
    with (
        client.websocket_connect(f"/ws/{tid}?token={tokens[0]}") as w0,
        client.websocket_connect(f"/ws/{tid}?token={tokens[1]}") as w1,
        client.websocket_connect(f"/ws/{tid}?token={tokens[2]}") as w2,
        client.websocket_connect(f"/ws/{tid}") as ws,
    ):
        sessions = {0: Session(w0), 1: Session(w1), 2: Session(w2)}
        watcher = Session(ws)
        play(app, tid, sessions, lambda: _live(app, tid).version >= 10, random.Random(3))
        while watcher.version < _live(app, tid).version - 3:
            watcher.receive()
    assert not _live(app, tid).game.over
    kinds = [r.message["type"] for r in watcher.log]
    assert "view" in kinds and "presence" in kinds, kinds
    assert [r.message["type"] for r in watcher.log if "clocks" in r.message] == []
    assert all("clocks" in r.message for r in sessions[0].log if r.message["type"] == "view")
