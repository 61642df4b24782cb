"""The work of a deal review, in the review worker process: the analysis and the deal's
positions (:func:`compute_review`) and the worker's initializer (:func:`lower_priority`).

Apart from :mod:`tapete.server.review` so that a new worker process imports only what the
analysis needs (the engine, the analysis, the solver): the review's pickled jobs name their
function by its module, and a worker that imported the server's web and database stack
(Starlette, SQLAlchemy, the tables) to unpickle them spent about three times the CPU before
its first analysis, which a busy machine gives a worker at niceness 10 slowly.
"""

from __future__ import annotations

import contextlib
import os

from tapete.analysis import analyse_deal
from tapete.game import JSON
from tapete.replay import iter_replay
from tapete.server.hints import init_worker

__all__ = ["compute_review", "deal_steps", "lower_priority", "plain"]

#: the public fields of a position that the review shows at every step, when the game has them
_PUBLIC = ("trump", "talon", "indicator", "stock_count", "contract")


def plain(action: JSON) -> JSON:
    """An action's fields without its seat and with ``false`` flags left out."""
    return {k: v for k, v in action.items() if k != "seat" and v is not False}


def _last_trick(view: JSON) -> list[JSON]:
    last = view.get("last_trick")
    if last is None:
        tricks = view.get("tricks") or []
        last = tricks[-1] if tricks else None
    return list(last["cards"]) if isinstance(last, dict) else []


def deal_steps(record: JSON, deal: int) -> list[JSON]:
    """The position before every action of finished deal ``deal`` of ``record``, as the
    engine shows it: each seat's hand (``game.view(seat)``), the trick on the table and the
    one taken before it, how many tricks were taken (the index of the open-value curve's
    point), and the public fields of :data:`_PUBLIC` (``game.view(None)``).
    ``index`` is the action's index in the deal's recorded actions (``None`` for an action
    the format leaves out), as in the analysis report's decisions. Nothing after the deal's
    last action is read (the next deal's cards never enter a review)."""
    seats = len(record["players"])
    recorded: list[JSON] = record["deals"][deal]["actions"]
    steps: list[JSON] = []
    j = 0
    replay = iter_replay(record, check_results=False)
    try:
        for game, action in replay:
            done = len(game.finished_deals)
            if done < deal:
                continue
            if done > deal:
                break
            data = action.to_json()
            seat = game.turn
            index = None
            entry = recorded[j] if j < len(recorded) else {}
            if entry.get("seat") == seat and plain(entry) == plain(data):
                index = j
                j += 1
            public = game.view(None)
            step: JSON = {
                "index": index,
                "seat": seat,
                "action": data,
                "hands": [game.view(s)["hand"] for s in range(seats)],
                "trick": list(public.get("trick") or []),
                "last_trick": _last_trick(public),
                "tricks_done": sum(public.get("tricks_won") or []),
            }
            step.update({k: public[k] for k in _PUBLIC if k in public})
            steps.append(step)
    finally:
        replay.close()
    return steps


def compute_review(record: JSON, deal: int, quick: bool, budget: float, seed: int) -> JSON:
    """The stored review of one finished deal: the analysis report and the deal's steps.
    Pure and picklable (it runs in the worker process)."""
    report = analyse_deal(record, deal, seed=seed, quick=quick, budget=budget)
    return {"report": report, "steps": deal_steps(record, deal)}


def lower_priority(nice: int) -> None:
    """The worker process's initializer: lower its priority below the server's (and, as
    every worker of the server, leave Ctrl-C to it and end with it: ``init_worker``)."""
    init_worker()
    if nice > 0 and hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(nice)
