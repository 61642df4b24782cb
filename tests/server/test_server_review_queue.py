"""The background analysis of every finished deal (``ReviewService.background_step``): every
deal of a finished game is analysed once and counted in the statistics, the queue goes on
after a restart, it yields to reviews someone asked for and to game traffic, it never holds
up a table's actions, and a deal whose analysis keeps failing is skipped.

The background loop of these apps never wakes up (``poll_s`` is an hour): each test takes
the steps itself, with a quick analysis (open-handed, a budget of half a second) in a thread,
and a clock of its own for the quiet period, so that what the queue does is checked step by
step, not by timing."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from typing import Any

import pytest
from server_helpers import MakeApp, new_table
from sqlalchemy import select
from test_server_review import play_until, review

from tapete.game import JSON
from tapete.server.db import DealReviewRow, ReviewQueueRow
from tapete.server.review import ReviewService, ReviewSettings, compute_review

from starlette.testclient import TestClient  # isort: skip

BACKGROUND = ReviewSettings(quick=True, budget=0.5, process=False, poll_s=3600.0, quiet_s=0.0)


def step(client: TestClient, reviews: ReviewService) -> str:
    return str(client.portal.call(reviews.background_step))  # type: ignore[union-attr]


def finish_job(client: TestClient, reviews: ReviewService) -> None:
    async def wait() -> None:
        assert reviews.background_job is not None
        await reviews.background_job

    client.portal.call(wait)  # type: ignore[union-attr]


def run_until_idle(client: TestClient, reviews: ReviewService) -> list[str]:
    said = []
    for _ in range(50):
        said.append(step(client, reviews))
        if said[-1] == "idle":
            return said
        if said[-1] == "started":
            finish_job(client, reviews)
    raise AssertionError(f"the queue never emptied: {said}")


def queue_rows(app: Any) -> list[tuple[int, int | None, int, int, bool]]:
    with app.state.manager.sessions() as session:
        rows = session.scalars(select(ReviewQueueRow).order_by(ReviewQueueRow.table_id))
        return [(r.table_id, r.deals, r.next_deal, r.skipped, r.done_at is not None) for r in rows]


def stats_row(client: TestClient) -> dict[str, Any]:
    (row,) = client.get("/api/stats?name=Ana").json()
    return dict(row)


def test_every_finished_deal_is_analysed_once_and_counted_also_after_a_restart(
    make_app: MakeApp,
) -> None:
    app = make_app(review=BACKGROUND)
    with TestClient(app) as client:
        table_id, token = new_table(client, seed=7, max_deals=3, counted=True)
        assert play_until(client, table_id, token, 3)["over"]
        before = stats_row(client)
        assert before["analysed_deals"] == 0 and before["average_loss"] is None
        assert before["games_waiting_analysis"] == 1
        reviews = app.state.reviews
        assert step(client, reviews) == "started"  # deal 0; then the server stops
        finish_job(client, reviews)
        assert queue_rows(app) == [(table_id, 3, 1, 0, False)]
        assert stats_row(client)["analysed_deals"] == 1
    # a restarted server goes on from deal 1
    app2 = make_app(review=BACKGROUND)
    with TestClient(app2) as client:
        reviews = app2.state.reviews
        assert run_until_idle(client, reviews) == ["started", "started", "idle"]
        assert reviews.started == 2
        assert queue_rows(app2) == [(table_id, 3, 3, 0, True)]
        with app2.state.manager.sessions() as session:
            losses = [r.seat_losses[0] for r in session.scalars(select(DealReviewRow))]
        assert len(losses) == 3
        after = stats_row(client)
        assert after["analysed_deals"] == 3 and after["games_waiting_analysis"] == 0
        assert after["average_loss"] == pytest.approx(sum(losses) / 3, abs=0.005)
        # what the background stored is the review a person gets, with no new analysis
        record = app2.state.manager.record(app2.state.manager.get(table_id))
        for deal in range(3):
            r = review(client, table_id, deal)
            assert r.status_code == 200
            assert r.json() == {
                "table": table_id,
                "deal": deal,
                **compute_review(record, deal, True, 0.5, 0),
            }
        assert reviews.started == 2


class Gate:
    """An analysis that waits for the test: each ``open()`` lets one through."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, int]] = []
        self.done: list[tuple[int, int]] = []
        self._go = threading.Semaphore(0)
        self._called = threading.Condition()

    def __call__(self, record: JSON, deal: int, quick: bool, budget: float, seed: int) -> JSON:
        with self._called:
            self.calls.append((len(record["deals"]), deal))
            self._called.notify_all()
        assert self._go.acquire(timeout=30), "the test never let this analysis through"
        out = compute_review(record, deal, quick, budget, seed)
        self.done.append((len(record["deals"]), deal))
        return out

    def open(self) -> None:
        self._go.release()

    def called(self, n: int) -> list[tuple[int, int]]:
        """The calls, once there are ``n`` (the worker thread takes the job in its time)."""
        with self._called:
            assert self._called.wait_for(lambda: len(self.calls) >= n, timeout=30)
            return list(self.calls)


def test_the_queue_yields_to_requests_and_games_and_never_holds_up_a_table(
    make_app: MakeApp,
) -> None:
    app = make_app(review=replace(BACKGROUND, quiet_s=10.0, wait_s=0.2))
    reviews = app.state.reviews
    now = [1000.0]
    reviews.clock = lambda: now[0]
    gate = Gate()
    reviews.compute = gate
    with TestClient(app) as client:
        a, token_a = new_table(client, seed=7, max_deals=2)
        assert play_until(client, a, token_a, 2)["over"]
        # table a has just acted: the queue waits until the tables have been quiet for 10 s
        assert step(client, reviews) == "games"
        now[0] += 9.9
        assert step(client, reviews) == "games"
        now[0] += 0.2
        # a review someone asks for goes first: the queue starts nothing meanwhile
        assert review(client, a, 1).status_code == 202
        assert step(client, reviews) == "requests" and gate.called(1) == [(2, 1)]
        gate.open()
        for _ in range(400):
            if review(client, a, 1).status_code == 200:
                break
            time.sleep(0.01)
        assert review(client, a, 1).status_code == 200
        # now deal 0 (deal 1 is stored already); the analysis stays under way...
        assert step(client, reviews) == "started"
        assert gate.called(2) == [(2, 1), (2, 0)] and gate.done == [(2, 1)]
        # ...while another table is played from its first action to its end
        b, token_b = new_table(client, seed=8, max_deals=1)
        assert play_until(client, b, token_b, 1)["over"]
        assert client.get(f"/api/tables/{b}").json()["version"] > 20
        assert gate.done == [(2, 1)] and not reviews.background_job.done()  # type: ignore[union-attr]
        assert step(client, reviews) == "busy"  # one background analysis at a time
        gate.open()
        finish_job(client, reviews)
        assert gate.done == [(2, 1), (2, 0)]
        # table b's play was traffic: the queue waits again before b's deal
        assert step(client, reviews) == "games"
        now[0] += 10.0
        assert step(client, reviews) == "started"
        assert gate.called(3)[-1] == (1, 0)
        gate.open()
        finish_job(client, reviews)
        assert step(client, reviews) == "idle"
        assert queue_rows(app) == [(a, 2, 2, 0, True), (b, 1, 1, 0, True)]
        assert reviews.started == 3


def test_a_deal_whose_analysis_keeps_failing_is_skipped(make_app: MakeApp) -> None:
    app = make_app(review=replace(BACKGROUND, max_failures=2))
    reviews = app.state.reviews
    tried: list[int] = []

    def broken_on_deal_0(record: JSON, deal: int, quick: bool, budget: float, seed: int) -> JSON:
        tried.append(deal)
        if deal == 0:
            raise RuntimeError("this analysis fails")
        return compute_review(record, deal, quick, budget, seed)

    reviews.compute = broken_on_deal_0
    with TestClient(app) as client:
        table_id, token = new_table(client, seed=7, max_deals=2)
        assert play_until(client, table_id, token, 2)["over"]
        assert run_until_idle(client, reviews) == ["started"] * 3 + ["idle"]
        assert tried == [0, 0, 1]
        assert queue_rows(app) == [(table_id, 2, 2, 1, True)]
        assert review(client, table_id, 1).status_code == 200


def test_a_game_begun_from_a_position_is_not_analysed(make_app: MakeApp) -> None:
    app = make_app(review=BACKGROUND)
    manager = app.state.manager
    with TestClient(app) as client:
        table = manager.create(
            game="mariage",
            profile="mariage",
            name="Ana",
            language="en",
            levels=["random"],
            seed=12,
            start={"game_points": [6, 6]},
        )
        assert play_until(client, table.id, table.token, 99)["over"]
        assert run_until_idle(client, app.state.reviews) == ["idle"]
        assert queue_rows(app) == [(table.id, 0, 0, 0, True)]
        assert app.state.reviews.started == 0


def test_the_background_loop_analyses_a_finished_game_by_itself(make_app: MakeApp) -> None:
    app = make_app(review=replace(BACKGROUND, poll_s=0.05))
    with TestClient(app) as client:
        table_id, token = new_table(client, game="mariage", seed=3, max_deals=1)
        assert play_until(client, table_id, token, 1)["over"]
        for _ in range(600):  # (waiting for the loop, not timing it)
            if queue_rows(app) == [(table_id, 1, 1, 0, True)]:
                break
            time.sleep(0.05)
        assert queue_rows(app) == [(table_id, 1, 1, 0, True)]
        assert stats_row(client)["analysed_deals"] == 1
        assert app.state.reviews.started == 1


def test_the_average_loss_counts_every_seat_a_person_sat_at(db_url: str) -> None:
    """An invited person's analysed deals count for them at their own seat (they counted
    only for the table's creator, and at the creator's seat); a seat its person abandoned
    counts for nobody; a table from before the seat rows counts for its creator."""
    from sqlalchemy.orm import Session as DBSession

    from tapete.server import stats
    from tapete.server.db import SeatRow, TableRow, make_engine, upgrade, utcnow

    engine = make_engine(db_url)
    upgrade(engine)

    def table(owner: str, levels: list[str | None], **fields: Any) -> TableRow:
        return TableRow(
            game="mil", profile="club", seed=1, players=["Ana", "Bea", "Cid"], levels=levels,
            token="t" * 32, language="en", status="finished", created_at=utcnow(), owner=owner,
            **fields,
        )  # fmt: skip

    with DBSession(engine) as s, s.begin():
        shared, older = table("Ana", [None, None, "rules"]), table("Bea", ["rules", None, "rules"])
        left = table("Cid", [None, None, None], abandoned_seats=[1])
        s.add_all([shared, older, left])
        s.flush()
        s.add_all(
            [SeatRow(table_id=shared.id, seat=0, kind="person", name="Ana"),
             SeatRow(table_id=shared.id, seat=1, kind="person", name="Bea"),
             SeatRow(table_id=shared.id, seat=2, kind="computer", level="rules"),
             SeatRow(table_id=left.id, seat=1, kind="person", name="Bea")]
        )  # fmt: skip
        for t, losses in ((shared, [1.0, 2.5, 0.5]), (older, [9.0, 4.0, 9.0]), (left, [0, 7, 0])):
            s.add(
                DealReviewRow(
                    table_id=t.id,
                    deal=0,
                    quick=True,
                    seed=1,
                    seat_losses=losses,
                    review={},
                    created_at=utcnow(),
                )
            )
    with DBSession(engine) as s:
        assert stats.review_losses(s, "Ana") == {("mil", "club"): (1, 1.0)}
        assert stats.review_losses(s, "Bea") == {("mil", "club"): (2, 6.5)}
        # every finished game with a seat of theirs waits (none is in the queue yet)
        assert stats.games_waiting(s, "Bea") == {("mil", "club"): 3}
        assert stats.games_waiting(s, "Ana") == {("mil", "club"): 1}
    engine.dispose()
