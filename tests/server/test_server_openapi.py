"""The OpenAPI document at /api/openapi.json: in step with the routes, and every endpoint
run with input generated from it (schemathesis): no 5xx, every answer matches its schema.
Bounded: a few dozen examples an endpoint, on loopback only (in-process ASGI)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import jsonschema_rs
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from server_helpers import set_secret
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.testclient import TestClient

from tapete.server.app import create_app
from tapete.server.clock import ClockSettings
from tapete.server.limits import Limits
from tapete.server.openapi import openapi_document


def _app(path: Path):  # type: ignore[no-untyped-def]
    app = create_app(
        f"sqlite:///{path}",
        delay_ms=0,
        limits=Limits(create_burst=100_000, hint_burst=100_000, hint_processes=0, list_cache_s=0),
    )
    set_secret(app)
    return app


def test_the_document_lists_every_http_route(tmp_path: Path) -> None:
    app = _app(tmp_path / "t.sqlite3")
    routes: set[tuple[str, str]] = set()
    for route in app.routes:
        if isinstance(route, Route):
            for method in route.methods or ():
                if method != "HEAD":
                    routes.add((route.path, method.lower()))
        else:
            assert isinstance(route, Mount | WebSocketRoute), route
    with TestClient(app) as client:
        served = client.get("/api/openapi.json").json()
    assert served == openapi_document(app.state.limits)
    documented = {(path, m) for path, ops in served["paths"].items() for m in ops}
    assert documented == routes


def _api() -> schemathesis.BaseSchema:
    """The app on a temporary database with one finished and one unfinished table."""
    folder = Path(tempfile.mkdtemp(prefix="tapete-openapi-"))
    app = _app(folder / "t.sqlite3")
    with TestClient(app) as client:
        for seed in (None, 4):
            body: dict[str, object] = {"game": "mariage", "name": "Ana", "levels": ["random"]}
            if seed is not None:
                body["seed"] = seed
            assert client.post("/api/tables", json=body).status_code == 201
    return schemathesis.openapi.from_asgi("/api/openapi.json", app)


schema = _api()
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


@schema.parametrize()
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_endpoint_with_generated_input(case: schemathesis.Case) -> None:
    """No 5xx, and every answer's status, content type, headers and body are the documented
    ones. (Schemathesis's other checks judge which inputs must be accepted or how an
    undocumented method is refused; the document does not spell the name rules out.)"""
    case.call_and_validate(checks=CHECKS)


def test_the_config_answer_is_documented_whole(tmp_path: Path) -> None:
    """/api/config, what a client reads to make a table without knowing a game by name (the
    Node client does): every field of the answer is in the document, the server's default
    clock set or not (schemathesis sees only a server without one)."""
    for n, clock in enumerate((None, ClockSettings(move_s=30, bank_s=120))):
        app = create_app(f"sqlite:///{tmp_path / f'{n}.sqlite3'}", delay_ms=0, clock=clock)
        with TestClient(app) as client:
            answer = client.get("/api/config").json()
        documented = openapi_document(app.state.limits)["paths"]["/api/config"]["get"]
        schema = documented["responses"]["200"]["content"]["application/json"]["schema"]
        jsonschema_rs.validate(schema, answer)
        assert set(answer) == set(schema["properties"]), answer
        kinds = schema["properties"]["kinds"]["items"]["properties"]
        assert all(set(k) == set(kinds) for k in answer["kinds"]), answer["kinds"]
        assert (answer["default_clock"] is None) == (clock is None)
