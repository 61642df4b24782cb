"""The Alembic migrations on SQLite and on PostgreSQL: from an empty database to the newest
schema, and from a database of the previous schema with games in it (one under way, one
finished and counted) to the newest one, which the server then reads and plays on.

"Newest" and "previous" are read from the script directory (``db_helpers.revisions``), so
the tests follow the chain as it grows.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from db_helpers import current_revision, revisions, upgrade_to
from server_helpers import MakeApp, Session, action_count, new_table, stored_actions
from starlette.testclient import TestClient

from tapete.game import Game
from tapete.games import kind
from tapete.replay import replay
from tapete.server.db import Base, ChatRow, make_engine, upgrade
from tapete.server.tables import build_game


def test_an_empty_database_is_brought_to_the_newest_schema(db_url: str) -> None:
    """``upgrade`` makes the newest schema, which is the models' (no difference Alembic
    can see: tables, columns, types, nullability, indexes, keys), with the server's secret;
    a second upgrade changes nothing."""
    chain = revisions()
    engine = make_engine(db_url)
    try:
        assert current_revision(engine) is None
        upgrade(engine)
        assert current_revision(engine) == chain[-1]
        with engine.connect() as connection:
            context = MigrationContext.configure(
                connection, opts={"compare_type": True, "compare_server_default": False}
            )
            assert compare_metadata(context, Base.metadata) == []
            secret = connection.execute(
                sa.text("SELECT value FROM server_secrets WHERE name = 'bot_rng'")
            ).scalar_one()
        assert len(bytes.fromhex(secret)) == 32
        # the chat kept (0011_chat): its table, with the index its reads and trims use
        inspector = sa.inspect(engine)
        assert "table_chat" in inspector.get_table_names()
        assert {i["name"]: i["column_names"] for i in inspector.get_indexes("table_chat")} == {
            "ix_table_chat_table": ["table_id", "id"]
        }
        [key] = inspector.get_foreign_keys("table_chat")
        assert key["referred_table"] == "tables" and key["options"].get("ondelete") == "CASCADE"
        upgrade(engine)
        assert current_revision(engine) == chain[-1]
        with engine.connect() as connection:
            again = connection.execute(sa.text("SELECT value FROM server_secrets")).scalars()
            assert list(again) == [secret]
    finally:
        engine.dispose()


# ---------------------------------------------------------------------- the previous schema

PERSON, COMPUTER = "Ana", "Bruno"
NOW = datetime(2026, 11, 30, 18, 0, tzinfo=UTC)


def _played(seed: int, count: int | None) -> tuple[Game, list[tuple[int, dict[str, Any]]]]:
    """A Mariage match of ``PERSON`` and a computer from ``seed``, at least ``count`` random
    legal actions in and at the person's turn (None: to its end), and its actions with the
    seat that made each."""
    game = build_game("mariage", "mariage", seed=seed, players=[PERSON, COMPUTER], max_deals=None)
    rng = random.Random(seed)
    actions: list[tuple[int, dict[str, Any]]] = []
    while not game.over and (count is None or len(actions) < count or game.turn != 0):
        seat = game.turn
        assert seat is not None
        action = rng.choice(game.legal_actions())
        game.apply(action)
        actions.append((seat, action.to_json()))
    return game, actions


class OldDatabase:
    """Rows written with plain SQL into the tables of an older schema, as that schema's
    server wrote them; only the columns the schema has (reflected), so that the test holds
    for any previous revision."""

    def __init__(self, connection: sa.Connection) -> None:
        self.connection = connection
        self.meta = sa.MetaData()
        self.meta.reflect(connection)

    def insert(self, name: str, values: dict[str, Any]) -> Any:
        table = self.meta.tables[name]
        row = {k: v for k, v in values.items() if k in table.c}
        for column in table.c:
            required = not column.nullable and column.server_default is None
            numbered = column.primary_key and isinstance(column.type, sa.Integer)
            if required and column.name not in row and not numbered:
                pytest.fail(
                    f"the previous schema's {name}.{column.name} is required and this test "
                    "writes no value for it: add one in OldDatabase's rows",
                    pytrace=False,
                )
        pk = [c for c in table.primary_key.columns if c.name not in row]
        statement = sa.insert(table).values(row)
        if pk:
            return self.connection.execute(statement.returning(pk[0])).scalar_one()
        self.connection.execute(statement)
        return None

    def table(self, *, seed: int, token: str, game: Game, status: str, at: datetime) -> int:
        record = game.to_record()
        finished = status == "finished"
        table_id = self.insert(
            "tables",
            {
                "game": "mariage",
                "profile": "mariage",
                "seed": seed,
                "players": [PERSON, COMPUTER],
                "levels": [None, "random"],
                "token": token,
                "language": "pt",
                "status": status,
                "created_at": at,
                "opened_at": at,
                "finished_at": at + timedelta(minutes=20) if finished else None,
                "winner": game.winner if finished else None,
                "final_scores": record[kind("mariage").score_key] if finished else None,
                "owner": PERSON,
                "max_deals": None,
                "start": None,
                "seed_chosen": False,
            },
        )
        return int(table_id)

    def actions(
        self, table_id: int, actions: list[tuple[int, dict[str, Any]]], at: datetime
    ) -> None:
        for n, (seat, action) in enumerate(actions):
            when = at + timedelta(seconds=n)
            self.insert(
                "actions",
                {"table_id": table_id, "n": n, "seat": seat, "action": action, "created_at": when},
            )


def _json(value: Any) -> Any:
    return json.loads(json.dumps(value))


def test_a_database_of_the_previous_schema_with_games_in_it(db_url: str, make_app: MakeApp) -> None:
    """A database made by the previous revision, holding a finished match (in the
    statistics and the Ranking) and one under way, is upgraded by the server at start; it
    reads both, the one under way resumes where it was and is played to its end, and new
    tables are numbered after the old ones."""
    chain = revisions()
    assert len(chain) >= 2, f"one revision only ({chain}): no previous schema to test"
    engine = make_engine(db_url)
    upgrade_to(engine, chain[-2])
    assert current_revision(engine) == chain[-2]

    done, done_actions = _played(5, None)
    assert done.winner == 0  # (seed 5: the person wins, the match is in the Ranking)
    live, live_actions = _played(8, 9)
    with engine.begin() as connection:
        old = OldDatabase(connection)
        done_id = old.table(seed=5, token="d" * 32, game=done, status="finished", at=NOW)
        old.actions(done_id, done_actions, NOW)
        score = float(done.to_record()[kind("mariage").score_key][0])
        old.insert(
            "player_stats",
            {
                "name": PERSON,
                "game": "mariage",
                "profile": "mariage",
                "games": 1,
                "wins": 1,
                "points_total": score,
                "contracts_made": 0,
                "contracts_failed": 0,
                "barrel_visits": 0,
            },
        )
        old.insert(
            "ranking",
            {
                "name": PERSON,
                "game": "mariage",
                "profile": "mariage",
                "target": 7,
                "score": score,
                "table_id": done_id,
                "date": NOW + timedelta(minutes=20),
            },
        )
        # the match under way was played an hour ago: a fixed date would pass the server's
        # abandonment age (``abandoned_after_s``, 7 days) as the calendar moves on, and the
        # sweep at start would close it (CI of 2026-12-07 failed so, a week after NOW)
        recently = datetime.now(UTC) - timedelta(hours=1)
        live_id = old.table(seed=8, token="l" * 32, game=live, status="playing", at=recently)
        old.actions(live_id, live_actions, recently)
    engine.dispose()

    app = make_app()  # the server upgrades the database when it starts
    assert current_revision(app.state.manager.engine) == chain[-1]
    with TestClient(app) as client:
        # the finished match: its record, the statistics and the Ranking
        record = client.get(f"/api/tables/{done_id}/record").json()
        assert replay(record).winner == done.winner and len(record["deals"]) == len(
            done.to_record()["deals"]
        )
        [stats] = client.get("/api/stats", params={"name": PERSON}).json()
        assert stats["games"] == 1 and stats["wins"] == 1
        board = client.get("/api/ranking", params={"game": "mariage"}).json()
        entry = {"name": PERSON, "score": score, "profile": "mariage", "table": done_id}
        assert board == [{**entry, "date": "2026-11-30"}]
        listed = client.get("/api/tables", params={"name": PERSON}).json()
        assert [t["table"] for t in listed] == [live_id, done_id]
        assert listed[1]["created_at"] == "2026-11-30T18:00:00"
        assert listed[1]["finished_at"] == "2026-11-30T18:20:00"

        # the match under way: the same position, and it plays on to its end
        info = client.get(f"/api/tables/{live_id}", params={"token": "l" * 32}).json()
        assert info["status"] == "playing" and info["version"] == len(live_actions)
        with client.websocket_connect(f"/ws/{live_id}?token={'l' * 32}") as ws:
            me = Session(ws, random.Random(3))
            first = me.receive()
            assert first["version"] == len(live_actions)
            assert first["view"] == _json(live.view(0))
            last = me.play()
        assert last["over"]
        assert action_count(app, live_id) == me.version > len(live_actions)
        assert stored_actions(app, live_id)[: len(live_actions)] == [a for _, a in live_actions]
        replay(client.get(f"/api/tables/{live_id}/record").json())
        [stats] = client.get("/api/stats", params={"name": PERSON}).json()
        assert stats["games"] == 2

        # a table of the previous schema keeps its chat too (table_chat), and a connection
        # of its seat gets the line back
        with client.websocket_connect(f"/ws/{live_id}?token={'l' * 32}") as ws:
            ws.send_json({"type": "chat", "text": "olá"})
            while (m := ws.receive_json())["type"] != "chat":
                assert m["type"] != "error", m
        with app.state.manager.sessions() as session:
            texts = session.scalars(sa.select(ChatRow.text).where(ChatRow.table_id == live_id))
            assert list(texts) == ["olá"]
        app.state.manager.tables.clear()  # (rebuilt from the database on the next access)
        with client.websocket_connect(f"/ws/{live_id}?token={'l' * 32}") as ws:
            while (m := ws.receive_json())["type"] != "chat":
                pass
            assert m["text"] == "olá"

        # a new table gets the next number (PostgreSQL: the sequence follows the old rows)
        new_id, _ = new_table(client, game="mariage")
        assert new_id > live_id
