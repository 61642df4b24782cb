"""What every analysed decision and deal carries, the labels and their thresholds.

A decision's losses are in the game's own unit: Mil in deal-score points (a lost chance of
making the contract costs twice the contract times the change in that chance; when the chance
is the same, the declarer's raw points), Mariage in game points. Both losses are never negative:
the best alternative is the one the loss is measured from.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any, Final

from tapete.game import JSON

__all__ = [
    "LABELS",
    "THRESHOLDS",
    "Budget",
    "Decision",
    "decision_rng",
    "label_for",
    "seat_totals",
]

#: the labels, mildest first
LABELS: Final = ("inaccuracy", "mistake", "blunder")

#: per game, the least ``expected_loss`` for each label of :data:`LABELS` (Mil: deal-score
#: points, where one contract of 120 lost is 240; Mariage: game points, a hand is worth 1 to 3)
THRESHOLDS: Final[dict[str, tuple[float, float, float]]] = {
    "mil": (10.0, 25.0, 60.0),
    "mariage": (0.2, 0.5, 1.0),
}


def label_for(game: str, loss: float | None) -> str | None:
    """The label of a loss under :data:`THRESHOLDS` (``None``: below them, or not judged)."""
    if loss is None:
        return None
    out = None
    for name, least in zip(LABELS, THRESHOLDS[game], strict=True):
        if loss >= least:
            out = name
    return out


def decision_rng(seed: int, deal: int, index: int, salt: str = "") -> random.Random:
    """The private random stream of one decision: the same seed gives the same samples
    whatever else was analysed before it."""
    return random.Random(f"{seed}/{deal}/{index}/{salt}")


class Budget:
    """An allowance of CPU seconds (of the analysing thread, so that a busy machine or other
    threads do not eat it) for one deal; once it is spent, the remaining decisions are judged
    open-handed only and the report says it was cut short."""

    def __init__(self, seconds: float | None) -> None:
        self.deadline = None if seconds is None else time.thread_time() + seconds
        self.exhausted = False

    def left(self) -> bool:
        if self.deadline is not None and time.thread_time() > self.deadline:
            self.exhausted = True
        return not self.exhausted


@dataclass
class Decision:
    """One decision of one seat, judged."""

    #: the action's index in the deal's recorded ``actions`` (None: an action records omit,
    #: e.g. Mariage's decline to claim)
    index: int | None
    seat: int
    action: JSON
    best: JSON | None = None
    expected_loss: float | None = None
    open_loss: float | None = None
    label: str | None = None
    #: for the readable report: the phase, the trick number (from 1) and the side
    phase: str = ""
    trick: int | None = None
    side: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> JSON:
        return {
            "index": self.index,
            "seat": self.seat,
            "action": self.action,
            "best": self.best,
            "expected_loss": _round(self.expected_loss),
            "open_loss": _round(self.open_loss),
            "label": self.label,
            "phase": self.phase,
            "trick": self.trick,
            "side": self.side,
        }


def _round(x: float | None) -> float | None:
    return None if x is None else round(max(0.0, x), 3)


def seat_totals(decisions: list[Decision], seats: int) -> list[JSON]:
    """Per seat: decisions judged, total losses, mistakes and blunders."""
    out = []
    for s in range(seats):
        mine = [d for d in decisions if d.seat == s]
        out.append(
            {
                "decisions": len(mine),
                "expected_loss": round(sum(d.expected_loss or 0.0 for d in mine), 3),
                "open_loss": round(sum(d.open_loss or 0.0 for d in mine), 3),
                "mistakes": sum(1 for d in mine if d.label == "mistake"),
                "blunders": sum(1 for d in mine if d.label == "blunder"),
            }
        )
    return out
