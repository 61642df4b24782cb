"""The ASGI app: HTTP API, the table WebSocket, rules pages and the static web client.

See docs/dev/protocol.md for the protocol and docs/server.md for running it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import signal
import socket
import threading
import time
from collections import deque
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Coroutine,
    Generator,
    Iterable,
    Mapping,
)
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.types import Scope
from starlette.websockets import WebSocket, WebSocketDisconnect

from tapete.bots.reasons import Reason
from tapete.game import JSON, GameKind
from tapete.games import GAMES, kind, kinds
from tapete.names import MAX_NAME_CHARS, MixedScriptsError, one_script, squeeze
from tapete.server import ratings, stats
from tapete.server.accounts import Accounts, AccountSettings, Identity
from tapete.server.clock import ClockSettings, ClockSettingsError
from tapete.server.connections import SEND_TEXT
from tapete.server.db import BUSY_ERRORS, default_db_url, make_engine, upgrade
from tapete.server.hints import HintPool
from tapete.server.i18n import LANGUAGES, NOT_FOUND, preferred_language
from tapete.server.limits import (
    Limits,
    RefusalLog,
    TokenBucket,
    TokenBuckets,
    parse_count,
    path_number,
)
from tapete.server.openapi import openapi_document
from tapete.server.players import PlayerPages
from tapete.server.replay_view import ReplayService, ReplaySettings
from tapete.server.rules import rules_page
from tapete.server.security import (
    LOOPBACK_HOSTS,
    SUBPROTOCOL,
    Guard,
    TrustedProxies,
    hosts_and_origins,
    json_problem,
    load_json_body,
    seat_token,
)
from tapete.server.tables import Table, TableError, TableManager, message_text

if TYPE_CHECKING:
    from tapete.server.review import ReviewSettings

__all__ = ["LANGUAGES", "MAX_MESSAGE_BYTES", "create_app", "run_serve"]

log = logging.getLogger("tapete.server")

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
LEVELS = ("random", "beginner", "rules", "search")
MAX_MESSAGE_BYTES = 4096
MAX_BODY_BYTES = 16384
RULES_PROFILES = tuple(p for k in kinds() for p in k.profiles)


def _error(status: int, message: str, code: str | None = None) -> JSONResponse:
    """An HTTP refusal: ``error`` the English sentence; ``code`` (when the refusal is one a
    person meets in normal use: a rated table for a guest, a full table) the key a client
    words it by, in the person's language (web/i18n ``err_<code>``)."""
    body = {"error": message} if code is None else {"error": message, "code": code}
    return JSONResponse(body, status_code=status)


class BadRequest(Exception):
    def __init__(self, message: str, status: int = 400, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code


# ---------------------------------------------------------------------- body validation


def _check_name(value: Any, what: str = "name") -> str:
    """A player's name as given (a query's, to find a player: any name ever played under)."""
    if not isinstance(value, str):
        raise BadRequest(f"'{what}' must be a string (the player's name)")
    name = squeeze(value)
    if not name:
        raise BadRequest(f"'{what}' must not be empty")
    if len(name) > MAX_NAME_CHARS:
        raise BadRequest(f"'{what}' must be at most {MAX_NAME_CHARS} characters")
    if not name.isprintable():
        raise BadRequest(f"'{what}' must not contain control characters")
    return name


def _new_name(value: Any, what: str = "name") -> str:
    """A name someone plays under from now (a new table's, a seat's, a quick game's):
    :func:`_check_name`, in one script (``tapete.names.one_script``, the rule an account's
    name follows too), so that it cannot pass for another name."""
    try:
        return one_script(_check_name(value, what), f"'{what}'")
    except MixedScriptsError as exc:
        raise BadRequest(str(exc), code=exc.code) from None


def _choice(data: dict[str, Any], key: str, choices: Any, default: Any = None) -> str | None:
    """``data[key]`` if it is a string among ``choices`` (a list or an object is not:
    comparing it with the choices must not raise)."""
    value = data.get(key, default)
    if isinstance(value, str) and value in choices:
        return value
    return None


def parse_new_table(body: bytes, *, max_deals_limit: int = 10_000) -> dict[str, Any]:
    """Validate the body of ``POST /api/tables``; raise :class:`BadRequest` with a sentence."""
    if len(body) > MAX_BODY_BYTES:
        raise BadRequest(f"the request body is larger than {MAX_BODY_BYTES} bytes", 413)
    try:
        data = load_json_body(body)
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    allowed = {"game", "profile", "name", "language", "levels", "seed", "max_deals", *ROOM_FIELDS}
    extra = sorted(set(data) - allowed)
    if extra:
        raise BadRequest(
            f"unknown field(s) {', '.join(map(repr, extra))}; expected {', '.join(sorted(allowed))}"
        )
    game = _choice(data, "game", GAMES)
    if game is None:
        raise BadRequest(
            f"'game' must be one of {', '.join(GAMES)}, got {_shown(data.get('game'))}"
        )
    game_kind = kind(game)
    profile = _choice(data, "profile", game_kind.profiles, game_kind.profiles[0])
    if profile is None:
        profile = _shown(data.get("profile"))
        raise BadRequest(
            f"'profile' must be one of {', '.join(game_kind.profiles)} for {game}, got {profile}"
        )
    if "name" not in data:
        raise BadRequest("'name' is missing (the player's name)")
    name = _new_name(data["name"])
    language = _choice(data, "language", LANGUAGES, "es")
    if language is None:
        raise BadRequest(
            f"'language' must be one of {', '.join(LANGUAGES)}, got {_shown(data.get('language'))}"
        )
    computers = game_kind.seats - 1
    if "seats" in data and "levels" in data:
        raise BadRequest("give 'seats' or 'levels', not both")
    room = parse_room_fields(data, game, game_kind.seats)
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
        isinstance(max_deals, bool)
        or not isinstance(max_deals, int)
        or not 1 <= max_deals <= max_deals_limit
    ):
        raise BadRequest(f"'max_deals' must be a whole number from 1 to {max_deals_limit}")
    out = {
        "game": game,
        "profile": profile,
        "name": name,
        "language": language,
        "levels": list(levels),
        "seed": seed,
        "max_deals": max_deals,
        **room,
    }
    if "seats" in room:
        del out["levels"]
    return out


#: the room's fields of ``POST /api/tables`` (docs/dev/protocol.md, "The online room")
ROOM_FIELDS = ("seats", "rated", "spectators", "spectator_delay", "public", "clock")
SEAT_CHOICES = ("me", "open", "invited", "computer")
MAX_SPECTATOR_DELAY = 100


def _flag(data: dict[str, Any], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise BadRequest(f"'{key}' must be true or false, got {_shown(value)}")
    return value


def parse_room_fields(data: dict[str, Any], game: str, count: int) -> dict[str, Any]:
    """The room's options of a new table (``seats``, ``rated``, ``spectators``,
    ``spectator_delay``, ``public``), as :meth:`TableManager.create` takes them; only the
    ones given."""
    out: dict[str, Any] = {}
    if "seats" in data:
        raw = data["seats"]
        if not isinstance(raw, list) or len(raw) != count:
            raise BadRequest(f"'seats' must be a list of {count} seat(s) for {game}")
        seats: list[tuple[str, str | None]] = []
        for n, item in enumerate(raw):
            if not isinstance(item, dict) or set(item) - {"kind", "level"}:
                raise BadRequest(f"seat {n} must be an object with 'kind' (and 'level')")
            k = _choice(item, "kind", SEAT_CHOICES)
            if k is None:
                raise BadRequest(
                    f"seat {n}: 'kind' must be one of {', '.join(SEAT_CHOICES)}, "
                    f"got {_shown(item.get('kind'))}"
                )
            level = None
            if k == "computer":
                level = _choice(item, "level", LEVELS, "rules")
                if level is None:
                    raise BadRequest(f"seat {n}: 'level' must be one of {', '.join(LEVELS)}")
            elif "level" in item:
                raise BadRequest(f"seat {n}: only a computer seat has a 'level'")
            seats.append((k, level))
        if sum(k == "me" for k, _ in seats) != 1:
            raise BadRequest(
                'exactly one seat must be yours: {"kind": "me"}', code="one_seat_yours"
            )
        out["seats"] = seats
    for key, name in (("rated", "rated"), ("spectators", "spectators"), ("public", "listed")):
        if key in data:
            out[name] = _flag(data, key, key == "spectators")
    if "spectator_delay" in data:
        delay = data["spectator_delay"]
        if isinstance(delay, bool) or not isinstance(delay, int) or not 0 <= delay <= 100:
            raise BadRequest(
                f"'spectator_delay' must be a whole number of actions from 0 to "
                f"{MAX_SPECTATOR_DELAY}",
                code="bad_spectator_delay",
            )
        out["spectator_delay"] = delay
    if data.get("clock") is not None:
        try:
            out["clock"] = ClockSettings.from_json(data["clock"]).to_json()
        except ClockSettingsError as exc:
            raise BadRequest(str(exc)) from None
    if out.get("rated") and any(k == "computer" for k, _ in out.get("seats", ())):
        # (the manager refuses it too, as bad_table: a code of its own lets the page say it
        # in its language instead of the English sentence)
        raise BadRequest(
            "a rated table has people at every seat, no computer", code="rated_computer"
        )
    if out.get("listed") and "seats" in out and not any(k == "open" for k, _ in out["seats"]):
        raise BadRequest(
            "a public table needs an open seat ('kind': 'open')", code="public_needs_open"
        )
    return out


def parse_json_body(body: bytes, allowed: set[str]) -> dict[str, Any]:
    """A small JSON object body with only ``allowed`` keys; :class:`BadRequest` otherwise."""
    if len(body) > MAX_BODY_BYTES:
        raise BadRequest(f"the request body is larger than {MAX_BODY_BYTES} bytes", 413)
    try:
        data = load_json_body(body or b"{}")
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    extra = sorted(set(data) - allowed)
    if extra:
        raise BadRequest(
            f"unknown field(s) {', '.join(map(repr, extra))}; expected {', '.join(sorted(allowed))}"
        )
    return data


def known_parameters(request: Request, known: tuple[str, ...]) -> None:
    """Refuse a query parameter that is not one of ``known`` (a mistyped ``limt=5`` would
    silently give the default page): :class:`BadRequest` naming it and the known ones."""
    unknown = sorted(set(request.query_params) - set(known))
    if unknown:
        raise BadRequest(f"unknown parameter(s) {', '.join(unknown)}: {', '.join(known)}")


def user_of(scope: Mapping[str, Any]) -> Any:
    """The signed-in user (the accounts middleware's ``scope["state"]["user"]``), or None."""
    state = scope.get("state")
    return state.get("user") if isinstance(state, dict) else None


def person_of(scope: Mapping[str, Any], data: dict[str, Any]) -> tuple[Any, str]:
    """Who sits down: the signed-in user and their name, or no user and the body's ``name``
    (:class:`BadRequest` when a guest gives none or a bad one)."""
    user = user_of(scope)
    if user is not None:
        return user, str(user.name)
    if "name" not in data:
        raise BadRequest("'name' is missing (the player's name)")
    return None, _new_name(data["name"])


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


def _shown(value: Any) -> str:
    """A refused value for a message: its repr, cut short."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def table_id_of(raw: str) -> int | None:
    """A table id from a path: ASCII digits only (``²`` is no number and ``١`` is not 1)."""
    return path_number(raw, 18)


# ---------------------------------------------------------------------- WebSocket


class _Resume:
    """Awaiting this finishes ``coro``, a coroutine started by hand (``coro.send(None)``)
    that suspended on ``yielded``: the rest of it runs as the awaiting task's, exactly as
    if the task had started it (Python 3.12's eager tasks do the same)."""

    def __init__(self, coro: Coroutine[Any, Any, None], yielded: Any) -> None:
        self.coro = coro
        self.yielded = yielded

    def __await__(self) -> Generator[Any, Any, None]:
        coro, yielded = self.coro, self.yielded
        while True:
            try:
                value = yield yielded
            except BaseException as exc:  # (a cancellation: into the coroutine)
                try:
                    yielded = coro.throw(exc)
                except StopIteration:
                    return
                continue
            try:
                yielded = coro.send(value)
            except StopIteration:
                return


class Connection:
    """One WebSocket at a table (or the lobby): a message is written at once when nothing
    waits before it, else it joins an outbox that a task drains, so that broadcasts never
    wait for a slow client and messages keep their order.

    Writing at once: a WebSocket send (Starlette, then uvicorn) only suspends when the
    socket's buffer is full; started by hand, it finishes without a task, a queue or a
    future. A writer task that waited on a queue made a new wait (coroutine, future) after
    every message, and at 1,000 tables those waits outlived the collector's young
    generation, whose pauses were the p99 latency (docs/benchmarks.md, "Online room
    load"). A send that does suspend goes on in a task, and later messages queue behind it
    (at most ``max_queue``: past that the client is not reading, and the socket is closed
    with 1008). A socket whose buffer stays full for ``Limits.ws_write_stall_s`` is closed
    by the server's protocol (``connections.LeanWebSocket``): the handler then reads its
    disconnect, and :meth:`finish` stops the send that waited."""

    def __init__(self, websocket: WebSocket, max_queue: int, language: str = "en") -> None:
        self.websocket = websocket
        #: the server's way to write a text message at once, when it offers one (uvicorn
        #: with ``connections.LeanWebSocket``; not under Starlette's TestClient)
        extensions = websocket.scope.get("extensions") or {}
        self.send_now: Callable[[str], bool] | None = extensions.get(SEND_TEXT)
        self.language = language
        self.seat: int | None = None
        #: sent patches after its first view (``patches=1``: tapete.server.patches)
        self.patches = False
        #: messages (or a close code) waiting behind a send that suspended
        self.outbox: deque[str | int] = deque()
        self.max_queue = max_queue
        #: the task finishing a suspended send and the outbox after it (None: idle)
        self.draining: asyncio.Task[None] | None = None
        self.window: deque[float] = deque()
        self.overflowed = False
        #: the connection closed itself or a write failed: its handler stops reading
        self.ended = False
        #: chat lines this connection may still send (made at its first line)
        self.chat: TokenBucket | None = None

    def push(self, text: str) -> None:
        if self.overflowed:
            return
        if self.draining is not None:
            if len(self.outbox) >= self.max_queue:
                # a client that does not read: stop writing to it and close
                self.overflowed = True
                self.outbox.append(1008)
                return
            self.outbox.append(text)
            return
        if self.send_now is not None and self.send_now(text):
            return  # written (else: the ASGI send, which waits for the socket or fails)
        coro = self.websocket.send_text(text)
        try:
            yielded = coro.send(None)
        except StopIteration:
            return  # written
        except Exception:  # (the client is gone: its handler reads the disconnect)
            self.overflowed = self.ended = True
            return
        self.draining = asyncio.ensure_future(self._drain(_Resume(coro, yielded)))

    def close(self, code: int = 1011) -> None:
        """Close after the messages already queued (the server could not go on)."""
        self.overflowed = True
        self.outbox.append(code)
        if self.draining is None:
            self.draining = asyncio.ensure_future(self._drain(None))

    async def _drain(self, pending: _Resume | None) -> None:
        try:
            if pending is not None:
                await pending
            while self.outbox:
                item = self.outbox.popleft()
                if isinstance(item, int):
                    self.ended = True
                    with contextlib.suppress(Exception):
                        await self.websocket.close(code=item)
                    return
                await self.websocket.send_text(item)
        except Exception:
            self.overflowed = self.ended = True
        finally:
            self.draining = None

    async def finish(self) -> None:
        """(The handler, once the socket is done) stop a send still under way."""
        task = self.draining
        self.overflowed = self.ended = True
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.draining = None

    def push_json(self, message: dict[str, Any]) -> None:
        self.push(message_text(message))

    def error(self, code: str, message: str) -> None:
        self.push_json(TableError(code, message).to_json(self.language))

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


#: a run of digits orjson may read as a float where the standard library reads an integer:
#: 20 digits or more, or 19 below -2**63 (orjson's integers are 64 bits, signed or unsigned)
_LONG_NUMBER = re.compile(r"\d{19}")


def read_json(text: str) -> Any:
    """``json.loads(text)``, the same values and the same errors, faster: orjson reads the
    common message in a fraction of the time; what it reads differently (an integer of 19
    digits or more may be a float there) or refuses (NaN, lone surrogates, deep nesting, bad JSON)
    the standard library reads."""
    if not _LONG_NUMBER.search(text):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


def parse_message(text: str) -> dict[str, Any]:
    """A client message as a dict; raise :class:`TableError` for anything malformed."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_MESSAGE_BYTES:
        raise TableError("too_large", f"a message must be at most {MAX_MESSAGE_BYTES} bytes")
    try:
        data = read_json(text)
    except (ValueError, RecursionError) as exc:
        raise TableError("bad_json", f"the message is not valid JSON{json_problem(exc)}") from None
    if not isinstance(data, dict):
        raise TableError("bad_message", "a message must be a JSON object")
    kind = data.get("type")
    if not isinstance(kind, str):
        raise TableError("bad_message", "a message needs a string 'type': act, hint or sync")
    expected = {
        "act": {"type", "version", "action"},
        "hint": {"type"},
        "sync": {"type"},
        "chat": {"type", "text"},
        "back": {"type"},
    }
    if kind not in expected:
        raise TableError(
            "bad_message", f"unknown message type {kind!r}: act, hint, sync, chat or back"
        )
    keys = set(data)
    if kind == "sync" and "since" in data:
        keys.discard("since")
        since = data["since"]
        if isinstance(since, bool) or not isinstance(since, int) or since < 0:
            raise TableError("bad_message", "'since' must be a version: a whole number >= 0")
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
        limits: Limits | None = None,
    ) -> None:
        self.manager = manager
        self.delay_ms = delay_ms
        self.rate_limit = rate_limit
        self.hint_timeout_s = hint_timeout_s
        self.web_dir = web_dir
        self.limits = limits or Limits()
        #: hints per (table, seat)
        self.hints = TokenBuckets(self.limits.hint_burst, self.limits.hint_refill_s)

        #: client address -> its open lobby WebSockets
        self.lobby_by_client: dict[str, int] = {}
        #: (list, parameters) -> (time it expires, the page)
        self.list_cache: dict[tuple[Any, ...], tuple[float, Any]] = {}
        #: the workers that compute hints (the computer players have their own)
        self.hint_pool = HintPool(
            processes=self.limits.hint_processes,
            threads=self.limits.hint_workers,
            max_pending=self.limits.max_pending_hints,
        )

    # ------------------------------------------------------------------ HTTP

    async def config(self, request: Request) -> Response:
        return JSONResponse(
            {
                "kinds": [kind_json(k) for k in kinds()],
                "levels": list(LEVELS),
                "languages": list(LANGUAGES),
                "default_delay_ms": self.delay_ms,
                # the clock of the tables created without one (null: no clock; the
                # Lobby's new-table form starts from it)
                "default_clock": self.manager.default_clock,
            }
        )

    async def openapi(self, request: Request) -> Response:
        return JSONResponse(openapi_document(self.limits))

    async def create_table(self, request: Request) -> Response:
        body = await request.body()
        try:
            args = parse_new_table(body, max_deals_limit=self.limits.max_deals)
        except BadRequest as exc:
            return _error(exc.status, exc.message, exc.code)
        user = user_of(request.scope)
        if user is not None:
            args["name"] = str(user.name)
        try:
            new = self.manager.new_table(**args, user_id=None if user is None else int(user.id))
        except TableError as exc:
            return _error(403 if exc.code == "rated_guest" else 400, exc.message, exc.code)
        table = await self.manager.open_table(new)
        self.manager.ensure_bots(table)
        seat = table.seat_for_token(table.token)
        return JSONResponse(
            {
                "table": table.id,
                "seat": seat,
                "token": table.token,
                "ranked": table.ranked,
                "status": table.status,
                "invite": table.invite,
                "rated": table.rated,
            },
            201,
        )

    # ------------------------------------------------------------------ the room

    def _seated(self, table: Table, seat: int) -> Response:
        return JSONResponse(
            {
                "table": table.id,
                "seat": seat,
                "token": table.seats[seat].token,
                # (the name seated under: a guest's numbered at a quick table, "Ana 2")
                "name": table.players[seat],
                "status": table.status,
                "game": table.game_name,
                "profile": table.profile,
                "ranked": table.ranked,
                "rated": table.rated,
            },
            201,
        )

    async def sit_down(self, request: Request) -> Response:
        """``POST /api/tables/{id}/seats``: take a free seat."""
        table_id = self._table_id(request)
        try:
            data = parse_json_body(await request.body(), {"name", "invite", "seat"})
            user, name = person_of(request.scope, data)
            invite = data.get("invite")
            if invite is not None and not isinstance(invite, str):
                raise BadRequest("'invite' must be a string (the invitation code)")
            seat = data.get("seat")
            if seat is not None and (isinstance(seat, bool) or not isinstance(seat, int)):
                raise BadRequest("'seat' must be a seat number")
        except BadRequest as exc:
            return _error(exc.status, exc.message, exc.code)
        if table_id is None:
            return _error(404, "there is no such table")
        try:
            table, taken = await self.manager.sit(
                table_id,
                name=name,
                user_id=None if user is None else int(user.id),
                invite=invite,
                seat=seat,
            )
        except TableError as exc:
            status = {"unknown_table": 404, "rated_guest": 403, "bad_invite": 403, "bad_seat": 400}
            return _error(status.get(exc.code, 409), exc.message, exc.code)
        return self._seated(table, taken)

    async def invitation(self, request: Request) -> Response:
        """``GET /api/invitations/{code}``: the table an invitation leads to."""
        code = request.path_params["code"]
        table_id = await self.manager.db.run(self.manager.find_invite, code)
        info = None if table_id is None else await self.manager.info(table_id, None)
        if info is None:
            return _error(404, "there is no such invitation")
        return JSONResponse({**info, "invite": code})

    async def lobby(self, request: Request) -> Response:
        return await self._cached(("lobby",), self.manager.lobby_page)

    async def quick(self, request: Request) -> Response:
        """``POST /api/quick``: a seat at an open table of that game, or a new one."""
        try:
            data = parse_json_body(
                await request.body(), {"game", "profile", "name", "language", "fill_after_s"}
            )
            game = _choice(data, "game", GAMES)
            if game is None:
                raise BadRequest(f"'game' must be one of {', '.join(GAMES)}")
            game_kind = kind(game)
            profile = _choice(data, "profile", game_kind.profiles, game_kind.profiles[0])
            if profile is None:
                raise BadRequest(f"'profile' must be one of {', '.join(game_kind.profiles)}")
            user, name = person_of(request.scope, data)
            language = _choice(data, "language", LANGUAGES, "es")
            if language is None:
                raise BadRequest(f"'language' must be one of {', '.join(LANGUAGES)}")
            fill = data.get("fill_after_s", 30)
            if fill is not None and (
                isinstance(fill, bool) or not isinstance(fill, int | float) or not 0 <= fill <= 3600
            ):
                raise BadRequest(
                    "'fill_after_s' must be a number of seconds from 0 to 3600, or null"
                )
        except BadRequest as exc:
            return _error(exc.status, exc.message, exc.code)
        table, seat = await self.manager.quick(
            game=game,
            profile=profile,
            name=name,
            language=language,
            user_id=None if user is None else int(user.id),
            fill_after_s=None if fill is None else float(fill),
        )
        return self._seated(table, seat)

    async def lobby_socket(self, websocket: WebSocket) -> None:
        """``/ws/lobby``: the lobby now, then again after every change (at most five times
        a second). The socket takes no messages; its refusal is in ``?lang=``'s language."""
        await websocket.accept()
        await _unless_busy(websocket, self._lobby_socket(websocket))

    async def _lobby_socket(self, websocket: WebSocket) -> None:
        manager, limits = self.manager, self.limits
        address = websocket.client.host if websocket.client else "unknown"
        mine = self.lobby_by_client.get(address, 0)
        refusal = None
        if mine >= limits.max_lobby_sockets_per_client:
            refusal = f"your address already has {mine} lobby connections"
        elif len(manager.lobby_listeners) >= limits.max_lobby_sockets:
            refusal = f"the lobby already has {limits.max_lobby_sockets} connections"
        if refusal is not None:
            lang = websocket.query_params.get("lang", "en")  # (the lobby has no language)
            await websocket.send_json(TableError("too_many", refusal).to_json(lang))
            await websocket.close(code=1013)
            return
        conn = Connection(websocket, self.manager.max_queue)
        self.lobby_by_client[address] = mine + 1
        try:
            await manager.open_lobby(conn)  # (counted among the lobby's sockets at once)
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect" or conn.ended:
                    break
                if conn.allow(self.rate_limit, time.monotonic()):
                    conn.error("bad_message", "the lobby socket takes no messages")
        except WebSocketDisconnect:
            pass
        finally:
            manager.lobby_listeners.discard(conn)
            if self.lobby_by_client[address] > 1:
                self.lobby_by_client[address] -= 1
            else:
                del self.lobby_by_client[address]
            await conn.finish()

    def _table_id(self, request: Request) -> int | None:
        return table_id_of(request.path_params["table_id"])

    async def table_info(self, request: Request) -> Response:
        table_id = self._table_id(request)
        token = seat_token(request)
        info = None if table_id is None else await self.manager.info(table_id, token)
        if info is None:
            return _error(404, "there is no such table")
        if token and info["seat"] is None:
            return _error(403, "this token does not belong to this table")
        return JSONResponse(info)

    async def table_record(self, request: Request) -> Response:
        table_id = self._table_id(request)
        if table_id is None:
            return _error(404, "there is no such table")
        token = seat_token(request)
        # built in a worker thread once no action of the table is being written
        loaded = await self.manager.record_of(table_id)
        if loaded is None:
            return _error(404, "there is no such table")
        table, record = loaded
        # (the end window's download link sends no token)
        if not table.ended and table.seat_for_token(token) is None:
            return _error(403, "the record of an unfinished game needs the table's token")
        return JSONResponse(
            record,
            headers={"Content-Disposition": f'attachment; filename="tapete-{table.id}.json"'},
        )

    async def table_ratings(self, request: Request) -> Response:
        """``GET /api/tables/{id}/ratings``: the rating changes of a rated table's game
        (stored with the game's end, so there once the last move's view is out)."""
        table_id = self._table_id(request)
        manager = self.manager
        found = (
            None
            if table_id is None
            else await manager.db.read(manager.sessions, ratings.table_ratings, table_id)
        )
        if found is None:
            return _error(404, "there is no such table")
        return JSONResponse(found)

    async def _cached(self, key: tuple[Any, ...], make: Callable[[], Awaitable[Any]]) -> Response:
        """``await make()``'s page, kept for ``list_cache_s`` seconds under ``key``."""
        now = time.monotonic()
        hit = self.list_cache.get(key)
        if hit is not None and hit[0] > now:
            return JSONResponse(hit[1])
        page = await make()
        now = time.monotonic()
        if self.limits.list_cache_s > 0:
            if len(self.list_cache) >= 1024:
                self.list_cache.clear()
            self.list_cache[key] = (now + self.limits.list_cache_s, page)
        return JSONResponse(page)

    def _page(
        self, request: Request, default: int, others: tuple[str, ...] = ()
    ) -> tuple[int, int | None]:
        """``limit`` (1 to the page bound) and ``before`` (a table id: the page holds older
        tables only) from the query, which holds no parameter but those and ``others``;
        raise :class:`BadRequest`."""
        q = request.query_params
        known_parameters(request, (*others, "limit", "before"))
        try:
            limit = parse_count(
                q.get("limit"), "limit", low=1, high=self.limits.max_page, default=default
            )
            before = q.get("before")
            cursor = (
                None
                if before is None
                else parse_count(before, "before", low=1, high=10**18 - 1, default=0)
            )
        except ValueError as exc:
            raise BadRequest(str(exc)) from None
        return limit, cursor

    async def list_tables(self, request: Request) -> Response:
        try:
            limit, before = self._page(request, 50, ("name",))
            name = _check_name(request.query_params.get("name"))
        except BadRequest as exc:
            return _error(400, exc.message)
        return await self._cached(
            ("tables", name, limit, before),
            lambda: self.manager.db.run(self.manager.list_tables, name, limit=limit, before=before),
        )

    async def live_tables(self, request: Request) -> Response:
        try:
            limit, before = self._page(request, 30)
        except BadRequest as exc:
            return _error(400, exc.message)
        return await self._cached(
            ("live", limit, before),
            lambda: self.manager.db.run(self.manager.live_tables, limit, before=before),
        )

    async def player_stats(self, request: Request) -> Response:
        try:
            known_parameters(request, ("name",))
            name = _check_name(request.query_params.get("name"))
        except BadRequest as exc:
            return _error(400, exc.message)
        manager = self.manager
        return JSONResponse(await manager.db.read(manager.sessions, stats.player_stats, name))

    async def ranking(self, request: Request) -> Response:
        q = request.query_params
        try:
            known_parameters(request, ("target", "game", "limit", "offset"))
        except BadRequest as exc:
            return _error(400, exc.message)
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
        try:
            limit = parse_count(
                q.get("limit"), "limit", low=1, high=self.limits.max_page, default=20
            )
            offset = parse_count(q.get("offset"), "offset", low=0, high=100_000, default=0)
        except ValueError as exc:
            return _error(400, str(exc))
        manager = self.manager
        return await self._cached(
            ("ranking", game, target, limit, offset),
            lambda: manager.db.read(
                manager.sessions, stats.ranking, game, target, limit, offset=offset
            ),
        )

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
        # (a client that offers the "tapete" subprotocol gets it back: a browser that
        # offered its token as a subprotocol closes a socket that answers none)
        offered = websocket.scope.get("subprotocols", ())
        await websocket.accept(subprotocol=SUBPROTOCOL if SUBPROTOCOL in offered else None)
        await _unless_busy(websocket, self._table_socket(websocket))

    async def _table_socket(self, websocket: WebSocket) -> None:
        table_id = table_id_of(websocket.path_params["table_id"])
        table = None if table_id is None else await self.manager.load(table_id)
        lang = websocket.query_params.get("lang", "en")
        lang = lang if lang in LANGUAGES else "en"
        if table is None:
            error = TableError("unknown_table", "there is no such table")
            await websocket.send_json(error.to_json(lang))
            await websocket.close(code=4404)
            return
        if len(table.listeners) >= self.limits.max_sockets_per_table:
            error = TableError(
                "too_many",
                f"this table already has {self.limits.max_sockets_per_table} connections",
            )
            self.manager.release(table)  # (loaded for this socket only)
            await websocket.send_json(error.to_json(table.language))
            await websocket.close(code=1013)  # try again later
            return
        conn = Connection(websocket, self.manager.max_queue, table.language)
        token = seat_token(websocket)
        conn.seat = table.seat_for_token(token)
        if token and conn.seat is None:
            conn.error("bad_token", "this token does not belong to this table: you are watching")
        patches = websocket.query_params.get("patches", "0")
        conn.patches = patches == "1"
        if patches not in ("0", "1"):
            conn.error("bad_message", f"patches={patches[:20]!r} must be 0 or 1: whole views")
        if conn.seat is None and not table.spectators:
            error = TableError("no_spectators", "this table does not allow spectators")
            self.manager.release(table)  # (loaded for this socket only)
            await websocket.send_json(error.to_json(table.language))
            await websocket.close(code=4403)
            return
        table = await self.manager.settled_in_memory(table)
        table = self.manager.attach(table, conn)  # (the one in memory now)
        self.manager.ensure_bots(table)
        if conn.seat is not None:
            self.manager.mark_opened(table)
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
                if conn.ended:
                    break
        except WebSocketDisconnect:
            pass
        finally:
            self.manager.detach(table, conn)
            await conn.finish()

    async def _handle(self, table: Table, conn: Connection, text: str) -> None:
        data = parse_message(text)
        kind = data["type"]
        if kind != "sync":
            self.manager.active(table, conn.seat)  # (a seat taken over is the person's again)
        if kind == "back":
            return
        if kind == "sync":
            await self.manager.settled(table)
            self.manager.resync(table, conn, data.get("since"))
        elif kind == "chat":
            if conn.chat is None:
                conn.chat = TokenBucket(
                    self.limits.chat_burst, self.limits.chat_refill_s, time.monotonic()
                )
            if conn.seat is not None and conn.chat.take(time.monotonic()):
                raise TableError(
                    "rate_limited", "more chat messages than the table allows: wait a moment"
                )
            await self.manager.say(table, conn.seat, data["text"])
        elif kind == "act":
            await self.manager.act(table, conn.seat, data["version"], data["action"])
        else:
            await self._hint(table, conn)

    async def _hint(self, table: Table, conn: Connection) -> None:
        seat = conn.seat
        await self.manager.settled(table)
        if seat is not None:  # (a hint at a waiting table would tell of the hand)
            table.check_started()
        if seat is None or table.game.over or table.game.turn != seat:
            raise TableError("not_your_turn", "a hint is for the seat to act, when it is its turn")
        wait = self.hints.take((table.id, seat))
        if wait:
            raise TableError(
                "rate_limited",
                f"more than {self.limits.hint_burst} hints in a short time: ask again in "
                f"{max(1, round(wait))} s",
            )
        if self.hint_pool.busy():
            raise TableError(
                "rate_limited", "the server is busy with other hints: ask again in a moment"
            )
        version = table.version
        view = table.game.view(seat)
        try:
            payload = await self.hint_pool.hint(
                table.game_name, view, table.id, self.hint_timeout_s
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table %s: no hint for seat %d", table.id, seat)
            reason = Reason("no_suggestion")
            payload = {
                "action": view["legal"][0],
                "reason": str(reason),
                "reason_key": reason.key,
                "reason_args": reason.wire_args(),
            }
        conn.push_json({"type": "hint", "version": version, **payload})


def create_app(
    db_url: str | None = None,
    delay_ms: int = 700,
    *,
    bot_timeout_s: float = 15.0,
    hint_timeout_s: float = 15.0,
    rate_limit: int = 20,
    review: ReviewSettings | None = None,
    replay: ReplaySettings | None = None,
    web_dir: str | Path | None = None,
    limits: Limits | None = None,
    trusted_hosts: Iterable[str] | None = None,
    allowed_origins: Iterable[str] = (),
    secure_cookies: bool = False,
    trusted_proxies: Iterable[str] = (),
    clock: ClockSettings | None = None,
) -> Starlette:
    """The Tapete server app. ``db_url``: a SQLAlchemy URL (default: SQLite in the user data
    folder; or PostgreSQL, docs/server.md "PostgreSQL"); the schema is upgraded to the newest
    migration here (:class:`~tapete.server.db.DatabaseError` when the database cannot be
    reached). ``delay_ms``: the pause
    before each computer move (0 in tests). ``limits``: what a client may make the server
    spend (:class:`~tapete.server.limits.Limits`); ``trusted_hosts``: the names in ``Host``
    that the server answers to (None: any); ``allowed_origins``: other sites whose pages
    may open the table WebSocket (the server's own origin always may); ``trusted_proxies``:
    the reverse proxies (addresses or networks) whose ``X-Forwarded-For`` names the client
    that the per-address limits count (none: the peer's address); ``secure_cookies``:
    the session cookie always carries ``Secure`` (behind an https proxy); ``clock``: the
    clock of the tables created without one (docs/server.md, "Clocks and dropped seats")."""
    limits = limits or Limits()
    proxies = TrustedProxies(trusted_proxies)
    # (checked before the database is touched: ValueError naming an entry that could never
    # match; the Guard normalizes them again)
    trusted_hosts = None if trusted_hosts is None else tuple(trusted_hosts)
    allowed_origins = tuple(allowed_origins)
    hosts_and_origins(trusted_hosts, allowed_origins)
    engine = make_engine(db_url or default_db_url(), busy_timeout_s=limits.busy_timeout_s)
    upgrade(engine)
    manager = TableManager(engine, delay_ms=delay_ms, bot_timeout_s=bot_timeout_s, limits=limits)
    manager.default_clock = None if clock is None else clock.to_json()
    server = Server(
        manager,
        delay_ms=delay_ms,
        rate_limit=rate_limit,
        hint_timeout_s=hint_timeout_s,
        web_dir=Path(web_dir) if web_dir is not None else WEB_DIR,
        limits=limits,
    )
    refusals = RefusalLog()

    # --- accounts and ratings (tapete.server.accounts, ratings, players): begin ---
    accounts = Accounts(
        engine,
        AccountSettings(secure_cookies=secure_cookies),
        allowed_origins=allowed_origins,
        db=manager.db,
    )
    ratings.register(manager)  # rates finished rated games (TableManager.finish_hooks)
    account_routes = [
        *accounts.routes(),
        *PlayerPages(manager.sessions, manager.db, limits.max_page).routes(),
    ]
    # --- accounts and ratings: end ---

    from tapete.server.review import ReviewService

    reviews = ReviewService(manager, review)  # deal reviews (``review``: their settings)
    # the replays of finished games (``replay``: their settings; replay_view.py)
    replays = ReplayService(manager, replay)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        collector = getattr(app.state, "collector", None)  # set by uvicorn_config
        if collector is not None:
            collector.start()
        # the unfinished tables are rebuilt in the background, one at a time, in a worker
        # thread: the server answers at once (a table someone opens is rebuilt on the spot)
        manager.start_background()
        reviews.start_background()  # every finished deal analysed, when the tables are quiet
        server.hint_pool.warm()
        try:
            yield
        finally:
            await reviews.close()
            await replays.close()
            await manager.close()
            server.hint_pool.shutdown()  # (made again on the next hint)
            engine.dispose()
            if collector is not None:
                collector.stop()

    routes = [
        Route("/", server.index),
        Route("/api/config", server.config),
        Route("/api/openapi.json", server.openapi),
        Route("/api/tables", server.create_table, methods=["POST"]),
        Route("/api/tables", server.list_tables, methods=["GET"]),
        Route("/api/tables/live", server.live_tables),
        Route("/api/tables/{table_id}", server.table_info),
        Route("/api/tables/{table_id}/seats", server.sit_down, methods=["POST"]),
        Route("/api/invitations/{code}", server.invitation),
        Route("/api/lobby", server.lobby),
        Route("/api/quick", server.quick, methods=["POST"]),
        Route("/api/tables/{table_id}/record", server.table_record),
        Route("/api/tables/{table_id}/ratings", server.table_ratings),
        Route("/api/tables/{table_id}/review/{deal}", reviews.endpoint),
        # the replay of a finished game (every hand face up): replay_view.py
        Route("/api/tables/{table_id}/replay", replays.summary_endpoint),
        Route("/api/tables/{table_id}/replay/{deal}", replays.deal_endpoint),
        Route("/api/stats", server.player_stats),
        Route("/api/ranking", server.ranking),
        *account_routes,
        Route("/rules/{profile}", server.rules),
        WebSocketRoute("/ws/lobby", server.lobby_socket),
        WebSocketRoute("/ws/{table_id}", server.websocket),
        Mount("/static", WebFiles(directory=server.web_dir, check_dir=False), name="static"),
    ]
    middleware = [
        Middleware(
            Guard,
            limits=limits,
            refusals=refusals,
            trusted_hosts=trusted_hosts,
            allowed_origins=allowed_origins,
            trusted_proxies=proxies,
        ),
        Middleware(Identity, accounts=accounts),  # sets scope["state"]["user"]; CSRF checks
    ]
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        middleware=middleware,
        exception_handlers={
            **dict.fromkeys(BUSY_ERRORS, _database_busy),
            404: _not_found,
            405: _not_found,
        },
    )
    app.state.server = server
    app.state.reviews = reviews
    app.state.replays = replays
    app.state.manager = manager
    app.state.refusals = refusals
    app.state.trusted_proxies = proxies
    app.state.limits = limits
    app.state.accounts = accounts
    return app


#: the addresses a program asks for: a refusal there is JSON, as every answer of the API
_PROGRAM_PATHS = ("/api/", "/static/", "/ws/")
#: and those folders' own addresses, without the last slash
_PROGRAM_FOLDERS = frozenset(p.rstrip("/") for p in _PROGRAM_PATHS)


async def _not_found(request: Request, exc: Exception) -> Response:
    """An address no route answers (404), or a method a route does not take (405): the
    API's JSON refusal for a program's address, else a page in the browser's language
    with a way back to the tables (a mistyped or cut invitation link lands here)."""
    status = exc.status_code if isinstance(exc, HTTPException) else 404
    path = request.url.path
    if status == 405:
        allowed = getattr(exc, "headers", None) or {}
        response = _error(405, f"{request.method} is not allowed on {path[:200]}")
        response.headers.update(allowed)
        return response
    if path.startswith(_PROGRAM_PATHS) or path in _PROGRAM_FOLDERS or request.method != "GET":
        return _error(404, f"there is nothing at {path[:200]}")
    lang = preferred_language(request.headers.get("accept-language"))
    title, sentence, back = NOT_FOUND[lang]
    page = (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{title} — Tapete</title><link rel="icon" href="data:,">'
        '<link rel="stylesheet" href="/static/style.css"></head>'
        f'<body class="rules-page"><main><h1>{title}</h1><p>{sentence}</p>'
        f'<p><a href="/" data-testid="not-found-home">{back}</a></p></main></body></html>'
    )
    return HTMLResponse(page, status_code=404)


async def _unless_busy(websocket: WebSocket, serve: Awaitable[None]) -> None:
    """Serve an accepted WebSocket (``serve``); when the database cannot be used now
    (``BUSY_ERRORS``: PostgreSQL away, no free pooled connection), send the error
    ``unavailable`` and close with 1013, "try again later": the page reconnects by itself.
    (Raised on, it was a traceback in the log and a socket dropped without a close frame.)"""
    try:
        await serve
    except BUSY_ERRORS as exc:
        log.warning("%s: the database is busy: %s", websocket.url.path, exc)
        lang = websocket.query_params.get("lang", "en")
        error = TableError(
            "unavailable", "the server could not use its database just now: try again"
        )
        with contextlib.suppress(Exception):
            await websocket.send_json(error.to_json(lang if lang in LANGUAGES else "en"))
            await websocket.close(code=1013)


async def _database_busy(request: Request | WebSocket, exc: Exception) -> Any:
    """The database could not be read or written now (SQLite locked by another program,
    PostgreSQL unreachable or a lock timeout, no free pooled connection: ``BUSY_ERRORS``):
    503, and the request may be tried again. (A WebSocket that meets it before
    :func:`_unless_busy` does is closed with 1013. Hence ``Any``: Starlette takes an HTTP
    handler's response, or None from a WebSocket's.)"""
    if isinstance(request, WebSocket):  # (Starlette hands the handler a WebSocket too)
        log.warning("%s: the database is busy: %s", request.url.path, exc)
        with contextlib.suppress(Exception):
            await request.close(code=1013)
        return None
    log.warning("%s %s: the database is busy: %s", request.method, request.url.path, exc)
    return JSONResponse(
        {"error": "the server could not use its database just now: try again"},
        status_code=503,
        headers={"Retry-After": "1"},
    )


def default_trusted_hosts(host: str) -> tuple[str, ...] | None:
    """The ``Host`` names a server listening on ``host`` answers to by default: the
    loopback names when it listens on loopback only, else any (a reverse proxy in front
    should pass ``--trusted-hosts``)."""
    if host in ("127.0.0.1", "localhost", "::1") or host.startswith("127."):
        return (*LOOPBACK_HOSTS, host)
    return None


def uvicorn_config(app: Starlette, host: str, port: int, limits: Limits, **options: Any) -> Any:
    """uvicorn's settings for the limits: connection bounds, timeouts, WebSocket pings and
    frame size, and the guarded HTTP protocol (docs/server.md, "Running Tapete on a
    network"); the serving process's file limit and garbage-collector thresholds are set
    on the way."""
    import uvicorn

    from tapete.server.collector import Collector, tune_gc
    from tapete.server.connections import (
        guarded_h11,
        lean_websocket,
        quiet_accept_errors,
        raise_file_limit,
    )

    files = raise_file_limit()
    tune_gc(limits.gc_thresholds)
    if limits.gc_tick_s is not None:
        app.state.collector = Collector(limits.gc_tick_s)
    total = limits.max_connections
    if files:
        total = max(16, min(total, files - 64))  # keep descriptors for the database and logs
    quiet_accept_errors()
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        http=guarded_h11(limits, app.state.refusals, app.state.trusted_proxies),
        # X-Forwarded-For is read by the guard, from --trusted-proxies only (uvicorn's own
        # default believes it from any loopback peer)
        proxy_headers=False,
        # uvicorn's websockets-sansio protocol, less three costs of every message, and
        # bounded for a client that stops reading
        ws=lean_websocket(limits, app.state.refusals),
        ws_per_message_deflate=limits.ws_deflate,
        ws_max_size=limits.ws_max_size,
        ws_ping_interval=limits.ws_ping_interval_s,
        ws_ping_timeout=limits.ws_ping_timeout_s,
        limit_concurrency=total,
        timeout_keep_alive=limits.keep_alive_s,
        h11_max_incomplete_event_size=16384,
        **options,
    )


def run_serve(
    host: str = "127.0.0.1",
    port: int = 8000,
    db: str | None = None,
    delay_ms: int = 700,
    *,
    trusted_hosts: Iterable[str] | None = None,
    allowed_origins: Iterable[str] = (),
    limits: Limits | None = None,
    secure_cookies: bool = False,
    trusted_proxies: Iterable[str] = (),
    clock: ClockSettings | None = None,
    sock: socket.socket | None = None,
) -> int:
    """``tapete serve``: print the address and the database, then serve until Ctrl-C.
    ``trusted_hosts`` None: :func:`default_trusted_hosts`; ``clock``: the clock of the
    tables created without one (``--clock``, ``--grace-seconds``); ``sock``: a socket
    already bound to ``host:port`` to serve on (the CLI binds it before the banner). Raises
    :class:`~tapete.server.db.DatabaseError` when the database cannot be used."""
    import uvicorn

    from tapete.server.db import default_db_path, shown_url

    url = db or default_db_url()
    where = str(default_db_path()) if db is None else shown_url(db)
    limits = limits or Limits()
    hosts = default_trusted_hosts(host) if trusted_hosts is None else tuple(trusted_hosts)
    app = create_app(
        url,
        delay_ms,
        limits=limits,
        trusted_hosts=hosts,
        allowed_origins=allowed_origins,
        secure_cookies=secure_cookies,
        trusted_proxies=trusted_proxies,
        clock=clock,
    )
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
    exit_through_python_on_sigterm()
    server = uvicorn.Server(uvicorn_config(app, host, port, limits, log_level="warning"))
    server.run(sockets=None if sock is None else [sock])
    return 0


def exit_through_python_on_sigterm() -> None:
    """SIGTERM (a service manager's stop, ``kill``) ends the process through Python, with
    exit code 143, as Ctrl-C does with 130. uvicorn catches the signal, shuts the server
    down (the lifespan stops the worker pools), and raises it again once done; with the
    default action the process then died at once, before Python's exit handlers, and
    multiprocessing's tracker warned of "leaked semaphore objects" (the pools' queues).
    Only where nobody has chosen a handler already (the main thread of ``tapete serve``)."""
    if (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    ):
        signal.signal(signal.SIGTERM, _exit_143)


def _exit_143(signum: int, frame: object) -> None:
    raise SystemExit(128 + signal.SIGTERM)
