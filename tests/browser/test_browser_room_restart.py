"""Two people at one table through an invitation link (two browser contexts), and the real
server (``tapete serve`` in a child process, on a SQLite file or a PostgreSQL database of
the test's own) stopped mid-trick, cleanly (SIGTERM) or by a crash (SIGKILL), then started
again on the same port and database.

Both pages reconnect by themselves (no reload), hold the same hand, trick and scores, and
the game goes on: both people play again, and Mil's computer seat too. No action is lost:
every version a page was shown before the server went away is in the database as the crash
left it (the same seat and action), *What happened* keeps its lines and gets the missed
ones, the versions each page saw run on without a gap, and the record the API gives at the
end of the deal holds the very actions the pages were shown."""

from __future__ import annotations

import contextlib
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from browser_helpers import (
    create_invited_table,
    enabled_cards,
    play_until,
    sit_down,
    state,
    view,
    wait_playing,
)
from browser_server import ChildServer
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tapete.replay import iter_replay

# the server tests' PostgreSQL helpers (a database of the test's own, dropped at its end)
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from db_helpers import Databases, admin_connection

#: per game: the Lobby's choice and the seats (Mil: a computer in the third seat)
GAMES = {
    "mil": ("mil-club", ["me", "invited", "computer:random"]),
    "mariage": ("mariage-mariage", ["me", "invited"]),
}
COMPUTER = 2  # Mil's computer seat
LOG_LINES = 8  # the lines What happened keeps (web/js/history.js)
#: What happened in words, as the page shows it (its lines hold the events: history.js)
LOG_WORDS = """async () => { const { lineText } = await import('/static/js/history.js');
    return window.tapete.log.map(lineText); }"""


def watch_frames(page) -> list[dict[str, Any]]:  # type: ignore[no-untyped-def]
    """Every message the page's table sockets receive (each connection it opens), parsed."""
    frames: list[dict[str, Any]] = []

    def on_socket(ws) -> None:  # type: ignore[no-untyped-def]
        if "/ws/lobby" not in ws.url:
            ws.on("framereceived", lambda text: frames.append(json.loads(text)))

    page.on("websocket", on_socket)
    return frames


def seen_actions(frames: list[dict[str, Any]]) -> dict[int, dict[str, Any]]:
    """Version -> the action event the page was shown at that version (in a ``view`` or
    ``patch`` message, or in the ``events`` catch-up after a reconnection); one action per
    version."""
    out: dict[int, dict[str, Any]] = {}
    for m in frames:
        if m.get("type") in ("view", "patch"):
            batches = [(m["version"], m.get("events") or [])]
        elif m.get("type") == "events":
            batches = [(s["version"], s["events"]) for s in m["steps"]]
        else:
            continue
        for version, events in batches:
            acts = [e for e in events if e["type"] == "action"]
            if acts:
                assert len(acts) == 1, (version, events)
                assert out.setdefault(version, acts[0]) == acts[0], (version, out[version], acts)
    return out


def check_no_gap(frames: list[dict[str, Any]], last: int) -> None:
    """The page was shown every version after its first view, up to ``last``."""
    first = next(m["version"] for m in frames if m.get("type") == "view")
    assert sorted(seen_actions(frames)) == list(range(first + 1, last + 1)), (first, last)


def stored_actions(db_url: str, table_id: int) -> list[tuple[int, dict[str, Any]]]:
    """The table's action log as the database holds it: (seat, action) per version."""
    engine = sa.create_engine(db_url, poolclass=sa.NullPool)
    try:
        with engine.connect() as c:
            rows = c.execute(
                sa.text("SELECT n, seat, action FROM actions WHERE table_id = :t ORDER BY n"),
                {"t": table_id},
            ).all()
    finally:
        engine.dispose()
    assert [n for n, _, _ in rows] == list(range(len(rows))), "a gap in the stored actions"
    # (SQLite gives the JSON column's text, PostgreSQL the value)
    return [(seat, json.loads(a) if isinstance(a, str) else a) for _, seat, a in rows]


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of the restarted servers' database: a SQLite file, or a PostgreSQL database
    of the test's own, dropped at its end (tests/server/db_helpers.py)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'room.sqlite'}"
        return
    admin = admin_connection()
    databases = Databases(admin)
    try:
        yield databases.new()
    finally:
        databases.drop_all()
        admin.close()


def check_stored(seen: dict[int, dict[str, Any]], stored: list[tuple[int, dict[str, Any]]]) -> None:
    """Every action shown at version v is the stored action v - 1 (what the page may see of
    it: another seat's given card is hidden)."""
    for version, event in sorted(seen.items()):
        assert version <= len(stored), f"version {version} was shown, {len(stored)} are stored"
        seat, action = stored[version - 1]
        shown = {k: v for k, v in event["action"].items() if v is not None}
        assert event["seat"] == seat and shown.items() <= action.items(), (version, event, action)


def played(v: dict[str, Any]) -> list[dict[str, Any]]:
    """The cards played in the deal so far, in order (Mil's view keeps every trick)."""
    return [c for t in v["tricks"] for c in t["cards"]] + v["trick"]


def mid_trick(pages: dict[str, Any], game: str) -> bool:
    """Every page at the same version, a trick done and a card led in the next one (Mil: the
    computer's turn in it, so that the restarted server has a move to make at once, and not
    the deal's last trick, so that it has more to make after the restart: stopped in the last
    trick, the people ended the deal alone and the test found no computer move after it)."""
    if len({state(p)["version"] for p in pages.values()}) != 1:
        return False
    v = view(next(iter(pages.values())))
    if v["over"] or not v["trick"] or sum(v["tricks_won"]) < 1:
        return False
    return game != "mil" or (v["turn"] == COMPUTER and len(v["hand"]) > 1)


def check_same_table(
    game: str, before: dict[str, Any], after: dict[str, Any], missed: list[dict[str, Any]]
) -> None:
    """The view after the restart is the one before, but for the ``missed`` moves (Mil's
    computer playing its card into the trick)."""
    if game != "mil":
        assert after == before
        return
    for key in ("hand", "players", "dealer", "scores", "contract"):
        assert after[key] == before[key], key
    cards = [{"seat": e["seat"], "card": e["action"]["card"]} for e in missed]
    assert played(after) == played(before) + cards


def check_lines(before: list[str], after: list[str], missed: list[str]) -> None:
    """What happened kept its lines (the last ``LOG_LINES``) and says each missed move after
    them, one line a version (``missed``: the names of who made them)."""
    keep = min(LOG_LINES, len(before) + len(missed))
    assert len(after) == keep, (before, after)
    old = after[: keep - len(missed)]
    assert old == before[len(before) - len(old) :], (before, after)
    assert all(name in line for name, line in zip(missed, after[len(old) :], strict=True)), after


def wait_back(page) -> None:  # type: ignore[no-untyped-def]
    """The page is connected again, at a person's turn, both people shown connected and
    neither seat played by a computer (the clocks of the rebuilt table)."""
    page.wait_for_function(
        """([c]) => { const t = window.tapete; const m = document.querySelector('#table');
            if (m.dataset.offline !== 'false' || !t.view || t.view.turn === c) return false;
            const seats = (t.clocks && t.clocks.seats) || [];
            return [0, 1].every(s => seats[s] && seats[s].connected && !seats[s].taken); }""",
        arg=[COMPUTER],
        timeout=30_000,
    )


def reach_version(page, version: int) -> None:  # type: ignore[no-untyped-def]
    """The page's table shows ``version`` (at most 10 s; then the assertion after says how
    far each page came)."""
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(
            "([v]) => Number(document.querySelector('#table').dataset.version) >= v",
            arg=[version],
            timeout=10_000,
        )


@pytest.mark.parametrize("how", ["stop", "kill"])
@pytest.mark.parametrize("game", ["mil", "mariage"])
def test_two_people_go_on_after_a_server_restart(new_page, tmp_path, database, game, how) -> None:  # type: ignore[no-untyped-def]
    db, out = database, tmp_path / "server.log"
    # a pause before each computer move: time to stop the server while the computer thinks
    first = ChildServer(db, out, delay_ms=1500).start()
    second = None
    try:
        choice, seats = GAMES[game]
        ana = new_page(locale="en-GB")
        frames = {"ana": watch_frames(ana)}
        link = create_invited_table(ana, first.url, choice, seats)
        bea = new_page(locale="en-GB")
        frames["bea"] = watch_frames(bea)
        sit_down(bea, link, "Bea", host="Ana")
        wait_playing(ana, bea)
        pages = {"ana": ana, "bea": bea}
        table_id = ana.evaluate("() => window.tapete.session.table")
        token = ana.evaluate("() => window.tapete.session.token")
        info = f"/api/tables/{table_id}?token={token}"

        rng = random.Random(11)
        logs: dict[str, list[str]] = {"ana": [], "bea": []}
        # (in any deal: a deal can end before its first trick, by a redeal)
        play_until(
            pages, rng, logs, lambda: mid_trick(pages, game), seconds=60, deal=99, settle=True
        )
        before = {w: view(p) for w, p in pages.items()}
        held = {w: int(state(p)["version"]) for w, p in pages.items()}
        lines = {w: p.evaluate(LOG_WORDS) for w, p in pages.items()}
        for p in pages.values():
            p.evaluate("() => { window.__same_page = true; }")  # (a reload would lose it)

        if how == "kill":
            first.kill()
        else:
            first.stop()
        for p in pages.values():  # the pages say so, and play waits
            p.wait_for_function("() => document.querySelector('#table').dataset.offline === 'true'")
            assert enabled_cards(p) == [] and "reconnecting" in p.inner_text("#status")
        # the database as the server left it holds every action any page was shown
        stored = stored_actions(db, table_id)
        shown = {v: e for f in frames.values() for v, e in seen_actions(f).items()}
        check_stored(shown, stored)
        assert len(stored) >= max(held.values()), (held, len(stored))

        second = ChildServer(db, out, port=first.port).start()
        for p in pages.values():
            wait_back(p)
        # each page comes to the server's version (a page may draw the computer's move a
        # moment after the other: in CI one page still showed the version before it)
        target = second.get(info)["version"]
        for p in pages.values():
            reach_version(p, target)
        now = {w: int(state(p)["version"]) for w, p in pages.items()}
        assert set(now.values()) == {target}, now
        for who, p in pages.items():
            assert p.evaluate("() => window.__same_page === true"), f"{who}'s page was reloaded"
            missed = [seen_actions(frames[who])[v] for v in range(held[who] + 1, now[who] + 1)]
            # only the computer moved while the pages were away: the restarted server played
            # its turn (Mil); nobody else could
            assert all(e["seat"] == COMPUTER for e in missed), missed
            assert bool(missed) == (game == "mil"), missed
            check_same_table(game, before[who], view(p), missed)
            names = [view(p)["players"][e["seat"]] for e in missed]
            check_lines(lines[who], p.evaluate(LOG_WORDS), names)

        # the game goes on: both people play again, the computer too, to the deal's end
        moved = {w: len(log) for w, log in logs.items()}
        deals = int(state(ana)["deals"])

        def deal_over() -> bool:
            return all(
                int(state(p)["deals"]) > deals or state(p)["paused"] == "true"
                for p in pages.values()
            )

        play_until(pages, rng, logs, deal_over, seconds=90, deal=deals)
        assert all(len(logs[w]) > moved[w] for w in pages), (moved, logs)
        if game == "mil":
            computer = [v for v, e in seen_actions(frames["ana"]).items() if e["seat"] == COMPUTER]
            assert any(v > max(now.values()) for v in computer), "the computer did not play"

        # the versions ran on without a gap, and the record holds what the pages were shown
        for p in pages.values():
            wait_back(p)  # (the next deal's computer bid, if it is first, shown)
        final = second.get(info)["version"]
        stored = stored_actions(db, table_id)
        versions = {int(state(p)["version"]) for p in pages.values()}
        assert final == len(stored) and versions == {final}, (final, len(stored), versions)
        for who in pages:
            check_no_gap(frames[who], final)
        check_stored({v: e for f in frames.values() for v, e in seen_actions(f).items()}, stored)
        record = second.get(f"/api/tables/{table_id}/record?token={token}")
        # (every finished deal, as many as the pages' sheets show at the final version: the
        # next deal may have ended too, when the computer opened it with a redeal)
        shown_deals = {int(state(p)["deals"]) for p in pages.values()}
        assert shown_deals == {len(record["deals"])} and len(record["deals"]) > deals, (
            shown_deals,
            deals,
            record["deals"],
        )
        # the record's steps, with the engine actions its format leaves out (a kept deal:
        # {"type": "keep"}) put back by the replay, are the stored log
        steps = [(g.turn, a.to_json()) for g, a in iter_replay(record)]
        assert steps and steps == stored[: len(steps)], (steps, stored)
        assert not ana.js_errors and not bea.js_errors
    finally:
        first.kill()
        if second is not None:
            second.stop()
