"""Issue 13, item 11: a client in another language plays through the documented interface.

``examples/node-client/tapete-client.mjs`` is a Node.js program written from
docs/dev/protocol.md, docs/server.md and the OpenAPI document alone. Here it plays whole
games against a real server under uvicorn (Mil and Mariage, patches and whole views, a
dropped socket caught up with ``sync``), and the test checks what it did against the
server: the game over, the same final standing as the stored record, every action it sent
accepted and stored, and every message it received valid under the JSON Schema the
project publishes for its type (``tapete.server.messages``, the schemas of protocol.md).
A fake server then checks that the client stops, saying what and where, at what the
documents do not lead it to expect, and that it sends its action again, after a moment,
when the server says "try again" (``not_saved``, ``rate_limited``).

Node 20.10 or later is required on every machine of this project's kind: without it the
test fails (CI runs every test).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import uvicorn
from server_helpers import stored_actions
from sqlalchemy import func, select
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from serving import free_port, uvicorn_thread
from tapete.games import kind
from tapete.server.db import ActionRow, TableRow
from tapete.server.messages import schema_of
from tapete.server.tables import game_of

CLIENT = Path(__file__).resolve().parents[2] / "examples" / "node-client" / "tapete-client.mjs"

#: the first Node with a global WebSocket (behind --experimental-websocket)
NODE_MIN = (20, 10)

#: a whole run of the client, however loaded the machine
RUN_TIMEOUT_S = 120


@pytest.fixture(scope="module")
def node() -> str:
    """The ``node`` program, 20.10 or later; the test fails (never skips) without it."""
    path = shutil.which("node")
    if path is None:
        pytest.fail(
            f"node is not on PATH: the example client needs Node {NODE_MIN[0]}.{NODE_MIN[1]}+"
        )
    out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=60)
    found = re.fullmatch(r"v(\d+)\.(\d+)\.\d+\S*", out.stdout.strip())
    if found is None or (int(found[1]), int(found[2])) < NODE_MIN:
        pytest.fail(
            f"{path} is {out.stdout.strip() or out.stderr.strip()!r}: the example client "
            f"needs Node {NODE_MIN[0]}.{NODE_MIN[1]} or later (the global WebSocket)"
        )
    return path


@dataclass
class Run:
    """What the client did: its exit status, its summary line's fields, what it printed and
    the messages it logged."""

    status: int
    summary: dict[str, Any]
    out: str
    messages: list[dict[str, Any]]
    #: the view the client built from the messages (whole views, patches, sheet rows)
    view: Any


def run_client(node: str, base_url: str, log: Path, *options: str) -> Run:
    command = [node, "--experimental-websocket", str(CLIENT), "--server", f"http://{base_url}"]
    command += ["--log", str(log), "--final-view", str(log.with_suffix(".view.json"))]
    command += ["--timeout", str(RUN_TIMEOUT_S - 20), *options]
    done = subprocess.run(command, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
    out = done.stdout + done.stderr
    summary: dict[str, Any] = {}
    lines = done.stdout.splitlines()
    if done.returncode == 0:
        assert len(lines) == 1 and lines[0].startswith("over "), out
        for field in lines[0].removeprefix("over ").split(" "):
            key, _, value = field.partition("=")
            summary[key] = json.loads(value)
    messages = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    view = log.with_suffix(".view.json")
    return Run(
        done.returncode,
        summary,
        out,
        messages,
        json.loads(view.read_text()) if view.exists() else None,
    )


def get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as r:
        return json.loads(r.read())


@dataclass(frozen=True)
class Game:
    """A game the client plays: the table it asks for and how it behaves."""

    game: str
    profile: str
    level: str
    seed: int
    max_deals: int | None  # None: a whole game (a Mariage match is short)
    drop: int  # the version from which it drops its socket once
    patches: bool = True
    stale: bool = False  # it sends one action with the version before first

    def options(self) -> list[str]:
        out = ["--game", self.game, "--profile", self.profile, "--level", self.level]
        out += ["--seed", str(self.seed), "--drop-at-version", str(self.drop)]
        if self.max_deals is not None:
            out += ["--max-deals", str(self.max_deals)]
        return out + ["--no-patches"] * (not self.patches) + ["--stale-once"] * self.stale


# kept short (a few deals, or a Mariage match), each with one dropped socket
GAMES = [
    pytest.param(Game("mil", "club", "rules", 3, 2, 5), id="mil-club-patches"),
    pytest.param(Game("mariage", "mariage", "rules", 5, None, 9, stale=True), id="mariage"),
    pytest.param(Game("mil", "casa-500", "random", 8, 3, 20, patches=False), id="mil-views"),
]


@pytest.mark.parametrize("setup", GAMES)
def test_the_node_client_plays_a_game(
    node: str, served: tuple[str, Starlette], tmp_path: Path, setup: Game
) -> None:
    base_url, app = served
    game, max_deals = setup.game, setup.max_deals
    options = setup.options()
    run = run_client(node, base_url, tmp_path / "messages.jsonl", *options)
    assert run.status == 0, run.out
    summary = run.summary
    score_key = kind(game).score_key
    table = summary["table"]

    # the game is over on the server, where the client saw it end, with the same standing
    info = get(f"http://{base_url}/api/tables/{table}")
    assert info["status"] == "finished", info
    assert (info["version"], info["winner"]) == (summary["version"], summary["winner"]), info
    record = get(f"http://{base_url}/api/tables/{table}/record")
    assert record[score_key] == summary[score_key], (record[score_key], summary)
    assert record["winner"] == summary["winner"]
    if max_deals is not None:
        assert len(record["deals"]) == max_deals
    else:
        assert summary["winner"] is not None  # a whole Mariage match
    with app.state.manager.sessions() as s:
        row = s.get(TableRow, table)
        assert row is not None and row.final_scores == summary[score_key]
        # every action the client sent was accepted and stored (the stale one is not
        # counted: it was refused)
        ours = select(func.count()).where(ActionRow.table_id == table, ActionRow.seat == 0)
        assert s.scalar(ours) == summary["actions"] > 0
        game_then = game_of(row)
    assert summary["stale"] == setup.stale
    # the view the client built from whole views and patches is the seat's view of the game
    # the stored actions make, key by key (the sheet's rows appended, removed keys gone)
    for action in stored_actions(app, table):
        game_then.apply(game_then.parse_action(action))
    assert run.view == json.loads(json.dumps(game_then.view(0)))

    # every message it received is in its log, and matches its type's published schema
    assert len(run.messages) == summary["messages"]
    for n, message in enumerate(run.messages):
        kinds = ("view", "patch", "events", "error", "presence", "chat", "hint")
        assert message.get("type") in kinds, (n, message)
        jsonschema_rs.validate(schema_of("server", message), message)
    types = {m["type"] for m in run.messages}
    assert ("patch" in types) == setup.patches, types
    errors = [m["code"] for m in run.messages if m["type"] == "error"]
    assert errors == ["stale_version"] * setup.stale

    # the dropped socket: the client asked `sync` with the version it held, got the missed
    # versions as events, then the whole view of the last of them
    assert summary["reconnections"] == 1 and summary["caught_up"] >= 1, summary
    answers = [n for n, m in enumerate(run.messages) if m["type"] == "events"]
    assert len(answers) == 1
    events = run.messages[answers[0]]
    assert events["since"] >= setup.drop and len(events["steps"]) == summary["caught_up"]
    after = run.messages[answers[0] + 1]
    assert after["type"] == "view" and after["version"] == events["version"], after


# ---- a fake server: what the client must refuse ------------------------------------------

VIEW = {"seat": 0, "players": ["Ana", "Bea"], "legal": [], "over": False, "turn": 1, "sheet": []}
ACTION = {"type": "action", "seat": 1, "action": {"type": "play", "card": "KH"}, "index": 0}


def _view(version: int, sheet_from: int = 0, events: list[Any] | None = None) -> dict[str, Any]:
    return {
        "type": "view",
        "version": version,
        "view": VIEW,
        "sheet_from": sheet_from,
        "events": events or [],
    }


def _patch(version: int, patch_of: int, removed: list[str]) -> dict[str, Any]:
    return {
        "type": "patch", "version": version, "patch_of": patch_of, "view": {"turn": 1},
        "removed": removed, "sheet_from": 0, "events": [ACTION],
    }  # fmt: skip


# (the messages after a first whole view of version 0, what the client must say)
SURPRISES = [
    pytest.param([{"type": "surprise"}], 'unknown type "surprise"', id="unknown-type"),
    pytest.param([_view(2, events=[ACTION])], "version gap", id="view-gap"),
    pytest.param([_patch(4, 3, [])], "a patch of version 3, but version 0 is held", id="patch-of"),
    pytest.param([_patch(2, 0, [])], "a patch to version 2 from 0", id="patch-gap"),
    pytest.param([_patch(1, 0, ["bids"])], 'removes "bids"', id="patch-removes"),
    pytest.param([_view(1, 2, [ACTION])], "sheet_from 2 past the 0 rows held", id="sheet-from"),
    pytest.param(
        [{"type": "error", "code": "illegal", "message": "x", "detail": "not a card"}],
        "error illegal: not a card",
        id="error",
    ),
]


def fake_server(messages: list[dict[str, Any]]) -> Starlette:
    """The documented answers of /api/config and POST /api/tables, and a table socket that
    sends a first view and then ``messages``."""

    async def config(request: Request) -> JSONResponse:
        game = {"name": "mariage", "seats": 2, "profiles": [{"name": "mariage", "target": 7}]}
        return JSONResponse({"kinds": [{**game, "score_key": "match"}], "levels": ["rules"]})

    async def tables(request: Request) -> JSONResponse:
        body = {"table": 1, "seat": 0, "token": "t" * 32, "ranked": False}
        return JSONResponse(body, status_code=201)

    async def table(ws: WebSocket) -> None:
        await ws.accept(subprotocol="tapete")
        for message in [_view(0), *messages]:
            await ws.send_json(message)
        try:
            while True:
                await ws.receive_text()
        except WebSocketDisconnect:
            pass

    routes = [
        Route("/api/config", config),
        Route("/api/tables", tables, methods=["POST"]),
        WebSocketRoute("/ws/1", table),
    ]
    return Starlette(routes=routes)


@pytest.fixture
def fake(request: pytest.FixtureRequest) -> Iterator[str]:
    port = free_port()
    config = uvicorn.Config(
        fake_server(request.param), host="127.0.0.1", port=port, log_level="warning"
    )
    with uvicorn_thread(config):
        yield f"127.0.0.1:{port}"


@pytest.mark.parametrize(("fake", "said"), SURPRISES, indirect=["fake"])
def test_the_node_client_stops_at_a_surprise(
    node: str, fake: str, tmp_path: Path, said: str
) -> None:
    run = run_client(node, fake, tmp_path / "messages.jsonl", "--game", "mariage")
    assert run.status == 1, run.out
    assert run.out.startswith("tapete-client: table 1: "), run.out
    assert said in run.out and "holding version 0" in run.out, run.out


# ---- a fake server: what the client must try again ---------------------------------------

PLAY_KH = {"type": "play", "card": "KH"}


def retrying_server(
    refusals: list[str], received: list[tuple[float, Any]], refused: list[float]
) -> Starlette:
    """A Mariage table whose socket gives the client the turn (one legal card), answers its
    first actions with the errors ``refusals`` in turn (each a "try again" of protocol.md:
    the table is as before), then takes the action: the match's last trick, the match over.
    Every message received is kept in ``received`` with its time, and the time each error
    went in ``refused``."""

    async def table(ws: WebSocket) -> None:
        await ws.accept(subprotocol="tapete")
        turn = {**VIEW, "turn": 0, "legal": [PLAY_KH]}
        await ws.send_json({**_view(0), "view": turn})
        left = list(refusals)
        try:
            while True:
                text = await ws.receive_text()
                received.append((time.monotonic(), json.loads(text)))
                if left:
                    code = left.pop(0)
                    error = {"type": "error", "code": code, "message": code, "detail": code}
                    refused.append(time.monotonic())  # (before it goes: the client has it later)
                    await ws.send_json(error)
                    continue
                played = {**ACTION, "seat": 0, "action": PLAY_KH}
                over = {**VIEW, "over": True, "turn": None, "match": [7, 0], "winner": 0}
                await ws.send_json({**_view(1, events=[played]), "view": over})
        except WebSocketDisconnect:
            pass

    app = fake_server([])
    app.router.routes[-1] = WebSocketRoute("/ws/1", table)
    return app


def test_the_node_client_sends_its_action_again_after_not_saved_and_rate_limited(
    node: str, tmp_path: Path
) -> None:
    """``not_saved`` (the server could not store the action) and ``rate_limited`` leave the
    table as it was: the client sends the same action again after a moment (500 ms), not at
    once and not a different one, and plays on when it is taken."""
    received: list[tuple[float, Any]] = []
    refused: list[float] = []
    port = free_port()
    app = retrying_server(["not_saved", "rate_limited"], received, refused)
    with uvicorn_thread(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")):
        run = run_client(
            node, f"127.0.0.1:{port}", tmp_path / "messages.jsonl", "--game", "mariage"
        )
    assert run.status == 0, run.out
    assert run.summary["match"] == [7, 0] and run.summary["winner"] == 0, run.summary
    sent = [message for _, message in received]
    assert sent == [{"type": "act", "version": 0, "action": PLAY_KH}] * 3, sent
    # each try again came a moment after its error (the times are the server's: a pause of
    # its thread can only lengthen these gaps, never shorten them)
    gaps = [again - error for error, (again, _) in zip(refused, received[1:], strict=True)]
    assert all(gap >= 0.4 for gap in gaps), gaps
    errors = [m["code"] for m in run.messages if m["type"] == "error"]
    assert errors == ["not_saved", "rate_limited"], errors
