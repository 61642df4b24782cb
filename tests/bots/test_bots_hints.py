"""Hints (issue 5): one suggesting bot per table, and reasons a client can translate."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from bots_helpers import random_positions

from tapete.bots import make_bot, registry, suggest
from tapete.bots.reasons import REASONS, SAMPLED_AVG, reason_i18n, render

EN = Path(__file__).resolve().parents[2] / "src" / "tapete" / "web" / "i18n" / "en.json"


def _mariage_view() -> dict:
    g = random_positions("mariage", "mariage", 1, seed=12)[0]
    return dict(g.view(g.turn))


def test_two_tables_with_the_same_names_get_separate_suggesters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(registry, "_SUGGESTERS", type(registry._SUGGESTERS)())
    view = _mariage_view()
    a1, _ = suggest("mariage", view, key=101)
    a2, _ = suggest("mariage", view, key=102)
    assert a1.to_json() in view["legal"] and a2.to_json() in view["legal"]
    bots = list(registry._SUGGESTERS.values())
    assert len(bots) == 2 and bots[0] is not bots[1]
    # the same table asking again gets the same bot (its memory of the tricks)
    suggest("mariage", view, key=101)
    assert len(registry._SUGGESTERS) == 2
    assert registry._suggester("mariage", view, 101) is bots[0]


def test_the_suggester_cache_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_SUGGESTERS", type(registry._SUGGESTERS)())
    monkeypatch.setattr(registry, "_SUGGESTERS_MAX", 3)
    view = _mariage_view()
    first = registry._suggester("mariage", view, "t0")
    for i in range(1, 6):
        registry._suggester("mariage", view, f"t{i}")
        if i == 2:
            assert registry._suggester("mariage", view, "t0") is first  # recently used
    assert len(registry._SUGGESTERS) == 3
    assert registry._suggester("mariage", view, "t0") is not first  # evicted, rebuilt


def test_en_json_holds_the_reason_templates() -> None:
    en = json.loads(EN.read_text(encoding="utf-8"))
    for key, text in REASONS.items():
        assert en[f"hint_reason_{key}"] == text, key
    assert en["hint_reason_sampled_avg"] == SAMPLED_AVG
    extra = {k for k in en if k.startswith("hint_reason_")} - {
        f"hint_reason_{k}" for k in [*REASONS, "sampled_avg"]
    }
    assert extra == set()


def test_reason_i18n_examples() -> None:
    assert reason_i18n("Bid 120: your hand justifies up to 140.") == (
        "bid_justifies",
        {"value": "120", "ceiling": "140"},
    )
    assert reason_i18n("Give the 10♣: a card you can spare.") == ("give_spare", {"card": "TC"})
    assert reason_i18n(
        "Announce the ♥ marriage (+100) by leading the Q♥: hearts become trump."
    ) == ("announce_marriage", {"suit": "H", "value": "100", "card": "QH", "suit_name": "H"})
    assert reason_i18n(
        "Play the 9♦ on the A♦ (-0.4 game points on average over sampled deals)."
    ) == (
        "play_on_lead",
        {"card": "9D", "lead": "AD", "sampled_avg": "-0.4"},
    )
    assert reason_i18n("Not a sentence any bot writes.") is None


@pytest.mark.parametrize("game,profile", [("mil", "club"), ("mil", "casa"), ("mariage", "mariage")])
@pytest.mark.parametrize("name", ["rules", "search"])
def test_the_bots_reasons_map_and_render_back(game: str, profile: str, name: str) -> None:
    opts = {"budget": 30.0, "samples": 4, "bid_samples": 4} if name == "search" else {}
    bot = make_bot(game, name, profile=None if game == "mariage" else profile, **opts)
    keys = set()
    for g in random_positions(game, profile, 25, seed=33):
        view = g.view(g.turn)
        _action, reason = bot.explain(view, random.Random(1))  # type: ignore[attr-defined]
        found = reason_i18n(reason)
        assert found is not None, reason
        assert render(*found) == reason
        keys.add(found[0])
    assert len(keys) > 3
