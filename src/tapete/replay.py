"""One replay path for every game: a record, or a table's stored actions, step by step.

:func:`iter_replay` walks a ``tapete/1`` record through the engine and yields
``(game, action)`` with the game in the position *before* each action (the engine actions
the format does not write included: Mil's ``KeepDeal``, Mariage's ``Decline``); the action is
applied when the iterator is resumed, results are checked at every deal's end, and after the
last step the game holds the whole record. :func:`replay_actions` does the same over a
stored action log (the server's), and :func:`replay` returns the finished game. Every problem
raises :class:`RecordError`, located by game, deal and action; nothing else escapes.

>>> from tapete.games import new_game
>>> game = new_game("mariage", seed=4000)
>>> for _ in range(5):
...     events = game.apply(game.legal_actions()[0])
>>> record = game.to_record()
>>> steps = [type(action).__name__ for _, action in iter_replay(record)]
>>> len(steps), replay(record).to_record() == record
(5, True)
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator
from typing import Any, TypeVar

from tapete.errors import RecordError, json_kind
from tapete.game import Game
from tapete.games import kind
from tapete.reader import describe_action, read_record, short
from tapete.records import check_depth

__all__ = ["RecordError", "iter_replay", "replay", "replay_actions"]

G = TypeVar("G", bound=Game)


def iter_replay(
    record: object, *, check_results: bool = True, index: int | None = None
) -> Generator[tuple[Game, Any], None, Game]:
    """Replay ``record`` step by step; ``index`` (the record's place in its file) locates
    errors by game too. The generator's return value is the game."""
    try:
        if not isinstance(record, dict):
            raise RecordError(f"a record must be a JSON object, not {json_kind(record)}")
        name = record.get("game")
        if not isinstance(name, str):
            raise RecordError(f"the record's 'game' must be a string, got {short(name)}")
        try:
            found = kind(name)
        except ValueError as exc:
            raise RecordError(str(exc)) from None
        if found.reader is None:
            raise RecordError(f"{found.title} records cannot be replayed")
        game: Game = yield from read_record(found.reader, record, check_results=check_results)
        return game
    except RecordError as exc:
        raise exc.located(game=index) from None


def replay(record: object, *, check_results: bool = True, index: int | None = None) -> Game:
    """Rebuild the game of ``record``, checking every action and (with ``check_results``)
    every result; ``check_results=False`` re-scores a record, e.g. after a rules change."""
    steps = iter_replay(record, check_results=check_results, index=index)
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            game: Game = stop.value
            return game


def replay_actions(game: G, actions: Iterable[Any]) -> Iterator[tuple[G, Any]]:
    """Apply a stored action log (record JSON of each engine action, ``KeepDeal`` and
    ``Decline`` included) to ``game``, yielding ``(game, action)`` before each one.

    No result is checked (the log holds none). A stored action that does not parse or is
    illegal raises :class:`RecordError` whose ``action`` is its index in the log."""
    for n, data in enumerate(actions):
        try:
            if isinstance(data, dict) and any(isinstance(v, list | dict) for v in data.values()):
                check_depth(data, limit=4, what=_label(data))
            action = game.parse_action(data)
        except ValueError as exc:  # RecordError and InvalidNotationError are ValueErrors
            raise RecordError(f"{_label(data)}: {exc}", action=n) from None
        yield game, action
        try:
            game.apply(action)
        except ValueError as exc:
            raise RecordError(f"{_label(data)}: {exc}", action=n) from None


def _label(data: object) -> str:
    return describe_action(data) if isinstance(data, dict) else short(data)
