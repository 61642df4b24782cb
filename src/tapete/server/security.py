"""The server's front door: one ASGI middleware that every request and WebSocket passes
before the app sees it.

In order: the ``Host`` header must name this server (DNS rebinding: ``--trusted-hosts``);
a WebSocket's ``Origin`` must be this server's own or an allowed one (a page elsewhere
must not watch or play a person's tables); a state-changing request must say
``Content-Type: application/json`` (a form or ``text/plain`` post from another site is
refused: browsers send those cross-site without asking); its body must fit the limit (by
``Content-Length`` before anything is read, and a chunked body is cut off as it grows past
it); table creation takes a token from the client's bucket (429 with ``Retry-After``);
one client may hold only so many WebSockets. The client is the peer's address, or behind a
trusted reverse proxy (``--trusted-proxies``) the address that proxy says it received the
request from (:class:`TrustedProxies`); every per-address limit counts that. Every HTTP
answer carries the security headers (a Content-Security-Policy the web client satisfies, no
framing, no sniffing, no referrer). Each refusal is a JSON ``{"error": sentence}`` and is
logged once per kind (:class:`~tapete.server.limits.RefusalLog`).
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection

from tapete.server.limits import Limits, RefusalLog, TokenBuckets, retry_after

__all__ = [
    "LOOPBACK_HOSTS",
    "SECURITY_HEADERS",
    "SUBPROTOCOL",
    "TOKEN_HEADER",
    "TOKEN_PARAMETERS",
    "TOKEN_SUBPROTOCOL",
    "BodyTooLarge",
    "Guard",
    "TrustedProxies",
    "host_and_origin_problems",
    "host_name",
    "hosts_and_origins",
    "json_problem",
    "load_json_body",
    "origin_allowed",
    "seat_token",
]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: the names a server bound to loopback answers to by default
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-opener-policy", b"same-origin"),
)

_UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class BodyTooLarge(Exception):
    """The body grew past the limit while it was read."""


def load_json_body(body: bytes) -> Any:
    """A request body's JSON value, or :class:`ValueError` with the sentence that says what
    is wrong and where. Besides what ``json.loads`` refuses, a string (a value or a key)
    that holds a lone UTF-16 surrogate (the escape ``\\ud800`` with no partner): JSON's
    escapes let one through, but it is no character and cannot be encoded, so hashing a
    password, comparing an invitation code or storing a name failed on it later, as a 500.
    A pair of escapes that makes one character (``\\ud83c\\udccf``) is that character.
    Refused too, which ``json.loads`` takes: a key given twice in one object (it kept the
    last value, silently) and ``NaN``/``Infinity`` (no JSON numbers). The sentence says
    where: the line and column of a syntax error, the key given twice."""
    try:
        data = json.loads(body, object_pairs_hook=_no_twice, parse_constant=_no_constant)
    except _NotJson as exc:
        raise ValueError(f"the request body is not valid JSON: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"the request body is not valid JSON{json_problem(exc)}") from None
    stack: list[tuple[Any, str]] = [(data, "the body")]  # (no recursion: it may nest deep)
    while stack:
        value, where = stack.pop()
        if isinstance(value, dict):
            for key in value:
                _check_text(key, f"a key of {where}")
            stack.extend(
                (item, key if where == "the body" else f"{where}.{key}")
                for key, item in value.items()
            )
        elif isinstance(value, list):
            stack.extend((item, f"{where}[{i}]") for i, item in enumerate(value))
        elif isinstance(value, str):
            _check_text(value, where)
    return data


def json_problem(exc: BaseException) -> str:
    """Where and why a JSON text was refused, as the end of a sentence (": expecting value at
    line 2, column 10"; "" when the error says nothing more): the words of both the request
    bodies' refusals and the WebSocket messages' (``app.parse_message``)."""
    if isinstance(exc, json.JSONDecodeError):
        return f": {exc.msg[:1].lower()}{exc.msg[1:]} at line {exc.lineno}, column {exc.colno}"
    if isinstance(exc, UnicodeDecodeError):
        return f": not UTF-8 text at byte {exc.start + 1}"
    if isinstance(exc, RecursionError):
        return ": it nests too deep"
    return ""


class _NotJson(ValueError):
    """What :func:`load_json_body` refuses that ``json.loads`` takes."""


def _no_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _NotJson(f"the key {key!r} is given twice in one object")
        out[key] = value
    return out


def _no_constant(name: str) -> Any:
    raise _NotJson(f"{name} is not a JSON number")


def _check_text(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(
            f"the request body is not valid JSON text: {where} holds a lone surrogate "
            f"(\\u{ord(text[exc.start]):04x}), which is no character"
        ) from None


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value).decode("latin-1")
    return None


#: the WebSocket subprotocol a client offers to say it speaks this protocol; a browser, which
#: cannot set headers on a WebSocket, sends its seat's token as a second one,
#: ``tapete.token.TOKEN``, so that the token stays out of the address (and of proxies' logs)
SUBPROTOCOL = "tapete"
TOKEN_SUBPROTOCOL = "tapete.token."
#: the HTTP header that carries a seat's token (the ``token`` query parameter is still read)
TOKEN_HEADER = "x-tapete-token"
#: the two places :func:`seat_token` reads on HTTP, as OpenAPI parameters (header first)
TOKEN_PARAMETERS: tuple[dict[str, Any], ...] = (
    {
        "name": "X-Tapete-Token",
        "in": "header",
        "required": False,
        "schema": {"type": "string"},
        "description": "a seat's token (read before the token query parameter)",
    },
    {
        "name": "token",
        "in": "query",
        "required": False,
        "schema": {"type": "string"},
        "description": "a seat's token, for clients that cannot send the X-Tapete-Token "
        "header (a proxy may log an address: prefer the header)",
    },
)


def seat_token(conn: HTTPConnection) -> str | None:
    """The seat's token a request or a WebSocket handshake carries: the ``X-Tapete-Token``
    header, the ``tapete.token.`` subprotocol of a WebSocket, or else (for clients that can
    do neither; a proxy may log it there) the ``token`` query parameter. None: no token."""
    token = conn.headers.get(TOKEN_HEADER)
    if token:
        return token.strip()
    for offered in conn.scope.get("subprotocols", ()):
        if offered.startswith(TOKEN_SUBPROTOCOL):
            return str(offered[len(TOKEN_SUBPROTOCOL) :])
    return conn.query_params.get("token") or None  # (an empty ?token= is no token)


def host_name(host: str) -> str:
    """The name in a ``Host`` header or an origin's netloc, without the port, lower case
    (``[::1]:8000`` -> ``::1``)."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].split("]", 1)[0]
    if host.count(":") == 1:
        return host.split(":", 1)[0]
    return host


#: a label of a host name (letters, digits, hyphens not at its ends; ``_`` let through)
_LABEL = re.compile(r"(?!-)[a-z0-9_-]{1,63}(?<!-)")


def trusted_host_problem(entry: str) -> str | None:
    """Why ``entry`` of the trusted hosts could never match a ``Host`` header (None: it
    can): a URL, a port, or no host name. ``*`` is any host, ``*.club.example`` its
    subdomains; an address may be written with brackets (``[::1]``)."""
    name = entry.strip().lower()
    if name == "*":
        return None
    if "/" in name:
        return f"{entry!r} is a URL: name the host alone (for example club.example)"
    bare = name[2:] if name.startswith("*.") else name
    try:
        ipaddress.ip_address(_unbracketed(bare))
        return None
    except ValueError:
        pass
    if ":" in bare:
        return (
            f"{entry!r} has a port: name the host alone ({host_name(bare)}); "
            "the Host header's port is not compared"
        )
    if len(bare) > 253 or not all(_LABEL.fullmatch(label) for label in bare.split(".")):
        return (
            f"{entry!r} is not a host name (letters, digits and hyphens between dots, "
            "for example club.example or *.club.example)"
        )
    return None


#: the port a browser leaves out of an origin, per scheme
_DEFAULT_PORTS = {"http": 80, "https": 443}


def allowed_origin_problem(entry: str) -> str | None:
    """Why ``entry`` of the allowed origins could never equal a browser's ``Origin`` header
    (None: it can; ``*`` is any): a scheme and a host, with a port only where it is not the
    scheme's own, and nothing after them."""
    origin = entry.strip().rstrip("/").lower()
    if origin == "*":
        return None
    example = "for example https://club.example or http://club.example:8080"
    try:
        parts = urlsplit(origin)
        port = parts.port
    except ValueError:
        return f"{entry!r} is not an origin ({example})"
    if parts.scheme not in _DEFAULT_PORTS or not parts.hostname:
        return f"{entry!r} is not an origin: a scheme (http or https) and a host ({example})"
    if parts.path or parts.query or parts.fragment or "@" in parts.netloc:
        return f"{entry!r} is not an origin: only a scheme and a host, no path ({example})"
    if port == _DEFAULT_PORTS[parts.scheme]:
        return (
            f"{entry!r}: leave out the port {port}, which browsers leave out of "
            f"{parts.scheme} origins ({parts.scheme}://{parts.netloc.rsplit(':', 1)[0]})"
        )
    return None


def hosts_and_origins(
    trusted_hosts: Iterable[str] | None, allowed_origins: Iterable[str]
) -> tuple[frozenset[str] | None, frozenset[str]]:
    """The trusted host names as :meth:`Guard.host_allowed` compares them (lower case, an
    address without brackets) and the allowed origins as :func:`origin_allowed` does (lower
    case, no trailing slash); ``ValueError`` naming every entry that no request could ever
    match (:func:`trusted_host_problem`, :func:`allowed_origin_problem`): taken, it refused
    every request, or every page of the other site, without a word at the start."""
    hosts = None if trusted_hosts is None else [h.strip().lower() for h in trusted_hosts]
    origins = [o.strip().rstrip("/").lower() for o in allowed_origins]
    problems = host_and_origin_problems(hosts, origins)
    if problems:
        raise ValueError("; ".join(why for _, why in problems))
    names = None if hosts is None else frozenset(_unbracketed(h) for h in hosts)
    return names, frozenset(origins)


def host_and_origin_problems(
    trusted_hosts: Iterable[str] | None, allowed_origins: Iterable[str]
) -> list[tuple[str, str]]:
    """Every entry of the trusted hosts and the allowed origins that no request could ever
    match, as ``(which, why)``: ``which`` is ``"trusted_hosts"`` or ``"allowed_origins"``
    (:func:`trusted_host_problem`, :func:`allowed_origin_problem`). The one check of both
    the app (:func:`hosts_and_origins`) and ``tapete serve``'s options."""
    found = [("trusted_hosts", trusted_host_problem(h)) for h in trusted_hosts or ()]
    found += [("allowed_origins", allowed_origin_problem(o)) for o in allowed_origins]
    return [(which, why) for which, why in found if why]


def _unbracketed(name: str) -> str:
    return name[1:-1] if name.startswith("[") and name.endswith("]") else name


class TrustedProxies:
    """The reverse proxies whose ``X-Forwarded-For`` is believed (addresses or networks:
    ``127.0.0.1``, ``10.0.0.0/8``, ``::1``). None by default: then every client is the
    peer's own address, and a header a client writes itself changes nothing."""

    def __init__(self, entries: Iterable[str] = ()) -> None:
        networks = []
        for entry in entries:
            try:
                networks.append(ipaddress.ip_network(entry.strip(), strict=False))
            except ValueError:
                raise ValueError(
                    f"trusted proxy {entry!r} is not an IP address or network "
                    "(for example 127.0.0.1 or 10.0.0.0/8)"
                ) from None
        self.networks = tuple(networks)

    def __bool__(self) -> bool:
        return bool(self.networks)

    def trusts(self, address: str) -> bool:
        if not self.networks:
            return False
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in net for net in self.networks if net.version == ip.version)

    def client(self, peer: str, forwarded: str | None) -> str:
        """The client's address: ``peer``, unless it is a trusted proxy; then the right-most
        address of ``X-Forwarded-For`` that is not a trusted proxy. Each proxy appends the
        address it received the request from, so the entries on the left are the client's
        own writing and are never believed; an entry that is no IP address stops the walk
        (the last trusted hop is the client then)."""
        if not forwarded or not self.trusts(peer):
            return peer
        client = peer
        for entry in reversed(forwarded.split(",")):
            entry = entry.strip()
            try:
                ipaddress.ip_address(entry)
            except ValueError:
                break
            client = entry
            if not self.trusts(entry):
                break
        return client


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return str(client[0]) if client else "unknown"


def origin_allowed(scope: Scope, allowed_origins: frozenset[str]) -> bool:
    """The request's ``Origin`` is absent (not a browser), the server's own (its ``Host``),
    or one of ``allowed_origins`` (lower case, no trailing slash; ``*``: any)."""
    origin = _header(scope, b"origin")
    if origin is None:
        return True
    origin = origin.rstrip("/").lower()
    if origin in allowed_origins or "*" in allowed_origins:
        return True
    try:
        parts = urlsplit(origin)
    except ValueError:  # ("http://[::1": no URL; it raised, a 500)
        return False
    host = _header(scope, b"host")
    return (
        parts.scheme in ("http", "https")
        and host is not None
        and (parts.netloc == host.strip().lower())
    )


class Guard:
    """The middleware. ``trusted_hosts``: the host names this server answers to (None:
    any; a name may start with ``*.`` for its subdomains); ``allowed_origins``: other
    origins (``https://club.example``) whose pages may open WebSockets here."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        limits: Limits,
        refusals: RefusalLog,
        trusted_hosts: Iterable[str] | None = None,
        allowed_origins: Iterable[str] = (),
        json_paths: Iterable[str] = ("/api/tables", "/api/quick"),
        trusted_proxies: TrustedProxies | None = None,
    ) -> None:
        self.app = app
        self.proxies = trusted_proxies or TrustedProxies()
        #: the paths that change state: a POST there must be JSON (elsewhere the router
        #: answers 405); a table's ``/seats`` too (:meth:`wants_json`)
        self.json_paths = frozenset(json_paths)
        self.limits = limits
        self.refusals = refusals
        self.trusted_hosts, self.allowed_origins = hosts_and_origins(trusted_hosts, allowed_origins)
        self.creations = TokenBuckets(limits.create_burst, limits.create_refill_s)
        #: client address -> open WebSockets
        self.sockets: dict[str, int] = {}

    # ------------------------------------------------------------------ checks

    def wants_json(self, path: Any) -> bool:
        """Whether a POST to ``path`` must declare a JSON body: the paths of
        :attr:`json_paths`, and ``/api/tables/{id}/seats`` (the sit-down)."""
        if not isinstance(path, str):
            return False
        if path in self.json_paths:
            return True
        head, _, rest = path.partition("/api/tables/")
        return not head and rest.endswith("/seats") and rest.count("/") == 1

    def host_allowed(self, host: str | None) -> bool:
        if self.trusted_hosts is None or "*" in self.trusted_hosts:
            return True
        if not host:
            return False
        name = host_name(host)
        if name in self.trusted_hosts:
            return True
        return any(t.startswith("*.") and name.endswith(t[1:]) for t in self.trusted_hosts)

    def origin_allowed(self, scope: Scope) -> bool:
        """No ``Origin`` (not a browser), the server's own, or an allowed one."""
        return origin_allowed(scope, self.allowed_origins)

    # ------------------------------------------------------------------ ASGI

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if self.proxies and kind in ("http", "websocket"):
            peer = _client(scope)
            forwarded = ",".join(
                bytes(v).decode("latin-1")
                for k, v in scope.get("headers", ())
                if k == b"x-forwarded-for"
            )
            client = self.proxies.client(peer, forwarded)
            if client != peer:  # the app, its limits and its log see the client
                scope = {**scope, "client": (client, 0)}
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self.app(scope, receive, send)

    async def _refuse(
        self,
        send: Send,
        scope: Scope,
        status: int,
        kind: str,
        message: str,
        headers: Iterable[tuple[bytes, bytes]] = (),
    ) -> None:
        self.refusals.note(kind, _client(scope), message)
        body = json.dumps({"error": message}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),
                    *SECURITY_HEADERS,
                    *headers,
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        host = _header(scope, b"host")
        if not self.host_allowed(host):
            await self._refuse(
                send,
                scope,
                400,
                "host",
                f"the Host header {host!r} is not a name of this server (see --trusted-hosts)",
            )
            return
        method = scope.get("method", "GET")
        limit = self.limits.max_body_bytes
        if method in _UNSAFE_METHODS and self.wants_json(scope.get("path")):
            ctype = (_header(scope, b"content-type") or "").split(";", 1)[0].strip().lower()
            if ctype != "application/json":
                await self._refuse(
                    send,
                    scope,
                    415,
                    "content_type",
                    f"a {method} request must have Content-Type: application/json, "
                    f"got {ctype or 'none'!r}",
                )
                return
        length = _header(scope, b"content-length")
        if length is not None:
            if not (length.isascii() and length.strip().isdigit()):
                await self._refuse(send, scope, 400, "body", "the Content-Length is not a number")
                return
            if int(length) > limit:
                await self._refuse(
                    send,
                    scope,
                    413,
                    "body",
                    f"the request body is larger than {limit} bytes ({int(length)} announced)",
                )
                return
        if method == "POST" and scope.get("path") in ("/api/tables", "/api/quick"):
            wait = self.creations.take(_client(scope))
            if wait:
                await self._refuse(
                    send,
                    scope,
                    429,
                    "create_rate",
                    f"more than {self.limits.create_burst} requests for a new table in a "
                    f"short time from this address (refused ones count): wait "
                    f"{retry_after(wait)} s",
                    [(b"retry-after", retry_after(wait).encode())],
                )
                return

        received = 0
        started = False

        async def limited_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge
            return message

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message = dict(message)
                names = {bytes(k).lower() for k, _ in message.get("headers", ())}
                message["headers"] = [
                    *message.get("headers", ()),
                    *(h for h in SECURITY_HEADERS if h[0] not in names),
                ]
            await send(message)

        try:
            await self.app(scope, limited_receive, send_with_headers)
        except BodyTooLarge:
            if started:
                raise
            await self._refuse(
                send, scope, 413, "body", f"the request body is larger than {limit} bytes"
            )

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        host = _header(scope, b"host")
        problem = None
        if not self.host_allowed(host):
            problem = ("host", f"the Host header {host!r} is not a name of this server")
        elif not self.origin_allowed(scope):
            origin = _header(scope, b"origin")
            problem = ("origin", f"a page from {origin!r} may not open a WebSocket here")
        client = _client(scope)
        if problem is None and self.sockets.get(client, 0) >= self.limits.max_sockets_per_client:
            problem = (
                "sockets",
                f"more than {self.limits.max_sockets_per_client} WebSockets from one address",
            )
        if problem is not None:
            self.refusals.note(problem[0], client, problem[1])
            message = await receive()  # websocket.connect
            if message["type"] == "websocket.connect":
                # closing before accepting refuses the handshake (HTTP 403)
                await send({"type": "websocket.close", "code": 1008, "reason": problem[1][:100]})
            return
        self.sockets[client] = self.sockets.get(client, 0) + 1
        try:
            await self.app(scope, receive, send)
        finally:
            left = self.sockets[client] - 1
            if left:
                self.sockets[client] = left
            else:
                del self.sockets[client]
