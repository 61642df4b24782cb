"""Game records in the ``tapete/1`` format (our PGN): read, write, replay.

A record is one JSON object (one whole Mil game or Mariage match); a file holds one record a
line (JSON Lines). ``loads``/``dumps``/``load``/``dump`` work like the ``json`` module.
Readers are strict: the first problem raises :class:`RecordError` naming the game, deal and
action index. :func:`replay` rebuilds a game through the engine and checks every result.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from tapete.errors import RecordError
from tapete.game import JSON, Game

__all__ = [
    "FORMAT",
    "RecordError",
    "dump",
    "dumps",
    "iter_load",
    "load",
    "loads",
    "replay",
    "score_json",
]

FORMAT = "tapete/1"


def score_json(half_points: int) -> int | float:
    """A score kept in half points as the JSON number the format writes (``125`` or ``62.5``)."""
    return half_points // 2 if half_points % 2 == 0 else half_points / 2


def _parse_line(line: str, index: int) -> JSON:
    try:
        obj: Any = json.loads(line)
    except json.JSONDecodeError as exc:
        raise RecordError(f"malformed JSON: {exc.msg} at column {exc.colno}", game=index) from None
    if not isinstance(obj, dict):
        raise RecordError(f"a record must be a JSON object, not {type(obj).__name__}", game=index)
    fmt = obj.get("format")
    if fmt != FORMAT:
        raise RecordError(f"unknown format {fmt!r} (expected {FORMAT!r})", game=index)
    if obj.get("game") not in ("mil", "mariage"):
        raise RecordError(
            f'unknown game {obj.get("game")!r} (expected "mil" or "mariage")', game=index
        )
    return obj


def _lines(text: str) -> Iterator[str]:
    for line in text.splitlines():
        if line.strip():
            yield line


def loads(text: str) -> list[JSON]:
    """Parse JSON Lines text (or one pretty-printed JSON object) into a list of records."""
    stripped = text.strip()
    if stripped.startswith("{") and "\n" in stripped:
        try:
            single = json.loads(stripped)
        except json.JSONDecodeError:
            single = None
        if isinstance(single, dict):
            return [_parse_line(json.dumps(single), 0)]
    return [_parse_line(line, i) for i, line in enumerate(_lines(text))]


def iter_load(fp: IO[str]) -> Iterator[JSON]:
    index = 0
    for line in fp:
        if line.strip():
            yield _parse_line(line, index)
            index += 1


def load(path: str | Path) -> list[JSON]:
    try:
        text = Path(path).read_text(encoding="utf-8-sig")  # a byte-order mark is tolerated
    except UnicodeDecodeError as exc:
        raise RecordError(f"{path} is not UTF-8 text ({exc.reason})") from None
    return loads(text)


def dumps(records: Iterable[JSON] | JSON) -> str:
    """One record a line, in the order given, ending with a newline."""
    if isinstance(records, dict):
        records = [records]
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


def dump(records: Iterable[JSON] | JSON, path: str | Path) -> None:
    Path(path).write_text(dumps(records), encoding="utf-8")


def replay(record: JSON, *, index: int | None = None, check_results: bool = True) -> Game:
    """Replay one record through the engine, checking every action and every result."""
    from tapete.games import game_from_record

    try:
        return game_from_record(record, check_results=check_results)
    except RecordError as exc:
        raise exc.located(game=index) if index is not None else exc from None
