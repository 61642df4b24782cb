"""Group commit of the actions (docs/server.md, "Running Tapete on a network"): the actions of
several tables that arrive while the write thread is busy are stored in one transaction,
each table's view goes out only once that transaction is committed, and one table's refused
write refuses no other table's action."""

from __future__ import annotations

import asyncio
import json
import threading
from datetime import UTC
from typing import Any

from server_helpers import MakeApp, action_count
from sqlalchemy import event, insert

from tapete.games import kind
from tapete.server.db import ActionRow, utcnow
from tapete.server.tables import Table, TableError, TableManager


class Ear:
    """A listener of a table that keeps the messages it is sent."""

    patches = False

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.texts: list[str] = []

    def push(self, text: str) -> None:
        self.texts.append(text)

    def close(self) -> None:
        pass

    def versions(self) -> list[int]:
        return [m["version"] for t in self.texts if (m := json.loads(t))["type"] == "view"]


def tables_at_turn(manager: TableManager, count: int) -> list[tuple[Table, Ear]]:
    """``count`` Mariage tables (a person and a computer that waits a minute), each with a
    listener of the seat to act."""
    out = []
    for seed in range(count):
        table = manager.create(
            game="mariage",
            profile=kind("mariage").profiles[0],
            name="Ana",
            language="en",
            levels=["random"],
            seed=seed,
        )
        ear = Ear(table.game.turn)
        manager.attach(table, ear)
        out.append((table, ear))
    return out


async def act_while_the_writer_is_busy(
    manager: TableManager, tables: list[tuple[Table, Ear]]
) -> tuple[list[Any], list[list[int]]]:
    """Every table's seat to act plays its first legal action while the write thread is
    held; return each act's outcome (None or the error) and the versions each listener had
    been sent while the thread was held."""
    gate = threading.Event()
    manager.writer.pool.submit(gate.wait, 10)
    acts = [
        asyncio.ensure_future(
            manager.act(t, t.game.turn, t.version, t.game.legal_actions()[0].to_json())
        )
        for t, _ in tables
    ]
    await asyncio.sleep(0.2)  # every action applied and waiting for its write
    held = [ear.versions() for _, ear in tables]
    gate.set()
    outcomes = await asyncio.gather(*acts, return_exceptions=True)
    return outcomes, held


def test_the_actions_of_several_tables_are_committed_together(make_app: MakeApp) -> None:
    app = make_app(delay_ms=60_000)
    manager: TableManager = app.state.manager
    commits: list[int] = []
    event.listen(manager.engine, "commit", lambda conn: commits.append(1))
    tables = tables_at_turn(manager, 3)

    async def main() -> tuple[list[Any], list[list[int]]]:
        commits.clear()
        return await act_while_the_writer_is_busy(manager, tables)

    outcomes, held = asyncio.run(main())
    assert outcomes == [None, None, None]
    # nothing was sent before the write: each listener had only its first view
    assert held == [[0], [0], [0]]
    assert len(commits) == 1, f"{len(commits)} transactions for 3 actions"
    for table, ear in tables:
        assert ear.versions() == [0, 1]
        assert action_count(app, table.id) == 1


def test_the_actions_of_one_turn_of_the_loop_are_committed_together(make_app: MakeApp) -> None:
    """With the write thread idle, the actions applied in one turn of the event loop still
    go in one transaction: the thread starts after the turn, not at the first action (a
    thread woken at once wrote them one or two at a time)."""
    app = make_app(delay_ms=60_000)
    manager: TableManager = app.state.manager
    commits: list[int] = []
    event.listen(manager.engine, "commit", lambda conn: commits.append(1))
    tables = tables_at_turn(manager, 4)

    async def main() -> list[Any]:
        commits.clear()
        acts = [
            asyncio.ensure_future(
                manager.act(t, t.game.turn, t.version, t.game.legal_actions()[0].to_json())
            )
            for t, _ in tables
        ]
        return await asyncio.gather(*acts, return_exceptions=True)

    assert asyncio.run(main()) == [None] * 4
    assert len(commits) == 1, f"{len(commits)} transactions for 4 actions"
    for table, ear in tables:
        assert ear.versions() == [0, 1]
        assert action_count(app, table.id) == 1


def test_a_refused_write_in_a_group_refuses_no_other_table(make_app: MakeApp) -> None:
    """The middle table's action number is already in the database (another writer got
    there first): its write fails, its action is refused; the two others are stored and sent
    (the group's transaction failed, and each action was written again alone)."""
    app = make_app(delay_ms=60_000)
    manager: TableManager = app.state.manager
    tables = tables_at_turn(manager, 3)
    middle = tables[1][0]
    with manager.engine.begin() as connection:
        connection.execute(
            insert(ActionRow),
            {
                "table_id": middle.id,
                "n": 0,
                "seat": middle.game.turn,
                "action": middle.game.legal_actions()[0].to_json(),
                "created_at": utcnow(),
            },
        )

    outcomes, _ = asyncio.run(act_while_the_writer_is_busy(manager, tables))
    assert outcomes[0] is None and outcomes[2] is None, outcomes
    assert isinstance(outcomes[1], TableError), outcomes
    for table, ear in (tables[0], tables[2]):
        assert ear.versions() == [0, 1]
        assert action_count(app, table.id) == 1
    assert 1 not in tables[1][1].versions()


def test_an_action_is_stored_as_the_orm_would_store_it(make_app: MakeApp) -> None:
    """The actions' insert is plain SQL through the driver (db.insert_actions): what it
    stores reads back through the ORM as the ORM's own insert would have stored it, the
    moment in UTC to the microsecond, the action as its JSON, on both databases."""
    from datetime import datetime

    from sqlalchemy import select

    from tapete.server.db import insert_actions

    app = make_app(delay_ms=60_000)
    manager: TableManager = app.state.manager
    (a, _), (b, _) = tables_at_turn(manager, 2)
    # (a moment of today: a fixed date would grow older than the sweep's abandonment age)
    when = datetime.now(UTC).replace(microsecond=123456)
    action = {"type": "play", "card": "QH", "note": "ñ€"}
    with manager.engine.begin() as connection:
        insert_actions(connection, [(a.id, 0, 1, action)], when)
        connection.execute(
            insert(ActionRow),
            {"table_id": b.id, "n": 0, "seat": 1, "action": action, "created_at": when},
        )
    with manager.engine.connect() as connection:
        rows = connection.execute(
            select(ActionRow.seat, ActionRow.action, ActionRow.created_at)
            .where(ActionRow.table_id.in_([a.id, b.id]))
            .order_by(ActionRow.table_id)
        ).all()
    assert rows[0] == rows[1] == (1, action, when.replace(tzinfo=None)), rows
