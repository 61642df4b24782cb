"""Game records in the ``tapete/1`` format (our PGN): reading and writing the text.

A record is one JSON object (one whole Mil game or Mariage match); a file holds one record a
line (JSON Lines). ``loads``/``dumps``/``load``/``dump`` work like the ``json`` module.
Readers are strict: the first problem raises :class:`RecordError` naming the game (the
record's index) and the line of the text it starts on, and nothing else ever escapes them,
whatever the input. They bound what a hostile file can cost: a record line holds at most
:data:`MAX_RECORD_CHARS` characters and nests at most :data:`MAX_DEPTH` levels; numbers
must be finite (``NaN`` and ``Infinity`` are not JSON) and integers at most
:data:`MAX_INT_DIGITS` digits long. Lines end at ``"\\n"``
only (``\\r\\n`` too), never inside a string: the writer escapes U+0085, U+2028 and U+2029.

This module knows the format only, not the games: :mod:`tapete.replay` rebuilds a game from
a record through the engine and checks every action and result.

>>> rec = {"format": "tapete/1", "game": "mil", "players": ["Ana\\u2028", "B", "C"]}
>>> text = dumps(rec)
>>> "\\u2028" in text, loads(text) == [rec]
(False, True)
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final, NoReturn, Protocol, TextIO

from tapete.errors import RecordError, json_kind

__all__ = [
    "FORMAT",
    "MAX_DEPTH",
    "MAX_INT_DIGITS",
    "MAX_RECORD_CHARS",
    "RecordError",
    "TextSource",
    "Utf8Text",
    "check_depth",
    "dump",
    "dumps",
    "iter_load",
    "iter_load_numbered",
    "load",
    "loads",
    "loads_numbered",
    "open_text",
    "unreadable",
]

FORMAT: Final = "tapete/1"

#: the longest record line a reader accepts (a Mil game of 80 deals is about 30,000)
MAX_RECORD_CHARS: Final = 4_000_000
#: the deepest nesting a record may have (a record needs 5: record, deals, deal, actions,
#: action)
MAX_DEPTH: Final = 16
#: the longest integer a record may hold (Python's own limit for int <-> text)
MAX_INT_DIGITS: Final = 4300

#: what check_depth looks into (the types JSON gives, and tuples)
_CONTAINERS: Final = frozenset({dict, list, tuple})

# Line separators that Python's str.splitlines() and JavaScript's older JSON.parse treat
# specially: written as escapes, so that a record is always exactly one line.
_ESCAPES: Final = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


def _no_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON number")


def check_depth(
    obj: object, *, limit: int = MAX_DEPTH, what: str = "the record", game: int | None = None
) -> None:
    """Refuse (:class:`RecordError`) lists and objects nested deeper than ``limit`` levels.

    The readers check every record they parse; :mod:`tapete.reader` checks the parts of a
    record built in Python that reach the engine, whose messages quote values whole.
    """
    # level by level over the containers only: cheap next to parsing
    level: list[Any] = [obj] if type(obj) in _CONTAINERS else []
    depth = 1
    while level:
        if depth > limit:
            raise RecordError(f"{what} nests deeper than {limit} levels", game=game)
        below: list[Any] = []
        for value in level:
            items = value.values() if type(value) is dict else value
            below += [x for x in items if type(x) in _CONTAINERS]
        level = below
        depth += 1


@contextmanager
def _at(index: int, line: int | None) -> Iterator[None]:
    """Locate the :class:`RecordError` raised inside: game ``index``, starting on ``line``."""
    try:
        yield
    except RecordError as exc:
        raise exc.located(game=index, line=line) from None


def _decode(text: str) -> object:
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        # (some of the parser's messages end in "at": "Unterminated string starting at")
        what = exc.msg.removesuffix(" at")
        raise RecordError(f"malformed JSON: {what} at column {exc.colno}") from None
    except RecursionError:
        raise RecordError(f"the record nests deeper than {MAX_DEPTH} levels") from None
    except ValueError as exc:  # NaN / Infinity, an integer over Python's digit limit
        reason = str(exc)
        if "digits" in reason:
            reason = f"a number has more than {MAX_INT_DIGITS} digits"
        raise RecordError(reason) from None


def _check_record(obj: object) -> dict[str, Any]:
    if not isinstance(obj, dict):
        raise RecordError(f"a record must be a JSON object, not {json_kind(obj)}")
    check_depth(obj)
    if "format" not in obj:  # (said "unknown format None", a Python word)
        raise RecordError(f"the record has no 'format' field (expected {FORMAT!r})")
    fmt = obj.get("format")
    if fmt != FORMAT:
        shown = repr(fmt) if isinstance(fmt, str | None) else json_kind(fmt)
        raise RecordError(f"unknown format {shown} (expected {FORMAT!r})")
    if not isinstance(obj.get("game"), str):
        raise RecordError("the record's 'game' must be a string such as 'mil'")
    return obj


def _parse_line(text: str, index: int, line: int | None = None) -> dict[str, Any]:
    with _at(index, line):
        if len(text) > MAX_RECORD_CHARS:
            raise RecordError(
                f"the record is {len(text):,} characters long (at most {MAX_RECORD_CHARS:,})"
            )
        return _check_record(_decode(text))


def _lines(text: str) -> Iterator[tuple[int, str]]:
    """The lines of ``text`` that are not blank, with their 1-based numbers."""
    # JSON Lines ends a line at "\n" only; str.splitlines() would also split at U+2028 and
    # friends, which may stand raw inside a JSON string.
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip():
            yield number, line


def loads(text: str) -> list[dict[str, Any]]:
    """Parse JSON Lines text (or one pretty-printed JSON object) into a list of records."""
    return [record for _, record in loads_numbered(text)]


def loads_numbered(text: str) -> list[tuple[int, dict[str, Any]]]:
    """:func:`loads`, each record with the 1-based line of ``text`` it starts on (for the
    messages of later checks: ``game 3 (line 7)``)."""
    if not isinstance(text, str):
        raise RecordError(f"records are text, not {type(text).__name__}")
    stripped = text.strip()
    pretty = stripped.startswith("{") and "\n" in stripped
    if pretty and len(stripped) <= MAX_RECORD_CHARS:
        first = 1 + text[: len(text) - len(text.lstrip())].count("\n")
        try:
            single = _decode(stripped)
        except RecordError:
            single = None  # not one object: read it as JSON Lines
        if isinstance(single, dict):
            with _at(0, first):
                return [(first, _check_record(single))]
    return [
        (number, _parse_json_line(line, index, number))
        for index, (number, line) in enumerate(_lines(text))
    ]


def _parse_json_line(line: str, index: int, number: int) -> dict[str, Any]:
    """The record on one line of a JSON Lines text: game ``index``, on line ``number``."""
    try:
        return _parse_line(line, index, number)
    except RecordError:
        if line.strip() == "{":  # (several pretty-printed records, or one cut short)
            raise RecordError(
                "the line holds only '{': a record file holds one record a line (JSON "
                "Lines), or a single pretty-printed record",
                game=index,
                line=number,
            ) from None
        raise


class TextSource(Protocol):
    """What the lazy readers need of a text file: ``readline`` and ``read`` with a size."""

    def readline(self, size: int = -1, /) -> str: ...

    def read(self, size: int = -1, /) -> str: ...


def iter_load(fp: TextSource) -> Iterator[dict[str, Any]]:
    """Read records lazily from a text file object: :func:`iter_load_numbered` without the
    line numbers."""
    for _, record in iter_load_numbered(fp):
        yield record


def iter_load_numbered(fp: TextSource) -> Iterator[tuple[int, dict[str, Any]]]:
    """The records of a text file object as :func:`loads_numbered` reads its whole text (the
    same records, line numbers and errors), read lazily: one line at a time, never more of a
    line than a record may hold, so a file of any size costs the memory of one record. A
    file that is one pretty-printed record (at most :data:`MAX_RECORD_CHARS` characters) is
    read whole. A line longer than a record may be is refused unread, so its message says
    "longer than" where :func:`loads` gives its length."""
    index = number = 0
    while True:
        line = _read(fp.readline, MAX_RECORD_CHARS + 2, index, number + 1)
        if not line:
            return
        number += 1
        body = line.rstrip("\r\n")  # a longer line comes back cut, without its newline
        if not body.strip():
            continue
        if len(body) > MAX_RECORD_CHARS:  # (its length is not known: the rest is not read)
            raise RecordError(
                f"the record is longer than {MAX_RECORD_CHARS:,} characters",
                game=index,
                line=number,
            )
        if index == 0 and body.lstrip().startswith("{") and len(line) <= MAX_RECORD_CHARS:
            try:
                first = _parse_line(body, index, number)
            except RecordError:
                # perhaps the first line of one pretty-printed record: read as loads would
                yield from _pretty(fp, line, number)
                return
        else:
            first = _parse_json_line(body, index, number)
        yield number, first
        index += 1


def _pretty(fp: TextSource, line: str, number: int) -> Iterator[tuple[int, dict[str, Any]]]:
    """The rest of a file whose first record line (``line``, line ``number``) is no record on
    its own: one pretty-printed record if the whole text is (and is short enough), else the
    error :func:`loads_numbered` gives for that line."""
    rest = _read(fp.read, MAX_RECORD_CHARS + 1 - len(line), 0, number)
    if len(line) + len(rest) <= MAX_RECORD_CHARS:  # the whole text: loads reads it so
        yield from loads_numbered("\n" * (number - 1) + line + rest)
        return
    _parse_json_line(line.rstrip("\r\n"), 0, number)  # (raises: it did just before)
    raise AssertionError("unreachable: the line was refused before")  # pragma: no cover


def _read(read: Callable[[int], str], size: int, index: int, number: int) -> str:
    """``read(size)``, a file that is not UTF-8 text refused at game ``index``, line
    ``number``."""
    try:
        return read(size)
    except UnicodeDecodeError as exc:
        raise RecordError(
            f"the file is not UTF-8 text ({exc.reason})", game=index, line=number
        ) from None


#: what a file opened by :func:`open_text` gives for a byte that is not UTF-8 (no UTF-8 text
#: decodes to these: they are lone surrogates)
_ESCAPED_BYTE: Final = re.compile("[\udc80-\udcff]")


def open_text(path: str | Path) -> TextIO:
    """The record file ``path`` opened to be read through :class:`Utf8Text` (a UTF-8
    byte-order mark is skipped); raises ``OSError`` if it cannot be opened."""
    return Path(path).open(encoding="utf-8-sig", errors="surrogateescape")


class Utf8Text:
    """A :class:`TextSource` over a file opened by :func:`open_text` that refuses the first
    byte that is not UTF-8 with a :class:`RecordError` naming its line and its byte in that
    line, 1-based (``line 6: not UTF-8 text at byte 123 (invalid continuation byte)``).

    A strict decoder fails a block (8 KiB) at a time, lines ahead of the line being read, and
    its position is the block's: the message named no place. Here each such byte reaches the
    text escaped (``errors="surrogateescape"``) and is found where it is: the text read is
    looked at once as it goes by (a line of ASCII costs one ``str.isascii``), so the reading
    stays a line at a time. The byte count starts after a byte-order mark."""

    def __init__(self, fp: TextSource) -> None:
        self._fp = fp
        #: the line of the next character read, and the bytes of that line before it
        self._line = 1
        self._before = 0

    def readline(self, size: int = -1, /) -> str:
        return self._checked(self._fp.readline(size))

    def read(self, size: int = -1, /) -> str:
        return self._checked(self._fp.read(size))

    def _checked(self, text: str) -> str:
        bad = None if text.isascii() else _ESCAPED_BYTE.search(text)
        if bad is not None:
            raise self._not_utf8(text, bad.start())
        end = text.rfind("\n") + 1  # (where the last line read starts)
        self._line += text.count("\n", 0, end)
        self._before = (0 if end else self._before) + _bytes(text[end:])
        return text

    def _not_utf8(self, text: str, at: int) -> RecordError:
        """The error for the byte escaped at ``text[at]``."""
        start = text.rfind("\n", 0, at) + 1
        line = self._line + text.count("\n", 0, start)
        byte = (0 if start else self._before) + _bytes(text[start:at]) + 1
        # the decoder's reason, from the bytes there (a UTF-8 sequence is at most 4 long)
        try:
            text[at : at + 4].encode("utf-8", "surrogateescape").decode("utf-8")
        except UnicodeDecodeError as exc:
            why = exc.reason
        else:  # pragma: no cover (an escaped byte never decodes)
            why = "invalid byte"
        return RecordError(f"not UTF-8 text at byte {byte:,} ({why})", line=line)


def _bytes(text: str) -> int:
    """The length in bytes of ``text`` as the file held it."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogateescape"))


def unreadable(path: str | Path, exc: OSError) -> str:
    """Why the record file ``path`` could not be read (``exc``), as a sentence naming it."""
    with contextlib.suppress(OSError):  # (a name too long: is_dir raises it too)
        if Path(path).is_dir():  # (IsADirectoryError; PermissionError on Windows)
            return f"{path} is a folder, not a record file"
    return f"cannot read {path}: {exc.strerror or exc}"


def load(path: str | Path) -> list[dict[str, Any]]:
    """Read a file of records (``RecordError`` also when it is not UTF-8 text, naming the
    line and byte as :class:`Utf8Text` does, or cannot be read at all: missing, a folder,
    not allowed; the ``OSError`` is its ``__cause__``)."""
    try:
        with open_text(path) as fp:  # (a byte-order mark is tolerated)
            text = Utf8Text(fp).read()
    except OSError as exc:  # (only RecordError escapes the readers: docs/records.md)
        raise RecordError(unreadable(path, exc)) from exc
    return loads(text)


def dumps(records: Iterable[dict[str, Any]] | dict[str, Any]) -> str:
    """One record a line, in the order given, ending with a newline."""
    if isinstance(records, dict):
        records = [records]
    return "".join(
        json.dumps(r, ensure_ascii=False, allow_nan=False).translate(_ESCAPES) + "\n"
        for r in records
    )


def dump(records: Iterable[dict[str, Any]] | dict[str, Any], path: str | Path) -> None:
    Path(path).write_text(dumps(records), encoding="utf-8")
