"""Two server processes on one database (two apps here, each with its own tables in memory and
its own connections) never give one seat to two people: Cid (through one) and Dan (through the
other) race from two threads for the last free seat of a table; exactly one sits down, the
other gets a clear 409, and the stored seats agree with what both servers say.

The race is forced where the database allows it: each server, once it has read the table's
seats for the sit-down, waits until the other has read them too, so that both believe the seat
free (SQLite, and PostgreSQL without the row lock: the conditional UPDATE decides). With the
row lock (PostgreSQL) the second server cannot read until the first is done: the wait ends
after a second and the second server then sees the seat taken."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
from typing import Any

from server_helpers import TEST_LIMITS, MakeApp
from sqlalchemy import event, select
from starlette.applications import Starlette
from starlette.testclient import TestClient

from tapete.server.db import SeatRow, TableRow

#: a lock waits longer than the forced wait (the default 0.25 s would make it a 503)
LIMITS = dataclasses.replace(TEST_LIMITS, busy_timeout_s=10.0)


class Hold:
    """Once :meth:`arm` is called, each app's first read of a table's seats for a sit-down
    (the statement ordered by seat) waits for the other app's (at most a second)."""

    def __init__(self, apps: list[Starlette]) -> None:
        self.count = len(apps)
        self.barrier = threading.Barrier(self.count)
        self.held: list[threading.Event] = []
        for app in apps:
            held = threading.Event()
            held.set()  # (not armed)
            self.held.append(held)
            event.listen(app.state.manager.engine, "after_cursor_execute", self._after(held))

    def _after(self, held: threading.Event) -> Any:
        def after(conn: Any, cursor: Any, statement: str, *_: Any) -> None:
            if not held.is_set() and "ORDER BY table_seats.seat" in statement:
                held.set()
                with contextlib.suppress(threading.BrokenBarrierError):
                    self.barrier.wait()

        return after

    def arm(self) -> None:
        self.barrier = threading.Barrier(self.count, timeout=1.0)
        for held in self.held:
            held.clear()

    def disarm(self) -> None:
        for held in self.held:
            held.set()


def stored(app: Starlette, table: int) -> tuple[list[SeatRow], TableRow]:
    """The table's seat rows (in order) and its row, as the database holds them."""
    with app.state.manager.sessions() as session:
        seats = list(
            session.scalars(select(SeatRow).where(SeatRow.table_id == table).order_by(SeatRow.seat))
        )
        row = session.get(TableRow, table)
        assert row is not None
        return seats, row


def race(hold: Hold, table: int, people: dict[str, TestClient]) -> dict[str, Any]:
    """Each person asks their server for a seat at ``table`` at the same moment (a thread
    each); their answers."""
    start = threading.Barrier(len(people))
    results: dict[str, Any] = {}

    def sit(name: str, client: TestClient) -> None:
        start.wait()
        results[name] = client.post(f"/api/tables/{table}/seats", json={"name": name})

    hold.arm()
    threads = [threading.Thread(target=sit, args=item) for item in people.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    hold.disarm()
    assert set(results) == set(people)
    return results


def test_two_servers_never_give_the_last_seat_twice(make_app: MakeApp) -> None:
    one, two = make_app(limits=LIMITS), make_app(limits=LIMITS)
    hold = Hold([one, two])
    with TestClient(one) as first, TestClient(two) as second:
        # the table made on each server in turn
        for n, (a, b) in enumerate([(first, second), (second, first)]):
            r = a.post(
                "/api/tables",
                json={
                    "game": "mil",
                    "name": "Ana",
                    "seats": [{"kind": "me"}, {"kind": "open"}, {"kind": "open"}],
                    "public": True,
                },
            )
            assert r.status_code == 201, r.text
            table = r.json()["table"]
            # Bea sits down through the other server: one seat is left
            r = b.post(f"/api/tables/{table}/seats", json={"name": "Bea"})
            assert r.status_code == 201 and r.json()["seat"] == 1, r.text

            results = race(hold, table, {"Cid": a, "Dan": b})
            codes = {name: r.status_code for name, r in results.items()}
            assert sorted(codes.values()) == [201, 409], (
                n,
                {k: r.text for k, r in results.items()},
            )
            winner = next(name for name, code in codes.items() if code == 201)
            loser = "Dan" if winner == "Cid" else "Cid"
            assert results[winner].json()["seat"] == 2
            error = results[loser].json()["error"]
            # the loser read the seat free, then lost the write (no row lock, or both read
            # before either locked), or waited for the winner's row lock and then found the
            # table full (PostgreSQL): both say so
            assert (
                "taken by someone else just now" in error
                or "every seat of this table is taken" in error
            ), error

            # the database holds one person per seat, the winner at the last one
            seats, row = stored(one, table)
            players = list(row.players)
            assert [(s.kind, s.name) for s in seats] == [
                ("person", "Ana"),
                ("person", "Bea"),
                ("person", winner),
            ]
            assert len({s.token for s in seats}) == 3
            assert results[winner].json()["token"] == seats[2].token
            assert players == ["Ana", "Bea", winner]
            # both servers describe the table as stored
            for client in (a, b):
                info = client.get(f"/api/tables/{table}").json()
                assert [s["name"] for s in info["seats"]] == ["Ana", "Bea", winner], info
            # the loser may try again: the table is full now
            again = (a if loser == "Cid" else b).post(
                f"/api/tables/{table}/seats", json={"name": loser}
            )
            assert again.status_code == 409, again.text


def test_computers_filling_a_quick_table_keep_off_a_seat_taken_elsewhere(
    make_app: MakeApp,
) -> None:
    """A quick table's computers come at the end of its wait, on the server that made it,
    whose seats in memory may be old: a person seated through the other server keeps the
    seat, and the computer takes the one still free."""
    one, two = make_app(limits=LIMITS), make_app(limits=LIMITS)
    now = [0.0]
    one.state.manager.now = lambda: now[0]
    with TestClient(one) as a, TestClient(two) as b:
        cid = a.post("/api/quick", json={"game": "mil", "name": "Cid", "fill_after_s": 5})
        table = cid.json()["table"]
        dan = b.post(f"/api/tables/{table}/seats", json={"name": "Dan"})
        assert dan.status_code == 201 and dan.json()["seat"] == 1, dan.text
        now[0] += 6
        # the server's own once-a-second fill runs on the same (fake) clock and may come
        # first: either way the table is filled exactly once, by server one
        filled = a.portal.call(one.state.manager.fill_due)  # type: ignore[union-attr]
        seats, row = stored(one, table)
        assert filled == 1 or row.status == "playing", (filled, row.status)
        players, status = list(row.players), row.status
        assert [(s.kind, s.name) for s in seats][:2] == [("person", "Cid"), ("person", "Dan")]
        assert seats[2].kind == "computer" and seats[2].name not in ("Cid", "Dan")
        assert seats[1].token == dan.json()["token"]
        assert players == ["Cid", "Dan", seats[2].name] and status == "playing"
        info = a.get(f"/api/tables/{table}").json()
        assert [s["kind"] for s in info["seats"]] == ["person", "person", "computer"]
