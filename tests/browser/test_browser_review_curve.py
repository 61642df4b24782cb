"""The deal review's curve keeps its points off the axes' labels: the current step's dot at
step 0 (the highest value, at the top left) covered the top value label ("27"). The review
comes from a stand-in answer (page.route), so no deal is played nor analysed here."""

from __future__ import annotations

from typing import Any

from browser_helpers import tid

CARDS = ["AS", "TS", "KS", "QS", "JS", "9S"]


def _review(values: list[float | None]) -> dict[str, Any]:
    """A Mariage deal's review: one step per value, the first the current one."""
    seats = [
        {"decisions": 0, "expected_loss": 0, "open_loss": 0, "mistakes": 0, "blunders": 0}
        for _ in range(2)
    ]
    report = {
        "players": ["Ana", "Bruno"],
        "result": {"winner": 0, "game_points": 2, "reason": "claim"},
        "open_values": values,
        "decisions": [],
        "seats": seats,
        "complete": True,
    }
    steps = [
        {
            "index": i,
            "seat": i % 2,
            "tricks_done": i,
            "hands": [CARDS, CARDS],
            "trick": [],
            "action": {"type": "play", "card": "AS"},
        }
        for i in range(len(values))
    ]
    return {"report": report, "steps": steps}


def _answer(body: dict[str, Any]) -> Any:
    """A route handler that answers ``body`` (one argument: Playwright would pass two)."""
    return lambda route: route.fulfill(json=body)


#: the bounding boxes (in the page) of the current dot, of every point and of the labels
BOXES = """() => { const svg = document.querySelector('#review [data-testid="review-curve"]');
    const box = (e) => { const r = e.getBoundingClientRect();
        return { left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                 text: e.textContent }; };
    return { now: box(svg.querySelector('circle.now')),
             points: [...svg.querySelectorAll('circle')].map(box),
             labels: [...svg.querySelectorAll('text')].map(box) }; }"""


def _overlap(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return (
        a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and (b["top"] < a["bottom"])
    )


def test_the_current_dot_never_covers_an_axis_label(new_page, live_server) -> None:  # type: ignore[no-untyped-def]
    page = new_page(locale="es-ES")
    page.goto(live_server.url)
    page.wait_for_selector(f"{tid('newgame')}[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector(f"{tid('newgame')}:not([open])", state="attached")
    for values in ([27, 22, 19, 12, 8, 3, 0], [27.5, None, 30, 0], [0, 10, 27]):
        page.unroute("**/api/tables/*/review/*")
        page.route("**/api/tables/*/review/*", _answer(_review(values)))
        page.evaluate(
            """async () => { const r = await import('/static/js/review.js');
                r.openReview(0, { table: 1, token: null, deals: 1 }); }"""
        )
        page.wait_for_selector(f"#review[open] {tid('review-curve')} circle.now")
        boxes = page.evaluate(BOXES)
        assert boxes["labels"], boxes
        for point in boxes["points"]:
            covered = [x["text"] for x in boxes["labels"] if _overlap(point, x)]
            assert covered == [], (values, point, covered)
        # at step 0 the dot is the first point: at the top left for a falling curve
        top = min(boxes["labels"], key=lambda x: x["top"])
        assert not _overlap(boxes["now"], top), (values, boxes["now"], top)
        page.click(tid("review-close"))
        page.wait_for_selector("#review:not([open])", state="attached")
    assert page.js_errors == []
