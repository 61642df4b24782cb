"""Mil ``search`` with the talon: it plays on rather than concede (rospis) unless asked to."""

from __future__ import annotations

import random

from tapete.bots.mil.rules import rules_decision
from tapete.bots.mil.search import MilSearchBot
from tapete.mil.actions import Give, Redeal, Rospis
from tapete.mil.game import MilGame


def _talon_views(n: int) -> list[tuple[dict[str, object], int]]:
    """Club games driven by the rules player up to the declarer's talon decision, where
    rospis is legal: ``(view, seed)``."""
    out: list[tuple[dict[str, object], int]] = []
    seed = 0
    while len(out) < n:
        seed += 1
        g = MilGame("club", seed=seed)
        rng = random.Random(seed)
        while not g.over and g.phase not in ("talon", "give"):
            seat = g.turn
            assert seat is not None
            g.apply(rules_decision(g.view(seat), rng)[0])
        if g.over or g.turn is None:
            continue
        if any(isinstance(a, Rospis) for a in g.legal_actions()):
            out.append((g.view(g.turn), seed))
    return out


def test_search_never_concedes_by_default() -> None:
    for view, seed in _talon_views(8):
        bot = MilSearchBot("club", budget=0.05, samples=4, bid_samples=4)
        action, why = bot.explain(view, random.Random(seed))
        assert not isinstance(action, Rospis), why
        assert isinstance(action, (Give, Redeal)), why
        assert why.key.startswith(("give_", "redeal_")), why
        assert str(why).endswith(".") and str(why)[0].isupper()


def test_rospis_option_is_read() -> None:
    assert MilSearchBot("club").rospis is False
    assert MilSearchBot("club", rospis=True).rospis is True
