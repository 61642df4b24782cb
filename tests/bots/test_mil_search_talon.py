"""Mil ``search`` with the talon: it plays on rather than concede (rospis) unless asked to."""

from __future__ import annotations

import random

from tapete.bots.mil.rules import rules_decision
from tapete.bots.mil.search import MilSearchBot
from tapete.mil.actions import Give, Pass, Redeal, Rospis
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


def test_a_hopeless_talon_and_contract_are_told_so_not_made_in_0_percent() -> None:
    # (the hints read "with the K♣ gone you make 100 in 0% of the likely deals" and "play
    # for 100: you make it in 0%; more is not worth the risk"; club seed 4: the opener's
    # forced 100 with a hand that makes it in none of the likely deals)
    g = MilGame("club", seed=4)
    while g.phase == "bidding":
        g.apply(next((a for a in g.legal_actions() if isinstance(a, Pass)), g.legal_actions()[0]))
    bot = MilSearchBot("club")
    rng = random.Random(0)
    said = []
    while g.phase in ("talon", "give", "contract"):
        assert g.turn is not None
        action, why = bot.explain(g.view(g.turn), rng)
        said.append((why.key, str(why)))
        g.apply(action)
    assert said[0][0] == "give_least_bad" and "0%" not in said[0][1]
    assert (
        said[0][1].startswith("Give the ") and "no gift makes 100 in the likely deals" in said[0][1]
    )
    assert said[-1] == (
        "contract_out_of_reach",
        "Play for 100, the bid: you make no contract in the likely deals; the lowest loses "
        "the least.",
    )
    assert g.view(None)["contract"] == 100
