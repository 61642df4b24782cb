"""Patches (``patches=1``, tapete.server.patches): a connection that asks for them gets, after
its first view, only what changed in its view at each broadcast. Put over the view it holds,
every patch makes exactly the whole view (the same JSON text, keys aside) for every seat and
spectator, over whole games of every game and profile, with connections joining and asking
for the whole view again mid-game, delayed spectators, and names only the slow encoder
writes."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from server_helpers import people_table
from starlette.testclient import TestClient

from tapete.games import kind
from tapete.server.app import create_app
from tapete.server.patches import changes, patched
from tapete.server.tables import Table, TableManager, message_text

pytestmark = pytest.mark.sqlite_only


class Ear:
    """A listener that follows its view as a client does: whole views as they come, patches
    put over the view it holds (checking that the patch is of that view's version)."""

    def __init__(self, seat: int | None, patches: bool) -> None:
        self.seat, self.patches = seat, patches
        self.view: dict[str, Any] | None = None
        self.version = -1
        #: the seat clocks as the last message that had them gave them
        self.clocks: Any = None
        self.without_clocks = 0
        self.kinds = {"view": 0, "patch": 0}
        self.sizes = {"view": 0, "patch": 0}

    def push(self, text: str) -> None:
        m = json.loads(text)
        if "clocks" in m:  # (a patch leaves them out when they are as they were)
            self.clocks = m["clocks"]
        if m["type"] not in ("view", "patch"):
            return
        self.kinds[m["type"]] += 1
        self.sizes[m["type"]] += len(text.encode())
        sheet_from = m["sheet_from"]
        if m["type"] == "patch":
            assert self.patches, "a patch to a connection that did not ask for them"
            assert self.view is not None and m["patch_of"] == self.version, (m, self.version)
            assert set(m["view"]) != set(self.view)  # (not the whole view again)
            self.view = patched(self.view, m["view"], m["removed"], sheet_from)
            self.without_clocks += "clocks" not in m
        else:
            view = m["view"]
            if sheet_from and "sheet" in view:
                assert self.view is not None
                view["sheet"] = self.view["sheet"][:sheet_from] + view["sheet"]
            self.view = view
        self.version = m["version"]

    def close(self) -> None:
        pass


def canonical(view: Any) -> bytes:
    """A view's JSON text with its keys sorted (``true`` and ``1`` differ, as on the wire)."""
    return json.dumps(view, sort_keys=True).encode()


def expected(table: Table, seat: int | None) -> bytes:
    return canonical(json.loads(message_text(table.view_message(seat)))["view"])


async def play(manager: TableManager, table: Table, seed: int, *, rejoin: bool = True) -> list[Ear]:
    """Play ``table``'s game to its end with random legal actions, two connections a seat
    and two spectators (one of each asking for patches); now and then a new connection
    comes (``attach``) or one asks for the whole view (``sync``). After every action, each
    connection's view is the whole one."""
    rng = random.Random(seed)
    loaded = await manager.load(table.id)
    assert loaded is not None
    seats: list[int | None] = [*range(len(loaded.levels)), None]
    ears = [Ear(seat, patches) for seat in seats for patches in (False, True)]
    for ear in ears:
        manager.attach(loaded, ear)
    while not loaded.game.over:
        action = rng.choice(loaded.game.legal_actions()).to_json()
        await manager.act(loaded, loaded.game.turn, loaded.version, action)
        for ear in ears:
            assert ear.version == loaded.seen_version(ear.seat)
            assert canonical(ear.view) == expected(loaded, ear.seat), (ear.seat, ear.patches)
            if ear.seat is not None or not loaded.delayed:
                assert ear.clocks == ears[0].clocks  # (seat 0's ear of whole views)
        if rejoin and rng.random() < 0.05:
            ear = Ear(rng.choice(seats), True)
            ears.append(ear)
            manager.attach(loaded, ear)
        if rejoin and rng.random() < 0.05:
            manager.resync(loaded, rng.choice(ears), None)  # (as the app answers a sync)
    return ears


def run(tmp_path: Path, name: str, build: Any, seed: int, **options: Any) -> list[Ear]:
    async def go() -> list[Ear]:
        app = create_app(f"sqlite:///{tmp_path / name}.sqlite3", 0)
        manager: TableManager = app.state.manager
        try:
            return await play(manager, build(manager), seed, **options)
        finally:
            await manager.close()
            manager.engine.dispose()

    return asyncio.run(go())


#: a patch's mean size against a whole view's, at most (measured: Mil 0.47, Mariage 0.65; the
#: events and the message's own keys are in both)
SMALLER = {"mil": 0.55, "mariage": 0.75}


@pytest.mark.parametrize("game", ["mil", "mariage"])
def test_patches_make_the_whole_views_over_whole_games(tmp_path: Path, game: str) -> None:
    profiles = kind(game).profiles
    for seed in range(len(profiles) + 1):
        profile = profiles[seed % len(profiles)]
        ears = run(
            tmp_path,
            f"{game}{seed}",
            lambda manager, seed=seed, profile=profile: people_table(manager, game, seed, profile),
            seed,
        )
        asking = [e for e in ears if e.patches]
        whole = [e for e in ears if not e.patches]
        assert all(e.kinds["patch"] == 0 for e in whole)
        patches = sum(e.kinds["patch"] for e in asking)
        views = sum(e.kinds["view"] for e in asking)
        assert patches > 5 * views, (patches, views)
        # the patches are much smaller than the whole views they stand for
        mean_patch = sum(e.sizes["patch"] for e in asking) / patches
        mean_view = sum(e.sizes["view"] for e in whole) / sum(e.kinds["view"] for e in whole)
        assert mean_patch < SMALLER[game] * mean_view, (game, mean_patch, mean_view)


@pytest.mark.parametrize("clock", [None, {"move_s": 30, "bank_s": 60}])
def test_the_same_with_clocks(tmp_path: Path, clock: dict[str, Any] | None) -> None:
    """The clocks each connection holds are those of the whole views: a patch leaves them
    out only when they are as the last message (a view, a patch, a ``presence``) gave them,
    which at a table without a time per move is most of the time (nothing runs while
    everyone is connected); with one, the time of the player to act runs (the same to the
    tenth of a second only between actions made that close together)."""
    ears = run(tmp_path, "clocks", lambda manager: people_table(manager, "mil", 4, clock=clock), 4)
    assert ears[0].clocks is not None
    patches = sum(e.kinds["patch"] for e in ears)
    assert patches > 100
    without = sum(e.without_clocks for e in ears)
    if clock is None:
        assert without > patches // 2, (without, patches)


def test_delayed_spectators_get_whole_views_of_their_own_game(tmp_path: Path) -> None:
    """Spectators some actions behind see another game than the seats: they get whole
    views, patches or not; the seats' patches are unchanged."""
    ears = run(
        tmp_path, "delayed", lambda manager: people_table(manager, "mil", 7, spectator_delay=3), 7
    )
    first_watchers = [e for e in ears if e.seat is None][:2]
    assert all(e.kinds["patch"] == 0 and e.kinds["view"] > 20 for e in first_watchers)
    assert sum(e.kinds["patch"] for e in ears if e.seat is not None) > 100


def test_names_only_the_slow_encoder_writes_get_whole_views(tmp_path: Path) -> None:
    """A lone surrogate in a name (orjson refuses it): every message is a whole view, encoded
    one by one, and the connections that asked for patches follow it all the same."""

    async def go() -> list[Ear]:
        app = create_app(f"sqlite:///{tmp_path / 'odd.sqlite3'}", 0)
        manager: TableManager = app.state.manager
        try:
            made = people_table(manager, "mariage", 5)
            loaded = await manager.load(made.id)
            assert loaded is not None
            loaded.game.players[1] = "B\ud800a"
            return await play(manager, loaded, 5, rejoin=False)
        finally:
            await manager.close()
            manager.engine.dispose()

    ears = asyncio.run(go())
    assert all(e.kinds["patch"] == 0 and e.kinds["view"] > 10 for e in ears)


def test_changes_and_patched() -> None:
    before = {"a": 1, "b": [1, 2], "c": True, "sheet": [1], "gone": 0}
    now = {"a": 1, "b": [1, 3], "c": 1, "sheet": [1, 2], "new": None}
    changed, removed = changes(now, before, skip="sheet")
    assert changed == {"b": [1, 3], "c": 1, "new": None}  # (True -> 1 is a change)
    assert removed == ["gone"]
    assert patched(before, {**changed, "sheet": [2]}, removed, 1) == now
    assert patched(before, changed, removed, 1)["sheet"] == [1]  # (no new row: kept)
    with pytest.raises(ValueError, match="starts at row 3; 1 held"):
        patched(before, {"sheet": [9]}, [], 3)


def test_changes_of_views_of_the_same_keys() -> None:
    """Two views of the same keys in the same order (a broadcast's, nearly always): a value
    that is the same object in both is unchanged without a look inside, the others are
    compared as Python values and types; the same answer as for any two views."""
    kept = [{"leader": 0}]
    before = {"a": 1, "b": kept, "c": True, "d": [1, 2], "sheet": [1], "e": 0.5}
    now = {"a": 1, "b": kept, "c": 1, "d": [1, 2], "sheet": [1, 2], "e": 1.5}
    assert changes(now, before, skip="sheet") == ({"c": 1, "e": 1.5}, [])
    assert changes(now, now) == ({}, [])
    moved = {"b": kept, "a": 2, "c": 1, "d": [1, 3], "sheet": [1], "e": 0.5}
    assert changes(moved, before, skip="sheet") == ({"a": 2, "c": 1, "d": [1, 3]}, [])
    assert list(changes(moved, before)[0]) == ["a", "c", "d"]  # (in the order of ``now``)


def test_no_view_is_kept_where_nobody_takes_patches(tmp_path: Path) -> None:
    """A table whose connections all take whole views keeps nothing for patches (its views
    live no longer than their broadcast); one connection that takes them, and it does."""

    async def go() -> None:
        app = create_app(f"sqlite:///{tmp_path / 'kept.sqlite3'}", 0)
        manager: TableManager = app.state.manager
        try:
            loaded = await manager.load(people_table(manager, "mil", 2).id)
            assert loaded is not None
            for seat in (0, 1, 2):
                manager.attach(loaded, Ear(seat, False))
            for patches in (False, False, True, True):
                if patches and loaded.sent is None:
                    manager.attach(loaded, Ear(None, True))
                action = loaded.game.legal_actions()[0].to_json()
                await manager.act(loaded, loaded.game.turn, loaded.version, action)
                assert (loaded.sent is not None) == patches
        finally:
            await manager.close()
            manager.engine.dispose()

    asyncio.run(go())


def test_a_connection_asks_for_patches_in_its_address(client: TestClient) -> None:
    """``patches=1`` gets patches after the first broadcast, ``0`` or nothing whole views,
    and any other value a ``bad_message`` error (then whole views). (A table of one person
    against a computer, which plays at once in the tests.)"""
    kinds: dict[str, list[str]] = {}
    for query in ("&patches=1", "&patches=0", "", "&patches=yes"):
        # (a table of its own for each: a game that ended gets no more messages)
        body = {"game": "mariage", "name": "Ana", "levels": ["random"]}
        r = client.post("/api/tables", json=body)
        assert r.status_code == 201, r.text
        made = r.json()
        base = f"/ws/{made['table']}?token={made['token']}"
        ear = Ear(0, query.endswith("=1"))
        got: list[str] = []
        with client.websocket_connect(base + query) as ws:
            first = ws.receive_json()
            if query.endswith("yes"):
                assert first["type"] == "error" and first["code"] == "bad_message", first
                assert "patches='yes' must be 0 or 1" in first["detail"]
                first = ws.receive_json()
            ear.push(orjson.dumps(first).decode())
            for _ in range(4):  # (four of seat 0's turns, the computer's actions between)
                assert ear.view is not None
                if ear.view["over"]:
                    break
                acted = ear.version
                if ear.view["turn"] == 0:
                    action = ear.view["legal"][0]
                    ws.send_json({"type": "act", "version": acted, "action": action})
                while ear.version <= acted or not (ear.view["over"] or ear.view["turn"] == 0):
                    m = ws.receive_json()
                    got.append(m["type"])
                    ear.push(orjson.dumps(m).decode())
        kinds[query] = got
    assert "patch" in kinds["&patches=1"], kinds
    for query in ("&patches=0", "", "&patches=yes"):
        assert "patch" not in kinds[query] and "view" in kinds[query], (query, kinds[query])
