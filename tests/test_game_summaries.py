"""The game-level standing and finished deals, the same shape for every registered game."""

from __future__ import annotations

import json
import random

import pytest

from tapete.game import DealSummary
from tapete.games import kinds, new_game


@pytest.mark.parametrize("name", [k.name for k in kinds()])
def test_scores_and_finished_deals_agree_with_the_record(name: str) -> None:
    game = new_game(name, seed=11)
    rng = random.Random(5)
    while len(game.finished_deals) < 4 and not game.over:
        game.apply(rng.choice(game.legal_actions()))
    record = game.to_record()
    summaries = game.finished_deals
    assert all(isinstance(s, DealSummary) for s in summaries)
    assert [s.index for s in summaries] == list(range(len(summaries)))
    assert [s.record for s in summaries] == record["deals"][: len(summaries)]
    assert [s.dealer for s in summaries] == [d["dealer"] for d in record["deals"][: len(summaries)]]
    # the standing is the record's, as JSON numbers, and the deltas add up to it
    key = "scores" if name == "mil" else "match"
    assert game.scores == record[key]
    assert json.loads(json.dumps(game.scores)) == game.scores
    start = [0] * len(game.scores)
    # Mil: a barrel or bolt rule may move a score by more than the deal's delta; the sheet's
    # deltas are the change of the standing, so the sum still matches
    totals = [sum(s.deltas[i] for s in summaries) + start[i] for i in range(len(start))]
    assert totals == game.scores
    view_key = "scores" if name == "mil" else "match"
    assert game.view(None)[view_key] == game.scores


def test_mil_summary_fields() -> None:
    game = new_game("mil", seed=3)
    rng = random.Random(1)
    while len(game.finished_deals) < 3:
        game.apply(rng.choice(game.legal_actions()))
    s = game.finished_deals[2]
    assert (s.dealer, s.declarer, s.made, s.deltas) == (2, 2, False, (30, 90, -120))
    assert game.scores == [-60, -15, 5]
