"""The HTTP API as an OpenAPI 3.1 document, served at ``/api/openapi.json``.

Written by hand beside the routes (``tests/server/test_server_openapi.py`` keeps the two in
step, and runs every endpoint with input generated from this document: no 5xx, every
answer matches its schema). The table WebSocket (``/ws/{table}``) is described in
docs/dev/protocol.md; OpenAPI has no words for it.
"""

from __future__ import annotations

from typing import Any

from tapete.games import kinds
from tapete.names import MAX_NAME_CHARS
from tapete.server import accounts, players, replay_view, review
from tapete.server.i18n import LANGUAGES
from tapete.server.limits import Limits
from tapete.server.messages import LOBBY_TABLE, SEAT_INFO
from tapete.server.security import TOKEN_PARAMETERS

__all__ = ["openapi_document"]

JSONDoc = dict[str, Any]

#: a ``clock`` request field: any of ClockSettings' fields (the rest take their defaults)
CLOCK_SETTING: JSONDoc = {
    "type": "object",
    "additionalProperties": False,
    "properties": {
        "move_s": {"type": ["number", "null"], "minimum": 1, "maximum": 3600},
        "bank_s": {"type": "number", "minimum": 0, "maximum": 3600},
        "grace_s": {"type": "number", "minimum": 1, "maximum": 3600},
        "abandon_s": {"type": "number", "minimum": 1, "maximum": 86400},
    },
}

#: the room's fields of a table's description (their schemas are the lobby's)
_ROOM_KEYS = ("rated", "spectators", "spectator_delay", "listed", "quick", "clock")

_ERROR: JSONDoc = {
    "type": "object",
    "required": ["error"],
    "properties": {
        "error": {"type": "string", "description": "one sentence: what and where"},
        "code": {
            "type": "string",
            "description": "a refusal met in normal use, for a client to word in its own"
            " language: the WebSocket's error codes (docs/dev/protocol.md: rated_guest,"
            " table_full, name_taken, bad_invite, already_seated, unknown_table, bad_table)"
            ", public_needs_open, one_seat_yours, rated_computer, bad_spectator_delay,"
            " name_scripts (a new name mixes scripts) and name_look_alike (a new account's"
            " name looks like an older account's)",
        },
    },
}


#: a name someone takes at a table (a guest's, a seat's): a 400 ``name_scripts`` when its
#: letters mix scripts (tapete.names.one_script)
NEW_NAME: JSONDoc = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_NAME_CHARS,
    "description": "the player's name: printable, whitespace runs squeezed; its letters of one"
    " script (Latin, Cyrillic, Greek, ...; Japanese, Chinese and Korean may add Latin) and"
    " its digits of one system, else 400 with code name_scripts",
}


def _error(description: str) -> JSONDoc:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


def _json(schema: JSONDoc, description: str = "OK") -> JSONDoc:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _html(description: str) -> JSONDoc:
    return {"description": description, "content": {"text/html": {"schema": {"type": "string"}}}}


def _query(name: str, schema: JSONDoc, description: str, required: bool = False) -> JSONDoc:
    return {
        "name": name,
        "in": "query",
        "required": required,
        "schema": schema,
        "description": description,
    }


def _page_params(limits: Limits, default: int) -> list[JSONDoc]:
    return [
        _query(
            "limit",
            {"type": "integer", "minimum": 1, "maximum": limits.max_page, "default": default},
            "the page size",
        ),
        _query(
            "before",
            {"type": "integer", "minimum": 1},
            "only tables with a smaller id (the last id of the previous page)",
        ),
    ]


#: every answer may be one of these (the guard middleware, the database)
_COMMON = {
    "400": _error("a bad parameter, or a Host header this server does not answer to"),
    "503": _error("the database is busy (another program holds it): try again"),
}


def _with_common(item: JSONDoc) -> JSONDoc:
    """A path item written elsewhere, with the answers every route may give."""
    op = dict(item["get"])
    op["responses"] = {**_COMMON, **op["responses"]}
    return {"get": op}


#: ``GET /api/tables/{id}/ratings`` (``tapete.server.ratings.table_ratings``)
TABLE_RATINGS: JSONDoc = {
    "type": "object",
    "additionalProperties": False,
    "required": ["table", "rated", "pool", "seats"],
    "properties": {
        "table": {"type": "integer"},
        "rated": {"type": "boolean", "description": "every seat a person with an account"},
        "pool": {"type": ["string", "null"], "description": "the rating pool (null: unrated)"},
        "seats": {
            "type": "array",
            "description": "per seat of the finished rated game, in seat order",
            "items": {
                "type": "object",
                "additionalProperties": False,
                "required": [
                    "seat",
                    "name",
                    "ordinal",
                    "before",
                    "change",
                    "place",
                    "games",
                    "provisional",
                    "abandoned",
                ],
                "properties": {
                    "seat": {"type": "integer", "minimum": 0},
                    "name": {"type": "string"},
                    "ordinal": {"type": "number", "description": "the rating after the game"},
                    "before": {"type": "number", "description": "the rating before it"},
                    "change": {"type": "number", "description": "ordinal - before"},
                    "place": {"type": "integer", "minimum": 1},
                    "games": {
                        "type": "integer",
                        "minimum": 1,
                        "description": "the player's rated games in the pool, this one included",
                    },
                    "provisional": {
                        "type": "boolean",
                        "description": "the rating after the game was provisional",
                    },
                    "abandoned": {"type": "boolean"},
                },
            },
        },
    },
}


def openapi_document(limits: Limits | None = None) -> JSONDoc:
    """The document for a server with ``limits``."""
    limits = limits or Limits()
    games = [k.name for k in kinds()]
    profiles = sorted({p for k in kinds() for p in k.profiles})
    nullable_int = {"type": ["integer", "null"]}
    table_id = {
        "name": "table_id",
        "in": "path",
        "required": True,
        "schema": {"type": "string"},
        "description": "the table's id (ASCII digits; anything else is no table)",
    }
    name = _query(
        "name",
        {"type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS},
        "a player's name",
        required=True,
    )
    #: a new table's game and profile, the person's name and the table's language
    who_and_what: JSONDoc = {
        "game": {"enum": games},
        "profile": {"enum": profiles},
        "name": NEW_NAME,
        "language": {"enum": list(LANGUAGES)},
    }
    new_table = {
        "type": "object",
        "required": ["game", "name"],
        "additionalProperties": False,
        "properties": {
            **who_and_what,
            "levels": {
                "type": "array",
                "items": {"enum": ["random", "beginner", "rules", "search"]},
            },
            "seed": {
                "type": "integer",
                "minimum": 0,
                "maximum": 2**62 - 1,
                "description": "a chosen deal (the game number): such a game is not ranked "
                "and adds no statistics",
            },
            "max_deals": {"type": "integer", "minimum": 1, "maximum": limits.max_deals},
            "seats": {
                "type": "array",
                "description": "per seat: yours (exactly one), open to anyone, for an invited "
                "person, or a computer of a level (instead of 'levels'); the table waits until "
                "every seat is taken",
                "items": {
                    "type": "object",
                    "required": ["kind"],
                    "additionalProperties": False,
                    "properties": {
                        "kind": {"enum": ["me", "open", "invited", "computer"]},
                        "level": {"enum": ["random", "beginner", "rules", "search"]},
                    },
                },
            },
            "rated": {"type": "boolean", "description": "signed-in people at every seat"},
            "spectators": {"type": "boolean", "default": True},
            "spectator_delay": {"type": "integer", "minimum": 0, "maximum": 100},
            "public": {"type": "boolean", "description": "listed in the lobby"},
            "clock": {
                "anyOf": [{"type": "null"}, CLOCK_SETTING],
                "description": "the clock and dropped-seat settings (fields left out: their "
                "defaults; docs/server.md, 'Clocks and dropped seats')",
            },
        },
    }
    created = {
        "type": "object",
        "required": ["table", "seat", "token", "ranked"],
        "properties": {
            "table": {"type": "integer"},
            "seat": {"type": "integer", "minimum": 0},
            "token": {"type": "string"},
            "ranked": {"type": "boolean"},
            "status": {"enum": ["waiting", "playing"]},
            "invite": {"type": ["string", "null"], "description": "the invitation code"},
            "rated": {"type": "boolean"},
        },
    }
    seated = {
        "type": "object",
        "required": ["table", "seat", "token", "status"],
        "properties": {
            "table": {"type": "integer"},
            "seat": {"type": "integer", "minimum": 0},
            "token": {"type": "string", "description": "the seat's secret (keep it)"},
            "name": {
                "type": "string",
                "description": "the name seated under (a guest's numbered at a quick table "
                "where someone has the name asked: 'Ana 2')",
            },
            "status": {"enum": ["waiting", "playing"]},
            "game": {"type": "string"},
            "profile": {"type": "string"},
            "ranked": {"type": "boolean"},
            "rated": {"type": "boolean"},
        },
    }
    room_props: JSONDoc = {
        "seats": {"type": "array", "items": SEAT_INFO},
        **{k: LOBBY_TABLE["properties"][k] for k in _ROOM_KEYS},
    }
    quick_body = {
        "type": "object",
        "required": ["game"],
        "additionalProperties": False,
        "properties": {
            **who_and_what,
            "fill_after_s": {
                "type": ["number", "null"],
                "minimum": 0,
                "maximum": 3600,
                "default": 30,
                "description": "computers take the free seats after this time (null: never)",
            },
        },
    }
    sit_body = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "name": NEW_NAME,
            "invite": {"type": "string", "description": "the invitation code"},
            "seat": {"type": "integer", "description": "a free seat (default: the first)"},
        },
    }
    info = {
        "type": "object",
        "required": [
            "table",
            "game",
            "profile",
            "seat",
            "status",
            "players",
            "levels",
            "language",
            "version",
            "winner",
            "ranked",
            "seed_chosen",
            "max_deals",
        ],
        "properties": {
            "table": {"type": "integer"},
            "game": {"type": "string"},
            "profile": {"type": "string"},
            "seat": nullable_int,
            "status": {"enum": ["waiting", "playing", "finished", "expired", "abandoned"]},
            "players": {"type": "array", "items": {"type": "string"}},
            "levels": {"type": "array", "items": {"type": ["string", "null"]}},
            "language": {"type": "string"},
            "version": {"type": "integer", "minimum": 0},
            "winner": nullable_int,
            "ranked": {"type": "boolean"},
            "seed_chosen": {"type": "boolean"},
            "max_deals": {
                **nullable_int,
                "description": "the deals its creator limited the game to (null: the "
                "server's cap on deals)",
            },
            "seed": {"type": "integer", "description": "only once the game is finished"},
            "invite": {
                "type": ["string", "null"],
                "description": "the invitation code (for a person seated there)",
            },
            **room_props,
        },
    }
    summary = {
        "type": "object",
        "required": ["table", "game", "profile", "players", "created_at"],
        "properties": {
            "table": {"type": "integer"},
            "game": {"type": "string"},
            "profile": {"type": "string"},
            "status": {"type": "string"},
            "players": {"type": "array", "items": {"type": "string"}},
            "created_at": {"type": "string"},
            "finished_at": {"type": ["string", "null"]},
            "winner": nullable_int,
            "scores": {"type": ["array", "null"]},
            "ranked": {"type": "boolean"},
        },
    }
    stat = {
        "type": "object",
        "required": ["game", "profile", "games", "wins", "average_points"],
        "properties": {
            "game": {"type": "string"},
            "profile": {"type": "string"},
            "games": {"type": "integer"},
            "wins": {"type": "integer"},
            "average_points": {"type": "number"},
            "contracts_made": {"type": "integer"},
            "contracts_failed": {"type": "integer"},
            "barrel_visits": {"type": "integer"},
        },
    }
    ranking_row = {
        "type": "object",
        "required": ["name", "score", "profile", "date", "table"],
        "properties": {
            "name": {"type": "string"},
            "score": {"type": "number"},
            "profile": {"type": "string"},
            "date": {"type": "string"},
            "table": {"type": "integer"},
        },
    }

    # (what a client reads to create a table without knowing any game by name)
    game_kind = {
        "type": "object",
        "required": ["name", "title", "seats", "profiles", "default_players", "score_key"],
        "properties": {
            "name": {"type": "string", "description": "the 'game' of POST /api/tables"},
            "title": {"type": "string"},
            "seats": {"type": "integer", "minimum": 1},
            "profiles": {
                "type": "array",
                "description": "the first is the default",
                "items": {
                    "type": "object",
                    "required": ["name", "target"],
                    "properties": {"name": {"type": "string"}, "target": {"type": "integer"}},
                },
            },
            "default_players": {"type": "array", "items": {"type": "string"}},
            "score_key": {
                "type": "string",
                "description": "the key of the final standing in records, views and the "
                "game_over event ('scores', 'match')",
            },
        },
    }
    config = {
        "type": "object",
        "required": ["kinds", "levels", "languages", "default_delay_ms", "default_clock"],
        "properties": {
            "kinds": {"type": "array", "items": game_kind},
            "levels": {"type": "array", "items": {"type": "string"}},
            "languages": {"type": "array", "items": {"type": "string"}},
            "default_delay_ms": {"type": "integer", "minimum": 0},
            "default_clock": room_props["clock"],
        },
    }

    def get(summary_text: str, responses: JSONDoc, params: list[JSONDoc] | None = None) -> JSONDoc:
        op: JSONDoc = {"summary": summary_text, "responses": {**_COMMON, **responses}}
        if params:
            op["parameters"] = params
        return {"get": op}

    paths: JSONDoc = {
        "/": get("the web client", {"200": _html("the page"), "404": _html("not installed")}),
        "/api/openapi.json": get("this document", {"200": _json({"type": "object"})}),
        "/api/config": get(
            "games, profiles, computer levels, languages, the computer players' delay",
            {"200": _json(config)},
        ),
        "/api/tables": {
            "post": {
                "summary": "create a table: the person at seat 0 and computers elsewhere "
                "('levels'), or any seats ('seats': people, invited people, computers)",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": new_table}},
                },
                "responses": {
                    **_COMMON,
                    "201": _json(created, "the new table and the person's token"),
                    "403": _error("a rated table asked for by a guest (sign in first)"),
                    "413": _error(f"the body is larger than {limits.max_body_bytes} bytes"),
                    "415": _error("the body is not declared as application/json"),
                    "429": {
                        **_error("too many new tables from this address: wait"),
                        "headers": {"Retry-After": {"schema": {"type": "string"}}},
                    },
                },
            },
            "get": {
                "summary": "a player's tables, newest first, a page at a time",
                "parameters": [name, *_page_params(limits, 50)],
                "responses": {**_COMMON, "200": _json({"type": "array", "items": summary})},
            },
        },
        "/api/tables/live": get(
            "the tables being played to watch (unfinished, an action in the last "
            f"{limits.live_idle_s:g} s), newest first, a page at a time",
            {"200": _json({"type": "array", "items": summary})},
            _page_params(limits, 30),
        ),
        "/api/tables/{table_id}": get(
            "a table's description (the seat of the token; the seed once finished)",
            {
                "200": _json(info),
                "403": _error("the token is not this table's"),
                "404": _error("there is no such table"),
            },
            [table_id, *TOKEN_PARAMETERS],
        ),
        "/api/tables/{table_id}/record": get(
            "the game's tapete/1 record (an unfinished game's needs the token and shows only "
            "its finished deals)",
            {
                "200": _json({"type": "object", "required": ["format", "game"]}),
                "403": _error("an unfinished game's record needs the token"),
                "404": _error("there is no such table"),
            },
            [table_id, *TOKEN_PARAMETERS],
        ),
        "/api/tables/{table_id}/ratings": get(
            "the rating changes of a rated table's game, per seat (none before its end, none "
            "at an unrated table)",
            {"200": _json(TABLE_RATINGS), "404": _error("there is no such table")},
            [table_id],
        ),
        "/api/tables/{table_id}/review/{deal}": _with_common(review.openapi_path()),
        **replay_view.openapi_paths(_COMMON, table_id),
        "/api/tables/{table_id}/seats": {
            "post": {
                "summary": "sit down at a free seat (the invitation code, or an open seat of a "
                "table in the lobby); the last seat taken starts the game",
                "parameters": [table_id],
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": sit_body}},
                },
                "responses": {
                    **_COMMON,
                    "201": _json(seated, "the seat and its token"),
                    "403": _error("a wrong invitation code, or a guest at a rated table"),
                    "404": _error("there is no such table"),
                    "409": _error("the seat is taken, the table is full, or the name is taken"),
                    "413": _error(f"the body is larger than {limits.max_body_bytes} bytes"),
                    "415": _error("the body is not declared as application/json"),
                },
            }
        },
        "/api/invitations/{code}": get(
            "the table an invitation code leads to (its seats, who sits where)",
            {"200": _json(info), "404": _error("there is no such invitation")},
            [{"name": "code", "in": "path", "required": True, "schema": {"type": "string"}}],
        ),
        "/api/lobby": get(
            "the open tables listed in the lobby (waiting for people), oldest first",
            {"200": _json({"type": "array", "items": LOBBY_TABLE})},
        ),
        "/api/quick": {
            "post": {
                "summary": "quick game: a seat at an open quick table of that game, or a new "
                "one that computers fill after fill_after_s",
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": quick_body}},
                },
                "responses": {
                    **_COMMON,
                    "201": _json(seated, "the seat and its token"),
                    "413": _error(f"the body is larger than {limits.max_body_bytes} bytes"),
                    "415": _error("the body is not declared as application/json"),
                    "429": {
                        **_error("too many new tables from this address: wait"),
                        "headers": {"Retry-After": {"schema": {"type": "string"}}},
                    },
                },
            }
        },
        "/api/stats": get(
            "a player's statistics per game and profile",
            {"200": _json({"type": "array", "items": stat})},
            [name],
        ),
        "/api/ranking": get(
            "a Ranking board, best first, a page at a time",
            {"200": _json({"type": "array", "items": ranking_row})},
            [
                _query("game", {"enum": games, "default": games[0]}, "the game"),
                _query("target", {"type": "string"}, "Mil: 1000 or 500"),
                _query(
                    "limit",
                    {"type": "integer", "minimum": 1, "maximum": limits.max_page, "default": 20},
                    "the page size",
                ),
                _query(
                    "offset",
                    {"type": "integer", "minimum": 0, "maximum": 100_000, "default": 0},
                    "the places skipped",
                ),
            ],
        ),
        "/rules/{profile}": get(
            "the rules of a profile, as a page",
            {
                "200": _html("the rules"),
                "404": {
                    "description": "no such profile or language (JSON), or not written yet",
                    "content": {
                        "application/json": {"schema": {"$ref": "#/components/schemas/Error"}},
                        "text/html": {"schema": {"type": "string"}},
                    },
                },
            },
            [
                {"name": "profile", "in": "path", "required": True, "schema": {"type": "string"}},
                _query("lang", {"type": "string"}, "es, pt or en"),
            ],
        ),
    }
    paths.update(accounts.openapi_paths())  # sign up, sign in, sign out, me
    paths.update(players.openapi_paths(limits.max_page))  # player pages, rating leaderboards
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Tapete",
            "version": "1",
            "description": "The Tapete server's HTTP API (docs/dev/protocol.md). The table "
            "WebSocket /ws/{table} is described there.",
        },
        "paths": paths,
        "components": {"schemas": {"Error": _ERROR}},
    }
