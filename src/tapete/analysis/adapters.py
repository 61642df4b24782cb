"""Every import the analysis takes from the bots and the solvers, in one place: the exact
Mariage solver (``tapete.solver.mariage``), the hidden-card sampling of each game's players
(``tapete.bots.mil.sampling``, ``tapete.bots.mariage.tracker``) and the players' own
judgements that the analysis reuses.
"""

from __future__ import annotations

from tapete.bots.mariage.search import _playout as mariage_playout
from tapete.bots.mariage.tracker import MariageInfo, MariageTracker, sample_mariage
from tapete.bots.mariage.tracker import build_state as mariage_state
from tapete.bots.mil.rules import best_gives as mil_best_gives
from tapete.bots.mil.rules import keep_value as mil_keep_value
from tapete.bots.mil.sampling import MilInfo, mil_info
from tapete.bots.mil.sampling import sample_mil_hands as sample_mil
from tapete.bots.mil.search import DEFENDER_VALUE as MIL_DEFENDER_VALUE
from tapete.solver.mariage import solve_strict as mariage_solve_strict

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
