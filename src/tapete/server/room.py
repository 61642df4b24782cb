"""The online room's small pieces: a table's seats (people, free seats, computers), the
versioned event history a reconnecting client catches up from, and table chat.

A seat is ``person`` (taken: a name, a secret token, perhaps a signed-in user's id), ``open``
(anyone may sit down), ``invited`` (only with the table's invitation code) or ``computer``
(a level). ``Table.levels[seat] is None`` still means a person's seat (taken or free).
"""

from __future__ import annotations

import hmac
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

import orjson

from tapete.game import JSON, Event

__all__ = [
    "CHAT_LINES",
    "CHAT_MAX_CHARS",
    "FREE_KINDS",
    "SEAT_KINDS",
    "ChatTooLong",
    "History",
    "Seat",
    "chat_message",
    "check_chat",
    "seat_for_token",
]

#: the kinds of a seat nobody has taken yet
FREE_KINDS = frozenset({"open", "invited"})
SEAT_KINDS = ("person", "open", "invited", "computer")
CHAT_MAX_CHARS = 300
#: the chat lines a table keeps (in memory and in ``table_chat``) for a seat that connects
CHAT_LINES = 30


@dataclass
class Seat:
    """One seat of a table (see the module's docstring)."""

    kind: str
    name: str = ""
    user_id: int | None = None
    token: str | None = field(default=None, repr=False)
    level: str | None = None

    @property
    def free(self) -> bool:
        return self.kind in FREE_KINDS

    def public(self, seat: int, connected: int) -> JSON:
        """What anyone at the table (or in the lobby) may know of the seat: never its token."""
        return {
            "seat": seat,
            "kind": self.kind,
            "name": self.name or None,
            "user": self.user_id is not None,
            "level": self.level,
            "connected": connected,
        }


def seat_for_token(seats: Iterable[Seat], token: str | None) -> int | None:
    """The seat whose secret is ``token`` (compared in constant time), None for any other."""
    if not token:
        return None
    given = token.encode()
    found = None
    for n, seat in enumerate(seats):
        if seat.token and hmac.compare_digest(given, seat.token.encode()):
            found = n
    return found


class History:
    """The events of a table's last ``size`` actions, by version (the version an action led
    to: action ``n`` makes version ``n + 1``), the way Lichess keeps a game's event history.

    Each step is kept as one encoded ``bytes`` (JSON: ``[[type, public, private], ...]``),
    read back only for a reconnecting client: as objects, a thousand tables' histories were
    hundreds of thousands of dicts and lists that the garbage collector scanned at every
    young collection (docs/benchmarks.md, "Online room load"); bytes it does not track."""

    def __init__(self, size: int) -> None:
        self.size = max(0, size)
        self.steps: deque[tuple[int, bytes | list[Event]]] = deque(maxlen=self.size or None)

    def add(self, version: int, events: list[Event]) -> None:
        if self.size:
            self.steps.append((version, _pack(events)))

    def since(self, version: int, upto: int) -> list[tuple[int, list[Event]]] | None:
        """The steps of versions ``version + 1`` .. ``upto``, or None when the history no
        longer holds all of them (the client then gets one whole view)."""
        if version >= upto:
            return [] if version == upto else None
        if not self.steps or self.steps[0][0] > version + 1:
            return None
        return [(v, _unpack(packed)) for v, packed in self.steps if version < v <= upto]


def _pack(events: list[Event]) -> bytes | list[Event]:
    """A step's events as one ``bytes`` (the events themselves for what orjson refuses).
    Copied into a ``bytes`` of their own size: orjson's result keeps the buffer it wrote
    into (4 KB for a 60-byte step), and a table keeps hundreds of steps."""
    try:
        packed = orjson.dumps(
            [[e.type, e.public, e.private] for e in events], option=orjson.OPT_NON_STR_KEYS
        )
    except TypeError:
        return list(events)
    return bytes(memoryview(packed))


def _unpack(packed: bytes | list[Event]) -> list[Event]:
    if isinstance(packed, list):
        return packed
    return [
        Event(kind, public, {int(seat): fields for seat, fields in private.items()})
        for kind, public, private in orjson.loads(packed)
    ]


def chat_message(seat: int, name: str, text: str, version: int) -> JSON:
    """The ``chat`` message of a line (docs/dev/protocol.md), as sent and as kept."""
    return {"type": "chat", "seat": seat, "name": name, "text": text, "version": version}


class ChatTooLong(ValueError):
    """A chat line longer than ``CHAT_MAX_CHARS`` (:func:`check_chat`): its refusal has a code
    of its own, ``chat_too_long``, so that the person is told the limit."""


def check_chat(text: object) -> str:
    """A chat line as it is sent on: its whitespace runs made single spaces; raise
    ``ValueError`` with the sentence for anything else than 1 to ``CHAT_MAX_CHARS`` printable
    characters (:class:`ChatTooLong` for a line past the limit)."""
    if not isinstance(text, str):
        raise ValueError("'text' must be a string")
    line = " ".join(text.split())
    if not line:
        raise ValueError("a chat message must not be empty")
    if len(line) > CHAT_MAX_CHARS:
        raise ChatTooLong(f"a chat message must be at most {CHAT_MAX_CHARS} characters")
    if not line.isprintable():
        raise ValueError("a chat message must not contain control characters")
    return line
