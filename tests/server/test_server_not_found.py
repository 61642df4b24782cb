"""An address no route answers: a program's address gets the API's JSON refusal, a person's
(a mistyped or cut link) a page in the browser's language with a way back."""

from __future__ import annotations

import pytest
from server_helpers import MakeApp
from starlette.testclient import TestClient

from tapete.server.i18n import NOT_FOUND, preferred_language


@pytest.mark.sqlite_only
def test_a_person_lost_gets_a_page_in_their_language(make_app: MakeApp) -> None:
    with TestClient(make_app()) as client:
        for accept, lang in [("pt-BR,pt;q=0.9,en;q=0.8", "pt"), ("de, es;q=0.5", "es"), ("", "en")]:
            r = client.get("/table/x", headers={"Accept-Language": accept})
            title, sentence, back = NOT_FOUND[lang]
            assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
            assert f'<html lang="{lang}">' in r.text and title in r.text and sentence in r.text
            assert f'<a href="/" data-testid="not-found-home">{back}</a>' in r.text
            # the server's security headers are on this page too
            assert "default-src" in r.headers["content-security-policy"]


@pytest.mark.sqlite_only
def test_a_program_lost_gets_json(make_app: MakeApp) -> None:
    with TestClient(make_app()) as client:
        for path in ("/api/nothing", "/api/tables/1/nothing", "/static/nothing.js", "/api", "/ws"):
            r = client.get(path)
            assert r.status_code == 404 and r.json() == {"error": f"there is nothing at {path}"}
        r = client.post("/table/x", json={})  # (no page for a program's POST)
        assert r.status_code == 404 and "error" in r.json()
        r = client.delete("/api/lobby")
        assert r.status_code == 405 and r.json() == {"error": "DELETE is not allowed on /api/lobby"}
        assert "GET" in r.headers["allow"]
        # a long address is not echoed whole
        r = client.get("/api/" + "x" * 5000)
        assert r.status_code == 404 and len(r.json()["error"]) < 250


@pytest.mark.parametrize(
    ("header", "lang"),
    [
        (None, "en"),
        ("es-ES", "es"),
        ("fr, pt;q=0.4, es;q=0.6", "es"),
        ("en;q=0, pt", "pt"),
        ("es;q=0", "en"),
        ("es;q=abc, pt;q=0.1", "pt"),
        ("*", "en"),
        ("x" * 100_000, "en"),
    ],
)
def test_preferred_language(header: str | None, lang: str) -> None:
    assert preferred_language(header) == lang
