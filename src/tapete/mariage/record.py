"""Mariage's hooks for the shared ``tapete/1`` reader (:mod:`tapete.reader`).

:data:`READER` tells the reader how a match starts from a record (its ``start``, the first
dealer, the recorded hands in order), that the winner of the last trick of a closed hand
declined to claim when the hand's actions stop there (``Decline``, which the format does not
write), and which results to recompute. A last hand without ``result`` is a hand in
progress: the match stands where the record stops (after a closed hand's last trick: the
claim still to be chosen, no ``Decline`` put back). A ``start`` without ``dealer`` takes the
first hand's dealer. :func:`replay_mariage` replays a Mariage
record with it.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from tapete.cards import MARIAGE_DECK
from tapete.errors import RecordError
from tapete.game import JSON, DealCards, RecordReader
from tapete.mariage.actions import CLAIM, DECLINE, Action, action_from_json
from tapete.mariage.game import MariageGame, deal_seeded
from tapete.mariage.state import HAND_SIZE, STOCK_SIZE
from tapete.reader import replay_with

__all__ = ["READER", "replay_mariage"]


def _start(record: JSON, deals: list[DealCards], seeds: list[bytes | None]) -> MariageGame:
    start = record.get("start")
    # (a start without "dealer": the first hand's dealer, as records.md says and Mil reads it;
    # a start's own dealer wins inside MariageGame; no hand yet: a new match's lot, drawn from
    # the seed, as Mil's reader does)
    first = record["deals"][0]["dealer"] if deals else None
    try:
        return MariageGame(
            seed=record["seed"],
            players=record["players"],
            start=start,
            deals=deals,
            first_dealer=first,
            deal_seeds=lambda k: seeds[k] if k < len(seeds) else None,
        )
    except ValueError as exc:
        raise RecordError(str(exc)) from None


def _nothing(game: MariageGame, seat: int, action: Action) -> Iterator[Action]:
    return iter(())


def _declines(game: MariageGame) -> Iterator[Action]:
    """The winner of the last trick of a closed hand did not claim."""
    state = game.state
    if not state.done and state.legal_actions() == [CLAIM, DECLINE]:
        yield DECLINE


def _result(game: MariageGame, index: int) -> JSON:
    result: JSON = game.finished[index]["result"]
    return result


def _final(game: MariageGame) -> JSON:
    return {"match": list(game.match), "winner": game.winner}


READER: Final = RecordReader[MariageGame](
    name="mariage",
    title="Mariage",
    seats=2,
    profiles=("mariage",),
    hand_size=HAND_SIZE,
    rest="stock",
    rest_size=STOCK_SIZE,
    deck=MARIAGE_DECK,
    deck_note="Mariage uses the 32 cards",
    final_fields=("match", "winner"),
    fractional=frozenset(),
    in_progress=True,
    start=_start,
    dealer=lambda game: game.state.dealer,
    parse_action=action_from_json,
    before=_nothing,
    after=_declines,
    finished=lambda game: len(game.finished),
    result=_result,
    final=_final,
    deal_seeded=deal_seeded,
)


def replay_mariage(record: JSON, *, check_results: bool = True) -> MariageGame:
    """Rebuild the match of ``record`` through the engine.

    Every action must be legal for the seat whose turn it is; with ``check_results`` every
    hand's ``result`` and the final ``match`` and ``winner`` must equal what the engine
    computes. A last hand without ``result`` is a hand in progress: the returned game stands
    where the record stops.
    """
    return replay_with(READER, record, check_results=check_results)
