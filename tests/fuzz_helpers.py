"""Mutations of tapete/1 records for the reader fuzz tests (this module holds no tests).

Used by ``tests/test_records_fuzz.py`` (hypothesis drives the ``random.Random``) and by
``scripts/fuzz_records.py`` (a longer run). :func:`mutated` changes a reference record in
memory (delete, duplicate or swap actions and deals, put values of other types, huge numbers,
NaN, deep nesting in any field), then :func:`garbled` its text (truncation, random characters
and bytes); :func:`check` runs the readers and the replay on the result and returns what
happened: ``"refused"`` (a RecordError of one bounded line), ``"read"`` (accepted), or raises
:class:`Escape` for anything else.
"""

from __future__ import annotations

import copy
import io
import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tapete import records
from tapete.errors import MAX_MESSAGE, RecordError
from tapete.replay import iter_replay

__all__ = [
    "Escape",
    "check",
    "check_bytes",
    "garbled",
    "load_references",
    "mutated",
    "same_reading",
    "text_of",
]


class Escape(AssertionError):
    """Something other than a one-line RecordError came out of a reader or the replay."""


def nested(depth: int, leaf: object = None) -> object:
    value: object = leaf
    for _ in range(depth):
        value = [value]
    return value


def hostile_value(rng: random.Random, *, in_memory: bool) -> object:
    """A value of some other type or size than a record expects."""
    choices: list[Callable[[], object]] = [
        lambda: None,
        lambda: rng.choice([True, False]),
        lambda: rng.choice([0, 1, 2, 3, -1, 7, 100, 105, 120, 1000]),
        lambda: rng.choice([2**31, 2**63, -(2**63), 2**64 + 1]),
        lambda: int("9" * rng.randint(20, 4300)),
        lambda: rng.choice([0.5, 1.0, -2.5, 1e308, 62.5]),
        lambda: rng.choice([float("nan"), float("inf"), float("-inf")]),
        lambda: rng.choice(["", "x", "KH", "10H", "K♥", "7S", "bid", "play", "mil", "club"]),
        lambda: rng.choice(["\u2028", "a\u2029b", "\x85", "\x00", "é" * 50, "\n"]),
        lambda: "x" * rng.randint(100, 100_000),
        lambda: [],
        lambda: {},
        lambda: [rng.randint(0, 3) for _ in range(rng.randint(1, 5))],
        lambda: {"type": "bid", "value": 100},
        lambda: nested(rng.randint(2, 30)),
        lambda: nested(rng.choice([1_000, 100_000]), {"a": [1]}),
    ]
    if in_memory:
        choices.append(lambda: 10 ** rng.randint(4301, 6000))
        choices.append(lambda: (1, 2, 3))
    return rng.choice(choices)()


def _containers(obj: object, depth: int = 0) -> list[dict[str, Any] | list[Any]]:
    """Every list and object inside ``obj`` (a parsed record: shallow)."""
    found: list[dict[str, Any] | list[Any]] = []
    if isinstance(obj, dict | list) and depth < 12:
        found.append(obj)
        for item in obj.values() if isinstance(obj, dict) else obj:
            found.extend(_containers(item, depth + 1))
    return found


def _actions(record: dict[str, Any]) -> list[list[Any]]:
    deals = record.get("deals")
    if not isinstance(deals, list):
        return []
    return [
        d["actions"] for d in deals if isinstance(d, dict) and isinstance(d.get("actions"), list)
    ]


def _mutate_once(record: dict[str, Any], rng: random.Random, *, in_memory: bool) -> None:
    lists = [a for a in _actions(record) if a]
    deals = record.get("deals") if isinstance(record.get("deals"), list) else None
    op = rng.randrange(9)
    if op == 0 and lists:  # delete an action
        actions = rng.choice(lists)
        del actions[rng.randrange(len(actions))]
    elif op == 1 and lists:  # duplicate an action
        actions = rng.choice(lists)
        i = rng.randrange(len(actions))
        actions.insert(rng.randrange(len(actions) + 1), copy.copy(actions[i]))
    elif op == 2 and lists:  # swap two actions (maybe of different deals)
        a, b = rng.choice(lists), rng.choice(lists)
        i, j = rng.randrange(len(a)), rng.randrange(len(b))
        a[i], b[j] = b[j], a[i]
    elif op == 3 and deals:  # delete, duplicate or swap deals
        i, j = rng.randrange(len(deals)), rng.randrange(len(deals))
        kind = rng.randrange(3)
        if kind == 0:
            del deals[i]
        elif kind == 1:
            deals.insert(j, copy.copy(deals[i]))
        else:
            deals[i], deals[j] = deals[j], deals[i]
    elif op == 4:  # delete a field somewhere
        objects = [c for c in _containers(record) if isinstance(c, dict) and c]
        if objects:
            obj = rng.choice(objects)
            del obj[rng.choice(list(obj))]
    elif op == 5 and lists:  # an action's value of another type
        action = rng.choice(rng.choice(lists))
        if isinstance(action, dict):
            key = rng.choice([*action, "seat", "type", "value", "card", "to", "marriage"])
            action[key] = hostile_value(rng, in_memory=in_memory)
    elif op == 6:  # a top-level or start field of another type
        key = rng.choice(["format", "game", "profile", "seed", "players", "deals", "start",
                          "scores", "match", "winner"])  # fmt: skip
        if key == "start" and rng.random() < 0.5:
            record["start"] = {
                rng.choice(["scores", "bolts", "in_barrel", "dealer", "game_points"]): rng.choice(
                    [
                        hostile_value(rng, in_memory=in_memory),
                        [hostile_value(rng, in_memory=in_memory)] * 3,
                    ]
                )
            }
        else:
            record[key] = hostile_value(rng, in_memory=in_memory)
    else:  # any value anywhere
        containers = [c for c in _containers(record) if c]
        if containers:
            c = rng.choice(containers)
            value = hostile_value(rng, in_memory=in_memory)
            if isinstance(c, dict):
                c[rng.choice(list(c))] = value
            else:
                c[rng.randrange(len(c))] = value


def mutated(
    record: dict[str, Any], rng: random.Random, *, in_memory: bool = True
) -> dict[str, Any]:
    """A copy of ``record`` with 1 to 3 mutations (``in_memory``: also values JSON text
    cannot hold, such as integers of more than 4300 digits)."""
    out = copy.deepcopy(record)
    for _ in range(rng.randint(1, 3)):
        _mutate_once(out, rng, in_memory=in_memory)
    return out


_NOISE = ['"', "{", "}", "[", "]", ",", ":", "\\", "\\u", "0", "-", "e9", "NaN", "Infinity",
          "\u2028", "\x85", "\x00", "\n", "\r", " ", "é", "\ud800", "tapete/1", "null"]  # fmt: skip


def garbled(text: str, rng: random.Random) -> str:
    """``text`` with 0 to 2 changes: cut short, random characters put in or replaced, a run
    of opening brackets."""
    for _ in range(rng.randint(0, 2)):
        op = rng.randrange(4)
        at = rng.randrange(len(text) + 1)
        if op == 0:
            text = text[:at]
        elif op == 1:
            text = (
                text[:at]
                + "".join(rng.choice(_NOISE) for _ in range(rng.randint(1, 5)))
                + text[at:]
            )
        elif op == 2:
            text = text[:at] + rng.choice(_NOISE) + text[at + rng.randint(1, 20) :]
        else:
            text = text[:at] + "[" * rng.choice([20, 2_000, 100_000]) + text[at:]
    return text


def _refused(err: RecordError, where: str) -> str:
    text = str(err)
    if type(err) is not RecordError or "\n" in text or len(err.reason) > MAX_MESSAGE:
        raise Escape(f"{where}: a RecordError that is not one bounded line: {text[:200]!r}")
    return "refused"


def _run(where: str, call: Callable[[], object]) -> str:
    try:
        call()
    except RecordError as err:
        return _refused(err, where)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        raise Escape(f"{where}: {type(exc).__name__} escaped: {str(exc)[:200]}") from exc
    return "read"


def _replay_all(record: object) -> None:
    for _ in iter_replay(record):
        pass


def check(record: object, text: str | None = None) -> str:
    """Replay ``record`` (built in Python) and read and replay ``text`` (if given) with every
    reader; returns "refused" if any refused it, "read" if all accepted it."""
    outcomes = [_run("replay of a record in memory", lambda: _replay_all(record))]
    if text is not None:
        outcomes.append(_run("loads", lambda: records.loads(text)))
        outcomes.append(_run("iter_load", lambda: list(records.iter_load(io.StringIO(text)))))
        same_reading(text)
        try:
            parsed = records.loads(text)
        except RecordError:
            parsed = []
        for rec in parsed:
            outcomes.append(_run("replay of a parsed record", lambda rec=rec: _replay_all(rec)))
    return "refused" if "refused" in outcomes else "read"


def same_reading(text: str) -> None:
    """The lazy reader (``iter_load_numbered``) reads ``text`` exactly as ``loads_numbered``
    does: the same records on the same lines, or the same error."""

    def reading(call: Callable[[], object]) -> object:
        try:
            return call()
        except RecordError as err:
            return f"RecordError: {err}"

    whole = reading(lambda: records.loads_numbered(text))
    lazy = reading(lambda: list(records.iter_load_numbered(io.StringIO(text))))
    if whole != lazy:
        raise Escape(f"iter_load_numbered read {str(lazy)[:200]!r}, loads {str(whole)[:200]!r}")


def check_bytes(data: bytes, folder: Path) -> str:
    """Write ``data`` to a file and read it with ``records.load``."""
    path = folder / "fuzz.jsonl"
    path.write_bytes(data)
    return _run("load", lambda: records.load(path))


def text_of(record: dict[str, Any]) -> str | None:
    """The record as JSON text, NaN and Infinity written as Python writes them; None when
    JSON text cannot hold it (an integer of more than 4300 digits, a tuple is fine)."""
    try:
        return json.dumps(record, ensure_ascii=False)
    except (ValueError, RecursionError):
        return None


def load_references(folder: Path) -> list[dict[str, Any]]:
    """Every reference record, parsed."""
    out: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.jsonl")):
        out.extend(records.load(path))
    return out
