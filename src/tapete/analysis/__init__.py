"""Deal review: what each decision cost, judged from the player's own knowledge and open-handed.

:func:`analyse_deal` takes a ``tapete/1`` record (one Mil game or Mariage match, finished or
not) and the index of one of its finished deals, and returns a JSON-safe report: every decision
of every seat with its ``expected_loss`` (from that seat's view only, over sampled hidden
cards), its ``open_loss`` (every card known, by the exact solvers), the best alternative and a
label; the open-hand value curve; for Mil what the talon held, the best contract it allowed and
whether the bid was makeable; and each seat's totals. The same ``seed`` gives the same report;
``budget`` bounds the CPU seconds of one deal (past it, the remaining decisions are
judged open-handed only and ``complete`` is false); ``quick`` judges open-handed only.

:func:`summary` keeps exactly the fields docs/analysis.md documents for ``tapete analyse
--json``. See docs/analysis.md for how to read a report.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Final

from tapete.analysis.core import LABELS, GameAnalysis, game_analysis, label_for
from tapete.analysis.mariage import MariageSettings
from tapete.analysis.mil import MilSettings
from tapete.errors import RecordError
from tapete.game import JSON
from tapete.games import kinds
from tapete.replay import replay

if TYPE_CHECKING:
    from tapete.analysis import mariage as _mariage
    from tapete.analysis import mil as _mil

    #: (for mypy) each game's analysis module has the shape the generic code asks for
    _HOOKS: tuple[GameAnalysis, ...] = (_mil, _mariage)

__all__ = [
    "LABELS",
    "THRESHOLDS",
    "MariageSettings",
    "MilSettings",
    "analyse_deal",
    "analyse_record",
    "deal_count",
    "label_for",
    "summary",
]

#: the fields of one deal in ``tapete analyse --json``, and of each decision and seat in it
SUMMARY_FIELDS = ("game", "deal", "open_values", "decisions", "seats")
DECISION_FIELDS = ("index", "seat", "action", "best", "expected_loss", "open_loss", "label")

#: per game, the least ``expected_loss`` for each label of :data:`LABELS` (in the game's unit;
#: each game's analysis module, ``kind(game).analysis``, holds its own)
THRESHOLDS: Final[Mapping[str, tuple[float, float, float]]] = {
    k.name: game_analysis(k.name).THRESHOLDS for k in kinds()
}


class _Replayed:
    """A record replayed once, its finished deals ready to analyse one by one."""

    def __init__(self, record: JSON, game_index: int) -> None:
        self.record = record
        self.game_index = game_index
        self.game = replay(record, index=game_index)
        #: the game's analysis module (``kind(record["game"]).analysis``)
        self.kind = game_analysis(record["game"])
        self.count = len(self.game.finished_deals)

    def analyse(
        self,
        deal: int,
        *,
        seed: int,
        quick: bool,
        budget: float | None,
        seats: set[int] | None,
    ) -> JSON:
        if not 0 <= deal < self.count:
            raise RecordError(
                f"deal {deal} is out of range: game {self.game_index} has {self.count} "
                f"finished deal(s) (0..{self.count - 1})"
            )
        report = self.kind.analyse_finished(
            self.record, self.game, deal, seed=seed, quick=quick, budget=budget, seats=seats
        )
        return {
            "game": self.game_index,
            "kind": self.record["game"],
            "profile": self.record.get("profile"),
            "players": list(self.record["players"]),
            "quick": quick,
            "seed": seed,
            **report,
        }


def deal_count(record: JSON, *, game_index: int = 0) -> int:
    """How many finished deals ``record`` holds (it is replayed and checked)."""
    return _Replayed(record, game_index).count


def analyse_deal(
    record: JSON,
    deal: int,
    *,
    game_index: int = 0,
    seed: int = 0,
    quick: bool = False,
    budget: float | None = 10.0,
    seats: set[int] | None = None,
) -> JSON:
    """The report of finished deal ``deal`` of ``record`` (see the module docstring).

    ``game_index`` is only the number written in the report's ``game`` field (the record's
    place in its file). ``seats``: judge only these seats' decisions. Raises
    :class:`RecordError` for a record that does not replay or a deal out of range."""
    return _Replayed(record, game_index).analyse(
        deal, seed=seed, quick=quick, budget=budget, seats=seats
    )


def analyse_record(
    record: JSON,
    deals: list[int] | None = None,
    *,
    game_index: int = 0,
    seed: int = 0,
    quick: bool = False,
    budget: float | None = 10.0,
    seats: set[int] | None = None,
) -> Iterator[JSON]:
    """Reports of the given finished deals of ``record`` (default: all), replaying it once."""
    r = _Replayed(record, game_index)
    for d in range(r.count) if deals is None else deals:
        yield r.analyse(d, seed=seed, quick=quick, budget=budget, seats=seats)


def summary(report: JSON) -> JSON:
    """Exactly the fields of ``tapete analyse --json`` (docs/analysis.md)."""
    out = {k: report[k] for k in SUMMARY_FIELDS}
    out["decisions"] = [{k: d[k] for k in DECISION_FIELDS} for d in report["decisions"]]
    return out
