"""The ASGI app: HTTP API, the table WebSocket, rules pages and the static web client.

See docs/dev/protocol.md for the protocol and docs/server.md for running it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import time
from collections import deque
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import Scope
from starlette.websockets import WebSocket, WebSocketDisconnect

from tapete.game import JSON, GameKind
from tapete.games import GAMES, PROFILES, kind, kinds
from tapete.server import stats
from tapete.server.db import default_db_url, make_engine, upgrade
from tapete.server.i18n import LANGUAGES
from tapete.server.rules import rules_page
from tapete.server.tables import Table, TableError, TableManager

if TYPE_CHECKING:
    from tapete.server.review import ReviewSettings

__all__ = ["LANGUAGES", "MAX_MESSAGE_BYTES", "create_app", "run_serve"]

log = logging.getLogger("tapete.server")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
LEVELS = ("random", "rules", "search")
MAX_MESSAGE_BYTES = 4096
MAX_BODY_BYTES = 16384
MAX_NAME_CHARS = 32
RULES_PROFILES = tuple(p for profiles in PROFILES.values() for p in profiles)


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class BadRequest(Exception):
    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


# ---------------------------------------------------------------------- body validation


def _check_name(value: Any, what: str = "name") -> str:
    if not isinstance(value, str):
        raise BadRequest(f"'{what}' must be a string (the player's name)")
    name = " ".join(value.split())
    if not name:
        raise BadRequest(f"'{what}' must not be empty")
    if len(name) > MAX_NAME_CHARS:
        raise BadRequest(f"'{what}' must be at most {MAX_NAME_CHARS} characters")
    if not name.isprintable():
        raise BadRequest(f"'{what}' must not contain control characters")
    return name


def parse_new_table(body: bytes) -> dict[str, Any]:
    """Validate the body of ``POST /api/tables``; raise :class:`BadRequest` with a sentence."""
    if len(body) > MAX_BODY_BYTES:
        raise BadRequest(f"the request body is larger than {MAX_BODY_BYTES} bytes", 413)
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise BadRequest("the request body is not valid JSON") from None
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    allowed = {"game", "profile", "name", "language", "levels", "seed", "max_deals"}
    extra = sorted(set(data) - allowed)
    if extra:
        raise BadRequest(
            f"unknown field(s) {', '.join(map(repr, extra))}; expected {', '.join(sorted(allowed))}"
        )
    game = data.get("game")
    if game not in GAMES:
        raise BadRequest(f"'game' must be one of {', '.join(GAMES)}, got {game!r}")
    game_kind = kind(game)
    profile = data.get("profile", game_kind.profiles[0])
    if profile not in game_kind.profiles:
        raise BadRequest(
            f"'profile' must be one of {', '.join(game_kind.profiles)} for {game}, "
            f"got {profile!r}"
        )
    if "name" not in data:
        raise BadRequest("'name' is missing (the player's name)")
    name = _check_name(data["name"])
    language = data.get("language", "es")
    if language not in LANGUAGES:
        raise BadRequest(f"'language' must be one of {', '.join(LANGUAGES)}, got {language!r}")
    computers = game_kind.seats - 1
    levels = data.get("levels", ["rules"] * computers)
    if (
        not isinstance(levels, list)
        or len(levels) != computers
        or not all(isinstance(x, str) and x in LEVELS for x in levels)
    ):
        raise BadRequest(
            f"'levels' must be a list of {computers} level(s) for {game}, each one of "
            f"{', '.join(LEVELS)}"
        )
    seed = data.get("seed")
    if seed is not None and (
        isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**62
    ):
        raise BadRequest("'seed' must be a whole number from 0 to 2**62 - 1")
    max_deals = data.get("max_deals")
    if max_deals is not None and (
        isinstance(max_deals, bool) or not isinstance(max_deals, int) or not max_deals >= 1
    ):
        raise BadRequest("'max_deals' must be a whole number of at least 1")
    return {
        "game": game,
        "profile": profile,
        "name": name,
        "language": language,
        "levels": list(levels),
        "seed": seed,
        "max_deals": max_deals,
    }


def kind_json(k: GameKind) -> JSON:
    """What the web client knows of a registered game (``/api/config``'s ``kinds``).

    >>> from tapete.games import kind
    >>> kind_json(kind("mil"))["profiles"][2]
    {'name': 'casa-500', 'target': 500}
    """
    return {
        "name": k.name,
        "title": k.title,
        "seats": k.seats,
        "profiles": [{"name": p, "target": k.target(p)} for p in k.profiles],
        "default_players": list(k.default_players),
        "score_key": k.score_key,
    }


class WebFiles(StaticFiles):
    """The web client's files under ``/static``. JavaScript (the client's ES modules) always
    goes out as ``text/javascript``: a browser refuses a module script served with any other
    type, and the type Python guesses comes from the system's tables (some map .js to
    text/plain)."""

    def file_response(
        self,
        full_path: str | os.PathLike[str],
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        response = super().file_response(full_path, stat_result, scope, status_code)
        if isinstance(response, FileResponse) and os.fspath(full_path).endswith((".js", ".mjs")):
            response.headers["content-type"] = "text/javascript; charset=utf-8"
        return response


# ---------------------------------------------------------------------- WebSocket


class Connection:
    """One WebSocket at a table: an outbox queue drained by a writer task, so that
    broadcasts never wait for a slow client and messages keep their order."""

    def __init__(self, websocket: WebSocket, max_queue: int, language: str = "en") -> None:
        self.websocket = websocket
        self.language = language
        self.seat: int | None = None
        self.queue: asyncio.Queue[str | int] = asyncio.Queue()
        self.max_queue = max_queue
        self.window: deque[float] = deque()
        self.overflowed = False

    def push(self, text: str) -> None:
        if self.overflowed:
            return
        if self.queue.qsize() >= self.max_queue:
            # a client that does not read: stop writing to it and close
            self.overflowed = True
            self.queue.put_nowait(1008)
            return
        self.queue.put_nowait(text)

    def close(self, code: int = 1011) -> None:
        """Close after the messages already queued (the server could not go on)."""
        self.overflowed = True
        self.queue.put_nowait(code)

    def push_json(self, message: dict[str, Any]) -> None:
        self.push(json.dumps(message, separators=(",", ":")))

    def error(self, code: str, message: str) -> None:
        self.push_json(TableError(code, message).to_json(self.language))

    async def writer(self) -> None:
        while True:
            item = await self.queue.get()
            if isinstance(item, int):
                with contextlib.suppress(Exception):
                    await self.websocket.close(code=item)
                return
            await self.websocket.send_text(item)

    def allow(self, limit: int, now: float) -> bool:
        """At most ``limit`` messages in any second."""
        while self.window and now - self.window[0] >= 1.0:
            self.window.popleft()
        if len(self.window) >= limit:
            return False
        self.window.append(now)
        return True


def frame_text(message: Mapping[str, Any]) -> str:
    """The text of a WebSocket frame (a binary frame must hold UTF-8 JSON)."""
    text = message.get("text")
    if isinstance(text, str):
        return text
    payload = message.get("bytes") or b""
    if len(payload) > MAX_MESSAGE_BYTES:
        raise TableError("too_large", f"a message must be at most {MAX_MESSAGE_BYTES} bytes")
    try:
        return bytes(payload).decode("utf-8")
    except UnicodeDecodeError:
        raise TableError("bad_json", "the message is not UTF-8 JSON text") from None


def parse_message(text: str) -> dict[str, Any]:
    """A client message as a dict; raise :class:`TableError` for anything malformed."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
        raise TableError("too_large", f"a message must be at most {MAX_MESSAGE_BYTES} bytes")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise TableError("bad_json", "the message is not valid JSON") from None
    if not isinstance(data, dict):
        raise TableError("bad_message", "a message must be a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise TableError("bad_message", "a message needs a string 'type': act, hint or sync")
    expected = {"act": {"type", "version", "action"}, "hint": {"type"}, "sync": {"type"}}
    if kind not in expected:
        raise TableError("bad_message", f"unknown message type {kind!r}: act, hint or sync")
    keys = set(data)
    if keys != expected[kind]:
        missing = sorted(expected[kind] - keys)
        extra = sorted(keys - expected[kind])
        parts = []
        if missing:
            parts.append(f"missing {', '.join(map(repr, missing))}")
        if extra:
            parts.append(f"unexpected {', '.join(map(repr, extra))}")
        raise TableError("bad_message", f"a {kind} message has {' and '.join(parts)}")
    return data


class Server:
    """The app's state: the table manager and settings."""

    def __init__(
        self,
        manager: TableManager,
        *,
        delay_ms: int,
        rate_limit: int,
        hint_timeout_s: float,
        web_dir: Path,
    ) -> None:
        self.manager = manager
        self.delay_ms = delay_ms
        self.rate_limit = rate_limit
        self.hint_timeout_s = hint_timeout_s
        self.web_dir = web_dir

    # ------------------------------------------------------------------ HTTP

    async def config(self, request: Request) -> Response:
        return JSONResponse(
            {
                "games": {g: list(p) for g, p in PROFILES.items()},
                "kinds": [kind_json(k) for k in kinds()],
                "levels": list(LEVELS),
                "languages": list(LANGUAGES),
                "default_delay_ms": self.delay_ms,
            }
        )

    async def create_table(self, request: Request) -> Response:
        body = await request.body()
        try:
            args = parse_new_table(body)
        except BadRequest as exc:
            return _error(exc.status, exc.message)
        table = self.manager.create(**args)
        self.manager.ensure_bots(table)
        return JSONResponse({"table": table.id, "seat": 0, "token": table.token}, 201)

    def _table(self, request: Request) -> Table | None:
        raw = request.path_params["table_id"]
        if not raw.isdigit() or len(raw) > 18:
            return None
        return self.manager.get(int(raw), keep=False)

    async def table_info(self, request: Request) -> Response:
        table = self._table(request)
        if table is None:
            return _error(404, "there is no such table")
        token = request.query_params.get("token")
        seat = table.seat_for_token(token)
        if token and seat is None:
            return _error(403, "this token does not belong to this table")
        return JSONResponse(table.info(seat))

    async def table_record(self, request: Request) -> Response:
        table = self._table(request)
        if table is None:
            return _error(404, "there is no such table")
        token = request.query_params.get("token")
        if table.status != "finished" and table.seat_for_token(token) is None:
            return _error(403, "the record of an unfinished game needs the table's token")
        record = self.manager.record(table)
        return JSONResponse(
            record,
            headers={"Content-Disposition": f'attachment; filename="tapete-{table.id}.json"'},
        )

    async def list_tables(self, request: Request) -> Response:
        try:
            name = _check_name(request.query_params.get("name"))
        except BadRequest as exc:
            return _error(400, exc.message)
        return JSONResponse(self.manager.list_tables(name))

    async def live_tables(self, request: Request) -> Response:
        return JSONResponse(self.manager.live_tables())

    async def player_stats(self, request: Request) -> Response:
        try:
            name = _check_name(request.query_params.get("name"))
        except BadRequest as exc:
            return _error(400, exc.message)
        with self.manager.sessions() as session:
            return JSONResponse(stats.player_stats(session, name))

    async def ranking(self, request: Request) -> Response:
        q = request.query_params
        unknown = sorted(set(q) - {"target", "game", "limit"})
        if unknown:
            return _error(400, f"unknown parameter(s) {', '.join(unknown)}: target, game, limit")
        game = q.get("game", kinds()[0].name)
        if game not in GAMES:
            return _error(400, f"'game' must be one of {', '.join(GAMES)}")
        game_kind = kind(game)
        # one board per target the game's profiles play to, the default profile's first
        boards = [str(t) for t in dict.fromkeys(game_kind.targets.values())]
        raw = q.get("target", str(game_kind.target()))
        if raw not in boards:
            if len(boards) == 1:
                return _error(400, f"{game_kind.title} has one ranking: leave out 'target'")
            return _error(400, f"'target' must be {' or '.join(boards)}")
        target = int(raw)
        raw_limit = q.get("limit", "20")
        if not raw_limit.isdigit() or not 1 <= int(raw_limit) <= 100:
            return _error(400, "'limit' must be a whole number from 1 to 100")
        with self.manager.sessions() as session:
            return JSONResponse(stats.ranking(session, game, target, int(raw_limit)))

    async def rules(self, request: Request) -> Response:
        profile = request.path_params["profile"]
        lang = request.query_params.get("lang", "es")
        if profile not in RULES_PROFILES:
            return _error(404, f"no rules for {profile!r}: {', '.join(RULES_PROFILES)}")
        if lang not in LANGUAGES:
            return _error(404, f"no rules in {lang!r}: {', '.join(LANGUAGES)}")
        page = rules_page(self.web_dir / "rules", profile, lang)
        if page is None:
            return HTMLResponse(
                f"<!doctype html><title>404</title><p>The {profile} rules in {lang} "
                "are not written yet.</p>",
                status_code=404,
            )
        return HTMLResponse(page)

    async def index(self, request: Request) -> Response:
        path = self.web_dir / "index.html"
        if not path.is_file():
            return HTMLResponse(
                "<!doctype html><title>Tapete</title><p>The web client is not installed.</p>",
                status_code=404,
            )
        return FileResponse(path, media_type="text/html; charset=utf-8")

    # ------------------------------------------------------------------ WebSocket

    async def websocket(self, websocket: WebSocket) -> None:
        await websocket.accept()
        raw = websocket.path_params["table_id"]
        table = self.manager.get(int(raw)) if raw.isdigit() and len(raw) <= 18 else None
        if table is None:
            lang = websocket.query_params.get("lang", "en")
            error = TableError("unknown_table", "there is no such table")
            await websocket.send_json(error.to_json(lang if lang in LANGUAGES else "en"))
            await websocket.close(code=4404)
            return
        conn = Connection(websocket, self.manager.max_queue, table.language)
        token = websocket.query_params.get("token")
        conn.seat = table.seat_for_token(token)
        if token and conn.seat is None:
            conn.error("bad_token", "this token does not belong to this table: you are watching")
        writer = asyncio.create_task(conn.writer())
        self.manager.attach(table, conn)
        self.manager.ensure_bots(table)
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                if not conn.allow(self.rate_limit, time.monotonic()):
                    conn.error(
                        "rate_limited",
                        f"more than {self.rate_limit} messages a second: this one was ignored",
                    )
                    continue
                try:
                    await self._handle(table, conn, frame_text(message))
                except TableError as exc:
                    conn.push_json(exc.to_json(conn.language))
                if writer.done():
                    break
        except WebSocketDisconnect:
            pass
        finally:
            self.manager.detach(table, conn)
            if not writer.done():
                writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await writer

    async def _handle(self, table: Table, conn: Connection, text: str) -> None:
        data = parse_message(text)
        kind = data["type"]
        if kind == "sync":
            conn.push_json(table.view_message(conn.seat))
        elif kind == "act":
            await self.manager.act(table, conn.seat, data["version"], data["action"])
        else:
            await self._hint(table, conn)

    async def _hint(self, table: Table, conn: Connection) -> None:
        from tapete.bots import Reason, suggest

        seat = conn.seat
        if seat is None or table.game.over or table.game.turn != seat:
            raise TableError("not_your_turn", "a hint is for the seat to act, when it is its turn")
        version = table.version
        view = table.game.view(seat)
        try:
            action, reason = await asyncio.wait_for(
                asyncio.to_thread(suggest, table.game_name, view, key=table.id),
                timeout=self.hint_timeout_s,
            )
            data = action if isinstance(action, dict) else action.to_json()
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: no hint for seat %d", table.id, seat)
            data, reason = view["legal"][0], Reason("no_suggestion")
        conn.push_json(
            {
                "type": "hint",
                "version": version,
                "action": data,
                "reason": str(reason),
                "reason_key": reason.key,
                "reason_args": reason.wire_args(),
            }
        )


def create_app(
    db_url: str | None = None,
    delay_ms: int = 700,
    *,
    bot_timeout_s: float = 15.0,
    hint_timeout_s: float = 15.0,
    rate_limit: int = 20,
    review: ReviewSettings | None = None,
    web_dir: str | Path | None = None,
) -> Starlette:
    """The Tapete server app. ``db_url``: a SQLAlchemy URL (default: SQLite in the user data
    folder); the schema is upgraded to the newest migration here. ``delay_ms``: the pause
    before each computer move (0 in tests)."""
    engine = make_engine(db_url or default_db_url())
    upgrade(engine)
    manager = TableManager(engine, delay_ms=delay_ms, bot_timeout_s=bot_timeout_s)
    server = Server(
        manager,
        delay_ms=delay_ms,
        rate_limit=rate_limit,
        hint_timeout_s=hint_timeout_s,
        web_dir=Path(web_dir) if web_dir is not None else WEB_DIR,
    )

    from tapete.server.review import ReviewService

    reviews = ReviewService(manager, review)  # deal reviews (``review``: their settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        resumed = manager.resume_all()
        if resumed:
            log.info("resumed %d unfinished table(s)", resumed)
        try:
            yield
        finally:
            await reviews.close()
            await manager.close()
            engine.dispose()

    routes = [
        Route("/", server.index),
        Route("/api/config", server.config),
        Route("/api/tables", server.create_table, methods=["POST"]),
        Route("/api/tables", server.list_tables, methods=["GET"]),
        Route("/api/tables/live", server.live_tables),
        Route("/api/tables/{table_id}", server.table_info),
        Route("/api/tables/{table_id}/record", server.table_record),
        Route("/api/tables/{table_id}/review/{deal}", reviews.endpoint),
        Route("/api/stats", server.player_stats),
        Route("/api/ranking", server.ranking),
        Route("/rules/{profile}", server.rules),
        WebSocketRoute("/ws/{table_id}", server.websocket),
        Mount("/static", WebFiles(directory=server.web_dir, check_dir=False), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.server = server
    app.state.reviews = reviews
    app.state.manager = manager
    return app


def run_serve(
    host: str = "127.0.0.1", port: int = 8000, db: str | None = None, delay_ms: int = 700
) -> int:
    """``tapete serve``: print the address and the database, then serve until Ctrl-C."""
    import uvicorn

    from tapete.server.db import default_db_path

    url = db or default_db_url()
    where = str(default_db_path()) if db is None else db
    app = create_app(url, delay_ms)
    if host in ("0.0.0.0", "::", ""):
        print(
            f"Tapete is running: open http://127.0.0.1:{port}/ in your browser "
            f"(from other machines: http://<this machine's address>:{port}/)"
        )
    else:
        shown = f"[{host}]" if ":" in host else host
        print(f"Tapete is running: open http://{shown}:{port}/ in your browser")
    print(f"Database: {where}")
    print("Press Ctrl-C to stop.")
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    uvicorn.run(app, host=host, port=port, ws_max_size=65536, log_level="warning")
    return 0
