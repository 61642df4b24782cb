"""A JSON Schema for every WebSocket message (docs/dev/protocol.md prints them; the server
tests check every message of whole games against them and the page against this module).

``CLIENT`` holds the messages a client sends on ``/ws/{table}``; ``SERVER`` the ones the
server sends there and on ``/ws/lobby``. The schemas say the shape; the rules (whose turn,
which version) are the server's.
"""

from __future__ import annotations

from typing import Any

__all__ = ["CLIENT", "CLOCK", "CLOCKS", "LOBBY_TABLE", "SEAT_INFO", "SERVER", "schema_of"]

Schema = dict[str, Any]

_VERSION: Schema = {"type": "integer", "minimum": 0}
_SEAT: Schema = {"type": "integer", "minimum": 0}
_EVENT: Schema = {
    "type": "object",
    "required": ["type"],
    "properties": {"type": {"type": "string"}},
    "description": "event.for_viewer(seat): see Events",
}


def _message(kind: str, properties: Schema, required: list[str], *, closed: bool = True) -> Schema:
    schema: Schema = {
        "type": "object",
        "required": ["type", *required],
        "properties": {"type": {"const": kind}, **properties},
    }
    if closed:
        schema["additionalProperties"] = False
    return schema


CLIENT: dict[str, Schema] = {
    "act": _message(
        "act",
        {
            "version": _VERSION,
            "action": {
                "type": "object",
                "required": ["type"],
                "properties": {"type": {"type": "string"}},
                "not": {"required": ["seat"]},
            },
        },
        ["version", "action"],
    ),
    "hint": _message("hint", {}, []),
    "sync": _message(
        "sync",
        {"since": {**_VERSION, "description": "the last version the client holds"}},
        [],
    ),
    "chat": _message("chat", {"text": {"type": "string", "maxLength": 300}}, ["text"]),
    "back": _message("back", {}, []),
}

_SECONDS: Schema = {"type": ["number", "null"], "minimum": 0}

#: a table's clock setting (``tapete.server.clock.ClockSettings.to_json``)
CLOCK: Schema = {
    "type": "object",
    "additionalProperties": False,
    "required": ["move_s", "bank_s", "grace_s", "abandon_s"],
    "properties": {
        "move_s": _SECONDS,
        "bank_s": {"type": "number", "minimum": 0},
        "grace_s": {"type": "number", "minimum": 0},
        "abandon_s": {"type": "number", "minimum": 0},
    },
}

#: the clocks in a ``view`` or ``presence`` message (``SeatClocks.snapshot``): per seat,
#: null for a computer's seat
CLOCKS: Schema = {
    "type": "object",
    "additionalProperties": False,
    "required": ["clock", "seats"],
    "properties": {
        "clock": CLOCK,
        "seats": {
            "type": "array",
            "items": {
                "type": ["object", "null"],
                "additionalProperties": False,
                "required": [
                    "connected",
                    "taken",
                    "abandoned",
                    "running",
                    "move",
                    "bank",
                    "grace",
                    "back_by",
                ],
                "properties": {
                    "connected": {"type": "boolean"},
                    "taken": {"enum": [None, "time", "disconnected"]},
                    "abandoned": {"type": "boolean"},
                    "running": {"type": "boolean"},
                    "move": _SECONDS,
                    "bank": _SECONDS,
                    "grace": _SECONDS,
                    "back_by": _SECONDS,
                },
            },
        },
    },
}


def _seat_news(kind: str, extra: Schema, required: list[str]) -> Schema:
    """A clock decision announced to everyone at the table."""
    return _message(
        kind,
        {"seat": _SEAT, "name": {"type": "string"}, "version": _VERSION, **extra},
        ["seat", "name", "version", *required],
    )


SEAT_INFO: Schema = {
    "type": "object",
    "additionalProperties": False,
    "required": ["seat", "kind", "name", "user", "level", "connected"],
    "properties": {
        "seat": _SEAT,
        "kind": {"enum": ["person", "open", "invited", "computer"]},
        "name": {"type": ["string", "null"]},
        "user": {"type": "boolean"},
        "level": {"type": ["string", "null"]},
        "connected": {"type": "integer", "minimum": 0},
    },
}

#: a table in the lobby (``GET /api/lobby`` and the ``lobby`` message): never a token or an
#: invitation code
LOBBY_TABLE: Schema = {
    "type": "object",
    "required": ["table", "game", "profile", "target", "taken", "free", "seats", "rated"],
    "properties": {
        "table": {"type": "integer"},
        "game": {"type": "string"},
        "profile": {"type": "string"},
        "target": {"type": "integer"},
        "taken": {"type": "integer"},
        "free": {"type": "integer"},
        "seats": {"type": "array", "items": SEAT_INFO},
        "rated": {"type": "boolean"},
        "spectators": {"type": "boolean"},
        "spectator_delay": {"type": "integer"},
        "listed": {"type": "boolean"},
        "quick": {"type": "boolean"},
        "clock": {"anyOf": [{"type": "null"}, CLOCK], "description": "null: the defaults"},
        "created_at": {"type": "string"},
    },
    "not": {"anyOf": [{"required": ["invite"]}, {"required": ["token"]}]},
}

SERVER: dict[str, Schema] = {
    "view": _message(
        "view",
        {
            "version": _VERSION,
            "view": {"type": "object", "required": ["seat", "players", "legal", "over"]},
            "sheet_from": {"type": "integer", "minimum": 0},
            "events": {"type": "array", "items": _EVENT},
            "clocks": CLOCKS,
        },
        ["version", "view", "sheet_from", "events"],
    ),
    "patch": _message(
        "patch",
        {
            "version": _VERSION,
            "patch_of": _VERSION,
            "view": {"type": "object", "description": "the view's keys that changed"},
            "removed": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
            "sheet_from": {"type": "integer", "minimum": 0},
            "events": {"type": "array", "items": _EVENT},
            "clocks": CLOCKS,
        },
        ["version", "patch_of", "view", "removed", "sheet_from", "events"],
    ),
    "events": _message(
        "events",
        {
            "since": _VERSION,
            "version": _VERSION,
            "steps": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["version", "events"],
                    "properties": {
                        "version": _VERSION,
                        "events": {"type": "array", "items": _EVENT},
                    },
                },
            },
        },
        ["since", "version", "steps"],
    ),
    "presence": _message(
        "presence",
        {
            "status": {"enum": ["waiting", "playing", "finished", "closed"]},
            "seats": {"type": "array", "items": SEAT_INFO},
            "spectators": {"type": "integer", "minimum": 0},
            "clocks": CLOCKS,
        },
        ["status", "seats", "spectators"],
    ),
    "takeover": _seat_news("takeover", {"reason": {"enum": ["time", "disconnected"]}}, ["reason"]),
    "giveback": _seat_news("giveback", {}, []),
    "abandoned": _seat_news("abandoned", {}, []),
    "chat": _message(
        "chat",
        {
            "seat": _SEAT,
            "name": {"type": "string"},
            "text": {"type": "string", "minLength": 1, "maxLength": 300},
            "version": _VERSION,
        },
        ["seat", "name", "text", "version"],
    ),
    "hint": _message(
        "hint",
        {
            "version": _VERSION,
            "action": {"type": "object"},
            "reason": {"type": "string"},
            "reason_key": {"type": "string"},
            "reason_args": {"type": "object", "additionalProperties": {"type": "string"}},
        },
        ["version", "action", "reason", "reason_key", "reason_args"],
    ),
    "error": _message(
        "error",
        {
            "code": {"type": "string"},
            "message": {"type": "string"},
            "detail": {"type": "string"},
        },
        ["code", "message", "detail"],
    ),
    "lobby": _message("lobby", {"tables": {"type": "array", "items": LOBBY_TABLE}}, ["tables"]),
}


def schema_of(direction: str, message: Any) -> Schema:
    """The schema of ``message`` (by its ``type``) among ``CLIENT`` or ``SERVER``; raise
    ``KeyError`` for a type the protocol does not have."""
    table = CLIENT if direction == "client" else SERVER
    kind = message.get("type") if isinstance(message, dict) else None
    return table[str(kind)]
