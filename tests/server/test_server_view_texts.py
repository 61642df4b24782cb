"""A broadcast's view messages (``Table.view_texts``: the part every seat sees alike is built
and encoded once) are the messages ``Table.view_message`` builds for each seat one by one:
the same JSON for every seat and spectator, at every point of whole games, with the sheet
cut, with clocks, for names only the standard library's encoder writes, and for delayed
spectators."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from server_helpers import MakeApp, people_table

from tapete.games import kind
from tapete.server.tables import Table, TableManager, message_text

pytestmark = pytest.mark.sqlite_only


def full_table(manager: TableManager, game: str, seed: int, **options: Any) -> Table:
    """A table of people, the profile changing with ``seed``."""
    profiles = kind(game).profiles
    return people_table(manager, game, seed, profiles[seed % len(profiles)], **options)


def check_every_action(table: Table, seed: int, keep: bool = True) -> int:
    """Play ``table``'s game to its end, comparing ``view_texts`` with ``view_message`` for
    every seat and two spectators after each action; the number of broadcasts compared."""
    rng = random.Random(seed)
    seats: list[int | None] = [*range(len(table.game.players)), None, None]
    compared = 0
    while not table.game.over:
        events = table.game.apply(rng.choice(table.game.legal_actions()))
        table.version += 1
        rows = len(table.game.view(None).get("sheet") or [])
        sheet_from = rng.randint(0, rows)
        clocks = table.clock_snapshot() if table.clocks is not None else None
        texts, sent, patches = table.view_texts(seats, events, sheet_from, clocks, keep=keep)
        assert keep or table.sent is None  # (kept only when asked: and encodable)
        assert set(texts) == set(seats) and not patches
        for seat, text in texts.items():
            expected = message_text(table.view_message(seat, events, sheet_from, clocks))
            assert json.loads(text) == json.loads(expected), (seat, table.version)
            text.encode()  # (a frame's text is UTF-8)
        assert sent == (rows - sheet_from if "sheet" in table.game.view(None) else None)
        compared += 1
    return compared


@pytest.mark.parametrize("game", ["mil", "mariage"])
@pytest.mark.parametrize("keep", [True, False])
def test_the_texts_of_a_broadcast_are_the_view_messages(
    make_app: MakeApp, game: str, keep: bool
) -> None:
    """Each key encoded apart and kept for the next patches (``keep``), or each part at once
    (no connection takes patches): the same messages."""
    manager: TableManager = make_app().state.manager
    for seed in range(2):
        assert check_every_action(full_table(manager, game, seed), seed, keep) > 20


def test_the_same_with_clocks(make_app: MakeApp) -> None:
    manager: TableManager = make_app().state.manager
    table = full_table(manager, "mil", 3, clock={"move_s": 30, "bank_s": 60})
    assert table.clocks is not None
    assert check_every_action(table, 3) > 20


def test_names_orjson_refuses_take_the_slow_way_to_the_same_messages(
    make_app: MakeApp,
) -> None:
    """A lone surrogate in a name (orjson refuses it; the standard library escapes it): the
    messages are encoded whole, one by one, and are still the same."""
    manager: TableManager = make_app().state.manager
    for game in ("mil", "mariage"):
        table = full_table(manager, game, 5)
        table.game.players[1] = "B\ud800a"
        assert check_every_action(table, 5, keep=game == "mil") > 20


def test_delayed_spectators_see_their_own_game(make_app: MakeApp) -> None:
    """At a table whose spectators are some actions behind, they get the view of their own
    game (built apart), the seats theirs, as ``view_message`` builds them."""
    manager: TableManager = make_app().state.manager
    table = full_table(manager, "mil", 7, spectator_delay=3)
    rng = random.Random(7)
    for _ in range(12):
        action = rng.choice(table.game.legal_actions())
        events = table.game.apply(action)
        table.actions.append(action.to_json())
        table.version += 1
        table.advance_spectators()
    assert table.delayed
    seats: list[int | None] = [None, 0, 1, 2]
    texts, _, _ = table.view_texts(seats, events, 0, None)
    for seat, text in texts.items():
        assert json.loads(text) == json.loads(message_text(table.view_message(seat, events)))
    assert json.loads(texts[None])["version"] == table.version - 3


@pytest.mark.parametrize(
    ("first", "second"),
    [({}, {}), ({"a": 1}, {}), ({}, {"b": [2]}), ({"a": 1, "c": {}}, {"b": [2, {"d": None}]})],
)
def test_two_encoded_objects_make_one(first: dict[str, Any], second: dict[str, Any]) -> None:
    import orjson

    from tapete.server.tables import _joined

    joined = _joined(orjson.dumps(first).decode(), orjson.dumps(second).decode())
    assert json.loads(joined) == {**first, **second}
    assert list(json.loads(joined)) == [*first, *second]


@pytest.mark.parametrize("game", ["mil", "mariage"])
def test_a_waiting_table_sends_every_seat_the_public_view(make_app: MakeApp, game: str) -> None:
    """While a seat is free (``status`` ``waiting``) a broadcast gives each seat the public
    view with its number (``Table.seat_view``), as ``view_message`` does, asked for whole or
    as a patch, and keeps nothing to patch against: no card of a hand leaves the server."""
    manager: TableManager = make_app().state.manager
    table = full_table(manager, game, 11)
    table.view_texts([0, None], [], 0, None)  # (views kept while the table played)
    assert table.sent is not None
    table.status = "waiting"
    seats: list[int | None] = [*range(len(table.game.players)), None]
    texts, sent, patches = table.view_texts(seats[:-1], [], 0, None, patches=[0, None])
    assert set(texts) == set(seats) and not patches and table.sent is None
    public = table.game.view(None)
    assert sent == len(public["sheet"])
    for seat, text in texts.items():
        message = json.loads(text)
        assert message == json.loads(message_text(table.view_message(seat, [])))
        assert message["view"] == json.loads(message_text({**public, "seat": seat}))
