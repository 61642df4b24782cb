"""Accounts: sign up, sign in and out, server-side sessions in a cookie, CSRF protection, and
the middleware that tells the app who is signed in.

- A password is stored only as an argon2id hash (``argon2-cffi``'s :class:`PasswordHasher`,
  its default parameters; a hash made with older parameters is replaced at the next sign-in).
- A session is a random id (256 bits) in the ``tapete_session`` cookie (HttpOnly,
  SameSite=Lax, Path=/, Secure when the request came over https or the server runs with
  ``--secure-cookies``); the database keeps only its SHA-256, the user, a per-session CSRF
  token and the expiry (:attr:`AccountSettings.session_days`).
- :class:`Identity` (ASGI middleware) sets ``scope["state"]["user"]`` to a :class:`User`
  for every HTTP request and WebSocket carrying a valid session (None otherwise). A
  state-changing request (POST, PUT, PATCH, DELETE) with a valid session must carry the
  session's CSRF token (``GET /api/me``) in ``X-CSRF-Token``, and any state-changing request
  from a browser must come from this server's own origin (or an allowed one).
- Sign-in attempts take a token from a bucket per client address and one per user name
  (429 past them); a wrong password and an unknown name give the same answer ("wrong user
  name or password") after the same work (an unknown name is checked against a dummy hash).

Guests have no account: they play under a chosen name, unrated, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import secrets
import unicodedata
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import DateTime, ForeignKey, Index, Integer, String, Text, delete, select
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, Session, mapped_column, sessionmaker
from starlette.datastructures import Headers
from starlette.requests import Request, cookie_parser
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tapete.names import MixedScriptsError, one_script, skeleton
from tapete.server.db import BUSY_ERRORS, Base, DatabaseThreads, utcnow
from tapete.server.limits import TokenBuckets, retry_after
from tapete.server.security import load_json_body, origin_allowed

__all__ = [
    "COOKIE_NAME",
    "CSRF_HEADER",
    "AccountSettings",
    "Accounts",
    "Identity",
    "SessionRow",
    "User",
    "UserRow",
    "check_password",
    "check_user_name",
    "current_user",
    "openapi_paths",
]

log = logging.getLogger("tapete.server")

COOKIE_NAME = "tapete_session"
CSRF_HEADER = "x-csrf-token"
WRONG = "wrong user name or password"
USER_NAME_MIN = 3
USER_NAME_MAX = 24
PASSWORD_MIN = 8
PASSWORD_MAX = 256  # argon2 hashes any length; a cap keeps a request's work bounded
_NAME_MARKS = "_.-"
_UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


# ---------------------------------------------------------------------- the tables


class UserRow(Base):
    """One account. ``name`` as its owner wrote it; ``name_key`` its case-folded form, unique
    (``Ana`` and ``ana`` are one name); ``skeleton`` the form names that look alike share
    (``tapete.names.skeleton``), unique too: no new account looks like an older one (null
    for an account made before that rule whose name looks like an older one's)."""

    __tablename__ = "users"
    __table_args__ = (Index("ix_users_skeleton", "skeleton", unique=True),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(64))
    name_key: Mapped[str] = mapped_column(String(64), unique=True)
    skeleton: Mapped[str | None] = mapped_column(Text)
    #: the argon2id hash (PHC string: parameters, salt and hash)
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class SessionRow(Base):
    """One signed-in browser: the SHA-256 of the cookie's id (never the id itself)."""

    __tablename__ = "sessions"

    id_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), index=True)


# ---------------------------------------------------------------------- values


@dataclass(frozen=True, slots=True)
class User:
    """A signed-in person (``scope["state"]["user"]``)."""

    id: int
    name: str


@dataclass(frozen=True, slots=True)
class ActiveSession:
    user: User
    id_hash: str
    csrf: str


@dataclass(frozen=True, slots=True)
class AccountSettings:
    """The knobs of accounts (defaults fit a club)."""

    #: a session lasts this long from sign-in (then the person signs in again)
    session_days: float = 30.0
    #: sign-in and sign-up attempts per client address: a bucket of ``address_burst`` that
    #: refills one every ``address_refill_s`` seconds
    address_burst: int = 10
    address_refill_s: float = 6.0
    #: sign-in attempts per user name (whoever makes them)
    name_burst: int = 5
    name_refill_s: float = 30.0
    #: password hashes computed at the same time; more requests wait their turn
    max_hashing: int = 2
    #: the cookie always carries ``Secure`` (``--secure-cookies``: the server is behind an
    #: https proxy that does not say so); without it, only requests that came over https
    secure_cookies: bool = False


class AccountError(Exception):
    """A refused request: its HTTP status, the sentence, and for a refusal a person meets in
    normal use its ``code`` (the web client's ``err_<code>``)."""

    def __init__(self, status: int, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code

    def response(self) -> JSONResponse:
        body = (
            {"error": self.message}
            if self.code is None
            else {"error": self.message, "code": self.code}
        )
        return JSONResponse(body, status_code=self.status)


def check_user_name(value: Any) -> str:
    """A user name as it is stored (NFC, spaces at the ends removed), or raise
    :class:`ValueError` saying what is wrong: 3 to 24 characters, letters (any alphabet, but
    one script: ``tapete.names.one_script``; each in its plain form, which NFKC keeps: no
    ligature such as ``ﬃ``, no full-width letter), digits 0-9 and ``_ . -``, beginning with
    a letter or digit. (A plain letter's case-folded form is at most two characters, so a
    name's ``name_key`` fits its 64: 24 ``ﬃ`` made 72, which PostgreSQL refused.)

    >>> check_user_name(" Joao_99 ")
    'Joao_99'
    >>> check_user_name("a b")
    Traceback (most recent call last):
    ...
    ValueError: the user name may hold only letters, digits 0-9 and _ . - (found ' ')
    """
    if not isinstance(value, str):
        raise ValueError("'name' must be a string (the user name)")
    name = unicodedata.normalize("NFC", value.strip())
    if not USER_NAME_MIN <= len(name) <= USER_NAME_MAX:
        raise ValueError(
            f"the user name must be {USER_NAME_MIN} to {USER_NAME_MAX} characters long, "
            f"got {len(name)}"
        )
    for ch in name:
        if not (_is_letter_or_digit(ch) or ch in _NAME_MARKS):
            raise ValueError(
                f"the user name may hold only letters, digits 0-9 and _ . - (found {ch!r})"
            )
        plain = unicodedata.normalize("NFKC", ch)
        if plain != ch:
            raise ValueError(f"the user name must write {ch!r} as {plain!r}, its plain form")
    if not _is_letter_or_digit(name[0]):
        raise ValueError("the user name must begin with a letter or a digit")
    return one_script(name, "the user name")


def _is_letter_or_digit(ch: str) -> bool:
    return ch in "0123456789" or unicodedata.category(ch).startswith("L")


def name_key(name: str) -> str:
    """The form two user names are compared in (``Ana`` and ``ANA`` are one name)."""
    return unicodedata.normalize("NFC", name.casefold())


def check_password(value: Any, name: str) -> str:
    """The password, or raise :class:`ValueError`: 8 to 256 characters, not the user name."""
    if not isinstance(value, str):
        raise ValueError("'password' must be a string")
    if not PASSWORD_MIN <= len(value) <= PASSWORD_MAX:
        raise ValueError(f"the password must be {PASSWORD_MIN} to {PASSWORD_MAX} characters long")
    if name_key(value) == name_key(name):
        raise ValueError("the password must not be the user name")
    return value


def _hash_id(session_id: str) -> str:
    return hashlib.sha256(session_id.encode()).hexdigest()


def _aware(when: datetime) -> datetime:
    """A stored time (SQLite gives it back without its zone: it is UTC)."""
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def current_user(scope: Scope) -> User | None:
    """The signed-in person of a request or WebSocket (set by :class:`Identity`)."""
    state = scope.get("state") or {}
    user = state.get("user")
    return user if isinstance(user, User) else None


# ---------------------------------------------------------------------- the service


def _taken(name: str) -> str:
    return f"the user name {name!r} is taken (upper and lower case count as the same)"


class Accounts:
    """Users and sessions in the database, and the HTTP endpoints (:meth:`routes`).

    ``hasher``: the argon2id hasher (tests pass a cheaper one); ``clock``: the wall clock
    sessions expire by; ``monotonic``: the clock of the attempt buckets."""

    def __init__(
        self,
        engine: Engine,
        settings: AccountSettings | None = None,
        *,
        hasher: PasswordHasher | None = None,
        clock: Callable[[], datetime] = utcnow,
        monotonic: Callable[[], float] | None = None,
        allowed_origins: Iterable[str] = (),
        db: DatabaseThreads | None = None,
    ) -> None:
        self.sessions = sessionmaker(engine, expire_on_commit=False)
        #: the threads its reads of sessions run in (the server's: ``TableManager.db``)
        self.db = db or DatabaseThreads(2)
        self.settings = settings or AccountSettings()
        self.hasher = hasher or PasswordHasher()
        self.clock = clock
        s = self.settings
        bucket_clock: dict[str, Any] = {} if monotonic is None else {"clock": monotonic}
        self.by_address = TokenBuckets(s.address_burst, s.address_refill_s, **bucket_clock)
        self.by_name = TokenBuckets(s.name_burst, s.name_refill_s, **bucket_clock)
        self.allowed_origins = frozenset(o.rstrip("/").lower() for o in allowed_origins)
        self._dummy: tuple[PasswordHasher, str] | None = None
        #: password hashes computed at once (each takes 64 MiB and a core for a moment)
        self.hashing = asyncio.Semaphore(self.settings.max_hashing)

    # ------------------------------------------------------------------ passwords

    def dummy_hash(self) -> str:
        """A hash of a random password with the current hasher's parameters: an unknown
        name is checked against it, so that it costs what a known one costs."""
        if self._dummy is None or self._dummy[0] is not self.hasher:
            self._dummy = (self.hasher, self.hasher.hash(secrets.token_urlsafe(16)))
        return self._dummy[1]

    def _verify(self, stored: str | None, password: str) -> bool:
        try:
            return self.hasher.verify(stored or self.dummy_hash(), password) and stored is not None
        except (VerificationError, InvalidHashError):
            return False

    # ------------------------------------------------------------------ users

    def sign_up(self, name: Any, password: Any) -> tuple[User, str, ActiveSession]:
        """Create an account and its first session: (user, cookie id, session). Raise
        :class:`AccountError` (400 bad name or password, 409 name taken)."""
        try:
            name = check_user_name(name)
            check_password(password, name)
        except ValueError as exc:
            code = exc.code if isinstance(exc, MixedScriptsError) else None
            raise AccountError(400, str(exc), code) from None
        digest = self.hasher.hash(password)
        try:
            with self.sessions.begin() as session:
                refusal = self._name_refusal(session, name)
                if refusal is not None:
                    raise refusal
                row = UserRow(
                    name=name,
                    name_key=name_key(name),
                    skeleton=skeleton(name),
                    password_hash=digest,
                    created_at=self.clock(),
                )
                session.add(row)
                session.flush()
                user = User(row.id, row.name)
                cookie, active = self._new_session(session, user)
        except IntegrityError:
            # another request took the name or a look-alike since the check: which one, as
            # the check would have said (a unique index refused the row)
            with self.sessions() as session:
                refusal = self._name_refusal(session, name)
            raise refusal or AccountError(409, _taken(name)) from None
        return user, cookie, active

    @staticmethod
    def _name_refusal(session: Session, name: str) -> AccountError | None:
        """Why a new account may not take ``name``: an account of that name in any case,
        or one whose name looks like it (the same skeleton); None if neither."""
        if session.scalar(select(UserRow.id).where(UserRow.name_key == name_key(name))):
            return AccountError(409, _taken(name))
        alike = session.scalar(select(UserRow.name).where(UserRow.skeleton == skeleton(name)))
        if alike is None:
            return None
        return AccountError(
            409,
            f"the user name {name!r} looks like the account name {alike!r} (letters drawn "
            "alike, such as a Cyrillic a and a Latin a, or I and l, count as the same)",
            code="name_look_alike",
        )

    def sign_in(self, name: str, password: str) -> tuple[User, str, ActiveSession] | None:
        """Check the password and open a session, or None (wrong name or password: the same
        work either way)."""
        # (a control character is in no user name, and PostgreSQL refuses a NUL in a query)
        key = name_key(name) if isinstance(name, str) and name.isprintable() else ""
        with self.sessions() as session:
            row = session.scalar(select(UserRow).where(UserRow.name_key == key)) if key else None
        if len(password) > PASSWORD_MAX:  # no account has one: the same work, then no
            self._verify(None, password[:PASSWORD_MAX])
            return None
        if not self._verify(row.password_hash if row else None, password):
            return None
        assert row is not None
        with self.sessions.begin() as session:
            if self.hasher.check_needs_rehash(row.password_hash):
                fresh = session.get(UserRow, row.id)
                if fresh is not None:
                    fresh.password_hash = self.hasher.hash(password)
            user = User(row.id, row.name)
            cookie, active = self._new_session(session, user)
        return user, cookie, active

    # ------------------------------------------------------------------ sessions

    def _new_session(self, session: Session, user: User) -> tuple[str, ActiveSession]:
        cookie = secrets.token_urlsafe(32)
        now = self.clock()
        # the sessions that expired unseen go when a new one is made (indexed: cheap)
        session.execute(delete(SessionRow).where(SessionRow.expires_at <= now))
        row = SessionRow(
            id_hash=_hash_id(cookie),
            user_id=user.id,
            csrf=secrets.token_urlsafe(32),
            created_at=now,
            expires_at=now + timedelta(days=self.settings.session_days),
        )
        session.add(row)
        return cookie, ActiveSession(user, row.id_hash, row.csrf)

    def lookup(self, cookie: str) -> ActiveSession | None:
        """The live session of a cookie's id (None: unknown or expired; an expired one is
        deleted)."""
        if not cookie or len(cookie) > 128:
            return None
        id_hash = _hash_id(cookie)
        with self.sessions() as session:
            found = session.execute(
                select(SessionRow, UserRow.name)
                .join(UserRow, UserRow.id == SessionRow.user_id)
                .where(SessionRow.id_hash == id_hash)
            ).first()
            if found is None:
                return None
            row, name = found
            if _aware(row.expires_at) <= self.clock():
                # (a read thread's one write: a database busy with another writer keeps the
                # expired row for the next look, the answer is the same)
                with contextlib.suppress(*BUSY_ERRORS):
                    session.execute(delete(SessionRow).where(SessionRow.id_hash == id_hash))
                    session.commit()
                return None
            return ActiveSession(User(row.user_id, name), row.id_hash, row.csrf)

    def end(self, active: ActiveSession) -> None:
        with self.sessions.begin() as session:
            session.execute(delete(SessionRow).where(SessionRow.id_hash == active.id_hash))

    # ------------------------------------------------------------------ HTTP

    def routes(self) -> list[Route]:
        return [
            Route("/api/signup", self.signup_endpoint, methods=["POST"]),
            Route("/api/signin", self.signin_endpoint, methods=["POST"]),
            Route("/api/signout", self.signout_endpoint, methods=["POST"]),
            Route("/api/me", self.me_endpoint, methods=["GET"]),
        ]

    def _cookie(self, response: Response, request: Request, value: str | None) -> None:
        secure = self.settings.secure_cookies or request.url.scheme in ("https", "wss")
        if value is None:
            response.delete_cookie(
                COOKIE_NAME, path="/", secure=secure, httponly=True, samesite="lax"
            )
            return
        response.set_cookie(
            COOKIE_NAME,
            value,
            max_age=int(self.settings.session_days * 86400),
            path="/",
            secure=secure,
            httponly=True,
            samesite="lax",
        )

    async def _signed_in(
        self, request: Request, user: User, cookie: str, active: ActiveSession, status: int
    ) -> Response:
        previous = _active(request.scope)
        if previous is not None:  # a new session replaces the browser's old one
            await self.db.write(self.end, previous)
        response = JSONResponse(
            {"user": {"id": user.id, "name": user.name}, "csrf": active.csrf}, status_code=status
        )
        self._cookie(response, request, cookie)
        return response

    def _wait(self, buckets: list[tuple[TokenBuckets, object]]) -> float:
        return max(b.take(key) for b, key in buckets)

    async def signup_endpoint(self, request: Request) -> Response:
        try:
            data = await _body(request, {"name", "password"})
            wait = self._wait([(self.by_address, _address(request))])
            if wait:
                return _too_many(wait, "sign-up attempts")
            async with self.hashing:
                user, cookie, active = await asyncio.to_thread(
                    self.sign_up, data.get("name"), data.get("password")
                )
        except AccountError as exc:
            return exc.response()
        return await self._signed_in(request, user, cookie, active, 201)

    async def signin_endpoint(self, request: Request) -> Response:
        try:
            data = await _body(request, {"name", "password"})
        except AccountError as exc:
            return exc.response()
        name, password = data.get("name"), data.get("password")
        if not isinstance(name, str) or not isinstance(password, str):
            return JSONResponse({"error": "'name' and 'password' must be strings"}, status_code=400)
        wait = self._wait(
            [(self.by_address, _address(request)), (self.by_name, name_key(name)[:64])]
        )
        if wait:
            return _too_many(wait, "sign-in attempts")
        async with self.hashing:
            done = await asyncio.to_thread(self.sign_in, name, password)
        if done is None:
            return JSONResponse({"error": WRONG}, status_code=401)
        return await self._signed_in(request, *done, 200)

    async def signout_endpoint(self, request: Request) -> Response:
        active = _active(request.scope)
        if active is not None:
            await self.db.write(self.end, active)
        response = JSONResponse({"user": None, "csrf": None})
        self._cookie(response, request, None)
        return response

    async def me_endpoint(self, request: Request) -> Response:
        active = _active(request.scope)
        if active is None:
            return JSONResponse({"user": None, "csrf": None})
        user = active.user
        return JSONResponse({"user": {"id": user.id, "name": user.name}, "csrf": active.csrf})


def _active(scope: Scope) -> ActiveSession | None:
    session = (scope.get("state") or {}).get("account_session")
    return session if isinstance(session, ActiveSession) else None


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _too_many(wait: float, what: str) -> Response:
    return JSONResponse(
        {"error": f"too many {what} in a short time: wait {retry_after(wait)} s"},
        status_code=429,
        headers={"Retry-After": retry_after(wait)},
    )


async def _body(request: Request, allowed: set[str]) -> dict[str, Any]:
    ctype = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if ctype != "application/json":
        raise AccountError(
            415, f"the request must have Content-Type: application/json, got {ctype or 'none'!r}"
        )
    try:
        data = load_json_body(await request.body())
    except ValueError as exc:
        raise AccountError(400, str(exc)) from None
    if not isinstance(data, dict):
        raise AccountError(400, "the request body must be a JSON object")
    extra = sorted(set(data) - allowed)
    if extra:
        raise AccountError(
            400,
            f"unknown field(s) {', '.join(map(repr, extra))}; expected "
            f"{', '.join(sorted(allowed))}",
        )
    missing = sorted(allowed - set(data))
    if missing:
        raise AccountError(400, f"missing field(s) {', '.join(map(repr, missing))}")
    return data


# ---------------------------------------------------------------------- middleware


class Identity:
    """ASGI middleware: the session of the cookie (``scope["state"]["user"]``, and
    ``["account_session"]`` for the account endpoints), and the CSRF and origin checks of
    state-changing requests."""

    def __init__(self, app: ASGIApp, *, accounts: Accounts) -> None:
        self.app = app
        self.accounts = accounts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or (
            scope["type"] == "http"
            and scope.get("method") in ("GET", "HEAD")
            and str(scope.get("path", "")).startswith("/static/")
        ):
            await self.app(scope, receive, send)  # (the client's files need no identity)
            return
        headers = Headers(scope=scope)
        cookie = cookie_parser(headers.get("cookie", "")).get(COOKIE_NAME)
        try:
            accounts = self.accounts
            active = await accounts.db.run(accounts.lookup, cookie) if cookie else None
        except BUSY_ERRORS as exc:
            # the database cannot be read now: 503 (try again), as the app's own answer to
            # it; a WebSocket's handshake is refused and the page tries again by itself.
            # (Outside the app's exception handlers, it was a 500 with a traceback.)
            log.warning("%s: the session could not be read: %s", scope.get("path"), exc)
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1013})
                return
            busy = {"error": "the server could not use its database just now: try again"}
            response = JSONResponse(busy, status_code=503, headers={"Retry-After": "1"})
            await response(scope, receive, send)
            return
        state = dict(scope.get("state") or {})
        # (a layer outside the app that signs people in its own way may have set the user:
        # a session cookie of ours wins, else that one stays; no client can set scope state)
        state["user"] = active.user if active else state.get("user")
        state["account_session"] = active
        scope["state"] = state
        if scope["type"] == "http" and scope.get("method", "GET") in _UNSAFE_METHODS:
            problem = None
            if not origin_allowed(scope, self.accounts.allowed_origins):
                problem = f"a page from {headers.get('origin')!r} may not change anything here"
            elif active is not None and not hmac.compare_digest(
                headers.get(CSRF_HEADER, "").encode(), active.csrf.encode()
            ):
                problem = (
                    "this request needs your session's X-CSRF-Token header (GET /api/me gives it)"
                )
            if problem is not None:
                await JSONResponse({"error": problem}, status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


# ---------------------------------------------------------------------- OpenAPI


def openapi_paths() -> dict[str, Any]:
    """The account endpoints for ``/api/openapi.json``."""

    def error(description: str) -> dict[str, Any]:
        return {
            "description": description,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
        }

    user = {
        "type": ["object", "null"],
        "required": ["id", "name"],
        "properties": {"id": {"type": "integer"}, "name": {"type": "string"}},
    }
    me = {
        "type": "object",
        "required": ["user", "csrf"],
        "properties": {"user": user, "csrf": {"type": ["string", "null"]}},
    }
    credentials = {
        "type": "object",
        "required": ["name", "password"],
        "additionalProperties": False,
        "properties": {
            "name": {
                "type": "string",
                "minLength": USER_NAME_MIN,
                "maxLength": USER_NAME_MAX,
                "description": "letters of one script, digits 0-9 and _ . - (sign-up: else 400"
                " with code name_scripts)",
            },
            "password": {"type": "string", "minLength": PASSWORD_MIN, "maxLength": PASSWORD_MAX},
        },
    }
    common = {
        "400": error("a bad body, or a Host header this server does not answer to"),
        "403": error("a page of another site, or a session without its X-CSRF-Token"),
        "413": error("the body is too large"),
        "415": error("the body is not declared as application/json"),
        "503": error("the database is busy: try again"),
    }
    limited = {
        "429": {
            **error("too many attempts from this address or for this name: wait"),
            "headers": {"Retry-After": {"schema": {"type": "string"}}},
        }
    }
    cookie_note = "sets the tapete_session cookie (HttpOnly, SameSite=Lax)"

    def post(summary: str, responses: dict[str, Any], body: bool = True) -> dict[str, Any]:
        op: dict[str, Any] = {"summary": summary, "responses": {**common, **responses}}
        if body:
            op["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": credentials}},
            }
        return {"post": op}

    ok = {"description": "OK", "content": {"application/json": {"schema": me}}}
    return {
        "/api/signup": post(
            f"create an account and sign in ({cookie_note})",
            {
                "201": {**ok, "description": "the account, signed in"},
                "409": error(
                    "the user name is taken, or looks like an older account's (code "
                    "name_look_alike)"
                ),
                **limited,
            },
        ),
        "/api/signin": post(
            f"sign in ({cookie_note})",
            {"200": ok, "401": error("wrong user name or password"), **limited},
        ),
        "/api/signout": post("sign out (ends the session, clears the cookie)", {"200": ok}, False),
        "/api/me": {
            "get": {
                "summary": "who is signed in, and the session's CSRF token for X-CSRF-Token",
                "responses": {"200": ok, "400": common["400"], "503": common["503"]},
            }
        },
    }
