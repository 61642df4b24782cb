"""What every analysed decision and deal carries, the labels, and what a game's analysis
module provides (:class:`GameAnalysis`, found through ``kind(game).analysis``).

A decision's losses are in the game's own unit (its module's ``UNIT``: Mil in deal-score points,
where a lost chance of making the contract costs twice the contract times the change in that
chance and, when the chance is the same, the declarer's raw points; Mariage in game points).
Both losses are never negative: the best alternative is the one the loss is measured from.
"""

from __future__ import annotations

import importlib
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, cast

from tapete.game import JSON, Game
from tapete.games import kind

__all__ = [
    "LABELS",
    "Budget",
    "Decision",
    "GameAnalysis",
    "decision_rng",
    "game_analysis",
    "grade",
    "label_for",
    "seat_totals",
]

#: the labels, mildest first
LABELS: Final = ("inaccuracy", "mistake", "blunder")


class GameAnalysis(Protocol):
    """What a game's analysis module (``kind(game).analysis``, e.g. :mod:`tapete.analysis.mil`)
    exports: the generic code (the report, the text, the command) asks it and names no game."""

    @property
    def THRESHOLDS(self) -> tuple[float, float, float]:
        """The least ``expected_loss`` for each label of :data:`LABELS`, in the game's unit."""
        ...

    @property
    def UNIT(self) -> str:
        """The unit of the seats' totals in the readable report ("points", "game points")."""
        ...

    @property
    def LEAST(self) -> float:
        """A loss below this rounds to nothing in the unit shown: it gets no line."""
        ...

    @property
    def PHASE_WORDS(self) -> Mapping[str, str]:
        """Where a decision without a trick number was taken, in words, by its phase."""
        ...

    def analyse_finished(
        self,
        record: JSON,
        game: Game,
        deal: int,
        *,
        seed: int,
        quick: bool,
        budget: float | None,
        seats: set[int] | None,
    ) -> JSON:
        """The game's own fields of the report on finished deal ``deal`` of ``game`` (replayed
        from ``record``): at least ``deal``, ``open_values``, ``decisions``, ``seats``,
        ``complete``."""
        ...

    def amount(self, x: float) -> str:
        """A loss in words: ``about 14 points``."""
        ...

    def headline(self, report: JSON) -> list[str]:
        """The lines under a report's first one: what happened in the deal."""
        ...


def game_analysis(game: str) -> GameAnalysis:
    """The analysis module of a registered game (``kind(game).analysis``)."""
    module: Any = importlib.import_module(kind(game).analysis)
    return cast(GameAnalysis, module)


def grade(thresholds: tuple[float, float, float], loss: float | None) -> str | None:
    """The label of a loss under ``thresholds`` (the least loss for each of :data:`LABELS`;
    ``None``: below them, or not judged)."""
    if loss is None:
        return None
    out = None
    for name, least in zip(LABELS, thresholds, strict=True):
        if loss >= least:
            out = name
    return out


def label_for(game: str, loss: float | None) -> str | None:
    """The label of a loss under ``game``'s thresholds (``None``: below them, or not judged)."""
    return grade(game_analysis(game).THRESHOLDS, loss)


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
    """Per seat: the decisions judged (a loss found either way), the total of each loss
    over the decisions judged that way (None when the seat's decisions were listed but none
    was: a conceded deal's rospis, the expected loss of ``quick``; a total of 0 read as
    perfect play), the mistakes and the blunders."""
    out = []
    for s in range(seats):
        mine = [d for d in decisions if d.seat == s]
        out.append(
            {
                "decisions": sum(
                    1 for d in mine if d.expected_loss is not None or d.open_loss is not None
                ),
                "expected_loss": _total([d.expected_loss for d in mine]),
                "open_loss": _total([d.open_loss for d in mine]),
                "mistakes": sum(1 for d in mine if d.label == "mistake"),
                "blunders": sum(1 for d in mine if d.label == "blunder"),
            }
        )
    return out


def _total(losses: list[float | None]) -> float | None:
    """The sum of the losses found (0 for no decision at all); None when none was."""
    found = [x for x in losses if x is not None]
    if losses and not found:
        return None
    return round(sum(found), 3)
