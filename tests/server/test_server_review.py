"""Deal reviews (``GET /api/tables/{id}/review/{deal}``): honesty while the game is on, the
bounded queue in front of the worker, one analysis per deal stored and reused, the
statistics' average loss, and the real worker process."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import warnings
from typing import Any

from server_helpers import CARD_RE, MakeApp, Session, new_table

from tapete.game import JSON
from tapete.server.review import ReviewSettings, compute_review, openapi_path

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*httpx2.*")
    from starlette.testclient import TestClient

#: reviews on request only (the background tests below turn it on)
QUICK = ReviewSettings(quick=True, process=False, background=False)


def play_until(client: TestClient, table_id: int, token: str, deals: int) -> dict[str, Any]:
    """Play seat 0 at random until ``deals`` deals are over (or the game); the last view."""
    with client.websocket_connect(f"/ws/{table_id}?token={token}") as ws:
        s = Session(ws)
        while True:
            v = s.wait_turn()
            if v["over"] or len(v["sheet"]) >= deals:
                return v
            s.act(s.rng.choice(v["legal"]))


def review(client: TestClient, table_id: int, deal: int, token: str | None = None) -> Any:
    query = f"?token={token}" if token else ""
    return client.get(f"/api/tables/{table_id}/review/{deal}{query}")


def test_a_deal_in_play_is_never_reviewed(make_app: MakeApp) -> None:
    app = make_app(review=QUICK)
    with TestClient(app) as client:
        table_id, token = new_table(client, game="mil", profile="club", seed=5)
        # the first deal is being played: refused for the seat, the spectator, a wrong token
        r = review(client, table_id, 0, token)
        assert r.status_code == 409, r.text
        assert r.json() == {"error": "deal 0 is not over yet: its review opens when the deal ends"}
        assert review(client, table_id, 0).status_code == 403
        assert review(client, table_id, 0, "x" * 32).status_code == 403
        v = play_until(client, table_id, token, 1)
        assert not v["over"] and len(v["sheet"]) == 1  # deal 1 is in play now
        r = review(client, table_id, 1, token)
        assert r.status_code == 409 and not CARD_RE.search(r.text), r.text
        assert review(client, table_id, 2, token).status_code == 409
        spectator = review(client, table_id, 0)
        assert spectator.status_code == 403 and not CARD_RE.search(spectator.text)
        assert spectator.json()["error"].startswith("the review of a deal of an unfinished")
        # the seat gets the deal that is over, and nothing of the one in play
        r = review(client, table_id, 0, token)
        assert r.status_code == 200, r.text
        body = r.json()
        manager = app.state.manager
        record = manager.record(manager.get(table_id))
        assert len(record["deals"]) == 1  # what the analysis saw: the finished deal only
        expected = compute_review(record, 0, True, 10.0, 0)
        assert body == {"table": table_id, "deal": 0, **expected}
        report, steps = body["report"], body["steps"]
        assert report["deal"] == 0 and report["kind"] == "mil"
        assert len(report["open_values"]) in (0, 9)
        first = record["deals"][0]
        assert [sorted(h) for h in steps[0]["hands"]] == [sorted(h) for h in first["hands"]]
        recorded = [s for s in steps if s["index"] is not None]
        assert [s["index"] for s in recorded] == list(range(len(first["actions"])))
        for s in recorded:
            entry = dict(first["actions"][s["index"]])
            assert entry.pop("seat") == s["seat"]
            assert {k: x for k, x in s["action"].items() if x is not False} == entry
        if not report["annulled"] and report["declarer"] is not None:
            assert report["talon"] == first["talon"]


def test_a_review_is_analysed_once_and_stored(make_app: MakeApp) -> None:
    app = make_app(review=QUICK)
    with TestClient(app) as client:
        table_id, token = new_table(client, game="mil", profile="club", seed=7, max_deals=1)
        assert play_until(client, table_id, token, 1)["over"]
        first = review(client, table_id, 0)  # a finished table: anyone
        assert first.status_code == 200, first.text
        again = review(client, table_id, 0, token)
        assert again.status_code == 200 and again.json() == first.json()
        assert app.state.reviews.started == 1
        missing = review(client, table_id, 1)
        assert missing.status_code == 404
        assert missing.json() == {"error": "there is no deal 1: the game has 1 deal(s), from 0"}
        assert review(client, table_id, -1).status_code == 400
        assert client.get("/api/tables/999/review/0").status_code == 404
        stats = client.get("/api/stats?name=Ana").json()
        assert [(r["game"], r["analysed_deals"]) for r in stats] == [("mil", 1)]
        loss = first.json()["report"]["seats"][0]["open_loss"]
        assert stats[0]["average_loss"] == (int(loss) if float(loss).is_integer() else loss)
    # a restarted server reads the stored review and analyses nothing
    app2 = make_app(review=QUICK)
    with TestClient(app2) as client:
        again = review(client, table_id, 0)
        assert again.status_code == 200 and again.json() == first.json()
        assert app2.state.reviews.started == 0


def slow_compute(release: threading.Event, calls: list[int]) -> Any:
    """A review's computation that notes its deal in ``calls`` and waits for ``release``."""

    def slow(record: JSON, deal: int, quick: bool, budget: float, seed: int) -> JSON:
        calls.append(deal)
        assert release.wait(20)
        return compute_review(record, deal, quick, budget, seed)

    return slow


def test_a_full_queue_answers_503_and_a_slow_analysis_202(make_app: MakeApp) -> None:
    settings = ReviewSettings(
        quick=True, process=False, max_pending=1, wait_s=0.2, background=False
    )
    app = make_app(review=settings)
    release = threading.Event()
    calls: list[int] = []
    app.state.reviews.compute = slow_compute(release, calls)
    with TestClient(app) as client:
        table_id, token = new_table(client, game="mil", profile="club", seed=7, max_deals=2)
        assert play_until(client, table_id, token, 2)["over"]
        t0 = time.monotonic()
        r = review(client, table_id, 0)
        assert r.status_code == 202 and r.headers["retry-after"] == "3", r.text
        assert r.json() == {"status": "pending", "retry_after": 3}
        # the same deal again joins the analysis under way; another one finds the queue full
        assert review(client, table_id, 0).status_code == 202
        full = review(client, table_id, 1)
        assert full.status_code == 503 and full.headers["retry-after"] == "3"
        assert "ask again" in full.json()["error"]
        assert time.monotonic() - t0 < 5  # no request hangs on a busy worker
        release.set()
        for deal in (0, 1):
            for _ in range(200):
                r = review(client, table_id, deal)
                if r.status_code != 202:
                    break
                time.sleep(0.05)
            assert r.status_code == 200 and r.json()["report"]["deal"] == deal
        assert calls == [0, 1]


def test_an_analysis_that_ends_while_a_request_looks_is_not_computed_again(
    make_app: MakeApp,
) -> None:
    """A request reads the stored review (none yet), and the analysis under way stores its
    review and ends before the request looks for it among those under way: the request's
    new job finds the stored review instead of computing the deal again."""
    app = make_app(review=ReviewSettings(quick=True, process=False, wait_s=0.2, background=False))
    reviews = app.state.reviews
    release = threading.Event()
    calls: list[int] = []
    real, late = reviews.stored, threading.Event()

    def stored(table_id: int, deal: int) -> JSON | None:
        if not late.is_set():
            return real(table_id, deal)
        late.clear()
        found = real(table_id, deal)  # (read while the analysis runs: nothing stored yet)
        release.set()
        deadline = time.monotonic() + 10
        while reviews.jobs and time.monotonic() < deadline:  # (it stores its review, ends)
            time.sleep(0.01)
        return found

    reviews.compute, reviews.stored = slow_compute(release, calls), stored
    with TestClient(app) as client:
        table_id, token = new_table(client, game="mariage", seed=3, max_deals=1)
        assert play_until(client, table_id, token, 1)["over"]
        assert review(client, table_id, 0).status_code == 202
        late.set()
        for _ in range(200):
            r = review(client, table_id, 0)
            if r.status_code != 202:
                break
            time.sleep(0.05)
        assert r.status_code == 200 and r.json()["report"]["deal"] == 0, r.text
    assert calls == [0]


def test_the_worker_process_reviews_a_mariage_hand(make_app: MakeApp) -> None:
    app = make_app(review=ReviewSettings(quick=True, wait_s=60, background=False))
    with TestClient(app) as client:
        table_id, token = new_table(client, game="mariage", seed=3, max_deals=1)
        assert play_until(client, table_id, token, 1)["over"]
        r = review(client, table_id, 0)
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["report"]["kind"] == "mariage" and body["report"]["quick"] is True
        assert body["steps"] and all(len(s["hands"]) == 2 for s in body["steps"])
        assert len(body["report"]["open_values"]) >= 2
        assert app.state.reviews.started == 1
        # the worker runs at a lower priority than the server (ReviewSettings.nice, 10)
        (pid,) = app.state.reviews._executor._processes
        mine = os.getpriority(os.PRIO_PROCESS, 0)
        assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, mine + 10)


def test_the_openapi_path_names_every_answer() -> None:
    op = openapi_path()["get"]
    assert set(op["responses"]) == {"200", "202", "400", "403", "404", "409", "500", "503"}
    assert [p["name"] for p in op["parameters"]] == ["table_id", "deal", "X-Tapete-Token", "token"]


def test_the_worker_process_imports_the_analysis_not_the_web_and_database_stack() -> None:
    """A review's job is pickled with its function's module, which a new worker process
    imports first: from tapete.server.review that was Starlette, SQLAlchemy and the tables,
    about three times the CPU before the first analysis (slow at niceness 10 on a busy
    machine). The worker's functions live in tapete.server.review_worker, which does not
    import them."""
    from tapete.server.review import ReviewService

    assert ReviewService.__init__.__module__ == "tapete.server.review"
    assert compute_review.__module__ == "tapete.server.review_worker"
    code = (
        "import sys, tapete.server.review_worker as w; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'starlette', 'sqlalchemy'}), "
        "'tapete.server.tables' in sys.modules, w.lower_priority.__module__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout.split()
    assert out == ["[]", "False", "tapete.server.review_worker"], out
