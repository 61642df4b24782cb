"""The score chart's legend: each name beside its colour, none over the next, all inside the
chart. It placed the names at about 7 units a letter: a name of wide letters (24 Ms, cut to
13 and an ellipsis) ran over the next player's colour and name."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from browser_helpers import tid

#: a script: the chart of a three-deal Mil game drawn for ``players`` in the page, and where
#: each legend entry's mark and name lie once it is placed (SVG units)
DRAW = """async (players) => {
  const { scoreChart } = await import('/static/js/chart.js');
  const sheet = [[120, -100, 40], [240, -40, 100], [380, 0, 160]].map((scores) => (
    { scores, in_barrel: [false, false, false] }));
  sheet[2].in_barrel = [false, false, true];
  const svg = scoreChart({ game: 'mil', players, sheet, target: 1000 }, 'scores');
  document.body.append(svg);
  const legend = svg.querySelector('g.legend');
  for (let i = 0; i < 30 && legend.dataset.placed !== 'true'; i++) {
    await new Promise((r) => requestAnimationFrame(r));
  }
  const boxes = [...legend.children].map((e) => {
    const b = e.getBBox();
    return { tag: e.tagName, x: b.x, right: b.x + b.width };
  });
  return { placed: legend.dataset.placed, boxes, width: svg.viewBox.baseVal.width };
}"""

NAMES = [
    ["M" * 24, "W" * 24, "Ana"],
    ["Ana", "Bea", "Cid"],
    ["MMMMMMMMMMMMMM", "WWWWWWWWWWWWWW", "ÉÉÉÉÉÉÉÉÉÉÉÉÉÉ"],
]


@pytest.mark.parametrize("players", NAMES, ids=["wide-cut", "short", "wide-fourteen"])
def test_the_legend_names_never_overlap_and_stay_inside(
    new_page: Any, live_server: Any, players: list[str]
) -> None:
    page = new_page(locale="en-GB")
    page.goto(live_server.url)
    page.wait_for_selector(f"{tid('newgame')}[open]")
    drawn = page.evaluate(DRAW, players)
    boxes = drawn["boxes"]
    assert len(boxes) == 2 * (len(players) + 1)  # (a mark and a name each, and the barrel's)
    for before, after in itertools.pairwise(boxes):
        assert before["right"] <= after["x"] + 0.5, (before, after)
    assert boxes[0]["x"] >= 0 and boxes[-1]["right"] <= drawn["width"], boxes
    assert drawn["placed"] == "true"  # (by the names' measured widths)
    assert page.js_errors == []
