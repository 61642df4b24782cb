"""Every import the analysis takes from the bots, in one place.

The exact Mariage solver lives in ``tapete.bots.mariage_search`` today and the hidden-card
sampling in ``tapete.bots.sampling``; both are moving (the solver into ``tapete.solver``, the
sampling into ``tapete.bots.mil`` and ``tapete.bots.mariage``). When they move, only the
imports below change.
"""

from __future__ import annotations

from tapete.bots.mariage_search import _playout as mariage_playout
from tapete.bots.mariage_search import build_state as mariage_state
from tapete.bots.mariage_search import solve_strict as mariage_solve_strict
from tapete.bots.mil_rules import best_gives as mil_best_gives
from tapete.bots.mil_rules import keep_value as mil_keep_value
from tapete.bots.mil_search import DEFENDER_VALUE as MIL_DEFENDER_VALUE
from tapete.bots.sampling import MariageInfo, MariageTracker, MilInfo, mil_info, sample_mariage
from tapete.bots.sampling import sample_mil_hands as sample_mil

__all__ = [
    "MIL_DEFENDER_VALUE",
    "MariageInfo",
    "MariageTracker",
    "MilInfo",
    "mariage_playout",
    "mariage_solve_strict",
    "mariage_state",
    "mil_best_gives",
    "mil_info",
    "mil_keep_value",
    "sample_mariage",
    "sample_mil",
]
