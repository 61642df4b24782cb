"""The player page (``GET /api/players/{name}``) and the rating leaderboards
(``GET /api/ratings/{pool}``).

A player page holds, for any name (an account's or a guest's): the statistics per game and
profile (:func:`tapete.server.stats.player_stats`, the figures ``/api/stats`` gives), the
finished games (newest first: the tables created under the name and those where it sat at a
seat, each with a link to its replay and one to download its tapete/1 record), and the
abandonments; for an account also its rating in each pool with
the history (the rating after each rated game).

Abandonments: the player's tables closed unfinished for want of a move (status
``abandoned`` with no final scores) and the rated games in which their seat was given up
(recorded by :func:`tapete.server.ratings.hook`). A game the server stopped at its cap on
deals (status ``abandoned`` too, with its final scores) is nobody's abandonment: it is among
the finished games, with nobody as its winner.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, func, or_, select
from sqlalchemy.orm import Session, sessionmaker
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tapete.names import MAX_NAME_CHARS, player_name
from tapete.server import ratings, stats
from tapete.server.accounts import UserRow, name_key
from tapete.server.db import DatabaseThreads, SeatRow, TableRow
from tapete.server.limits import parse_count

__all__ = ["PlayerPages", "openapi_paths", "player_page"]

GAMES_ON_PAGE = 50


def _table_json(row: TableRow) -> dict[str, Any]:
    return {
        "table": row.id,
        "game": row.game,
        "profile": row.profile,
        "players": list(row.players),
        "finished_at": row.finished_at.isoformat() if row.finished_at else None,
        "winner": row.winner,
        "scores": row.final_scores,
        "replay": f"/?replay={row.id}",
        "record": f"/api/tables/{row.id}/record",
    }


def player_page(session: Session, name: str) -> dict[str, Any]:
    """Everything ``GET /api/players/{name}`` shows of ``name``."""
    user = session.scalar(select(UserRow).where(UserRow.name_key == name_key(name)))
    shown = user.name if user is not None else name
    rated_tables: Any = select(ratings.RatingHistoryRow.table_id).where(
        ratings.RatingHistoryRow.user_id == (user.id if user is not None else -1),
        ratings.RatingHistoryRow.table_id.is_not(None),
    )
    # the tables created under the name, those where it sat (an invited person's), and the
    # account's rated ones
    seated: Any = select(SeatRow.table_id).where(SeatRow.kind == "person", SeatRow.name == shown)
    mine = or_(TableRow.owner == shown, TableRow.id.in_(seated), TableRow.id.in_(rated_tables))
    # (a game stopped at the cap on deals was played to its end too: it is listed, with no
    # winner; TableManager._finish stores its final scores, a table closed for want of a
    # move has none)
    capped = and_(TableRow.status == "abandoned", TableRow.final_scores.is_not(None))
    finished = session.scalars(
        select(TableRow)
        .where(mine, or_(TableRow.status == "finished", capped))
        .order_by(TableRow.finished_at.desc(), TableRow.id.desc())
        .limit(GAMES_ON_PAGE)
    )
    left = (
        session.scalar(
            select(func.count())
            .select_from(TableRow)
            .where(
                TableRow.owner == shown,
                TableRow.status == "abandoned",
                TableRow.final_scores.is_(None),
            )
        )
        or 0
    )
    given_up = 0
    if user is not None:
        given_up = (
            session.scalar(
                select(func.count())
                .select_from(ratings.RatingHistoryRow)
                .where(
                    ratings.RatingHistoryRow.user_id == user.id,
                    ratings.RatingHistoryRow.abandoned == 1,
                )
            )
            or 0
        )
    return {
        "name": shown,
        "account": user is not None,
        "stats": stats.player_stats(session, shown),
        "ratings": [] if user is None else ratings.user_ratings(session, user.id),
        "games": [_table_json(r) for r in finished],
        "abandonments": int(left) + int(given_up),
    }


class PlayerPages:
    """The HTTP endpoints."""

    def __init__(
        self, sessions: sessionmaker[Session], db: DatabaseThreads, max_page: int = 100
    ) -> None:
        self.sessions = sessions
        #: the threads its queries run in (the server's: ``TableManager.db``)
        self.db = db
        self.max_page = max_page

    def routes(self) -> list[Route]:
        return [
            Route("/api/players/{name}", self.player, methods=["GET"]),
            Route("/api/ratings/{pool}", self.leaderboard, methods=["GET"]),
        ]

    async def player(self, request: Request) -> Response:
        name = player_name(str(request.path_params["name"]))
        if name is None:
            return JSONResponse(
                {"error": f"a player's name is 1 to {MAX_NAME_CHARS} printable characters"},
                status_code=400,
            )
        return JSONResponse(await self.db.read(self.sessions, player_page, name))

    async def leaderboard(self, request: Request) -> Response:
        pool = request.path_params["pool"]
        if pool not in ratings.pools():
            return JSONResponse(
                {"error": f"no rating pool {pool!r}: {', '.join(ratings.pools())}"},
                status_code=404,
            )
        q = request.query_params
        unknown = sorted(set(q) - {"limit", "offset"})
        if unknown:
            return JSONResponse(
                {"error": f"unknown parameter(s) {', '.join(unknown)}: limit, offset"},
                status_code=400,
            )
        try:
            limit = parse_count(q.get("limit"), "limit", low=1, high=self.max_page, default=20)
            offset = parse_count(q.get("offset"), "offset", low=0, high=100_000, default=0)
        except ValueError as exc:
            return JSONResponse({"error": str(exc)}, status_code=400)
        board = await self.db.read(self.sessions, ratings.leaderboard, pool, limit, offset=offset)
        return JSONResponse(board)


def openapi_paths(max_page: int) -> dict[str, Any]:
    """The two endpoints for ``/api/openapi.json``."""

    def error(description: str) -> dict[str, Any]:
        return {
            "description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }

    def ok(schema: dict[str, Any]) -> dict[str, Any]:
        return {"description": "OK", "content": {"application/json": {"schema": schema}}}

    rating: dict[str, Any] = {
        "type": "object",
        "required": ["pool", "ordinal", "mu", "sigma", "games", "provisional"],
        "properties": {
            "pool": {"type": "string"},
            "ordinal": {"type": "number", "description": "mu - 3 sigma: the rating shown"},
            "mu": {"type": "number"},
            "sigma": {"type": "number"},
            "games": {"type": "integer"},
            "provisional": {"type": "boolean"},
        },
    }
    board_row: dict[str, Any] = {
        **rating,
        "required": ["place", "name", *rating["required"]],
        "properties": {
            "place": {"type": "integer"},
            "name": {"type": "string"},
            **rating["properties"],
        },
    }
    history = {
        "type": "object",
        "required": ["date", "ordinal", "before", "place", "players", "table", "abandoned"],
        "properties": {
            "date": {"type": "string"},
            "ordinal": {"type": "number"},
            "before": {"type": "number"},
            "place": {"type": "integer"},
            "players": {"type": "integer"},
            "table": {"type": ["integer", "null"]},
            "abandoned": {"type": "boolean"},
        },
    }
    game = {
        "type": "object",
        "required": ["table", "game", "profile", "players", "finished_at", "replay", "record"],
        "properties": {
            "table": {"type": "integer"},
            "game": {"type": "string"},
            "profile": {"type": "string"},
            "players": {"type": "array", "items": {"type": "string"}},
            "finished_at": {"type": ["string", "null"]},
            "winner": {"type": ["integer", "null"]},
            "scores": {"type": ["array", "null"]},
            "replay": {"type": "string", "description": "the game's replay (every hand face up)"},
            "record": {"type": "string", "description": "the tapete/1 record to download"},
        },
    }
    page = {
        "type": "object",
        "required": ["name", "account", "stats", "ratings", "games", "abandonments"],
        "properties": {
            "name": {"type": "string"},
            "account": {"type": "boolean"},
            "stats": {"type": "array", "items": {"type": "object"}},
            "ratings": {
                "type": "array",
                "items": {
                    **rating,
                    "required": [*rating["required"], "history"],
                    "properties": {
                        **rating["properties"],
                        "history": {"type": "array", "items": history},
                    },
                },
            },
            "games": {"type": "array", "items": game},
            "abandonments": {"type": "integer"},
        },
    }
    common = {
        "400": error("a bad parameter, or a Host header this server does not answer to"),
        "503": error("the database is busy: try again"),
    }
    return {
        "/api/players/{name}": {
            "get": {
                "summary": "a player's page: statistics, ratings and their history, finished "
                "games, abandonments",
                "parameters": [
                    {
                        "name": "name",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string"},
                        "description": "the player's name (an account's: any case)",
                    }
                ],
                "responses": {**common, "200": ok(page)},
            }
        },
        "/api/ratings/{pool}": {
            "get": {
                "summary": "a rating pool's leaderboard, highest ordinal first",
                "parameters": [
                    {
                        "name": "pool",
                        "in": "path",
                        "required": True,
                        "schema": {"type": "string", "enum": ratings.pools()},
                        "description": "the pool: a game and target",
                    },
                    {
                        "name": "limit",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "integer", "minimum": 1, "maximum": max_page},
                        "description": "the page size",
                    },
                    {
                        "name": "offset",
                        "in": "query",
                        "required": False,
                        "schema": {"type": "integer", "minimum": 0, "maximum": 100_000},
                        "description": "the places skipped",
                    },
                ],
                "responses": {
                    **common,
                    "200": ok({"type": "array", "items": board_row}),
                    "404": error("no such pool"),
                },
            }
        },
    }
